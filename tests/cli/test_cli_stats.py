"""``rap train --stats`` and the description's ``stats``: computed by the
host from the nodes' outputs, equal to those of the numpy reference's
outputs, in --json for every epoch."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rapsim.compiler import stats
from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import net_file, rap

NET = """
layer x: input 6
layer h: sigmoid 8 bias
layer y: softmax 3 bias
connect x -> h
connect h -> y
net n { input x  output y }
train { rate 0.5  epochs 3  error cross_entropy  seed 4  init_scale 0.5 }
stats confusion
"""


@pytest.fixture
def files(tmp_path):
    net = net_file(tmp_path, NET)
    rng = np.random.default_rng(5)
    x = rng.random((40, 6))
    labels = np.argmax(x[:, :3] + 0.3 * x[:, 3:], axis=1)
    data = tmp_path / "d.npz"
    t = np.eye(3)[labels]
    np.savez(data, inputs=x[:30], targets=t[:30], test_inputs=x[30:], test_targets=t[30:])
    return net, data


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_stats_match_the_reference(nodes, files, tmp_path, monkeypatch, capsys):
    net, data = files
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", net, "--data", data, "--nodes", nodes, "--quiet",
                        "--stats", "class_error,output_accuracy", "--json", js],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "confusion of y" in out and "error per class of y" in out
    assert "accuracy per output unit" in out
    r = json.loads(js.read_text())
    assert all(set(e["stats"]) == {"train", "test"} for e in r["epochs"])
    n = parse_file(str(net))
    db = load_patterns(str(data), n)
    ref = reference_train(n, db.train, db.test, c30_activations=True)
    names = ["confusion", "class_error", "output_accuracy"]
    last = r["epochs"][-1]["stats"]
    assert list(last["train"]) == names             # the description's first
    for part, ps in (("train", db.train), ("test", db.test)):
        y = np.array([ref.model.outputs(row) for row in ps.inputs])
        want = stats.compute(n, names, y, ps.targets)
        assert last[part]["confusion"] == want["confusion"]
        assert last[part]["class_error"] == want["class_error"]
        assert np.allclose(last[part]["output_accuracy"]["accuracy"],
                           want["output_accuracy"]["accuracy"])
    # the confusion matrix's diagonal is the accuracy of the epoch's table
    m = np.array(last["test"]["confusion"]["y"])
    assert np.trace(m) / m.sum() == pytest.approx(r["epochs"][-1]["test_accuracy"])


def test_no_stats_by_default(tmp_path, monkeypatch, capsys):
    import os
    ex = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", os.path.join(ex, "xor.net"), "--data",
                        os.path.join(ex, "xor.pat"), "--epochs", 2, "--quiet", "--json", js],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "stats" not in json.loads(js.read_text())["epochs"][0]


@pytest.mark.parametrize("option, message", [
    ("nope", "--stats: unknown statistic 'nope' (there are: class_error, confusion, "
             "output_accuracy)"),
    ("confusion,", "--stats: unknown statistic ''"),
])
def test_bad_stats_option(option, message, files, monkeypatch, capsys):
    net, data = files
    rc, out, err = rap(["train", net, "--data", data, "--stats", option], monkeypatch, capsys)
    assert rc == 1 and message in err


def test_bad_stats_statement(files, tmp_path, monkeypatch, capsys):
    net, data = files
    net.write_text(NET.replace("stats confusion", "stats confusion, confusoin"))
    rc, out, err = rap(["train", net, "--data", data], monkeypatch, capsys)
    assert rc == 1 and f"{net}:9:18: error: unknown statistic 'confusoin'" in err
