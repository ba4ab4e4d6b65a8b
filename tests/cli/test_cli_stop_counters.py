"""Issue 18, end to end: ``rap run`` of a hostile 4-node program (node 1
faults while node 0 writes a file and the console, node 2 polls RING_STAT
and faults later, node 3 waits on the ring) prints the same report, the
same ``--stats`` table and the same ``--stats-json`` counters, and leaves
the same host file written once, whatever order and quantum the scheduler
uses (docs/machine-model.md, "Stops").  ``rap run`` has no scheduling
options: the test sets them on ``Simulator.run``."""
from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

from clirun import cwd, image, rap_run  # noqa: F401
from rapsim.machine import Simulator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ring"))
import stopprogs  # noqa: E402


def _schedule(monkeypatch, order, quantum):
    run = Simulator.run

    def scheduled(self, max_cycles=None, **kw):
        return run(self, max_cycles, **{**kw, "order": order, "quantum": quantum})
    monkeypatch.setattr(Simulator, "run", scheduled)


def _timeless(text: str) -> str:
    """A report without the host's time and speed."""
    return re.sub(r"[0-9.]+ s host time.*", "", text)


def test_rap_run_reports_the_same_stop_whatever_the_schedule(cwd, monkeypatch, capsys):
    img = image(cwd / "p.out", stopprogs.source())
    seen = {}
    for i, (order, q) in enumerate(itertools.product(
            [list(p) for p in itertools.permutations(range(4))], (0, 7))):
        root = cwd / f"root{i}"
        root.mkdir()
        _schedule(monkeypatch, order, q)
        rc, out, err = rap_run([img, "--nodes", "4", "--root", root, "--stats",
                                "--stats-json", cwd / f"s{i}.json"], monkeypatch, capsys)
        stats = json.loads((cwd / f"s{i}.json").read_text())
        del stats["host_seconds"], stats["simulated_instructions_per_second"]
        files = sorted((p.name, p.read_bytes()) for p in root.iterdir())
        key = (rc, out, _timeless(err), json.dumps(stats, sort_keys=True), repr(files))
        seen.setdefault(key, []).append((order, q))
    assert len(seen) == 1, [v[:2] for v in seen.values()]
    rc, out, err, stats, files = seen.popitem()[0]
    assert rc == 3
    assert out == "[0] " + stopprogs.CONSOLE.decode()        # once, with its node
    assert err.startswith("rap run: node 1: data read from an unmapped address")
    assert "note:" not in err
    assert files == repr([(stopprogs.FILE, stopprogs.FILE_TEXT.encode())])
    nodes = json.loads(stats)["nodes"]
    assert [n["status"] for n in nodes] == ["running", "error", "running", "ring-read"]
    c = nodes[1]["cycles"]
    assert c < nodes[0]["cycles"] < c + 8 and c < nodes[2]["cycles"] < c + 8
