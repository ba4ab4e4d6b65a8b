"""Issue 18 for checkpoints, weights files and inference inputs: devices,
FIFOs, object arrays, members whose headers claim terabytes, truncated or
flipped archives and out-of-range saved state are refused naming the file,
before anything is read for ever or allocated."""
from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import pytest

from rapsim.compiler.checkpoint import TrainingState, load_state, load_weights, save_state
from rapsim.compiler.infer import load_inputs
from rapsim.compiler.reference import EpochStats, initial_weights
from rapsim.errors import RapError

from netsrc import BASE, net

N = net(BASE)


@pytest.fixture
def saved(tmp_path):
    """A valid checkpoint of N after two epochs, and its arrays."""
    state = TrainingState(initial_weights(N), None, 2, 7, True, 0.25,
                          [EpochStats(e, 0.25, 0.5, 0.5, None, None) for e in range(2)],
                          "epochs", 4)
    path = tmp_path / "ok.npz"
    save_state(path, N, state)
    with np.load(path) as z:
        return path, {k: z[k] for k in z.files}


def _rewrite(tmp_path, arrays, name="bad.npz", **change):
    a = dict(arrays)
    a.update(change)
    path = tmp_path / name
    np.savez(path, **a)
    return path


def _header(shape, descr="<f8") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _replace_member(tmp_path, src, member: str, data: bytes):
    out = tmp_path / "m.npz"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for n in zin.namelist():
            zout.writestr(n, data if n == member else zin.read(n))
    return out


def state_err(path) -> str:
    with pytest.raises(RapError) as e:
        load_state(path, N)
    return str(e.value)


def weights_err(path) -> str:
    with pytest.raises(RapError) as e:
        load_weights(path, N)
    return str(e.value)


@pytest.mark.parametrize("load", [state_err, weights_err])
def test_device_and_fifo_are_refused_without_blocking(tmp_path, load):
    os.mkfifo(tmp_path / "p.npz")
    assert load("/dev/zero") == ("/dev/zero: cannot read: not a regular file "
                                 "(a device, a FIFO or a socket)")
    assert "not a regular file" in load(tmp_path / "p.npz")


def test_member_header_claiming_terabytes(tmp_path, saved):
    path = _replace_member(tmp_path, saved[0], "w:x->h.npy", _header((10 ** 6, 10 ** 6)))
    assert weights_err(path) == (
        f"{path}: array 'w:x->h': its header claims shape (1000000, 1000000) "
        "(8000000000000 bytes) but the file holds 0 bytes of data")


def test_object_member_is_refused(tmp_path, saved):
    buf = io.BytesIO()
    np.save(buf, np.array([[1, 2]] * 3, dtype=object), allow_pickle=True)
    path = _replace_member(tmp_path, saved[0], "w:x->h.npy", buf.getvalue())
    assert weights_err(path) == (f"{path}: array 'w:x->h' is not readable (it holds object; "
                                 "a weights file holds numbers and a few words)")


def test_complex_weights_are_refused(tmp_path, saved):
    path = _rewrite(tmp_path, saved[1], **{"w:x->h": np.zeros((3, 2), dtype=complex)})
    assert "array 'w:x->h' is not readable (it holds complex128" in weights_err(path)


