"""``rap bench --mapping``: mappings as a dimension of the sweep (a line per
mapping in the table, the results and the plot); the data mapping's points
count batches of N x B patterns; bad mapping options."""
from __future__ import annotations

import pytest

from rapsim import cli
from rapsim.commands import bench
from rapsim.sweep import load_results

TINY = ["--families", "speech", "--hidden", "16", "--nodes", "1,4", "--warmup", "1",
        "--patterns", "1", "--workers", "1", "--quiet"]


def rap(args, capsys):
    rc = cli.main([str(a) for a in args])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err, cap.err
    return rc, cap.out, cap.err


def test_mappings_are_a_dimension(tmp_path, capsys):
    results = tmp_path / "r.json"
    stem = tmp_path / "scaling"
    rc, out, err = rap(["bench", *TINY, "--mapping", "rows,data", "--batch", "2",
                        "--results", results, "--plot", stem], capsys)
    assert rc == 0, err
    assert "speech 234-16-61 data" in out and "speech 234-16-61 " in out
    recs = load_results(str(results))
    assert len(recs) == 4
    by = {(r.get("mapping"), r["nodes"]): r for r in recs}
    assert set(by) == {("rows", 1), ("rows", 4), ("data", 1), ("data", 4)}
    # rows points keep the identity they had before mappings existed
    assert "mapping" not in by[("rows", 4)]["point"]
    assert by[("data", 4)]["point"]["mapping"] == "data" and by[("data", 4)]["batch"] == 2
    for r in recs:
        assert r["mcps"] > 0 and r["mcups"] > 0
    # data: every node holds the whole network, so the forward pass of a
    # pattern costs one node what it costs on one node: MCPS scales with N
    assert by[("data", 4)]["mcps"] == pytest.approx(4 * by[("data", 1)]["mcps"], rel=0.05)
    assert (tmp_path / "scaling.png").exists()


@pytest.mark.parametrize("args,message", [
    (["--mapping", "rows,blocks"], "--mapping: 'blocks' is unknown"),
    (["--batch", "0", "--mapping", "data"], "--batch must be at least 1"),
    (["--batch", "4"], "--batch 4 applies to the data and hybrid mappings"),
])
def test_bad_mapping_options(tmp_path, capsys, args, message):
    rc, out, err = rap(["bench", *TINY, *args, "--results", tmp_path / "r.json"], capsys)
    assert rc == 1 and message in err


def test_hybrid_points(tmp_path, capsys):
    """A hybrid point runs (its lower layers' forward pass on each node's
    own pattern, the upper layer split by units) and counts its batches of
    N x B patterns like data."""
    results = tmp_path / "r.json"
    rc, out, err = rap(["bench", *TINY, "--mapping", "hybrid", "--batch", "1",
                        "--results", results], capsys)
    assert rc == 0, err
    assert "speech 234-16-61 hybrid" in out
    recs = load_results(str(results))
    assert {(r["mapping"], r["nodes"]) for r in recs} == {("hybrid", 1), ("hybrid", 4)}
    assert all(r["mcps"] > 0 and r["mcups"] > 0 and r["batch"] == 1 for r in recs)
