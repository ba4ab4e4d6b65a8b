"""User transfer functions (compiler/transfer.py): a layer kind given by a
pair of assembly routines and a numpy pair; the simulated training agrees
with the reference on 1, 4 and 16 nodes, through the API and `rap train`;
every bad description is a clear error with its file:line."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics, RapError

from backend import random_data, simulated_against_reference

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
SOFTSIGN = os.path.join(EXAMPLES, "softsign.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")

WEIGHT_TOL = OUTPUT_TOL = 1e-5

BLOCK = """\
transfer softsign {
    asm        "softsign.asm"
    forward    _softsign
    derivative _softsign_deriv
    numpy      "softsign.py"
}
"""

#: soft-sign in a hidden layer and as a linear-like output, beside sigmoid
NET = BLOCK + """\
layer x: input 6
layer h: softsign 9 bias
layer g: sigmoid 5 bias
layer o: softsign 3 bias
connect x -> h full
connect h -> g full
connect h -> o full
connect g -> o full
net t { input x  hidden h, g  output o }
train { rate 0.1  epochs 3  momentum 0.5  error mse  seed 4  init_scale 0.5 }
"""


@pytest.fixture
def folder(tmp_path):
    for f in ("softsign.asm", "softsign.py"):
        shutil.copy(os.path.join(EXAMPLES, f), tmp_path / f)
    return tmp_path


def _write(folder, text, name="t.net"):
    p = folder / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_agrees_with_reference(folder, nodes):
    network = parse_file(_write(folder, NET))
    tr, te = random_data(network, 20, 1), random_data(network, 7, 2)
    sim, ref = simulated_against_reference(network, tr, te, nodes)
    y_ref = np.stack([ref.model.outputs(x) for x in tr.inputs])
    # the numpy pair is what the reference used: soft-sign outputs lie in (-1, 1)
    assert np.abs(y_ref).max() < 1 and np.abs(y_ref).max() > 0.1


def test_the_image_links_the_routines(folder, tmp_path):
    from rapsim.compiler.build import compile_network
    prog = compile_network(parse_file(_write(folder, NET)), 4)
    assert "CALL    _softsign" in prog.source and "CALL    _softsign_deriv" in prog.source
    assert "_softsign" in prog.image.symbols


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_rap_train_example(nodes, tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", SOFTSIGN, "--data", XOR_PAT, "--nodes", nodes, "--json", js,
                        "--epochs", "40", "--quiet"], monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    net = parse_file(SOFTSIGN)
    net.training.epochs = 40
    ref = reference_train(net, load_patterns(XOR_PAT, net).train, c30_activations=True)
    assert [e["train_accuracy"] for e in r["epochs"]] == [e.train_accuracy for e in ref.epochs]
    assert np.allclose([e["train_loss"] for e in r["epochs"]],
                       [e.train_loss for e in ref.epochs], atol=1e-5)
    assert r["epochs"][-1]["train_accuracy"] == 1.0


# -- bad input ----------------------------------------------------------------------

LAYERS = """\
layer x: input 2
layer h: softsign 3 bias
layer y: sigmoid 1
connect x -> h
connect h -> y
net n { input x  output y }
"""

BAD = {
    "unknown_entry": (BLOCK.replace("numpy ", "numpi ") + LAYERS,
                      ["t.net:1:10: error: transfer 'softsign' needs 'numpy'",
                       "t.net:5:5: error: unknown entry 'numpi' in transfer 'softsign' "
                       "(expected asm, forward, derivative or numpy)"],
                      ),
    "missing_entry": (BLOCK.replace('    numpy      "softsign.py"\n', "") + LAYERS,
                      ["t.net:1:10: error: transfer 'softsign' needs 'numpy'"]),
    "twice": (BLOCK.replace("    forward", "    forward _a\n    forward") + LAYERS,
              ["t.net:4:5: error: 'forward' is given twice in transfer 'softsign'"]),
    "quoted_routine": (BLOCK.replace("forward    _softsign", 'forward "_softsign"') + LAYERS,
                       ["t.net:3:13: error: forward of transfer 'softsign' takes a routine's "
                        "name (no quotes)"]),
    "missing_file": (BLOCK.replace('"softsign.asm"', '"nope.asm"') + LAYERS,
                     ["t.net:2:16: error: transfer 'softsign': cannot read 'nope.asm': "
                      "no such file (nope.asm)"]),
    "builtin": (BLOCK.replace("transfer softsign", "transfer tanh") + LAYERS.replace("softsign", "tanh"),
                ["t.net:1:10: error: transfer 'tanh': tanh is a built-in layer kind"]),
    "keyword": (BLOCK + LAYERS + "param transfer = 1\n",
                ["t.net:13:7: error: 'transfer' is a keyword and cannot name a parameter"]),
    "cross_entropy": (BLOCK + LAYERS.replace("layer y: sigmoid 1", "layer y: softsign 1")
                      + "train { error cross_entropy }\n",
                      ["t.net:13:15: error: error cross_entropy needs sigmoid or softmax outputs; "
                       "output 'y' is the transfer function softsign (use mse)"]),
    "dup": (BLOCK + BLOCK + LAYERS,
            ["t.net:7:10: error: transfer 'softsign' is already defined (at t.net:1:10)"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_descriptions(case, folder):
    text, want = BAD[case]
    path = _write(folder, text)
    with pytest.raises(Diagnostics) as e:
        parse_file(path)
    got = [m.replace(str(folder) + os.sep, "") for m in e.value.messages]
    assert got == want


@pytest.mark.parametrize("body,message", [
    ("raise ValueError('broken')\n", "t.py:1: ValueError: broken"),
    ("def forward(x):\n    return x\n", "defines no function derivative(x)"),
    ("def forward(x):\n    return x[:2]\ndef derivative(y):\n    return y\n",
     "forward() of {p} must return a finite array of its argument's shape"),
    ("def forward(x):\n    return x\ndef derivative(y):\n    return 1 / 0\n",
     "derivative() of {p} fails on a vector: ZeroDivisionError"),
])
def test_bad_numpy_pair(body, message, folder):
    (folder / "t.py").write_text(body)
    path = _write(folder, BLOCK.replace("softsign.py", "t.py") + LAYERS)
    with pytest.raises(Diagnostics) as e:
        parse_file(path)
    assert e.value.messages[0].startswith(f"{path}:5:16: error: transfer 'softsign': ")
    assert message.format(p=folder / "t.py") in e.value.messages[0]


def test_bad_assembly(folder, tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    from rapsim.compiler.build import compile_network
    path = _write(folder, BLOCK.replace("_softsign_deriv", "_nothere") + LAYERS)
    with pytest.raises(RapError, match=r"t.net:4:16: error: transfer 'softsign': .*softsign.asm "
                                       r"does not define _nothere as a global routine"):
        compile_network(parse_file(path), 1)
    (folder / "softsign.asm").write_text("        .text\n_softsign: FOO R0\n")
    path = _write(folder, BLOCK + LAYERS)
    rc, out, err = rap(["cc", path, "-o", tmp_path / "o.out"], monkeypatch, capsys)
    assert rc == 1 and f"{path}:1:10: error: transfer 'softsign'" in err
    assert "softsign.asm:2:" in err


def test_bad_transfer_through_rap_train(folder, tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    path = _write(folder, BLOCK.replace("numpy ", "numpi ") + LAYERS)
    rc, out, err = rap(["train", path, "--data", XOR_PAT], monkeypatch, capsys)
    assert rc == 1 and f"{path}:5:5: error: unknown entry 'numpi'" in err
