"""Encodings of every TMS320C30 instruction form, derived independently from
the opcode figures of the TMS320C3x User's Guide (SPRU031, chapter 13) and
checked against the assembler (which encodes through asm/isa.py).

The expected words are built here from the guide's format descriptions
(section 13.2, figures 13-1 to 13-5) and its opcode numbers, not from the
ISA table, so that a wrong entry in the table shows up as a failure.
"""
import pytest

from rapsim.asm.assembler import assemble_text

# -- register numbers (guide table 3-1) ---------------------------------------
R = {f"R{i}": i for i in range(8)} | {f"AR{i}": 8 + i for i in range(8)} | {
    "DP": 16, "IR0": 17, "IR1": 18, "BK": 19, "SP": 20, "ST": 21, "IE": 22, "IF": 23,
    "IOF": 24, "RS": 25, "RE": 26, "RC": 27}

# -- general-format opcodes, bits 28-23 (guide 13.2, table 13-1) -------------------
GEN = {"ABSF": 0x00, "ABSI": 0x01, "ADDC": 0x02, "ADDF": 0x03, "ADDI": 0x04, "AND": 0x05,
       "ANDN": 0x06, "ASH": 0x07, "CMPF": 0x08, "CMPI": 0x09, "FIX": 0x0A, "FLOAT": 0x0B,
       "LDE": 0x0D, "LDF": 0x0E, "LDFI": 0x0F, "LDI": 0x10, "LDII": 0x11, "LDM": 0x12,
       "LSH": 0x13, "MPYF": 0x14, "MPYI": 0x15, "NEGB": 0x16, "NEGF": 0x17, "NEGI": 0x18,
       "NORM": 0x1A, "NOT": 0x1B, "OR": 0x20, "RND": 0x22, "STF": 0x28, "STFI": 0x29,
       "STI": 0x2A, "STII": 0x2B, "SUBB": 0x2D, "SUBC": 0x2E, "SUBF": 0x2F, "SUBI": 0x30,
       "SUBRB": 0x31, "SUBRF": 0x32, "SUBRI": 0x33, "TSTB": 0x34, "XOR": 0x35}
# -- 3-operand opcodes, bits 27-23 with 001 in bits 31-29 (table 13-2) -------
THREE = {"ADDC3": 0x00, "ADDF3": 0x01, "ADDI3": 0x02, "AND3": 0x03, "ANDN3": 0x04,
         "ASH3": 0x05, "CMPF3": 0x06, "CMPI3": 0x07, "LSH3": 0x08, "MPYF3": 0x09,
         "MPYI3": 0x0A, "OR3": 0x0B, "SUBB3": 0x0C, "SUBF3": 0x0D, "SUBI3": 0x0E,
         "TSTB3": 0x0F, "XOR3": 0x10}
# -- condition codes (table 13-9) ---------------------------------------------
COND = {"U": 0, "LO": 1, "LS": 2, "HI": 3, "HS": 4, "EQ": 5, "NE": 6, "LT": 7, "LE": 8,
        "GT": 9, "GE": 10, "NV": 12, "V": 13, "NUF": 14, "UF": 15, "NLV": 16, "LV": 17,
        "NLUF": 18, "LUF": 19, "ZUF": 20,
        "C": 1, "NC": 4, "Z": 5, "NZ": 6, "N": 7, "P": 9, "NN": 10}


def gen(op, g, dst, src):
    return GEN[op] << 23 | g << 21 | dst << 16 | src


def ind16(mod, ar, disp=0):
    return mod << 11 | ar << 8 | disp


def ind8(mod, ar):
    return mod << 3 | ar


def three(op, t, dst, src1, src2):
    return 1 << 29 | THREE[op] << 23 | t << 21 | dst << 16 | src1 << 8 | src2


def words(src: str) -> list[int]:
    obj = assemble_text(src, "enc.asm").obj
    out = []
    for s in obj.sections:
        if s.data is not None:
            out += [int(w) for w in s.data]
    return out


def one(line: str) -> int:
    w = words(f"        {line}\n")
    assert len(w) == 1, line
    return w[0]


