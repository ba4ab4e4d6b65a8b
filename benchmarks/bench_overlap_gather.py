"""overlap on and the forward all-gather streamed into the next layer's
product (``_ring_allgather_mxv``; docs/compiler.md "Overlapped
collectives", docs/bench.md "Issue 14"): forward cycles a pattern, MCPS and
MCUPS with overlap off, with overlap on as the compiler builds it (the cost
model keeps the blocking all-gather and product everywhere measured), and
with overlap on and the fusion forced wherever the kernel applies (the
chain taken, at most 2 rows a node) -- what the model's choice avoids.

    python benchmarks/bench_overlap_gather.py          print the table
    pytest benchmarks/bench_overlap_gather.py --benchmark-only

Each point is :func:`rapsim.compiler.train.measure` twice, 1 and 3
training patterns (2 and 6 evaluated), the figures the extra patterns'
(``rap bench``'s steady state).
"""
from __future__ import annotations


import pytest

from rapsim.commands.bench import FAMILIES
from rapsim.compiler import overlap as overlap_rules
from rapsim.compiler.parser import parse_text
from rapsim.compiler.train import measure
from rapsim.config import MachineConfig

DEEP = """\
layer x: input 128
layer h1: sigmoid 128 bias
layer h2: sigmoid 128 bias
layer h3: sigmoid 128 bias
layer y: sigmoid 128 bias
connect x -> h1 full
connect h1 -> h2 full
connect h2 -> h3 full
connect h3 -> y full
net deep { input x  hidden h1, h2, h3  output y }
"""

POINTS = (("speech 234-512-61", 16), ("speech 234-512-61", 40), ("speech 234-512-61", 64),
          ("square 128-128-128", 64), ("deep 4 x 128", 4), ("deep 4 x 128", 16),
          ("deep 4 x 128", 64))
MODES = ("off", "on", "on, fused forced")


def network(name: str):
    if name.startswith("speech"):
        return FAMILIES["speech"].network(512)
    if name.startswith("square"):
        return FAMILIES["square"].network(128)
    return parse_text(DEEP, "deep.net")


def _forced(real):
    def rule(off, region, collectives, rows, weights):
        why = real(off, region, collectives, rows, weights)
        return "" if why.startswith("the fused all-gather") else why
    return rule


def point(name: str, nodes: int, mode: str) -> dict:
    real = overlap_rules.gather_fusion
    if mode == "on, fused forced":
        overlap_rules.gather_fusion = _forced(real)
    try:
        runs = [measure(network(name), MachineConfig(nodes=nodes), train_patterns=k,
                        test_patterns=k, overlap="off" if mode == "off" else "on")
                for k in (1, 3)]
    finally:
        overlap_rules.gather_fusion = real
    perf = runs[1].performance - runs[0].performance
    fused = [r["layer"] for r in runs[1].gather_report if r["overlapped"]]
    return {"network": name, "nodes": nodes, "mode": mode, "mcps": perf.mcps,
            "mcups": perf.mcups, "forward_cycles": perf.evaluate.cycles / perf.evaluate.patterns,
            "train_cycles": perf.train.cycles / perf.train.patterns, "fused": fused}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name,nodes", POINTS[:2])
def test_overlap_gather(benchmark, name, nodes, mode):
    r = benchmark.pedantic(point, args=(name, nodes, mode), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert r["mcps"] > 0


def main() -> None:
    print("| network | nodes | off: fwd cycles, MCPS / MCUPS | on | on, fused forced (layers) |")
    print("|---|---|---|---|---|")
    for name, nodes in POINTS:
        cells = []
        for mode in MODES:
            r = point(name, nodes, mode)
            cells.append(f"{r['forward_cycles']:.0f}, {r['mcps']:.1f} / {r['mcups']:.1f}"
                         + (f" ({', '.join(r['fused']) or 'none'})" if mode != "off" else ""))
        print(f"| {name} | {nodes} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    from benchargs import parser
    parser(__doc__).parse_args()
    main()
