"""Kernels of connects from binary layers (firmware/binary.asm): the column
sums of the active units and the update of their columns only, against
numpy; their cost grows with the active units, not the layer's size."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import RAM0, RAM1, SRAM, SRAM2, SRAM3, DRAM, Call, c30, check_convention, run_calls

ROWS, COLS = 7, 50
ACTIVE = [0, 3, 4, 17, 49]
LIST = SRAM3                # count, then the indices
BIAS = RAM1 + 0x100


def _setup(W, y0, b, d, M=None):
    def setup(sim):
        sim.write_floats(SRAM, W.T.ravel())          # column by column
        sim.write_floats(RAM0, y0)
        sim.write_floats(BIAS, b)
        sim.write_floats(RAM1, d)
        sim.write(LIST, [len(ACTIVE)] + ACTIVE)
        sim.write(LIST + 64, [0])                    # an empty list
        if M is not None:
            sim.write_floats(SRAM2, M.T.ravel())
    return setup


def test_column_sums_and_updates():
    rng = np.random.default_rng(1)
    W, M = c30(rng.uniform(-1, 1, (ROWS, COLS))), c30(rng.uniform(-1, 1, (ROWS, COLS)))
    y0, b, d = (c30(rng.uniform(-1, 1, ROWS)) for _ in range(3))
    eta, alpha = 0.25, 0.5
    calls = [Call("_bcolsum", [RAM0, SRAM, LIST, ROWS, BIAS]),      # y = b + sum
             Call("_bcolsum", [RAM0 + 8, SRAM, LIST, ROWS, 0]),     # no bias
             Call("_bcolsum", [BIAS, SRAM, LIST, ROWS, BIAS]),      # accumulate in place
             Call("_bcolsum", [RAM0 + 16, SRAM, LIST + 64, ROWS, 0]),   # nothing active
             Call("_bcolsum", [RAM0 + 24, SRAM, LIST, 0, 0]),       # rows = 0
             Call("_bcolupdm", [SRAM, RAM1, LIST, ROWS, SRAM2], [eta, alpha]),
             Call("_bcolupd", [SRAM, RAM1, LIST, ROWS], [eta])]
    run = run_calls(calls, setup=_setup(W, y0, b, d, M))
    check_convention(run)
    sim = run.sim
    s = W[:, ACTIVE].sum(axis=1)
    assert np.allclose(sim.read_floats(RAM0, ROWS), b + s, atol=1e-6)
    assert np.allclose(sim.read_floats(RAM0 + 8, ROWS), s, atol=1e-6)
    assert np.allclose(sim.read_floats(BIAS, ROWS), b + s, atol=1e-6)
    assert np.all(sim.read_floats(RAM0 + 16, ROWS) == 0.0)
    M2, W2 = M.copy(), W.copy()
    M2[:, ACTIVE] = alpha * M[:, ACTIVE] + eta * d[:, None]
    W2[:, ACTIVE] += M2[:, ACTIVE]
    W2[:, ACTIVE] += eta * d[:, None]
    assert np.allclose(sim.read_floats(SRAM2, ROWS * COLS).reshape(COLS, ROWS).T, M2, atol=1e-6)
    got = sim.read_floats(SRAM, ROWS * COLS).reshape(COLS, ROWS).T
    assert np.allclose(got, W2, atol=1e-6)
    inactive = [j for j in range(COLS) if j not in ACTIVE]
    assert np.all(got[:, inactive] == W[:, inactive])       # untouched


def _costs(active, rows):
    lst = list(range(0, 2 * active, 2))
    calls = [Call("_bcolsum", [RAM0, SRAM, LIST, rows, 0]),
             Call("_bcolupd", [SRAM, RAM1, LIST, rows], [0.5]),
             Call("_bcolupdm", [SRAM, RAM1, LIST, rows, DRAM], [0.5, 0.5])]
    run = run_calls(calls, setup=lambda sim: sim.write(LIST, [active] + lst))
    return [run[k].cycles for k in range(3)]


@pytest.mark.parametrize("rows", [8, 32])
def test_cost_in_proportion_to_the_active_units(rows):
    """The figures of docs/firmware.md ("Binary kernels"): per active unit,
    a fixed cost plus a few cycles per row, whatever the layer's size."""
    a = _costs(10, rows)
    b = _costs(20, rows)
    per_unit = [(y - x) / 10 for x, y in zip(a, b)]
    # column sum 2 cycles/row, update 3 (W in SRAM); momentum 6 + DRAM waits on M
    assert per_unit[0] <= 2 * rows + 16
    assert per_unit[1] <= 3 * rows + 16
    assert a[0] - 10 * per_unit[0] < rows + 40     # y = 0.0 and the set-up


def test_threshold_active_list_and_transposed_product():
    rng = np.random.default_rng(3)
    x = c30(rng.uniform(-1, 1, 37))
    x[[0, 5]] = 0.0                                 # 0 is not above the threshold
    W = c30(rng.uniform(-1, 1, (ROWS, COLS)))
    d, e0 = c30(rng.uniform(-1, 1, ROWS)), c30(rng.uniform(-1, 1, COLS))

    def setup(sim):
        sim.write_floats(RAM0, x)
        sim.write_floats(SRAM, W.T.ravel())
        sim.write_floats(RAM1, d)
        sim.write_floats(SRAM2, e0)
    calls = [Call("_vthreshold", [RAM0 + 100, RAM0, 37]),
             Call("_vactive", [SRAM3, RAM0 + 100, 37]),
             Call("_vactive", [SRAM3 + 100, RAM0 + 100, 0]),
             Call("_bcoltv", [SRAM2, SRAM, RAM1, ROWS, COLS]),
             Call("_bcoltv", [SRAM2, SRAM, RAM1, 0, COLS]),
             Call("_vthreshold", [RAM0 + 200, RAM0, 0])]
    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    y = sim.read_floats(RAM0 + 100, 37)
    assert np.all(y == (x > 0))
    on = np.flatnonzero(x > 0)
    lst = sim.read(SRAM3, 1 + len(on))
    assert lst[0] == len(on) and list(lst[1:]) == list(on)
    assert sim.read(SRAM3 + 100, 1)[0] == 0
    assert np.allclose(sim.read_floats(SRAM2, COLS), e0 + W.T @ d, atol=1e-6)
    assert run[0].cycles <= 5 * 37 + 15 and run[1].cycles <= 10 * 37 + 20
    assert run[3].cycles <= (ROWS + 16) * COLS


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.data())
def test_column_sum_property(rows, cols, data):
    """For any active set: the column sum is numpy's W[:, active].sum(1),
    and the update touches the active columns only."""
    active = sorted(data.draw(st.sets(st.integers(0, cols - 1), max_size=cols)))
    rng = np.random.default_rng(rows * 100 + cols)
    W = c30(rng.uniform(-1, 1, (rows, cols)))
    d = c30(rng.uniform(-1, 1, rows))

    def setup(sim):
        sim.write_floats(SRAM, W.T.ravel())
        sim.write_floats(RAM1, d)
        sim.write(LIST, [len(active)] + active)
    run = run_calls([Call("_bcolsum", [RAM0, SRAM, LIST, rows, 0]),
                     Call("_bcolupd", [SRAM, RAM1, LIST, rows], [0.5])], setup=setup)
    assert np.allclose(run.sim.read_floats(RAM0, rows), W[:, active].sum(axis=1), atol=1e-5)
    W2 = W.copy()
    W2[:, active] += 0.5 * d[:, None]
    got = run.sim.read_floats(SRAM, rows * cols).reshape(cols, rows).T
    assert np.allclose(got, W2, atol=1e-6)
