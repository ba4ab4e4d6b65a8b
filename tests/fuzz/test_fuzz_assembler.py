"""Fuzz: the assembler on mutated project sources and on generated lines
(any input gives an object or located errors; never an internal error, a
traceback or a hang)."""
from __future__ import annotations

import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit

SEEDS = fuzzkit.sources()

#: directive sequences that expand: macros, loops, substitution symbols
EXPANDERS = [
    "m .macro\n m\n .endm\n m\n",
    "m .macro a\n m a a\n .endm\n m 1\n",
    " .loop 1000\n .loop 1000\n .word 1\n .endloop\n .endloop\n",
    " .asg \"x\", s\n .loop 60\n .asg \":s: :s:\", s\n .endloop\n .word 1\n",
    " .eval 2, x\n .loop 100\n .eval x*x, x\n .endloop\n .word x\n",
    " .loop 5000000000\n .endloop\n",
    " .space 100000000\n",
    " .bss b, 100000000\n",
]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz_as")
    shutil.copy(fuzzkit.ROOT / "firmware" / "rap.inc", d / "rap.inc")
    return d


def _assemble(work, text: str) -> None:
    src = fuzzkit.write(work / "f.asm", text)
    fuzzkit.rap(["as", src, "-o", str(work / "f.obj"), "-I", str(work)], seconds=30)


@fuzzkit.examples(ci=40, long=4000)
@given(case=fuzzkit.mutated(SEEDS))
def test_mutated_sources(work, case):
    fuzzkit.count("assembler: mutated sources")
    _assemble(work, case[1])


@fuzzkit.examples(ci=150, long=12000)
@given(text=fuzzkit.token_lines())
def test_generated_sources(work, text):
    fuzzkit.count("assembler: generated sources")
    _assemble(work, "        .global start\nstart:\n" + text)


@fuzzkit.examples(ci=30, long=300)
@given(parts=st.lists(st.sampled_from(EXPANDERS + fuzzkit.TOKENS), min_size=1, max_size=6))
def test_expansion(work, parts):
    fuzzkit.count("assembler: expansion")
    _assemble(work, " ".join(parts) + "\n")
