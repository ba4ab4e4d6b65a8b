"""The TMS320C30 instruction-set table.

This module is the single description of the machine's instruction words.  The
assembler (:mod:`rapsim.asm.encoder`), the disassembler
(:mod:`rapsim.asm.disasm`) and the simulator's pre-decoder (generated into C
by :mod:`rapsim.asm.isagen` at build time) all read it; no other module knows
a bit position or an opcode value.  This mirrors binutils, whose opcode table
serves both gas and objdump.

References are to the TMS320C3x User's Guide (TI, SPRU031), chapter 13
("Assembly Language Instructions", one page per instruction with its opcode
figure) and chapter 6 ("Addressing Modes").

Vocabulary
----------
*field*
    a named bit range of the instruction word (:data:`FIELDS`).
*operand kind*
    how one assembler operand is written and placed in a field
    (:class:`Kind`).
*form*
    one encoding of one mnemonic: fixed opcode bits, the mask of bits the
    opcode fixes, and the operands in assembler (syntax) order, each with its
    kind and field (:class:`Form`).  A mnemonic has one form per addressing
    mode (the G field of the general format, the T field of the 3-operand
    format, the P field of the parallel multiply/add format, ...).
*op*
    the semantic operation a form performs (``"ADDI"`` for ``ADDI`` and
    ``ADDI3`` alike); the simulator dispatches on it.
*timing class*
    the pipeline rule a form follows (see ``docs/machine-model.md``).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterable

# ---------------------------------------------------------------------------
# Registers (guide 3.1, table 3-1): the 28 CPU registers and their numbers as
# they appear in register fields.
# ---------------------------------------------------------------------------

REGISTER_NAMES: tuple[str, ...] = (
    "R0", "R1", "R2", "R3", "R4", "R5", "R6", "R7",
    "AR0", "AR1", "AR2", "AR3", "AR4", "AR5", "AR6", "AR7",
    "DP", "IR0", "IR1", "BK", "SP", "ST", "IE", "IF", "IOF", "RS", "RE", "RC",
)
REG: dict[str, int] = {name: num for num, name in enumerate(REGISTER_NAMES)}
NUM_REGISTERS = len(REGISTER_NAMES)  # 28
REG_AR0 = REG["AR0"]
REG_DP, REG_IR0, REG_IR1, REG_BK, REG_SP, REG_ST = (
    REG["DP"], REG["IR0"], REG["IR1"], REG["BK"], REG["SP"], REG["ST"])
REG_IE, REG_IF, REG_IOF, REG_RS, REG_RE, REG_RC = (
    REG["IE"], REG["IF"], REG["IOF"], REG["RS"], REG["RE"], REG["RC"])

#: Other names of registers: ``F0``-``F7`` for R0-R7, which the GNU tic4x
#: assembler accepts wherever a register is (its register table,
#: include/opcode/tic4x.h); TI's syntax has only ``Rn``.  The disassembler
#: prints ``Rn``.  docs/assembler.md, "Extensions".
REGISTER_ALIASES: dict[str, int] = {f"F{i}": i for i in range(8)}

#: Register names of the TMS320C4x that do not exist on the C30; the
#: assembler names them in its error rather than calling them unknown.
C4X_ONLY_REGISTERS = frozenset(
    {"R8", "R9", "R10", "R11", "F8", "F9", "F10", "F11", "IVTP", "TVTP", "DIE", "IIE", "IIF"})

# ---------------------------------------------------------------------------
# Condition codes (guide 13.3, table 13-9).  code -> (canonical name, aliases,
# flag test).  The flag test is documentation for the reader and the input
# of the simulator's condition table generator.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    code: int
    name: str
    aliases: tuple[str, ...]
    test: str  # a C expression over the flags c, v, z, n, uf, lv, luf


CONDITIONS: tuple[Condition, ...] = (
    Condition(0x00, "U", (), "1"),
    Condition(0x01, "LO", ("C",), "c"),
    Condition(0x02, "LS", (), "c || z"),
    Condition(0x03, "HI", (), "!c && !z"),
    Condition(0x04, "HS", ("NC",), "!c"),
    Condition(0x05, "EQ", ("Z",), "z"),
    Condition(0x06, "NE", ("NZ",), "!z"),
    Condition(0x07, "LT", ("N",), "n"),
    Condition(0x08, "LE", (), "n || z"),
    Condition(0x09, "GT", ("P",), "!n && !z"),
    Condition(0x0A, "GE", ("NN",), "!n"),
    Condition(0x0C, "NV", (), "!v"),
    Condition(0x0D, "V", (), "v"),
    Condition(0x0E, "NUF", (), "!uf"),
    Condition(0x0F, "UF", (), "uf"),
    Condition(0x10, "NLV", (), "!lv"),
    Condition(0x11, "LV", (), "lv"),
    Condition(0x12, "NLUF", (), "!luf"),
    Condition(0x13, "LUF", (), "luf"),
    Condition(0x14, "ZUF", (), "z || uf"),
)
COND_BY_CODE: dict[int, Condition] = {c.code: c for c in CONDITIONS}
COND_CODE: dict[str, int] = {}
for _c in CONDITIONS:
    COND_CODE[_c.name] = _c.code
    for _a in _c.aliases:
        COND_CODE[_a] = _c.code

# ---------------------------------------------------------------------------
# Indirect addressing (guide 6.3, table 6-1 / 6-2): the 5-bit modification
# field.  Each mode: how the address is formed from ARn and the index (a
# displacement, IR0 or IR1), and whether ARn is updated.
# ---------------------------------------------------------------------------


class Index(enum.Enum):
    DISP = "disp"
    IR0 = "IR0"
    IR1 = "IR1"
    NONE = "none"


@dataclass(frozen=True)
class IndirectMode:
    code: int
    pre: str        # syntax before ARn: '', '+', '-', '++', '--'
    post: str       # syntax after ARn: '', '++', '--'
    index: Index
    circular: bool = False
    bitrev: bool = False

    @property
    def sign(self) -> int:
        """+1 if the index is added, -1 if subtracted, 0 if none."""
        s = self.pre or self.post
        return 0 if not s else (1 if s[0] == "+" else -1)

    @property
    def premodify(self) -> bool:
        """The address is ARn +/- index (else ARn itself)."""
        return self.pre != ""

    @property
    def update(self) -> bool:
        """ARn is written back (pre-modify with update, or post-modify)."""
        return self.pre in ("++", "--") or self.post != ""


def _build_indirect_modes() -> tuple[IndirectMode, ...]:
    modes = []
    shapes = [("+", ""), ("-", ""), ("++", ""), ("--", ""),
              ("", "++"), ("", "--"), ("", "++%"), ("", "--%")]
    for base, index in ((0, Index.DISP), (8, Index.IR0), (16, Index.IR1)):
        for i, (pre, post) in enumerate(shapes):
            circ = post.endswith("%")
            modes.append(IndirectMode(base + i, pre, post.rstrip("%"), index,
                                      circular=circ))
    modes.append(IndirectMode(24, "", "", Index.NONE))
    modes.append(IndirectMode(25, "", "++", Index.IR0, bitrev=True))
    return tuple(modes)


INDIRECT_MODES: tuple[IndirectMode, ...] = _build_indirect_modes()
assert [m.code for m in INDIRECT_MODES] == list(range(26))
MODE_ARN = 24          # *ARn
NUM_INDIRECT_MODES = 26

_MODE_BY_SHAPE = {(m.pre, m.post, m.index, m.circular, m.bitrev): m.code
                  for m in INDIRECT_MODES}


def indirect_mode_code(pre: str, post: str, index: Index, circular: bool = False,
                       bitrev: bool = False) -> int | None:
    """The modification code for an indirect operand's shape, or None."""
    return _MODE_BY_SHAPE.get((pre, post, index, circular, bitrev))


