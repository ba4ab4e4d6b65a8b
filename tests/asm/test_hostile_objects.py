"""Issue 18: objects and images with out-of-range or absurd header values,
and inputs that are not regular files, are refused with a message naming
the file (never an internal error)."""
from __future__ import annotations

import json
import os
import struct

import pytest

from rapsim.asm.assembler import assemble_text
from rapsim.asm.objfile import ObjectFormatError, image_bytes, object_bytes, parse_image, parse_object
from rapsim.toolchain import link_objects

_PREFIX = struct.Struct("<4sHHI")
SRC = "        .global start\nstart:  LDI 1, R0\n        .data\nt:      .word start\n"


def _edit(data: bytes, edit) -> bytes:
    magic, version, _, hlen = _PREFIX.unpack_from(data)
    header = json.loads(data[_PREFIX.size:_PREFIX.size + hlen])
    text = edit(header)
    h = (text if isinstance(text, str) else json.dumps(header)).encode()
    return _PREFIX.pack(magic, version, 0, len(h)) + h + data[_PREFIX.size + hlen:]


OBJ = object_bytes(assemble_text(SRC, "s.asm").obj)
IMG = image_bytes(link_objects([("s.obj", assemble_text(SRC, "s.asm").obj)]))


def _huge(header, key_path):
    node = header
    for k in key_path[:-1]:
        node = node[k]
    node[key_path[-1]] = "HUGE"
    return json.dumps(header).replace('"HUGE"', "9" * 5000)


@pytest.mark.parametrize("path", [("entry",), ("segments", 0, "address"), ("segments", 0, "size"),
                                  ("lines", 0, 0)])
def test_image_numbers_of_thousands_of_digits(path):
    with pytest.raises(ObjectFormatError, match=r"^i\.out: corrupt header \(a number of 5000 digits"):
        parse_image(_edit(IMG, lambda h: _huge(h, path)), "i.out")


@pytest.mark.parametrize("path", [("sections", 0, "size"), ("symbols", 0, "value"),
                                  ("sections", 1, "relocs", 0, 3)])
def test_object_numbers_of_thousands_of_digits(path):
    with pytest.raises(ObjectFormatError, match=r"^o\.obj: corrupt header \(a number of 5000 digits"):
        parse_object(_edit(OBJ, lambda h: _huge(h, path)), "o.obj")


@pytest.mark.parametrize("field, value, what", [
    (("sections", 0, "size"), 1 << 24 + 1, "section entry"),
    (("sections", 0, "align"), 1 << 40, "section entry"),
    (("sections", 0, "align"), 0, "section entry"),
    (("symbols", 0, "value"), 1 << 40, "symbol entry"),
    (("sections", 1, "relocs", 0, 3), -(1 << 40), "relocation in .data"),
])
def test_object_fields_out_of_range(field, value, what):
    def edit(h):
        node = h
        for k in field[:-1]:
            node = node[k]
        node[field[-1]] = value
    with pytest.raises(ObjectFormatError, match=f"^o.obj: corrupt {what}"):
        parse_object(_edit(OBJ, edit), "o.obj")


def test_nan_and_infinity_in_a_header():
    with pytest.raises(ObjectFormatError, match="NaN is not a number of a RAP header"):
        parse_image(_edit(IMG, lambda h: json.dumps(h).replace('"entry": 64', '"entry": NaN')), "i")


@pytest.mark.parametrize("reader", [parse_image, parse_object])
def test_device_and_fifo_inputs_are_refused(tmp_path, reader):
    from rapsim.asm.objfile import read_bytes
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    for p in ("/dev/zero", fifo):
        with pytest.raises(ObjectFormatError, match="not a regular file"):
            read_bytes(p)
