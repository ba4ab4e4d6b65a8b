"""Auxiliary-register write-back when two operands of one instruction use
the same ARn (guide SPRU031 6.3, and the 3-operand and parallel instruction
pages of chapter 13).

Only an operand whose addressing mode updates ARn writes it back: when one
operand updates AR2 and the other only reads through it (``*AR2``,
``*+AR2(1)``, ...), AR2 ends with the update, whichever of the two operand
fields (bits 7-0 or 15-8) holds the updating operand.  Both addresses are
formed from AR2 as it was before the instruction.  When both operands update
AR2, the operand in bits 15-8 wins (the simulator's rule, docs/machine-model.md).

Every format with two indirect operands is covered: 3-operand with both
sources indirect, LDx||LDx, STx||STx, each of the 20 operation||store pairs,
and the four multiply||add/subtract pairs in their four operand layouts --
each with the updating operand written first and written second.

Expectations are written out by hand: AR2 = B, IR0 = 2, IR1 = 3, and the word
at B + k holds 100 + k.
"""
from __future__ import annotations

import pytest

from rapsim.asm import isa
from simkit import DATA, fx, run

B = DATA + 8                          # AR2 before the instruction
REGS = {"AR2": B, "IR0": 2, "IR1": 3}
MEM = {DATA: [100 + k for k in range(-8, 24)]}     # word at B + k is 100 + k

# updating operands: text -> (address, AR2 after)
UPDATING = {
    "*AR2++(1)": (B, B + 1),
    "*AR2--(1)": (B, B - 1),
    "*++AR2(1)": (B + 1, B + 1),
    "*--AR2(1)": (B - 1, B - 1),
    "*AR2++(IR0)": (B, B + 2),
    "*AR2--(IR1)": (B, B - 3),
    "*++AR2(IR1)": (B + 3, B + 3),
    "*--AR2(IR0)": (B - 2, B - 2),
}
# operands that only read through AR2: text -> address
READING = {
    "*AR2": B,
    "*+AR2(1)": B + 1,
    "*-AR2(1)": B - 1,
    "*+AR2(IR1)": B + 3,
    "*-AR2(IR0)": B - 2,
}


def word(addr: int) -> int:
    return 100 + addr - B


def prog(*lines: str) -> str:
    first, *rest = lines
    return "".join([f"        {first}\n"] + [f"||      {r}\n" for r in rest] + ["        SWI\n"])


# -- 3-operand format, both sources indirect (T = 11) --------------------------

@pytest.mark.parametrize("upd", sorted(UPDATING))
@pytest.mark.parametrize("rd", sorted(READING))
@pytest.mark.parametrize("updating_first", [True, False], ids=["upd-in-src2", "upd-in-src1"])
def test_three_operand_keeps_the_single_update(upd, rd, updating_first):
    a_upd, ar_after = UPDATING[upd]
    a_rd = READING[rd]
    srcs = (upd, rd) if updating_first else (rd, upd)
    sim = run(prog(f"ADDI3 {srcs[0]}, {srcs[1]}, R0"), regs=REGS, mem=MEM)
    assert sim.reg("AR2") == ar_after
    assert sim.reg("R0") == word(a_upd) + word(a_rd)


def test_issue_example_addi3():
    # ADDI3 *AR2++(1), *AR2, R0: both read B (100), AR2 -> B + 1
    sim = run(prog("ADDI3 *AR2++(1), *AR2, R0"), regs=REGS, mem=MEM)
    assert (sim.reg("AR2"), sim.reg("R0")) == (B + 1, 200)


@pytest.mark.parametrize("first", [True, False])
def test_three_operand_subtraction_direction_with_shared_ar(first):
    # SUBI3 src2, src1, dst = src1 - src2 (guide 13-235)
    text = "SUBI3 *AR2++(IR0), *+AR2(1), R0" if first else "SUBI3 *+AR2(1), *AR2++(IR0), R0"
    sim = run(prog(text), regs=REGS, mem=MEM)
    assert sim.reg("AR2") == B + 2
    assert sim.reg("R0") == ((101 - 100) if first else (100 - 101)) & 0xFFFFFFFF


@pytest.mark.parametrize("text", ["CMPI3 *AR2++(1), *AR2", "CMPI3 *AR2, *AR2++(1)",
                                  "TSTB3 *AR2--(IR1), *+AR2(1)", "TSTB3 *+AR2(1), *AR2--(IR1)"])
def test_three_operand_without_destination(text):
    sim = run(prog(text), regs=REGS, mem=MEM)
    assert sim.reg("AR2") == (B + 1 if "++" in text else B - 3)


def test_both_sources_updating_the_bits_15_8_operand_wins():
    # src2 (bits 7-0) *AR2++(IR0) -> B + 2; src1 (bits 15-8) *AR2--(1) -> B - 1
    sim = run(prog("ADDI3 *AR2++(IR0), *AR2--(1), R0"), regs=REGS, mem=MEM)
    assert (sim.reg("AR2"), sim.reg("R0")) == (B - 1, 200)


