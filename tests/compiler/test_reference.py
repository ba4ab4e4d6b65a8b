"""The numpy reference: hand-computed steps, gradients against finite
differences, initial weights and pattern order, C30 rounding, training."""
from __future__ import annotations

import math

import numpy as np
import pytest

from netsrc import net
from rapsim.asm.floatfmt import from_single, to_single
from rapsim.compiler import data, reference
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model, Weights, initial_weights, pattern_order

NET221 = """
layer x: input 2
layer h: sigmoid 2 bias
layer y: sigmoid 1 bias
connect x -> h
connect h -> y
net n { input x output y }
train { rate 0.5 momentum MOM }
"""


def sig(v):
    return 1 / (1 + math.exp(-v))


def test_one_step_all_zero_weights_by_hand():
    n = net(NET221.replace("MOM", "0"))
    w = initial_weights(n)
    w = w.zeros_like()
    m = Model(n, w)
    m.train_pattern(np.array([1.0, 0.5]), np.array([1.0]), 0.5)
    # h = (0.5, 0.5), y = 0.5, delta_y = (1 - 0.5) 0.5 0.5 = 0.125, delta_h = 0
    assert m.weights.connects["h->y"].tolist() == [[0.03125, 0.03125]]   # 0.5 * 0.125 * 0.5
    assert m.weights.biases["y"].tolist() == [0.0625]                    # 0.5 * 0.125 * 1
    assert m.weights.connects["x->h"].tolist() == [[0, 0], [0, 0]]
    assert m.weights.biases["h"].tolist() == [0, 0]


def hand_step(W1, b1, W2, b2, x, t, rate):
    """One on-line back-propagation step of a 2-2-1 sigmoid net, scalar by scalar."""
    h = [sig(W1[j][0] * x[0] + W1[j][1] * x[1] + b1[j]) for j in range(2)]
    y = sig(W2[0] * h[0] + W2[1] * h[1] + b2)
    dy = (t - y) * y * (1 - y)
    dh = [W2[j] * dy * h[j] * (1 - h[j]) for j in range(2)]
    W2n = [W2[j] + rate * dy * h[j] for j in range(2)]
    b2n = b2 + rate * dy
    W1n = [[W1[j][i] + rate * dh[j] * x[i] for i in range(2)] for j in range(2)]
    b1n = [b1[j] + rate * dh[j] for j in range(2)]
    return W1n, b1n, W2n, b2n, y


def test_one_step_2_2_1_by_hand():
    n = net(NET221.replace("MOM", "0"))
    W1, b1, W2, b2 = [[0.1, 0.2], [0.3, -0.4]], [0.1, -0.1], [0.5, -0.5], 0.2
    w = Weights({"x->h": np.array(W1), "h->y": np.array([W2])},
                {"h": np.array(b1), "y": np.array([b2])})
    m = Model(n, w)
    acts = m.train_pattern(np.array([1.0, 0.5]), np.array([1.0]), 0.5)
    W1n, b1n, W2n, b2n, y = hand_step(W1, b1, W2, b2, [1.0, 0.5], 1.0, 0.5)
    assert acts["y"][0] == pytest.approx(y, abs=1e-15)
    np.testing.assert_allclose(m.weights.connects["x->h"], W1n, atol=1e-15)
    np.testing.assert_allclose(m.weights.biases["h"], b1n, atol=1e-15)
    np.testing.assert_allclose(m.weights.connects["h->y"], [W2n], atol=1e-15)
    np.testing.assert_allclose(m.weights.biases["y"], [b2n], atol=1e-15)
    assert y == pytest.approx(0.55903, abs=1e-5)         # sig(0.5 sig(0.3) - 0.5 sig(0) + 0.2)


def test_momentum_two_steps_by_hand():
    n = net(NET221.replace("MOM", "0.9"))
    w = initial_weights(n).zeros_like()
    m = Model(n, w)
    x, t = np.array([1.0, 0.5]), np.array([1.0])
    m.train_pattern(x, t, 0.5)
    # step 1 as above: M = 0.0625 for the output bias, W = M
    assert m.momentum.biases["y"][0] == 0.0625 and m.weights.biases["y"][0] == 0.0625
    m.train_pattern(x, t, 0.5)
    # step 2: all hidden outputs still 0.5 (W1 = 0), y = sig(2 * 0.03125 * 0.5 + 0.0625)
    y = sig(0.0625 + 0.03125)
    dy = (1 - y) * y * (1 - y)
    M = 0.9 * 0.0625 + 0.5 * dy
    assert m.momentum.biases["y"][0] == pytest.approx(M, abs=1e-15)
    assert m.weights.biases["y"][0] == pytest.approx(0.0625 + M, abs=1e-15)


# -- every formula against finite differences --------------------------------

