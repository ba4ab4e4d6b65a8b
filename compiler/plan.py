"""The cost model of ``rap plan``: predicted cycles per training and per
forward pattern of a network under a mapping, without simulating it.

The model walks the program the compiler generates: it lowers the network
for the mapping (:func:`rapsim.compiler.lower.lower`) and runs the code
generator (:mod:`rapsim.compiler.codegen`) with an emitter that records,
instead of only writing text, every instruction and every call with the
values its argument registers hold on each node.  So every kernel call and
collective the program makes per pattern has a cost, from the one table
``rapsim.firmware.costs``; a routine missing there is a :class:`PlanError`,
never zero.

Timing, per section of the program (one pattern, a batch's update):

* between two collectives every node runs its own calls and instructions:
  the span costs the **largest** node's sum (the node with the most rows
  sets the pace: load imbalance);
* a collective (all-gather, reduce-scatter, all-reduce, the ring softmax,
  the barrier) costs its machine time (``COLLECTIVES``) when every node
  enters together; the model follows each node's own time through the
  chains (``CHAINS``: a chain starts at max(arrival - join) and node j
  goes on at the start + leave[j]), so consecutive collectives overlap as
  on the machine, and prices a section in its steady state (run twice);
  the breakdown adds the difference as ``chain overlap``;
* an instruction outside the kernels costs one cycle, a (non-delayed)
  branch four (SPRU031 9.1: a standard branch empties the pipeline).

Per pattern, by the mapping's schedule (lock-step, :data:`SCHEDULES`;
pipeline and stream, :data:`SCHEDULE_PASSES`):
``rows``, ``layers``, ``checkerboard``: the body of the pattern loop, once
per pattern; ``data``: a step (every node one pattern) B times and the
batch's update once, over N B patterns; ``hybrid``: a round (N patterns) B
times and the update, over N B patterns.  A new schedule is one new entry
there.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rapsim.config import MachineConfig
from rapsim.errors import RapError
from rapsim.firmware.costs import (CHAINS, COLLECTIVES, KERNELS, SOFTMAX_PARTS, SOFTMAX_TOKENS,
                                   SUBRING_CHAIN, _leading, allgather_mxv_extra,
                                   rs_general_path, token_chain)

from .codegen import FLOAT_REGS, INT_REGS, Addr, Imm, Var, _Emitter, _Gen
from .lower import lower
from .mapping import PRESETS, MappingError, resolve


#: the fraction of a binary or threshold layer's units assumed active when
#: pricing the binary kernels (rap plan --active; docs/plan.md)
DEFAULT_ACTIVE = 0.5

#: what the machine charges a node for a host call by default
#: (MachineConfig.hostcall_cycles, docs/machine-model.md section 7)
HOSTCALL_CYCLES = MachineConfig().hostcall_cycles


class PlanError(RapError):
    """The cost model cannot price a program (a routine without a cost
    entry, an argument it cannot resolve)."""


# -- recording the generated program --------------------------------------------------

class _Recorder(_Emitter):
    """The code generator's emitter, also recording events: ``("ins", op)``
    and ``("call", fn, {register: value})`` (values as the generator passed
    them: Imm, Addr, Var; None: computed at run time)."""

    def __init__(self, nodes: int):
        super().__init__(nodes)
        self.events: list[tuple] = []
        self.regs: dict = {}

    def load(self, reg, v) -> None:
        super().load(reg, v)
        self.regs[reg] = v

    def label(self, name: str) -> None:
        super().label(name)
        self.events.append(("label", name))

    def ins(self, op: str, *operands: str, comment: str = "") -> None:
        super().ins(op, *operands, comment=comment)
        if op == "CALL":
            self.events.append(("call", operands[0], dict(self.regs)))
            self.regs = {}
        else:
            self.events.append(("ins", op, operands))
            if operands:
                self.regs.pop(operands[-1], None)
            if op == "LDI" and len(operands) == 2 and _integer(operands[0]):
                self.regs[operands[1]] = Imm(int(operands[0]))     # e.g. a hook's AR5 = 0


def _integer(text: str) -> bool:
    return text.lstrip("-").isdigit()


class _PlanGen(_Gen):
    def __init__(self, plan):
        super().__init__(plan)
        self.e = _Recorder(plan.nodes)
        self.tables: dict[str, list[int]] = {}

    def table(self, sym, offsets):
        self.tables[sym] = list(offsets)
        return super().table(sym, offsets)

    def section(self, emit) -> list[tuple]:
        """The events ``emit()`` generates."""
        start = len(self.e.events)
        emit()
        return self.e.events[start:]


def _one_pattern(g: _PlanGen, train: bool, sub=None):
    """A pass of the pattern loop: the inputs, the body (of net ``sub``,
    None: the main net), the loop's count."""
    g.load_inputs()
    g.pattern_body(sub, train)
    g.e.ins("SUBI", "1", "R4")
    g.e.ins("BNZ", "pattern")


