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

import pytest
from hypothesis import example, given, settings, strategies as st

# the SPMD start, and the plain run against the probed one (test_ring_fast.py)
from test_ring_fast import _START, equal_to_general_path, ring_program

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
    a, b = BODIES[body]
    return ring_program(writes, fwd, LOOPS[loop].format(n=count, r=0, a=a, b=b), rounds, delay,
                        _START + MEMORY[mem])


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
    equal_to_general_path(_program(writes, fwd, body, loop, count, rounds, delay, mem), nodes,
                          limit, threads, hop)


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_reduce_scatter_segment_runs_to_the_end(loop):
    # every node adds the word from upstream and sends the sum on, a word
    # injected by each node first: a ring of partial sums moving to the end
    # (no deadlock), the same on the lean and the general path
    out = equal_to_general_path(_program(1, 0, "addf_emit", loop, 10, 2, 4), 8, None, 1, 1)
    assert out["event"] == "done"
