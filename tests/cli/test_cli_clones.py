"""CLONES' two halves together, end to end through ``rap``: a description
with a binary input (index list), a thresholded binary hidden layer, a user
transfer function and a sub-net trained in turn, with save/resume/load,
streamed databases (a small --dram-words), statistics, and the inference
image (``rap cc --forward-only``, ``rap infer``), on 1, 4 and 16 nodes."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from rapsim.compiler.infer import infer, inputs_file_words
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model
from rapsim.compiler.checkpoint import load_weights

from clirun import rap, same_npz

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")

def _net_text(alternate: str) -> str:
    """examples/clones.net, trained 6 epochs, alternating per ``alternate``."""
    with open(os.path.join(EXAMPLES, "clones.net")) as fh:
        text = fh.read()
    return text.replace("epochs 4", "epochs 6").replace("alternate pattern",
                                                        f"alternate {alternate}")


def _data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    b = np.zeros((n, 30))
    for i in range(n):
        b[i, rng.choice(30, 4, replace=False)] = 1.0
    x = rng.random((n, 4)) * 2 - 1
    t = (rng.random((n, 3)) > 0.5).astype(float)
    return np.concatenate([b, x], axis=1), t


@pytest.fixture(params=["epoch", "pattern"])
def files(request, tmp_path):
    for f in ("softsign.asm", "softsign.py"):
        shutil.copy(os.path.join(EXAMPLES, f), tmp_path / f)
    net = tmp_path / "c.net"
    net.write_text(_net_text(request.param))
    x, t = _data(14, 1)
    data = tmp_path / "d.npz"
    np.savez(data, inputs=x[:10], targets=t[:10], test_inputs=x[10:], test_targets=t[10:])
    return net, data




def _train(args, monkeypatch, capsys):
    rc, out, err = rap(["train"] + [str(a) for a in args] + ["--quiet"], monkeypatch, capsys)
    assert rc == 0, err
    return out


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_resume_goes_on_with_the_alternation(nodes, files, tmp_path, monkeypatch, capsys):
    """2 + 2 epochs of a net and its sub-net in turn (per epoch: the resumed
    run starts with the net of epoch 2; per pattern) with binary layers and
    a user transfer function: exactly the weights, momentum and history of
    4 epochs in one run."""
    net, data = files
    whole, half, rest = tmp_path / "4.npz", tmp_path / "2.npz", tmp_path / "2+2.npz"
    common = [net, "--data", data, "--nodes", nodes]
    _train(common + ["--epochs", 4, "--save", whole], monkeypatch, capsys)
    _train(common + ["--epochs", 2, "--save", half], monkeypatch, capsys)
    _train(common + ["--epochs", 2, "--resume", half, "--save", rest], monkeypatch, capsys)
    same_npz(whole, rest)
    z = np.load(rest)
    assert int(z["epochs_done"]) == 4 and "m:b->t" in z.files
    # an odd break: the resumed run starts with the sub-net (per epoch)
    three, one = tmp_path / "3.npz", tmp_path / "3+1.npz"
    _train(common + ["--epochs", 3, "--save", three], monkeypatch, capsys)
    _train(common + ["--epochs", 1, "--resume", three, "--save", one], monkeypatch, capsys)
    same_npz(whole, one)


def test_resume_matters(files, tmp_path, monkeypatch, capsys):
    """The test above can fail: starting again from the saved weights alone
    (--load: epoch count, order, momentum and alternation start afresh)
    gives other weights."""
    net, data = files
    whole, half, loaded = tmp_path / "4.npz", tmp_path / "2.npz", tmp_path / "l.npz"
    common = [net, "--data", data]
    _train(common + ["--epochs", 4, "--save", whole], monkeypatch, capsys)
    _train(common + ["--epochs", 2, "--save", half], monkeypatch, capsys)
    _train(common + ["--epochs", 2, "--load", half, "--save", loaded], monkeypatch, capsys)
    assert not np.array_equal(np.load(whole)["w:b->t"], np.load(loaded)["w:b->t"])
    # --load starts from exactly the given weights: 0 epochs leave them
    again = tmp_path / "again.npz"
    _train(common + ["--epochs", 0, "--load", half, "--save", again], monkeypatch, capsys)
    for k in ("w:b->t", "w:b->y", "w:t->s", "b:s"):
        assert np.array_equal(np.load(again)[k], np.load(half)[k]), k


@pytest.mark.parametrize("nodes, block", [(1, 3), (4, 5), (16, 64)])
def test_stream_with_index_lists(nodes, block, files, tmp_path, monkeypatch, capsys):
    """Index-list records of a binary layer streamed from host files: the
    weights, outputs and statistics of the in-memory run; a DRAM too small
    for the database streams on its own."""
    net, data = files
    common = [net, "--data", data, "--nodes", nodes, "--epochs", 3,
              "--stats", "confusion,output_accuracy"]
    mem, st, small = (tmp_path / f"{n}.npz" for n in ("mem", "st", "small"))
    jm, js, jsmall = (tmp_path / f"{n}.json" for n in ("mem", "st", "small"))
    _train(common + ["--save", mem, "--json", jm], monkeypatch, capsys)
    _train(common + ["--save", st, "--json", js, "--stream", "--stream-block", block],
           monkeypatch, capsys)
    same_npz(mem, st)
    a, b = json.loads(jm.read_text()), json.loads(js.read_text())
    assert a["epochs"] == b["epochs"] and "confusion" in a["epochs"][-1]["stats"]["train"]
    assert "streamed" not in a["database"] and "streamed" in b["database"]


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_database_beyond_dram_streams(nodes, files, tmp_path, monkeypatch, capsys):
    """300 records of 38 words (11,400 words) fit neither 4,000 words of
    DRAM nor what 16 K words of SRAM leave: streamed on their own, with the
    weights of the in-memory run on a machine of the default memory."""
    net, _ = files
    x, t = _data(300, 5)
    data = tmp_path / "big.npz"
    np.savez(data, inputs=x, targets=t)
    common = [net, "--data", data, "--nodes", nodes, "--epochs", 1]
    mem, small, js = tmp_path / "mem.npz", tmp_path / "small.npz", tmp_path / "small.json"
    _train(common + ["--save", mem], monkeypatch, capsys)
    _train(common + ["--save", small, "--json", js, "--sram-words", 16384,
                     "--dram-words", 4000, "--stream-block", 16], monkeypatch, capsys)
    assert "streamed in blocks of 16 records" in json.loads(js.read_text())["database"]
    same_npz(mem, small)


def _trained_and_inferred(files, tmp_path, nodes, monkeypatch, capsys, *extra):
    """Train 2 epochs and save; ``rap infer`` the saved weights on every
    pattern with the options ``extra``: (the .net, the saved run, the
    inputs, the outputs)."""
    net, data = files
    saved, y = tmp_path / "s.npz", tmp_path / "y.npy"
    _train([net, "--data", data, "--nodes", nodes, "--epochs", 2, "--save", saved],
           monkeypatch, capsys)
    z = np.load(data)
    return (net, saved, np.concatenate([z["inputs"], z["test_inputs"]]),
            _infer(net, saved, data, nodes, y, monkeypatch, capsys, *extra))


def _infer(net, saved, data, nodes, out, monkeypatch, capsys, *extra):
    """``rap infer``'s outputs."""
    rc, text, err = rap(["infer", net, "--weights", saved, "--data", data, "--nodes", nodes,
                         "--out", out, *extra], monkeypatch, capsys)
    assert rc == 0, err
    return np.load(out)


