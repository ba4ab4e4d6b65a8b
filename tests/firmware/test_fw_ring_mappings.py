"""The ring collectives as the hybrid and checkerboard mappings use them
(compiler/codegen.py, docs/mappings.md), hand-analysed cases with their
cycles against the budgets of docs/firmware.md (all-gather at most
1.2 (V + N) + 520, reduce-scatter at most 2V + 21N + 60):

* the hybrid's concatenation: N slots of 1 + C words (a pattern index, -1
  for none, then the cut's activations) all-gathered bit for bit, and its
  slice: N error slots of C words reduce-scattered so that node k holds the
  sum of slot k;
* the checkerboard's row reduction: every node's partial net inputs, zero
  outside its grid row's block rows, reduce-scattered with the layer's
  split: node k gets the sum over its grid row's blocks of its own units."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import SRAM, SRAM2, SRAM3, Call, assert_close, c30, run_calls
from rapsim.compiler.lower import Split
from rapsim.compiler.mapping import grid

OFF, X, P = SRAM3, SRAM, SRAM2
OFF2 = SRAM3 + 0x100


@pytest.mark.parametrize("N,C", [(4, 7), (16, 12), (64, 3)])
def test_hybrid_slots(N, C):
    stride = 1 + C
    off = np.arange(N + 1) * stride
    eoff = np.arange(N + 1) * C
    rng = np.random.default_rng(N + C)
    slots = c30(rng.standard_normal((N, N * stride)))
    index = np.arange(N, dtype=np.int64)
    index[-1] = -1                                      # the last node has no pattern
    errs = c30(rng.standard_normal((N, N * C)))
    calls = [Call("_ring_barrier"), Call("_ring_allgather", [X, OFF]), Call("_ring_barrier"),
             Call("_ring_reduce_scatter", [P, OFF2])]

    def setup(sim):
        for n in range(N):
            sim.write(OFF, off, node=n)
            sim.write(OFF2, eoff, node=n)
            sim.write_floats(X, slots[n], node=n)
            sim.write(X + n * stride, [index[n] & 0xFFFFFFFF], node=n)
            sim.write_floats(P, errs[n], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    for n in range(N):
        got = run.sim.read(X, N * stride, n)
        for k in range(N):
            assert int(np.int32(np.uint32(got[k * stride]))) == index[k], (n, k)
            np.testing.assert_array_equal(
                run.sim.read_floats(X + k * stride + 1, C, n), slots[k, k * stride + 1:
                                                                     (k + 1) * stride])
        lo, hi = eoff[n], eoff[n + 1]
        assert_close(run.sim.read_floats(P, N * C, n)[lo:hi], errs.sum(axis=0)[lo:hi],
                     np.abs(errs).sum(axis=0)[lo:hi], N + 1, f"slice to node {n}")
    ag = max(run.per_node[n][1].cycles for n in range(N))
    rs = max(run.per_node[n][3].cycles for n in range(N))
    assert ag <= 1.2 * (N * stride + N) + 520
    assert rs <= 2 * N * C + 21 * N + 60


@pytest.mark.parametrize("N,V", [(4, 10), (16, 61), (64, 512)])
def test_checkerboard_row_reduction(N, V):
    r, c = grid(N)
    rows = Split.even(V, r)
    own = Split.even(V, N)
    rng = np.random.default_rng(N + V)
    parts = np.zeros((N, V))
    for k in range(N):
        i = k // c
        parts[k, rows.lo(i):rows.lo(i) + rows.rows(i)] = rng.standard_normal(rows.rows(i))
    parts = c30(parts)
    calls = [Call("_ring_barrier"), Call("_ring_reduce_scatter", [P, OFF])]

    def setup(sim):
        for n in range(N):
            sim.write(OFF, np.array(own.off), node=n)
            sim.write_floats(P, parts[n], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    total, scale = parts.sum(axis=0), np.abs(parts).sum(axis=0)
    for n in range(N):
        lo, hi = own.lo(n), own.lo(n) + own.rows(n)
        assert_close(run.sim.read_floats(P, V, n)[lo:hi], total[lo:hi], scale[lo:hi], c + 1,
                     f"net inputs of node {n}")
    assert max(run.per_node[n][1].cycles for n in range(N)) <= 2 * V + 21 * N + 60
