"""The numpy reference of the pipelined schedule's tick model
(compiler/pipeline.py; docs/compiler.md, "Schedules").

In tick t the input layers hold pattern t (while there is one; afterwards
they keep the last), and every other layer computes from what its sources
held at the end of tick t - 1 (:func:`tick_states`), so that a layer of
stage s holds pattern t - s + 1.  The output stage S gives pattern p's
outputs in tick p + S - 1 (:func:`pipelined_outputs`).  This is written
from the tick rule alone -- one state per layer, updated all at once --
and not from the reference's layer-by-layer forward pass, so comparing
the two checks the rule.
"""
from __future__ import annotations

import numpy as np

from .ir import INPUT_KINDS
from .pipeline import stages
from .reference import Model, _through


def tick_states(model: Model, state: dict, x: np.ndarray) -> dict:
    """The layers' states after one tick, from ``state`` (the previous
    tick's, by layer name) and the input row ``x`` of this tick."""
    net, w, r = model.net, model.weights, model._r
    new = {name: r(np.asarray(x[model.in_slices[name]], dtype=np.float64))
           for name in net.inputs}
    for name, layer in net.layers.items():
        if layer.kind in INPUT_KINDS:
            continue
        s = w.biases[name].copy() if layer.bias else np.zeros(layer.size)
        for c in net.incoming(name):
            src = new[c.src] if net.layers[c.src].kind in INPUT_KINDS else state[c.src]
            s = r(s + _through(c, w.connects[c.name], src, layer.size))
        new[name] = r(np.asarray(model.f[layer.kind](s), dtype=np.float64))
    return new


def pipelined_outputs(model: Model, inputs: np.ndarray) -> np.ndarray:
    """The output rows (the output layers side by side, as
    ``Model.outputs``) of the patterns ``inputs`` run through the pipeline:
    ``len(inputs) + S - 1`` ticks, the outputs of the last ``len(inputs)``."""
    net = model.net
    depth = stages(net).depth
    state = {n: np.zeros(l.size) for n, l in net.layers.items()}
    rows = []
    for t in range(len(inputs) + depth - 1):
        state = tick_states(model, state, inputs[min(t, len(inputs) - 1)])
        if t >= depth - 1:
            rows.append(np.concatenate([state[n] for n in net.outputs]))
    return np.array(rows)
