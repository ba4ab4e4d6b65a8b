"""A numpy reference of a network and of its on-line back-propagation
training, for comparison with the simulated RAP (docs/network-language.md,
"Training, exactly").

The simulated run and this reference start from the same weights
(:func:`initial_weights`) and present the patterns in the same order
(:func:`pattern_order`), so after training their outputs and weights agree
within C30 precision.  With ``round_c30`` every stored value (net inputs
after each connect, activations, deltas, error sums, momentum terms and
weights) is rounded to C30 single precision (:mod:`rapsim.asm.floatfmt`) as
the nodes store it; with ``c30_activations`` sigmoid and tanh are the
firmware's piecewise-linear lines (:mod:`rapsim.firmware.tables`) instead
of the exact functions.

Patterns are :class:`rapsim.compiler.data.PatternSet` rows: the input
layers' values side by side in the net's input order (a binary layer as 0/1
per unit), targets likewise in output order.

Per pattern (``f`` the layer's activation, ``x`` a source activation)::

    forward, in forward_order:
        net_j = b_j + sum over incoming connects (in definition order) of
                full: W x     bus: w * x     sparse: net[d] += w_k x[s]
        y_j   = f(net_j)
    output deltas (delta = -dE/dnet):
        mse:            E = 1/2 sum (t - y)^2          delta = (t - y) f'(y)
        cross_entropy:  softmax: E = -sum t ln y       delta = t - y
                        sigmoid: E = -sum t ln y + (1-t) ln(1-y)
                                                       delta = t - y
    backward, in backward_order, for every non-input, non-output layer:
        e_j   = sum over outgoing connects of
                full: W^T delta   bus: w * delta   sparse: e[s] += w_k delta[d]
        delta_j = e_j f'(y_j)
        f'(y): sigmoid y (1 - y), tanh 1 - y^2, linear 1, threshold 1
        (threshold: y = 1 where net > 0, else 0; its derivative is taken
        as 1, the straight-through estimate)
    update, every connect (definition order), then every bias:
        M = momentum M + rate delta_dst x_src^T      (full; bus and sparse
        W = W + M                                      element by element)
        biases: a weight from a unit of constant 1.
        from a binary layer: only the columns of its active units (their
        momentum terms too; without momentum this is the same update).
        a shared matrix (share_from, compiler/sharing.py): every connect
        using it multiplies by it (transposed: W^T x forward, W delta
        backward); their changes (transposed: rate x_src delta_dst^T) are
        applied in definition order, the first as above, each next one as
        M = M + step; W = W + step (so M = momentum M + sum of the steps).

All deltas are computed with the weights as they were before the pattern.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .ir import BINARY_KINDS, INPUT_KINDS, Network
from .nets import net_of_pattern
from .phases import of
from .schedule import next_learning_rate

__all__ = ["Weights", "initial_weights", "pattern_order", "batches", "Model", "Evaluation",
           "EpochStats", "TrainResult", "evaluate", "train", "round_single"]


def round_single(x):
    """``x`` rounded to C30 single precision (as float64)."""
    from rapsim.asm.floatfmt import from_single, to_single
    return from_single(to_single(x))


@dataclass
class Weights:
    """The trainable values of a network.

    ``connects[name]`` (name ``src->dst``): full -- shape (dst size, src
    size), row ``i`` the weights into destination unit ``i``; bus -- (size,);
    sparse -- (pairs,) in the order of ``Connect.pairs``.  ``biases[layer]``:
    (size,) for every layer declared with ``bias``."""
    connects: dict[str, np.ndarray] = field(default_factory=dict)
    biases: dict[str, np.ndarray] = field(default_factory=dict)

    def copy(self) -> "Weights":
        return Weights({k: v.copy() for k, v in self.connects.items()},
                       {k: v.copy() for k, v in self.biases.items()})

    def zeros_like(self) -> "Weights":
        return Weights({k: np.zeros_like(v) for k, v in self.connects.items()},
                       {k: np.zeros_like(v) for k, v in self.biases.items()})

    def max_difference(self, other: "Weights") -> float:
        """The largest absolute difference between two sets of weights."""
        d = [np.max(np.abs(v - other.connects[k]), initial=0.0) for k, v in self.connects.items()]
        d += [np.max(np.abs(v - other.biases[k]), initial=0.0) for k, v in self.biases.items()]
        return float(max(d, default=0.0))


def _shape(network: Network, c) -> tuple:
    layers = network.layers
    if c.kind == "full":
        return (layers[c.dst].size, layers[c.src].size)
    return (c.weight_count(layers),)


def initial_weights(network: Network, seed: int | None = None,
                    scale: float | None = None) -> Weights:
    """The initial weights: ``rng = numpy.random.default_rng(seed)``, then
    ``rng.uniform(-scale, scale, shape)`` for every connect in definition
    order (shapes as in :class:`Weights`, row-major), then for the bias of
    every layer that has one, in definition order.  ``seed`` and ``scale``
    default to the network's ``training.seed`` and ``training.init_scale``."""
    t = network.training
    seed = t.seed if seed is None else seed
    scale = t.init_scale if scale is None else scale
    rng = np.random.default_rng(seed)
    w = Weights()
    for c in network.owned_connects():
        w.connects[c.name] = rng.uniform(-scale, scale, _shape(network, c))
    for name, layer in network.layers.items():
        if layer.bias:
            w.biases[name] = rng.uniform(-scale, scale, layer.size)
    return w


