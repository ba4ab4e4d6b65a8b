"""Behaviours (CLONES' hooks): code that runs before and after training,
each epoch, each forward and backward pass, per net or per layer, either as
a **user assembly routine** linked into the image or as a **host callback**
(Python API) served through a host call that stops the nodes at that point
(docs/network-language.md, "behaviour"; docs/compiler.md, "Behaviours").

In a description::

    behaviour after_backward call _clip "clip.asm"     # every training pattern
    behaviour after_forward h call _noise "noise.asm"  # layer h, after its forward step
    behaviour before_backward short call _f "f.asm"    # the patterns of net 'short' only

From Python (``rapsim.compiler.train.train(..., callbacks={...})``)::

    def look(ctx):                       # a HookContext
        w = ctx.weights()                # read back from the nodes
        ctx.set_weights(w)               # written into every node
        ctx.activations("h"); ctx.set_activations("h", values)
        if ctx.epoch == 3:
            ctx.stop()                   # training ends here, results kept
    train(net, data, callbacks={"after_epoch": look, ("after_forward", "h"): look})

Events: ``before_training``, ``after_training``, ``before_epoch``,
``after_epoch`` (after the epoch's evaluation pass; with a net's name, the
epochs that train that net), and for every training
pattern ``before_forward``, ``after_forward``, ``before_backward``,
``after_backward`` -- of the whole pass (of every net, or, with a net's
name, of that net's patterns), or, with a layer, of that layer's step of
the pass.  The evaluation pass runs no forward hooks.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .ir import Loc

__all__ = ["EVENTS", "LAYER_EVENTS", "EPOCH_EVENTS", "BehaviourDecl", "Behaviour", "build_behaviours",
           "HookPoint", "hook_points", "HookContext", "HookHost", "SYS_HOOK"]

#: every event, in the order they happen
EVENTS = ("before_training", "before_epoch", "before_forward", "after_forward",
          "before_backward", "after_backward", "after_epoch", "after_training")
#: the events that may name a layer or a net
LAYER_EVENTS = ("before_forward", "after_forward", "before_backward", "after_backward")
#: the events that may name a net only
EPOCH_EVENTS = ("before_epoch", "after_epoch")

#: the host-call service of host callbacks (docs/syscalls.md)
SYS_HOOK = 13


@dataclass
class BehaviourDecl:
    """``behaviour EVENT [LAYER] call ROUTINE "FILE"`` as read."""
    words: list[tuple[str, Loc]]
    file: tuple[str, Loc] | None
    loc: Loc
    base_dir: str


@dataclass
class Behaviour:
    """A checked user assembly routine at a hook point."""
    event: str
    layer: str | None
    routine: str
    asm: str                    # the path of its assembly file
    loc: Loc | None = None
    routine_loc: Loc | None = None
    net: str | None = None      # a pass event of one net only


def _target(name: str, layers, nets) -> tuple[str | None, str | None, str | None]:
    """(layer, net, error) of the name an event is given."""
    if name in layers and name in nets:
        return None, None, (f"{name!r} is both a layer and a net: rename one of them to hook "
                            f"it")
    if name in layers:
        return name, None, None
    if name in nets:
        return None, name, None
    return None, None, f"unknown layer or net {name!r}"


def _named(event: str, name: str, layers, nets) -> str | None:
    """What is wrong with giving ``event`` the layer or net ``name``."""
    if event not in LAYER_EVENTS + EPOCH_EVENTS:
        return (f"event {event} takes no layer or net (only {', '.join(LAYER_EVENTS)} do, "
                f"and {', '.join(EPOCH_EVENTS)} a net)")
    layer, net, problem = _target(name, layers, nets)
    if problem:
        return problem
    if event in EPOCH_EVENTS and layer is not None:
        return f"event {event} takes a net, not a layer ({name!r})"
    return None


def build_behaviours(decls: list[BehaviourDecl], layers: dict, errors: list,
                     nets: list[str] = ()) -> list[Behaviour]:
    """Check the behaviour statements against the layers and the nets'
    names; problems go to ``errors`` as ``(loc, message)``."""
    out = []
    for d in decls:
        words = list(d.words)
        event, eloc = words.pop(0)
        if event not in EVENTS:
            errors.append((eloc, f"unknown event {event!r} (expected {', '.join(EVENTS)})"))
            continue
        layer = net = None
        if words and words[-1][0] == "host":
            errors.append((words[-1][1], "expected 'call ROUTINE \"FILE\"': host callbacks are "
                                         "given from Python (rapsim.compiler.train.train(..., "
                                         "callbacks=...))"))
            continue
        if words and words[0][0] != "call":
            name, lloc = words.pop(0)
            problem = _named(event, name, layers, nets)
            if problem:
                errors.append((lloc, problem))
                continue
            layer, net, _ = _target(name, layers, nets)
        if not words or words[0][0] != "call":
            errors.append((words[0][1] if words else eloc,
                           "expected 'call ROUTINE \"FILE\"' (host callbacks are given from "
                           "Python: rapsim.compiler.train.train(..., callbacks=...))"))
            continue
        if len(words) != 2:
            errors.append((words[0][1], "call takes one routine name and a file name in quotes"))
            continue
        routine, rloc = words[1]
        if d.file is None:
            errors.append((rloc, f"call {routine}: the assembly file that defines it is missing "
                                 f"(call {routine} \"FILE.asm\")"))
            continue
        rel, floc = d.file
        path = os.path.normpath(os.path.join(d.base_dir, rel))
        if not os.path.isfile(path):
            what = "a folder, not a file" if os.path.isdir(path) else "no such file"
            errors.append((floc, f"cannot read {rel!r}: {what} ({path})"))
            continue
        out.append(Behaviour(event, layer, routine, path, d.loc, rloc, net))
    return out


@dataclass(frozen=True)
class HookPoint:
    """Where a host callback runs: an event, and for the pass events a
    layer (its step) or a net (its patterns only); neither: every pass."""
    event: str
    layer: str | None = None
    net: str | None = None


def hook_points(callbacks: dict, network) -> dict[HookPoint, Callable]:
    """``callbacks`` (keys: an event name, or ``(event, layer or net)``)
    as hook points, checked against the network; raises ValueError for a
    bad key."""
    nets = [network.name] + [s.name for s in network.nets]
    out = {}
    for key, fn in (callbacks or {}).items():
        event, layer = key, None
        if not isinstance(key, str):
            if not isinstance(key, tuple) or len(key) != 2:
                raise ValueError(f"callback key {key!r}: an event name or (event, layer)")
            event, layer = key
        if event not in EVENTS:
            raise ValueError(f"callback for unknown event {event!r} (expected "
                             f"{', '.join(EVENTS)})")
        net = None
        if layer is not None:
            name = layer
            problem = _named(event, name, network.layers, nets)
            if problem:
                raise ValueError(f"callback ({event!r}, {name!r}): {problem}")
            layer, net, _ = _target(name, network.layers, nets)
            if layer is not None and network.layers[layer].kind in ("input", "binary"):
                raise ValueError(f"callback ({event!r}, {layer!r}): {layer} is an input layer, "
                                 f"which has no forward or backward step")
        if not callable(fn):
            raise ValueError(f"callback for {key!r} is not callable")
        out[HookPoint(event, layer, net)] = fn
    return out


@dataclass
class HookContext:
    """What a host callback gets: where the machine stopped and access to
    every node's memory through the training host."""
    point: HookPoint
    epoch: int                  # the epoch (from 0); -1 before training
    pattern: int                # the training pattern being run (its row), or -1
    sim: object
    host: object                # rapsim.compiler.host.TrainingHost
    stop_requested: bool = False
    #: the net whose pattern is being trained (the main net's name outside
    #: the pattern loop)
    net: str = ""

    @property
    def event(self) -> str:
        return self.point.event

    @property
    def layer(self) -> str | None:
        return self.point.layer

    @property
    def params(self) -> dict:
        """The description's parameters as resolved (``param`` values after
        ``-P`` overrides): CLONES' Param table, read-only."""
        return dict(self.host.plan.network.params)

    def weights(self):
        """Every connect's weights and every bias, read back from the nodes
        (:class:`rapsim.compiler.reference.Weights`)."""
        return self.host.read_weights(self.sim)

    def set_weights(self, weights) -> None:
        """Write ``weights`` (all of them, as :meth:`weights` gives them)
        into the nodes; the momentum terms are kept.  ValueError names a
        connect or bias that is missing or of the wrong shape."""
        now = self.weights()
        for group in ("connects", "biases"):
            have, given = getattr(now, group), getattr(weights, group)
            for key, v in have.items():
                if key not in given:
                    raise ValueError(f"set_weights: {group} {key!r} is missing")
                if np.shape(given[key]) != v.shape:
                    raise ValueError(f"set_weights: {group} {key!r} has shape "
                                     f"{np.shape(given[key])}, not {v.shape}")
        self.host.write_weights(self.sim, weights, keep_momentum=True)

    def _act(self, layer: str):
        plan = self.host.plan
        if layer not in plan.layers:
            raise ValueError(f"unknown layer {layer!r}")
        lp = plan.layers[layer]
        if lp.act is None:
            raise ValueError(f"layer {layer!r} is a binary input: the nodes hold it as an index "
                             "list in the input record, not as activations")
        return lp

    def activations(self, layer: str) -> np.ndarray:
        """The layer's current activations, the whole layer."""
        lp = self._act(layer)
        addr = self.host.program.image.symbols[lp.act.name]
        if lp.gathered:
            return self.sim.read_floats(addr, lp.layer.size, node=0)
        sp = lp.split
        return np.concatenate([self.sim.read_floats(addr, sp.rows(k), node=k)
                               for k in range(sp.nodes)])

    def set_activations(self, layer: str, values) -> None:
        """Replace the layer's activations (the whole layer) on every node
        that holds them."""
        lp = self._act(layer)
        v = np.asarray(values, dtype=np.float64).ravel()
        if v.shape != (lp.layer.size,):
            raise ValueError(f"layer {layer!r} has {lp.layer.size} units, not {v.size} values")
        addr = self.host.program.image.symbols[lp.act.name]
        if lp.gathered:
            self.sim.write_floats(addr, v)
            return
        sp = lp.split
        for k in range(sp.nodes):
            if sp.rows(k):
                self.sim.write_floats(addr, v[sp.lo(k):sp.lo(k) + sp.rows(k)], node=k)

    def stop(self) -> None:
        """End training at this point; the weights and the statistics of the
        finished epochs are kept (``TrainResult.stopped_by == "behaviour"``)."""
        self.stop_requested = True


