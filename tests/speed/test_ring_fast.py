"""RPTS repetitions over RING_DATA (ring_rpts, rapsim/core/ringfast.pxi) and
the rotation rounds of the scheduler (rotation_rounds, schedule.pxi) against
the general path: the same SPMD ring program run plainly (on 1 or 2 host
threads) and with a probe attached (an armed breakpoint never reached sends
every instruction of every node through step(), probe.pxi) gives identical
events, counters, registers and memory -- for all-gathers with forwarding,
reads with a store, reads with a plain-memory read (the ring operand first
or second), reads and writes in one instruction, repeated writes (alone,
with a plain-memory read or with a store),
forwards combined with a write (an error), RING_STAT in a repetition (left
to step()), back-pressure, deadlocks, board hops and cycle limits that cut
a repetition run."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

from reference_cases import run_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ring"))
from ringprogs import EPILOGUE  # noqa: E402  (exit through the host daemon)

_START = """
        .global start
start:  LDI     0x80, AR1
        LSH     16, AR1         ; AR1 -> RING_DATA
        LDP     0x800000
        LDI     @3, R5          ; node id: the words differ per node
        LDI     AR1, AR6
        OR      09C00h, AR6     ; AR6 -> RAM1
        LDI     1, IR0
"""

#: the instruction RPTS repeats, by name
BODIES = {
    "read_store": "LDI *AR1, R1\n     || STI R1, *AR6++",
    "read": "LDI *AR1, R1",
    "read_idx": "LDI *AR1, R1\n     || STI R1, *AR6++(IR0)",
    "read_write": "LDI *AR1, R1\n     || STI R1, *AR1",
    "write": "STI R5, *AR1",
    "float": "LDF *AR1, R2\n     || STF R2, *AR6++",
    "stat": "LDI *+AR1(1), R1\n     || STI R1, *AR6++",
    # a ring read with a plain-memory read, the ring operand first or second
    # (ring_rpts_lean and rotation_turn, ringfast.pxi)
    "read_add": "ADDI3 *AR1, *AR6++, R1",
    "add_read": "ADDI3 *AR6--, *AR1, R1",
    # a ring write with a plain-memory read or write (the collectives'
    # injections, ring_rpts_lean's write form)
    "inject": "LDI *AR6++, R1\n     || STI R1, *AR1",
    "write_store": "STI R5, *AR1\n     || STI R5, *AR6++",
}


def ring_program(writes: int, fwd: int, phase: str, rounds: int, delay: int,
                 start: str = _START) -> str:
    """``rounds`` ring phases of an SPMD program: node k waits k * delay
    cycles before each (so that words and room on the links come late for
    some and early for others), writes ``writes`` words, sets RING_FWD to
    ``fwd`` and runs ``phase`` (assembly lines)."""
    return start + f"""
        LDI     {rounds - 1}, AR4
outer:  LDI     @3, R0
        MPYI    {delay}, R0
        RPTS    R0
        NOP
""" + "".join("        STI     R5, *AR1\n" for _ in range(writes)) + f"""
        LDI     {fwd}, R0
        STI     R0, @2          ; RING_FWD
{phase}
        ADDI    1, R5
        DBU     AR4, outer
""" + EPILOGUE


def _program(writes: int, fwd: int, body: str, count: int, rounds: int, delay: int) -> str:
    return ring_program(writes, fwd, f"        RPTS    {count}\n        {BODIES[body]}", rounds,
                        delay)


def _run(src: str, nodes: int, limit: int | None, probed: bool, threads: int, hop: int) -> dict:
    sim = Simulator(MachineConfig(nodes=nodes, hostcall_cycles=0, board_hop_cycles=hop),
                    threads=threads)
    sim.load(build_text(src))
    return run_snapshot(sim, probed, limit)


def equal_to_general_path(src: str, nodes: int, limit: int | None, threads: int,
                          hop: int) -> dict:
    """Run ``src`` plainly (on ``threads`` host threads) and probed (every
    instruction through step()); require the same outcome.  Returns the
    plain run's snapshot."""
    plain = _run(src, nodes, limit, False, threads, hop)
    general = _run(src, nodes, limit, True, 1, hop)
    if plain["event"] == "error":
        # a probed machine keeps its other nodes as run at a stop (machine-model.md,
        # "Stops"): compare the error and the node that made it
        assert plain["messages"][0] == general["messages"][0]
        who = int(plain["messages"][0].split(":")[0].split()[1])
        assert plain["nodes"][who] == general["nodes"][who]
    else:
        assert plain == general
    return plain


@settings(max_examples=40, deadline=None)
# words that come late in the middle of repetitions (reads wait, then stall)
@example(nodes=8, body="read_store", writes=1, fwd=6, count=7, rounds=3, limit=None, threads=1,
         hop=1, delay=9)
@example(nodes=5, body="read_write", writes=1, fwd=0, count=9, rounds=2, limit=150, threads=2,
         hop=3, delay=4)
@given(nodes=st.sampled_from([2, 3, 4, 5, 8]), body=st.sampled_from(sorted(BODIES)),
       writes=st.integers(0, 3), fwd=st.integers(0, 12), count=st.integers(0, 24),
       rounds=st.integers(1, 3), limit=st.one_of(st.none(), st.integers(1, 400)),
       threads=st.sampled_from([1, 2]), hop=st.sampled_from([1, 3]), delay=st.integers(0, 9))
def test_ring_repetitions_equal_general_path(nodes, body, writes, fwd, count, rounds, limit,
                                             threads, hop, delay):
    equal_to_general_path(_program(writes, fwd, body, count, rounds, delay), nodes, limit,
                          threads, hop)


@pytest.mark.parametrize("body", ["read_store", "read_add", "add_read"])
def test_all_gather_with_forwarding_equals_general_path(body):
    # the benchmark's ring-bound loop (a full ring moving by rotations), 8 nodes
    n = 8
    src = _program(2, 2 * (n - 2), body, 2 * (n - 1) - 1, 5, 3)
    plain = _run(src, n, None, False, 1, 1)
    assert plain["event"] == "done"
    assert plain == _run(src, n, None, True, 1, 1)
    assert plain == _run(src, n, None, False, 2, 1)
