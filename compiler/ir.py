"""The network compiler's intermediate representation: what a network
description means, independent of its syntax and of any machine.

The front end (``rapsim.compiler.parser``) builds a :class:`Network` from a
description file and checks it (``rapsim.compiler.check``); the back end
(``rapsim.compiler.lower`` and ``rapsim.compiler.codegen``) partitions it over
the nodes of a RAP and emits an SPMD program; ``rapsim.compiler.reference``
trains the same network in numpy for comparison.  The vocabulary follows
CLONES (../shared/seeds/rap-clones.txt, section 4): layers, connects, a net
with input and output layers, its forward and backward orders (Net_order),
and training parameters with a learning-rate schedule (next_learning_rate).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Layer kinds: the activation applied to a layer's net input.
#: ``input`` layers take pattern values; ``binary`` input layers take a set
#: of active unit indices (CLONES' Binary_layer).
LAYER_KINDS = ("input", "binary", "sigmoid", "tanh", "linear", "softmax", "threshold")
INPUT_KINDS = ("input", "binary")
#: Layers whose activations are 0 or 1, kept by the nodes as index lists of
#: their active units: ``binary`` inputs and thresholded ``threshold``
#: hidden layers (y = 1 where net > 0).  Their outgoing connects are full
#: and run by the column-sum kernels (firmware/binary.asm).
BINARY_KINDS = ("binary", "threshold")

#: Connect kinds: ``full`` (a weight matrix, all to all), ``bus`` (one to
#: one, equal sizes, one weight per unit), ``sparse`` (an explicit list of
#: (source unit, destination unit) pairs, or one produced by a generator).
CONNECT_KINDS = ("full", "bus", "sparse")
#: how a full connect's weight matrix is split over the nodes (compiler/mapping.py)
CONNECT_SPLITS = ("rows", "columns")

ERROR_FUNCTIONS = ("mse", "cross_entropy")


@dataclass(frozen=True)
class Loc:
    """Where something was written: ``file:line:col`` in messages."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Layer:
    name: str
    kind: str                   # one of LAYER_KINDS
    size: int                   # units
    bias: bool = False          # a trainable bias per unit
    loc: Loc | None = None


@dataclass
class Connect:
    src: str                    # layer names
    dst: str
    kind: str                   # one of CONNECT_KINDS
    #: sparse connects: int array of shape (k, 2): (source unit, destination
    #: unit) pairs, sorted by destination then source, no duplicates
    pairs: np.ndarray | None = None
    loc: Loc | None = None
    #: sparse connects made by a generator: its name and arguments, e.g.
    #: {"kind": "local", "width": 5, "stride": 1} (rapsim.compiler.sparse)
    generator: dict | None = None
    #: its local plasticity under schedule stream (rapsim.compiler.frames):
    #: {"rule": "hebbian" | "l2" | "l1", argument: value, ...}; None: none
    plasticity: dict | None = None
    #: parameter sharing (SINGA's share_from): the name of the connect whose
    #: weight matrix this one uses (None: its own); ``transpose``: used
    #: transposed (a tied-weight auto-encoder's decoder).  One copy of the
    #: matrix exists, kept under the owner's name (docs/network-language.md)
    share: str | None = None
    transpose: bool = False
    share_loc: Loc | None = None
    #: how its weight matrix is split over the nodes, as the description
    #: writes it (``split rows|columns``; None: not written, the mapping
    #: decides): "columns" gives each node the columns of its own source
    #: units (compiler/mapping.py, docs/compiler.md "Connects split by
    #: columns"); ``split_loc``: the place of the word
    split: str | None = None
    split_loc: Loc | None = None

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"

    @property
    def key(self) -> str:
        """The name of the weight matrix this connect uses: its own, or the
        owner's when it shares one."""
        return self.share or self.name

    def weight_count(self, layers: dict[str, Layer]) -> int:
        """Connections (= weights) of this connect."""
        if self.kind == "full":
            return layers[self.src].size * layers[self.dst].size
        if self.kind == "bus":
            return layers[self.dst].size
        return 0 if self.pairs is None else len(self.pairs)


