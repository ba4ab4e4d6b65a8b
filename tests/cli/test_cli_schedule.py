"""``--schedule`` and ``schedule`` end to end through ``rap cc``, ``rap
train`` and ``rap bench``: printed, named in --json, the pipeline's fill,
drain and stage balance reported, and what is not supported refused with
a clear message and exit status 1."""
from __future__ import annotations

import json
import os

from clirun import net_file, rap
from rapsim.sweep import load_results

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
PIPE_NET = os.path.join(EXAMPLES, "pipeline.net")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")
REC_NET = os.path.join(EXAMPLES, "recurrent.net")


def test_cc_prints_the_schedule(tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["cc", PIPE_NET, "-o", tmp_path / "p.out", "--nodes", 4],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert out.startswith("mapping layers (schedule pipeline): layers on node groups")
    assert ("schedule pipeline (description): 4 stages (stage 1: h1 nodes 0..0; stage 2: h2 "
            "nodes 1..1; stage 3: h3 nodes 2..2; stage 4: y nodes 3..3)") in out
    assert "3 ticks to fill and 3 to drain" in out


def test_cc_lockstep_option_makes_the_same_image(tmp_path, monkeypatch, capsys):
    a, b = tmp_path / "a.out", tmp_path / "b.out"
    assert rap(["cc", XOR_NET, "-o", a, "--nodes", 4], monkeypatch, capsys)[0] == 0
    rc, out, err = rap(["cc", XOR_NET, "-o", b, "--nodes", 4, "--schedule", "lockstep"],
                       monkeypatch, capsys)
    assert rc == 0 and "schedule" not in out
    assert a.read_bytes() == b.read_bytes()


def test_train_reports_the_pipeline(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", PIPE_NET, "--data", XOR_PAT, "--nodes", 4, "--epochs", 2,
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "schedule pipeline (description)" in err
    assert "mapping layers, schedule pipeline" in out
    assert "pipeline: 4 stages, 3 ticks to fill, 3 to drain" in out
    r = json.loads(js.read_text())
    assert r["mapping"]["schedule"] == "pipeline"
    assert r["mapping"]["schedule_source"] == "description"
    p = r["pipeline"]
    assert (p["stages"], p["fill_ticks"], p["drain_ticks"], p["ticks_per_pass"]) == (4, 3, 3, 7)
    assert [s["nodes"] for s in p["per_stage"]] == [[0, 0], [1, 1], [2, 2], [3, 3]]


def test_train_json_names_lockstep_by_default(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 2, "--epochs", 1,
                        "--quiet", "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    assert r["mapping"]["schedule"] == "lockstep" and "pipeline" not in r
    assert r["mapping"]["schedule_source"] == "default"


def test_refusals(tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "x.out", "--nodes", 4, "--mapping",
                        "data", "--schedule", "pipeline"], monkeypatch, capsys)
    assert rc == 1 and ("schedule pipeline (--schedule) runs layers on consecutive node groups "
                        "(the layers mapping), not --mapping data") in err
    rc, out, err = rap(["cc", PIPE_NET, "-o", tmp_path / "i.out", "--nodes", 4,
                        "--forward-only"], monkeypatch, capsys)
    assert rc == 1 and "runs lock-step only, not schedule pipeline" in err
    rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--schedule", "stream",
                        "--mapping", "hybrid"], monkeypatch, capsys)
    assert rc == 1 and "schedule stream runs every layer" in err
    rc, out, err = rap(["cc", REC_NET, "-o", tmp_path / "r.out", "--schedule", "lockstep"],
                       monkeypatch, capsys)
    assert rc == 1 and "the network has a cycle: h -> h: cycles are legal under schedule " \
                       "stream only, not lockstep (--schedule)" in err
    skip = net_file(tmp_path, open(XOR_NET).read().replace(
        "connect h -> y full", "connect h -> y full\nconnect x -> y full"))
    rc, out, err = rap(["cc", skip, "-o", tmp_path / "s.out", "--schedule", "pipeline"],
                       monkeypatch, capsys)
    assert rc == 1 and f"{skip}:15:9: error: schedule pipeline: connect x->y joins stage 0" in err


def test_bench_sweeps_schedules(tmp_path, monkeypatch, capsys):
    results = tmp_path / "r.json"
    rc, out, err = rap(["bench", "--families", "square", "--square", "8", "--nodes", "4",
                        "--warmup", "1", "--patterns", "2", "--workers", "1", "--quiet",
                        "--no-plot", "--results", results, "--schedule", "lockstep,pipeline"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "square 8-8-8 pipeline" in out
    recs = {r.get("schedule"): r for r in load_results(str(results))}
    assert set(recs) == {"lockstep", "pipeline"}
    assert "schedule" not in recs["lockstep"]["point"]
    assert recs["pipeline"]["point"]["schedule"] == "pipeline"
    assert recs["pipeline"]["pipeline"]["stages"] == 2 and recs["pipeline"]["mcps"] > 0
    rc, out, err = rap(["bench", "--schedule", "sometimes", "--results", results],
                       monkeypatch, capsys)
    assert rc == 1 and "--schedule: 'sometimes' is unknown" in err


def test_train_streams_the_recurrent_example(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", REC_NET, "--data", XOR_PAT, "--nodes", 4, "--epochs", 2,
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "schedule stream (description)" in err and "cycles: h -> h" in err
    assert "mapping rows, schedule stream" in out
    assert "accuracy by frames since the onset" in out
    r = json.loads(js.read_text())
    assert r["mapping"]["schedule"] == "stream"
    assert r["frames"]["frames_per_pattern"] == 4
    acc = r["frames"]["accuracy_by_offset"]["train"]
    assert len(acc) == 4 and all(0 <= a <= 1 for a in acc)
