"""The fast path (rapsim/core/fast.pxi) against the general path: the same
program run plainly and with a probe attached (an armed breakpoint at an
address never reached sends every instruction through step(), probe.pxi)
gives identical counters, registers and memory -- for RPTS loops whose
operands start in, cross or leave a region, every indirect mode, stores,
wait states, and runs cut by a cycle limit in the middle of a repetition."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import MemoryConfig
from rapsim.toolchain import build_text

from reference_cases import run_snapshot

RAM0, RAM1, DRAM = 0x809800, 0x809C00, 0x400000
#: operand start addresses: plain regions, near their ends (so runs cross
#: into the next region or out of the map), the ring registers
BASES = [0x2000, RAM0, RAM1 - 3, RAM1 + 0x3FE, DRAM, 0x3FFFE, 0x800000 - 2, RAM0 + 0x200]
MODES = ["*AR{r}++", "*AR{r}--", "*+AR{r}(1)", "*++AR{r}(1)", "*--AR{r}(1)", "*AR{r}++(IR0)",
         "*AR{r}--(IR1)", "*AR{r}", "*AR{r}++%"]
BODIES = [
    "MPYF3 {a}, {b}, R0\n     || ADDF3 R0, R2, R2",
    "MPYF3 {a}, {b}, R0\n     || SUBF3 R0, R2, R2",
    "ADDF3 {a}, {b}, R3",
    "LDI {a}, R1\n     || STI R1, {b}",
    "LDF {a}, R4\n     || LDF {b}, R5",
    "STF R2, {a}\n     || STF R3, {b}",
    "ADDI {a}, R6",
    "NOP {a}",
    "ADDI3 {a}, {b}, R5",
    "CMPF3 {a}, {b}",
    "LDI @0x2005, R1",
]


def _ld(value: int, reg: str) -> str:
    return f"        LDI {value >> 16}, {reg}\n        LSH 16, {reg}\n        OR {value & 0xFFFF}, {reg}\n"


def _program(body: str, ma: str, mb: str, count: int, ba: int, bb: int, ir: int) -> str:
    a, b = ma.format(r=0), mb.format(r=1)
    return ("        .global start\nstart:\n" + _ld(ba, "AR0") + _ld(bb, "AR1")
            + f"        LDI {ir}, IR0\n        LDI {ir}, IR1\n        LDI 5, BK\n"
            + "        LDF 1.5, R2\n        LDF -0.25, R3\n        LDI 7, R6\n"
            + f"        RPTS {count}\n        {body.format(a=a, b=b)}\n"
            + "        ADDI 1, R7\n        SWI\n")


def _run(src: str, limit: int | None, probed: bool, dram_wait: int, sram_wait: int = 0) -> dict:
    sim = Simulator(MachineConfig(memory=MemoryConfig(dram_wait=dram_wait, sram_wait=sram_wait)))
    sim.load(build_text(src))
    for i in range(64):                                 # data, so that results differ per word
        sim.write(0x2000 + i, [0x3F800000 + (i << 16)])
        sim.write(RAM0 + i, [0x40000000 + (i << 12)])
    return run_snapshot(sim, probed, limit)


@settings(max_examples=60, deadline=None)
@given(body=st.sampled_from(BODIES), ma=st.sampled_from(MODES), mb=st.sampled_from(MODES),
       count=st.integers(0, 40), ba=st.sampled_from(BASES), bb=st.sampled_from(BASES),
       ir=st.integers(0, 3), limit=st.one_of(st.none(), st.integers(1, 80)),
       dram_wait=st.integers(0, 3))
def test_fast_path_equals_general_path(body, ma, mb, count, ba, bb, ir, limit, dram_wait):
    if body.startswith("ADDI") or body.startswith("NOP"):
        mb = ma                                         # one memory operand
    src = _program(body, ma, mb, count, ba, bb, ir)
    assert _run(src, limit, False, dram_wait) == _run(src, limit, True, dram_wait)


# Non-repeated code: the operations with their own fast-path handler
# (Decoded.fh, chosen at decode: integer and float two-operand forms, LDI,
# CMPI, CMPF, STI, Bcond, DBcond, LDF, ABSF, NEGF, STF, NOP, BR, BRD, RPTS),
# plus one that goes through execute_op; register, immediate and memory
# operands (fetch-only instructions and the others).
INT2 = ["ADDI", "SUBI", "ADDC", "SUBB", "ASH", "LSH", "MPYI", "AND", "ANDN", "OR", "XOR"]
STRAIGHT = [
    "ADDI {i}, R{d}", "SUBI R{s}, R{d}", "AND {u}, R{d}", "XOR R{s}, R{d}", "MPYI R{s}, R{d}",
    "LSH {h}, R{d}", "ASH -{h}, R{d}", "ADDC R{s}, R{d}", "SUBB {i}, R{d}", "OR *AR0++, R{d}",
    "ANDN R{s}, R{d}", "ADDI3 R{s}, R{d}, R{e}", "SUBI3 *AR0++, R{s}, R{d}", "LDI *AR0++, R{d}",
    "LDI {i}, R{d}", "LDI R{s}, AR2", "CMPI {i}, R{d}", "CMPI R{s}, R{d}", "STI R{s}, *AR1++",
    "ADDF R{s}, R{d}", "MPYF 1.5, R{d}", "SUBF *AR0++, R{d}", "MPYF3 R{s}, R{d}, R{e}",
    "CMPF R{s}, R{d}", "CMPF 0.5, R{d}", "NEGI R{s}, R{d}",
    "LDF 1.5, R{d}", "LDF R{s}, R{d}", "LDF *AR0++, R{d}", "ABSF R{s}, R{d}", "NEGF *AR0++, R{d}",
    "STF R{s}, *AR1++", "NOP", "NOP *AR0++", "RPTS {k}\n        ADDI 1, R{d}",
    "BR {next}", "BRD {next}\n        ADDI 2, R{d}\n        NOP\n        LSH 1, R{s}",
]
# every operation with handlers per operand form (ops.pxi form_handler) in
# each of its forms: register and immediate source, three registers, and an
# AR destination (no form handler)
STRAIGHT += [f"{op} R{{s}}, R{{d}}" for op in INT2] + [f"{op} {{u}}, R{{d}}" for op in INT2] \
    + [f"{op}3 R{{s}}, R{{d}}, R{{e}}" for op in INT2] + [f"{op} {{u}}, AR3" for op in INT2]
CONDS = ["Z", "NZ", "LT", "GE", "GT", "LE", "C", "NC", "V", "NV", "U"]


@st.composite
def _straight_code(draw):
    """Lines L0, L1, ... then Lend; after a line, maybe a Bcond over the next one."""
    count = draw(st.integers(1, 14))
    lines = []
    for j in range(count):
        op = draw(st.sampled_from(STRAIGHT)).format(
            i=draw(st.integers(-40, 40)), u=draw(st.integers(0, 300)), h=draw(st.integers(0, 31)), d=draw(st.integers(0, 7)),
            s=draw(st.integers(0, 7)), e=draw(st.integers(0, 7)), k=draw(st.integers(0, 3)),
            next=f"L{j + 1}" if j + 1 < count else "Lend")
        lines.append(f"L{j}:    {op}")
        if draw(st.booleans()):
            target = f"L{j + 2}" if j + 2 < count else "Lend"
            lines.append(f"        B{draw(st.sampled_from(CONDS))} {target}")
    lines.append("Lend:")
    return "\n".join(lines)


@settings(max_examples=80, deadline=None)
@given(code=_straight_code(), passes=st.integers(1, 6), delayed=st.booleans(),
       limit=st.one_of(st.none(), st.integers(1, 300)), sram_wait=st.integers(0, 2),
       cache=st.booleans())
def test_fast_path_handlers_equal_general_path(code, passes, delayed, limit, sram_wait, cache):
    """... with the code fetched from SRAM with 0-2 wait states, the
    instruction cache on or off (guide 4.3: ST.CE)."""
    loop_back = ("        DBUD AR4, top\n        NOP\n        NOP\n        NOP\n" if delayed
                 else "        DBU AR4, top\n")
    src = ("        .global start\nstart:\n" + ("        OR 800h, ST\n" if cache else "")
           + _ld(0x2000, "AR0") + _ld(RAM1, "AR1")
           + f"        LDI {passes - 1}, AR4\n"
           + "".join(f"        LDI {3 * r - 7}, R{r}\n" for r in range(8))
           + "top:\n" + code + "\n" + loop_back + "        SWI\n")
    fast = _run(src, limit, False, 1, sram_wait)
    assert fast["event"] != "error", fast["messages"]
    assert fast == _run(src, limit, True, 1, sram_wait)


LOGIC = ["AND", "ANDN", "OR", "XOR"]                  # (unsigned immediates)
FORMS = [(op, form) for op in INT2 + ["LDI", "CMPI"] for form in ("R1, R5", "13, R5", "300, R5", "R1, AR3")] \
    + [(op, "-3, R5") for op in INT2 + ["LDI", "CMPI"] if op not in LOGIC] \
    + [(op + "3", "R1, R5, R3") for op in INT2]


@pytest.mark.parametrize("op,operands", FORMS)
def test_operand_form_handlers_equal_general_path(op, operands):
    """Each operation with handlers per operand form (ops.pxi form_handler)
    in each form, run twice (the first run of an instruction decodes it
    through step(); the second takes its handler) from values that make
    every operation's result differ from the others'."""
    src = ("        .global start\nstart:\n        LDI 1, AR4\n"
           + "".join(f"        LDI {v}, R{r}\n" for r, v in enumerate([9, -77, 5, 3, 6, 0x1234, 2, 8]))
           + f"top:    {op} {operands}\n        ADDI R5, R6\n        XOR R3, R7\n        DBU AR4, top\n"
           + "        SWI\n")
    fast = _run(src, None, False, 0)
    assert fast["event"] != "error", fast["messages"]
    assert fast == _run(src, None, True, 0)


FLOAT_FORMS = [(op, form) for op in ("ADDF", "SUBF", "MPYF", "CMPF", "LDF")
               for form in ("R1, R5", "1.5, R5", "-0.25, R5", "0, R5", "*AR3, R5")] \
    + [(op + "3", form) for op in ("ADDF", "SUBF", "MPYF") for form in ("R1, R5, R3", "R6, R5, R3")]


@pytest.mark.parametrize("op,operands", FLOAT_FORMS)
def test_float_form_handlers_equal_general_path(op, operands):
    """The float operations' handlers per operand form (ops.pxi
    float_form_handler: register or short-float immediate source, three
    registers), run twice from values that make the operations' results
    and flags differ (a zero, a negative, a large exponent), against the
    general path; a memory source keeps the operation's handler."""
    src = ("        .global start\nstart:\n        LDI 1, AR4\n        LDI 2000h, AR3\n"
           + "".join(f"        LDF {v}, R{r}\n" for r, v in
                     enumerate(["2.5", "-3.75", "0.0", "200.0", "6.0", "-0.125", "0.0", "7.5"]))
           + f"top:    {op} {operands}\n        ADDF R5, R7\n        MPYF 2.0, R3\n"
           + "        DBU AR4, top\n        SWI\n")
    fast = _run(src, None, False, 0)
    assert fast["event"] != "error", fast["messages"]
    assert fast == _run(src, None, True, 0)
