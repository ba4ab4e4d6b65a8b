"""The network language, construct by construct (docs/network-language.md)."""
from __future__ import annotations

import numpy as np
import pytest

from netsrc import BASE, messages, net
from rapsim.compiler.parser import parse_file, parse_param_value
from rapsim.errors import Diagnostics, RapError


def test_minimal_network():
    n = net(BASE)
    assert n.name == "n"
    assert list(n.layers) == ["x", "h", "y"]
    assert [(l.kind, l.size, l.bias) for l in n.layers.values()] == \
        [("input", 2, False), ("sigmoid", 3, True), ("sigmoid", 1, False)]
    assert [(c.src, c.dst, c.kind) for c in n.connects] == [("x", "h", "full"), ("h", "y", "full")]
    assert n.inputs == ["x"] and n.outputs == ["y"]
    assert n.forward_order == ["x", "h", "y"]
    assert n.backward_order == ["y", "h", "x"]
    assert n.connections() == 2 * 3 + 3
    assert n.source == "t.net"


def test_locations():
    n = net(BASE)
    assert str(n.layers["h"].loc) == "t.net:2:7"
    assert str(n.connects[1].loc) == "t.net:5:9"


@pytest.mark.parametrize("kind", ["input", "binary", "sigmoid", "tanh", "linear", "softmax"])
def test_every_layer_kind(kind):
    if kind in ("input", "binary"):
        src = f"layer a: {kind} 4\nlayer y: sigmoid 1\nconnect a -> y\nnet n {{ input a output y }}"
    elif kind == "softmax":
        src = ("layer a: input 4\nlayer y: softmax 3\nconnect a -> y\n"
               "net n { input a output y }\ntrain { error cross_entropy }")
    else:
        src = f"layer a: input 4\nlayer y: {kind} 2 bias\nconnect a -> y\nnet n {{ input a output y }}"
    n = net(src)
    assert kind in {l.kind for l in n.layers.values()}


def test_comments_semicolons_and_free_layout():
    n = net("""
        # a comment line
        layer x: input 2;  layer h: tanh 2   # trailing comment
        layer y:
            linear
            1
        connect x -> h; connect h -> y
        net n { input x; output y; }
        train { rate 0.1; epochs 2; }
        """)
    assert n.layers["y"].kind == "linear"
    assert n.training.epochs == 2


def test_connect_kinds():
    n = net("""
        layer x: input 4
        layer a: sigmoid 4
        layer b: sigmoid 4
        layer c: sigmoid 2
        layer y: sigmoid 1
        connect x -> a bus
        connect x -> b sparse [0 -> 1, 3 -> 0, 2 -> 3, 1 -> 2, 0 -> 0,]
        connect a -> c sparse local(width=2, stride=2)
        connect b -> c sparse random(fan_in=3, seed=5)
        connect c -> y full
        net n { input x output y }
    """)
    kinds = {c.name: c for c in n.connects}
    assert kinds["x->a"].kind == "bus" and kinds["x->a"].weight_count(n.layers) == 4
    assert kinds["x->b"].pairs.tolist() == [[0, 0], [3, 0], [0, 1], [1, 2], [2, 3]]
    assert kinds["x->b"].generator is None
    assert kinds["a->c"].pairs.tolist() == [[0, 0], [1, 0], [2, 1], [3, 1]]
    assert kinds["a->c"].generator == {"kind": "local", "width": 2, "stride": 2}
    rnd = kinds["b->c"].pairs
    assert rnd.shape == (6, 2) and kinds["b->c"].generator == {"kind": "random", "fan_in": 3, "seed": 5}
    for d in (0, 1):
        srcs = rnd[rnd[:, 1] == d, 0]
        assert len(set(srcs)) == 3 and list(srcs) == sorted(srcs)
    assert n.connections() == 4 + 5 + 4 + 6 + 2


def test_generator_arguments_positional_and_defaults():
    n = net("""
        layer x: input 6
        layer h: sigmoid 4
        layer y: sigmoid 1
        connect x -> h sparse local(3)
        connect h -> y
        net n { input x output y }
    """)
    assert n.connects[0].generator == {"kind": "local", "width": 3, "stride": 1}
    assert n.connects[0].pairs[:, 0].tolist() == [0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5]