GENERAL_CASES = [
    # register, direct, indirect, immediate (G = 0, 1, 2, 3) -- guide figure 13-1
    ("ADDI R1,R2", gen("ADDI", 0, 2, 1)),
    ("ADDI @0x1234,R2", gen("ADDI", 1, 2, 0x1234)),
    ("ADDI *+AR3(5),R2", gen("ADDI", 2, 2, ind16(0, 3, 5))),
    ("ADDI -5,R2", gen("ADDI", 3, 2, 0xFFFB)),
    ("LDI 32767,AR7", gen("LDI", 3, R["AR7"], 0x7FFF)),
    ("LDI -32768,RC", gen("LDI", 3, R["RC"], 0x8000)),
    ("AND 0xFFFF,R0", gen("AND", 3, 0, 0xFFFF)),
    ("OR 0x8000,ST", gen("OR", 3, R["ST"], 0x8000)),
    ("XOR R7,IOF", gen("XOR", 0, R["IOF"], 7)),
    ("ANDN 3,R3", gen("ANDN", 3, 3, 3)),
    ("NOT R4,R5", gen("NOT", 0, 5, 4)),
    ("TSTB @0,R1", gen("TSTB", 1, 1, 0)),
    ("ASH -3,R2", gen("ASH", 3, 2, 0xFFFD)),
    ("LSH R1,R2", gen("LSH", 0, 2, 1)),
    ("MPYI *AR0++(IR0),R1", gen("MPYI", 2, 1, ind16(12, 0))),
    ("SUBRI 1,SP", gen("SUBRI", 3, R["SP"], 1)),
    ("CMPI *AR1,R0", gen("CMPI", 2, 0, ind16(24, 1))),
    ("LDF 1.0,R0", gen("LDF", 3, 0, 0x0000)),          # short float 1.0 (guide 5.3.1)
    ("LDF -1.0,R0", gen("LDF", 3, 0, 0xF800)),
    ("LDF 0.5,R1", gen("LDF", 3, 1, 0xF000)),
    ("LDF 0,R1", gen("LDF", 3, 1, 0x8000)),            # zero: exponent -8
    ("MPYF 2.0,R3", gen("MPYF", 3, 3, 0x1000)),
    ("ADDF R1,R7", gen("ADDF", 0, 7, 1)),
    ("FIX R1,AR0", gen("FIX", 0, R["AR0"], 1)),
    ("FLOAT AR1,R0", gen("FLOAT", 0, 0, R["AR1"])),
    ("FLOAT -7,R2", gen("FLOAT", 3, 2, 0xFFF9)),
    ("LDE *AR2--(1),R1", gen("LDE", 2, 1, ind16(5, 2, 1))),
    ("LDM @5,R1", gen("LDM", 1, 1, 5)),
    ("NORM R1,R1", gen("NORM", 0, 1, 1)),
    ("RND R0,R6", gen("RND", 0, 6, 0)),
    ("ABSF R2,R3", gen("ABSF", 0, 3, 2)),
    ("ABSI R2,R3", gen("ABSI", 0, 3, 2)),
    ("NEGF R2,R3", gen("NEGF", 0, 3, 2)),
    ("NEGI R2,R3", gen("NEGI", 0, 3, 2)),
    ("NEGB R2,R3", gen("NEGB", 0, 3, 2)),
    ("ADDC R2,R3", gen("ADDC", 0, 3, 2)),
    ("SUBB R2,R3", gen("SUBB", 0, 3, 2)),
    ("SUBC R2,R3", gen("SUBC", 0, 3, 2)),
    ("SUBF R2,R3", gen("SUBF", 0, 3, 2)),
    ("SUBRF R2,R3", gen("SUBRF", 0, 3, 2)),
    ("SUBRB R2,R3", gen("SUBRB", 0, 3, 2)),
    ("CMPF R2,R3", gen("CMPF", 0, 3, 2)),
    ("LDFI *AR1,R0", gen("LDFI", 2, 0, ind16(24, 1))),
    ("LDII @7,AR1", gen("LDII", 1, R["AR1"], 7)),
    ("STF R0,*AR1++", gen("STF", 2, 0, ind16(4, 1, 1))),
    ("STI AR3,@0x40", gen("STI", 1, R["AR3"], 0x40)),
    ("STFI R1,*AR2", gen("STFI", 2, 1, ind16(24, 2))),
    ("STII R1,@1", gen("STII", 1, 1, 1)),
]

