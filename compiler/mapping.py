"""The mapping of a network onto the ring: where every layer lives and how
it is split there (issue 13; the design frame is ../shared/MAPPINGS.md).

A :class:`Mapping` is data beside the :class:`~rapsim.compiler.ir.Network`:
for every layer a :class:`Placement` -- a node group (a contiguous range of
ring positions ``first .. last``) and a split inside it:

``units``
    each node of the group owns a slice of the layer's units and the
    matching rows of every incoming weight matrix (the RAP's own scheme,
    SINGA ``partition_dim: 1``, Girau's vertical sectioning);
``patterns``
    every node of the group holds the whole layer and a whole copy of its
    incoming weights, and takes its share of the patterns (SINGA
    ``partition_dim: 0``, Girau's pattern partition); the weight changes of
    ``batch`` patterns per node are summed over the group by a ring
    all-reduce and then applied on every node;
``none``
    the whole layer on one node (a group of one).

Where it comes from, lowest priority first: ``units`` on the whole ring (the
``rows`` mapping, today's); the description's net-level default
(``partition SPLIT`` in the net block); per-layer attributes (``layer h:
sigmoid 8 partition patterns``, ``nodes a..b``, ``location G``); and a
whole-net preset from ``rap cc`` / ``rap train --mapping NAME``, which
replaces all of them.

What the back end maps today (:func:`resolve`): every layer split by units
on the whole ring (``rows``); every layer split by patterns on the whole
ring (``data``); layers on node groups split by units inside them
(``nodes a..b``, ``partition none``, the ``layers`` preset); the lower
layers split by patterns and the upper ones by units, all on the whole ring
(``hybrid``, SINGA's strategy 4); every full connect's weights in blocks
on a grid of nodes (``checkerboard``, Girau's cb; a whole-net preset).
Everything else -- ``location``,
patterns on a node group, a hybrid on node groups -- is
refused with a :class:`MappingError` that names the place in the
description (or the preset) and what is not supported; nothing is ever
mapped another way than the one asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rapsim.errors import RapError

from .ir import INPUT_KINDS, Loc, Network
from . import phases, sharing

#: how a layer is split inside its node group
SPLITS = ("units", "patterns", "none")
#: whole-net presets of ``--mapping``
PRESETS = ("rows", "data", "layers", "hybrid", "checkerboard", "columns")
#: the net-level schedule (when each group works on what; compiler/pipeline.py)
SCHEDULES = ("lockstep", "pipeline", "stream")

_NOT_YET = {
    "location": "node groups by number (SINGA location)",
    "group-data": "the data mapping on a node group (patterns split over part of the ring)",
    "group-hybrid": "hybrid mappings on node groups (a hybrid's layers span the whole ring)",
}


class MappingError(RapError):
    """A mapping the back end cannot map (with the place in the
    description when there is one)."""

    def __init__(self, message: str, loc: Loc | None = None):
        super().__init__(f"{loc}: error: {message}" if loc is not None else message)


@dataclass
class PlacementAttrs:
    """A layer's placement attributes as written in the description (the
    net-level default has only ``partition``)."""
    partition: str | None = None
    partition_loc: Loc | None = None
    nodes: tuple[int, int] | None = None       # ring positions a..b, inclusive
    nodes_loc: Loc | None = None
    location: int | None = None                # a node group's number (SINGA location)
    location_loc: Loc | None = None


@dataclass(frozen=True)
class Placement:
    """One layer's group of nodes (ring positions ``first .. last``) and
    its split inside the group."""
    first: int
    last: int
    split: str                  # one of SPLITS

    @property
    def nodes(self) -> int:
        return self.last - self.first + 1

    def to_dict(self) -> dict:
        return {"nodes": [self.first, self.last], "split": self.split}


@dataclass
class Mapping:
    """Per-layer placements and the net-level choices (``batch``)."""
    name: str                   # "rows", "data", "layers" or "hybrid" (the preset, or what the attributes amount to)
    nodes: int
    layers: dict[str, Placement]
    batch: int = 1              # patterns per node between two all-reduces (data, hybrid)
    source: str = "default"     # "default", "description" or "--mapping"
    inputs: tuple = ()          # the input layers (held whole under every mapping)
    #: checkerboard: the grid (rows r, columns c; r c = nodes), laid out row
    #: by row on the ring: node k is at grid row k // c, column k % c
    grid: tuple[int, int] | None = None
    #: the schedule (one of SCHEDULES) and where it comes from ("default",
    #: "description" or "--schedule"); set by compiler.pipeline.apply_schedule
    schedule: str = "lockstep"
    schedule_source: str = "default"
    #: the full connects split by columns (the ``columns`` mapping: every
    #: layer split by units on the whole ring as in rows, and each of these
    #: connects' weights split by the columns of its source's units, Girau's
    #: horizontal sectioning; docs/compiler.md, "Connects split by columns")
    columns: tuple[str, ...] = ()

    @property
    def by_patterns(self) -> bool:
        """Every node holds whole layers and whole weights (data parallel)."""
        return self.name == "data"

    @property
    def mini_batch(self) -> bool:
        """Weight changes are summed over batches of ``nodes * batch``
        patterns and applied once a batch (data and hybrid), not on-line."""
        return self.name in ("data", "hybrid")

    def split_by_patterns(self) -> list[str]:
        """The layers split by patterns (every node a whole copy)."""
        return [n for n, p in self.layers.items() if p.split == "patterns"]

    def to_dict(self) -> dict:
        out = {"name": self.name, "source": self.source, "nodes": self.nodes,
               "batch": self.batch,
               "layers": {n: p.to_dict() for n, p in self.layers.items()}}
        if self.grid is not None:
            out["grid"] = {"rows": self.grid[0], "cols": self.grid[1]}
        out["schedule"] = self.schedule
        out["schedule_source"] = self.schedule_source
        if self.columns:
            out["columns"] = list(self.columns)
        return out

    def describe(self) -> str:
        """One line for reports (the schedule's own line follows it when it
        is not lockstep: compiler.pipeline.describe)."""
        if self.by_patterns:
            return (f"mapping data ({self.source}): every layer and weight on each of "
                    f"{self.nodes} node{'s' if self.nodes > 1 else ''}, patterns split, "
                    f"weight changes all-reduced every {self.batch} pattern"
                    f"{'s' if self.batch > 1 else ''} per node")
        if self.name == "checkerboard":
            r, c = self.grid
            return (f"mapping checkerboard ({self.source}): every full connect's weights in "
                    f"{r} x {c} blocks on a grid of {self.nodes} node"
                    f"{'s' if self.nodes > 1 else ''} laid out row by row on the ring (node k "
                    f"at row k // {c}, column k % {c}); partial products summed by a "
                    f"reduce-scatter, error signals gathered by an all-gather")
        if self.name == "hybrid":
            low = [n for n, p in self.layers.items() if p.split == "patterns"]
            up = [n for n, p in self.layers.items() if p.split == "units"
                  and n not in self.inputs]
            return (f"mapping hybrid ({self.source}): {', '.join(low) or 'no layer'} split by "
                    f"patterns (weight changes all-reduced every {self.batch} round"
                    f"{'s' if self.batch > 1 else ''}), {', '.join(up)} split by units over "
                    f"{self.nodes} node{'s' if self.nodes > 1 else ''}; a round's "
                    f"{self.nodes} pattern{'s' if self.nodes > 1 else ''} concatenated "
                    f"(all-gather) into the upper layers, their errors sliced back "
                    f"(reduce-scatter)")
        if self.name == "layers":
            groups = ", ".join(f"{n} {p.first}..{p.last}" for n, p in self.layers.items())
            return (f"mapping layers ({self.source}): layers on node groups, split by units "
                    f"inside them ({groups})")
        if self.name == "columns":
            return (f"mapping columns ({self.source}): every layer split by units over "
                    f"{self.nodes} node{'s' if self.nodes > 1 else ''}; split by columns (each "
                    f"node the columns of its own source units, partial net inputs "
                    f"reduce-scattered, error signals all-gathered): {', '.join(self.columns)}")
        return (f"mapping rows ({self.source}): every layer split by units over "
                f"{self.nodes} node{'s' if self.nodes > 1 else ''}")


def rows(network: Network, nodes: int) -> Mapping:
    """Today's mapping: every layer split by units over the whole ring."""
    return Mapping("rows", nodes, {n: Placement(0, nodes - 1, "units") for n in network.layers})


