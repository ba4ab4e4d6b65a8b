"""The streaming schedule (compiler/frames.py): frames with two state
buffers a layer, cycles legal under it only, outputs logged every frame,
and the local plasticities (Hebbian, L2, L1) against the numpy reference of
the frame semantics on 1, 4, 16 and 64 nodes."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

from backend import net, random_data
from rapsim.compiler.frames import accuracy_by_offset, train as frames_train
from rapsim.compiler.mapping import MappingError, resolve
from rapsim.compiler.parser import parse_file
from rapsim.compiler.pipeline import apply_schedule
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "recurrent.net")
TOL = 1e-5

#: two layers feeding each other (a cycle of two), a softmax output
LOOP = """\
layer x: input 3
layer a: sigmoid 5 bias
layer b: tanh 4
layer o: softmax 3 bias
connect x -> a full l2(rate=0.1, weight=0.2)
connect a -> b full hebbian(rate=0.02)
connect b -> a full hebbian(rate=0.01, decay=0.3)
connect b -> o full l1(0.05, 0.02)
net loop { input x  hidden a, b  output o  schedule stream }
train { epochs 2  frames 3  error cross_entropy  seed 7  init_scale 0.4 }
"""


def _check(network, nodes, epochs=2):
    tr, te = random_data(network, 5, 3), random_data(network, 3, 4)
    model, evals = frames_train(network, tr, te, c30_activations=True, epochs=epochs)
    sim = train(network, tr, te, nodes=nodes, epochs=epochs)
    assert sim.mapping["schedule"] == "stream"
    assert sim.weights.max_difference(model.weights) < TOL
    assert sim.frame_outputs.shape == evals[-1].shape
    assert np.abs(sim.frame_outputs - evals[-1]).max() < TOL
    assert np.abs(sim.outputs - evals[-1][:, -1]).max() < TOL
    want = accuracy_by_offset(network, evals[-1][:len(tr)], tr.targets)
    assert sim.frames["accuracy_by_offset"]["train"] == want
    return sim, model


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_recurrent_example_agrees_with_the_reference(nodes):
    _check(parse_file(EXAMPLE), nodes)


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_a_loop_of_two_with_softmax_agrees(nodes):
    _check(net(LOOP), nodes)


def test_plasticities_change_their_own_weights_only():
    n = net(LOOP.replace(" l2(rate=0.1, weight=0.2)", ""))
    sim, model = _check(n, 4, epochs=1)
    from rapsim.compiler.reference import initial_weights
    w0 = initial_weights(n)
    assert np.array_equal(model.weights.connects["x->a"], w0.connects["x->a"])
    assert sim.weights.max_difference(w0) > 1e-3       # the others moved
    for b in ("a", "o"):
        assert np.abs(sim.weights.biases[b] - w0.biases[b]).max() < 1e-7


def test_frames_delay_the_answer():
    """With fixed weights an output two connects from the input answers a
    stimulus two frames after its onset: its first frame still shows the
    stream before it."""
    n = net(LOOP.replace(" l2(rate=0.1, weight=0.2)", "").replace(
        " hebbian(rate=0.02)", "").replace(" hebbian(rate=0.01, decay=0.3)", "").replace(
        " l1(0.05, 0.02)", "").replace("frames 3", "frames 4"))
    sim, model = _check(n, 4, epochs=1)
    out = sim.frame_outputs
    assert np.abs(out[1:, 0] - out[:-1, -1]).max() < 0.2   # frame 1 ~ the previous pattern's
    assert np.abs(out[:, 3] - out[:, 2]).max() < np.abs(out[:, 1] - out[:, 0]).max() + 1e-9


def test_cycles_are_refused_under_the_other_schedules():
    n = parse_file(EXAMPLE)
    assert n.cycles and n.cycles[0][0] == "h -> h"
    for name in ("lockstep", "pipeline"):
        with pytest.raises(MappingError, match=rf"recurrent.net:\d+:\d+: error: the network has "
                                               rf"a cycle: h -> h: cycles are legal under "
                                               rf"schedule stream only, not {name}"):
            apply_schedule(n, resolve(n, 4), name)
    src = open(EXAMPLE).read().replace("schedule stream", "")
    with pytest.raises(Diagnostics, match="the network has a cycle: h -> h"):
        net(src)


def test_plasticities_belong_to_stream():
    src = """\