INDIRECT_CASES = [
    # the 26 modification codes (guide table 6-2)
    ("LDI *+AR0(3),R0", ind16(0, 0, 3)), ("LDI *-AR1(3),R0", ind16(1, 1, 3)),
    ("LDI *++AR2(3),R0", ind16(2, 2, 3)), ("LDI *--AR3(3),R0", ind16(3, 3, 3)),
    ("LDI *AR4++(3),R0", ind16(4, 4, 3)), ("LDI *AR5--(3),R0", ind16(5, 5, 3)),
    ("LDI *AR6++(3)%,R0", ind16(6, 6, 3)), ("LDI *AR7--(3)%,R0", ind16(7, 7, 3)),
    ("LDI *+AR0(IR0),R0", ind16(8, 0)), ("LDI *-AR0(IR0),R0", ind16(9, 0)),
    ("LDI *++AR0(IR0),R0", ind16(10, 0)), ("LDI *--AR0(IR0),R0", ind16(11, 0)),
    ("LDI *AR0++(IR0),R0", ind16(12, 0)), ("LDI *AR0--(IR0),R0", ind16(13, 0)),
    ("LDI *AR0++(IR0)%,R0", ind16(14, 0)), ("LDI *AR0--(IR0)%,R0", ind16(15, 0)),
    ("LDI *+AR0(IR1),R0", ind16(16, 0)), ("LDI *-AR0(IR1),R0", ind16(17, 0)),
    ("LDI *++AR0(IR1),R0", ind16(18, 0)), ("LDI *--AR0(IR1),R0", ind16(19, 0)),
    ("LDI *AR0++(IR1),R0", ind16(20, 0)), ("LDI *AR0--(IR1),R0", ind16(21, 0)),
    ("LDI *AR0++(IR1)%,R0", ind16(22, 0)), ("LDI *AR0--(IR1)%,R0", ind16(23, 0)),
    ("LDI *AR3,R0", ind16(24, 3)), ("LDI *AR3++(IR0)B,R0", ind16(25, 3)),
    # omitted displacement = 1; displacement up to 255
    ("LDI *+AR1,R0", ind16(0, 1, 1)), ("LDI *AR1++,R0", ind16(4, 1, 1)),
    ("LDI *AR1--%,R0", ind16(7, 1, 1)), ("LDI *+AR1(255),R0", ind16(0, 1, 255)),
]

THREE_CASES = [
    # syntax "op src2, src1, dst"; T bit 21 = src1 indirect, bit 22 = src2 indirect (13-235)
    ("ADDI3 R1,R2,R3", three("ADDI3", 0, 3, 2, 1)),
    ("SUBI3 R1,*AR0,R3", three("SUBI3", 1, 3, ind8(24, 0), 1)),
    ("SUBI3 *AR0++,R1,R3", three("SUBI3", 2, 3, 1, ind8(4, 0))),
    ("MPYF3 *AR0++(IR0),*AR1--(IR1),R0", three("MPYF3", 3, 0, ind8(21, 1), ind8(12, 0))),
    ("ADDF3 R1,R2,R3", three("ADDF3", 0, 3, 2, 1)),
    ("ASH3 R1,AR2,R3", three("ASH3", 0, 3, R["AR2"], 1)),
    ("LSH3 *AR1,R2,R3", three("LSH3", 2, 3, 2, ind8(24, 1))),
    ("AND3 R0,R1,R2", three("AND3", 0, 2, 1, 0)),
    ("ANDN3 R0,R1,R2", three("ANDN3", 0, 2, 1, 0)),
    ("OR3 R0,R1,R2", three("OR3", 0, 2, 1, 0)),
    ("XOR3 R0,R1,R2", three("XOR3", 0, 2, 1, 0)),
    ("ADDC3 R0,R1,R2", three("ADDC3", 0, 2, 1, 0)),
    ("SUBB3 R0,R1,R2", three("SUBB3", 0, 2, 1, 0)),
    ("SUBF3 R0,R1,R2", three("SUBF3", 0, 2, 1, 0)),
    ("MPYI3 R0,R1,R2", three("MPYI3", 0, 2, 1, 0)),
    ("CMPI3 R0,R1", three("CMPI3", 0, 0, 1, 0)),
    ("CMPF3 *AR2,R1", three("CMPF3", 2, 0, 1, ind8(24, 2))),
    ("TSTB3 R0,R1", three("TSTB3", 0, 0, 1, 0)),
    # the "3" may be omitted when the operand count decides (13.2 note)
    ("ADDI R1,R2,R3", three("ADDI3", 0, 3, 2, 1)),
    # displacement 0 in the short form is *ARn (mode 11000); 1 is implied
    ("ADDI3 *+AR1(0),R2,R3", three("ADDI3", 2, 3, 2, ind8(24, 1))),
    ("ADDI3 *+AR1(1),R2,R3", three("ADDI3", 2, 3, 2, ind8(0, 1))),
]