def pattern_order(n_patterns: int, epoch: int, seed: int, shuffle: bool = True) -> np.ndarray:
    """The order of the training patterns in epoch ``epoch`` (from 0):
    ``numpy.random.default_rng([seed, epoch + 1]).permutation(n_patterns)``,
    a fresh permutation of the database order every epoch; ``0 .. n-1``
    without ``shuffle``."""
    if not shuffle:
        return np.arange(n_patterns)
    return np.random.default_rng([seed, epoch + 1]).permutation(n_patterns)


# ---------------------------------------------------------------------------
# Activation functions
# ---------------------------------------------------------------------------

def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


_EXACT = {"sigmoid": _sigmoid, "tanh": np.tanh, "linear": lambda x: x, "softmax": _softmax,
          "threshold": lambda x: (x > 0).astype(np.float64)}


def _c30_lines(kind: str):
    """The firmware's piecewise-linear sigmoid or tanh (activate.asm)."""
    from rapsim.firmware import tables
    A, B = tables.sigmoid_table() if kind == "sigmoid" else tables.tanh_table()
    A, B = round_single(A), round_single(B)
    step = tables.SIGMOID_STEP if kind == "sigmoid" else tables.TANH_STEP
    half = tables.HALF

    def f(x):
        j = np.clip(np.floor(x / step), -half - 1, half).astype(np.int64) + half + 1
        return A[j] + B[j] * x
    return f


def _derivative(kind: str, y):
    if kind == "sigmoid":
        return y * (1.0 - y)
    if kind == "tanh":
        return 1.0 - y * y
    if kind in ("linear", "threshold"):        # threshold: straight through
        return np.ones_like(y)
    raise ValueError(f"a {kind} layer has no elementwise derivative")


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

