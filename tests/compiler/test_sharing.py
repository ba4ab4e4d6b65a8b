"""Parameter sharing (share_from, compiler/sharing.py): the description's
checks, the reference's semantics (a finite-difference gradient of a tied
matrix), the simulated RAP against the reference on 1 to 16 nodes, one copy
in checkpoints, and the refusals under the other mappings."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.checkpoint import TrainingState, load_weights, save_state
from rapsim.compiler.lower import lower
from rapsim.compiler.mapping import PRESETS, MappingError, resolve
from rapsim.compiler.reference import Model, initial_weights, pattern_loss
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics, RapError

from backend import agrees, diagnostics, net, random_data

#: tied-weight auto-encoder: the decoder uses the encoder's matrix transposed
AE = """\
layer x: input 6
layer h: sigmoid 3 bias
layer y: sigmoid 6 bias
connect x -> h
connect h -> y share_from x -> h transpose
net ae { input x  hidden h  output y }
train { rate 0.5  epochs 3  momentum MOM  seed 2  init_scale 0.5 }
"""

#: one matrix used by three connects in a chain (an unrolled recurrence):
#: b->c's update must not reach a->b's error sums (updates after the
#: backward pass)
CHAIN = """\
layer x: input 5
layer a: tanh 5 bias
layer b: tanh 5
layer c: sigmoid 5 bias
layer y: sigmoid 2 bias
connect x -> a
connect a -> b share_from x -> a
connect b -> c share_from x -> a
connect c -> y
net chain { input x  hidden a, b, c  output y }
train { rate 0.3  epochs 3  momentum MOM  seed 5  init_scale 0.6 }
"""

#: a transposed use beside other connects: h feeds a full connect too (its
#: activations gathered, its errors reduce-scattered), y has a skip connect
MIXED = """\
layer x: input 7
layer h: sigmoid 4 bias
layer y: sigmoid 7 bias
layer z: sigmoid 2
connect x -> h
connect h -> z
connect x -> y
connect h -> y share_from x -> h transpose
net mixed { input x  hidden h  output y, z }
train { rate 0.4  epochs 3  momentum MOM  seed 9  init_scale 0.5 }
"""

CASES = {"ae": AE, "chain": CHAIN, "mixed": MIXED}


def _case(name, mom):
    n = net(CASES[name].replace("MOM", mom))
    return n, random_data(n, 12, 1), random_data(n, 5, 2)


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("mom", ["0", "0.5"])
@pytest.mark.parametrize("name", ["ae", "chain", "mixed"])
def test_agrees_with_reference(name, mom, nodes):
    network, tr, te = _case(name, mom)
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes)
    agrees(sim, ref, tr, te)
    assert list(sim.weights.connects) == [c.name for c in network.owned_connects()]


def test_one_matrix_in_node_memory():
    network, _, _ = _case("chain", "0.5")
    plan = lower(network, 4)
    matrices = [b.name for b in plan.buffers if b.kind == "matrix"]
    # x->a (with its momentum) and c->y: a->b and b->c hold none of their own
    assert sorted(matrices) == ["n_m_0", "n_m_3", "n_w_0", "n_w_3"]
    assert plan.connects[1].weights is plan.connects[0].weights
    assert plan.connects[2].momentum is plan.connects[0].momentum


def _loss(network, w, x, t):
    m = Model(network, w)
    return float(pattern_loss(network, m.outputs(x)[None, :], t[None, :])[0])


@pytest.mark.parametrize("name", ["ae", "chain", "mixed"])
def test_reference_step_is_the_summed_gradient(name):
    """Without momentum one on-line step changes the shared matrix by
    -rate dE/dW, E the pattern's loss as a function of the one matrix
    (both uses' gradients summed): checked by central differences."""
    network, tr, _ = _case(name, "0")
    rate = 0.01
    w0 = initial_weights(network)
    x, t = tr.inputs[0], tr.targets[0]
    model = Model(network, w0.copy())
    model.train_pattern(x, t, rate)
    key = network.connects[0].name
    change = model.weights.connects[key] - w0.connects[key]
    grad = np.zeros_like(change)
    eps = 1e-6
    for idx in np.ndindex(*grad.shape):
        up, down = w0.copy(), w0.copy()
        up.connects[key][idx] += eps
        down.connects[key][idx] -= eps
        grad[idx] = (_loss(network, up, x, t) - _loss(network, down, x, t)) / (2 * eps)
    assert np.abs(change + rate * grad).max() < 1e-8
    # and each use alone would not give it: the sum is needed
    assert np.abs(grad).max() > 1e-3


def test_momentum_semantics():
    """With momentum the changes of one pattern are summed before the
    momentum step: M = alpha M + (step1 + step2), W += M."""
    network, tr, _ = _case("ae", "0.5")
    model = Model(network, initial_weights(network))
    x, t = tr.inputs[0], tr.targets[0]
    model.train_pattern(x, t, 0.5)               # M is now the first pattern's change
    m1 = model.momentum.connects["x->h"].copy()
    w1 = model.weights.connects["x->h"].copy()
    plain = Model(network, model.weights.copy())  # no momentum history: the bare step
    network.training.momentum = 0.0
    plain.train_pattern(tr.inputs[1], tr.targets[1], 0.5)
    network.training.momentum = 0.5
    step = plain.weights.connects["x->h"] - w1
    model.train_pattern(tr.inputs[1], tr.targets[1], 0.5)
    assert np.abs(model.momentum.connects["x->h"] - (0.5 * m1 + step)).max() < 1e-12
    assert np.abs(model.weights.connects["x->h"] - (w1 + 0.5 * m1 + step)).max() < 1e-12


def test_checkpoint_holds_the_matrix_once(tmp_path):
    network, tr, _ = _case("ae", "0.5")
    sim = train(network, tr, nodes=2, epochs=1)
    path = tmp_path / "ae.npz"
    save_state(path, network, sim.state)
    keys = [k for k in np.load(path).files if ":" in k]
    assert sorted(keys) == ["b:h", "b:y", "m:x->h", "mb:h", "mb:y", "w:x->h"]
    back = load_weights(path, network)
    assert back.max_difference(sim.weights) == 0.0
    # a file with a decoder matrix of its own is not this network's
    w = sim.weights.copy()
    w.connects["h->y"] = np.zeros((6, 3))
    with pytest.raises(RapError, match="connect h->y is not in this network"):
        save_state(tmp_path / "bad.npz", network, TrainingState(w))


@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "rows"])
def test_other_mappings_refused(preset):
    network, _, _ = _case("ae", "0")
    with pytest.raises(MappingError, match=f"t.net:5:16: error: connect h->y shares the weights "
                                           f"of x->h .*rows mapping only, not the {preset} "
                                           f"mapping"):
        resolve(network, 4, preset)


