"""Scheduling knobs never change a result: the same program under different
quantum (cycles a node runs before the next gets its turn) and order (the
order nodes take turns in) gives identical counters for every node
(Simulator.machine_counters), identical registers and identical memory.

The programs include RING_STAT polling whose outcome steers control flow,
back-pressure, uneven work per node, data-dependent branches, board hops,
a full ring shifting at once, and runs cut by the cycle limit."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringprogs import (PROLOGUE, RAM1, VEC, allgather_program, program, simulator)

QUANTA = (0, 1, 7, 1000)

# Polling everywhere.  Node 0 feeds K values into the ring and collects the
# results, never blocking: each turn it sends if RING_STAT says the output
# latch is free and receives if a word is waiting, so how often it loops and
# in which order it sends and receives depends on cycle-exact timing.  Nodes
# k >= 1 poll for input, read, do extra work for odd values (data-dependent),
# transform the value, poll for room, write.  Each node first does uneven
# work (k-dependent), and counts its polls in R5.
POLL = program(PROLOGUE + """
* node 0: AR0 -> results (RAM1), R3 = values sent, R4 = results received
        LDI     AR1, AR0
        OR      09C00h, AR0
        LDI     0, R3
        LDI     0, R4
        LDI     0, R5
turn:   ADDI    1, R5
        CMPI    {k}, R3
        BGE     tryrx
        LDI     @1, R1
        AND     2, R1
        BZ      tryrx
        LDI     R3, R2
        MPYI    7, R2
        ADDI    3, R2
        STI     R2, @0          ; send 7i + 3
        ADDI    1, R3
tryrx:  LDI     @1, R1
        AND     1, R1
        BZ      more
        LDI     @0, R2
        STI     R2, *AR0++
        ADDI    1, R4
more:   CMPI    {k}, R4
        BLT     turn
        STI     R5, *AR0++      ; how many turns it took
        B       exit
* node k >= 1
recv:   LDI     R0, R6
        MPYI    37, R6
        AND     63, R6          ; uneven start-up work: 0..63 iterations
        LDI     R6, AR4
idle:   DBU     AR4, idle
        LDI     {k}, R3
        LDI     0, R5
rpoll:  ADDI    1, R5
        LDI     @1, R1
        AND     1, R1
        BZ      rpoll
        LDI     @0, R2
        TSTB    1, R2
        BZ      even
        LDI     R0, RC
        RPTB    odd             ; extra work for odd values
        ADDI    R0, R6
odd:    NOP
even:   MPYI    5, R2
        ADDI    R0, R2
wpoll:  ADDI    1, R5
        LDI     @1, R1
        AND     2, R1
        BZ      wpoll
        STI     R2, @0
        SUBI    1, R3
        BNZ     rpoll
        B       exit
""".replace("{k}", "12"))

# Back-pressure and board hops: node 0 bursts K words, every other node
# forwards them after node-dependent delays with a reader slower than the
# writer (3 cycles per word: LDI, STI, NOP under RPTB); the last node keeps
# them.
BURST = program(PROLOGUE + """
        LDI     0, R1
        LDI     29, RC
        RPTB    snd
        ADDI    3, R1
snd:    STI     R1, @0
        B       exit
recv:   LDI     AR1, AR0
        OR      09C00h, AR0
        LDI     R0, AR4
        MPYI    11, AR4
wait:   DBU     AR4, wait
        CMPI    R2, R0
        BEQ     last
        LDI     29, RC
        RPTB    fw
        LDI     @0, R1
        STI     R1, *AR0++
fw:     STI     R1, @0
        B       exit
last:   LDI     29, RC
        RPTB    keep
        LDI     @0, R1
        STI     R1, *AR0++
keep:   NOP
        B       exit
""")

# A full ring shifting at once: every node writes two words and then reads
# and forwards 2(N - 1) words, the last two without forwarding.
ROTATE = program("""
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1
        LDP     0x800000
        LDI     AR1, AR0
        OR      09C00h, AR0
        LDI     @3, R0
        LDI     @4, R2
        SUBI    2, R2
        LDI     R2, R3
        ADDI    R2, R3          ; 2(N - 2) to forward
        LDI     R3, R4
        ADDI    1, R4           ; RPTS count: 2(N - 1) - 1
        LDI     R0, R1
        MPYI    10, R1
        STI     R1, *AR1
        ADDI    1, R1
        STI     R1, *AR1
        STI     R3, @2
        LDI     *--AR0(1), R1
        RPTS    R4
        LDI     *AR1, R1
     || STI     R1, *AR0++
        STI     R1, *AR0
        B       exit
