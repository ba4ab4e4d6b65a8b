"""Checking a description and building the IR :class:`Network`.

:func:`build_network` checks names, the net block, the connects against the
kernel table (below), the graph (a DAG, every layer on a path from an input
to an output), the training settings and the error function against the
output layers; it reports every problem at once (:class:`Diagnostics`,
sorted by file and position) and derives the forward and backward orders.

Kernel table -- the pairings the RAP back end has kernels for:

=============  ===============================  ==============================
connect        source layer                     destination layer
=============  ===============================  ==============================
full           any layer but an output          any non-input layer
bus            any but binary or an output;     any non-input layer
               same size as the destination
sparse         any but binary or an output      any non-input layer
=============  ===============================  ==============================

and for layers: input and binary layers are exactly the net's inputs, take
no bias and have no incoming connects; softmax layers (2 units or more) are
outputs only; outputs feed nothing.  Errors: ``mse`` for sigmoid, tanh and
linear outputs, ``cross_entropy`` for sigmoid and softmax outputs.
"""
from __future__ import annotations

import heapq

from rapsim.errors import Diagnostics, RapError

from .ir import BINARY_KINDS, CONNECT_KINDS, CONNECT_SPLITS, INPUT_KINDS, LAYER_KINDS, Connect, Layer, Loc, Network
from .parser import Description, NetDecl
from .settings import build_training
from .sparse import explicit_pairs, generate
from .behaviours import build_behaviours
from .nets import build_subnets, reachable
from .transfer import build_transfers
from . import phases, sharing

__all__ = ["build_network", "derive_orders"]

_KIND_LIST = ", ".join(LAYER_KINDS[:-1]) + " or " + LAYER_KINDS[-1]
_ERROR_OUTPUTS = {"mse": ("sigmoid", "tanh", "linear"), "cross_entropy": ("sigmoid", "softmax")}


def build_network(desc: Description) -> Network:
    """The checked Network of ``desc``; raises Diagnostics listing every error."""
    if desc.syntax_errors:
        raise Diagnostics(_format(desc.errors, desc.files))
    errors: list = list(desc.errors)
    transfers, declared = build_transfers(desc.transfers, set(LAYER_KINDS), errors)
    layers = _layers(desc, errors, transfers, declared)
    name, inputs, outputs = _net(desc, layers, errors)
    connects = _connects(desc, layers, set(outputs), errors)
    sharing.resolve(desc.connects, connects, layers, errors, len(desc.nets) > 1)
    schedule, schedule_loc = _schedule(desc, errors)
    cycles = _graph(layers, connects, inputs, outputs, errors, schedule == "stream")
    subnets = []
    if len(desc.nets) > 1 and inputs and outputs:
        others = [d for d in desc.nets[1:] if d.name.text != name]
        subnets = build_subnets(others, layers, connects, inputs, outputs,
                                lambda d: _roles(d, layers, errors), errors)
    phase_nets, exclusions = ({}, []) if errors else phases.build(
        desc.layers, desc.connects, layers, connects, inputs, outputs, errors, len(desc.nets) > 1)
    behaviours = build_behaviours(desc.behaviours, layers, errors,
                                  [d.name.text for d in desc.nets])
    for b in behaviours:
        if b.layer is not None and layers[b.layer].kind in INPUT_KINDS:
            errors.append((b.loc, f"layer {b.layer!r} is an input: it has no forward or "
                                  f"backward step to hook"))
    training, where = build_training(desc.settings, errors)
    if "error" in where or "error" not in {s.name.text for s in desc.settings}:
        _error_function(training.error, where.get("error"), layers, outputs, errors, transfers)
    placement = _placement(desc, errors)
    overlap = _overlap(desc, errors)
    from .evalmap import OPTION_CHOICES
    evaluate, evaluate_loc = _net_word(desc, "evaluate", OPTION_CHOICES, errors)
    stats = _stats(desc, errors)
    messages = _format(errors, desc.files)
    if messages:
        raise Diagnostics(messages)
    net = Network(name=name, layers=dict(layers), connects=connects,
                  inputs=inputs, outputs=outputs, training=training, params=dict(desc.params),
                  source=desc.file, transfers=transfers, behaviours=behaviours,
                  nets=subnets, stats=stats, placement=placement, schedule=schedule,
                  schedule_loc=schedule_loc, cycles=cycles, overlap=overlap,
                  phases=phase_nets, exclusions=exclusions, eval_mapping=evaluate,
                  eval_mapping_loc=evaluate_loc)
    if cycles:                  # schedule stream: every layer reads the previous frame
        from .frames import stream_order
        net.forward_order = stream_order(net.layers, net.connects, net.inputs)
        net.backward_order = net.forward_order[::-1]
    else:
        net.forward_order, net.backward_order = derive_orders(net)
    return net


