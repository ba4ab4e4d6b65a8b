"""Training speed of the speech-style MLP (examples/speech.net, 234-512-61)
on the simulated RAP: MCPS, MCUPS and host seconds per simulated training
pattern on 4, 16, 40 and 64 nodes (docs/compiler.md, "Performance"), and
the simulator's speed on this real workload (simulated node-cycles per host
second of the run, host calls included).

    python benchmarks/bench_train.py [PATTERNS]     print the table (default 16)
    python benchmarks/bench_train.py [PATTERNS] --columns   the same, mapping columns
    python benchmarks/bench_train.py --threads [PATTERNS]     40 nodes, 1 and 2 threads: the ratio
    python benchmarks/bench_train.py --breakdown [PATTERNS]   where a pattern's host time goes
    pytest benchmarks/bench_train.py --benchmark-only

Each point is :func:`rapsim.compiler.train.measure`: one epoch of PATTERNS
random patterns (on-line training) and an evaluation pass over them and as
many more (forward only), at the default machine configuration (16 MHz,
SRAM 0 wait states, DRAM 2).
"""
from __future__ import annotations

import os
import sys
import time

import pytest

from rapsim.compiler.parser import parse_file
from rapsim.compiler.train import measure
from rapsim.config import MachineConfig
from rapsim.threadstats import add_options, alternate, check_options, summary

SPEECH = os.path.join(os.path.dirname(__file__), "..", "examples", "speech.net")
NODES = (4, 16, 40, 64)
#: the RAP's published figures (../shared/RAP-REFERENCE.md)
PUBLISHED = {20: "200-300 MCPS, 30-60 MCUPS", 40: "574 MCPS, 106 MCUPS"}


def point(nodes: int, patterns: int = 16, threads: int = 1, mapping: str | None = None,
          eval_mapping: str | None = None, stats: dict | None = None,
          handoff_waits: int | None = None) -> dict:
    """One point; ``stats``, if given, is filled with the run's
    ``thread_stats()`` (what the host threads did) and its CPU seconds;
    ``handoff_waits``: that tuning of the threads (Simulator.handoff_waits)
    instead of the default."""
    net = parse_file(SPEECH)
    sims = []

    def attach(sim):
        sims.append(sim)
        if handoff_waits is not None:
            sim.handoff_waits = handoff_waits

    t0, c0 = time.perf_counter(), time.process_time()
    res = measure(net, MachineConfig(nodes=nodes), train_patterns=patterns,
                  test_patterns=patterns, threads=threads, mapping=mapping,
                  eval_mapping=eval_mapping, instrument=attach)
    wall = time.perf_counter() - t0
    if stats is not None:
        stats.update(sims[-1].thread_stats())
        stats["cpu_s"] = time.process_time() - c0
    p = res.performance.to_dict()
    return {"nodes": nodes, "mcps": p["mcps"], "mcups": p["mcups"],
            "mcps_pct": p["mcps_percent_of_peak"], "mcups_pct": p["mcups_percent_of_peak"],
            "train_cycles_per_pattern": p["train"]["cycles"] / p["train"]["patterns"],
            "eval_cycles_per_pattern": p["evaluate"]["cycles"] / p["evaluate"]["patterns"],
            "host_s_per_pattern": res.host_seconds_per_pattern, "wall_s": wall,
            "node_cycles_per_second": res.cycles * nodes / res.host_seconds,
            "stall_fraction": p["train"]["stall_fraction"],
            "ring_utilisation": p["train"]["ring_utilisation"]}


