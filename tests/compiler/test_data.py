"""Pattern files: every format, labels, splitting, shuffling and every error."""
from __future__ import annotations

import numpy as np
import pytest

from netsrc import BASE, net
from rapsim.compiler import data
from rapsim.errors import RapError

XOR = BASE                                   # 2 inputs, 1 sigmoid output
CLS = """
layer x: input 3
layer h: sigmoid 4
layer y: softmax 4
connect x -> h
connect h -> y
net n { input x output y }
train { error cross_entropy }
"""
BIN = """
layer a: input 2
layer b: binary 4
layer h: sigmoid 3
layer y: sigmoid 2
connect a -> h
connect b -> h
connect h -> y
net n { input a, b output y }
"""
TWO_OUT = BASE.replace("layer y: sigmoid 1", "layer y: sigmoid 1\nlayer z: sigmoid 2") \
    .replace("connect h -> y", "connect h -> y\nconnect h -> z").replace("output y", "output y, z")


def err(fn, *a):
    with pytest.raises(RapError) as e:
        fn(*a)
    return str(e.value)


# -- .npz -------------------------------------------------------------------

def test_npz_inputs_targets(tmp_path):
    p = tmp_path / "d.npz"
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([[0], [1], [1], [0]])
    np.savez(p, inputs=x, targets=y)
    db = data.load_patterns(p, net(XOR))
    assert db.test is None and len(db.train) == 4
    assert db.train.inputs.dtype == np.float64 and db.train.inputs.tolist() == x.tolist()
    assert db.train.targets.tolist() == y.tolist() and db.train.labels is None
    assert db.train.source == str(p)


def test_npz_x_y_labels_and_test_set(tmp_path):
    p = tmp_path / "d.npz"
    np.savez(p, x=np.ones((5, 3)), y=np.array([0, 3, 1, 2, 3]),
             x_test=np.zeros((2, 3)), y_test=np.array([[1], [2]]))
    db = data.load_patterns(p, net(CLS))
    assert db.train.labels.tolist() == [0, 3, 1, 2, 3]
    assert db.train.targets.tolist() == np.eye(4)[[0, 3, 1, 2, 3]].tolist()
    assert db.test.labels.tolist() == [1, 2]
    assert db.test.source == f"{p} (test set)"


def test_npz_test_inputs_targets_and_float_labels(tmp_path):
    p = tmp_path / "d.npz"
    np.savez(p, inputs=np.ones((2, 3)), targets=np.array([1.0, 2.0]),
             test_inputs=np.ones((1, 3)), test_targets=np.eye(4)[[3]])
    db = data.load_patterns(p, net(CLS))
    assert db.train.labels.tolist() == [1, 2]
    assert db.test.targets.tolist() == [[0, 0, 0, 1]] and db.test.labels is None


def test_npz_missing_arrays(tmp_path):
    p = tmp_path / "d.npz"
    np.savez(p, a=np.ones(2), b=np.ones(2))
    assert err(data.load_patterns, p, net(XOR)) == \
        f"{p}: expected arrays 'inputs' and 'targets' (or 'x' and 'y'); it holds a, b"


# -- .npy -------------------------------------------------------------------

def test_npy_rows(tmp_path):
    p = tmp_path / "d.npy"
    np.save(p, np.array([[0, 1, 1], [1, 1, 0]]))
    db = data.load_patterns(p, net(XOR))
    assert db.train.inputs.tolist() == [[0, 1], [1, 1]] and db.train.targets.tolist() == [[1], [0]]


def test_npy_rows_with_label_column(tmp_path):
    p = tmp_path / "d.npy"
    np.save(p, np.array([[0.5, 1, 1, 3], [1, 1, 0, 0]]))
    db = data.load_patterns(p, net(CLS))
    assert db.train.labels.tolist() == [3, 0]
    p2 = tmp_path / "e.npy"
    np.save(p2, np.zeros((2, 7)))
    assert data.load_patterns(p2, net(CLS)).train.targets.shape == (2, 4)