def format_indirect(code: int, ar: int, disp: int | None) -> str:
    """TI syntax of an indirect operand (disp is ignored unless indexed by a
    displacement; a displacement of 1 is written explicitly)."""
    m = INDIRECT_MODES[code]
    if m.index is Index.DISP:
        idx = f"({disp})"
    elif m.index is Index.NONE:
        idx = ""
    else:
        idx = f"({m.index.value})"
    suffix = ("%" if m.circular else "") + ("B" if m.bitrev else "")
    return f"*{m.pre}AR{ar}{m.post}{idx}{suffix}"


# ---------------------------------------------------------------------------
# Fields of the instruction word: name -> (lowest bit, width).
# ---------------------------------------------------------------------------

FIELDS: dict[str, tuple[int, int]] = {
    # general and 3-operand formats (13.2, figures 13-1 .. 13-3)
    "dst": (16, 5),
    "src": (0, 16),        # general source: register / direct / indirect / immediate
    "src1": (8, 8),        # 3-operand src1
    "src2": (0, 8),        # 3-operand src2
    # conditional loads, branches, calls, traps
    "lcond": (23, 5),      # LDFcond / LDIcond
    "bcond": (16, 5),      # Bcond, DBcond, CALLcond, TRAPcond, RETIcond, RETScond
    "addr24": (0, 24),     # BR, BRD, CALL, RPTB
    "disp16": (0, 16),     # PC-relative displacement or register (low 5 bits)
    "dbar": (22, 3),       # DBcond's ARn
    "trapn": (0, 5),
    # parallel formats
    "pd1": (23, 1),        # multiply/add dst1: R0 or R1
    "pd2": (22, 1),        # multiply/add dst2: R2 or R3
    "pr22": (22, 3),       # register in bits 24-22
    "pr19": (19, 3),       # register in bits 21-19
    "pr16": (16, 3),       # register in bits 18-16
    "pind8": (8, 8),       # indirect in bits 15-8
    "pind0": (0, 8),       # indirect in bits 7-0
}


