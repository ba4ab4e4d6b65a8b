"""Writing result files: atomically, with a clear error when it fails."""
from __future__ import annotations

import os

from rapsim.asm.objfile import write_atomic
from rapsim.errors import RapError


def write_file(path: str | os.PathLike, data: bytes | str) -> None:
    """Write a whole file through a temporary file renamed over it; a failure
    is a RapError naming the file (never a half-written result)."""
    try:
        write_atomic(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as e:
        raise RapError(f"cannot write {os.fspath(path)}: {e.strerror}") from None
