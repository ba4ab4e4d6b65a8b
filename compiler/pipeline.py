"""The schedule of a mapping (issue 14; the design frame is
../shared/MAPPINGS.md, "Schedule"): when each node group works on what.

``lockstep``
    today's: every node runs every layer of one pattern in forward order
    (the groups take turns within a pattern); the default, and the same
    program, word for word, as before schedules existed.
``pipeline``
    Skynet's tick model (../shared/seeds/skynet.txt, section III.E): the
    layers on consecutive node groups (the ``layers`` placement); in each
    tick every group computes its layer for a different pattern from what
    its sources held at the end of the previous tick, and then one round of
    all-gathers passes every group's outputs downstream.  A pattern entered
    at tick t is at stage s (the s-th layer of the chain) at tick t + s - 1
    and leaves the output stage at tick t + S - 1; S - 1 ticks fill the
    pipeline and S - 1 drain it.  Training runs in the pipeline too
    (compiler/pipeline_gen.py): in each tick every stage also takes one
    pattern backward, the error signals travelling one stage upstream a
    tick, so stage s updates its weights for a pattern 2 (S - s) ticks
    after its forward step for it: that forward step ran 2 (S - s) updates
    behind (the staleness rule; compiler/pipeline_reference.py is its
    numpy reference).
``stream``
    Statestream's layerwise-parallel frames, with local plasticities and
    the back-propagated loss over a window of frames (compiler/frames.py,
    frames_gen.py, frames_loss.py).

Where it comes from, lowest priority first: lockstep; ``schedule NAME`` in
the description's net block; ``--schedule NAME`` of ``rap cc``, ``rap
train`` and ``rap bench``.  docs/compiler.md, "Schedules", is the user
guide.
"""
from __future__ import annotations

from dataclasses import dataclass

from .ir import INPUT_KINDS, Network
from .mapping import SCHEDULES, Mapping, MappingError, _refuse_clones, layer_groups


@dataclass(frozen=True)
class Stages:
    """The pipeline's stages: ``of[layer]`` is 1 for the layers fed only by
    inputs, s + 1 for those fed by stage s (inputs: 0); ``depth`` = S."""
    of: dict
    depth: int

    @property
    def fill(self) -> int:
        """Ticks before the first pattern leaves the output stage."""
        return self.depth - 1

    @property
    def drain(self) -> int:
        """Ticks after the last pattern entered, until it leaves."""
        return self.depth - 1

    def layers(self, s: int) -> list[str]:
        return [n for n, k in self.of.items() if k == s]


def stages(network: Network) -> Stages:
    """The stage of every layer of a pipeline; raises :class:`MappingError`
    naming the connect that skips a stage (its source and destination would
    carry patterns of different ticks)."""
    of: dict[str, int] = {}
    for name in network.forward_order:
        if network.layers[name].kind in INPUT_KINDS:
            of[name] = 0
        else:
            of[name] = 1 + max((of[c.src] for c in network.incoming(name)), default=0)
    for c in network.connects:
        if of[c.dst] != of[c.src] + 1:
            raise MappingError(f"schedule pipeline: connect {c.name} joins stage {of[c.src]} "
                               f"({c.src}) to stage {of[c.dst]} ({c.dst}): in a pipeline every "
                               f"connect joins consecutive stages (inputs are stage 0), else its "
                               f"two ends hold patterns of different ticks", c.loc)
    return Stages({n: k for n, k in of.items() if k > 0}, max(of.values(), default=0))


def choose(network: Network, option: str | None) -> tuple[str, str]:
    """(schedule, source): ``--schedule`` wins over the description's."""
    if option is not None:
        if option not in SCHEDULES:
            raise MappingError(f"unknown schedule {option!r} (expected {', '.join(SCHEDULES)})")
        return option, "--schedule"
    if network.schedule is not None:
        return network.schedule, "description"
    return "lockstep", "default"