class Kind(enum.Enum):
    """How an operand is written and placed in its field."""
    REG = "reg"            # any CPU register R0..RC (5 bits)
    FREG = "freg"          # R0..R7 in a 5-bit register field (float operands)
    DIR = "dir"            # @expr: 16-bit direct address (with DP)
    IND = "ind"            # indirect, 16-bit form: mod(5) AR(3) disp(8)
    IND8 = "ind8"          # indirect, 8-bit form: mod(5) AR(3); disp 0/1, IR0, IR1
    SIMM = "simm"          # signed 16-bit immediate
    UIMM = "uimm"          # unsigned 16-bit immediate
    FIMM = "fimm"          # short-float immediate (16-bit)
    ADDR24 = "addr24"      # absolute 24-bit program address
    PCREL = "pcrel"        # 16-bit PC-relative displacement to a label
    ARN = "arn"            # AR0..AR7 by number (3 bits)
    TRAPN = "trapn"        # trap number 0..31
    PREG = "preg"          # R0..R7 in a 3-bit field (parallel forms)
    R01 = "r01"            # R0 or R1 in a 1-bit field
    R23 = "r23"            # R2 or R3 in a 1-bit field
    DPIMM = "dpimm"        # LDP: bits 23..16 of an address into a 16-bit immediate


#: Kinds written as a register name.
REGISTER_KINDS = frozenset({Kind.REG, Kind.FREG, Kind.ARN, Kind.PREG, Kind.R01, Kind.R23})
#: Kinds written as an indirect operand ``*...``.
INDIRECT_KINDS = frozenset({Kind.IND, Kind.IND8})
#: Kinds written as an expression (immediates, addresses, labels).
VALUE_KINDS = frozenset({Kind.SIMM, Kind.UIMM, Kind.FIMM, Kind.ADDR24, Kind.PCREL,
                         Kind.TRAPN, Kind.DPIMM})


@dataclass(frozen=True)
class Operand:
    kind: Kind
    field: str
    store: bool = False     # a memory operand that is written (stores)


class Timing(enum.Enum):
    """Pipeline rule classes; cycle numbers live in rapsim's timing module."""
    STD = "std"            # one cycle in the steady state
    BRANCH = "branch"      # standard branch (BR, Bcond): pipeline flushed
    BRANCH_D = "branch_d"  # delayed branch: 3 delay slots
    DB = "db"              # DBcond
    DB_D = "db_d"          # DBcondD
    CALL = "call"          # CALL
    CALLC = "callc"        # CALLcond
    RETS = "rets"          # RETScond
    RETI = "reti"          # RETIcond
    TRAP = "trap"          # TRAPcond
    RPTS = "rpts"          # RPTS
    RPTB = "rptb"          # RPTB
    IDLE = "idle"          # IDLE
    SWI = "swi"            # SWI (software interrupt)
    INTERLOCK = "interlock"  # LDFI, LDII, STFI, STII, SIGI (bus lock)


@dataclass(frozen=True)
class Form:
    """One encoding of one mnemonic.

    ``mnemonic`` is the canonical spelling; for conditional instructions it
    contains ``{c}`` where the condition name goes (``"B{c}D"``), and
    ``cond_field`` names the field holding the condition code.  Parallel
    forms have ``parts``: the two mnemonics and how many of ``operands``
    belong to the first part.
    """
    mnemonic: str
    opcode: int
    mask: int
    operands: tuple[Operand, ...]
    op: str
    timing: Timing = Timing.STD
    cond_field: str | None = None
    parts: tuple[str, str] | None = None
    split: int = 0                   # operands of the first parallel part
    commutative: tuple[bool, bool] = (False, False)  # per part (or [0] for single)
    #: per part (or [0] for single): the destination, the part's last operand,
    #: may be omitted and then doubles as the part's second written source
    #: (a GNU tic4x extension of TI's syntax: ``ADDI3 *AR1, R2`` is
    #: ``ADDI3 *AR1, R2, R2``); the word is that of the full form.
    dst_optional: tuple[bool, bool] = (False, False)
    float_result: bool = False
    pcrel_base: int = 1              # PC-relative displacement base (1, or 3 delayed)
    index: int = field(default=-1, compare=False)

    @property
    def is_parallel(self) -> bool:
        return self.parts is not None


# ---------------------------------------------------------------------------
# Form builders: one per encoding family of the guide.
# ---------------------------------------------------------------------------

_G_SHIFT = 21
G_REG, G_DIR, G_IND, G_IMM = 0, 1, 2, 3
_MASK_G = 0xFFE00000          # opcode + G fixed; dst and src free


def _op(kind: Kind, fld: str, store: bool = False) -> Operand:
    return Operand(kind, fld, store)


def _general(name: str, opc6: int, src_imm: Kind | None, *, fsrc: bool = False,
             fdst: bool = False, modes: Iterable[int] = (G_REG, G_DIR, G_IND, G_IMM),
             op: str | None = None, timing: Timing = Timing.STD,
             float_result: bool = False) -> list[Form]:
    """General 2-operand format (13.2, figure 13-1):
    ``000 oooooo GG ddddd ssssssssssssssss``; syntax ``name src, dst``."""
    forms = []
    base = opc6 << 23
    src_kinds = {G_REG: Kind.FREG if fsrc else Kind.REG, G_DIR: Kind.DIR,
                 G_IND: Kind.IND, G_IMM: src_imm}
    dst = _op(Kind.FREG if fdst else Kind.REG, "dst")
    for g in modes:
        forms.append(Form(name, base | g << _G_SHIFT, _MASK_G,
                          (_op(src_kinds[g], "src"), dst), op or name, timing,
                          float_result=float_result))
    return forms


