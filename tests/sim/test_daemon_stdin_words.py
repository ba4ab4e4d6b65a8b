"""READ_WORDS from standard input (fd 0): node 0 gets whole words, waiting
for all it asks for; the other nodes read end of file (docs/syscalls.md)."""
from __future__ import annotations

import io
import struct

from hostprog import BUF, READ_WORDS, program, replies

from test_daemon import run


class _Trickle(io.RawIOBase):
    """A pipe that gives 3 bytes at a time."""

    def __init__(self, data: bytes):
        self.data = data

    def readable(self) -> bool:
        return True

    def read(self, size=-1) -> bytes:
        chunk, self.data = self.data[:min(3, size)], self.data[min(3, size):]
        return chunk


def test_node_0_reads_whole_words_from_stdin(tmp_path):
    words = [1, 0xDEADBEEF, 7, 0x80000000, 5]
    data = struct.pack("<5I", *words) + b"\x09\x08"          # and half a word at the end
    calls = [(READ_WORDS, [0, BUF, 2]), (READ_WORDS, [0, BUF + 2, 10]),
             (READ_WORDS, [0, BUF + 8, 4])]
    sim, _, _ = run(program(calls), tmp_path, nodes=2, stdin=_Trickle(data))
    # a trickling pipe still gives the whole count; the end gives what is left
    assert [x[:2] for x in replies(sim, 3, 0)] == [(2, 0), (3, 0), (0, 0)]
    assert list(sim.read(BUF, 5, 0)) == words
    assert [x[:2] for x in replies(sim, 3, 1)] == [(0, 0), (0, 0), (0, 0)]


def test_no_stdin_is_end_of_file(tmp_path):
    sim, _, _ = run(program([(READ_WORDS, [0, BUF, 4])]), tmp_path)
    assert replies(sim, 1)[0][:2] == (0, 0)