def resolve(network: Network, nodes: int, preset: str | None = None, batch: int = 1) -> Mapping:
    """The mapping of ``network`` on ``nodes`` nodes: the preset when one is
    given, else the description's attributes (``Network.placement``), else
    ``rows``.  Raises :class:`MappingError` for what is not supported."""
    if nodes < 1:
        raise MappingError(f"a mapping needs at least one node, not {nodes}")
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise MappingError(f"--batch must be a whole number of at least 1, not {batch!r}")
    if preset is not None:
        m = _preset(network, nodes, preset)
    else:
        m = _from_attributes(network, nodes)
        _columns_from_description(network, m)
    if batch != 1 and not m.mini_batch:
        raise MappingError(f"--batch {batch} applies to the data and hybrid mappings "
                           f"(partition patterns); "
                           f"the {m.name} mapping trains on-line, one update per pattern")
    m.batch = batch
    m.inputs = tuple(network.inputs)
    check_columns(network, m)
    if m.name != "rows":
        _refuse_clones(network, m)
        sharing.refuse(network, m.name)
        phases.refuse(network, f"the rows mapping only, not the {m.name} mapping", MappingError)
    return m


def _refuse_clones(network: Network, m: Mapping) -> None:
    """The CLONES constructs (several nets, behaviours, user transfer
    functions, binary and threshold layers) run under the rows mapping only:
    any other is refused naming the first such construct and its place."""
    from .ir import BINARY_KINDS
    what = f"the {m.name} mapping"
    for s in getattr(network, "nets", []) or []:
        raise MappingError(f"{what}: net {s.name!r} (several nets in one pool) is supported "
                           f"under the rows mapping only", getattr(s, "loc", None))
    for b in getattr(network, "behaviours", []) or []:
        raise MappingError(f"{what}: the behaviour at event {b.event!r} is supported under the "
                           f"rows mapping only", getattr(b, "loc", None))
    transfers = getattr(network, "transfers", {}) or {}
    for name, layer in network.layers.items():
        if layer.kind in transfers:
            raise MappingError(f"{what}: layer {name!r} uses the user transfer function "
                               f"{layer.kind!r}, supported under the rows mapping only",
                               layer.loc)
        if layer.kind in BINARY_KINDS:
            raise MappingError(f"{what}: {layer.kind} layer {name!r} is supported under the "
                               f"rows mapping only", layer.loc)


