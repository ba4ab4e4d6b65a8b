"""``rap prof`` and rapsim.lineprof: cycles per line and routine, exact totals."""
from __future__ import annotations

import json

from rapsim.lineprof import LineProfile, annotated_listing, routine_starts
from toolprogs import STALLS, image_file, rap_main, sim_of

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"


def profiled(src, nodes=1):
    sim = sim_of(src, nodes)
    prof = LineProfile(sim)
    sim.probes.trace(prof)
    sim.run(max_cycles=10_000)
    return sim, prof


def test_lines_and_routines_of_the_stall_program():
    sim, prof = profiled(STALLS)
    rep = prof.report({"<source>.asm": STALLS})
    assert rep["total"]["cycles"] == sim.counters(0)["cycles"] == 22
    assert rep["total"]["instructions"] == 10
    rows = {r["routine"]: r for r in rep["routines"]}
    assert set(rows) == {"start", "sub"}
    assert rows["sub"]["cycles"] == 4 and rows["sub"]["stalls"]["branch"] == 3
    assert rows["start"]["stalls"]["register_conflict"] == 3
    assert rows["start"]["stalls"]["bus_conflict"] == 3
    lines = {ln["line"]: ln for ln in rep["lines"]}
    assert lines[5]["cycles"] == 3 and "STI R0, *AR0++" in lines[5]["text"]
    assert lines[9]["stalls"]["register_conflict"] == 2
    text = annotated_listing(rep)
    assert "--- start: 18 cycles (81.82%) ---" in text
    assert "reg=1 bus=1" in text


def test_routines_are_call_targets():
    sim = sim_of(STALLS)
    assert [n for _, n in routine_starts(sim.image)] == ["start", "sub"]


def test_rap_prof_network_totals_are_exact(cwd, monkeypatch, capsys):
    rc = rap_main(["prof", EXAMPLES / "xor.net", "--nodes", "4", "--patterns", "2",
                   "--json", "p.json", "--top", "2"], monkeypatch)
    out = capsys.readouterr().out
    assert rc == 0
    rep = json.loads((cwd / "p.json").read_text())
    total = rep["total"]["cycles"]
    assert total == sum(r["cycles"] for r in rep["routines"]) == sum(
        ln["cycles"] for ln in rep["lines"])
    # xor's 4 hidden units on 4 nodes: one a node, an all-gather by rotation
    # (compiler/collectives.py: its fast path is below 80 % of the chain's)
    assert {"_mxv", "_ring_allgather_rot", "_main"} <= {r["routine"] for r in rep["routines"]}
    # the generated program's own lines carry their text
    assert any(ln["file"] == "<source>.asm" and ln["text"] for ln in rep["lines"])
    assert "--- " in out and "node-cycles on 4 node(s)" in out


def test_rap_prof_image(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", STALLS)
    rc = rap_main(["prof", img], monkeypatch)
    cap = capsys.readouterr()
    assert rc == 3 and "SWI" in cap.err          # the program ends at a breakpoint
    assert "22 node-cycles on 1 node(s), 10 instructions" in cap.out


def test_rap_prof_errors(cwd, monkeypatch, capsys):
    assert rap_main(["prof", "missing.out"], monkeypatch) == 1
    assert rap_main(["prof", EXAMPLES / "xor.net", "--patterns", "0"], monkeypatch) == 1
    err = capsys.readouterr().err
    assert "missing.out" in err and "--patterns" in err and "Traceback" not in err
