"""Issue 18: a killed sweep leaves no worker (nor the resource tracker)
running and holding the caller's pipes; a truncated results file is refused
and left as it is, never rewritten."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from rapsim.errors import RapError
from rapsim.sweep import load_results

SCRIPT = """
import os, sys, time
from rapsim.sweep import run_sweep

def slow(point):
    open(os.path.join(sys.argv[1], f"started-{os.getpid()}"), "w").close()
    time.sleep(120)
    return {"y": 1}

if __name__ == "__main__":
    run_sweep([{"x": i} for i in range(4)], slow, os.path.join(sys.argv[1], "r.json"),
              workers=2, progress=False)
"""


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(d))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_sweep_leaves_no_process_behind(tmp_path, sig):
    script = tmp_path / "sweep_script.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while len(list(tmp_path.glob("started-*"))) < 2:
        assert time.time() < deadline, "the workers did not start"
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    kids = _children(proc.pid)
    workers = {int(p.name.split("-")[1]) for p in tmp_path.glob("started-*")}
    assert workers <= kids
    os.kill(proc.pid, sig)
    out, err = proc.communicate(timeout=30)      # EOF: nobody holds the pipes any more
    assert proc.returncode == (128 + sig if sig == signal.SIGTERM else -sig), err
    deadline = time.time() + 15
    while any(_alive(k) for k in kids):
        assert time.time() < deadline, f"left running: {[k for k in kids if _alive(k)]}"
        time.sleep(0.1)


def test_truncated_csv_is_refused_and_left_as_it_is(tmp_path, capsys):
    from rapsim import cli
    good = "point,mcps,network\n" + '"{""x"": 1}",1.5,a\n' + '"{""x"": 2}",2.5,b\n'
    for cut in (len(good) - 1, len(good) - 4, good.rindex("\n", 0, len(good) - 1) + 9):
        path = tmp_path / "r.csv"
        path.write_text(good[:cut])
        with pytest.raises(RapError, match=r"not a results file of rap bench \(.*truncated"):
            load_results(str(path))
        rc = cli.main(["bench", "--families", "square", "--square", "16", "--boards", "1",
                       "--quiet", "--results", str(path)])
        assert rc == 1 and "truncated" in capsys.readouterr().err
        assert path.read_text() == good[:cut]             # never rewritten
    path.write_text(good)
    assert [r["point"] for r in load_results(str(path))] == [{"x": 1}, {"x": 2}]


def test_results_file_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "r.json")
    with pytest.raises(RapError, match="not a regular file"):
        load_results(str(tmp_path / "r.json"))


def test_json_results_cut_anywhere_are_refused(tmp_path):
    text = json.dumps([{"point": {"x": i}, "y": i} for i in range(3)], indent=1) + "\n"
    path = tmp_path / "r.json"
    for cut in range(1, len(text) - 2, 7):
        path.write_text(text[:cut])
        with pytest.raises(RapError, match="not a results file"):
            load_results(str(path))
