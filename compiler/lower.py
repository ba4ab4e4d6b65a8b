"""Lowering: a checked :class:`~rapsim.compiler.ir.Network` partitioned over
the N nodes of a RAP, and the memory layout every node shares.

The partition is the RAP's (../shared/seeds/rap-clones.txt, section 3):

* every layer's units are split into N contiguous slices, node k owning
  units ``off[k] .. off[k+1]-1`` with ``off`` the even split of
  ``firmware/ring.asm``'s ``_ring_split`` (slices of n/N or n/N + 1 units,
  the larger ones first; a node may own none when N > n);
* node k owns the rows of every incoming weight matrix that belong to its
  units (a full connect S->D: rows ``off_D[k] ..`` of the |D| x |S| matrix,
  row-major), the weights of the bus connections into its units and its
  units' biases;
* a sparse connect S->D is a list of (source, destination) pairs sorted by
  destination: node k owns the pairs whose destination is one of its units.
  When every destination unit reads a contiguous run of the same width,
  starting ``stride`` units after the previous one (a local receptive field),
  the node's pairs are a dense band (rows x width) for the strided matrix
  kernels; otherwise they are run by the sparse kernels through per-node
  index tables (the count of pairs of each own row, the source of each
  pair), which the host writes with the weights;
* a layer whose activations feed a full or sparse connect is *gathered*:
  after each node computes its slice, a ring all-gather gives every node the
  whole vector (the x of the next matrix-vector product);
* back-propagation through a full or sparse connect S->D gives each node a
  partial error vector over all of S (its rows' contribution, ``W^T d``); a
  ring reduce-scatter sums these so that each node gets the total for its
  own slice of S.  No node ever holds a whole weight matrix.

Memory: vectors that a kernel reads again for every matrix row (the x of
``mxv``/``mxout``, the y of ``mxtv``: *hot* vectors) go to the on-chip RAM
blocks while they fit (best fit, the most-used first), other vectors follow
them, then SRAM.  When hot vectors are left in SRAM (layers of more than
about 1000 units) and it pays, an on-chip *stage* as large as the largest
hot vector (one block, or both as one buffer) is reserved first, and each
hot vector in SRAM is copied into it for the kernels that walk it.  Weight
matrices go to SRAM while they fit (keeping room for code, tables and the
stack), momentum matrices after them, then DRAM.  The layout
is the same on every node (sized for the largest slice), so one image serves
them all; what differs per node (offsets, row counts) is a table indexed by
NODE_ID.  docs/compiler.md describes the whole scheme.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rapsim.compiler.ir import BINARY_KINDS, INPUT_KINDS, Connect, Layer, Network
from rapsim.compiler.mapping import Mapping, rows as rows_mapping
from rapsim.memmap import ONCHIP_BLOCK_SIZE, MemoryConfig
from rapsim.errors import RapError

#: SRAM words kept free of weights for code, constant tables, the per-node
#: table, argv and the stack (checked again after linking).
SRAM_RESERVE = 0x6000
#: Stack words that must stay free above everything the linker placed.
STACK_RESERVE = 0x800

REGIONS = ("ram0", "ram1", "chip", "sram", "dram")
#: "chip": both on-chip blocks as one buffer of up to 2048 words (the stage,
#: at RAM0_BASE; nothing else is on chip then)
SECTION_OF = {"ram0": ".ram0", "ram1": ".ram1", "chip": "", "sram": ".wsram", "dram": ".dram"}
#: the on-chip RAM, both blocks (contiguous: RAM0 then RAM1)
ONCHIP_WORDS = 2 * ONCHIP_BLOCK_SIZE


class LoweringError(RapError):
    """A network the back end cannot map onto the RAP (with the place in
    the description when there is one)."""

    def __init__(self, message: str, loc=None):
        super().__init__(f"{loc}: error: {message}" if loc is not None else message)


@dataclass(frozen=True)
class Split:
    """How ``size`` units are divided over ``nodes``: node k owns
    ``off[k] .. off[k+1]-1`` (``_ring_split``'s table).  A ``whole`` split
    (the data mapping: compiler/mapping.py) gives every node all the units:
    ``lo(k)`` is 0 and ``rows(k)`` the size on every node."""
    size: int
    off: tuple[int, ...]
    whole: bool = False

    @classmethod
    def even(cls, size: int, nodes: int) -> "Split":
        q, r = divmod(size, nodes)
        return cls(size, tuple(k * q + min(k, r) for k in range(nodes + 1)))

    @classmethod
    def group(cls, size: int, nodes: int, first: int, last: int) -> "Split":
        """The even split over the nodes ``first .. last`` of a ring of
        ``nodes`` (layers on node groups): the others own empty slices."""
        inner = cls.even(size, last - first + 1).off
        return cls(size, tuple(0 if k <= first else size if k > last + 1
                               else inner[k - first] for k in range(nodes + 1)))

    @classmethod
    def copies(cls, size: int, nodes: int) -> "Split":
        """Every one of ``nodes`` nodes holds all ``size`` units."""
        return cls(size, cls.even(size, nodes).off, whole=True)

    @classmethod
    def grid_rows(cls, size: int, grid: tuple[int, int]) -> "Split":
        """The checkerboard's split of a layer over a grid of r x c nodes
        laid out row by row on the ring: grid row i's units ``R_i`` (the
        even split of ``size`` over r) are owned by the row's last node,
        ``i c + c - 1``, where the row's partial products are summed
        (subring.asm); the other nodes own none."""
        r, c = grid
        rows = cls.even(size, r)
        off = [0]
        for k in range(r * c):
            i, j = divmod(k, c)
            off.append(off[-1] + (rows.rows(i) if j == c - 1 else 0))
        return cls(size, tuple(off))

    @property
    def nodes(self) -> int:
        return len(self.off) - 1

    def lo(self, k: int) -> int:
        return 0 if self.whole else self.off[k]

    def rows(self, k: int) -> int:
        return self.size if self.whole else self.off[k + 1] - self.off[k]

    @property
    def max_rows(self) -> int:
        return max(self.rows(k) for k in range(self.nodes))


@dataclass
class Buffer:
    """A block of words at the same address on every node."""
    name: str               # assembly symbol
    words: int
    kind: str               # "vector", "matrix" or "table"
    uses: int = 0           # accesses per pattern that placement ranks by
    region: str = ""        # one of REGIONS, set by placement
    role: str = ""
    #: a vector that a matrix kernel reads again for every row (x of the
    #: forward products and updates, the partial error sums of W^T d)
    hot: bool = False
    #: a hot vector in SRAM that is copied into the on-chip stage for the
    #: kernels that walk it (Plan.stage)
    staged: bool = False

    @property
    def section(self) -> str:
        return SECTION_OF[self.region]


@dataclass
class LayerPlan:
    """A layer's vectors on every node."""
    layer: Layer
    split: Split
    gathered: bool                  # the whole activation vector on every node
    act: Buffer                     # full (gathered) or local activations
    net: Buffer | None = None       # local net input
    delta: Buffer | None = None     # local error signal d = -dE/dnet
    err: Buffer | None = None       # back-propagated error: full if reduced
    reduced: bool = False           # err is reduce-scattered
    tmp: Buffer | None = None       # local scratch (derivatives)
    #: a threshold layer: the index list of its active units (whole layer)
    blist: Buffer | None = None
    bias: Buffer | None = None
    bias_m: Buffer | None = None    # bias momentum
    target_offset: int = 0          # output layers: offset in a target record
    #: checkerboard: the partial net inputs of every node's weight blocks
    #: (whole vector, zero outside the node's block rows; reduce-scattered
    #: by the layer's split) and the whole error signal (all-gathered)
    pnet: Buffer | None = None
    dwhole: Buffer | None = None

    @property
    def name(self) -> str:
        return self.layer.name

    @property
    def kind(self) -> str:
        return self.layer.kind

    def act_offset(self, k: int) -> int:
        """Where node k's slice starts in ``act``."""
        return self.split.lo(k) if self.gathered else 0


