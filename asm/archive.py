"""Archives (libraries) of RAP objects in the standard Unix ``ar`` format.

Layout (the common System V / GNU format, readable by ``ar t``)::

    "!<arch>\\n"                              global header, 8 bytes
    then for each member:
      name[16] mtime[12] uid[6] gid[6] mode[8] size[10] "`\\n"   60-byte header
      data[size], then "\\n" if size is odd (members start at even offsets)

Header fields are ASCII, left-aligned, space-padded; ``mode`` is octal, the
others decimal.  A name of up to 15 characters is stored as ``name/``; a
longer one as ``/N``, N being the offset of ``name/\\n`` in the GNU long-name
member ``//`` that precedes all others.  Archives written here are
deterministic: mtime, uid and gid are 0 and mode is 644.

Readers skip a GNU symbol index (``/``, ``/SYM64/``) and a BSD one
(``__.SYMDEF``), understand BSD long names (``#1/N``: the name is the first
N bytes of the data), and raise :class:`~rapsim.asm.objfile.ObjectFormatError`
naming the archive for anything malformed.  The linker scans member objects
itself, so no symbol index is written.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .objfile import ObjectFile, ObjectFormatError, parse_object, read_bytes, write_atomic

MAGIC = b"!<arch>\n"
_HDR = 60
_SKIP = ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED")
_DECIMAL = re.compile(rb"[0-9]+")           # ASCII digits only (int() takes any Unicode digit)


def _decimal(field: bytes) -> int | None:
    f = field.strip(b" ")
    return int(f) if _DECIMAL.fullmatch(f) else None


def check_member_name(name: str) -> str | None:
    """Why ``name`` cannot be an archive member's name (a file name of its
    own: not empty, no '/', NUL or control character, not '.' or '..',
    encodable as UTF-8), or None."""
    if name in ("", ".", ".."):
        return f"member name {name!r} is not a file name"
    if any(c == "/" or ord(c) < 32 or ord(c) == 127 for c in name):
        return f"member name {name!r} contains '/' or a control character"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return f"member name {name!r} is not valid UTF-8"
    return None


@dataclass
class Member:
    name: str
    data: bytes


def parse_archive(data: bytes, name: str = "<archive>") -> list[Member]:
    """The members of an archive, in order."""
    if not data.startswith(MAGIC):
        raise ObjectFormatError(f"{name}: not an archive (bad magic number)")
    pos, longnames, out = len(MAGIC), b"", []
    while pos < len(data):
        if data[pos:pos + 1] == b"\n":          # padding some writers leave at the end
            pos += 1
            continue
        at, hdr = pos, data[pos:pos + _HDR]
        if len(hdr) < _HDR or hdr[58:60] != b"`\n":
            raise ObjectFormatError(f"{name}: corrupt member header at byte {pos}")
        size = _decimal(hdr[48:58])
        if size is None:
            raise ObjectFormatError(f"{name}: corrupt member size at byte {pos}")
        start, end = pos + _HDR, pos + _HDR + size
        if size < 0 or end > len(data):
            raise ObjectFormatError(f"{name}: member at byte {pos} runs past the end of the file")
        raw, body = hdr[:16].decode("latin-1").rstrip(), data[start:end]
        pos = end + (size & 1)
        if raw == "//":
            longnames = body
            continue
        if raw in _SKIP:
            continue
        if raw.startswith("#1/"):
            n = _decimal(raw[3:].encode("latin-1"))
            if n is None or not 0 <= n <= len(body):
                raise ObjectFormatError(f"{name}: corrupt BSD long name {raw!r}")
            raw, body = body[:n].decode("utf-8", "replace").rstrip("\0"), body[n:]
        elif raw.startswith("/") and _decimal(raw[1:].encode("latin-1")) is not None:
            off = _decimal(raw[1:].encode("latin-1"))
            stop = longnames.find(b"/\n", off)
            if off >= len(longnames) or stop < 0:
                raise ObjectFormatError(f"{name}: long member name {raw!r} not in the name table")
            raw = longnames[off:stop].decode("utf-8", "replace")
        elif raw.endswith("/"):
            raw = raw[:-1]
        why = check_member_name(raw)
        if why:
            raise ObjectFormatError(f"{name}: corrupt member header at byte {at}: {why}")
        out.append(Member(raw, bytes(body)))
    return out


def _field(value, width: int) -> bytes:
    b = str(value).encode("ascii")
    assert len(b) <= width, (value, width)
    return b.ljust(width)


def _header(name: bytes, size: int) -> bytes:
    return (name.ljust(16) + _field(0, 12) + _field(0, 6) + _field(0, 6) + _field(644, 8)
            + _field(size, 10) + b"`\n")


def archive_bytes(members: list[Member]) -> bytes:
    """An archive holding ``members`` (names must be unique, without '/')."""
    table = b""
    names = []
    for m in members:
        raw = m.name.encode("utf-8")
        if len(raw) <= 15:
            names.append(raw + b"/")
        else:
            names.append(b"/%d" % len(table))
            table += raw + b"/\n"
    parts = [MAGIC]

    def add(name: bytes, body: bytes) -> None:
        parts.append(_header(name, len(body)))
        parts.append(body + (b"\n" if len(body) & 1 else b""))

    if table:
        add(b"//", table)
    for n, m in zip(names, members):
        add(n, m.data)
    return b"".join(parts)


def read_archive(path: str | os.PathLike) -> list[Member]:
    return parse_archive(read_bytes(path), str(path))


def write_archive(path: str | os.PathLike, members: list[Member]) -> None:
    write_atomic(path, archive_bytes(members))


def member_objects(path: str | os.PathLike, data: bytes | None = None) -> list[tuple[str, ObjectFile]]:
    """Every member of an archive parsed as a RAP object, named
    ``archive(member)``; a member that is not one is an error."""
    members = parse_archive(read_bytes(path) if data is None else data, str(path))
    return [(f"{path}({m.name})", parse_object(m.data, f"{path}({m.name})")) for m in members]
