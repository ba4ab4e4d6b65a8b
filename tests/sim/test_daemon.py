"""The host daemon: every service of docs/syscalls.md, the sandbox, and the
cost of a host call, through real programs (tests/sim/hostprog.py)."""
from __future__ import annotations

import errno
import io
import os
import struct

import numpy as np
import pytest

from hostprog import (ARGC, ARGV, BLOCK, BUF, CLOCK, CLOSE, EXIT, LSEEK, O_APPEND, O_CREAT,
                      O_EXCL, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY, OPEN, READ, READ_WORDS, WRITE,
                      WRITE_WORDS, load, program, replies, string)
from rapsim.config import MachineConfig
from rapsim.daemon import MAX_OPEN_FILES, MAX_TRANSFER_WORDS
from rapsim.machine import Simulator
from rapsim.memmap import DRAM_BASE, RAM0_BASE
from rapsim.toolchain import build_text

HOSTCALL = 1600


def run(src: str, root, *, nodes: int = 1, argv=(), stdin=None, config=None, setup=None,
        expect: str = "done", max_cycles: int = 10_000_000):
    out: list[tuple[int, int, bytes]] = []
    cfg = config or MachineConfig(nodes=nodes)
    sim = Simulator(cfg, root=str(root), argv=list(argv),
                    output=lambda node, fd, data: out.append((node, fd, data)), stdin=stdin)
    sim.load(build_text(src))
    if setup:
        setup(sim)
    res = sim.run(max_cycles=max_cycles)
    sim.daemon.close_all()
    assert res.event == expect, res.messages
    return sim, res, out


def load_ar0(value: int) -> str:
    return "\n        ".join(load(value, "AR0"))


# ---------------------------------------------------------------------------
# standard output and error, EXIT


def test_write_to_stdout_and_stderr(tmp_path):
    calls = [(WRITE, [1, "out", 6]), (WRITE, [2, "err", 4]), (WRITE, [1, "out", 0])]
    sim, res, out = run(program(calls, 0, string("out", "hello\n") + string("err", "oops")),
                        tmp_path)
    assert out == [(0, 1, b"hello\n"), (0, 2, b"oops"), (0, 1, b"")]
    assert replies(sim, 3) == [(6, 0, 1), (4, 0, 2), (0, 0, 1)]
    assert res.exit_status == 0


def test_text_is_one_character_per_word_low_8_bits(tmp_path):
    # Words 0x141, 0xFFFFFF42 carry 'A', 'B' in their low 8 bits.
    def setup(sim):
        sim.write(BUF, [0x141, 0xFFFFFF42, 0x0A])
    sim, _, out = run(program([(WRITE, [1, BUF, 3])]), tmp_path, setup=setup)
    assert out == [(0, 1, b"AB\n")]


def test_every_node_writes_with_its_number(tmp_path):
    sim, res, out = run(program([(WRITE, [1, "m", 2])], 0, string("m", "x\n")), tmp_path, nodes=3)
    assert sorted(out) == [(0, 1, b"x\n"), (1, 1, b"x\n"), (2, 1, b"x\n")]


@pytest.mark.parametrize("status, expected", [(0, 0), (7, 7), (255, 255), (-1, -1), (1000, 1000)])
def test_exit_status(tmp_path, status, expected):
    sim, res, _ = run(program([], status), tmp_path)
    assert res.ok and res.exit_status == expected
    assert sim.core.status(0) == "exited"
    assert sim.core.exit_status(0) == expected


def test_exit_status_is_the_first_nonzero_of_the_nodes(tmp_path):
    # node n exits with status n (NODE_ID is read into the EXIT argument)
    src = program([], None) .replace("        SWI\n", """        LDI  1, R0
        STI  R0, *AR0
        LDI  @3, R0
        STI  R0, *+AR0(3)
        STI  AR0, @5
        SWI
""")
    sim, res, _ = run(src, tmp_path, nodes=3)
    assert [sim.core.exit_status(n) for n in range(3)] == [0, 1, 2]
    assert res.exit_status == 1


