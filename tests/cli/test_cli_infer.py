"""Inference images end to end: ``rap cc --forward-only``, ``rap infer`` and
rapsim.compiler.infer.infer, against the numpy reference and the training
program's own evaluation pass; bad input through the ``rap`` command."""
from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest

from rapsim.asm.floatfmt import from_single
from rapsim.compiler.checkpoint import load_weights
from rapsim.compiler.data import load_patterns
from rapsim.compiler.infer import infer, inference_plan, inputs_file_words
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model, initial_weights
from rapsim.compiler.train import train

from clirun import net_file, rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")

#: full, band (local), index (explicit list) sparse and bus connects, biases,
#: tanh, sigmoid and linear layers
NET = """
layer x: input 6
layer h: tanh 5 bias
layer s: sigmoid 3 bias
layer q: sigmoid 4
layer b: linear 5
layer y: sigmoid 2 bias
connect x -> h full
connect x -> s sparse local(4, 1)
connect x -> q sparse [0 -> 0, 2 -> 0, 5 -> 1, 1 -> 3, 3 -> 3, 4 -> 3]
connect h -> b bus
connect b -> y full
connect s -> y full
connect q -> y full
net n { input x  hidden h, s, q, b  output y }
train { init_scale 0.8  seed 7 }
"""


def _reference(net, w, x):
    m = Model(net, w, c30_activations=True)
    return np.array([m.outputs(row) for row in x])


@pytest.fixture
def sparse_files(tmp_path):
    path = net_file(tmp_path, NET)
    net = parse_file(str(path))
    w = initial_weights(net)
    wfile = tmp_path / "w.npz"
    np.savez(wfile, **{f"w:{k}": v for k, v in w.connects.items()},
             **{f"b:{k}": v for k, v in w.biases.items()})
    x = np.random.default_rng(3).random((7, 6))
    data = tmp_path / "x.npy"
    np.save(data, x)
    return path, net, w, wfile, x, data


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_rap_infer_matches_the_reference(nodes, sparse_files, tmp_path, monkeypatch, capsys):
    path, net, w, wfile, x, data = sparse_files
    out, js = tmp_path / "y.npy", tmp_path / "r.json"
    rc, text, err = rap(["infer", path, "--weights", wfile, "--data", data, "--nodes", nodes,
                         "--out", out, "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "MCPS" in text and "cycles per pattern" in text
    y = np.load(out)
    assert y.shape == (7, 2)
    assert np.abs(y - _reference(net, w, x)).max() < 1e-5
    r = json.loads(js.read_text())
    assert r["patterns"] == 7 and r["nodes"] == nodes and r["mcps"] > 0
    assert r["cycles"] < r["run_cycles"]


def test_outputs_equal_the_training_programs(tmp_path, monkeypatch, capsys):
    """The image's forward pass is the training program's: with the weights
    a run ends with, its outputs are that run's last evaluation, bit for bit."""
    net = parse_file(XOR_NET)
    db = load_patterns(XOR_PAT, net)
    r = train(net, db.train, nodes=4, epochs=5)
    got = infer(net, r.weights, db.train.inputs, nodes=4)
    assert np.array_equal(got.outputs, r.outputs)
    # and through the command, from a --save file, on standard input
    saved = tmp_path / "s.npz"
    assert rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 4, "--epochs", 5, "--quiet",
                "--save", saved], monkeypatch, capsys)[0] == 0
    raw = inputs_file_words(db.train.inputs, inference_plan(net, 4)).astype("<u4").tobytes()

    class _Stdin:
        buffer = io.BytesIO(raw)
    monkeypatch.setattr("sys.stdin", _Stdin)
    rc, text, err = rap(["infer", XOR_NET, "--weights", saved, "--data", "-", "--nodes", 4,
                         "--out", tmp_path / "y.npy"], monkeypatch, capsys)
    assert rc == 0, err
    assert np.array_equal(np.load(tmp_path / "y.npy"), r.outputs)


