"""``rap bench`` end to end through the command line, on tiny sweeps: the
table, the results file (JSON and CSV) and its resumption without
re-simulation, the plots, and bad input."""
from __future__ import annotations

import json
import os

import pytest

from rapsim import cli
from rapsim.commands import bench
from rapsim.sweep import load_results

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")

#: 2 families x 1 size x 2 machine sizes, 1 warm-up + 1 measured pattern
TINY = ["--families", "speech,square", "--hidden", "16", "--square", "16", "--boards", "1,2",
        "--warmup", "1", "--patterns", "1", "--workers", "1", "--quiet"]


def rap(args, capsys):
    rc = cli.main([str(a) for a in args])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err, cap.err
    return rc, cap.out, cap.err


@pytest.fixture
def calls(monkeypatch):
    """Count the points measured (the sweep runs in this process)."""
    seen = []
    real = bench.measure_point

    def counting(point):
        seen.append(point)
        return real(point)

    monkeypatch.setattr(bench, "measure_point", counting)
    return seen


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_tiny_sweep_table_results_plots_and_resume(tmp_path, capsys, calls, suffix):
    results = tmp_path / f"r{suffix}"
    stem = tmp_path / "plots" / "scaling"
    rc, out, err = rap(["bench", *TINY, "--results", results, "--plot", stem], capsys)
    assert rc == 0, err
    assert len(calls) == 4
    for label in ("speech 234-16-61", "square 16-16-16", "MCPS", "MCUPS", "% peak"):
        assert label in out
    assert "4 measured now" in out and "0 taken from" in out
    recs = load_results(str(results))
    assert len(recs) == 4
    assert {(r["point"]["family"], r["point"]["nodes"]) for r in recs} == {
        ("speech", 4), ("speech", 8), ("square", 4), ("square", 8)}
    for r in recs:
        assert r["mcps"] > r["mcups"] > 0
        assert 0 < r["mcps_percent_of_peak"] <= 100 and 0 < r["mcups_percent_of_peak"] <= 100
        assert r["connections"] == (234 * 16 + 16 * 61 if r["point"]["family"] == "speech"
                                    else 2 * 16 * 16)
        # the cycles of a pattern add up: instructions + stalls + idle
        parts = r["train_instructions"] + r["train_idle"] + sum(
            r[f"train_stall_{c}"] for c in bench.STALL_CAUSES)
        assert abs(parts - r["train_cycles_per_pattern"]) < 1e-6 * r["train_cycles_per_pattern"]
        assert r["train_cycles_per_pattern"] == pytest.approx(
            16e6 * r["connections"] / (r["mcups"] * 1e6))
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:2000]
    before = results.read_text()

    # the same sweep again: nothing is simulated, the table is the same
    rc, out2, err = rap(["bench", *TINY, "--results", results, "--plot", stem], capsys)
    assert rc == 0, err
    assert len(calls) == 4
    assert "0 measured now" in out2 and "4 taken from" in out2
    assert results.read_text() == before
    assert out2.split("4 points:")[0] == out.split("4 points:")[0]

    # a larger sweep measures only the new points; --fresh measures all again
    rc, out3, err = rap(["bench", *TINY, "--nodes", "1", "--results", results], capsys)
    assert rc == 0, err
    assert len(calls) == 6 and "2 measured now" in out3
    assert len(load_results(str(results))) == 6
    assert (tmp_path / "r-scaling.png").exists()          # the default plot stem
    rc, out4, err = rap(["bench", *TINY, "--results", results, "--fresh", "--no-plot"], capsys)
    assert rc == 0, err
    assert len(calls) == 10 and "4 measured now" in out4
    assert len(load_results(str(results))) == 4