GRAPH = """
layer x: input 3
layer b: binary 4
layer h1: KIND1 4 bias
layer h2: KIND2 3 bias
layer h3: sigmoid 4
layer y: OUT 3 bias
connect x -> h1
connect b -> h1
connect h1 -> h2 sparse [0 -> 0, 1 -> 0, 3 -> 1, 2 -> 2, 0 -> 2]
connect h1 -> h3 bus
connect h2 -> y
connect h3 -> y sparse local(width=2, stride=1)
connect x -> y              # a skip connection
net n { input x, b output y }
train { rate 1 error ERR }
"""


@pytest.mark.parametrize("kind1, kind2, out, error", [
    ("sigmoid", "tanh", "sigmoid", "mse"),
    ("tanh", "linear", "tanh", "mse"),
    ("linear", "sigmoid", "linear", "mse"),
    ("sigmoid", "sigmoid", "softmax", "cross_entropy"),
    ("tanh", "sigmoid", "sigmoid", "cross_entropy"),
])
def test_updates_are_minus_the_gradient(kind1, kind2, out, error):
    src = GRAPH.replace("KIND1", kind1).replace("KIND2", kind2).replace("OUT", out) \
        .replace("ERR", error)
    n = net(src)
    w0 = initial_weights(n, seed=3, scale=0.8)
    x = np.array([0.3, -0.7, 0.9, 1, 0, 1, 1])
    t = np.array([0.0, 1.0, 0.0]) if out == "softmax" else np.array([0.2, 0.9, 0.4])
    if out == "tanh":
        t = np.array([-0.5, 0.9, 0.1])

    def loss(w):
        y = Model(n, w).outputs(x)
        return reference.pattern_loss(n, y[None, :], t[None, :])[0]

    m = Model(n, w0)
    m.train_pattern(x, t, 1.0)
    eps = 1e-6
    for group in ("connects", "biases"):
        for key, before in getattr(w0, group).items():
            step = getattr(m.weights, group)[key] - before
            for idx in np.ndindex(before.shape):
                wp, wm = w0.copy(), w0.copy()
                getattr(wp, group)[key][idx] += eps
                getattr(wm, group)[key][idx] -= eps
                grad = (loss(wp) - loss(wm)) / (2 * eps)
                assert step[idx] == pytest.approx(-grad, abs=1e-7), (group, key, idx)


# -- initial weights and pattern order ---------------------------------------

def test_initial_weights_order_and_shapes():
    n = net(GRAPH.replace("KIND1", "sigmoid").replace("KIND2", "sigmoid")
            .replace("OUT", "sigmoid").replace("ERR", "mse") + "train { seed 9 init_scale 0.25 }")
    w = initial_weights(n)
    rng = np.random.default_rng(9)
    expect = {
        "x->h1": rng.uniform(-0.25, 0.25, (4, 3)),
        "b->h1": rng.uniform(-0.25, 0.25, (4, 4)),
        "h1->h2": rng.uniform(-0.25, 0.25, 5),
        "h1->h3": rng.uniform(-0.25, 0.25, 4),
        "h2->y": rng.uniform(-0.25, 0.25, (3, 3)),
        "h3->y": rng.uniform(-0.25, 0.25, 6),
        "x->y": rng.uniform(-0.25, 0.25, (3, 3)),
    }
    biases = {name: rng.uniform(-0.25, 0.25, size) for name, size in (("h1", 4), ("h2", 3), ("y", 3))}
    assert list(w.connects) == list(expect) and list(w.biases) == list(biases)
    for k, v in expect.items():
        assert np.array_equal(w.connects[k], v)
    for k, v in biases.items():
        assert np.array_equal(w.biases[k], v)
    assert not np.array_equal(initial_weights(n, seed=10).connects["x->h1"], w.connects["x->h1"])
    assert np.abs(initial_weights(n, scale=2.0).connects["x->h1"]).max() > 0.25


def test_pattern_order():
    assert pattern_order(5, 0, 1, shuffle=False).tolist() == [0, 1, 2, 3, 4]
    a = pattern_order(100, 0, 7)
    assert sorted(a.tolist()) == list(range(100))
    assert np.array_equal(a, np.random.default_rng([7, 1]).permutation(100))
    assert np.array_equal(a, pattern_order(100, 0, 7))
    assert not np.array_equal(a, pattern_order(100, 1, 7))
    assert not np.array_equal(a, pattern_order(100, 0, 8))


# -- C30 precision -------------------------------------------------------------

def is_single(v):
    v = np.asarray(v, dtype=np.float64)
    return np.array_equal(from_single(to_single(v)), v)


