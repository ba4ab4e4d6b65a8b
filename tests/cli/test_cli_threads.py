"""``--threads N`` on ``rap run``, ``rap train`` and ``rap bench`` (issue
16): every result and counter is the same on 1, 2 and 4 host threads (only
host timings differ), and bad counts are refused with a clear error."""
from __future__ import annotations

import json
import os
import sys

import pytest

from clirun import cwd, image, rap, rap_run  # noqa: F401  (cwd: fixture)

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")
BENCHMARKS = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")


def without_host_figures(value):
    """``value`` without the host's timings (wall seconds, rates per host second)."""
    if isinstance(value, dict):
        return {k: without_host_figures(v) for k, v in value.items()
                if "host" not in k and "per_second" not in k and "seconds" not in k}
    if isinstance(value, list):
        return [without_host_figures(v) for v in value]
    return value


def test_run_stats_do_not_depend_on_threads(cwd, monkeypatch, capsys):  # noqa: F811
    sys.path.insert(0, BENCHMARKS)
    try:
        from bench_ring import ring_program      # the ring-bound all-gather loop
    finally:
        sys.path.remove(BENCHMARKS)
    img = image(cwd / "ring.out", ring_program(5, 12))
    seen = []
    for threads in (1, 2, 4):
        rc, out, err = rap_run([img, "--nodes", 12, "--threads", threads, "--stats-json",
                                cwd / f"s{threads}.json"], monkeypatch, capsys)
        assert rc == 0, err
        seen.append(without_host_figures(json.loads((cwd / f"s{threads}.json").read_text())))
    assert seen[0] == seen[1] == seen[2]
    assert seen[0]["machine"]["ring_utilisation"] > 0


@pytest.mark.parametrize("value, message", [
    ("0", "must be 1..256 host threads"), ("-2", "must be 1..256 host threads"),
    ("100000", "must be 1..256 host threads"), ("two", "not a number"),
    ("1.5", "not a whole number")])
@pytest.mark.parametrize("command", ["run", "train", "bench"])
def test_bad_thread_counts(command, value, message, cwd, monkeypatch, capsys):  # noqa: F811
    args = {"run": ["run", "missing.out"], "train": ["train", XOR_NET, "--data", XOR_PAT],
            "bench": ["bench", "--quick"]}[command]
    with pytest.raises(SystemExit) as e:
        rap([*args, f"--threads={value}"], monkeypatch, capsys)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_train_does_not_depend_on_threads(cwd, monkeypatch, capsys):  # noqa: F811
    seen = []
    for threads in (1, 2, 4):
        js = cwd / f"t{threads}.json"
        rc, out, err = rap(["train", XOR_NET, "--data", XOR_PAT, "--nodes", 8, "--threads",
                            threads, "--json", js, "--quiet"], monkeypatch, capsys)
        assert rc == 0, err
        seen.append(without_host_figures(json.loads(js.read_text())))
    assert seen[0] == seen[1] == seen[2]


def test_bench_does_not_depend_on_threads(cwd, monkeypatch, capsys):  # noqa: F811
    from rapsim.sweep import load_results
    tiny = ["bench", "--families", "speech", "--hidden", "16", "--boards", "2", "--warmup", "1",
            "--patterns", "1", "--workers", "1", "--quiet", "--no-plot"]
    recs = []
    for threads in (1, 2):
        rc, out, err = rap([*tiny, "--threads", threads, "--results", cwd / f"b{threads}.json"],
                           monkeypatch, capsys)
        assert rc == 0, err
        recs.append([without_host_figures(r) for r in load_results(str(cwd / f"b{threads}.json"))])
    assert recs[0] == recs[1] and recs[0][0]["mcps"] > 0
