"""Integer instructions against the TMS320C3x User's Guide (SPRU031).

Flags (ST bits C V Z N UF LV LUF OVM = 1 2 4 8 16 32 64 128, guide 13-29):
* they change only when the destination is R0-R7, except for CMPI, CMPI3,
  TSTB and TSTB3, which always set them [13-28];
* C is the carry of additions and the *borrow* of subtractions [13-92 CMPI:
  "C 1 if a borrow occurs"]; logical operations clear V [13-29];
* LV is sticky [13-29];
* when an integer operation overflows, N and Z describe the result
  computed to infinite precision [13-28] -- so N is the true sign and Z = 0;
  with ST.OVM set the register receives 0x7FFFFFFF or 0x80000000 [13-29].

Expected values are derived in comments from those rules, or come from the
reference model tests/sim/c3xref.py (written from the same rules).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import c3xref as R
from c3xref import C, LUF, LV, N, OVM, UF, V, Z
from simkit import DATA, STACK, Ext, Kernel, run

ALL = C | V | Z | N | UF | LV | LUF
ARITH = C | V | Z | N | UF          # rewritten by add/subtract/compare
LOGIC = V | Z | N | UF              # rewritten by logic, loads, ABSI, MPYI (C kept)


def op(instr: str, dst: int, src: int = 0, st_in: int = 0, dreg: str = "R0"):
    """Run ``instr`` with dreg = dst, R1 = src; returns (dreg, ST)."""
    sim = run(f"        {instr}\n        SWI\n", regs={dreg: dst, "R1": src, "ST": st_in})
    return sim.reg(dreg), sim.reg("ST")


# ---------------------------------------------------------------------------
# Addition and subtraction
# ---------------------------------------------------------------------------

def test_addi_carry_zero_negative():
    assert op("ADDI R1, R0", 5, 7) == (12, 0)
    assert op("ADDI R1, R0", 0xFFFFFFFF, 1) == (0, C | Z)          # carry out, zero
    assert op("ADDI R1, R0", 0xFFFFFFFE, 0) == (0xFFFFFFFE, N)


def test_addi_overflow_flags_describe_the_true_result():
    # 0x7FFFFFFF + 1: the 32-bit result 0x80000000 looks negative, but the
    # infinitely precise result 2**31 is positive -> N = 0, V = LV = 1 (13-28)
    assert op("ADDI R1, R0", 0x7FFFFFFF, 1) == (0x80000000, V | LV)
    # 0x80000000 + 0x80000000 = -2**32: 32-bit result 0 but Z = 0, N = 1, carry
    assert op("ADDI R1, R0", 0x80000000, 0x80000000) == (0, C | V | LV | N)


def test_ovm_saturates_integer_overflow():
    # 13-29: with OVM the result saturates in the direction of the overflow
    assert op("ADDI R1, R0", 0x7FFFFFFF, 1, OVM) == (0x7FFFFFFF, OVM | V | LV)
    assert op("ADDI R1, R0", 0x80000000, 0xFFFFFFFF, OVM) == (0x80000000, OVM | C | V | LV | N)
    assert op("SUBI R1, R0", 0x80000000, 1, OVM) == (0x80000000, OVM | V | LV | N)
    assert op("NEGI R1, R0", 0, 0x80000000, OVM) == (0x7FFFFFFF, OVM | C | V | LV)
    # no overflow: OVM changes nothing
    assert op("ADDI R1, R0", 0x7FFFFFFE, 1, OVM) == (0x7FFFFFFF, OVM)


def test_ovm_saturates_whatever_the_destination():
    # MODEL CHOICE: OVM acts on the result for any destination register;
    # only the flags depend on the destination (none for AR0 here)
    assert op("ADDI R1, AR0", 0x7FFFFFFF, 1, OVM, dreg="AR0") == (0x7FFFFFFF, OVM)


def test_lv_is_sticky_v_is_not():
    sim = run("        ADDI R1, R0\n        ADDI R1, R2\n        SWI\n",
              regs={"R0": 0x7FFFFFFF, "R1": 1, "R2": 0})
    assert sim.reg("ST") == LV                # V cleared by the second ADDI, LV kept


def test_addc_and_subb_chain_64_bit_arithmetic():
    # (0x00000001_FFFFFFFF + 0x00000002_00000001) = 0x00000004_00000000
    sim = run("        ADDI R2, R0\n        ADDC R3, R1\n        SWI\n",
              regs={"R0": 0xFFFFFFFF, "R1": 1, "R2": 1, "R3": 2})
    assert (sim.reg("R1"), sim.reg("R0")) == (4, 0)
    # (0x00000004_00000000 - 0x00000000_00000001) = 0x00000003_FFFFFFFF:
    # the low SUBI borrows (C = 1), SUBB subtracts it
    sim = run("        SUBI R2, R0\n        SUBB R3, R1\n        SWI\n",
              regs={"R0": 0, "R1": 4, "R2": 1, "R3": 0})
    assert (sim.reg("R1"), sim.reg("R0")) == (3, 0xFFFFFFFF)
    assert sim.reg("ST") & C == 0


def test_subtractions_set_c_to_the_borrow():
    assert op("SUBI R1, R0", 3, 5) == (0xFFFFFFFE, C | N)      # 3 - 5 borrows
    assert op("SUBI R1, R0", 5, 3) == (2, 0)
    assert op("SUBI R1, R0", 5, 5) == (0, Z)
    # SUBRI: src - dst
    assert op("SUBRI R1, R0", 3, 5) == (2, 0)
    assert op("SUBRI R1, R0", 5, 3) == (0xFFFFFFFE, C | N)
    # SUBRB: src - dst - C
    assert op("SUBRB R1, R0", 3, 5, C) == (1, 0)
    # guide 13-173 NEGB example: 0 - (-53) - 1 = 52, C = 1 after
    assert op("NEGB R1, R0", 0, 0xFFFFFFCB, C) == (52, C)
    # guide 13-178 NEGI example: NEGI 174 -> -174, N = 1, C = 1
    sim = run("        NEGI 174, R5\n        SWI\n", regs={"R5": 220})
    assert sim.reg("R5") == 0xFFFFFF52 and sim.reg("ST") == N | C


def test_guide_cmpi_example():
    # 13-92: CMPI R3, R7 with R3 = 2200, R7 = 1000: 1000 - 2200 < 0 -> N = 1, C = 1
    sim = run("        CMPI R3, R7\n        SWI\n", regs={"R3": 2200, "R7": 1000})
    assert sim.reg("ST") == N | C and sim.reg("R7") == 1000


def test_cmpi_signed_comparison_survives_overflow():
    # LT tests N alone (13-30), so CMPI's N must be the sign of the exact
    # difference (13-28): 0x80000000 - 1 is negative although the 32-bit
    # difference 0x7FFFFFFF is not.
    body = ("        CMPI R1, R0\n        BLT less\n        LDI 1, AR7\n        SWI\n"
            "less:   LDI 2, AR7\n        SWI\n")          # (AR7: flags untouched)
    sim = run(body, regs={"R0": 0x80000000, "R1": 1})
    assert sim.reg("AR7") == 2 and sim.reg("ST") & ALL == V | LV | N
    sim = run(body, regs={"R0": 0x7FFFFFFF, "R1": 0xFFFFFFFF})   # MAX - (-1) > 0
    assert sim.reg("AR7") == 1 and sim.reg("ST") & ALL == C | V | LV


def test_cmpi_and_tstb_set_flags_for_any_register():
    # 13-28: compares and tests set flags whatever the registers
    sim = run("        CMPI AR0, AR1\n        SWI\n", regs={"AR0": 5, "AR1": 3})
    assert sim.reg("ST") == N | C
    sim = run("        TSTB AR0, AR1\n        SWI\n", regs={"AR0": 0xF0, "AR1": 0x0F, "ST": V | C})
    assert sim.reg("ST") == Z | C             # V cleared, C kept
    sim = run("        CMPI3 AR0, AR1\n        SWI\n", regs={"AR0": 7, "AR1": 7})
    assert sim.reg("ST") == Z
    sim = run("        TSTB3 AR0, AR1\n        SWI\n", regs={"AR0": 0x80000000, "AR1": 0x80000001})
    assert sim.reg("ST") == N


@pytest.mark.parametrize("instr", [
    "ADDI R1, AR0", "SUBI R1, AR0", "LDI R1, AR0", "AND R1, AR0", "ASH R1, AR0",
    "NEGI R1, AR0", "MPYI R1, AR0", "ROL AR0", "POP AR0", "FIX R2, AR0", "LDI R1, IR0",
    "ADDI3 R1, R1, BK", "XOR3 R1, R1, AR0",
])
def test_flags_change_only_for_extended_register_destinations(instr):
    # 13-28: "the destination register is one of R7-R0" -- otherwise ST is kept
    sim = run(f"        {instr}\n        SWI\n",
              regs={"R1": 0x80000000, "AR0": 0, "SP": STACK, "ST": C | V | LV, "R2": Ext(0x1F_00000000)},
              mem={STACK: [0]})
    assert sim.reg("ST") == C | V | LV


def test_integer_results_keep_the_exponent_of_extended_registers():
    # G 5-2 note: integer operations use bits 31-0; bits 39-32 unchanged
    sim = run("        ADDI 1, R0\n        LDI 7, R1\n        SWI\n",
              regs={"R0": Ext(0x42_00000010), "R1": Ext(0x99_FFFFFFFF)})
    assert sim.reg40("R0") == 0x42_00000011 and sim.reg40("R1") == 0x99_00000007


# ---------------------------------------------------------------------------
# Immediates: arithmetic sign-extends, logic zero-extends [G 5.1.1; 13]
# ---------------------------------------------------------------------------

def test_arithmetic_immediates_are_sign_extended():
    sim = run("        LDI -1, R0\n        ADDI -2, R1\n        LDI -32768, R2\n"
              "        CMPI -1, R0\n        SWI\n", regs={"R1": 10})
    assert sim.reg("R0") == 0xFFFFFFFF and sim.reg("R1") == 8 and sim.reg("R2") == 0xFFFF8000
    assert sim.reg("ST") & Z


def test_logical_immediates_are_zero_extended():
    sim = run("        AND 0FFFFh, R0\n        OR 8000h, R1\n        XOR 0FFFFh, R2\n"
              "        ANDN 0FFFFh, R3\n        NOT 8000h, R4\n        SWI\n",
              regs={"R0": 0x12345678, "R1": 0, "R2": 0xFFFFFFFF, "R3": 0xFFFFFFFF})
    assert sim.reg("R0") == 0x00005678
    assert sim.reg("R1") == 0x00008000
    assert sim.reg("R2") == 0xFFFF0000
    assert sim.reg("R3") == 0xFFFF0000
    assert sim.reg("R4") == 0xFFFF7FFF
    sim = run("        TSTB 8000h, R0\n        SWI\n", regs={"R0": 0xFFFF0000})
    assert sim.reg("ST") == Z                 # 0x00008000 & 0xFFFF0000 = 0


def test_logic_ops_clear_v_keep_c_and_set_n_from_bit_31():
    assert op("AND R1, R0", 0xF0000000, 0x80000000, V | C) == (0x80000000, N | C)
    assert op("OR R1, R0", 0, 0, V) == (0, Z)
    assert op("XOR R1, R0", 0xFF, 0xFF, V | UF) == (0, Z)
    assert op("ANDN R1, R0", 0xFF, 0x0F) == (0xF0, 0)
    assert op("NOT R1, R0", 0, 0x0000FFFF) == (0xFFFF0000, N)


# ---------------------------------------------------------------------------
# MPYI [13-159]: 24-bit signed operands, 48-bit product, low 32 bits kept
# ---------------------------------------------------------------------------

def test_mpyi_uses_the_24_low_bits_as_signed_numbers():
    assert op("MPYI R1, R0", 0x12000003, 0x34000005) == (15, 0)        # upper bytes ignored
    assert op("MPYI R1, R0", 0x00FFFFFF, 2) == (0xFFFFFFFE, N)         # -1 * 2 in 24 bits
    assert op("MPYI R1, R0", 0x00800000, 0x00000001) == (0xFF800000, N)  # -2**23
    assert op("MPYI R1, R0", 0x00400000, 0x00000200) == (0x80000000, V | LV)  # 2**31: overflow, N of +2**31 = 0
    assert op("MPYI R1, R0", 0x00800000, 0x00800000) == (0x00000000, V | LV)  # 2**46: low bits 0 but Z = 0


def test_mpyi_overflow_saturates_with_ovm_and_keeps_c():
    assert op("MPYI R1, R0", 0x7FFFFF, 0x7FFFFF, OVM | C) == (0x7FFFFFFF, OVM | C | V | LV)
    assert op("MPYI R1, R0", 0x7FFFFF, 0x800000, OVM) == (0x80000000, OVM | V | LV | N)


def test_mpyi_immediate_is_sign_extended():
    sim = run("        MPYI -3, R0\n        SWI\n", regs={"R0": 7})
    assert sim.reg("R0") == (-21) & 0xFFFFFFFF


# ---------------------------------------------------------------------------
# ABSI, NEGI, NOT, LDI, LDIcond
# ---------------------------------------------------------------------------

def test_absi():
    assert op("ABSI R1, R0", 0, 0xFFFFFFFB, C) == (5, C)                # C unaffected
    assert op("ABSI R1, R0", 0, 0) == (0, Z)
    # |-2**31| = 2**31 overflows: V, LV; flags of the true result (positive)
    assert op("ABSI R1, R0", 0, 0x80000000) == (0x80000000, V | LV)
    assert op("ABSI R1, R0", 0, 0x80000000, OVM) == (0x7FFFFFFF, OVM | V | LV)


def test_ldi_sets_n_z_and_clears_v():
    assert op("LDI R1, R0", 5, 0x80000000, V | UF | C) == (0x80000000, N | C)
    assert op("LDI R1, R0", 5, 0, N) == (0, Z)


def test_ldi_addressing_modes():
    body = ("        LDP @val\n        LDI @val, R0\n        LDI *AR0, R1\n"
            "        LDI AR0, R2\n        LDI 1234, R3\n        SWI\n"
            "        .data\nval:    .word 0CAFEF00Dh\n")
    sim = run(body, regs={"AR0": DATA}, mem={DATA: [0x12345678]})
    assert [sim.reg(r) for r in ("R0", "R1", "R2", "R3")] == [0xCAFEF00D, 0x12345678, DATA, 1234]


@pytest.mark.parametrize("cond,flags,loads", [
    ("Z", Z, True), ("Z", 0, False), ("NZ", 0, True), ("GT", 0, True), ("GT", N, False),
    ("LO", C, True), ("HS", C, False), ("U", N | Z | C, True),
])
def test_ldi_cond(cond, flags, loads):
    sim = run(f"        LDI{cond} R1, R0\n        SWI\n", regs={"R0": 1, "R1": 0x80000000, "ST": flags})
    assert sim.reg("R0") == (0x80000000 if loads else 1)
    assert sim.reg("ST") == flags                  # conditional loads set no flags


# ---------------------------------------------------------------------------
# Shifts [13-71 ASH, 13-73 ASH3, LSH]: 7-bit signed count
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("count,value,ash,lsh", [
    # count, value, (ASH result, C), (LSH result, C) -- C = the last bit out
    (0, 0x80000001, (0x80000001, 0), (0x80000001, 0)),
    (1, 0xC0000001, (0x80000002, 1), (0x80000002, 1)),
    (4, 0x12345678, (0x23456780, 1), (0x23456780, 1)),
    (31, 0x00000003, (0x80000000, 1), (0x80000000, 1)),
    (-1, 0x80000003, (0xC0000001, 1), (0x40000001, 1)),
    (-4, 0x8765432F, (0xF8765432, 1), (0x08765432, 1)),
    (-31, 0x80000000, (0xFFFFFFFF, 0), (0x00000001, 0)),
    # 32 positions: every bit leaves; C = the last one out (bit 0 / bit 31)
    (32, 0x00000001, (0, 1), (0, 1)),
    (-32, 0x80000000, (0xFFFFFFFF, 1), (0, 1)),
    # MODEL CHOICE beyond 32 (machine-model 3.1): 0 / all sign bits; C = 0
    # for a left shift, the sign for ASH right, 0 for LSH right
    (33, 0xFFFFFFFF, (0, 0), (0, 0)),
    (-40, 0x80000000, (0xFFFFFFFF, 1), (0, 0)),
    (-40, 0x7FFFFFFF, (0, 0), (0, 0)),
    (63, 1, (0, 0), (0, 0)),
    (-64, 0x80000000, (0xFFFFFFFF, 1), (0, 0)),
])
def test_shifts(count, value, ash, lsh):
    for instr, (r, c) in (("ASH", ash), ("LSH", lsh)):
        got, st = op(f"{instr} R1, R0", value, count & 0xFFFFFFFF, V | UF)
        assert got == r, instr
        assert st == R.nz32(r) | (C if c else 0), instr     # V, UF cleared


def test_shift_count_is_the_7_low_bits():
    # 0xFFFFFF81: bits 6-0 = 0000001 -> +1; 0x7F -> -1; 0x40 -> -64
    assert op("ASH R1, R0", 1, 0xFFFFFF81)[0] == 2
    assert op("ASH R1, R0", 4, 0x7F)[0] == 2
    assert op("LSH R1, R0", 0x80000000, 0x40)[0] == 0
    sim = run("        ASH -3, R0\n        LSH 2, R1\n        SWI\n", regs={"R0": 0xFFFFFF00, "R1": 3})
    assert sim.reg("R0") == 0xFFFFFFE0 and sim.reg("R1") == 12


def test_ash3_and_lsh3_take_the_count_first():
    # ASH3 count, src, dst (13-73): count is the first operand
    sim = run("        ASH3 R1, R2, R0\n        LSH3 R1, R2, R3\n        ASH3 *AR0, R2, R4\n        SWI\n",
              regs={"R1": 0xFFFFFFFC, "R2": 0x80000010, "AR0": DATA}, mem={DATA: [2]})
    assert sim.reg("R0") == 0xF8000001
    assert sim.reg("R3") == 0x08000001
    assert sim.reg("R4") == 0x00000040


# ---------------------------------------------------------------------------
# Rotates: ROL/ROR 1 bit through C, ROLC/RORC through the carry
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("instr,value,c_in,result,c_out", [
    ("ROL", 0x80000001, 0, 0x00000003, 1),
    ("ROL", 0x40000000, 1, 0x80000000, 0),
    ("ROR", 0x00000003, 0, 0x80000001, 1),
    ("ROR", 0x00000002, 1, 0x00000001, 0),
    ("ROLC", 0x80000000, 0, 0x00000000, 1),
    ("ROLC", 0x00000001, 1, 0x00000003, 0),
    ("RORC", 0x00000001, 0, 0x00000000, 1),
    ("RORC", 0x00000002, 1, 0x80000001, 0),
])
def test_rotates(instr, value, c_in, result, c_out):
    sim = run(f"        {instr} R0\n        SWI\n", regs={"R0": value, "ST": c_in | V})
    assert sim.reg("R0") == result
    assert sim.reg("ST") == R.nz32(result) | (C if c_out else 0)


# ---------------------------------------------------------------------------
# SUBC [13-226]
# ---------------------------------------------------------------------------

def test_subc_single_steps_and_no_flags():
    # dst >= src (unsigned): ((dst - src) << 1) | 1, else dst << 1; no flags
    assert op("SUBC R1, R0", 10, 3, N) == (15, N)
    assert op("SUBC R1, R0", 3, 10, Z) == (6, Z)
    assert op("SUBC R1, R0", 0x80000000, 1) == (0xFFFFFFFF, 0)     # unsigned compare


@pytest.mark.parametrize("num,den", [(100, 7), (65535, 255), (1000, 1000), (5, 9), (32767, 3), (40000, 1)])
def test_subc_loop_divides(num, den):
    # Long division, one quotient bit per SUBC: with the divisor aligned 15
    # places up, 16 steps leave the quotient in bits 15-0 and the remainder
    # in bits 31-16 (num, den < 2**16).
    body = ("        LSH 15, R1\n        RPTS 15\n        SUBC R1, R0\n        SWI\n")
    sim = run(body, regs={"R0": num, "R1": den})
    assert sim.reg("R0") & 0xFFFF == num // den
    assert sim.reg("R0") >> 16 == num % den


@pytest.mark.parametrize("num,den", [(0x7FFFFFFF, 1), (0x7FFFFFFF, 0x7FFFFFFF), (1_000_000_007, 12345),
                                     (0x40000000, 3), (123456789, 1000), (2**31 - 2, 2**30 + 1)])
def test_subc_loop_divides_31_bit_numbers(num, den):
    # The same long division for a 31-bit dividend: align the divisor's MSB
    # with the dividend's (k places), then k + 1 SUBC steps (up to 31) leave
    # the quotient in bits k-0 and the remainder above them.
    k = num.bit_length() - den.bit_length()
    body = "        LSH R2, R1\n        RPTS R2\n        SUBC R1, R0\n        SWI\n"
    sim = run(body, regs={"R0": num, "R1": den, "R2": k})
    r = sim.reg("R0")
    assert (r & ((1 << (k + 1)) - 1), r >> (k + 1)) == divmod(num, den)


# ---------------------------------------------------------------------------
# PUSH, POP [13-194, 13-196]
# ---------------------------------------------------------------------------

def test_push_pop():
    # PUSH: *++SP = 32 LSBs; POP: reg = *SP--, N and Z for R0-R7, exponent kept
    sim = run("        PUSH R0\n        PUSH AR3\n        POP R1\n        POP R2\n        SWI\n",
              regs={"SP": STACK, "R0": Ext(0x55_80000000), "AR3": 0, "R1": Ext(0x11_00000001),
                    "R2": Ext(0x22_00000002)})
    assert list(sim.read(STACK + 1, 2)) == [0x80000000, 0]
    assert sim.reg("SP") == STACK
    assert sim.reg40("R1") == 0x11_00000000           # popped AR3's 0
    assert sim.reg40("R2") == 0x22_80000000           # popped R0's low bits
    assert sim.reg("ST") == N                         # flags of the last POP


def test_push_st_and_pop_st_round_trip():
    sim = run("        PUSH ST\n        LDI 0, R0\n        POP ST\n        SWI\n",
              regs={"SP": STACK, "ST": N | C | LV})
    assert sim.reg("ST") == N | C | LV


# ---------------------------------------------------------------------------
# Property tests: every integer op, general and 3-operand forms, against
# the reference model
# ---------------------------------------------------------------------------

# name -> (reference(dst, src, st) -> (result, flags) or None result for
# compares, flags the op rewrites)
def _c(st):
    return st & C


def _ovm(st):
    return bool(st & OVM)


TWO_OPERAND = {
    "ADDI": (lambda d, s, st: R.addi(d, s, ovm=_ovm(st)), ARITH),
    "ADDC": (lambda d, s, st: R.addi(d, s, cin=_c(st), ovm=_ovm(st)), ARITH),
    "SUBI": (lambda d, s, st: R.subi(d, s, ovm=_ovm(st)), ARITH),
    "SUBB": (lambda d, s, st: R.subi(d, s, bin_=_c(st), ovm=_ovm(st)), ARITH),
    "SUBRI": (lambda d, s, st: R.subi(s, d, ovm=_ovm(st)), ARITH),
    "SUBRB": (lambda d, s, st: R.subi(s, d, bin_=_c(st), ovm=_ovm(st)), ARITH),
    "NEGI": (lambda d, s, st: R.subi(0, s, ovm=_ovm(st)), ARITH),
    "NEGB": (lambda d, s, st: R.subi(0, s, bin_=_c(st), ovm=_ovm(st)), ARITH),
    "ABSI": (lambda d, s, st: R.absi(s, ovm=_ovm(st)), LOGIC),
    "MPYI": (lambda d, s, st: R.mpyi(d, s, ovm=_ovm(st)), LOGIC),
    "AND": (lambda d, s, st: (d & s, R.nz32(d & s)), LOGIC),
    "ANDN": (lambda d, s, st: (d & ~s & R.M32, R.nz32(d & ~s)), LOGIC),
    "OR": (lambda d, s, st: (d | s, R.nz32(d | s)), LOGIC),
    "XOR": (lambda d, s, st: (d ^ s, R.nz32(d ^ s)), LOGIC),
    "NOT": (lambda d, s, st: (~s & R.M32, R.nz32(~s)), LOGIC),
    "LDI": (lambda d, s, st: (s, R.nz32(s)), LOGIC),
    "ASH": (lambda d, s, st: R.ash(d, s), ARITH),
    "LSH": (lambda d, s, st: R.lsh(d, s), ARITH),
    "CMPI": (lambda d, s, st: (d, R.subi(d, s)[1]), ARITH),
    "TSTB": (lambda d, s, st: (d, R.nz32(d & s)), LOGIC),
    "SUBC": (lambda d, s, st: (R.subc(d, s), 0), 0),
}
# 3-operand: OP3 src2, src1, dst computes src1 (op) src2 (13-235)
THREE_OPERAND = {f"{k}3": v for k, v in TWO_OPERAND.items()
                 if k in ("ADDI", "ADDC", "SUBI", "SUBB", "MPYI", "AND", "ANDN", "OR", "XOR",
                          "ASH", "LSH", "CMPI", "TSTB")}

SPECIAL = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE,
           0x00800000, 0x007FFFFF, 0x00FFFFFF, 0x20, 0xFFFFFFE0, 0x21, 0x40, 0x3F]
words = st.one_of(st.integers(0, R.M32), st.sampled_from(SPECIAL))
statuses = st.sampled_from([0, C, OVM, OVM | C, N | Z | V | UF, LV | LUF | C])
_kernels: dict[str, Kernel] = {}


def _kernel(text: str) -> Kernel:
    if text not in _kernels:
        _kernels[text] = Kernel(f"        {text}\n        SWI\n")
    return _kernels[text]


def _check(text: str, ref, mask: int, dst: int, src: int, st_in: int, regs: dict) -> None:
    sim = _kernel(text)({**regs, "ST": st_in})
    want, flags = ref(dst, src, st_in)
    want_st = (st_in & ~mask) | (flags & mask) | (flags & (LV | LUF))
    got = (sim.reg("R0"), sim.reg("ST"))
    assert got == (want & R.M32, want_st), f"{text} dst={dst:#x} src={src:#x} st={st_in:#x}"


PROPERTY = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", sorted(TWO_OPERAND))
@PROPERTY
@given(dst=words, src=words, st_in=statuses)
def test_general_form_matches_reference(name, dst, src, st_in):
    ref, mask = TWO_OPERAND[name]
    _check(f"{name} R1, R0", ref, mask, dst, src, st_in, {"R0": dst, "R1": src})


@pytest.mark.parametrize("name", sorted(THREE_OPERAND))
@PROPERTY
@given(src1=words, src2=words, st_in=statuses)
def test_three_operand_form_matches_reference(name, src1, src2, st_in):
    # OP3 R1, R2, R0: src2 = R1, src1 = R2; for CMPI3/TSTB3 (no dst) R0 is untouched
    ref, mask = THREE_OPERAND[name]
    if name in ("CMPI3", "TSTB3"):
        sim = _kernel(f"{name} R1, R2")({"R1": src2, "R2": src1, "R0": 0x5A5A, "ST": st_in})
        _, flags = ref(src1, src2, st_in)
        assert sim.reg("ST") == (st_in & ~mask) | (flags & mask) | (flags & (LV | LUF))
        assert sim.reg("R0") == 0x5A5A
        return
    _check(f"{name} R1, R2, R0", ref, mask, src1, src2, st_in, {"R1": src2, "R2": src1, "R0": 0x5A5A})


@pytest.mark.parametrize("name", ["ADDI", "SUBI", "AND", "MPYI", "ASH", "SUBRI", "NOT", "ADDI3", "SUBI3",
                                  "XOR3", "LSH3"])
def test_memory_and_immediate_operands(name):
    # the same operation with the source in memory (direct, indirect) or an
    # immediate gives the same result as with a register
    three = name.endswith("3")
    ref, mask = (THREE_OPERAND if three else TWO_OPERAND)[name]
    for dst, src in [(0x12345678, 0x00001234), (0xFFFFFFF0, 0x00000005), (0x80000000, 0x7FFF)]:
        want = ref(dst, src, 0)[0] & R.M32
        if three:
            body = f"        {name} *AR0, R2, R0\n        {name} *AR0, *+AR0(1), R3\n        SWI\n"
            sim = run(body, regs={"R2": dst, "AR0": DATA}, mem={DATA: [src, dst]})
            assert sim.reg("R0") == want and sim.reg("R3") == want
        else:
            body = (f"        LDP {DATA:#x}\n        LDI R2, R0\n        {name} @{DATA:#x}, R0\n"
                    f"        LDI R2, R3\n        {name} *AR0, R3\n"
                    f"        LDI R2, R4\n        {name} {src}, R4\n        SWI\n")
            sim = run(body, regs={"R2": dst, "AR0": DATA}, mem={DATA: [src]})
            assert sim.reg("R0") == want and sim.reg("R3") == want and sim.reg("R4") == want
