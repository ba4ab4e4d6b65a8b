"""Addressing modes against the TMS320C3x User's Guide (SPRU031) chapter 6.

* indirect: the 26 modification codes of table 6-2 / 13-10 (G 6-7, 13-22);
  only the 24 LSBs of ARn, IR0 and IR1 take part and the upper 8 bits of
  ARn are kept (G 6-5);
* circular buffers (G 6-21..6-24, section 6.7) and bit-reversed addressing
  (G 6-26, 6-27, section 6.8), with the guide's worked examples 6-24, 6-26;
* direct addressing: the 8 LSBs of DP above the 16-bit field (G 6-4);
* two operands of one instruction updating the same ARn: the update of the
  operand in bits 15-8 is kept (G 13-24, 13-26).

Memory around DATA holds its own address, so the value loaded tells which
address an operand used.
"""
from __future__ import annotations

import pytest

from rapsim.asm import isa
from simkit import DATA, run

AROUND = {DATA - 0x100: list(range(DATA - 0x100, DATA + 0x300))}


def rc_add(a: int, b: int, bits: int = 24) -> int:
    """Reverse-carry addition (G 6-26): carries travel from the MSB towards
    the LSB; a carry out of bit 0 is lost."""
    r, carry = 0, 0
    for i in range(bits - 1, -1, -1):
        s = (a >> i & 1) + (b >> i & 1) + carry
        r |= (s & 1) << i
        carry = s >> 1
    return r


def circ(ar: int, step: int, bk: int) -> int:
    """Circular update (G 6-23): index = the K LSBs of ARn, 2**K > BK the
    smallest such power; index + step wrapped into [0, BK)."""
    k = bk.bit_length()                        # smallest K with 2**K > BK
    mask = (1 << k) - 1
    t = (ar & mask) + step
    if t >= bk:
        t -= bk
    elif t < 0:
        t += bk
    return (ar & ~mask) | t


# ---------------------------------------------------------------------------
# The 26 modification codes
# ---------------------------------------------------------------------------

AR, IR0, IR1, BK, DISP = DATA + 0x20, 3, 7, 0x40, 5


def expected(mode: isa.IndirectMode, disp: int) -> tuple[int, int]:
    """(address used, new ARn) from table 6-2, computed independently."""
    step = {isa.Index.DISP: disp, isa.Index.IR0: IR0, isa.Index.IR1: IR1, isa.Index.NONE: 0}[mode.index]
    if mode.bitrev:
        return AR, rc_add(AR, IR0)
    if mode.index is isa.Index.NONE:
        return AR, AR
    moved = AR + mode.sign * step
    if mode.pre:                               # *+ARn(x), *-ARn(x), *++ARn(x), *--ARn(x)
        return moved, moved if mode.update else AR
    if mode.circular:                          # *ARn++(x)%, *ARn--(x)%
        return AR, circ(AR, mode.sign * step, BK)
    return AR, moved                           # *ARn++(x), *ARn--(x)


MODES = [(m, isa.format_indirect(m.code, 1, DISP)) for m in isa.INDIRECT_MODES]


@pytest.mark.parametrize("mode,text", MODES, ids=[t for _, t in MODES])
def test_every_indirect_mode_in_the_general_form(mode, text):
    # general form: 8-bit displacement (here 5)
    sim = run(f"        LDI {text}, R0\n        SWI\n",
              regs={"AR1": AR, "IR0": IR0, "IR1": IR1, "BK": BK}, mem=AROUND)
    addr, new_ar = expected(mode, DISP)
    assert (sim.reg("R0"), sim.reg("AR1")) == (addr, new_ar)


MODES8 = [(m, isa.format_indirect(m.code, 1, 1)) for m in isa.INDIRECT_MODES]