@dataclass
class SparsePlan:
    """How a sparse connect's pairs are split and run.

    Node k owns ``pairs[lo[k]:lo[k+1]]`` (the pairs of its destination
    units, in ``Connect.pairs`` order).  ``kind`` is ``"band"`` when row d
    reads sources ``start + d*stride .. start + d*stride + width - 1`` for
    every destination unit d (the node's weights are then a dense rows x
    width block for the strided kernels), else ``"index"``: ``cnt`` holds the
    number of pairs of each own row, ``idx`` the source unit of each own
    pair (both written by the host, per node)."""
    kind: str
    lo: tuple[int, ...]
    width: int = 0
    stride: int = 0
    start: int = 0
    cnt: Buffer | None = None
    idx: Buffer | None = None
    whole: bool = False             # every node holds all the pairs (data mapping)

    def own(self, k: int) -> slice:
        """Node k's pairs, as a slice of ``Connect.pairs``."""
        return slice(0, self.lo[-1]) if self.whole else slice(self.lo[k], self.lo[k + 1])

    def pairs(self, k: int) -> int:
        own = self.own(k)
        return own.stop - own.start


@dataclass
class ConnectPlan:
    """A connect's weights on every node."""
    connect: Connect
    index: int
    weights: Buffer
    momentum: Buffer | None = None
    sparse: SparsePlan | None = None
    #: a full connect from a binary layer: the node's weights are stored
    #: column by column and run by the binary kernels (firmware/binary.asm)
    binary: bool = False
    #: checkerboard: node k holds the block of rows ``rows.lo(k // c) ..``
    #: and columns ``cols.lo(k % c) ..`` (splits over the grid's r rows and c
    #: columns), row-major
    block: tuple[Split, Split] | None = None
    #: parameter sharing: the plan of the connect whose weights (and
    #: momentum) this one uses (compiler/sharing.py); None: its own
    owner: "ConnectPlan | None" = None
    #: split by columns (the columns mapping): node k holds the columns of
    #: its own units of the source, stored as rows of W^T (one row of |D|
    #: words per own source unit), as a transposed shared matrix is
    columns: bool = False

    @property
    def by_source(self) -> bool:
        """The node's weights are rows of W^T for its own source units
        (split by columns, or a shared matrix used transposed): forward
        ``_mxtv`` by the source's own slice into partial net inputs,
        backward ``_mxv`` by the whole error signal."""
        return self.columns or self.connect.transpose

    @property
    def kind(self) -> str:
        return self.connect.kind

    def block_of(self, k: int, grid: tuple[int, int]) -> tuple[slice, slice]:
        """Node k's block (rows of the destination, columns of the source)."""
        rs, cs = self.block
        i, j = divmod(k, grid[1])
        return (slice(rs.lo(i), rs.lo(i) + rs.rows(i)), slice(cs.lo(j), cs.lo(j) + cs.rows(j)))

    @property
    def band(self) -> bool:
        return self.sparse is not None and self.sparse.kind == "band"