def _preset(network: Network, nodes: int, preset: str) -> Mapping:
    if preset not in PRESETS:
        raise MappingError(f"unknown mapping {preset!r} (expected {', '.join(PRESETS)})")
    if preset == "layers":
        return Mapping("layers", nodes, layer_groups(network, nodes), source="--mapping")
    if preset == "checkerboard":
        m = Mapping("checkerboard", nodes,
                    {n: Placement(0, nodes - 1, "units" if network.layers[n].kind in INPUT_KINDS
                                  else "blocks") for n in network.layers},
                    source="--mapping", grid=grid(nodes))
        for c in network.connects:
            if c.kind != "full":
                raise MappingError(f"mapping 'checkerboard': {c.kind} connect {c.name}: the "
                                   f"checkerboard splits full weight matrices into blocks; "
                                   f"{c.kind} connects are not supported by it", c.loc)
        return m
    if preset == "hybrid":
        m = Mapping("hybrid", nodes, {n: Placement(0, nodes - 1, _hybrid_split(network, n))
                                      for n in network.layers}, source="--mapping")
        check_hybrid(network, m)
        return m
    if preset == "columns":
        m = rows(network, nodes)
        m.name, m.source, m.columns = "columns", "--mapping", columns_that_pay(network)
        return m
    split = "units" if preset == "rows" else "patterns"
    return Mapping(preset, nodes, {n: Placement(0, nodes - 1, split) for n in network.layers},
                   source="--mapping")


