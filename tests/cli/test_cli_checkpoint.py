"""``rap train --save / --resume / --load`` end to end: a run broken in two
gives exactly the weights, momentum and history of one run; files from
another network and damaged files are refused with a clear message."""
from __future__ import annotations

import numpy as np
import pytest

from clirun import net_file, rap, same_npz

#: momentum, a sparse connect, biases, a test set and newbob: every piece of
#: state a resumed run needs (weights, momentum, shuffle, the schedule's
#: errors and rate)
NET = """
param hidden = 5
layer x: input 6
layer h: tanh hidden bias
layer s: sigmoid 3 bias
layer y: sigmoid 2 bias
connect x -> h full
connect x -> s sparse local(4, 1)
connect h -> y full
connect s -> y full
net n { input x  hidden h, s  output y }
train { rate newbob(0.3, start_below=0.2, stop_below=0.01)  epochs 6  momentum 0.5  seed 3
        init_scale 0.5 }
"""


@pytest.fixture
def files(tmp_path):
    net = net_file(tmp_path, NET)
    rng = np.random.default_rng(0)
    x = rng.random((12, 6))
    t = (rng.random((12, 2)) > 0.5).astype(float)
    data = tmp_path / "d.npz"
    np.savez(data, inputs=x[:8], targets=t[:8], test_inputs=x[8:], test_targets=t[8:])
    return net, data