@dataclass
class Plan:
    """Everything code generation and the host need to know."""
    network: Network
    nodes: int
    memory: MemoryConfig
    layers: dict[str, LayerPlan]
    connects: list[ConnectPlan]
    forward: list[str]              # non-input layers, forward order
    backward: list[str]             # non-input layers, backward order
    inputs: list[str]
    outputs: list[str]
    input_words: int                # words of one input record (all input layers)
    target_words: int               # words of one target record (all output layers)
    input_offset: dict[str, int] = field(default_factory=dict)
    momentum: float = 0.0
    #: words of one input record as the nodes hold it (``input_offset`` is
    #: into it): an input layer's values, a binary layer's index list
    #: (:func:`record_words`); equal to ``input_words`` without binary layers
    record_words: int = 0
    #: the hook points where the program makes a HOOK host call for a host
    #: callback (rapsim.compiler.behaviours.HookPoint; set by compile_network)
    host_hooks: list = field(default_factory=list)
    #: the on-chip buffer that staged vectors are copied into (None: every
    #: hot vector is on chip, or none can be staged)
    stage: Buffer | None = None
    #: the mapping lowered (compiler/mapping.py); rows when not given
    mapping: Mapping | None = None
    #: data mapping: the weight changes of a batch, every connect's and
    #: bias's side by side (offsets in ``grad_offset``: "w<i>" of connect i,
    #: "b<layer>" of a bias), all-reduced over the ring every batch
    grad: Buffer | None = None
    grad_offset: dict[str, int] = field(default_factory=dict)
    #: the words at the start of ``grad`` that are all-reduced (data: all
    #: of them; hybrid: the changes of the layers split by patterns, the
    #: others are each node's own rows)
    grad_shared: int = 0
    #: hybrid: the layers split by patterns that feed layers split by units
    #: (the cut), and per round of N patterns (one per node) the slots that
    #: concatenate them: node k's slot k holds its pattern's index (-1:
    #: none) and the cut's activations (offsets ``slot_offset``, after the
    #: index word), all-gathered; ``eslots``: the cut's errors from the
    #: upper layers, pattern i's partial sums in slot i, reduce-scattered so
    #: that node k gets the sums of its own pattern (offsets ``eslot_offset``)
    cut: list[str] = field(default_factory=list)
    slots: Buffer | None = None
    slot_offset: dict[str, int] = field(default_factory=dict)
    eslots: Buffer | None = None
    eslot_offset: dict[str, int] = field(default_factory=dict)
    #: more buffers of a schedule (the pipeline's stashes: compiler/pipeline.py)
    extra: list = field(default_factory=list)
    #: "off" or "ring": the collectives overlapped with computation
    #: (rapsim.compiler.overlap; set by compile_network)
    overlap: str = "off"
    #: overlap ring: each reduce-scatter of the backward pass, overlapped
    #: with an update or left blocking and why (set by codegen:
    #: ``{"layer", "overlapped", "during", "reason"}``; docs/compiler.md)
    overlap_report: list = field(default_factory=list)
    #: overlap ring: each forward all-gather, streamed into the next layer's
    #: product (``_ring_allgather_mxv``) or left blocking and why:
    #: ``{"layer", "collective", "overlapped", "product", "reason"}``
    gather_report: list = field(default_factory=list)
    #: --collectives: "auto", "chain" or "rotation" (rapsim.compiler.collectives;
    #: set by compile_network), and the choice made for each layer's
    #: all-gather and reduce-scatter (set by codegen: ``{"layer", "collective",
    #: "routine", "chain_cycles", "rotation_cycles"}``)
    collectives: str = "auto"
    collective_report: list = field(default_factory=list)
    #: --eval-mapping: the evaluation pass's own plan (compiler/evalmap.py;
    #: its buffers are this plan's too); None: this plan evaluates
    eval_plan: "Plan | None" = None

    @property
    def hybrid(self) -> bool:
        return self.mapping is not None and self.mapping.name == "hybrid"

    @property
    def slot_words(self) -> int:
        return 1 + sum(self.layers[n].layer.size for n in self.cut)

    @property
    def eslot_words(self) -> int:
        return sum(self.layers[n].layer.size for n in self.cut)

    def lower_layer(self, name: str) -> bool:
        """Hybrid: the layer is split by patterns (it runs on each node's own
        pattern); every other mapping: False."""
        return self.hybrid and self.mapping.layers[name].split == "patterns"

    @property
    def buffers(self) -> list[Buffer]:
        out = []
        for lp in self.layers.values():
            out += [b for b in (lp.act, lp.net, lp.delta, lp.err, lp.tmp, lp.bias, lp.bias_m,
                                lp.blist, lp.pnet, lp.dwhole)
                    if b is not None]
        for cp in self.connects:
            if cp.owner is None:
                out += [b for b in (cp.weights, cp.momentum) if b is not None]
            if cp.sparse is not None:
                out += [b for b in (cp.sparse.cnt, cp.sparse.idx) if b is not None]
        if self.stage is not None:
            out.append(self.stage)
        if self.grad is not None:
            out.append(self.grad)
        out += [b for b in (self.slots, self.eslots) if b is not None]
        return out + self.extra + (self.eval_plan.buffers if self.eval_plan is not None else [])

    def weight_words(self) -> int:
        return sum(b.words for b in self.buffers if b.kind == "matrix")

    def summary(self) -> list[tuple[str, int, str, str]]:
        """(symbol, words, region, role) of every buffer, for reports
        (region "ram0+ram1": both on-chip blocks; "sram, staged": copied into
        the stage for the kernels that walk it)."""
        def region(b: Buffer) -> str:
            return {"chip": "ram0+ram1"}.get(b.region, b.region) + (", staged" if b.staged else "")
        return [(b.name, b.words, region(b), b.role) for b in self.buffers]