def test_random_generator_is_reproducible():
    src = """
        layer x: input 10
        layer h: sigmoid 5
        layer y: sigmoid 1
        connect x -> h sparse random(fan_in=4, seed=SEED)
        connect h -> y
        net n { input x output y }
    """
    a = net(src.replace("SEED", "3")).connects[0].pairs
    b = net(src.replace("SEED", "3")).connects[0].pairs
    c = net(src.replace("SEED", "4")).connects[0].pairs
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    rng = np.random.default_rng(3)
    expect = sorted((int(s), d) for d in range(5) for s in rng.choice(10, 4, replace=False))
    assert sorted(map(tuple, a.tolist())) == expect


def test_net_block_with_several_inputs_outputs_and_hidden():
    n = net("""
        layer a: input 2
        layer b: binary 5
        layer h: sigmoid 3
        layer y: sigmoid 1
        layer z: linear 2
        connect a -> h
        connect b -> h
        connect h -> y
        connect h -> z
        net n {
            input a, b
            hidden h
            output y, z
        }
    """)
    assert n.inputs == ["a", "b"] and n.outputs == ["y", "z"]


def test_train_block_every_setting():
    n = net(BASE + """
        train {
            rate 0.25
            epochs 12
            momentum 0.9
            error cross_entropy
            seed 42
            init_scale 0.3
            shuffle false
        }
    """)
    t = n.training
    assert (t.rate.kind, t.rate.params) == ("constant", {"rate": 0.25})
    assert str(t.rate.loc) == "t.net:9:18"
    assert (t.epochs, t.momentum, t.error, t.seed, t.init_scale, t.shuffle) == \
        (12, 0.9, "cross_entropy", 42, 0.3, False)


def test_train_defaults():
    t = net(BASE).training
    assert (t.rate.kind, t.rate.params, t.epochs, t.momentum, t.error, t.seed, t.init_scale,
            t.shuffle) == ("constant", {"rate": 0.1}, 1, 0.0, "mse", 0, 0.1, True)


@pytest.mark.parametrize("text, kind, params", [
    ("0.5", "constant", {"rate": 0.5}),
    ("constant(0.5)", "constant", {"rate": 0.5}),
    ("step(rate=0.5, factor=0.5, every=10)", "step", {"rate": 0.5, "factor": 0.5, "every": 10}),
    ("step(0.5, 0.1, 3)", "step", {"rate": 0.5, "factor": 0.1, "every": 3}),
    ("list(0.5, 0.25, 0)", "list", {"rates": [0.5, 0.25, 0.0]}),
    ("newbob(rate=0.008)", "newbob",
     {"rate": 0.008, "start_below": 0.005, "stop_below": 0.005, "factor": 0.5}),
    ("newbob(0.01, stop_below=0.001, start_below=0.01, factor=0.25)", "newbob",
     {"rate": 0.01, "start_below": 0.01, "stop_below": 0.001, "factor": 0.25}),
])
def test_schedules(text, kind, params):
    s = net(BASE + f"train {{ rate {text} }}").training.rate
    assert (s.kind, s.params) == (kind, params)


def test_train_settings_may_be_spread_over_blocks():
    t = net(BASE + "train { epochs 3 }\ntrain { seed 2 }").training
    assert (t.epochs, t.seed) == (3, 2)


# -- parameters -------------------------------------------------------------

def test_params_and_arithmetic():
    n = net("""
        param a = 3
        param b = a * 2 + 1          # 7
        param c = (a + b) // 3       # 3
        param d = 2 ** 3 - -1        # 9
        param e = b % 4              # 3
        param f = max(a, c + 2, 1)   # 5
        param g = min(10 / 4, 3)     # 2.5
        param hh = 8 / 2             # 4.0: whole floats are fine as sizes
        layer x: input a
        layer h: sigmoid b + c + d + e + f + hh
        layer y: sigmoid 1
        connect x -> h
        connect h -> y
        net n { input x output y }
        train { rate g / 10  epochs c  momentum 1 / a }
    """)
    assert n.params == {"a": 3, "b": 7, "c": 3, "d": 9, "e": 3, "f": 5, "g": 2.5, "hh": 4.0}
    assert n.layers["h"].size == 7 + 3 + 9 + 3 + 5 + 4
    assert n.training.rate.params["rate"] == 0.25
    assert n.training.epochs == 3
    assert n.training.momentum == pytest.approx(1 / 3)


def test_long_and_deeply_nested_expressions():
    """Generated descriptions may hold long sums; no recursion limit."""
    n = net("param a = " + " + ".join(["1"] * 5000) + "\nparam b = " + "-" * 4000 + "3\n"
            "param c = " + "(" * 3000 + "2" + ")" * 3000 + "\n" + BASE)
    assert (n.params["a"], n.params["b"], n.params["c"]) == (5000, 3, 2)