def columns_that_pay(network: Network) -> tuple[str, ...]:
    """The ``columns`` preset's choice (**choice**, docs/compiler.md
    "Connects split by columns"): every full connect from a hidden layer
    (not an input, not binary or threshold) into a smaller layer.  By
    rows such a connect costs an all-gather of its source and a
    reduce-scatter of the source's partial errors (|S| words each); by
    columns a reduce-scatter of the destination's partial net inputs and an
    all-gather of its error signal (|D| words each), and its |D| rows no
    longer need to be shared out over the nodes."""
    from .ir import BINARY_KINDS
    layers = network.layers
    return tuple(c.name for c in network.connects
                 if c.kind == "full" and c.share is None
                 and not any(o.share == c.name for o in network.connects)
                 and layers[c.src].kind not in INPUT_KINDS + tuple(BINARY_KINDS)
                 and layers[c.dst].size < layers[c.src].size)


def _columns_from_description(network: Network, m: Mapping) -> None:
    """``connect S -> D split columns`` in the description: the columns
    mapping (rows for the layers), refused under any other placement."""
    asked = [c for c in network.connects if c.split == "columns"]
    if not asked:
        return
    if m.name != "rows":
        raise MappingError(f"connect {asked[0].name}: split columns is supported with every "
                           f"layer split by units on the whole ring (rows), not with the "
                           f"placement attributes of the {m.name} mapping", asked[0].split_loc)
    m.name, m.source = "columns", "description"
    m.columns = tuple(c.name for c in asked)


def check_columns(network: Network, m: Mapping) -> None:
    """What a connect split by columns needs: a full connect of its own
    weights (no share_from either way) from a layer that is not binary or
    threshold (the binary kernels walk index lists), and the lockstep
    schedule (checked with the schedule: compiler/pipeline.py)."""
    from .ir import BINARY_KINDS
    by_name = {c.name: c for c in network.connects}
    for name in m.columns:
        c = by_name[name]
        where = c.split_loc or c.loc
        if c.share is not None or any(o.share == name for o in network.connects):
            raise MappingError(f"connect {name}: split columns is not supported for a shared "
                               f"weight matrix (share_from)", where)
        if network.layers[c.src].kind in BINARY_KINDS:
            raise MappingError(f"connect {name}: split columns is not supported from the "
                               f"{network.layers[c.src].kind} layer {c.src!r} (its kernels walk "
                               f"the index list of its active units)", where)


def grid(nodes: int) -> tuple[int, int]:
    """The checkerboard's grid of ``nodes`` nodes: r rows and c columns,
    r the largest divisor of ``nodes`` with r <= c (square when ``nodes``
    is a square: 2 x 2, 4 x 4, 8 x 8; 2 x 4 for 8, 1 x N for a prime)."""
    r = max(d for d in range(1, int(nodes ** 0.5) + 1) if nodes % d == 0)
    return r, nodes // r


def _hybrid_split(network: Network, name: str) -> str:
    """The ``hybrid`` preset (SINGA's strategy 4): the hidden layers split by
    patterns, the output layers by units (input layers: held whole)."""
    layer = network.layers[name]
    if layer.kind in INPUT_KINDS or name in network.outputs:
        return "units"
    return "patterns"


