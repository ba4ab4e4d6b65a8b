"""Relocatable objects and executable images: the data model and the file format.

File format (version 1), shared by objects (``.obj``) and images (``.out``)::

    offset  size  contents
    0       4     magic: b"RAPO" (object) or b"RAPX" (executable image)
    4       2     format version, little-endian (currently 1)
    6       2     reserved, 0
    8       4     length H of the header, little-endian
    12      H     header: UTF-8 JSON (below)
    12+H    ...   payload: little-endian 32-bit words; each section or segment
                  names its slice as (start word, word count)

Object header::

    {"source": "file.asm",
     "sections": [{"name": ".text", "kind": "text"|"data"|"bss", "size": N,
                   "align": 1, "data": [start, count] or null,
                   "relocs": [[offset, kind, symbol, addend], ...],
                   "lines": [[offset, file-index, line], ...]}],
     "symbols": [{"name": "main", "section": ".text" | null, "value": 0,
                  "binding": "global"|"local"|"undefined"}],
     "files": ["file.asm", "rap.inc"]}

A symbol with ``section`` null is absolute.  A relocation's ``symbol`` is a
symbol name, a section name of the same object (value: the section's final
address), or "" (absolute: value 0).  Relocation kinds are those of
:mod:`rapsim.asm.reloc`.

Image header::

    {"entry": 0x40, "segments": [{"name": ".text", "address": A, "size": N,
       "kind": "text"|"data"|"bss", "data": [start, count] or null}],
     "symbols": {"name": address, ...}, "lines": [[address, file, line], ...],
     "files": [...], "memory": [{"name": "SRAM", "origin": 0, "length": L}, ...]}

Readers check the magic, the version, the header's structure and every slice
against the payload, and raise :class:`ObjectFormatError` naming the file.
docs/object-format.md describes the format in full (and archives, which
:mod:`rapsim.asm.archive` reads and writes).
"""
from __future__ import annotations

import errno
import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rapsim.fileio import read_regular

from .reloc import RelocKind

OBJECT_MAGIC = b"RAPO"
IMAGE_MAGIC = b"RAPX"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<4sHHI")

SECTION_KINDS = ("text", "data", "bss")


class ObjectFormatError(Exception):
    """A file is not a valid object or image."""


@dataclass
class Relocation:
    offset: int
    kind: RelocKind
    symbol: str
    addend: int = 0


@dataclass
class Section:
    name: str
    kind: str = "text"
    size: int = 0
    data: np.ndarray | None = None        # uint32 words; None for bss
    align: int = 1
    relocs: list[Relocation] = field(default_factory=list)
    lines: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class Symbol:
    name: str
    section: str | None
    value: int
    binding: str = "local"                # local, global, undefined


@dataclass
class ObjectFile:
    source: str = ""
    sections: list[Section] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def section(self, name: str) -> Section | None:
        for s in self.sections:
            if s.name == name:
                return s
        return None


@dataclass
class Segment:
    name: str
    address: int
    size: int
    kind: str = "text"
    data: np.ndarray | None = None        # None: zero-filled (bss)