""")


def snapshot(sim, res, mem=64):
    """Everything a run produced that must not depend on scheduling."""
    return {
        "event": res.event, "exit": res.exit_status, "cycles": res.cycles,
        "messages": res.messages,
        "counters": sim.machine_counters(),
        "regs": [sim.registers(n) for n in range(sim.nodes)],
        "mem": [sim.read(RAM1, mem, n).tolist() for n in range(sim.nodes)],
    }


def run_with(src, nodes, quantum, order, max_cycles=2_000_000, setup=None, **cfg):
    sim = simulator(src, nodes, **cfg)
    if setup:
        setup(sim)
    res = sim.run(max_cycles=max_cycles, quantum=quantum, order=order)
    return snapshot(sim, res)


def orders(nodes, seed=0):
    rng = random.Random(seed)
    out = [None, list(range(nodes)), list(range(nodes))[::-1]]
    for _ in range(2):
        p = list(range(nodes))
        rng.shuffle(p)
        out.append(p)
    return out


def allgather_setup(lens):
    def setup(sim):
        vec = (np.arange(1, sum(lens) + 1, dtype=np.uint64) * 2654435761) % (1 << 32)
        off = 0
        for k, n in enumerate(lens):
            if n:
                sim.write(VEC + off, vec[off:off + n].astype(np.uint32), node=k)
            off += n
    return setup


UNEVEN = [3, 0, 7, 1, 2, 5, 0, 4, 6, 1, 1, 9]

CASES = {
    "poll-4": (POLL, 4, {}, None, {}),
    "poll-9": (POLL, 9, {}, None, {}),
    "poll-8-hop3": (POLL, 8, {"board_hop_cycles": 3}, None, {}),
    "burst-6": (BURST, 6, {}, None, {}),
    "burst-12-hop4": (BURST, 12, {"board_hop_cycles": 4}, None, {}),
    "rotate-5": (ROTATE, 5, {}, None, {}),
    "rotate-16-hop2": (ROTATE, 16, {"board_hop_cycles": 2}, None, {}),
    "allgather-uneven": (allgather_program(UNEVEN), len(UNEVEN), {}, allgather_setup(UNEVEN), {}),
    "poll-limit": (POLL, 5, {}, None, {"max_cycles": 700}),
    "burst-limit": (BURST, 6, {}, None, {"max_cycles": 150}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_quantum_and_order_change_nothing(case):
    src, nodes, cfg, setup, kw = CASES[case]
    ref = run_with(src, nodes, 0, None, setup=setup, **kw, **cfg)
    if "limit" in case:
        assert ref["event"] == "limit"
    else:
        assert ref["event"] == "done", ref["messages"]
    for q in QUANTA:
        for o in orders(nodes, seed=len(case)):
            got = run_with(src, nodes, q, o, setup=setup, **kw, **cfg)
            assert got == ref, (case, q, o)


def test_the_polling_program_really_depends_on_timing():
    # the knobs must not matter, but the machine's timing must: a board hop
    # changes how many polling turns node 0 needs (so the program above is a
    # real test of order independence, not a timing-blind one)
    a = run_with(POLL, 8, 0, None)
    b = run_with(POLL, 8, 0, None, board_hop_cycles=9)
    turns = lambda s: s["mem"][0][12]          # noqa: E731
    assert a["mem"][0][:12] == b["mem"][0][:12]        # same results
    assert turns(a) != turns(b)
    assert [r["R5"] for r in a["regs"]] != [r["R5"] for r in b["regs"]]
    # results: 7i + 3 through nodes 1..7: v -> 5v + k
    for i in range(12):
        v = 7 * i + 3
        for k in range(1, 8):
            v = (5 * v + k) & 0xFFFFFFFF
        assert a["mem"][0][i] == v


def test_rotation_results():
    s = run_with(ROTATE, 5, 0, None)
    # node k receives, in order, the words of nodes k-1, k-2, ...: 10j, 10j + 1
    for k in range(5):
        want = []
        for d in range(1, 5):
            j = (k - d) % 5
            want += [10 * j, 10 * j + 1]
        assert s["mem"][k][:8] == want
        c = s["counters"]["nodes"][k]
        assert c["ring"] == {"sent": 2, "received": 8, "forwarded": 6}


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_schedules(data):
    case = data.draw(st.sampled_from(sorted(CASES)))
    src, nodes, cfg, setup, kw = CASES[case]
    q = data.draw(st.one_of(st.sampled_from(QUANTA), st.integers(1, 5000)))
    order = data.draw(st.permutations(list(range(nodes))))
    ref = run_with(src, nodes, 0, None, setup=setup, **kw, **cfg)
    assert run_with(src, nodes, q, order, setup=setup, **kw, **cfg) == ref


def test_resuming_after_a_limit_matches_one_long_run():
    # a run cut by the cycle limit and resumed gives what one run gives
    ref = run_with(POLL, 6, 0, None)
    sim = simulator(POLL, 6)
    for limit in (100, 101, 350, 600):
        assert sim.run(max_cycles=limit, quantum=3, order=[5, 1, 3, 0, 2, 4]).event == "limit"
    res = sim.run(max_cycles=2_000_000)
    assert snapshot(sim, res)["counters"] == ref["counters"]
    assert snapshot(sim, res)["mem"] == ref["mem"]
