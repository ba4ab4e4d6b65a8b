"""Phases (exclude, compiler/phases.py): the nets of the phases, the
reference's semantics, the simulated RAP against it on 1 to 16 nodes with
a validation set, the description's errors and the refusals."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.infer import compile_inference
from rapsim.compiler.mapping import PRESETS, MappingError, resolve
from rapsim.compiler.reference import evaluate, initial_weights
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.stream import compile_streaming
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics, RapError

from backend import diagnostics, net, random_data

#: an auxiliary output only in training, a skip connect only when evaluating
AUX = """\
layer x: input 5
layer h: sigmoid 6 bias
layer aux: sigmoid 3 bias exclude valid, test
layer y: sigmoid 2 bias
connect x -> h
connect h -> aux
connect h -> y
connect x -> y exclude train
net ph { input x  hidden h  output y, aux }
train { rate 0.5  epochs 3  momentum MOM  seed 2  init_scale 0.5 }
"""

#: a hidden path only in the test net (and a layer of it that validation drops)
PATHS = """\
layer x: input 4
layer a: tanh 5 bias
layer b: sigmoid 3 exclude train, valid
layer y: sigmoid 2 bias
connect x -> a
connect a -> y
connect x -> b
connect b -> y
net paths { input x  hidden a, b  output y }
train { rate 0.3  epochs 3  momentum MOM  seed 4  init_scale 0.5 }
"""


def _sets(n):
    return random_data(n, 10, 1), random_data(n, 4, 3), random_data(n, 5, 2)


def test_phase_nets():
    n = net(AUX.replace("MOM", "0"))
    assert set(n.phases) == {"train", "valid", "test"}
    assert n.phases["train"].outputs == ["y", "aux"]
    assert [n.connects[i].name for i in n.phases["train"].connects] == ["x->h", "h->aux", "h->y"]
    assert n.phases["test"].outputs == ["y"]
    assert [n.connects[i].name for i in n.phases["test"].connects] == ["x->h", "h->y", "x->y"]
    p = net(PATHS.replace("MOM", "0"))
    assert set(p.phases) == {"train", "valid"}          # the test net is the main net


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("mom", ["0", "0.5"])
@pytest.mark.parametrize("src", [AUX, PATHS], ids=["aux", "paths"])
def test_agrees_with_reference(src, mom, nodes):
    n = net(src.replace("MOM", mom))
    tr, va, te = _sets(n)
    ref = reference_train(n, tr, te, c30_activations=True, valid_set=va)
    sim = train(n, tr, te, nodes=nodes, valid_set=va)
    assert sim.weights.max_difference(ref.model.weights) < 1e-5
    # the evaluation pass: each set by the net of its phase
    want = np.concatenate([evaluate(ref.model, data, phase).outputs
                           for data, phase in ((tr, "train"), (va, "valid"), (te, "test"))])
    assert np.abs(sim.outputs - want).max() < 1e-5
    assert len(sim.epochs) == len(ref.epochs)
    for a, b in zip(sim.epochs, ref.epochs):
        assert abs(a.valid_loss - b.valid_loss) < 1e-5 and abs(a.test_loss - b.test_loss) < 1e-5
        assert abs(a.train_loss - b.train_loss) < 1e-5
        assert a.train_accuracy == b.train_accuracy
        assert a.valid_accuracy == b.valid_accuracy and a.test_accuracy == b.test_accuracy


def test_reference_semantics():
    """What a connect excluded from training keeps its initial weights, the
    auxiliary output's connect learns; the test net's figures are over y
    alone, with the skip connect, and the aux columns are zeros."""
    n = net(AUX.replace("MOM", "0"))
    tr, va, te = _sets(n)
    w0 = initial_weights(n)
    ref = reference_train(n, tr, te, valid_set=va)
    w = ref.model.weights
    assert np.array_equal(w.connects["x->y"], w0.connects["x->y"])
    assert np.abs(w.connects["h->aux"] - w0.connects["h->aux"]).max() > 1e-3
    ev = evaluate(ref.model, te, "test")
    assert np.all(ev.outputs[:, 2:] == 0)
    m = ref.model
    y = []
    for x in te.inputs:
        h = 1 / (1 + np.exp(-(w.connects["x->h"] @ x + w.biases["h"])))
        y.append(1 / (1 + np.exp(-(w.connects["h->y"] @ h + w.connects["x->y"] @ x
                                   + w.biases["y"]))))
    y = np.array(y)
    assert np.abs(ev.outputs[:, :2] - y).max() < 1e-12
    assert abs(ev.loss - np.mean(0.5 * np.sum((te.targets[:, :2] - y) ** 2, axis=1))) < 1e-12
    assert ref.epochs[-1].test_loss == pytest.approx(ev.loss)
    assert m.net is n


ERRORS = [
    ("exclude valid, test", "exclude tests",
     "3:35: error: layer 'aux': unknown phase 'tests' in exclude (expected train, valid, test)"),
    ("exclude valid, test", "exclude valid, valid",
     "3:42: error: layer 'aux': phase 'valid' is excluded twice"),
    ("exclude valid, test", "exclude valid, test, train",
     "3:27: error: layer 'aux' is excluded from every phase"),
    ("layer x: input 5", "layer x: input 5 exclude test",
     "1:18: error: input layer 'x' cannot be excluded"),
    ("connect x -> h", "connect x -> h exclude test",
     "3:27: error: the test net: layer 'h' is not reached from the net's inputs through its "
     "connects (what it depends on is excluded from test)"),
    ("connect h -> y", "connect h -> y exclude test",
     "3:27: error: the test net: layer 'h' does not lead to the net's outputs through its "
     "connects (what it depends on is excluded from test)"),
]


@pytest.mark.parametrize("old,new,message", ERRORS)
def test_description_errors(old, new, message):
    assert message in diagnostics(AUX.replace("MOM", "0").replace(old, new))


def test_no_output_left():
    src = AUX.replace("MOM", "0").replace("layer y: sigmoid 2 bias",
                                          "layer y: sigmoid 2 bias exclude test")
    src = src.replace("exclude valid, test", "exclude test")
    with pytest.raises(Diagnostics, match="the test net has no output layer left"):
        net(src)


def test_several_nets_refused():
    src = AUX.replace("MOM", "0") + "net part { input x  output y }\n"
    with pytest.raises(Diagnostics, match="phases \\(exclude\\) are not supported with several "
                                          "nets"):
        net(src)


@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "rows"])
def test_other_mappings_refused(preset):
    n = net(AUX.replace("MOM", "0"))
    with pytest.raises(MappingError, match=f"t.net:3:27: error: layer 'aux' is excluded from "
                                           f"valid, test \\(exclude\\): phases are supported by "
                                           f"the rows mapping only, not the {preset} mapping"):
        resolve(n, 4, preset)


def test_inference_and_streaming_refused():
    n = net(AUX.replace("MOM", "0"))
    with pytest.raises(RapError, match="t.net:3:27: error: .*not the inference image"):
        compile_inference(n, 2)
    with pytest.raises(RapError, match="t.net:3:27: error: .*not a streamed one"):
        compile_streaming(n, 2)
    with pytest.raises(RapError, match="t.net:3:27: error: .*not a streamed one"):
        tr, va, te = _sets(n)
        train(n, tr, te, nodes=2, stream=True)


def test_statistics_refused_when_an_output_is_dropped():
    n = net(AUX.replace("MOM", "0"))
    tr, va, te = _sets(n)
    with pytest.raises(RapError, match="output layer 'aux' is excluded from the valid net"):
        train(n, tr, te, nodes=1, stats=["class_error"])


def test_without_phases_the_program_is_unchanged():
    """A description without exclude compiles to the same program as before
    (no phase branches)."""
    n = net(AUX.replace("MOM", "0").replace(" exclude valid, test", "")
            .replace(" exclude train", ""))
    assert not n.phases
    assert "hv_phase" not in compile_network(n, 2).source
    assert "hv_phase_valid" in compile_network(net(AUX.replace("MOM", "0")), 2).source