def test_float_three_operand():
    sim = run(prog("MPYF3 *+AR2(1), *AR2++(1), R1"), regs=REGS,
              mem={B: [0x01000000, 0x01400000]})          # 2.0, 3.0
    assert sim.reg("AR2") == B + 1 and sim.regf("R1") == 6.0


# -- LDx || LDx and STx || STx -------------------------------------------------

@pytest.mark.parametrize("op", ["LDI", "LDF"])
@pytest.mark.parametrize("updating_first", [True, False])
def test_parallel_loads(op, updating_first):
    upd, rd = "*AR2++(IR0)", "*+AR2(IR1)"             # read B and B + 3; AR2 -> B + 2
    a, b = (upd, rd) if updating_first else (rd, upd)
    mem = {B: [0x01000000, 0, 0, 0x01400000]} if op == "LDF" else MEM
    sim = run(prog(f"{op} {a}, R0", f"{op} {b}, R1"), regs=REGS, mem=mem)
    assert sim.reg("AR2") == B + 2
    r0, r1 = (B, B + 3) if updating_first else (B + 3, B)
    if op == "LDI":
        assert (sim.reg("R0"), sim.reg("R1")) == (word(r0), word(r1))
    else:
        val = {B: 2.0, B + 3: 3.0}
        assert (sim.regf("R0"), sim.regf("R1")) == (val[r0], val[r1])


@pytest.mark.parametrize("op", ["STI", "STF"])
@pytest.mark.parametrize("updating_first", [True, False])
def test_parallel_stores(op, updating_first):
    upd, rd = "*AR2--(1)", "*+AR2(1)"                 # write B and B + 1; AR2 -> B - 1
    a, b = (upd, rd) if updating_first else (rd, upd)
    regs = dict(REGS)
    if op == "STI":
        regs |= {"R0": 0x11111111, "R1": 0x22222222}
        v0, v1 = 0x11111111, 0x22222222
    else:
        regs |= {"R0": fx(2.0), "R1": fx(3.0)}
        v0, v1 = 0x01000000, 0x01400000
    sim = run(prog(f"{op} R0, {a}", f"{op} R1, {b}"), regs=regs, mem=MEM)
    assert sim.reg("AR2") == B - 1
    at = {B: v0, B + 1: v1} if updating_first else {B + 1: v0, B: v1}
    assert list(sim.read(B, 2)) == [at[B], at[B + 1]]


# -- operation || store: the source (bits 7-0) and the store (bits 15-8) ------

THREE_PARTS = {"ADDF3", "ADDI3", "AND3", "ASH3", "LSH3", "MPYF3", "MPYI3", "OR3", "SUBF3",
               "SUBI3", "XOR3"}
OP_STORE = [p for p in isa.parallel_pairs() if p[1] in ("STF", "STI") and p[0] not in ("STF", "STI")]


def test_all_operation_store_pairs_listed():
    assert len(OP_STORE) == 20


@pytest.mark.parametrize("updating_in_source", [True, False])
@pytest.mark.parametrize("pair", OP_STORE, ids=["||".join(p) for p in OP_STORE])
def test_operation_with_store(pair, updating_in_source):
    op, st = pair
    upd, rd = "*AR2++(IR1)", "*+AR2(1)"               # AR2 -> B + 3
    src, dst = (upd, rd) if updating_in_source else (rd, upd)
    first = f"{op} R3, {src}, R0" if op in THREE_PARTS else f"{op} {src}, R0"
    regs = dict(REGS) | {"R3": 1}
    if st == "STF":
        regs["R1"] = fx(3.0)
        stored = 0x01400000
    else:
        regs["R1"] = 0x5A5A5A5A
        stored = 0x5A5A5A5A
    sim = run(prog(first, f"{st} R1, {dst}"), regs=regs, mem=MEM)
    assert sim.reg("AR2") == B + 3
    store_at, read_at = (B + 1, B) if updating_in_source else (B, B + 1)
    assert sim.read(store_at, 1)[0] == stored
    if op == "LDI":
        assert sim.reg("R0") == word(read_at)
    if op == "ADDI3":
        assert sim.reg("R0") == word(read_at) + 1


def test_issue_example_mpyi3_subi3():
    # MPYI3 *+AR3(IR1), R0, R0 || SUBI3 *AR3--(1), R0, R2: AR3 ends decremented
    sim = run(prog("MPYI3 *+AR3(IR1), R0, R0", "SUBI3 *AR3--(1), R0, R2"),
              regs={"AR3": B, "IR1": 3, "R0": 2}, mem=MEM)
    assert sim.reg("AR3") == B - 1
    assert sim.reg("R0") == 103 * 2
    assert sim.reg("R2") == (2 - 100) & 0xFFFFFFFF        # R0 - *AR3 (P = 11: src2 - src4)


# -- multiply || add/subtract, all four operand layouts ------------------------

