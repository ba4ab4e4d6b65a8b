"""Sweeps: parallel points, one results file, resumable, atomic."""
import json

import pytest

from rapsim.errors import RapError
from rapsim.sweep import load_results, point_id, run_sweep

CALLS = []


def square(point):
    CALLS.append(point)
    return {"y": point["x"] ** 2}


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_results_are_kept_and_not_recomputed(tmp_path, suffix):
    path = str(tmp_path / f"r{suffix}")
    CALLS.clear()
    pts = [{"x": i, "label": f"p{i}"} for i in range(4)]
    recs = run_sweep(pts[:2], square, path, workers=1, progress=False)
    assert [r["y"] for r in recs] == [0, 1] and len(CALLS) == 2
    recs = run_sweep(pts, square, path, workers=1, progress=False)
    assert [r["y"] for r in recs] == [0, 1, 4, 9]
    assert len(CALLS) == 4                      # the first two were not recomputed
    assert [r["point"] for r in load_results(path)] == pts


def test_interrupted_sweep_keeps_finished_points(tmp_path):
    path = str(tmp_path / "r.json")

    def failing(point):
        if point["x"] == 2:
            raise KeyboardInterrupt
        return {"y": point["x"]}

    with pytest.raises(KeyboardInterrupt):
        run_sweep([{"x": i} for i in range(4)], failing, path, workers=1, progress=False)
    done = load_results(path)
    assert [r["point"]["x"] for r in done] == [0, 1]
    assert not list(tmp_path.glob("*.tmp"))


def test_incomplete_records_are_measured_again_and_replaced(tmp_path):
    path = str(tmp_path / "r.json")
    CALLS.clear()
    pts = [{"x": i} for i in range(3)]
    run_sweep(pts, square, path, workers=1, progress=False)
    recs = load_results(path)
    recs[1]["y"] = None
    from rapsim.sweep import save_results
    save_results(path, recs)
    CALLS.clear()
    out = run_sweep(pts, square, path, workers=1, progress=False,
                    complete=lambda r: r.get("y") is not None)
    assert CALLS == [{"x": 1}] and [r["y"] for r in out] == [0, 1, 4]
    assert sorted(r["point"]["x"] for r in load_results(path)) == [0, 1, 2]   # one record each


def test_results_file_written_by_two_writers_at_once_is_never_corrupt(tmp_path):
    # two sweeps saving into one file (each its whole list of records): the
    # file is always one writer's complete text, and no write fails (with one
    # temporary name shared by both, a rename could move the other's
    # half-written file into place, or find it gone)
    import threading
    from rapsim.sweep import save_results
    path = str(tmp_path / "r.json")
    errors, bad = [], []

    def writer(k):
        try:
            for i in range(150):
                save_results(path, [{"point": {"w": k, "i": i}, "pad": "x" * (50_000 * k + i)}])
        except Exception as e:              # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        try:
            load_results(path)
        except RapError as e:
            bad.append(e)
    for t in threads:
        t.join()
    assert errors == [] and bad == []
    assert len(load_results(path)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]     # no temporary file left


def test_parallel_processes(tmp_path):
    path = str(tmp_path / "r.json")
    recs = run_sweep([{"x": i} for i in range(6)], dict, path, workers=2, progress=False)
    assert [r["x"] for r in recs] == list(range(6))


def test_corrupt_results_file(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{not json")
    with pytest.raises(RapError, match="not a results file"):
        load_results(str(path))
    path.write_text(json.dumps([{"no": "point"}]))
    with pytest.raises(RapError, match="not a results file"):
        load_results(str(path))


def test_point_identity_ignores_key_order():
    assert point_id({"a": 1, "b": 2}) == point_id({"b": 2, "a": 1})


def test_dask_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None)
    try:
        recs = run_sweep([{"x": i} for i in range(3)], dict, str(tmp_path / "r.json"),
                         scheduler=cluster.scheduler_address, progress=False)
        assert [r["x"] for r in recs] == [0, 1, 2]
    finally:
        cluster.close()


def test_unreachable_dask_scheduler(tmp_path):
    pytest.importorskip("dask.distributed")
    with pytest.raises(RapError, match="cannot reach the Dask scheduler"):
        run_sweep([{"x": 1}], dict, str(tmp_path / "r.json"), scheduler="tcp://127.0.0.1:1",
                  progress=False, connect_timeout=1)


def test_speedup_plot(tmp_path):
    from rapsim.plots import plot_speedup, speedup_series
    recs = [{"point": {"network": "a", "nodes": n}, "mcups": 10.0 * n ** 0.9} for n in (1, 4, 16)]
    recs += [{"point": {"network": "b", "nodes": n}, "mcups": 3.0 * n} for n in (4, 8)]
    s = speedup_series(recs, "mcups")
    assert s["a"][0] == (1, 1.0) and abs(s["a"][2][1] - 16 ** 0.9) < 1e-9
    assert s["b"] == [(4, 4.0), (8, 8.0)]          # linear extrapolation from 4 nodes
    files = plot_speedup(recs, "mcups", str(tmp_path / "plots" / "scaling"))
    assert [f[-3:] for f in files] == ["png", "svg"]
    assert open(files[0], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in open(files[1], "rb").read(2000)