def record_words(layer: Layer) -> int:
    """Words of ``layer`` in a node's input record: its values, or for a
    binary layer its index list (the count of active units, then their
    indices, padded to ``size + 1`` words so that every record has the
    same length)."""
    return layer.size + 1 if layer.kind == "binary" else layer.size


def _sym(*parts: str) -> str:
    return "_".join(["n"] + [p.replace("-", "_").replace(".", "_") for p in parts])


def _check(net: Network) -> None:
    if not net.forward_order:
        raise LoweringError(f"network {net.name!r} has no forward order: it was not checked")
    layers = net.layers
    error = net.training.error
    for c in net.connects:
        if c.kind not in ("full", "bus", "sparse"):
            raise LoweringError(
                f"connect {c.name}: {c.kind} connects have no kernel in the RAP back end "
                "(full, bus and sparse connects are supported)", c.loc)
        if c.kind == "sparse" and (c.pairs is None or not len(c.pairs)):
            raise LoweringError(f"sparse connect {c.name} has no pairs", c.loc)
        if c.kind == "bus" and layers[c.src].size != layers[c.dst].size:
            raise LoweringError(f"bus connect {c.name} joins layers of different sizes", c.loc)
        if layers[c.dst].kind in INPUT_KINDS:
            raise LoweringError(f"connect {c.name} feeds input layer {c.dst}", c.loc)
    for name in net.outputs:
        L = layers[name]
        if net.outgoing(name):
            raise LoweringError(f"output layer {name} feeds other layers: the back end does not "
                                "combine a target error with a back-propagated one", L.loc)
        if L.kind == "softmax" and error != "cross_entropy":
            raise LoweringError(f"softmax output layer {name} needs error cross_entropy", L.loc)
        if error == "cross_entropy" and L.kind not in ("sigmoid", "softmax"):
            raise LoweringError(f"cross_entropy error needs sigmoid or softmax output layers, "
                                f"not {L.kind} ({name})", L.loc)
    for name, L in layers.items():
        if L.kind == "softmax" and name not in net.outputs:
            raise LoweringError(f"softmax layer {name} is not an output layer: the back end has "
                                "no softmax derivative for hidden layers", L.loc)
        if L.kind in INPUT_KINDS and L.bias:
            raise LoweringError(f"input layer {name} cannot have a bias", L.loc)