def test_npy_errors(tmp_path):
    p = tmp_path / "d.npy"
    np.save(p, np.zeros((3, 5)))
    assert err(data.load_patterns, p, net(CLS)) == \
        f"{p}: rows have 5 columns; the net takes 3 input values and 4 targets (or 1 class label)"
    np.save(p, np.zeros(6))
    assert err(data.load_patterns, p, net(CLS)) == \
        f"{p}: expected a 2-D array (a row per pattern), got shape (6,)"
    bad = tmp_path / "bad.npy"
    bad.write_text("not numpy")
    assert err(data.load_patterns, bad, net(CLS)).startswith(f"{bad}: not a readable numpy file")


# -- text -------------------------------------------------------------------

def test_text_format(tmp_path):
    p = tmp_path / "xor.pat"
    p.write_text("# XOR\n0 0 | 0\n\n0 1   1   # no bar\n1 0 | 1\n  1 1|0\n")
    db = data.load_patterns(p, net(XOR))
    assert db.train.inputs.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert db.train.targets.tolist() == [[0], [1], [1], [0]]


def test_text_with_byte_order_mark(tmp_path):
    p = tmp_path / "b.txt"
    p.write_bytes(b"\xef\xbb\xbf0 1 | 1\r\n1 1 | 0\r\n")
    assert data.load_patterns(p, net(XOR)).train.inputs.tolist() == [[0, 1], [1, 1]]