def _lockstep(g: _PlanGen) -> dict:
    """rows, checkerboard: one pattern per pass of the loop, every node
    working on it.  Several nets in one pool (CLONES) with ``alternate
    pattern``: a training pattern trains one of them, each in turn, so it
    costs the mean of their bodies; with ``alternate epoch`` an epoch trains
    one net, and the model prices the first, the main net's (what a
    one-epoch measurement runs); an evaluation pattern runs the main net."""
    net = g.p.network
    nets = ([None] + list(net.nets) if net.nets and not net.phases
            and net.training.alternate == "pattern" else [None])
    return {"train": [(1.0 / len(nets), g.section(lambda: _one_pattern(g, True, sub)))
                      for sub in nets],
            "forward": [(1.0, g.section(lambda: _one_pattern(g, False)))]}


def _groups(g: _PlanGen) -> dict:
    """layers: as lock-step in training (the backward pass waits for the
    upper groups' errors), but forward passes overlap at the all-gathers: a group
    starts the next pattern while the groups above finish this one, so a
    pattern costs the busiest node's work plus the collectives (the ring
    softmax still waits for every node: its total goes round)."""
    out = _lockstep(g)
    out["forward"] = [(w, part, True) for w, part in out["forward"]]
    return out


def _data(g: _PlanGen) -> dict:
    """data: a step is one pattern on every node; B steps, then the
    batch's all-reduce and update, over N B patterns."""
    n, b = g.n, g.p.mapping.batch
    step = g.section(lambda: _one_pattern(g, True))
    apply = g.section(g.apply_batch)
    fwd = g.section(lambda: _one_pattern(g, False))
    return {"train": [(1.0 / n, step), (1.0 / (n * b), apply)],
            "forward": [(1.0 / n, fwd)]}


def _hybrid(g: _PlanGen) -> dict:
    """hybrid: a round is N patterns (one per node below the cut, every
    node on each above it); B rounds, then the batch's update."""
    n, b = g.n, g.p.mapping.batch
    rnd = _repeat(g.section(lambda: g.hybrid_round("", train=True)), "upper", n)
    apply = g.section(g.apply_batch)
    fwd = _repeat(g.section(lambda: g.hybrid_round("t", train=False)), "tupper", n)
    return {"train": [(w / n, part) for w, part in rnd] + [(1.0 / (n * b), apply)],
            "forward": [(w / n, part) for w, part in fwd]}


def _repeat(events: list, label: str, times: int) -> list:
    """Split a section at the loop from ``label`` to its closing branch:
    [(1, before), (times, the loop), (1, after)]."""
    start = events.index(("label", label))
    end = start + len(_loop(events, label))
    return [(1, events[:start]), (times, events[start:end]), (1, events[end:])]


#: the schedule of each mapping: how the sections of the program make a
#: pattern (a new schedule, e.g. pipelined, is one new entry)
SCHEDULES = {"rows": _lockstep, "layers": _groups, "checkerboard": _lockstep,
             "data": _data, "hybrid": _hybrid, "columns": _lockstep}


def _loop(events: list, label: str) -> list:
    """The body of the loop from ``label`` to its closing branch back to
    it (``BNZ label``, or with long branches ``BZ skip; BR label``)."""
    start = events.index(("label", label))
    end = max(i for i, ev in enumerate(events) if ev[0] == "ins" and ev[1].startswith("B")
              and ev[2] == (label,)) + 1
    return events[start:end]


def _without(events: list, branch: str, target: str) -> list:
    """``events`` less the instructions a taken ``branch`` to ``target``
    skips (the steady state of a loop whose first passes take another
    path: the pipeline's filling ticks)."""
    at = next(i for i, ev in enumerate(events) if ev[0] == "ins" and ev[1] == branch
              and ev[2] == (target,))
    end = events.index(("label", target))
    return events[:at + 1] + events[end:]


def _pipeline(g: _PlanGen) -> dict:
    """schedule pipeline (compiler/pipeline_gen.py): a pass of P patterns
    takes P + 2 S - 2 training ticks and P + S - 1 evaluation ticks, every
    stage on its own pattern in each tick, so in the steady state a pattern
    costs one tick: the busiest node's work of every stage's forward and
    backward step (the stashes, the updates) plus the tick's exchange (the
    reduce-scatters of the partial errors, the all-gathers).  The fill and
    drain (2 S - 2 and S - 1 ticks a pass) are a pass's fixed cost, like
    the epoch's host calls (:data:`Prediction.fill_ticks`); the evaluation
    tick is priced as it runs once the pipeline is full (its filling
    branch taken: the outputs logged)."""
    from .pipeline_gen import train_ticks
    tick = _loop(g.section(lambda: train_ticks(g, "tick")), "tick")
    ftick = _loop(g.section(lambda: g.pipeline_loop("ttick")), "ttick")
    if ("label", "ttick_out") in ftick:
        ftick = _without(ftick, "BEQ", "ttick_out")
    return {"train": [(1.0, tick)], "forward": [(1.0, ftick)]}


