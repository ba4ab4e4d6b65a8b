"""Inference images (docs/inference.md) and streamed databases
(docs/training-runs.md): simulated speed against the in-memory training
program's own figures.

    python benchmarks/bench_infer.py [PATTERNS]     print the tables (default 128)
    pytest benchmarks/bench_infer.py --benchmark-only

``infer``: the speech MLP (examples/speech.net, 234-512-61) forward on
PATTERNS random records through its inference image (weights and records
read through the daemon, outputs written), MCPS of the pattern loop, next to
the evaluation pass of ``rapsim.compiler.train.measure`` (records already
in node memory).  ``stream``: one epoch of examples/digits.net-sized random
data (64-32-10, PATTERNS x 4 records) in memory and streamed in blocks of
64, simulated cycles of the whole run.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from rapsim.compiler.infer import infer
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import initial_weights
from rapsim.compiler.train import measure, random_patterns, train
from rapsim.config import MachineConfig

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def infer_point(nodes: int, patterns: int) -> dict:
    net = parse_file(os.path.join(EXAMPLES, "speech.net"))
    x = np.random.default_rng(0).random((patterns, 234))
    r = infer(net, initial_weights(net), x, nodes=nodes)
    m = measure(net, MachineConfig(nodes=nodes), train_patterns=2, test_patterns=patterns - 2)
    return {"nodes": nodes, "infer_mcps": r.mcps, "infer_pct": r.mcps_percent_of_peak,
            "infer_cycles_per_pattern": r.cycles / r.patterns,
            "eval_mcps": m.performance.mcps,
            "eval_cycles_per_pattern": m.performance.evaluate.cycles
            / m.performance.evaluate.patterns}


def stream_point(nodes: int, patterns: int) -> dict:
    net = parse_file(os.path.join(EXAMPLES, "digits.net"))
    data = random_patterns(net, patterns, seed=1)
    mem = train(net, data, nodes=nodes, epochs=1)
    st = train(net, data, nodes=nodes, epochs=1, stream=True, stream_block=64)
    assert mem.weights.max_difference(st.weights) == 0.0
    return {"nodes": nodes, "memory_cycles": mem.cycles, "stream_cycles": st.cycles,
            "overhead_pct": 100 * (st.cycles / mem.cycles - 1)}


@pytest.mark.parametrize("nodes", (4, 16, 40))
def test_infer_speech(benchmark, nodes):
    r = benchmark.pedantic(infer_point, args=(nodes, 64), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert 0 < r["infer_mcps"] <= r["eval_mcps"] * 1.01


@pytest.mark.parametrize("nodes", (1, 4))
def test_stream_digits(benchmark, nodes):
    r = benchmark.pedantic(stream_point, args=(nodes, 256), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert r["stream_cycles"] > r["memory_cycles"]


def main(patterns: int) -> None:
    print(f"speech MLP inference, {patterns} records")
    print(f"{'nodes':>5} {'MCPS':>8} {'%peak':>6} {'cyc/pat':>8} {'eval MCPS':>10} {'cyc/pat':>8}")
    for n in (4, 16, 40):
        r = infer_point(n, patterns)
        print(f"{n:>5} {r['infer_mcps']:>8.1f} {r['infer_pct']:>6.1f} "
              f"{r['infer_cycles_per_pattern']:>8.0f} {r['eval_mcps']:>10.1f} "
              f"{r['eval_cycles_per_pattern']:>8.0f}", flush=True)
    print(f"\ndigits-sized net, one epoch of {4 * patterns} records, blocks of 64")
    for n in (1, 4):
        r = stream_point(n, 4 * patterns)
        print(f"{n:>5} nodes: {r['memory_cycles']} cycles in memory, {r['stream_cycles']} "
              f"streamed ({r['overhead_pct']:+.2f}%)", flush=True)


if __name__ == "__main__":
    from benchargs import parser, positive_int
    p = parser(__doc__)
    p.add_argument("patterns", nargs="?", type=positive_int, default=128,
                   help="patterns per point (default 128)")
    main(p.parse_args().patterns)
