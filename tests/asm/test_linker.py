"""The linker: placement, symbols, archives, relocation, entry, errors."""
from __future__ import annotations

import numpy as np
import pytest

from miniasm import assemble
from rapsim import memmap
from rapsim.asm.archive import Member, archive_bytes
from rapsim.asm.linker import InputFile, LinkError, link_files
from rapsim.asm.linkscript import parse_script
from rapsim.asm.objfile import object_bytes, parse_object


def obj(name: str, source: str) -> InputFile:
    return InputFile(name, [(name, assemble(source, name.replace(".obj", ".asm")))])


def lib(name: str, **members: str) -> InputFile:
    return InputFile(name, [(f"{name}({m})", assemble(s, m)) for m, s in members.items()], archive=True)


def seg(res, name):
    return next(s for s in res.image.segments if s.name == name)


def words(res, addr, n=1):
    for a, d in res.image.words():
        if a <= addr < a + len(d):
            return [int(x) for x in d[addr - a:addr - a + n]]
    raise KeyError(hex(addr))


MAIN = """
        .global _c_int00, f
_c_int00:
        CALL    f
        BR      _c_int00
        .data
        .word   1, 2
        .bss    buf, 4
"""
F = """
        .global f
f:      RETSU
        .data
        .word   3
"""


def test_default_placement_and_concatenation():
    res = link_files([obj("a.obj", MAIN), obj("b.obj", F)])
    text, data, bss = seg(res, ".text"), seg(res, ".data"), seg(res, ".bss")
    assert text.address == memmap.VECTORS_END          # first SRAM word
    assert (text.size, data.address, data.size) == (3, text.address + 3, 3)
    assert bss.address == data.address + 3 and bss.data is None and bss.size == 4
    assert words(res, data.address, 3) == [1, 2, 3]    # a.obj's .data, then b.obj's
    f = res.image.symbols["f"]
    assert f == text.address + 2
    assert words(res, text.address)[0] & 0xFFFFFF == f  # CALL f relocated
    assert res.image.entry == text.address
    assert words(res, 0) == [text.address]             # reset vector
    assert res.reset_vector


def test_special_sections_go_to_their_regions():
    src = """
        .sect ".ram0.coef"
        .word 7
        .sect ".ram1"
        .word 8
        .sect ".dram.tables"
        .word 9
x       .usect ".dram.big", 100
        .text
        NOP
"""
    res = link_files([obj("a.obj", src)])
    assert seg(res, ".ram0.coef").address == memmap.RAM0_BASE
    assert seg(res, ".ram1").address == memmap.RAM1_BASE
    assert seg(res, ".dram.tables").address == memmap.DRAM_BASE
    assert seg(res, ".dram.big").address == memmap.DRAM_BASE + 1
    assert res.image.symbols["x"] == memmap.DRAM_BASE + 1


def test_user_vectors_suppress_reset_vector():
    src = """
        .global start
        .sect ".vectors"
        .word start
        .text
start:  NOP
"""
    res = link_files([obj("a.obj", src)])
    assert seg(res, ".vectors").address == 0
    assert not any(s.name == ".reset" for s in res.image.segments)
    assert words(res, 0) == [res.image.symbols["start"]] and not res.reset_vector


def test_alignment_of_pieces():
    a = assemble("        .data\n        .word 1\n", "a.asm")
    b = assemble("        .data\n        .word 2\n", "b.asm")
    b.section(".data").align = 8
    res = link_files([InputFile("a.obj", [("a.obj", a)]), InputFile("b.obj", [("b.obj", b)])])
    d = seg(res, ".data")
    assert d.address % 8 == 0 and d.size == 9
    assert words(res, d.address + 8) == [2]


def test_order_of_sections_in_sram():
    src = """
b       .usect "zzz", 2
        .bss x, 1
        .sect "const"
        .word 5
        .data
        .word 6
        .text
        NOP
"""
    res = link_files([obj("a.obj", src)])
    names = [s.name for s in sorted(res.image.segments, key=lambda s: s.address) if s.name != ".reset"]
    assert names == [".text", ".data", "const", ".bss", "zzz"]