@pytest.mark.parametrize("nodes", NODES)
def test_speech_mlp(benchmark, nodes):
    r = benchmark.pedantic(point, args=(nodes, 4), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    benchmark.extra_info["simulated_training_patterns_per_second"] = 1 / r["host_s_per_pattern"]
    assert r["mcps"] > r["mcups"] > 0


@pytest.mark.parametrize("nodes", [16, 40, 64])
def test_speech_mlp_columns(benchmark, nodes):
    """The columns mapping (hid -> phones split by columns, docs/compiler.md
    "Connects split by columns"): issue 14's targets on 40 nodes are 500
    MCPS and 160 MCUPS."""
    r = benchmark.pedantic(point, args=(nodes, 4, 1, "columns"), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    benchmark.extra_info["mapping"] = "columns"
    assert r["mcps"] > r["mcups"] > 0


@pytest.mark.parametrize("nodes", [16, 40, 64])
def test_speech_mlp_columns_eval_data(benchmark, nodes):
    """Trained by columns, evaluated by data (docs/compiler.md, "A mapping
    per pass"): 2N evaluation patterns, two a node, so the evaluation's MCPS
    here is amortised with the weights' all-gather of the pass (the steady
    state: docs/bench.md, "Issue 14: a mapping per pass")."""
    r = benchmark.pedantic(point, args=(nodes, nodes, 1, "columns", "data"), rounds=1,
                           iterations=1)
    benchmark.extra_info.update(r)
    benchmark.extra_info.update(mapping="columns", eval_mapping="data")
    assert r["mcps"] > 0 and r["mcups"] > 0


@pytest.mark.parametrize("threads", [1, 2])
def test_speech_mlp_40_nodes_threads(benchmark, threads):
    """Host seconds per training pattern on 40 nodes with the nodes on 1 and 2
    host threads (issue 16)."""
    r = benchmark.pedantic(point, args=(40, 4, threads), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    benchmark.extra_info["threads"] = threads
    benchmark.extra_info["simulated_training_patterns_per_second"] = 1 / r["host_s_per_pattern"]
    assert r["mcps"] > r["mcups"] > 0


def breakdown(nodes: int = 40, patterns: int = 8, threads: int = 1) -> dict:
    """Where the host time of a training pattern goes (docs/performance.md,
    "Where a training pattern's host time goes"): the run's host seconds
    split into the host calls served in Python (the daemon, the training
    host's TRAIN service, the journal) and the rest (the simulator core),
    per training pattern; the simulated work per pattern (node-cycles,
    instructions, ring words and ring waits) and host nanoseconds per
    simulated instruction."""
    net = parse_file(SPEECH)
    served = {"seconds": 0.0, "calls": 0}
    sims = []

    def instrument(sim):
        sims.append(sim)
        serve = sim._serve

        def timed(node):
            t = time.perf_counter()
            try:
                return serve(node)
            finally:
                served["seconds"] += time.perf_counter() - t
                served["calls"] += 1
        sim._serve = timed          # (the instance's: Simulator._run calls self._serve)

    res = measure(net, MachineConfig(nodes=nodes), train_patterns=patterns,
                  test_patterns=patterns, threads=threads, instrument=instrument)
    threads_done = sims[-1].thread_stats()
    t = res.totals
    per = res.performance.train.patterns
    stalls = t["stalls"]
    return {"nodes": nodes, "threads": threads, "patterns": per,
            "host_s_per_pattern": res.host_seconds / per,
            "core_s_per_pattern": (res.host_seconds - served["seconds"]) / per,
            "hostcall_python_s_per_pattern": served["seconds"] / per,
            "hostcalls_per_pattern": served["calls"] / per,
            "hostcall_python_us_per_call": 1e6 * served["seconds"] / max(served["calls"], 1),
            "node_cycles_per_pattern": res.cycles * nodes / per,
            "instructions_per_pattern": t["instructions"] / per,
            "ring_words_per_pattern": t["ring_words"] / per,
            "ring_wait_fraction": (stalls["ring_read"] + stalls["ring_write"])
            / (res.cycles * nodes),
            "host_ns_per_instruction": 1e9 * (res.host_seconds - served["seconds"])
            / t["instructions"],
            "threads_done": threads_done}


def test_speech_mlp_40_nodes_breakdown(benchmark):
    """The host time of a training pattern on 40 nodes split into the
    simulator core and the host calls served in Python."""
    r = benchmark.pedantic(breakdown, args=(40, 4), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert 0 < r["hostcall_python_s_per_pattern"] < r["host_s_per_pattern"]
    assert r["core_s_per_pattern"] + r["hostcall_python_s_per_pattern"] == \
        pytest.approx(r["host_s_per_pattern"])


def threads_table(patterns: int, repeat: int = 3, handoff_waits: int | None = None) -> None:
    """40 nodes, 1 and 2 threads alternated: every run (wall and CPU seconds,
    the load before it, what the threads did), then the best and median host
    seconds per pattern and their ratio."""
    def run(threads):
        st: dict = {}
        r = point(40, patterns, threads, stats=st, handoff_waits=handoff_waits)
        return r["host_s_per_pattern"], (f"{r['host_s_per_pattern']:.4f} host s/pattern, "
                                         f"{r['wall_s']:.2f} s wall, {st['cpu_s']:.2f} s CPU; "
                                         f"{summary(st)}")

    best, med = alternate(run, repeat)
    print(f"40 nodes, {patterns} training patterns: host s/pattern 1 thread {best[1]:.4f}, "
          f"2 threads {best[2]:.4f} (best of {repeat}) = {best[1] / best[2]:.2f}x "
          f"(median {med[1] / med[2]:.2f}x)")


def main(patterns: int, mapping: str | None = None) -> None:
    print(f"234-512-61 MLP, {patterns} training + {2 * patterns} evaluation patterns per point"
          + (f", mapping {mapping}" if mapping else ""))
    print(f"{'nodes':>5} {'MCPS':>8} {'%peak':>6} {'MCUPS':>8} {'%peak':>6} "
          f"{'cyc/trn':>8} {'cyc/fwd':>8} {'host s/pat':>10}  published")
    for n in NODES:
        r = point(n, patterns, mapping=mapping)
        print(f"{n:>5} {r['mcps']:>8.1f} {r['mcps_pct']:>6.1f} {r['mcups']:>8.1f} "
              f"{r['mcups_pct']:>6.1f} {r['train_cycles_per_pattern']:>8.0f} "
              f"{r['eval_cycles_per_pattern']:>8.0f} {r['host_s_per_pattern']:>10.3f}  "
              f"{PUBLISHED.get(n, '')}")
        sys.stdout.flush()


def breakdown_table(patterns: int) -> None:
    for threads in (1, 2):
        b = breakdown(40, patterns, threads)
        print(f"40 nodes, {threads} thread(s), {patterns} training patterns: "
              f"{b['host_s_per_pattern']:.4f} host s/pattern = core "
              f"{b['core_s_per_pattern']:.4f} + host calls in Python "
              f"{b['hostcall_python_s_per_pattern']:.5f} ({b['hostcalls_per_pattern']:.0f} "
              f"calls, {b['hostcall_python_us_per_call']:.0f} us each); per pattern "
              f"{b['node_cycles_per_pattern']:.0f} node-cycles, "
              f"{b['instructions_per_pattern']:.0f} instructions "
              f"({b['host_ns_per_instruction']:.1f} host ns each), "
              f"{b['ring_words_per_pattern']:.0f} ring words, ring waits "
              f"{100 * b['ring_wait_fraction']:.1f}% of node-cycles")
        st = b["threads_done"]
        per = b["patterns"]
        print(f"    per pattern: {st['calls'] / per:.1f} core calls, "
              f"{st['thread_starts'] / per:.2f} threads started, "
              f"{st['meetings'] / per:.2f} meetings; node-cycles on one thread "
              f"{(st['cycles_single'] + st['cycles_serial']) / per:.0f}, in parallel "
              f"{st['cycles_parallel'] / per:.0f}; {summary(st)}")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("patterns", nargs="?", type=int, default=None,
                    help="training patterns per point (default 16; 8 with --threads/--breakdown)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--threads", action="store_true", help="40 nodes, 1 and 2 threads")
    mode.add_argument("--breakdown", action="store_true", help="where a pattern's host time goes")
    ap.add_argument("--columns", action="store_true", help="the table with mapping columns")
    add_options(ap)
    a = ap.parse_args()
    if a.patterns is not None and a.patterns < 1:
        ap.error("PATTERNS must be at least 1")
    check_options(ap, a)
    if a.breakdown:
        breakdown_table(a.patterns or 8)
    elif a.threads:
        threads_table(a.patterns or 8, a.repeat, a.handoff_waits)
    else:
        main(a.patterns or 16, "columns" if a.columns else None)