def test_profile(tmp_path, capsys):
    results = tmp_path / "r.json"
    rc, out, err = rap(["bench", "--families", "speech", "--hidden", "16", "--boards", "1",
                        "--patterns", "1", "--profile", "8", "--results", results,
                        "--workers", "1", "--quiet", "--no-plot"], capsys)
    assert rc == 0, err
    assert "where the cycles of a training pattern go" in out and "_mxv" in out
    (rec,) = load_results(str(results))
    assert rec["point"]["profile"] == 8
    for phase in ("train", "eval"):
        prof = rec[f"{phase}_profile"]
        # every node-cycle is charged to one routine: the sum is the pattern's cycles
        # (to within the nodes' staggered phase boundaries)
        assert sum(prof.values()) == pytest.approx(rec[f"{phase}_cycles_per_pattern"], rel=0.01)
        assert prof["_mxv"] >= rec["eval_mac_cycles"]
    assert rec["train_profile"]["_mxout"] > 0 and "_mxout" not in rec["eval_profile"]


def test_point_that_does_not_fit(tmp_path, capsys):
    results = tmp_path / "r.json"
    rc, out, err = rap(["bench", "--families", "square", "--square", "4096", "--nodes", "1",
                        "--results", results, "--workers", "1", "--quiet", "--no-plot"], capsys)
    assert rc == 0, err
    assert "does not fit" in out
    (rec,) = load_results(str(results))
    assert rec["error_kind"] == "lowering" and "DRAM" in rec["error"] and "mcps" not in rec


def test_local_processes_and_dask(tmp_path, capsys):
    args = ["--families", "square", "--square", "16", "--boards", "1", "--nodes", "2",
            "--patterns", "1", "--quiet", "--no-plot"]
    rc, out, err = rap(["bench", *args, "--workers", "2", "--results", tmp_path / "p.json"],
                       capsys)
    assert rc == 0, err
    local = {r["point"]["nodes"]: r["mcups"] for r in load_results(str(tmp_path / "p.json"))}
    assert set(local) == {2, 4}
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None)
    try:
        rc, out, err = rap(["bench", *args, "--scheduler", cluster.scheduler_address,
                            "--results", tmp_path / "d.csv"], capsys)
    finally:
        cluster.close()
    assert rc == 0, err
    assert "Dask cluster" in out
    dask = {r["point"]["nodes"]: r["mcups"] for r in load_results(str(tmp_path / "d.csv"))}
    assert dask == pytest.approx(local)             # the simulation is deterministic


def test_speech_family_is_examples_speech_net():
    from rapsim.compiler.parser import parse_file
    ours = bench.FAMILIES["speech"].network(256)
    theirs = parse_file(os.path.join(EXAMPLES, "speech.net"), {"hidden": 256})
    assert ours.connections() == theirs.connections() == 234 * 256 + 256 * 61
    assert ([(l.size, l.kind) for l in ours.layers.values()]
            == [(l.size, l.kind) for l in theirs.layers.values()])
    assert ours.training.error == theirs.training.error


