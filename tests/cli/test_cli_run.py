"""rap run end to end: output forwarding, exit status, limits, reports, dumps,
program arguments, the daemon's root, and bad input (a message and a
non-zero exit status, never a traceback)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clirun import rap_main
from rapsim.asm.objfile import object_bytes, write_image
from rapsim.asm.assembler import assemble_text
from rapsim.toolchain import build_text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "sim"))
from hostprog import (ARGC, ARGV, BUF, CLOSE, O_RDONLY, OPEN, READ, RESULTS, WRITE,  # noqa: E402
                      program, string)

RAP = str(Path(sys.executable).with_name("rap"))

HELLO = program([(WRITE, [1, "m", 6]), (WRITE, [2, "e", 5])], 0,
                string("m", "hello\n") + string("e", "oops\n"))


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def image(path: str | Path, src: str) -> str:
    write_image(build_text(src), path)
    return str(path)


def rap(args, monkeypatch, capsys):
    rc = rap_main(["run", *map(str, args)], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err


def rap_proc(args, stdin: bytes | None = None, cwd=None):
    p = subprocess.run([RAP, "run", *map(str, args)], input=stdin, capture_output=True, cwd=cwd,
                       timeout=60)
    err = p.stderr.decode()
    assert "Traceback" not in err and "internal error" not in err
    return p.returncode, p.stdout.decode(), err


# ---------------------------------------------------------------------------
# output and exit status


def test_stdout_and_stderr_are_forwarded(cwd):
    img = image("p.out", HELLO)
    rc, out, err = rap_proc([img])
    assert rc == 0
    assert out == "hello\n"
    assert err == "oops\n"


def test_several_nodes_prefix_their_lines(cwd, monkeypatch, capsys):
    img = image("p.out", HELLO)
    rc, out, err = rap([img, "--nodes", "3"], monkeypatch, capsys)
    assert rc == 0
    assert sorted(out.splitlines()) == ["[0] hello", "[1] hello", "[2] hello"]
    assert sorted(err.splitlines()) == ["[0] oops", "[1] oops", "[2] oops"]
    rc, out, err = rap([img, "--boards", "2"], monkeypatch, capsys)
    assert rc == 0 and len(out.splitlines()) == 8


def test_output_dir(cwd, monkeypatch, capsys):
    img = image("p.out", HELLO)
    rc, out, err = rap([img, "--nodes", "2", "--output-dir", "o"], monkeypatch, capsys)
    assert rc == 0 and out == "" and err == ""
    assert (cwd / "o" / "node1.out").read_text() == "hello\n"
    assert (cwd / "o" / "node0.err").read_text() == "oops\n"


@pytest.mark.parametrize("status, rc", [(0, 0), (5, 5), (255, 255), (256 + 3, 3), (-1, 255)])
def test_exit_status_is_the_programs(cwd, monkeypatch, capsys, status, rc):
    img = image("p.out", program([], status))
    assert rap([img], monkeypatch, capsys)[0] == rc


def test_exit_status_through_the_real_command(cwd):
    img = image("p.out", program([], 42))
    assert rap_proc([img])[0] == 42


def test_stdin_reaches_node_0(cwd):
    # READ 5 characters from fd 0, WRITE them to fd 1.
    img = image("p.out", program([(READ, [0, BUF, 5]), (WRITE, [1, BUF, 5])], 0))
    rc, out, _ = rap_proc([img], stdin=b"abcdefgh")
    assert rc == 0 and out == "abcde"


# ---------------------------------------------------------------------------
# the machine stops


RUNAWAY = """
        .global start
start:  ADDI 1, R0
        B    start
"""


def test_max_cycles(cwd, monkeypatch, capsys):
    img = image("p.out", RUNAWAY)
    rc, out, err = rap([img, "--max-cycles", "5000", "--stats-json", "s.json"],
                       monkeypatch, capsys)
    assert rc == 3
    assert "rap run: cycle limit of 5000 reached" in err
    assert "node 0: " in err and "PC 0x0000" in err
    stats = json.loads((cwd / "s.json").read_text())
    assert stats["event"] == "limit"
    assert 5000 <= stats["nodes"][0]["cycles"] < 5000 + 4      # stops at the first boundary


@pytest.mark.parametrize("value", ["0", "-5", "many", "1.5", "1e30"])
def test_bad_max_cycles(cwd, monkeypatch, capsys, value):
    img = image("p.out", RUNAWAY)
    with pytest.raises(SystemExit) as e:
        rap([img, "--max-cycles", value], monkeypatch, capsys)
    assert e.value.code == 2
    assert "--max-cycles" in capsys.readouterr().err


def test_machine_stopped_exit_status_3(cwd):
    img = image("p.out", """
        .global start