@pytest.mark.parametrize("mode,text", MODES8, ids=[t for _, t in MODES8])
def test_every_indirect_mode_in_the_three_operand_form(mode, text):
    # 3-operand form: the displacement is an implied 1 (G 13-25)
    sim = run(f"        ADDI3 {text}, R2, R0\n        SWI\n",
              regs={"AR1": AR, "IR0": IR0, "IR1": IR1, "BK": BK, "R2": 0}, mem=AROUND)
    addr, new_ar = expected(mode, 1)
    assert (sim.reg("R0"), sim.reg("AR1")) == (addr, new_ar)


def test_displacements_are_unsigned_bytes():
    sim = run("        LDI *+AR1(255), R0\n        LDI *-AR1(255), R1\n        LDI *+AR1, R2\n        SWI\n",
              regs={"AR1": AR}, mem=AROUND)
    assert (sim.reg("R0"), sim.reg("R1"), sim.reg("R2")) == (AR + 255, AR - 255, AR + 1)


def test_index_registers_use_their_24_low_bits_unsigned():
    # IR0 = 0x00FFFFFF is +2**24 - 1, i.e. -1 modulo 2**24; the upper byte is ignored
    sim = run("        LDI *+AR1(IR0), R0\n        LDI *+AR1(IR1), R1\n        SWI\n",
              regs={"AR1": AR, "IR0": 0x00FFFFFF, "IR1": 0xFF000002}, mem=AROUND)
    assert (sim.reg("R0"), sim.reg("R1")) == (AR - 1, AR + 2)


def test_ar_arithmetic_is_24_bit_and_keeps_the_upper_byte():
    # G 6-5: the ARAUs work on the 24 LSBs; bits 31-24 of ARn are not modified.
    # NOP *ARn only updates the register.
    sim = run("        NOP *AR0++\n        NOP *--AR1(2)\n        NOP *AR2++(IR0)\n"
              "        LDI *AR3, R0\n        SWI\n",
              regs={"AR0": 0xABFFFFFF, "AR1": 0xCD000001, "AR2": 0x12FFFFF0, "IR0": 0x20,
                    "AR3": 0xFF000000 | DATA}, mem=AROUND)
    assert sim.reg("AR0") == 0xAB000000
    assert sim.reg("AR1") == 0xCDFFFFFF
    assert sim.reg("AR2") == 0x12000010
    assert sim.reg("R0") == DATA               # the address is ARn's 24 LSBs


# ---------------------------------------------------------------------------
# Circular addressing [G 6.7]
# ---------------------------------------------------------------------------

def test_guide_example_6_24_circular_sequence():
    # BK = 6, AR0 at element 0: the guide lists the elements reached as
    # 0, 5, 1, 4, 4, 3 (the buffer starts at a multiple of 8: 2**3 > 6)
    body = ("        LDI *AR0++(5)%, R0\n        LDI *AR0++(2)%, R1\n        LDI *AR0--(3)%, R2\n"
            "        LDI *AR0++(6)%, R3\n        LDI *AR0--%, R4\n        LDI *AR0, R5\n        SWI\n")
    sim = run(body, regs={"AR0": DATA, "BK": 6}, mem=AROUND)
    assert [sim.reg(f"R{i}") - DATA for i in range(6)] == [0, 5, 1, 4, 4, 3]
    assert sim.reg("AR0") == DATA + 3


def test_circular_buffer_of_five_with_step_two():
    # 0, 2, 4, 1, 3, 0, 2 ... (the same algorithm: index + 2 wrapped by BK = 5)
    body = "".join(f"        LDI *AR0++(2)%, R{i}\n" for i in range(7)) + "        SWI\n"
    sim = run(body, regs={"AR0": DATA + 0x100, "BK": 5}, mem=AROUND)
    assert [sim.reg(f"R{i}") - DATA - 0x100 for i in range(7)] == [0, 2, 4, 1, 3, 0, 2]


# A BK of the form 2**K - 1 uses a 2**K boundary (guide example 6-23: 31 words, 32-word boundary).
@pytest.mark.parametrize("bk,base", [(31, DATA + 0x20), (32, DATA + 0x40), (7, DATA + 0x8),
                                     (3, DATA + 0x4), (6, DATA + 0x8)])
