"""Saving and resuming training: CLONES' file save and restore of a Net.

A checkpoint is a ``.npz`` archive (``numpy.savez``, no pickles) holding
everything the run needs to continue exactly where it stopped:

==========================  ====================================================
``format``                  ``"rap-checkpoint-1"``
``network``                 the network's name
``w:<src->dst>``            a connect's weights (:class:`~rapsim.compiler.reference.Weights`
                            layout: full (dst, src), bus (dst,), sparse (pairs,))
``b:<layer>``               a layer's biases
``m:<src->dst>``, ``mb:<layer>``  momentum of the connects and biases (only when
                            the network trains with momentum)
``epochs_done``             how many epochs have run
``order_seed``, ``shuffle`` the pattern order's state: epoch ``e`` presents the
                            patterns in ``pattern_order(n, e, order_seed, shuffle)``,
                            so the seed and the epoch count are the whole state of
                            the shuffle
``rate``                    the learning rate of the last epoch (the schedule's
                            ``rate_so_far``)
``history``                 (epochs, 8) float array: epoch, rate, training loss and
                            accuracy, test loss and accuracy (NaN: no test set),
                            validation loss and accuracy (NaN: no --valid set;
                            files of 6 columns, saved before, still load);
                            the schedule's errors are taken from it
``stopped_by``              ``"epochs"``, ``"schedule"`` or ``"behaviour"`` (a host
                            callback stopped the run: a resumed run goes on from
                            the weights as they were at the stop)
``train_patterns``          the run's number of training patterns (a resumed run
                            must have as many: the order permutes them)
==========================  ====================================================

A weights file (``rap train --load``, ``rap infer --weights``) is the same
archive; only the ``w:`` and ``b:`` arrays are needed.

Loading checks the file against the network and refuses one saved from
another network with a message naming what differs (a connect or bias that
is missing or extra, or an array of another shape).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from rapsim.errors import RapError

from .ir import Network
from .reference import EpochStats, Weights, _shape

FORMAT = "rap-checkpoint-1"

__all__ = ["TrainingState", "save_state", "load_state", "load_weights", "check_weights",
           "FORMAT"]


@dataclass
class TrainingState:
    """Where a training run stands after ``epochs_done`` epochs."""
    weights: Weights
    momentum: Weights | None = None         # None: zero (or no momentum)
    epochs_done: int = 0
    order_seed: int = 0
    shuffle: bool = True
    rate: float = 0.0                       # the last epoch's learning rate
    history: list[EpochStats] = field(default_factory=list)
    stopped_by: str = "epochs"
    #: training patterns of the run (the shuffle permutes this many; 0: not known)
    train_patterns: int = 0


def _expected(network: Network) -> dict[str, tuple]:
    """The arrays a network's weights file holds, with their shapes."""
    out = {f"w:{c.name}": _shape(network, c) for c in network.owned_connects()}
    for name, layer in network.layers.items():
        if layer.bias:
            out[f"b:{name}"] = (layer.size,)
    return out


def check_weights(network: Network, weights: Weights, source: str = "the weights") -> None:
    """Raise a RapError naming the first difference between ``weights`` and
    what ``network`` needs (missing, extra, or of another shape)."""
    have = {f"w:{k}": np.shape(v) for k, v in weights.connects.items()}
    have.update({f"b:{k}": np.shape(v) for k, v in weights.biases.items()})
    _compare(network, _expected(network), have, source)


def _describe(key: str) -> str:
    kind, name = key.split(":", 1)
    return {"w": f"connect {name}", "b": f"the bias of layer {name}",
            "m": f"the momentum of connect {name}",
            "mb": f"the bias momentum of layer {name}"}[kind]


def _compare(network: Network, want: dict, have: dict, source: str) -> None:
    for key, shape in want.items():
        if key not in have:
            raise RapError(f"{source} do not fit network {network.name!r}: "
                           f"{_describe(key)} is missing")
        if tuple(have[key]) != tuple(shape):
            raise RapError(f"{source} do not fit network {network.name!r}: {_describe(key)} "
                           f"has shape {tuple(have[key])} there, {tuple(shape)} here")
    for key in have:
        if key not in want:
            raise RapError(f"{source} do not fit network {network.name!r}: "
                           f"{_describe(key)} is not in this network")


def _history_array(history: list[EpochStats]) -> np.ndarray:
    nan = float("nan")
    rows = [[h.epoch, h.rate, h.train_loss, h.train_accuracy,
             nan if h.test_loss is None else h.test_loss,
             nan if h.test_accuracy is None else h.test_accuracy,
             nan if h.valid_loss is None else h.valid_loss,
             nan if h.valid_accuracy is None else h.valid_accuracy] for h in history]
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), 8)