def _store(name: str, opc6: int, *, fsrc: bool, timing: Timing = Timing.STD) -> list[Form]:
    """Stores (STF, STI, ...): general format with G = direct or indirect and
    the source register in the dst field; syntax ``name src, dst``."""
    base = opc6 << 23
    reg = _op(Kind.FREG if fsrc else Kind.REG, "dst")
    return [Form(name, base | G_DIR << _G_SHIFT, _MASK_G, (reg, _op(Kind.DIR, "src", True)), name, timing),
            Form(name, base | G_IND << _G_SHIFT, _MASK_G, (reg, _op(Kind.IND, "src", True)), name, timing)]


def _three(name: str, opc5: int, *, fl: bool, nodst: bool = False,
           commutative: bool = False, op: str | None = None) -> list[Form]:
    """3-operand format (13.2, figure 13-2): ``001 ooooo TT ddddd src1 src2``
    with syntax ``name src2, src1[, dst]``; T bit 21 = src1 indirect, T bit 22
    = src2 indirect (SUBI3, 13-235)."""
    forms = []
    base = 0x20000000 | opc5 << 23
    rk = Kind.FREG if fl else Kind.REG
    for t in range(4):
        s1 = _op(Kind.IND8 if t & 1 else rk, "src1")
        s2 = _op(Kind.IND8 if t & 2 else rk, "src2")
        ops = (s2, s1) if nodst else (s2, s1, _op(rk, "dst"))
        mask = 0xFFFF0000 if nodst else _MASK_G   # CMPF3/CMPI3/TSTB3: dst field 0
        forms.append(Form(name, base | t << _G_SHIFT, mask, ops, op or name[:-1],
                          commutative=(commutative, False), float_result=fl and not nodst,
                          dst_optional=(not nodst, False)))
    return forms


def _cond_load(name: str, top4: int, *, fl: bool) -> list[Form]:
    """LDFcond / LDIcond (13-124, 13-130): ``tttt ccccc GG ddddd src``."""
    forms = []
    imm = Kind.FIMM if fl else Kind.SIMM
    rk = Kind.FREG if fl else Kind.REG
    kinds = {G_REG: rk, G_DIR: Kind.DIR, G_IND: Kind.IND, G_IMM: imm}
    for g in (G_REG, G_DIR, G_IND, G_IMM):
        forms.append(Form(name, top4 << 28 | g << _G_SHIFT, 0xF0600000,
                          (_op(kinds[g], "src"), _op(rk, "dst")), name.replace("{c}", "c"),
                          cond_field="lcond", float_result=fl))
    return forms


# Parallel forms ------------------------------------------------------------

_MASK_PAR = 0xFE000000


def _par_store(first: str, second: str, opc: int, *, fl: bool, three: bool = False,
               commutative: bool = False) -> list[Form]:
    """Parallel operation with a store (13.2, figure 13-4):
    ``11 ooooo ddd sss rrr dst2 src2`` -- bits 24-22 dst1, 21-19 src1,
    18-16 src3 (the register stored), 15-8 dst2 (indirect), 7-0 src2
    (indirect).  Syntax ``first [src1,] src2, dst1 || second src3, dst2``.
    """
    store = _op(Kind.PREG, "pr16")
    dst2 = _op(Kind.IND8, "pind8", True)
    src2 = _op(Kind.IND8, "pind0")
    dst1 = _op(Kind.PREG, "pr22")
    if three:
        part1 = (_op(Kind.PREG, "pr19"), src2, dst1)
        mask = _MASK_PAR
    else:
        part1 = (src2, dst1)
        mask = _MASK_PAR | 0x00380000  # src1 field unused: must be zero
    return [Form(f"{first}||{second}", opc, mask, part1 + (store, dst2),
                 f"{first.rstrip('3')}||{second}", parts=(first, second),
                 split=len(part1), commutative=(commutative, False), float_result=fl,
                 dst_optional=(three, False))]


def _par_loads(name: str, opc: int) -> list[Form]:
    """LDF||LDF and LDI||LDI (13-127, 13-133): bits 24-22 dst2, 21-19 dst1,
    15-8 src1, 7-0 src2; syntax ``name src2, dst2 || name src1, dst1``."""
    return [Form(f"{name}||{name}", opc, _MASK_PAR | 0x00070000,
                 (_op(Kind.IND8, "pind0"), _op(Kind.PREG, "pr22"),
                  _op(Kind.IND8, "pind8"), _op(Kind.PREG, "pr19")),
                 f"{name}||{name}", parts=(name, name), split=2,
                 float_result=name == "LDF")]


def _par_stores(name: str, opc: int) -> list[Form]:
    """STF||STF and STI||STI (13-221, 13-229): bits 24-22 src2, 18-16 src1,
    15-8 dst1, 7-0 dst2; syntax ``name src2, dst2 || name src1, dst1``."""
    return [Form(f"{name}||{name}", opc, _MASK_PAR | 0x00380000,
                 (_op(Kind.PREG, "pr22"), _op(Kind.IND8, "pind0", True),
                  _op(Kind.PREG, "pr16"), _op(Kind.IND8, "pind8", True)),
                 f"{name}||{name}", parts=(name, name), split=2)]