def test_min_max_of_one_number():
    n = net("param a = max(2)\nparam b = min(0.5)\n" + BASE + "train { rate max(0.25) }\n")
    assert (n.params["a"], n.params["b"]) == (2, 0.5)
    assert n.training.rate.params["rate"] == 0.25


def test_words_are_not_parameters():
    """error and shuffle take words; a parameter of the same name does not
    replace them (parameters have their own namespace)."""
    n = net("param mse = 3\nparam true = 0\n" + BASE + "train { error mse  shuffle true }\n")
    assert n.training.error == "mse" and n.training.shuffle is True


def test_params_exponent_is_right_associative_and_binds_tighter_than_minus():
    n = net("param a = 2 ** 3 ** 2\nparam b = -2 ** 2\nparam c = 2 ** -1\n" + BASE)
    assert n.params == {"a": 512, "b": -4, "c": 0.5}


@pytest.mark.parametrize("value, size", [(5, 5), ("5", 5), ("7", 7), (6.0, 6)])
def test_param_override(value, size):
    n = net("param hidden = 3\n" + BASE.replace("sigmoid 3", "sigmoid hidden"),
            params={"hidden": value})
    assert n.layers["h"].size == size
    assert n.params["hidden"] == value if not isinstance(value, str) else int(value)


def test_param_override_feeds_later_params():
    n = net("param hidden = 3\nparam twice = hidden * 2\n"
            + BASE.replace("sigmoid 3", "sigmoid twice"), params={"hidden": 10})
    assert n.layers["h"].size == 20


def test_param_value_parsing():
    assert parse_param_value("a", "256") == 256
    assert parse_param_value("a", " 0.5 ") == 0.5
    assert parse_param_value("a", "1e-3") == 0.001
    for bad in ("abc", "", True, None, "nan", float("inf")):
        with pytest.raises(RapError):
            parse_param_value("a", bad)
    with pytest.raises(RapError, match=r"parameter 'a': 'abc' is not a number"):
        parse_param_value("a", "abc")
    with pytest.raises(RapError, match=r"parameter 'a': '1e400' is not a finite number"):
        parse_param_value("a", "1e400")


def test_unknown_override_is_an_error():
    with pytest.raises(RapError) as e:
        net("param hidden = 3\n" + BASE, params={"hiden": 4})
    assert str(e.value) == "parameter 'hiden' is not defined in t.net (its parameters: hidden)"


def test_bad_override_value():
    with pytest.raises(RapError, match="parameter 'hidden': 'lots' is not a number"):
        net("param hidden = 3\n" + BASE, params={"hidden": "lots"})


# -- includes ---------------------------------------------------------------

def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_include_relative_to_including_file(tmp_path):
    write(tmp_path, "lib/layers.net", 'layer x: input n_in\nlayer y: sigmoid 1\ninclude "more.net"\n')
    write(tmp_path, "lib/more.net", "connect x -> y\n")
    top = write(tmp_path, "exp/top.net",
                'param n_in = 3\ninclude "../lib/layers.net"\nnet n { input x output y }\n')
    n = parse_file(top)
    assert n.layers["x"].size == 3
    assert n.connects[0].loc.file.endswith("lib/more.net")
    assert n.layers["x"].loc.file == str(tmp_path / "lib/layers.net")


def test_include_once(tmp_path):
    write(tmp_path, "a.net", "layer x: input 2\n")
    write(tmp_path, "b.net", 'include "a.net"\nlayer y: sigmoid 1\n')
    top = write(tmp_path, "top.net",
                'include "a.net"\ninclude "b.net"\nconnect x -> y\nnet n { input x output y }\n')
    assert list(parse_file(top).layers) == ["x", "y"]


def test_parse_file_family_with_override(tmp_path):
    n = parse_file("examples/speech.net", params={"hidden": "128"})
    assert [l.size for l in n.layers.values()] == [234, 128, 61]
    assert n.training.rate.kind == "newbob"


def test_missing_top_file():
    with pytest.raises(RapError) as e:
        parse_file("no/such.net")
    assert str(e.value) == "no/such.net: no such file"


