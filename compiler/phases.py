"""Phases (SINGA's ``exclude``): layers and connects left out of the
training, validation or test net (docs/network-language.md, "Phases").

    layer aux: sigmoid 4 bias exclude valid, test     # an auxiliary output
    connect h -> y exclude train                      # only when evaluating

The net of a phase is the main net without what is excluded from it: its
layers are the others, its connects those not excluded whose two layers
are both kept, its outputs the main net's kept outputs.  The training net
trains every pattern (forward, backward, updates of its own connects and
biases only); after every epoch the training set is evaluated by the
training net, the validation set (``--valid``) by the validation net and
the test set by the test net.  Losses and accuracies of a phase are over
its own outputs.  A phase net is a :class:`~rapsim.compiler.nets.SubNet`;
``Network.phases`` holds one per phase that differs from the main net.

The program has one code path per distinct net: the training pattern
runs the training net's; the evaluation pass branches on the pattern's
row (the host writes where the validation and test patterns start,
``hv_phase_bounds``) to the net of its phase, and an output layer that net
does not hold logs zeros (its columns are not read for that phase).
"""
from __future__ import annotations

from .ir import INPUT_KINDS, Loc
from .nets import SubNet, _order, _reached

#: the phases, in the order their sets are evaluated
PHASES = ("train", "valid", "test")


def read(words, loc: Loc, what: str, errors: list) -> tuple[str, ...]:
    """The phases of one ``exclude`` (its words): known, each once, not all
    three."""
    out: list[str] = []
    for w in words:
        if w.text not in PHASES:
            errors.append((w.loc, f"{what}: unknown phase {w.text!r} in exclude (expected "
                                  f"{', '.join(PHASES)})"))
        elif w.text in out:
            errors.append((w.loc, f"{what}: phase {w.text!r} is excluded twice"))
        else:
            out.append(w.text)
    if len(out) == len(PHASES):
        errors.append((loc, f"{what} is excluded from every phase: leave it out of the "
                            f"description instead"))
    return tuple(out)


def build(layer_decls, connect_decls, layers: dict, connects: list, inputs: list,
          outputs: list, errors: list, several_nets: bool) -> tuple[dict, list]:
    """The phase nets that differ from the main net, by phase, and the
    exclusions as written: (kind "layer" or "connect", name, phases, loc).
    Problems go to ``errors``."""
    excluded: list[tuple[str, str, tuple, Loc]] = []
    for d in layer_decls:
        if d.exclude is not None and d.name.text in layers:
            words, loc = d.exclude
            ph = read(words, loc, f"layer {d.name.text!r}", errors)
            if layers[d.name.text].kind in INPUT_KINDS:
                errors.append((loc, f"input layer {d.name.text!r} cannot be excluded: every "
                                    f"phase reads the pattern records, which hold all inputs"))
                continue
            excluded.append(("layer", d.name.text, ph, loc))
    names = {c.name for c in connects}
    for d in connect_decls:
        name = f"{d.src.text}->{d.dst.text}"
        if d.exclude is not None and name in names:
            words, loc = d.exclude
            excluded.append(("connect", name, read(words, loc, f"connect {name}", errors), loc))
    if not excluded:
        return {}, []
    if several_nets:
        errors.append((excluded[0][3], "phases (exclude) are not supported with several nets"))
        return {}, excluded
    nets = {}
    for phase in PHASES:
        gone_layers = {n for k, n, ph, _ in excluded if k == "layer" and phase in ph}
        gone_connects = {n for k, n, ph, _ in excluded if k == "connect" and phase in ph}
        if not gone_layers and not gone_connects:
            continue
        members = [n for n in layers if n not in gone_layers]
        keep = set(members)
        net = SubNet(phase, [n for n in inputs if n in keep],
                     [n for n in members if n not in inputs and n not in outputs],
                     [n for n in outputs if n in keep])
        net.connects = [i for i, c in enumerate(connects) if c.name not in gone_connects
                        and c.src in keep and c.dst in keep]
        # an input that feeds nothing in this phase is simply not read
        net.inputs = [n for n in net.inputs if any(connects[i].src == n for i in net.connects)]
        loc = next(l for k, n, ph, l in excluded if phase in ph)
        if not net.outputs:
            errors.append((loc, f"the {phase} net has no output layer left: every output is "
                                f"excluded from {phase}"))
            continue
        for i in net.connects:
            c = connects[i]
            if c.share is not None and c.share not in {connects[j].name for j in net.connects}:
                errors.append((loc, f"the {phase} net holds connect {c.name} but not {c.share}, "
                                    f"whose weights it shares"))
        problems: list = []
        if not _reached(net, connects, problems, loc):
            for ploc, msg in problems:
                errors.append((ploc, msg.replace(f"net {phase!r}", f"the {phase} net")
                               + f" (what it depends on is excluded from {phase})"))
            continue
        net.forward_order = _order(list(layers), keep, [connects[i] for i in net.connects])
        net.backward_order = net.forward_order[::-1]
        nets[phase] = net
    return nets, excluded


def of(network, phase: str):
    """The net of ``phase`` (a SubNet), or None when it is the main net."""
    return (getattr(network, "phases", None) or {}).get(phase)


def refuse(network, what: str, error=None) -> None:
    """Raise ``error`` (a RapError class taking a message and a place;
    default RapError) naming the first exclusion: ``what`` (a mapping, the
    inference image, a streamed database) does not support phases."""
    ex = getattr(network, "exclusions", None) or []
    if not (ex and getattr(network, "phases", None)):
        return
    kind, name, ph, loc = ex[0]
    label = f"layer {name!r}" if kind == "layer" else f"connect {name}"
    message = (f"{label} is excluded from {', '.join(ph)} (exclude): phases are supported "
               f"by {what}")
    if error is None:
        from rapsim.errors import RapError
        raise RapError(f"{loc}: error: {message}")
    raise error(message, loc)
