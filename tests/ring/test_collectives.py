"""Collective operations over the ring: all-gather of a vector spread over the
nodes (even and uneven slices), and a ring reduction (all-reduce).  Every
node's memory is checked."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringprogs import RAM0, RAM1, VEC, allgather_program, allgather_table, program, simulator


def vector(total: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 32, size=total, dtype=np.uint64).astype(np.uint32)


def run_allgather(lens: list[int], seed: int = 1, **run_kw):
    """Give node k its slice of a random vector, all-gather, return (sim,
    result, vector)."""
    nodes, total = len(lens), sum(lens)
    vec = vector(total, seed)
    sim = simulator(allgather_program(lens), nodes)
    off = 0
    for k, n in enumerate(lens):
        if n:
            sim.write(VEC + off, vec[off:off + n], node=k)
        off += n
    return sim, sim.run(max_cycles=2_000_000, **run_kw), vec


def check_allgather(sim, res, vec, lens):
    assert res.event == "done", res.messages
    nodes, total = len(lens), len(vec)
    for k in range(nodes):
        got = sim.read(VEC, total, k)
        assert np.array_equal(got, vec), f"node {k}: {np.flatnonzero(got != vec)[:8]}"
        c = sim.counters(k)
        # node k receives every word but its own and forwards every word it
        # receives except those that came from its downstream neighbour
        nxt = (k + 1) % nodes
        assert c["ring"] == {"sent": lens[k], "received": total - lens[k],
                             "forwarded": total - lens[k] - lens[nxt]}, k
    m = sim.machine_counters()
    # every word crosses N - 1 links
    assert m["ring_words"] == total * (nodes - 1)


def test_allgather_table_rows_add_up():
    lens = [3, 0, 5, 1, 2]
    total = sum(lens)
    for k, (p, q, own, b, c) in enumerate(allgather_table(lens)):
        assert own == lens[k]
        assert p + q + b + c == total - own             # every other word read once
        assert q + c == total - own - lens[(k + 1) % 5]  # all but the next node's forwarded


@pytest.mark.parametrize("nodes,per", [(64, 4), (16, 3), (4, 1), (2, 6), (64, 1)])
def test_allgather_even_slices(nodes, per):
    lens = [per] * nodes
    sim, res, vec = run_allgather(lens)
    check_allgather(sim, res, vec, lens)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_allgather_uneven_slices_on_64_nodes(seed):
    rng = random.Random(seed)
    lens = [rng.choice([0, 0, 1, 2, 3, 5, 8, 13]) for _ in range(64)]
    sim, res, vec = run_allgather(lens, seed)
    check_allgather(sim, res, vec, lens)


def test_allgather_one_node_owns_everything():
    lens = [0] * 63 + [200]
    sim, res, vec = run_allgather(lens)
    check_allgather(sim, res, vec, lens)
    lens = [150] + [0] * 15
    sim, res, vec = run_allgather(lens)
    check_allgather(sim, res, vec, lens)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=2, max_size=12), st.integers(0, 1000))
def test_allgather_any_slices(lens, seed):
    sim, res, vec = run_allgather(lens, seed)
    check_allgather(sim, res, vec, lens)


# --------------------------------------------------------------------------
# Ring reduction (all-reduce): every node ends with the sum of all vectors
# --------------------------------------------------------------------------
# Node 0 seeds a pipeline with its first P = min(m, N) words; node k > 0
# reads a partial sum, adds its own element and passes it on; node 0 reads
# the totals (sending its next word after each, so at most P <= 2N - 1 words
# are ever in flight and the ring cannot fill up), then broadcasts them with
# read-and-forward.
def reduce_program(nodes: int, m: int, kind: str) -> str:
    ld, add, stv = ("LDF", "ADDF", "STF") if kind == "float" else ("LDI", "ADDI", "STI")
    p = min(m, nodes)
    mid = ""
    if m > p:
        mid = f"""
        LDI     {m - p - 1}, RC
        RPTB    s2
        {ld}     *AR1, R0
        {stv}     R0, *AR3++
        {ld}     *AR0++, R0
s2:     {stv}     R0, *AR1
"""
    return program(f"""
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1         ; AR1 -> RING_DATA
        LDP     0x800000
        LDI     AR1, AR0
        OR      09800h, AR0     ; AR0 -> my vector (RAM0)
        LDI     AR1, AR3
        OR      09C00h, AR3     ; AR3 -> the sums (RAM1)
        LDI     @3, R0          ; NODE_ID
        LDI     @4, R2
        SUBI    1, R2
        LDI     {m}, R4
        CMPI    R2, R0
        LDIEQ   0, R4           ; the last node does not forward the sums
        CMPI    0, R0
        BNZ     node
        LDI     {p - 1}, RC
        RPTB    s1
        {ld}     *AR0++, R0
s1:     {stv}     R0, *AR1
{mid}
        LDI     {p - 1}, RC
        RPTB    s3
        {ld}     *AR1, R0
s3:     {stv}     R0, *AR3++
        LDI     AR1, AR3
        OR      09C00h, AR3
        LDI     {m - 1}, RC
        RPTB    s4
        {ld}     *AR3++, R0
s4:     {stv}     R0, *AR1
        B       exit
node:   LDI     {m - 1}, RC
        RPTB    n1
        {ld}     *AR1, R0
        {add}    *AR0++, R0
n1:     {stv}     R0, *AR1
        STI     R4, @2          ; RING_FWD
        LDI     {m - 1}, RC
        RPTB    n2
        {ld}     *AR1, R0
n2:     {stv}     R0, *AR3++
        B       exit
""")


@pytest.mark.parametrize("nodes,m", [(2, 1), (4, 3), (4, 100), (16, 16), (16, 40), (64, 10),
                                     (64, 150)])
def test_ring_allreduce_float(nodes, m):
    sim = simulator(reduce_program(nodes, m, "float"), nodes)
    rng = np.random.default_rng(nodes * 1000 + m)
    # multiples of 1/4 below 32 in magnitude: every partial sum is exact in
    # single precision, so the result does not depend on rounding
    x = rng.integers(-128, 128, size=(nodes, m)) / 4.0
    for k in range(nodes):
        sim.write_floats(RAM0, x[k], node=k)
    res = sim.run(max_cycles=5_000_000)
    assert res.event == "done", res.messages
    want = x.sum(axis=0)
    for k in range(nodes):
        assert np.array_equal(sim.read_floats(RAM1, m, k), want), k


@pytest.mark.parametrize("nodes,m", [(3, 7), (64, 33)])
def test_ring_allreduce_int_wraps(nodes, m):
    sim = simulator(reduce_program(nodes, m, "int"), nodes)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1 << 32, size=(nodes, m), dtype=np.uint64)
    for k in range(nodes):
        sim.write(RAM0, x[k].astype(np.uint32), node=k)
    res = sim.run(max_cycles=5_000_000)
    assert res.event == "done", res.messages
    want = (x.sum(axis=0) & 0xFFFFFFFF).astype(np.uint32)
    for k in range(nodes):
        assert np.array_equal(sim.read(RAM1, m, k), want), k
    # node 0 sends its m words and the m totals and receives the m totals;
    # node k > 0 receives m partial sums and m totals and sends m partial
    # sums, forwarding the totals unless it is the last node
    c0 = sim.counters(0)["ring"]
    assert c0 == {"sent": 2 * m, "received": m, "forwarded": 0}
    for k in range(1, nodes):
        fwd = m if k < nodes - 1 else 0
        assert sim.counters(k)["ring"] == {"sent": m, "received": 2 * m, "forwarded": fwd}
