"""``rap train --valid FILE`` end to end: the validation set's figures in the
table and in --json agree with the numpy reference on 1 and 4 nodes, its
loss drives the schedule, and bad input is reported cleanly."""
from __future__ import annotations

import json
import os

import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import rap_main

XOR_NET = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "xor.net")
TRAIN = "0 0 | 0\n0 1 | 1\n1 0 | 1\n1 1 | 0\n"
VALID = "0 1 | 1\n1 1 | 0\n0.9 0.1 | 1\n"
TEST = "0.1 0.1 | 0\n1 0.9 | 0\n"


def rap(args, monkeypatch, capsys):
    rc = rap_main([str(a) for a in args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in (("train", TRAIN), ("valid", VALID), ("test", TEST)):
        out[name] = tmp_path / f"{name}.pat"
        out[name].write_text(text)
    return out


@pytest.mark.parametrize("nodes", [1, 4])
def test_train_valid_against_reference(nodes, files, tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", files["train"], "--valid", files["valid"],
                        "--test", files["test"], "--nodes", nodes, "--epochs", 20, "--quiet",
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "valid loss" in out and "valid acc" in out
    r = json.loads(js.read_text())
    assert r["valid_patterns"] == 3 and r["test_patterns"] == 2 and r["train_patterns"] == 4
    network = parse_file(XOR_NET)
    sets = [load_patterns(str(files[k]), network).train for k in ("train", "valid", "test")]
    ref = reference_train(network, sets[0], sets[2], valid_set=sets[1], epochs=20,
                          c30_activations=True)
    assert len(r["epochs"]) == len(ref.epochs) == 20
    for a, b in zip(r["epochs"], ref.epochs):
        assert a["rate"] == b.rate
        assert a["valid_loss"] == pytest.approx(b.valid_loss, abs=1e-5)
        assert a["valid_accuracy"] == b.valid_accuracy
        assert a["test_loss"] == pytest.approx(b.test_loss, abs=1e-5)


def test_valid_stops_the_schedule(files, tmp_path, monkeypatch, capsys):
    """newbob on the validation loss: the run stops when the reference's does."""
    src = open(XOR_NET).read().replace(
        "rate     0.5", "rate     newbob(rate=0.5, start_below=0.5, stop_below=0.5)")
    netf = tmp_path / "nb.net"
    netf.write_text(src)
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", netf, "--data", files["train"], "--valid", files["valid"],
                        "--test", files["test"], "--nodes", 2, "--epochs", 40, "--quiet",
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    network = parse_file(str(netf))
    sets = [load_patterns(str(files[k]), network).train for k in ("train", "valid", "test")]
    ref = reference_train(network, sets[0], sets[2], valid_set=sets[1], epochs=40,
                          c30_activations=True)
    r = json.loads(js.read_text())
    assert r["stopped_by"] == ref.stopped_by == "schedule"
    assert [e["rate"] for e in r["epochs"]] == [e.rate for e in ref.epochs]


def test_no_valid_keeps_todays_output(files, tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", files["train"], "--epochs", 2, "--quiet",
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "valid" not in out
    r = json.loads(js.read_text())
    assert r["valid_patterns"] == 0 and "valid_loss" not in r["epochs"][0]


@pytest.mark.parametrize("text,message", [
    ("0 1 | 1\n1 1\n", "valid.pat"),
    ("0 1 1 | 1\n", "valid.pat"),
    ("", "valid.pat"),
])
def test_bad_valid_file(text, message, files, tmp_path, monkeypatch, capsys):
    files["valid"].write_text(text)
    rc, out, err = rap(["train", XOR_NET, "--data", files["train"], "--valid", files["valid"],
                        "--epochs", 1], monkeypatch, capsys)
    assert rc != 0 and message in err


def test_missing_valid_file(files, tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["train", XOR_NET, "--data", files["train"], "--valid",
                        tmp_path / "none.pat", "--epochs", 1], monkeypatch, capsys)
    assert rc != 0 and "none.pat" in err


@pytest.mark.parametrize("extra", [["--stream"], ["--mapping", "layers"]])
def test_valid_with_stream_and_mappings(extra, files, tmp_path, monkeypatch, capsys):
    """A streamed database and another mapping give the default run's figures."""
    runs = []
    for more in ([], extra):
        js = tmp_path / f"r{len(runs)}.json"
        rc, out, err = rap(["train", XOR_NET, "--data", files["train"], "--valid",
                            files["valid"], "--test", files["test"], "--nodes", 4,
                            "--epochs", 3, "--quiet", "--json", js] + more, monkeypatch, capsys)
        assert rc == 0, err
        runs.append(json.loads(js.read_text()))
    for a, b in zip(runs[0]["epochs"], runs[1]["epochs"]):
        assert a["valid_loss"] == pytest.approx(b["valid_loss"], abs=1e-6)
        assert a["test_loss"] == pytest.approx(b["test_loss"], abs=1e-6)


def test_valid_resumes(files, tmp_path, monkeypatch, capsys):
    """Save after 2 epochs and resume for 2 more: the validation figures of the
    4 epochs are those of one run."""
    one, second = tmp_path / "one.json", tmp_path / "b.json"
    base = ["train", XOR_NET, "--data", files["train"], "--valid", files["valid"], "--quiet"]
    assert rap(base + ["--epochs", 4, "--json", one], monkeypatch, capsys)[0] == 0
    state = tmp_path / "s.npz"
    assert rap(base + ["--epochs", 2, "--save", state], monkeypatch, capsys)[0] == 0
    assert rap(base + ["--epochs", 2, "--resume", state, "--json", second],
               monkeypatch, capsys)[0] == 0
    whole, resumed = json.loads(one.read_text()), json.loads(second.read_text())
    assert [e["valid_loss"] for e in whole["epochs"]] == \
        [e["valid_loss"] for e in resumed["epochs"]][-4:]
