"""Issue 18: relocations of every section survive a disassembly round trip
(``rap dis`` of an object re-assembles to the same sections, words and
relocations); instructions in data sections used to come out as ``.word``
with a "relocation ... lost" comment."""
from __future__ import annotations

import pytest

from rapsim.asm.assembler import assemble_text
from rapsim.asm.disasm import disassemble_object
from rapsim.asm.objfile import Relocation
from rapsim.asm.reloc import RelocKind

SOURCES = [
    """        .global start, ext
        .text
start:  NOP
        .data
tab:    .word   1
        LDI     @tab, AR0
        CALL    ext
        BR      tab
        LDI     ext, R0
        B       start
        LDP     tab
        .sect   "sx"
        CALL    start
        .word   start, tab+1, ext-2
""",
    """        .global start, tab, ext
        .text
start:  LDI     @tab, AR0
        CALL    f
        BR      start
f:      RETS
        .data
tab:    .word   tab, start, f+3, ext, ext-2
        .float  1.5
        .sect   "tbl"
        .word   tab+1, 5
        .bss    buf, 8
""",
]


def _sections(obj):
    return [(s.name, s.kind, s.size, None if s.data is None else [int(w) for w in s.data],
             [(r.offset, r.kind, r.symbol, r.addend) for r in s.relocs]) for s in obj.sections]


@pytest.mark.parametrize("src", SOURCES)
def test_round_trip_keeps_every_relocation(src):
    obj = assemble_text(src, "r.asm").obj
    text = disassemble_object(obj, "r.obj")
    assert "lost" not in text
    again = assemble_text(text, "r.dis.asm").obj
    assert _sections(again) == _sections(obj)
    assert sum(len(s.relocs) for s in obj.sections) >= 6


def test_a_relocation_no_instruction_can_carry_is_an_error():
    obj = assemble_text("        .data\n        .word 0\n", "r.asm").obj
    obj.sections[-1].relocs.append(Relocation(0, RelocKind.ABS24, "x", 0))
    with pytest.raises(ValueError, match=r"^r\.obj: section \.data, offset 0x0: relocation abs24"):
        disassemble_object(obj, "r.obj")
