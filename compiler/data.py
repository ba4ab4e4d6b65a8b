"""Pattern databases: loading, checking against a network, splitting and
shuffling (docs/network-language.md, "Pattern files").

A :class:`PatternSet` holds one row per pattern: ``inputs`` -- the net's
input layers side by side in the net's input order (a binary layer as one
0/1 column per unit; :func:`active_units` turns a row into the index set
the RAP's binary layers take) -- and ``targets`` -- the output layers side
by side in output order.  Files:

``.npz``
    arrays ``inputs`` and ``targets`` (or ``x`` and ``y``), and optionally a
    test set as ``test_inputs`` and ``test_targets`` (or ``x_test`` and
    ``y_test``);
``.npy``
    one 2-D array, a row per pattern: the input values, then the targets
    (or one class-label column);
anything else
    text: one pattern per line, the input values, an optional ``|``, then
    the targets; a binary layer's units may be written as the set of
    active indices in braces, ``{0 7 12}``; ``#`` starts a comment.

Targets may be class labels -- one integer per pattern, 0 .. units-1 --
for a net with one output layer of two or more units: they become one-hot
rows and are kept in ``labels``.  Every problem raises
:class:`rapsim.errors.RapError` naming the file (and line, for text).
"""
from __future__ import annotations

import math
import os
import re
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from rapsim.errors import RapError
from rapsim.fileio import open_input

from .ir import Network

__all__ = ["PatternSet", "Database", "load_patterns", "from_arrays", "split", "shuffled",
           "active_units", "input_size", "output_size"]


@dataclass
class PatternSet:
    inputs: np.ndarray                  # (patterns, input units), float64
    targets: np.ndarray                 # (patterns, output units), float64
    labels: np.ndarray | None = None    # (patterns,) class labels, when given as such
    source: str = ""

    def __len__(self) -> int:
        return len(self.inputs)

    def subset(self, rows) -> "PatternSet":
        rows = np.asarray(rows, dtype=np.int64)
        return PatternSet(self.inputs[rows], self.targets[rows],
                          None if self.labels is None else self.labels[rows], self.source)


@dataclass
class Database:
    train: PatternSet
    test: PatternSet | None = None


def input_size(network: Network) -> int:
    return sum(network.layers[n].size for n in network.inputs)


def output_size(network: Network) -> int:
    return sum(network.layers[n].size for n in network.outputs)


def active_units(network: Network, row: np.ndarray, layer: str) -> np.ndarray:
    """The active unit indices of binary input layer ``layer`` in an input row."""
    k = 0
    for n in network.inputs:
        size = network.layers[n].size
        if n == layer:
            return np.flatnonzero(row[k:k + size])
        k += size
    raise KeyError(f"{layer!r} is not an input layer of net {network.name!r}")


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------

_NPZ_KEYS = (("inputs", "targets"), ("x", "y"))
_NPZ_TEST_KEYS = (("test_inputs", "test_targets"), ("x_test", "y_test"))


def load_patterns(path, network: Network) -> Database:
    """Read a pattern file and check it against ``network``.  Only regular
    files are read (a device such as /dev/zero, or a FIFO, is refused rather
    than read for ever), at most MAX_PATTERN_BYTES; numpy headers are checked
    (numeric dtype, a shape the file's bytes can hold, the net's columns)
    before any array is allocated."""
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    with _open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if suffix == ".npz":
            return _load_npz(fh, path, network)
        if suffix == ".npy":
            if fh.read(4) == b"PK\x03\x04":
                raise RapError(f"{path}: is a .npz archive, not a .npy array: name it .npz")
            fh.seek(0)
            n_in, n_out = input_size(network), output_size(network)
            shape = _npy_header(fh, path, None, size)
            if len(shape) != 2:
                raise RapError(f"{path}: expected a 2-D array (a row per pattern), got shape {shape}")
            if shape[1] not in (n_in + n_out, n_in + 1):
                raise RapError(f"{path}: rows have {shape[1]} columns; the net takes {n_in} input "
                               f"values and {n_out} targets (or 1 class label)")
            arr = _np_load(fh, path)
            return Database(from_arrays(arr[:, :n_in], arr[:, n_in:], network, path))
        return Database(_load_text(fh, path, network))


#: Pattern files larger than this are refused before they are read
#: (docs/reliability.md).
MAX_PATTERN_BYTES = 1 << 30

#: what numpy raises for a file (or an archive member) it cannot read; zipfile
#: raises NotImplementedError for a zip version or compression method it does
#: not know, RuntimeError for an encrypted member
_NP_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error,
              NotImplementedError, RuntimeError)