@dataclass
class Image:
    entry: int = 0
    segments: list[Segment] = field(default_factory=list)
    symbols: dict[str, int] = field(default_factory=dict)
    lines: list[tuple[int, int, int]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    memory: list[dict] = field(default_factory=list)

    def words(self) -> list[tuple[int, np.ndarray]]:
        """(address, words) of every segment, bss as zeros, by address."""
        out = []
        for s in sorted(self.segments, key=lambda s: s.address):
            d = s.data if s.data is not None else np.zeros(s.size, dtype=np.uint32)
            out.append((s.address, d))
        return out


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def _pack(magic: bytes, header: dict, blobs: list[np.ndarray]) -> bytes:
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    payload = b"".join(np.asarray(b, dtype="<u4").tobytes() for b in blobs)
    return _PREFIX.pack(magic, FORMAT_VERSION, 0, len(h)) + h + payload


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed over it, so
    that a failed write never leaves a truncated file behind."""
    write_all([(path, data)])


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Do paths ``a`` and ``b`` name one existing file?  (An output must not
    overwrite an input.)"""
    try:
        return Path(a).exists() and Path(a).samefile(b)
    except OSError:
        return False


def write_all(files: list[tuple[str | os.PathLike, bytes]]) -> None:
    """Write several files (a program's outputs: an object and its listing, an
    image and its map) all or none: every one goes to a temporary file first,
    and they are renamed over their paths only when all have been written.  An
    ``OSError`` names the file the caller asked for, never the temporary one."""
    done: list[tuple[Path, Path]] = []
    seen: set[str] = set()
    try:
        for path, data in files:
            path = Path(path)
            key = os.path.realpath(path)
            if key in seen:                  # -o x -m x: one would overwrite the other
                raise OSError(errno.EINVAL, "named for two outputs", str(path))
            seen.add(key)
            if path.is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
            tmp = path.with_name(path.name + ".tmp")
            try:
                tmp.write_bytes(data)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                raise type(e)(e.errno, e.strerror, str(path)) from None
            done.append((tmp, path))
        for tmp, path in done:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise type(e)(e.errno, e.strerror, str(path)) from None
    except OSError:
        for tmp, _ in done:
            tmp.unlink(missing_ok=True)
        raise


def object_bytes(obj: ObjectFile) -> bytes:
    blobs: list[np.ndarray] = []
    pos = 0
    secs = []
    for s in obj.sections:
        ref = None
        if s.data is not None:
            ref = [pos, int(len(s.data))]
            blobs.append(s.data)
            pos += len(s.data)
        secs.append({"name": s.name, "kind": s.kind, "size": s.size, "align": s.align,
                     "data": ref,
                     "relocs": [[r.offset, RelocKind(r.kind).value, r.symbol, r.addend] for r in s.relocs],
                     "lines": [list(x) for x in s.lines]})
    header = {"source": obj.source, "sections": secs,
              "symbols": [{"name": y.name, "section": y.section, "value": y.value,
                           "binding": y.binding} for y in obj.symbols],
              "files": obj.files}
    return _pack(OBJECT_MAGIC, header, blobs)


def write_object(obj: ObjectFile, path: str | os.PathLike) -> None:
    write_atomic(path, object_bytes(obj))


def image_bytes(img: Image) -> bytes:
    blobs: list[np.ndarray] = []
    pos = 0
    segs = []
    for s in img.segments:
        ref = None
        if s.data is not None:
            ref = [pos, int(len(s.data))]
            blobs.append(s.data)
            pos += len(s.data)
        segs.append({"name": s.name, "address": s.address, "size": s.size, "kind": s.kind, "data": ref})
    header = {"entry": img.entry, "segments": segs, "symbols": img.symbols,
              "lines": [list(x) for x in img.lines], "files": img.files, "memory": img.memory}
    return _pack(IMAGE_MAGIC, header, blobs)


def write_image(img: Image, path: str | os.PathLike) -> None:
    write_atomic(path, image_bytes(img))


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _unpack(data: bytes, name: str) -> tuple[bytes, dict, np.ndarray]:
    if len(data) < _PREFIX.size:
        raise ObjectFormatError(f"{name}: file too short to be a RAP object or image")
    magic, version, _, hlen = _PREFIX.unpack_from(data)
    if magic not in (OBJECT_MAGIC, IMAGE_MAGIC):
        raise ObjectFormatError(f"{name}: not a RAP object or image (bad magic number)")
    if version != FORMAT_VERSION:
        raise ObjectFormatError(f"{name}: format version {version} is not supported "
                                f"(this tool reads version {FORMAT_VERSION})")
    end = _PREFIX.size + hlen
    if end > len(data):
        raise ObjectFormatError(f"{name}: truncated header")
    try:
        header = json.loads(data[_PREFIX.size:end].decode("utf-8"), parse_int=_json_int,
                            parse_constant=_json_constant)
    except ValueError as e:                  # bad UTF-8 or JSON, a number out of range
        raise ObjectFormatError(f"{name}: corrupt header ({e})") from None
    except RecursionError:                   # [[[[...]]]]: nested past Python's stack
        raise ObjectFormatError(f"{name}: corrupt header (nested too deeply)") from None
    if not isinstance(header, dict):
        raise ObjectFormatError(f"{name}: corrupt header")
    rest = data[end:]
    if len(rest) % 4:
        raise ObjectFormatError(f"{name}: payload is not a whole number of words")
    return magic, header, np.frombuffer(rest, dtype="<u4").astype(np.uint32)


def _slice(payload: np.ndarray, ref, size: int, name: str, what: str) -> np.ndarray | None:
    if ref is None:
        return None
    if (not isinstance(ref, list) or len(ref) != 2 or not all(isinstance(v, int) for v in ref)
            or ref[0] < 0 or ref[1] != size or ref[0] + ref[1] > len(payload)):
        raise ObjectFormatError(f"{name}: {what}: data slice {ref!r} does not match the payload")
    return payload[ref[0]:ref[0] + ref[1]].copy()


def _need(cond: bool, name: str, what: str) -> None:
    if not cond:
        raise ObjectFormatError(f"{name}: corrupt {what}")


#: Every integer of a header is a 32-bit word, an address, a size or an
#: index: one beyond 64 bits is refused while the JSON is read (never a
#: conversion of thousands of digits).
_JSON_INT_DIGITS = 20


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > _JSON_INT_DIGITS:
        raise ValueError(f"a number of {len(text.lstrip('-'))} digits; header numbers have "
                         f"at most {_JSON_INT_DIGITS}")
    return int(text)


def _json_constant(text: str):
    raise ValueError(f"{text} is not a number of a RAP header")


#: ranges of header fields (docs/object-format.md)
_WORD_RANGE = (-(1 << 32), 1 << 32)      # symbol values, addends: a word, either sign
_SIZE_RANGE = (0, 1 << 24)               # sizes, offsets, alignment: within the address space


def _is_int(v, lo: int = -(1 << 63), hi: int = 1 << 64) -> bool:
    """An integer (not a bool) with lo <= v <= hi."""
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def parse_object(data: bytes, name: str = "<object>") -> ObjectFile:
    magic, h, payload = _unpack(data, name)
    if magic != OBJECT_MAGIC:
        raise ObjectFormatError(f"{name}: is an executable image, not a relocatable object")
    try:
        obj = ObjectFile(source=str(h.get("source", "")), files=[str(f) for f in h.get("files", [])])
        for s in h["sections"]:
            _need(isinstance(s, dict) and isinstance(s["name"], str) and s["kind"] in SECTION_KINDS
                  and _is_int(s["size"], *_SIZE_RANGE) and _is_int(s.get("align", 1), 1, 1 << 24),
                  name, "section entry")
            sec = Section(s["name"], s["kind"], s["size"], align=s.get("align", 1))
            sec.data = _slice(payload, s["data"], s["size"], name, f"section {s['name']}")
            _need((sec.data is None) == (s["kind"] == "bss"), name, f"section {s['name']}")
            _need(obj.section(s["name"]) is None, name, f"section table ({s['name']} appears twice)")
            _need(s["kind"] != "bss" or not s.get("relocs"), name,
                  f"section {s['name']} (relocations in an uninitialised section)")
            for r in s.get("relocs", []):
                _need(isinstance(r, list) and len(r) == 4 and _is_int(r[0]) and 0 <= r[0] < s["size"]
                      and isinstance(r[2], str) and _is_int(r[3], *_WORD_RANGE), name,
                      f"relocation in {s['name']}")
                try:
                    kind = RelocKind(r[1])
                except ValueError:
                    raise ObjectFormatError(f"{name}: unknown relocation kind {r[1]!r}") from None
                sec.relocs.append(Relocation(r[0], kind, r[2], r[3]))
            for ln in s.get("lines", []):
                _need(isinstance(ln, list) and len(ln) == 3 and all(_is_int(v) for v in ln)
                      and 0 <= ln[0] < s["size"] and 0 <= ln[1] < len(obj.files), name,
                      f"line table of {s['name']}")
                sec.lines.append(tuple(ln))
            obj.sections.append(sec)
        for y in h["symbols"]:
            _need(isinstance(y, dict) and isinstance(y["name"], str)
                  and _is_int(y["value"], *_WORD_RANGE)
                  and (y["section"] is None or isinstance(y["section"], str))
                  and y["binding"] in ("local", "global", "undefined"), name, "symbol entry")
            _need(y["section"] is None or obj.section(y["section"]) is not None, name,
                  f"symbol {y['name']!r} (its section {y['section']!r} does not exist)")
            obj.symbols.append(Symbol(y["name"], y["section"], y["value"], y["binding"]))
    except (KeyError, TypeError) as e:
        raise ObjectFormatError(f"{name}: corrupt header (missing or malformed {e})") from None
    return obj


def parse_image(data: bytes, name: str = "<image>") -> Image:
    magic, h, payload = _unpack(data, name)
    if magic != IMAGE_MAGIC:
        raise ObjectFormatError(f"{name}: is a relocatable object, not an executable image "
                                "(link it with 'rap ld')")
    try:
        _need(_is_int(h["entry"]), name, "entry point")
        img = Image(entry=h["entry"], files=[str(f) for f in h.get("files", [])],
                    memory=list(h.get("memory", [])))
        for s in h["segments"]:
            _need(isinstance(s, dict) and isinstance(s["name"], str) and _is_int(s["address"])
                  and _is_int(s["size"]) and s["size"] >= 0 and 0 <= s["address"]
                  and s["address"] + s["size"] <= 1 << 24 and s.get("kind", "text") in SECTION_KINDS,
                  name, "segment entry")
            img.segments.append(Segment(s["name"], s["address"], s["size"], s.get("kind", "text"),
                                        _slice(payload, s["data"], s["size"], name, f"segment {s['name']}")))
        syms = h.get("symbols", {})
        _need(isinstance(syms, dict) and all(_is_int(v, *_WORD_RANGE) for v in syms.values()),
              name, "symbol table")
        img.symbols = dict(syms)
        for ln in h.get("lines", []):
            _need(isinstance(ln, list) and len(ln) == 3 and all(_is_int(v) for v in ln)
                  and 0 <= ln[0] < 1 << 24 and 0 <= ln[1] < len(img.files), name, "line table")
            img.lines.append(tuple(ln))
    except (KeyError, TypeError) as e:
        raise ObjectFormatError(f"{name}: corrupt header (missing or malformed {e})") from None
    return img


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a file; an unreadable or missing file is an
    :class:`ObjectFormatError` naming it."""
    try:
        return read_regular(path)
    except OSError as e:
        raise ObjectFormatError(f"{path}: cannot read: {e.strerror}") from None


def read_object(path: str | os.PathLike) -> ObjectFile:
    return parse_object(read_bytes(path), str(path))


def read_image(path: str | os.PathLike) -> Image:
    return parse_image(read_bytes(path), str(path))


def file_kind(data: bytes) -> str | None:
    """'object', 'image', 'archive' or None, from a file's first bytes."""
    if data[:4] == OBJECT_MAGIC:
        return "object"
    if data[:4] == IMAGE_MAGIC:
        return "image"
    if data[:8] == b"!<arch>\n":
        return "archive"
    return None