def _stream(g: _PlanGen) -> dict:
    """schedule stream (compiler/frames_gen.py): a pattern is its input
    record and F frames (``frames`` of the train block), a frame every
    layer's next state from the previous frame's, the all-gathers, in
    training every connect's plasticity, the copies of the next states; an
    evaluation frame also logs the outputs."""
    from .frames_gen import frames_pass
    F = g.p.network.training.frames
    out = {}
    for phase, label, learn in (("train", "frame", True), ("forward", "tframe", False)):
        body = _loop(g.section(lambda: frames_pass(g, label, learn)), label)
        out[phase] = _repeat(body, f"{label}_f", F)
    return out


#: the other schedules than lockstep (compiler/pipeline.py): how the
#: sections of their programs make a pattern, whatever the mapping
SCHEDULE_PASSES = {"pipeline": _pipeline, "stream": _stream}


# -- pricing ---------------------------------------------------------------------------

_REGION = {"ram0": "chip", "ram1": "chip", "chip": "chip", "sram": "sram", "dram": "dram"}


class _Pricer:
    def __init__(self, g: _PlanGen, plan, active=DEFAULT_ACTIVE, user=None, hooks=None,
                 hostcall: float | None = None):
        self.g, self.n = g, g.n
        self.plan, self.active, self.user = plan, active, user or {}
        #: behaviours: (routine, layer or None) -> (alpha, beta) (plan_user.py)
        self.hooks = hooks or {}
        self.hook_routines = {fn for fn, _ in self.hooks}
        #: a host call's cycles on the node that makes it (None: not priced)
        self.hostcall = hostcall
        #: a layer's own activations (a behaviour's AR4) -> the layer
        self.act_layers = {lp.act.name: name for name, lp in plan.layers.items()
                           if lp.act is not None}
        #: a sparse connect's count table -> the connect (its pairs per row)
        self.sparse = {cp.sparse.cnt.name: cp for cp in plan.connects
                       if cp.sparse is not None and cp.sparse.cnt is not None}
        #: an index list (a binary input's variable, a threshold layer's
        #: buffer) -> its layer
        self.lists = {}
        for lp in plan.layers.values():
            if lp.layer.kind == "binary":
                self.lists[f"bl_{lp.name}"] = lp
            if lp.blist is not None:
                self.lists[lp.blist.name] = lp
        self.regions = {b.name: _REGION.get(b.region, "sram") for b in plan.buffers}
        self.consts = {sym: expr for expr, sym in g.e.consts.items()}
        mem = plan.memory
        self.access = {"chip": 1 + mem.onchip_wait, "sram": 1 + mem.sram_wait,
                       "dram": 1 + mem.dram_wait}
        self.aliases = self._slot_pointers(g.e.events)

    def _slot_pointers(self, events) -> dict:
        """The .data words the program sets to a buffer plus an offset at
        run time (``ADDI @k, R0; STI R0, @var``: the pipeline's stash
        slots): each word's buffer, so that a call through it is priced in
        that buffer's region."""
        out = {}
        for a, b in zip(events, events[1:]):
            if (a[0] == b[0] == "ins" and a[1] == "ADDI" and b[1] == "STI"
                    and a[2][-1] == "R0" and b[2][0] == "R0" and a[2][0].startswith("@")
                    and b[2][-1].startswith("@")):
                base = self.consts.get(a[2][0][1:])
                if base is not None:
                    out[b[2][-1][1:]] = self._expr(base)
        return out

    def _values(self, v) -> list:
        """Per node: an int, or a symbol name (a pointer), or None."""
        if v is None:
            return [None] * self.n
        if isinstance(v, Imm):
            return [v.value] * self.n
        if isinstance(v, Addr):
            return [v.sym] * self.n
        if isinstance(v, Var):
            if v.sym in self.g.e.nv:
                return [self._expr(x) for x in self.g.e.nv[v.sym]]
            if v.sym in self.consts:
                return [self._expr(self.consts[v.sym])] * self.n
            return [v.sym] * self.n          # a host variable: a pointer it holds
        raise PlanError(f"cannot resolve argument {v!r}")

    @staticmethod
    def _expr(text: str):
        try:
            return int(text)
        except ValueError:
            return text.split("+")[0].strip()

    def region(self, v) -> str:
        if isinstance(v, str):
            v = self.aliases.get(v, v)
            return self.regions.get(v, "sram")      # .data words, host variables: SRAM
        return "sram"                               # computed at run time (slots): SRAM

    def priced(self, fn: str) -> bool:
        """A routine the model prices per node (not a collective)."""
        return (fn in KERNELS or fn in self.user or fn in self.hook_routines
                or (fn == "_hostcall" and self.hostcall is not None))

    def kernel(self, fn: str, regs: dict) -> np.ndarray:
        if fn in self.user:
            return self.user_routine(fn, regs)
        if fn in self.hook_routines:
            return self.behaviour(fn, regs)
        if fn == "_hostcall" and self.hostcall is not None:
            return np.full(self.n, self.hostcall)
        if fn not in KERNELS:
            raise PlanError(f"the cost model has no entry for {fn} "
                            f"(rapsim/firmware/costs.py): cannot predict this program")
        k = KERNELS[fn]
        vals = [self._values(regs.get(r)) for r in INT_REGS[:len(k.args)]]
        out = np.zeros(self.n)
        for node in range(self.n):
            a = {}
            for name, vs in zip(k.args, vals):
                v = vs[node]
                a[name] = v if isinstance(v, int) else self.region(v)
            for name in ("rows", "cols", "n", "first", "last"):
                if name in a and not isinstance(a[name], int):
                    raise PlanError(f"{fn}: its {name} is computed at run time; the cost "
                                    f"model needs it known at compile time")
            if "cnt" in k.args:
                a["pairs"], a["empty"] = self._pairs(fn, vals[k.args.index("cnt")][node],
                                                     node, a["rows"])
            if "list" in k.args:
                a["active"] = self._active(fn, vals[k.args.index("list")][node])
            out[node] = k.cycles(a, self.access)
        return out

    def _pairs(self, fn: str, cnt, node: int, rows: int) -> tuple[int, int]:
        """A sparse connect's pairs on ``node`` and its own rows without a
        pair, from the connect's pair list (what the count table holds)."""
        cp = self.sparse.get(cnt)
        if cp is None:
            raise PlanError(f"{fn}: its count table {cnt!r} is not a sparse connect's")
        own = cp.connect.pairs[cp.sparse.own(node)]
        return len(own), rows - len(np.unique(own[:, 1]))

    def _active(self, fn: str, lst) -> float:
        """The active units assumed in an index list: the stated fraction
        of its layer's units (``active``: a fraction, or one per layer
        name with None for the others)."""
        lp = self.lists.get(lst)
        if lp is None:
            raise PlanError(f"{fn}: its index list {lst!r} is not a binary or threshold "
                            f"layer's")
        a = self.active
        if isinstance(a, dict):
            a = a.get(lp.name, a.get(None, DEFAULT_ACTIVE))
        return a * lp.layer.size

    def user_routine(self, fn: str, regs: dict) -> np.ndarray:
        """A user transfer function (z, x, n): alpha + beta n, as measured
        alone (:func:`rapsim.compiler.plan_user.routine_costs`)."""
        alpha, beta = self.user[fn]
        sizes = self._values(regs.get("AR4"))
        if not all(isinstance(x, int) for x in sizes):
            raise PlanError(f"{fn}: its n is computed at run time")
        return np.array([alpha + beta * max(x, 0) for x in sizes], dtype=float)

    def behaviour(self, fn: str, regs: dict) -> np.ndarray:
        """A behaviour routine at a hook point: alpha + beta n, n the
        node's own units of the hook's layer (AR5; 0 without a layer), as
        timed linked into the program (plan_user.behaviour_costs)."""
        acts = self._values(regs.get("AR4"))
        units = self._values(regs.get("AR5"))
        out = np.zeros(self.n)
        for node in range(self.n):
            layer = self.act_layers.get(acts[node]) if isinstance(acts[node], str) else None
            cost = self.hooks.get((fn, layer))
            if cost is None or not isinstance(units[node], int):
                raise PlanError(f"behaviour {fn}: cannot tell its layer or units at compile "
                                f"time")
            out[node] = cost[0] + cost[1] * max(units[node], 0)
        return out

    def collective(self, fn: str, regs: dict) -> float:
        c = COLLECTIVES[fn]
        n = self.n
        if fn == "_ring_barrier":
            return c.cycles(0, 0, n, 1, False)
        if fn == "_vsoftmax_ring":
            sizes = [x for x in self._values(regs.get("AR4"))]
            if not all(isinstance(s, int) for s in sizes):
                raise PlanError(f"{fn}: its length is computed at run time")
            return c.cycles(sum(sizes), max(sizes), n, 1, False)
        off, x = self._table(fn, regs)
        sizes = [b - a for a, b in zip(off, off[1:])]
        V, s = off[-1], max(sizes)
        cycles = c.cycles(V, s, n, self.access[x], x == "chip", sizes.count(0),
                          _leading(sizes))
        if fn in ("_ring_reduce_scatter", "_ring_allreduce") and rs_general_path(off, n):
            # the reduce-scatter's general path: its chain's last return
            # (firmware/costs.py rs_general_leave)
            rs = float(np.max(CHAINS["_ring_reduce_scatter"](off, n, self.access[x],
                                                             x == "chip")[1]))
            cycles = rs + (0.0 if fn == "_ring_reduce_scatter" else COLLECTIVES[
                "_ring_allgather"].cycles(V, s, n, self.access[x], x == "chip",
                                          sizes.count(0), _leading(sizes)))
        if fn == "_ring_allgather_mxv":     # and the product of the slowest node's rows
            y, W = (self.region(self._values(regs.get(r))[0]) for r in ("AR4", "AR5"))
            rows = self._values(regs.get("AR6"))
            if not all(isinstance(r, int) for r in rows):
                raise PlanError(f"{fn}: its rows are computed at run time")
            b = self.region(self._values(regs.get("IR0"))[0])
            cycles += KERNELS["_mxv"].cycles({"y": y, "W": W, "x": x, "rows": max(rows),
                                              "cols": V, "b": b}, self.access) \
                + allgather_mxv_extra(max(rows), s, n)
        if fn == "_ring_rs_mxout":          # and the update of the slowest node's rows
            W = self.region(self._values(regs.get("AR4"))[0])
            rows = self._values(regs.get("IR0"))
            if not all(isinstance(r, int) for r in rows):
                raise PlanError(f"{fn}: its rows are computed at run time")
            cycles += KERNELS["_mxout"].cycles({"W": W, "d": "chip", "x": "chip",
                                                "rows": max(rows), "cols": V}, self.access)
        return cycles

    def _table(self, fn: str, regs: dict) -> tuple[list[int], str]:
        """A collective's slice table and the region of its vector."""
        table = regs.get("AR3")
        if not isinstance(table, Addr) or table.sym not in self.g.tables:
            raise PlanError(f"{fn}: its slice table is not known at compile time")
        return self.g.tables[table.sym], self.region(self._values(regs.get("AR2"))[0])

    def _chain(self, fn: str, regs: dict, t: np.ndarray) -> np.ndarray:
        """Every node's time after collective ``fn``, from its arrival
        ``t``: a chain (``CHAINS``, the all-reduce as its two, the ring
        softmax's two tokens) starts at max(t - join) and lets node j go at
        the start + leave[j]; another collective starts after the last
        node's arrival and lets every node go after its machine time."""
        n = self.n
        if fn in CHAINS or fn == "_ring_allreduce":
            off, x = self._table(fn, regs)
            for name in ((fn,) if fn in CHAINS else ("_ring_reduce_scatter", "_ring_allgather")):
                join, leave = CHAINS[name](off, n, self.access[x], x == "chip")
                t = float(np.max(t - join)) + leave
            return t
        if fn == "_vsoftmax_ring" and n > 1:
            sizes = np.array(self._values(regs.get("AR4")), dtype=float)
            (a1, b1), (a2, b2), (a3, b3) = SOFTMAX_PARTS
            t = t + a1 * sizes + b1
            for (lap1, lap2, extra), (a, b) in zip(SOFTMAX_TOKENS, ((a2, b2), (a3, b3))):
                join, leave = token_chain(n, lap1, lap2, extra)
                t = float(np.max(t - join)) + leave + a * sizes + b
            return t
        return np.full(n, float(np.max(t)) + self.collective(fn, regs))

    def _subring(self, regs: dict, t: np.ndarray) -> np.ndarray:
        """``_subring_reduce`` on every grid row at once: a chain down each
        row (``SUBRING_CHAIN``), the rows on disjoint links."""
        n, first, last = (self._values(regs.get(r)) for r in ("AR3", "AR4", "AR5"))
        out = t.copy()
        rows: dict = {}
        for k in range(self.n):
            if n[k] > 0 and last[k] > first[k]:
                rows.setdefault((first[k], last[k]), []).append(k)
            else:
                out[k] = t[k] + KERNELS["_subring_reduce"].cycles(
                    {"n": n[k], "first": first[k], "last": last[k]}, self.access)
        for members in rows.values():
            pos = np.array([k - first[k] for k in members], dtype=float)
            join, leave = SUBRING_CHAIN(pos, n[members[0]])
            out[members] = float(np.max(t[members] - join)) + leave
        return out

    def times(self, events, t: np.ndarray) -> np.ndarray:
        """Every node's time at the end of ``events`` from ``t`` at their
        start: its own kernels and instructions, and the collectives'
        chains (:meth:`_chain`)."""
        t = t.copy()
        for ev in events:
            if ev[0] == "ins":
                t += 4 if ev[1].startswith("B") and not ev[1].endswith("D") else 1
            elif ev[0] == "call":
                if ev[1] in COLLECTIVES:
                    t = self._chain(ev[1], ev[2], t)
                elif ev[1] == "_subring_reduce":
                    t = self._subring(ev[2], t)
                else:
                    t += self.kernel(ev[1], ev[2])
        return t

    def price(self, events, overlap: bool = False) -> tuple[float, dict]:
        """Cycles of a section and their breakdown by routine (``inline``:
        instructions outside the kernels).  ``overlap``: the nodes do not
        wait for each other at the collectives (the forward passes of node
        groups, which run different patterns between two collectives): the
        section costs the busiest node's work plus the collectives; only
        all-gathers overlap so)."""
        if overlap and any(ev[0] == "call" and ev[1] in COLLECTIVES
                           and ev[1] != "_ring_allgather" for ev in events):
            overlap = False     # e.g. the ring softmax: every node waits for its total
        total = 0.0
        span = np.zeros(self.n)
        spent: dict[str, np.ndarray] = {}
        breakdown: dict[str, float] = {}

        def close():
            nonlocal total, span, spent
            if not spent:
                return 0.0
            slowest = int(np.argmax(span))
            for name, vec in spent.items():
                breakdown[name] = breakdown.get(name, 0.0) + float(vec[slowest])
            total += float(span[slowest])
            span = np.zeros(self.n)
            spent = {}

        for ev in events:
            if ev[0] == "label":
                continue
            if ev[0] == "ins":
                op = ev[1]
                c = 4 if op.startswith("B") and not op.endswith("D") else 1
                span += c
                spent.setdefault("inline", np.zeros(self.n))
                spent["inline"] += c
                continue
            fn, regs = ev[1], ev[2]
            if fn in COLLECTIVES:
                if not (overlap and fn == "_ring_allgather"):
                    close()
                c = self.collective(fn, regs)
                total += c
                breakdown[fn] = breakdown.get(fn, 0.0) + c
            elif self.priced(fn):
                vec = self.kernel(fn, regs)
                span += vec
                spent.setdefault(fn, np.zeros(self.n))
                spent[fn] += vec
            else:
                raise PlanError(f"the cost model has no entry for {fn} "
                                f"(rapsim/firmware/costs.py): cannot predict this program")
        close()
        if any(ev[0] == "call" and ev[1] in COLLECTIVES for ev in events):
            # the section repeated (a pattern after a pattern): nodes that
            # leave a chain early start the next one early
            first = self.times(events, np.zeros(self.n))
            steady = float(np.max(self.times(events, first)) - np.max(first))
            breakdown["chain overlap"] = steady - total
            total = steady
        return total, breakdown


