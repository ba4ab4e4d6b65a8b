"""Fuzz: the kernel writer's tools -- ``rap dbg --script`` with random and
malformed command lines, and ``rap run`` with random trace, waveform,
timeline and dump options (hostile paths, node lists, cycle bounds).

Any outcome is fine except an internal error, a traceback or a hang; a
failed debugger command must name the script's file and line."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim.asm.objfile import write_image

sys.path.insert(0, str(fuzzkit.ROOT / "tests" / "tools"))
from toolprogs import LOOP  # noqa: E402

#: the debugger tests' loop (labels start, loop, bump) and a data word
PROGRAM = LOOP + "        .data\ndata:   .word 1, 2, 3\n"

COMMANDS = ["break", "tbreak", "watch", "delete", "info", "continue", "c", "step", "s", "next",
            "n", "node", "regs", "x", "x/f", "x/x", "x/q", "disas", "list", "ring", "help",
            "quit", "q", "bogus", "", "#", "EOF"]
ARGS = fuzzkit.NUMBERS + [
    "start", "loop", "bump", "data", "nolabel", "s.asm:4", "s.asm:0", "s.asm:999", "x.asm:4",
    ":", "s.asm:", "R0", "R1", "AR0", "SP", "ST", "IE", "PC", "node", "all", "0", "1", "2", "3",
    "-5", "0x2000", "2000h", "0x809800", "0x800000", "0xFFFFFF", "'", '"', "''", "\\", "b", "w",
    "n", "nodes", "break", "1e3", "0x", "99999999999999999999", "16777216", "\x00", "\udcff",
]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz_tools")
    (d / "s.asm").write_text(PROGRAM)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        from rapsim.toolchain import build_files
        write_image(build_files("s.asm"), d / "s.out")
    finally:
        os.chdir(cwd)
    return d


line = st.tuples(st.sampled_from(COMMANDS), st.lists(st.sampled_from(ARGS), max_size=4)).map(
    lambda t: " ".join([t[0], *t[1]]))


@fuzzkit.examples(ci=80, long=3000)
@given(lines=st.lists(line, min_size=1, max_size=12), nodes=st.sampled_from(["1", "2", "4"]))
def test_debugger_scripts(work, lines, nodes):
    fuzzkit.count("rap dbg: script lines", len(lines))
    script = fuzzkit.write(work / "d.txt", "\n".join(lines) + "\n")
    rc, out, err = fuzzkit.rap(["dbg", str(work / "s.out"), "--nodes", nodes, "--script", script,
                                "--max-cycles", "20000", "--root", str(work)], seconds=60)
    assert rc in (0, 1), (rc, err)
    if rc == 1 and "error:" in out:
        assert f"{script}:" in out


PATHS = ["t.out", "sub/none/t.out", ".", "/dev/full", "/dev/null", "/proc/version", "t.png",
         "t.svg", "t.json", "", "-", "s.asm", "x" * 300, "t\udcff.txt"]
OPTS = st.one_of(
    st.tuples(st.sampled_from(["--trace", "--vcd", "--timeline", "--stats-json", "--dump-regs",
                               "--output-dir"]), st.sampled_from(PATHS)),
    st.tuples(st.sampled_from(["--trace-nodes"]),
              st.sampled_from(["0", "0,1", "0-3", "3-0", "-1", "99", "0-99999999999", "a", "",
                               ",", "0,,1", "1-", "9" * 50])),
    st.tuples(st.sampled_from(["--trace-from", "--trace-to", "--max-cycles"]),
              st.sampled_from(fuzzkit.NUMBERS)),
    st.tuples(st.just("--dump"),
              st.sampled_from(["0x2000:4", "0:0", "0xFFFFFF:2", "0x2000:4:d.txt", "0x2000:4:.",
                               "0x2000:4:/dev/full", "x:y", "0:99999999999", "0x2000", "::"])),
)


@fuzzkit.examples(ci=60, long=2000)
@given(opts=st.lists(OPTS, max_size=4), nodes=st.sampled_from(["1", "2"]))
def test_run_output_options(work, opts, nodes):
    fuzzkit.count("rap run: trace and output options")
    argv = ["run", str(work / "s.out"), "--nodes", nodes, "--max-cycles", "5000"]
    cwd = os.getcwd()
    os.chdir(work)
    try:
        for o, v in opts:
            argv += [o, v]
        fuzzkit.rap(argv, seconds=60)
    finally:
        os.chdir(cwd)