def test_prints_outputs_without_out(monkeypatch, capsys, tmp_path):
    net = parse_file(XOR_NET)
    w = tmp_path / "w.npz"
    iw = initial_weights(net)
    np.savez(w, **{f"w:{k}": v for k, v in iw.connects.items()},
             **{f"b:{k}": v for k, v in iw.biases.items()})
    rc, text, err = rap(["infer", XOR_NET, "--weights", w, "--data", XOR_PAT], monkeypatch,
                        capsys)
    assert rc == 0, err
    rows = [line for line in text.splitlines() if line and line[0] in "0123456789"]
    ref = _reference(net, iw, load_patterns(XOR_PAT, net).train.inputs)
    assert np.allclose([float(r) for r in rows[:4]], ref.ravel(), atol=1e-5)


def test_stand_alone_image_under_rap_run(sparse_files, tmp_path, monkeypatch, capsys):
    path, net, w, wfile, x, data = sparse_files
    img, wbin = tmp_path / "n.out", tmp_path / "n.w"
    rc, text, err = rap(["cc", path, "--forward-only", "-o", img, "--nodes", 4,
                         "--weights", wfile, "--weights-file", wbin], monkeypatch, capsys)
    assert rc == 0, err
    xin = tmp_path / "x.bin"
    xin.write_bytes(inputs_file_words(x, inference_plan(net, 4)).astype("<u4").tobytes())
    monkeypatch.chdir(tmp_path)
    rc, text, err = rap(["run", "--nodes", 4, img, "--", "n.w", "x.bin", "y.bin"], monkeypatch,
                        capsys)
    assert rc == 0, err
    y = from_single(np.fromfile(tmp_path / "y.bin", dtype="<u4")).reshape(7, 2)
    assert np.abs(y - _reference(net, w, x)).max() < 1e-5
    # the failures of the image itself: a message and exit status 2
    for args, message in [(["n.w"], "usage: IMAGE WEIGHTS PATTERNS|- OUTPUT"),
                          (["none.w", "x.bin", "y.bin"], "cannot open the weights file"),
                          (["n.w", "none.bin", "y.bin"], "cannot open or read the pattern file")]:
        rc, text, err = rap(["run", "--nodes", 4, img, "--"] + args, monkeypatch, capsys)
        assert rc == 2 and message in text + err
    (tmp_path / "short.w").write_bytes(wbin.read_bytes()[:40])
    (tmp_path / "long.w").write_bytes(wbin.read_bytes() + b"\0\0\0\0")
    (tmp_path / "part.bin").write_bytes(xin.read_bytes()[:4 * 9])
    for args, message in [(["short.w", "x.bin", "y.bin"], "its size differs"),
                          (["long.w", "x.bin", "y.bin"], "its size differs"),
                          (["n.w", "part.bin", "y.bin"], "ends inside a record")]:
        rc, text, err = rap(["run", "--nodes", 4, img, "--"] + args, monkeypatch, capsys)
        assert rc == 2 and message in text + err


