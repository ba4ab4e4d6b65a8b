"""Pluggable statistics (rapsim.compiler.stats): the built-in ones on known
outputs, registering one, and selecting them in a description."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.compiler import stats
from rapsim.compiler.reference import pattern_correct

from netsrc import BASE, messages, net

def test_builtin_values():
    n = net(BASE.replace("layer y: sigmoid 1", "layer y: sigmoid 3"))
    y = np.array([[0.9, 0.1, 0.0], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.6, 0.3, 0.1]])
    t = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    got = stats.compute(n, ["confusion", "class_error", "output_accuracy"], y, t)
    assert got["confusion"] == {"y": [[1, 0, 0], [0, 1, 1], [1, 0, 0]]}
    assert got["class_error"] == {"y": {"patterns": [1, 2, 1], "error": [0.0, 0.5, 1.0]}}
    # unit 0: 0.9/1, 0.2/0, 0.1/0, 0.6/0 -> 3 of 4 on the right side of 0.5;
    # unit 1: 0.1/0, 0.7/1, 0.2/1, 0.3/0 -> 3; unit 2: 0.0/0, 0.1/0, 0.7/0, 0.1/1 -> 2
    assert got["output_accuracy"] == {"accuracy": [0.75, 0.75, 0.5]}
    # a pattern is correct (pattern_correct) exactly where the confusion's diagonal counts it
    assert np.trace(np.array(got["confusion"]["y"])) == pattern_correct(n, y, t).sum()


def test_one_unit_classes_use_the_midpoint():
    n = net(BASE.replace("layer y: sigmoid 1", "layer y: tanh 1"))
    y = np.array([[0.3], [-0.2], [0.1]])
    t = np.array([[1.0], [1.0], [-1.0]])
    got = stats.compute(n, ["confusion", "class_error"], y, t)
    assert got["confusion"] == {"y": [[0, 1], [1, 1]]}
    assert got["class_error"]["y"] == {"patterns": [1, 2], "error": [1.0, 0.5]}


def test_empty_class_and_no_patterns():
    n = net(BASE.replace("layer y: sigmoid 1", "layer y: sigmoid 2"))
    got = stats.compute(n, ["class_error", "output_accuracy"], np.zeros((0, 2)), np.zeros((0, 2)))
    assert got["class_error"]["y"] == {"patterns": [0, 0], "error": [None, None]}
    assert got["output_accuracy"] == {"accuracy": [None, None]}


def test_register():
    n = net(BASE)
    stats.register("mean_output", lambda net_, y, t: {"mean": float(y.mean())})
    try:
        assert "mean_output" in stats.available()
        assert stats.compute(n, ["mean_output"], np.array([[0.25], [0.75]]),
                             np.zeros((2, 1))) == {"mean_output": {"mean": 0.5}}
        # a description can select it now
        assert net(BASE + "stats mean_output\n").stats == ["mean_output"]
    finally:
        stats._REGISTRY.pop("mean_output")
    with pytest.raises(ValueError, match="built-in"):
        stats.register("confusion", lambda *a: {})
    with pytest.raises(ValueError, match="a word"):
        stats.register("two words", lambda *a: {})
    with pytest.raises(TypeError, match="not callable"):
        stats.register("x", 3)
    with pytest.raises(KeyError, match="unknown statistic 'nope'"):
        stats.compute(n, ["nope"], np.zeros((1, 1)), np.zeros((1, 1)))


def test_selected_in_the_description():
    n = net(BASE + "stats confusion, output_accuracy\nstats class_error\n")
    assert n.stats == ["confusion", "output_accuracy", "class_error"]
    assert net(BASE).stats == []


@pytest.mark.parametrize("src, expected", [
    (BASE + "stats confusion, nope\n",
     ["t.net:7:18: error: unknown statistic 'nope' (there are: class_error, confusion, "
      "output_accuracy)"]),
    (BASE + "stats confusion\nstats confusion\n",
     ["t.net:8:7: error: statistic 'confusion' is selected twice (also at t.net:7:7)"]),
    (BASE + "stats\n", ["t.net:7:1: error: syntax error: unexpected end of file"]),
    (BASE + "layer stats: sigmoid 2\n",
     ["t.net:7:7: error: 'stats' is a keyword and cannot name a layer",
      "t.net:7:7: error: layer 'stats' is not reached from an input (no path from an input "
      "layer leads to it)"]),
])
def test_selection_errors(src, expected):
    assert messages(src) == expected


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 30), st.integers(1, 5))
def test_confusion_counts_every_pattern(seed, patterns, units):
    n = net(BASE.replace("layer y: sigmoid 1", f"layer y: sigmoid {units}"))
    rng = np.random.default_rng(seed)
    y, t = rng.random((patterns, units)), rng.random((patterns, units))
    got = stats.compute(n, ["confusion", "class_error"], y, t)
    m = np.array(got["confusion"]["y"])
    classes = max(units, 2)
    assert m.shape == (classes, classes) and m.sum() == patterns
    assert np.trace(m) == pattern_correct(n, y, t).sum()
    assert got["class_error"]["y"]["patterns"] == m.sum(axis=1).tolist()
