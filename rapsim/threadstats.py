"""What a run's host threads did, in one line (``Simulator.thread_stats``;
core/schedule.pxi's ThreadStats; docs/performance.md, "Node groups on host
threads").  Used by the benchmarks that compare 1 and 2 threads."""
from __future__ import annotations


def speedup_bound(st: dict) -> float:
    """The speed-up the instructions each thread ran allow: all the
    instructions over those on the longest thread (one thread's calls, the
    rounds over every node, and the busiest group of each threaded call).  A
    bound from simulated counts, which the host's load moves little (which
    phases run in the rounds does depend on the host)."""
    total = st["instr_single"] + st["instr_serial"] + st["instr_parallel"]
    longest = st["instr_single"] + st["instr_serial"] + st["instr_group_max"]
    return total / max(longest, 1)


def summary(st: dict) -> str:
    """Core calls, threads started, meetings (declined, asked for a
    ring-bound phase), waits, sleeps, the share of node-cycles and of
    instructions run on one thread, and :func:`speedup_bound`."""
    cycles = st["cycles_single"] + st["cycles_serial"] + st["cycles_parallel"]
    instr = st["instr_single"] + st["instr_serial"] + st["instr_parallel"]
    one_c = st["cycles_single"] + st["cycles_serial"]
    one_i = st["instr_single"] + st["instr_serial"]
    return (f"core calls {st['calls']} (threaded {st['threaded_calls']}, begun in the rounds "
            f"over every node {st['serial_starts']}), threads started {st['thread_starts']}, "
            f"meetings {st['meetings']} (declined {st['declined']}, asked {st['asked']}), "
            f"waits {st['waits']} (hand-offs {st['handoffs']}), sleeps {st['sleeps']}; on one "
            f"thread {100 * one_c / max(cycles, 1):.1f}% of node-cycles, "
            f"{100 * one_i / max(instr, 1):.1f}% of instructions; bound {speedup_bound(st):.2f}x")