class Model:
    """A network with its weights, momentum terms and per-pattern steps."""

    def __init__(self, network: Network, weights: Weights | None = None, *,
                 round_c30: bool = False, c30_activations: bool = False,
                 columns: dict | None = None):
        if not network.forward_order:
            raise ValueError("the network has not been checked (no forward order)")
        self.net = network
        self.round_c30 = round_c30
        self.weights = (weights or initial_weights(network)).copy()
        self._r = round_single if round_c30 else (lambda x: x)
        if round_c30:
            self.weights = self._map(self.weights, self._r)
        self.momentum = self.weights.zeros_like()
        self.f = dict(_EXACT)
        # user transfer functions: their numpy pair (compiler/transfer.py)
        self.df = {name: t.df for name, t in network.transfers.items()}
        self.f.update({name: t.f for name, t in network.transfers.items()})
        if c30_activations:
            self.f["sigmoid"] = _c30_lines("sigmoid")
            self.f["tanh"] = _c30_lines("tanh")
        self.in_slices = _slices(network, network.inputs)
        self.out_slices = _slices(network, network.outputs)
        #: connects split by columns (the columns mapping): name -> (the
        #: source's slice offsets, the destination's), for their summation
        #: order (:meth:`_by_columns`)
        self.columns = dict(columns or {})

    def derivative(self, kind: str, y):
        """f'(net) of a layer of ``kind`` from its output ``y``."""
        if kind in self.df:
            return self._r(np.asarray(self.df[kind](y), dtype=np.float64))
        return _derivative(kind, y)

    @staticmethod
    def _map(w: Weights, fn) -> Weights:
        return Weights({k: fn(v) for k, v in w.connects.items()},
                       {k: fn(v) for k, v in w.biases.items()})

    def _net(self, sub):
        """(forward order, backward order, outputs, connects) of the main
        net (``sub`` None) or of a sub-net (rapsim.compiler.nets.SubNet)."""
        net = self.net
        if sub is None:
            return net.forward_order, net.backward_order, net.outputs, net.connects
        return (sub.forward_order, sub.backward_order, sub.outputs,
                [net.connects[i] for i in sub.connects])

    def forward(self, x: np.ndarray, sub=None) -> dict[str, np.ndarray]:
        """Activations of every layer (of the net ``sub``, default the
        main net) for one input row."""
        r, net, w = self._r, self.net, self.weights
        order, _, _, connects = self._net(sub)
        acts: dict[str, np.ndarray] = {}
        for name in order:
            layer = net.layers[name]
            if layer.kind in INPUT_KINDS:
                acts[name] = r(np.asarray(x[self.in_slices[name]], dtype=np.float64))
                continue
            s = w.biases[name].copy() if layer.bias else np.zeros(layer.size)
            for c in (c for c in connects if c.dst == name):
                if c.name in self.columns:
                    s = r(s + self._by_columns(c, _matrix(w, c), acts[c.src]))
                else:
                    s = r(s + _through(c, _matrix(w, c), acts[c.src], layer.size))
            acts[name] = r(np.asarray(self.f[layer.kind](s), dtype=np.float64))
        return acts

    def _by_columns(self, c, wc: np.ndarray, x: np.ndarray) -> np.ndarray:
        """W x in the order of a connect split by columns over N nodes
        (docs/compiler.md, "Connects split by columns"; another order than
        rows' dot products, so the sums may differ in the last bits): node
        j's partial sums p_j = sum over its own source units u, in order, of
        W[:, u] x[u] (the first written, the next ones two at a time as
        _mxtv2 adds them: firmware/matrix.asm), then destination unit i of node
        k's slice sums p_{k+1}[i] + p_{k+2}[i] + ... + p_k[i] around the
        ring (the reduce-scatter's chain, docs/firmware.md 10)."""
        from .lower import columns_kernel
        r = self._r
        src_off, dst_off = self.columns[c.name]
        n = len(src_off) - 1
        # _mxtv4w (lower.columns_kernel): four rows a pass, summed in the
        # registers and stored once, then the rows left over as _mxtv2 adds
        # them (firmware/columns.asm)
        quads = columns_kernel(src_off, wc.shape[0]) == "_mxtv4w" and wc.shape[0] >= 3
        parts = []
        for j in range(n):
            us = list(range(src_off[j], src_off[j + 1]))
            p = r(wc[:, us[0]] * x[us[0]]) if us else np.zeros(wc.shape[0])
            rest = us[1:]
            if quads and len(rest) >= 4:
                q = len(rest) - len(rest) % 4
                for k in range(0, q, 4):
                    t = p
                    for u in rest[k:k + 4]:
                        t = t + wc[:, u] * x[u]
                    p = r(t)
                rest = rest[q:]
            # _mxtv2: pairs of rows summed in the registers, stored once (an
            # odd last row alone); one row left, or fewer than 3 outputs: rows
            # one at a time (_mxtv)
            pairs = len(rest) >= 2 and wc.shape[0] >= 3
            k = 0
            while k < len(rest):
                if pairs and k + 1 < len(rest):
                    a, b = rest[k], rest[k + 1]
                    p = r((p + wc[:, a] * x[a]) + wc[:, b] * x[b])
                    k += 2
                else:
                    p = r(p + wc[:, rest[k]] * x[rest[k]])
                    k += 1
            parts.append(p)
        out = np.zeros(wc.shape[0])
        for k in range(n):
            lo, hi = dst_off[k], dst_off[k + 1]
            s = parts[(k + 1) % n][lo:hi]
            for t in range(2, n + 1):
                s = r(s + parts[(k + t) % n][lo:hi])
            out[lo:hi] = s
        return out

    def output_deltas(self, acts: dict, t: np.ndarray, sub=None) -> dict[str, np.ndarray]:
        """delta = -dE/dnet of every output layer (the formulas above)."""
        out = {}
        for name in self._net(sub)[2]:
            y, tt = acts[name], t[self.out_slices[name]]
            kind = self.net.layers[name].kind
            if self.net.training.error == "cross_entropy":
                out[name] = self._r(tt - y)
            else:
                out[name] = self._r(self._r(tt - y) * self.derivative(kind, y))
        return out

    def backward(self, acts: dict, deltas: dict, sub=None) -> dict[str, np.ndarray]:
        """Deltas of every hidden layer, given the output deltas."""
        r, net, w = self._r, self.net, self.weights
        _, order, _, connects = self._net(sub)
        deltas = dict(deltas)
        for name in order:
            layer = net.layers[name]
            if layer.kind in INPUT_KINDS or name in deltas:
                continue
            e = np.zeros(layer.size)
            for c in (c for c in connects if c.src == name):
                e = r(e + _through(c, _matrix(w, c), deltas[c.dst], layer.size, back=True))
            deltas[name] = r(e * self.derivative(layer.kind, acts[name]))
        return deltas

    def steps(self, acts: dict, deltas: dict, rate: float):
        """The weight changes of one pattern of the main net, ``rate delta
        x^T``: yields ("connects" or "biases", name, change) (the mini-batch
        mappings, which refuse binary layers and several nets)."""
        for c in self.net.connects:
            yield "connects", c.name, _step(c, deltas[c.dst], acts[c.src], rate)
        for name in self.weights.biases:
            yield "biases", name, rate * deltas[name]

    def update(self, acts: dict, deltas: dict, rate: float, sub=None) -> None:
        """M = momentum M + rate delta x^T;  W = W + M, for every weight
        (of the net ``sub``: its connects and its layers' biases)."""
        r, net, w, m = self._r, self.net, self.weights, self.momentum
        alpha = net.training.momentum
        shared = {c.share for c in net.connects if c.share is not None}
        applied: set[str] = set()
        for c in self._net(sub)[3]:
            d, x = deltas[c.dst], acts[c.src]
            if alpha and net.layers[c.src].kind in BINARY_KINDS:
                # only the active units' columns, momentum terms included
                # (the binary kernels touch no other: docs/network-language.md)
                on = np.flatnonzero(x)
                wc, mc = w.connects[c.name], m.connects[c.name]
                mc[:, on] = r(alpha * mc[:, on] + np.outer(rate * d, x[on]))
                wc[:, on] = r(wc[:, on] + mc[:, on])
                continue
            step = _step(c, d, x, rate)
            if c.share is None and c.name not in shared:
                self._apply(w.connects, m.connects, c.name, step, alpha)
                continue
            # a shared matrix (compiler/sharing.py): its connects' changes in
            # definition order, the first as any update, the next ones added
            # to the momentum term and the weights as they are
            key, step = c.key, step.T if c.transpose else step
            if key in applied or not alpha:
                if alpha:
                    m.connects[key] = r(m.connects[key] + step)
                w.connects[key] = r(w.connects[key] + step)
            else:
                self._apply(w.connects, m.connects, key, step, alpha)
            applied.add(key)
        for name, b in w.biases.items():
            if name in deltas:
                self._apply(w.biases, m.biases, name, rate * deltas[name], alpha)

    def train_batch(self, shares: list, rate: float) -> None:
        """One step of the data mapping (compiler/mapping.py): ``shares[k]``
        holds node k's patterns, (x, t) pairs.  Every node sums the changes
        ``rate delta x^T`` of its patterns, all computed with the weights
        as they were before the batch; the sums of the nodes are added in
        node order (the ring all-reduce) into G, then ``M = momentum M + G;
        W = W + M`` (``W = W + G`` without momentum)."""
        r, w = self._r, self.weights
        total = None
        for share in shares:
            acc = w.zeros_like()
            for x, t in share:
                acts = self.forward(x)
                deltas = self.backward(acts, self.output_deltas(acts, t))
                for part, key, step in self.steps(acts, deltas, rate):
                    getattr(acc, part)[key] = r(getattr(acc, part)[key] + step)
            total = acc if total is None else self._map2(total, acc, lambda a, b: r(a + b))
        alpha = self.net.training.momentum
        for part in ("connects", "biases"):
            for key, g in getattr(total, part).items():
                self._apply(getattr(w, part), getattr(self.momentum, part), key, g, alpha)

    @staticmethod
    def _map2(a: Weights, b: Weights, fn) -> Weights:
        return Weights({k: fn(v, b.connects[k]) for k, v in a.connects.items()},
                       {k: fn(v, b.biases[k]) for k, v in a.biases.items()})

    def _apply(self, w: dict, m: dict, key: str, step, alpha: float) -> None:
        r = self._r
        if alpha:
            m[key] = r(alpha * m[key] + step)
            w[key] = r(w[key] + m[key])
        else:
            w[key] = r(w[key] + step)

    def train_pattern(self, x: np.ndarray, t: np.ndarray, rate: float, sub=None) -> dict:
        """One on-line step (of the net ``sub``, default the main net);
        returns the activations before the update."""
        acts = self.forward(x, sub)
        deltas = self.backward(acts, self.output_deltas(acts, t, sub), sub)
        self.update(acts, deltas, rate, sub)
        return acts

    def outputs(self, x: np.ndarray, sub=None) -> np.ndarray:
        """The output layers' activations side by side, for one input row
        (by the net ``sub``, default the main net: an output layer it does
        not hold gives zeros, as the nodes log them; compiler/phases.py)."""
        acts = self.forward(x, sub)
        return np.concatenate([acts[n] if n in acts else np.zeros(self.net.layers[n].size)
                               for n in self.net.outputs])


