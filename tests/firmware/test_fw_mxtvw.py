"""_mxtvw (firmware/matrix.asm): y = W^T e written, not added to -- word
for word what clearing y with _vfill and calling _mxtv give (0 + a b is a
b), on every shape the matrix tests use, with W in SRAM and in DRAM;
no word past y written; the calling convention kept; its first row at
one cycle a weight (the cycle formula: tests/firmware/test_fw_costs.py)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import (CANARY, DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, check_convention,
                       run_calls)

from test_fw_matrix import SHAPES


@pytest.mark.parametrize("wbase", [SRAM, DRAM], ids=["sram", "dram"])
def test_words_of_clear_and_mxtv(wbase):
    rng = np.random.default_rng(7)
    calls, checks = [], []
    e_at, y_at = SRAM3, SRAM2
    for k, (rows, cols) in enumerate(SHAPES):
        W = wbase + 0x800 * k
        ya, yb = y_at + 0x60 * (2 * k), y_at + 0x60 * (2 * k + 1)
        calls += [Call("_vfill", [ya, cols], [0.0]), Call("_mxtv", [ya, W, e_at + 0x40 * k, rows, cols]),
                  Call("_mxtvw", [yb, W, e_at + 0x40 * k, rows, cols])]
        checks.append((rows, cols, W, ya, yb, e_at + 0x40 * k))

    def setup(sim):
        for rows, cols, W, ya, yb, e in checks:
            sim.write_floats(W, rng.standard_normal(rows * cols))
            sim.write_floats(e, rng.standard_normal(rows))
            sim.write_floats(yb, rng.standard_normal(cols))     # overwritten
            sim.write(ya + cols, [CANARY])
            sim.write(yb + cols, [CANARY])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    for rows, cols, W, ya, yb, e in checks:
        a, b = run.sim.read(ya, cols + 1), run.sim.read(yb, cols + 1)
        assert list(a) == list(b), (rows, cols)
        assert int(b[cols]) == CANARY


def test_first_row_one_cycle_a_weight():
    # rows = 1: one MPYF3 || STF per weight; 512 columns cost 512 more than 1
    calls = [Call("_mxtvw", [RAM1, SRAM, SRAM3, 1, 1]), Call("_mxtvw", [RAM1, SRAM, SRAM3, 1, 513])]
    run = run_calls(calls)
    assert 512 <= run.cycles(1) - run.cycles(0) <= 520
    # and against clearing y and adding the row: 1.5 a weight + 1 to clear
    calls = [Call("_vfill", [SRAM2, 512], [0.0]), Call("_mxtv", [SRAM2, SRAM, SRAM3, 1, 512]),
             Call("_mxtvw", [RAM1, SRAM, SRAM3, 1, 512])]
    run = run_calls(calls)
    assert run.cycles(0) + run.cycles(1) - run.cycles(2) > 700


@pytest.mark.parametrize("wbase", [SRAM, DRAM], ids=["sram", "dram"])
def test_two_rows_a_pass(wbase):
    # _mxtv2: y + W^T e; _mxtv2w: W^T e -- against numpy within the C30's
    # precision (a stored single: 2^-23 relative; each pair of rows summed
    # in the registers, stored once)
    from fwharness import c30, check_mxtv_pair
    rng = np.random.default_rng(11)
    shapes = SHAPES + [(13, 61), (12, 61), (3, 3), (2, 4), (6, 5)]
    calls, checks = [], []
    for k, (rows, cols) in enumerate(shapes):
        W = wbase + 0x800 * k
        e = SRAM3 + 0x40 * k
        y2, yw = SRAM2 + 0x60 * (2 * k), SRAM2 + 0x60 * (2 * k + 1)
        calls += [Call("_mxtv2", [y2, W, e, rows, cols]), Call("_mxtv2w", [yw, W, e, rows, cols])]
        checks.append((rows, cols, W, e, y2, yw, c30(rng.standard_normal((rows, cols))),
                       c30(rng.standard_normal(rows)), c30(rng.standard_normal(cols))))

    check_mxtv_pair(calls, checks, "mxtv2")


def test_two_rows_cost_less():
    # 12 rows of 61 (W in SRAM, y and e on chip): about 1.25 cycles a weight
    from fwharness import RAM0
    calls = [Call("_mxtv", [RAM1, SRAM, RAM0, 12, 61]), Call("_mxtv2", [RAM1, SRAM, RAM0, 12, 61])]
    run = run_calls(calls)
    assert run.cycles(1) < run.cycles(0) - 150, (run.cycles(0), run.cycles(1))


@pytest.mark.parametrize("wbase", [RAM0, SRAM], ids=["chip", "sram"])
def test_mxoutc_words_of_mxout(wbase):
    # _mxoutc: W += eta d x^T, the words of _mxout (the same MPYF3 and ADDF3
    # per weight), two weights in three cycles with W on chip
    rng = np.random.default_rng(5)
    shapes = [s for s in SHAPES if s[0] * s[1] <= 0x180] + [(13, 61), (3, 61), (2, 4), (2, 5)]
    calls, checks = [], []
    x_at, d_at = RAM1, RAM1 + 0x100
    for k, (rows, cols) in enumerate(shapes):
        Wa, Wb = wbase, SRAM2 + 0x400 * k
        calls += [Call("_mxoutc", [Wa, d_at, x_at, rows, cols], [0.05]),
                  Call("_mxout", [Wb, d_at, x_at, rows, cols], [0.05])]
        checks.append((rows, cols, Wa, Wb))
    w0 = rng.standard_normal(0x400)

    def setup(sim):
        sim.write_floats(x_at, rng.standard_normal(0x100))
        sim.write_floats(d_at, rng.standard_normal(0x20))
        for rows, cols, Wa, Wb in checks:
            sim.write_floats(Wb, w0[:rows * cols])
            sim.write(Wb + rows * cols, [CANARY])

    # each _mxoutc call works on W = w0 at wbase, written again before it
    import fwharness
    results = []
    for k, (rows, cols, Wa, Wb) in enumerate(checks):
        def setup_k(sim, rows=rows, cols=cols, Wa=Wa):
            setup(sim)
            sim.write_floats(Wa, w0[:rows * cols])
            sim.write(Wa + rows * cols, [CANARY])
        run = run_calls(calls[2 * k:2 * k + 2], setup=setup_k)
        check_convention(run)
        n = rows * cols
        a, b = run.sim.read(Wa, n + 1), run.sim.read(Wb, n + 1)
        assert list(a) == list(b), (rows, cols)
        assert int(a[n]) == CANARY
        results.append((rows, cols, run.cycles(0), run.cycles(1)))
    if wbase == RAM0:
        rows, cols, c, m = results[-4]                      # 13 x 61
        assert c < 0.8 * m, (c, m)