CONTROL_CASES = [
    # BR/BRD/CALL/RPTB: 24-bit absolute address (13-84, 13-85)
    ("BR 0x123456", 0x60000000 | 0x123456),
    ("BRD 0x000100", 0x61000000 | 0x100),
    ("CALL 0x000200", 0x62000000 | 0x200),
    ("RPTB 0x000300", 0x64000000 | 0x300),
    # Bcond: register form bit 25 = 0, PC-relative bit 25 = 1, delayed bit 21 (13-79, 13-81)
    ("BU R3", 0x68000000 | 3),
    ("BNZ AR1", 0x68000000 | COND["NZ"] << 16 | R["AR1"]),
    ("BGED R0", 0x68200000 | COND["GE"] << 16 | 0),
    # DBcond: ARn in bits 24-22 (13-95)
    ("DBNZ AR2,R1", 0x6C000000 | 2 << 22 | COND["NZ"] << 16 | 1),
    ("DBD AR7,R0", 0x6C200000 | 7 << 22 | 0),
    # CALLcond (13-86)
    ("CALLLT R5", 0x70000000 | COND["LT"] << 16 | 5),
    # TRAPcond: N + 0x20 in the low bits (13-243)
    ("TRAPU 5", 0x74000000 | 0x25),
    ("TRAPNV 31", 0x74000000 | COND["NV"] << 16 | 0x3F),
    ("TRAP 0", 0x74000020),
    # RETIcond / RETScond
    ("RETIU", 0x78000000), ("RETSGT", 0x78800000 | COND["GT"] << 16), ("RETS", 0x78800000),
    # conditional loads: condition in bits 27-23
    ("LDIGT R1,R2", 0x50000000 | COND["GT"] << 23 | 2 << 16 | 1),
    ("LDFZ *AR0,R3", 0x40000000 | COND["Z"] << 23 | 2 << 21 | 3 << 16 | ind16(24, 0)),
    ("LDIU 5,R1", 0x50000000 | 3 << 21 | 1 << 16 | 5),
    # LDP: bits 23-16 of the address into DP (choice: LDI imm, DP -- docs/assembler.md)
    ("LDP 0x809800", 0x08700000 | 0x80),
    # special instructions
    ("NOP", 0x0C800000), ("NOP *AR3++", 0x0C800000 | 2 << 21 | ind16(4, 3, 1)),
    ("IDLE", 0x06000000), ("SWI", 0x66000000), ("SIGI", 0x16000000),
    ("IACK @0x10", 0x1B000000 | 1 << 21 | 0x10), ("IACK *AR1", 0x1B000000 | 2 << 21 | ind16(24, 1)),
    ("RPTS 99", 0x27 << 23 | 3 << 21 | R["RC"] << 16 | 99),
    ("RPTS AR1", 0x27 << 23 | 0 << 21 | R["RC"] << 16 | R["AR1"]),
    ("PUSH R3", 0x1E << 23 | 1 << 21 | 3 << 16), ("POP AR1", 0x1C << 23 | 1 << 21 | R["AR1"] << 16),
    ("PUSHF R3", 0x1F << 23 | 1 << 21 | 3 << 16), ("POPF R7", 0x1D << 23 | 1 << 21 | 7 << 16),
    ("ROL R1", 0x23 << 23 | 3 << 21 | 1 << 16 | 1), ("ROLC R1", 0x24 << 23 | 3 << 21 | 1 << 16 | 1),
    ("ROR R1", 0x25 << 23 | 3 << 21 | 1 << 16 | 0xFFFF),
    ("RORC R1", 0x26 << 23 | 3 << 21 | 1 << 16 | 0xFFFF),
]


