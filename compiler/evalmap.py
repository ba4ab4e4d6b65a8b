"""A mapping per pass: train on-line with one mapping, evaluate with another
(issue 14; docs/compiler.md, "A mapping per pass").

``--eval-mapping data`` (``rap cc``, ``rap train``, ``rap bench``; the
API's ``eval_mapping``): the training pass runs as the training mapping
(``rows`` or ``columns``) lays it out, unchanged to the instruction; the
evaluation pass of every epoch runs as the ``data`` mapping does -- every
node holds the whole weights and evaluates its own share of the patterns,
with no ring traffic per pattern.  The weights move on the simulated
machine, paid for in simulated cycles, at the start of each evaluation pass
(after the TRAIN(1) call, so the cycles are the evaluation pass's):

* each node copies its training slice of every connect and bias into the
  whole copy at the slice's place (``_vcopy``), then a ring all-gather
  (``_ring_allgather``, or the rotation where --collectives takes it)
  with the training split's slice table scaled by the words a unit:
* a connect split by rows (node k: the rows of its destination units)
  gives the whole W, row-major (``units x source units``);
* a connect split by columns (node k: rows of W^T for its own source
  units) gives the whole W^T, row-major, which the column kernels use
  directly (``_mxtv4w``/``_mxtv2w`` over all the source units on one
  node: lower.columns_kernel; the reference sums in that order,
  :func:`eval_columns`);
* a bias gives the whole bias vector.

The evaluation pass never writes the training slices, so the next
training pass continues from them: training is bit for bit that of the
training mapping alone.

**Choices** (what the issue leaves open): the evaluation mapping may be
``data`` only; the training mapping ``rows`` or ``columns``, lock-step,
``overlap`` as given; the net's connects full ones from non-binary layers,
not shared; no phases, several nets or behaviours (a behaviour could read
the training layout during evaluation); every whole copy fits a node's
memory beside the training program's (else a clear error saying how many
words are needed and what is free).  Everything else is refused with a
:class:`rapsim.errors.RapError` naming the option.
"""
from __future__ import annotations

from dataclasses import replace

from rapsim.errors import RapError

from .lower import SRAM_RESERVE, LoweringError, Plan, Split, _fill, lower
from .mapping import Mapping, Placement
from rapsim.memmap import ONCHIP_BLOCK_SIZE

#: the evaluation mappings ``--eval-mapping`` takes
EVAL_MAPPINGS = ("data",)
#: the words of ``--eval-mapping`` and of the net block's ``evaluate``:
#: an evaluation mapping, or ``same`` (the training mapping evaluates: the
#: default; on the command line it overrides the description's word)
OPTION_CHOICES = EVAL_MAPPINGS + ("same",)
#: the training mappings an evaluation mapping can follow
TRAIN_MAPPINGS = ("rows", "columns")
#: the evaluation plan's mapping name, for each of EVAL_MAPPINGS
INTERNAL = {"data": "evaldata"}
#: the prefix of the evaluation plan's buffers and per-node values
PREFIX = "ev_"


class EvalMappingError(RapError):
    """An evaluation mapping the compiler cannot build (with the place in
    the description, or the option)."""


def check_name(name: str | None, what: str = "--eval-mapping") -> str | None:
    """The evaluation mapping ``name`` asks for (None or ``same``: None, the
    training mapping evaluates)."""
    if name is None or name == "same":
        return None
    if name not in EVAL_MAPPINGS:
        raise EvalMappingError(f"{what}: {name!r} is not supported (the evaluation pass can be "
                               f"mapped by: {', '.join(OPTION_CHOICES)})")
    return name


def choose(network, option: str | None) -> tuple[str | None, str]:
    """(the evaluation mapping, where it comes from: ``--eval-mapping`` or
    the description's ``file:line:col: evaluate``): the option when given,
    else the net block's ``evaluate NAME``; (None, ...): none."""
    if option is not None:
        return check_name(option), "--eval-mapping"
    word = getattr(network, "eval_mapping", None)
    where = f"{network.eval_mapping_loc}: evaluate" if word is not None else "evaluate"
    return check_name(word, where), where


