"""Where the nodes' stdout and stderr go.

One node: straight through to this process's stdout / stderr.  Several
nodes: each line is prefixed with ``[n] `` (node n), lines kept whole; or,
with an output directory, each node writes ``node<n>.out`` and ``node<n>.err``.
"""
from __future__ import annotations

import errno
import os
import sys

from rapsim.errors import RapError


class NodeOutput:
    def __init__(self, nodes: int, directory: str | None = None):
        self.nodes = nodes
        self.directory = directory
        self.partial: dict[tuple[int, int], bytes] = {}
        self.files: dict[tuple[int, int], object] = {}
        if directory is not None:
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as e:
                raise RapError(f"cannot create output directory {directory}: {e.strerror}") from None

    def _stream(self, fd: int):
        stream = sys.stdout if fd == 1 else sys.stderr
        if stream is None:          # rap run was started with that descriptor closed
            raise OSError(errno.EBADF, "standard output or error is closed")
        return stream.buffer

    def write(self, node: int, fd: int, data: bytes) -> None:
        if self.directory is not None:
            key = (node, fd)
            f = self.files.get(key)
            if f is None:
                path = os.path.join(self.directory, f"node{node}.{'out' if fd == 1 else 'err'}")
                try:
                    f = open(path, "wb")
                except OSError as e:
                    raise RapError(f"cannot write {path}: {e.strerror}") from None
                self.files[key] = f
            f.write(data)
            return
        stream = self._stream(fd)
        if self.nodes == 1:
            stream.write(data)
            stream.flush()
            return
        buf = self.partial.get((node, fd), b"") + data
        *lines, rest = buf.split(b"\n")
        for line in lines:
            stream.write(b"[%d] %s\n" % (node, line))
        stream.flush()
        self.partial[(node, fd)] = rest

    def close(self) -> None:
        for (node, fd), rest in self.partial.items():
            if rest and (sys.stdout if fd == 1 else sys.stderr) is not None:
                self._stream(fd).write(b"[%d] %s\n" % (node, rest))
        self.partial.clear()
        for f in self.files.values():
            f.close()
        self.files.clear()
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
