"""The assembler: syntax forms, sections, symbols, relocations, line table."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.asm import isa
from rapsim.asm.assembler import assemble_text
from rapsim.asm.encoder import encode, encode_parallel
from rapsim.asm.floatfmt import to_short
from rapsim.asm.operands import ImmOp, IndOp, RegOp
from rapsim.asm.reloc import RelocKind
from rapsim.asm.statements import Bad, Instr


def words(src: str, section: str = ".text") -> list[int]:
    return [int(w) for w in assemble_text(src, "t.asm").obj.section(section).data]


def obj(src: str):
    return assemble_text(src, "t.asm").obj


def R(n):
    return RegOp(n)


def AR(n):
    return RegOp(isa.REG_AR0 + n)


def test_one_word_per_instruction_from_the_encoder():
    src = "        LDI 5, R1\n        ADDI R0, R1\n        NOP\n        RETS\n"
    assert words(src) == [encode("LDI", [ImmOp(5), R(1)]).word,
                          encode("ADDI", [R(0), R(1)]).word,
                          encode("NOP", []).word, encode("RETS", []).word]


def test_labels_colon_optional_and_case():
    o = obj("start:  nop\nloop    Nop\n        ldi 1,r0\nLoop    NOP\n")
    syms = {s.name: (s.section, s.value) for s in o.symbols}
    assert syms == {"start": (".text", 0), "loop": (".text", 1), "Loop": (".text", 3)}


def test_label_alone_on_a_line_names_the_next_word():
    o = obj("here:\n\n        NOP\nthere\n        NOP\n")
    syms = {s.name: s.value for s in o.symbols}
    assert syms == {"here": 0, "there": 1}


def test_comments():
    src = ("* a star comment in column 1\n; a semicolon comment\n"
           "        NOP   ; trailing\nlab     NOP;tight\n        .string \"a;b\" ; c\n")
    assert words(src) == [0x0C800000, 0x0C800000, ord("a"), ord(";"), ord("b")]


def test_blank_and_whitespace_lines():
    assert words("\n   \n\t\n        NOP\n\r\n") == [0x0C800000]


def test_crlf_line_endings():
    assert words("        LDI 1, R0\r\nx       NOP\r\n") == words("        LDI 1, R0\nx       NOP\n")


@pytest.mark.parametrize("text,shape", [
    ("*AR3", ("", "", isa.Index.NONE, False, False, None)),
    ("*+AR3(7)", ("+", "", isa.Index.DISP, False, False, 7)),
    ("*-AR3(7)", ("-", "", isa.Index.DISP, False, False, 7)),
    ("*++AR3(7)", ("++", "", isa.Index.DISP, False, False, 7)),
    ("*--AR3(7)", ("--", "", isa.Index.DISP, False, False, 7)),
    ("*AR3++(7)", ("", "++", isa.Index.DISP, False, False, 7)),
    ("*AR3--(7)", ("", "--", isa.Index.DISP, False, False, 7)),
    ("*AR3++(7)%", ("", "++", isa.Index.DISP, True, False, 7)),
    ("*AR3--(7)%", ("", "--", isa.Index.DISP, True, False, 7)),
    ("*+AR3(IR0)", ("+", "", isa.Index.IR0, False, False, None)),
    ("*-AR3(IR1)", ("-", "", isa.Index.IR1, False, False, None)),
    ("*++AR3(IR0)", ("++", "", isa.Index.IR0, False, False, None)),
    ("*--AR3(IR1)", ("--", "", isa.Index.IR1, False, False, None)),
    ("*AR3++(IR1)", ("", "++", isa.Index.IR1, False, False, None)),
    ("*AR3--(IR0)", ("", "--", isa.Index.IR0, False, False, None)),
    ("*AR3++(IR0)%", ("", "++", isa.Index.IR0, True, False, None)),
    ("*AR3--(IR1)%", ("", "--", isa.Index.IR1, True, False, None)),
    ("*AR3++(IR0)B", ("", "++", isa.Index.IR0, False, True, None)),
    ("*ar3++(ir0)b", ("", "++", isa.Index.IR0, False, True, None)),
    ("*AR3 ++ (7)", ("", "++", isa.Index.DISP, False, False, 7)),
    ("*+AR3(3+4)", ("+", "", isa.Index.DISP, False, False, 7)),
    ("*+AR3(0Ah-3)", ("+", "", isa.Index.DISP, False, False, 7)),
])
def test_indirect_modes(text, shape):
    *mode, disp = shape
    code = isa.indirect_mode_code(*mode)
    want = encode("LDI", [IndOp(code, 3, disp), R(0)]).word
    assert words(f"        LDI {text}, R0\n") == [want]


@pytest.mark.parametrize("short,full", [("*AR0++", "*AR0++(1)"), ("*+AR0", "*+AR0(1)"),
                                        ("*--AR5", "*--AR5(1)"), ("*AR2--%", "*AR2--(1)%")])
def test_omitted_displacement_is_one(short, full):
    assert words(f"        LDI {short}, R0\n") == words(f"        LDI {full}, R0\n")


def test_direct_and_symbolic_displacement():
    src = "N       .set 4\n        LDI *+AR1(N*2), R0\n        LDI @1234h, R1\n"
    assert words(src) == [encode("LDI", [IndOp(0, 1, 8), R(0)]).word,
                          0x08210000 | 0x1234]


def test_three_operand_mnemonic_without_the_3():
    assert words("        ADDI R1, R2, R3\n") == words("        ADDI3 R1, R2, R3\n")


def test_parallel_on_one_line_and_ti_style():
    one = words("        MPYF3 *AR0++, *AR1++, R0 || ADDF3 R0, R2, R2\n")
    two = words("        MPYF3 *AR0++, *AR1++, R0\n     || ADDF3 R0, R2, R2\n")
    col1 = words("        MPYF3 *AR0++, *AR1++, R0\n||      ADDF3 R0, R2, R2\n")
    want = encode_parallel("MPYF3", [IndOp(4, 0), IndOp(4, 1), R(0)],
                           "ADDF3", [R(0), R(2), R(2)]).word
    assert one == two == col1 == [want]


def test_parallel_continuation_skips_comment_lines():
    src = "        LDF *AR0, R0\n* the store\n        || STF R2, *AR1\n        NOP\n"
    o = obj(src)
    assert o.section(".text").size == 2
    assert o.section(".text").lines == [(0, 0, 1), (1, 0, 4)]


def test_branch_same_section_is_resolved_pc_relative():
    src = "top     NOP\n        BNE top\n        BNED top\n"
    w = words(src)
    assert w[1] & 0xFFFF == (0 - 2) & 0xFFFF
    assert w[2] & 0xFFFF == (0 - 5) & 0xFFFF
    assert obj(src).section(".text").relocs == []


def test_relocations_for_labels_and_externals():
    src = ("        .global ext\n        BR later\n        CALL ext\n        LDI @tbl, R0\n"
           "        LDP tbl\n        BNE ext+2\nlater   NOP\n        .data\n        .word 1\n"
           "tbl     .word later, ext-1\n")
    o = obj(src)
    text, data = o.section(".text"), o.section(".data")
    got = [(r.offset, r.kind, r.symbol, r.addend) for r in text.relocs]
    assert got == [(0, RelocKind.ABS24, ".text", 5), (1, RelocKind.ABS24, "ext", 0),
                   (2, RelocKind.DIR16, ".data", 1), (3, RelocKind.DP16, ".data", 1),
                   (4, RelocKind.PCREL16, "ext", 2)]
    assert [(r.offset, r.kind, r.symbol, r.addend) for r in data.relocs] == [
        (1, RelocKind.WORD32, ".text", 5), (2, RelocKind.WORD32, "ext", -1)]
    assert [int(w) for w in data.data] == [1, 0, 0]


def test_symbols_and_bindings():
    src = ("        .global main, ext\n        .def helper\n        .ref lib\nmain    NOP\n"
           "helper  NOP\nloc     NOP\nK       .set 42\nA       .set loc+1\n"
           "        .bss buf, 4\n")
    o = obj(src)
    got = {s.name: (s.section, s.value, s.binding) for s in o.symbols}
    assert got == {"main": (".text", 0, "global"), "helper": (".text", 1, "global"),
                   "loc": (".text", 2, "local"), "K": (None, 42, "local"),
                   "A": (".text", 3, "local"), "buf": (".bss", 0, "local"),
                   "ext": (None, 0, "undefined"), "lib": (None, 0, "undefined")}


def test_sections_based_at_zero_in_order_of_use():
    src = ("        NOP\n        .data\nd       .word 7\n        .sect \"vectors\"\nv       BR 0\n"
           "        .text\nt       NOP\nu       .usect \"scratch\", 3, 4\n        .bss b, 2\n")
    o = obj(src)
    assert [(s.name, s.kind, s.size) for s in o.sections] == [
        (".text", "text", 2), (".data", "data", 1), ("vectors", "text", 1),
        ("scratch", "bss", 3), (".bss", "bss", 2)]
    syms = {s.name: (s.section, s.value) for s in o.symbols}
    assert syms["t"] == (".text", 1) and syms["v"] == ("vectors", 0)
    assert o.section("scratch").align == 4 and o.section("scratch").data is None


def test_sect_with_data_only_is_a_data_section():
    assert obj('        .sect "tbl"\n        .word 1\n').section("tbl").kind == "data"


def test_line_table_covers_every_word():
    src = "        NOP\n        .word 1, 2\n        .data\n        .string \"ab\"\n"
    o = obj(src)
    assert o.section(".text").lines == [(0, 0, 1), (1, 0, 2), (2, 0, 2)]
    assert o.section(".data").lines == [(0, 0, 4), (1, 0, 4)]
    assert o.files == ["t.asm"]


def test_forward_references():
    src = "        BR end\n        LDI @data, R0\n        .word end - start\nstart   NOP\nend     NOP\n" \
          "data    .word 5\n"
    w = words(src)
    assert w[2] == 1


def test_dollar_is_the_current_instruction():
    src = "        NOP\n        B $\n        BR $+1\n"
    o = obj(src)
    assert o.section(".text").data[1] & 0xFFFF == 0xFFFF        # 1 - (1 + 1)
    assert o.section(".text").relocs[0].addend == 3


def test_register_names_any_case():
    assert words("        LDI ar0, Ir1\n        LDI Rc, R7\n") == [
        encode("LDI", [AR(0), R(isa.REG_IR1)]).word, encode("LDI", [R(isa.REG_RC), R(7)]).word]


def test_conditional_mnemonics():
    for c in ("U", "LO", "NE", "Z", "GE", "ZUF"):
        assert words(f"        LDI{c} R0, R1\n")[0] >> 28 == 5


def test_float_immediate_and_words():
    w = words("        LDF 1.0, R0\n        LDF -1.5e0, R1\n        LDF 3, R2\n")
    assert [x & 0xFFFF for x in w] == [to_short(1.0), to_short(-1.5), to_short(3.0)]


def test_warning_two_updates_of_one_ar():
    r = assemble_text("        ADDI3 *AR0++, *AR0++, R0\n", "t.asm")
    assert r.warnings == ["t.asm:1:23: warning: two operands update AR0; the processor keeps "
                          "only one of the updates"]


def test_warning_branch_in_delay_slot():
    r = assemble_text("        BRD x\n        NOP\n        CALL x\n        NOP\nx       NOP\n"
                      "        BR x\n", "t.asm")
    assert len(r.warnings) == 1
    assert r.warnings[0].startswith("t.asm:3:9: warning: CALL in a delay slot of the delayed "
                                    "branch BRD")


def test_same_text_twice_encodes_the_same():
    src = "        LDI *AR0++(3), R1\n" * 3 + "x       LDI *AR0++(3), R1\n"
    assert len(set(words(src))) == 1


_HEADS = ["LDI", "addf3", "STF", "NOP", ".word", ".if", "", "B"]
_PIECES = ["R0", "ar1", "IR0", "*AR0++", "*+AR1(3)", "*AR2--(IR0)%", "*AR0 ++(2)", "@x", "x",
           "B", "5", "0FFh", "1.5", "12zz", "R8", "+", "-", "*", "%", "<<", "~", "!", "==", "(",
           ")", "$", "'a'", ".", " ", "\t", "||", ","]
_OPERAND = st.lists(st.sampled_from(_PIECES), min_size=0, max_size=3).map("".join)
_PART = st.tuples(st.sampled_from(_HEADS), st.lists(_OPERAND, max_size=3)).map(
    lambda p: (p[0] + " " + ", ".join(p[1])).strip())


@settings(max_examples=400, deadline=None)
@given(_PART, st.one_of(st.just(None), _PART))
def test_operand_cache_path_agrees_with_the_grammar(first, second):
    """The parser's fast path (operands parsed one by one) builds exactly
    what parsing the whole statement builds."""
    from rapsim.asm import parser
    text = first if second is None else f"{first} || {second}".strip()
    fast = parser._by_parts(text) if text else None
    if fast is None:
        return
    full = parser._lark_parse(text)
    assert type(full) is not Bad, text
    assert repr(fast) == repr(full) and getattr(fast, "lead", None) == getattr(full, "lead", None)
    assert _cols(fast) == _cols(full)


def _cols(st) -> list[int]:
    if type(st) is Instr:
        return [o.col for o in st.ops] + (_cols(st.par) if st.par else [])
    return [col for _, col in st.args]