@dataclass
class HookHost:
    """Serves the HOOK host calls (service 13): ``HOOK(point, epoch, net)``.
    Every node calls at every hook point after a barrier (so all are there);
    the callback runs at the first node's call, with every node stopped at
    that point, and its answer (1: stop) is cached for the others, keyed by
    the point and the node's count of calls there."""
    points: list[HookPoint]
    callbacks: dict[HookPoint, Callable]
    host: object
    calls: dict = field(default_factory=dict)           # (node, point) -> count
    answers: dict = field(default_factory=dict)         # (point, count) -> 0/1
    stopped: HookPoint | None = None
    stopped_epoch: int = -1
    log: list = field(default_factory=list)             # (point, epoch, node cycle)

    def serve(self, sim, node: int, args: list[int], extra: dict) -> int:
        from rapsim.daemon import DaemonError
        i, epoch, k = args[0], args[1], args[2]
        if not 0 <= i < len(self.points):
            raise DaemonError(errno.EINVAL, f"unknown hook point {i}")
        point = self.points[i]
        n = self.calls.get((node, i), 0)
        self.calls[(node, i)] = n + 1
        key = (i, n)
        if key not in self.answers:
            # the run's epoch (a resumed run goes on from its saved epochs)
            epoch = epoch + self.host.first_epoch if point.event != "before_training" else -1
            pattern = -1
            if point.event not in ("before_training", "after_training", "before_epoch",
                                   "after_epoch"):
                pattern = self.host.current_row(sim, node)
            network = self.host.plan.network
            names = [network.name] + [s.name for s in network.nets]
            ctx = HookContext(point, epoch, pattern, sim, self.host,
                              net=names[k] if 0 <= k < len(names) else network.name)
            self.log.append((point, epoch, sim.core.cycle(node)))
            self.callbacks[point](ctx)
            self.answers[key] = int(ctx.stop_requested and point.event != "after_training")
            if self.answers[key]:
                self.stopped, self.stopped_epoch = point, epoch
        return self.answers[key]
