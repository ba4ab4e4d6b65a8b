"""Object and image files: write/read round trips and corrupt inputs."""
from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from miniasm import assemble
from rapsim.asm.objfile import (FORMAT_VERSION, Image, ObjectFormatError, Segment, file_kind,
                                image_bytes, object_bytes, parse_image, parse_object, read_object,
                                write_object)

SRC = """
        .global f, g
f:      CALL g
        .data
        .word f+1
        .bss b, 3
"""


def _rebuild(data: bytes, edit) -> bytes:
    magic, ver, res, hlen = struct.unpack_from("<4sHHI", data)
    header = json.loads(data[12:12 + hlen])
    edit(header)
    h = json.dumps(header).encode()
    return struct.pack("<4sHHI", magic, ver, res, len(h)) + h + data[12 + hlen:]


def test_object_round_trip(tmp_path):
    o = assemble(SRC)
    write_object(o, tmp_path / "a.obj")
    back = read_object(tmp_path / "a.obj")
    assert back.symbols == o.symbols and back.files == o.files
    for s, t in zip(o.sections, back.sections):
        assert (s.name, s.kind, s.size, s.align, s.relocs, s.lines) == \
            (t.name, t.kind, t.size, t.align, t.relocs, t.lines)
        assert (s.data is None and t.data is None) or s.data.tolist() == t.data.tolist()
    assert not (tmp_path / "a.obj.tmp").exists()


def test_image_round_trip():
    img = Image(entry=0x40, segments=[Segment(".text", 0x40, 2, "text", np.array([1, 2], dtype=np.uint32)),
                                      Segment(".bss", 0x42, 5, "bss")],
                symbols={"a": 0x40}, lines=[(0x40, 0, 3)], files=["a.asm"],
                memory=[{"name": "SRAM", "origin": 0x40, "length": 10}])
    back = parse_image(image_bytes(img))
    assert back == Image(**{**img.__dict__, "segments": back.segments})
    assert [(a, d.tolist()) for a, d in back.words()] == [(0x40, [1, 2]), (0x42, [0] * 5)]


def test_file_kind():
    assert file_kind(object_bytes(assemble(SRC))) == "object"
    assert file_kind(image_bytes(Image())) == "image"
    assert file_kind(b"!<arch>\n") == "archive"
    assert file_kind(b"hello") is None


@pytest.mark.parametrize("mutate,message", [
    (lambda d: b"XXXX" + d[4:], "bad magic number"),
    (lambda d: d[:4] + struct.pack("<H", FORMAT_VERSION + 1) + d[6:], "format version 2 is not supported"),
    (lambda d: d[:20], "truncated header"),
    (lambda d: d + b"\0", "not a whole number of words"),
    (lambda d: d[:8], "too short"),
    (lambda d: _rebuild(d, lambda h: h["sections"][0].update(size=99)), "data slice"),
    (lambda d: _rebuild(d, lambda h: h["sections"][0]["relocs"][0].__setitem__(1, "nope")),
     "unknown relocation kind 'nope'"),
    (lambda d: _rebuild(d, lambda h: h["symbols"][0].update(section=".nowhere")), "section '.nowhere'"),
    (lambda d: _rebuild(d, lambda h: h["sections"].append(h["sections"][0])), "appears twice"),
    (lambda d: _rebuild(d, lambda h: h["sections"][2].update(relocs=[[0, "word32", "", 0]])),
     "relocations in an uninitialised section"),
    (lambda d: _rebuild(d, lambda h: h.pop("symbols")), "missing or malformed 'symbols'"),
    # a JSON header nested past Python's stack was an internal error (RecursionError)
    (lambda d: d[:8] + struct.pack("<I", 200000) + b"[" * 100000 + b"]" * 100000,
     "nested too deeply"),
    # line entries naming no file or no word were accepted
    (lambda d: _rebuild(d, lambda h: h["sections"][0]["lines"][0].__setitem__(1, 7)),
     "corrupt line table of .text"),
    (lambda d: _rebuild(d, lambda h: h["sections"][0]["lines"][0].__setitem__(0, 99)),
     "corrupt line table of .text"),
])
def test_corrupt_objects_are_reported(mutate, message):
    data = object_bytes(assemble(SRC))
    with pytest.raises(ObjectFormatError, match=message.replace("(", r"\(")) as e:
        parse_object(mutate(data), "x.obj")
    assert str(e.value).startswith("x.obj: ")


def test_image_is_not_an_object():
    with pytest.raises(ObjectFormatError, match="is an executable image"):
        parse_object(image_bytes(Image()), "x.out")
    with pytest.raises(ObjectFormatError, match="is a relocatable object"):
        parse_image(object_bytes(assemble(SRC)), "x.obj")