@dataclass
class Schedule:
    """A learning-rate schedule, CLONES' next_learning_rate: called after
    every epoch; training ends when it returns 0 (or after ``epochs``).
    ``rapsim.compiler.schedule.next_learning_rate`` implements it and states
    the calling convention exactly.

    kinds and params:
      ``constant``: {"rate"}
      ``step``: {"rate", "factor", "every"} -- rate * factor**(epoch // every)
      ``list``: {"rates": [..]} -- one rate per epoch; 0 (or the end) stops
      ``newbob``: {"rate", "start_below", "stop_below", "factor"} -- ICSI's
          schedule: keep ``rate`` while the error improves by at least
          ``start_below`` (relative), then multiply it by ``factor`` (0.5:
          halve it) every epoch, and stop once an epoch's improvement falls
          below ``stop_below``.  The parser always fills all four.
    """
    kind: str = "constant"
    params: dict = field(default_factory=lambda: {"rate": 0.1})
    loc: Loc | None = None


@dataclass
class Training:
    rate: Schedule = field(default_factory=Schedule)
    epochs: int = 1
    momentum: float = 0.0
    error: str = "mse"          # one of ERROR_FUNCTIONS
    seed: int = 0               # weight initialisation and pattern shuffling
    init_scale: float = 0.1     # initial weights uniform in [-scale, +scale]
    shuffle: bool = True        # a new pattern order every epoch
    #: several nets: "epoch" (net e mod k in epoch e) or "pattern" (net
    #: i mod k for the i-th pattern of an epoch); rapsim.compiler.nets
    alternate: str = "epoch"
    #: schedule stream: frames each pattern is presented for (rapsim.compiler.frames)
    frames: int = 1


@dataclass
class Network:
    name: str
    layers: dict[str, Layer]            # in definition order
    connects: list[Connect]
    inputs: list[str]
    outputs: list[str]
    training: Training = field(default_factory=Training)
    #: resolved parameters: a number, or a tuple of numbers for a list
    #: (rapsim.compiler.params.param_table gives all as lists)
    params: dict[str, float | tuple] = field(default_factory=dict)
    #: filled by the checker: layers in a forward (topological) order, and
    #: the reverse order used by back-propagation (CLONES' Net_order)
    forward_order: list[str] = field(default_factory=list)
    backward_order: list[str] = field(default_factory=list)
    source: str = ""
    #: placement attributes as written (rapsim.compiler.mapping.PlacementAttrs),
    #: by layer name; "" is the net-level default (``partition`` in the net block)
    placement: dict = field(default_factory=dict)
    #: the net block's ``schedule NAME`` (lockstep, pipeline or stream;
    #: rapsim.compiler.pipeline) and its place; None: not written
    schedule: str | None = None
    schedule_loc: Loc | None = None
    #: the cycles of the graph (text, place of a connect on it): legal under
    #: schedule stream only (the description says stream: rapsim.compiler.frames)
    cycles: list = field(default_factory=list)
    #: user transfer functions by name (rapsim.compiler.transfer.Transfer):
    #: a layer whose kind is one of these names uses its routines
    transfers: dict = field(default_factory=dict)
    #: user assembly routines at hook points (rapsim.compiler.behaviours)
    behaviours: list = field(default_factory=list)
    #: the nets of the pool besides this (the main) one, trained in turn
    #: with it (rapsim.compiler.nets.SubNet; Training.alternate)
    nets: list = field(default_factory=list)
    #: statistics selected by 'stats' statements (rapsim.compiler.stats),
    #: computed by the host from the outputs after every epoch
    stats: list[str] = field(default_factory=list)
    #: the net block's ``overlap`` attribute as written (rapsim.compiler.overlap)
    overlap: str = "off"
    #: the net block's ``evaluate NAME`` (the evaluation pass's own mapping,
    #: rapsim.compiler.evalmap) and its place; None: not written
    eval_mapping: str | None = None
    eval_mapping_loc: Loc | None = None
    #: phases (rapsim.compiler.phases): the net of each phase that differs
    #: from the main one (a rapsim.compiler.nets.SubNet), and the
    #: exclusions as written: (kind, name, phases, loc)
    phases: dict = field(default_factory=dict)
    exclusions: list = field(default_factory=list)

    def incoming(self, layer: str) -> list[Connect]:
        return [c for c in self.connects if c.dst == layer]

    def outgoing(self, layer: str) -> list[Connect]:
        return [c for c in self.connects if c.src == layer]

    def owned_connects(self) -> list[Connect]:
        """The connects that hold a weight matrix of their own (every one
        but those that share another's: ``Connect.share``)."""
        return [c for c in self.connects if c.share is None]

    def sharers(self, key: str) -> list[Connect]:
        """The connects that use the weight matrix ``key`` (its owner and
        every connect sharing it), in definition order."""
        return [c for c in self.connects if c.key == key]

    def connections(self) -> int:
        """Connections of the whole network (MCPS/MCUPS count these)."""
        return sum(c.weight_count(self.layers) for c in self.connects)
