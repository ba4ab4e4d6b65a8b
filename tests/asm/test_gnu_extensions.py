"""Extensions of TI's syntax that the GNU tic4x assembler accepts
(docs/assembler.md, "Extensions"), and LDP's operand rule.

* A 3-operand instruction written with two operands: the destination doubles
  as the second written operand (the 3-operand source ``src1``), and the word
  is the full form's.  Checked against the full form for every mnemonic and
  operand type, against words built from the guide's figure 13-2 for the
  non-commutative ones, and by running them (the order of SUBI3, ASH3, ...).
* ``F0``-``F7`` name ``R0``-``R7``.
* LDP takes an address; a constant 1..255 (a page number) is an error.
"""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from rapsim.asm.assembler import assemble_text
from rapsim.asm.decoder import decode, format_instruction
from rapsim.errors import Diagnostics

import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))
from simkit import fx, run  # noqa: E402


def words(src: str) -> list[int]:
    obj = assemble_text("".join(f"        {line}\n" if not line.startswith("||") else f"{line}\n"
                                for line in src.split("\n")), "ext.asm").obj
    return [int(w) for s in obj.sections if s.data is not None for w in s.data]


def errors(src: str) -> list[str]:
    with pytest.raises(Diagnostics) as e:
        words(src)
    return e.value.messages


INT3 = ["ADDC3", "ADDI3", "AND3", "ANDN3", "ASH3", "LSH3", "MPYI3", "OR3", "SUBB3", "SUBI3",
        "XOR3"]
FLOAT3 = ["ADDF3", "MPYF3", "SUBF3"]


# -- 3-operand shorthand -----------------------------------------------------

@pytest.mark.parametrize("src2", ["R1", "*AR1++", "*-AR3(IR1)", "*AR0--(1)%"])
@pytest.mark.parametrize("name", INT3)
def test_integer_shorthand_is_the_full_form(name, src2):
    assert words(f"{name} {src2}, R2") == words(f"{name} {src2}, R2, R2")


@pytest.mark.parametrize("src1", ["AR1", "IR0", "SP", "R7"])
@pytest.mark.parametrize("name", INT3)
def test_integer_shorthand_takes_any_register(name, src1):
    assert words(f"{name} R0, {src1}") == words(f"{name} R0, {src1}, {src1}")


@pytest.mark.parametrize("src2", ["R1", "*AR1++(IR0)", "*+AR5(1)"])
@pytest.mark.parametrize("name", FLOAT3)
def test_float_shorthand_is_the_full_form(name, src2):
    assert words(f"{name} {src2}, R6") == words(f"{name} {src2}, R6, R6")


# The words as figure 13-2 lays them out: 001 ooooo TT ddddd src1 src2, with
# src2 the first written operand, src1 (and dst) the second.
def fig_13_2(opc5: int, t: int, dst: int, src1: int, src2: int) -> int:
    return 1 << 29 | opc5 << 23 | t << 21 | dst << 16 | src1 << 8 | src2


@pytest.mark.parametrize("text, want", [
    ("ASH3 R1, R2", fig_13_2(0x05, 0, 2, 2, 1)),
    ("LSH3 R3, AR0", fig_13_2(0x08, 0, 8, 8, 3)),
    ("SUBI3 R1, R2", fig_13_2(0x0E, 0, 2, 2, 1)),
    ("SUBB3 R4, R5", fig_13_2(0x0C, 0, 5, 5, 4)),
    ("ANDN3 R6, R7", fig_13_2(0x04, 0, 7, 7, 6)),
    ("SUBF3 R0, R1", fig_13_2(0x0D, 0, 1, 1, 0)),
    # src2 indirect (T bit 22): *AR1++ is mode 00100 (post-increment), AR1
    ("SUBI3 *AR1++, R2", fig_13_2(0x0E, 2, 2, 2, 0b00100 << 3 | 1)),
    ("ADDI3 *AR1++, R2", fig_13_2(0x02, 2, 2, 2, 0b00100 << 3 | 1)),
    ("AND3 AR1, R0", fig_13_2(0x03, 0, 0, 0, 9)),
])
def test_shorthand_words_from_the_guide(text, want):
    assert words(text) == [want]


@pytest.mark.parametrize("text", ["ASH3 R1, R2", "SUBI3 *AR1++, R2", "ADDF3 R1, R6"])
def test_disassembler_prints_the_full_form(text):
    name, ops = text.split(" ", 1)
    full = f"{name} {ops}, {ops.rsplit(', ', 1)[1]}"
    assert format_instruction(decode(words(text)[0])).split() == \
        format_instruction(decode(words(full)[0])).split()
    assert format_instruction(decode(words(text)[0])).replace(" ", "").endswith(
        "," + ops.rsplit(", ", 1)[1])


