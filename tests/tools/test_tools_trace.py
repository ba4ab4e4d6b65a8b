"""The instruction trace: records of hand-analysed programs (cycles, stalls,
registers, memory), bounds by node and cycle, and ``rap run --trace``."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.probes import TRACE_DTYPE
from rapsim.trace import Source, accesses, format_record, parse_nodes, stalls
from toolprogs import DEADLOCK, RING, STALL_CYCLES, STALLS, image_file, rap_main, sim_of


def traced(src, size=1, **kw):
    sim = sim_of(src, size)
    chunks = []
    sim.probes.trace(chunks.append, **kw)
    res = sim.run(max_cycles=2_000)
    recs = np.concatenate(chunks) if chunks else np.zeros(0, TRACE_DTYPE)
    return sim, res, recs


def test_stall_program_cycles_and_causes():
    sim, res, recs = traced(STALLS)
    assert res.event == "break"
    assert [int(r["cycle"]) for r in recs] == STALL_CYCLES
    assert [stalls(r) for r in recs] == [
        {}, {}, {"register_conflict": 1, "bus_conflict": 1}, {"bus_conflict": 1}, {}, {},
        {"register_conflict": 2, "bus_conflict": 1}, {"branch": 3}, {"branch": 3}, {}]
    # each instruction ends where the next starts; the sum is the node's clock
    assert list(recs["end"][:-1]) == list(recs["cycle"][1:])
    assert int(recs["end"][-1]) == sim.counters(0)["cycles"]
    total = {}
    for r in recs:
        for k, v in stalls(r).items():
            total[k] = total.get(k, 0) + v
    assert total == {k: v for k, v in sim.counters(0)["stalls"].items() if v}


def test_stall_program_registers_and_memory():
    sim, _, recs = traced(STALLS)
    src = Source(sim)
    sti, ldi, call, rets = recs[2], recs[3], recs[7], recs[8]
    assert accesses(sti) == [(True, 0x2000, 5)]
    assert accesses(ldi) == [(False, 0x2000, 5)]
    assert accesses(call) == [(True, 0x000001, 0x48)]
    assert accesses(rets) == [(False, 0x000001, 0x48)]
    line = format_record(sti, src)
    assert line == ("n0 c=2 pc=000042 <source>.asm:5 | STI R0,*AR0++(1) | AR0=00002001 | "
                    "wr 002000=00000005 | register_conflict=1 bus_conflict=1")
    assert "R2=0040000000(1.5)" in format_record(recs[4], src)
    assert format_record(recs[8], src).endswith("| SP=00000000 | rd 000001=00000048 | branch=3")


def test_ring_read_stall_and_word_timing():
    sim, res, recs = traced(RING, size=2)
    assert res.event == "break"
    r1 = [r for r in recs if r["node"] == 1]
    r0 = [r for r in recs if r["node"] == 0]
    write = next(r for r in r0 if any(w and a == 0x800000 for w, a, _ in accesses(r)))
    read = next(r for r in r1 if any(not w and a == 0x800000 for w, a, _ in accesses(r)))
    # the word is written at the writer's execute cycle, readable one hop later
    assert int(read["t_exec"]) == int(write["t_exec"]) + 1
    assert stalls(read)["ring_read"] == int(read["t_exec"]) - int(read["cycle"])
    k = [a for _, a, _ in accesses(read)].index(0x800000)
    assert int(read["mtime"][k]) == int(read["t_exec"])
    assert accesses(read)[k][2] == 42
    assert "rd RING_DATA=0000002A" in format_record(read, Source(sim))


def test_bounds_by_node_and_cycle():
    _, _, recs = traced(STALLS, start=5, stop=14)
    assert [int(c) for c in recs["cycle"]] == [5, 7, 8, 9, 13]
    _, _, recs = traced(RING, size=2, nodes=[1])
    assert set(recs["node"].tolist()) == {1}


def test_tracing_changes_no_result():
    plain = sim_of(RING, 2)
    plain.run(max_cycles=2_000)
    sim, _, _ = traced(RING, size=2)
    for n in range(2):
        assert sim.counters(n) == plain.counters(n)


def test_trace_buffer_refills_many_times():
    loop = """
        .global start
