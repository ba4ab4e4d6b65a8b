"""The schedule of a mapping (compiler/pipeline.py): ``schedule`` in the
description, lockstep as today's program word for word, and the pipelined
evaluation against the numpy reference of the tick model
(compiler/pipeline_reference.py) on 1, 4, 16 and 64 nodes."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from backend import SOFTMAX, WEIGHT_TOL, XOR, agrees, net, random_data, xor_data
from rapsim.asm.objfile import image_bytes
from rapsim.compiler.build import compile_network
from rapsim.compiler.mapping import MappingError, resolve
from rapsim.compiler.parser import parse_file
from rapsim.compiler.pipeline import apply_schedule, slots, stages
from rapsim.compiler.pipeline_reference import pipelined_outputs
from rapsim.compiler.reference import Model, initial_weights
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import scheduled_mapping, train
from rapsim.errors import Diagnostics

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "pipeline.net")

#: a bus connect inside a group (a and b: one group, two stages)
BUS = """\
layer x: input 4
layer a: tanh 6 bias
layer b: sigmoid 6
layer o: sigmoid 2 bias
connect x -> a full
connect a -> b bus
connect b -> o full
net bus { input x  hidden a, b  output o }
train { rate 0.3  epochs 2  momentum 0.2  seed 4  init_scale 0.5 }
"""

ONE = """\
layer x: input 5
layer y: sigmoid 3 bias
connect x -> y full
net one { input x  output y }
train { rate 0.4  epochs 3  momentum 0.5  seed 2  init_scale 0.5 }
"""

SKIP = XOR.replace("connect h -> y full", "connect h -> y full\nconnect x -> y full")


def with_schedule(src: str, name: str) -> str:
    """``src`` with ``schedule NAME`` in its net block."""
    i = src.index("}", src.index("net "))
    return src[:i] + f" schedule {name} " + src[i:]


# -- the attribute and the option --------------------------------------------------------

def test_schedule_attribute_is_read():
    n = net(with_schedule(XOR, "pipeline"))
    assert n.schedule == "pipeline" and n.schedule_loc.line == 7
    assert net(XOR).schedule is None


@pytest.mark.parametrize("bad,message", [
    ("schedule sometimes", "schedule in a net block takes one of lockstep, pipeline, stream"),
    ("schedule pipeline schedule lockstep", "'schedule' is given twice in net 'xor'"),
    ("schedule pipeline, stream", "schedule in a net block takes one of"),
])
def test_bad_schedule_attribute(bad, message):
    with pytest.raises(Diagnostics, match=message) as err:
        net(with_schedule(XOR, "") .replace("schedule  ", bad + " "))
    assert "t.net:7:" in str(err.value)


def test_lockstep_is_todays_program_word_for_word():
    plain = compile_network(net(XOR), 4)
    written = compile_network(net(with_schedule(XOR, "lockstep")), 4)
    m = apply_schedule(net(XOR), resolve(net(XOR), 4), "lockstep")
    asked = compile_network(net(XOR), 4, mapping=m)
    assert plain.source == written.source == asked.source
    assert image_bytes(plain.image) == image_bytes(written.image) == image_bytes(asked.image)
    assert m.to_dict()["schedule"] == "lockstep" and m.schedule_source == "--schedule"


def test_option_wins_over_the_description():
    n = net(with_schedule(XOR, "pipeline"))
    m = apply_schedule(n, resolve(n, 4), "lockstep")
    assert m.schedule == "lockstep" and m.name == "rows"
    m = apply_schedule(n, resolve(n, 4))
    assert m.schedule == "pipeline" and m.schedule_source == "description"
    assert m.name == "layers" and m.source == "schedule pipeline"


# -- what a pipeline refuses ---------------------------------------------------------------

def test_a_skip_connect_is_refused_with_its_place():
    with pytest.raises(MappingError, match=r"t.net:7:\d+: error: schedule pipeline: connect "
                                           r"x->y joins stage 0 \(x\) to stage 2 \(y\)"):
        n = net(SKIP)
        apply_schedule(n, resolve(n, 4), "pipeline")


@pytest.mark.parametrize("preset", ["data", "hybrid", "checkerboard"])
def test_other_placements_are_refused(preset):
    n = net(XOR)
    with pytest.raises(MappingError, match=f"schedule pipeline \\(--schedule\\) runs layers on "
                                           f"consecutive node groups .* not --mapping {preset}"):
        apply_schedule(n, resolve(n, 4, preset), "pipeline")


def test_stream_refuses_other_placements():
    n = net(with_schedule(XOR, "stream"))
    with pytest.raises(MappingError, match=r"t.net:7:\d+: error: schedule stream runs every "
                                           r"layer .* not the data mapping"):
        apply_schedule(n, resolve(n, 4, "data"))


# -- the tick model --------------------------------------------------------------------------

def test_stages():
    st_ = stages(parse_file(EXAMPLE))
    assert st_.of == {"h1": 1, "h2": 2, "h3": 3, "y": 4}
    assert (st_.depth, st_.fill, st_.drain) == (4, 3, 3)
    assert stages(net(BUS)).of == {"a": 1, "b": 2, "o": 3}
    assert slots(parse_file(EXAMPLE)) == 7


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=5),
       patterns=st.integers(1, 7), seed=st.integers(0, 1000))
def test_tick_reference_gives_the_forward_pass_of_each_pattern(sizes, patterns, seed):
    """Run through the ticks, pattern p leaves the pipeline with the outputs
    that the layer-by-layer forward pass gives it."""
    names = [f"l{i}" for i in range(len(sizes))]
    src = [f"layer {names[0]}: input {sizes[0]}"]
    src += [f"layer {n}: sigmoid {s} bias" for n, s in zip(names[1:], sizes[1:])]
    src += [f"connect {a} -> {b} full" for a, b in zip(names, names[1:])]
    hidden = ", ".join(names[1:-1])
    src.append(f"net c {{ input {names[0]} " + (f"hidden {hidden} " if hidden else "")
               + f"output {names[-1]} }}")
    n = net("\n".join(src))
    model = Model(n, initial_weights(n, seed))
    x = np.random.default_rng(seed).random((patterns, sizes[0]))
    want = np.stack([model.outputs(r) for r in x])
    assert np.abs(pipelined_outputs(model, x) - want).max() < 1e-12


# -- the simulated pipeline against the reference ------------------------------------------

def _check(network, tr, te, nodes, epochs=None):
    m = scheduled_mapping(network, nodes, schedule="pipeline")
    ref = reference_train(network, tr, te, c30_activations=True, epochs=epochs, mapping=m)
    sim = train(network, tr, te, nodes=nodes, schedule="pipeline", epochs=epochs)
    assert sim.mapping["schedule"] == "pipeline" and sim.mapping["name"] == "layers"
    agrees(sim, ref, tr, te)
    rows = np.concatenate([tr.inputs] + ([te.inputs] if te is not None else []))
    assert np.abs(sim.outputs - pipelined_outputs(ref.model, rows)).max() < WEIGHT_TOL
    return sim


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_four_stages_agree_with_the_tick_reference(nodes):
    network = parse_file(EXAMPLE)
    tr, te = random_data(network, 9, 3), random_data(network, 4, 4)
    sim = _check(network, tr, te, nodes, epochs=3)
    p = sim.pipeline
    assert (p["stages"], p["fill_ticks"], p["drain_ticks"]) == (4, 3, 3)
    assert p["ticks_per_pass"] == 9 + 4 + 3
    assert [s["layers"] for s in p["per_stage"]] == [["h1"], ["h2"], ["h3"], ["y"]]
    assert all(s["busy_cycles_per_tick"] > 0 for s in p["per_stage"])
    assert 0 < p["balance"] <= 1
    if nodes >= 4:      # a group of its own for every stage
        groups = [tuple(s["nodes"]) for s in p["per_stage"]]
        assert len(set(groups)) == 4 and groups == sorted(groups)


@pytest.mark.parametrize("name,nodes", [("xor", 1), ("xor", 4), ("xor", 16), ("softmax", 1),
                                        ("softmax", 4), ("softmax", 16), ("softmax", 64)])
def test_other_nets_agree(name, nodes):
    if name == "xor":
        _check(net(XOR), xor_data(), None, nodes)
        return
    network = net(SOFTMAX)
    _check(network, random_data(network, 10, 1), random_data(network, 3, 2), nodes)


def test_staleness_makes_a_difference():
    """The reference of the rule is not on-line back-propagation: with four
    stages the weights part (the stages' forward steps run 6, 4, 2 and 0
    updates behind), and the simulation follows the rule."""
    network = parse_file(EXAMPLE)
    tr = random_data(network, 10, 3)
    m = scheduled_mapping(network, 4)
    stale = reference_train(network, tr, c30_activations=True, epochs=2, mapping=m)
    online = reference_train(network, tr, c30_activations=True, epochs=2)
    assert stale.model.weights.max_difference(online.model.weights) > 1e-3
    sim = train(network, tr, nodes=4, epochs=2)
    assert sim.weights.max_difference(stale.model.weights) < WEIGHT_TOL
    assert [s["staleness"] for s in sim.pipeline["per_stage"]] == [6, 4, 2, 0]
    assert sim.pipeline["train_extra_ticks"] == 6


def test_one_stage_is_online_training_bit_for_bit():
    """One stage (input -> output): no staleness, so the pipelined program
    trains and evaluates exactly as the lock-step one does."""
    network = net(ONE)
    tr, te = random_data(network, 8, 5), random_data(network, 3, 6)
    a = train(network, tr, te, nodes=4, schedule="pipeline")
    b = train(network, tr, te, nodes=4, mapping="layers", schedule="lockstep")
    assert b.mapping["schedule"] == "lockstep" and not b.pipeline
    assert a.pipeline["stages"] == 1 and a.pipeline["fill_ticks"] == 0
    assert np.array_equal(a.outputs, b.outputs)
    assert a.weights.max_difference(b.weights) == 0


#: sparse connects in a pipeline: a band (local), a pair list and random,
#: with momentum (the _mxoutms, _spoutm kernels)
SPARSE_PIPE = """\
layer x: input 8
layer a: tanh 6 bias
layer b: sigmoid 5
layer o: sigmoid 3 bias
connect x -> a sparse local(3, stride=1)
connect a -> b sparse [0 -> 0, 1 -> 0, 5 -> 1, 2 -> 2, 3 -> 3, 4 -> 4, 0 -> 4]
connect b -> o sparse random(2, seed=3)
net sp { input x  hidden a, b  output o }
train { rate 0.3  epochs 2  momentum 0.4  seed 6  init_scale 0.5 }
"""


#: a bus connect from the input (held whole: the source at the
#: destination's offset)
BUS_IN = BUS.replace("layer x: input 4", "layer x: input 6").replace(
    "connect x -> a full", "connect x -> a bus")


@pytest.mark.parametrize("name,nodes", [("bus", 1), ("bus", 4), ("bus", 16), ("bus", 64),
                                        ("bus_in", 4), ("bus_in", 16),
                                        ("sparse", 1), ("sparse", 4), ("sparse", 16),
                                        ("sparse", 64)])
def test_bus_and_sparse_connects_in_the_training_ticks(name, nodes):
    """Their forward kernels in the ticks, their backward and update
    kernels on the stashed sources (the staleness rule), against the tick
    reference; with momentum."""
    network = net({"bus": BUS, "bus_in": BUS_IN, "sparse": SPARSE_PIPE}[name])
    tr, te = random_data(network, 9, 3), random_data(network, 3, 4)
    sim = _check(network, tr, te, nodes)
    assert sim.pipeline["stages"] == 3
    w0 = initial_weights(network)
    for c in network.connects:
        assert np.abs(sim.weights.connects[c.name] - w0.connects[c.name]).max() > 1e-4, c.name