# ---------------------------------------------------------------------------
# files


def test_create_write_reopen_seek_read_close(tmp_path):
    data = string("path", "sub/f.txt") + string("text", "0123456789")
    (tmp_path / "sub").mkdir()
    calls = [
        (OPEN, ["path", O_WRONLY | O_CREAT | O_TRUNC, 0o600]),  # 0: fd 3
        (WRITE, [3, "text", 10]),                               # 1: 10
        (CLOSE, [3]),                                           # 2: 0
        (OPEN, ["path", O_RDONLY, 0]),                          # 3: fd 3 again
        (LSEEK, [3, 4, 0]),                                     # 4: SET 4 -> 4
        (READ, [3, BUF, 3]),                                    # 5: "456" -> 3
        (LSEEK, [3, 1, 1]),                                     # 6: CUR +1 -> 8
        (READ, [3, BUF + 3, 10]),                               # 7: "89" -> 2
        (READ, [3, BUF + 5, 10]),                               # 8: end of file -> 0
        (LSEEK, [3, -3, 2]),                                    # 9: END -3 -> 7
        (READ, [3, BUF + 5, 1]),                                # 10: "7" -> 1
        (CLOSE, [3]),                                           # 11: 0
        (CLOSE, [3]),                                           # 12: EBADF
    ]
    sim, res, out = run(program(calls, 0, data), tmp_path)
    r = replies(sim, len(calls))
    assert [x[:2] for x in r] == [(3, 0), (10, 0), (0, 0), (3, 0), (4, 0), (3, 0), (8, 0), (2, 0),
                                  (0, 0), (7, 0), (1, 0), (0, 0), (-1, errno.EBADF)]
    assert bytes(int(w) for w in sim.read(BUF, 6)) == b"456897"
    assert (tmp_path / "sub" / "f.txt").read_bytes() == b"0123456789"
    assert (tmp_path / "sub" / "f.txt").stat().st_mode & 0o777 == 0o600
    assert out == []


def test_descriptors_are_allocated_from_3_per_node(tmp_path):
    (tmp_path / "a").write_text("A")
    data = string("a", "a")
    calls = [(OPEN, ["a", O_RDONLY, 0]), (OPEN, ["a", O_RDONLY, 0]), (CLOSE, [3]),
             (OPEN, ["a", O_RDONLY, 0])]
    sim, _, _ = run(program(calls, 0, data), tmp_path, nodes=2)
    for n in range(2):
        assert [x[:2] for x in replies(sim, 4, n)] == [(3, 0), (4, 0), (0, 0), (3, 0)]


def test_append_and_read_write(tmp_path):
    f = tmp_path / "log"
    f.write_bytes(b"abc")
    data = string("p", "log") + string("t", "XY")
    calls = [(OPEN, ["p", O_WRONLY | O_APPEND, 0]), (WRITE, [3, "t", 2]), (CLOSE, [3]),
             (OPEN, ["p", O_RDWR, 0]), (WRITE, [3, "t", 1]), (READ, [3, BUF, 10]), (CLOSE, [3]),
             (OPEN, ["p", O_RDWR | O_APPEND, 0]), (READ, [3, BUF + 8, 2]), (WRITE, [3, "t", 2])]
    sim, _, _ = run(program(calls, 0, data), tmp_path)
    r = replies(sim, len(calls))
    assert [x[:2] for x in r] == [(3, 0), (2, 0), (0, 0), (3, 0), (1, 0), (4, 0), (0, 0),
                                  (3, 0), (2, 0), (2, 0)]
    assert bytes(int(w) for w in sim.read(BUF, 4)) == b"bcXY"
    assert bytes(int(w) for w in sim.read(BUF + 8, 2)) == b"Xb"
    assert f.read_bytes() == b"XbcXYXY"


