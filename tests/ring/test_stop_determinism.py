"""Issue 18: when several nodes stop, the run reports the first stop in
simulated time (node, cycle, message), whatever order and quantum the
scheduler interleaves nodes with.  Before, node 0 ran first to its own
fault at cycle ~5000 and the report named it, while node 1 had faulted at
cycle 8 and was said never to have run."""
from __future__ import annotations

import itertools

import pytest

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

QUANTA = (0, 1, 7, 1000)

# Node 0 counts down a long loop, then executes an illegal word; node 1
# (and node 3) fault at once (a read of unmapped memory); node 2 breaks
# (SWI) after a shorter loop.
SRC = """
        .global start
start:  LDP     0x800000
        LDI     @3, R0              ; NODE_ID
        CMPI    1, R0
        BEQ     early
        CMPI    3, R0
        BEQ     early
        CMPI    2, R0
        BEQ     brk
        LDI     {n0}, R1
loop0:  SUBI    1, R1
        BNZ     loop0
        .word   0FFFFFFFFh          ; illegal
early:  LDI     0300h, AR2
        LSH     12, AR2
        LDI     *AR2, R2            ; 0x300000: unmapped
        B       $
brk:    LDI     {n2}, R1
loop2:  SUBI    1, R1
        BNZ     loop2
        SWI
        B       $
"""


def _run(nodes: int, order, quantum: int, n0: int = 1000, n2: int = 500):
    sim = Simulator(MachineConfig(nodes=nodes))
    sim.load(build_text(SRC.format(n0=n0, n2=n2)))
    res = sim.run(max_cycles=1_000_000, quantum=quantum, order=order)
    return res.event, res.node, sim.core.cycle(res.node), res.messages[0]


@pytest.mark.parametrize("nodes", [2, 4])
def test_first_stop_in_simulated_time_is_reported(nodes):
    seen = {_run(nodes, list(order), q)
            for order in itertools.permutations(range(nodes)) for q in QUANTA}
    assert len(seen) == 1, seen
    event, node, cycle, message = seen.pop()
    assert (event, node) == ("error", 1)
    assert cycle < 20
    assert message.startswith("node 1: data read from an unmapped address at PC")


def test_a_breakpoint_earlier_than_an_error_wins():
    # node 2's SWI after ~2 loop iterations comes before node 0's fault; 3
    # nodes so that node 2 exists and no node faults at once
    src_nodes = 3
    seen = set()
    for order in itertools.permutations(range(src_nodes)):
        for q in QUANTA:
            sim = Simulator(MachineConfig(nodes=src_nodes))
            sim.load(build_text(SRC.format(n0=1000, n2=2).replace("CMPI    1, R0\n        BEQ     early",
                                                                    "CMPI    9, R0\n        BEQ     early")))
            res = sim.run(max_cycles=1_000_000, quantum=q, order=list(order))
            seen.add((res.event, res.node, sim.core.cycle(res.node)))
    assert len(seen) == 1, seen
    assert seen.pop()[:2] == ("break", 2)


def test_each_later_stop_is_reported_in_turn():
    # the machine cannot go on past an error: running again reports the same stop
    sim = Simulator(MachineConfig(nodes=4))
    sim.load(build_text(SRC.format(n0=1000, n2=500)))
    first = sim.run(max_cycles=1_000_000, order=[0, 2, 3, 1])
    again = sim.run(max_cycles=1_000_000, order=[3, 2, 1, 0], quantum=7)
    assert (first.event, first.node) == (again.event, again.node) == ("error", 1)


# Every node starts timer 0 with a period of its own (node 1 the shortest)
# and waits; the timer's interrupt (TINT0, vector word 9) jumps to an
# illegal word.  The first fault in simulated time is node 1's, whatever the
# order and quantum -- the stop comes from a peripheral, not an instruction.
TIMER_SRC = """
        .global start
start:  LDP     0x800000
        LDI     @3, AR1             ; NODE_ID
        LDP     tabp
        LDI     @tabp, AR0
        ADDI    AR1, AR0
        LDI     *AR0, R1            ; this node's period
        LDI     fault, R0
        STI     R0, @9              ; TINT0's vector
        LDI     0808h, AR2
        LSH     12, AR2
        OR      020h, AR2           ; timer 0's global control
        STI     R1, *+AR2(8)        ; period
        LDI     02C0h, R0           ; GO | HLD | CLKSRC (internal clock)
        STI     R0, *AR2
        LDI     0100h, IE           ; ETINT0
        OR      2000h, ST           ; GIE
wait:   B       wait
fault:  .word   0FFFFFFFFh          ; illegal
        .data
tabp:   .word   table
table:  .word   300, 100, 200, 400
"""


@pytest.mark.parametrize("nodes", [2, 4])
def test_first_stop_from_a_timer_interrupt(nodes):
    def run(order, quantum):
        sim = Simulator(MachineConfig(nodes=nodes))
        sim.load(build_text(TIMER_SRC))
        res = sim.run(max_cycles=100_000, quantum=quantum, order=order)
        return res.event, res.node, sim.core.cycle(res.node), res.messages[0]
    seen = {run(list(order), q) for order in itertools.permutations(range(nodes))
            for q in QUANTA}
    assert len(seen) == 1, seen
    event, node, cycle, message = seen.pop()
    assert (event, node) == ("error", 1)
    assert "illegal instruction" in message
    assert 200 <= cycle < 300          # period 100 at f(H1)/2: about 200 cycles after GO
