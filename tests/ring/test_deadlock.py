"""Deadlocks on the ring are reported (event "deadlock", one line per node
with its cycle, PC, instruction and what it waits for), never hang; waits on
nodes that merely reached the cycle limit are "limit", not deadlock."""
from __future__ import annotations

import re

import pytest

from ringprogs import PROLOGUE, program, run

LINE = re.compile(r"^  node (\d+): cycle (\d+), PC 0x([0-9A-F]{6}) \(<source>\.asm:(\d+)\): "
                  r"[0-9A-F]{8}  (.+): (waits to read from the ring|waits to write to the ring "
                  r"\(output latch full\)|waits on RING_STAT for a neighbour)(; .*)?$")


def node_lines(res) -> dict[int, str]:
    out = {}
    for m in res.messages[1:]:
        k = int(re.match(r"^  node (\d+):", m).group(1))
        out[k] = m
    return out


def waiting(res, nodes):
    """{node: (instruction text, what, tail)} of the waiting nodes' lines."""
    got = {}
    for k, line in node_lines(res).items():
        m = LINE.match(line)
        if m:
            got[k] = (m.group(5), m.group(6), m.group(7) or "")
    return got


EVERYONE_READS = program("""
        .global start
        .text
start:  LDP     0x800000
        LDI     @0, R1
        B       exit
""")


@pytest.mark.parametrize("nodes", [1, 2, 4, 64])
def test_everyone_reads_first(nodes):
    sim, res = run(EVERYONE_READS, nodes)
    assert res.event == "deadlock"
    assert res.messages[0] == "deadlock: no node can progress"
    assert len(res.messages) == 1 + nodes
    w = waiting(res, nodes)
    assert sorted(w) == list(range(nodes))
    for k, (ins, what, tail) in w.items():
        assert ins.startswith("LDI @0x0000,R1")
        assert what == "waits to read from the ring"
        assert tail == ""
    # every node issued the read at cycle 1 (LDP takes 1) and stays there
    assert all(f"node {k}: cycle 1, PC 0x000041" in res.messages[1 + k] for k in range(nodes))
    assert 0 <= res.node < nodes


def test_a_node_exits_while_others_wait_on_it():
    src = program(PROLOGUE + """
        B       exit            ; node 0 leaves at once
recv:   LDI     @0, R1
        B       exit
""")
    sim, res = run(src, 4)
    assert res.event == "deadlock"
    lines = node_lines(res)
    assert lines[0].startswith("  node 0: exited with status 0 at cycle")
    w = waiting(res, 4)
    assert sorted(w) == [1, 2, 3]
    assert w[1][1] == "waits to read from the ring"
    assert w[1][2] == "; upstream node 0 is exited"
    assert w[2][2] == "" and w[3][2] == ""      # they wait on waiting nodes
    assert sim.core.status(0) == "exited"


def test_a_writer_whose_reader_exited_after_two_words():
    # node 1 reads two words and exits; node 0 writes 6: words 2 and 3 fill
    # the input and output latches of link 0 -> 1, word 4 can never go
    src = program(PROLOGUE + """
        LDI     5, R1
        STI     R1, @0
        STI     R1, @0
        STI     R1, @0
        STI     R1, @0
        STI     R1, @0          ; <- waits for ever
        STI     R1, @0
        B       exit
recv:   LDI     @0, R1
        LDI     @0, R1
        B       exit
""")
    sim, res = run(src, 2)
    assert res.event == "deadlock"
    w = waiting(res, 2)
    assert list(w) == [0]
    ins, what, tail = w[0]
    assert ins.startswith("STI R1,@0x0000")
    assert what == "waits to write to the ring (output latch full)"
    assert tail == "; downstream node 1 is exited"
    line = src.splitlines().index("        STI     R1, @0          ; <- waits for ever") + 1
    assert f"(<source>.asm:{line})" in node_lines(res)[0]        # the fifth STI
    assert sim.counters(0)["ring"]["sent"] == 4
    assert sim.counters(1)["ring"]["received"] == 2
    assert res.node == 0


