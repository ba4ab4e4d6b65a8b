"""Parallel instructions (guide SPRU031 13.2, figures 13-3/13-4, and the
parallel instruction pages of chapter 13).

* all 28 pairs of isa.parallel_pairs(), each with its operand roles;
* every operand of both parts is read before either part writes (so
  ``OP ... R1 || STx R1, *ARn`` stores the old R1);
* the multiply || add/subtract pairs in their four P forms: every C30
  subtraction computes the second written operand minus the first;
* two loads into one register, two stores to one address.
"""
from __future__ import annotations

import pytest

import c3xref as R
from c3xref import LUF, LV, N, UF, V, Z
from rapsim.asm import isa
from simkit import DATA, Ext, run

SRC, DST = DATA, DATA + 0x10          # AR0 -> memory operand, AR1 -> store address

F_R3 = 0x00_40000000                  # 1.5
F_MEM = 0x01C00000                    # -3.0 (G 5-11), single precision
F_R2 = 0x05_123456FF                  # stored by STF as 0x05123456
I_R3, I_MEM, I_R2 = 5, 0xFFFFFFF0, 0xCAFEBABE
MEM40 = R.single_to40(F_MEM)

# pair -> (first part text, expected R1 (40-bit for floats, 32-bit for ints))
FLOAT_STORE = {
    ("ABSF", "STF"): ("ABSF *AR0, R1", R.absf(MEM40)[0]),
    ("ADDF3", "STF"): ("ADDF3 R3, *AR0, R1", R.addf(F_R3, MEM40)[0]),
    ("FLOAT", "STF"): ("FLOAT *AR0, R1", R.float_(F_MEM)[0]),
    ("LDF", "STF"): ("LDF *AR0, R1", MEM40),
    ("MPYF3", "STF"): ("MPYF3 R3, *AR0, R1", R.mpyf(F_R3, MEM40)[0]),
    ("NEGF", "STF"): ("NEGF *AR0, R1", R.negf(MEM40)[0]),
    # SUBF3 src1, src2, dst1: src2 - src1, the memory operand minus the register
    ("SUBF3", "STF"): ("SUBF3 R3, *AR0, R1", R.subf(MEM40, F_R3)[0]),
}
INT_STORE = {
    ("ABSI", "STI"): ("ABSI *AR0, R1", 16),
    ("ADDI3", "STI"): ("ADDI3 R3, *AR0, R1", (-11) & R.M32),
    ("AND3", "STI"): ("AND3 R3, *AR0, R1", 0),
    # ASH3 count, src2, dst1 (G 13-76): the count is the register
    ("ASH3", "STI"): ("ASH3 R3, *AR0, R1", (-16 << 5) & R.M32),
    ("FIX", "STI"): ("FIX *AR0, R1", None),                 # memory holds a float: below
    ("LDI", "STI"): ("LDI *AR0, R1", I_MEM),
    ("LSH3", "STI"): ("LSH3 R3, *AR0, R1", 0xFFFFFE00),     # G 13-141
    ("MPYI3", "STI"): ("MPYI3 R3, *AR0, R1", (-80) & R.M32),
    ("NEGI", "STI"): ("NEGI *AR0, R1", 16),
    ("NOT", "STI"): ("NOT *AR0, R1", 15),
    ("OR3", "STI"): ("OR3 R3, *AR0, R1", 0xFFFFFFF5),
    ("SUBI3", "STI"): ("SUBI3 R3, *AR0, R1", (-21) & R.M32),     # memory minus register
    ("XOR3", "STI"): ("XOR3 R3, *AR0, R1", 0xFFFFFFF5),
}
MPY_PAIRS = [("MPYF3", "ADDF3"), ("MPYF3", "SUBF3"), ("MPYI3", "ADDI3"), ("MPYI3", "SUBI3")]
LOAD_STORE_PAIRS = [("LDF", "LDF"), ("LDI", "LDI"), ("STF", "STF"), ("STI", "STI")]


