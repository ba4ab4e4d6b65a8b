"""The streaming schedule (``schedule stream``; issue 14, after
Statestream's layerwise-parallel networks, ../shared/seeds/statestream.txt):
frames, local plasticities and their numpy reference.

**Frames.**  Every non-input layer has two activation buffers: its state
y(t) and the next one y(t + 1).  In frame t every layer computes, all at
once, ``y(t + 1) = f(sum over its connects of W y_src(t) + b)`` from the
*previous* frame's states of its sources (input layers: the pattern being
presented), then one exchange makes the new states current.  So a layer
d connects from the input answers a stimulus d frames after its onset,
and cycles -- recurrent connects, a layer into itself -- are legal (in
this schedule only).  A pattern is presented for ``frames`` frames (the
train block's ``frames N``, default 1); the states run on from pattern to
pattern (no reset), as a stream.

**Plasticities** (per connect, in the description after its kind:
``connect h -> h full hebbian(rate=0.01, decay=0.1)``); each updates its
own connect's weights every frame of a training pass, after the frame's
states are computed, so several plasticities update disjoint parameter
sets in the same frame:

``hebbian(rate, decay=0)``
    ``W = (1 - rate decay) W + rate y_dst(t + 1) y_src(t)^T``;
``l2(rate, weight)``
    ``W = (1 - rate weight) W`` (L2 regularisation: weight decay);
``l1(rate, weight)``
    ``W = W - rate weight sign(W)`` (L1 regularisation; a weight that
    would cross zero stops at zero).

A connect without a plasticity keeps its weights; biases are not changed.
"""
from __future__ import annotations

import numpy as np

from .ir import INPUT_KINDS, Network

#: plasticity name -> its arguments and defaults (None: required)
PLASTICITIES = {"hebbian": {"rate": None, "decay": 0.0},
                "l2": {"rate": None, "weight": None},
                "l1": {"rate": None, "weight": None}}


def plasticity(call, errors: list) -> dict | None:
    """A connect's plasticity from its call in the description (a
    :class:`rapsim.compiler.parser.Call`), checked: ``{"rule": name,
    argument: value, ...}``; errors are appended as (place, message)."""
    from .parser import REQUIRED
    name = call.name.text
    sig = {k: (REQUIRED if v is None else v) for k, v in PLASTICITIES[name].items()}
    bound = call.bind(sig, errors)
    if bound is None:
        return None
    out = {"rule": name}
    for key, (value, loc) in bound.items():
        value = float(value)
        if not np.isfinite(value) or value < 0:
            errors.append((loc, f"{name}(): {key} must be a number of at least 0, not {value:g}"))
            return None
        out[key] = value
    if name == "hebbian" and out["rate"] * out["decay"] > 1:
        errors.append((call.name.loc, "hebbian(): rate x decay above 1 would flip the "
                                      "weights' sign every frame"))
        return None
    if name == "l2" and out["rate"] * out["weight"] > 1:
        errors.append((call.name.loc, "l2(): rate x weight above 1 would flip the weights' "
                                      "sign every frame"))
        return None
    return out


def stream_order(layers, connects, inputs) -> list[str]:
    """A forward order of a network that may have cycles: the inputs, then
    every other layer in definition order (in a frame every layer reads the
    previous frame's states, so any order computes the same)."""
    return list(inputs) + [n for n in layers if n not in inputs]


# -- the numpy reference -------------------------------------------------------------------

def frame(model, state: dict, x: np.ndarray) -> dict:
    """The states after one frame: every non-input layer from the previous
    frame's states of its sources, the input layers from the row ``x``."""
    net, w, r = model.net, model.weights, model._r
    new = {n: r(np.asarray(x[model.in_slices[n]], dtype=np.float64)) for n in net.inputs}
    src = {**state, **new}                      # inputs: the pattern being presented
    for name, layer in net.layers.items():
        if layer.kind in INPUT_KINDS:
            continue
        s = w.biases[name].copy() if layer.bias else np.zeros(layer.size)
        for c in net.incoming(name):
            s = r(s + w.connects[c.name] @ src[c.src])
        new[name] = r(np.asarray(model.f[layer.kind](s), dtype=np.float64))
    return new


def plasticity_step(model, old: dict, new: dict) -> None:
    """Every connect's plasticity after a frame (``old``: the states the
    frame read, inputs included; ``new``: those it computed)."""
    net, w, r = model.net, model.weights, model._r
    for c in net.connects:
        p = getattr(c, "plasticity", None)
        if p is None:
            continue
        W = w.connects[c.name]
        if p["rule"] == "hebbian":
            W = r(r((1 - p["rate"] * p["decay"]) * W)
                  + np.outer(p["rate"] * new[c.dst], old[c.src]))
        elif p["rule"] == "l2":
            W = r((1 - p["rate"] * p["weight"]) * W)
        else:
            step = p["rate"] * p["weight"]
            W = r(np.where(W > step, W - step, np.where(W < -step, W + step, 0.0)))
        w.connects[c.name] = W


