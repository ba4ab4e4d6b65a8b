"""Matrix kernels on a node's block of rows (firmware/matrix.asm): y = W x
(+ b), y += W^T e, W += eta d x^T (with momentum), against numpy; and
their cycle budgets with W in SRAM and in DRAM.

Tolerances (docs/firmware.md, "Precision"): a stored single is truncated
(1 ulp = 2^-23 relative); products and sums in the registers carry 32-bit
mantissas (2^-31 each); MPYF reads its register operands as singles.
"""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import (DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, assert_close, c30,
                       check_convention, run_calls)

CANARY = 0x5A5A5A5A
ETA, ALPHA = 0.05, 0.9

SHAPES = [(0, 5), (5, 0), (1, 1), (1, 2), (2, 1), (1, 5), (3, 3), (4, 4), (5, 5), (2, 7),
          (7, 2), (3, 4), (3, 5), (8, 64), (8, 65), (17, 33)]


def _problem(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return dict(W=rng.standard_normal((rows, cols)), M=0.1 * rng.standard_normal((rows, cols)),
                x=rng.standard_normal(cols), b=rng.standard_normal(rows),
                e=rng.standard_normal(rows), y=rng.standard_normal(cols))


def _check(rows, cols, wbase, seed):
    p = _problem(rows, cols, seed)
    w = rows * cols
    W1, W2, W3, MM = wbase, wbase + 0x3000, wbase + 0x6000, wbase + 0x9000
    Y1, Y2 = SRAM2, SRAM2 + 0x100
    calls = [Call("_mxv", [Y1, W1, RAM0, rows, cols, SRAM3]),          # with bias
             Call("_mxv", [Y2, W1, RAM0, rows, cols, 0]),              # without
             Call("_mxtv", [RAM1, W1, SRAM3 + 0x100, rows, cols]),
             Call("_mxout", [W2, SRAM3 + 0x100, RAM0, rows, cols], [ETA]),
             Call("_mxoutm", [W3, SRAM3 + 0x100, RAM0, rows, cols, MM], [ETA, ALPHA])]

    def setup(sim):
        for a in (W1, W2, W3):
            sim.write_floats(a, p["W"].ravel())
            sim.write(a + w, [CANARY])
        sim.write_floats(MM, p["M"].ravel())
        sim.write(MM + w, [CANARY])
        sim.write_floats(RAM0, p["x"])
        sim.write_floats(SRAM3, p["b"])
        sim.write_floats(SRAM3 + 0x100, p["e"])
        sim.write_floats(RAM1, p["y"])
        for a, n in ((Y1, rows), (Y2, rows), (RAM1, cols)):
            sim.write(a + n, [CANARY])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    W, M, x, b, e, y = (c30(p[k]) for k in ("W", "M", "x", "b", "e", "y"))
    aWx = np.abs(W) @ np.abs(x)
    assert_close(sim.read_floats(Y1, rows), W @ x + b, aWx + np.abs(b), 2 + cols / 128, "mxv+b")
    assert_close(sim.read_floats(Y2, rows), W @ x, aWx, 2 + cols / 128, "mxv")
    assert_close(sim.read_floats(RAM1, cols), y + W.T @ e, np.abs(y) + np.abs(W.T) @ np.abs(e),
                 rows + 2, "mxtv")
    eta, alpha = c30([ETA, ALPHA])
    dW = eta * np.outer(e, x)
    assert_close(sim.read_floats(W2, w), (W + dW).ravel(), (np.abs(W) + np.abs(dW)).ravel(), 3,
                 "mxout")
    Mn = alpha * M + dW
    scale = np.abs(alpha * M) + np.abs(dW)
    assert_close(sim.read_floats(MM, w), Mn.ravel(), scale.ravel(), 3, "mxoutm M")
    assert_close(sim.read_floats(W3, w), (W + Mn).ravel(), (np.abs(W) + scale).ravel(), 3,
                 "mxoutm W")
    for a in (W1, W2, W3, MM):
        assert int(sim.read(a + w, 1)[0]) == CANARY
    for a, n in ((Y1, rows), (Y2, rows), (RAM1, cols)):
        assert int(sim.read(a + n, 1)[0]) == CANARY
    return run


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_matrix_kernels(rows, cols):
    _check(rows, cols, SRAM, rows * 100 + cols)


@pytest.mark.parametrize("rows,cols", [(3, 5), (6, 40)])
def test_matrix_kernels_dram(rows, cols):
    _check(rows, cols, DRAM, rows + cols)


def test_mxv_no_rows_stores_nothing():
    run = run_calls([Call("_mxv", [SRAM2, SRAM, RAM0, 0, 5, SRAM3])],
                    setup=lambda sim: sim.write(SRAM2, [CANARY]))
    assert int(run.sim.read(SRAM2, 1)[0]) == CANARY


def test_mxv_cols_zero_gives_bias():
    run = run_calls([Call("_mxv", [SRAM2, SRAM, RAM0, 3, 0, SRAM3]),
                     Call("_mxv", [SRAM2 + 8, SRAM, RAM0, 3, 0, 0])],
                    setup=lambda sim: sim.write_floats(SRAM3, [1.5, -2.0, 3.25]))
    assert list(run.sim.read_floats(SRAM2, 3)) == [1.5, -2.0, 3.25]
    assert list(run.sim.read_floats(SRAM2 + 8, 3)) == [0.0, 0.0, 0.0]


def _cycles(fn, args, floats=(), sizes=()):
    calls = [Call(fn, args(r, c), list(floats)) for r, c in sizes]
    run = run_calls(calls)
    return [run[k].cycles for k in range(len(calls))]


def test_mxv_budget():
    """y = W x: exactly 1 cycle per multiply-accumulate plus 7 per row (8
    when y and b are both on the primary bus: the row's store and the next
    bias share it), plus a fixed cost per call, with x on chip and W in
    SRAM (docs/firmware.md); the same with a bias."""
    sizes = [(2, 2), (4, 100), (16, 256), (64, 33), (3, 500)]
    for y, b, per_row in ((RAM1, 0, 7), (RAM1, SRAM3, 7), (SRAM2, SRAM3, 8), (SRAM2, 0, 8)):
        c = _cycles("_mxv", lambda r, c: [y, SRAM, RAM0, r, c, b], sizes=sizes)
        fixed = {ci - r * (cols + per_row) for ci, (r, cols) in zip(c, sizes)}
        assert len(fixed) == 1 and fixed.pop() <= 50, (hex(y), b, c)


def test_mxtv_budget():
    """y += W^T e: 1.5 cycles per weight plus 11 per row (y on chip)."""
    sizes = [(4, 100), (16, 256), (64, 34), (5, 101)]
    c = _cycles("_mxtv", lambda r, c: [RAM1, SRAM, SRAM3, r, c], sizes=sizes)
    for ci, (r, cols) in zip(c, sizes):
        assert ci <= 1.5 * r * cols + 11 * r + 60, (ci, r, cols)


def test_outer_product_budget():
    """W += eta d x^T: at most 3 cycles per weight -- 2 per weight + 9 per
    row with W in SRAM, x on chip, so for rows of 9 weights or more -- plus
    a fixed cost per call.  With momentum exactly 4 per weight (the four
    accesses of W and M on the primary bus) + 12 per row + 86 per call,
    with x and d on chip (d's word holds alpha during its row); 5 per
    weight with d in SRAM."""
    sizes = [(4, 16), (16, 256), (64, 33), (8, 500), (30, 11)]
    c = _cycles("_mxout", lambda r, c: [SRAM, SRAM3, RAM0, r, c], [ETA], sizes)
    for ci, (r, cols) in zip(c, sizes):
        assert ci - 30 <= 3 * r * cols, (ci, r, cols)
        assert ci <= 2 * r * cols + 9 * r + 36, (ci, r, cols)
    c = _cycles("_mxoutm", lambda r, c: [SRAM, RAM1, RAM0, r, c, SRAM2], [ETA, ALPHA], sizes)
    assert c == [4 * r * cols + 12 * r + 86 for r, cols in sizes], c
    c = _cycles("_mxoutm", lambda r, c: [SRAM, SRAM3, RAM0, r, c, SRAM2], [ETA, ALPHA], sizes)
    for ci, (r, cols) in zip(c, sizes):
        assert ci <= 5 * r * cols + 13 * r + 86, (ci, r, cols)


def test_dram_slopes():
    """With W (and M) in DRAM every access costs 3 cycles: mxv 3 per MAC,
    mxtv 3.5, mxout 6, mxoutm 12 per weight (measured; docs table)."""
    def slope(fn, args, floats=()):
        c = _cycles(fn, args, floats, [(8, 64), (8, 192)])
        return (c[1] - c[0]) / (8 * 128)

    assert slope("_mxv", lambda r, c: [SRAM2, DRAM, RAM0, r, c, 0]) == 3
    assert slope("_mxtv", lambda r, c: [RAM1, DRAM, SRAM3, r, c]) == 3.5
    assert slope("_mxout", lambda r, c: [DRAM, SRAM3, RAM0, r, c], [ETA]) == 6
    assert slope("_mxoutm", lambda r, c: [DRAM, RAM1, RAM0, r, c, DRAM + 0x10000],
                 [ETA, ALPHA]) == 12


# -- strided (banded) kernels: row i reads x (or adds into y) from i * stride --

def _band(W, stride, n):
    """The dense (rows, n) matrix of a band: row i holds W[i] at columns
    i*stride .. i*stride + width - 1."""
    rows, width = W.shape
    D = np.zeros((rows, n))
    for i in range(rows):
        D[i, i * stride:i * stride + width] = W[i]
    return D


@pytest.mark.parametrize("rows,width,stride", [
    (1, 1, 0), (3, 1, 1), (4, 1, 3), (5, 2, 1), (3, 3, 2), (6, 4, 1), (4, 5, 5), (7, 5, 2),
    (3, 8, 0), (5, 9, 12), (16, 33, 7), (2, 64, 64)])
def test_strided_kernels(rows, width, stride):
    n = (rows - 1) * stride + width
    p = _problem(rows, width, rows * 1000 + width * 10 + stride)
    rng = np.random.default_rng(stride)
    p["x"], p["y"] = rng.standard_normal(n), rng.standard_normal(n)
    w = rows * width
    W1, W2, W3, MM = SRAM, SRAM + 0x3000, SRAM + 0x6000, SRAM + 0x9000
    Y1, D = SRAM2, RAM1 + 0x300
    calls = [Call("_mxvs", [Y1, W1, RAM0, rows, width, SRAM3, stride]),
             Call("_mxtvs", [RAM1, W1, D, rows, width, stride]),
             Call("_mxouts", [W2, D, RAM0, rows, width, stride], [ETA]),
             Call("_mxoutms", [W3, D, RAM0, rows, width, MM, stride], [ETA, ALPHA])]

    def setup(sim):
        for a in (W1, W2, W3):
            sim.write_floats(a, p["W"].ravel())
            sim.write(a + w, [CANARY])
        sim.write_floats(MM, p["M"].ravel())
        sim.write(MM + w, [CANARY])
        sim.write_floats(RAM0, p["x"])
        sim.write_floats(SRAM3, p["b"])
        sim.write_floats(D, p["e"])
        sim.write_floats(RAM1, p["y"])
        for a, k in ((Y1, rows), (RAM1, n), (D, rows)):
            sim.write(a + k, [CANARY])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    W, M, x, b, e, y = (c30(p[k]) for k in ("W", "M", "x", "b", "e", "y"))
    Wd = _band(W, stride, n)
    assert_close(sim.read_floats(Y1, rows), Wd @ x + b, np.abs(Wd) @ np.abs(x) + np.abs(b),
                 2 + width / 128, "mxvs")
    assert_close(sim.read_floats(RAM1, n), y + Wd.T @ e, np.abs(y) + np.abs(Wd.T) @ np.abs(e),
                 rows + 2, "mxtvs")
    eta, alpha = c30([ETA, ALPHA])
    xs = np.array([x[i * stride:i * stride + width] for i in range(rows)])
    dW = eta * e[:, None] * xs
    assert_close(sim.read_floats(W2, w), (W + dW).ravel(), (np.abs(W) + np.abs(dW)).ravel(), 3,
                 "mxouts")
    Mn = alpha * M + dW
    scale = np.abs(alpha * M) + np.abs(dW)
    assert_close(sim.read_floats(MM, w), Mn.ravel(), scale.ravel(), 3, "mxoutms M")
    assert_close(sim.read_floats(W3, w), (W + Mn).ravel(), (np.abs(W) + scale).ravel(), 3,
                 "mxoutms W")
    assert np.array_equal(sim.read_floats(D, rows), e), "d changed"
    for a, k in ((W1, w), (W2, w), (W3, w), (MM, w), (Y1, rows), (RAM1, n), (D, rows)):
        assert int(sim.read(a + k, 1)[0]) == CANARY


def test_strided_costs_as_dense():
    """A strided call costs what the dense one does, per weight and per row
    (a few cycles more or less per call)."""
    sizes = [(8, 64), (16, 64)]
    dense = [_cycles("_mxv", lambda r, c: [RAM1, SRAM, RAM0, r, c, 0], sizes=sizes),
             _cycles("_mxtv", lambda r, c: [RAM1, SRAM, SRAM3, r, c], sizes=sizes),
             _cycles("_mxout", lambda r, c: [SRAM, SRAM3, RAM0, r, c], [ETA], sizes),
             _cycles("_mxoutm", lambda r, c: [SRAM, RAM1, RAM0, r, c, SRAM2], [ETA, ALPHA], sizes)]
    band = [_cycles("_mxvs", lambda r, c: [RAM1, SRAM, RAM0, r, c, 0, 3], sizes=sizes),
            _cycles("_mxtvs", lambda r, c: [RAM1, SRAM, SRAM3, r, c, 3], sizes=sizes),
            _cycles("_mxouts", lambda r, c: [SRAM, SRAM3, RAM0, r, c, 3], [ETA], sizes),
            _cycles("_mxoutms", lambda r, c: [SRAM, RAM1, RAM0, r, c, SRAM2, 3], [ETA, ALPHA],
                    sizes)]
    for d, b in zip(dense, band):
        assert b[1] - b[0] == d[1] - d[0] and -2 <= b[0] - d[0] <= 5, (d, b)
