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


def test_plan_lists_refused(monkeypatch, capsys):
    """clones.net: several nets (every mapping but rows refused by the
    compiler) and a binary layer (no cost entry for its kernels): each
    refusal listed with its reason, then a clear error."""
    rc, text, err = rap(["plan", os.path.join(EXAMPLES, "clones.net"), "--nodes", "4"],
                        monkeypatch, capsys)
    assert rc == 1 and "no candidate could be priced" in err
    flat = " ".join(text.split())
    assert "refused: checkerboard" in flat and "several nets" in flat
    assert "refused: rows: the cost model has no entry for _bcolsum" in flat


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


def test_schedules(monkeypatch, capsys):
    """The model prices lockstep programs: a pipeline (the description's
    schedule) is refused with the reason; --schedule lockstep plans it."""
    net = os.path.join(EXAMPLES, "pipeline.net")
    rc, text, err = rap(["plan", net, "--nodes", "4"], monkeypatch, capsys)
    assert rc == 1 and "no candidate could be priced" in err
    assert "no entry for schedule pipeline" in " ".join(text.split())
    rc, text, err = rap(["plan", net, "--nodes", "4", "--schedule", "lockstep"],
                        monkeypatch, capsys)
    assert rc == 0 and "best" in text