def test_round_c30_keeps_every_value_single():
    n = net(NET221.replace("MOM", "0.5"))
    m = Model(n, initial_weights(n, seed=2, scale=1.0), round_c30=True)
    for _ in range(3):
        acts = m.train_pattern(np.array([0.3, 0.7]), np.array([1.0]), 0.3)
    assert all(is_single(a) for a in acts.values())
    assert all(is_single(v) for v in m.weights.connects.values())
    assert all(is_single(v) for v in m.weights.biases.values())
    assert all(is_single(v) for v in m.momentum.connects.values())
    exact = Model(n, initial_weights(n, seed=2, scale=1.0))
    for _ in range(3):
        exact.train_pattern(np.array([0.3, 0.7]), np.array([1.0]), 0.3)
    assert 0 < m.weights.max_difference(exact.weights) < 1e-6


def test_c30_activations_are_the_firmware_lines():
    n = net("layer x: input 5\nlayer y: tanh 5\nlayer z: sigmoid 5\nconnect x -> y bus\n"
            "connect y -> z bus\nnet n { input x output z }")
    w = Weights({"x->y": np.ones(5), "y->z": np.ones(5)}, {})
    x = np.array([-13.0, -0.3, 0.01, 2.5, 7.0])
    exact = Model(n, w).forward(x)
    c30 = Model(n, w, c30_activations=True).forward(x)
    np.testing.assert_allclose(c30["y"], exact["y"], atol=6e-5)
    np.testing.assert_allclose(c30["z"], exact["z"], atol=3e-5)
    assert c30["y"][0] == -1.0 and c30["y"][4] == 1.0     # the end entries: the limits
    assert not np.array_equal(c30["y"], exact["y"])


# -- evaluation and training --------------------------------------------------

def test_loss_and_accuracy_definitions():
    n = net(NET221.replace("MOM", "0"))
    y = np.array([[0.8], [0.3], [0.6]])
    t = np.array([[1.0], [0.0], [0.0]])
    assert reference.pattern_loss(n, y, t).tolist() == pytest.approx([0.02, 0.045, 0.18])
    assert reference.pattern_correct(n, y, t).tolist() == [True, True, False]
    ce = net(NET221.replace("MOM", "0").replace("rate 0.5", "error cross_entropy"))
    assert reference.pattern_loss(ce, y, t).tolist() == \
        pytest.approx([-math.log(0.8), -math.log(0.7), -math.log(0.4)])
    sm = net("layer x: input 1\nlayer y: softmax 3\nconnect x -> y\nnet n { input x output y }"
             "\ntrain { error cross_entropy }")
    ys = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    ts = np.array([[0, 1.0, 0], [0, 0, 1.0]])
    assert reference.pattern_loss(sm, ys, ts).tolist() == pytest.approx([-math.log(0.5), -math.log(0.1)])
    assert reference.pattern_correct(sm, ys, ts).tolist() == [True, False]
    th = net("layer x: input 1\nlayer y: tanh 1\nconnect x -> y\nnet n { input x output y }")
    assert reference.pattern_correct(th, np.array([[0.1], [-0.2]]), np.array([[1.0], [1.0]])).tolist() \
        == [True, False]


def xor():
    n = parse_file("examples/xor.net")
    return n, data.load_patterns("examples/xor.pat", n).train


def test_xor_learns():
    n, pats = xor()
    seen = []
    r = reference.train(n, pats, on_epoch=seen.append)
    assert r.stopped_by == "epochs" and len(r.epochs) == n.training.epochs == len(seen)
    assert r.epochs[-1].train_accuracy == 1.0 and r.epochs[-1].train_loss < 0.01
    assert r.epochs[0].train_loss > 0.1
    ev = reference.evaluate(r.model, pats)
    assert ev.accuracy == 1.0 and np.all(np.abs(ev.outputs - pats.targets) < 0.2)


def test_xor_learns_at_c30_precision():
    n, pats = xor()
    r = reference.train(n, pats, round_c30=True, c30_activations=True)
    assert r.epochs[-1].train_accuracy == 1.0 and r.epochs[-1].train_loss < 0.01
    exact = reference.train(n, pats)
    assert abs(r.epochs[-1].train_loss - exact.epochs[-1].train_loss) < 1e-3


def test_schedule_stops_training_and_test_set_drives_it():
    n, pats = xor()
    n.training.rate.kind, n.training.rate.params = "list", {"rates": [0.5, 0.5, 0.5]}
    r = reference.train(n, pats, test_set=pats.subset([0, 1]))
    assert r.stopped_by == "schedule" and len(r.epochs) == 3
    assert all(e.test_loss is not None and e.error == e.test_loss for e in r.epochs)
    r = reference.train(n, pats, epochs=2)
    assert r.stopped_by == "epochs" and [e.rate for e in r.epochs] == [0.5, 0.5]
    assert r.epochs[0].error == r.epochs[0].train_loss


def test_training_is_deterministic():
    n, pats = xor()
    a = reference.train(n, pats, epochs=5).model.weights
    b = reference.train(n, pats, epochs=5).model.weights
    assert a.max_difference(b) == 0.0


def test_unchecked_network_is_refused():
    n, _ = xor()
    n.forward_order = []
    with pytest.raises(ValueError, match="not been checked"):
        Model(n)