def column_offsets(network: Network, mapping) -> dict:
    """The connects ``mapping`` splits by columns: name -> (the source's and
    the destination's slice offsets over its nodes, the even split of
    rows), for :class:`Model`'s summation order; {} for other mappings."""
    if mapping is None or not getattr(mapping, "columns", ()):
        return {}
    from .lower import Split
    by_name = {c.name: c for c in network.connects}
    return {n: (Split.even(network.layers[by_name[n].src].size, mapping.nodes).off,
                Split.even(network.layers[by_name[n].dst].size, mapping.nodes).off)
            for n in mapping.columns}


def _matrix(w: Weights, c) -> np.ndarray:
    """The weight matrix connect ``c`` multiplies by: its own, or the one it
    shares (transposed when it says so)."""
    wc = w.connects[c.key]
    return wc.T if c.transpose else wc


def _step(c, d: np.ndarray, x: np.ndarray, rate: float) -> np.ndarray:
    """Connect c's weight change ``rate d x^T`` for the error signal ``d``
    of its destination and the activations ``x`` of its source."""
    if c.kind == "full":
        return np.outer(rate * d, x)
    if c.kind == "bus":
        return (rate * d) * x
    return (rate * d[c.pairs[:, 1]]) * x[c.pairs[:, 0]]


