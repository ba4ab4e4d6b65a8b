"""Disassembly re-assembles to the same words: every form of the ISA table,
random words, objects with relocations, and linked images."""
from __future__ import annotations

import random

import numpy as np
import pytest

from miniasm import assemble, assemblers
from rapsim.asm import decoder, isa
from rapsim.asm.disasm import disassemble_image, disassemble_object, disassemble_words
from rapsim.asm.linker import InputFile, link_files
from rapsim.asm.linkscript import parse_script

ASSEMBLERS = assemblers()
ASM_IDS = [n for n, _ in ASSEMBLERS]


def reassembled_words(asm, text: str) -> dict[str, list[int]]:
    obj = asm(text)
    return {s.name: [int(w) for w in s.data] for s in obj.sections if s.data is not None}


def _field_value(kind: isa.Kind, width: int, rng: random.Random) -> int:
    if kind is isa.Kind.REG:
        return rng.randrange(isa.NUM_REGISTERS)
    if kind is isa.Kind.FREG:
        return rng.randrange(8)
    if kind in (isa.Kind.IND, isa.Kind.IND8):
        mode, ar = rng.randrange(isa.NUM_INDIRECT_MODES), rng.randrange(8)
        if width == 8:
            return mode << 3 | ar
        disp = rng.randrange(256) if isa.INDIRECT_MODES[mode].index is isa.Index.DISP else 0
        return mode << 11 | ar << 8 | disp
    return rng.getrandbits(width)


def random_words_of(form: isa.Form, n: int, rng: random.Random) -> list[int]:
    """Words of ``form``: its fixed bits, a valid value in each operand field
    (and the condition field), random bits elsewhere."""
    out = []
    for _ in range(n):
        w = form.opcode | (rng.getrandbits(32) & ~form.mask & 0xFFFFFFFF)
        if form.cond_field:
            w = isa.field_put(w & ~_mask(form.cond_field), form.cond_field,
                              rng.choice(list(isa.COND_BY_CODE)))
        for spec in form.operands:
            width = isa.FIELDS[spec.field][1]
            w = isa.field_put(w & ~_mask(spec.field), spec.field, _field_value(spec.kind, width, rng))
        out.append(w)
    return out


def _mask(field: str) -> int:
    lo, width = isa.FIELDS[field]
    return ((1 << width) - 1) << lo


def _form_id(f: isa.Form) -> str:
    if f.parts and f.mnemonic.startswith("MPY"):
        return f"{f.mnemonic}/{f.opcode >> 24 & 3}"
    return f"{f.mnemonic}#{f.index}"


@pytest.mark.parametrize("form", [pytest.param(f, id=_form_id(f)) for f in isa.FORMS])
def test_every_form_round_trips(form):
    rng = random.Random(form.index)
    ws = [w for w in random_words_of(form, 400, rng)
          if (d := decoder.decode(w)) is not None and d.form is form and decoder.is_canonical(d)]
    assert ws, f"no canonical word decodes as {form.mnemonic}"
    text = disassemble_words(np.array(ws[:40], dtype=np.uint32), 0x1000)
    assert ".word" not in text
    for _, asm in ASSEMBLERS:
        assert reassembled_words(asm, text)[".text"] == ws[:40]


SAMPLES = """
        ABSF    R1,R2
        ADDI    -5,R3
        ADDI    @0x1234,AR1
        ADDF    *+AR1(5),R2
        AND     0xFF00,R4
        LDF     1.5,R0
        LDF     -0.25,R7
        LDI     *AR2++(IR0)B,R3
        LDI     *--AR3(IR1),R3
        LDP     @0x120000
        LDIGT   R1,R2
        LDFZ    *AR0,R1
        ADDI3   R1,R2,R3
        SUBF3   *AR1++(1),R2,R4
        MPYI3   *+AR0(1),*-AR1(0),R5
        CMPI3   R1,R2
        STF     R3,*AR4--(IR0)
        STI     AR0,@0x0010
        PUSH    ST
        POPF    R6
        ROL     R2
        NOP
        NOP     *AR3++(2)
        RPTS    100
        RPTB    0x000123
        BR      0x000456
        CALL    0x000789
        BNZ     R3
        BGED    $+7
        DBNZ    AR2,$-1
        CALLLT  $+100
        TRAPU   5
        RETSNZ
        RETIU
        IDLE
        SWI
        IACK    *AR1
        MPYF3   *AR0,*AR1,R0 || ADDF3 R2,R3,R2
        MPYI3   R4,R5,R1 || SUBI3 *AR2++(IR0),*AR3,R3
        LDF     *AR0,R1 || LDF *AR1++(1),R2
        STI     R1,*AR0 || STI R2,*AR1
        ADDF3   R1,*AR2,R3 || STF R4,*AR5
        ABSI    *AR0++(IR1),R1 || STI R2,*AR1
"""


