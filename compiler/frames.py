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

``loss(rate, window=1)``
    the back-propagated loss over a window of frames (Statestream's loss
    plasticity; truncated back-propagation through time, below).

A connect without a plasticity keeps its weights; the local rules do not
change biases (the loss does: below).

**The loss plasticity.**  Its loss is the training error (the train
block's ``error``: mse or cross_entropy) of the net's output layers at
the frame just computed, y_o(t + 1), against the targets of the pattern
presented in frame t.  Every layer keeps its states of the last W + 1
frames (``History``: slot tau mod (W + 1) holds y(tau); an input layer's
y(tau) is the pattern presented in frame tau), so that, with one frame's
delay on each connect (y_l(t + 1) depends on its sources at t):

    d_o(t + 1)     = the output error (t - y, times f'(y) for mse)
    d_l(t + 1 - j) = f'(y_l(t + 1 - j)) sum over connects c: l -> m of
                     W_c^T d_m(t + 2 - j)                    j = 1 .. W - 1
    W_c += rate sum_j d_dst(t + 1 - j) y_src(t - j)^T        j = 0 .. W - 1
    b_l += rate sum_j d_l(t + 1 - j)     (a layer fed by loss connects)

(truncated back-propagation through time: -dE(t + 1)/dW of the graph of
the last W frames, the states before them held fixed: :func:`loss_grads`;
tests/compiler/test_frames.py checks it by finite differences).  The
backward steps use the weights as they are after frame t, before any
change of that frame; the loss's changes are applied after all its
deltas, then the other plasticities' (which read their own connect's
weights only).  States before the start of the stream are zeros.  One
window a network; the connects into a layer with a bias share that bias,
so their rates must agree.
"""
from __future__ import annotations

import numpy as np

from .ir import INPUT_KINDS, Network
from .reference import _through

#: plasticity name -> its arguments and defaults (None: required)
PLASTICITIES = {"hebbian": {"rate": None, "decay": 0.0},
                "l2": {"rate": None, "weight": None},
                "l1": {"rate": None, "weight": None},
                "loss": {"rate": None, "window": 1}}

#: the longest window of the loss plasticity (frames kept a layer: W + 1)
MAX_WINDOW = 64


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
    if name == "loss":
        w, loc = bound["window"]
        if out["window"] != int(out["window"]) or not 1 <= out["window"] <= MAX_WINDOW:
            errors.append((loc, f"loss(): window must be a whole number of frames from 1 to "
                                f"{MAX_WINDOW}, not {out['window']:g}"))
            return None
        out["window"] = int(out["window"])
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
            s = r(s + _through(c, w.connects[c.name], src[c.src], layer.size))
        new[name] = r(np.asarray(model.f[layer.kind](s), dtype=np.float64))
    return new


def plasticity_step(model, old: dict, new: dict) -> None:
    """Every connect's plasticity after a frame (``old``: the states the
    frame read, inputs included; ``new``: those it computed)."""
    net, w, r = model.net, model.weights, model._r
    for c in net.connects:
        p = getattr(c, "plasticity", None)
        if p is None or p["rule"] == "loss":
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


def loss_connects(network: Network) -> list:
    """The connects trained by the loss plasticity, in definition order."""
    return [c for c in network.connects
            if getattr(c, "plasticity", None) and c.plasticity["rule"] == "loss"]


def loss_window(network: Network) -> int | None:
    """The window W of the network's loss plasticity (one a network:
    :func:`check_stream`), None without one."""
    cs = loss_connects(network)
    return cs[0].plasticity["window"] if cs else None


def loss_reach(network: Network, window: int) -> list[list[str]]:
    """The layers whose delta the back-propagation computes at each step j
    = 0 .. W - 1: the output layers at j = 0, then every non-input layer
    with a connect into a layer of step j - 1 (in the network's forward
    order); the others' deltas are zero."""
    inputs = set(network.inputs)
    steps = [list(network.outputs)]
    for _ in range(1, window):
        prev = set(steps[-1])
        steps.append([n for n in network.forward_order if n not in inputs
                      and any(c.src == n and c.dst in prev for c in network.connects)])
    return steps


class History:
    """The states of the last ``window`` + 1 frames of every layer: slot
    tau mod (W + 1) holds y(tau) (an input layer's: the pattern presented
    in frame tau), from zeros; ``s`` is the slot of the current frame t."""

    def __init__(self, network: Network, window: int):
        self.H = window + 1
        self.y = {n: np.zeros((self.H, l.size)) for n, l in network.layers.items()}
        self.s = 0
        self.inputs = list(network.inputs)

    def record(self, xs: dict, new: dict) -> None:
        """Frame t: the inputs it read (x_t) and the states it computed
        (y(t + 1))."""
        for n in self.inputs:
            self.y[n][self.s] = xs[n]
        for n, v in new.items():
            if n not in self.inputs:
                self.y[n][(self.s + 1) % self.H] = v

    def at(self, name: str, offset: int) -> np.ndarray:
        """y_name(t + offset)."""
        return self.y[name][(self.s + offset) % self.H]

    def advance(self) -> None:
        self.s = (self.s + 1) % self.H


