"""Issue 18: pattern files that are devices, FIFOs, object arrays or numpy
headers claiming terabytes are refused before anything is read or
allocated, naming the file."""
from __future__ import annotations

import io
import os
import struct
import zipfile

import numpy as np
import pytest

from rapsim.compiler import data
from rapsim.compiler.parser import parse_text
from rapsim.errors import RapError

NET = parse_text("layer x: input 2\nlayer y: sigmoid 1\nconnect x -> y\n"
                 "net n { input x output y }\n", "t.net")


def _npy(descr: str, shape: str, body: bytes = b"\0" * 64) -> bytes:
    h = f"{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}"
    h += " " * (-(len(h) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + body


def err(path) -> str:
    with pytest.raises(RapError) as e:
        data.load_patterns(path, NET)
    return str(e.value)


def test_device_is_refused():
    assert err("/dev/zero") == ("/dev/zero: cannot read: not a regular file "
                                "(a device, a FIFO or a socket)")


def test_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "p.pat")
    assert "not a regular file" in err(tmp_path / "p.pat")


def test_npy_header_claiming_terabytes(tmp_path):
    p = tmp_path / "h.npy"
    p.write_bytes(_npy("'<f8'", "(100000000000, 3)"))
    assert err(p) == (f"{p}: the array: its header claims shape (100000000000, 3) "
                      "(2400000000000 bytes) but the file holds 64 bytes of data")


def test_npy_object_dtype(tmp_path):
    p = tmp_path / "o.npy"
    p.write_bytes(_npy("'|O'", "(4, 3)"))
    assert err(p) == (f"{p}: not a readable numpy file (it holds object; pattern arrays hold "
                      "numbers: bool, integer or float)")


def test_npz_member_claiming_terabytes(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("inputs.npy", _npy("'<f8'", "(100000000000, 2)"))
        z.writestr("targets.npy", _npy("'<f8'", "(4, 1)"))
    p = tmp_path / "h.npz"
    p.write_bytes(buf.getvalue())
    assert err(p).startswith(f"{p}: array 'inputs': its header claims shape (100000000000, 2)")


def test_npz_object_array(tmp_path):
    p = tmp_path / "o.npz"
    np.savez(p, inputs=np.array([object(), 1], dtype=object), targets=np.zeros((2, 1)))
    assert err(p).startswith(f"{p}: array 'inputs' is not readable (it holds object")


def test_npy_wrong_columns_before_loading(tmp_path):
    p = tmp_path / "c.npy"
    p.write_bytes(_npy("'<f8'", "(2, 9)", b"\0" * 144))
    assert "rows have 9 columns; the net takes 2 input values and 1 targets" in err(p)


def test_good_files_still_load(tmp_path):
    p = tmp_path / "g.npz"
    np.savez(p, inputs=np.zeros((4, 2)), targets=np.ones((4, 1)))
    assert len(data.load_patterns(p, NET).train) == 4
    q = tmp_path / "g.npy"
    np.save(q, np.zeros((4, 3)))
    assert len(data.load_patterns(q, NET).train) == 4
