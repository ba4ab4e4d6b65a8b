"""Single ring accesses (ring_step_lean, rapsim/core/ringfast.pxi) against
the general path: instructions not repeated by RPTS -- straight code, RPTB
bodies, delay slots -- with one RING_DATA operand (read or written) and at
most one plain-memory operand, as the collectives' reduce-scatter
(``ADDF3 *AR0, *AR2++, R0`` / ``STF R0, *AR0``) and scalar reductions use
them.  The same SPMD program run plainly (1 or 2 host threads) and with a
probe attached (an armed breakpoint never reached sends every instruction
of every node through step()'s general stages, probe.pxi) gives identical
events, counters, registers and memory, with nodes delayed by different
amounts (words and room come late), forwarding (RING_FWD), back-pressure,
deadlocks, board hops and cycle limits."""
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

#: the two instructions of a loop body, each with one ring access
BODIES = {
    # the reduce-scatter's segments (firmware/ring.asm RSEMIT, RSKEEP)
    "addf_emit": ("ADDF3 *AR1, *AR6++, R1", "STF R1, *AR1"),
    "addf_keep": ("ADDF3 *AR1, *AR6, R1", "STF R1, *AR6++"),
    # a read and a write; the ring operand second; a read with a store
    "ldi_sti": ("LDI *AR1, R1", "STI R1, *AR1"),
    "add_second": ("ADDI3 *AR6++, *AR1, R1", "STI R1, *AR1"),
    "read_store": ("LDI *AR1, R1\n     || STI R1, *AR6++", "STI R1, *AR1"),
    "write_read": ("STI R5, *AR1", "LDI *AR1, R2"),
    # the ring operand indexed, then a plain one (ind_address's modes)
    "indexed": ("LDI *+AR1(0), R1", "STI R1, *AR1++(0)"),
    # RING_STAT and NODE_ID: not of the form (left to step())
    "stat": ("LDI *+AR1(1), R1", "STI R5, *AR1"),
}

#: how the body is repeated: an RPTB block, a branch loop, delay slots
LOOPS = {
    "rptb": "        LDI     {n}, RC\n        RPTB    e{r}\n        {a}\ne{r}:    {b}\n",
    "dbu": "        LDI     {n}, AR3\nl{r}:    {a}\n        {b}\n        DBU     AR3, l{r}\n",
    "delayed": "        LDI     {n}, AR3\nl{r}:    DBUD    AR3, l{r}\n        {a}\n"
               "        {b}\n        NOP\n",
}


#: where the plain operand's words are: on-chip RAM (no bus shared with the
#: fetch) or SRAM (the primary bus, which the fetch uses too: the pipeline chapter of the guide, bus conflicts)
MEMORY = {"ram1": "", "sram": "        LDI     04000h, AR6\n"}


def _program(writes: int, fwd: int, body: str, loop: str, count: int, rounds: int,
             delay: int, mem: str = "ram1") -> str:
    # node k waits k * delay cycles before each ring phase, so that words
    # and room on the links come late for some and early for others
    a, b = BODIES[body]
    src = _START + MEMORY[mem] + f"""
        LDI     {rounds - 1}, AR4
outer:  LDI     @3, R0
        MPYI    {delay}, R0
        RPTS    R0
        NOP
""" + "".join("        STI     R5, *AR1\n" for _ in range(writes)) + f"""
        LDI     {fwd}, R0
        STI     R0, @2          ; RING_FWD
"""
    src += LOOPS[loop].format(n=count, r=0, a=a, b=b)
    return src + """
        ADDI    1, R5
        DBU     AR4, outer
""" + EPILOGUE


def _run(src: str, nodes: int, limit: int | None, probed: bool, threads: int, hop: int) -> dict:
    sim = Simulator(MachineConfig(nodes=nodes, hostcall_cycles=0, board_hop_cycles=hop),
                    threads=threads)
    sim.load(build_text(src))
    return run_snapshot(sim, probed, limit)


def _check(src, nodes, limit, threads, hop):
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
@example(nodes=8, body="addf_emit", loop="rptb", writes=1, fwd=0, count=9, rounds=2,
         limit=None, threads=1, hop=1, delay=5, mem="sram")
@example(nodes=5, body="ldi_sti", loop="delayed", writes=2, fwd=3, count=6, rounds=3,
         limit=170, threads=2, hop=3, delay=2, mem="ram1")
@given(nodes=st.sampled_from([2, 3, 4, 5, 8]), body=st.sampled_from(sorted(BODIES)),
       loop=st.sampled_from(sorted(LOOPS)), writes=st.integers(0, 3), fwd=st.integers(0, 8),
       count=st.integers(0, 12), rounds=st.integers(1, 3),
       limit=st.one_of(st.none(), st.integers(1, 400)), threads=st.sampled_from([1, 2]),
       hop=st.sampled_from([1, 3]), delay=st.integers(0, 9), mem=st.sampled_from(sorted(MEMORY)))
def test_single_ring_accesses_equal_general_path(nodes, body, loop, writes, fwd, count, rounds,
                                                 limit, threads, hop, delay, mem):
    _check(_program(writes, fwd, body, loop, count, rounds, delay, mem), nodes, limit, threads,
           hop)


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_reduce_scatter_segment_runs_to_the_end(loop):
    # every node adds the word from upstream and sends the sum on, a word
    # injected by each node first: a ring of partial sums moving to the end
    # (no deadlock), the same on the lean and the general path
    out = _check(_program(1, 0, "addf_emit", loop, 10, 2, 4), 8, None, 1, 1)
    assert out["event"] == "done"