def _stats(desc: Description, errors: list) -> list[str]:
    """The statistics the description selects: known names, each once."""
    from .stats import available
    known, out, seen = available(), [], {}
    for n in desc.stats:
        if n.text not in known:
            errors.append((n.loc, f"unknown statistic {n.text!r} (there are: "
                                  f"{', '.join(known)})"))
        elif n.text in seen:
            errors.append((n.loc, f"statistic {n.text!r} is selected twice (also at "
                                  f"{seen[n.text]})"))
        else:
            seen[n.text] = n.loc
            out.append(n.text)
    return out


def derive_orders(net: Network) -> tuple[list[str], list[str]]:
    """CLONES' Net_order: a topological order of the layers that keeps
    definition order wherever the connects allow (of the layers whose
    sources are all placed, the earliest defined goes first), and its
    reverse for back-propagation."""
    index = {name: i for i, name in enumerate(net.layers)}
    pending = {name: 0 for name in net.layers}
    for c in net.connects:
        pending[c.dst] += 1
    ready = [index[n] for n, k in pending.items() if k == 0]
    heapq.heapify(ready)
    names = list(net.layers)
    order = []
    while ready:
        n = names[heapq.heappop(ready)]
        order.append(n)
        for c in net.outgoing(n):
            pending[c.dst] -= 1
            if pending[c.dst] == 0:
                heapq.heappush(ready, index[c.dst])
    if len(order) != len(names):
        raise ValueError("the network has a cycle")
    return order, order[::-1]


# ---------------------------------------------------------------------------

def _layers(desc: Description, errors: list, transfers: dict,
            declared: set = frozenset()) -> dict[str, Layer]:
    layers: dict[str, Layer] = {}
    for d in desc.layers:
        name = d.name.text
        if name in layers:
            errors.append((d.name.loc, f"layer {name!r} is already defined (at {layers[name].loc})"))
            continue
        kind = d.kind.text
        if kind in declared and kind not in transfers:
            kind = None                         # a broken transfer: reported already
        elif kind not in LAYER_KINDS and kind not in transfers:
            known = (_KIND_LIST if not transfers else ", ".join(LAYER_KINDS) + " or a transfer "
                     "function (" + ", ".join(transfers) + ")")
            errors.append((d.kind.loc, f"unknown layer kind {kind!r} (expected {known})"))
            kind = None
        elif kind in INPUT_KINDS and d.bias:
            errors.append((d.name.loc, f"{kind} layer {name!r} cannot have a bias"))
        elif kind == "softmax" and d.size == 1:
            errors.append((d.size_loc, f"softmax layer {name!r} needs at least 2 units"))
        layers[name] = Layer(name, kind, d.size, d.bias, d.name.loc)
    return layers


