"""_dma_allgather (firmware/dma.asm): the all-gather with the C30's DMA
channel reading the ring -- the same words in x as _ring_allgather on 1 to
64 nodes (even, uneven and empty slices), and what it costs against the
CPU's all-gather (the measure behind `overlap dma`, docs/compiler.md)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import SRAM, SRAM3, Call, check_convention, run_calls

X, OFF = SRAM, SRAM3


def _run(N, sizes, fn, seed=0):
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    V = int(off[-1])
    rng = np.random.default_rng(seed)
    own = rng.integers(0, 2**32, V, dtype=np.uint64).astype(np.uint32)

    def setup(sim):
        for n in range(N):
            x = np.full(V + 1, 0xDEAD, dtype=np.uint32)
            x[off[n]:off[n + 1]] = own[off[n]:off[n + 1]]
            sim.write(OFF, off, node=n)
            sim.write(X, x, node=n)

    run = run_calls([Call("_ring_barrier"), Call(fn, [X, OFF])], nodes=N, setup=setup)
    check_convention(run)
    for n in range(N):
        got = run.sim.read(X, V + 1, n)
        assert np.array_equal(got[:V], own), f"{fn}: node {n}"
        assert int(got[V]) == 0xDEAD, f"{fn}: node {n} wrote past x"
    return run


CASES = [(1, [10]), (2, [3, 4]), (2, [0, 5]), (3, [5, 6, 7]), (3, [1, 0, 9]), (4, [5, 5, 5, 5]),
         (4, [1, 0, 7, 2]), (4, [40, 4, 9, 30]), (4, [6, 0, 0, 0]), (16, [8] * 16),
         (16, [3, 0, 7, 1, 12, 4, 4, 0, 9, 5, 6, 2, 8, 1, 0, 11]), (64, [2] * 64), (64, [8] * 64)]


@pytest.mark.parametrize("N,sizes", CASES)
def test_same_words_as_the_cpu_allgather(N, sizes):
    _run(N, sizes, "_dma_allgather", seed=N + sum(sizes))


def test_the_channel_moved_the_laps():
    N, sizes = 4, [5, 6, 7, 8]
    run = _run(N, sizes, "_dma_allgather")
    # every node reads V - s(j) words by DMA: all but its own slice
    for n in range(N):
        assert run.sim.counters(n)["periph"]["dma_words"] == sum(sizes) - sizes[n]


def test_slower_than_the_cpu_allgather():
    """The channel takes 2 cycles a word from the ring and the CPU starts
    each of a node's transfers when the previous ends: the chain moves at
    half speed (docs/firmware.md 12)."""
    for N, V in ((16, 512), (40, 520), (64, 512)):
        sizes = [V // N] * N
        cpu = _run(N, sizes, "_ring_allgather").span(1)
        dma = _run(N, sizes, "_dma_allgather").span(1)
        print(N, V, cpu, dma)
        assert dma > cpu, (N, V, cpu, dma)