# -- predictions ------------------------------------------------------------------------

@dataclass
class Prediction:
    """The predicted cost of one mapping of a network on N nodes."""
    mapping: str
    nodes: int
    batch: int
    train_cycles: float             # per training pattern
    forward_cycles: float           # per forward pattern
    connections: int
    clock_mhz: float
    train_breakdown: dict = field(default_factory=dict)
    forward_breakdown: dict = field(default_factory=dict)
    overlap: str = "off"            # the overlapped collectives ("off" or "ring")
    schedule: str = "lockstep"      # compiler/pipeline.py
    #: the behaviours' and host callbacks' cycles outside the patterns, not
    #: in the per-pattern figures: per epoch (before_epoch, after_epoch)
    #: and per run (before_training, after_training)
    epoch_cycles: float = 0.0
    run_cycles: float = 0.0
    #: the behaviours' measured cost: (routine, layer or None) -> (alpha, beta)
    behaviours: dict = field(default_factory=dict)
    #: a host call's cycles on a node (None: no host callback)
    hostcall_cycles: float | None = None

    @property
    def label(self) -> str:
        """The candidate's name in reports: the mapping, its batch, the
        overlap when on, the schedule when not lockstep."""
        return (self.mapping + (f" batch {self.batch}" if self.mapping in ("data", "hybrid")
                                else "") + (" overlap" if self.overlap != "off" else "")
                + ("" if self.schedule == "lockstep" else f" {self.schedule}"))

    @property
    def mcups(self) -> float:
        return self.connections * self.clock_mhz / self.train_cycles if self.train_cycles else 0.0

    @property
    def mcps(self) -> float:
        return (self.connections * self.clock_mhz / self.forward_cycles
                if self.forward_cycles else 0.0)

    def to_dict(self) -> dict:
        return {"mapping": self.mapping, "nodes": self.nodes, "batch": self.batch,
                "overlap": self.overlap, "schedule": self.schedule,
                "train_cycles_per_pattern": self.train_cycles,
                "forward_cycles_per_pattern": self.forward_cycles,
                "mcps": self.mcps, "mcups": self.mcups,
                "train_breakdown": self.train_breakdown,
                "forward_breakdown": self.forward_breakdown,
                "epoch_hook_cycles": self.epoch_cycles, "run_hook_cycles": self.run_cycles,
                "behaviours": [{"routine": fn, "layer": layer, "alpha": a, "beta": b}
                               for (fn, layer), (a, b) in self.behaviours.items()],
                "hostcall_cycles": self.hostcall_cycles}


