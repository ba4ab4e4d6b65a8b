"""Issue 18: a network long enough that its program outgrows the reach of
PC-relative branches (+-32767 words) compiles with long branches and
trains; a small one keeps its short branches (and its cycle counts)."""
from __future__ import annotations

import numpy as np

from rapsim.compiler.build import compile_network
from rapsim.compiler.parser import parse_text


def chain(n: int) -> str:
    lines = ["layer l0: input 2"] + [f"layer l{i}: sigmoid 2" for i in range(1, n)]
    lines += [f"connect l{i - 1} -> l{i} full" for i in range(1, n)]
    lines.append("net n {\n input l0\n" + "".join(f" hidden l{i}\n" for i in range(1, n - 1))
                 + f" output l{n - 1}\n}}")
    lines.append("train {\n rate 0.5\n epochs 1\n}")
    return "\n".join(lines) + "\n"


def test_a_long_chain_of_layers_compiles_and_trains():
    from rapsim.compiler.data import from_arrays
    from rapsim.compiler.train import run_program
    from rapsim.config import MachineConfig
    net = parse_text(chain(1000), "chain.net")
    prog = compile_network(net, 1)
    assert "long branch: BNZ pattern" in prog.source
    data = from_arrays(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]), net)
    result = run_program(prog, MachineConfig(nodes=1), data, epochs=1)
    assert len(result.epochs) == 1 and result.cycles > 0


def test_a_small_network_keeps_short_branches():
    prog = compile_network(parse_text(chain(3), "c.net"), 1)
    assert "long branch" not in prog.source
    assert "BNZ     pattern" in prog.source or "BNZ pattern" in " ".join(prog.source.split())