def _through(c, wc: np.ndarray, v: np.ndarray, size: int, back: bool = False) -> np.ndarray:
    """What connect ``c`` (weights ``wc``) passes on: forward, from source
    activations ``v`` to the destination's net input (W v); backward, from
    destination deltas ``v`` to the source's error sums (W^T v)."""
    if c.kind == "full":
        return wc.T @ v if back else wc @ v
    if c.kind == "bus":
        return wc * v
    to, frm = (c.pairs[:, 0], c.pairs[:, 1]) if back else (c.pairs[:, 1], c.pairs[:, 0])
    out = np.zeros(size)
    np.add.at(out, to, wc * v[frm])
    return out


def _slices(network: Network, names: list[str]) -> dict[str, slice]:
    out, k = {}, 0
    for n in names:
        size = network.layers[n].size
        out[n] = slice(k, k + size)
        k += size
    return out


# ---------------------------------------------------------------------------
# Evaluation and training
# ---------------------------------------------------------------------------

@dataclass
class Evaluation:
    loss: float                 # mean over the patterns of E (see pattern_loss)
    accuracy: float             # fraction of patterns judged correct
    outputs: np.ndarray         # (patterns, output units)


def pattern_loss(network: Network, y: np.ndarray, t: np.ndarray,
                 outputs: list[str] | None = None) -> np.ndarray:
    """E of every pattern (rows of outputs ``y`` and targets ``t``): mse
    ``1/2 sum (t - y)^2``; cross_entropy ``-sum t ln y`` for softmax outputs
    and ``-sum t ln y + (1 - t) ln(1 - y)`` for sigmoid outputs, with ``y``
    clipped to [1e-12, 1 - 1e-12]; summed over the output layers (those
    named in ``outputs``: a phase's, compiler/phases.py; default all)."""
    total = np.zeros(len(y))
    for name, sl in _slices(network, network.outputs).items():
        if outputs is not None and name not in outputs:
            continue
        yy, tt = y[:, sl], t[:, sl]
        if network.training.error == "mse":
            total += 0.5 * np.sum((tt - yy) ** 2, axis=1)
            continue
        yy = np.clip(yy, 1e-12, 1 - 1e-12)
        if network.layers[name].kind == "softmax":
            total -= np.sum(tt * np.log(yy), axis=1)
        else:
            total -= np.sum(tt * np.log(yy) + (1 - tt) * np.log(1 - yy), axis=1)
    return total


