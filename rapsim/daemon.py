"""The host daemon: the UNIX side that serves the nodes' system calls.

On the RAP a daemon on the host workstation had all RAP memory mapped and
answered the nodes' system-call interrupts (RAP-REFERENCE.md section 1).
Here a node writes the address of a *request block* to HOST_CALL (0x800005);
the simulator stops that node, :meth:`HostDaemon.serve` carries out the
request and writes the reply into the block, and the node goes on after the
configured host-call time.  The ABI (docs/syscalls.md):

======  ===========  ==========================================  ===========================
word    name         written by the node                         written by the daemon
======  ===========  ==========================================  ===========================
+0      service      service number (below)
+1      result                                                   result, or -1 on error
+2      errno                                                    0, or an error number
+3..+7  arg0..arg4   arguments
======  ===========  ==========================================  ===========================

Services: 1 EXIT(status); 2 WRITE(fd, buf, count) and 3 READ(fd, buf, count)
move text one character per word (the low 8 bits); 4 OPEN(path, flags,
mode) with a NUL-terminated path of one character per word; 5 CLOSE(fd);
6 LSEEK(fd, offset, whence); 7 CLOCK() -> low 32 bits of the node's cycle
count (arg0 receives the high 32 bits); 8 ARGC(); 9 ARGV(index, buf, max);
10 READ_WORDS(fd, addr, count) and 11 WRITE_WORDS(fd, addr, count) copy raw
32-bit words (little-endian in the file) between a host file and node memory.

The daemon is a sandbox (docs/syscalls.md, "Threat model"): paths are
opened beneath a descriptor of the root directory component by component
(:mod:`rapsim.sandbox`), so ``..`` escapes, absolute paths outside the root
and symbolic links leading out of it are refused even while another process
changes the tree; files with other hard links, too many open files, offsets
past 2**31-1 and oversized transfers are refused with an error number, never
with a crash; FIFOs and devices are used without blocking, so a node can
never make the host wait.
"""
from __future__ import annotations

import errno
import os
import stat
import weakref
from dataclasses import dataclass, field
from typing import BinaryIO, Callable

import numpy as np

from rapsim.sandbox import Root

SERVICES = {1: "EXIT", 2: "WRITE", 3: "READ", 4: "OPEN", 5: "CLOSE", 6: "LSEEK", 7: "CLOCK",
            8: "ARGC", 9: "ARGV", 10: "READ_WORDS", 11: "WRITE_WORDS"}
SERVICE_NUMBERS = {v: k for k, v in SERVICES.items()}
BLOCK_WORDS = 8

# open() flags as the nodes pass them (Linux values; docs/syscalls.md)
O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_ACCMODE = 3
O_CREAT, O_EXCL, O_TRUNC, O_APPEND = 0x40, 0x80, 0x200, 0x400
_KNOWN_FLAGS = O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND

MAX_OPEN_FILES = 32            # per node, beyond stdin/stdout/stderr
MAX_OPEN_TOTAL = 256           # all nodes together (64 nodes x 32 would exhaust the host's)
MAX_OFFSET = (1 << 31) - 1     # LSEEK's result is one signed 32-bit word
MAX_TRANSFER_WORDS = 1 << 22   # 4 M words (the size of a node's DRAM) per call
MAX_PATH = 1024


class DaemonError(Exception):
    """A request the daemon refuses: carries the errno for the node."""

    def __init__(self, err: int, why: str = ""):
        super().__init__(why or os.strerror(err))
        self.errno = err


class BadRequest(Exception):
    """A request block the daemon cannot even read: the node is stopped."""


@dataclass
class NodeFiles:
    # the node's descriptors (3, 4, ...) -> host descriptors, used with
    # os.read/os.write/os.lseek so that O_APPEND, offsets and short reads
    # behave as UNIX read(2)/write(2)/lseek(2) do
    files: dict[int, int] = field(default_factory=dict)


def _write_all(hfd: int, data: bytes) -> int:
    view = memoryview(data)
    done = 0
    while done < len(view):
        done += os.write(hfd, view[done:])
    return done


def _read_full(hfd: int, size: int) -> bytes:
    """Up to size bytes: fewer only at end of file."""
    parts = []
    while size > 0:
        chunk = os.read(hfd, size)
        if not chunk:
            break
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


