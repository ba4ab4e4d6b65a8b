"""Issue 18: the daemon against a hostile node and a hostile host process
(docs/syscalls.md, "Threat model"): paths are opened beneath a descriptor
of the root component by component, so swapping a directory for a
symbolic link during the open cannot lead outside; names are bytes (never
decoded); hard links, FIFOs, devices, huge offsets and thousands of opens
are refused with an error number, never a block or a read outside."""
from __future__ import annotations

import errno
import os
import threading
import time

import pytest

from hostprog import (BUF, CLOSE, LSEEK, O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY, OPEN, READ,
                      WRITE, program, replies, string)
from rapsim.config import MachineConfig
from rapsim.daemon import MAX_OPEN_TOTAL
from rapsim.sandbox import Root, SandboxError
from test_daemon import run


def test_swapping_a_directory_for_a_link_out_never_escapes(tmp_path):
    """A host thread swaps root/d between a real directory and a symbolic
    link to a folder outside while the daemon opens d/f thousands of times:
    it gets the inside file or an error, never the outside one (the old
    realpath-then-open check read outside in this race)."""
    root, out = tmp_path / "root", tmp_path / "out"
    root.mkdir()
    out.mkdir()
    (out / "f").write_text("OUTSIDE")
    d, parked, link = root / "d", root / "parked", root / "link"
    d.mkdir()
    (d / "f").write_text("inside")
    os.symlink(str(out), link)
    stop = threading.Event()

    def swapper():      # d: the real directory, then a link to the outside folder, and back
        while not stop.is_set():
            try:
                os.rename(d, parked)
                os.rename(link, d)
                time.sleep(0)
                os.rename(d, link)
                os.rename(parked, d)
                time.sleep(0)
            except OSError:
                pass
    t = threading.Thread(target=swapper)
    t.start()
    sandbox = Root(str(root))
    seen = {"inside": 0, "refused": 0}
    try:
        for i in range(3000):
            if i % 16 == 0:
                time.sleep(0)
            try:
                fd = sandbox.open(b"d/f", os.O_RDONLY, 0)
            except OSError as e:
                assert e.errno in (errno.EACCES, errno.ENOENT, errno.ENOTDIR, errno.ELOOP), e
                seen["refused"] += 1
                continue
            data = os.read(fd, 100)
            os.close(fd)
            assert data == b"inside"
            seen["inside"] += 1
    finally:
        stop.set()
        t.join()
        sandbox.close()
    assert seen["inside"] and seen["refused"]


def test_intermediate_and_final_links_are_checked_where_they_point(tmp_path):
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f").write_text("x")
    (tmp_path / "secret").write_text("s")
    os.symlink("../a/b", root / "a" / "up")            # inside, relative
    os.symlink(str(root / "a"), root / "abs")          # inside, absolute
    os.symlink("../../secret", root / "a" / "esc")    # outside
    os.symlink("loop", root / "loop")
    sandbox = Root(str(root))
    try:
        for p in (b"a/up/f", b"abs/b/f", b"/" + os.fsencode(root) .lstrip(b"/") + b"/a/b/f",
                  b"a/b/../b/f", b"a/nodir/../b/f"):
            os.close(sandbox.open(p, os.O_RDONLY, 0))
        for p in (b"a/esc", b"../secret", b"a/../../secret", b"/etc/passwd"):
            with pytest.raises(SandboxError) as e:
                sandbox.open(p, os.O_RDONLY, 0)
            assert e.value.errno == errno.EACCES
        with pytest.raises(OSError) as e:
            sandbox.open(b"loop", os.O_RDONLY, 0)
        assert e.value.errno == errno.ELOOP
        with pytest.raises(SandboxError):
            sandbox.open(b"a/esc", os.O_WRONLY | os.O_CREAT, 0o644)
    finally:
        sandbox.close()
    assert (tmp_path / "secret").read_text() == "s"