def lower(net: Network, nodes: int, memory: MemoryConfig | None = None,
          mapping: Mapping | None = None) -> Plan:
    """Partition ``net`` over ``nodes`` nodes and lay out their memory,
    following ``mapping`` (default: rows, every layer split by units;
    compiler/mapping.py).  Raises :class:`LoweringError` for what the back
    end cannot run."""
    if not 1 <= nodes <= 64:
        raise LoweringError(f"a RAP has 1 to 64 nodes, not {nodes}")
    memory = memory or MemoryConfig()
    _check(net)
    mapping = mapping or rows_mapping(net, nodes)
    if mapping.nodes != nodes:
        raise LoweringError(f"the mapping is for {mapping.nodes} nodes, the machine has {nodes}")
    layers = net.layers

    def split_of(name: str) -> Split:
        """The data mapping: every node holds every layer whole
        (Split.copies); else the layer's units over its node group."""
        size, where = layers[name].size, mapping.layers[name]
        if mapping.by_patterns or where.split == "patterns":
            return Split.copies(size, nodes)
        if where.split == "blocks":                 # the checkerboard's grid rows
            return Split.grid_rows(size, mapping.grid)
        return Split.group(size, nodes, where.first, where.last)

    fwd = [n for n in net.forward_order if layers[n].kind not in INPUT_KINDS]
    bwd = [n for n in net.backward_order if layers[n].kind not in INPUT_KINDS]
    momentum = float(net.training.momentum)
    sparse = {i: _sparse_plan(i, c, split_of(c.dst))
              for i, c in enumerate(net.connects) if c.kind == "sparse"}

    def reads(i: int, c: Connect) -> int:
        """Reads per pattern, on the busiest node, of the source vector (or
        of its partial error sums) by connect c's kernels."""
        rows = split_of(c.dst).max_rows
        if c.kind == "full":
            return 2 * rows * layers[c.src].size
        sp = sparse[i]
        return 2 * max(sp.pairs(k) for k in range(nodes))

    plans: dict[str, LayerPlan] = {}
    for name in net.forward_order:
        L = layers[name]
        sp = split_of(name)
        rows = sp.max_rows
        # connects that read the whole source vector (and give partial error sums)
        # (a transposed shared matrix reads the source's own slice: compiler/sharing.py)
        # (so do the columns of a connect split by columns: compiler/mapping.py)
        out_whole = [(i, c) for i, c in enumerate(net.connects)
                     if c.src == name and c.kind in ("full", "sparse") and not c.transpose
                     and c.name not in mapping.columns]
        gathered = L.kind in INPUT_KINDS or bool(out_whole)
        # reads per pattern of the vector that a matrix kernel walks per row
        # (the binary kernels walk an index list instead: a threshold layer)
        walked = L.kind not in BINARY_KINDS and bool(out_whole)
        reuse = sum(reads(i, c) for i, c in out_whole) if walked else 0
        # placement ranks by accesses per word: a whole vector that no matrix
        # kernel walks is written and read about once per word; an own slice
        # (an output layer's, or one feeding only bus connects) is written by
        # the activation and read by the error and the derivative or the log
        act_words = L.size if gathered else max(rows, 1)
        act = Buffer(_sym("act", name), act_words, "vector",
                     uses=reuse or (L.size if gathered else 3 * act_words),
                     role=f"{name} activations"
                     + (" (whole vector)" if gathered else " (own slice)"), hot=walked)
        if L.kind == "binary":
            # its pattern stays in the input record as an index list, which
            # the binary kernels read in place (compiler/binary.py)
            act = None
        lp = LayerPlan(L, sp, gathered, act)
        if L.kind not in INPUT_KINDS:
            r1 = max(rows, 1)
            lp.net = Buffer(_sym("net", name), r1, "vector", uses=3 * r1,
                            role=f"{name} net input (own slice)")
            # with momentum, _mxoutm reads alpha from d[i]'s word for every weight
            d_uses = 3 * r1 + (sum(rows * (layers[c.src].size if c.kind == "full"
                                           else sparse[i].width)
                                   for i, c in enumerate(net.connects)
                                   if c.dst == name and (c.kind == "full" or i in sparse
                                                         and sparse[i].kind == "band"))
                               if momentum else 0)
            lp.delta = Buffer(_sym("delta", name), r1, "vector", uses=d_uses,
                              role=f"{name} error signal (own slice)")
            lp.tmp = Buffer(_sym("tmp", name), r1, "vector", uses=2 * r1, role=f"{name} scratch")
            if L.kind == "threshold" and out_whole:
                lp.blist = Buffer(_sym("blist", name), L.size + 1, "vector", uses=2,
                                  role=f"{name} active units (index list)")
            lp.reduced = bool(out_whole)
            if net.outgoing(name):
                lp.err = Buffer(_sym("err", name), L.size if lp.reduced else r1, "vector",
                                uses=reuse or r1,
                                role=f"{name} back-propagated error"
                                + (" (partial sums, whole vector)" if lp.reduced else ""),
                                hot=lp.reduced and walked)
            if L.bias:
                lp.bias = Buffer(_sym("bias", name), r1, "vector", uses=2 * r1,
                                 role=f"{name} biases (own slice)")
                if momentum:
                    lp.bias_m = Buffer(_sym("biasm", name), r1, "vector", uses=2 * r1,
                                       role=f"{name} bias momentum")
        plans[name] = lp
    grid = mapping.grid if mapping.name == "checkerboard" else None
    cplans = []
    owners: dict[str, ConnectPlan] = {}
    for i, c in sorted(enumerate(net.connects), key=lambda ic: ic[1].share is not None):
        if c.share is not None:             # the owner's buffers (compiler/sharing.py)
            o = owners[c.share]
            rows_of = plans[c.src if c.transpose else c.dst].split
            if rows_of != plans[o.connect.dst].split:
                raise LoweringError(f"connect {c.name} shares the weights of {c.share}, whose "
                                    f"rows are split otherwise over the nodes", c.share_loc)
            cplans.append(ConnectPlan(c, i, o.weights, o.momentum, owner=o))
            o.weights.role += f"; shared by {c.name}" + (" (transposed)" if c.transpose else "")
            continue
        rows = plans[c.dst].split.max_rows
        block = None
        columns = c.name in mapping.columns
        if columns:         # rows of W^T: the source's own units, |D| words each
            words = plans[c.src].split.max_rows * layers[c.dst].size
        elif grid is not None:
            block = (Split.even(layers[c.dst].size, grid[0]),
                     Split.even(layers[c.src].size, grid[1]))
            words = block[0].max_rows * block[1].max_rows
        elif c.kind == "full":
            words = rows * layers[c.src].size
        elif c.kind == "sparse":
            words = max(sparse[i].pairs(k) for k in range(nodes))
        else:
            words = rows
        words = max(words, 1)
        kind = c.kind + (f", {sparse[i].kind}" if c.kind == "sparse" else "")
        if columns:
            kind += ", split by columns: rows of W^T"
        binary = layers[c.src].kind in BINARY_KINDS
        if binary:
            kind += ", binary source: column by column"
        w = Buffer(_sym("w", str(i)), words, "matrix", uses=4, role=f"{c.name} weights ({kind})")
        m = None
        if momentum:
            m = Buffer(_sym("m", str(i)), words, "matrix", uses=2, role=f"{c.name} momentum")
        cplans.append(ConnectPlan(c, i, w, m, sparse.get(i), binary, block, columns=columns))
        owners[c.name] = cplans[-1]
    cplans.sort(key=lambda cp: cp.index)
    for cp in cplans:
        if cp.by_source:
            # the destination's partial net inputs (W^T x of every node's rows,
            # reduce-scattered) and its whole error signal (all-gathered)
            lp, size = plans[cp.connect.dst], layers[cp.connect.dst].size
            how = "split by columns" if cp.columns else "transposed"
            lp.pnet = lp.pnet or Buffer(_sym("pnet", lp.name), size, "vector", uses=2 * size,
                                        role=f"{lp.name} partial net inputs ({how})")
            lp.dwhole = lp.dwhole or Buffer(_sym("dall", lp.name), size, "vector",
                                            uses=3 * size,
                                            role=f"{lp.name} error signal (whole vector)")
    if grid is not None:
        for name in fwd:
            L = layers[name]
            plans[name].pnet = Buffer(_sym("pnet", name), L.size, "vector", uses=2 * L.size,
                                      role=f"{name} partial net inputs of the blocks")
            plans[name].dwhole = Buffer(_sym("dall", name), L.size, "vector", uses=3 * L.size,
                                        role=f"{name} error signal (whole vector)")
    input_offset, off, words = {}, 0, 0
    for name in net.inputs:
        input_offset[name] = words
        off += layers[name].size
        words += record_words(layers[name])
    toff = 0
    for name in net.outputs:
        plans[name].target_offset = toff
        toff += layers[name].size
    plan = Plan(net, nodes, memory, plans, cplans, fwd, bwd, list(net.inputs), list(net.outputs),
                off, toff, input_offset, momentum, record_words=words, mapping=mapping)
    if mapping.mini_batch:
        _grad_buffer(plan)
    if plan.hybrid:
        _slots(plan)
    if mapping.schedule == "pipeline":
        from .pipeline import stash_buffers
        plan.extra = stash_buffers(plan)
    elif mapping.schedule == "stream":
        from .frames import next_buffers
        plan.extra = next_buffers(plan)
    _place(plan)
    return plan


