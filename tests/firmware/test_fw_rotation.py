"""The rotation collectives (firmware/rotation.asm, plans from
rapsim.firmware.rotation): the same words as the chains, and bit for bit
the same sums (the additions in the chain's order), on 1 to 64 nodes with
even, uneven and empty slices; the plans themselves against a model of
the ring in Python.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fwharness import DRAM, RAM0, SRAM, SRAM2, SRAM3, Call, check_convention, run_calls
from test_fw_ring import TABLES

from rapsim.firmware.rotation import allgather_plan, rs_plan

OFF, PA, PR = SRAM3, SRAM3 + 0x1000, SRAM3 + 0x4000
GUARD = 0x5A5A5A5A


def _table(sizes):
    return [0] + np.cumsum(sizes).astype(int).tolist()


def _even(V, N):
    q, r = divmod(V, N)
    return [k * q + min(k, r) for k in range(N + 1)]


def _compare(off, seed=0, xa=SRAM, xr=SRAM2, apart=0x4000, walk=False):
    """Chain and rotation on the same data, each on its own copy: x of the
    all-gather at xa (chain) and xa + apart (rotation), the reduce-scatter
    at xr and xr + apart.  walk: the plans' fast-path word (plan[N], the
    stride of an even table) cleared, so that the routines walk the plan's
    segments.  Returns the run."""
    N, V = len(off) - 1, off[-1]
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 1 << 32, (N, V), dtype=np.uint64)
    parts = rng.standard_normal((N, V)) * 10.0 ** rng.uniform(-3, 3, (N, V))
    ya, yr = xa + apart, xr + apart
    calls = [Call("_ring_barrier"), Call("_ring_allgather", [xa, OFF]), Call("_ring_barrier"),
             Call("_ring_allgather_rot", [ya, OFF, PA]), Call("_ring_barrier"),
             Call("_ring_reduce_scatter", [xr, OFF]), Call("_ring_barrier"),
             Call("_ring_rs_rot", [yr, OFF, PR]), Call("_ring_barrier")]
    pa, pr = allgather_plan(off), rs_plan(off)
    if walk:
        pa[N] = pr[N] = 0

    def setup(sim):
        for n in range(N):
            sim.write(OFF, off, node=n)
            sim.write(PA, pa, node=n)
            sim.write(PR, pr, node=n)
            for x in (xa, ya):
                sim.write(x, [0xDEAD] * V, node=n)
                sim.write(x + off[n], words[n, off[n]:off[n + 1]], node=n)
                sim.write(x + V, [GUARD], node=n)
            for x in (xr, yr):
                sim.write_floats(x, parts[n], node=n)
                sim.write(x + V, [GUARD], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    check_convention(run)
    sim = run.sim
    gathered = np.concatenate([words[k, off[k]:off[k + 1]] for k in range(N)] + [[GUARD]])
    for n in range(N):
        assert np.array_equal(sim.read(ya, V + 1, n), gathered), f"all-gather, node {n}"
        assert np.array_equal(sim.read(xa, V + 1, n), gathered)
        chain, rot = sim.read(xr, V + 1, n), sim.read(yr, V + 1, n)
        assert np.array_equal(rot, chain), (
            f"reduce-scatter, node {n}: words {np.nonzero(rot != chain)[0][:8]} differ from the chain")
    return run


@pytest.mark.parametrize("N,sizes", TABLES + [(4, [1, 1, 1, 1]), (16, [1] * 16)])
def test_rotation_matches_chain(N, sizes):
    _compare(_table(sizes), seed=N * 7 + sum(sizes))


@pytest.mark.parametrize("N,V", [(40, 512), (40, 61), (64, 128), (64, 61), (64, 512), (64, 64)])
def test_rotation_matches_chain_large(N, V):
    """The compiler's tables (the even split: the first V mod N nodes one
    word more) on the machine sizes of the benchmarks."""
    _compare(_even(V, N), seed=N + V)


@pytest.mark.parametrize("N", [4, 5, 6, 9])
@pytest.mark.parametrize("s", [1, 2, 3])
def test_fast_path_matches_chain(N, s):
    """Even tables of s words a node on 4 or more nodes take the fast path
    (plan[N] = s; every variant: node 0, 1, the middle, N-2, N-1): the
    chain's words and sums, and fewer cycles than the same routines walking
    the plan's segments."""
    off = _even(N * s, N)
    assert allgather_plan(off)[N] == rs_plan(off)[N] == s
    fast = _compare(off, seed=N * 10 + s)
    walked = _compare(off, seed=N * 10 + s, walk=True)
    for call in (3, 7):                 # the two rotations of _compare's calls
        assert fast.span(call) < walked.span(call), (N, s, call)