start:  NOP
        .word 0xFFFFFFFF
""")
    rc, out, err = rap_proc([img])
    assert rc == 3
    assert err.startswith("rap run: node 0: illegal instruction at PC 0x000041 (<source>.asm:4): "
                          "FFFFFFFF")


def test_breakpoint_and_deadlock_stop_with_3(cwd, monkeypatch, capsys):
    img = image("p.out", "        .global start\nstart:  SWI\n")
    rc, _, err = rap([img], monkeypatch, capsys)
    assert rc == 3 and "software breakpoint (SWI) at PC 0x000040" in err
    img = image("q.out", """
        .global start
start:  LDP  0x800000
        LDI  @0, R0             ; every node reads the ring: nobody writes
""")
    rc, _, err = rap([img, "--nodes", "2"], monkeypatch, capsys)
    assert rc == 3 and "deadlock" in err


# ---------------------------------------------------------------------------
# reports


def test_stats_table(cwd, monkeypatch, capsys):
    img = image("p.out", HELLO)
    rc, out, err = rap([img, "--stats", "--nodes", "2"], monkeypatch, capsys)
    assert rc == 0
    assert sorted(out.splitlines()) == ["[0] hello", "[1] hello"]
    for word in ("cycles", "instr", "branch", "register conflict", "memory wait", "bus conflict",
                 "ring read", "ring write", "host call", "SRAM", "RINGIO", "cache hit/miss"):
        assert word in err, word


def test_stats_json_has_every_counter(cwd, monkeypatch, capsys):
    img = image("p.out", HELLO)
    rc, _, _ = rap([img, "--stats-json", "s.json", "--nodes", "2"], monkeypatch, capsys)
    assert rc == 0
    s = json.loads((cwd / "s.json").read_text())
    assert s["event"] == "done" and s["exit_status"] == 0
    assert len(s["nodes"]) == 2
    regions = {"SRAM", "DRAM", "RAM0", "RAM1", "RINGIO"}
    for node in s["nodes"]:
        assert set(node["stalls"]) == {"branch", "register_conflict", "memory_wait",
                                       "bus_conflict", "ring_read", "ring_write", "host_call"}
        for k in ("reads", "writes", "fetches"):
            assert set(node[k]) == regions
        assert set(node["cache"]) == {"hits", "misses"}
        assert set(node["ring"]) == {"sent", "received", "forwarded"}
        # three host calls (2 WRITEs, EXIT) of 1600 cycles
        assert node["host_calls"] == 3 and node["stalls"]["host_call"] == 3 * 1600
        assert node["cycles"] == node["instructions"] + sum(node["stalls"].values())
        assert node["writes"]["RINGIO"] == 3
        assert node["status"] == "exited"
    m = s["machine"]
    assert m["cycles"] == max(n["cycles"] for n in s["nodes"])
    assert m["instructions"] == sum(n["instructions"] for n in s["nodes"])
    assert m["seconds"] == pytest.approx(m["cycles"] / 16e6)
    for k in ("ring_words", "ring_utilisation"):
        assert k in m
    assert s["clock_hz"] == 16e6
    assert s["host_seconds"] > 0 and s["simulated_instructions_per_second"] > 0


def test_dump_regs(cwd, monkeypatch, capsys):
    img = image("p.out", """
        .global start
start:  LDF  2.5, R0
        LDF  -1.0, R1
        LDI  -7, R2
        LDI  1234, AR3
        LDI  0x100, SP
        LDP  0x800000
        LDI  1, R7
        STI  R7, *AR3           ; service EXIT...
        LDI  0, R7
        STI  R7, *+AR3(3)       ; ...status 0
        STI  AR3, @5
