"""MCPS and MCUPS of every mapping (docs/mappings.md) for the speech MLP
(examples/speech.net, 234-512-61) on the simulated RAP, side by side.

    python benchmarks/bench_mappings.py [NODES,...]   print the table (default 4,16,64)
    pytest benchmarks/bench_mappings.py --benchmark-only

Each point is :func:`rapsim.compiler.train.measure` with the mapping: one
epoch of random patterns and an evaluation pass over them and as many more,
at the default machine configuration.  The data and hybrid mappings train
in batches of N x B patterns (B = 1 here), so their points train N patterns
per node-batch: 2 batches, 2 N patterns; the others 4 patterns.  A mapping
that does not fit the machine is shown with the reason.
"""
from __future__ import annotations

import os
import sys
import time

import pytest

from rapsim.compiler.mapping import PRESETS
from rapsim.compiler.parser import parse_file
from rapsim.compiler.train import measure
from rapsim.config import MachineConfig
from rapsim.errors import RapError

SPEECH = os.path.join(os.path.dirname(__file__), "..", "examples", "speech.net")


def point(mapping: str, nodes: int) -> dict:
    net = parse_file(SPEECH)
    patterns = 2 * nodes if mapping in ("data", "hybrid") else 4
    t0 = time.perf_counter()
    res = measure(net, MachineConfig(nodes=nodes), train_patterns=patterns,
                  test_patterns=patterns, mapping=mapping)
    p = res.performance.to_dict()
    return {"mapping": mapping, "nodes": nodes, "mcps": p["mcps"], "mcups": p["mcups"],
            "train_cycles_per_pattern": p["train"]["cycles"] / p["train"]["patterns"],
            "eval_cycles_per_pattern": p["evaluate"]["cycles"] / p["evaluate"]["patterns"],
            "ring_utilisation": p["train"]["ring_utilisation"],
            "wall_s": time.perf_counter() - t0}


@pytest.mark.parametrize("mapping", PRESETS)
@pytest.mark.parametrize("nodes", (4, 16))
def test_speech_mlp_mapping(benchmark, mapping, nodes):
    r = benchmark.pedantic(point, args=(mapping, nodes), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert r["mcps"] > 0 and r["mcups"] > 0


def main(nodes: list[int]) -> None:
    print(f"{'mapping':<13} {'nodes':>5} {'MCPS':>8} {'MCUPS':>8} {'cyc/trn':>9} {'cyc/fwd':>9}")
    for n in nodes:
        for m in PRESETS:
            try:
                r = point(m, n)
            except RapError as e:
                print(f"{m:<13} {n:>5}  {e}")
                continue
            print(f"{m:<13} {n:>5} {r['mcps']:>8.1f} {r['mcups']:>8.1f} "
                  f"{r['train_cycles_per_pattern']:>9.0f} {r['eval_cycles_per_pattern']:>9.0f}")
            sys.stdout.flush()


if __name__ == "__main__":
    from benchargs import parser, positive_ints
    p = parser(__doc__)
    p.add_argument("nodes", nargs="?", type=positive_ints, default=[4, 16, 64],
                   help="machine sizes, comma-separated (default 4,16,64)")
    main(p.parse_args().nodes)
