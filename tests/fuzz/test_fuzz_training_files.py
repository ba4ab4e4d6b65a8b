"""Fuzz: the files of training and inference runs -- checkpoints and weights
files (``rap train --save/--resume/--load``, ``rap infer --weights``),
parameter files (``--params``) and inference inputs (``rap infer --data``).

Every case is loaded through the same functions the commands call; the
outcome must be a result or a RapError naming the file, never another
exception or a hang.  A few cases per session go through ``rap infer``
whole (compile, simulate) with a fuzzed weights file or inputs."""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim.commands.cc import load_network
from rapsim.compiler.checkpoint import TrainingState, load_state, load_weights, save_state
from rapsim.compiler.infer import load_inputs
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import EpochStats, initial_weights
from rapsim.errors import RapError

from test_fuzz_network import DESCRS, SHAPES, _npy_header

NETFILE = str(fuzzkit.ROOT / "examples" / "xor.net")
NET = parse_file(NETFILE)


def _checkpoint() -> bytes:
    state = TrainingState(initial_weights(NET), initial_weights(NET, seed=5), 3, 11, True, 0.5,
                          [EpochStats(e, 0.5, 0.25, 0.75, 0.3, 0.5) for e in range(3)],
                          "epochs", 4)
    buf = io.BytesIO()
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        save_state(f"{d}/s.npz", NET, state)
        with open(f"{d}/s.npz", "rb") as fh:
            buf.write(fh.read())
    return buf.getvalue()


CHECKPOINT = _checkpoint()
MEMBERS = zipfile.ZipFile(io.BytesIO(CHECKPOINT)).namelist()

#: arrays a hostile checkpoint holds in place of a member
HOSTILE_ARRAYS = [np.array(-1), np.array(2 ** 64 - 1, dtype=np.uint64), np.array(np.nan),
                  np.array(np.inf), np.array(-1e308), np.array("x"), np.array(["a", "b"]),
                  np.zeros((0,)), np.zeros((0, 6)), np.zeros((3, 6)), np.full((3, 6), np.nan),
                  np.zeros((4, 2)), np.zeros((2, 4)), np.zeros((1, 4), dtype=np.complex64),
                  np.array(True), np.array(1e39, dtype=np.float64), np.zeros((2, 2, 2)),
                  np.arange(3, dtype=np.int8), np.array(2 ** 62)]


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


@st.composite
def corrupt_checkpoint(draw):
    """The checkpoint with members replaced (by hostile arrays or headers),
    deleted or added, or its bytes flipped, cut or extended."""
    if draw(st.booleans()):
        src = zipfile.ZipFile(io.BytesIO(CHECKPOINT))
        members = {n: src.read(n) for n in src.namelist()}
        for _ in range(draw(st.integers(1, 4))):
            name = draw(st.sampled_from(MEMBERS + ["extra.npy", "w:h->x.npy", "notes.txt"]))
            op = draw(st.integers(0, 3))
            if op == 0:
                members.pop(name, None)
            elif op == 1:
                members[name] = _npy(draw(st.sampled_from(HOSTILE_ARRAYS)))
            elif op == 2:
                members[name] = (_npy_header(draw(st.sampled_from(DESCRS)),
                                             draw(st.sampled_from(SHAPES)))
                                 + draw(st.binary(max_size=64)))
            else:
                members[name] = draw(st.binary(max_size=64))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", draw(st.sampled_from([zipfile.ZIP_STORED,
                                                             zipfile.ZIP_DEFLATED]))) as z:
            for n, data in members.items():
                z.writestr(n, data)
        return buf.getvalue()
    return fuzzkit.mutate_bytes(draw, CHECKPOINT)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_training_files")


def _refused_or_loaded(path: str, load, *args):
    with fuzzkit.time_limit(20, f"loading {path}"):
        try:
            return load(path, *args)
        except RapError as e:
            assert path in str(e), str(e)
            return None