def _history(arr: np.ndarray) -> list[EpochStats]:
    """The saved history: 8 columns (with the validation set's loss and
    accuracy), or the 6 of files saved before there was a validation set."""
    def opt(v: float) -> float | None:
        return None if math.isnan(v) else v
    out = []
    for row in arr:
        vals = [float(v) for v in row] + [float("nan")] * (8 - len(row))
        e, rate, tl, ta, sl, sa, vl, va = vals[:8]
        out.append(EpochStats(int(e), rate, tl, ta, opt(sl), opt(sa), opt(vl), opt(va)))
    return out


def state_arrays(network: Network, state: TrainingState) -> dict[str, np.ndarray]:
    """The arrays of a checkpoint (what :func:`save_state` writes)."""
    arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT), "network": np.array(network.name)}
    for prefix, bprefix, w in (("w", "b", state.weights), ("m", "mb", state.momentum)):
        if w is None:
            continue
        for k, v in w.connects.items():
            arrays[f"{prefix}:{k}"] = np.asarray(v, dtype=np.float64)
        for k, v in w.biases.items():
            arrays[f"{bprefix}:{k}"] = np.asarray(v, dtype=np.float64)
    arrays["epochs_done"] = np.array(state.epochs_done, dtype=np.int64)
    arrays["order_seed"] = np.array(state.order_seed, dtype=np.int64)
    arrays["shuffle"] = np.array(bool(state.shuffle))
    arrays["rate"] = np.array(float(state.rate))
    arrays["history"] = _history_array(state.history)
    arrays["stopped_by"] = np.array(state.stopped_by)
    arrays["train_patterns"] = np.array(state.train_patterns, dtype=np.int64)
    return arrays


def save_state(path, network: Network, state: TrainingState) -> None:
    """Write ``state`` to ``path`` (a ``.npz`` archive, written atomically)."""
    import io

    from rapsim.fileio import write_file
    check_weights(network, state.weights)
    buf = io.BytesIO()
    np.savez(buf, **state_arrays(network, state))
    write_file(os.fspath(path), buf.getvalue())


#: a checkpoint's arrays unpack to at most this many bytes (docs/reliability.md)
MAX_CHECKPOINT_BYTES = 1 << 30
#: what a checkpoint's arrays may hold (dtype kinds; see data._npy_header)
CHECKPOINT_KINDS = ("biufU", "a weights file holds numbers and a few words")