def _grad_buffer(plan: Plan) -> None:
    """The data mapping's buffer of a batch's weight changes: every
    connect's weights, then every bias, side by side (one all-reduce sums
    them all).  Hybrid: the layers split by patterns first (the all-reduced
    part, ``grad_shared`` words), then those split by units."""
    off = 0
    for shared in (True, False) if plan.hybrid else (True,):
        for cp in plan.connects:
            if not plan.hybrid or plan.lower_layer(cp.connect.dst) == shared:
                plan.grad_offset[f"w{cp.index}"] = off
                off += cp.weights.words
        for name, lp in plan.layers.items():
            if lp.bias is not None and (not plan.hybrid or plan.lower_layer(name) == shared):
                plan.grad_offset[f"b{name}"] = off
                off += lp.bias.words
        if shared:
            plan.grad_shared = off
    # after the weights (walked by the forward and the backward products),
    # before the momentum terms (one pass a batch)
    plan.grad = Buffer(_sym("grad"), off, "matrix", uses=3,
                       role="weight changes of the batch (all-reduced)")


def _slots(plan: Plan) -> None:
    """The hybrid's cut and its slots (:class:`Plan`)."""
    net = plan.network
    plan.cut = [n for n in net.forward_order if plan.lower_layer(n)
                and any(not plan.lower_layer(c.dst) for c in net.outgoing(n))]
    off = 1
    eoff = 0
    for n in plan.cut:
        plan.slot_offset[n] = off
        plan.eslot_offset[n] = eoff
        off += plan.layers[n].layer.size
        eoff += plan.layers[n].layer.size
    plan.slots = Buffer(_sym("slots"), plan.nodes * plan.slot_words, "vector",
                        uses=2 * plan.nodes * plan.slot_words,
                        role="hybrid: a round's patterns and cut activations (concatenated)")
    if eoff:
        plan.eslots = Buffer(_sym("eslots"), plan.nodes * eoff, "vector",
                             uses=3 * plan.nodes * eoff,
                             role="hybrid: a round's cut errors (sliced back)")


