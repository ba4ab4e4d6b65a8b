"""Several nets over one pool of layers and connects (CLONES' Net): the
first ``net`` block of a description is the *main* net -- every layer, every
connect, the inputs and outputs of the pattern database, the net that is
evaluated; each further block names a *sub-net*: a part of the pool, with
its own input, hidden and output layers and its own forward and backward
orders (``Net_order``), trained in turn with the main net
(docs/network-language.md, "Several nets").

A connect belongs to every net that holds both of its layers; its weights
live once on the machine, so what one net learns the others use.  Training
alternates the nets as the ``train`` block says: ``alternate epoch`` (the
default) trains net ``e mod k`` in epoch ``e``; ``alternate pattern`` the net
``i mod k`` for the ``i``-th training pattern of every epoch (``k`` nets, in
the order written, the main net first).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from .ir import INPUT_KINDS, Loc

__all__ = ["SubNet", "build_subnets", "net_of_pattern", "ALTERNATE"]

#: the values of the ``alternate`` training setting
ALTERNATE = ("epoch", "pattern")


@dataclass
class SubNet:
    """A net of the pool other than the main one."""
    name: str
    inputs: list[str]
    hidden: list[str]
    outputs: list[str]
    #: the connects of the pool (indices into Network.connects) whose two
    #: layers are both in this net
    connects: list[int] = field(default_factory=list)
    forward_order: list[str] = field(default_factory=list)
    backward_order: list[str] = field(default_factory=list)
    loc: Loc | None = None

    @property
    def layers(self) -> list[str]:
        return self.forward_order


def net_of_pattern(alternate: str, nets: int, epoch: int, index: int) -> int:
    """Which net (0: the main one, 1.. the sub-nets in the order written)
    trains the ``index``-th training pattern (from 0) of ``epoch``."""
    if nets <= 1:
        return 0
    return (epoch if alternate == "epoch" else index) % nets


def build_subnets(decls, layers: dict, connects: list, main_inputs: list, main_outputs: list,
                  roles_of, errors: list) -> list[SubNet]:
    """The checked sub-nets of the ``net`` blocks after the first.
    ``roles_of(decl)`` reads a block's input/hidden/output lists (reporting
    unknown layers and repeats).  Problems go to ``errors``."""
    out: list[SubNet] = []
    names = set()
    for d in decls:
        name = d.name.text
        if name in names:
            errors.append((d.name.loc, f"net {name!r} is already defined"))
            continue
        names.add(name)
        roles = roles_of(d)
        net = SubNet(name, roles["input"], roles["hidden"], roles["output"], loc=d.name.loc)
        ok = True
        for n in net.inputs:
            if n not in main_inputs:
                errors.append((d.name.loc, f"net {name!r}: input {n!r} is not an input of the "
                                           f"main net (a sub-net reads the main net's patterns)"))
                ok = False
        for n in net.outputs:
            if n not in main_outputs:
                errors.append((d.name.loc, f"net {name!r}: output {n!r} is not an output of the "
                                           f"main net (a sub-net learns the main net's targets)"))
                ok = False
        for n in net.hidden:
            if layers[n].kind in INPUT_KINDS:
                errors.append((d.name.loc, f"net {name!r}: hidden layer {n!r} is an input layer"))
                ok = False
        written = {role.text for role, names in d.entries if names}
        if not {"input", "output"} <= written:
            errors.append((d.name.loc, f"net {name!r} needs input and output layers"))
            ok = False
        elif not net.inputs or not net.outputs:
            ok = False                          # an unknown layer, reported already
        if not ok:
            continue
        members = set(net.inputs) | set(net.hidden) | set(net.outputs)
        net.connects = [i for i, c in enumerate(connects)
                        if c.src in members and c.dst in members]
        if not _reached(net, connects, errors, d.name.loc):
            continue
        net.forward_order = _order(list(layers), members, [connects[i] for i in net.connects])
        net.backward_order = net.forward_order[::-1]
        out.append(net)
    return out


def _reached(net: SubNet, connects: list, errors: list, loc: Loc) -> bool:
    """Every layer of the net on a path from its inputs to its outputs
    through its own connects."""
    arcs = [(connects[i].src, connects[i].dst) for i in net.connects]
    fed = reachable(net.inputs, lambda n: [b for a, b in arcs if a == n])
    feeds = reachable(net.outputs, lambda n: [a for a, b in arcs if b == n])
    ok = True
    for n in net.hidden + net.outputs:
        if n not in fed:
            errors.append((loc, f"net {net.name!r}: layer {n!r} is not reached from the net's "
                                f"inputs through its connects"))
            ok = False
    for n in net.inputs + net.hidden:
        if n not in feeds:
            errors.append((loc, f"net {net.name!r}: layer {n!r} does not lead to the net's "
                                f"outputs through its connects"))
            ok = False
    return ok


def reachable(start: list, nexts) -> set:
    """The nodes reached from ``start`` (itself included) by following
    ``nexts(node)`` (the main net's check and every sub-net's use it)."""
    seen = set(start)
    stack = list(start)
    while stack:
        for m in nexts(stack.pop()):
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return seen


def _order(names: list[str], members: set, connects: list) -> list[str]:
    """Net_order of a sub-net: the main net's rule (of the layers whose
    sources are placed, the earliest defined first) on its own graph."""
    index = {n: i for i, n in enumerate(names)}
    pending = {n: 0 for n in names if n in members}
    for c in connects:
        pending[c.dst] += 1
    ready = [index[n] for n, k in pending.items() if k == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        n = names[heapq.heappop(ready)]
        order.append(n)
        for c in connects:
            if c.src == n:
                pending[c.dst] -= 1
                if pending[c.dst] == 0:
                    heapq.heappush(ready, index[c.dst])
    return order
