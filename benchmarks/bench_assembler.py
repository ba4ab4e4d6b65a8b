"""Assembler throughput: source lines assembled per second.

Run with ``pytest benchmarks/bench_assembler.py`` (pytest-benchmark).  The
input is generated: routines of loads, stores, integer and float arithmetic
(2- and 3-operand), parallel pairs, loops with delayed branches, calls, data
tables (``.word`` with label addresses, ``.float``), ``.bss`` buffers,
comments and blank lines; labels are unique, operands random (fixed seed).
``python benchmarks/bench_assembler.py [LINES]`` prints the figure without
pytest.
"""
from __future__ import annotations

import random
import sys
import time

import pytest

from rapsim.asm import parser
from rapsim.asm.assembler import assemble_text

LINES = 100_000


class _Operands:
    """Random operand text."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def r(self, lo: int = 0, hi: int = 8) -> str:
        return f"R{self.rng.randrange(lo, hi)}"

    def ind(self, short: bool = False) -> str:
        ar, d = self.rng.randrange(8), self.rng.randrange(16)
        if short:
            return self.rng.choice([f"*AR{ar}", f"*AR{ar}++", f"*AR{ar}--", f"*+AR{ar}(1)",
                                    f"*AR{ar}++(IR0)", f"*AR{ar}++(1)%"])
        return self.rng.choice([f"*AR{ar}", f"*AR{ar}++", f"*+AR{ar}({d})", f"*AR{ar}++({d})",
                                f"*--AR{ar}({d})", f"*AR{ar}++(IR0)", f"*AR{ar}--(IR1)%"])

    def n(self, lo: int, hi: int) -> int:
        return self.rng.randrange(lo, hi)


#: Instruction templates: o is an _Operands, t the routine number, labels its labels.
_TEMPLATES = [
    lambda o, t, labels: f"LDI     {o.n(-1000, 1000)}, {o.r()}",
    lambda o, t, labels: f"LDF     {o.ind()}, {o.r()}",
    lambda o, t, labels: f"STF     {o.r()}, {o.ind()}",
    lambda o, t, labels: f"ADDI    {o.ind()}, {o.r()}",
    lambda o, t, labels: f"MPYF3   {o.ind(True)}, {o.r()}, {o.r()}",
    lambda o, t, labels: f"MPYF3   {o.ind(True)}, {o.ind(True)}, {o.r(0, 2)} "
                         f"|| ADDF3 {o.r()}, {o.r(2, 4)}, {o.r(2, 4)}",
    lambda o, t, labels: f"LDI     @tab{t}+{o.n(0, 8)}, {o.r()}",
    lambda o, t, labels: f"SUBI3   {o.r()}, {o.r()}, {o.r()}",
    lambda o, t, labels: f"BNE     {o.rng.choice(labels)}",
    lambda o, t, labels: f"ADDF    {o.rng.choice(['1.5', '-2.0', '0.25', '3.0'])}, {o.r()}",
    lambda o, t, labels: f"CMPI    {o.n(0, 100)}, {o.r()}",
    lambda o, t, labels: f"LSH     {o.n(-8, 8)}, {o.r()}",
    lambda o, t, labels: f"STI     {o.r()}, {o.ind()}",
    lambda o, t, labels: o.rng.choice(["NOP", "PUSH    R4", "POP     R4", "ADDI    1, AR0"]),
]


def _instruction(o: _Operands, routine: int, labels: list[str]) -> str:
    return o.rng.choice(_TEMPLATES)(o, routine, labels)


def generate(n_lines: int = LINES, seed: int = 1) -> str:
    """A source of about ``n_lines`` lines."""
    rng = random.Random(seed)
    ops = _Operands(rng)
    out: list[str] = ["* generated benchmark input", "        .global main", "        .text"]
    routine = 0
    while len(out) < n_lines:
        routine += 1
        labels = [f"r{routine}_top"]
        out.append(f"r{routine}_top:")
        out.append(f"        LDP     tab{routine}")
        out.append(f"        LDI     @cnt{routine}, AR2   ; loop count")
        for j in range(rng.randrange(20, 40)):
            if rng.random() < 0.1:
                lab = f"r{routine}_{j}"
                labels.append(lab)
                out.append(f"{lab}  {_instruction(ops, routine, labels)}")
            elif rng.random() < 0.05:
                out.append("")
            elif rng.random() < 0.05:
                out.append(f"* step {j}")
            else:
                out.append(f"        {_instruction(ops, routine, labels)}")
        out.append(f"        DBNZD   AR2, r{routine}_top")
        out.append("        NOP")
        out.append("        NOP")
        out.append("        NOP")
        out.append(f"        CALL    r{max(1, routine - 1)}_top")
        out.append("        RETS")
        out.append("        .data")
        vals = ", ".join(str(rng.randrange(1 << 16)) for _ in range(8))
        out.append(f"tab{routine}  .word   {vals}")
        out.append(f"cnt{routine}  .word   {rng.randrange(1, 100)}, r{routine}_top, tab{routine}+4")
        out.append(f"        .float  {rng.uniform(-10, 10):.4f}, {rng.uniform(-1, 1):.6f}, 1.0e-3")
        out.append(f"        .bss    buf{routine}, {rng.randrange(1, 64)}")
        out.append("        .text")
    out.insert(3, "main:")
    return "\n".join(out) + "\n"


def _assemble(text: str):
    return assemble_text(text, "bench.asm")


@pytest.fixture(scope="module")
def source() -> str:
    return generate()


def test_assembler_throughput(benchmark, source):
    n = source.count("\n")
    result = benchmark.pedantic(_assemble, args=(source,), rounds=3, iterations=1,
                                setup=parser.clear_caches)
    assert result.obj.section(".text").size > n // 2
    mean = benchmark.stats.stats.mean
    benchmark.extra_info["lines"] = n
    benchmark.extra_info["lines_per_second"] = round(n / mean)
    assert mean < 10.0


def main(argv: list[str]) -> None:
    n = int(argv[1]) if len(argv) > 1 else LINES
    text = generate(n)
    lines = text.count("\n")
    for label, clear in (("cold parse cache", True), ("warm parse cache", False)):
        if clear:
            parser.clear_caches()
        t0 = time.perf_counter()
        _assemble(text)
        dt = time.perf_counter() - t0
        print(f"{lines} lines in {dt:.2f} s = {lines / dt:,.0f} lines/s ({label}, "
              f"{len(parser._cache)} distinct statements)")


if __name__ == "__main__":
    main(sys.argv)