layer x: input 2
layer y: sigmoid 1
connect x -> y full hebbian(rate=0.1)
net n { input x  output y }
"""
    with pytest.raises(MappingError, match=r"t.net:3:\d+: error: connect x->y: hebbian\(\) is a "
                                           r"local plasticity of schedule stream, not of "
                                           r"lockstep"):
        n = net(src)
        apply_schedule(n, resolve(n, 1))


@pytest.mark.parametrize("call,message", [
    ("hebbian()", "hebbian() needs argument 'rate'"),
    ("l2(rate=0.1)", "l2() needs argument 'weight'"),
    ("l1(rate=-1, weight=1)", "l1(): rate must be a number of at least 0, not -1"),
    ("hebbian(rate=1, decay=2)", "hebbian(): rate x decay above 1"),
    ("hebbian(rate=1, gain=2)", "hebbian() has no argument 'gain'"),
])
def test_bad_plasticities(call, message):
    with pytest.raises(Diagnostics, match=r"t.net:3:\d+: error: " + message.replace("(", r"\(")
                       .replace(")", r"\)")):
        net(f"layer x: input 2\nlayer y: sigmoid 1\nconnect x -> y full {call}\n"
            f"net n {{ input x  output y  schedule stream }}\n")


#: bus and sparse connects (fixed weights: plasticities are named on full
#: connects) in the frames, on the loss's way back: a band (local) and a
#: pair-list sparse connect, a bus connect in a cycle
SPARSE_LOOP = """\
layer x: input 6
layer a: sigmoid 5 bias
layer b: tanh 5
layer c: tanh 4
layer o: softmax 3 bias
connect x -> a sparse local(2, stride=1)
connect x -> c full loss(rate=0.1, window=4)
connect a -> b bus
connect b -> a sparse [0 -> 1, 2 -> 3, 4 -> 0, 1 -> 1]
connect b -> c full loss(rate=0.1, window=4)
connect a -> o full loss(rate=0.2, window=4)
connect c -> o sparse random(2, seed=1)
net loop { input x  hidden a, b, c  output o  schedule stream }
train { epochs 2  frames 3  error cross_entropy  seed 5  init_scale 0.5 }
"""


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_bus_and_sparse_connects_in_frames(nodes):
    """Their forward kernels in the frames, their W^T d kernels in the
    loss's back-propagation (o <- c sparse, a <- b bus <- a, b -> a
    sparse), against the reference; their own weights stay."""
    n = net(SPARSE_LOOP)
    sim, model = _check(n, nodes)
    from rapsim.compiler.reference import initial_weights
    w0 = initial_weights(n)
    for c in ("x->a", "a->b", "b->a", "c->o"):
        assert np.abs(sim.weights.connects[c] - w0.connects[c]).max() < 1e-7
    for c in ("x->c", "b->c", "a->o"):
        assert np.abs(sim.weights.connects[c] - w0.connects[c]).max() > 1e-3


def test_frames_swap_pointers_instead_of_copying():
    """The next states become current by exchanging pointer words (4
    instructions a pair), not by copying the units: no _vcopy in a frame
    but the input records', a swap of each layer's pointers, and a word
    pointing into a state buffer outside the pairs is an internal error."""
    from rapsim.compiler.build import compile_network
    from rapsim.compiler.codegen import _Gen
    from rapsim.compiler.frames_gen import check_pairs, state_pairs
    from rapsim.compiler.lower import lower
    from rapsim.errors import RapError
    n = parse_file(EXAMPLE)
    src = compile_network(n, 4).source
    frame = src[src.index("streaming training pass"):src.index("streaming evaluation pass")]
    assert frame.count("CALL    _vcopy") == 1                       # the input record
    assert "swap nv_act_h <-> nv_nx_h" in frame                 # h's own slices
    assert frame.count("; swap k") == 2                         # h's and y's whole buffers
    g = _Gen(lower(n, 4, mapping=apply_schedule(n, resolve(n, 4))))
    g.stream_pairs = state_pairs(g)
    assert len(g.stream_pairs) == 3                 # h: whole and own; y: whole
    check_pairs(g)
    g.e.const("nxt_h+1")
    with pytest.raises(RapError, match="internal error: schedule stream: word k\\d+ "
                                       "points into a state buffer"):
        check_pairs(g)


# -- the loss plasticity: back-propagation over a window of frames ---------------------------

#: a cycle of two layers trained by the loss over 4 frames, beside a Hebbian
#: and an L2 connect (disjoint parameters), into a softmax output
LOSS = """\
layer x: input 3
layer a: sigmoid 5 bias
layer b: tanh 4
layer o: softmax 3 bias
connect x -> a full loss(rate=0.2, window=4)
connect a -> b full hebbian(rate=0.02)
connect b -> a full loss(rate=0.2, window=4)
connect b -> o full loss(0.1, 4)
connect a -> o full l2(rate=0.1, weight=0.2)
net loop { input x  hidden a, b  output o  schedule stream }
train { epochs 2  frames 3  error cross_entropy  seed 7  init_scale 0.4 }
"""

DELAYED_XOR = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "delayed-xor.net")


def _window_error(model, hist, target, weights):
    """E(t + 1) recomputed from the states W frames back (held fixed) and
    the window's inputs, with ``weights``: what the truncated gradient is
    the gradient of."""
    from rapsim.compiler.frames import frame
    from rapsim.compiler.reference import Model
    net, W = model.net, hist.H - 1
    m = Model(net, weights)
    state = {n: hist.at(n, 1 - W).copy() for n in net.layers}
    for k in range(W):
        x = np.concatenate([hist.at(n, 1 - W + k) for n in net.inputs])
        state = frame(m, state, x)
    y = np.concatenate([state[o] for o in net.outputs])
    if net.training.error == "cross_entropy":
        return -float(np.sum(target * np.log(y)))
    return 0.5 * float(np.sum((target - y) ** 2))


@pytest.mark.parametrize("source", ["LOSS", "DELAYED_XOR"])
def test_loss_gradient_is_the_truncated_gradient(source):
    """The reference's deltas give -dE(t+1)/dW of the last W frames' graph
    (finite differences, central, on every loss connect's and bias's
    entries), after a stream of frames with fixed weights."""
    from rapsim.compiler.frames import History, frame, loss_grads, loss_window
    from rapsim.compiler.reference import Model
    n = net(LOSS) if source == "LOSS" else parse_file(DELAYED_XOR)
    model = Model(n)
    W = loss_window(n)
    hist = History(n, W)
    rng = np.random.default_rng(3)
    state = {k: np.zeros(v.size) for k, v in n.layers.items()}
    xs = rng.uniform(-1, 1, size=(W + 3, sum(n.layers[i].size for i in n.inputs)))
    for t, x in enumerate(xs):
        if t:
            hist.advance()
        new = frame(model, state, x)
        hist.record({i: x[model.in_slices[i]] for i in n.inputs}, new)
        state = new
    size = sum(n.layers[o].size for o in n.outputs)
    target = np.eye(size)[1] if size > 1 else np.array([0.9])
    grads = loss_grads(model, hist, target)
    assert set(grads) >= {c.name for c in n.connects if c.plasticity
                          and c.plasticity["rule"] == "loss"}
    eps, checked = 1e-6, 0
    for key, g in grads.items():
        table = "connects" if key in model.weights.connects else "biases"
        for idx in list(np.ndindex(g.shape))[:6]:
            w = [model.weights.copy() for _ in range(2)]
            getattr(w[0], table)[key][idx] += eps
            getattr(w[1], table)[key][idx] -= eps
            fd = (_window_error(model, hist, target, w[0])
                  - _window_error(model, hist, target, w[1])) / (2 * eps)
            assert abs(-fd - g[idx]) < 1e-6 * max(1.0, abs(fd)), (key, idx, fd, g[idx])
            checked += 1
    assert checked >= 12
    assert max(np.abs(g).max() for g in grads.values()) > 1e-3     # not all zero


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_loss_plasticity_agrees_with_the_reference(nodes):
    sim, model = _check(net(LOSS), nodes)
    from rapsim.compiler.reference import initial_weights
    w0 = initial_weights(net(LOSS))
    for c in ("x->a", "b->a", "b->o"):
        assert np.abs(sim.weights.connects[c] - w0.connects[c]).max() > 1e-3
    assert np.abs(sim.weights.biases["o"] - w0.biases["o"]).max() > 1e-3
    assert "loss(" not in str(sim.mapping)


def test_loss_plasticity_on_node_groups():
    n = net(LOSS)
    tr, te = random_data(n, 5, 3), random_data(n, 3, 4)
    model, evals = frames_train(n, tr, te, c30_activations=True, epochs=2)
    sim = train(n, tr, te, nodes=8, epochs=2, mapping="layers")
    assert sim.mapping["name"] == "layers"
    assert sim.weights.max_difference(model.weights) < TOL
    assert np.abs(sim.frame_outputs - evals[-1]).max() < TOL


def test_a_longer_window_changes_the_weights():
    """The window matters: 1 frame (the output connects alone) against 4."""
    short = net(LOSS.replace("window=4", "window=1").replace("loss(0.1, 4)", "loss(0.1, 1)")
                .replace("connect x -> a full loss(rate=0.2, window=1)", "connect x -> a full")
                .replace("connect b -> a full loss(rate=0.2, window=1)", "connect b -> a full"))
    tr, te = random_data(short, 5, 3), random_data(short, 3, 4)
    m1, _ = frames_train(short, tr, te, epochs=1)
    m4, _ = frames_train(net(LOSS), tr, te, epochs=1)
    assert np.abs(m1.weights.connects["b->o"] - m4.weights.connects["b->o"]).max() > 1e-4


@pytest.mark.parametrize("change,message", [
    (("loss(0.1, 4)", "loss(0.1, 3)"),
     r"t.net:8:\d+: error: schedule stream: connect b->o: loss\(window=3\), but connect x->a "
     r"has window=4: one window a network"),
    (("connect b -> a full loss(rate=0.2, window=4)", "connect b -> a full loss(0.3, 4)"),
     r"t.net:7:\d+: error: schedule stream: connect b->a: loss\(rate=0.3\) and connect x->a: "
     r"loss\(rate=0.2\) both update a's biases \(overlapping parameters\)"),
    (("window=4", "window=1"),
     None),
])
def test_loss_rules_across_connects(change, message):
    src = LOSS.replace(*change)
    if message is None:                 # window 1: the output's connects only
        src = src.replace("loss(0.1, 4)", "loss(0.1, 1)")
        message = (r"t.net:5:\d+: error: schedule stream: connect x->a: loss\(window=1\) "
                   r"never reaches it \(a is 1 connect upstream of an output layer: "
                   r"window=2 or more\)")
    n = net(src)
    with pytest.raises(MappingError, match=message):
        apply_schedule(n, resolve(n, 4))


@pytest.mark.parametrize("call,message", [
    ("loss()", "loss() needs argument 'rate'"),
    ("loss(0.1, window=0)", "loss(): window must be a whole number of frames from 1 to 64, not 0"),
    ("loss(0.1, 2.5)", "loss(): window must be a whole number of frames from 1 to 64, not 2.5"),
])
def test_bad_loss_plasticities(call, message):
    with pytest.raises(Diagnostics, match=r"t.net:3:\d+: error: " + message.replace("(", r"\(")
                       .replace(")", r"\)")):
        net(f"layer x: input 2\nlayer y: sigmoid 1\nconnect x -> y full {call}\n"
            f"net n {{ input x  output y  schedule stream }}\n")


def test_bus_and_sparse_connects_in_frames_on_node_groups():
    n = net(SPARSE_LOOP)
    tr, te = random_data(n, 5, 3), random_data(n, 3, 4)
    model, evals = frames_train(n, tr, te, c30_activations=True, epochs=2)
    sim = train(n, tr, te, nodes=8, epochs=2, mapping="layers")
    assert sim.mapping["layers"]["a"]["nodes"] == sim.mapping["layers"]["b"]["nodes"]  # bus
    assert sim.weights.max_difference(model.weights) < TOL
    assert np.abs(sim.frame_outputs - evals[-1]).max() < TOL


@pytest.mark.parametrize("connect,message", [
    ("x -> y full loss(0.1) l2(rate=0.1, weight=0.1)",
     "t.net:3:31: error: connect 'x->y' takes one plasticity: l2() would update the weights "
     "loss() updates (the plasticities of a frame update disjoint parameter sets)"),
    ("x -> y sparse [0 -> 0] hebbian(0.1)",
     "t.net:3:32: error: connect 'x->y' is sparse: hebbian() is a plasticity, named after a "
     "full connect only"),
    ("x -> y sparse random(1) random(1)",
     "t.net:3:33: error: connect 'x->y' takes one generator, not random() after random()"),
])
def test_one_plasticity_a_connect(connect, message):
    """The parameter sets of a frame's plasticities are disjoint: a second
    call after a connect's plasticity (or generator) is refused at its
    place."""
    with pytest.raises(Diagnostics, match=re.escape(message)):
        net(f"layer x: input 2\nlayer y: sigmoid 1\nconnect {connect}\n"
            f"net n {{ input x  output y  schedule stream }}\n")
