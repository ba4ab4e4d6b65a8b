"""Property: every instruction of the table assembles back from its text.

Hypothesis picks a form of :data:`rapsim.asm.isa.FORMS` and random values
for its free bits; the decoder names the instruction (``decode``) and writes
it in TI syntax (``format_instruction``); the assembler must produce the
same word: ``assemble(format(decode(w))) == w``.
"""
from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rapsim.asm import isa
from rapsim.asm.assembler import assemble_text
from rapsim.asm.decoder import decode, format_instruction, is_canonical


Kind = isa.Kind

#: Legal field values for each operand kind (indirect: mode, AR and displacement).
_FIELD_VALUES = {
    Kind.REG: st.integers(0, isa.NUM_REGISTERS - 1),
    Kind.FREG: st.integers(0, 7), Kind.PREG: st.integers(0, 7), Kind.ARN: st.integers(0, 7),
    Kind.R01: st.integers(0, 1), Kind.R23: st.integers(0, 1),
    Kind.DIR: st.integers(0, 0xFFFF), Kind.SIMM: st.integers(0, 0xFFFF),
    Kind.UIMM: st.integers(0, 0xFFFF), Kind.FIMM: st.integers(0, 0xFFFF),
    Kind.PCREL: st.integers(0, 0xFFFF), Kind.ADDR24: st.integers(0, 0xFFFFFF),
    Kind.TRAPN: st.integers(0, 31), Kind.DPIMM: st.integers(0, 0xFF),
}


def _indirect_bits(draw, width: int) -> int:
    mode = draw(st.integers(0, isa.NUM_INDIRECT_MODES - 1))
    ar = draw(st.integers(0, 7))
    if width == 8:
        return mode << 3 | ar
    disp = draw(st.integers(0, 255)) if isa.INDIRECT_MODES[mode].index is isa.Index.DISP else 0
    return mode << 11 | ar << 8 | disp


@st.composite
def instruction_words(draw) -> int:
    """A word of a random form with random legal operand values."""
    form = draw(st.sampled_from(isa.FORMS))
    w = form.opcode
    if form.cond_field is not None:
        w = isa.field_put(w, form.cond_field, draw(st.sampled_from(sorted(isa.COND_BY_CODE))))
    for spec in form.operands:
        if spec.kind in isa.INDIRECT_KINDS:
            v = _indirect_bits(draw, isa.FIELDS[spec.field][1])
        else:
            v = draw(_FIELD_VALUES[spec.kind])
        w = isa.field_put(w, spec.field, v)
    return w


def _assembled(text: str, pad: int = 0) -> int:
    src = "        NOP\n" * pad + f"        {text}\n"
    return int(assemble_text(src, "rt.asm").obj.section(".text").data[pad])


@settings(max_examples=1500, deadline=None)
@given(instruction_words(), st.integers(0, 3))
def test_assemble_format_decode_is_identity(w, pad):
    d = decode(w)
    assume(d is not None and is_canonical(d))
    text = format_instruction(d)
    got = _assembled(text, pad)
    assert got == w, f"{text!r}: {got:#010x} != {w:#010x}"


@settings(max_examples=300, deadline=None)
@given(instruction_words())
def test_lower_case_text_assembles_the_same(w):
    d = decode(w)
    assume(d is not None and is_canonical(d))
    assert _assembled(format_instruction(d).lower()) == w


#: One legal field value per kind, for the exhaustive check below.
_SAMPLE = {Kind.REG: 3, Kind.FREG: 5, Kind.PREG: 6, Kind.ARN: 2, Kind.R01: 1, Kind.R23: 1,
           Kind.DIR: 0x1234, Kind.SIMM: 0xFFF0, Kind.UIMM: 0xABCD, Kind.FIMM: 0x0400,
           Kind.PCREL: 0x0010, Kind.ADDR24: 0x123456, Kind.TRAPN: 5, Kind.DPIMM: 0x80}


def test_every_form_round_trips():
    """Each form of the table, with sample operand values, comes back."""
    for form in isa.FORMS:
        w = form.opcode
        if form.cond_field is not None:
            w = isa.field_put(w, form.cond_field, isa.COND_CODE["NE"])
        for i, spec in enumerate(form.operands):
            if spec.kind in isa.INDIRECT_KINDS:
                mode, ar = (4, i) if isa.FIELDS[spec.field][1] == 8 else (2, i)
                v = mode << 3 | ar if isa.FIELDS[spec.field][1] == 8 else mode << 11 | ar << 8 | 9
            else:
                v = _SAMPLE[spec.kind]
            w = isa.field_put(w, spec.field, v)
        d = decode(w)
        assert d is not None and is_canonical(d), f"{form.mnemonic}: {w:#010x}"
        assert _assembled(format_instruction(d)) == w, form.mnemonic