def predict(network, mapping, memory=None, clock_mhz: float = 16.0,
            overlap: str | None = None, active=DEFAULT_ACTIVE, host_hooks=(),
            hostcall_cycles: int = HOSTCALL_CYCLES) -> Prediction:
    """The predicted cycles per pattern of ``network`` under ``mapping``
    (a resolved :class:`~rapsim.compiler.mapping.Mapping`), with the
    overlapped collectives ``overlap`` (the --overlap option, as
    compile_network takes it; None: the description's).  ``host_hooks``:
    the hook points of host callbacks (rapsim.compiler.behaviours.HookPoint,
    as compile_network takes them), each a barrier and a host call the
    machine charges ``hostcall_cycles`` for (MachineConfig's).  The
    description's behaviours are timed as linked into the program
    (:mod:`rapsim.compiler.plan_user`).  Raises LoweringError when the
    network does not fit, PlanError when a routine has no cost entry,
    RapError for an overlap the mapping refuses."""
    from .overlap import overlap_for
    overlap = overlap_for(network, mapping, overlap)
    plan = lower(network, mapping.nodes, memory, mapping)
    plan.host_hooks = list(host_hooks)
    plan.overlap = overlap
    g = _PlanGen(plan)
    kind = getattr(mapping, "schedule", "lockstep")
    if kind != "lockstep":
        schedule = SCHEDULE_PASSES.get(kind)
        if schedule is None:
            raise PlanError(f"the cost model has no entry for schedule {kind} "
                            f"(compiler/plan.py SCHEDULE_PASSES)")
    else:
        schedule = SCHEDULES.get(mapping.name)
        if schedule is None:
            raise PlanError(f"the cost model has no schedule for the {mapping.name} mapping")
    g.prologue()
    sections = schedule(g)
    epoch = g.section(lambda: (g.hook("before_epoch"), g.hook("after_epoch")))
    run = g.section(lambda: (g.hook("before_training"), g.hook("after_training")))
    from .plan_user import behaviour_costs, hostcall_cycles as hostcall, routine_costs
    hooks = {}
    if network.behaviours:
        from .build import compile_network
        hooks = behaviour_costs(network, lambda: compile_network(
            network, mapping.nodes, memory, host_hooks, mapping, overlap), memory)
    pricer = _Pricer(g, plan, active, routine_costs(network, memory), hooks,
                     hostcall(hostcall_cycles, memory) if plan.host_hooks else None)
    out = {}
    for phase, parts in sections.items():
        total, bd = 0.0, {}
        for weight, events, *flags in parts:
            t, b = pricer.price(events, bool(flags and flags[0]))
            total += weight * t
            for k, v in b.items():
                bd[k] = bd.get(k, 0.0) + weight * v
        out[phase] = (total, bd)
    return Prediction(mapping.name, mapping.nodes, mapping.batch, out["train"][0],
                      out["forward"][0], network.connections(), clock_mhz,
                      out["train"][1], out["forward"][1], overlap, kind,
                      pricer.price(epoch)[0], pricer.price(run)[0], hooks, pricer.hostcall)