@pytest.mark.parametrize("case, message", [
    ("no_weights", "none.npz: no such file"),
    ("corrupt_weights", "not a .npz archive"),
    ("other_net", "connect x->h has shape (4, 2) there, (5, 2) here"),
    ("no_data", "none.pat: no such file"),
    ("wrong_columns", "expected numbers as rows of 2 input values, got float64 of shape (3, 5)"),
    ("nan_data", "pattern 1: a value is NaN"),
    ("stdin_partial", "standard input: 6 bytes are not whole records of 2 words"),
    ("bad_out", "cannot write"),
])
def test_bad_input(case, message, tmp_path, monkeypatch, capsys):
    net = parse_file(XOR_NET)
    w = tmp_path / "w.npz"
    iw = initial_weights(net)
    np.savez(w, **{f"w:{k}": v for k, v in iw.connects.items()},
             **{f"b:{k}": v for k, v in iw.biases.items()})
    args = ["infer", XOR_NET, "--weights", w, "--data", XOR_PAT]
    if case == "no_weights":
        args[3] = tmp_path / "none.npz"
    elif case == "corrupt_weights":
        (tmp_path / "c.npz").write_bytes(b"PK\x03\x04 nonsense")
        args[3] = tmp_path / "c.npz"
    elif case == "other_net":
        args += ["-P", "hidden=5"]
    elif case == "no_data":
        args[5] = tmp_path / "none.pat"
    elif case == "wrong_columns":
        np.save(tmp_path / "x.npy", np.zeros((3, 5)))
        args[5] = tmp_path / "x.npy"
        args[1] = XOR_NET
    elif case == "nan_data":
        np.save(tmp_path / "x.npy", np.array([[0.0, 1.0], [np.nan, 0.0]]))
        args[5] = tmp_path / "x.npy"
    elif case == "stdin_partial":
        class _Stdin:
            buffer = io.BytesIO(b"\0" * 6)
        monkeypatch.setattr("sys.stdin", _Stdin)
        args[5] = "-"
    else:
        args += ["--out", tmp_path / "none" / "y.npy"]
    rc, text, err = rap(args, monkeypatch, capsys)
    assert rc == 1
    assert message in err


@pytest.mark.parametrize("extra, message", [
    (["--weights", "w.npz", "--weights-file", "w.bin"], "go with --forward-only"),
    (["--forward-only", "--weights", "w.npz"], "go together"),
])
def test_cc_option_errors(extra, message, tmp_path, monkeypatch, capsys):
    rc, text, err = rap(["cc", XOR_NET, "-o", tmp_path / "x.out"] + extra, monkeypatch, capsys)
    assert rc == 1 and message in err


def test_stats_of_the_outputs(tmp_path, monkeypatch, capsys):
    from rapsim.compiler import stats
    net = parse_file(XOR_NET)
    db = load_patterns(XOR_PAT, net)
    iw = initial_weights(net)
    w = tmp_path / "w.npz"
    np.savez(w, **{f"w:{k}": v for k, v in iw.connects.items()},
             **{f"b:{k}": v for k, v in iw.biases.items()})
    js = tmp_path / "r.json"
    rc, text, err = rap(["infer", XOR_NET, "--weights", w, "--data", XOR_PAT, "--nodes", 4,
                         "--stats", "confusion,class_error", "--json", js,
                         "--out", tmp_path / "y.npy"], monkeypatch, capsys)
    assert rc == 0, err
    assert "the data: confusion of y" in text
    got = json.loads(js.read_text())["stats"]
    y = np.load(tmp_path / "y.npy")
    assert got == stats.compute(net, ["confusion", "class_error"], y, db.train.targets)
    np.save(tmp_path / "x.npy", db.train.inputs)
    rc, text, err = rap(["infer", XOR_NET, "--weights", w, "--data", tmp_path / "x.npy",
                         "--stats", "confusion"], monkeypatch, capsys)
    assert rc == 1 and "statistics (confusion) need targets" in err


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_several_input_and_output_layers(nodes):
    from rapsim.compiler.parser import parse_text
    net = parse_text("""
        layer x: input 5
        layer a: input 3
        layer h: sigmoid 9 bias
        layer y: sigmoid 4 bias
        layer z: tanh 3
        connect x -> h
        connect a -> h
        connect h -> y
        connect h -> z
        connect a -> z
        net n { input x, a  output y, z }
        """, "two.net")
    w = initial_weights(net)
    x = np.random.default_rng(4).random((70, 8))         # more than one block of 64
    r = infer(net, w, x, nodes=nodes)
    assert r.outputs.shape == (70, 7)
    assert np.abs(r.outputs - _reference(net, w, x)).max() < 1e-5