start:  LDI 2999, AR1
top:    ADDI 1, R0
        DBU AR1, top
        SWI
"""
    sim = sim_of(loop)
    chunks = []
    sim.probes.trace(chunks.append, capacity=100)
    sim.run(max_cycles=10**6)
    assert len(chunks) > 50
    recs = np.concatenate(chunks)
    assert len(recs) == sim.counters(0)["instructions"]
    assert np.all(np.diff(recs["cycle"]) > 0)


def test_parse_nodes():
    assert parse_nodes("0,2,4-6", 8) == [0, 2, 4, 5, 6]
    with pytest.raises(ValueError, match="does not exist"):
        parse_nodes("9", 8)
    with pytest.raises(ValueError, match="not a node"):
        parse_nodes("1-x", 8)


def test_rap_run_trace(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", STALLS)
    rc = rap_main(["run", img, "--trace", "t.txt", "--trace-from", "2", "--trace-to", "9"],
                  monkeypatch)
    assert rc == 3          # stopped at SWI
    lines = (cwd / "t.txt").read_text().splitlines()
    assert lines[0].startswith("# rap trace")
    assert [ln.split()[1] for ln in lines[1:]] == ["c=2", "c=5", "c=7", "c=8"]


@pytest.mark.parametrize("args, msg", [
    (["--trace-from", "3"], "need --trace"),
    (["--trace", "t.txt", "--trace-nodes", "5"], "node 5 does not exist"),
    (["--trace", "t.txt", "--trace-from", "9", "--trace-to", "9"], "must be after"),
    (["--trace", "nodir/t.txt"], "nodir"),
])
def test_rap_run_trace_errors(cwd, monkeypatch, capsys, args, msg):
    img = image_file(cwd / "p.out", STALLS)
    rc = rap_main(["run", img, *args], monkeypatch)
    err = capsys.readouterr().err
    assert rc == 1 and msg in err and "Traceback" not in err


def test_deadlock_trace_shows_last_instructions(cwd, monkeypatch, capsys):
    img = image_file(cwd / "d.out", DEADLOCK)
    rc = rap_main(["run", img, "--nodes", "2", "--trace", "t.txt"], monkeypatch)
    assert rc == 3 and "deadlock" in capsys.readouterr().err
    lines = (cwd / "t.txt").read_text().splitlines()[1:]
    assert len(lines) == 2 and all("LDP" in ln for ln in lines)


def test_several_sinks_get_their_own_nodes_and_cycles():
    sim = sim_of(RING, 2)
    a, b, c = [], [], []
    sim.probes.trace(a.append, nodes=[1])
    sim.probes.trace(b.append, start=5, stop=12)
    sim.probes.trace(c.append)
    sim.run(max_cycles=2_000)
    a, b, c = (np.concatenate(x) for x in (a, b, c))
    assert set(a["node"].tolist()) == {1} and len(a) == (c["node"] == 1).sum()
    assert len(b) and all(5 <= x < 12 for x in b["cycle"].tolist())
    assert set(b["node"].tolist()) == {0, 1}
    assert len(c) == sum(sim.counters(n)["instructions"] for n in range(2))
    sim.probes.untrace()
    assert not sim.core.probed(0) and not sim.core.probed(1)


def test_rap_run_trace_with_vcd_keeps_the_trace_bounds(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", STALLS)
    rc = rap_main(["run", img, "--trace", "t.txt", "--trace-from", "5", "--trace-to", "9",
                   "--vcd", "w.vcd", "--timeline", "t.json"], monkeypatch)
    assert rc == 3
    lines = (cwd / "t.txt").read_text().splitlines()[1:]
    assert [ln.split()[1] for ln in lines] == ["c=5", "c=7", "c=8"]