def test_everyone_writes_three_words():
    # each link holds two words: the third write of every node waits for a
    # read that never comes
    src = program("""
        .global start
        .text
start:  LDP     0x800000
        STI     R0, @0
        STI     R0, @0
        STI     R0, @0
        B       exit
""")
    for nodes in (2, 5):
        sim, res = run(src, nodes)
        assert res.event == "deadlock"
        w = waiting(res, nodes)
        assert sorted(w) == list(range(nodes))
        assert {v[1] for v in w.values()} == {"waits to write to the ring (output latch full)"}
        assert all(sim.counters(k)["ring"]["sent"] == 2 for k in range(nodes))


def test_full_ring_with_plain_writes_is_a_deadlock_but_read_and_forward_rotates():
    # all latches full.  A node that writes without reading cannot move; one
    # that reads and forwards in one access can, when every node does (the
    # whole ring shifts at once).
    stuck = program("""
        .global start
        .text
start:  LDP     0x800000
        STI     R0, @0
        STI     R0, @0
        LDI     1, R1
        STI     R1, @2          ; RING_FWD = 1
        STI     R0, @0          ; a plain write: nobody reads
        B       exit
""")
    sim, res = run(stuck, 4)
    assert res.event == "deadlock"
    rotates = stuck.replace("STI     R0, @0          ; a plain write: nobody reads",
                            "LDI     @0, R2          ; read-and-forward")
    sim, res = run(rotates, 4)
    assert res.event == "done", res.messages
    assert all(sim.counters(k)["ring"] == {"sent": 2, "received": 1, "forwarded": 1}
               for k in range(4))


def test_deadlock_reported_after_the_other_nodes_finish():
    # node 1 waits on node 0, which has exited; nodes 2 and 3 compute for a
    # while (node 2 then reads from node 1 too, node 3 exits): the deadlock
    # is reported when nobody else can move
    src = program(PROLOGUE + """
        B       exit
recv:   CMPI    1, R0
        BEQ     rd
        LDI     500, AR4
spin:   DBU     AR4, spin
        CMPI    3, R0
        BEQ     exit
rd:     LDI     @0, R1
        B       exit
""")
    sim, res = run(src, 4)
    assert res.event == "deadlock"
    assert sim.core.status(3) == "exited"
    assert sim.counters(3)["cycles"] > 2000
    w = waiting(res, 4)
    assert sorted(w) == [1, 2]
    assert w[1][2] == "; upstream node 0 is exited"


def test_waiting_on_a_node_at_the_cycle_limit_is_not_a_deadlock():
    src = program(PROLOGUE + """
        LDI     30000, AR4
spin:   DBU     AR4, spin
        STI     R0, @0
        B       exit
recv:   LDI     @0, R1
        B       exit
""")
    sim, res = run(src, 2, max_cycles=1000)
    assert res.event == "limit"
    assert res.messages[0].startswith("cycle limit of 1000 reached")
    assert sim.counters(0)["cycles"] >= 1000
    sim, res = run(src, 2, max_cycles=None)
    assert res.event == "done"


def test_polling_ring_stat_for_ever_is_not_a_deadlock():
    # node 0 polls RING_STAT for a word node 1 never sends (node 1 exits):
    # a livelock that runs into the cycle limit, without hanging
    src = program(PROLOGUE + """
poll:   LDI     @1, R1
        AND     1, R1
        BZ      poll
        B       exit
recv:   B       exit
""")
    sim, res = run(src, 2, max_cycles=20_000)
    assert res.event == "limit"
    assert sim.counters(0)["cycles"] >= 20_000
    # nodes 1 and 2 wait to read from node 0 (through node 1), which polls
    # for ever: they wait on a live node, so this is the limit too, and the
    # report lists them
    src3 = src.replace("recv:   B       exit", "recv:   LDI     @0, R3\n        B       exit")
    sim, res = run(src3, 3, max_cycles=20_000)
    assert res.event == "limit"
    w = {k: v for k, v in waiting(res, 3).items()}
    assert sorted(w) == [1, 2]
    assert node_lines(res)[0].startswith("  node 0: running at cycle")