def test_open_errors(tmp_path):
    (tmp_path / "exists").write_text("x")
    (tmp_path / "dir").mkdir()
    data = (string("exists", "exists") + string("missing", "missing") + string("dir", "dir")
            + string("empty", "") + string("nodir", "nodir/f"))
    calls = [(OPEN, ["missing", O_RDONLY, 0]),                  # ENOENT
             (OPEN, ["exists", O_WRONLY | O_CREAT | O_EXCL, 0]),  # EEXIST
             (OPEN, ["dir", O_RDONLY, 0]),                      # EISDIR
             (OPEN, ["empty", O_RDONLY, 0]),                    # ENOENT (empty path)
             (OPEN, ["exists", 3, 0]),                          # EINVAL (access mode 3)
             (OPEN, ["exists", 0x10000, 0]),                    # EINVAL (unknown flag)
             (OPEN, ["nodir", O_WRONLY | O_CREAT, 0])]          # ENOENT (no parent)
    sim, _, _ = run(program(calls, 0, data), tmp_path)
    assert [x[:2] for x in replies(sim, len(calls))] == [
        (-1, errno.ENOENT), (-1, errno.EEXIST), (-1, errno.EISDIR), (-1, errno.ENOENT),
        (-1, errno.EINVAL), (-1, errno.EINVAL), (-1, errno.ENOENT)]


def test_default_mode_is_0644(tmp_path):
    old = os.umask(0)
    try:
        sim, _, _ = run(program([(OPEN, ["p", O_WRONLY | O_CREAT, 0])], 0, string("p", "new")),
                        tmp_path)
    finally:
        os.umask(old)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o644


def test_lseek_and_rw_errors(tmp_path):
    (tmp_path / "f").write_bytes(b"12345")
    calls = [(OPEN, ["p", O_RDONLY, 0]),
             (LSEEK, [3, 0, 3]),            # EINVAL: whence
             (LSEEK, [3, -10, 0]),          # EINVAL: negative offset
             (LSEEK, [9, 0, 0]),            # EBADF
             (READ, [9, BUF, 1]),           # EBADF
             (WRITE, [9, BUF, 1]),          # EBADF
             (WRITE, [0, BUF, 1]),          # EBADF: stdin is not writable
             (READ, [1, BUF, 1]),           # EBADF: stdout is not readable
             (READ, [3, BUF, -1]),          # EINVAL: negative count
             (WRITE, [3, BUF, 1]),          # EBADF: read-only file
             (CLOSE, [1])]                  # EBADF: the standard streams are not files
    sim, _, _ = run(program(calls, 0, string("p", "f")), tmp_path)
    got = [x[:2] for x in replies(sim, len(calls))]
    assert got == [(3, 0), (-1, errno.EINVAL), (-1, errno.EINVAL), (-1, errno.EBADF),
                   (-1, errno.EBADF), (-1, errno.EBADF), (-1, errno.EBADF), (-1, errno.EBADF),
                   (-1, errno.EINVAL), (-1, errno.EBADF), (-1, errno.EBADF)]


# ---------------------------------------------------------------------------
# binary copies


def test_write_words_then_read_words(tmp_path):
    words = [0, 1, 0x12345678, 0xFFFFFFFF, 0x80000000]

    def setup(sim):
        sim.write(RAM0_BASE, words)
    calls = [(OPEN, ["p", O_WRONLY | O_CREAT, 0]), (WRITE_WORDS, [3, RAM0_BASE, 5]), (CLOSE, [3]),
             (OPEN, ["p", O_RDONLY, 0]), (READ_WORDS, [3, DRAM_BASE + 10, 3]),
             (READ_WORDS, [3, BUF, 10]), (READ_WORDS, [3, BUF, 10])]
    sim, _, _ = run(program(calls, 0, string("p", "w.bin")), tmp_path, setup=setup)
    assert (tmp_path / "w.bin").read_bytes() == struct.pack("<5I", *words)
    assert [x[:2] for x in replies(sim, len(calls))] == [(3, 0), (5, 0), (0, 0), (3, 0), (3, 0),
                                                        (2, 0), (0, 0)]
    assert list(sim.read(DRAM_BASE + 10, 3)) == words[:3]
    assert list(sim.read(BUF, 2)) == words[3:]