def _sparse_plan(i: int, c: Connect, dst: Split) -> SparsePlan:
    """Split a sparse connect's pairs by destination node and choose its
    kernels: the strided dense ones for a band, else the sparse ones."""
    pairs = c.pairs
    src, dsts = pairs[:, 0], pairs[:, 1]
    lo = tuple(int(x) for x in np.searchsorted(dsts, dst.off, side="left"))
    cnt = np.bincount(dsts, minlength=dst.size)
    width = int(cnt[0])
    if (cnt == width).all():
        rows = src.reshape(dst.size, width)
        start = rows[:, 0]
        contiguous = (rows == start[:, None] + np.arange(width)).all()
        stride = int(start[1] - start[0]) if dst.size > 1 else 0
        if contiguous and stride >= 0 and (start == start[0] + stride * np.arange(dst.size)).all():
            return SparsePlan("band", lo, width=width, stride=stride, start=int(start[0]),
                              whole=dst.whole)
    rows = dst.max_rows
    words = max(len(pairs) if dst.whole else max(lo[k + 1] - lo[k] for k in range(dst.nodes)), 1)
    return SparsePlan("index", lo, whole=dst.whole,
                      cnt=Buffer(_sym("spcnt", str(i)), max(rows, 1), "table", uses=4,
                                 role=f"{c.name} pairs per own row"),
                      idx=Buffer(_sym("spidx", str(i)), words, "table", uses=4,
                                 role=f"{c.name} source unit of each own pair"))


def _fill(vectors: list[Buffer], free: dict[str, int]) -> None:
    """Best fit into the on-chip blocks (``free``: words left in each), the
    most accesses per word first (ties: the larger first, it packs better);
    what does not fit goes to SRAM."""
    for b in sorted(vectors, key=lambda b: (-b.uses / b.words, -b.words, b.name)):
        fits = [r for r in free if free[r] >= b.words]
        if fits:
            r = min(fits, key=lambda r: (free[r], r))  # best fit
            b.region = r
            free[r] -= b.words
        else:
            b.region = "sram"


def _hot_cost(plan: Plan) -> int:
    """Cycles per training pattern (busiest node) that the hot vectors in
    SRAM cost over having them on chip: a kernel walking one in SRAM pays
    about one more cycle per weight (1.5 for W^T d's partial sums), or, if
    the vector is staged and walked at least twice, the copy into the stage
    (and back, for the partial sums).  The placement's yardstick."""
    cost = 0
    for cp in plan.connects:
        c = cp.connect
        if c.kind == "bus" or cp.binary or cp.by_source:
            continue
        src, dst = plan.layers[c.src], plan.layers[c.dst]
        rows = dst.split.max_rows
        if c.kind == "full":
            work, passes = rows * src.layer.size, rows
        elif cp.band:
            work, passes = rows * cp.sparse.width, rows
        else:
            work = max(cp.sparse.pairs(k) for k in range(plan.nodes))
            passes = work / src.layer.size
        for buf, per, copies in ((src.act, 2, 1), (src.err if src.reduced else None, 1.5, 2)):
            if buf is None or buf.region != "sram":
                continue
            n_uses = 2 if per == 2 else 1           # x: the product and the update
            if buf.staged and passes >= 2 and plan.stage.words >= buf.words:
                cost += n_uses * copies * (buf.words + 30)
            else:
                cost += int(n_uses * (per / 2 if per == 2 else per) * work)
    return cost


def columns_kernel(src_off, cols: int) -> str:
    """The kernel that writes the partial net inputs of a connect split by
    columns into ``cols`` units, node k holding the source's units
    ``src_off[k] .. src_off[k+1]-1``: ``_mxtv4w`` (four rows a pass,
    firmware/columns.asm) where it costs less than ``_mxtv2w`` (two rows a
    pass) on the node with the most source units -- the one that also did
    the most work for them, and sets the pace -- else ``_mxtv2w``
    (docs/compiler.md, "Connects split by columns").  Both price their
    block on chip (firmware/costs.py; the placement moves both alike).  The
    numpy reference (reference.Model._by_columns) sums in the order of the
    kernel this chooses."""
    from rapsim.firmware.costs import DEFAULT_ACCESS, KERNELS
    rows = max(b - a for a, b in zip(src_off, src_off[1:]))
    a = {"y": "chip", "W": "chip", "e": "chip", "rows": rows, "cols": cols}
    four, two = (KERNELS[k].cycles(a, DEFAULT_ACCESS) for k in ("_mxtv4w", "_mxtv2w"))
    return "_mxtv4w" if four < two else "_mxtv2w"