def check(network, mapping: Mapping, name: str, what: str = "--eval-mapping",
          host_hooks=()) -> None:
    """Refuse what a per-pass mapping does not support (module docstring);
    ``what``: the option or the description's place, for the message."""
    def no(why: str) -> None:
        raise EvalMappingError(f"{what} {name}: {why}")
    if mapping.name not in TRAIN_MAPPINGS:
        no(f"the training mapping is {mapping.name}; an evaluation mapping follows "
           f"{' or '.join(TRAIN_MAPPINGS)} only")
    if mapping.schedule != "lockstep":
        no(f"schedule {mapping.schedule} is not supported (lockstep only)")
    if network.phases:
        no("phases are not supported (the evaluation pass would need a net per phase)")
    if network.nets:
        no("several nets are not supported")
    if network.behaviours or host_hooks:
        no(f"{'behaviours' if network.behaviours else 'host callbacks'} are not supported "
           f"(they may read the training layout during the evaluation pass)")
    for c in network.connects:
        if c.kind != "full":
            no(f"connect {c.name} is {c.kind}: full connects only")
        if c.share is not None:
            no(f"connect {c.name} shares weights: not supported")
        if network.layers[c.src].kind in ("binary", "threshold"):
            no(f"connect {c.name} comes from a {network.layers[c.src].kind} layer: "
               "not supported")


def _whole(size: int, nodes: int) -> Split:
    """Every node holds all ``size`` units; the slice table says one node
    owns them all, so the column kernels are chosen for the whole source
    (lower.columns_kernel)."""
    return Split(size, (0,) + (size,) * nodes, whole=True)


def eval_plan(train: Plan, name: str, source: str = "--eval-mapping") -> Plan:
    """The evaluation pass's plan beside ``train``'s: every layer whole on
    every node, the connects split by columns in training kept as rows of
    W^T, buffers named with :data:`PREFIX`, placed in the memory the
    training plan leaves (on-chip blocks, SRAM, DRAM).  ``source``:
    "--eval-mapping" or "description", for reports."""
    net, n = train.network, train.nodes
    m = train.mapping
    mapping = Mapping(INTERNAL[name], n, {k: Placement(0, n - 1, "patterns") for k in net.layers},
                      source=source, inputs=tuple(net.inputs),
                      columns=tuple(m.columns) if m is not None else ())
    used = {"sram": 0, "dram": 0, "ram0": 0, "ram1": 0, "chip": 0}
    keep = persistent(train)
    for b in train.buffers:
        # on chip, the training pass's scratch vectors are overlaid with the
        # evaluation pass's (buffer_lines): only what persists takes room
        if b.region in ("sram", "dram") or id(b) in keep:
            used[b.region] += b.words
    mem = train.memory
    try:
        left = replace(mem, sram_words=mem.sram_words - used["sram"],
                       dram_words=mem.dram_words - used["dram"])
    except ValueError:
        raise LoweringError(f"{name} evaluation: the training program leaves no SRAM for the "
                            f"whole weights (it uses {used['sram']} of {mem.sram_words} words)") \
            from None
    try:
        ep = lower(net, n, left, mapping)
    except LoweringError:
        need = sum(net.layers[c.dst].size * net.layers[c.src].size for c in net.connects)
        raise LoweringError(
            f"{name} evaluation: the whole weights ({need} words) do not fit a node beside the "
            f"training program: {max(left.sram_words - SRAM_RESERVE, 0)} words of SRAM and "
            f"{left.dram_words} of DRAM are left per node (the training program's buffers take "
            f"{used['sram']} and {used['dram']}); evaluate by the training mapping "
            f"(--eval-mapping same) or give the nodes more memory") from None
    for lp in ep.layers.values():
        lp.split = _whole(lp.layer.size, n)
        # the evaluation pass runs forward only
        lp.delta = lp.err = lp.tmp = lp.bias_m = lp.dwhole = None
    for cp in ep.connects:
        cp.momentum = None
    # the vectors again, into the on-chip words that the training plan's
    # weights and biases leave (its scratch vectors and stage are overlaid:
    # buffer_lines); no stage.  A connect split by columns reads its
    # source's activation once a weight (_mxtv4: e[i]), as _mxv reads x.
    ep.stage = None
    for cp in ep.connects:
        if cp.columns:
            src = ep.layers[cp.connect.src]
            src.act.uses = max(src.act.uses, src.layer.size * net.layers[cp.connect.dst].size)
    vectors = [b for b in ep.buffers if b.kind == "vector"]
    for b in vectors:
        b.staged = False
    _fill(vectors, {r: ONCHIP_BLOCK_SIZE - used[r] for r in ("ram0", "ram1")})
    room = mem.sram_words - SRAM_RESERVE - used["sram"]
    if sum(b.words for b in ep.buffers if b.region == "sram") > room:
        raise LoweringError(f"{name} evaluation: the whole weights and vectors need "
                            f"{sum(b.words for b in ep.buffers if b.region == 'sram')} words of "
                            f"SRAM per node, {room} are left beside the training program")
    for b in ep.buffers:
        b.name = PREFIX + b.name
    ep.collectives = train.collectives
    return ep


def name_of(plan: Plan) -> str | None:
    """The --eval-mapping of ``plan``'s program (None: none)."""
    if plan.eval_plan is None:
        return None
    return next(k for k, v in INTERNAL.items() if v == plan.eval_plan.mapping.name)