def _forward(network, weights, x):
    """The numpy reference's forward pass (C30 activations, as the nodes)."""
    model = Model(network, weights, c30_activations=True)
    return np.stack([model.outputs(r) for r in x])


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_inference_image(nodes, files, tmp_path, monkeypatch, capsys):
    """rap cc --forward-only / rap infer of the main net (binary input as
    index lists, threshold layer, user transfer function): the outputs of
    the training run's last evaluation, bit for bit, and the reference's."""
    js = tmp_path / "t.json"
    net, saved, x, got = _trained_and_inferred(files, tmp_path, nodes, monkeypatch, capsys,
                                               "--stats", "confusion", "--json", js)
    network = parse_file(net)
    w = load_weights(saved, network)
    assert np.abs(got - _forward(network, w, x)).max() < 1e-5
    r = json.loads(js.read_text())
    assert r["patterns"] == 14 and r["mcps"] > 0 and "confusion" in r["stats"]
    # the image under rap run, with its own weights and records files
    img, wbin = tmp_path / "n.out", tmp_path / "n.w"
    rc, out, err = rap(["cc", net, "--forward-only", "-o", img, "--nodes", nodes,
                        "--weights", saved, "--weights-file", wbin], monkeypatch, capsys)
    assert rc == 0, err
    from rapsim.compiler.infer import compile_inference
    plan = compile_inference(network, nodes).plan
    (tmp_path / "x.bin").write_bytes(inputs_file_words(x, plan).astype("<u4").tobytes())
    monkeypatch.chdir(tmp_path)
    rc, out, err = rap(["run", "--nodes", nodes, img, "--", "n.w", "x.bin", "y.bin"],
                       monkeypatch, capsys)
    assert rc == 0, err
    from rapsim.asm.floatfmt import from_single
    raw = from_single(np.fromfile(tmp_path / "y.bin", dtype="<u4")).reshape(14, 3)
    assert np.array_equal(raw, got)