def test_truncated_and_flipped_archives(tmp_path, saved):
    raw = saved[0].read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(raw[:len(raw) // 2])
    assert state_err(cut) == (f"{cut}: not a .npz archive (a weights file or a saved training "
                              "state is one)")
    flipped = bytearray(raw)
    flipped[60] ^= 0xFF                  # inside the first member's data
    bad = tmp_path / "flip.npz"
    bad.write_bytes(bytes(flipped))
    msg = state_err(bad)
    assert msg.startswith(f"{bad}: ") and ("not readable" in msg or "not a" in msg)


def test_npy_given_as_a_weights_file(tmp_path):
    p = tmp_path / "w.npz"
    np.save(p, np.zeros(3))
    os.replace(str(p) + ".npy", p)
    assert weights_err(p) == f"{p}: is a .npy array, not a .npz weights file"


def test_non_array_member(tmp_path, saved):
    out = tmp_path / "extra.npz"
    with zipfile.ZipFile(saved[0]) as zin, zipfile.ZipFile(out, "w") as zout:
        for n in zin.namelist():
            zout.writestr(n, zin.read(n))
        zout.writestr("readme.txt", b"hello")
    assert weights_err(out) == f"{out}: member 'readme.txt' is not a numpy array"


@pytest.mark.parametrize("key,value,message", [
    ("order_seed", np.array(-5), "order_seed is -5; a seed is 0..2^63-1"),
    ("order_seed", np.array(2 ** 64 - 1, dtype=np.uint64),
     "order_seed is 18446744073709551615; a seed is 0..2^63-1"),
    ("rate", np.array(np.nan), "rate is nan; a learning rate is a finite number, 0 or more"),
    ("rate", np.array(-1.0), "rate is -1.0; a learning rate is a finite number, 0 or more"),
    ("train_patterns", np.array(-7), "train_patterns is -7; a count is 0 or more"),
    ("history", np.full((2, 6), np.nan), "the epoch history's first column is not the epochs 0..1"),
])
def test_out_of_range_state(tmp_path, saved, key, value, message):
    path = _rewrite(tmp_path, saved[1], **{key: value})
    assert state_err(path) == f"{path}: {message}"


def test_rate_in_history_must_be_finite(tmp_path, saved):
    hist = saved[1]["history"].copy()
    hist[1, 1] = np.inf
    path = _rewrite(tmp_path, saved[1], history=hist)
    assert state_err(path) == (f"{path}: the epoch history holds a learning rate that is "
                               "negative, NaN or infinite")


def test_valid_checkpoint_still_loads(saved):
    state = load_state(saved[0], N)
    assert (state.epochs_done, state.order_seed, state.rate, state.train_patterns) == (2, 7, 0.25, 4)


# --- inference inputs --------------------------------------------------------


def inputs_err(path) -> str:
    with pytest.raises(RapError) as e:
        load_inputs(path, N)
    return str(e.value)


def test_inputs_device_and_fifo(tmp_path):
    os.mkfifo(tmp_path / "p.txt")
    assert inputs_err("/dev/zero").startswith("/dev/zero: cannot read: not a regular file")
    assert "not a regular file" in inputs_err(tmp_path / "p.txt")


@pytest.mark.parametrize("name", ["h.npy", "h.npz"])
def test_inputs_header_claiming_terabytes(tmp_path, name):
    p = tmp_path / name
    body = _header((10 ** 12, 2))
    if name.endswith(".npz"):
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("inputs.npy", body)
    else:
        p.write_bytes(body)
    msg = inputs_err(p)
    assert "its header claims shape (1000000000000, 2) (16000000000000 bytes)" in msg
    assert msg.startswith(f"{p}: ")


def test_inputs_object_arrays(tmp_path):
    buf = io.BytesIO()
    np.save(buf, np.array([[1, 2]], dtype=object), allow_pickle=True)
    p = tmp_path / "o.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("inputs.npy", buf.getvalue())
    assert inputs_err(p) == (f"{p}: array 'inputs' is not readable (it holds object; pattern "
                             "arrays hold numbers: bool, integer or float)")


def test_inputs_alone_still_load(tmp_path):
    p = tmp_path / "i.npz"
    np.savez(p, inputs=np.ones((3, 2)))
    assert load_inputs(p, N).shape == (3, 2)
    t = tmp_path / "i.txt"
    t.write_text("# two records\n1 0\n0 1\n")
    assert load_inputs(t, N).tolist() == [[1.0, 0.0], [0.0, 1.0]]


# --- zip archives zipfile cannot read (found by the long fuzz campaign) ---------


def _patch_central(raw: bytes, offset: int, value: int, size: int = 2) -> bytes:
    """Set a field of every central-directory entry (offset from its
    signature): 6 the version needed to extract, 8 the flags (bit 0:
    encrypted), 10 the compression method."""
    b = bytearray(raw)
    i = b.find(b"PK\x01\x02")
    while i >= 0:
        b[i + offset:i + offset + size] = value.to_bytes(size, "little")
        i = b.find(b"PK\x01\x02", i + 4)
    return bytes(b)


ZIP_DAMAGE = [(6, 64, "zip file version 6.4"), (8, 1, "encrypted"),
              (10, 99, "compression method is not supported")]


@pytest.mark.parametrize("offset,value,message", ZIP_DAMAGE)
def test_checkpoint_zip_features_zipfile_lacks(tmp_path, saved, offset, value, message):
    path = tmp_path / "z.npz"
    path.write_bytes(_patch_central(saved[0].read_bytes(), offset, value))
    for load in (state_err, weights_err):
        msg = load(path)
        assert msg.startswith(f"{path}: ") and message in msg


@pytest.mark.parametrize("offset,value,message", ZIP_DAMAGE)
def test_pattern_and_input_zip_features_zipfile_lacks(tmp_path, offset, value, message):
    from rapsim.compiler.data import load_patterns
    src = tmp_path / "ok.npz"
    np.savez(src, inputs=np.zeros((2, 2)), targets=np.zeros((2, 1)))
    path = tmp_path / "z.npz"
    path.write_bytes(_patch_central(src.read_bytes(), offset, value))
    with pytest.raises(RapError) as e:
        load_patterns(path, N)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)
    msg = inputs_err(path)
    assert msg.startswith(f"{path}: ") and message in msg
