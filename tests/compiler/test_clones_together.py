"""The CLONES features of the network language together: a binary input
(index list), a thresholded binary hidden layer, a user transfer function
and a sub-net trained in turn, against the reference on 1, 4 and 16 nodes."""
from __future__ import annotations

import os
import shutil

import pytest

from rapsim.compiler.parser import parse_file

from backend import binary_data, simulated_against_reference

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")

NET = """\
transfer softsign { asm "softsign.asm" forward _softsign derivative _softsign_deriv
                    numpy "softsign.py" }
layer b: binary 30
layer x: input 4
layer t: threshold 10 bias
layer s: softsign 7 bias
layer y: sigmoid 3 bias
connect b -> t
connect x -> s
connect t -> s
connect s -> y
connect b -> y
net main { input b, x  hidden t, s  output y }
net part { input x  hidden s  output y }
train { rate 0.2  epochs 4  momentum 0.3  seed 2  init_scale 0.7  alternate pattern }
"""


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_all_together(nodes, tmp_path):
    for f in ("softsign.asm", "softsign.py"):
        shutil.copy(os.path.join(EXAMPLES, f), tmp_path / f)
    (tmp_path / "c.net").write_text(NET)
    network = parse_file(tmp_path / "c.net")
    simulated_against_reference(network, binary_data(network, 12, 1),
                                binary_data(network, 5, 2), nodes)