def test_all_28_pairs_are_covered_here():
    covered = set(FLOAT_STORE) | set(INT_STORE) | set(MPY_PAIRS) | set(LOAD_STORE_PAIRS)
    assert covered == set(isa.parallel_pairs()) and len(covered) == 28


def par(first: str, second: str) -> str:
    return f"        {first}\n||      {second}\n        SWI\n"


@pytest.mark.parametrize("pair", sorted(FLOAT_STORE))
def test_float_operation_with_store(pair):
    text, want = FLOAT_STORE[pair]
    mem = F_MEM if pair[0] != "FLOAT" else 0xFFFFFFF0
    if pair[0] == "FLOAT":
        want = R.float_(mem)[0]
    sim = run(par(text, "STF R2, *AR1"),
              regs={"AR0": SRC, "AR1": DST, "R3": Ext(F_R3), "R2": Ext(F_R2)}, mem={SRC: [mem]})
    assert sim.reg40("R1") == want
    assert sim.read(DST, 1)[0] == 0x05123456
    assert sim.reg("ST") & (N | Z) == R.nz40(want)


@pytest.mark.parametrize("pair", sorted(INT_STORE))
def test_integer_operation_with_store(pair):
    text, want = INT_STORE[pair]
    mem = I_MEM
    if pair[0] == "FIX":
        mem, want = F_MEM, (-3) & R.M32
    sim = run(par(text, "STI R2, *AR1"),
              regs={"AR0": SRC, "AR1": DST, "R3": I_R3, "R2": I_R2}, mem={SRC: [mem]})
    assert sim.reg("R1") == want
    assert sim.read(DST, 1)[0] == I_R2
    assert sim.reg("ST") & (N | Z) == R.nz32(want)


@pytest.mark.parametrize("pair", sorted(FLOAT_STORE) + sorted(INT_STORE))
def test_the_store_reads_the_register_before_the_operation_writes_it(pair):
    # 13.2: all operands are read before either part writes: storing the
    # destination of the first part stores its old value
    text, _ = (FLOAT_STORE | INT_STORE)[pair]
    old = 0x05_123456FF if pair[1] == "STF" else 0x77777777
    sim = run(par(text, f"{pair[1]} R1, *AR1"),
              regs={"AR0": SRC, "AR1": DST, "R3": Ext(F_R3) if pair[1] == "STF" else I_R3,
                    "R1": Ext(old) if pair[1] == "STF" else old}, mem={SRC: [F_MEM]})
    assert sim.read(DST, 1)[0] == (0x05123456 if pair[1] == "STF" else 0x77777777)


def test_guide_style_addf3_with_store_of_the_same_register():
    # ADDF3 *AR0, R1, R1 || STF R1, *AR1: the old R1 is stored
    sim = run(par("ADDF3 *AR0, R1, R1", "STF R1, *AR1"),
              regs={"AR0": SRC, "AR1": DST, "R1": Ext(0x01_00000000)}, mem={SRC: [0x00000000]})
    assert sim.regf("R1") == 3.0 and sim.read(DST, 1)[0] == 0x01000000


def test_parallel_store_flags_are_those_of_the_operation():
    sim = run(par("SUBI3 R3, *AR0, R1", "STI R2, *AR1"),
              regs={"AR0": SRC, "AR1": DST, "R3": 1, "R2": 0, "ST": V | Z}, mem={SRC: [0x80000000]})
    # 0x80000000 - 1 overflows: V, LV; N of the true (negative) result
    assert sim.reg("R1") == 0x7FFFFFFF and sim.reg("ST") == V | LV | N


