"""Issue 18: archives whose member names hold NUL, '/', control characters
or sizes and name offsets in non-ASCII digits are refused naming the
archive and the byte (they crashed 'rap ar')."""
from __future__ import annotations

import pytest

from rapsim.asm.archive import MAGIC, parse_archive
from rapsim.asm.objfile import ObjectFormatError


def _member(name: bytes, body: bytes, size: bytes | None = None) -> bytes:
    size = str(len(body)).encode() if size is None else size
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
            + size.ljust(10) + b"`\n" + body + (b"\n" if len(body) & 1 else b""))


@pytest.mark.parametrize("raw, message", [
    (MAGIC + _member(b"a\0b/", b"xx"), "member name 'a\\x00b' contains '/' or a control character"),
    (MAGIC + _member(b"../", b"xx"), "member name '..' is not a file name"),
    (MAGIC + _member(b"/", b"") + _member(b"//", b"a/b/\n") + _member(b"/0", b"xx"),
     "member name 'a/b' contains '/'"),
    (MAGIC + _member("#1/\u0663".encode("utf-8"), b"abcx"), "corrupt BSD long name"),
    (MAGIC + _member(b"a/", b"xx", "\u0662".encode("utf-8")), "corrupt member size at byte 8"),
    (MAGIC + _member(b"a/", b"xx", b"1_0"), "corrupt member size at byte 8"),
    (MAGIC + _member(b"a/", b"xx", b"+2"), "corrupt member size at byte 8"),
])
def test_bad_member_names_and_numbers(raw, message):
    with pytest.raises(ObjectFormatError, match="^l.a: ") as e:
        parse_archive(raw, "l.a")
    assert message in str(e.value)


