"""rap dbg driven by scripts (and once in a real terminal, through tmux),
and the Simulator's breakpoint and watch callbacks."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from rapsim.machine import Simulator
from toolprogs import DEADLOCK, LOOP, LOOP_STF_LINE, image_file, image_from_file, rap_main, sim_of


def dbg(cwd, monkeypatch, capsys, script: str, image: str, *opts):
    (cwd / "s.txt").write_text(script)
    rc = rap_main(["dbg", image, "--script", "s.txt", *opts], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err + cap.out
    return rc, cap.out, cap.err


def test_break_continue_regs_memory(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "loop.asm", LOOP)
    rc, out, _ = dbg(cwd, monkeypatch, capsys, f"""
break loop.asm:{LOOP_STF_LINE}
continue
continue
regs
x/f 0x2000 2
x 0x2000 2
info break
delete 1
continue
""", img)
    assert rc == 0
    assert out.count("node 0: breakpoint 1 at PC 0x000043 (loop.asm:5)") == 2
    # second stop: the first store is done, R1 holds 2.5
    assert "R1  0120000000  2.5" in out
    assert "0x002000: 1.5            1 " in out         # (the word 0 is 1.0 in C30 format)
    assert "0x002000: 00400000 00000000" in out
    assert "1: break 0x000043 on all nodes (hit 2 times)" in out
    assert "stopped at a software breakpoint (SWI)" in out


def test_watch_memory_and_register(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "loop.asm", LOOP)
    rc, out, _ = dbg(cwd, monkeypatch, capsys, """
watch 0x2001
continue
watch R3
continue
continue
""", img)
    assert rc == 0
    assert "watch 1: 0x002001 changed from 0x00000000 to 0x01200000 by PC 0x000043" in out
    assert "watch 2: R3 changed from 0x00000001 to 0x00000002 by PC 0x000048" in out
    assert "watch 2: R3 changed from 0x00000002 to 0x00000003" in out


def test_step_next_tbreak_disas_list(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "loop.asm", LOOP)
    rc, out, _ = dbg(cwd, monkeypatch, capsys, """
step 4
next
next
step
tbreak bump
continue
disas
list
info break
""", img)
    assert rc == 0
    lines = out.splitlines()
    # step 4: LDI, LDF, LDI AR1 (0-2); the STF waits 2 for the AR group, then
    # takes 2 (fetch and write share the bus) -> cycle 7
    assert "node 0: running, cycle 7, PC 0x000044 (loop.asm:6): " in out
    # next over the CALL (at 8: 4 cycles, bump 5 cycles + RETS 4 ... ) returns at the DBU
    assert "node 0: running, cycle 17, PC 0x000046 (loop.asm:8): 6E40FFFC  DBU AR1,loop" in out
    assert "temporary breakpoint 2" in out and "no breakpoints or watchpoints" in out
    assert "=> 0x000048" in out and "=>    10  bump:   ADDI 1, R3" in out


def test_script_errors_name_file_and_line(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "loop.asm", LOOP)
    rc, out, _ = dbg(cwd, monkeypatch, capsys, "break loop\nbreak nowhere\nregs\n", img)
    assert rc == 1
    assert "s.txt:2: error: no label 'nowhere'" in out and "(rap) regs" not in out
    for bad in ("frobnicate", "x", "step 0", "watch R9", "break 0x2000000", "node 7",
                "delete 9", "break loop.asm:99"):
        rc, out, _ = dbg(cwd, monkeypatch, capsys, bad + "\n", img)
        assert rc == 1 and "s.txt:1: error:" in out, bad
    assert rap_main(["dbg", img, "--script", "missing.txt"], monkeypatch) == 1
    assert "missing.txt" in capsys.readouterr().err


def test_multi_node_breakpoint_and_deadlock(cwd, monkeypatch, capsys):
    img = image_file(cwd / "d.out", DEADLOCK)
    rc, out, _ = dbg(cwd, monkeypatch, capsys, """
break start+1 node 2
info break
""", img, "--nodes", "3")
    assert rc == 1           # start+1 is not a label
    rc, out, _ = dbg(cwd, monkeypatch, capsys, """