def _open_regular(path: str):
    """``path`` opened for reading if it is a regular file of at most
    MAX_PATTERN_BYTES (rapsim.fileio.open_regular)."""
    return open_input(path, "a pattern file", MAX_PATTERN_BYTES)


#: what the arrays of a pattern file may hold (dtype kinds)
PATTERN_KINDS = ("biuf", "pattern arrays hold numbers: bool, integer or float")


def _npy_header(fh, path: str, what: str | None, size: int, kinds: tuple = PATTERN_KINDS
                ) -> tuple:
    """The shape in the .npy header at ``fh`` (left where it was), after
    checking that the dtype is of ``kinds`` (the dtype kinds allowed, and a
    sentence saying so) and that the ``size`` bytes of the file can hold the
    array: a header that claims terabytes is refused before anything is
    allocated."""
    start = fh.tell()
    fmt = np.lib.format
    unreadable = f"{path}: {what} is not readable" if what else f"{path}: not a readable numpy file"
    what = what or "the array"
    try:
        version = fmt.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(fh)
        else:
            raise RapError(f"{path}: {what}: numpy format version {version[0]}.{version[1]} "
                           "is not supported (1.0 and 2.0 are)")
    except _NP_ERRORS as e:
        raise RapError(f"{unreadable} ({e})") from None
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in kinds[0]:
        raise RapError(f"{unreadable} (it holds {dtype}; {kinds[1]})")
    if any(d < 0 for d in shape):
        raise RapError(f"{path}: {what} has a negative dimension in shape {shape}")
    need = math.prod(shape) * dtype.itemsize
    have = size - (fh.tell() - start)
    if need > have:
        raise RapError(f"{path}: {what}: its header claims shape {shape} ({need} bytes) but "
                       f"the file holds {max(have, 0)} bytes of data")
    fh.seek(start)
    return shape


def _np_load(fh, path: str):
    try:
        return np.load(fh, allow_pickle=False)
    except _NP_ERRORS as e:
        raise RapError(f"{path}: not a readable numpy file ({e})") from None


def _load_npz(fh, path: str, network: Network) -> Database:
    if fh.read(6) == b"\x93NUMPY":
        raise RapError(f"{path}: is a .npy array, not a .npz archive: name it .npy")
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh)
    except _NP_ERRORS as e:
        raise RapError(f"{path}: not a readable numpy file ({e})") from None
    with zf:
        members = {n[:-4]: zf.getinfo(n) for n in zf.namelist() if n.endswith(".npy")}
        names = set(members)
        keys = next((k for k in _NPZ_KEYS if set(k) <= names), None)
        if keys is None:
            raise RapError(f"{path}: expected arrays 'inputs' and 'targets' (or 'x' and 'y'); "
                           f"it holds {', '.join(sorted(names)) or 'nothing'}")
        tkeys = next((k for k in _NPZ_TEST_KEYS if set(k) <= names), None)
        if tkeys is None:
            for k in _NPZ_TEST_KEYS:
                half = [n for n in k if n in names]
                if half:
                    other = next(n for n in k if n not in names)
                    raise RapError(f"{path}: has a test array {half[0]!r} but no {other!r}")
        total = 0
        for k in keys + (tkeys or ()):
            info = members[k]
            total += info.file_size
            if total > MAX_PATTERN_BYTES:
                raise RapError(f"{path}: its arrays unpack to more than {MAX_PATTERN_BYTES} bytes")
            try:
                with zf.open(info) as member:
                    shape = _npy_header(member, path, f"array {k!r}", info.file_size)
            except _NP_ERRORS as e:
                raise RapError(f"{path}: array {k!r} is not readable ({e})") from None
            if len(shape) > 2:
                raise RapError(f"{path}: array {k!r} has shape {shape}; expected a row per "
                               "pattern (1-D or 2-D)")
    fh.seek(0)
    z = _np_load(fh, path)
    with z:
        train = from_arrays(*_members(z, keys, path), network, path)
        test = None
        if tkeys is not None:
            test = from_arrays(*_members(z, tkeys, path), network, f"{path} (test set)")
    return Database(train, test)


def _members(z, keys: tuple, path: str) -> list[np.ndarray]:
    """The arrays ``keys`` of an open .npz archive (read now: numpy reads
    members lazily, so a damaged one fails here)."""
    out = []
    for k in keys:
        try:
            out.append(z[k])
        except _NP_ERRORS as e:
            raise RapError(f"{path}: array {k!r} is not readable ({e})") from None
    return out


