"""TI's text-level features: local labels, substitution symbols (.asg,
.eval, .var), repeated blocks (.loop/.break/.endloop), user messages and
the listing directives."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from rapsim.asm.assembler import assemble_text
from rapsim.asm.encoder import encode
from rapsim.asm.textsubs import scope_locals, shown, substitute
from rapsim.errors import Diagnostics

NOP = encode("NOP", []).word


def words(src: str, section: str = ".text") -> list[int]:
    return [int(w) for w in assemble_text(src, "t.asm").obj.section(section).data]


def errors(src: str) -> list[str]:
    with pytest.raises(Diagnostics) as e:
        assemble_text(src, "t.asm")
    return e.value.messages


def listing(src: str) -> str:
    return assemble_text(src, "t.asm", listing=True).listing


def same(src: str, expected: str) -> None:
    """``src`` assembles to the words of ``expected``."""
    assert words(src) == words(expected)


# -- local labels -------------------------------------------------------------

def test_dollar_labels_backward_and_forward():
    same("        LDI 3, R0\n$1:     SUBI 1, R0\n        BNZ $1\n        B $2\n        NOP\n$2:     NOP\n",
         "        LDI 3, R0\na:      SUBI 1, R0\n        BNZ a\n        B b\n        NOP\nb:      NOP\n")


def test_newblock_lets_a_local_label_be_defined_again():
    same("$1:     NOP\n        B $1\n        .newblock\n$1:     NOP\n        B $1\n",
         "a:      NOP\n        B a\nb:      NOP\n        B b\n")


def test_section_change_starts_a_new_scope():
    src = "$1:     NOP\n        .data\n        .text\n$1:     NOP\n        B $1\n"
    same(src, "a:      NOP\nb:      NOP\n        B b\n")
    # the label of the old scope is not visible in the new one
    assert errors("$1:     NOP\n        .text\n        B $1\n") == [
        "t.asm:3:11: error: undefined symbol '$1'"]


def test_name_question_labels_outside_macros():
    same("lp?:    NOP\n        B lp?\n        .newblock\nlp?:    NOP\n        B lp?\n",
         "a:      NOP\n        B a\nb:      NOP\n        B b\n")


def test_macro_expansion_has_its_own_scope_and_returns_to_the_callers():
    src = ("m       .macro\n$1:     NOP\n        B $1\n        .endm\n"
           "$1:     NOP\n        m\n        m\n        B $1\n")
    same(src, "a:      NOP\nb:      NOP\n        B b\nc:      NOP\n        B c\n        B a\n")


def test_include_enter_and_leave_reset_local_labels(tmp_path):
    (tmp_path / "inc.asm").write_text("$1:     NOP\n        B $1\n")
    main = tmp_path / "main.asm"
    main.write_text("$1:     NOP\n        .include \"inc.asm\"\n$1:     NOP\n        B $1\n")
    from rapsim.asm.assembler import assemble_file
    w = [int(x) for x in assemble_file(str(main)).obj.section(".text").data]
    assert w == words("a:      NOP\nb:      NOP\n        B b\nc:      NOP\n        B c\n")


def test_local_label_errors_name_the_label_as_written():
    assert errors("$1:     NOP\n$1:     NOP\n") == [
        "t.asm:2:1: error: duplicate definition of '$1' (first defined at t.asm:1)"]
    assert errors("        B $7\n") == ["t.asm:1:11: error: undefined symbol '$7'"]
    assert errors("$1:     NOP\n        .global $1\n") == [
        "t.asm:2:17: error: a local label cannot be .global"]


def test_dollar_alone_is_still_the_current_address():
    same("        NOP\n        B $+1\n        .word $\n", "        NOP\n        B y\ny       .word y\n")


def test_locals_in_strings_and_comments_are_left_alone():
    assert scope_locals('  .string "$1 a?" ; $2 b?', 5) == '  .string "$1 a?" ; $2 b?'
    made: set = set()
    assert scope_locals("x?: B $3", 4, made) == "$x$4: B $3$4" and made == {"$x$4", "$3$4"}
    assert shown("undefined symbol '$3$12'") == "undefined symbol '$3'"


# -- substitution symbols -------------------------------------------------------

def test_asg_replaces_operands_and_mnemonics():
    same('        .asg "R2", ACC\n        .asg AR1, PTR\n        .asg "ADDI", OP\n'
         "        LDI *PTR++, ACC\n        OP 1, ACC\n",
         "        LDI *AR1++, R2\n        ADDI 1, R2\n")


def test_eval_counts_and_forced_substitution():
    src = ("        .eval 3, n\n        .eval n*2+1, m\n        .word n, m\n"
           "        .eval m+1, m\nlab:n:  .word :m:\n        .string \":n:\"\n")
    o = assemble_text(src, "t.asm").obj
    assert [int(w) for w in o.section(".text").data] == [3, 7, 8, ord("3")]
    assert {s.name for s in o.symbols} >= {"lab3"}


def test_asg_may_reassign_and_chains_are_rescanned_without_looping():
    same('        .asg "1", v\n        .asg "2", v\n        .word v\n', "        .word 2\n")
    same('        .asg "b", a\n        .asg "5", b\n        .word a\n', "        .word 5\n")
    # x -> SYM2 -> SYM1 -> x: substitution stops at the symbol met again
    same('x       .set 9\n        .asg "x", SYM1\n        .asg "SYM1", SYM2\n'
         '        .asg "SYM2", x\n        .word x\n', "        .word 9\n")


def test_substitution_skips_strings_comments_and_directive_names():
    assert substitute('  .word a ; a', {"a": "1"}) == "  .word 1 ; a"
    assert substitute('  .string "a"', {"a": "1"}) == '  .string "a"'
    assert substitute('  .word a', {"word": "x"}) == "  .word a"
    assert substitute("a  .word a", {"a": "1"}) == "a  .word 1"
    assert substitute("  .asg a, b", {"a": "1", "b": "2"}, keep_last=True) == "  .asg 1, b"


def test_var_is_local_to_a_macro_call():
    src = ("        .asg \"7\", t\nm       .macro\n        .var t\n        .eval 5, t\n"
           "        .word t\n        .endm\n        m\n        .word t\n")
    same(src, "        .word 5\n        .word 7\n")


def test_eval_of_float_and_errors():
    same("        .eval 0.5*3, f\n        .float f\n", "        .float 1.5\n")
    msgs = errors("        .eval  x+1, y\n        .eval 1\n        .asg \"a\", R0\n"
                  "here:   .eval here, z\n        .var q\n")
    assert msgs == [
        "t.asm:1:16: error: symbol 'x' is not defined at this point",
        "t.asm:2:15: error: .eval takes 2 arguments (a value and a substitution symbol), got 1",
        "t.asm:3:19: error: .asg: 'R0' is not a valid substitution symbol name",
        "t.asm:4:15: error: .eval needs an absolute value, not an address",
        "t.asm:5:9: error: .var is allowed only in a macro",
    ]


# -- .loop / .break / .endloop --------------------------------------------------

def test_loop_repeats_with_a_counter():
    same("        .eval 0, k\n        .loop 5\n        .word k*k\n        .eval k+1, k\n        .endloop\n",
         "        .word 0, 1, 4, 9, 16\n")


def test_break_ends_the_loop_where_it_stands():
    same("        .eval 0, k\n        .loop\n        .word k\n        .eval k+1, k\n"
         "        .break k == 3\n        .word 100\n        .endloop\n        .word k\n",
         "        .word 0, 100, 1, 100, 2, 3\n")
    same("        .loop 4\n        NOP\n        .break\n        .endloop\n", "        NOP\n")


def test_break_inside_if_and_nested_loops():
    src = ("        .eval 0, i\n        .loop 3\n        .eval 0, j\n        .loop\n"
           "        .if j == i\n        .break\n        .endif\n        .word i*10+j\n"
           "        .eval j+1, j\n        .endloop\n        .eval i+1, i\n        .endloop\n")
    same(src, "        .word 10, 20, 21\n")


def test_loop_of_zero_and_default_count():
    assert words("        .loop 0\n        NOP\n        .endloop\n        .word 1\n") == [1]
    assert len(words("        .loop\n        NOP\n        .endloop\n")) == 1024


def test_loop_errors():
    assert errors("        .loop 2\n        NOP\n") == [
        "t.asm:1:9: error: unterminated .loop (missing .endloop)"]
    assert errors("        .endloop\n        .break\n        .loop 1, 2\n        .endloop\n"
                  "        .loop 2000000\n        .endloop\n") == [
        "t.asm:1:9: error: .endloop without .loop",
        "t.asm:2:9: error: .break outside a .loop block",
        "t.asm:3:9: error: .loop takes 0 or 1 arguments, got 2",
        "t.asm:5:15: error: a .loop count must be 0..1048576, got 2000000",
    ]


def test_loop_in_a_macro_with_labels_per_block():
    src = ("tab     .macro n\n        .eval 0, k\n        .loop n\n        .newblock\n"
           "$1:     .word k\n        B $1\n        .eval k+1, k\n        .endloop\n        .endm\n"
           "        tab 2\n")
    same(src, "a:      .word 0\n        B a\nb:      .word 1\n        B b\n")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=0, max_size=12), st.integers(0, 15))
def test_loop_unrolls_like_the_written_out_list(values, stop):
    """A .loop over a table built with .eval equals the words written out."""
    defs = "".join(f'        .asg "{v}", v{i}\n' for i, v in enumerate(values))
    src = (defs + "        .eval 0, i\n        .loop " + str(len(values)) + "\n"
           "        .break i == " + str(stop) + "\n        .word v:i:\n        .eval i+1, i\n"
           "        .endloop\n        .word 12345\n")
    assert words(src) == [v & 0xFFFFFFFF for v in values[:stop]] + [12345]


# -- messages and listing control -----------------------------------------------

def test_emsg_and_wmsg():
    assert errors('        .emsg "table too long"\n') == ["t.asm:1:9: error: table too long"]
    r = assemble_text('        .wmsg "check me"\n        NOP\n', "t.asm")
    assert r.warnings == ["t.asm:1:9: warning: check me"]


def test_nolist_list_mnolist_fcnolist():
    text = listing("        NOP\n        .nolist\n        LDI 1, R0\n        .list\n        LDI 2, R0\n")
    assert "LDI 1" not in text and "LDI 2" in text and "08600002" in text
    m = "m       .macro\n        ADDI 3, R0\n        .endm\n"
    assert "+" in listing(m + "        m\n").split("m\n", 3)[-1]
    assert "ADDI 3, R0" not in listing(m + "        .mnolist\n        m\n").split(".endm", 1)[1]
    skip = "        .if 0\n        GARBAGE\n        .endif\n"
    assert "GARBAGE" in listing(skip)
    assert "GARBAGE" not in listing("        .fcnolist\n" + skip)


def test_title_page_length_width():
    text = listing('        .title "my kernel"\n        NOP\n        .page\n        NOP\n')
    pages = text.split("\f")
    assert len(pages) == 2 and all("my kernel" in p.splitlines()[0] for p in pages)
    assert "page 2" in pages[1].splitlines()[0]
    long = "        .length 50\n" + "        NOP\n" * 120
    assert len(listing(long).split("\f")) == 3
    wide = listing("        .width 80\n        NOP   ; " + "x" * 200 + "\n")
    assert max(len(line) for line in wide.splitlines()) <= 80
    assert errors("        .length 10\n        .title 5\n") == [
        "t.asm:1:17: error: .length must be 50..32767, got 10",
        "t.asm:2:16: error: .title needs a title in double quotes"]


def test_name_question_labels_never_clash_with_dollar_identifiers():
    # lp? of scope 0 and x? of the first macro call were the symbols lp$0 and
    # x$1, so a program's own lp$0 / x$1 was a "duplicate definition".
    same("lp$0:   NOP\nlp?:    NOP\n        B lp?\n        B lp$0\n",
         "a:      NOP\nb:      NOP\n        B b\n        B a\n")
    same("x$1:    NOP\nm       .macro\nx?:     NOP\n        B x?\n        .endm\n        m\n",
         "a:      NOP\nb:      NOP\n        B b\n")
    assert errors("lp?:    NOP\nlp?:    NOP\n        B y?\n") == [
        "t.asm:2:1: error: duplicate definition of 'lp?' (first defined at t.asm:1)",
        "t.asm:3:11: error: undefined symbol 'y?'"]
    assert shown("'$loop$12' '$a$b$3' 'a$1$2'") == "'loop?' 'a$b?' 'a$1$2'"
