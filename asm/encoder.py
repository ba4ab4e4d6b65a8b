"""Instruction encoding: choose the form of :mod:`rapsim.asm.isa` that fits the
operands and build the instruction word.

The assembler calls :func:`encode` / :func:`encode_parallel` with operands
whose expressions are already evaluated (see :mod:`rapsim.asm.operands`).  Every
C30 instruction is one word, so the assembler's first pass needs no encoding.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from . import isa
from .floatfmt import FloatRangeError, to_short
from .isa import Form, Index, Kind
from .operands import DirOp, ImmOp, IndOp, ParsedOperand, RegOp, Reloc
from .reloc import RangeError, RelocKind, place


class EncodeError(Exception):
    """An instruction cannot be encoded.  ``operand`` is the 0-based index of
    the offending operand (in the order written), or None."""

    def __init__(self, message: str, operand: int | None = None):
        super().__init__(message)
        self.operand = operand


@dataclass
class Fixup:
    """A field to complete at link time with the value of ``target``."""
    kind: RelocKind
    target: Reloc


@dataclass
class Encoded:
    word: int
    form: Form
    fixups: list[Fixup] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Which operand syntax fits which kind
# ---------------------------------------------------------------------------

_REG_RANGE = {
    Kind.REG: range(0, isa.NUM_REGISTERS),
    Kind.FREG: range(0, 8),
    Kind.PREG: range(0, 8),
    Kind.ARN: range(isa.REG_AR0, isa.REG_AR0 + 8),
    Kind.R01: range(0, 2),
    Kind.R23: range(2, 4),
}

KIND_TEXT = {
    Kind.REG: "a register",
    Kind.FREG: "one of R0-R7",
    Kind.PREG: "one of R0-R7",
    Kind.ARN: "one of AR0-AR7",
    Kind.R01: "R0 or R1",
    Kind.R23: "R2 or R3",
    Kind.DIR: "a direct address (@expr)",
    Kind.IND: "an indirect operand",
    Kind.IND8: "an indirect operand with displacement 0 or 1, IR0 or IR1",
    Kind.SIMM: "a signed 16-bit integer",
    Kind.UIMM: "an unsigned 16-bit integer",
    Kind.FIMM: "a floating-point constant",
    Kind.ADDR24: "a program address",
    Kind.PCREL: "a branch target",
    Kind.TRAPN: "a trap number 0-31",
    Kind.DPIMM: "an address",
}


def describe(op: ParsedOperand) -> str:
    if isinstance(op, RegOp):
        return isa.REGISTER_NAMES[op.num]
    if isinstance(op, IndOp):
        return "an indirect operand"
    if isinstance(op, DirOp):
        return "a direct address"
    return "an immediate value"


def _fits(kind: Kind, op: ParsedOperand) -> bool:
    """Syntactic fit: could ``op`` be written for an operand of ``kind``?"""
    if kind in isa.REGISTER_KINDS:
        return isinstance(op, RegOp) and op.num in _REG_RANGE[kind]
    if kind is Kind.IND:
        return isinstance(op, IndOp)
    if kind is Kind.IND8:
        if not isinstance(op, IndOp):
            return False
        if isa.INDIRECT_MODES[op.mode].index is Index.DISP:
            return op.disp is None or (isinstance(op.disp, int) and op.disp in (0, 1))
        return True
    if kind is Kind.DIR:
        return isinstance(op, DirOp)
    if kind in (Kind.ADDR24, Kind.PCREL, Kind.DPIMM):
        return isinstance(op, (ImmOp, DirOp))
    return isinstance(op, ImmOp)


def _int_value(op, what: str) -> int | Reloc:
    v = op.value
    if isinstance(v, float):
        raise EncodeError(f"{what} must be an integer, not the floating-point value {v!r}")
    return v


def _fix(kind: RelocKind, v, pc: int, fixups: list[Fixup]) -> int:
    """Bits for value ``v`` placed as ``kind``; a Reloc becomes a fixup."""
    if isinstance(v, Reloc):
        fixups.append(Fixup(kind, v))
        return 0
    try:
        return place(kind, v, pc)[1]
    except RangeError as e:
        raise EncodeError(str(e)) from None


def _encode_indirect(op: IndOp, short: bool) -> int:
    mode = isa.INDIRECT_MODES[op.mode]
    code = op.mode
    if mode.index is Index.DISP:
        disp = 1 if op.disp is None else op.disp
        if isinstance(disp, Reloc):
            raise EncodeError("an indirect displacement must be an absolute value")
        if isinstance(disp, float):
            raise EncodeError(f"an indirect displacement must be an integer, not {disp!r}")
        if short:
            if disp not in (0, 1):
                raise EncodeError(f"displacement {disp} not allowed here: this form takes 0, 1, IR0 or IR1")
            if disp == 0:
                code = isa.MODE_ARN      # *+ARn(0), *ARn++(0), ... address ARn, no change
            return code << 3 | (op.ar & 7)
        if not 0 <= disp <= 255:
            raise EncodeError(f"displacement {disp} out of range 0..255")
        return code << 11 | (op.ar & 7) << 8 | disp
    if short:
        return code << 3 | (op.ar & 7)
    return code << 11 | (op.ar & 7) << 8


def _encode_operand(form: Form, kind: Kind, op: ParsedOperand, pc: int, section: str,
                    fixups: list[Fixup]) -> int:
    if kind in isa.REGISTER_KINDS:
        n = op.num
        if kind is Kind.ARN:
            return n - isa.REG_AR0
        if kind is Kind.R01:
            return n
        if kind is Kind.R23:
            return n - 2
        return n
    if kind is Kind.IND:
        return _encode_indirect(op, short=False)
    if kind is Kind.IND8:
        return _encode_indirect(op, short=True)
    if kind is Kind.DIR:
        v = _int_value(op, "a direct address")
        return _fix(RelocKind.DIR16, v, pc, fixups)
    if kind is Kind.SIMM:
        return _fix(RelocKind.SIMM16, _int_value(op, f"the immediate of {form.mnemonic}"), pc, fixups)
    if kind is Kind.UIMM:
        return _fix(RelocKind.UIMM16, _int_value(op, f"the immediate of {form.mnemonic}"), pc, fixups)
    if kind is Kind.FIMM:
        v = op.value
        if isinstance(v, Reloc):
            raise EncodeError("a floating-point immediate must be a constant, not a relocatable symbol")
        try:
            return to_short(float(v), strict=True)
        except (FloatRangeError, OverflowError):   # OverflowError: an int beyond a double
            raise EncodeError(f"{v!r} is out of the range of a short floating-point "
                              "immediate (about +-2**-7 .. +-2**8)") from None
    if kind is Kind.ADDR24:
        return _fix(RelocKind.ABS24, _int_value(op, "a program address"), pc, fixups)
    if kind is Kind.PCREL:
        v = _int_value(op, "a branch target")
        rk = RelocKind.PCREL16 if form.pcrel_base == 1 else RelocKind.PCREL16D
        if isinstance(v, Reloc) and v.symbol == section:
            v = v.addend            # same section: the displacement is known now
        elif isinstance(v, int) and section:
            v = Reloc("", v)        # absolute target, relocatable PC: link time
        return _fix(rk, v, pc, fixups)
    if kind is Kind.TRAPN:
        v = _int_value(op, "a trap number")
        if isinstance(v, Reloc) or not 0 <= v <= 31:
            raise EncodeError(f"trap number must be 0..31, got {v}")
        return v
    if kind is Kind.DPIMM:
        v = _int_value(op, "an address")
        if isinstance(v, int) and 0 < v < 0x100:
            # LDP's operand is an address; DP gets its bits 23-16 (guide 6.3
            # and the LDP page of chapter 13), so 1..255 would load page 0:
            # almost surely a page number written where the address belongs.
            raise EncodeError(
                f"LDP takes an address, not a page number: {v:#x} is on page 0, so this "
                f"would load DP = 0.  For page {v:#x} write LDP {v << 16:#x} (or "
                f"LDP @label); for page 0 write LDP 0")
        return _fix(RelocKind.DP16, v, pc, fixups)
    raise AssertionError(kind)


def _build(form: Form, cond: int | None, ops: list[ParsedOperand], pc: int,
           section: str, order: list[int]) -> Encoded:
    word = form.opcode
    fixups: list[Fixup] = []
    if form.cond_field is not None:
        word = isa.field_put(word, form.cond_field, cond)
    for i, (spec, op) in enumerate(zip(form.operands, ops)):
        try:
            bits = _encode_operand(form, spec.kind, op, pc, section, fixups)
        except EncodeError as e:
            raise EncodeError(str(e), order[i]) from None
        word = isa.field_put(word, spec.field, bits)
    return Encoded(word, form, fixups)


def _mismatch(name: str, candidates: list[tuple[Form, int | None]], ops: list[ParsedOperand]) -> EncodeError:
    counts = sorted({len(f.operands) for f, _ in candidates})
    same = [(f, c) for f, c in candidates if len(f.operands) == len(ops)]
    if not same:
        want = " or ".join(str(c) for c in counts)
        return EncodeError(f"{name} takes {want} operand{'s' if counts != [1] else ''}, got {len(ops)}")
    alive = same
    for i, op in enumerate(ops):
        ok = [(f, c) for f, c in alive if _fits(f.operands[i].kind, op)]
        if not ok:
            kinds = []
            for f, _ in alive:
                t = KIND_TEXT[f.operands[i].kind]
                if t not in kinds:
                    kinds.append(t)
            return EncodeError(f"operand {i + 1} of {name} must be {' or '.join(kinds)}, "
                               f"not {describe(op)}", i)
        alive = ok
    return EncodeError(f"no encoding of {name} takes these operands")


def _parallel_operands_fit(form: Form, ops: list[ParsedOperand]) -> bool:
    return len(ops) == len(form.operands) and all(
        _fits(spec.kind, op) for spec, op in zip(form.operands, ops))


def encode(mnemonic: str, ops: list[ParsedOperand], pc: int = 0, section: str = "") -> Encoded:
    """Encode one (non-parallel) instruction.

    ``pc`` is the instruction's address within ``section`` (the section's
    name, used to resolve PC-relative branches to labels of the same
    section; empty for absolute code).  Raises :class:`EncodeError`.
    """
    name = mnemonic.upper()
    cands = isa.lookup(name)
    if name == "LDP" and len(ops) == 2 and isinstance(ops[1], RegOp) and ops[1].num == isa.REG_DP:
        ops = ops[:1]                       # "LDP addr, DP" is also accepted
    three = isa.lookup(name + "3") if not name.endswith("3") else []
    if not cands and not three:
        if name in isa.NOT_ON_C30:
            raise EncodeError(f"{name} is a {isa.NOT_ON_C30[name]} instruction, not available on the TMS320C30")
        raise EncodeError(f"unknown instruction {mnemonic!r}")
    for group in (cands, three):
        for form, cond in group:
            if len(form.operands) == len(ops) and all(
                    _fits(s.kind, o) for s, o in zip(form.operands, ops)):
                return _build(form, cond, ops, pc, section, list(range(len(ops))))
    shorthand = [(f, c) for f, c in cands or three
                 if f.dst_optional[0] and len(f.operands) == len(ops) + 1 == 3]
    if shorthand:
        return _encode_shorthand(name, shorthand, ops, pc, section)
    raise _mismatch(name, cands or three, ops)


def _encode_shorthand(name: str, forms: list[tuple[Form, int | None]], ops: list[ParsedOperand],
                      pc: int, section: str) -> Encoded:
    """A 3-operand instruction written with its two sources only: the
    destination doubles as the second written source (``ASH3 R1, R2`` is
    ``ASH3 R1, R2, R2``, R2 shifted by R1), as the GNU tic4x assembler's
    table allows (include/opcode/tic4x.h, the optional ``;R`` destination
    after a register src1).  docs/assembler.md, "Extensions"."""
    if not isinstance(ops[1], RegOp):
        raise EncodeError(f"{name} with two operands: the destination doubles as the second "
                          f"operand, which must then be a register, not {describe(ops[1])}", 1)
    full = [ops[0], ops[1], ops[1]]
    for form, cond in forms:
        if all(_fits(s.kind, o) for s, o in zip(form.operands, full)):
            return _build(form, cond, full, pc, section, [0, 1, 1])
    raise _mismatch(name, forms, full)


def _norm_part(name: str) -> list[str]:
    """A parallel part's spellings to try: ADDF and ADDF3 are the same part."""
    name = name.upper()
    out = [name]
    if name.endswith("3"):
        out.append(name[:-1])
    else:
        out.append(name + "3")
    return out


