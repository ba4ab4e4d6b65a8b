"""Fuzz: the network compiler on mutated and generated descriptions, and
the pattern-file loaders on corrupted text, .npy and .npz files (a clear
error naming the file, or a result; never an internal error or a hang)."""
from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.errors import RapError

SEEDS = fuzzkit.networks()

NET_TOKENS = fuzzkit.NUMBERS + [
    "\n", " ", "{", "}", "(", ")", ",", ":", "=", "->", "+", "-", "*", "/", "%", "**", "^",
    "#", "layer", "connect", "net", "train", "param", "input", "output", "hidden", "full",
    "sparse", "sigmoid", "tanh", "linear", "softmax", "binary", "bias", "rate", "epochs",
    "momentum", "error", "mse", "seed", "shuffle", "true", "false", "x", "h", "y", "hidden",
    "include", '"x.net"', "-" * 3000 + "1", "(" * 3000 + "1" + ")" * 3000,
]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_net")


@fuzzkit.examples(ci=60, long=3000)
@given(case=fuzzkit.mutated(SEEDS, NET_TOKENS))
def test_mutated_networks(work, case):
    fuzzkit.count("network: mutated descriptions")
    f = fuzzkit.write(work / "n.net", case[1])
    fuzzkit.rap(["cc", f, "-o", str(work / "n.out"), "--nodes", "1"], seconds=60)


@fuzzkit.examples(ci=100, long=4000)
@given(text=fuzzkit.token_lines(NET_TOKENS))
def test_generated_networks(work, text):
    fuzzkit.count("network: generated descriptions")
    f = fuzzkit.write(work / "g.net", text)
    try:
        parse_file(f)
    except RapError:
        pass


NET = parse_file(str(fuzzkit.ROOT / "examples" / "xor.net"))
PAT = (fuzzkit.ROOT / "examples" / "xor.pat").read_text()


def _npy_header(descr: str, shape: str) -> bytes:
    h = f"{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}"
    h += " " * (-(len(h) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()


DESCRS = ["'<f8'", "'<f4'", "'<i8'", "'|O'", "'<U3'", "'|b1'", "'<c16'", "'|V8'", "'>f8'",
          "[('a', '<f8')]", "'<M8[s]'"]
SHAPES = ["(4, 3)", "(4, 5)", "(100000000000, 3)", "(3,)", "()", "(0, 3)", "(-1, 3)",
          "(4, 3, 1)", "(9223372036854775807, 9223372036854775807)", "(4, 100000000000)"]


@st.composite
def npy_bytes(draw):
    body = draw(st.binary(max_size=256)) if draw(st.booleans()) else np.zeros(12).tobytes()
    return _npy_header(draw(st.sampled_from(DESCRS)), draw(st.sampled_from(SHAPES))) + body


@st.composite
def npz_bytes(draw):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in draw(st.lists(st.sampled_from(["inputs.npy", "targets.npy", "x.npy",
                                                   "y.npy", "test_inputs.npy", "other.npy"]),
                                  min_size=1, max_size=4, unique=True)):
            z.writestr(name, draw(npy_bytes()))
    return buf.getvalue()


@fuzzkit.examples(ci=120, long=4000)
@given(kind=st.sampled_from(["text", "npy", "npz"]), data=st.data())
def test_pattern_files(work, kind, data):
    fuzzkit.count(f"data loader: {kind} files")
    if kind == "text":
        raw = data.draw(fuzzkit.mutated([("xor.pat", PAT)], fuzzkit.NUMBERS + ["|", "{", "}", "#"]))[1]
        raw = raw.encode("utf-8", "surrogateescape")
    elif kind == "npy":
        raw = data.draw(npy_bytes())
    else:
        raw = data.draw(npz_bytes())
    f = fuzzkit.write(work / f"p.{'pat' if kind == 'text' else kind}", raw)
    with fuzzkit.time_limit(20, "loading a pattern file"):
        try:
            load_patterns(f, NET)
        except RapError as e:
            assert f in str(e)