@fuzzkit.examples(ci=150, long=5000)
@given(data=corrupt_checkpoint())
def test_corrupt_checkpoints(work, data):
    fuzzkit.count("checkpoints: corrupt .npz files")
    f = fuzzkit.write(work / "c.npz", data)
    state = _refused_or_loaded(f, load_state, NET)
    weights = _refused_or_loaded(f, load_weights, NET)
    for w in [state.weights if state else None, weights]:
        if w is not None:            # what loads is usable: finite, of the network's shapes
            for a in list(w.connects.values()) + list(w.biases.values()):
                assert np.all(np.isfinite(a))
    if state is not None:
        assert state.epochs_done == len(state.history) and state.order_seed >= 0


PARAMS = "# parameters\nhidden = 3\n"
PARAM_TOKENS = fuzzkit.NUMBERS + ["=", ",", "#", "hidden", "bogus", "\n", " ", "nan", "inf",
                                  "hidden[0]", "(", ")", "-", "e"]


@fuzzkit.examples(ci=150, long=5000)
@given(text=fuzzkit.mutated([("p.txt", PARAMS)], PARAM_TOKENS),
       given_=st.lists(st.sampled_from(["hidden=2", "hidden=", "=3", "hidden=1,2", "x=1",
                                        "hidden=" + "9" * 400, "hidden=-1", "hidden=0x10"]),
                       max_size=2))
def test_parameter_files(work, text, given_):
    fuzzkit.count("parameter files: mutated")
    f = fuzzkit.write(work / "p.txt", text[1])
    with fuzzkit.time_limit(20, "reading a parameter file"):
        try:
            load_network(NETFILE, given_, f)
        except RapError:
            pass


@st.composite
def inputs_bytes(draw):
    kind = draw(st.sampled_from(["txt", "npy", "npz"]))
    if kind == "txt":
        text = draw(fuzzkit.mutated([("i.txt", "# inputs\n0 0\n0 1\n1 0\n1 1\n")],
                                    fuzzkit.NUMBERS + ["|", "#", "\n"]))[1]
        return kind, text.encode("utf-8", "surrogateescape")
    if draw(st.booleans()):
        arr = draw(st.sampled_from(HOSTILE_ARRAYS + [np.zeros((4, 2)), np.ones((2, 3))]))
        raw = _npy(arr)
    else:
        raw = (_npy_header(draw(st.sampled_from(DESCRS)), draw(st.sampled_from(SHAPES)))
               + draw(st.binary(max_size=128)))
    if kind == "npz":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(draw(st.sampled_from(["inputs.npy", "x.npy", "y.npy", "other.npy"])), raw)
        raw = buf.getvalue()
    return kind, raw


@fuzzkit.examples(ci=150, long=5000)
@given(case=inputs_bytes())
def test_inference_inputs(work, case):
    kind, raw = case
    fuzzkit.count(f"inference inputs: {kind} files")
    f = fuzzkit.write(work / f"i.{kind}", raw)
    x = _refused_or_loaded(f, load_inputs, NET)
    if x is not None:
        assert x.ndim == 2 and x.shape[1] == 2 and np.all(np.isfinite(x))


@fuzzkit.examples(ci=6, long=150)
@given(weights=corrupt_checkpoint(), inputs=inputs_bytes())
def test_rap_infer_whole(work, weights, inputs):
    """``rap infer`` end to end with a fuzzed weights file and fuzzed inputs."""
    fuzzkit.count("rap infer: fuzzed weights and inputs")
    w = fuzzkit.write(work / "w.npz", weights if weights[:2] == b"PK" else CHECKPOINT)
    d = fuzzkit.write(work / f"d.{inputs[0]}", inputs[1])
    fuzzkit.rap(["infer", NETFILE, "--weights", w, "--data", d, "--max-cycles", "2000000",
                 "--out", str(work / "o.npy")], seconds=60)
