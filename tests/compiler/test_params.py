"""Param lists (CLONES' Param: a name with a list of values), parameter
files, and the table host code reads."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.compiler.params import param_table, param_value, read_params_file
from rapsim.compiler.parser import parse_param_value
from rapsim.errors import RapError

from netsrc import messages, net

LIST_NET = """\
param sizes = 3, 2 + 3
param wide = sizes[1] * 2
layer x: input 2
layer h: sigmoid sizes[0] bias
layer g: tanh wide
layer y: sigmoid 1
connect x -> h
connect h -> g
connect g -> y
net n { input x  output y }
"""


def test_list_param_and_index():
    n = net(LIST_NET)
    assert n.layers["h"].size == 3 and n.layers["g"].size == 10
    assert n.params["sizes"] == (3, 5) and n.params["wide"] == 10
    assert param_table(n) == {"sizes": (3, 5), "wide": (10,)}
    assert param_value(n, "sizes", 1) == 5 and param_value(n, "wide") == 10
    with pytest.raises(IndexError, match="has 2 values: give an index"):
        param_value(n, "sizes")
    with pytest.raises(IndexError, match="has 2 values, not 3"):
        param_value(n, "sizes", 2)
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        param_value(n, "nope")


def test_list_override_from_outside():
    n = net(LIST_NET, params={"sizes": "7,8"})
    assert n.layers["h"].size == 7 and n.layers["g"].size == 16
    n = net(LIST_NET, params={"sizes": [4, 1.5e0]})
    assert n.params["sizes"] == (4, 1.5)
    # a scalar is a list of one: sizes[0] still works, sizes[1] does not
    assert messages(LIST_NET, params={"sizes": 4}) == [
        "t.net:2:20: error: index 1 is out of range: parameter 'sizes' has 1 value",
        "t.net:5:15: error: unknown parameter 'wide'"]


@pytest.mark.parametrize("src, expected", [
    (LIST_NET.replace("sizes[1] * 2", "sizes * 2"),
     ["t.net:2:14: error: parameter 'sizes' is a list of 2 values: take one with sizes[0] "
      ".. sizes[1]", "t.net:5:15: error: unknown parameter 'wide'"]),
    (LIST_NET.replace("sizes[1]", "sizes[2]"),
     ["t.net:2:20: error: index 2 is out of range: parameter 'sizes' has 2 values",
      "t.net:5:15: error: unknown parameter 'wide'"]),
    (LIST_NET.replace("sizes[1]", "sizes[-1]"),
     ["t.net:2:20: error: index -1 is out of range: parameter 'sizes' has 2 values",
      "t.net:5:15: error: unknown parameter 'wide'"]),
    (LIST_NET.replace("sizes[1]", "sizes[0.5]"),
     ["t.net:2:20: error: a list index must be a whole number, got 0.5",
      "t.net:5:15: error: unknown parameter 'wide'"]),
    (LIST_NET.replace("sizes[1]", "nope[1]"),
     ["t.net:2:14: error: unknown parameter 'nope'",
      "t.net:5:15: error: unknown parameter 'wide'"]),
    (LIST_NET.replace("param sizes = 3, 2 + 3", "param sizes = 3,"),
     ["t.net:2:7: error: syntax error: unexpected 'wide'; expected one of ',', ';', "
      "behaviour, connect, include, layer, net, param, stats, train, transfer"]),
])
def test_list_errors(src, expected):
    assert messages(src) == expected


@pytest.mark.parametrize("value, message", [
    ("1,,2", "'' is not a number"),
    ("1,x", "'x' is not a number"),
    ([], "an empty list of values"),
    ("1,inf", "is not a finite number"),
])
def test_bad_list_values(value, message):
    with pytest.raises(RapError, match=message):
        parse_param_value("p", value)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=6))
def test_list_text_round_trip(values):
    got = parse_param_value("p", ",".join(map(str, values)))
    assert (got if isinstance(got, tuple) else (got,)) == tuple(values)


def test_params_file(tmp_path):
    p = tmp_path / "run.par"
    p.write_text("# a run\nhidden = 4\nsizes = 128, 256   # two\n\nrate 0.5\nlist 1 2 3\n")
    assert read_params_file(p) == {"hidden": (4,), "sizes": (128, 256), "rate": (0.5,),
                                   "list": (1, 2, 3)}


@pytest.mark.parametrize("text, message", [
    ("hidden = 4\nhidden = 5\n", ":2: parameter 'hidden' is already given (line 1)"),
    ("hidden =\n", ":1: parameter 'hidden' has no value"),
    ("hidden = 4,\n", ":1: parameter 'hidden' has an empty value"),
    ("hidden = four\n", ":1: parameter 'hidden': 'four' is not a number"),
    ("2x = 1\n", ":1: expected NAME = VALUE[, VALUE...], not '2x = 1'"),
    ("hidden\n", ":1: parameter 'hidden' has no value"),
    # issue 18 (long fuzz campaign): a line of commas only was a ValueError
    (",# parameters\nhidden = 3\n", ":1: expected NAME = VALUE[, VALUE...], not ','"),
    (" , ,\n", ":1: expected NAME = VALUE[, VALUE...], not ', ,'"),
])
def test_params_file_errors(tmp_path, text, message):
    p = tmp_path / "bad.par"
    p.write_text(text)
    with pytest.raises(RapError) as e:
        read_params_file(p)
    assert str(e.value) == f"{p}{message}"


def test_params_file_unreadable(tmp_path):
    with pytest.raises(RapError, match="no such file"):
        read_params_file(tmp_path / "none.par")
    with pytest.raises(RapError, match="is a folder"):
        read_params_file(tmp_path)
    (tmp_path / "bin.par").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RapError, match="not UTF-8"):
        read_params_file(tmp_path / "bin.par")