def _part_indices(form: Form, part: int, written: int) -> list[int]:
    """Indices into a parallel part's written operands, one per operand of
    the form's part: as written, or with the second source repeated as the
    destination when a 3-operand part is written with two operands."""
    count = form.split if part == 0 else len(form.operands) - form.split
    if form.dst_optional[part] and count == 3 and written == 2:
        return [0, 1, 1]
    return list(range(written))


def encode_parallel(m1: str, ops1: list[ParsedOperand], m2: str, ops2: list[ParsedOperand],
                    pc: int = 0, section: str = "") -> Encoded:
    """Encode a parallel pair ``m1 ops1 || m2 ops2``.  The parts may be given
    in either order; commutative operations accept their sources in either
    order."""
    n1, n2 = len(ops1), len(ops2)
    tried: list[Form] = []
    candidates = []
    for a, b in itertools.product(_norm_part(m1), _norm_part(m2)):
        for swapped, forms in ((False, isa.lookup_parallel(a, b)), (True, isa.lookup_parallel(b, a))):
            for form in forms:
                tried.append(form)
                candidates.append((swapped, form))
    # operands as written first, in every form; commuted sources only after
    for commute in range(4):
        for swapped, form in candidates:
            first, second = (ops2, ops1) if swapped else (ops1, ops2)
            # a 3-operand part written without its destination: the
            # destination doubles as the part's second source (see
            # _encode_shorthand); indices refer to the operands as written
            o1 = _part_indices(form, 0, len(first))
            o2 = _part_indices(form, 1, len(second))
            if commute & 1 and not (form.commutative[0] and len(o1) >= 2):
                continue
            if commute & 2 and not (form.commutative[1] and len(o2) >= 2):
                continue
            if commute & 1:
                o1[0], o1[1] = o1[1], o1[0]
            if commute & 2:
                o2[0], o2[1] = o2[1], o2[0]
            ops = [first[i] for i in o1] + [second[i] for i in o2]
            if _parallel_operands_fit(form, ops):
                # operand positions as written by the user, for error reporting
                base1, base2 = (n1, 0) if swapped else (0, n1)
                order = [base1 + i for i in o1] + [base2 + i for i in o2]
                return _build(form, None, ops, pc, section, order)
    if not tried:
        for m in (m1, m2):
            if not isa.lookup(m.upper()) and not isa.lookup(m.upper() + "3"):
                raise EncodeError(f"unknown instruction {m!r}")
        raise EncodeError(f"{m1.upper()} and {m2.upper()} cannot be executed in parallel "
                          "(see the parallel instruction table in docs/assembler.md)")
    form = tried[0]
    p1 = form.operands[:form.split]
    p2 = form.operands[form.split:]
    c1 = {len(p1), len(p1) - 1} if form.dst_optional[0] else {len(p1)}
    c2 = {len(p2), len(p2) - 1} if form.dst_optional[1] else {len(p2)}
    if not ((n1 in c1 and n2 in c2) or (n1 in c2 and n2 in c1)):
        raise EncodeError(f"{form.parts[0]} || {form.parts[1]} takes {len(p1)} and {len(p2)} operands")
    if (n1, n2) not in ((len(p1), len(p2)), (len(p2), len(p1))):     # a shorthand part
        raise EncodeError(f"operands of {m1.upper()} || {m2.upper()} do not fit any encoding "
                          "(a 3-operand part written with two operands takes its second "
                          "operand as the destination too, so that operand must be a "
                          "register the destination field accepts)")
    raise EncodeError(f"operands of {m1.upper()} || {m2.upper()} do not fit any encoding: "
                      "parallel forms take registers R0-R7 and indirect operands with "
                      "displacement 0 or 1, IR0 or IR1 (multiply/add: destinations R0/R1 and R2/R3)")