def par(op5, dst1, src1, src3, dst2, src2):
    """Parallel with store (figure 13-4): 11 ooooo ddd sss rrr dst2 src2."""
    return 3 << 30 | op5 << 25 | dst1 << 22 | src1 << 19 | src3 << 16 | dst2 << 8 | src2


PARALLEL_CASES = [
    ("STF R0,*AR0++ || STF R1,*AR1++", par(0, 0, 0, 1, ind8(4, 1), ind8(4, 0))),
    ("STI R0,*AR0 || STI R1,*AR1", par(1, 0, 0, 1, ind8(24, 1), ind8(24, 0))),
    ("LDF *AR0,R0 || LDF *AR1,R1", par(2, 0, 1, 0, ind8(24, 1), ind8(24, 0))),
    ("LDI *AR0,R0 || LDI *AR1,R1", par(3, 0, 1, 0, ind8(24, 1), ind8(24, 0))),
    ("ABSF *AR0,R2 || STF R3,*AR1", par(4, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("ABSI *AR0,R2 || STI R3,*AR1", par(5, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("ADDF3 R1,*AR0,R2 || STF R3,*AR1", par(6, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("ADDI3 R1,*AR0,R2 || STI R3,*AR1", par(7, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("AND3 R1,*AR0,R2 || STI R3,*AR1", par(8, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("ASH3 R1,*AR0,R2 || STI R3,*AR1", par(9, 2, 1, 3, ind8(24, 1), ind8(24, 0))),  # 13-76
    ("FIX *AR0,R2 || STI R3,*AR1", par(10, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("FLOAT *AR0,R2 || STF R3,*AR1", par(11, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("LDF *AR0,R2 || STF R3,*AR1", par(12, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("LDI *AR0,R2 || STI R3,*AR1", par(13, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("LSH3 R1,*AR0,R2 || STI R3,*AR1", par(14, 2, 1, 3, ind8(24, 1), ind8(24, 0))),  # 13-141
    ("MPYF3 R1,*AR0,R2 || STF R3,*AR1", par(15, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("MPYI3 R1,*AR0,R2 || STI R3,*AR1", par(16, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("NEGF *AR0,R2 || STF R3,*AR1", par(17, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("NEGI *AR0,R2 || STI R3,*AR1", par(18, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("NOT *AR0,R2 || STI R3,*AR1", par(19, 2, 0, 3, ind8(24, 1), ind8(24, 0))),
    ("OR3 R1,*AR0,R2 || STI R3,*AR1", par(20, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("SUBF3 R1,*AR0,R2 || STF R3,*AR1", par(21, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("SUBI3 R1,*AR0,R2 || STI R3,*AR1", par(22, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    ("XOR3 R1,*AR0,R2 || STI R3,*AR1", par(23, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
    # either half first, and the commutative sources in either order
    ("STF R3,*AR1 || MPYF3 *AR0,R1,R2", par(15, 2, 1, 3, ind8(24, 1), ind8(24, 0))),
]


def mpy(op2, p, d1, d2, src1, src2, src3, src4):
    """Multiply || add/subtract (figure 13-3): 10 oo PP d1 d2 src1 src2 src3 src4."""
    return 2 << 30 | op2 << 26 | p << 24 | d1 << 23 | d2 << 22 | src1 << 19 | src2 << 16 | \
        src3 << 8 | src4


A0, A1 = ind8(4, 0), ind8(4, 1)   # *AR0++(1), *AR1++(1)
MPY_CASES = [
    # P=00: src3*src4, src1+-src2; P=01: src3*src1, src4+-src2;
    # P=10: src1*src2, src3+-src4; P=11: src3*src1, src2+-src4 (figure 13-3 and the P table).
    # The subtraction computes second written - first written (like SUBF3).
    ("MPYF3 *AR0++,*AR1++,R0 || ADDF3 R2,R3,R2", mpy(0, 0, 0, 0, 3, 2, A1, A0)),
    ("MPYF3 *AR0++,*AR1++,R0 || SUBF3 R2,R3,R2", mpy(1, 0, 0, 0, 3, 2, A1, A0)),   # R3 - R2
    ("MPYF3 *AR0++,R4,R1 || ADDF3 R5,*AR1++,R3", mpy(0, 1, 1, 1, 4, 5, A0, A1)),
    ("MPYF3 *AR0++,R4,R1 || SUBF3 R5,*AR1++,R3", mpy(1, 1, 1, 1, 4, 5, A0, A1)),   # *AR1 - R5
    ("MPYF3 R4,R5,R0 || ADDF3 *AR0++,*AR1++,R2", mpy(0, 2, 0, 0, 5, 4, A1, A0)),
    ("MPYF3 R4,R5,R0 || SUBF3 *AR0++,*AR1++,R2", mpy(1, 2, 0, 0, 5, 4, A1, A0)),   # *AR1 - *AR0
    ("MPYF3 *AR0++,R4,R0 || ADDF3 *AR1++,R5,R2", mpy(0, 3, 0, 0, 4, 5, A0, A1)),
    ("MPYF3 *AR0++,R4,R0 || SUBF3 *AR1++,R5,R2", mpy(1, 3, 0, 0, 4, 5, A0, A1)),   # R5 - *AR1
    ("MPYI3 *AR0++,*AR1++,R0 || ADDI3 R2,R3,R2", mpy(2, 0, 0, 0, 3, 2, A1, A0)),
    ("MPYI3 *AR0++,*AR1++,R0 || SUBI3 R2,R3,R2", mpy(3, 0, 0, 0, 3, 2, A1, A0)),
    # the multiply's sources commute; the parts may be swapped; the 3 may be omitted
    ("MPYF3 R4,*AR0++,R0 || ADDF3 *AR1++,R5,R2", mpy(0, 3, 0, 0, 4, 5, A0, A1)),
    ("ADDF3 R2,R3,R2 || MPYF3 *AR0++,*AR1++,R0", mpy(0, 0, 0, 0, 3, 2, A1, A0)),
    ("MPYF *AR0++,*AR1++,R0 || ADDF R2,R3,R2", mpy(0, 0, 0, 0, 3, 2, A1, A0)),
]


@pytest.mark.parametrize("line,word", GENERAL_CASES + CONTROL_CASES + PARALLEL_CASES + MPY_CASES,
                         ids=lambda v: v if isinstance(v, str) else f"{v:08X}")
def test_encoding(line, word):
    assert one(line) == word, f"{line}: got {one(line):08X}, guide says {word:08X}"


@pytest.mark.parametrize("line,field", INDIRECT_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_indirect_modes(line, field):
    assert one(line) == gen("LDI", 2, 0, field)


@pytest.mark.parametrize("line,word", THREE_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_three_operand(line, word):
    assert one(line) == word


def test_pc_relative_branches():
    # displacement from PC+1 (standard) or PC+3 (delayed) -- 13-79, 13-81, 13-95
    w = words("""
start:  NOP
        BNZ start
        BNZD start
        DBU AR1,start
        DBUD AR1,start
        CALLGE start
        BU later
later:  NOP
""")
    assert w[1] == 0x6A000000 | COND["NZ"] << 16 | (0 - 2) & 0xFFFF
    assert w[2] == 0x6A200000 | COND["NZ"] << 16 | (0 - 5) & 0xFFFF
    assert w[3] == 0x6E000000 | 1 << 22 | (0 - 4) & 0xFFFF
    assert w[4] == 0x6E200000 | 1 << 22 | (0 - 7) & 0xFFFF
    assert w[5] == 0x72000000 | COND["GE"] << 16 | (0 - 6) & 0xFFFF
    assert w[6] == 0x6A000000 | 0   # to the next instruction: displacement 0


@pytest.mark.parametrize("cond", sorted(COND))
def test_every_condition_code(cond):
    assert one(f"B{cond} R0") == 0x68000000 | COND[cond] << 16
    assert one(f"LDF{cond} R1,R2") == 0x40000000 | COND[cond] << 23 | 2 << 16 | 1
