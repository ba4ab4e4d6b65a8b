"""Properties of the instruction trace over random programs (hypothesis):
the records account for every cycle, stall and instruction of the node's
counters, tracing changes no result, and each record's cycles decompose as
docs/debugging.md says."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from rapsim.probes import TRACE_DTYPE
from toolprogs import sim_of

# instructions with every kind of stall: register conflicts (AR/DP writes
# followed by indirect or direct accesses), bus conflicts (SRAM data with
# SRAM fetches), DRAM wait states, branches, calls, RPTS
PIECES = [
    "LDI 0x2000, AR0", "LDI 0x2100, AR1", "LDI *AR0++, R1", "STI R1, *AR1++",
    "ADDI 1, R2", "MPYI3 R2, R2, R3", "LDF 1.5, R4", "ADDF R4, R5", "NOP",
    "LDP 0x400000", "LDI @0, R6", "STI R6, @1", "LDI *+AR0(1), R7 || LDI *AR1, R0",
    "CALL sub", "RPTS 3\n        ADDI 1, R2", "BU $+1", "PUSH R2", "POP R3",
    "LDI 0x40, AR2\n        LSH 16, AR2\n        LDI *AR2, R1",
]


def program(seq):
    body = "\n".join("        " + p for p in seq)
    return f"""
        .global start
start:  LDI 0x1000, SP
{body}
        SWI
sub:    ADDI 3, R2
        RETS
"""


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=25))
def test_trace_accounts_for_every_cycle(seq):
    src = program(seq)
    sim = sim_of(src)
    chunks = []
    sim.probes.trace(chunks.append, capacity=7)
    res = sim.run(max_cycles=100_000)
    plain = sim_of(src)
    plain.run(max_cycles=100_000)
    assert res.event == "break"
    assert sim.counters(0) == plain.counters(0)
    recs = np.concatenate(chunks) if chunks else np.zeros(0, TRACE_DTYPE)
    c = sim.counters(0)
    assert len(recs) == c["instructions"]
    assert int(recs["end"][-1]) == c["cycles"]
    assert np.array_equal(recs["end"][:-1], recs["cycle"][1:])
    totals = recs["stall"].sum(axis=0)
    assert {k: int(v) for k, v in zip(c["stalls"], totals)} == c["stalls"]
    st_ = recs["stall"].astype(np.int64)
    # cycle + register conflict + ring waits = execute cycle; then 1 + branch + waits + bus
    assert np.array_equal(recs["cycle"] + st_[:, 1] + st_[:, 4] + st_[:, 5], recs["t_exec"])
    assert np.array_equal(recs["t_exec"] + 1 + st_[:, 0] + st_[:, 2] + st_[:, 3], recs["end"])