def test_circular_alignment_uses_the_smallest_k_with_2_to_k_above_bk(bk, base):
    # G 6-22 example 6-23: a 31-word buffer starts at a multiple of 32, a
    # 32-word one at a multiple of 64.  Stepping past the last element wraps
    # to the first (upwards) and from the first to the last (downwards).
    sim = run("        LDI *AR0++(1)%, R0\n        LDI *AR0, R1\n"
              "        LDI *AR1--(1)%, R2\n        LDI *AR1, R3\n        SWI\n",
              regs={"AR0": base + bk - 1, "AR1": base, "BK": bk}, mem=AROUND)
    assert sim.reg("R0") == base + bk - 1 and sim.reg("R1") == base
    assert sim.reg("R2") == base and sim.reg("R3") == base + bk - 1


def test_circular_with_index_registers_and_full_steps():
    # IR steps are unsigned (G 6-23); a step of BK comes back to the same element
    sim = run("        LDI *AR0++(IR0)%, R0\n        LDI *AR0--(IR1)%, R1\n        LDI *AR0++(10)%, R2\n"
              "        LDI *AR0, R3\n        SWI\n",
              regs={"AR0": DATA + 8, "BK": 10, "IR0": 4, "IR1": 9}, mem=AROUND)
    # index 8 +4 -> 12 - 10 = 2; 2 - 9 -> -7 + 10 = 3; 3 + 10 -> 13 - 10 = 3
    assert [sim.reg(f"R{i}") - DATA for i in range(4)] == [8, 2, 3, 3]


def test_circular_keeps_the_bits_above_the_buffer():
    sim = run("        NOP *AR0++(3)%\n        SWI\n", regs={"AR0": 0x7A002005, "BK": 6})
    assert sim.reg("AR0") == 0x7A002002       # index 5 + 3 = 8 -> 2; bits above kept


def test_circular_matches_the_algorithm_for_many_steps():
    bk, base = 13, DATA + 0x10
    steps = [5, -3, 13, -13, 1, 12, -12, 7, -1, 0]
    body = "".join(
        f"        LDI *AR0{'++' if s >= 0 else '--'}({abs(s)})%, R{i % 8}\n        STI R{i % 8}, *AR7++\n"
        for i, s in enumerate(steps)) + "        SWI\n"
    sim = run(body, regs={"AR0": base + 4, "BK": bk, "AR7": DATA + 0x200}, mem=AROUND)
    ar, want = base + 4, []
    for s in steps:
        want.append(ar)
        ar = circ(ar, s, bk)
    assert list(sim.read(DATA + 0x200, len(steps))) == want
    assert sim.reg("AR0") == ar


# ---------------------------------------------------------------------------
# Bit-reversed addressing [G 6.8]
# ---------------------------------------------------------------------------

def test_guide_example_6_26_bit_reversed_sequence():
    # AR2 = 0110 0000, IR0 = 0000 1000 (16-entry table): 96, 104, 100, 108,
    # 98, 106, 102, 110 (here in the table at DATA + 96)
    body = "".join(f"        LDI *AR2++(IR0)B, R{i}\n" for i in range(7)) + "        LDI *AR2, R7\n        SWI\n"
    sim = run(body, regs={"AR2": DATA + 96, "IR0": 8}, mem=AROUND)
    assert [sim.reg(f"R{i}") - DATA for i in range(8)] == [96, 104, 100, 108, 98, 106, 102, 110]


def test_eight_point_fft_reordering():
    # real and imaginary parts in separate arrays: IR0 = N/2 = 4 (G 6-26); a
    # copy loop through *AR0++(IR0)B reads x[0], x[4], x[2], x[6], x[1], ...
    body = ("        LDI 7, RC\n        RPTB loop\n        LDI *AR0++(IR0)B, R0\n"
            "loop:   STI R0, *AR1++\n        SWI\n")
    src, dst = DATA + 0x80, DATA + 0x100
    sim = run(body, regs={"AR0": src, "AR1": dst, "IR0": 4},
              mem={src: [10, 11, 12, 13, 14, 15, 16, 17]})
    assert list(sim.read(dst, 8)) == [10, 14, 12, 16, 11, 15, 13, 17]
    assert sim.reg("AR0") == src             # eight steps come back to the base