def from_arrays(inputs, targets, network: Network, source: str = "<arrays>", *,
                lines: list[int] | None = None) -> PatternSet:
    """A PatternSet from arrays, checked against ``network``: shapes, finite
    values within the RAP's float range, 0/1 in binary layers; class labels
    become one-hot targets.  ``lines``: the line of each pattern in a text
    file, for the messages (``file:line: ...`` instead of ``file: pattern
    i: ...``)."""
    def where(i) -> str:
        return f"{source}:{lines[i]}" if lines is not None else f"{source}: pattern {i}"
    x = np.asarray(inputs)
    y = np.asarray(targets)
    n_in, n_out = input_size(network), output_size(network)
    if x.dtype.kind not in "biuf" or y.dtype.kind not in "biuf":
        raise RapError(f"{source}: patterns must be numbers, not {x.dtype if x.dtype.kind not in 'biuf' else y.dtype}")
    if x.ndim == 1 and n_in == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[1] != n_in:
        raise RapError(f"{source}: inputs have shape {x.shape}; the net's input layers take "
                       f"{n_in} values per pattern ({_sizes(network, network.inputs)})")
    if len(x) == 0:
        raise RapError(f"{source}: no patterns")
    if len(y) != len(x):
        raise RapError(f"{source}: {len(x)} input rows but {len(y)} target rows")
    x = x.astype(np.float64)
    labels = None
    if (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1)) and n_out > 1:
        labels = _labels(y.reshape(-1), network, source, where)
        y = np.eye(n_out)[labels]
    else:
        if y.ndim == 1:
            y = y[:, None]
        if y.ndim != 2 or y.shape[1] != n_out:
            raise RapError(f"{source}: targets have shape {y.shape}; the net's output layers "
                           f"take {n_out} values per pattern ({_sizes(network, network.outputs)}) "
                           f"or a class label")
        y = y.astype(np.float64)
    _finite(x, "input", where)
    _finite(y, "target", where)
    if network.training.error == "cross_entropy":
        bad = (y < 0) | (y > 1)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise RapError(f"{where(i)}: target value {j} is {y[i, j]:g}; error cross_entropy "
                           f"takes targets from 0 to 1")
    _binary(x, network, where)
    return PatternSet(x, y, labels, source)


def _sizes(network: Network, names: list[str]) -> str:
    return ", ".join(f"{n}: {network.layers[n].size}" for n in names)


def _labels(y: np.ndarray, network: Network, source: str, where) -> np.ndarray:
    n_out = output_size(network)
    if len(network.outputs) != 1:
        raise RapError(f"{source}: class labels need a net with one output layer; "
                       f"this one has {len(network.outputs)} ({', '.join(network.outputs)})")
    yf = y.astype(np.float64)
    bad = ~np.isfinite(yf) | (yf != np.round(yf)) | (yf < 0) | (yf >= n_out)
    if bad.any():
        i = int(np.argmax(bad))
        raise RapError(f"{where(i)}: class label {float(y[i]):g} is not one of 0..{n_out - 1}")
    return yf.astype(np.int64)


#: the largest magnitude of a C30 single-precision float (that of IEEE single)
C30_MAX = float(np.finfo(np.float32).max)


def _finite(a: np.ndarray, what: str, where) -> None:
    bad = ~np.isfinite(a)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise RapError(f"{where(i)}: {what} value {j} is {a[i, j]}")
    big = np.abs(a) > C30_MAX
    if big.any():
        i, j = np.argwhere(big)[0]
        raise RapError(f"{where(i)}: {what} value {j} is {a[i, j]:g}, beyond the RAP's "
                       f"floating-point range (magnitudes up to {C30_MAX:.4g})")


def _binary(x: np.ndarray, network: Network, where) -> None:
    k = 0
    for n in network.inputs:
        layer = network.layers[n]
        if layer.kind == "binary":
            block = x[:, k:k + layer.size]
            bad = (block != 0) & (block != 1)
            if bad.any():
                i, j = np.argwhere(bad)[0]
                raise RapError(f"{where(i)}: binary layer {n!r} takes 0 or 1 per "
                               f"unit, unit {j} is {block[i, j]:g}")
        k += layer.size


# ---------------------------------------------------------------------------
# The text format
# ---------------------------------------------------------------------------

_TOKEN = re.compile(r"\{[^}]*\}?|\||[^\s{}|]+|[{}]")


