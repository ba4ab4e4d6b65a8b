"""Issue 18: hostile assembly sources end in located errors, never in an
internal error or a hang (huge numbers, exponential expansion)."""
from __future__ import annotations

import time

import pytest

from rapsim.asm.assembler import ERROR_LIMIT, assemble_text
from rapsim.asm.walker import EXPANSION_LIMIT
from rapsim.errors import Diagnostics


def errors(src: str, seconds: float = 120.0) -> list[str]:
    t0 = time.perf_counter()
    with pytest.raises(Diagnostics) as e:
        assemble_text(src, "h.asm")
    assert time.perf_counter() - t0 < seconds
    return [m for m in e.value.messages if ": error: " in m]


HUGE = "1" * 5000


@pytest.mark.parametrize("line", [
    f"        .word {HUGE}",
    f"        .int 0x{'F' * 3000}",
    f"        .word {'1' * 3000}b",
    f"        LDI *+AR0({HUGE}),R0",
    f"        LDI *+AR0(1+{HUGE}),R0",
    f"        .eval {HUGE}, x",
    f"x       .set {HUGE}",
    f"        .loop {HUGE}\n        .endloop",
    f"        .space {HUGE}",
])
def test_huge_integer_literals_are_range_errors(line):
    msgs = errors(line + "\n")
    assert msgs[0].startswith("h.asm:1:")
    assert "out of range (integers are at most 64 bits: 0..18446744073709551615)" in msgs[0]
    assert len(msgs[0]) < 300                      # the literal is shortened


@pytest.mark.parametrize("line", [f"        .float {HUGE}.0", "        .float 1e99999"])
def test_huge_float_literals_are_range_errors(line):
    assert "is too large" in errors(line + "\n")[0]


def test_integer_literal_limits_are_exact():
    assert assemble_text("        .word 0FFFFFFFFh\n").obj.sections[0].data[0] == 0xFFFFFFFF
    msgs = errors("        .word 18446744073709551616\n")
    assert "out of range" in msgs[0]
    errors("        .word 18446744073709551615\n")       # a value, but not a 32-bit word


def test_self_multiplying_eval_is_an_overflow_error():
    msgs = errors("        .eval 2, x\n        .loop 100\n        .eval x*x, x\n"
                  "        .endloop\n        .word x\n")
    assert msgs[0].startswith("h.asm:3:")
    assert "out of range (integers are at most 64 bits" in msgs[0]
    msgs = errors("        .word " + " * ".join(["(1 << 63)"] * 33) + "\n")
    assert "integer overflow: the value needs more than 2048 bits" in msgs[0]


def test_doubly_recursive_macro_stops_at_the_error_limit():
    msgs = errors("m       .macro\n        m\n        m\n        .endm\n        m\n")
    assert len(msgs) == ERROR_LIMIT + 1
    assert msgs[-1].endswith(f"{ERROR_LIMIT} errors: assembly stopped (in macro 'm' called at h.asm:3)")


def test_nested_loops_stop_at_the_expansion_limit():
    msgs = errors("        .loop 100000\n        .loop 100000\n        NOP\n"
                  "        .endloop\n        .endloop\n")
    assert msgs == [f"h.asm:1:9: error: macro and .loop expansion exceeds {EXPANSION_LIMIT} lines "
                    "(a recursive macro or nested .loops?); assembly stopped"]


def test_macro_calls_expanding_past_the_limit_name_the_outer_call():
    src = ("m       .macro\n        .loop 1000\n        NOP\n        .endloop\n        .endm\n"
           "        .word 1\n        .loop 2000\n        m\n        .endloop\n")
    msgs = errors(src)
    assert msgs[0].startswith("h.asm:7:9: error: macro and .loop expansion exceeds")


def test_macro_argument_that_doubles_is_refused():
    msgs = errors("m       .macro a\n        m a a\n        .endm\n        m 1\n")
    assert "the arguments of macro 'm' are 131072 characters long; at most 65536" in msgs[0]


def test_substitution_symbols_that_double_are_refused():
    src = '        .asg "x", s0\n' + "".join(
        f'        .asg "s{i} s{i}", s{i + 1}\n' for i in range(20)) + "        .word s20\n"
    msgs = errors(src)
    assert msgs[0].startswith("h.asm:22:1: error: substitution makes the line longer than 65536")


def test_asg_text_too_long_is_refused():
    msgs = errors(f'        .asg "{"x" * 70000}", s\n')
    assert "a substitution symbol holds at most 65536" in msgs[0]


def test_ordinary_expansion_within_limits_still_works():
    src = ("        .loop 300\n        .loop 1000\n        .word 1\n        .endloop\n"
           "        .endloop\n")
    assert assemble_text(src).obj.sections[0].size == 300_000
