"""Directives, macros, conditional assembly and includes."""
from __future__ import annotations

import pytest

from rapsim.asm.assembler import assemble_file, assemble_text
from rapsim.asm.encoder import encode
from rapsim.asm.floatfmt import to_single
from rapsim.errors import Diagnostics

NOP = encode("NOP", []).word


def asm(src: str, **kw):
    return assemble_text(src, "d.asm", **kw).obj


def data(src: str, section: str = ".text", **kw) -> list[int]:
    return [int(w) for w in asm(src, **kw).section(section).data]


def errors(src: str, **kw) -> list[str]:
    with pytest.raises(Diagnostics) as e:
        assemble_text(src, "d.asm", **kw)
    return e.value.messages


def syms(o) -> dict:
    return {s.name: (s.section, s.value) for s in o.symbols}


# -- data -------------------------------------------------------------------

def test_word_and_int():
    assert data("        .word 1, -1, 0FFFFFFFFh\n        .int 2\n") == [1, 0xFFFFFFFF, 0xFFFFFFFF, 2]


def test_float():
    assert data("        .float 1.0, -1.0, 0.5, 0, 3\n") == [
        0x00000000, 0xFF800000, 0xFF000000, 0x80000000, to_single(3.0)]


def test_string_one_character_per_word():
    assert data('        .string "Hi", 0, "a""b"\n') == [72, 105, 0, 97, 34, 98]


def test_space_and_align_in_text_pad_with_nop():
    w = data("        NOP\n        .space 2\n        .align 4\nx       LDI 1, R0\n")
    assert w[:4] == [NOP, 0, 0, NOP] and len(w) == 5
    o = asm("        NOP\n        .align 4\nx       NOP\n")
    assert syms(o)["x"] == (".text", 4) and o.section(".text").align == 4


def test_align_in_data_pads_with_zeros():
    assert data("        .data\n        .word 7\n        .align 2\n        .word 8\n", ".data") == [7, 0, 8]


def test_label_on_align_names_the_aligned_address():
    assert syms(asm("        NOP\nhere    .align 8\n"))["here"] == (".text", 8)


# -- sections -----------------------------------------------------------------

def test_text_data_sect_switching():
    o = asm('        NOP\n        .data\n        .word 1\n        .sect "v"\n        .word 2\n'
            '        .text\n        NOP\n        .data\n        .word 3\n')
    assert [(s.name, s.size) for s in o.sections] == [(".text", 2), (".data", 2), ("v", 1)]


def test_label_on_section_directive_names_the_new_section():
    o = asm("        NOP\n        .data\ntbl     .data\n        .word 1\nt2      .text\n")
    assert syms(o) == {"tbl": (".data", 0), "t2": (".text", 1)}


def test_bss_and_usect_reserve():
    o = asm('        .bss a, 3\n        .bss b, 2, 4\nc       .usect "fast", 5\nd       .usect "fast", 1, 8\n'
            '        NOP\n')
    assert syms(o) == {"a": (".bss", 0), "b": (".bss", 4), "c": ("fast", 0), "d": ("fast", 8)}
    assert o.section(".bss").size == 6 and o.section("fast").size == 9
    assert o.section(".bss").align == 4 and o.section("fast").align == 8
    assert o.section(".text").size == 1


def test_space_in_a_bss_section_via_usect_only():
    assert errors('x       .usect "u", 2\n        .sect "u"\n') == [
        "d.asm:2:15: error: section 'u' is uninitialised (.bss/.usect); it cannot hold code or data"]


# -- symbols ------------------------------------------------------------------

def test_set_equ_forms_and_forward_reference():
    o = asm("A       .set 1\nB       .equ A+1\n        .set C, B*10\nD       .set later-here\n"
            "here    NOP\n        NOP\nlater   NOP\n")
    s = syms(o)
    assert s["A"] == (None, 1) and s["B"] == (None, 2) and s["C"] == (None, 20) and s["D"] == (None, 2)


def test_set_relocatable_value_is_a_section_symbol():
    assert syms(asm("x       NOP\ny       .set x+5\n"))["y"] == (".text", 5)


def test_global_of_set_symbol_is_absolute_global():
    o = asm("        .global K\nK       .set 7\n")
    assert [(s.name, s.section, s.value, s.binding) for s in o.symbols] == [("K", None, 7, "global")]


def test_defines_from_the_command_line():
    o = asm("        .if DEBUG\n        NOP\n        .endif\n        .word LEVEL\n",
            defines={"DEBUG": 1, "LEVEL": 3})
    assert [int(w) for w in o.section(".text").data] == [NOP, 3]


# -- conditional assembly -------------------------------------------------------

@pytest.mark.parametrize("n,want", [(0, [10]), (1, [11]), (2, [12]), (5, [13])])
def test_if_elseif_else(n, want):
    src = (f"N       .set {n}\n        .if N == 0\n        .word 10\n        .elseif N == 1\n"
           "        .word 11\n        .elseif N < 3\n        .word 12\n        .else\n"
           "        .word 13\n        .endif\n")
    assert data(src) == want


def test_nested_if_and_skipped_lines_not_parsed():
    src = ("        .if 1\n        .if 0\n        this is not assembly ((\n        .else\n"
           "        .word 1\n        .endif\n        .else\n        .if 1\n        .word 2\n"
           "        .endif\n        .endif\n")
    assert data(src) == [1]


def test_if_uses_values_known_at_that_point():
    src = "a       NOP\nb       NOP\n        .if b-a == 1\n        .word 5\n        .endif\n"
    assert data(src)[-1] == 5