_THRESHOLD = {"sigmoid": 0.5, "linear": 0.5, "tanh": 0.0}


def pattern_correct(network: Network, y: np.ndarray, t: np.ndarray,
                    outputs: list[str] | None = None) -> np.ndarray:
    """Whether each pattern is right: for every output layer, one unit --
    output and target on the same side of the midpoint (0.5; 0 for tanh);
    several units -- the largest output is where the largest target is."""
    ok = np.ones(len(y), dtype=bool)
    for name, sl in _slices(network, network.outputs).items():
        if outputs is not None and name not in outputs:
            continue
        yy, tt = y[:, sl], t[:, sl]
        if yy.shape[1] == 1:
            mid = _THRESHOLD.get(network.layers[name].kind, 0.5)
            ok &= (yy[:, 0] > mid) == (tt[:, 0] > mid)
        else:
            ok &= np.argmax(yy, axis=1) == np.argmax(tt, axis=1)
    return ok


def evaluate(model: Model, patterns, phase: str | None = None) -> Evaluation:
    """Loss and accuracy of ``model`` on a PatternSet (forward passes only),
    by the net of ``phase`` (train, valid or test: compiler/phases.py;
    None or a phase without exclusions: the main net)."""
    sub = of(model.net, phase) if phase else None
    if len(patterns) == 0:
        return Evaluation(0.0, 0.0, np.zeros((0, sum(model.net.layers[n].size
                                                      for n in model.net.outputs))))
    y = np.stack([model.outputs(x, sub) for x in patterns.inputs])
    outs = sub.outputs if sub is not None else None
    loss = float(np.mean(pattern_loss(model.net, y, patterns.targets, outs)))
    acc = float(np.mean(pattern_correct(model.net, y, patterns.targets, outs)))
    return Evaluation(loss, acc, y)


@dataclass
class EpochStats:
    epoch: int
    rate: float
    train_loss: float
    train_accuracy: float
    test_loss: float | None = None
    test_accuracy: float | None = None
    valid_loss: float | None = None
    valid_accuracy: float | None = None

    @property
    def error(self) -> float:
        """The error the schedule sees: the validation loss if there is a
        validation set, else the test loss if there is a test set, else the
        training loss."""
        if self.valid_loss is not None:
            return self.valid_loss
        return self.test_loss if self.test_loss is not None else self.train_loss


