"""``rap cc`` and ``rap train`` with ``--mapping`` and ``--batch`` end to
end: the mapping is printed and written in --json, the data mapping agrees
with the reference of its mini-batch semantics, and what is not supported is
refused with a clear message and exit status 1."""
from __future__ import annotations

import json
import os

import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.mapping import resolve
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import rap_main

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")


def rap(args, monkeypatch, capsys):
    rc = rap_main([str(a) for a in args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err


@pytest.mark.parametrize("nodes,batch", [(1, 1), (4, 2)])
def test_train_data_mapping(nodes, batch, tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", nodes, "--mapping",
                        "data", "--batch", batch, "--epochs", 5, "--json", js],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert f"mapping data, batch {batch} per node" in out
    assert "mapping data (--mapping)" in err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "data" and r["mapping"]["batch"] == batch
    assert r["mapping"]["layers"]["h"] == {"nodes": [0, nodes - 1], "split": "patterns"}
    network = parse_file(XOR_NET)
    ref = reference_train(network, load_patterns(XOR_PAT, network).train, epochs=5,
                          c30_activations=True, mapping=resolve(network, nodes, "data", batch))
    for a, b in zip(r["epochs"], ref.epochs):
        assert a["train_loss"] == pytest.approx(b.train_loss, abs=1e-5)


def test_train_json_names_rows_by_default(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 2, "--epochs", 1,
                        "--quiet", "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "rows" and r["mapping"]["source"] == "default"
    assert r["mapping"]["layers"]["y"] == {"nodes": [0, 1], "split": "units"}


def test_cc_prints_the_mapping_and_placement(tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "x.out", "--nodes", 4, "--mapping",
                        "data", "--batch", 3, "--layout"], monkeypatch, capsys)
    assert rc == 0, err
    assert out.startswith("mapping data (--mapping): every layer and weight on each of 4 nodes")
    assert "every 3 patterns per node" in out
    assert "nodes 0..3, by patterns" in out and "n_grad" in out


@pytest.mark.parametrize("extra,message", [
    (["--batch", "2"], "--batch 2 applies to the data and hybrid mappings"),
    (["--mapping", "data", "--batch", "0"], "--batch must be a whole number of at least 1"),
])
@pytest.mark.parametrize("command", ["cc", "train"])
def test_refusals(command, extra, message, tmp_path, monkeypatch, capsys):
    args = ([command, XOR_NET] + (["-o", tmp_path / "x.out"] if command == "cc"
                                  else ["--data", XOR_PAT]) + ["--nodes", "4"] + extra)
    rc, out, err = rap(args, monkeypatch, capsys)
    assert rc == 1 and message in err
    assert not (tmp_path / "x.out").exists()


def test_description_placement(tmp_path, monkeypatch, capsys):
    src = tmp_path / "g.net"
    src.write_text("layer x: input 2\nlayer h: sigmoid 3 nodes 0..1\nlayer y: sigmoid 1\n"
                   "connect x -> h\nconnect h -> y\nnet g { input x  hidden h  output y }\n")
    rc, out, err = rap(["cc", src, "-o", tmp_path / "x.out", "--nodes", 4, "--layout"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert out.startswith("mapping layers (description): layers on node groups, split by units "
                          "inside them (x 0..3, h 0..1, y 0..3)")
    assert "nodes 0..1, by units" in out
    # the same description on two nodes is the whole ring: rows
    rc, out, err = rap(["cc", src, "-o", tmp_path / "x.out", "--nodes", 2], monkeypatch, capsys)
    assert rc == 0 and out.startswith("mapping rows (description)")
    # on one node, nodes 0..1 is beyond the ring
    rc, out, err = rap(["cc", src, "-o", tmp_path / "x.out", "--nodes", 1], monkeypatch, capsys)
    assert rc == 1
    assert f"{src}:2:20: error: layer 'h': nodes 0..1 is beyond the ring of 1 node" in err


def test_train_layers_mapping(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 4, "--mapping",
                        "layers", "--epochs", 3, "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "layers"
    assert r["mapping"]["layers"]["h"]["nodes"] != r["mapping"]["layers"]["y"]["nodes"]
    network = parse_file(XOR_NET)
    ref = reference_train(network, load_patterns(XOR_PAT, network).train, epochs=3,
                          c30_activations=True)
    for a, b in zip(r["epochs"], ref.epochs):
        assert a["train_loss"] == pytest.approx(b.train_loss, abs=1e-5)


def test_train_hybrid_mapping(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 4, "--mapping",
                        "hybrid", "--batch", 2, "--epochs", 3, "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "mapping hybrid, batch 2 per node" in out
    assert "mapping hybrid (--mapping): h split by patterns" in err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "hybrid"
    assert r["mapping"]["layers"]["h"] == {"nodes": [0, 3], "split": "patterns"}
    assert r["mapping"]["layers"]["y"] == {"nodes": [0, 3], "split": "units"}
    network = parse_file(XOR_NET)
    ref = reference_train(network, load_patterns(XOR_PAT, network).train, epochs=3,
                          c30_activations=True, mapping=resolve(network, 4, "hybrid", 2))
    for a, b in zip(r["epochs"], ref.epochs):
        assert a["train_loss"] == pytest.approx(b.train_loss, abs=1e-5)


@pytest.mark.parametrize("args,message", [
    (["cc", "--forward-only", "--mapping", "data"],
     "the inference image (--forward-only, rap infer) supports the rows mapping only, not "
     "--mapping data"),
    (["train", "--stream", "--mapping", "hybrid"],
     "a streamed pattern database (--stream, or one larger than a node's memory) supports the "
     "rows mapping only, not --mapping hybrid"),
])
def test_mappings_refused_with_inference_and_streaming(args, message, tmp_path, monkeypatch,
                                                      capsys):
    full = [args[0], XOR_NET] + (["-o", tmp_path / "x.out"] if args[0] == "cc"
                                 else ["--data", XOR_PAT]) + ["--nodes", "4"] + args[1:]
    rc, out, err = rap(full, monkeypatch, capsys)
    assert rc == 1 and message in err
    assert not (tmp_path / "x.out").exists()


def test_description_mapping_refused_by_rap_infer(tmp_path, monkeypatch, capsys):
    src = tmp_path / "p.net"
    src.write_text(open(XOR_NET).read().replace("output y\n", "output y\n    partition patterns\n"))
    rc, out, err = rap(["cc", src, "-o", tmp_path / "x.out", "--nodes", 2, "--forward-only"],
                       monkeypatch, capsys)
    assert rc == 1
    assert f"{src}:" in err and "supports the rows mapping only" in err


def test_train_checkerboard_mapping(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 4, "--mapping",
                        "checkerboard", "--epochs", 3, "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "mapping checkerboard (--mapping): every full connect's weights in 2 x 2 blocks" in err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "checkerboard" and r["mapping"]["grid"] == {"rows": 2,
                                                                               "cols": 2}
    network = parse_file(XOR_NET)
    ref = reference_train(network, load_patterns(XOR_PAT, network).train, epochs=3,
                          c30_activations=True)
    for a, b in zip(r["epochs"], ref.epochs):
        assert a["train_loss"] == pytest.approx(b.train_loss, abs=1e-5)


@pytest.mark.parametrize("mapping", ["hybrid", "checkerboard"])
def test_save_and_resume_under_a_mapping(mapping, tmp_path, monkeypatch, capsys):
    """Three epochs, saved and resumed for three more, are the six of one run
    (the state holds whole weights and momentum whatever the split)."""
    common = ["train", XOR_NET, "--data", XOR_PAT, "--nodes", 4, "--mapping", mapping, "--quiet"]
    whole, part, state = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "s.npz"
    assert rap(common + ["--epochs", 6, "--json", whole], monkeypatch, capsys)[0] == 0
    assert rap(common + ["--epochs", 3, "--save", state], monkeypatch, capsys)[0] == 0
    assert rap(common + ["--epochs", 3, "--resume", state, "--json", part],
               monkeypatch, capsys)[0] == 0
    a, b = json.loads(whole.read_text()), json.loads(part.read_text())
    assert len(a["epochs"]) == len(b["epochs"]) == 6     # the resumed run's history goes on
    assert [e["train_loss"] for e in a["epochs"]] == [e["train_loss"] for e in b["epochs"]]
