"""Every mapping on every example network and on the back end's test nets
(a DAG with a skip and a bus connect, softmax, band and index sparse
connects, binary and threshold layers; issue 13: "every mapping works
for every network the compiler accepts today, or is refused with a clear
message naming what it cannot map"): each pair either trains one epoch on
the simulated RAP in agreement with the numpy reference of the mapping's
semantics, or is refused by a MappingError that names the place in the
description (file:line:col) or the construct."""
from __future__ import annotations

import glob
import os
import re
from dataclasses import replace

import numpy as np
import pytest

from rapsim.compiler.data import PatternSet
from rapsim.compiler.ir import Schedule
from rapsim.compiler.mapping import PRESETS, MappingError, resolve
from rapsim.compiler.parser import parse_file, parse_text
from rapsim.compiler.reference import evaluate
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import random_patterns, train

import backend

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
ALL_NETS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.net"))
                  if not p.endswith("mlp-common.net"))      # an include, not a net
#: the examples whose description names a schedule other than lockstep
#: (examples/pipeline.net, recurrent.net, delayed-xor.net): test_scheduled_example
#: below
SCHEDULED = {"pipeline.net": "pipeline", "recurrent.net": "stream",
             "delayed-xor.net": "stream"}
NETS = [n for n in ALL_NETS if n not in SCHEDULED]
#: description parameters of an example (none needed: the speech MLP
#: 234-512-61 trains 9 patterns in about a second)
PARAMS: dict = {}
#: what each refusal must name (the example and what it holds)
REFUSED = {"subnet.net": r"net 'direct' \(several nets in one pool\)",
           "clones.net": "(several nets in one pool|the behaviour|user transfer|binary layer)",
           "softsign.net": "uses the user transfer function 'softsign'",
           "autoencoder.net": "connect h->y shares the weights of x->h",
           "auxiliary.net": r"layer 'aux' is excluded from valid, test \(exclude\)",
           "behaviours.net": "the behaviour at event 'after_forward'",
           # the back end's test nets (tests/compiler/backend.py)
           "dag": "mapping 'checkerboard': bus connect a->b: the checkerboard splits full",
           "sparse": "mapping 'checkerboard': sparse connect x->h: the checkerboard splits",
           "binary": "binary layer 'b' is supported under the rows mapping only",
           "threshold": "threshold layer 't' is supported under the rows mapping only"}
#: refused under these mappings only (the others: under every one but rows)
ONLY = {"dag": {"checkerboard"}, "sparse": {"checkerboard"}}
BACKEND = {"dag": backend.DAG, "softmax": backend.SOFTMAX, "sparse": backend.SPARSE,
           "binary": backend.BINARY, "threshold": backend.THRESHOLD}


def _net(name):
    if name in BACKEND:
        n = parse_text(BACKEND[name], f"{name}.net")
    else:
        n = parse_file(os.path.join(EXAMPLES, name), params=PARAMS.get(name))
    return replace(n, training=replace(n.training, epochs=1,
                                       rate=Schedule("constant", {"rate": 0.1})))


def test_every_example_is_covered():
    assert set(NETS) >= {"xor.net", "digits.net", "speech.net", "softsign.net", "subnet.net",
                         "clones.net", "autoencoder.net", "auxiliary.net"}


@pytest.mark.parametrize("mapping", PRESETS)
@pytest.mark.parametrize("name", NETS + list(BACKEND))
def test_example_maps_or_is_refused(name, mapping):
    network = _net(name)
    nodes = 4
    try:
        m = resolve(network, nodes, mapping, batch=2 if mapping in ("data", "hybrid") else 1)
    except MappingError as e:
        assert mapping != "rows", "rows maps every network the compiler accepts"
        assert name in REFUSED and mapping in ONLY.get(name, PRESETS), \
            f"{name} refused under {mapping}: {e}"
        assert re.search(REFUSED[name], str(e)), str(e)
        where = name if name.endswith(".net") else f"{name}.net"
        assert re.match(rf".*{re.escape(where)}:\d+:\d+: error: ", str(e)), str(e)
        return
    assert name not in REFUSED or mapping == "rows" or mapping not in ONLY.get(name, PRESETS)
    tr, te = (PatternSet(r.inputs, r.targets) for r in (random_patterns(network, 9, 1),
                                                         random_patterns(network, 3, 2)))
    ref = reference_train(network, tr, te, c30_activations=True,
                          mapping=m if m.mini_batch else None)
    sim = train(network, tr, te, nodes=nodes, mapping=mapping, batch=m.batch)
    assert sim.mapping["name"] == mapping
    assert sim.weights.max_difference(ref.model.weights) < 1e-5
    y_ref = evaluate(ref.model, tr, "train").outputs        # by the training net
    assert np.abs(sim.outputs[:len(tr)] - y_ref).max() < 1e-5


@pytest.mark.parametrize("mapping", PRESETS)
@pytest.mark.parametrize("name", sorted(SCHEDULED))
def test_scheduled_example_maps_or_is_refused(name, mapping):
    """An example with its own schedule under every mapping: refused with
    the place of its schedule, or trained in agreement with the reference
    of the schedule (compiler/pipeline_reference.py, compiler/frames.py)."""
    from rapsim.compiler import frames
    from rapsim.compiler.pipeline import apply_schedule
    network = _net(name)
    assert network.schedule == SCHEDULED[name]
    try:
        m = apply_schedule(network, resolve(network, 4, mapping,
                                            batch=2 if mapping in ("data", "hybrid") else 1))
    except MappingError as e:
        assert mapping != "layers" and (mapping != "rows" or name == "pipeline.net"), str(e)
        assert re.match(rf".*{re.escape(name)}:\d+:\d+: error: schedule ", str(e)), str(e)
        return
    tr, te = (PatternSet(r.inputs, r.targets) for r in (random_patterns(network, 9, 1),
                                                         random_patterns(network, 3, 2)))
    sim = train(network, tr, te, nodes=4, mapping=mapping, batch=m.batch)
    assert sim.mapping["schedule"] == SCHEDULED[name]
    if name == "pipeline.net":
        ref = reference_train(network, tr, te, c30_activations=True, mapping=m)
        assert sim.weights.max_difference(ref.model.weights) < 1e-5
    else:
        model, evals = frames.train(network, tr, te, c30_activations=True)
        assert sim.weights.max_difference(model.weights) < 1e-5
        assert np.abs(sim.frame_outputs - evals[-1]).max() < 1e-5
