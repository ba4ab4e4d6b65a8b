"""firmware/dma.asm: the DMA helpers, and the example of docs/firmware.md
("DMA"): a vector broadcast over the ring by DMA while the CPU computes a dot
product, against the plain version (_ring_bcast, then _vdot)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import DRAM, RAM0, RAM1, SRAM, SRAM2, Call, check_convention, run_calls

INCSRC, DECSRC, INCDST = 0x10, 0x20, 0x40


def _words(n, seed):
    return np.random.default_rng(seed).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


@pytest.mark.parametrize("src,dst", [(SRAM, RAM0), (RAM0, RAM1), (DRAM, SRAM2), (RAM1, DRAM)])
def test_dma_start_and_wait_copy_a_block(src, dst):
    n = 50
    w = _words(n, 1)

    def setup(sim):
        sim.write(src, w)
        sim.write(dst, [0xDEAD] * (n + 1))

    run = run_calls([Call("_dma_start", [dst, src, n, INCSRC | INCDST]), Call("_dma_wait")],
                    setup=setup)
    check_convention(run)
    assert np.array_equal(run.sim.read(dst, n), w)
    assert int(run.sim.read(dst + n, 1)[0]) == 0xDEAD          # the counter stopped it
    assert run[1].r0 == 0                                        # nothing left to move
    assert run.sim.counters()["periph"]["dma_words"] == n


def test_dma_reverses_with_a_decrementing_source_and_stops_on_demand():
    n = 16
    w = _words(n, 2)

    def setup(sim):
        sim.write(SRAM, w)

    run = run_calls([Call("_dma_start", [RAM0, SRAM + n - 1, n, DECSRC | INCDST]),
                     Call("_dma_wait"),
                     Call("_dma_start", [RAM1, SRAM, 1000, INCSRC | INCDST]),
                     Call("_dma_stop")], setup=setup)
    assert np.array_equal(run.sim.read(RAM0, n), w[::-1])
    left = run[3].r0
    assert 0 < left < 1000                 # stopped early: some words moved, not all
    moved = run.sim.counters()["periph"]["dma_words"] - n
    # the counter counts reads: a word read and not yet written when the
    # channel was reset is lost (START = 00)
    assert 1000 - left - 1 <= moved <= 1000 - left


def test_count_zero_does_nothing():
    run = run_calls([Call("_dma_start", [RAM0, SRAM, 0, INCSRC | INCDST]), Call("_dma_wait")])
    assert run.sim.counters()["periph"]["dma_words"] == 0 and run[1].r0 == 0


N = 4


def bcast_vs_plain(nx: int, m: int, b_addr: int):
    """(plain cycles, DMA cycles) of "broadcast nx words from node 0, then a
    dot product of m words" on 4 nodes (the machine's time: the slowest node),
    with the results checked."""
    x = _words(nx, 3)
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, m)
    b = rng.uniform(-1, 1, m)

    def setup(sim):
        for n in range(N):
            sim.write(SRAM, x if n == 0 else np.zeros(nx, np.uint32), node=n)
            sim.write(SRAM + nx, [0x5A5A5A5A], node=n)
            sim.write_floats(RAM0, a, node=n)
            sim.write_floats(b_addr, b, node=n)

    out = []
    for calls in ([Call("_ring_bcast", [SRAM, nx, 0]), Call("_vdot", [RAM0, b_addr, m])],
                  [Call("_dma_bcast", [SRAM, nx, 0]), Call("_vdot", [RAM0, b_addr, m]),
                   Call("_dma_wait")]):
        run = run_calls(calls, nodes=N, setup=setup)
        check_convention(run)
        sim = run.sim
        exact = float(np.dot(sim.read_floats(RAM0, m), sim.read_floats(b_addr, m)))
        for n in range(N):
            assert np.array_equal(sim.read(SRAM, nx, n), x), n
            assert int(sim.read(SRAM + nx, 1, n)[0]) == 0x5A5A5A5A
            assert abs(run.per_node[n][1].r0f - exact) <= 1e-5 * np.abs(a * b).sum() + 1e-6
        out.append(max(sum(run.cycles(k, n) for k in range(len(calls))) for n in range(N)))
        if len(calls) == 3:
            per = [sim.counters(n)["periph"] for n in range(N)]
            assert [p["dma_words"] for p in per] == [nx] * N
            assert sum(sim.counters(n)["ring"]["forwarded"] for n in range(N)) == nx * (N - 2)
    return tuple(out)


def test_ring_broadcast_by_dma_overlaps_a_dot_product_on_4_nodes():
    # both dot vectors on chip: the DMA has the primary bus and the ring to
    # itself; it moves a word per 2 cycles (a read and a write), so it pays
    # when the computation is longer than the transfer
    plain, dma = bcast_vs_plain(512, 1000, RAM1)
    assert dma < plain - 200, (plain, dma)
    # as much work as words: the DMA's 2 cycles a word take as long as the
    # CPU's broadcast (1 a word) and dot product (1 a step) together
    plain, dma = bcast_vs_plain(256, 256, RAM1)
    assert abs(plain - dma) < 40, (plain, dma)


def test_dot_product_from_sram_starves_the_dma_of_the_primary_bus():
    # b in SRAM: the CPU reads the primary bus every cycle and has priority,
    # so the DMA's SRAM writes wait for the dot product to end
    plain, dma = bcast_vs_plain(256, 1000, SRAM2)
    assert dma > plain, (plain, dma)
