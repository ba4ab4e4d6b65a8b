"""Writing result files: atomically, with a clear error when it fails."""
from __future__ import annotations

import errno
import os
import stat
import tempfile

from rapsim.errors import RapError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` through a temporary file of its own in the same folder,
    renamed over ``path``: neither a failure nor another process writing the
    same file at the same time can leave a truncated or mixed file."""
    folder, name = os.path.split(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _target(path: str) -> tuple[str, bool]:
    """Where to write ``path``, and whether through a temporary file renamed
    over it: a symbolic link is written through (the link stays), a device or
    pipe (``/dev/stdout``, ``/dev/null``, a FIFO) directly; a directory is an
    error."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise RapError(f"cannot write {path}: {e.strerror}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise RapError(f"cannot write {path}: Is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return path, False
    return (os.path.realpath(path) if os.path.islink(path) else path), True


def check_writable(path: str | os.PathLike) -> None:
    """Fail now, with a RapError naming the file, if a result file could not
    be written later (before a long run rather than after it)."""
    target, atomic = _target(os.fspath(path))
    if not atomic:
        return
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise RapError(f"cannot write {os.fspath(path)}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise RapError(f"cannot write {os.fspath(path)}: the folder {folder} is not writable")


def write_file(path: str | os.PathLike, data: bytes | str) -> None:
    """Write a whole file through a temporary file renamed over it; a failure
    is a RapError naming the file (never a half-written result)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target, atomic = _target(os.fspath(path))
    try:
        if atomic:
            write_atomic(target, raw)
        else:
            with open(target, "wb") as fh:
                fh.write(raw)
    except OSError as e:
        raise RapError(f"cannot write {os.fspath(path)}: {e.strerror}") from None


#: Input files (sources, objects, images, archives, network descriptions)
#: larger than this are refused before they are read.
MAX_INPUT_BYTES = 1 << 30


def open_regular(path: str | os.PathLike, limit: int = MAX_INPUT_BYTES):
    """An input file opened for reading (binary), if it is a regular file of
    at most ``limit`` bytes.  The file is opened without blocking and checked
    on the open descriptor: a FIFO cannot hang the open, a device such as
    /dev/zero is not read for ever, and a file swapped after a check cannot
    slip through.  Raises OSError (IsADirectoryError for a folder; EINVAL for
    a device, FIFO or socket; EFBIG for a file over the limit)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a device, a FIFO or a socket)",
                          os.fspath(path))
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"file too large ({st.st_size} bytes; at most {limit})",
                          os.fspath(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_input(path: str | os.PathLike, what: str, limit: int = MAX_INPUT_BYTES):
    """:func:`open_regular` with its failures as a RapError naming the file
    (and saying it is not ``what`` when it is a folder)."""
    try:
        return open_regular(path, limit)
    except FileNotFoundError:
        raise RapError(f"{os.fspath(path)}: no such file") from None
    except IsADirectoryError:
        raise RapError(f"{os.fspath(path)}: is a folder, not {what}") from None
    except OSError as e:
        raise RapError(f"{os.fspath(path)}: cannot read: {e.strerror}") from None


def read_regular(path: str | os.PathLike, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of an input file (see :func:`open_regular`)."""
    with open_regular(path, limit) as fh:
        return fh.read(limit + 1)[:limit + 1]


def read_text(path: str | os.PathLike, what: str) -> str:
    """A whole UTF-8 text file (a byte-order mark is fine), read as
    :func:`read_regular` does; a failure is a RapError naming the file and
    saying it is not ``what`` (e.g. "a network description") when it is a
    folder or not UTF-8 text."""
    path = os.fspath(path)
    with open_input(path, what) as fh:
        data = fh.read(MAX_INPUT_BYTES + 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise RapError(f"{path}: not {what} (byte {e.start} is not UTF-8 text)") from None