def test_placement_attributes_refused():
    src = AE.replace("MOM", "0").replace("layer y: sigmoid 6 bias",
                                         "layer y: sigmoid 6 bias nodes 2..3")
    with pytest.raises(MappingError, match="connect h->y .* not the layers mapping"):
        resolve(net(src), 4)


ERRORS = [
    ("connect h -> y share_from x -> h transpose", "connect h -> y share_from x -> h flip",
     "5:34: error: connect h->y: expected 'transpose' or nothing after share_from x->h, "
     "not 'flip'"),
    ("connect h -> y share_from x -> h transpose", "connect h -> y share_from x -> y",
     "5:27: error: connect h->y: share_from x->y: there is no such connect"),
    ("connect h -> y share_from x -> h transpose", "connect h -> y share_from h -> y",
     "5:16: error: connect h->y cannot share its own weights"),
    ("connect h -> y share_from x -> h transpose", "connect h -> y share_from x -> h",
     "5:16: error: connect h->y (6 x 3 weights) cannot use the 3 x 6 weights of x->h: it "
     "needs 3 x 6"),
    ("connect h -> y share_from x -> h transpose", "connect h -> y bus share_from x -> h",
     "5:20: error: connect h->y: share_from x->h: h->y is a bus connect; weights are shared "
     "between full connects only"),
]


@pytest.mark.parametrize("old,new,message", ERRORS)
def test_description_errors(old, new, message):
    assert f"t.net:{message}" in diagnostics(AE.replace("MOM", "0").replace(old, new))


def test_chained_sharing_refused():
    src = CHAIN.replace("MOM", "0").replace("connect b -> c share_from x -> a",
                                            "connect b -> c share_from a -> b")
    with pytest.raises(Diagnostics, match="t.net:8:16: error: connect b->c: share_from a->b, "
                                          "which shares the weights of x->a itself"):
        net(src)


def test_several_nets_refused():
    src = AE.replace("MOM", "0") + "net part { input x  output h }\n"
    with pytest.raises(Diagnostics, match="parameter sharing is not supported with several "
                                          "nets"):
        net(src)
