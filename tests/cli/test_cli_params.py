"""``rap cc/train --params FILE`` and list values of ``-P`` end to end."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import net_file, rap

NET = """
param sizes = 3, 2
param rate = 0.5
layer x: input 4
layer h: sigmoid sizes[0] bias
layer g: tanh sizes[1] bias
layer y: sigmoid 2 bias
connect x -> h
connect h -> g
connect g -> y
net n { input x  output y }
train { rate rate  epochs 3  seed 2  init_scale 0.5 }
"""


@pytest.fixture
def files(tmp_path):
    net = net_file(tmp_path, NET)
    rng = np.random.default_rng(1)
    data = tmp_path / "d.npz"
    np.savez(data, inputs=rng.random((10, 4)), targets=(rng.random((10, 2)) > 0.5) * 1.0)
    par = tmp_path / "run.par"
    par.write_text("# sizes of the run\nsizes = 6, 5\nrate = 0.25\n")
    return net, data, par


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_train_with_a_params_file_and_a_list_override(nodes, files, tmp_path, monkeypatch,
                                                      capsys):
    net, data, par = files
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", net, "--data", data, "--nodes", nodes, "--quiet",
                        "--params", par, "-P", "sizes=7,9", "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    # the file's rate, the command line's sizes (it wins over the file)
    assert [e["rate"] for e in r["epochs"]] == [0.25] * 3
    assert r["params"] == {"sizes": [7, 9], "rate": [0.25]}      # the run's Param table
    n = parse_file(str(net), {"sizes": "7,9", "rate": 0.25})
    assert n.layers["h"].size == 7 and n.layers["g"].size == 9
    ref = reference_train(n, load_patterns(str(data), n).train, c30_activations=True)
    assert np.allclose([e["train_loss"] for e in r["epochs"]],
                       [e.train_loss for e in ref.epochs], atol=1e-5)


def test_cc_layout_shows_the_file_sizes(files, tmp_path, monkeypatch, capsys):
    net, data, par = files
    rc, out, err = rap(["cc", net, "-o", tmp_path / "n.out", "--params", par, "--layout"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "│ h     │ sigmoid │     6 │" in out and "│ g     │ tanh    │     5 │" in out


@pytest.mark.parametrize("par_text, extra, message", [
    (None, [], "none.par: no such file"),
    ("sizes = 6,\n", [], "run.par:1: parameter 'sizes' has an empty value"),
    ("sizes = six\n", [], "run.par:1: parameter 'sizes': 'six' is not a number"),
    ("sizes = 1\nsizes = 2\n", [], "run.par:2: parameter 'sizes' is already given (line 1)"),
    ("hidden = 4\n", [], "run.par: parameter 'hidden' is not defined in"),
    ("", ["-P", "sizes=3,x"], "parameter 'sizes': 'x' is not a number"),
    ("", ["-P", "sizes=4"], "n.net:6:21: error: index 1 is out of range: parameter 'sizes' "
                            "has 1 value"),
])
@pytest.mark.parametrize("cmd", ["cc", "train"])
def test_bad_params(cmd, par_text, extra, message, files, tmp_path, monkeypatch, capsys):
    net, data, par = files
    if par_text is None:
        par = tmp_path / "none.par"
    else:
        par.write_text(par_text)
    args = ([cmd, net, "-o", tmp_path / "o.out"] if cmd == "cc"
            else [cmd, net, "--data", data, "--quiet"])
    rc, out, err = rap(args + ["--params", par] + extra, monkeypatch, capsys)
    assert rc == 1
    assert message in err
