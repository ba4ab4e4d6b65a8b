"""Assembler expressions: literals, C precedence, relocatable arithmetic."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapsim.asm.assembler import assemble_text
from rapsim.asm.expr import ExprError, binary
from rapsim.asm.operands import Reloc
from rapsim.asm.parser import parse_number
from rapsim.errors import Diagnostics


def value(expr: str, pre: str = "") -> int:
    """The 32-bit word ``.word expr`` assembles to."""
    o = assemble_text(f"{pre}        .data\n        .word {expr}\n", "e.asm").obj
    return int(o.section(".data").data[-1])


def error(src: str) -> str:
    with pytest.raises(Diagnostics) as e:
        assemble_text(src, "e.asm")
    return e.value.messages[0]


@pytest.mark.parametrize("text,v", [
    ("42", 42), ("0", 0), ("007", 7), ("0x1F", 31), ("0X1f", 31), ("1Fh", 31), ("0FFh", 255),
    ("0ffH", 255), ("1010b", 10), ("1010B", 10), ("17q", 15), ("17o", 15), ("1.5", 1.5),
    ("2.5e-3", 0.0025), ("1e3", 1000.0), ("1E+2", 100.0), ("3.", 3.0), ("1Eh", 30), ("1E3h", 0x1E3),
])
def test_number_literals(text, v):
    got = parse_number(text)
    assert got == v and type(got) is type(v)


@pytest.mark.parametrize("text", ["12zz", "0x", "0xG", "19b", "8q", "1.5.3", "h"])
def test_bad_number_literals(text):
    with pytest.raises(ValueError):
        parse_number(text)


@pytest.mark.parametrize("expr,v", [
    ("1+2*3", 7), ("(1+2)*3", 9), ("10-4-3", 3), ("100/10/5", 2), ("7%4", 3),
    ("1<<4|1", 17), ("1|2^3&1", 3), ("~0&0FFh", 255), ("-(3)", -3 & 0xFFFFFFFF),
    ("+5", 5), ("- -5", 5), ("-7/2", (-3) & 0xFFFFFFFF), ("-7%2", (-1) & 0xFFFFFFFF),
    ("1<2", 1), ("2<=1", 0), ("3==3", 1), ("3!=3", 0), ("!0", 1), ("!5", 0),
    ("1+2==3", 1), ("1<<2<<1", 8), ("'a'", 97), ("'''' ", 39), ("-1", 0xFFFFFFFF),
    ("0FFFFFFFFh", 0xFFFFFFFF), ("0x80000000", 0x80000000), ("256>>4", 16), ("-16>>2", (-4) & 0xFFFFFFFF),
])
def test_integer_expressions(expr, v):
    assert value(expr) == v


def test_symbols_and_dollar():
    pre = "K       .set 10\nL       .equ K*2\n        .set M, L+1\n"
    assert value("K+L+M", pre) == 10 + 20 + 21
    o = assemble_text("        .data\n        .word 0\nx       .word $, $-x, x+2-$\n", "e.asm").obj
    d = o.section(".data")
    assert [int(w) for w in d.data] == [0, 0, 0, 2]     # $ = start of the directive
    assert [(r.offset, r.symbol, r.addend) for r in d.relocs] == [(1, ".data", 1)]


def test_label_difference_is_absolute():
    src = "a       NOP\n        NOP\nb       NOP\n        .data\n        .word b-a, (b-a)*4\n"
    o = assemble_text(src, "e.asm").obj
    assert [int(w) for w in o.section(".data").data] == [2, 8]
    assert o.section(".data").relocs == []


def test_float_constants():
    pre = "F       .set 1.5\n"
    o = assemble_text(pre + "        .data\n        .float F*2, 1/4.0, -F, 2e0\n", "e.asm").obj
    from rapsim.asm.floatfmt import to_single
    assert [int(w) for w in o.section(".data").data] == [to_single(v) for v in (3.0, 0.25, -1.5, 2.0)]


@pytest.mark.parametrize("expr,msg", [
    ("x*2", "expression is not relocatable"), ("2-x", "expression is not relocatable"),
    ("x+y", "expression is not relocatable"), ("-x", "expression is not relocatable"),
    ("x|1", "expression is not relocatable"), ("x-e", "expression is not relocatable"),
    ("1/0", "division by zero"), ("5%(2-2)", "division by zero"),
    ("1.5&1", "operator '&' needs integer operands"), ("~1.5", "operator '~' needs integer operands"),
    ("1<<64", "shift count 64 out of range 0..63"), ("1>>-1", "shift count -1 out of range 0..63"),
])
def test_expression_errors(expr, msg):
    src = f"        .global e\nx       NOP\ny       NOP\n        .data\n        .word {expr}\n"
    assert error(src).endswith(f"error: {msg}")


def test_error_columns_point_at_the_operator():
    assert error("        .word 1 + 2/0\n") == "e.asm:1:20: error: division by zero"
    assert error("x       NOP\n        .word 3 * x\n") == \
        "e.asm:2:17: error: expression is not relocatable"


def test_relocatable_rules():
    a, b, e = Reloc(".text", 4), Reloc(".text", 1), Reloc("ext", 0)
    assert binary("+", a, 2, 1) == Reloc(".text", 6)
    assert binary("+", 2, a, 1) == Reloc(".text", 6)
    assert binary("-", a, 2, 1) == Reloc(".text", 2)
    assert binary("-", a, b, 1) == 3
    assert binary("<", b, a, 1) == 1
    for op, x, y in (("-", 2, a), ("-", a, e), ("*", a, 2), ("+", a, b), ("<", a, e)):
        with pytest.raises(ExprError, match="not relocatable"):
            binary(op, x, y, 1)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.integers(1, 50))
def test_c_semantics(a, b, c):
    # / and % truncate towards zero, as in C
    q = abs(a) // c * (1 if a >= 0 else -1)
    assert binary("/", a, c, 1) == q
    assert binary("%", a, c, 1) == a - q * c
    assert binary("+", binary("*", a, c, 1), b, 1) == a * c + b