@pytest.mark.parametrize("name,asm", ASSEMBLERS, ids=ASM_IDS)
def test_sample_operands_round_trip(name, asm):
    ws = reassembled_words(asm, SAMPLES)[".text"]
    text = disassemble_words(np.array(ws, dtype=np.uint32), 0x100)
    assert ".word" not in text
    assert reassembled_words(asm, text)[".text"] == ws


@pytest.mark.parametrize("seed", range(4))
def test_random_words_round_trip(seed):
    rng = random.Random(seed)
    ws = [rng.getrandbits(32) for _ in range(5000)]
    text = disassemble_words(np.array(ws, dtype=np.uint32), 0x40)
    lines = [ln for ln in text.splitlines() if ln.startswith("        ") and not ln.lstrip().startswith(".")]
    words_lines = [ln for ln in text.splitlines() if ln.lstrip().startswith(".word")]
    assert len(lines) + len(words_lines) == len(ws)
    for ln in words_lines:                        # .word only for illegal / non-canonical words
        w = int(ln.split(";")[1].split()[1], 16)
        d = decoder.decode(w)
        assert d is None or not decoder.is_canonical(d)
    for _, asm in ASSEMBLERS:
        assert reassembled_words(asm, text)[".text"] == ws


OBJ = """
        .global main, printf, table
main:   LDI     0,R0
loop:   ADDI    1,R0
        CMPI    10,R0
        BLT     loop
        CALL    printf
        BRD     far
        LDP     @counter
        STI     R0,@counter
        LDI     @table+2,R1
        NOP
far:    RETSU
        .data
table:  .word   1, 2, table+1, printf, 0x12345678
msg:    .word   main
        .bss    counter, 2
        .bss    other, 3
buf     .usect  ".ram0", 16
"""


@pytest.mark.parametrize("name,asm", ASSEMBLERS, ids=ASM_IDS)
def test_object_round_trip_keeps_words_and_relocations(name, asm):
    obj = asm(OBJ)
    text = disassemble_object(obj, "x.obj")
    assert "CALL    printf" in text and "BLT     loop" in text and ".word   printf" in text
    again = asm(text)
    for s in obj.sections:
        t = again.section(s.name)
        assert t is not None and t.size == s.size and t.kind == s.kind
        if s.data is not None:
            assert t.data.tolist() == s.data.tolist()
        key = lambda r: (r.offset, r.kind)
        got = {key(r): r for r in t.relocs}
        for r in s.relocs:                         # same place, same target
            g = got[key(r)]
            assert _target(obj, r) == _target(again, g)


def _target(obj, r):
    """(symbol or section, offset) a relocation designates, label-independent."""
    sym = next((y for y in obj.symbols if y.name == r.symbol and y.section), None)
    if sym is not None and sym.binding != "global":
        return sym.section, sym.value + r.addend
    return r.symbol, r.addend


@pytest.mark.parametrize("name,asm", ASSEMBLERS, ids=ASM_IDS)
def test_image_round_trip_through_linker_description(name, asm):
    lib = asm("        .global printf\nprintf: RETSU\n        .data\n        .word 99\n", "p.asm")
    res = link_files([InputFile("x.obj", [("x.obj", asm(OBJ))]), InputFile("p.obj", [("p.obj", lib)])])
    text = disassemble_image(res.image, "x.out")
    script = "\n".join(ln[1:] for ln in text.splitlines()
                       if ln.startswith(";   ") or ln.startswith(";  ENTRY"))
    again = link_files([InputFile("y.obj", [("y.obj", asm(text))])], script=parse_script(script))
    assert again.image.entry == res.image.entry
    a = {s.name: (s.address, s.size, None if s.data is None else s.data.tolist()) for s in res.image.segments}
    b = {s.name: (s.address, s.size, None if s.data is None else s.data.tolist()) for s in again.image.segments}
    assert a == b


def test_labels_and_comments():
    obj = assemble(OBJ)
    text = disassemble_object(obj)
    assert "loop:\n        ADDI    1,R0                    ; 000001  02600001" in text
    assert '        .bss    counter,2' in text and 'buf     .usect  ".ram0",16' in text


def test_section_name_with_a_quote_is_written_as_a_string_constant():
    # the assembler no longer makes such names, but an object may hold one
    obj = assemble("        .sect \"ab\"\n        .word 1\n")
    obj.sections[-1].name = 'a"b'
    assert '.sect   "a""b"' in disassemble_object(obj)