def check_hybrid(network: Network, m: Mapping, locs: dict | None = None) -> None:
    """What a hybrid mapping needs (docs/mappings.md, "Hybrid"): the layers
    split by patterns take their inputs only from input layers and other
    layers split by patterns (the lower part of the net), the outputs are
    split by units, and no bus connect crosses from one split to the other.
    ``locs``: the place of each layer's partition attribute."""
    locs = locs or {}
    low = set(m.split_by_patterns())
    for name in network.outputs:
        if name in low:
            raise MappingError(f"hybrid mapping: output layer {name!r} is split by patterns; "
                               f"the upper layers, split by units, must hold every output",
                               locs.get(name) or network.layers[name].loc)
    for c in network.connects:
        src_low = c.src in low or network.layers[c.src].kind in INPUT_KINDS
        if c.dst in low and not src_low:
            raise MappingError(f"hybrid mapping: connect {c.name} feeds {c.dst} (split by "
                               f"patterns) from {c.src} (split by units); the layers split by "
                               f"patterns must be below every layer split by units", c.loc)
        if (c.kind == "bus" and c.src in low) != (c.kind == "bus" and c.dst in low):
            raise MappingError(f"hybrid mapping: bus connect {c.name} joins {c.src} and {c.dst}, "
                               f"one split by patterns and one by units: unit i feeds unit i "
                               f"only inside one split", c.loc)


def _work(network: Network, name: str) -> int:
    """Weights into a layer (and its biases): its share of a pattern's work."""
    layer = network.layers[name]
    return (sum(c.weight_count(network.layers) for c in network.incoming(name))
            + (layer.size if layer.bias else 0))


def layer_groups(network: Network, nodes: int) -> dict[str, Placement]:
    """The ``layers`` preset: the non-input layers, in forward order, on
    consecutive node groups, each split by units inside its group.  With at
    least as many nodes as layers every layer gets a group of its own, sized
    by its work (weights in, largest remainders; at least one node); with
    fewer, layer i of L goes to node ``i * N // L`` (several layers share a
    node).  Input layers are held whole by every node."""
    # layers joined by a bus connect share a group (unit i feeds unit i)
    cluster = {n: n for n in network.layers}
    for c in network.connects:
        if c.kind == "bus" and network.layers[c.src].kind not in INPUT_KINDS:
            cluster[c.dst] = cluster[c.src]
    members: dict[str, list[str]] = {}
    for n in network.forward_order:
        if network.layers[n].kind not in INPUT_KINDS:
            members.setdefault(cluster[n], []).append(n)
    order = list(members)
    out = {n: Placement(0, nodes - 1, "units") for n in network.layers}
    L = len(order)
    if nodes < L:
        for i, n in enumerate(order):
            k = i * nodes // L
            for m in members[n]:
                out[m] = Placement(k, k, "units")
        return out
    work = [max(sum(_work(network, m) for m in members[n]), 1) for n in order]
    spare = nodes - L                     # one node each, the rest by work
    shares = [w * spare / sum(work) for w in work]
    sizes = [1 + int(s) for s in shares]
    for i in sorted(range(L), key=lambda i: -(shares[i] - int(shares[i])))[:nodes - sum(sizes)]:
        sizes[i] += 1
    first = 0
    for n, size in zip(order, sizes):
        for m in members[n]:
            out[m] = Placement(first, first + size - 1, "units")
        first += size
    return out