def _where(source: str, network: Network) -> str:
    if source == "--schedule":
        return "--schedule"
    return f"{network.schedule_loc}: the description's schedule"


def apply_schedule(network: Network, mapping: Mapping, option: str | None = None) -> Mapping:
    """Set ``mapping``'s schedule from ``option`` (``--schedule``) or the
    description, and what it needs: a pipeline puts the layers on
    consecutive node groups when no mapping was asked for (the ``layers``
    placement), and refuses any other placement than layers on groups, a
    network whose connects skip a stage, and the CLONES constructs.
    Returns the mapping (changed in place)."""
    name, source = choose(network, option)
    mapping.schedule, mapping.schedule_source = name, source
    loc = network.schedule_loc if source == "description" else None
    if name != "stream":
        if network.cycles:
            text, where = network.cycles[0]
            raise MappingError(f"the network has a cycle: {text}: cycles are legal under "
                               f"schedule stream only, not {name} ({_where(source, network)})",
                               where)
        rule = next((c for c in network.connects if c.plasticity is not None), None)
        if rule is not None:
            raise MappingError(f"connect {rule.name}: {rule.plasticity['rule']}() is a local "
                               f"plasticity of schedule stream, not of {name}", rule.loc)
    if name == "lockstep":
        return mapping
    shared = next((c for c in network.connects if getattr(c, "share", None)), None)
    if shared is not None:
        raise MappingError(f"connect {shared.name} shares {shared.share}'s weights "
                           f"(share_from): parameter sharing runs under schedule lockstep only, "
                           f"not {name}", getattr(shared, "share_loc", None) or shared.loc)
    from .phases import refuse
    refuse(network, f"schedule lockstep only, not {name}", MappingError)
    if name == "stream":
        from .frames import check_stream
        check_stream(network, mapping)
        return mapping
    # pipeline
    if mapping.name == "rows" and mapping.source == "default":
        mapping.name, mapping.source = "layers", "schedule pipeline"
        mapping.layers = layer_groups(network, mapping.nodes)
        _refuse_clones(network, mapping)
    elif mapping.name not in ("layers", "rows") or (
            mapping.name == "rows" and mapping.nodes > 1):
        asked = ("--mapping " + mapping.name if mapping.source == "--mapping"
                 else f"the description's placement attributes (the {mapping.name} mapping)")
        raise MappingError(f"schedule pipeline ({_where(source, network)}) runs layers on "
                           f"consecutive node groups (the layers mapping), not {asked}", loc)
    stages(network)
    return mapping


def slots(network: Network) -> int:
    """Stash slots of a pipelined training pass: stage s keeps what it
    computed for a pattern 2 (S - s) ticks, so 2 S - 1 slots, indexed by
    the tick modulo 2 S - 1, hold every stage's."""
    return 2 * stages(network).depth - 1


def stash_buffers(plan) -> list:
    """The pipelined training's stashes (:func:`slots` slots each): every
    layer's own slice of its activations, every connect's whole source
    vector as the forward pass read it, and the pattern of each tick."""
    from .lower import Buffer
    m = slots(plan.network)
    out = [Buffer("pst_cur", m, "table", role="pipeline: the pattern of each tick")]
    for name in plan.forward:
        lp = plan.layers[name]
        out.append(Buffer(f"pst_y_{name}", m * max(lp.split.max_rows, 1), "table",
                          role=f"pipeline: {name}'s own activations, {m} ticks"))
    for cp in plan.connects:
        size = plan.layers[cp.connect.src].layer.size
        out.append(Buffer(f"pst_x{cp.index}", m * size, "table",
                          role=f"pipeline: {cp.connect.name}'s source, {m} ticks"))
    return out