def loss_deltas(model, hist: History, target: np.ndarray) -> list[dict]:
    """d_l(t + 1 - j) of every layer reached at step j (:func:`loss_reach`),
    j = 0 .. W - 1, with the weights as they are (module docstring)."""
    net, w, r = model.net, model.weights, model._r
    W = hist.H - 1
    steps = loss_reach(net, W)
    out = [model.output_deltas({o: hist.at(o, 1) for o in net.outputs}, target)]
    for j in range(1, W):
        d = {}
        for name in steps[j]:
            e = np.zeros(net.layers[name].size)
            for c in net.connects:
                if c.src == name and c.dst in out[-1]:
                    e = r(e + _through(c, w.connects[c.name], out[-1][c.dst], e.size,
                                       back=True))
            d[name] = r(e * model.derivative(net.layers[name].kind, hist.at(name, 1 - j)))
        out.append(d)
    return out


def loss_grads(model, hist: History, target: np.ndarray) -> dict:
    """-dE(t + 1)/dW of every loss connect (and -dE/db of the biases of
    the layers they feed), summed over the window: connect or layer name ->
    array (the changes are ``rate`` times these)."""
    net = model.net
    deltas = loss_deltas(model, hist, target)
    out = {}
    for c in loss_connects(net):
        out[c.name] = sum(np.outer(d[c.dst], hist.at(c.src, -j))
                          for j, d in enumerate(deltas) if c.dst in d)
    for name in loss_biased(net):
        out[name] = sum(d[name] for d in deltas if name in d)
    return out


def loss_history(network: Network, window: int) -> list[str]:
    """The layers whose states the loss reads back (in forward order): the
    sources of its connects (y_src(t - j)) and the layers it reaches after
    step 0 (f'(y_l(t + 1 - j))); an output layer's y(t + 1) is its current
    next state.  The reference keeps every layer's; the nodes these."""
    steps = loss_reach(network, window)
    need = {c.src for c in loss_connects(network)} | {n for s in steps[1:] for n in s}
    return [n for n in network.forward_order if n in need]


def loss_biased(network: Network) -> list[str]:
    """The layers whose biases the loss changes: those with a bias fed by
    a loss connect (in the network's forward order)."""
    dsts = {c.dst for c in loss_connects(network)}
    return [n for n in network.forward_order if n in dsts and network.layers[n].bias]


def loss_rate(network: Network, layer: str) -> float:
    """The rate of the loss connects into ``layer`` (one: check_stream)."""
    return next(c.plasticity["rate"] for c in loss_connects(network) if c.dst == layer)


def loss_step(model, hist: History, target: np.ndarray) -> None:
    """The loss plasticity after frame t: every delta first, then, in the
    connects' definition order and for j = 0 .. W - 1, ``W += (rate d) x^T``
    (as _mxout rounds), then the biases ``b += rate d``."""
    net, w, r = model.net, model.weights, model._r
    deltas = loss_deltas(model, hist, target)
    for c in loss_connects(net):
        rate = c.plasticity["rate"]
        for j, d in enumerate(deltas):
            if c.dst in d:
                w.connects[c.name] = r(w.connects[c.name]
                                       + np.outer(r(rate * d[c.dst]), hist.at(c.src, -j)))
    for name in loss_biased(net):
        rate = loss_rate(net, name)
        for d in deltas:
            if name in d:
                w.biases[name] = r(w.biases[name] + r(rate * d[name]))


def initial_states(network: Network) -> dict:
    return {n: np.zeros(l.size) for n, l in network.layers.items()}


def run(model, state: dict, inputs: np.ndarray, frames: int, learn: bool,
        targets: np.ndarray | None = None, hist: History | None = None):
    """Present each row of ``inputs`` for ``frames`` frames, from ``state``;
    with ``learn`` apply the plasticities after every frame (the loss
    plasticity: ``hist``, the states' history, which every frame records,
    and ``targets``, a row a pattern).  Returns the new state and the
    outputs of every frame, (patterns, frames, units)."""
    net = model.net
    out = np.zeros((len(inputs), frames, sum(net.layers[n].size for n in net.outputs)))
    for i, x in enumerate(inputs):
        for f in range(frames):
            xs = {n: np.asarray(x[model.in_slices[n]], dtype=np.float64) for n in net.inputs}
            new = frame(model, state, x)
            if hist is not None:
                hist.record({n: model._r(v) for n, v in xs.items()}, new)
            if learn:
                if hist is not None:
                    loss_step(model, hist, targets[i])
                plasticity_step(model, {**state, **xs}, new)
            if hist is not None:
                hist.advance()
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
    W = loss_window(network)
    hist = History(network, W) if W else None
    F = t.frames
    evals = []
    rows = np.concatenate([train_set.inputs] + ([test_set.inputs] if test_set is not None
                                                  else []))
    for e in range(t.epochs if epochs is None else epochs):
        order = pattern_order(len(train_set), e, t.seed, t.shuffle)
        state, _ = run(model, state, train_set.inputs[order], F, learn=True,
                       targets=train_set.targets[order], hist=hist)
        state, out = run(model, state, rows, F, learn=False, hist=hist)
        evals.append(out)
    return model, evals