def test_read_words_keeps_a_partial_word_for_later(tmp_path):
    # 6 bytes: one whole word now; the 2 bytes left are not lost.
    (tmp_path / "b").write_bytes(b"\x01\x02\x03\x04\x05\x06")
    calls = [(OPEN, ["p", O_RDONLY, 0]), (READ_WORDS, [3, BUF, 2]), (READ, [3, BUF + 4, 8])]
    sim, _, _ = run(program(calls, 0, string("p", "b")), tmp_path)
    assert [x[:2] for x in replies(sim, 3)] == [(3, 0), (1, 0), (2, 0)]
    assert int(sim.read(BUF, 1)[0]) == 0x04030201
    assert list(sim.read(BUF + 4, 2)) == [5, 6]


def test_transfer_limits(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 16)
    big = MAX_TRANSFER_WORDS + 1
    calls = [(OPEN, ["p", O_RDWR, 0]),
             (READ_WORDS, [3, DRAM_BASE, big]),            # EFBIG
             (WRITE_WORDS, [3, DRAM_BASE, big]),           # EFBIG
             (READ, [3, DRAM_BASE, big]),                  # EFBIG
             (WRITE, [1, DRAM_BASE, big]),                 # EFBIG
             (READ_WORDS, [3, 0x300000, 1]),               # EFAULT: unmapped
             (WRITE_WORDS, [3, 0x3FFFF, 2]),               # EFAULT: runs off SRAM
             (READ, [3, 0x800000, 1]),                     # EFAULT: ring registers
             (WRITE, [1, 0x809FFF, 2]),                    # EFAULT: runs off RAM1
             (OPEN, [0x300000, O_RDONLY, 0]),              # EFAULT: path outside memory
             (WRITE_WORDS, [3, DRAM_BASE, -1]),            # EINVAL
             (READ_WORDS, [3, DRAM_BASE, MAX_TRANSFER_WORDS])]  # allowed: reads 4 words
    sim, _, out = run(program(calls, 0, string("p", "f")), tmp_path)
    assert [x[:2] for x in replies(sim, len(calls))] == [
        (3, 0), (-1, errno.EFBIG), (-1, errno.EFBIG), (-1, errno.EFBIG), (-1, errno.EFBIG),
        (-1, errno.EFAULT), (-1, errno.EFAULT), (-1, errno.EFAULT), (-1, errno.EFAULT),
        (-1, errno.EFAULT), (-1, errno.EINVAL), (4, 0)]
    assert out == []


def test_buffer_spanning_both_onchip_blocks_is_fine(tmp_path):
    def setup(sim):
        sim.write(RAM0_BASE + 0x3FF, [ord("o"), ord("k")])
    sim, _, out = run(program([(WRITE, [1, RAM0_BASE + 0x3FF, 2])]), tmp_path, setup=setup)
    assert out == [(0, 1, b"ok")]


# ---------------------------------------------------------------------------
# standard input


def test_node_0_reads_stdin_the_others_end_of_file(tmp_path):
    calls = [(READ, [0, BUF, 4]), (READ, [0, BUF + 4, 10]), (READ, [0, BUF + 8, 10])]
    sim, _, _ = run(program(calls), tmp_path, nodes=2, stdin=io.BytesIO(b"abcdef"))
    assert [x[0] for x in replies(sim, 3, 0)] == [4, 2, 0]
    assert bytes(int(w) for w in sim.read(BUF, 6, 0)) == b"abcdef"
    assert [x[0] for x in replies(sim, 3, 1)] == [0, 0, 0]