def test_inference_equals_the_training_evaluation(files):
    net, data = files
    from rapsim.compiler.data import load_patterns
    from rapsim.compiler.train import train
    network = parse_file(net)
    db = load_patterns(data, network)
    r = train(network, db.train, nodes=4, epochs=3)
    got = infer(network, r.weights, db.train.inputs, nodes=4)
    assert np.array_equal(got.outputs, r.outputs)


def test_binary_inference_input_errors(files, tmp_path, monkeypatch, capsys):
    net, data = files
    saved = tmp_path / "s.npz"
    _train([net, "--data", data, "--epochs", 1, "--save", saved], monkeypatch, capsys)
    x = np.load(data)["inputs"].copy()
    x[2, 5] = 0.5
    np.save(tmp_path / "x.npy", x)
    rc, out, err = rap(["infer", net, "--weights", saved, "--data", tmp_path / "x.npy"],
                       monkeypatch, capsys)
    assert rc == 1
    assert "pattern 2: binary layer 'b' takes 0 or 1 per unit, unit 5 is 0.5" in err


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_rap_train_against_the_reference(nodes, files, tmp_path, monkeypatch, capsys):
    """The saved weights of `rap train` (binary input, threshold layer,
    soft-sign, shared connects of two nets in turn) are the numpy
    reference's."""
    from rapsim.compiler.data import load_patterns
    from rapsim.compiler.reference import train as reference_train
    net, data = files
    saved = tmp_path / "s.npz"
    _train([net, "--data", data, "--nodes", nodes, "--epochs", 4, "--save", saved],
           monkeypatch, capsys)
    network = parse_file(net)
    db = load_patterns(data, network)
    ref = reference_train(network, db.train, db.test, c30_activations=True, epochs=4)
    assert load_weights(saved, network).max_difference(ref.model.weights) < 1e-5


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_a_sub_net_infers(nodes, files, tmp_path, monkeypatch, capsys):
    """--net part: the image runs the sub-net's forward pass (its layers and
    connects only) and writes its outputs: the reference's forward pass of
    the sub-net; MCPS counts its connections."""
    js = tmp_path / "r.json"
    net, saved, x, got = _trained_and_inferred(files, tmp_path, nodes, monkeypatch, capsys,
                                               "--net", "part", "--json", js)
    network = parse_file(net)
    model = Model(network, load_weights(saved, network), c30_activations=True)
    part = network.nets[0]
    want = np.stack([model.forward(r, part)["y"] for r in x])
    assert np.abs(got - want).max() < 1e-5
    # not the main net's outputs
    assert np.abs(got - _forward(network, load_weights(saved, network), x)).max() > 1e-3
    assert json.loads(js.read_text())["connections"] == 4 * 7 + 7 * 3
    # the main net by name is the default
    data = files[1]
    assert np.array_equal(
        _infer(net, saved, data, nodes, tmp_path / "y2.npy", monkeypatch, capsys, "--net", "main"),
        _infer(net, saved, data, nodes, tmp_path / "y3.npy", monkeypatch, capsys))