def initial_states(network: Network) -> dict:
    return {n: np.zeros(l.size) for n, l in network.layers.items()}


def run(model, state: dict, inputs: np.ndarray, frames: int, learn: bool):
    """Present each row of ``inputs`` for ``frames`` frames, from ``state``;
    with ``learn`` apply the plasticities after every frame.  Returns the
    new state and the outputs of every frame, (patterns, frames, units)."""
    net = model.net
    out = np.zeros((len(inputs), frames, sum(net.layers[n].size for n in net.outputs)))
    for i, x in enumerate(inputs):
        for f in range(frames):
            xs = {n: np.asarray(x[model.in_slices[n]], dtype=np.float64) for n in net.inputs}
            new = frame(model, state, x)
            if learn:
                plasticity_step(model, {**state, **xs}, new)
            state = new
            out[i, f] = np.concatenate([state[n] for n in net.outputs])
    return state, out


def accuracy_by_offset(network: Network, outputs: np.ndarray, targets: np.ndarray) -> list:
    """The accuracy of each frame since stimulus onset: entry f is the
    fraction of patterns whose outputs f + 1 frames after their onset are
    correct (rapsim.compiler.reference.pattern_correct)."""
    from .reference import pattern_correct
    return [float(np.mean(pattern_correct(network, outputs[:, f], targets)))
            for f in range(outputs.shape[1])]


def train(network: Network, train_set, test_set=None, *, weights=None, epochs=None,
          c30_activations: bool = False):
    """The reference of a streamed run: every epoch presents the training
    patterns in the epoch's order (``pattern_order``), each for ``frames``
    frames, learning; then the training and test patterns in their order,
    each for ``frames`` frames, without learning (the evaluation, whose
    outputs are logged every frame).  The states run on across patterns,
    passes and epochs, from zeros.  Returns (model, [outputs of each
    epoch's evaluation pass: (patterns, frames, units)])."""
    from .reference import Model, pattern_order
    t = network.training
    model = Model(network, weights, c30_activations=c30_activations)
    state = initial_states(network)
    F = t.frames
    evals = []
    rows = np.concatenate([train_set.inputs] + ([test_set.inputs] if test_set is not None
                                                  else []))
    for e in range(t.epochs if epochs is None else epochs):
        order = pattern_order(len(train_set), e, t.seed, t.shuffle)
        state, _ = run(model, state, train_set.inputs[order], F, learn=True)
        state, out = run(model, state, rows, F, learn=False)
        evals.append(out)
    return model, evals


# -- lowering and the host -------------------------------------------------------------------

def next_buffers(plan) -> list:
    """Every non-input layer's second activation buffer (its next state),
    laid out as its first (``act``)."""
    from .lower import Buffer
    return [Buffer(f"nxt_{name}", plan.layers[name].act.words, "vector",
                   uses=plan.layers[name].act.uses,
                   role=f"{name} next state (stream)") for name in plan.forward]


def next_buffer(plan, name: str):
    return next(b for b in plan.extra if b.name == f"nxt_{name}")


def check_stream(network: Network, mapping) -> None:
    """What the streaming schedule runs: the rows or layers placement, full
    connects, none of the CLONES constructs."""
    from .mapping import MappingError, _refuse_clones
    loc = network.schedule_loc if mapping.schedule_source == "description" else None
    if mapping.name not in ("rows", "layers"):
        raise MappingError(f"schedule stream runs every layer split by units on the whole "
                           f"ring (rows) or on node groups (layers), not the {mapping.name} "
                           f"mapping", loc)
    for c in network.connects:
        if c.kind != "full":
            raise MappingError(f"schedule stream: {c.kind} connect {c.name}: the frames run "
                               f"full connects only", c.loc)
    saved = mapping.name
    mapping.name = "stream"
    try:
        _refuse_clones(network, mapping)
    finally:
        mapping.name = saved


def frames_host(base):
    """The training host of a streamed program: its logs hold every
    frame's outputs; :meth:`read_outputs` gives each pattern's last frame
    (the epoch's loss and accuracy) and keeps all of them
    (``frame_outputs``: patterns x frames x output units)."""
    import numpy as np

    class FramesHost(base):
        frame_outputs = None

        @property
        def frames(self) -> int:
            return self.plan.network.training.frames

        def _sizes(self) -> dict:
            sizes = super()._sizes()
            for name in self.plan.outputs:
                sizes["log_" + name] *= self.frames
            return sizes

        def read_outputs(self, sim):
            F, P = self.frames, self.eval_patterns
            out = []
            for name in self.plan.outputs:
                sp = self.plan.layers[name].split
                parts = [sim.read_floats(self.addr["log_" + name], P * F * sp.rows(k), node=k)
                         .reshape(P, F, sp.rows(k)) for k in range(self.plan.nodes)]
                out.append(np.concatenate(parts, axis=2))
            self.frame_outputs = np.concatenate(out, axis=2)
            return self.frame_outputs[:, -1]

    return FramesHost