def persistent(plan: Plan) -> set[int]:
    """The ids of ``plan``'s buffers whose words live from pattern to
    pattern and pass to pass: weights, momentum, biases and their momentum.
    Every other buffer (activations, net inputs, error signals, partial
    sums, the stage) is written in a pattern before it is read there."""
    out = {id(b) for b in plan.buffers if b.kind in ("matrix", "table")}
    for lp in plan.layers.values():
        out |= {id(b) for b in (lp.bias, lp.bias_m) if b is not None}
    return out


def buffer_lines(plan: Plan) -> list[str]:
    """The buffers of a program with an evaluation plan: in each on-chip
    block the training pass's scratch vectors and the evaluation pass's
    vectors share one block of words (the larger of the two), each a
    ``.set`` into it; everything else as codegen.buffer_line places it."""
    from .codegen import buffer_line
    from .lower import SECTION_OF
    ev = plan.eval_plan.buffers
    own = {id(b) for b in ev}
    train = [b for b in plan.buffers if id(b) not in own]
    keep = persistent(plan)
    out: list[str] = []
    overlaid: set[int] = set()
    for block in ("ram0", "ram1"):
        scratch = [b for b in train if b.region == block and id(b) not in keep]
        mine = [b for b in ev if b.region == block]
        words = max(sum(b.words for b in scratch), sum(b.words for b in mine))
        if not words:
            continue
        sym = f"{PREFIX}overlay_{block}"
        out.append(f'{sym} .usect "{SECTION_OF[block]}", {words}')
        for group in (scratch, mine):
            at = 0
            for b in group:
                out.append(f"        .global {b.name}")
                out.append(f"{b.name} .set {sym}+{at}" if at else f"{b.name} .set {sym}")
                at += b.words
                overlaid.add(id(b))
    for b in plan.buffers:
        if id(b) not in overlaid:
            out += buffer_line(b)
    return out


def eval_columns(network, mapping: Mapping | None) -> dict:
    """The summation order of the evaluation pass (reference.Model's
    ``columns``): each connect split by columns in training, by the whole
    source on one node."""
    if mapping is None:
        return {}
    by_name = {c.name: c for c in network.connects}
    return {k: ((0, network.layers[by_name[k].src].size),
                (0, network.layers[by_name[k].dst].size)) for k in mapping.columns}


# -- code generation ------------------------------------------------------------------

class _Prefixed:
    """The training program's emitter, with the evaluation plan's per-node
    values under their own names."""

    def __init__(self, e):
        self._e = e

    def __getattr__(self, attr):
        return getattr(self._e, attr)

    def pernode(self, name: str, values: list):
        return self._e.pernode(PREFIX + name, values)


def _gen_class():
    from .codegen import _Gen

    class EvalGen(_Gen):
        """The evaluation pass of the evaluation plan, into the training
        program's text."""

        def __init__(self, plan: Plan, outer):
            super().__init__(plan, outer.e.long_branches)
            self.e = _Prefixed(outer.e)

        def table(self, sym: str, offsets):
            return super().table(PREFIX + sym, offsets)
    return EvalGen


def gather_weights(gen) -> None:
    """Every node's training slices copied into the whole copies and
    all-gathered over the ring (the module docstring)."""
    from .codegen import Addr
    from .collectives import choose
    tp, ep, e = gen.p, gen.p.eval_plan, gen.e
    e.comment(f"the whole weights for the evaluation pass ({ep.mapping.source}): "
              "each node's training slices, all-gathered")

    def move(tag: str, whole, own, split: Split, unit: int, what: str) -> None:
        offs = [o * unit for o in split.off]
        dst = e.pernode(f"{PREFIX}{tag}", [f"{whole.name}+{o}" if o else whole.name
                                           for o in offs[:-1]])
        words = e.pernode(f"{PREFIX}{tag}_n", [b - a for a, b in zip(offs, offs[1:])])
        e.call("_vcopy", [dst, Addr(own.name), words], comment=f"{what}: own slice")
        if gen.n == 1:
            return
        c = choose("allgather", offs, whole.region or "sram", tp.collectives)
        args = [Addr(whole.name), gen.table(f"{PREFIX}off_{tag}", offs)]
        if c.plan is not None:
            args.append(gen.table(f"{PREFIX}rot_{tag}", c.plan))
        e.call(c.routine, args, comment=f"{what}: all-gather ({c.routine})")
        tp.collective_report.append({"layer": what, "collective": "allgather",
                                     "routine": c.routine, "chain_cycles": round(c.chain_cycles),
                                     "rotation_cycles": None if c.rotation_cycles is None
                                     else round(c.rotation_cycles), "pass": "evaluation"})

    for cp in tp.connects:
        ecp = ep.connects[cp.index]
        src, dst = cp.connect.src, cp.connect.dst
        if cp.columns:
            move(f"w{cp.index}", ecp.weights, cp.weights, tp.layers[src].split,
                 tp.layers[dst].layer.size, f"{cp.connect.name} weights (rows of W^T)")
        else:
            move(f"w{cp.index}", ecp.weights, cp.weights, tp.layers[dst].split,
                 tp.layers[src].layer.size, f"{cp.connect.name} weights")
    for name, lp in tp.layers.items():
        if lp.bias is not None:
            move(f"b_{name}", ep.layers[name].bias, lp.bias, lp.split, 1, f"{name} biases")