# Running them: the destination is the second operand, the first is the
# count / subtrahend (guide 13-76 ASH3, 13-141 LSH3, 13-235 SUBI3).
@pytest.mark.parametrize("text, r1, r2, want", [
    ("ASH3 R1, R2", 3, 5, 40),                          # R2 << 3
    ("ASH3 R1, R2", -1, -8, (-4) & 0xFFFFFFFF),         # arithmetic right shift
    ("LSH3 R1, R2", -4, 0xF0000000, 0x0F000000),        # logical right shift
    ("SUBI3 R1, R2", 3, 10, 7),                         # R2 - R1
    ("SUBB3 R1, R2", 3, 10, 7),                         # R2 - R1 - C (C = 0)
    ("ANDN3 R1, R2", 0x0F, 0xFF, 0xF0),                 # R2 AND NOT R1
    ("ADDI3 R1, R2", 3, 10, 13),
])
def test_shorthand_runs_with_the_second_operand_as_destination(text, r1, r2, want):
    sim = run(f"        {text}\n        SWI\n", regs={"R1": r1 & 0xFFFFFFFF, "R2": r2})
    assert sim.reg("R2") == want and sim.reg("R1") == r1 & 0xFFFFFFFF


def test_float_shorthand_runs():
    sim = run("        SUBF3 R1, R2\n        SWI\n", regs={"R1": fx(1.5), "R2": fx(4.0)})
    assert sim.regf("R2") == 2.5


def test_parallel_shorthand_operation_with_store():
    assert words("ADDF3 *AR0, R1\n||      STF R2, *AR3") == \
        words("ADDF3 *AR0, R1, R1\n||      STF R2, *AR3")
    assert words("MPYI3 *AR0++, R4\n||      STI R2, *AR3") == \
        words("MPYI3 *AR0++, R4, R4\n||      STI R2, *AR3")


def test_parallel_shorthand_multiply_add():
    assert words("MPYF3 *AR0, *AR1, R0\n||      ADDF3 R2, R3") == \
        words("MPYF3 *AR0, *AR1, R0\n||      ADDF3 R2, R3, R3")
    assert words("MPYF3 *AR0, R1\n||      SUBF3 R5, *AR1, R2") == \
        words("MPYF3 *AR0, R1, R1\n||      SUBF3 R5, *AR1, R2")
    assert words("MPYI3 *AR0, R4, R0\n||      SUBI3 *AR1, R3") == \
        words("MPYI3 *AR0, R4, R0\n||      SUBI3 *AR1, R3, R3")


def test_parallel_shorthand_runs():
    # MPYI3 *AR0, R4, R0 || SUBI3 *AR1, R3: R0 = *AR0 * R4, R3 = R3 - *AR1
    sim = run("        MPYI3 *AR0, R4, R0\n||      SUBI3 *AR1, R3\n        SWI\n",
              regs={"R4": 6, "AR0": 0x2001, "R3": 50, "AR1": 0x2000}, mem={0x2000: [8, 7]})
    assert (sim.reg("R0"), sim.reg("R3")) == (42, 42)


@pytest.mark.parametrize("text, message", [
    ("ADDI3 R2, *AR1", "the destination doubles as the second operand, which must then be "
                       "a register, not an indirect operand"),
    ("MPYF3 AR1, R2", "operand 1 of MPYF3 must be"),
    ("CMPI3 R1", "CMPI3 takes 2 operands, got 1"),
    ("ADDI3 R1", "ADDI3 takes 3 operands, got 1"),
    ("SUBF3 R1, *AR0\n||      STF R2, *AR3", "takes its second operand as the destination"),
    ("MPYF3 *AR0, *AR1, R0\n||      ADDF3 R2, R1", "do not fit any encoding"),
])
def test_shorthand_errors(text, message):
    msgs = errors(text)
    assert msgs and msgs[0].startswith("ext.asm:1:") and message in msgs[0], msgs


# -- F0-F7 -------------------------------------------------------------------

@pytest.mark.parametrize("n", range(8))
def test_f_names_are_r_registers(n):
    assert words(f"PUSHF F{n}") == words(f"PUSHF R{n}")
    assert words(f"LDF *AR0, f{n}") == words(f"LDF *AR0, R{n}")
    assert words(f"MPYF3 F{n}, *AR1, F{7 - n}") == words(f"MPYF3 R{n}, *AR1, R{7 - n}")


def test_f_names_in_parallel_and_integer_contexts():
    assert words("LDF *AR0, F1\n||      LDF *AR1, F2") == words("LDF *AR0, R1\n||      LDF *AR1, R2")
    assert words("LDI F3, AR0") == words("LDI R3, AR0")     # GNU as accepts them anywhere


