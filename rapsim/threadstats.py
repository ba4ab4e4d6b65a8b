"""What a run's host threads did, in one line (``Simulator.thread_stats``;
core/schedule.pxi's ThreadStats; docs/performance.md, "Node groups on host
threads").  Used by the benchmarks that compare 1 and 2 threads."""
from __future__ import annotations

import os
import statistics


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


def alternate(run, repeat: int) -> tuple[dict, dict]:
    """``run(threads)`` on 1 and 2 threads alternated, ``repeat`` times each
    (the benchmarks' ``--threads``).  ``run`` returns a figure where less is
    better (seconds) and a line, printed with the load average before the
    run; returns the best and the median figure of each thread count."""
    got: dict = {1: [], 2: []}
    for _ in range(repeat):
        for threads in (1, 2):
            load = os.getloadavg()[0]
            value, line = run(threads)
            got[threads].append(value)
            print(f"  {threads} thread(s), load {load:.2f}: {line}", flush=True)
    return ({t: min(v) for t, v in got.items()},
            {t: statistics.median(v) for t, v in got.items()})


def add_options(ap) -> None:
    """The benchmarks' ``--repeat`` and ``--handoff-waits`` (for ``--threads``)."""
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of 1 and 2 threads each, alternated (--threads; default 3)")
    ap.add_argument("--handoff-waits", type=int, default=None, metavar="N",
                    help="Simulator.handoff_waits of the threaded runs (--threads; default: "
                         "the simulator's; 0: no meeting asked for a ring-bound phase)")


def check_options(ap, a) -> None:
    """argparse's error for a bad ``--repeat`` or ``--handoff-waits``."""
    if a.repeat < 1:
        ap.error("--repeat must be at least 1")
    if a.handoff_waits is not None and a.handoff_waits < 0:
        ap.error("--handoff-waits must be at least 0")