# -- lowering and the host -------------------------------------------------------------------

def next_buffers(plan) -> list:
    """Every non-input layer's second activation buffer (its next state),
    laid out as its first (``act``)."""
    from .lower import Buffer
    return [Buffer(f"nxt_{name}", plan.layers[name].act.words, "vector",
                   uses=plan.layers[name].act.uses,
                   role=f"{name} next state (stream)") for name in plan.forward] \
        + loss_buffers(plan)


def loss_buffers(plan) -> list:
    """The loss plasticity's buffers: the history of every layer it reads
    back (:func:`loss_history`; W + 1 slots of its activation buffer's
    layout: the whole vector of a gathered layer, else the own slice), and
    every reached layer's deltas of the window's steps (W slots of its own
    slice)."""
    from .lower import Buffer
    W = loss_window(plan.network)
    if not W:
        return []
    out = [Buffer(f"hst_{name}", (W + 1) * plan.layers[name].act.words, "table",
                  role=f"{name}: its states of the last {W + 1} frames (loss)")
           for name in loss_history(plan.network, W)]
    for name in dict.fromkeys(n for step in loss_reach(plan.network, W) for n in step):
        lp = plan.layers[name]
        out.append(Buffer(f"bpd_{name}", W * max(lp.split.max_rows, 1), "vector",
                          role=f"{name}: its deltas of the loss's {W} steps"))
    return out


def history_buffer(plan, name: str):
    return next(b for b in plan.extra if b.name == f"hst_{name}")


def delta_buffer(plan, name: str):
    return next(b for b in plan.extra if b.name == f"bpd_{name}")


def next_buffer(plan, name: str):
    return next(b for b in plan.extra if b.name == f"nxt_{name}")


def check_stream(network: Network, mapping) -> None:
    """What the streaming schedule runs: the rows or layers placement, none
    of the CLONES constructs; full, bus and sparse connects (plasticities
    are named on full connects only: a bus or sparse connect keeps its
    weights, and the loss back-propagates through it)."""
    from .mapping import MappingError, _refuse_clones
    loc = network.schedule_loc if mapping.schedule_source == "description" else None
    if mapping.name not in ("rows", "layers"):
        raise MappingError(f"schedule stream runs every layer split by units on the whole "
                           f"ring (rows) or on node groups (layers), not the {mapping.name} "
                           f"mapping", loc)
    check_loss(network)
    saved = mapping.name
    mapping.name = "stream"
    try:
        _refuse_clones(network, mapping)
    finally:
        mapping.name = saved


def check_loss(network: Network) -> None:
    """The loss plasticity's rules across connects (module docstring): one
    window a network; one rate for the connects into a layer with a bias
    (they share it: overlapping parameter sets are refused); every loss
    connect within reach of the output error in its window (the layers
    it passes through have elementwise derivatives: softmax is an output
    only, and the threshold, binary and user-transfer layers are refused
    under this schedule)."""
    from .mapping import MappingError
    cs = loss_connects(network)
    if not cs:
        return
    W = cs[0].plasticity["window"]
    for c in cs[1:]:
        if c.plasticity["window"] != W:
            raise MappingError(f"schedule stream: connect {c.name}: loss(window="
                               f"{c.plasticity['window']}), but connect {cs[0].name} has "
                               f"window={W}: one window a network (one back-propagation "
                               f"a frame)", c.loc)
    for name in loss_biased(network):
        into = [c for c in cs if c.dst == name]
        for c in into[1:]:
            if c.plasticity["rate"] != into[0].plasticity["rate"]:
                raise MappingError(
                    f"schedule stream: connect {c.name}: loss(rate={c.plasticity['rate']:g}) "
                    f"and connect {into[0].name}: loss(rate={into[0].plasticity['rate']:g}) "
                    f"both update {name}'s biases (overlapping parameters): give them one "
                    f"rate", c.loc)
    steps = loss_reach(network, W)
    for c in cs:
        if not any(c.dst in step for step in steps):
            far = loss_reach(network, MAX_WINDOW)
            j = next((j for j, step in enumerate(far) if c.dst in step), None)
            why = (f"{c.dst} is {j} connect{'s' if j != 1 else ''} upstream of an output "
                   f"layer: window={j + 1} or more" if j is not None
                   else f"{c.dst} is upstream of no output layer")
            raise MappingError(f"schedule stream: connect {c.name}: loss(window={W}) never "
                               f"reaches it ({why})", c.loc)


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
