"""Pluggable statistics: CLONES' Stats, computed by the host from the
outputs the nodes log after every epoch (the evaluation pass).

A statistic is a function ``f(network, outputs, targets) -> dict`` of the
outputs and targets of a set of patterns (rows; the output layers side by
side, as :mod:`rapsim.compiler.reference` has them) that returns JSON-ready
values.  Three are built in; :func:`register` adds more (a name the
description's ``stats`` statement and ``rap train --stats`` can then use).

``class_error``
    per output layer, for each class (the unit of the largest target; with
    one unit, target above or below the midpoint -- 0.5, 0 for tanh --
    giving classes 0 and 1): the patterns of that class and the fraction of
    them classified wrongly (``None`` for a class with no pattern).
``confusion``
    per output layer, the confusion matrix: ``matrix[i][j]`` patterns of
    class ``i`` (target) classified as ``j`` (output), classes as above.
``output_accuracy``
    per output unit (all output layers, in order): the fraction of patterns
    whose output is on the same side of the midpoint as the target.

The classification follows :func:`rapsim.compiler.reference.pattern_correct`:
a pattern is correct when every output layer's class is right.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .ir import Network
from .reference import _THRESHOLD, _slices

__all__ = ["register", "available", "compute", "StatFunction"]

StatFunction = Callable[[Network, np.ndarray, np.ndarray], dict]


def _midpoint(network: Network, layer: str) -> float:
    return _THRESHOLD.get(network.layers[layer].kind, 0.5)


def _classes(network: Network, layer: str, v: np.ndarray) -> tuple[np.ndarray, int]:
    """The class of each row of a layer's values, and the number of classes."""
    if v.shape[1] == 1:
        return (v[:, 0] > _midpoint(network, layer)).astype(np.int64), 2
    return np.argmax(v, axis=1), v.shape[1]


def confusion(network: Network, outputs: np.ndarray, targets: np.ndarray) -> dict:
    out = {}
    for name, sl in _slices(network, network.outputs).items():
        truth, n = _classes(network, name, targets[:, sl])
        guess, _ = _classes(network, name, outputs[:, sl])
        m = np.zeros((n, n), dtype=np.int64)
        np.add.at(m, (truth, guess), 1)
        out[name] = m.tolist()
    return out


def class_error(network: Network, outputs: np.ndarray, targets: np.ndarray) -> dict:
    out = {}
    for name, m in confusion(network, outputs, targets).items():
        m = np.asarray(m)
        counts = m.sum(axis=1)
        wrong = counts - np.diag(m)
        out[name] = {"patterns": counts.tolist(),
                     "error": [None if c == 0 else float(w / c) for w, c in zip(wrong, counts)]}
    return out


def output_accuracy(network: Network, outputs: np.ndarray, targets: np.ndarray) -> dict:
    acc = []
    for name, sl in _slices(network, network.outputs).items():
        mid = _midpoint(network, name)
        same = (outputs[:, sl] > mid) == (targets[:, sl] > mid)
        acc += (same.mean(axis=0) if len(same) else np.full(same.shape[1], np.nan)).tolist()
    return {"accuracy": [None if np.isnan(a) else float(a) for a in acc]}


_REGISTRY: dict[str, StatFunction] = {"class_error": class_error, "confusion": confusion,
                                      "output_accuracy": output_accuracy}


def register(name: str, function: StatFunction) -> None:
    """Add a statistic (or replace one added before; the built-in ones stay)."""
    if not name.isidentifier():
        raise ValueError(f"a statistic's name is a word, not {name!r}")
    if name in ("class_error", "confusion", "output_accuracy"):
        raise ValueError(f"{name!r} is a built-in statistic")
    if not callable(function):
        raise TypeError(f"statistic {name!r}: {function!r} is not callable")
    _REGISTRY[name] = function


def available() -> list[str]:
    """The names of the statistics there are, built-in ones first."""
    return list(_REGISTRY)


def compute(network: Network, names: list[str], outputs: np.ndarray,
            targets: np.ndarray) -> dict[str, dict]:
    """``{name: value}`` of the statistics ``names`` over the rows of
    ``outputs`` and ``targets``."""
    outputs, targets = (np.asarray(a, dtype=np.float64) for a in (outputs, targets))
    if outputs.ndim != 2 or outputs.shape != targets.shape:
        raise ValueError(f"outputs {outputs.shape} and targets {targets.shape} must be rows of "
                         "the same width")
    out = {}
    for n in names:
        if n not in _REGISTRY:
            raise KeyError(f"unknown statistic {n!r} (there are: {', '.join(_REGISTRY)})")
        out[n] = _REGISTRY[n](network, outputs, targets)
    return out