class HostDaemon:
    """Serves host calls for every node of a simulated machine.

    ``write_output(node, fd, data)`` receives what nodes write to stdout (1)
    and stderr (2); ``stdin`` (bytes) is what node 0 reads from fd 0 (other
    nodes read end-of-file).
    """

    def __init__(self, root: str | os.PathLike = ".", argv: list[str] | tuple = (),
                 write_output: Callable[[int, int, bytes], None] | None = None,
                 stdin: BinaryIO | None = None):
        self.root = os.path.realpath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise FileNotFoundError(f"daemon root {root!r} is not a directory")
        try:
            self._root = Root(self.root)
        except OSError as e:
            raise FileNotFoundError(f"daemon root {root!r} cannot be opened: {e.strerror}") from None
        weakref.finalize(self, self._root.close)
        # arguments as the bytes the nodes get (a str is encoded as the OS
        # encodes file names, so an argument that is not UTF-8 comes through
        # byte for byte)
        self.argv = [bytes(a) if isinstance(a, (bytes, bytearray))
                     else os.fsencode(a if isinstance(a, os.PathLike) else str(a)) for a in argv]
        self.write_output = write_output or (lambda node, fd, data: None)
        self.stdin = stdin
        self._stdin_rest = b""          # a partial word of stdin read by READ_WORDS
        self.nodes: dict[int, NodeFiles] = {}
        self.calls = 0
        #: services added by a host program (:meth:`add_service`)
        self.extra_services: dict[int, Callable] = {}
        #: what a host program is told of its calls served from staged replies
        self._on_served: dict[int, Callable] = {}

    def add_service(self, number: int, handler: Callable,
                    on_served: Callable | None = None) -> None:
        """Serve ``number`` with ``handler(sim, node, args, extra) -> result``
        (``args``: arg0..arg4; ``extra``: {word offset: value} to write into
        the block besides the result; raise :class:`DaemonError` to fail the
        call with an error number).  The training host (``rap train``) serves
        TRAIN (12) this way; docs/syscalls.md.  ``on_served(sim, node, args,
        counters, link_words)``: told of each call of this service the core
        served from a reply staged with :meth:`stage`."""
        if number in SERVICES:
            raise ValueError(f"service {number} is the daemon's own ({SERVICES[number]})")
        self.extra_services[number] = handler
        if on_served is not None:
            self._on_served[number] = on_served
        else:
            self._on_served.pop(number, None)

    def stage(self, sim, node: int, service: int, args: tuple[int, int], result: int,
              writes: list) -> None:
        """Answer ``node``'s next call of ``service`` with arg0, arg1 =
        ``args`` in the core, without stopping the machine: ``writes``
        ([(address, uint32 words)]) into node memory, then ``result`` (errno
        0), as this daemon would (rapsim/core/hostcall.pxi).  For a host
        program whose answer to that call is already decided (the training
        host's TRAIN calls); the service must have been added with
        ``on_served`` (:meth:`add_service`), which is told of every call so
        served.  If the core cannot serve it so, the call comes to
        :meth:`serve` as any other."""
        if service not in self._on_served:
            raise ValueError(f"service {service} was not added with on_served: "
                             "its staged calls would go unnoticed")
        sim.core.stage_hostcall(node, service, args[0] & 0xFFFFFFFF, args[1] & 0xFFFFFFFF,
                                result & 0xFFFFFFFF, writes)

    def stages(self, service: int) -> bool:
        """Whether ``service`` may be answered by staged replies (it was
        added with ``on_served``)."""
        return service in self._on_served

    def served(self, sim, node: int, service: int, args: list[int], counters: dict,
               link_words: int) -> None:
        """A call the core served from a staged reply (:meth:`stage`):
        counted, and told to the host program with the node's counters and
        its output link's words at the call."""
        self.calls += 1
        self._on_served[service](sim, node, args, counters, link_words)

    # -- the request block ------------------------------------------------------
    def serve(self, sim, node: int) -> tuple[bool, int]:
        """Carry out the request of ``node``; returns (exited, exit status).
        Raises BadRequest if the request block itself is unreadable."""
        core = sim.core
        addr = core.hostcall_addr(node)
        if not core.mapped(node, addr, BLOCK_WORDS):
            raise BadRequest(f"request block at 0x{addr:06X} is not in node memory")
        block = core.read(node, addr, BLOCK_WORDS)
        service = int(block[0])
        args = block[3:8].tolist()             # (Python ints)
        self.calls += 1
        if service == 1:                       # EXIT
            return True, _s32(args[0])
        extra: dict[int, int] = {}
        try:
            result = self._dispatch(sim, node, service, args, extra)
            err = 0
        except DaemonError as e:
            result, err = -1, e.errno
        except OSError as e:
            result, err = -1, e.errno or errno.EIO
        reply = np.array([result & 0xFFFFFFFF, err], dtype=np.uint32)
        core.write(node, addr + 1, reply)
        for k, v in extra.items():
            core.write(node, addr + k, np.array([v & 0xFFFFFFFF], dtype=np.uint32))
        return False, 0

    def _dispatch(self, sim, node, service, args, extra) -> int:
        core = sim.core
        files = self.nodes.setdefault(node, NodeFiles()).files
        if service == 2:                       # WRITE
            fd, buf, count = args[0], args[1], _s32(args[2])
            data = self._read_mem(core, node, buf, count)
            text = bytes((data & 0xFF).astype(np.uint8))
            if fd in (1, 2) and fd not in files:
                self.write_output(node, fd, text)
                return len(text)
            return _write_all(self._file(files, fd), text)
        if service == 3:                       # READ
            fd, buf, count = args[0], args[1], _s32(args[2])
            self._check_span(core, node, buf, count)
            if fd == 0 and fd not in files:
                data = self._read_stdin(count) if node == 0 else b""
            else:
                data = os.read(self._file(files, fd), count) if count else b""
            if data:
                core.write(node, buf, np.frombuffer(data, dtype=np.uint8).astype(np.uint32))
            return len(data)
        if service == 4:                       # OPEN
            path = self._read_string(core, node, args[0])
            return self._open(files, path, args[1], args[2])
        if service == 5:                       # CLOSE
            hfd = self._file(files, args[0])
            del files[args[0]]
            os.close(hfd)
            return 0
        if service == 6:                       # LSEEK
            hfd = self._file(files, args[0])
            whence = args[2]
            if whence not in (0, 1, 2):
                raise DaemonError(errno.EINVAL, "bad whence")
            if not stat.S_ISREG(os.fstat(hfd).st_mode):
                raise DaemonError(errno.ESPIPE, "not a seekable file")
            base = (0, os.lseek(hfd, 0, os.SEEK_CUR), os.fstat(hfd).st_size)[whence]
            pos = base + _s32(args[1])
            if pos < 0:
                raise DaemonError(errno.EINVAL, "negative offset")
            if pos > MAX_OFFSET:          # the result would not fit the reply word
                raise DaemonError(errno.EOVERFLOW, f"offset {pos} exceeds {MAX_OFFSET}")
            return os.lseek(hfd, pos, os.SEEK_SET)
        if service == 7:                       # CLOCK
            c = core.cycle(node)
            extra[3] = c >> 32
            return c & 0xFFFFFFFF
        if service == 8:                       # ARGC
            return len(self.argv)
        if service == 9:                       # ARGV
            index, buf, maxw = args[0], args[1], _s32(args[2])
            if not 0 <= index < len(self.argv):
                raise DaemonError(errno.EINVAL, "no such argument")
            s = self.argv[index]
            if len(s) + 1 > maxw:
                raise DaemonError(errno.ERANGE, "buffer too small")
            self._check_span(core, node, buf, len(s) + 1)
            core.write(node, buf, np.frombuffer(s + b"\0", dtype=np.uint8).astype(np.uint32))
            return len(s)
        if service == 10:                      # READ_WORDS
            fd, addr, count = args[0], args[1], _s32(args[2])
            self._check_span(core, node, addr, count)
            if fd == 0 and fd not in files:
                data = self._read_stdin_words(count) if node == 0 else b""
                n = len(data) // 4
                if n:
                    core.write(node, addr, np.frombuffer(data, dtype="<u4").astype(np.uint32))
                return n
            hfd = self._file(files, fd)
            data = _read_full(hfd, 4 * count)
            n = len(data) // 4
            if len(data) % 4:               # leave a partial word for the next read
                try:
                    os.lseek(hfd, -(len(data) % 4), os.SEEK_CUR)
                except OSError:
                    pass
            if n:
                core.write(node, addr, np.frombuffer(data[:4 * n], dtype="<u4").astype(np.uint32))
            return n
        if service == 11:                      # WRITE_WORDS
            fd, addr, count = args[0], args[1], _s32(args[2])
            data = self._read_mem(core, node, addr, count)
            _write_all(self._file(files, fd), data.astype("<u4").tobytes())
            return count
        handler = self.extra_services.get(service)
        if handler is not None:
            return handler(sim, node, args, extra)
        raise DaemonError(errno.ENOSYS, f"unknown service {service}")

    # -- helpers ------------------------------------------------------------------
    def _check_span(self, core, node: int, addr: int, count: int) -> None:
        if count < 0:
            raise DaemonError(errno.EINVAL, "negative count")
        if count > MAX_TRANSFER_WORDS:
            raise DaemonError(errno.EFBIG, f"transfer of {count} words exceeds {MAX_TRANSFER_WORDS}")
        if count and not core.mapped(node, addr, count):
            raise DaemonError(errno.EFAULT, "buffer outside node memory")

    def _read_mem(self, core, node: int, addr: int, count: int) -> np.ndarray:
        self._check_span(core, node, addr, count)
        return core.read(node, addr, count) if count else np.zeros(0, dtype=np.uint32)

    def _read_string(self, core, node: int, addr: int) -> bytes:
        out = bytearray()
        while len(out) <= MAX_PATH:
            n = min(64, MAX_PATH + 1 - len(out))
            while n and not core.mapped(node, addr, n):
                n -= 1
            if n == 0:
                raise DaemonError(errno.EFAULT, "string outside node memory")
            chunk = core.read(node, addr, n)
            for w in chunk:
                if w & 0xFF == 0:
                    return bytes(out)       # the bytes, as the OS names files: never decoded
                out.append(int(w) & 0xFF)
            addr += n
        raise DaemonError(errno.ENAMETOOLONG)

    def _file(self, files: dict, fd: int) -> int:
        hfd = files.get(fd)
        if hfd is None:
            raise DaemonError(errno.EBADF, f"bad file descriptor {fd}")
        return hfd

    def _read_stdin(self, count: int) -> bytes:
        """Up to count bytes of standard input, as read(2) gives them: what
        is there (at least one byte unless at end of file), without waiting
        for the whole count."""
        if self.stdin is None or count == 0:
            return b""
        read1 = getattr(self.stdin, "read1", None)
        return read1(count) if read1 is not None else self.stdin.read(count)

    def _read_stdin_words(self, count: int) -> bytes:
        """Up to ``count`` whole words of standard input (4 bytes each,
        little-endian), waiting for all of them: fewer only at the end of
        the input.  A partial word is kept for the next read."""
        rest = self._stdin_rest
        if self.stdin is None or count <= 0:
            return b""
        parts, size = [rest], 4 * count - len(rest)
        while size > 0:
            chunk = self.stdin.read(size)
            if not chunk:
                break
            parts.append(chunk)
            size -= len(chunk)
        data = b"".join(parts)
        whole = len(data) // 4 * 4
        self._stdin_rest = data[whole:]
        return data[:whole]

    def _open(self, files: dict, path: bytes, flags: int, mode: int) -> int:
        if flags & ~_KNOWN_FLAGS or flags & O_ACCMODE == 3:
            raise DaemonError(errno.EINVAL, f"unsupported open flags 0x{flags:X}")
        if not path:
            raise DaemonError(errno.ENOENT, "empty path")
        if len(path) > MAX_PATH:
            raise DaemonError(errno.ENAMETOOLONG)
        if len(files) >= MAX_OPEN_FILES:
            raise DaemonError(errno.EMFILE)
        if sum(len(nf.files) for nf in self.nodes.values()) >= MAX_OPEN_TOTAL:
            raise DaemonError(errno.ENFILE, "too many files open on the machine")
        access = flags & O_ACCMODE
        osflags = {O_RDONLY: os.O_RDONLY, O_WRONLY: os.O_WRONLY, O_RDWR: os.O_RDWR}[access]
        if flags & O_CREAT:
            osflags |= os.O_CREAT
        if flags & O_EXCL:
            osflags |= os.O_EXCL
        if flags & O_APPEND:
            osflags |= os.O_APPEND
        # O_NONBLOCK: opening a FIFO must not wait for its other end (it would
        # hang the whole simulator); O_TRUNC only after the checks below
        hfd = self._root.open(path, osflags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                              (mode & 0o777) or 0o644)
        try:
            st = os.fstat(hfd)
            if stat.S_ISDIR(st.st_mode):
                raise DaemonError(errno.EISDIR)
            if stat.S_ISREG(st.st_mode):
                if st.st_nlink > 1:
                    # another name of the same file may lie outside the root
                    raise DaemonError(errno.EACCES, "a file with several hard links")
                os.set_blocking(hfd, True)
                if flags & O_TRUNC and access != O_RDONLY:
                    os.ftruncate(hfd, 0)
            # FIFOs and devices stay non-blocking: a read or write that would
            # wait gives the node EAGAIN instead of stopping the host
        except BaseException:
            os.close(hfd)
            raise
        fd = 3
        while fd in files:
            fd += 1
        files[fd] = hfd
        return fd

    def close_all(self) -> None:
        for nf in self.nodes.values():
            for hfd in nf.files.values():
                try:
                    os.close(hfd)
                except OSError:
                    pass
            nf.files.clear()
