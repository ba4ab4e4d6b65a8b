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
from .reference import Model, _step, _through


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


def train_epoch(model: Model, inputs: np.ndarray, targets: np.ndarray, order, rate: float
                ) -> None:
    """One epoch of pipelined training (the staleness rule of
    docs/compiler.md, "Schedules"): the patterns ``order`` enter one a tick;
    in tick t stage s computes pattern t - s + 1 forward with its weights as
    they are, then takes pattern b = t - 2 S + s + 1 backward: its error
    signal from the activations it computed for b (2 (S - s) ticks ago) and,
    below the output, the errors stage s + 1 sent back in tick t - 1;
    ``W^T d`` through its weights as they are now, then ``W += rate d x^T``
    (with momentum) with the source vector it read for b."""
    net = model.net
    st = stages(net)
    S, P = st.depth, len(order)
    r, w = model._r, model.weights
    alpha = net.training.momentum
    state = {n: np.zeros(l.size) for n, l in net.layers.items()}
    stash: dict = {}                    # (layer, pattern) -> (y, {connect: x})
    sent: dict = {}                     # errors sent back in the previous tick, by layer
    for t in range(P + 2 * S - 2):
        p_in = order[min(t, P - 1)]
        old = state
        state = tick_states(model, old, inputs[p_in])
        for name, s in st.of.items():
            xs = {c.name: (state if net.layers[c.src].kind in INPUT_KINDS else old)[c.src]
                  for c in net.incoming(name)}
            stash[(name, t - s + 1)] = (state[name], xs)
        now: dict = {}
        for s in range(1, S + 1):
            b = t - 2 * S + s + 1
            if not 0 <= b < P:
                continue
            for name in st.layers(s):
                y, xs = stash.pop((name, b))
                layer = net.layers[name]
                if name in net.outputs:
                    tt = targets[order[b]][model.out_slices[name]]
                    d = (r(tt - y) if net.training.error == "cross_entropy"
                         else r(r(tt - y) * model.derivative(layer.kind, y)))
                else:
                    d = r(sent[name] * model.derivative(layer.kind, y))
                if layer.bias:
                    model._apply(w.biases, model.momentum.biases, name, rate * d, alpha)
                for c in net.incoming(name):
                    if net.layers[c.src].kind not in INPUT_KINDS:
                        e = _through(c, w.connects[c.name], d, net.layers[c.src].size, back=True)
                        now[c.src] = r(now.get(c.src, 0) + e)
                    model._apply(w.connects, model.momentum.connects, c.name,
                                 _step(c, d, xs[c.name], rate), alpha)
        sent = now