@dataclass
class Refused:
    mapping: str
    reason: str


#: the schedules of the collectives a candidate may take (compiler/overlap.py)
OVERLAPS = ("off", "ring")


def candidate_schedules(network, schedule: str | None = None) -> list[str]:
    """The schedules ``rap plan`` prices for ``network``: ``schedule``
    (--schedule) alone when given; a description's ``schedule stream``
    alone (its frames and local plasticities are another computation than
    back-propagation, and its cycles run under no other schedule); else
    lockstep and pipeline, both back-propagation (the pipeline a few
    updates stale: docs/compiler.md, "Schedules")."""
    if schedule is not None:
        return [schedule]
    if network.schedule == "stream":
        return ["stream"]
    return ["lockstep", "pipeline"]


def plan_all(network, nodes: int, memory=None, batch: int = 1, clock_mhz: float = 16.0,
             overlap: str | None = None, schedule: str | None = None,
             schedules: list[str] | None = None, active=DEFAULT_ACTIVE, host_hooks=(),
             hostcall_cycles: int = HOSTCALL_CYCLES):
    """Every preset mapping of ``network`` on ``nodes`` nodes under every
    schedule of :func:`candidate_schedules` (``schedules``: these instead),
    each with every overlap it takes (``overlap``: only that one; None:
    "off" and "ring"): the predictions ranked fastest training first, and
    the refused candidates with their reasons.  A pipeline runs on the
    layers placement only, so it is one candidate.  ``active``: the
    fraction of a binary or threshold layer's units assumed active (a
    number, or ``{layer: fraction, None: the others'}``).  ``host_hooks``,
    ``hostcall_cycles``: host callbacks' points and a host call's charge
    (:func:`predict`)."""
    from .lower import LoweringError
    from .pipeline import apply_schedule
    ranked, refused = [], []
    for kind in schedules or candidate_schedules(network, schedule):
        option = None if kind == network.schedule or (network.schedule is None
                                                      and kind == "lockstep") else kind
        tag = "" if kind == "lockstep" else f" {kind}"
        for name in (("layers",) if kind == "pipeline" else PRESETS):
            try:
                m = apply_schedule(network, resolve(network, nodes, name,
                                                    batch if name in ("data", "hybrid") else 1),
                                   option)
            except MappingError as e:
                refused.append(Refused(name + tag, str(e)))
                continue
            modes = OVERLAPS if overlap is None else (overlap,)
            if nodes == 1 or kind != "lockstep" or name in ("data", "hybrid", "checkerboard"):
                modes = [o for o in modes if o == "off"] or list(modes)
            for o in modes:
                try:
                    ranked.append(predict(network, m, memory, clock_mhz, o, active,
                                          host_hooks, hostcall_cycles))
                except (LoweringError, PlanError, RapError) as e:
                    refused.append(Refused(name + ("" if o == "off" else f" overlap {o}") + tag,
                                           str(e)))
                    break           # the same reason for every overlap
    ranked.sort(key=lambda p: p.train_cycles)
    return ranked, refused