def _net(desc: Description, layers: dict[str, Layer], errors: list):
    top = Loc(desc.file, 1, 1)
    if not desc.nets:
        errors.append((top, "no net block: name the input and output layers, "
                            "e.g. net NAME { input x  output y }"))
        return "", [], []
    net = desc.nets[0]
    for other in desc.nets[1:]:
        if other.name.text == net.name.text:
            errors.append((other.name.loc, f"net {other.name.text!r} is already defined "
                                           f"(at {net.name.loc})"))
    roles = _roles(net, layers, errors)
    nname = net.name.text
    inputs, hidden, outputs = roles["input"], roles["hidden"], roles["output"]
    for n in inputs:
        lay = layers[n]
        if lay.kind is not None and lay.kind not in INPUT_KINDS:
            errors.append((_where(net, n), f"net input {n!r} is a {lay.kind} layer; inputs must "
                                           f"be input or binary layers"))
    for n in outputs:
        lay = layers[n]
        if lay.kind in INPUT_KINDS:
            errors.append((_where(net, n), f"net output {n!r} is an {lay.kind} layer"
                           if lay.kind == "input" else f"net output {n!r} is a binary input layer"))
    for n in hidden:
        lay = layers[n]
        if lay.kind in INPUT_KINDS:
            errors.append((_where(net, n), f"hidden layer {n!r} is an {lay.kind} layer"
                           if lay.kind == "input" else f"hidden layer {n!r} is a binary input layer"))
    named = set(inputs) | set(hidden) | set(outputs)
    for n, lay in layers.items():
        if lay.kind in INPUT_KINDS and n not in inputs:
            errors.append((lay.loc, f"{lay.kind} layer {n!r} is not an input of net {nname!r}"))
        elif lay.kind == "softmax" and n not in outputs:
            errors.append((lay.loc, f"softmax layer {n!r} must be an output of net {nname!r}"))
        elif lay.kind == "threshold" and n in outputs:
            errors.append((_where(net, n), f"threshold layer {n!r} cannot be an output of net "
                                           f"{nname!r}: it is a hidden layer (0/1 units)"))
        elif hidden and n not in named:
            errors.append((lay.loc, f"layer {n!r} is not named in net {nname!r} (list it as hidden)"))
    if not inputs:
        errors.append((net.name.loc, f"net {nname!r} has no input layer"))
    if not outputs:
        errors.append((net.name.loc, f"net {nname!r} has no output layer"))
    return nname, inputs, outputs


def _roles(net: NetDecl, layers: dict[str, Layer], errors: list) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {"input": [], "hidden": [], "output": []}
    seen: dict[str, Loc] = {}
    for role, names in net.entries:
        if role.text in ("partition", "overlap", "schedule", "evaluate"):  # net-level attributes (_placement, _overlap, _schedule, evaluate)
            continue
        if role.text not in roles:
            errors.append((role.loc, f"unknown entry {role.text!r} in net {net.name.text!r} "
                                     f"(expected input, hidden or output)"))
            continue
        for n in names:
            if n.text not in layers:
                errors.append((n.loc, f"unknown layer {n.text!r}"))
            elif n.text in seen:
                errors.append((n.loc, f"layer {n.text!r} is named twice in net {net.name.text!r} "
                                      f"(first at {seen[n.text]})"))
            else:
                seen[n.text] = n.loc
                roles[role.text].append(n.text)
    return roles


def _placement(desc: Description, errors: list) -> dict:
    """The placement attributes (rapsim.compiler.mapping): each layer's as
    written, and under "" the net block's default ``partition SPLIT``."""
    from .mapping import SPLITS, PlacementAttrs
    out = {d.name.text: d.placement for d in desc.layers if d.placement is not None}
    word, at = _net_word(desc, "partition", SPLITS, errors)
    if word is not None:
        out[""] = PlacementAttrs(word, at)
    return out


def _net_word(desc: Description, key: str, choices, errors: list):
    """The main net block's entry ``KEY WORD`` (a net-level attribute), at
    most once and one of ``choices``: (word, place), or (None, None) when
    it is not written (or wrong: reported)."""
    found = (None, None)
    for net in desc.nets[:1]:
        for role, names in net.entries:
            if role.text != key:
                continue
            if found[0] is not None:
                errors.append((role.loc, f"'{key}' is given twice in net {net.name.text!r} "
                                         f"(at {found[1]})"))
            elif len(names) != 1 or names[0].text not in choices:
                errors.append((role.loc, f"{key} in a net block takes one of "
                                         f"{', '.join(choices)}"))
            else:
                found = (names[0].text, role.loc)
    return found


def _schedule(desc: Description, errors: list):
    """The net block's ``schedule NAME`` (rapsim.compiler.pipeline), once:
    (name, place), or (None, None) when it is not written."""
    from .mapping import SCHEDULES
    return _net_word(desc, "schedule", SCHEDULES, errors)


def _overlap(desc: Description, errors: list) -> str:
    """The net block's ``overlap on|off|ring|dma`` (rapsim.compiler.overlap;
    default off)."""
    from .overlap import OVERLAPS, resolve
    value, at = "off", None
    for net in desc.nets[:1]:
        for role, names in net.entries:
            if role.text != "overlap":
                continue
            if at is not None:
                errors.append((role.loc, f"'overlap' is given twice in net {net.name.text!r} "
                                         f"(at {at})"))
            elif len(names) != 1 or names[0].text not in OVERLAPS:
                errors.append((role.loc, f"overlap in a net block takes one of "
                                         f"{', '.join(OVERLAPS)}"))
            else:
                try:
                    resolve(names[0].text)          # refuses the values not supported
                except RapError as e:
                    errors.append((names[0].loc, str(e)))
                else:
                    value, at = names[0].text, role.loc
    return value