break 0x41 node 2
continue
ring
continue
ring
info nodes
""", img, "--nodes", "3")
    assert rc == 0
    assert "node 2: breakpoint 1 at PC 0x000041" in out and "(rap n2)" in out
    assert "deadlock: no node can progress" in out
    # 'ring' at the breakpoint: nodes 0 and 1 wait already; after the deadlock: all 3
    assert out.count("ring-read: PC 0x000041") == 2 + 3
    assert "link 0->1: 0 word(s): empty" in out


def test_python_callbacks():
    sim = sim_of(LOOP)
    seen = []
    sim.probes.break_at(sim.image.symbols["bump"],
                        callback=lambda s, stop: seen.append(s.reg("R3")) or True)
    changes = []
    sim.probes.watch_memory(0x2003, callback=lambda s, stop: changes.append((stop.old, stop.new))
                            or True)
    res = sim.run(max_cycles=10_000)
    assert res.event == "break"          # the SWI at the end: every callback let it go on
    assert seen == [0, 1, 2, 3]
    assert changes == [(0, 0x02100000)]     # 4.5
    # a callback that returns False stops the run there
    sim = sim_of(LOOP)
    p = sim.probes.break_at(sim.image.symbols["bump"], callback=lambda s, stop: False)
    res = sim.run(max_cycles=10_000)
    assert res.event == "breakpoint" and res.stop.point is p and res.stop.pc == sim.image.symbols["bump"]
    res = sim.run(max_cycles=10_000)     # resumes from the breakpoint
    assert res.event == "breakpoint" and p.hits == 2


def test_probes_off_again():
    sim = sim_of(LOOP)
    p = sim.probes.break_at(0x10)
    assert sim.core.probed(0)
    sim.probes.delete(p.id)
    assert not sim.core.probed(0)
    with pytest.raises(ValueError):
        sim.probes.break_at(-1)
    with pytest.raises(ValueError):
        sim.probes.watch_register("R99")
    with pytest.raises(ValueError):
        sim.probes.break_at(0x40, node=5)


@pytest.fixture
def tmux():
    """The tmux command, installed with apt-get if missing; skips without it."""
    if shutil.which("tmux") is None and shutil.which("apt-get") is not None and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-q", "tmux"], capture_output=True,
                       timeout=300)
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not available")
    return shutil.which("tmux")


def test_interactive_session_in_tmux(cwd, tmux):
    tmp_path = cwd
    img = image_from_file(tmp_path, "loop.asm", LOOP)
    sock = str(tmp_path / "tmux.sock")
    env = dict(os.environ, HOME=str(tmp_path), TERM="xterm")
    rap = [sys.executable, "-m", "rapsim", "dbg", img]

    def t(*args):
        return subprocess.run([tmux, "-S", sock, *args], capture_output=True, text=True,
                              env=env, timeout=30)

    def screen_has(text, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = t("capture-pane", "-p", "-S", "-200").stdout
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared:\n{screen}")

    t("new-session", "-d", "-x", "150", "-y", "50", "-c", str(tmp_path),
      " ".join(map(str, rap)))
    try:
        screen_has("(rap)")
        t("send-keys", "break bu", "Tab", "")          # completion of the label
        screen_has("(rap) break bump")
        t("send-keys", "Enter")
        screen_has("breakpoint 1 at PC 0x000048")
        t("send-keys", "continue", "Enter")
        screen_has("node 0: breakpoint 1 at PC 0x000048 (loop.asm:10)")
        t("send-keys", "regs", "Enter")
        screen_has("R1  0120000000  2.5")
        t("send-keys", "Up", "Up", "Enter")              # history: continue again
        end = time.monotonic() + 20
        while t("capture-pane", "-p", "-S", "-200").stdout.count(
                "node 0: breakpoint 1 at PC 0x000048") < 2:
            assert time.monotonic() < end, "Up Up Enter did not repeat 'continue'"
            time.sleep(0.2)
        t("send-keys", "info break", "Enter")
        screen_has("(hit 2 times)")
        t("send-keys", "quit", "Enter")
        end = time.monotonic() + 20
        while t("has-session").returncode == 0 and time.monotonic() < end:
            time.sleep(0.2)
        assert t("has-session").returncode != 0, "rap dbg did not quit"
        assert "continue" in (tmp_path / ".rap_dbg_history").read_text()
    finally:
        t("kill-server")


def test_watch_ignores_the_daemons_reply_but_sees_the_nodes_store():
    """hello.asm's WRITE request block: the node stores the service (+0), the
    daemon writes the result (+1); only the node's store stops the run."""
    from pathlib import Path
    from rapsim.config import MachineConfig
    from rapsim.toolchain import build_files
    hello = Path(__file__).resolve().parents[2] / "examples" / "hello.asm"
    sim = Simulator(MachineConfig(), output=lambda *a: None)
    sim.load(build_files(str(hello)))
    block = sim.image.symbols["block"]
    sim.probes.watch_memory(block + 1)          # result: the daemon's
    res = sim.run(max_cycles=10_000)
    assert res.event == "done"
    assert sim.read(block + 1, 1)[0] != 0       # (the WRITE's result: the length)
    sim = Simulator(MachineConfig(), output=lambda *a: None)
    sim.load(build_files(str(hello)))
    sim.probes.watch_memory(block)              # service: the node's own stores
    res = sim.run(max_cycles=10_000)
    assert res.event == "watch" and res.stop.new == 2        # WRITE
    res = sim.run(max_cycles=10_000)
    assert res.event == "watch" and (res.stop.old, res.stop.new) == (2, 1)   # EXIT
