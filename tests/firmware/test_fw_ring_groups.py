"""The ring collectives with the slice tables of a layer on a node group
(compiler/mapping.py, docs/mappings.md "Layers on node groups"): only the
group's nodes own slices, every other node forwards.  These are the
bridges of the layers mapping; hand-analysed cases with their cycles
against the budgets of docs/firmware.md: all-gather at most 1.2 (V + N) +
520, reduce-scatter at most 2V + 21N + 60, the budget of the segment-by-segment path (empty slices cost a node its
hops, not its words)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import SRAM, SRAM2, SRAM3, Call, assert_close, c30, run_calls
from rapsim.compiler.lower import Split

OFF, X, P = SRAM3, SRAM, SRAM2


@pytest.mark.parametrize("N,V,first,last", [
    (4, 64, 1, 2), (16, 96, 4, 7), (16, 96, 15, 15), (16, 96, 0, 0), (64, 256, 10, 40)])
def test_group_tables(N, V, first, last):
    off = np.array(Split.group(V, N, first, last).off)
    assert off[first] == 0 and off[last + 1] == V
    rng = np.random.default_rng(N + V + first)
    words = rng.integers(0, 1 << 32, (N, V), dtype=np.uint64)
    parts = c30(rng.standard_normal((N, V)))
    calls = [Call("_ring_barrier"), Call("_ring_allgather", [X, OFF]), Call("_ring_barrier"),
             Call("_ring_reduce_scatter", [P, OFF])]

    def setup(sim):
        for n in range(N):
            sim.write(OFF, off, node=n)
            sim.write(X, words[n], node=n)
            sim.write_floats(P, parts[n], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    gathered = np.concatenate([words[k, off[k]:off[k + 1]] for k in range(N)])
    total, scale = parts.sum(axis=0), np.abs(parts).sum(axis=0)
    for n in range(N):
        assert np.array_equal(run.sim.read(X, V, n), gathered), f"bridge into node {n}"
        lo, hi = off[n], off[n + 1]
        assert_close(run.sim.read_floats(P, V, n)[lo:hi], total[lo:hi], scale[lo:hi], N + 1,
                     f"errors back to node {n}")
    ag = max(run.per_node[n][1].cycles for n in range(N))
    rs = max(run.per_node[n][3].cycles for n in range(N))
    assert ag <= 1.2 * (V + N) + 520
    assert rs <= 2 * V + 21 * N + 60