def test_all_parallel_load_store_pairs_in_one_program():
    body = ("        LDF *AR0, R1\n||      LDF *+AR0, R2\n"
            "        LDI *AR0, R3\n||      LDI *+AR0, R4\n"
            "        STF R1, *AR1\n||      STF R2, *+AR1\n"
            "        STI R3, *AR2\n||      STI R4, *+AR2\n        SWI\n")
    sim = run(body, regs={"AR0": SRC, "AR1": DST, "AR2": DST + 2}, mem={SRC: [F_MEM, 0xFB400000]})
    assert sim.reg40("R2") == 0xFB_40000000 and sim.reg("R3") == F_MEM and sim.reg("R4") == 0xFB400000
    assert list(sim.read(DST, 4)) == [F_MEM, 0xFB400000, F_MEM, 0xFB400000]
    assert sim.reg("ST") == 0                     # parallel loads set no flags here (model)


def test_two_loads_into_one_register_keep_the_first_written():
    # UNVERIFIED model choice (binutils/MAME): for LDF||LDF and LDI||LDI into
    # one register the part written first wins
    sim = run(par("LDF *AR0, R1", "LDF *+AR0, R1"), regs={"AR0": SRC}, mem={SRC: [F_MEM, 0xFB400000]})
    assert sim.reg40("R1") == MEM40
    sim = run(par("LDI *AR0, R1", "LDI *+AR0, R1"), regs={"AR0": SRC}, mem={SRC: [1, 2]})
    assert sim.reg("R1") == 1


def test_two_stores_to_one_address_keep_the_first_written():
    # UNVERIFIED model choice (binutils/MAME): the part written first wins
    sim = run(par("STF R1, *AR1", "STF R2, *AR1"), regs={"AR1": DST, "R1": Ext(0x01_00000000),
                                                         "R2": Ext(0x02_00000000)})
    assert sim.read(DST, 1)[0] == 0x01000000
    sim = run(par("STI R1, *AR1", "STI R2, *AR1"), regs={"AR1": DST, "R1": 1, "R2": 2})
    assert sim.read(DST, 1)[0] == 1


# ---------------------------------------------------------------------------
# Multiply || add / subtract: the four P forms (figure 13-3)
# ---------------------------------------------------------------------------

A, B = DATA, DATA + 1                  # *AR0 = A, *AR1 = B
FX = {"A": 0x01C00000, "B": 0x02000000, "R4": 0x00_40000000, "R5": 0xFF_00000000}   # -3, 4, 1.5, 0.5
IX = {"A": 7, "B": 100, "R4": 3, "R5": 1000}

# (P, multiply text, second-part text with {op}, product sources, (minuend, subtrahend))
P_FORMS = [
    (0, "*AR0, *AR1", "R4, R5", ("A", "B"), ("R5", "R4")),
    (1, "*AR0, R4", "R5, *AR1", ("A", "R4"), ("B", "R5")),
    (2, "R4, R5", "*AR0, *AR1", ("R4", "R5"), ("B", "A")),
    (3, "*AR0, R4", "*AR1, R5", ("A", "R4"), ("R5", "B")),
]


@pytest.mark.parametrize("p,mpy,second,prod,diff", P_FORMS, ids=[f"P{p[0]}" for p in P_FORMS])
@pytest.mark.parametrize("kind", ["F", "I"])
@pytest.mark.parametrize("op", ["ADD", "SUB"])
def test_multiply_with_add_or_subtract_all_p_forms(p, mpy, second, prod, diff, kind, op):
    vals = FX if kind == "F" else IX
    regs = {"AR0": A, "AR1": B}
    if kind == "F":
        regs |= {"R4": Ext(vals["R4"]), "R5": Ext(vals["R5"])}
        get = {"A": R.single_to40(vals["A"]), "B": R.single_to40(vals["B"]),
               "R4": vals["R4"], "R5": vals["R5"]}
    else:
        regs |= {"R4": vals["R4"], "R5": vals["R5"]}
        get = dict(vals)
    sim = run(par(f"MPY{kind}3 {mpy}, R0", f"{op}{kind}3 {second}, R2"),
              regs=regs, mem={A: [vals["A"]], B: [vals["B"]]})
    assert sim.read(0x40, 1)[0] >> 24 & 3 == p          # the assembler chose this P form
    x, y = (get[s] for s in prod)
    m, s = (get[r] for r in diff)                        # minuend: the second written
    if kind == "F":
        assert sim.reg40("R0") == R.mpyf(x, y)[0]
        want = R.addf(s, m)[0] if op == "ADD" else R.subf(m, s)[0]
        assert sim.reg40("R2") == want
    else:
        assert sim.reg("R0") == R.mpyi(x, y)[0]
        want = R.addi(s, m)[0] if op == "ADD" else R.subi(m, s)[0]
        assert sim.reg("R2") == want