#: the first bytes of the numpy files, which are not read as text
_MAGIC = ((b"\x93NUMPY", "a .npy array: name it .npy"),
          (b"PK\x03\x04", "a zip file (a .npz archive?): name it .npz"))


def _load_text(fh, path: str, network: Network) -> PatternSet:
    try:
        raw = fh.read()
        for magic, what in _MAGIC:
            if raw.startswith(magic):
                raise RapError(f"{path}: is {what}")
        lines = raw.decode("utf-8-sig").splitlines()
    except OSError as e:
        raise RapError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise RapError(f"{path}: not a text pattern file (byte {e.start} is not UTF-8 text; "
                       f"the numpy formats need the names .npy and .npz)") from None
    xs, ys, numbers = [], [], []
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0]
        tokens = _TOKEN.findall(line)
        if tokens:
            x, y = _text_pattern(tokens, network, f"{path}:{number}")
            xs.append(x)
            ys.append(y)
            numbers.append(number)
    if not xs:
        raise RapError(f"{path}: no patterns")
    if len({len(y) for y in ys}) > 1:
        raise RapError(f"{path}: some patterns give class labels and others target values")
    return from_arrays(np.array(xs), np.array(ys), network, path, lines=numbers)


def _text_pattern(tokens: list[str], network: Network, where: str):
    pos = 0
    x: list[float] = []
    for n in network.inputs:
        layer = network.layers[n]
        if pos < len(tokens) and tokens[pos].startswith("{"):
            if layer.kind != "binary":
                raise RapError(f"{where}: a set of active units is for binary layers; "
                               f"{n!r} is an {layer.kind} layer")
            x.extend(_active_set(tokens[pos], layer.size, n, where))
            pos += 1
            continue
        values = tokens[pos:pos + layer.size]
        if len(values) < layer.size or "|" in values:
            got = len(values) if "|" not in values else values.index("|")
            raise RapError(f"{where}: input layer {n!r} takes {layer.size} values, got {got}")
        x.extend(_number(v, where) for v in values)
        pos += layer.size
    if pos < len(tokens) and tokens[pos] == "|":
        pos += 1
    rest = tokens[pos:]
    n_out = output_size(network)
    if "|" in rest:
        raise RapError(f"{where}: more input values than the net's input layers take "
                       f"({input_size(network)})")
    if len(rest) not in (n_out, 1):
        raise RapError(f"{where}: expected {n_out} target values (or 1 class label), got {len(rest)}")
    return x, [_number(v, where) for v in rest]


def _active_set(token: str, size: int, layer: str, where: str) -> list[float]:
    if not token.endswith("}"):
        raise RapError(f"{where}: '{{' without '}}'")
    row = [0.0] * size
    for v in token[1:-1].replace(",", " ").split():
        try:
            i = int(v)
        except ValueError:
            raise RapError(f"{where}: {v!r} is not a unit index") from None
        if not 0 <= i < size:
            raise RapError(f"{where}: unit {i} is out of range for binary layer {layer!r} "
                           f"(0..{size - 1})")
        row[i] = 1.0
    return row


def _number(v: str, where: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise RapError(f"{where}: {v!r} is not a number") from None


# ---------------------------------------------------------------------------
# Splitting and shuffling
# ---------------------------------------------------------------------------

def split(patterns: PatternSet, test: float | int, seed: int | None = None
          ) -> tuple[PatternSet, PatternSet]:
    """(train, test): ``test`` is a fraction (0 < f < 1: round(f * n)
    patterns) or a count of patterns.  Without ``seed`` the test set is the
    last patterns of the file; with one, the patterns are first shuffled by
    :func:`shuffled`."""
    n = len(patterns)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise RapError(f"the split seed must be a whole number of at least 0, not {seed!r}")
    if isinstance(test, float):
        if not 0 < test < 1:
            raise RapError(f"test fraction must be between 0 and 1, got {test}")
        k = int(round(test * n))
    else:
        k = int(test)
    if not 0 < k < n:
        raise RapError(f"{patterns.source}: cannot hold out {k} of {n} patterns as a test set "
                       f"(both sets need at least one)")
    ps = shuffled(patterns, seed) if seed is not None else patterns
    return ps.subset(np.arange(n - k)), ps.subset(np.arange(n - k, n))


def shuffled(patterns: PatternSet, seed: int) -> PatternSet:
    """The patterns in the order ``numpy.random.default_rng(seed).permutation(n)``."""
    return patterns.subset(np.random.default_rng(seed).permutation(len(patterns)))
