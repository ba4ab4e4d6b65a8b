"""The pipelined forward throughput (docs/compiler.md, "Schedules") of a
4-layer MLP, 128 units in every layer (input 128, four 128 x 128 weight
layers, 65,536 connections), on 4 node groups against the rows mapping and
the lock-step layers mapping (docs/bench.md, "Schedules").

    python benchmarks/bench_pipeline.py [NODES,...]   print the table (default 4,16)
    pytest benchmarks/bench_pipeline.py --benchmark-only

Each point is :func:`rapsim.compiler.train.measure` twice, with 8 and 24
evaluation patterns (4 and 12 of them trained first); the figures are the
extra patterns' (the marginal cost, as ``rap bench`` measures it), so a
pipeline's fill and drain ticks, paid once a pass, drop out and what is
left is the steady state: one pattern per tick.  The tick and the stages' busy cycles are the longer
run's (rapsim.compiler.pipeline.stage_balance).
"""
from __future__ import annotations

import sys
import time

import pytest

from rapsim.compiler.parser import parse_text
from rapsim.compiler.train import measure
from rapsim.config import MachineConfig

UNITS = 128
NET = f"""\
layer x: input {UNITS}
layer h1: sigmoid {UNITS} bias
layer h2: sigmoid {UNITS} bias
layer h3: sigmoid {UNITS} bias
layer y: sigmoid {UNITS} bias
connect x -> h1 full
connect h1 -> h2 full
connect h2 -> h3 full
connect h3 -> y full
net deep {{ input x  hidden h1, h2, h3  output y }}
"""
#: (label, mapping preset, schedule)
CASES = (("rows", "rows", "lockstep"), ("layers", "layers", "lockstep"),
         ("pipeline", None, "pipeline"))
SHORT, LONG = 8, 24


def point(case: str, nodes: int) -> dict:
    _, mapping, schedule = next(c for c in CASES if c[0] == case)
    net = parse_text(NET, "deep.net")
    t0 = time.perf_counter()
    runs = [measure(net, MachineConfig(nodes=nodes), train_patterns=n // 2,
                    test_patterns=n - n // 2, mapping=mapping, schedule=schedule)
            for n in (SHORT, LONG)]
    perf = runs[1].performance - runs[0].performance
    ev, tr = perf.evaluate, perf.train
    out = {"case": case, "nodes": nodes, "mcps": perf.mcps, "mcups": perf.mcups,
           "eval_cycles_per_pattern": ev.cycles / ev.patterns,
           "train_cycles_per_pattern": tr.cycles / tr.patterns,
           "wall_s": time.perf_counter() - t0}
    pipe = runs[1].pipeline
    if pipe:
        out["cycles_per_tick"] = pipe["cycles_per_tick"]
        out["stage_busy_cycles"] = [round(s["busy_cycles_per_tick"])
                                    for s in pipe["per_stage"]]
        out["balance"] = pipe["balance"]
    return out


@pytest.mark.parametrize("case", [c[0] for c in CASES])
@pytest.mark.parametrize("nodes", (4, 16))
def test_forward_throughput(benchmark, case, nodes):
    r = benchmark.pedantic(point, args=(case, nodes), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    benchmark.extra_info["forward_patterns_per_simulated_second"] = (
        16e6 / r["eval_cycles_per_pattern"])
    assert r["mcps"] > 0


def main(nodes: list[int]) -> None:
    print(f"4 x {UNITS}x{UNITS} MLP (marginal figures of {LONG - SHORT} evaluation and "
          f"{(LONG - SHORT) // 2} training patterns)")
    print(f"{'case':<9} {'nodes':>5} {'MCPS':>8} {'cyc/fwd':>8} {'MCUPS':>8} {'cyc/trn':>8}  "
          f"stages' busy cycles a tick")
    for n in nodes:
        for case, _, _ in CASES:
            r = point(case, n)
            print(f"{case:<9} {n:>5} {r['mcps']:>8.1f} {r['eval_cycles_per_pattern']:>8.0f} "
                  f"{r['mcups']:>8.1f} {r['train_cycles_per_pattern']:>8.0f}  "
                  + (f"{r['stage_busy_cycles']} balance {r['balance']:.2f}"
                     if "balance" in r else ""))
            sys.stdout.flush()


if __name__ == "__main__":
    from benchargs import parser, positive_ints
    p = parser(__doc__)
    p.add_argument("nodes", nargs="?", type=positive_ints, default=[4, 16],
                   help="machine sizes, comma-separated (default 4,16)")
    main(p.parse_args().nodes)