def test_archive_members_pulled_transitively():
    archive = lib("libx.a",
                  **{"g.obj": "        .global g, h\ng:      CALL h\n",
                     "h.obj": "        .global h\nh:      RETSU\n",
                     "unused.obj": "        .global u\nu:      RETSU\n"})
    main = obj("m.obj", "        .global _c_int00, g\n_c_int00: CALL g\n")
    res = link_files([archive, main])              # archive first: still found
    assert {"g", "h"} <= set(res.image.symbols) and "u" not in res.image.symbols
    assert [i.name for i in res.inputs] == ["libx.a(g.obj)", "libx.a(h.obj)", "m.obj"]


def test_archive_member_round_trip_through_bytes(tmp_path):
    from rapsim.asm.linker import link
    p = tmp_path / "lib.a"
    o = assemble("        .global h\nh:      RETSU\n", "h.asm")
    p.write_bytes(archive_bytes([Member("h.obj", object_bytes(o))]))
    m = tmp_path / "m.obj"
    m.write_bytes(object_bytes(assemble("        .global h\n        CALL h\n")))
    res = link([str(m), str(p)])
    assert res.image.symbols["h"] == memmap.VECTORS_END + 1


def test_undefined_symbols_listed_with_users():
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", "        .global x, y\n        CALL x\n        CALL y\n"),
                    obj("b.obj", "        .global x\n        BR x\n")])
    msgs = e.value.messages
    assert "undefined symbol x, referenced by a.obj, b.obj" in msgs
    assert "undefined symbol y, referenced by a.obj" in msgs


def test_duplicate_definitions_name_both_objects():
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", "        .global f\nf: NOP\n"), obj("b.obj", "        .global f\nf: NOP\n")])
    assert e.value.messages == ["symbol f is defined in both a.obj and b.obj"]


def test_local_symbols_qualified_when_they_clash():
    res = link_files([obj("a.obj", "loop: BR loop\nonly: NOP\n"), obj("b.obj", "loop: BR loop\n")])
    s = res.image.symbols
    assert "a.obj:loop" in s and "b.obj:loop" in s and "loop" not in s and "only" in s
    assert s["b.obj:loop"] == s["a.obj:loop"] + 2


def test_region_overflow_says_by_how_much():
    src = "        .sect \".ram0\"\n" + "        .word 0\n" * (memmap.ONCHIP_BLOCK_SIZE + 3)
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", src)])
    assert "memory region RAM0 overflows by 3 words" in e.value.messages[0]


def test_small_sram_overflow():
    src = "        .bss big, 70000\n"
    link_files([obj("a.obj", src)])
    with pytest.raises(LinkError, match="SRAM overflows by"):
        link_files([obj("a.obj", src)], config=memmap.MemoryConfig(sram_words=memmap.SRAM_WORDS_SMALL))


def test_overlapping_fixed_sections():
    script = parse_script('SECTIONS { .a : > 0x100  .b : > 0x101 }')
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", '        .sect ".a"\n        .word 1, 2\n        .sect ".b"\n        .word 3\n')],
                   script=script)
    assert "sections .a (0x000100-0x000101) and .b (0x000101-0x000101) overlap" in e.value.messages


def test_relocation_out_of_range_names_object_section_offset_symbol():
    src = """
        .global far
        NOP
        BEQ far
"""
    far = '        .global far\n        .sect ".dram"\nfar:    NOP\n'
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", src), obj("b.obj", far)])
    m = e.value.messages[0]
    assert m.startswith("a.obj: section .text, offset 0x1 (a.asm:2): relocation pcrel16 against far:")
    assert "-32768..+32767" in m


def test_entry_point_choice():
    two = "        .global start\n        NOP\nstart:  NOP\n"
    res = link_files([obj("a.obj", two)])
    assert res.image.entry == memmap.VECTORS_END + 1 and res.entry_name == "start"
    res = link_files([obj("a.obj", two)], entry="0x50")
    assert res.image.entry == 0x50
    res = link_files([obj("a.obj", "        NOP\n        NOP\n")])
    assert res.image.entry == memmap.VECTORS_END and res.entry_name is None
    res = link_files([obj("a.obj", "        NOP\n_c_int00: NOP\nstart: NOP\n")])
    assert res.entry_name == "_c_int00"
    with pytest.raises(LinkError, match="entry symbol nowhere is not defined"):
        link_files([obj("a.obj", two)], entry="nowhere")
    res = link_files([obj("a.obj", two)], script=parse_script("ENTRY(start)"))
    assert res.entry_name == "start"