# layout -> (text with {x} and {y} for the two indirect operands,
#            R0 as a function of the words read at x and y,
#            R2 for ADD and for SUB); R4 = 7, R5 = 11
LAYOUTS = {
    "P00": ("MPYI3 {x}, {y}, R0", "{a} R4, R5, R2",
            lambda x, y: x * y, lambda x, y: 7 + 11, lambda x, y: 11 - 7),
    "P01": ("MPYI3 {x}, R4, R0", "{a} R5, {y}, R2",
            lambda x, y: x * 7, lambda x, y: 11 + y, lambda x, y: y - 11),
    "P10": ("MPYI3 R4, R5, R0", "{a} {x}, {y}, R2",
            lambda x, y: 7 * 11, lambda x, y: x + y, lambda x, y: y - x),
    "P11": ("MPYI3 {x}, R4, R0", "{a} {y}, R5, R2",
            lambda x, y: x * 7, lambda x, y: y + 11, lambda x, y: 11 - y),
}


@pytest.mark.parametrize("sub", [False, True], ids=["ADDI3", "SUBI3"])
@pytest.mark.parametrize("updating_first", [True, False])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_multiply_add_integer(layout, updating_first, sub):
    mpy, addsub, r0, r2_add, r2_sub = LAYOUTS[layout]
    upd, rd = "*AR2--(IR0)", "*-AR2(1)"               # read B and B - 1; AR2 -> B - 2
    x, y = (upd, rd) if updating_first else (rd, upd)
    wx, wy = (word(B), word(B - 1)) if updating_first else (word(B - 1), word(B))
    second = addsub.format(a="SUBI3" if sub else "ADDI3", x=x, y=y)
    sim = run(prog(mpy.format(x=x, y=y), second), regs=REGS | {"R4": 7, "R5": 11}, mem=MEM)
    assert sim.reg("AR2") == B - 2
    assert sim.reg("R0") == r0(wx, wy)
    assert sim.reg("R2") == (r2_sub if sub else r2_add)(wx, wy) & 0xFFFFFFFF


@pytest.mark.parametrize("addsub", ["ADDF3", "SUBF3"])
@pytest.mark.parametrize("updating_first", [True, False])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_multiply_add_float(layout, updating_first, addsub):
    mpy, second, *_ = LAYOUTS[layout]
    upd, rd = "*++AR2(1)", "*AR2"                     # read B + 1 and B; AR2 -> B + 1
    x, y = (upd, rd) if updating_first else (rd, upd)
    text1 = mpy.replace("MPYI3", "MPYF3").format(x=x, y=y)
    text2 = second.format(a=addsub, x=x, y=y)
    sim = run(prog(text1, text2), regs=REGS | {"R4": fx(1.0), "R5": fx(1.0)},
              mem={B: [0x01000000, 0x01000000]})
    assert sim.reg("AR2") == B + 1


# -- outcomes the guide leaves undefined (docs/machine-model.md 3.3) -----------

def test_parallel_stores_both_updating_keep_the_bits_15_8_update():
    # first part's destination is bits 7-0 (-> B + 3), the second's bits 15-8 (-> B - 1)
    sim = run(prog("STI R0, *AR2++(IR1)", "STI R1, *--AR2(1)"),
              regs=REGS | {"R0": 0xAAAA, "R1": 0xBBBB}, mem=MEM)
    assert sim.reg("AR2") == B - 1
    assert list(sim.read(B - 1, 2)) == [0xBBBB, 0xAAAA]


def test_operation_store_both_updating_keep_the_store_update():
    sim = run(prog("LDI *AR2++(IR1), R0", "STI R1, *--AR2(1)"),
              regs=REGS | {"R1": 0xBBBB}, mem=MEM)
    assert (sim.reg("AR2"), sim.reg("R0")) == (B - 1, word(B))
    assert sim.read(B - 1, 1)[0] == 0xBBBB


CIRC = 0x2000                         # aligned to 8: a buffer of BK = 5 uses the low 3 bits


@pytest.mark.parametrize("start, text, addr, after", [
    (CIRC + 6, "*AR2++(1)%", CIRC + 6, CIRC + 2),     # index 6 >= BK: 7 - 5 = 2
    (CIRC + 4, "*AR2++(7)%", CIRC + 4, CIRC + 6),     # 4 + 7 - 5 = 6: wrapped once only
    (CIRC + 7, "*AR2--(1)%", CIRC + 7, CIRC + 1),     # 7 - 1 = 6 >= BK: 6 - 5 = 1
    (CIRC + 1, "*AR2--(3)%", CIRC + 1, CIRC + 3),     # in range: 1 - 3 + 5 = 3
])
def test_circular_entered_outside_the_buffer(start, text, addr, after):
    sim = run(prog(f"LDI {text}, R0"), regs={"AR2": start, "BK": 5},
              mem={CIRC: list(range(200, 208))})
    assert sim.reg("AR2") == after and sim.reg("R0") == 200 + addr - CIRC