@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_resume_is_exact(nodes, files, tmp_path, monkeypatch, capsys):
    net, data = files
    whole, half, rest = tmp_path / "4.npz", tmp_path / "2.npz", tmp_path / "2+2.npz"
    common = ["train", net, "--data", data, "--nodes", nodes, "--quiet"]
    assert rap(common + ["--epochs", 4, "--save", whole], monkeypatch, capsys)[0] == 0
    assert rap(common + ["--epochs", 2, "--save", half], monkeypatch, capsys)[0] == 0
    rc, out, err = rap(common + ["--epochs", 2, "--resume", half, "--save", rest],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "4 epochs" in out                        # the history goes on
    same_npz(whole, rest)
    z = np.load(rest)
    assert int(z["epochs_done"]) == 4 and "m:x->h" in z.files and "mb:h" in z.files
    # the saved momentum is what the nodes held: not zero after training
    assert np.any(z["m:h->y"] != 0)


def test_resume_default_runs_to_the_description_epochs(files, tmp_path, monkeypatch, capsys):
    net, data = files
    half, rest = tmp_path / "2.npz", tmp_path / "rest.npz"
    common = ["train", net, "--data", data, "--quiet"]
    assert rap(common + ["--epochs", 2, "--save", half], monkeypatch, capsys)[0] == 0
    assert rap(common + ["--resume", half, "--save", rest], monkeypatch, capsys)[0] == 0
    z = np.load(rest)
    assert len(z["history"]) == int(z["epochs_done"]) > 2      # newbob may stop before 6
    assert int(z["epochs_done"]) <= 6


def test_load_starts_from_given_weights(files, tmp_path, monkeypatch, capsys):
    net, data = files
    saved, again = tmp_path / "s.npz", tmp_path / "again.npz"
    common = ["train", net, "--data", data, "--quiet", "--epochs", 1]
    assert rap(common + ["--save", saved], monkeypatch, capsys)[0] == 0
    z = dict(np.load(saved))
    w = {k: v for k, v in z.items() if k.startswith(("w:", "b:"))}
    weights_only = tmp_path / "w.npz"
    np.savez(weights_only, **w)
    assert rap(common + ["--load", weights_only, "--save", again], monkeypatch, capsys)[0] == 0
    z2 = np.load(again)
    assert int(z2["epochs_done"]) == 1              # --load starts at epoch 0
    # not the initial weights: the second epoch moved on from the first's end
    assert not np.array_equal(z2["w:x->h"], z["w:x->h"])
    from rapsim.compiler.checkpoint import load_weights
    from rapsim.compiler.parser import parse_file
    from rapsim.compiler.train import train
    from rapsim.compiler.data import load_patterns
    n = parse_file(str(net))
    db = load_patterns(str(data), n)
    r = train(n, db.train, db.test, weights=load_weights(weights_only, n), epochs=1)
    assert np.array_equal(r.weights.connects["x->h"], z2["w:x->h"])


def test_resume_with_other_data_is_refused(files, tmp_path, monkeypatch, capsys):
    net, data = files
    saved = tmp_path / "s.npz"
    common = ["train", net, "--quiet", "--epochs", 1]
    assert rap(common + ["--data", data, "--save", saved], monkeypatch, capsys)[0] == 0
    z = np.load(data)
    fewer = tmp_path / "fewer.npz"
    np.savez(fewer, inputs=z["inputs"][:5], targets=z["targets"][:5])
    rc, out, err = rap(common + ["--data", fewer, "--resume", saved], monkeypatch, capsys)
    assert rc == 1
    assert "the saved run trained on 8 patterns, this one has 5" in err


def _weights(tmp_path, **arrays):
    p = tmp_path / "w.npz"
    np.savez(p, **arrays)
    return p


BAD_FILES = [
    ("missing", "no such file"),
    ("folder", "is a folder"),
    ("text", "not a .npz archive"),
    ("truncated", "not a .npz archive"),
    ("other_net", "connect x->h has shape (5, 6) there, (7, 6) here"),
    ("missing_bias", "the bias of layer y is missing"),
    ("extra", "connect q->y is not in this network"),
    ("nan", "connect h->y holds NaN"),
    ("words", "is not numeric"),
]
#: a training state's own problems (--load takes weights alone)
BAD_STATES = [
    ("weights_only", "holds weights only"),
    ("no_momentum", "saved without momentum"),
]


@pytest.mark.parametrize("option, case, message",
                         [(o, c, m) for o in ("--resume", "--load") for c, m in BAD_FILES]
                         + [("--resume", c, m) for c, m in BAD_STATES])
def test_bad_files(option, case, message, files, tmp_path, monkeypatch, capsys):
    net, data = files
    good = tmp_path / "good.npz"
    common = ["train", net, "--data", data, "--quiet", "--epochs", 1]
    assert rap(common + ["--save", good], monkeypatch, capsys)[0] == 0
    z = dict(np.load(good))
    w = {k: v for k, v in z.items() if k.startswith(("w:", "b:"))}
    args = common
    if case == "missing":
        path = tmp_path / "none.npz"
    elif case == "folder":
        path = tmp_path
    elif case == "text":
        path = tmp_path / "t.npz"
        path.write_text("0 1 2\n")
    elif case == "truncated":
        path = tmp_path / "t.npz"
        path.write_bytes(good.read_bytes()[:200])
    elif case == "other_net":
        path = good
        args = common + ["-P", "hidden=7"]
    elif case == "missing_bias":
        path = _weights(tmp_path, **{k: v for k, v in z.items() if k != "b:y"})
    elif case == "extra":
        path = _weights(tmp_path, **z, **{"w:q->y": np.zeros(3)})
    elif case == "nan":
        bad = dict(z)
        bad["w:h->y"] = np.full_like(z["w:h->y"], np.nan)
        path = _weights(tmp_path, **bad)
    elif case == "words":
        bad = dict(z)
        bad["w:h->y"] = np.full(z["w:h->y"].shape, "a")
        path = _weights(tmp_path, **bad)
    elif case == "weights_only":
        path = _weights(tmp_path, format=z["format"], **w)
    else:
        path = _weights(tmp_path, **{k: v for k, v in z.items() if not k.startswith("m")})
    rc, out, err = rap(args + [option, path], monkeypatch, capsys)
    assert rc == 1
    assert message in err and str(path) in err