def test_no_stdin_reads_end_of_file(tmp_path):
    sim, _, _ = run(program([(READ, [0, BUF, 4])]), tmp_path)
    assert replies(sim, 1)[0][:2] == (0, 0)


# ---------------------------------------------------------------------------
# arguments and clock


def test_argc_and_argv(tmp_path):
    argv = ["prog.out", "-x", "a b", "é"]
    calls = [(ARGC, []), (ARGV, [0, BUF, 20]), (ARGV, [2, BUF + 20, 4]), (ARGV, [3, BUF + 30, 3]),
             (ARGV, [2, BUF, 3]),          # ERANGE: needs length + 1 = 4
             (ARGV, [4, BUF, 20]),         # EINVAL: no argument 4
             (ARGV, [-1, BUF, 20]),        # EINVAL
             (ARGV, [1, 0x300000, 20])]    # EFAULT
    sim, _, _ = run(program(calls), tmp_path, argv=argv)
    r = [x[:2] for x in replies(sim, len(calls))]
    assert r == [(4, 0), (8, 0), (3, 0), (2, 0), (-1, errno.ERANGE), (-1, errno.EINVAL),
                 (-1, errno.EINVAL), (-1, errno.EFAULT)]
    assert list(sim.read(BUF, 9)) == list(b"prog.out\0")
    assert list(sim.read(BUF + 20, 4)) == list(b"a b\0")
    assert list(sim.read(BUF + 30, 3)) == list("é".encode() + b"\0")


def test_clock_returns_the_node_cycle_count(tmp_path):
    # Before the first CLOCK: LDP, LDI AR0, LDI AR1 (1 cycle each), LDI 7,R0
    # (1), STI R0,*AR0 (SRAM fetch + SRAM write: 2, and 1 register-conflict
    # cycle: AR1, of the AR group, was written 2 instructions earlier),
    # STI AR0,@5 (fetch + expansion write: 1) -> served at cycle 8.
    # Between the two calls: the host call (1600), 6 instructions saving the
    # replies (3 loads of the block from SRAM code: 2 each; 3 stores to SRAM:
    # 2 each), LDI 7,R0 (1), STI R0,*AR0 (2), STI AR0,@5 (1) -> +1600+16.
    sim, _, _ = run(program([(CLOCK, []), (CLOCK, [])]), tmp_path)
    (lo0, e0, hi0), (lo1, e1, hi1) = replies(sim, 2)
    assert (lo0, e0, hi0) == (8, 0, 0)
    assert (lo1, e1, hi1) == (8 + HOSTCALL + 16, 0, 0)


def test_clock_high_word(tmp_path):
    # A first call costing 2**32 cycles pushes the second CLOCK past 32 bits.
    cfg = MachineConfig(hostcall_cycles=1 << 32)
    sim, _, _ = run(program([(CLOCK, []), (CLOCK, [])]), tmp_path, config=cfg,
                    max_cycles=1 << 40)
    assert replies(sim, 2) == [(8, 0, 0), (8 + 16, 0, 1)]


# ---------------------------------------------------------------------------
# the sandbox


@pytest.fixture
def sandbox(tmp_path):
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (root / "d" / "in.txt").write_text("inside")
    (tmp_path / "secret").write_text("outside")
    os.symlink(tmp_path / "secret", root / "out_link")
    os.symlink(tmp_path, root / "out_dir")
    os.symlink(root / "d" / "in.txt", root / "in_link")
    os.symlink("d", root / "d_link")
    return root


def _open_results(root, paths, flags=O_RDONLY):
    data = "".join(string(f"p{i}", p) for i, p in enumerate(paths))
    calls = []
    for i in range(len(paths)):
        calls += [(OPEN, [f"p{i}", flags, 0]), (CLOSE, [3])]
    sim, _, _ = run(program(calls, 0, data), root)
    r = replies(sim, len(calls))
    return [r[2 * i][:2] for i in range(len(paths))]