# Multiply || add/subtract (13.2, figure 13-3):
#   10 oo PP d1 d2 src1(21-19) src2(18-16) src3(15-8) src4(7-0)
# src1/src2 are registers R0-R7, src3/src4 indirect.  The P field decides
# which sources feed which operation (multiply / add or subtract):
#   P=00: src3*src4, src1+-src2    P=01: src3*src1, src4+-src2
#   P=10: src1*src2, src3+-src4    P=11: src3*src1, src2+-src4
# Syntax: MPYx3 srcA, srcB, dst1 || ADDx3/SUBx3 srcC, srcD, dst2 (dst1 =
# R0/R1, dst2 = R2/R3); the subtraction computes srcD - srcC, as every C30
# subtraction computes "second written operand minus first".  The fields of
# (srcA, srcB, srcC, srcD) for each P, in the operand order of the GNU
# assembler's table (which agrees with the guide's subtraction direction):
_MPY_ADD_P = {
    0: ("pind0", "pind8", "pr16", "pr19"),
    1: ("pind8", "pr19", "pr16", "pind0"),
    2: ("pr16", "pr19", "pind0", "pind8"),
    3: ("pind8", "pr19", "pind0", "pr16"),
}


def _par_mpy(second: str, opc: int, *, fl: bool) -> list[Form]:
    forms = []
    mpy = "MPYF3" if fl else "MPYI3"
    for p, fields in _MPY_ADD_P.items():
        srcs = [_op(Kind.IND8 if f.startswith("pind") else Kind.PREG, f) for f in fields]
        ops = (srcs[0], srcs[1], _op(Kind.R01, "pd1"), srcs[2], srcs[3], _op(Kind.R23, "pd2"))
        forms.append(Form(f"{mpy}||{second}", opc | p << 24, 0xFF000000, ops,
                          f"{mpy[:-1]}||{second[:-1]}", parts=(mpy, second), split=3,
                          commutative=(True, second.startswith("ADD")), float_result=fl,
                          dst_optional=(True, True)))
    return forms


# Branches, calls, returns, traps -------------------------------------------

def _bcond(name: str, opc: int, timing: Timing, *, pcrel_base: int) -> list[Form]:
    """Bcond, BcondD, CALLcond (13-28, 13-38): bit 25 = 1 PC-relative
    displacement, 0 register (bits 4-0); condition in bits 20-16."""
    return [Form(name, opc, 0xFFE0FFE0, (_op(Kind.REG, "disp16"),), name.replace("{c}", "c"),
                 timing, cond_field="bcond", pcrel_base=pcrel_base),
            Form(name, opc | 0x02000000, 0xFFE00000, (_op(Kind.PCREL, "disp16"),),
                 name.replace("{c}", "c"), timing, cond_field="bcond", pcrel_base=pcrel_base)]


def _dbcond(name: str, opc: int, timing: Timing, pcrel_base: int) -> list[Form]:
    """DBcond, DBcondD (13-52): ARn in bits 24-22."""
    return [Form(name, opc, 0xFE20FFE0, (_op(Kind.ARN, "dbar"), _op(Kind.REG, "disp16")),
                 name.replace("{c}", "c"), timing, cond_field="bcond", pcrel_base=pcrel_base),
            Form(name, opc | 0x02000000, 0xFE200000, (_op(Kind.ARN, "dbar"), _op(Kind.PCREL, "disp16")),
                 name.replace("{c}", "c"), timing, cond_field="bcond", pcrel_base=pcrel_base)]


