"""Instruction decoding and TI-syntax formatting, driven by :mod:`rapsim.asm.isa`.

:func:`decode` turns a word into its form and operand values, or None for an
illegal word.  A word is legal when bits 31-21 select a form, the bits that
form fixes match (the guide's opcode figures show them as fixed 0s and 1s),
and its register and addressing-mode fields name existing registers and
modes.  The displacement bits of an indirect operand that does not use a
displacement (IR0/IR1 or ``*ARn``) are ignored, as the hardware ignores them;
:func:`is_canonical` tells whether the assembler would produce the same word.

:func:`format_instruction` writes the instruction in TI syntax that
re-assembles to the same word.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import isa
from .floatfmt import from_short
from .isa import Form, Index, Kind
from .operands import DirOp, ImmOp, IndOp, RegOp


@dataclass
class Decoded:
    word: int
    form: Form
    cond: int | None
    operands: list          # RegOp / IndOp / DirOp / ImmOp with plain numbers

    @property
    def mnemonic(self) -> str:
        m = self.form.mnemonic
        if self.form.cond_field is not None:
            m = m.replace("{c}", isa.COND_BY_CODE[self.cond].name)
        return m


def _decode_operand(kind: Kind, fld: str, bits: int):
    width = isa.FIELDS[fld][1]
    if kind in (Kind.REG, Kind.FREG):
        limit = isa.NUM_REGISTERS if kind is Kind.REG else 8
        if bits >= limit:          # also rejects stray high bits of wide fields
            return None
        return RegOp(bits)
    if kind is Kind.PREG:
        return RegOp(bits)
    if kind is Kind.ARN:
        return RegOp(isa.REG_AR0 + bits)
    if kind is Kind.R01:
        return RegOp(bits)
    if kind is Kind.R23:
        return RegOp(2 + bits)
    if kind in (Kind.IND, Kind.IND8):
        if width == 16:
            mode, ar, disp = bits >> 11, bits >> 8 & 7, bits & 0xFF
        else:
            mode, ar, disp = bits >> 3, bits & 7, 1
        if mode >= isa.NUM_INDIRECT_MODES:
            return None
        if isa.INDIRECT_MODES[mode].index is not Index.DISP and width == 16:
            disp = bits & 0xFF     # kept so that non-canonical words are seen
        return IndOp(mode, ar, disp)
    if kind is Kind.DIR:
        return DirOp(bits)
    if kind is Kind.SIMM:
        return ImmOp(bits - 0x10000 if bits & 0x8000 else bits)
    if kind in (Kind.UIMM, Kind.ADDR24, Kind.TRAPN):
        return ImmOp(bits)
    if kind is Kind.FIMM:
        return ImmOp(from_short(bits))
    if kind is Kind.PCREL:
        return ImmOp(bits - 0x10000 if bits & 0x8000 else bits)   # displacement
    if kind is Kind.DPIMM:
        return ImmOp(bits << 16)
    raise AssertionError(kind)


def decode(word: int) -> Decoded | None:
    """Decode one instruction word; None if it is not a legal C30 instruction."""
    word &= 0xFFFFFFFF
    for idx in isa.DECODE_INDEX[word >> isa.DECODE_SHIFT]:
        form = isa.FORMS[idx]
        if word & form.mask != form.opcode:
            continue
        if form.operands and form.operands[0].kind is Kind.DPIMM \
                and isa.field_get(word, form.operands[0].field) > 0xFF:
            continue               # LDI imm, DP with bits beyond a page number: plain LDI
        cond = None
        if form.cond_field is not None:
            cond = isa.field_get(word, form.cond_field)
            if cond not in isa.COND_BY_CODE:
                continue
        ops = []
        for spec in form.operands:
            op = _decode_operand(spec.kind, spec.field, isa.field_get(word, spec.field))
            if op is None:
                break
            ops.append(op)
        else:
            return Decoded(word, form, cond, ops)
    return None


def is_canonical(d: Decoded) -> bool:
    """True if the assembler encodes this instruction back to the same word.

    Decided by the encoder itself (:func:`rapsim.asm.encoder.encode` on the
    decoded operands), so that it stays true to whatever form the encoder
    chooses.  Words it rejects include indirect operands with displacement
    bits the mode ignores, short-float zeros with fraction bits, and forms
    the encoder never picks for their operands.
    """
    from .encoder import EncodeError, encode, encode_parallel

    ops = [_encodable(spec.kind, op, d.form) for spec, op in zip(d.form.operands, d.operands)]
    try:
        if d.form.is_parallel:
            a, b = d.form.parts
            k = d.form.split
            enc = encode_parallel(a, ops[:k], b, ops[k:])
        else:
            enc = encode(d.mnemonic, ops)
    except EncodeError:
        return False
    return enc.word == d.word and not enc.fixups


def _encodable(kind: Kind, op, form: Form):
    """A decoded operand as the encoder takes it (at address 0)."""
    if kind is Kind.PCREL:
        return ImmOp(op.value + form.pcrel_base)        # the target, seen from address 0
    if isinstance(op, IndOp) and isa.INDIRECT_MODES[op.mode].index is not Index.DISP:
        return IndOp(op.mode, op.ar, None)
    return op


def _hex(v: int, digits: int = 0) -> str:
    return f"0x{v:0{digits}X}"


def _float_text(v: float) -> str:
    t = repr(float(v))
    return t if ("." in t or "e" in t or "inf" in t) else t + ".0"


LabelFn = Callable[[int], "str | None"]


def format_operand(d: Decoded, i: int, pc: int | None = None,
                   label: LabelFn | None = None, reloc_text: str | None = None) -> str:
    spec = d.form.operands[i]
    op = d.operands[i]
    k = spec.kind
    if isinstance(op, RegOp):
        return isa.REGISTER_NAMES[op.num]
    if isinstance(op, IndOp):
        m = isa.INDIRECT_MODES[op.mode]
        return isa.format_indirect(op.mode, op.ar, op.disp if m.index is Index.DISP else None)
    if reloc_text is not None:
        return ("@" if k in (Kind.DIR, Kind.DPIMM) else "") + reloc_text
    if k is Kind.DIR:
        return "@" + _hex(op.value, 4)
    if k is Kind.SIMM or k is Kind.TRAPN:
        return str(op.value)
    if k is Kind.UIMM:
        return _hex(op.value, 4)
    if k is Kind.FIMM:
        return _float_text(op.value)
    if k is Kind.DPIMM:
        return "@" + _hex(op.value, 6)
    if k is Kind.ADDR24:
        name = label(op.value) if label else None
        return name or _hex(op.value, 6)
    if k is Kind.PCREL:
        off = op.value + d.form.pcrel_base
        if pc is not None:
            target = (pc + off) & 0xFFFFFF
            name = label(target) if label else None
            if name:
                return name
        return f"$+{off}" if off >= 0 else f"$-{-off}"
    raise AssertionError(k)


def format_instruction(d: Decoded, pc: int | None = None, label: LabelFn | None = None,
                       reloc_text: dict[int, str] | None = None) -> str:
    """TI syntax for a decoded instruction.  ``label(addr)`` names program
    addresses; ``reloc_text`` maps operand indices to symbolic text (from an
    object's relocations)."""
    reloc_text = reloc_text or {}
    texts = [format_operand(d, i, pc, label, reloc_text.get(i)) for i in range(len(d.operands))]
    if d.form.is_parallel:
        a, b = d.form.parts
        s = d.form.split
        return f"{a:<6} {','.join(texts[:s])} || {b:<6} {','.join(texts[s:])}"
    m = d.mnemonic
    return f"{m:<7} {','.join(texts)}" if texts else m