def test_sandbox_refuses_paths_leaving_the_root(sandbox):
    outside = str(sandbox.parent / "secret")
    got = _open_results(sandbox, ["../secret", "d/../../secret", outside, "out_link",
                                  "out_dir/secret", "/etc/passwd", "d/../../root/d/in.txt"])
    assert got == [(-1, errno.EACCES)] * 6 + [(3, 0)]     # the last comes back inside


def test_sandbox_allows_paths_inside_the_root(sandbox):
    got = _open_results(sandbox, ["d/in.txt", "./d/../d/in.txt", str(sandbox / "d" / "in.txt"),
                                  "in_link", "d_link/in.txt"])
    assert got == [(3, 0)] * 5


def test_sandbox_create_through_a_link_out_is_refused(sandbox):
    got = _open_results(sandbox, ["out_dir/new", "../new"], O_WRONLY | O_CREAT)
    assert got == [(-1, errno.EACCES)] * 2
    assert not (sandbox.parent / "new").exists()


def test_root_directory_as_the_root_allows_every_path(tmp_path):
    # --root /: every absolute path is inside it (it used to refuse them all)
    (tmp_path / "f.txt").write_text("x")
    got = _open_results("/", [str(tmp_path / "f.txt"), str(tmp_path / "sub" / ".." / "f.txt")])
    assert got == [(3, 0)] * 2


def test_paths_and_arguments_are_bytes(tmp_path):
    # A node's path is its bytes, as the host names files (not UTF-8
    # decoded); an argument that is not UTF-8 reaches the node byte for byte
    data = "p: .word 0x66, 0xFF, 0xFE, 0\n"
    calls = [(OPEN, ["p", O_WRONLY | O_CREAT, 0]), (CLOSE, [3]), (ARGV, [1, BUF, 20])]
    arg = os.fsdecode(b"a\xff\xfe")             # how sys.argv holds such an argument
    sim, res, _ = run(program(calls, 0, data), tmp_path, argv=["prog.out", arg])
    assert [r[:2] for r in replies(sim, 3)] == [(3, 0), (0, 0), (3, 0)]
    assert os.path.exists(os.path.join(os.fsencode(tmp_path), b"f\xff\xfe"))
    assert list(sim.read(BUF, 4)) == [0x61, 0xFF, 0xFE, 0]


def test_opening_a_fifo_does_not_hang(tmp_path):
    # nobody at the other end: a read-only open succeeds (reads give end of
    # file), a write-only one fails with ENXIO; the simulator never waits
    os.mkfifo(tmp_path / "fifo")
    calls = [(OPEN, ["p", O_RDONLY, 0]), (READ, [3, BUF, 4]), (CLOSE, [3]),
             (OPEN, ["p", O_WRONLY, 0])]
    sim, res, _ = run(program(calls, 0, string("p", "fifo")), tmp_path)
    assert [r[:2] for r in replies(sim, 4)] == [(3, 0), (0, 0), (0, 0), (-1, errno.ENXIO)]


def test_path_too_long(tmp_path):
    long = "a/" * 600          # 1200 characters
    sim, _, _ = run(program([(OPEN, ["p", O_RDONLY, 0])], 0, string("p", long)), tmp_path)
    assert replies(sim, 1)[0][:2] == (-1, errno.ENAMETOOLONG)


def test_too_many_open_files(tmp_path):
    (tmp_path / "f").write_text("x")
    calls = [(OPEN, ["p", O_RDONLY, 0])] * (MAX_OPEN_FILES + 1) + [(CLOSE, [10]),
                                                                   (OPEN, ["p", O_RDONLY, 0])]
    sim, _, _ = run(program(calls, 0, string("p", "f")), tmp_path)
    r = [x[:2] for x in replies(sim, len(calls))]
    assert MAX_OPEN_FILES == 32
    assert r[:32] == [(3 + k, 0) for k in range(32)]
    assert r[32] == (-1, errno.EMFILE)
    assert r[33:] == [(0, 0), (10, 0)]       # a closed descriptor is reused


