"""_subring_reduce (firmware/subring.asm): the sum of a group's vectors,
down a chain of contiguous ring positions, into the group's last node --
several groups at once (the checkerboard's grid rows); hand-analysed
cycles: the chain streams a word every 2 cycles (read, add, write) and
each hop adds 2 cycles of latency, so a member spends 2n + 2 (c - 1) + 52
cycles at most, n words, c nodes (measured exactly that on every case
below: the 52 are the call, the tests for the node's place, the loop's
set-up and the barrier's skew)."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import SRAM, Call, assert_close, c30, run_calls

X = SRAM


@pytest.mark.parametrize("N,c,n", [(2, 2, 1), (4, 2, 2), (4, 4, 3), (8, 4, 64), (16, 4, 128),
                                   (64, 8, 64), (8, 8, 200), (6, 3, 17), (5, 5, 9)])
def test_groups_reduce_at_once(N, c, n):
    rng = np.random.default_rng(N * 1000 + c * 10 + n)
    parts = c30(rng.standard_normal((N, n)))
    first = [k - k % c for k in range(N)]
    last = [f + c - 1 for f in first]
    calls = [Call("_ring_barrier"), Call("_subring_reduce", [X, n, first, last])]

    def setup(sim):
        for k in range(N):
            sim.write_floats(X, parts[k], node=k)

    run = run_calls(calls, nodes=N, setup=setup)
    for k in range(N):
        got = run.sim.read_floats(X, n, k)
        if k == last[k]:
            group = parts[first[k]:k + 1]
            assert_close(got, group.sum(axis=0), np.abs(group).sum(axis=0), c + 1,
                         f"the sum at node {k}")
        else:
            assert np.array_equal(got, parts[k]), f"node {k}'s vector is left as it was"
    worst = max(run.per_node[k][1].cycles for k in range(N))
    assert worst <= 2 * n + 2 * (c - 1) + 52, worst


def test_not_members_and_empty():
    """Outside first .. last, a group of one, or no words: nothing moves."""
    N, n = 4, 5
    parts = c30(np.arange(N * n, dtype=float).reshape(N, n))
    calls = [Call("_subring_reduce", [X, n, [0, 1, 2, 2], [0, 1, 3, 3]]),
             Call("_subring_reduce", [X, 0, 0, N - 1])]

    def setup(sim):
        for k in range(N):
            sim.write_floats(X, parts[k], node=k)

    run = run_calls(calls, nodes=N, setup=setup)
    for k in range(N):
        want = parts[2] + parts[3] if k == 3 else parts[k]
        assert np.array_equal(run.sim.read_floats(X, n, k), want)
    assert max(run.per_node[k][1].cycles for k in range(N)) <= 30