def test_names_are_bytes_never_decoded(tmp_path):
    """0xFF, 0xFE and EF BF BD (U+FFFD) are three different names: no
    decoding with replacement folds them onto one host file."""
    data = ("p1: .word 0x66, 0xFF, 0\np2: .word 0x66, 0xFE, 0\n"
            "p3: .word 0x66, 0xEF, 0xBF, 0xBD, 0\nm: .word 0x41, 0x42, 0x43\n")
    calls = []
    for i in (1, 2, 3):
        calls += [(OPEN, [f"p{i}", O_WRONLY | O_CREAT, 0]), (WRITE, [3, "m", i]), (CLOSE, [3])]
    run(program(calls, 0, data), tmp_path)
    got = {os.fsencode(n): (tmp_path / n).read_text() for n in os.listdir(tmp_path)}
    assert got == {b"f\xff": "A", b"f\xfe": "AB", b"f\xef\xbf\xbd": "ABC"}


def test_hard_links_are_refused_and_never_truncated(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret").write_text("keep me")
    os.link(tmp_path / "secret", root / "h")
    calls = [(OPEN, ["p", O_RDONLY, 0]), (OPEN, ["p", O_WRONLY | O_TRUNC, 0])]
    sim, _, _ = run(program(calls, 0, string("p", "h")), root)
    assert [r[:2] for r in replies(sim, 2)] == [(-1, errno.EACCES)] * 2
    assert (tmp_path / "secret").read_text() == "keep me"


def test_a_fifo_with_a_silent_writer_does_not_block_the_host(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    wfd = [None]

    def writer():       # opens the FIFO for writing and never writes
        wfd[0] = os.open(tmp_path / "fifo", os.O_WRONLY)
    t = threading.Thread(target=writer)
    t.start()
    rfd = os.open(tmp_path / "fifo", os.O_RDONLY | os.O_NONBLOCK)   # lets the writer's open finish
    t.join()
    try:
        calls = [(OPEN, ["p", O_RDONLY, 0]), (READ, [3, BUF, 4]), (LSEEK, [3, 0, 0])]
        sim, _, _ = run(program(calls, 0, string("p", "fifo")), tmp_path)
        assert [r[:2] for r in replies(sim, 3)] == [(3, 0), (-1, errno.EAGAIN), (-1, errno.ESPIPE)]
    finally:
        os.close(wfd[0])
        os.close(rfd)


@pytest.mark.parametrize("offset, whence, expect", [
    (0x7FFFFFFF, 0, (0x7FFFFFFF, 0)),
    (0x7FFFFFFF, 1, (-1, errno.EOVERFLOW)),        # 1 + 2**31 - 1: past the reply word
    (-2, 1, (-1, errno.EINVAL)),
    (-1, 2, (0, 0)),
])
def test_lseek_offsets_never_wrap(tmp_path, offset, whence, expect):
    (tmp_path / "f").write_text("x")
    calls = [(OPEN, ["p", O_RDONLY, 0]), (READ, [3, BUF, 1]), (LSEEK, [3, offset, whence])]
    sim, _, _ = run(program(calls, 0, string("p", "f")), tmp_path)
    assert replies(sim, 3)[2][:2] == expect


def test_thousands_of_opens_are_capped_machine_wide(tmp_path):
    (tmp_path / "f").write_text("x")
    nodes = 9                       # 9 x 32 descriptors would pass MAX_OPEN_TOTAL = 256
    sim, _, _ = run(program([(OPEN, ["p", O_RDONLY, 0])] * 32, 0, string("p", "f")), tmp_path,
                    config=MachineConfig(nodes=nodes))
    results = [r[:2] for n in range(nodes) for r in replies(sim, 32, n)]
    assert sum(1 for r in results if r[0] >= 3) == MAX_OPEN_TOTAL
    assert {r for r in results if r[0] < 0} == {(-1, errno.ENFILE)}