@pytest.mark.parametrize("args, message", [
    (["--families", "speech,vision"], "unknown family 'vision'"),
    (["--boards", "1,x"], "--boards: 'x' is not a whole number"),
    (["--boards", "0"], "--boards: 0 is out of range"),
    (["--boards", "17"], "--boards: 17 is out of range"),
    (["--nodes", "65"], "--nodes: 65 is out of range"),
    (["--hidden", "128,-4"], "--hidden: -4 is out of range"),
    (["--hidden", ""], "--hidden: '' is not a whole number"),
    (["--families", "square", "--hidden", "128"], "--hidden was given but the speech family"),
    (["--patterns", "0"], "--patterns must be at least 1"),
    (["--warmup", "-1"], "--warmup must be 0 or more"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--dram-wait", "-1"], "wait"),
    (["--clock-mhz", "nan"], "clock rate"),
    (["--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "-1"],
     "--scheduler-timeout must be a positive number"),
])
def test_bad_options(tmp_path, capsys, args, message):
    rc, out, err = rap(["bench", "--results", tmp_path / "r.json", *args], capsys)
    assert rc == 1
    assert message in err
    assert not (tmp_path / "r.json").exists()


def test_bad_results_files(tmp_path, capsys):
    base = ["bench", "--families", "square", "--square", "16", "--boards", "1", "--quiet"]
    bad = tmp_path / "r.json"
    bad.write_text("{not json")
    rc, out, err = rap([*base, "--results", bad], capsys)
    assert rc == 1 and "not a results file" in err
    assert bad.read_text() == "{not json"                 # left as it was
    bad.write_text(json.dumps([{"mcps": 1.0}]))
    rc, out, err = rap([*base, "--results", bad], capsys)
    assert rc == 1 and "not a results file" in err
    csv = tmp_path / "r.csv"
    csv.write_text("point,mcps\nnot json,1,2\n")
    rc, out, err = rap([*base, "--results", csv], capsys)
    assert rc == 1 and "not a results file" in err
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    rc, out, err = rap([*base, "--results", binary], capsys)
    assert rc == 1 and "not a results file" in err
    folder = tmp_path / "d.json"
    folder.mkdir()
    rc, out, err = rap([*base, "--results", folder], capsys)
    assert rc == 1 and "cannot read" in err
    rc, out, err = rap([*base, "--results", tmp_path / "r.txt"], capsys)
    assert rc == 1 and "must end in .json or .csv" in err


def test_unreachable_scheduler(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    rc, out, err = rap(["bench", "--families", "square", "--square", "16", "--boards", "1",
                        "--quiet", "--results", tmp_path / "r.json",
                        "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "1"], capsys)
    assert rc == 1 and "cannot reach the Dask scheduler" in err


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_incomplete_records_are_measured_again(tmp_path, capsys, calls, suffix):
    # a record without its figures (another version's file, edited by hand,
    # an empty CSV cell) used to crash the table; it is measured again and
    # replaced, the complete records are kept
    base = ["bench", "--families", "square", "--square", "16", "--boards", "1", "--nodes", "1",
            "--warmup", "0", "--patterns", "1", "--workers", "1", "--quiet", "--no-plot"]
    path = tmp_path / f"r{suffix}"
    rc, _, _ = rap([*base, "--results", path], capsys)
    assert rc == 0 and len(calls) == 2
    recs = load_results(str(path))
    broken = {"point": recs[0]["point"], "mcps": "fast"}
    from rapsim.sweep import save_results
    save_results(str(path), [broken, recs[1], {"point": {"other": 1}, "note": "kept"}])
    calls.clear()
    rc, out, err = rap([*base, "--results", path], capsys)
    assert rc == 0 and calls == [recs[0]["point"]]
    assert "1 measured now" in out
    again = load_results(str(path))
    assert len(again) == 3 and all(bench.record_complete(r) for r in again[:1] + again[2:])
    assert {"other": 1} in [r["point"] for r in again]
    assert not bench.record_complete(broken) and not bench.record_complete({"point": {}})


def test_fresh_sweep_interrupted_before_its_first_point_keeps_the_old_file(tmp_path, capsys,
                                                                          monkeypatch):
    # --fresh used to delete the results file before measuring anything
    path = tmp_path / "r.json"
    path.write_text("{an old file, even a corrupt one\n")

    def interrupted(point):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "measure_point", interrupted)
    rc, _, err = rap(["bench", *TINY, "--results", path, "--fresh", "--no-plot"], capsys)
    assert rc == 130 and "interrupted" in err
    assert path.read_text() == "{an old file, even a corrupt one\n"
    monkeypatch.undo()
    rc, out, err = rap(["bench", *TINY, "--results", path, "--fresh", "--no-plot"], capsys)
    assert rc == 0, err
    assert "4 measured now" in out and len(load_results(str(path))) == 4


def test_closed_standard_output(tmp_path):
    # no internal error when started with stdout closed (tables go nowhere)
    import subprocess
    import sys
    rap_cmd = os.path.join(os.path.dirname(sys.executable), "rap")
    p = subprocess.run([rap_cmd, "bench", "--families", "square", "--square", "16", "--boards",
                        "1", "--warmup", "0", "--patterns", "1", "--workers", "1",
                        "--results", tmp_path / "r.json", "--no-plot"],
                       capture_output=True, timeout=120, preexec_fn=lambda: os.close(1))
    assert p.returncode == 0, p.stderr.decode()
    assert len(load_results(str(tmp_path / "r.json"))) == 1
