"""What the kernel writer's tools cost (rapsim/core/probe.pxi): simulated
instructions per host second of bench_sim's branchy integer loop (about 10 M
instructions) and RPTS dot product

  * ``off``: no probe (the plain loop: must match bench_sim.py's figures;
    tracing off costs nothing, since run_machine checks for a probe once per
    call of run_node, not per instruction);
  * ``armed``: a breakpoint on an address the program never reaches (every
    instruction goes through the instrumented loop, no record is kept);
  * ``traced``: every instruction recorded and handed to a sink that only
    counts them (the cost of the C-level record, not of formatting it);
  * ``text``: the text trace (rapsim.trace.TextTrace, ``rap run --trace``)
    of a run of TEXT_CYCLES cycles, formatted into memory: lines per second.

Run with ``pytest benchmarks/bench_probe.py --benchmark-only`` or
``python benchmarks/bench_probe.py``.
"""
from __future__ import annotations

import io
import sys
import time

from bench_sim import _setup, branchy_program, dot_program

MODES = ("off", "armed", "traced")
TEXT_CYCLES = 50_000


def _prepared(src: str, mode: str):
    sim = _setup(src)
    if mode == "armed":
        sim.probes.break_at(0xFFFFF0)
    elif mode == "traced":
        count = [0]
        sim.probes.trace(lambda recs: count.__setitem__(0, count[0] + len(recs)))
    return sim


def _run(sim) -> int:
    res = sim.run(max_cycles=10**10)
    assert res.event == "break", res.messages
    return sim.counters(0)["instructions"]


def _figure(benchmark, src: str, mode: str) -> float:
    count = benchmark.pedantic(_run, setup=lambda: ((_prepared(src, mode),), {}), rounds=3,
                               iterations=1, warmup_rounds=0)
    rate = count / benchmark.stats.stats.min
    benchmark.extra_info["instructions_per_second"] = round(rate)
    return rate


def test_branchy_off(benchmark):
    _figure(benchmark, branchy_program(), "off")


def test_branchy_armed(benchmark):
    _figure(benchmark, branchy_program(), "armed")


def test_branchy_traced(benchmark):
    _figure(benchmark, branchy_program(), "traced")


def _text_lines(src: str) -> int:
    from rapsim.trace import TextTrace
    sim = _setup(src)
    sink = TextTrace(sim, io.StringIO())
    sim.probes.trace(sink)
    sim.run(max_cycles=TEXT_CYCLES)
    sim.probes.drain()
    return sink.lines


def test_branchy_text(benchmark):
    lines = benchmark.pedantic(_text_lines, args=(branchy_program(),), rounds=3, iterations=1)
    benchmark.extra_info["lines_per_second"] = round(lines / benchmark.stats.stats.min)


def test_dot_armed(benchmark):
    _figure(benchmark, dot_program(), "armed")


def test_dot_off(benchmark):
    _figure(benchmark, dot_program(), "off")


def test_dot_traced(benchmark):
    _figure(benchmark, dot_program(), "traced")


def main() -> None:
    for name, src in (("branchy", branchy_program()), ("dot", dot_program())):
        for mode in MODES:
            best = None
            for _ in range(3):
                sim = _prepared(src, mode)
                t = time.perf_counter()
                count = _run(sim)
                dt = time.perf_counter() - t
                best = dt if best is None else min(best, dt)
            print(f"{name:8s} {mode:7s} {count:>10d} instructions  "
                  f"{count / best / 1e6:6.1f} M instructions/s")
    t = time.perf_counter()
    lines = _text_lines(branchy_program())
    dt = time.perf_counter() - t
    print(f"branchy  text    {lines:>10d} lines  {dt / lines * 1e6:6.1f} us a line")


if __name__ == "__main__":
    sys.exit(main())