def _onchip_columns(plan: Plan, vectors: list[Buffer]) -> list[Buffer]:
    """The weights of connects split by columns (without momentum) put in
    an on-chip block left free by the vectors, largest first, best fit:
    their update then takes 1.5 cycles a weight instead of 2 (``_mxoutc``,
    firmware/matrix.asm; the same words).  Returns the buffers placed."""
    free = {r: ONCHIP_BLOCK_SIZE for r in ("ram0", "ram1")}
    for b in vectors:
        if b.region == "chip":
            return []
        if b.region in free:
            free[b.region] -= b.words
    placed = []
    for cp in sorted((cp for cp in plan.connects if cp.columns and cp.momentum is None),
                     key=lambda cp: -cp.weights.words):
        fits = [r for r in free if free[r] >= cp.weights.words]
        if fits:
            r = min(fits, key=lambda r: (free[r], r))
            cp.weights.region = r
            free[r] -= cp.weights.words
            placed.append(cp.weights)
    return placed


def _place(plan: Plan) -> None:
    """Assign every buffer a region (see the module docstring).

    Vectors first: best fit into the two on-chip blocks.  If a hot vector
    (one a matrix kernel walks for every row) is left in SRAM, the kernels
    would walk it at half speed; then an on-chip *stage* as large as the
    largest hot vector is reserved first -- one block, or both blocks as one
    buffer for vectors of 1025-2048 words --, the other vectors are placed
    in what is left, and every hot vector left in SRAM is copied into the
    stage for the kernels that walk it (codegen)."""
    vectors = [b for b in plan.buffers if b.kind == "vector"]
    _fill(vectors, {"ram0": ONCHIP_BLOCK_SIZE, "ram1": ONCHIP_BLOCK_SIZE})
    spilled = [b for b in vectors if b.hot and b.region == "sram"]
    if spilled and max(b.words for b in vectors if b.hot) <= ONCHIP_WORDS:
        plain = ({b.name: b.region for b in vectors}, _hot_cost(plan))
        size = max(b.words for b in vectors if b.hot)
        plan.stage = Buffer(_sym("stage"), size, "vector", role="stage: on-chip copies of hot "
                            "vectors kept in SRAM")
        if size > ONCHIP_BLOCK_SIZE:
            plan.stage.region = "chip"
            for b in vectors:
                b.region = "sram"
        else:
            plan.stage.region = "ram0"
            _fill(vectors, {"ram1": ONCHIP_BLOCK_SIZE, "ram0": ONCHIP_BLOCK_SIZE - size})
        for b in vectors:
            b.staged = b.hot and b.region == "sram"
        if _hot_cost(plan) >= plain[1]:         # the stage does not pay: back to the plain fill
            plan.stage = None
            for b in vectors:
                b.region, b.staged = plain[0][b.name], False
        else:
            vectors.append(plan.stage)
    room = plan.memory.sram_words - SRAM_RESERVE
    in_sram = sorted((b for b in vectors if b.region == "sram"), key=lambda b: -b.words)
    sram = room - sum(b.words for b in in_sram)
    most = plan.memory.sram_words - STACK_RESERVE      # with no code at all
    if in_sram and room - sram > most:
        biggest = ", ".join(f"{b.role} {b.words}" for b in in_sram[:3])
        raise LoweringError(
            f"network {plan.network.name!r} on {plan.nodes} node{'s' if plan.nodes > 1 else ''}: "
            f"the vectors left off chip need {room - sram} words of SRAM per node, more than "
            f"the {most} a node has (the largest: {biggest}); more nodes shrink only the own "
            f"slices: a layer feeding a full or sparse connect is held whole by every node")
    matrices = [b for b in plan.buffers if b.kind in ("matrix", "table")]
    for b in _onchip_columns(plan, vectors):
        matrices.remove(b)
    for b in sorted(matrices, key=lambda b: (-b.uses, -b.words, b.name)):
        if b.words <= sram:
            b.region = "sram"
            sram -= b.words
        else:
            b.region = "dram"
    dram = sum(b.words for b in matrices if b.region == "dram")
    if dram > plan.memory.dram_words:
        whole = [n for n, lp in plan.layers.items() if lp.split.whole and lp.kind not in INPUT_KINDS]
        hint = (f"under the {plan.mapping.name} mapping every node holds whole copies of the "
                f"weights into {', '.join(whole)}, which more nodes do not shrink: map them by "
                f"units (rows)" if whole else "use more nodes")
        raise LoweringError(f"the weights need {dram} words of DRAM per node beyond SRAM, "
                            f"more than the {plan.memory.dram_words} a node has: {hint}")
