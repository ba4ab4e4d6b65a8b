"""The streaming schedule's frames (docs/compiler.md, "The streaming
schedule"): simulated cycles of one training frame of a recurrent network
(input 16, a tanh layer of 64 units feeding itself, a sigmoid output of 8)
with no plasticity, with the Hebbian rule on its recurrent connect, and
with the back-propagated loss over 1, 2 and 4 frames on every connect it
reaches -- what the loss plasticity costs a frame, by window.

    python benchmarks/bench_frames.py [NODES,...]   print the table (default 4,16)
    pytest benchmarks/bench_frames.py --benchmark-only

Each point trains twice, 1 and 3 epochs of 8 patterns, 2 frames a pattern;
the figure is the extra epochs' cycles over their frames (training and
evaluation frames: an epoch is a training pass and an evaluation pass of
the same frames), so the set-up drops out.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from rapsim.compiler.parser import parse_text
from rapsim.compiler.data import PatternSet
from rapsim.compiler.train import train

HIDDEN = 64
BASE = f"""\
layer x: input 16
layer h: tanh {HIDDEN} bias
layer y: sigmoid 8 bias
connect x -> h full{{xh}}
connect h -> h full{{hh}}
connect h -> y full{{hy}}
net rec {{{{ input x  hidden h  output y  schedule stream }}}}
train {{{{ epochs 1  frames 2  error mse  seed 1  init_scale 0.3 }}}}
"""
#: label -> the plasticities of x->h, h->h, h->y
CASES = {"none": ("", "", ""),
         "hebbian": ("", " hebbian(rate=0.001, decay=0.1)", ""),
         "loss W=1": ("", "", " loss(0.05, 1)"),
         "loss W=2": (" loss(0.05, 2)", " loss(0.05, 2)", " loss(0.05, 2)"),
         "loss W=4": (" loss(0.05, 4)", " loss(0.05, 4)", " loss(0.05, 4)")}
PATTERNS, FRAMES = 8, 2


def point(case: str, nodes: int) -> dict:
    xh, hh, hy = CASES[case]
    net = parse_text(BASE.format(xh=xh, hh=hh, hy=hy), "rec.net")
    rng = np.random.default_rng(0)
    data = PatternSet(rng.uniform(-1, 1, (PATTERNS, 16)), rng.uniform(0, 1, (PATTERNS, 8)))
    t0 = time.perf_counter()
    cycles = [train(net, data, nodes=nodes, epochs=e).cycles for e in (1, 3)]
    frames = 2 * 2 * PATTERNS * FRAMES          # 2 more epochs of a training and an eval pass
    return {"case": case, "nodes": nodes, "cycles_per_frame": (cycles[1] - cycles[0]) / frames,
            "wall_s": time.perf_counter() - t0}


@pytest.mark.parametrize("case", list(CASES))
def test_frame_cycles(benchmark, case):
    out = benchmark.pedantic(point, args=(case, 4), rounds=1, iterations=1)
    benchmark.extra_info.update(out)
    assert out["cycles_per_frame"] > 0


def main(sizes: list[int]) -> None:
    print(f"{'case':<10} {'nodes':>5} {'cycles/frame':>13}")
    for nodes in sizes:
        for case in CASES:
            r = point(case, nodes)
            print(f"{case:<10} {nodes:>5} {r['cycles_per_frame']:>13.1f}")


if __name__ == "__main__":
    from benchargs import parser, positive_ints
    p = parser(__doc__)
    p.add_argument("sizes", nargs="?", type=positive_ints, default=[4, 16],
                   help="machine sizes, comma-separated (default 4,16)")
    main(p.parse_args().sizes)