def _build_forms() -> list[Form]:
    F: list[Form] = []
    S, U, FL = Kind.SIMM, Kind.UIMM, Kind.FIMM

    # --- general 2-operand instructions, by opcode (13.2, table 13-1) -----
    F += _general("ABSF", 0x00, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("ABSI", 0x01, S)
    F += _general("ADDC", 0x02, S)
    F += _general("ADDF", 0x03, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("ADDI", 0x04, S)
    F += _general("AND", 0x05, U)
    F += _general("ANDN", 0x06, U)
    F += _general("ASH", 0x07, S)
    F += _general("CMPF", 0x08, FL, fsrc=True, fdst=True)
    F += _general("CMPI", 0x09, S)
    F += _general("FIX", 0x0A, FL, fsrc=True)
    F += _general("FLOAT", 0x0B, S, fdst=True, float_result=True)
    F.append(Form("IDLE", 0x06000000, 0xFFFFFFFF, (), "IDLE", Timing.IDLE))
    F += _general("LDE", 0x0D, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("LDF", 0x0E, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("LDFI", 0x0F, None, fdst=True, modes=(G_DIR, G_IND), timing=Timing.INTERLOCK,
                  float_result=True)
    F += _general("LDI", 0x10, S)
    # LDP addr: loads DP with bits 23-16 of the address addr (guide 6.3 and
    # the LDP page of chapter 13), encoded as "LDI imm, DP" (0x087000pp).
    # binutils emits the C4x "LDIU imm, DP" word (0x507000pp) instead, which a
    # C30 executes identically (LDIcond with condition U).  A constant 1..255
    # (a page number, not an address) is an error: encoder.py,
    # docs/assembler.md "LDP".
    F.append(Form("LDP", 0x10 << 23 | G_IMM << _G_SHIFT | REG_DP << 16, 0xFFFF0000,
                  (_op(Kind.DPIMM, "src"),), "LDI"))
    F += _general("LDII", 0x11, None, modes=(G_DIR, G_IND), timing=Timing.INTERLOCK)
    F += _general("LDM", 0x12, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("LSH", 0x13, S)
    F += _general("MPYF", 0x14, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("MPYI", 0x15, S)
    F += _general("NEGB", 0x16, S)
    F += _general("NEGF", 0x17, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("NEGI", 0x18, S)
    # NOP (13-171): no operand, or an indirect operand whose ARn is updated.
    F.append(Form("NOP", 0x0C800000, 0xFFFFFFFF, (), "NOP"))
    F.append(Form("NOP", 0x0C800000 | G_IND << _G_SHIFT, 0xFFFF0000, (_op(Kind.IND, "src"),), "NOP"))
    F.append(Form("NOP", 0x0C800000, 0xFFFF0000, (_op(Kind.REG, "src"),), "NOP"))
    F += _general("NORM", 0x1A, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("NOT", 0x1B, U)
    # POP/POPF/PUSH/PUSHF (13-180..13-186): G = 01, register in the dst field.
    for name, opc6, fl in (("POP", 0x1C, False), ("POPF", 0x1D, True),
                           ("PUSH", 0x1E, False), ("PUSHF", 0x1F, True)):
        F.append(Form(name, opc6 << 23 | G_DIR << _G_SHIFT, 0xFFE0FFFF,
                      (_op(Kind.FREG if fl else Kind.REG, "dst"),), name,
                      float_result=fl and name.startswith("POP")))
    F += _general("OR", 0x20, U)
    F += _general("RND", 0x22, FL, fsrc=True, fdst=True, float_result=True)
    # Rotates (13-196..13-202): immediate form with a fixed count of +1 / -1.
    for name, opc6, count in (("ROL", 0x23, 0x0001), ("ROLC", 0x24, 0x0001),
                              ("ROR", 0x25, 0xFFFF), ("RORC", 0x26, 0xFFFF)):
        F.append(Form(name, opc6 << 23 | G_IMM << _G_SHIFT | count, 0xFFE0FFFF,
                      (_op(Kind.REG, "dst"),), name))
    # RPTS (13-208): general format, dst field = RC.
    for g, k in ((G_REG, Kind.REG), (G_DIR, Kind.DIR), (G_IND, Kind.IND), (G_IMM, Kind.UIMM)):
        F.append(Form("RPTS", 0x27 << 23 | g << _G_SHIFT | REG_RC << 16, 0xFFFF0000,
                      (_op(k, "src"),), "RPTS", Timing.RPTS))
    F += _store("STF", 0x28, fsrc=True)
    F += _store("STFI", 0x29, fsrc=True, timing=Timing.INTERLOCK)
    F += _store("STI", 0x2A, fsrc=False)
    F += _store("STII", 0x2B, fsrc=False, timing=Timing.INTERLOCK)
    # SIGI (guide 7-13, table 7-2): interlocked signal, no operands.
    F.append(Form("SIGI", 0x16000000, 0xFFFFFFFF, (), "SIGI", Timing.INTERLOCK))
    F += _general("SUBB", 0x2D, S)
    F += _general("SUBC", 0x2E, S)
    F += _general("SUBF", 0x2F, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("SUBI", 0x30, S)
    F += _general("SUBRB", 0x31, S)
    F += _general("SUBRF", 0x32, FL, fsrc=True, fdst=True, float_result=True)
    F += _general("SUBRI", 0x33, S)
    F += _general("TSTB", 0x34, U)
    F += _general("XOR", 0x35, U)
    # IACK (13-111): direct or indirect operand, dst field 0.
    F.append(Form("IACK", 0x36 << 23 | G_DIR << _G_SHIFT, 0xFFFF0000, (_op(Kind.DIR, "src"),), "IACK"))
    F.append(Form("IACK", 0x36 << 23 | G_IND << _G_SHIFT, 0xFFFF0000, (_op(Kind.IND, "src"),), "IACK"))

    # --- 3-operand instructions (13.2, table 13-2) ------------------------
    F += _three("ADDC3", 0x00, fl=False, commutative=True)
    F += _three("ADDF3", 0x01, fl=True, commutative=True)
    F += _three("ADDI3", 0x02, fl=False, commutative=True)
    F += _three("AND3", 0x03, fl=False, commutative=True)
    F += _three("ANDN3", 0x04, fl=False)
    F += _three("ASH3", 0x05, fl=False)
    F += _three("CMPF3", 0x06, fl=True, nodst=True)
    F += _three("CMPI3", 0x07, fl=False, nodst=True)
    F += _three("LSH3", 0x08, fl=False)
    F += _three("MPYF3", 0x09, fl=True, commutative=True)
    F += _three("MPYI3", 0x0A, fl=False, commutative=True)
    F += _three("OR3", 0x0B, fl=False, commutative=True)
    F += _three("SUBB3", 0x0C, fl=False)
    F += _three("SUBF3", 0x0D, fl=True)
    F += _three("SUBI3", 0x0E, fl=False)
    F += _three("TSTB3", 0x0F, fl=False, nodst=True, commutative=True)
    F += _three("XOR3", 0x10, fl=False, commutative=True)

    # --- conditional loads ------------------------------------------------
    F += _cond_load("LDF{c}", 0x4, fl=True)
    F += _cond_load("LDI{c}", 0x5, fl=False)

    # --- program control --------------------------------------------------
    F.append(Form("BR", 0x60000000, 0xFF000000, (_op(Kind.ADDR24, "addr24"),), "BR", Timing.BRANCH))
    F.append(Form("BRD", 0x61000000, 0xFF000000, (_op(Kind.ADDR24, "addr24"),), "BR", Timing.BRANCH_D))
    F.append(Form("CALL", 0x62000000, 0xFF000000, (_op(Kind.ADDR24, "addr24"),), "CALL", Timing.CALL))
    F.append(Form("RPTB", 0x64000000, 0xFF000000, (_op(Kind.ADDR24, "addr24"),), "RPTB", Timing.RPTB))
    F.append(Form("SWI", 0x66000000, 0xFFFFFFFF, (), "SWI", Timing.SWI))
    F += _bcond("B{c}", 0x68000000, Timing.BRANCH, pcrel_base=1)
    F += _bcond("B{c}D", 0x68200000, Timing.BRANCH_D, pcrel_base=3)
    F += _dbcond("DB{c}", 0x6C000000, Timing.DB, pcrel_base=1)
    F += _dbcond("DB{c}D", 0x6C200000, Timing.DB_D, pcrel_base=3)
    F += _bcond("CALL{c}", 0x70000000, Timing.CALLC, pcrel_base=1)
    F.append(Form("TRAP{c}", 0x74000020, 0xFFE0FFE0, (_op(Kind.TRAPN, "trapn"),), "TRAPc",
                  Timing.TRAP, cond_field="bcond"))
    F.append(Form("RETI{c}", 0x78000000, 0xFFE0FFFF, (), "RETIc", Timing.RETI, cond_field="bcond"))
    F.append(Form("RETS{c}", 0x78800000, 0xFFE0FFFF, (), "RETSc", Timing.RETS, cond_field="bcond"))

    # --- parallel instructions (13.2, table 13-3/13-4) --------------------
    F += _par_stores("STF", 0xC0000000)
    F += _par_stores("STI", 0xC2000000)
    F += _par_loads("LDF", 0xC4000000)
    F += _par_loads("LDI", 0xC6000000)
    F += _par_store("ABSF", "STF", 0xC8000000, fl=True)
    F += _par_store("ABSI", "STI", 0xCA000000, fl=False)
    F += _par_store("ADDF3", "STF", 0xCC000000, fl=True, three=True, commutative=True)
    F += _par_store("ADDI3", "STI", 0xCE000000, fl=False, three=True, commutative=True)
    F += _par_store("AND3", "STI", 0xD0000000, fl=False, three=True, commutative=True)
    F += _par_store("ASH3", "STI", 0xD2000000, fl=False, three=True)
    F += _par_store("FIX", "STI", 0xD4000000, fl=False)
    F += _par_store("FLOAT", "STF", 0xD6000000, fl=True)
    F += _par_store("LDF", "STF", 0xD8000000, fl=True)
    F += _par_store("LDI", "STI", 0xDA000000, fl=False)
    F += _par_store("LSH3", "STI", 0xDC000000, fl=False, three=True)
    F += _par_store("MPYF3", "STF", 0xDE000000, fl=True, three=True, commutative=True)
    F += _par_store("MPYI3", "STI", 0xE0000000, fl=False, three=True, commutative=True)
    F += _par_store("NEGF", "STF", 0xE2000000, fl=True)
    F += _par_store("NEGI", "STI", 0xE4000000, fl=False)
    F += _par_store("NOT", "STI", 0xE6000000, fl=False)
    F += _par_store("OR3", "STI", 0xE8000000, fl=False, three=True, commutative=True)
    F += _par_store("SUBF3", "STF", 0xEA000000, fl=True, three=True)
    F += _par_store("SUBI3", "STI", 0xEC000000, fl=False, three=True)
    F += _par_store("XOR3", "STI", 0xEE000000, fl=False, three=True, commutative=True)
    F += _par_mpy("ADDF3", 0x80000000, fl=True)
    F += _par_mpy("SUBF3", 0x84000000, fl=True)
    F += _par_mpy("ADDI3", 0x88000000, fl=False)
    F += _par_mpy("SUBI3", 0x8C000000, fl=False)
    return F


FORMS: tuple[Form, ...] = tuple(
    Form(**{**f.__dict__, "index": i}) for i, f in enumerate(_build_forms()))

# ---------------------------------------------------------------------------
# Mnemonic lookup for the assembler.
# ---------------------------------------------------------------------------

#: Instructions of the TMS320C4x (and C3x family members other than the C30)
#: that the C30 does not have; the assembler rejects them by name.
NOT_ON_C30: dict[str, str] = {
    **{m: "TMS320C4x" for m in (
        "LAJ", "LDA", "LDEP", "LDPE", "LDHI", "LDPK", "MPYSHI", "MPYUHI", "RCPF", "RSQRF",
        "FRIEEE", "TOIEEE", "STIK", "RPTBD", "RETID", "LB0", "LB1", "LB2", "LB3",
        "LBU0", "LBU1", "LBU2", "LBU3", "LH0", "LH1", "LHU0", "LHU1", "LWL0", "LWL1",
        "LWL2", "LWL3", "LWR0", "LWR1", "LWR2", "LWR3", "MB0", "MB1", "MB2", "MB3",
        "MH0", "MH1", "MH2", "MH3", "LAT", "LAJU", "BUAF", "BUAT", "BAF", "BAT")},
    "LOPOWER": "TMS320C31/VC33 (low-power mode)",
    "MAXSPEED": "TMS320C31/VC33 (low-power mode)",
    "IDLE2": "TMS320C31/VC33 (low-power mode)",
}


def _expand_mnemonics() -> dict[str, list[tuple[Form, int | None]]]:
    table: dict[str, list[tuple[Form, int | None]]] = {}

    def add(name: str, form: Form, cond: int | None) -> None:
        table.setdefault(name, []).append((form, cond))

    for f in FORMS:
        if f.is_parallel:
            continue
        if f.cond_field is None:
            add(f.mnemonic, f, None)
            continue
        for cname, code in COND_CODE.items():
            add(f.mnemonic.replace("{c}", cname), f, code)
        add(f.mnemonic.replace("{c}", ""), f, 0)    # B, BD, DB, CALL.., TRAP, RETI, RETS
    return table


_SINGLE: dict[str, list[tuple[Form, int | None]]] = _expand_mnemonics()
# "CALL" (absolute) and "LDF"/"LDI" (general) also spell a conditional form
# with an empty condition; the unconditional instruction wins.
for _name in ("CALL", "LDF", "LDI"):
    _SINGLE[_name] = [(f, c) for f, c in _SINGLE[_name] if f.cond_field is None]

# The conditional C4x families (BcondAF, BcondAT, LAJcond, LATcond, RETIcondD:
# binutils' tic4x.h marks them C4x-only, as NOT_ON_C30 above does for their
# unconditional spellings) with every condition, so that BZAT says "C4x" rather
# than "unknown instruction".  No encoding changes: these are only rejected.
for _c in ("", *COND_CODE):
    for _name in (f"B{_c}AF", f"B{_c}AT", f"LAJ{_c}", f"LAT{_c}", f"RETI{_c}D"):
        if _name not in _SINGLE:
            NOT_ON_C30.setdefault(_name, "TMS320C4x")

_PARALLEL: dict[tuple[str, str], list[Form]] = {}
for _f in FORMS:
    if _f.is_parallel:
        _PARALLEL.setdefault(_f.parts, []).append(_f)


def lookup(mnemonic: str) -> list[tuple[Form, int | None]]:
    """Forms (with condition code, for conditional mnemonics) spelled
    ``mnemonic`` (upper case).  Empty if unknown."""
    return _SINGLE.get(mnemonic, [])


def lookup_parallel(first: str, second: str) -> list[Form]:
    """Parallel forms whose parts are ``first || second`` in that order."""
    return _PARALLEL.get((first, second), [])


def mnemonics() -> list[str]:
    """Every single-instruction mnemonic the assembler accepts."""
    return sorted(_SINGLE)


def parallel_pairs() -> list[tuple[str, str]]:
    return sorted(_PARALLEL)


# ---------------------------------------------------------------------------
# Decoding: an 11-bit index (bits 31..21) selects the form; the form's mask
# then checks the remaining fixed bits.
# ---------------------------------------------------------------------------

DECODE_SHIFT = 21


def _decode_table() -> list[list[int]]:
    table: list[list[int]] = [[] for _ in range(1 << (32 - DECODE_SHIFT))]
    for f in FORMS:
        hi_mask = f.mask >> DECODE_SHIFT
        hi_val = f.opcode >> DECODE_SHIFT
        free = [b for b in range(32 - DECODE_SHIFT) if not hi_mask >> b & 1]
        for k in range(1 << len(free)):
            v = hi_val
            for j, b in enumerate(free):
                if k >> j & 1:
                    v |= 1 << b
            table[v].append(f.index)
    return table


#: For each value of bits 31..21, the indices of the forms that may decode it,
#: most specific (largest mask) first.  The first form whose mask matches and
#: whose operand fields are valid is the decoding.
DECODE_INDEX: list[tuple[int, ...]] = [
    tuple(sorted(c, key=lambda i: (-bin(FORMS[i].mask).count("1"),
                                   FORMS[i].mnemonic != "LDP", i)))
    for c in _decode_table()]


def field_get(word: int, name: str) -> int:
    lo, width = FIELDS[name]
    return word >> lo & ((1 << width) - 1)


def field_put(word: int, name: str, value: int) -> int:
    lo, width = FIELDS[name]
    m = (1 << width) - 1
    if value & ~m:
        raise ValueError(f"value {value:#x} does not fit field {name}")
    return word & ~(m << lo) | value << lo