def test_bit_reversed_keeps_the_upper_byte_and_carries_down_24_bits():
    sim = run("        NOP *AR0++(IR0)B\n        SWI\n", regs={"AR0": 0x55000006, "IR0": 2})
    # 0110 + 0010 with reverse carry: bit 1 overflows into bit 0 -> 0101
    assert sim.reg("AR0") == 0x55000005 == 0x55000000 | rc_add(6, 2)


# ---------------------------------------------------------------------------
# Direct addressing [G 6.2]
# ---------------------------------------------------------------------------

def test_direct_uses_the_8_lsbs_of_dp():
    body = ("        LDI @1234h, R0\n        LDP 400000h\n        LDI @10h, R1\n"
            "        LDI -192, DP\n        LDI @11h, R2\n        STI R0, @12h\n        SWI\n")
    sim = run(body, mem={0x1234: [0xAAAA], 0x400010: [0xBBBB, 0xCCCC]})
    assert sim.reg("R0") == 0xAAAA            # DP = 0 at reset
    assert sim.reg("R1") == 0xBBBB            # LDP: DP = bits 23-16 of the address
    assert sim.reg("R2") == 0xCCCC            # DP = 0xFFFFFF40: only 0x40 is used
    assert sim.read(0x400012, 1)[0] == 0xAAAA


def test_ldp_loads_dp_and_sets_no_flags():
    sim = run("        LDP 0ABCDEFh\n        SWI\n", regs={"ST": 0x0F})
    assert sim.reg("DP") == 0xAB and sim.reg("ST") == 0x0F


# ---------------------------------------------------------------------------
# Two updates of one ARn; reads of an ARn updated by the same instruction
# ---------------------------------------------------------------------------

def test_two_updates_of_one_ar_keep_the_bits_15_8_operand():
    # G 13-24: both addresses come from the original AR0; only the update of
    # src1 (bits 15-8, the second operand written) is kept.
    sim = run("        ADDI3 *AR0++(1), *AR0++(IR0), R0\n        SWI\n",
              regs={"AR0": AR, "IR0": 5}, mem=AROUND)
    assert sim.reg("R0") == 2 * AR and sim.reg("AR0") == AR + 5
    sim = run("        ADDI3 *AR0++(IR0), *AR0--(1), R0\n        SWI\n",
              regs={"AR0": AR, "IR0": 5}, mem=AROUND)
    assert sim.reg("R0") == 2 * AR and sim.reg("AR0") == AR - 1
    # parallel: src3 (bits 15-8) wins over src4 (bits 7-0) -- G 13-26
    sim = run("        LDI *AR0++(1), R0\n||      LDI *AR0++(IR0), R1\n        SWI\n",
              regs={"AR0": AR, "IR0": 5}, mem=AROUND)
    assert sim.reg("R0") == AR and sim.reg("R1") == AR
    second = sim.reg("AR0")
    # the second LDI's operand is in bits 15-8 (LDI||LDI layout, G 13-133)
    assert second == AR + 5


def test_register_operand_sees_the_ar_update_of_the_same_instruction():
    # Indirect ARn updates are made in the decode stage, registers are read in
    # execute (G 8-2): ADDI3 AR3, *AR3++, R2 adds mem[AR3] to the *new* AR3.
    sim = run("        ADDI3 AR3, *AR3++, R2\n        SWI\n", regs={"AR3": AR}, mem=AROUND)
    assert sim.reg("R2") == AR + (AR + 1)
    assert sim.reg("AR3") == AR + 1


def test_store_through_an_updated_register():
    # STI AR0, *AR0++: the stored register is read after the update
    sim = run("        STI AR0, *AR0++\n        SWI\n", regs={"AR0": DATA + 0x200})
    assert sim.read(DATA + 0x200, 1)[0] == DATA + 0x201