def _where(net: NetDecl, layer: str) -> Loc:
    for _, names in net.entries:
        for n in names:
            if n.text == layer:
                return n.loc
    return net.name.loc


def _connects(desc: Description, layers: dict[str, Layer], outputs: set,
              errors: list) -> list[Connect]:
    out: list[Connect] = []
    seen: dict[str, Loc] = {}
    for d in desc.connects:
        ok = True
        for end in (d.src, d.dst):
            if end.text not in layers:
                errors.append((end.loc, f"unknown layer {end.text!r}"))
                ok = False
        kind = d.kind.text
        if kind not in CONNECT_KINDS:
            errors.append((d.kind.loc, f"unknown connect kind {kind!r} (expected full, bus or sparse)"))
            ok = False
        name = f"{d.src.text}->{d.dst.text}"
        if name in seen:
            errors.append((d.src.loc, f"connect {name!r} is already defined (at {seen[name]})"))
            continue
        seen[name] = d.src.loc
        if d.src.text not in layers or d.dst.text not in layers:
            continue
        c = Connect(d.src.text, d.dst.text, kind, loc=d.src.loc)
        out.append(c)               # for the graph checks, even when it has errors
        if d.split is not None:
            if d.split.text not in CONNECT_SPLITS:
                errors.append((d.split.loc, f"connect {name}: unknown split {d.split.text!r} "
                                            f"(expected {' or '.join(CONNECT_SPLITS)})"))
            elif d.split.text == "columns" and kind != "full":
                errors.append((d.split.loc, f"connect {name}: split columns needs a full "
                                            f"connect, not {kind}"))
            else:
                c.split, c.split_loc = d.split.text, d.split.loc
        if not ok:
            continue
        src, dst = layers[d.src.text], layers[d.dst.text]
        if dst.kind in INPUT_KINDS:
            errors.append((d.dst.loc, f"connect {name!r} goes into {dst.kind} layer {dst.name!r} "
                                      f"(input layers take pattern values only)"))
        if src.name in outputs:
            errors.append((d.src.loc, f"output layer {src.name!r} cannot be the source of a "
                                      f"connect ({name!r})"))
        if src.kind in BINARY_KINDS and kind != "full":
            errors.append((d.kind.loc, f"a {src.kind} layer can only be the source of full "
                                       f"connects; {name!r} is {kind}"))
        from .frames import PLASTICITIES, plasticity
        if d.more:
            first = d.generator.name.text if d.generator is not None else None
            extra = d.more[0].name.text
            if first in PLASTICITIES:
                why = (f"takes one plasticity: {extra}() would update the weights {first}() "
                       f"updates (the plasticities of a frame update disjoint parameter sets)")
            elif extra in PLASTICITIES:
                why = (f"is {kind}: {extra}() is a plasticity, named after a full connect "
                       f"only (a {kind} connect keeps its weights under schedule stream)")
            else:
                why = (f"takes one generator, not {extra}() after "
                       + (f"{first}()" if first else "its pair list"))
            errors.append((d.more[0].name.loc, f"connect {name!r} {why}"))
        if (kind == "full" and d.generator is not None
                and d.generator.name.text in PLASTICITIES):
            c.plasticity = plasticity(d.generator, errors)
        elif kind != "sparse" and (d.pairs is not None or d.generator is not None):
            errors.append((d.kind.loc, f"a {kind} connect takes no pair list or generator"))
        elif kind == "bus" and None not in (src.size, dst.size) and src.size != dst.size:
            errors.append((d.kind.loc, f"bus connect {name!r} joins layers of different sizes "
                                       f"({src.name!r} has {src.size} units, {dst.name!r} has {dst.size})"))
        elif kind == "sparse":
            _sparse(d, c, src, dst, errors)
    return out