""")
    rc, _, _ = rap([img, "--dump-regs", "r.json"], monkeypatch, capsys)
    assert rc == 0
    r = json.loads((cwd / "r.json").read_text())
    # 2.5 = 1.25 * 2^1: exponent 0x01, mantissa 0x20000000
    assert r["R0"] == {"hex": "0x0120000000", "value": 2.5, "int": 0x20000000}
    # -1.0 = -2 * 2^-1: exponent 0xFF, mantissa 0x80000000
    assert r["R1"] == {"hex": "0xFF80000000", "value": -1.0, "int": -0x80000000}
    assert r["R2"]["int"] == -7 and r["R2"]["hex"].endswith("FFFFFFF9")
    assert r["R7"]["int"] == 0
    assert r["AR3"] == 1234 and r["SP"] == 0x100 and r["DP"] == 0x80
    for name in ("AR0", "IR0", "IR1", "BK", "ST", "IE", "IF", "IOF", "RS", "RE", "RC", "PC"):
        assert isinstance(r[name], int)
    assert set(r) >= {f"R{i}" for i in range(8)} | {f"AR{i}" for i in range(8)}
    rc, _, _ = rap([img, "--dump-regs", "r2.json", "--nodes", "2"], monkeypatch, capsys)
    r2 = json.loads((cwd / "r2.json").read_text())
    assert len(r2["nodes"]) == 2 and r2["nodes"][1]["AR3"] == 1234


def test_dump_memory(cwd, monkeypatch, capsys):
    img = image("p.out", program([], 0, "        .sect \".dram\"\nv: .word 1, 0xDEADBEEF, -1\n"))
    rc, out, _ = rap([img, "--dump", "0x400000:3", "--dump", "400001h:2:d.txt"],
                     monkeypatch, capsys)
    assert rc == 0
    assert out == "00000001\nDEADBEEF\nFFFFFFFF\n"
    assert (cwd / "d.txt").read_text() == "DEADBEEF\nFFFFFFFF\n"
    rc, out, _ = rap([img, "--dump", "0x400000:2", "--nodes", "2"], monkeypatch, capsys)
    assert out == "00000001\nDEADBEEF\n" * 2


def test_dump_of_unmapped_memory(cwd, monkeypatch, capsys):
    img = image("p.out", program([], 0))
    rc, out, err = rap([img, "--dump", "0x300000:4"], monkeypatch, capsys)
    assert rc == 1
    assert "rap run: error: --dump 0x300000:4" in err


@pytest.mark.parametrize("spec", ["12", "x:3", "0x40:y", "0x40:-1", "0x1000000:1", ":"])
def test_bad_dump_spec(cwd, monkeypatch, capsys, spec):
    img = image("p.out", program([], 0))
    with pytest.raises(SystemExit) as e:
        rap([img, "--dump", spec], monkeypatch, capsys)
    assert e.value.code == 2
    assert "argument --dump" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# arguments and root


def test_args_reach_argv(cwd):
    # ARGC, then ARGV(2) written to stdout followed by a newline.
    img = image("p.out", program([(ARGC, []), (ARGV, [2, BUF, 100]), (WRITE, [1, BUF, 4]),
                                  (WRITE, [1, "nl", 1])], 0, string("nl", "\n")))
    rc, out, err = rap_proc([img, "--", "first", "-x=1", "--stats"])
    assert rc == 0, err
    assert out == "-x=1\n"
    assert "cycles" not in err            # --stats after -- is an argument, not an option


def test_argc_counts_the_image_name(cwd, monkeypatch, capsys):
    # exit with ARGC as the status
    src = program([(ARGC, [])], None).replace("        SWI\n", """        LDI  1, R1
        STI  R1, *AR0               ; EXIT
        LDI  *-AR1(3), R0           ; ARGC's result
        STI  R0, *+AR0(3)
        STI  AR0, @5
        SWI
