"""_mxtv4 and _mxtv4w (firmware/columns.asm): y + W^T e and W^T e four
rows a pass, against numpy within the C30's precision on shapes with every
remainder of rows mod 4 and odd and even column counts, W on chip, in SRAM
and in DRAM; no word past y written; the calling convention kept; four
rows summed in the registers and stored once (the order
compiler/reference.py follows); cheaper than two rows a pass where the
compiler takes it (the cycle formulas: tests/firmware/test_fw_costs.py)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import (DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, c30, check_mxtv_pair,
                       run_calls)
SHAPES = [(13, 61), (12, 61), (9, 61), (7, 5), (5, 4), (4, 3), (6, 2), (3, 10), (1, 7),
          (17, 64), (8, 64), (14, 33), (15, 6)]


@pytest.mark.parametrize("wbase", [SRAM, DRAM, RAM0], ids=["sram", "dram", "chip"])
def test_four_rows_a_pass(wbase):
    rng = np.random.default_rng(23)
    shapes = [s for s in SHAPES if wbase != RAM0 or s[0] * s[1] <= 1024]
    calls, checks = [], []
    for k, (rows, cols) in enumerate(shapes):
        W = wbase if wbase == RAM0 else wbase + 0x800 * k
        e = SRAM3 + 0x40 * k
        y4, yw = SRAM2 + 0x100 * (2 * k), SRAM2 + 0x100 * (2 * k + 1)
        calls += [Call("_mxtv4", [y4, W, e, rows, cols]), Call("_mxtv4w", [yw, W, e, rows, cols])]
        checks.append((rows, cols, W, e, y4, yw, c30(rng.standard_normal((rows, cols))),
                       c30(rng.standard_normal(rows)), c30(rng.standard_normal(cols))))
    if wbase == RAM0:                   # one W block on chip: each shape its own run
        for call_pair, check in zip(zip(calls[::2], calls[1::2]), checks):
            check_mxtv_pair(list(call_pair), [check], "mxtv4")
        return
    check_mxtv_pair(calls, checks, "mxtv4")


def test_four_rows_stored_once():
    # y = 1 and four products of 2^-25: summed in the registers, 1 + 2^-23
    # (a single); two rows a pass store 1 + 2^-24 after each pair, which
    # rounds back to 1
    rows, cols = 4, 5
    W, e = SRAM, SRAM3
    y4, y2 = SRAM2, SRAM2 + 0x40

    def setup(sim):
        sim.write_floats(W, np.full(rows * cols, 2.0 ** -25))
        sim.write_floats(e, np.ones(rows))
        sim.write_floats(y4, np.ones(cols))
        sim.write_floats(y2, np.ones(cols))

    run = run_calls([Call("_mxtv4", [y4, W, e, rows, cols]), Call("_mxtv2", [y2, W, e, rows, cols])],
                    setup=setup)
    assert list(run.sim.read_floats(y4, cols)) == [1.0 + 2.0 ** -23] * cols
    assert list(run.sim.read_floats(y2, cols)) == [1.0] * cols


def test_cheaper_where_the_compiler_takes_it():
    # the speech MLP's output block on 40 nodes (13 x 61 on chip): about a
    # cycle a weight less for every eighth; on 16 nodes (32 x 61 in SRAM)
    from rapsim.compiler.lower import Split, columns_kernel
    calls = [Call("_mxtv2w", [RAM1, RAM0, RAM1 + 0x200, 13, 61]),
             Call("_mxtv4w", [RAM1, RAM0, RAM1 + 0x200, 13, 61]),
             Call("_mxtv2w", [RAM1, SRAM, RAM1 + 0x200, 32, 61]),
             Call("_mxtv4w", [RAM1, SRAM, RAM1 + 0x200, 32, 61])]
    run = run_calls(calls)
    assert run.cycles(1) < run.cycles(0) - 80, (run.cycles(0), run.cycles(1))
    assert run.cycles(3) < run.cycles(2) - 150, (run.cycles(2), run.cycles(3))
    assert columns_kernel(Split.even(512, 40).off, 61) == "_mxtv4w"
    assert columns_kernel(Split.even(512, 16).off, 61) == "_mxtv4w"
    # 8 rows a node (64 nodes): the three rows left over cost more than the pass saves
    assert columns_kernel(Split.even(512, 64).off, 61) == "_mxtv2w"