def eval_pass(gen) -> None:
    """The evaluation pass of a program with an evaluation mapping (R4: the
    node's patterns, maybe none: it still joins the all-gathers and the
    barrier)."""
    e = gen.e
    gather_weights(gen)
    e.ins("CMPI", "0", "R4")
    e.branch("LE", "evaluated")
    sub = _gen_class()(gen.p.eval_plan, gen)
    sub.pattern_loop("tpattern", train=False)
    e.label("evaluated")


def describe(plan: Plan) -> str:
    """One line for reports."""
    ep = plan.eval_plan
    return (f"evaluation mapping data ({ep.mapping.source}): the whole weights on each of "
            f"{plan.nodes} node{'s' if plan.nodes > 1 else ''} (all-gathered from the "
            f"training slices at the start of each evaluation pass), patterns split")


# -- the cost model (rap plan, compiler/plan.py) ---------------------------------------

def price(network, mapping: Mapping, memory=None, name: str = "data") -> dict:
    """The cost model's cycles of the evaluation mapping ``name`` after
    training by ``mapping`` (rap plan's walk of the generated program,
    compiler/plan.py, with firmware/costs.py's formulas):
    ``forward_cycles``, a forward pattern of the machine in the steady
    state (a node's pattern over the N nodes: what ``rap bench`` measures),
    and ``gather_cycles``, the weights' copies and all-gathers at the start
    of a pass (the slowest node)."""
    from .overlap import overlap_for
    from .plan import _one_pattern, _PlanGen, _Pricer
    from .plan_user import routine_costs
    check(network, mapping, name)
    plan = lower(network, mapping.nodes, memory, mapping)
    plan.host_hooks = []
    plan.overlap = overlap_for(network, mapping, None)
    plan.eval_plan = eval_plan(plan, name)
    user = routine_costs(network, memory)
    g = _PlanGen(plan)
    g.prologue()
    gather = g.section(lambda: gather_weights(g))
    eg = _PlanGen(plan.eval_plan)
    eg.prologue()
    fwd = eg.section(lambda: _one_pattern(eg, False))
    gather_cycles, _ = _Pricer(g, plan, user=user).price(gather)
    node_pattern, breakdown = _Pricer(eg, plan.eval_plan, user=user).price(fwd)
    n = mapping.nodes
    return {"forward_cycles": node_pattern / n, "gather_cycles": gather_cycles,
            "forward_breakdown": {k: v / n for k, v in breakdown.items()}}


def plan_rows(network, predictions, memory=None, clock_mhz: float = 16.0,
              name: str = "data") -> list[dict]:
    """``rap plan --eval-mapping``: for each lock-step prediction of a
    training mapping an evaluation mapping can follow (rows, columns), the
    training figures as ranked and the evaluation pass by ``name``
    (:func:`price`): forward cycles a pattern and MCPS in the steady state,
    the weights' all-gather a pass, and the evaluation patterns a pass
    from which the amortised MCPS reach the training mapping's own."""
    from .mapping import resolve
    out = []
    for p in predictions:
        if p.mapping not in TRAIN_MAPPINGS or p.schedule != "lockstep":
            continue
        r = price(network, resolve(network, p.nodes, p.mapping), memory, name)
        fwd, gather = r["forward_cycles"], r["gather_cycles"]
        mcps = network.connections() * clock_mhz / fwd
        # P patterns: connections P clock / (gather + P fwd) >= the training
        # mapping's own MCPS  <=>  P >= gather / (own cycles - fwd)
        even = (gather / (p.forward_cycles - fwd) if p.forward_cycles > fwd else None)
        out.append({"mapping": p.label, "eval_mapping": name,
                    "train_cycles": p.train_cycles, "mcups": p.mcups,
                    "forward_cycles": fwd, "mcps": mcps, "gather_cycles": gather,
                    "own_forward_cycles": p.forward_cycles,
                    "patterns_to_break_even": None if even is None else int(even) + 1})
    return out