def _open(path) -> dict[str, np.ndarray]:
    """Every array of a checkpoint or weights file, read from a regular file
    of bounded size, each member's header checked before it is loaded."""
    import zipfile

    from rapsim.fileio import open_input

    from .data import _NP_ERRORS, _npy_header
    path = os.fspath(path)
    fh = open_input(path, "a weights file", MAX_CHECKPOINT_BYTES)
    with fh:
        try:
            if fh.read(6) == b"\x93NUMPY":
                raise RapError(f"{path}: is a .npy array, not a .npz weights file")
            fh.seek(0)
            if not zipfile.is_zipfile(fh):
                raise RapError(f"{path}: not a .npz archive (a weights file or a saved training "
                               "state is one)")
            fh.seek(0)
            with zipfile.ZipFile(fh) as zf:
                infos = zf.infolist()
                if sum(i.file_size for i in infos) > MAX_CHECKPOINT_BYTES:
                    raise RapError(f"{path}: its arrays unpack to more than "
                                   f"{MAX_CHECKPOINT_BYTES} bytes")
                for info in infos:
                    if not info.filename.endswith(".npy"):
                        raise RapError(f"{path}: member {info.filename!r} is not a numpy array")
                    with zf.open(info) as member:
                        _npy_header(member, path, f"array {info.filename[:-4]!r}",
                                    info.file_size, CHECKPOINT_KINDS)
            fh.seek(0)
            with np.load(fh, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except RapError:
            raise
        except (*_NP_ERRORS, AttributeError, TypeError) as e:
            raise RapError(f"{path}: not a readable .npz weights file ({e})") from None


def _float_array(path: str, arrays: dict, key: str) -> np.ndarray:
    a = arrays[key]
    if a.dtype.kind not in "fiu":
        raise RapError(f"{path}: {_describe(key)} is not numeric ({a.dtype})")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise RapError(f"{path}: {_describe(key)} holds NaN or infinite values")
    if np.any(np.abs(a) > 3.4e38):
        raise RapError(f"{path}: {_describe(key)} holds values beyond the C30's float range")
    return a


def _weights(path: str, network: Network, arrays: dict, prefix: str, bprefix: str,
             what: str) -> Weights:
    have = {}
    for k, v in arrays.items():
        if k.startswith(prefix + ":"):
            have["w:" + k[len(prefix) + 1:]] = v.shape
        elif k.startswith(bprefix + ":"):
            have["b:" + k[len(bprefix) + 1:]] = v.shape
    _compare(network, _expected(network), have, f"{path}: the {what}")
    w = Weights()
    for c in network.owned_connects():          # a shared matrix once, under its owner
        w.connects[c.name] = _float_array(path, arrays, f"{prefix}:{c.name}")
    for name, layer in network.layers.items():
        if layer.bias:
            w.biases[name] = _float_array(path, arrays, f"{bprefix}:{name}")
    return w


def load_weights(path, network: Network) -> Weights:
    """The weights and biases of a checkpoint or weights file, checked
    against ``network`` (a RapError names what differs)."""
    return _weights(os.fspath(path), network, _open(path), "w", "b", "weights")


def _scalar(path: str, arrays: dict, key: str, kind: str):
    if key not in arrays:
        raise RapError(f"{path}: holds weights only, not a training state ({key!r} is missing); "
                       "use it with --load")
    a = arrays[key]
    if a.shape != () or a.dtype.kind not in kind:
        raise RapError(f"{path}: {key!r} is not a single {'number' if kind != 'U' else 'word'}")
    return a.item()


def load_state(path, network: Network) -> TrainingState:
    """A checkpoint written by :func:`save_state`, checked against
    ``network``: the weights' shapes, and momentum present exactly when the
    network trains with momentum."""
    path = os.fspath(path)
    arrays = _open(path)
    fmt = arrays.get("format")
    if fmt is None or fmt.shape != () or str(fmt) != FORMAT:
        raise RapError(f"{path}: not a rap training checkpoint (no format {FORMAT!r})")
    weights = _weights(path, network, arrays, "w", "b", "weights")
    done = int(_scalar(path, arrays, "epochs_done", "iu"))
    momentum = None
    has_m = any(k.startswith(("m:", "mb:")) for k in arrays)
    if network.training.momentum and not has_m:
        raise RapError(f"{path}: saved without momentum; network {network.name!r} trains with "
                       f"momentum {network.training.momentum:g}")
    if has_m and not network.training.momentum:
        raise RapError(f"{path}: saved with momentum; network {network.name!r} trains without")
    if has_m:
        momentum = _weights(path, network, arrays, "m", "mb", "momentum")
    hist = arrays.get("history")
    if hist is None or hist.ndim != 2 or hist.shape[1] not in (6, 8) \
            or hist.dtype.kind != "f":
        raise RapError(f"{path}: the epoch history is missing or not an (epochs, 8) array "
                       "(or the (epochs, 6) of older files)")
    if done < 0 or len(hist) != done:
        raise RapError(f"{path}: epochs_done is {done} but the history has {len(hist)} epochs")
    if not np.array_equal(hist[:, 0], np.arange(done)):
        raise RapError(f"{path}: the epoch history's first column is not the epochs 0..{done - 1}")
    if not np.all(np.isfinite(hist[:, 1])) or np.any(hist[:, 1] < 0):
        raise RapError(f"{path}: the epoch history holds a learning rate that is negative, "
                       "NaN or infinite")
    seed = int(_scalar(path, arrays, "order_seed", "iu"))
    if not 0 <= seed < 2 ** 63:
        raise RapError(f"{path}: order_seed is {seed}; a seed is 0..2^63-1")
    rate = float(_scalar(path, arrays, "rate", "fiu"))
    if not (math.isfinite(rate) and rate >= 0):
        raise RapError(f"{path}: rate is {rate}; a learning rate is a finite number, 0 or more")
    patterns = int(_scalar(path, arrays, "train_patterns", "iu"))
    if patterns < 0:
        raise RapError(f"{path}: train_patterns is {patterns}; a count is 0 or more")
    stopped = str(_scalar(path, arrays, "stopped_by", "U"))
    if stopped not in ("epochs", "schedule", "behaviour"):
        raise RapError(f"{path}: stopped_by is {stopped!r}, not 'epochs', 'schedule' or "
                       "'behaviour'")
    return TrainingState(weights, momentum, done, seed, bool(_scalar(path, arrays, "shuffle", "b")),
                         rate, _history(hist), stopped, patterns)