def test_f_names_disassemble_as_r():
    assert "R0" in format_instruction(decode(words("PUSHF F0")[0]))


@pytest.mark.parametrize("text, message", [
    ("LDF F8, R0", "F8 is a TMS320C4x register"),
    ("LDF *AR0, F11", "F11 is a TMS320C4x register"),
])
def test_c4x_f_names(text, message):
    assert message in errors(text)[0]


def test_f_names_are_reserved():
    with pytest.raises(Diagnostics) as e:
        assemble_text("F1:     NOP\n", "ext.asm")
    assert "'F1' is a register name" in e.value.messages[0]


# -- LDP ---------------------------------------------------------------------

@pytest.mark.parametrize("text, page", [
    ("LDP 0x800000", 0x80), ("LDP @0x809C05", 0x80), ("LDP 0x123456, DP", 0x12),
    ("LDP 0", 0), ("LDP 0x100", 0), ("LDP @0xFFFF", 0), ("LDP 0xFFFFFF", 0xFF),
])
def test_ldp_loads_bits_23_16_of_an_address(text, page):
    assert words(text) == [0x08700000 | page]


@pytest.mark.parametrize("text", ["LDP 0x80", "LDP @0x80", "LDP 1", "LDP 0xFF, DP"])
def test_ldp_rejects_page_numbers(text):
    msgs = errors(text)
    assert "LDP takes an address, not a page number" in msgs[0] and msgs[0].startswith("ext.asm:1:")


def test_ldp_rejects_a_page_number_symbol():
    with pytest.raises(Diagnostics) as e:
        assemble_text("PG      .set 0x80\n        LDP PG\n", "ext.asm")
    assert e.value.messages[0].startswith("ext.asm:2:")
    assert "write LDP 0x800000" in e.value.messages[0]


def test_ldp_label_is_relocated():
    # a label's page is known at link time only: never a diagnostic here
    obj = assemble_text("        LDP lab\nlab:    NOP\n", "ext.asm").obj
    assert int(obj.sections[0].data[0]) & 0xFFFF0000 == 0x08700000
    assert obj.sections[0].relocs


def test_ldp_runs():
    sim = run("        LDP 0x809C00\n        SWI\n")
    assert sim.reg("DP") == 0x80


# -- property: any shorthand is the full form with the destination repeated ---

_REGS = [f"R{i}" for i in range(8)] + [f"AR{i}" for i in range(8)] + ["DP", "IR0", "IR1",
                                                                      "BK", "SP", "RC"]
_IND8 = st.builds(lambda pre, ar, idx: f"*{pre[0]}AR{ar}{pre[1]}{idx}",
                  st.sampled_from([("+", ""), ("-", ""), ("++", ""), ("--", ""),
                                   ("", "++"), ("", "--")]),
                  st.integers(0, 7), st.sampled_from(["", "(1)", "(IR0)", "(IR1)"]))


@given(name=st.sampled_from(INT3 + FLOAT3), first=st.one_of(st.sampled_from(_REGS), _IND8),
       second=st.sampled_from(_REGS), f_alias=st.booleans())
def test_property_shorthand_equals_full_form(name, first, second, f_alias):
    if name in FLOAT3:
        second = f"R{int(second[-1]) % 8}" if second[-1].isdigit() else "R5"
        if f_alias:
            second = "F" + second[1:]
        if not first.startswith("*"):
            first = f"R{int(first[-1]) % 8}" if first[-1].isdigit() else "R1"
    assert words(f"{name} {first}, {second}") == words(f"{name} {first}, {second}, {second}")


def test_ldp_page_number_from_another_file_is_a_link_error():
    from rapsim.asm.linker import LinkError
    from rapsim.toolchain import build_text
    main = "        .global PG, start\nstart:  LDP PG\n        SWI\n"
    with pytest.raises(LinkError) as e:
        build_text(main, "        .global PG\nPG      .set 0x80\n")
    assert "<source0>.asm:2" in str(e.value) and "not a page number" in str(e.value)
    img = build_text(main, "        .global PG\nPG      .set 0x800000\n")
    assert img is not None


# -- two updates of one ARn in a parallel pair: a warning, as for 3-operand ---

def test_parallel_pair_updating_one_ar_twice_warns_at_the_second_line():
    res = assemble_text("        STI R0, *AR2++\n||      STI R1, *AR2--\n"
                        "        LDI *AR3++, R0 || STI R1, *+AR3\n", "w.asm")
    assert res.warnings == ["w.asm:2:17: warning: two operands update AR2; the processor "
                            "keeps only one of the updates"]
