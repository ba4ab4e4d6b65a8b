"""Fuzz: corrupted objects and images through the object reader, the
linker, the archiver, the disassembler and ``rap run`` (a clear error naming
the file, or a result; never an internal error, a traceback or a hang)."""
from __future__ import annotations

import copy
import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim.asm.assembler import assemble_text
from rapsim.asm.objfile import image_bytes, object_bytes
from rapsim.toolchain import link_objects

_PREFIX = struct.Struct("<4sHHI")

SRC = """\
        .global start, tab
        .text
start:  LDI     @tab, AR0
        LDI     *AR0++(1), R0
        CALL    f
        BR      start
f:      RETS
        .data
tab:    .word   tab, start, f+3
        .float  1.5
        .bss    buf, 8
"""

#: values that probe every field's checks
HOSTILE = st.sampled_from([
    -1, 0, 1, 2 ** 24 - 1, 2 ** 24, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64, -(2 ** 63),
    "<HUGE>", "<-HUGE>", 1.5, 1e308, float("nan"), True, None, "", "x", "\0", "\udcff",
    "..", "/etc/passwd", [], [0], [0, 10 ** 9], {}, {"a": 1}, "pcrel16", "abs24",
    [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
])


def _seeds():
    obj = assemble_text(SRC, "s.asm").obj
    img = link_objects([("s.obj", obj)])
    return [("object", object_bytes(obj)), ("image", image_bytes(img))]


SEEDS = _seeds()


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


@st.composite
def corrupt(draw):
    """A seed object or image with its JSON header edited field by field, or
    its bytes flipped, cut or extended."""
    kind, data = draw(st.sampled_from(SEEDS))
    magic, version, _, hlen = _PREFIX.unpack_from(data)
    header = json.loads(data[_PREFIX.size:_PREFIX.size + hlen])
    payload = data[_PREFIX.size + hlen:]
    if draw(st.booleans()):
        for _ in range(draw(st.integers(1, 4))):
            paths = list(_paths(header))[1:]
            path = draw(st.sampled_from(paths))
            node = header
            for k in path[:-1]:
                node = node[k]
            if draw(st.integers(0, 5)) == 0 and isinstance(node, dict):
                del node[path[-1]]
            else:
                node[path[-1]] = copy.deepcopy(draw(HOSTILE))
        h = json.dumps(header, separators=(",", ":")).replace('"<HUGE>"', "9" * 5000) \
            .replace('"<-HUGE>"', "-" + "9" * 5000).encode("utf-8", "surrogatepass")
        data = _PREFIX.pack(magic, version, 0, len(h)) + h + payload
    else:
        data = fuzzkit.mutate_bytes(draw, data)
    return kind, data


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_obj")


@fuzzkit.examples(ci=150, long=3000)
@given(case=corrupt())
def test_corrupt_files(work, case):
    kind, data = case
    fuzzkit.count(f"corrupt {kind}s")
    f = fuzzkit.write(work / "c.bin", data)
    fuzzkit.rap(["dis", f])
    if kind == "object":
        fuzzkit.count("linker: corrupt objects")
        fuzzkit.rap(["ld", f, "-o", str(work / "c.out")])
        lib = work / "c.a"
        if lib.exists():
            lib.unlink()
        fuzzkit.rap(["ar", "rc", str(lib), f])
    else:
        fuzzkit.rap(["run", f, "--max-cycles", "3000"])


@fuzzkit.examples(ci=60, long=2000)
@given(words=st.lists(st.integers(0, 2 ** 32 - 1), min_size=1, max_size=64),
       base=st.integers(0, 2 ** 24 - 1))
def test_disassembler_hex_words(work, words, base):
    fuzzkit.count("disassembler: hex word lists", len(words))
    f = fuzzkit.write(work / "w.hex", "".join(f"{w:08X}\n" for w in words))
    fuzzkit.rap(["dis", "--hex", "--base", hex(base), f])
