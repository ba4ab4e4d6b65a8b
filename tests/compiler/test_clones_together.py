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

NET = os.path.join(EXAMPLES, "clones.net")


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_all_together(nodes, tmp_path):
    for f in ("softsign.asm", "softsign.py"):
        shutil.copy(os.path.join(EXAMPLES, f), tmp_path / f)
    shutil.copy(NET, tmp_path / "c.net")
    network = parse_file(tmp_path / "c.net")
    simulated_against_reference(network, binary_data(network, 12, 1),
                                binary_data(network, 5, 2), nodes)