def describe(mapping: Mapping, network: Network) -> str:
    """The schedule's line for reports ("" under lockstep)."""
    if mapping.schedule == "lockstep":
        return ""
    if mapping.schedule == "stream":
        F = network.training.frames
        rules = [f"{c.name} {c.plasticity['rule']}"
                 + (f"(window={c.plasticity['window']})" if c.plasticity["rule"] == "loss"
                    else "") for c in network.connects if c.plasticity is not None]
        return (f"schedule stream ({mapping.schedule_source}): every layer from the previous "
                f"frame's states, all at once, then one exchange; {F} frame"
                f"{'s' if F > 1 else ''} a pattern, outputs logged every frame; plasticities: "
                f"{', '.join(rules) or 'none'}"
                + (f"; cycles: {'; '.join(t for t, _ in network.cycles)}"
                   if network.cycles else ""))
    st = stages(network)
    groups = "; ".join(
        f"stage {s}: " + ", ".join(f"{n} nodes {mapping.layers[n].first}.."
                                   f"{mapping.layers[n].last}" for n in st.layers(s))
        for s in range(1, st.depth + 1))
    return (f"schedule pipeline ({mapping.schedule_source}): {st.depth} stage"
            f"{'s' if st.depth > 1 else ''} ({groups}); evaluation pipelined, every group on "
            f"a different pattern in each tick, {st.fill} tick{'s' if st.fill != 1 else ''} "
            f"to fill and {st.drain} to drain; training pipelined too, {2 * st.depth - 2} "
            f"ticks to fill and drain, each stage's forward step 2 (S - s) updates behind "
            f"its backward step ({', '.join(f'stage {s}: {2 * (st.depth - s)}' for s in range(1, st.depth + 1))})")


def stage_balance(plan, marks: list, frames: int) -> dict:
    """What the pipelined evaluation passes cost per stage, from each node's
    counters at the TRAIN calls that open and close them (compiler/host.py
    marks): per stage, the busy cycles per tick of its busiest node (the
    phase's span less the cycles it waited on the ring), and the tick as
    measured (the span over the ticks).  ``frames``: ticks per pass (the
    evaluation patterns + fill)."""
    from .codegen import TRAIN_EPOCH, TRAIN_TEST
    st = stages(plan.network)
    m = plan.mapping
    by: dict = {}
    for mk in marks:
        by.setdefault((mk.op, mk.epoch), {})[mk.node] = mk
    busy = [0] * plan.nodes
    span = 0
    passes = 0
    epoch = 0
    while (TRAIN_TEST, epoch) in by:
        start, end = by[(TRAIN_TEST, epoch)], by.get((TRAIN_EPOCH, epoch + 1))
        if end is None or len(start) < plan.nodes or len(end) < plan.nodes:
            break
        passes += 1
        span += max(end[k].cycle for k in end) - min(start[k].cycle for k in start)
        for k in range(plan.nodes):
            a, b = start[k].counters["stalls"], end[k].counters["stalls"]
            waited = sum(b[c] - a[c] for c in b if c.startswith("ring"))
            busy[k] += end[k].cycle - start[k].cycle - waited
        epoch += 1
    ticks = max(frames * passes, 1)
    out = []
    for s in range(1, st.depth + 1):
        names = st.layers(s)
        nodes = sorted({k for n in names for k in range(m.layers[n].first,
                                                         m.layers[n].last + 1)})
        out.append({"stage": s, "layers": names, "nodes": [nodes[0], nodes[-1]],
                    "busy_cycles_per_tick": max(busy[k] for k in nodes) / ticks,
                    "staleness": 2 * (st.depth - s)})
    worst = max((x["busy_cycles_per_tick"] for x in out), default=0.0)
    best = min((x["busy_cycles_per_tick"] for x in out), default=0.0)
    return {"stages": st.depth, "fill_ticks": st.fill, "drain_ticks": st.drain,
            "ticks_per_pass": frames, "train_extra_ticks": 2 * st.depth - 2,
            "cycles_per_tick": span / ticks,
            "balance": best / worst if worst else 1.0, "per_stage": out}