def test_fast_path_x_on_chip_and_in_dram():
    _compare(_even(24, 8), seed=5, xa=RAM0, xr=DRAM, apart=0x100)
    _compare(_even(24, 8), seed=6, xa=DRAM, xr=RAM0, apart=0x100)


def test_fast_path_word():
    """plan[N]: the stride of a table whose slices all have s >= 1 words on
    4 or more nodes, else 0 (uneven, empty slices, fewer nodes)."""
    for off, want in (([0, 2, 4, 6, 8], 2), ([0, 1, 2, 3, 4, 5], 1), ([0, 3, 5, 7, 9], 0),
                      ([0, 0, 0, 0, 0], 0), ([0, 2, 4, 6], 0), ([0, 1, 1, 2, 3], 0)):
        N = len(off) - 1
        assert allgather_plan(off)[N] == want, off
        assert rs_plan(off)[N] == want, off


def test_rotation_x_on_chip_and_in_dram():
    _compare(_even(37, 4), seed=3, xa=RAM0, xr=DRAM, apart=0x100)


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 12).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(0, 9), min_size=n, max_size=n),
                        st.booleans(), st.integers(0, 2 ** 16))))
def test_rotation_matches_chain_property(case):
    """Any table on 2-12 nodes: uneven (drawn slice lengths) or the even
    split of their sum."""
    N, sizes, even, seed = case
    off = _even(sum(sizes), N) if even else _table(sizes)
    _compare(off, seed=seed)


# -- the plans against a model of the ring ------------------------------------------

def _walk_allgather(plan, off, j):
    """Where node j's routine stores each word it reads, phase by phase: a
    list of (phase, place) in reading order, pads as (phase, None)."""
    N = len(off) - 1
    at = plan[j]
    groups = plan[at]
    at += 1
    out, k = [], 0
    for _ in range(groups):
        phases, _own, nseg = plan[at:at + 3]
        segs = plan[at + 3:at + 3 + 3 * nseg]
        at += 3 + 3 * nseg
        for _ in range(phases):
            for s in range(nseg):
                a, w, d = segs[3 * s:3 * s + 3]
                c = w + 2 if w >= -1 else -1 - w
                out += [(k, a + k - i * d) for i in range(c)] if w >= -1 else [(k, None)] * c
            k += 1
    assert at <= len(plan) - 3
    return out, N


def _walk_rs(plan, off, j):
    at = plan[j]
    groups = plan[at]
    at += 2
    out, k = [], 0
    for _ in range(groups):
        phases, _inj, fin, nseg = plan[at:at + 4]
        segs = plan[at + 4:at + 4 + 3 * nseg]
        at += 4 + 3 * nseg
        for _ in range(phases):
            for s in range(nseg):
                a, d, c = segs[3 * s:3 * s + 3]
                out += [(k, a + k - i * d) for i in range(c)] if c > 0 else [(k, None)] * -c
            out.append((k, off[j] + k) if fin else (k, None))
            k += 1
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=40))
def test_plans_put_every_word_in_its_place(sizes):
    """In phase k node j reads the words of nodes j-1, j-2, .. j+1 (word k
    of each slice, a pad where the slice is shorter): the all-gather plan
    stores each at off[m] + k; the reduce-scatter plan adds each to the
    node's word of slice j-1-i at step i and keeps slice j's."""
    off = _table(sizes)
    N, S = len(sizes), max(sizes)
    pa, pr = allgather_plan(off), rs_plan(off)
    for j in range(N if N > 1 else 0):
        got, _ = _walk_allgather(pa, off, j)
        want = [(k, off[m] + k if sizes[m] > k else None)
                for k in range(S) for m in ((j - i) % N for i in range(1, N))]
        assert got == want, f"all-gather, node {j}"
        want = [(k, off[m] + k if sizes[m] > k else None)
                for k in range(S) for m in ((j - 1 - i) % N for i in range(1, N))]
        assert _walk_rs(pr, off, j) == want, f"reduce-scatter, node {j}"


def test_plan_rejects_a_bad_table():
    with pytest.raises(ValueError, match="not a slice table"):
        allgather_plan([0, 5, 3])
    with pytest.raises(ValueError, match="not a slice table"):
        rs_plan([1, 4])