def _from_attributes(network: Network, nodes: int) -> Mapping:
    attrs: dict = getattr(network, "placement", {}) or {}
    if not attrs:
        m = rows(network, nodes)
        return m
    default = attrs.get("")
    splits: dict[str, tuple[str, Loc | None]] = {}
    groups: dict[str, tuple[int, int, Loc | None]] = {}
    for name, layer in network.layers.items():
        a = attrs.get(name)
        groups[name] = (0, nodes - 1, None)
        if a is not None and a.location is not None:
            raise MappingError(f"layer {name!r}: location {a.location}: {_NOT_YET['location']} "
                               f"are not supported yet; give the group's ring positions "
                               f"(nodes a..b)", a.location_loc)
        if a is not None and a.nodes is not None:
            lo, hi = a.nodes
            if hi >= nodes:
                raise MappingError(f"layer {name!r}: nodes {lo}..{hi} is beyond the ring of "
                                   f"{nodes} node{'s' if nodes > 1 else ''} (positions 0.."
                                   f"{nodes - 1})", a.nodes_loc)
            if layer.kind in INPUT_KINDS and (lo, hi) != (0, nodes - 1):
                raise MappingError(f"input layer {name!r}: nodes {lo}..{hi}: input layers are "
                                   f"held whole by every node (nodes 0..{nodes - 1})",
                                   a.nodes_loc)
            groups[name] = (lo, hi, a.nodes_loc)
        if a is not None and a.partition is not None:
            splits[name] = (a.partition, a.partition_loc)
        elif default is not None and default.partition is not None:
            splits[name] = (default.partition, default.partition_loc)
        else:
            splits[name] = ("units", None)
    for name, (split, loc) in splits.items():
        if split == "none" and network.layers[name].kind not in INPUT_KINDS:
            lo, hi, gloc = groups[name]           # the whole layer on the group's first node
            groups[name] = (lo, lo, gloc)
    # input layers are held whole by every node under every split: only the
    # others decide (and must agree)
    decided = [(n, s, loc) for n, (s, loc) in splits.items()
               if network.layers[n].kind not in INPUT_KINDS]
    kinds = {"none": "units"}            # on one node, none and units are the same thing
    first = decided[0]
    partial = [(n, g) for n, g in groups.items() if (g[0], g[1]) != (0, nodes - 1)]
    mixed = next(((n, s, loc) for n, s, loc in decided[1:]
                  if kinds.get(s, s) != kinds.get(first[1], first[1])), None)
    if mixed is not None:                # some layers by patterns, others by units: hybrid
        if partial:
            n, (lo, hi, loc) = partial[0]
            raise MappingError(f"layer {n!r}: nodes {lo}..{hi} in a mapping that mixes partition "
                               f"patterns and units: {_NOT_YET['group-hybrid']} are not "
                               f"supported", loc or mixed[2])
        m = Mapping("hybrid", nodes, {n: Placement(0, nodes - 1, "patterns" if s == "patterns"
                                                   else "units")
                                      for n, (s, _) in splits.items()}, source="description")
        for n in network.layers:
            if network.layers[n].kind in INPUT_KINDS:
                m.layers[n] = Placement(0, nodes - 1, "units")
        check_hybrid(network, m, {n: loc for n, (_, loc) in splits.items()})
        return m
    split = "patterns" if first[1] == "patterns" else "units"
    if split == "patterns" and partial:
        n, (lo, hi, loc) = partial[0]
        raise MappingError(f"layer {n!r}: nodes {lo}..{hi} with partition patterns: "
                           f"{_NOT_YET['group-data']} is not supported yet", loc)
    for c in network.connects:
        if (c.kind == "bus" and network.layers[c.src].kind not in INPUT_KINDS
                and groups[c.src][:2] != groups[c.dst][:2]):
            raise MappingError(f"bus connect {c.name} joins layers on different node groups "
                               f"({c.src} {groups[c.src][0]}..{groups[c.src][1]}, {c.dst} "
                               f"{groups[c.dst][0]}..{groups[c.dst][1]}): unit i feeds unit i, "
                               f"so both must be on one group", c.loc)
    name = "data" if split == "patterns" else "layers" if partial else "rows"
    return Mapping(name, nodes, {n: Placement(groups[n][0], groups[n][1], split)
                                 for n in network.layers}, source="description")


def require_rows(mapping: Mapping, network: Network, what: str) -> None:
    """Refuse ``what`` (a construct that maps rows only: the inference
    image, a streamed database, ...) under any other mapping, naming where
    that mapping comes from (the ``--mapping`` preset, or the description's
    first placement attribute with its file:line)."""
    if mapping.name == "rows":
        return
    if mapping.source == "--mapping":
        raise MappingError(f"{what} supports the rows mapping only, not --mapping {mapping.name}")
    loc = next((a.partition_loc or a.nodes_loc or a.location_loc
                for a in (getattr(network, "placement", {}) or {}).values()
                if a.partition_loc or a.nodes_loc or a.location_loc), None)
    raise MappingError(f"{what} supports the rows mapping only; the description's placement "
                       f"attributes make the {mapping.name} mapping", loc)
