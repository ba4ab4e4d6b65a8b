"""Issue 18 for the kernel writer's tools: malformed debugger commands are
refused naming the script's file and line (never accepted with a guess,
never a hang), and trace, waveform and timeline files that cannot be
written end in a message naming the file."""
from __future__ import annotations

import pytest

from toolprogs import LOOP, image_from_file, rap_main


def dbg(cwd, monkeypatch, capsys, script: str, *opts):
    img = image_from_file(cwd, "loop.asm", LOOP)
    (cwd / "s.txt").write_text(script)
    rc = rap_main(["dbg", img, "--script", "s.txt", *opts], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err + cap.out and "internal error" not in cap.err
    return rc, cap.out, cap.err


@pytest.mark.parametrize("command,message", [
    ("x/zz start", "unknown format '/zz': x/x shows hex words, x/f floats"),
    ("regs R99", "usage: regs [node N | all]"),
    ("info bogus", "usage: info [break|nodes]"),
    ("ring 99", "usage: ring"),
    ("step 99999999999999999999",
     "count must be 1..16777216, not 99999999999999999999 ('continue' runs on to a breakpoint)"),
    ("next 16777217", "count must be 1..16777216, not 16777217 ('continue' runs on to a "
                      "breakpoint)"),
    ("step -1", "usage: step [COUNT] [node N | all]"),
    ("break 99999999999999999999999",
     "address 99999999999999999999999 is outside the 24-bit address space"),
    ("x start 99999999999999999999", "count must be 0..16777216, not 99999999999999999999"),
    ("node 99", "node 99 does not exist (0..1)"),
    ("watch 'unterminated", "No closing quotation"),
    ("bogus", "unknown command 'bogus' (help lists the commands)"),
])
def test_malformed_command_names_script_line(cwd, monkeypatch, capsys, command, message):
    rc, out, _ = dbg(cwd, monkeypatch, capsys, f"# first\nnode 1\n{command}\nregs\n",
                     "--nodes", "2")
    assert rc == 1
    assert f"s.txt:3: error: {message}" in out
    assert "R0 " not in out.split("s.txt:3:")[1]          # the script stopped there


def test_step_count_ends_when_the_node_stops(cwd, monkeypatch, capsys):
    """A COUNT far beyond the program's length stops stepping once the node
    has stopped for good (before: the loop went on COUNT times, printing the
    node's state each time).  LOOP steps over its SWI into bump, whose RETS
    pops an empty stack: an error."""
    rc, out, _ = dbg(cwd, monkeypatch, capsys, "step 16777216\nstep 5\nregs\n")
    assert rc == 0
    assert out.count("node 0: error\n") == 1
    assert "node 0: error, cycle 146, PC 0x000049 (loop.asm:11)" in out
    assert "R0 " in out


def test_info_abbreviations_still_work(cwd, monkeypatch, capsys):
    rc, out, _ = dbg(cwd, monkeypatch, capsys, "break loop\ninfo b\ninfo w\ninfo n\nx/x start 1\n")
    assert rc == 0
    assert out.count("1: break 0x000043 on all nodes") == 2
    assert "node 0: running, cycle 0" in out


@pytest.mark.parametrize("option,what", [("--trace", "the trace"), ("--vcd", "the VCD")])
def test_unwritable_trace_files(cwd, monkeypatch, capsys, option, what):
    img = image_from_file(cwd, "loop.asm", LOOP)
    rc = rap_main(["run", img, option, "/dev/full"], monkeypatch)
    cap = capsys.readouterr()
    assert rc == 1
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    assert f"/dev/full: cannot write {what}: No space left on device" in cap.err


def test_timeline_into_a_folder_or_nowhere(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "loop.asm", LOOP)
    (cwd / "d").mkdir()
    for target, message in [("d", "cannot write d: Is a directory"),
                            ("no/t.json", "cannot write no/t.json: no folder")]:
        rc = rap_main(["run", img, "--timeline", target], monkeypatch)
        err = capsys.readouterr().err
        assert rc == 1 and message in err and "internal error" not in err


def test_trace_node_range_is_not_built_before_the_check():
    """Found by the long fuzz campaign: --trace-nodes 0-99999999999 built the
    whole range (20 GB) before saying node 99999999999 does not exist."""
    from rapsim.trace import parse_nodes
    with pytest.raises(ValueError, match=r"node 99999999999 does not exist \(the machine has "
                                         r"nodes 0\.\.3\)"):
        parse_nodes("0-99999999999", 4)
    with pytest.raises(ValueError, match="node 5 does not exist"):
        parse_nodes("5-9", 4)
    assert parse_nodes("3-3,0-1", 4) == [0, 1, 3]