@pytest.mark.parametrize("service", [0, 12, 99, 0xFFFFFFFF])
def test_unknown_service(tmp_path, service):
    sim, res, _ = run(program([(service, [])]), tmp_path)
    assert replies(sim, 1)[0][:2] == (-1, errno.ENOSYS)
    assert res.ok


@pytest.mark.parametrize("block", [0x300000, 0x800000, 0x808000, 0x3FFFC, 0x809FFC,
                                   DRAM_BASE + 0x3FFFFC, 0x1000000 + BLOCK])
def test_request_block_outside_memory_stops_the_node(tmp_path, block):
    # Blocks in unmapped memory, on the ring registers, running off the end
    # of SRAM, RAM1 or DRAM: the node stops with an error, the simulator
    # does not.  (Addresses are 24 bits: 0x1000000 + BLOCK is BLOCK, fine.)
    src = f"""
        .global start
start:  LDP  0x800000
        {load_ar0(block)}
        STI  AR0, @5
        SWI
"""
    if block & 0xFFFFFF == BLOCK:
        sim, res, _ = run(src, tmp_path, expect="break")
        assert sim.counters(0)["host_calls"] == 1          # service 0: ENOSYS
        return
    sim, res, _ = run(src, tmp_path, expect="error")
    (msg,) = res.messages
    assert msg.startswith("node 0: host call rejected at PC 0x0000")
    assert "STI AR0,@0x0005" in msg
    assert msg.endswith(f"request block at 0x{block & 0xFFFFFF:06X} is not in node memory")
    assert sim.core.status(0) == "error"
    assert sim.counters(0)["host_calls"] == 0


def test_request_block_may_sit_in_any_memory(tmp_path):
    for block in (RAM0_BASE + 8, DRAM_BASE + 0x1000):
        src = program([(ARGC, [])], 3).replace(f"LDI  {BLOCK}, AR0", load_ar0(block))
        sim, res, _ = run(src, tmp_path, argv=["a", "b"])
        assert res.exit_status == 3
        assert replies(sim, 1) == [(2, 0, 0)]


# ---------------------------------------------------------------------------
# cost


def test_host_call_cost_is_charged_and_counted(tmp_path):
    # Two calls (ARGC, EXIT) of 1600 cycles each, counted as host-call stalls.
    sim, res, _ = run(program([(ARGC, [])]), tmp_path)
    c = sim.counters(0)
    assert c["host_calls"] == 2
    assert c["stalls"]["host_call"] == 2 * HOSTCALL
    base = c["cycles"] - 2 * HOSTCALL
    # the same program with a different cost: only the host-call part changes
    sim, res, _ = run(program([(ARGC, [])]), tmp_path, config=MachineConfig(hostcall_cycles=10))
    c = sim.counters(0)
    assert c["stalls"]["host_call"] == 20 and c["cycles"] == base + 20
    assert c["cycles"] == c["instructions"] + sum(c["stalls"].values())


def test_host_call_cost_of_a_minimal_exit(tmp_path):
    # LDP 1, LDI AR0 1, LDI AR1 1, LDI 1,R0 1, STI R0,*AR0 2 + 1 (AR1
    # written 2 instructions earlier), LDI 0,R0 1, STI R0,*+AR0(3) 2,
    # STI AR0,@5 1  -> 11 cycles + 1600.
    sim, res, _ = run(program([], 0), tmp_path)
    c = sim.counters(0)
    assert c["instructions"] == 8
    assert c["cycles"] == 11 + HOSTCALL
    assert c["stalls"]["register_conflict"] == 1
    assert c["writes"]["RINGIO"] == 1