def best_mapping(network, nodes: int, memory=None, batch: int = 1,
                 overlap: str | None = None, schedule: str | None = None) -> str:
    """The mapping ``rap plan`` ranks first among those that take the
    overlap and the schedule the program will be built with (``overlap``,
    ``schedule``: the --overlap and --schedule options, else the
    description's) (``--mapping auto``)."""
    from .overlap import overlap_for
    from .mapping import rows
    from .pipeline import choose
    fixed = overlap_for(network, rows(network, nodes), overlap)
    ranked, refused = plan_all(network, nodes, memory, batch, overlap=fixed,
                               schedules=[choose(network, schedule)[0]])
    if not ranked:
        raise PlanError("no mapping can run this network: "
                        + "; ".join(f"{r.mapping}: {r.reason}" for r in refused))
    return ranked[0].mapping


def measure_point(network, config, mapping: str, batch: int = 1,
                  warmup: int = 1, patterns: int = 2,
                  overlap: str | None = None,
                  schedule: str | None = None, host_hooks=()) -> tuple[float, float]:
    """Simulated cycles per training and per forward pattern of ``network``
    under ``mapping`` on ``config``, measured as ``rap bench`` measures a
    point (docs/bench.md: the difference of a run of ``warmup`` and one of
    ``warmup + patterns`` patterns per node-batch, fixed costs cancelled).
    ``host_hooks``: host callbacks at these points (callbacks that do
    nothing: their host calls and barriers are what is measured)."""
    from .build import compile_network
    from .train import measure, measurement_network
    n = config.nodes
    if mapping in ("data", "hybrid"):
        warmup, patterns = warmup * n * batch, patterns * n * batch
    mnet = measurement_network(network)
    from .pipeline import apply_schedule
    program = compile_network(mnet, n, config.memory, overlap=overlap, host_hooks=host_hooks,
                              mapping=apply_schedule(mnet, resolve(mnet, n, mapping, batch),
                                                     schedule))
    callbacks = {(p.event, p.layer or p.net) if p.layer or p.net else p.event: _nothing
                 for p in host_hooks}
    runs = [measure(network, config, train_patterns=c, test_patterns=c, program=program,
                    callbacks=callbacks or None)
            for c in (warmup, warmup + patterns)]
    perf = runs[1].performance - runs[0].performance
    return (perf.train.cycles / max(perf.train.patterns, 1),
            perf.evaluate.cycles / max(perf.evaluate.patterns, 1))


def _nothing(ctx) -> None:
    """A host callback that does nothing (measure_point's)."""


def data_activity(network, patterns) -> dict:
    """The mean fraction of active units of each binary input layer over
    ``patterns`` (a :class:`~rapsim.compiler.data.PatternSet`): what the
    binary kernels see (``rap plan --data``)."""
    out, col = {}, 0
    for name in network.inputs:
        size = network.layers[name].size
        if network.layers[name].kind == "binary" and len(patterns.inputs):
            out[name] = float(np.count_nonzero(patterns.inputs[:, col:col + size])
                              / (size * len(patterns.inputs)))
        col += size
    return out