def test_text_labels(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("0.1 0.2 0.3 | 2\n1 2 3 | 0\n")
    db = data.load_patterns(p, net(CLS))
    assert db.train.labels.tolist() == [2, 0]
    assert db.train.targets[0].tolist() == [0, 0, 1, 0]


def test_text_binary_layers(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("0.5 -1 {0 3} | 1 0\n1 1 {} | 0 1\n2 2 0 1 1 0 | 1 1\n3 3 {2,1} | 0 0\n")
    n = net(BIN)
    db = data.load_patterns(p, n)
    assert db.train.inputs.tolist() == [[0.5, -1, 1, 0, 0, 1], [1, 1, 0, 0, 0, 0],
                                        [2, 2, 0, 1, 1, 0], [3, 3, 0, 1, 1, 0]]
    assert data.active_units(n, db.train.inputs[0], "b").tolist() == [0, 3]
    assert data.active_units(n, db.train.inputs[1], "b").tolist() == []
    with pytest.raises(KeyError):
        data.active_units(n, db.train.inputs[0], "h")


@pytest.mark.parametrize("src, line, message", [
    (XOR, "0 | 1", "input layer 'x' takes 2 values, got 1"),
    (XOR, "0", "input layer 'x' takes 2 values, got 1"),
    (XOR, "0 1", "expected 1 target values (or 1 class label), got 0"),
    (XOR, "0 1 1 1", "expected 1 target values (or 1 class label), got 2"),
    (XOR, "0 1 | 1 | 0", "more input values than the net's input layers take (2)"),
    (XOR, "0 a | 1", "'a' is not a number"),
    (XOR, "{0} 1 | 1", "a set of active units is for binary layers; 'x' is an input layer"),
    (BIN, "1 1 {4} | 1 0", "unit 4 is out of range for binary layer 'b' (0..3)"),
    (BIN, "1 1 {x} | 1 0", "'x' is not a unit index"),
    (BIN, "1 1 {1 | 1 0", "'{' without '}'"),
])
def test_text_errors(tmp_path, src, line, message):
    p = tmp_path / "e.txt"
    p.write_text(f"# the second line is wrong\n{line}\n")
    assert err(data.load_patterns, p, net(src)) == f"{p}:2: {message}"


def test_text_mixed_labels_and_targets(tmp_path):
    p = tmp_path / "e.txt"
    p.write_text("1 2 3 | 1\n1 2 3 | 0 0 1 0\n")
    assert err(data.load_patterns, p, net(CLS)) == \
        f"{p}: some patterns give class labels and others target values"


def test_text_empty(tmp_path):
    p = tmp_path / "e.txt"
    p.write_text("# nothing\n\n")
    assert err(data.load_patterns, p, net(XOR)) == f"{p}: no patterns"


# -- checks against the network ----------------------------------------------

def test_npz_and_npy_mixed_up_damaged_or_half_a_test_set(tmp_path):
    n = net(XOR)
    np.save(tmp_path / "a.npy", np.zeros((4, 3)))
    (tmp_path / "a.npz").write_bytes((tmp_path / "a.npy").read_bytes())
    assert err(data.load_patterns, tmp_path / "a.npz", n) == \
        f"{tmp_path / 'a.npz'}: is a .npy array, not a .npz archive: name it .npy"
    np.savez(tmp_path / "z.npz", x=np.zeros((4, 2)), y=np.zeros(4))
    (tmp_path / "z.npy").write_bytes((tmp_path / "z.npz").read_bytes())
    assert err(data.load_patterns, tmp_path / "z.npy", n) == \
        f"{tmp_path / 'z.npy'}: is a .npz archive, not a .npy array: name it .npz"
    np.savez(tmp_path / "o.npz", x=np.array([[1, None]], dtype=object), y=np.zeros(1))
    assert err(data.load_patterns, tmp_path / "o.npz", n).startswith(
        f"{tmp_path / 'o.npz'}: array 'x' is not readable (")
    np.savez(tmp_path / "h.npz", x=np.zeros((4, 2)), y=np.zeros(4), x_test=np.zeros((2, 2)))
    assert err(data.load_patterns, tmp_path / "h.npz", n) == \
        f"{tmp_path / 'h.npz'}: has a test array 'x_test' but no 'y_test'"


def test_file_kind_by_suffix_in_any_case_and_numpy_files_under_other_names(tmp_path):
    n = net(XOR)
    with open(tmp_path / "D.NPZ", "wb") as f:           # np.savez would add .npz
        np.savez(f, x=np.zeros((4, 2)), y=np.zeros(4))
    assert len(data.load_patterns(tmp_path / "D.NPZ", n).train) == 4
    (tmp_path / "d.dat").write_bytes((tmp_path / "D.NPZ").read_bytes())
    assert err(data.load_patterns, tmp_path / "d.dat", n) == \
        f"{tmp_path / 'd.dat'}: is a zip file (a .npz archive?): name it .npz"
    np.save(tmp_path / "a.npy", np.zeros((4, 3)))
    (tmp_path / "a.txt").write_bytes((tmp_path / "a.npy").read_bytes())
    assert err(data.load_patterns, tmp_path / "a.txt", n) == \
        f"{tmp_path / 'a.txt'}: is a .npy array: name it .npy"
    (tmp_path / "b.pat").write_bytes(b"0 0 | 1\n\xff\n")
    assert err(data.load_patterns, tmp_path / "b.pat", n) == \
        f"{tmp_path / 'b.pat'}: not a text pattern file (byte 8 is not UTF-8 text; the numpy " \
        f"formats need the names .npy and .npz)"


def test_missing_file_and_folder(tmp_path):
    assert err(data.load_patterns, tmp_path / "no.npz", net(XOR)) == f"{tmp_path / 'no.npz'}: no such file"
    assert err(data.load_patterns, tmp_path, net(XOR)) == f"{tmp_path}: is a folder, not a pattern file"


def test_array_errors():
    n = net(XOR)
    f = data.from_arrays
    assert err(f, np.ones((3, 3)), np.ones((3, 1)), n, "s") == \
        "s: inputs have shape (3, 3); the net's input layers take 2 values per pattern (x: 2)"
    assert err(f, np.ones((3, 2)), np.ones((2, 1)), n, "s") == "s: 3 input rows but 2 target rows"
    assert err(f, np.ones((0, 2)), np.ones((0, 1)), n, "s") == "s: no patterns"
    assert err(f, np.ones((2, 2)), np.ones((2, 2)), n, "s") == \
        "s: targets have shape (2, 2); the net's output layers take 1 values per pattern (y: 1) " \
        "or a class label"
    x = np.ones((3, 2))
    x[2, 1] = np.nan
    assert err(f, x, np.ones((3, 1)), n, "s") == "s: pattern 2: input value 1 is nan"
    assert err(f, np.ones((1, 2)), np.array([[np.inf]]), n, "s") == \
        "s: pattern 0: target value 0 is inf"
    assert err(f, np.array([["a", "b"]]), np.ones((1, 1)), n, "s") == \
        "s: patterns must be numbers, not <U1"
    # beyond C30 single precision the nodes would hold a saturated value
    assert err(f, np.array([[0, -1e39]]), np.ones((1, 1)), n, "s") == \
        "s: pattern 0: input value 1 is -1e+39, beyond the RAP's floating-point range " \
        "(magnitudes up to 3.403e+38)"


@pytest.mark.parametrize("src, good, line, message", [
    (XOR, "0 0 | 0", "0 0 | nan", "target value 0 is nan"),
    (XOR, "0 0 | 0", "0 1e300 | 1", "input value 1 is 1e+300, beyond the RAP's floating-point "
                                    "range (magnitudes up to 3.403e+38)"),
    (CLS, "1 2 3 | 0", "1 2 3 | 4", "class label 4 is not one of 0..3"),
    (CLS, "1 2 3 | 0 1 0 0", "1 2 3 | 0 2 0 0",
     "target value 1 is 2; error cross_entropy takes targets from 0 to 1"),
    (BIN, "1 1 {0} | 1 0", "1 1 0 2 0 0 | 1 0", "binary layer 'b' takes 0 or 1 per unit, unit 1 is 2"),
])
def test_text_value_errors_name_the_line(tmp_path, src, good, line, message):
    """The checks made on the whole array still name the text line."""
    p = tmp_path / "e.txt"
    p.write_text(f"# a comment, a blank line, a good pattern\n\n{good}\n{line}\n")
    assert err(data.load_patterns, p, net(src)) == f"{p}:4: {message}"


def test_label_errors():
    n = net(CLS)
    assert err(data.from_arrays, np.ones((3, 3)), np.array([0, 4, 1]), n, "s") == \
        "s: pattern 1: class label 4 is not one of 0..3"
    assert err(data.from_arrays, np.ones((2, 3)), np.array([0.5, 1]), n, "s") == \
        "s: pattern 0: class label 0.5 is not one of 0..3"
    assert err(data.from_arrays, np.ones((1, 3)), np.array([-1]), n, "s") == \
        "s: pattern 0: class label -1 is not one of 0..3"
    assert err(data.from_arrays, np.ones((1, 2)), np.array([1]), net(TWO_OUT), "s") == \
        "s: class labels need a net with one output layer; this one has 2 (y, z)"


def test_binary_values_must_be_0_or_1():
    n = net(BIN)
    x = np.zeros((2, 6))
    x[1, 3] = 0.5
    assert err(data.from_arrays, x, np.zeros((2, 2)), n, "s") == \
        "s: pattern 1: binary layer 'b' takes 0 or 1 per unit, unit 1 is 0.5"


def test_single_input_and_output_columns():
    n = net(BASE.replace("input 2", "input 1"))
    ps = data.from_arrays(np.array([1.0, 2.0]), np.array([0.0, 1.0]), n)
    assert ps.inputs.shape == (2, 1) and ps.targets.shape == (2, 1) and ps.labels is None


# -- split and shuffle -------------------------------------------------------

def make(n=10):
    return data.from_arrays(np.arange(n * 3).reshape(n, 3), np.arange(n) % 4, net(CLS), "s")


def test_split_fraction_and_count_keep_order_without_seed():
    tr, te = data.split(make(), 0.3)
    assert len(tr) == 7 and len(te) == 3
    assert te.inputs[:, 0].tolist() == [21, 24, 27] and te.labels.tolist() == [3, 0, 1]
    tr, te = data.split(make(), 4)
    assert len(tr) == 6 and te.inputs[0, 0] == 18


def test_split_with_seed_shuffles_first():
    ps = make()
    tr, te = data.split(ps, 0.2, seed=5)
    order = np.random.default_rng(5).permutation(10)
    assert tr.inputs[:, 0].tolist() == (order[:8] * 3).tolist()
    assert te.inputs[:, 0].tolist() == (order[8:] * 3).tolist()
    assert sorted(tr.labels.tolist() + te.labels.tolist()) == sorted(ps.labels.tolist())


def test_split_errors():
    assert err(data.split, make(), 1.5) == "test fraction must be between 0 and 1, got 1.5"
    assert err(data.split, make(), 10) == \
        "s: cannot hold out 10 of 10 patterns as a test set (both sets need at least one)"
    assert err(data.split, make(), 0.01) == \
        "s: cannot hold out 0 of 10 patterns as a test set (both sets need at least one)"


def test_shuffled():
    ps = make()
    a, b = data.shuffled(ps, 1), data.shuffled(ps, 1)
    assert np.array_equal(a.inputs, b.inputs)
    assert not np.array_equal(a.inputs, ps.inputs)
    assert np.array_equal(a.targets, ps.targets[np.random.default_rng(1).permutation(10)])
