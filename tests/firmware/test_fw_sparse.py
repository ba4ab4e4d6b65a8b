"""Sparse kernels (firmware/sparse.asm) over a node's pair lists, against
numpy: y = W x (+ b) gathered through an index, e += W^T d scattered
through it, and the updates W += eta d x^T (with momentum) on the pairs;
their cycles per pair.

Tolerances as for the dense kernels (docs/firmware.md, "Precision").
"""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import (DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, assert_close, c30,
                       check_convention, run_calls)

CANARY = 0x5A5A5A5A
ETA, ALPHA = 0.05, 0.9
CNT, IDX = SRAM3 + 0x1000, SRAM3 + 0x2000
D, B = SRAM3, SRAM3 + 0x400


def _problem(cnt, src, seed):
    """Random pairs: row i has cnt[i] distinct sources out of src."""
    rng = np.random.default_rng(seed)
    idx = np.concatenate([np.sort(rng.choice(src, c, replace=False)) for c in cnt]
                         + [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    rows = len(cnt)
    row = np.repeat(np.arange(rows), cnt)
    k = len(idx)
    return dict(idx=idx, row=row, W=rng.standard_normal(k), M=0.1 * rng.standard_normal(k),
                x=rng.standard_normal(src), b=rng.standard_normal(rows),
                d=rng.standard_normal(rows), e=rng.standard_normal(src))


def _check(cnt, src, seed, wbase=SRAM):
    cnt = np.asarray(cnt, dtype=np.int64)
    p = _problem(cnt, src, seed)
    rows, k = len(cnt), len(p["idx"])
    W1, W2, W3, MM = wbase, wbase + 0x3000, wbase + 0x6000, wbase + 0x9000
    Y1, Y2, Y3 = SRAM2, SRAM2 + 0x400, SRAM2 + 0x800
    calls = [Call("_spmv", [Y1, W1, RAM0, rows, CNT, IDX, B]),        # with bias
             Call("_spmv", [Y2, W1, RAM0, rows, CNT, IDX, 0]),        # without
             Call("_spmv", [Y3, W1, RAM0, rows, CNT, IDX, Y3]),       # accumulate in place
             Call("_spmtv", [RAM1, W1, D, rows, CNT, IDX]),
             Call("_spout", [W2, D, RAM0, rows, CNT, IDX], [ETA]),
             Call("_spoutm", [W3, D, RAM0, rows, CNT, IDX, MM], [ETA, ALPHA])]

    def setup(sim):
        for a in (W1, W2, W3):
            sim.write_floats(a, p["W"])
            sim.write(a + k, [CANARY])
        sim.write_floats(MM, p["M"])
        sim.write(MM + k, [CANARY])
        sim.write(CNT, cnt)
        sim.write(IDX, p["idx"])
        sim.write_floats(RAM0, p["x"])
        sim.write_floats(B, p["b"])
        sim.write_floats(D, p["d"])
        sim.write_floats(RAM1, p["e"])
        sim.write_floats(Y3, p["b"])
        for a, n in ((Y1, rows), (Y2, rows), (Y3, rows), (RAM1, src)):
            sim.write(a + n, [CANARY])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    W, M, x, b, d, e = (c30(p[n]) for n in ("W", "M", "x", "b", "d", "e"))
    idx, row = p["idx"], p["row"]
    wx = np.zeros(rows)
    np.add.at(wx, row, W * x[idx])
    awx = np.zeros(rows)
    np.add.at(awx, row, np.abs(W * x[idx]))
    tol = 2 + max(cnt.max(initial=0), 1) / 128
    assert_close(sim.read_floats(Y1, rows), wx + b, awx + np.abs(b), tol, "spmv+b")
    assert_close(sim.read_floats(Y2, rows), wx, awx, tol, "spmv")
    assert_close(sim.read_floats(Y3, rows), wx + b, awx + np.abs(b), tol, "spmv accumulate")
    et = e.copy()
    np.add.at(et, idx, W * d[row])
    ae = np.abs(e).copy()
    np.add.at(ae, idx, np.abs(W * d[row]))
    assert_close(sim.read_floats(RAM1, src), et, ae, rows + 2, "spmtv")
    eta, alpha = c30([ETA, ALPHA])
    dW = eta * d[row] * x[idx]
    assert_close(sim.read_floats(W2, k), W + dW, np.abs(W) + np.abs(dW), 3, "spout")
    Mn = alpha * M + dW
    scale = np.abs(alpha * M) + np.abs(dW)
    assert_close(sim.read_floats(MM, k), Mn, scale, 3, "spoutm M")
    assert_close(sim.read_floats(W3, k), W + Mn, np.abs(W) + scale, 3, "spoutm W")
    for a in (W1, W2, W3, MM):
        assert int(sim.read(a + k, 1)[0]) == CANARY
    for a, n in ((Y1, rows), (Y2, rows), (Y3, rows), (RAM1, src)):
        assert int(sim.read(a + n, 1)[0]) == CANARY
    return run


@pytest.mark.parametrize("cnt,src", [
    ([], 4), ([0], 3), ([1], 1), ([1, 1, 1], 5), ([0, 2, 0, 3, 1, 0], 7), ([2, 3, 4, 5], 9),
    ([7] * 12, 40), ([1, 0, 0, 9, 2], 12), ([64, 1, 33], 100),
])
def test_sparse_kernels(cnt, src):
    _check(cnt, src, len(cnt) * 31 + src)


def test_sparse_kernels_dram():
    _check([3, 0, 5, 2, 8], 20, 9, DRAM)


def _cycles(cnt, src=64):
    cnt = np.asarray(cnt, dtype=np.int64)
    rows, k = len(cnt), int(cnt.sum())
    calls = [Call("_spmv", [RAM1, SRAM, RAM0, rows, CNT, IDX, 0]),
             Call("_spmtv", [RAM1, SRAM, SRAM2, rows, CNT, IDX]),
             Call("_spout", [SRAM, SRAM2, RAM0, rows, CNT, IDX], [ETA]),
             Call("_spoutm", [SRAM, SRAM2, RAM0, rows, CNT, IDX, SRAM2 + 0x4000], [ETA, ALPHA])]

    def setup(sim):
        sim.write(CNT, cnt)
        sim.write(IDX, np.arange(k) % src)

    run = run_calls(calls, setup=setup)
    return [run[i].cycles for i in range(len(calls))]


def test_sparse_budget():
    """Cycles per pair with x (or e) on chip and W, M, cnt, idx in SRAM:
    _spmv 4, _spmtv 5, _spout 5, _spoutm 7 (docs/firmware.md), plus a
    fixed cost per row and per call."""
    a = _cycles([10] * 8)
    b = _cycles([20] * 8)
    slopes = [(y - x) / 80 for x, y in zip(a, b)]
    assert slopes == [4, 5, 5, 7], slopes
