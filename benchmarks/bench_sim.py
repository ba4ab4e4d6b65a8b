"""Single-node simulation speed: simulated instructions per host second.

Run with ``pytest benchmarks/bench_sim.py --benchmark-only`` (pytest-benchmark),
or ``python benchmarks/bench_sim.py`` to print the figures without pytest.

(a) ``dot``: the inner loop of every layer, ``RPTS 999 || MPYF3 *AR0++,*AR1++,R0
    || ADDF3 R0,R2,R2`` with one vector in on-chip RAM0 and the other in SRAM
    (one cycle per step), repeated 10,000 times by an outer loop: 10.04 M
    instructions.  Target: >= 30 M instructions/s.
(b) ``branchy``: an integer loop of 12 instructions with two conditional
    branches (one standard, taken 3 times in 4; one delayed, the loop back),
    a load and a store to on-chip RAM, repeated 850,000 times: about 10 M
    instructions, most of them with a different pre-decoded form each step.
(c) ``nn``: the forward pass of an nn-style layer: for each of 64 rows, a
    64-step ``RPTS`` dot product of the row (SRAM) with the input (on-chip
    RAM0), then a branchy piecewise-linear sigmoid (clamped below -4 and
    above 4, one of two slopes in between: compares, conditional and
    delayed branches) stored to on-chip RAM1; repeated 2,000 times: about
    10 M instructions, three quarters of them RPTS repetitions.

The figure is simulated instructions (``counters()["instructions"]``) divided
by the host seconds of ``Simulator.run`` (assembly, linking and loading are
not timed).
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import RAM0_BASE
from rapsim.toolchain import build_text

DOT_TARGET = 30e6


def _load32(value: int, reg: str) -> str:
    hi, lo = value >> 16, value & 0xFFFF
    return f"LDI {hi}, {reg}\n        LSH 16, {reg}\n        OR {lo}, {reg}"


def dot_program(outer: int = 10_000, n: int = 1000) -> str:
    return f"""
        .global start
start:  {_load32(RAM0_BASE, "AR2")}    ; a: on-chip RAM0
        LDI  0x2000, AR3                ; b: SRAM
        LDI  {outer - 1}, AR4
        LDF  0, R2
loop:   LDI  AR2, AR0
        LDI  AR3, AR1
        LDF  0, R0
        RPTS {n - 1}
        MPYF3 *AR0++, *AR1++, R0
     || ADDF3 R0, R2, R2
        DBU  AR4, loop
        ADDF R0, R2
        SWI
"""


def branchy_program(iterations: int = 850_000) -> str:
    return f"""
        .global start
start:  {_load32(iterations, "R1")}
        {_load32(RAM0_BASE, "AR6")}
        LDI  0, R0
        LDI  0, R3
loop:   ADDI 1, R0
        LDI  R0, R2
        AND  3, R2
        BNZ  skip               ; taken 3 times in 4
        ADDI R0, R3
        SUBI 1, R4
skip:   LDI  *AR6, R5
        XOR  R0, R5
        STI  R5, *+AR6(1)
        CMPI R1, R0
        BLTD loop               ; delayed loop back
        ADDI 2, R7
        SUBI3 R0, R7, R6
        MPYI 3, R6
        SWI
"""


def nn_program(passes: int = 2000, rows: int = 64, cols: int = 64) -> str:
    return f"""
        .global start
start:  {_load32(RAM0_BASE, "AR5")}    ; x: on-chip RAM0
        {_load32(RAM0_BASE + 0x400, "AR6")}  ; y: on-chip RAM1
        LDI  {passes - 1}, AR4
        LDF  4.0, R6
        LDF  -4.0, R7
pass:   LDI  0x2000, AR0                ; W: SRAM, row after row
        LDI  AR6, AR2
        LDI  {rows - 1}, AR3
row:    LDI  AR5, AR1
        LDF  0, R0
        LDF  0, R2
        RPTS {cols - 1}
        MPYF3 *AR0++, *AR1++, R0
     || ADDF3 R0, R2, R2
        ADDF R0, R2                     ; the row's sum
        CMPF R6, R2
        BGE  high
        CMPF R7, R2
        BLE  low
        ABSF R2, R3
        CMPF 1.0, R3
        BGTD mid                        ; outer part: slope 1/16
        MPYF 0.25, R2                   ; (inner part: slope 1/4)
        ADDF 0.5, R2
        NOP
        BRD  store
        NOP
        NOP
        NOP
mid:    SUBF 0.5, R2
        MPYF 0.25, R2
        ADDF 0.6875, R2
        BR   store
high:   LDF  1.0, R2
        BR   store
low:    LDF  0.0, R2
store:  STF  R2, *AR2++
        DBU  AR3, row
        DBU  AR4, pass
        SWI
"""


def _setup(src: str) -> Simulator:
    sim = Simulator(MachineConfig())
    sim.load(build_text(src))
    if src.lstrip().startswith(".global start\nstart:  " + _load32(RAM0_BASE, "AR5")):
        _nn_data(sim)
    return sim


def _nn_data(sim: Simulator, rows: int = 64, cols: int = 64) -> None:
    """Weights and inputs of the nn kernel (fixed seed): sums spread over
    every part of the sigmoid."""
    rng = np.random.default_rng(16)
    sim.write_floats(0x2000, rng.standard_normal(rows * cols) * 0.6)
    sim.write_floats(RAM0_BASE, rng.standard_normal(cols))


def _run(sim: Simulator) -> int:
    res = sim.run(max_cycles=10**10)
    assert res.event == "break", res.messages
    return sim.counters(0)["instructions"]


def _figure(benchmark, src: str) -> float:
    # a fresh, loaded simulator per round (not timed), one run per round
    count = benchmark.pedantic(_run, setup=lambda: ((_setup(src),), {}), rounds=3, iterations=1,
                               warmup_rounds=0)
    best = benchmark.stats.stats.min
    rate = count / best
    benchmark.extra_info["instructions"] = count
    benchmark.extra_info["instructions_per_second"] = round(rate)
    return rate


def test_dot_product_rpts(benchmark):
    rate = _figure(benchmark, dot_program())
    benchmark.extra_info["target"] = DOT_TARGET
    assert benchmark.extra_info["instructions"] >= 10_000_000
    print(f"\ndot product: {rate / 1e6:.1f} M simulated instructions/s (target 30)")


def test_branchy_integer_loop(benchmark):
    rate = _figure(benchmark, branchy_program())
    assert benchmark.extra_info["instructions"] >= 10_000_000
    print(f"\nbranchy loop: {rate / 1e6:.1f} M simulated instructions/s")


def test_nn_kernel(benchmark):
    rate = _figure(benchmark, nn_program())
    assert benchmark.extra_info["instructions"] >= 9_000_000
    print(f"\nnn kernel: {rate / 1e6:.1f} M simulated instructions/s")


def main() -> None:
    for name, src in (("dot", dot_program()), ("branchy", branchy_program()),
                      ("nn", nn_program())):
        best = None
        for _ in range(3):
            sim = _setup(src)
            t = time.perf_counter()
            count = _run(sim)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        print(f"{name:8s} {count:>10d} instructions  {count / best / 1e6:6.1f} M instructions/s")


if __name__ == "__main__":
    sys.exit(main())
