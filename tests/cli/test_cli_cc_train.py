"""``rap cc`` and ``rap train`` end to end: the examples learn on 1, 4 and
16 nodes, agree with the numpy reference, and bad input is reported cleanly."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import rap_main

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")
DIGITS_NET = os.path.join(EXAMPLES, "digits.net")
#: docs/compiler.md states this test accuracy of examples/digits.net after
#: its 10 epochs (measured: 90.5 % on every node count)
DIGITS_ACCURACY = 0.85


def rap(args, monkeypatch, capsys):
    rc = rap_main([str(a) for a in args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err


@pytest.fixture(scope="module")
def digits_npz(tmp_path_factory):
    import runpy
    path = tmp_path_factory.mktemp("digits") / "digits.npz"
    runpy.run_path(os.path.join(EXAMPLES, "make_digits.py"), run_name="make")["main"](str(path))
    return path


def test_cc_writes_image_and_assembly(tmp_path, monkeypatch, capsys):
    img, asm = tmp_path / "xor.out", tmp_path / "xor.asm"
    rc, out, err = rap(["cc", XOR_NET, "-o", img, "--nodes", "4", "-S", asm, "--layout",
                        "-P", "hidden=6"], monkeypatch, capsys)
    assert rc == 0, err
    assert img.stat().st_size > 0
    text = asm.read_text()
    assert "_ring_allgather" in text and "_mxv" in text
    assert "units per node" in out and "2/1" in out        # 6 hidden units on 4 nodes


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_train_xor(nodes, tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", nodes, "--json", js],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "MCUPS" in out and "MCPS" in out and "ring utilisation" in out
    r = json.loads(js.read_text())
    assert r["nodes"] == nodes and r["epochs"][-1]["train_accuracy"] == 1.0
    net = parse_file(XOR_NET)
    ref = reference_train(net, load_patterns(XOR_PAT, net).train, c30_activations=True)
    assert [e["train_accuracy"] for e in r["epochs"]] == [e.train_accuracy for e in ref.epochs]
    assert np.allclose([e["train_loss"] for e in r["epochs"]],
                       [e.train_loss for e in ref.epochs], atol=1e-5)
    perf = r["performance"]
    assert perf["mcups"] > 0 and perf["mcps"] > 0
    assert "ring_read" in perf["train"]["stalls"]


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_train_digits(nodes, digits_npz, tmp_path, monkeypatch, capsys):
    js = tmp_path / "d.json"
    args = ["train", DIGITS_NET, "--data", digits_npz, "--json", js, "--quiet"]
    args += ["--boards", nodes // 4] if nodes >= 4 else ["--nodes", nodes]
    rc, out, err = rap(args, monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    assert r["nodes"] == nodes
    assert r["epochs"][-1]["test_accuracy"] >= DIGITS_ACCURACY
    if nodes == 4:                                    # the reference, once
        net = parse_file(DIGITS_NET)
        db = load_patterns(digits_npz, net)
        ref = reference_train(net, db.train, db.test, c30_activations=True)
        assert [e["test_accuracy"] for e in r["epochs"]] == [e.test_accuracy for e in ref.epochs]
        assert np.allclose([e["test_loss"] for e in r["epochs"]],
                           [e.test_loss for e in ref.epochs], atol=1e-4)


def test_errors_in_the_network_file(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "bad.net"
    bad.write_text("layer x: input 2\nlayer y: sigmoid 1\nconnect x -> z full\n"
                   "net n { input x  output y }\n")
    for cmd in (["cc", bad, "-o", tmp_path / "o.out"], ["train", bad, "--data", XOR_PAT]):
        rc, out, err = rap(cmd, monkeypatch, capsys)
        assert rc == 1
        assert f"{bad}:3:" in err


def test_errors_in_the_data_file(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "bad.pat"
    bad.write_text("0 0 | 0\n0 1 1 | 1\n")
    rc, out, err = rap(["train", XOR_NET, "--data", bad], monkeypatch, capsys)
    assert rc == 1 and str(bad) in err
    rc, out, err = rap(["train", XOR_NET, "--data", tmp_path / "missing.pat"], monkeypatch, capsys)
    assert rc == 1 and "missing.pat" in err


def test_bad_options(tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "o", "-P", "hidden"], monkeypatch, capsys)
    assert rc == 1 and "NAME=VALUE" in err
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "o", "-P", "nothere=3"], monkeypatch, capsys)
    assert rc == 1 and "nothere" in err
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "o", "-P", "hidden=3", "-P", "hidden=5"],
                       monkeypatch, capsys)
    assert rc == 1 and err.strip() == "rap cc: error: -P hidden is given twice ('3' and '5')"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--epochs", "-1"], monkeypatch, capsys)
    assert rc == 1 and "--epochs" in err


def test_machine_stop_exit_status(monkeypatch, capsys):
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", "2", "--max-cycles",
                        "3000"], monkeypatch, capsys)
    assert rc == 3 and "cycle limit" in err


@pytest.mark.parametrize("extra, message", [
    (["--test-fraction", "0.5", "--split-seed", "-1"], "--split-seed must be 0 or more, not -1"),
    (["--split-seed", "3"], "--split-seed shuffles the patterns for --test-fraction; "
                            "give --test-fraction too"),
    (["--json", "{tmp}/no/such/folder/r.json"], "cannot write {tmp}/no/such/folder/r.json: "
                                                "no folder {tmp}/no/such/folder"),
    (["--json", "{tmp}"], "cannot write {tmp}: Is a directory"),
])
def test_option_errors_come_first(extra, message, tmp_path, monkeypatch, capsys):
    """Option errors are reported before the run (an unwritable --json after
    a whole training run was a wasted run)."""
    extra = [a.format(tmp=tmp_path) for a in extra]
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--quiet"] + extra,
                       monkeypatch, capsys)
    assert rc == 1 and out == ""
    assert err.strip() == "rap train: error: " + message.format(tmp=tmp_path)


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0"])
def test_max_cycles_must_be_a_positive_count(value, monkeypatch, capsys):
    with pytest.raises(SystemExit) as e:          # argparse: a usage error
        rap(["train", XOR_NET, "--data", XOR_PAT, "--max-cycles", value], monkeypatch, capsys)
    assert e.value.code == 2 and "argument --max-cycles" in capsys.readouterr().err


def test_a_database_with_a_test_set_is_not_split_again(tmp_path, monkeypatch, capsys):
    db = tmp_path / "d.npz"
    np.savez(db, x=np.zeros((4, 2)), y=np.zeros(4), x_test=np.ones((2, 2)), y_test=np.ones(2))
    for extra, message in ((["--test-fraction", "0.5"], f"{db} holds a test set already; "
                                                        f"--test-fraction would replace it"),
                           (["--test", XOR_PAT], f"{db} holds a test set already; "
                                                 f"--test would replace it")):
        rc, out, err = rap(["train", XOR_NET, "--data", db] + extra, monkeypatch, capsys)
        assert rc == 1 and err.strip() == "rap train: error: " + message
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--test", db], monkeypatch, capsys)
    assert rc == 1 and err.strip() == (f"rap train: error: {db} holds a training and a test "
                                       f"set; --test takes a file of test patterns only")


def test_cc_writes_the_image_and_assembly_or_neither(tmp_path, monkeypatch, capsys):
    img, asm = tmp_path / "x.out", tmp_path / "x.asm"
    for o, s, bad in ((img, tmp_path / "no" / "x.asm", tmp_path / "no" / "x.asm"),
                      (tmp_path / "no" / "x.out", asm, tmp_path / "no" / "x.out")):
        rc, out, err = rap(["cc", XOR_NET, "-o", o, "-S", s], monkeypatch, capsys)
        assert rc == 1 and err.strip() == f"rap cc: error: cannot write {bad}: " \
                                          f"no folder {tmp_path / 'no'}"
        assert not img.exists() and not asm.exists()


@pytest.mark.parametrize("script, args, rc", [
    ("make_speech.py", ["{tmp}/s.npz", "abc"], 2),
    ("make_speech.py", ["{tmp}/no/s.npz", "2"], 1),
    ("make_digits.py", ["{tmp}/no/d.npz"], 1),
])
def test_example_generators_report_bad_arguments(script, args, rc, tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)]
                       + [a.format(tmp=tmp_path) for a in args], capture_output=True, text=True)
    assert r.returncode == rc and "Traceback" not in r.stderr and script in r.stderr