def test_linker_defined_symbols():
    src = """
        .global __bss_start, __bss_end, __SRAM_free, __SRAM_end, __ram0_start
        .data
        .word __bss_start, __bss_end, __SRAM_free, __SRAM_end
        .bss x, 10
"""
    res = link_files([obj("a.obj", src)])
    b = seg(res, ".bss")
    d = seg(res, ".data")
    assert words(res, d.address, 4) == [b.address, b.address + 10, b.address + 10, memmap.SRAM_WORDS_DEFAULT]


def test_missing_bss_bounds_are_an_empty_section():
    src = "        .global __bss_start, __bss_end\n        .data\n        .word __bss_start, __bss_end\n"
    res = link_files([obj("a.obj", src)])
    d = seg(res, ".data")
    a, b = words(res, d.address, 2)
    assert a == b == d.address + 2


def test_object_definition_overrides_linker_symbol():
    src = "        .global __SRAM_free\n__SRAM_free: .word 0\n        .data\n        .word __SRAM_free\n"
    res = link_files([obj("a.obj", src)])
    assert words(res, seg(res, ".data").address) == [memmap.VECTORS_END]


def test_line_table_mapped_to_addresses():
    res = link_files([obj("a.obj", "        NOP\n        NOP\n")])
    assert res.image.files == ["a.asm"]
    assert res.image.lines[:2] == [(0x40, 0, 1), (0x41, 0, 2)]


def test_script_places_sections():
    script = parse_script("""
MEMORY {
    VEC  : origin = 0x0,   length = 0x40
    CODE : origin = 0x40,  length = 0x1000
    DATA : origin = 0x2000, length = 0x1000
    FAST : origin = 0x809800, length = 0x400
}
SECTIONS {
    .data  > FAST
    .text  : {} > CODE
    tables : { .tab* } > DATA, align(16)
    .bss   > DATA
}
ENTRY(go)
""", "t.cmd")
    src = """
        .global go
go:     NOP
        .data
        .word 1
        .sect ".tab1"
        .word 2
        .sect ".tab2"
        .word 3
        .bss z, 5
"""
    res = link_files([obj("a.obj", src)], script=script)
    assert seg(res, ".data").address == 0x809800
    assert seg(res, ".text").address == 0x40
    t = seg(res, "tables")
    assert t.address == 0x2000 and t.size == 2 and t.data.tolist() == [2, 3]
    assert seg(res, ".bss").address == 0x2002
    assert res.entry_name == "go"
    assert res.image.memory[1] == {"name": "CODE", "origin": 0x40, "length": 0x1000}
    assert res.image.symbols["__DATA_free"] == 0x2007


def test_script_region_outside_memory_and_unknown_region():
    bad = parse_script("MEMORY { X : origin = 0x300000, length = 0x10 }", "t.cmd")
    with pytest.raises(LinkError) as e:
        link_files([obj("a.obj", "        NOP\n")], script=bad)
    assert e.value.messages[0].startswith("t.cmd:1:10: error: memory region X (0x300000-0x30000f)")
    nore = parse_script("SECTIONS { .text > NOWHERE }", "t.cmd")
    with pytest.raises(LinkError, match="t.cmd:1:12: error: no memory region NOWHERE for section .text"):
        link_files([obj("a.obj", "        NOP\n")], script=nore)
    mem = parse_script("MEMORY { A : origin = 0x40, length = 0x10 }", "t.cmd")
    with pytest.raises(LinkError, match="no memory region SRAM for section .text"):
        link_files([obj("a.obj", "        NOP\n")], script=mem)


def test_fixed_address_avoided_by_allocation():
    script = parse_script("SECTIONS { .pin : > 0x41 }")
    src = '        NOP\n        NOP\n        NOP\n        .sect ".pin"\n        .word 9\n'
    res = link_files([obj("a.obj", src)], script=script)
    assert seg(res, ".pin").address == 0x41 and seg(res, ".text").address == 0x42


def test_image_bytes_round_trip():
    from rapsim.asm.objfile import image_bytes, parse_image
    res = link_files([obj("a.obj", MAIN), obj("b.obj", F)])
    back = parse_image(image_bytes(res.image))
    assert back.entry == res.image.entry and back.symbols == res.image.symbols
    for (a1, w1), (a2, w2) in zip(back.words(), res.image.words()):
        assert a1 == a2 and np.array_equal(w1, w2)


def test_object_bytes_from_miniasm_are_valid():
    o = assemble(MAIN)
    assert parse_object(object_bytes(o)).symbols == o.symbols