def test_if_errors():
    msgs = errors("        .if later\n        .endif\n        .else\nlater   NOP\n        .if 1\n")
    assert msgs == ["d.asm:1:13: error: symbol 'later' is not defined at this point",
                    "d.asm:3:9: error: .else without .if",
                    "d.asm:5:9: error: unterminated .if (missing .endif)"]


def test_end_stops_assembly():
    assert data("        NOP\n        .end\n        garbage here ((\n") == [NOP]


# -- macros ---------------------------------------------------------------------

MACROS = """\
addk    .macro  k, reg
        ADDI    k, reg
        .endm
twice   .macro  x
        addk    x, R1
        addk    :x:+1, R2
        .endm
"""


def test_macro_call_and_nested_calls():
    w = data(MACROS + "        twice 5\n        ADDK 7, R0\n")
    assert w == [encode("ADDI", _ops(5, 1)).word, encode("ADDI", _ops(6, 2)).word,
                 encode("ADDI", _ops(7, 0)).word]


def _ops(k, r):
    from rapsim.asm.operands import ImmOp, RegOp
    return [ImmOp(k), RegOp(r)]


def test_macro_substitution_rules():
    src = ('show    .macro  name, v\n'
           'name    .word   v, vv, :v:\n'
           '        .string "name :name:"\n'
           '        .endm\n'
           'vv      .set 9\n'
           '        show    lab, 3\n')
    o = asm(src)
    assert [int(w) for w in o.section(".text").data] == [3, 9, 3] + [ord(c) for c in "name lab"]
    assert syms(o)["lab"] == (".text", 0)


def test_macro_local_labels_are_unique():
    src = ("wait    .macro\nlp?     SUBI 1, R0\n        BNZ lp?\n        .endm\n"
           "        wait\n        wait\n")
    o = asm(src)
    names = sorted(n for n in syms(o) if n.startswith("$lp$"))
    assert len(names) == 2
    w = [int(x) for x in o.section(".text").data]
    assert w[1] & 0xFFFF == w[3] & 0xFFFF == 0xFFFE


def test_macro_missing_arguments_are_empty_and_label_on_call():
    o = asm("m       .macro a, b\n        .word 1 a\n        .endm\nhere    m\n        m +2\n")
    assert [int(w) for w in o.section(".text").data] == [1, 3]
    assert syms(o)["here"] == (".text", 0)


def test_macro_errors():
    msgs = errors("r       .macro\n        r\n        .endm\n        r\nm       .macro a\n"
                  "        .endm\n        m 1, 2\n        .endm\nu       .macro\n")
    assert msgs[0].startswith("d.asm:2:9: error: macro calls nested deeper than 32 "
                              "(is 'r' recursive?) (in macro 'r' called at d.asm:2)")
    assert msgs[1:] == ["d.asm:7:9: error: macro 'm' takes 1 argument, got 2",
                        "d.asm:8:9: error: .endm without .macro",
                        "d.asm:9:9: error: unterminated .macro (missing .endm)"]


def test_error_inside_macro_points_at_the_body_line():
    msgs = errors("m       .macro r\n        NOP\n        LDI 1, r\n        .endm\n        m Q9\n")
    assert msgs == ["d.asm:3:16: error: undefined symbol 'Q9' (in macro 'm' called at d.asm:5)"]


def test_macro_lines_in_line_table_use_the_call_line():
    o = asm("m       .macro\n        NOP\n        NOP\n        .endm\n        m\n")
    assert o.section(".text").lines == [(0, 0, 5), (1, 0, 5)]


# -- includes -------------------------------------------------------------------

def test_include_search_order_and_files(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "inc1").mkdir()
    (tmp_path / "inc2").mkdir()
    (tmp_path / "src" / "main.asm").write_text('        .include "a.inc"\n        .copy "b.inc"\n'
                                               '        .word A, B\n')
    (tmp_path / "inc1" / "a.inc").write_text("A       .set 1\n")
    (tmp_path / "inc2" / "a.inc").write_text("A       .set 2\n")
    (tmp_path / "inc2" / "b.inc").write_text("B       .set 3\n        NOP\n")
    main = str(tmp_path / "src" / "main.asm")
    r = assemble_file(main, [str(tmp_path / "inc1"), str(tmp_path / "inc2")])
    assert [int(w) for w in r.obj.section(".text").data] == [NOP, 1, 3]
    assert r.obj.files == [main, str(tmp_path / "inc1" / "a.inc"), str(tmp_path / "inc2" / "b.inc")]
    assert r.obj.section(".text").lines[0] == (0, 2, 2)
    # the including file's directory comes first
    (tmp_path / "src" / "a.inc").write_text("A       .set 4\n")
    r = assemble_file(main, [str(tmp_path / "inc1"), str(tmp_path / "inc2")])
    assert int(r.obj.section(".text").data[1]) == 4


def test_include_errors(tmp_path):
    (tmp_path / "loop.inc").write_text('        .include "loop.inc"\n')
    main = tmp_path / "m.asm"
    main.write_text('        .include "loop.inc"\n        .include "none.inc"\n')
    with pytest.raises(Diagnostics) as e:
        assemble_file(str(main))
    inc = str(tmp_path / "loop.inc")
    assert e.value.messages == [
        f"{inc}:1:18: error: include loop: 'loop.inc' is already being assembled",
        f"{main}:2:18: error: cannot find include file 'none.inc' (searched '{tmp_path}')"]


def test_unknown_directive():
    assert errors("        .frobnicate 1\n") == ["d.asm:1:9: error: unknown directive '.frobnicate'"]