@dataclass
class TrainResult:
    model: Model
    epochs: list[EpochStats]
    stopped_by: str             # "schedule" (rate 0) or "epochs"


def batches(order: np.ndarray, nodes: int, batch: int):
    """The data mapping's batches of an epoch: batch s takes
    ``order[s*N*B : (s+1)*N*B]`` (N nodes, B patterns per node); node k
    trains the k-th run of B of them (the last batch may be short, and a
    node may then get fewer patterns or none).  Yields, per batch, the list
    of the nodes' shares (arrays of pattern indices)."""
    step = nodes * batch
    for s in range(0, len(order), step):
        part = order[s:s + step]
        yield [part[k * batch:(k + 1) * batch] for k in range(nodes)]


def train(network: Network, train_set, test_set=None, *, weights: Weights | None = None,
          epochs: int | None = None, round_c30: bool = False, c30_activations: bool = False,
          on_epoch=None, mapping=None, valid_set=None) -> TrainResult:
    """On-line back-propagation as the RAP runs it.

    Before epoch ``e`` the rate is ``next_learning_rate(schedule, e,
    previous rate, errors so far)``; 0 stops.  The epoch presents the
    training patterns in ``pattern_order(n, e, seed, shuffle)`` and updates
    after each; then the model is evaluated on the training set and on the
    test set (if any), and the epoch's error for the schedule is the test
    loss, or the training loss without a test set.  With a ``valid_set``
    the model is also evaluated on it (after the training set, before the
    test set) and its loss drives the schedule instead (SINGA's validation
    phase); the test set is then only reported.  ``epochs`` overrides
    ``network.training.epochs``; ``on_epoch(stats)`` is called after each
    epoch.

    With phases (``exclude``, compiler/phases.py) every pattern is trained
    by the training net, and the training, validation and test sets are
    evaluated by the nets of their phases.

    ``mapping`` (a :class:`rapsim.compiler.mapping.Mapping`): with the data
    and hybrid mappings the epoch is trained in batches of ``nodes * batch`` patterns
    (:func:`batches`, :meth:`Model.train_batch`) instead of on-line; every
    other mapping computes exactly the on-line steps."""
    t = network.training
    model = Model(network, weights, round_c30=round_c30, c30_activations=c30_activations,
                  columns=column_offsets(network, mapping))
    limit = t.epochs if epochs is None else epochs
    history: list[EpochStats] = []
    rate = 0.0
    stopped = "epochs"
    for e in range(limit):
        rate = next_learning_rate(t.rate, e, rate, [h.error for h in history])
        if rate == 0:
            stopped = "schedule"
            break
        order = pattern_order(len(train_set), e, t.seed, t.shuffle)
        if mapping is not None and mapping.schedule == "pipeline":
            from .pipeline_reference import train_epoch     # the pipeline's staleness rule
            train_epoch(model, train_set.inputs, train_set.targets, order, rate)
        elif mapping is not None and mapping.mini_batch:
            for shares in batches(order, mapping.nodes, mapping.batch):
                model.train_batch([[(train_set.inputs[p], train_set.targets[p]) for p in share]
                                   for share in shares], rate)
        else:
            for i, p in enumerate(order):
                k = net_of_pattern(t.alternate, 1 + len(network.nets), e, i)
                model.train_pattern(train_set.inputs[p], train_set.targets[p], rate,
                                    network.nets[k - 1] if k else of(network, "train"))
        tr = evaluate(model, train_set, "train")
        stats = EpochStats(e, rate, tr.loss, tr.accuracy)
        if valid_set is not None:
            va = evaluate(model, valid_set, "valid")
            stats.valid_loss, stats.valid_accuracy = va.loss, va.accuracy
        if test_set is not None:
            te = evaluate(model, test_set, "test")
            stats.test_loss, stats.test_accuracy = te.loss, te.accuracy
        history.append(stats)
        if on_epoch is not None:
            on_epoch(stats)
    return TrainResult(model, history, stopped)