def test_subtract_direction_with_plain_numbers():
    # P = 2: MPYF3 R4, R5, R0 || SUBF3 *AR0, *AR1, R2 -> R2 = *AR1 - *AR0 = 4 - (-3)
    sim = run(par("MPYF3 R4, R5, R0", "SUBF3 *AR0, *AR1, R2"),
              regs={"AR0": A, "AR1": B, "R4": Ext(FX["R4"]), "R5": Ext(FX["R5"])},
              mem={A: [FX["A"]], B: [FX["B"]]})
    assert sim.regf("R2") == 7.0 and sim.regf("R0") == 0.75
    # P = 0: MPYI3 *AR0, *AR1, R1 || SUBI3 R4, R5, R3 -> R3 = R5 - R4
    sim = run(par("MPYI3 *AR0, *AR1, R1", "SUBI3 R4, R5, R3"),
              regs={"AR0": A, "AR1": B, "R4": 3, "R5": 1000}, mem={A: [7], B: [100]})
    assert sim.reg("R3") == 997 and sim.reg("R1") == 700


def test_multiply_add_reads_all_operands_before_writing():
    # the sum uses the old R0 although the product is written to R0 (a
    # pipelined dot product relies on this)
    sim = run(par("MPYF3 *AR0, *AR1, R0", "ADDF3 R0, R2, R2"),
              regs={"AR0": A, "AR1": B, "R0": Ext(0x01_00000000), "R2": Ext(0x00_00000000)},
              mem={A: [0x00400000], B: [0xFF000000]})                  # 1.5 * 0.5
    assert sim.regf("R0") == 0.75 and sim.regf("R2") == 3.0


def _mpy_add_st(first: str, second: str, a: int, b: int, regs: dict) -> int:
    sim = run(par(first, second), regs={"AR0": A, "AR1": B, **regs}, mem={A: [a], B: [b]})
    return sim.reg("ST") & (N | Z | V | UF | LV | LUF)


def test_multiply_add_flags():
    # UNVERIFIED model choice (machine-model 3.3): N and Z are 0; V and UF (and
    # LV, LUF) are set when either part overflows / underflows
    one = {"R4": Ext(0x00_00000000), "ST": N | Z}
    assert _mpy_add_st("MPYF3 *AR0, *AR1, R0", "SUBF3 R4, R4, R2", 0, 0x01C00000, one) == 0
    # (R2 = 0 exactly and R0 = -3.0: still N = Z = 0)
    assert _mpy_add_st("MPYF3 *AR0, *AR1, R0", "ADDF3 R4, R4, R2", 0x7F000000, 0x7F000000, one) == V | LV
    assert _mpy_add_st("MPYF3 *AR0, *AR1, R0", "ADDF3 R4, R4, R2", 0x81000000, 0xFF000000, one) == UF | LUF
    big = {"R4": Ext(0x7F_7FFFFFFF)}
    assert _mpy_add_st("MPYF3 *AR0, *AR1, R0", "ADDF3 R4, R4, R2", 0, 0, big) == V | LV
    assert _mpy_add_st("MPYI3 *AR0, *AR1, R0", "ADDI3 R4, R4, R2", 0x7FFFFF, 0x7FFFFF,
                       {"R4": 0}) == V | LV
    assert _mpy_add_st("MPYI3 *AR0, *AR1, R0", "SUBI3 R4, R5, R2", 1, 1,
                       {"R4": 1, "R5": 0x80000000}) == V | LV