""")
    img = image("p.out", src)
    assert rap([img], monkeypatch, capsys)[0] == 1
    assert rap([img, "--", "a", "b", "c"], monkeypatch, capsys)[0] == 4


def test_root_confines_files(cwd, monkeypatch, capsys):
    (cwd / "box").mkdir()
    (cwd / "box" / "data.txt").write_text("boxed")
    (cwd / "data.txt").write_text("loose")
    # open data.txt, copy 5 characters to stdout
    calls = [(OPEN, ["p", O_RDONLY, 0]), (READ, [3, BUF, 5]), (WRITE, [1, BUF, 5]), (CLOSE, [3])]
    img = image("p.out", program(calls, 0, string("p", "data.txt")))
    rc, out, _ = rap([img, "--root", "box"], monkeypatch, capsys)
    assert rc == 0 and out == "boxed"
    rc, out, _ = rap([img], monkeypatch, capsys)               # default: the current directory
    assert rc == 0 and out == "loose"
    # ../data.txt leaves the root: OPEN fails with EACCES (13); --dump shows
    # the reply words (result, errno) of the first call
    img2 = image("q.out", program(calls[:1], 0, string("p", "../data.txt")))
    rc, out, _ = rap([img2, "--root", "box", "--dump", f"{RESULTS}:2"], monkeypatch, capsys)
    assert rc == 0 and out == "FFFFFFFF\n0000000D\n"


def test_bad_root(cwd, monkeypatch, capsys):
    img = image("p.out", program([], 0))
    rc, out, err = rap([img, "--root", "nowhere"], monkeypatch, capsys)
    assert rc == 1 and "rap run: error: daemon root 'nowhere' is not a directory" in err


# ---------------------------------------------------------------------------
# bad input


def test_missing_image(cwd, monkeypatch, capsys):
    rc, _, err = rap(["none.out"], monkeypatch, capsys)
    assert rc == 1 and err == "rap run: error: none.out: cannot read: No such file or directory\n"


def test_directory_as_image(cwd, monkeypatch, capsys):
    rc, _, err = rap(["."], monkeypatch, capsys)
    assert rc == 1 and err.startswith("rap run: error: .: cannot read")


def test_corrupt_image(cwd, monkeypatch, capsys):
    good = Path(image("p.out", HELLO)).read_bytes()
    Path("trunc.out").write_bytes(good[: len(good) // 2])
    Path("junk.out").write_bytes(b"not an image at all, just some bytes" * 4)
    Path("empty.out").write_bytes(b"")
    for name in ("trunc.out", "junk.out", "empty.out"):
        rc, _, err = rap([name], monkeypatch, capsys)
        assert rc == 1 and err.startswith(f"rap run: error: {name}: "), err
        assert len(err.splitlines()) == 1


def test_object_instead_of_image(cwd, monkeypatch, capsys):
    Path("p.obj").write_bytes(object_bytes(assemble_text(HELLO, "p.asm").obj))
    rc, _, err = rap(["p.obj"], monkeypatch, capsys)
    assert rc == 1
    assert err == ("rap run: error: p.obj: is a relocatable object, not an executable image "
                   "(link it with 'rap ld')\n")


@pytest.mark.parametrize("opts, text", [
    (["--nodes", "0"], "1 to 64 nodes"),
    (["--nodes", "65"], "1 to 64 nodes"),
    (["--boards", "17"], "1 to 16 boards"),
    (["--dram-wait", "300"], "dram_wait"),
    (["--hostcall-cycles", "-1"], "host-call cost"),
    (["--hostcall-cycles", str(1 << 62)], "host-call cost"),      # cycle counts would overflow
    (["--boards", "2", "--board-hop-cycles", str(1 << 62)], "ring hop"),
    (["--clock-mhz", "0"], "clock"),
    (["--clock-mhz", "nan"], "clock"),
    (["--clock-mhz", "inf"], "clock"),
    (["--dram-words", "-1"], "outside 0..4194304"),
])
def test_bad_machine_options(cwd, monkeypatch, capsys, opts, text):
    img = image("p.out", HELLO)
    rc, out, err = rap([img, *opts], monkeypatch, capsys)
    assert rc == 1 and out == ""                # nothing ran
    assert err.startswith("rap run: error: ") and text in err


@pytest.mark.parametrize("opts", [["--nodes", "x"], ["--nodes", "2", "--boards", "1"]])
def test_unparsable_options(cwd, monkeypatch, capsys, opts):
    img = image("p.out", HELLO)
    with pytest.raises(SystemExit) as e:
        rap([img, *opts], monkeypatch, capsys)
    assert e.value.code == 2
    assert "rap run: error: argument" in capsys.readouterr().err


def test_image_not_fitting_the_memory(cwd, monkeypatch, capsys):
    img = image("p.out", program([], 0, "        .sect \".dram\"\nv: .word 1\n"))
    rc, _, err = rap([img, "--dram-words", "0"], monkeypatch, capsys)
    assert rc == 1 and err.startswith("rap run: error: p.out: segment .dram")


@pytest.mark.parametrize("entry", [-5, 1 << 24, 1 << 40])
def test_entry_point_outside_the_address_space(cwd, monkeypatch, capsys, entry):
    img = build_text(HELLO)
    img.entry = entry
    write_image(img, "p.out")
    rc, out, err = rap(["p.out"], monkeypatch, capsys)
    assert rc == 1 and out == ""
    assert err == f"rap run: error: p.out: entry point {entry} is not a 24-bit address\n"


# ---------------------------------------------------------------------------
# result files: checked before the run; links, devices and pipes


FOREVER = ["--max-cycles", "1e15"]          # RUNAWAY would run for days


@pytest.mark.parametrize("opts, text", [
    (["--stats-json", "no/such/folder/s.json"], "cannot write no/such/folder/s.json: no folder"),
    (["--dump-regs", "."], "cannot write .: Is a directory"),
    (["--dump", "0x40:2:no/where.hex"], "cannot write no/where.hex"),
    (["--dump", "0x3FFFF:2"], "--dump 0x03FFFF:2: the range is not plain memory"),
    (["--dump", "0x809BFF:2", "--dump", "0x808000:1"], "--dump 0x808000:1"),
])
def test_bad_result_files_fail_before_the_run(cwd, monkeypatch, capsys, opts, text):
    img = image("p.out", RUNAWAY)
    rc, out, err = rap([img, *FOREVER, *opts], monkeypatch, capsys)
    assert rc == 1 and out == ""
    assert err.startswith("rap run: error: ") and text in err
    assert "cycle limit" not in err


def test_bad_input_creates_no_output_dir(cwd, monkeypatch, capsys):
    img = image("p.out", HELLO)
    for args in (["none.out"], [img, "--root", "nowhere"], [img, "--dump", "0x808000:1"]):
        rc, _, _ = rap([*args, "--output-dir", "o"], monkeypatch, capsys)
        assert rc == 1 and not os.path.exists("o")


def test_a_result_file_behind_a_link_keeps_the_link(cwd, monkeypatch, capsys):
    os.symlink("target.json", "link.json")
    img = image("p.out", HELLO)
    rc, _, _ = rap([img, "--stats-json", "link.json"], monkeypatch, capsys)
    assert rc == 0 and os.path.islink("link.json")
    assert json.loads(Path("target.json").read_text())["event"] == "done"


def test_a_result_file_may_be_a_pipe(cwd, monkeypatch, capsys):
    # a FIFO (or /dev/stdout) is written to, not replaced by a regular file
    import stat
    import threading
    os.mkfifo("fifo")
    got = []
    reader = threading.Thread(target=lambda: got.append(Path("fifo").read_bytes()), daemon=True)
    reader.start()
    rc, _, _ = rap([image("p.out", HELLO), "--dump-regs", "fifo"], monkeypatch, capsys)
    reader.join(timeout=30)
    assert rc == 0 and stat.S_ISFIFO(os.stat("fifo").st_mode)
    assert json.loads(got[0])["PC"] > 0


# ---------------------------------------------------------------------------
# arguments that are not UTF-8, Ctrl-C


def test_argument_that_is_not_utf8(cwd):
    # the bytes reach the program as they are (it used to be an internal error)
    src = program([(ARGV, [1, BUF, 10]), (WRITE, [1, BUF, 3])], 0)
    img = image("p.out", src)
    p = subprocess.run([RAP, "run", img, "--", b"a\xff\xfe"], capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout == b"a\xff\xfe"


def test_ctrl_c_stops_a_long_run(cwd):
    import signal
    import time
    img = image("p.out", RUNAWAY)
    # (the default disposition: a test runner may be ignoring SIGINT, which
    # a child would inherit)
    proc = subprocess.Popen([RAP, "run", img, *FOREVER], stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # until rap's main() is running (it loads the simulator's extension
        # there; Python's own start-up, before main(), is not rap's), then a bit
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(f"/proc/{proc.pid}/maps") as fh:
                if "_sim.cpython" in fh.read():
                    break
            time.sleep(0.05)
        time.sleep(1.0)
        t0 = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130 and time.perf_counter() - t0 < 10
    assert err.decode() == "rap run: interrupted\n"


@pytest.mark.parametrize("closed", [0, 1, 2])
def test_closed_standard_descriptors(cwd, closed):
    # started from a daemon or cron with stdin, stdout or stderr closed: no
    # internal error (a node writing to a closed stdout gets EBADF, as on UNIX)
    img = image("p.out", HELLO)
    p = subprocess.run([RAP, "run", img, "--stats"], capture_output=True, timeout=60,
                       preexec_fn=lambda: os.close(closed))
    text = (p.stdout + p.stderr).decode()
    assert p.returncode == 0, text
    assert "internal error" not in text and "Traceback" not in text


def test_ctrl_c_while_the_commands_load(monkeypatch, capsys):
    # a Ctrl-C before the subcommand runs (its modules still loading) is
    # reported like one during the run: a message and status 130
    import importlib
    import rapsim.cli as cli

    def interrupted(name, *a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(importlib, "import_module", interrupted)
    assert cli.main(["run", "x.out"]) == 130
    assert capsys.readouterr().err == "rap run: interrupted\n"
    assert cli.main([]) == 130
    assert capsys.readouterr().err == "rap: interrupted\n"
