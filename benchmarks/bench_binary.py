"""Sparse binary input: a binary layer of 1000 units with 20 active, given
as an index list and run by the column-sum kernels (firmware/binary.asm),
against the dense form (the same 0/1 values as an ordinary input layer,
run by _mxv): simulated cycles per forward pattern and per training
pattern, and their ratio; and per pattern of the inference image (docs/compiler.md,
"Binary layers").

    python benchmarks/bench_binary.py           print the table
    pytest benchmarks/bench_binary.py --benchmark-only
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.parser import parse_text
from rapsim.compiler.train import measurement_network, run_program
from rapsim.config import MachineConfig

NET = """\
layer b: KIND 1000
layer h: sigmoid 64 bias
layer y: sigmoid 10 bias
connect b -> h full
connect h -> y full
net n { input b  hidden h  output y }
"""
UNITS, ACTIVE, PATTERNS = 1000, 20, 8
NODES = (1, 4, 16)


class _Set:
    def __init__(self, x, t):
        self.inputs, self.targets = x, t


def _data(seed: int):
    rng = np.random.default_rng(seed)
    x = np.zeros((PATTERNS, UNITS))
    for i in range(PATTERNS):
        x[i, rng.choice(UNITS, ACTIVE, replace=False)] = 1.0
    t = np.zeros((PATTERNS, 10))
    t[np.arange(PATTERNS), rng.integers(0, 10, PATTERNS)] = 1.0
    return _Set(x, t)


def cycles(kind: str, nodes: int) -> dict:
    """Cycles per training and per forward (evaluation) pattern, and per
    pattern of the inference image (rapsim.compiler.infer: its pattern
    loop, node 0's reads and writes and the ring's records included)."""
    from rapsim.compiler.infer import infer
    net = measurement_network(parse_text(NET.replace("KIND", kind), f"{kind}.net"))
    prog = compile_network(net, nodes)
    res = run_program(prog, MachineConfig(nodes=nodes), _data(1), _data(2), epochs=1)
    p = res.performance.to_dict()
    inf = infer(net, res.weights, _data(3).inputs, nodes=nodes)
    return {"train": p["train"]["cycles"] / p["train"]["patterns"],
            "forward": p["evaluate"]["cycles"] / p["evaluate"]["patterns"],
            "infer": inf.cycles / inf.patterns}


def point(nodes: int) -> dict:
    sparse, dense = cycles("binary", nodes), cycles("input", nodes)
    return {"nodes": nodes, "sparse_forward": sparse["forward"], "dense_forward": dense["forward"],
            "forward_ratio": dense["forward"] / sparse["forward"],
            "sparse_train": sparse["train"], "dense_train": dense["train"],
            "train_ratio": dense["train"] / sparse["train"],
            "sparse_infer": sparse["infer"], "dense_infer": dense["infer"],
            "infer_ratio": dense["infer"] / sparse["infer"]}


@pytest.mark.parametrize("nodes", NODES)
def test_sparse_binary_input(benchmark, nodes):
    r = benchmark.pedantic(point, args=(nodes,), rounds=1, iterations=1)
    benchmark.extra_info.update(r)
    assert r["forward_ratio"] > 1 and r["train_ratio"] > 1 and r["infer_ratio"] > 1


def main() -> None:
    print(f"binary input of {UNITS} units, {ACTIVE} active -> 64 sigmoid -> 10 sigmoid; "
          "cycles per pattern")
    print(f"{'nodes':>5} {'forward sparse':>15} {'dense':>8} {'ratio':>6} "
          f"{'train sparse':>13} {'dense':>8} {'ratio':>6} "
          f"{'inference image sparse':>23} {'dense':>8} {'ratio':>6}")
    for n in NODES:
        r = point(n)
        print(f"{n:>5} {r['sparse_forward']:>15.0f} {r['dense_forward']:>8.0f} "
              f"{r['forward_ratio']:>6.1f} {r['sparse_train']:>13.0f} {r['dense_train']:>8.0f} "
              f"{r['train_ratio']:>6.1f} {r['sparse_infer']:>23.0f} {r['dense_infer']:>8.0f} "
              f"{r['infer_ratio']:>6.1f}")


if __name__ == "__main__":
    sys.exit(main())