def _sparse(d, c: Connect, src: Layer, dst: Layer, errors: list) -> None:
    if d.pairs is None and d.generator is None:
        errors.append((d.kind.loc, "a sparse connect needs a pair list [s -> d, ...] or a "
                                   "generator: local(width, stride) or random(fan_in, seed)"))
    elif None in (src.size, dst.size) or not d.ok:
        return                                  # already reported
    elif d.pairs is not None:
        if not d.pairs:
            errors.append((d.kind.loc, "a sparse connect needs at least one pair"))
        c.pairs = explicit_pairs(d.pairs, src.name, src.size, dst.name, dst.size, errors)
    else:
        c.pairs, c.generator = generate(d.generator, src.name, src.size, dst.name, dst.size, errors)


def _graph(layers: dict[str, Layer], connects: list[Connect], inputs: list, outputs: list,
           errors: list, cycles_legal: bool = False) -> list:
    """The graph checks; returns the cycles (text, place) when they are
    legal (schedule stream), else reports them."""
    succ: dict[str, list[Connect]] = {n: [] for n in layers}
    pred: dict[str, list[str]] = {n: [] for n in layers}
    for c in connects:
        succ[c.src].append(c)
        pred[c.dst].append(c.src)
    found = []
    for cycle, c in _cycles(list(layers), succ):
        text = " -> ".join(cycle + [cycle[0]])
        if cycles_legal:
            found.append((text, c.loc))
        else:
            errors.append((c.loc, f"the network has a cycle: {text}"))
    if not inputs or not outputs:
        return found
    fed = reachable(inputs, lambda n: [c.dst for c in succ[n]])
    feeds = reachable(outputs, lambda n: pred[n])
    for n, lay in layers.items():
        if lay.kind in INPUT_KINDS:
            if n not in feeds:
                errors.append((lay.loc, f"input layer {n!r} does not lead to an output"))
            continue
        if n not in fed:
            errors.append((lay.loc, f"layer {n!r} is not reached from an input "
                                    f"(no path from an input layer leads to it)"))
        elif n not in feeds:
            errors.append((lay.loc, f"layer {n!r} does not lead to an output"))
    return found


def _cycles(names: list[str], succ: dict[str, list[Connect]]):
    """One cycle per strongly connected component that has one: the walk
    from the component's earliest-defined layer along the earliest-defined
    connects that stay in it.  Yields (layers of the cycle, the connect
    leaving its first layer)."""
    for comp in _components(names, succ):
        start = min(comp, key=names.index)
        if len(comp) == 1 and not any(c.dst == start for c in succ[start]):
            continue
        path, steps, n = [], [], start
        while n not in path:
            path.append(n)
            c = next(c for c in succ[n] if c.dst in comp)
            steps.append(c)
            n = c.dst
        i = path.index(n)
        yield path[i:], steps[i]


def _components(names: list[str], succ: dict[str, list[Connect]]) -> list[set]:
    """Strongly connected components (Tarjan), iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set = set()
    comps = []
    for root in names:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            n, i = work.pop()
            if i == 0:
                index[n] = low[n] = len(index)
                stack.append(n)
                on.add(n)
            if i < len(succ[n]):
                work.append((n, i + 1))
                m = succ[n][i].dst
                if m not in index:
                    work.append((m, 0))
                elif m in on:
                    low[n] = min(low[n], index[m])
                continue
            if low[n] == index[n]:
                comp = set()
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.add(m)
                    if m == n:
                        break
                comps.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[n])
    return comps


def _error_function(error: str, loc: Loc | None, layers: dict[str, Layer], outputs: list,
                    errors: list, transfers: dict) -> None:
    for n in outputs:
        kind = layers[n].kind
        if kind in (None, "threshold") or kind in INPUT_KINDS or kind in _ERROR_OUTPUTS[error]:
            continue                    # (a threshold output is reported by _net)
        if kind in transfers:
            if error != "mse":
                errors.append((loc or layers[n].loc, f"error {error} needs sigmoid or softmax "
                               f"outputs; output {n!r} is the transfer function {kind} (use mse)"))
            continue
        where = loc or layers[n].loc
        if kind == "softmax":
            how = "is set to" if loc else "is by default"
            errors.append((where, f"softmax output {n!r} needs error cross_entropy (error {how} {error})"))
        else:
            errors.append((where, f"error {error} needs sigmoid or softmax outputs; "
                                  f"output {n!r} is {kind}"))


def _format(errors: list, files: list[str]) -> list[str]:
    order = {f: i for i, f in enumerate(files)}
    errors = sorted(errors, key=lambda e: (order.get(e[0].file, len(order)), e[0].line, e[0].col))
    return [f"{loc}: error: {msg}" for loc, msg in errors]
