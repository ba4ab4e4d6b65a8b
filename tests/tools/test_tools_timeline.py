"""The Chrome/Perfetto timeline: valid trace-event JSON, routine slices from
CALL to RETS, ring waits and host calls, counters; rap run and rap train."""
from __future__ import annotations

import json

import pytest

from rapsim.timeline import Timeline, validate
from toolprogs import DEADLOCK, image_file, rap_main, sim_of

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"

# node 0 calls `work` (RPTS 20 NOP: 4 + 21 cycles, RETS 4) and then writes the
# ring; the others wait to read, pass the word on, and node 0 reads it back.
PASS = """
        .global start
start:  LDP  0x800000
        LDI  @3, R0
        BNZ  reader
        CALL work
        LDI  42, R1
        STI  R1, @0
        LDI  @0, R2
        SWI
reader: LDI  @0, R2
        STI  R2, @0
        B    $
work:   RPTS 20
        NOP
        RETS
"""


def timeline_of(src, nodes, **kw):
    sim = sim_of(src, nodes)
    tl = Timeline(sim, **kw)
    sim.probes.trace(tl)
    sim.run(max_cycles=300)
    return sim, tl.document()


def slices(doc, name=None, tid=None):
    return [e for e in doc["traceEvents"] if e["ph"] == "X"
            and (name is None or e["name"] == name) and (tid is None or e["tid"] == tid)]


def test_format_and_slices():
    sim, doc = timeline_of(PASS, 4)
    assert validate(doc) == []
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert names == {f"node {n}" for n in range(4)}
    (work,) = slices(doc, "work", 0)
    # entered after the CALL (cycles 0 LDP, 1 LDI @3 (DP conflict 2), 4 BNZ, 8 CALL: 12)
    assert work["args"]["cycle"] == 12 and work["args"]["cycles"] == 4 + 21 + 4
    assert work["ts"] == pytest.approx(12 * 0.0625) and work["dur"] == pytest.approx(29 * 0.0625)
    waits = slices(doc, "ring read wait")
    assert {e["tid"] for e in waits} == {0, 1, 2, 3}
    # node 1 waits from its read's issue until node 0's word arrives: work
    # returns at 41, LDI 42,R1 (41), STI R1,@0 writes at 42, one hop: 43
    (w1,) = slices(doc, "ring read wait", 1)
    assert w1["args"]["cycle"] + w1["args"]["cycles"] == 43
    counters = [e for e in doc["traceEvents"] if e["ph"] == "C"]
    assert counters and all(0 <= e["args"]["utilisation"] <= 1 for e in counters)
    assert sum(e["args"]["utilisation"] for e in counters) > 0


def test_window_clips():
    _, doc = timeline_of(PASS, 4, window=(20, 30))
    (work,) = slices(doc, "work", 0)
    assert work["args"]["cycle"] == 20 and work["args"]["cycles"] == 10
    assert all(20 <= e["args"]["cycle"] < 30 for e in slices(doc))


def test_deadlock_ends_with_waits():
    _, doc = timeline_of(DEADLOCK, 3)
    assert validate(doc) == []
    assert {e["tid"] for e in slices(doc, "ring read wait (at end)")} == {0, 1, 2}


def test_validate_catches_bad_documents():
    assert validate({}) != []
    bad = {"traceEvents": [{"ph": "X", "ts": 0, "pid": 0, "tid": 0, "name": "a", "dur": 5},
                           {"ph": "X", "ts": 3, "pid": 0, "tid": 0, "name": "b", "dur": 5},
                           {"ph": "C", "ts": 0, "pid": 0, "tid": 0, "name": "c", "args": {}},
                           {"ph": "E", "ts": 0, "pid": 0, "tid": 0, "name": "e"},
                           {"ph": "X", "ts": 0, "pid": 0, "name": "d", "dur": 1}]}
    problems = validate(bad)
    assert any("overlaps" in p for p in problems)
    assert any("C event" in p for p in problems)
    assert any("E without B" in p for p in problems)
    assert any("no tid" in p for p in problems)


def test_rap_run_timeline(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", PASS)
    rc = rap_main(["run", img, "--nodes", "4", "--timeline", "t.json", "--max-cycles", "300"],
                  monkeypatch)
    assert rc == 3
    doc = json.loads((cwd / "t.json").read_text())
    assert validate(doc) == [] and slices(doc, "work")


def test_rap_train_timeline_of_one_pattern(cwd, monkeypatch, capsys):
    rc = rap_main(["train", EXAMPLES / "xor.net", "--data", EXAMPLES / "xor.pat", "--nodes", "4",
                   "--epochs", "1", "--quiet", "--timeline", "t.json"], monkeypatch)
    assert rc == 0
    doc = json.loads((cwd / "t.json").read_text())
    assert validate(doc) == []
    lo, hi = doc["otherData"]["cycles"]
    assert 0 < lo < hi
    names = {e["name"] for e in slices(doc)}
    # one hidden unit a node: the all-gather is a rotation (compiler/collectives.py)
    assert {"_mxv", "_ring_allgather_rot"} <= names
    # one pattern: each kernel of the forward pass appears once per layer per node
    assert len(slices(doc, "_mxoutm", 0)) >= 1


def test_timeline_picture(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", PASS)
    rc = rap_main(["run", img, "--nodes", "4", "--timeline", "t.png", "--max-cycles", "300"],
                  monkeypatch)
    assert rc == 3
    data = (cwd / "t.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