def test_top_file_a_folder_or_not_text(tmp_path):
    with pytest.raises(RapError) as e:
        parse_file(tmp_path)
    assert str(e.value) == f"{tmp_path}: is a folder, not a network description"
    (tmp_path / "b.net").write_bytes(b"layer x: input 2\n\xff\n")
    with pytest.raises(RapError) as e:
        parse_file(tmp_path / "b.net")
    assert str(e.value) == f"{tmp_path / 'b.net'}: not a network description (byte 17 is not " \
                           f"UTF-8 text)"


# -- the examples -----------------------------------------------------------

def test_examples():
    xor = parse_file("examples/xor.net")
    assert [l.size for l in xor.layers.values()] == [2, 4, 1]
    digits = parse_file("examples/digits.net")
    assert [(l.kind, l.size) for l in digits.layers.values()] == \
        [("input", 64), ("sigmoid", 32), ("softmax", 10)]
    assert digits.training.error == "cross_entropy"
    speech = parse_file("examples/speech.net")
    assert [(l.kind, l.size) for l in speech.layers.values()] == \
        [("input", 234), ("sigmoid", 512), ("softmax", 61)]
    assert speech.connections() == 234 * 512 + 512 * 61


def test_include_errors(tmp_path):
    write(tmp_path, "a.net", 'include "b.net"\n')
    write(tmp_path, "b.net", 'layer x: input 2\n   include "a.net"\n')
    top = write(tmp_path, "top.net", 'include "a.net"\ninclude "nope.net"\n')
    with pytest.raises(Diagnostics) as e:
        parse_file(top)
    a, b, t = (str(tmp_path / f) for f in ("a.net", "b.net", "top.net"))
    assert e.value.messages == [
        f"{t}:1:1: error: no net block: name the input and output layers, "
        f"e.g. net NAME {{ input x  output y }}",
        f"{t}:2:9: error: cannot include 'nope.net': no such file ({tmp_path / 'nope.net'})",
        f"{b}:2:12: error: include loop: {a} -> {b} -> {a}",
    ]


def test_utf8_byte_order_mark_and_crlf(tmp_path):
    """As some editors save text: a BOM, CRLF line ends (in an include too)."""
    write(tmp_path, "inc.net", "")
    (tmp_path / "inc.net").write_bytes(b"\xef\xbb\xbfparam hidden = 5\r\n")
    top = tmp_path / "top.net"
    top.write_bytes(b"\xef\xbb\xbfinclude \"inc.net\"\r\n"
                    + BASE.replace("sigmoid 3", "sigmoid hidden").replace("\n", "\r\n").encode())
    assert parse_file(top).layers["h"].size == 5


def test_include_of_a_folder(tmp_path):
    (tmp_path / "lib").mkdir()
    top = write(tmp_path, "top.net", 'include "lib"\n' + BASE)
    with pytest.raises(Diagnostics) as e:
        parse_file(top)
    assert e.value.messages == [
        f"{top}:1:9: error: cannot include 'lib': a folder, not a file ({tmp_path / 'lib'})"]


def test_include_self_loop(tmp_path):
    top = write(tmp_path, "top.net", 'include "top.net"\n' + BASE)
    with pytest.raises(Diagnostics) as e:
        parse_file(top)
    assert e.value.messages == [f"{top}:1:9: error: include loop: {top} -> {top}"]


def test_syntax_error_in_included_file(tmp_path):
    write(tmp_path, "inc.net", "layer h sigmoid 3\n")
    top = write(tmp_path, "top.net", 'include "inc.net"\n' + BASE)
    with pytest.raises(Diagnostics) as e:
        parse_file(top)
    assert e.value.messages == [
        f"{tmp_path / 'inc.net'}:1:9: error: syntax error: unexpected 'sigmoid'; expected ':'"]


def test_errors_in_several_files_are_all_reported(tmp_path):
    write(tmp_path, "inc.net", "layer h: sigmod 3\n")
    top = write(tmp_path, "top.net", 'include "inc.net"\nlayer h: tanh 2\n')
    with pytest.raises(Diagnostics) as e:
        parse_file(top)
    inc = tmp_path / "inc.net"
    assert e.value.messages == [
        f"{top}:1:1: error: no net block: name the input and output layers, "
        f"e.g. net NAME {{ input x  output y }}",
        f"{top}:2:7: error: layer 'h' is already defined (at {inc}:1:7)",
        f"{inc}:1:10: error: unknown layer kind 'sigmod' (expected input, binary, sigmoid, "
        f"tanh, linear, softmax or threshold)",
    ]