@pytest.mark.parametrize("args, message", [
    (["infer", "NET", "--weights", "S", "--data", "D", "--net", "nope"],
     "network 'main' has no net 'nope' (its nets: main, part)"),
    (["infer", "NET", "--weights", "S", "--data", "D", "--net", "part", "--stats", "confusion"],
     "statistics (confusion) are of the main net's outputs: not with --net part"),
    (["cc", "NET", "-o", "x.out", "--net", "part"], "--net goes with --forward-only"),
    (["cc", "NET", "-o", "x.out", "--forward-only", "--net", "nope"],
     "network 'main' has no net 'nope'"),
])
def test_bad_net_choice(args, message, files, tmp_path, monkeypatch, capsys):
    net, data = files
    saved = tmp_path / "s.npz"
    _train([net, "--data", data, "--epochs", 1, "--save", saved], monkeypatch, capsys)
    args = [{"NET": net, "S": saved, "D": data}.get(a, a) for a in args]
    args = [tmp_path / a if a == "x.out" else a for a in args]
    rc, out, err = rap(args, monkeypatch, capsys)
    assert rc == 1
    assert message in err


NUDGE = """\
* after_backward: the first own bias of y += AR3 / 128 (AR3: the row of
* the pattern in the database), so the weights depend on the rows
        .global _nudge
        .global n_bias_y
        .text
_nudge: PUSH    DP
        LDP     k_bias
        LDI     @k_bias, AR0
        POP     DP
        FLOAT   AR3, R0
        MPYF    0.0078125, R0
        ADDF    *AR0, R0
        STF     R0, *AR0
        RETS
        .data
k_bias: .word   n_bias_y
"""


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_assembly_behaviour_over_a_stream(nodes, files, tmp_path, monkeypatch, capsys):
    """An assembly behaviour reading the pattern's row (AR3): the same
    weights from a streamed database as from node memory."""
    net, data = files
    (tmp_path / "nudge.asm").write_text(NUDGE)
    with open(net, "a") as fh:
        fh.write('behaviour after_backward call _nudge "nudge.asm"\n')
    mem, st, plain = tmp_path / "mem.npz", tmp_path / "st.npz", tmp_path / "plain.npz"
    common = [net, "--data", data, "--nodes", nodes, "--epochs", 2]
    _train(common + ["--save", mem], monkeypatch, capsys)
    _train(common + ["--save", st, "--stream", "--stream-block", 3], monkeypatch, capsys)
    same_npz(mem, st)
    # the routine changes the run (so the rows it reads count)
    text = open(net).read().replace('behaviour after_backward call _nudge "nudge.asm"\n', "")
    (tmp_path / "plain.net").write_text(text)
    _train([tmp_path / "plain.net"] + common[1:] + ["--save", plain], monkeypatch, capsys)
    assert not np.array_equal(np.load(mem)["b:y"], np.load(plain)["b:y"])


def test_binary_inputs_on_standard_input(files, tmp_path, monkeypatch, capsys):
    """rap infer --data -: the input values (0/1 for the binary layer) as
    C30 words; the image gets index lists, the outputs are the file's."""
    import io
    from rapsim.asm.floatfmt import to_single
    net, data = files
    saved, a, b = tmp_path / "s.npz", tmp_path / "a.npy", tmp_path / "b.npy"
    _train([net, "--data", data, "--epochs", 1, "--save", saved], monkeypatch, capsys)
    common = ["infer", net, "--weights", saved, "--nodes", 4]
    rc, out, err = rap(common + ["--data", data, "--out", a], monkeypatch, capsys)
    assert rc == 0, err
    z = np.load(data)
    x = np.concatenate([z["inputs"], z["test_inputs"]])

    class _Stdin:
        buffer = io.BytesIO(np.asarray(to_single(x.ravel()), "<u4").tobytes())
    monkeypatch.setattr("sys.stdin", _Stdin)
    rc, out, err = rap(common + ["--data", "-", "--out", b], monkeypatch, capsys)
    assert rc == 0, err
    assert np.array_equal(np.load(a), np.load(b))
