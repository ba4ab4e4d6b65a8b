"""``rap plan`` end to end: the ranked table, --json, --check, and
``rap cc/train --mapping auto``; bad input gives a clear error and exit
status 1."""
from __future__ import annotations

import json
import os

from clirun import net_file, rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")
SPEECH = os.path.join(EXAMPLES, "speech.net")


def test_plan_table_and_json(tmp_path, monkeypatch, capsys):
    out = tmp_path / "p.json"
    rc, text, err = rap(["plan", SPEECH, "--boards", "4", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    assert "best" in text and "rows" in text and "checkerboard" in text
    d = json.loads(out.read_text())
    # the speech MLP's hid -> phones split by columns ranks first
    assert d["nodes"] == 16 and d["best"] == d["ranked"][0]["mapping"] == "columns"
    assert {p["mapping"] for p in d["ranked"]} == {"rows", "data", "layers", "hybrid",
                                                   "checkerboard", "columns"}
    cycles = [p["train_cycles_per_pattern"] for p in d["ranked"]]
    assert cycles == sorted(cycles)
    for p in d["ranked"]:
        assert p["mcups"] > 0 and p["mcps"] > 0
        assert "_mxv" in p["forward_breakdown"]


def test_plan_check(tmp_path, monkeypatch, capsys):
    out = tmp_path / "p.json"
    rc, text, err = rap(["plan", XOR_NET, "--nodes", "4", "--check", "--top", "2",
                         "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    assert "predicted against simulated" in text
    d = json.loads(out.read_text())
    assert len(d["check"]) == 2
    for c in d["check"]:
        assert abs(c["train_error"]) < 0.1 and abs(c["forward_error"]) < 0.1
        assert c["train_predicted"] / c["train_simulated"] - 1 == c["train_error"]


def test_plan_lists_refused(tmp_path, monkeypatch, capsys):
    """clones.net: several nets (every mapping but rows refused by the
    compiler, each refusal listed with its reason), a binary input, a
    threshold layer and a user transfer function: priced, the assumptions
    printed and in the JSON."""
    out = tmp_path / "c.json"
    rc, text, err = rap(["plan", os.path.join(EXAMPLES, "clones.net"), "--nodes", "4",
                         "--active", "0.25", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    flat = " ".join(text.split())
    assert "refused: checkerboard" in flat and "several nets" in flat
    assert "assumed: 25% of the units of b, t active" in flat
    assert "user routine _softsign:" in flat
    d = json.loads(out.read_text())
    assert [p["mapping"] for p in d["ranked"]] == ["rows", "rows"]
    bd = d["ranked"][0]["train_breakdown"]
    for fn in ("_bcolsum", "_bcolupdm", "_vactive", "_vthreshold", "_softsign", "_bcoltv"):
        assert bd[fn] > 0, fn
    assert len(d["assumptions"]) == 3
    rc, _, err = rap(["plan", os.path.join(EXAMPLES, "clones.net"), "--nodes", "4",
                      "--active", "1.5"], monkeypatch, capsys)
    assert rc == 1 and "--active" in err
    # --data: the binary input's mean activity from the pattern file
    import numpy as np
    x = np.zeros((4, 34))
    x[:, :3] = 1.0                      # b: 3 of 30 units active
    np.save(tmp_path / "c.npy", np.concatenate([x, np.zeros((4, 3))], axis=1))
    rc, text, err = rap(["plan", os.path.join(EXAMPLES, "clones.net"), "--nodes", "4",
                         "--data", tmp_path / "c.npy", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    flat = " ".join(text.split())
    assert "10.0% of the units of b active" in flat and "50% of the units of t" in flat
    cheaper = json.loads(out.read_text())["ranked"][0]["train_breakdown"]["_bcolsum"]
    assert cheaper < bd["_bcolsum"]
    rc, _, err = rap(["plan", os.path.join(EXAMPLES, "clones.net"), "--nodes", "4",
                      "--data", tmp_path / "none.npy"], monkeypatch, capsys)
    assert rc == 1 and "none.npy" in err


def test_every_example_plans(monkeypatch, capsys):
    """rap plan prices every example network (mlp-common.net is an
    include, not a network) on 4 nodes: no routine without a cost."""
    names = sorted(f for f in os.listdir(EXAMPLES)
                   if f.endswith(".net") and f != "mlp-common.net")
    assert len(names) >= 10
    for name in names:
        rc, text, err = rap(["plan", os.path.join(EXAMPLES, name), "--nodes", "4"],
                            monkeypatch, capsys)
        assert rc == 0, (name, err)
        assert "best" in text
        assert "no entry for" not in " ".join(text.split()), name


def test_mapping_auto(tmp_path, monkeypatch, capsys):
    out = tmp_path / "t.json"
    rc, text, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", "4", "--epochs", "2",
                         "--mapping", "auto", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    assert "--mapping auto: rap plan ranks data first" in err
    d = json.loads(out.read_text())
    assert d["mapping"]["name"] == "data" and d["mapping"]["source"] == "auto"
    rc, text, err = rap(["cc", SPEECH, "--nodes", "16", "--mapping", "auto",
                         "-o", tmp_path / "s.img"], monkeypatch, capsys)
    assert rc == 0, err
    assert "mapping columns (auto)" in text             # hid -> phones split by columns


def test_bad_input(tmp_path, monkeypatch, capsys):
    rc, _, err = rap(["plan", tmp_path / "none.net", "--nodes", "4"], monkeypatch, capsys)
    assert rc == 1 and "none.net" in err
    rc, _, err = rap(["plan", SPEECH, "--nodes", "65"], monkeypatch, capsys)
    assert rc == 1 and "1 to 64 nodes" in err
    bad = net_file(tmp_path, "layer x: input 2\nlayer y: sigmoid\n")
    rc, _, err = rap(["plan", bad, "--nodes", "4"], monkeypatch, capsys)
    assert rc == 1 and "n.net:" in err
    rc, _, err = rap(["plan", SPEECH, "--nodes", "4", "--batch", "0"], monkeypatch, capsys)
    assert rc == 1 and "--batch" in err
    rc, _, err = rap(["plan", SPEECH, "--nodes", "4", "--json", tmp_path / "no" / "x.json"],
                     monkeypatch, capsys)
    assert rc == 1 and "x.json" in err


def test_behaviours_and_host_callbacks(tmp_path, monkeypatch, capsys):
    """examples/behaviours.net: its routines priced (their figures printed
    and in the JSON), a host callback priced with --callback, --check
    within the bar; a bad --callback is an error naming the file."""
    out = tmp_path / "b.json"
    net = os.path.join(EXAMPLES, "behaviours.net")
    rc, text, err = rap(["plan", net, "--nodes", "4", "--callback", "after_backward",
                         "--callback", "after_epoch", "--check", "--top", "1", "--json", out],
                        monkeypatch, capsys)
    assert rc == 0, err
    flat = " ".join(text.split())
    assert "behaviour _watch at h: 22 + 1.0 n cycles" in flat
    assert "behaviour _note_pattern: 22 cycles" in flat
    assert "host callback at after_backward, after_epoch: a barrier and a host call of" in flat
    assert "1600 charged by the machine" in flat and "not simulated time" in flat
    assert "not those of the epoch events" in flat
    d = json.loads(out.read_text())
    best = d["ranked"][0]
    assert best["mapping"] == "rows" and best["epoch_hook_cycles"] > 1600
    assert "_hostcall" in best["train_breakdown"] and "_watch" in best["train_breakdown"]
    assert {"routine": "_watch", "layer": "h", "alpha": 22.0, "beta": 1.0} in best["behaviours"]
    assert best["hostcall_cycles"] > 1600
    (c,) = d["check"]
    assert abs(c["train_error"]) < 0.1 and abs(c["forward_error"]) < 0.1
    for spec, msg in (("after_lunch", "unknown event 'after_lunch'"),
                      ("after_forward:x", "x is an input layer"),
                      ("after_epoch:h", "takes a net, not a layer")):
        rc, _, err = rap(["plan", net, "--nodes", "4", "--callback", spec], monkeypatch, capsys)
        assert rc == 1 and f"--callback {spec}: {net}" in err and msg in err, err


def test_schedules(tmp_path, monkeypatch, capsys):
    """A pipeline (the description's schedule) is priced from its tick and
    ranked beside the lockstep mappings; --schedule keeps one schedule;
    --check simulates a pipeline candidate under its schedule."""
    net = os.path.join(EXAMPLES, "pipeline.net")
    out = tmp_path / "p.json"
    rc, text, err = rap(["plan", net, "--nodes", "4", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    d = json.loads(out.read_text())
    kinds = {(p["mapping"], p["schedule"]) for p in d["ranked"]}
    assert ("layers", "pipeline") in kinds and ("rows", "lockstep") in kinds
    assert "layers pipeline" in " ".join(text.split())
    rc, text, err = rap(["plan", net, "--nodes", "4", "--schedule", "lockstep", "--json", out],
                        monkeypatch, capsys)
    assert rc == 0 and "best" in text
    assert {p["schedule"] for p in json.loads(out.read_text())["ranked"]} == {"lockstep"}
    rc, text, err = rap(["plan", net, "--nodes", "4", "--schedule", "pipeline", "--check",
                         "--top", "1", "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    d = json.loads(out.read_text())
    assert [(p["mapping"], p["schedule"]) for p in d["ranked"]] == [("layers", "pipeline")]
    c = d["check"][0]
    assert c["schedule"] == "pipeline"
    assert abs(c["train_error"]) < 0.1 and abs(c["forward_error"]) < 0.1


def test_stream(tmp_path, monkeypatch, capsys):
    """recurrent.net (schedule stream: a cycle, plasticities): every
    mapping the stream runs on, priced per pattern of F frames."""
    out = tmp_path / "p.json"
    rc, text, err = rap(["plan", os.path.join(EXAMPLES, "recurrent.net"), "--nodes", "4",
                         "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    d = json.loads(out.read_text())
    assert {(p["mapping"], p["schedule"]) for p in d["ranked"]} == {("rows", "stream"),
                                                                   ("layers", "stream")}
    for p in d["ranked"]:
        assert "_vshrink" in p["train_breakdown"] and "_mxout" in p["train_breakdown"]
