"""Code generation: a lowered :class:`~rapsim.compiler.lower.Plan` as one SPMD
assembly program that trains on-line and then evaluates, calling the
firmware's kernels (docs/firmware.md) and ring collectives.

The program (docs/compiler.md, "The generated program")::

    main:   pick this node's row of the per-node table (NODE_ID)
    epoch:  TRAIN(0, e) host call -> patterns P (0: training is over,
            return 0: crt0 exits);
            the host has written the learning rate and the epoch's order
            for each of P patterns (on-line back-propagation):
                copy the input record into the input layers' vectors
                forward pass (forward order): mxv per incoming full
                    connect, bus connects elementwise, the activation on
                    the own slice, all-gather if other nodes need it
                backward pass (backward order): error signal of the own
                    slice (target error at outputs; reduce-scatter of the
                    partial sums, times the derivative, at hidden layers),
                    then per incoming connect: W^T d into the source's
                    partial error sums (mxtv) and the weight update (mxout
                    or mxoutm with momentum), bias update
            barrier
            TRAIN(1, e) -> patterns T of the evaluation pass (the training
            set, then the test set): forward pass and a log of each node's
            output slice (the host computes loss and accuracy from them);
            barrier; next epoch

Run without the ``rap train`` host (``rap run``), the first TRAIN call fails
(ENOSYS) and the program stops with a message and exit status 2.
"""
from __future__ import annotations

from dataclasses import dataclass

from rapsim.compiler.behaviours import EPOCH_EVENTS, LAYER_EVENTS, SYS_HOOK, HookPoint
from rapsim.compiler.lower import ConnectPlan, LayerPlan, Plan
from rapsim.errors import RapError

#: Host-call service of the training host (docs/syscalls.md); also in rap.inc
SYS_TRAIN = 12
TRAIN_EPOCH, TRAIN_TEST = 0, 1

INT_REGS = ("AR2", "AR3", "AR4", "AR5", "AR6", "IR0", "IR1")
FLOAT_REGS = ("R2", "R3")

#: Words the host writes before the run and at every TRAIN call (host vars).
HOST_VARS = ("hv_db_in", "hv_db_tgt", "hv_in_stride", "hv_tgt_stride", "hv_order")
HOST_FLOATS = ("hv_eta",)

NO_HOST_MESSAGE = ("this program trains under 'rap train' (or rapsim.compiler.train), "
                   "whose host serves its TRAIN calls\n")


# argument values of a kernel call
@dataclass(frozen=True)
class Imm:
    """An integer constant."""
    value: int


@dataclass(frozen=True)
class Addr:
    """The address of a symbol, plus an offset (the same on every node)."""
    sym: str
    offset: int = 0


@dataclass(frozen=True)
class Var:
    """The contents of a word of .data (a host or per-node variable)."""
    sym: str


#: the condition that skips a long branch (docs/compiler.md, "Long branches")
_INVERSE = {"Z": "NZ", "NZ": "Z", "EQ": "NE", "NE": "EQ", "LT": "GE", "GE": "LT",
            "LE": "GT", "GT": "LE"}


class _Emitter:
    """Collects the text, .data and the per-node table of the program.
    ``long_branches``: conditional branches become a skip over an absolute
    BR (reach: the whole address space) instead of a PC-relative Bcond
    (reach: -32768..+32767 words), for programs too large for the latter."""

    def __init__(self, nodes: int, long_branches: bool = False):
        self.nodes = nodes
        self.long_branches = long_branches
        self.skips = 0
        self.text: list[str] = []
        self.data: list[str] = []
        self.consts: dict[str, str] = {}
        self.nv: dict[str, list[str]] = {}
        #: words of .data the program writes (e.g. bl_<layer>)
        self.vars: list[str] = []

    def ins(self, op: str, *operands: str, comment: str = "") -> None:
        line = f"        {op:<8}{', '.join(operands)}"
        self.text.append(f"{line:<48}; {comment}" if comment else line)

    def branch(self, cond: str, target: str, comment: str = "") -> None:
        """``B<cond> target``, or with long branches ``B<not cond> skip; BR
        target; skip:`` (TMS320C3x User's Guide 13: Bcond takes a 16-bit
        PC-relative displacement, BR a 24-bit address)."""
        if not self.long_branches:
            self.ins(f"B{cond}", target, comment=comment)
            return
        self.skips += 1
        skip = f"_lb{self.skips}"
        self.ins(f"B{_INVERSE[cond]}", skip,
                 comment=f"long branch: B{cond} {target}" + (f" ({comment})" if comment else ""))
        self.ins("BR", target)
        self.label(skip)

    def label(self, name: str) -> None:
        self.text.append(f"{name}:")

    def comment(self, text: str) -> None:
        self.text.append(f"* {text}")

    def const(self, expr: str) -> str:
        """A .data word holding ``expr`` (an address or a large number)."""
        if expr not in self.consts:
            self.consts[expr] = f"k{len(self.consts)}"
        return self.consts[expr]

    def pernode(self, name: str, values: list) -> Var:
        """A per-node variable: node k reads ``values[k]`` at @name."""
        sym = f"nv_{name}"
        vals = [str(v) for v in values]
        if len(set(vals)) == 1:                  # the same everywhere: a constant
            return Var(self.const(vals[0]))
        if sym in self.nv and self.nv[sym] != vals:
            raise AssertionError(f"per-node variable {sym} defined twice")
        self.nv[sym] = vals
        return Var(sym)

    def load(self, reg: str, v) -> None:
        if isinstance(v, Imm):
            if -32768 <= v.value <= 32767:
                self.ins("LDI", str(v.value), reg)
            else:
                self.ins("LDI", "@" + self.const(str(v.value)), reg)
        elif isinstance(v, Addr):
            expr = v.sym if not v.offset else f"{v.sym}+{v.offset}"
            self.ins("LDI", "@" + self.const(expr), reg)
        elif isinstance(v, Var):
            self.ins("LDI", "@" + v.sym, reg)
        else:
            raise TypeError(v)

    def call(self, fn: str, ints=(), floats=(), comment: str = "") -> None:
        for reg, v in zip(INT_REGS, ints):
            self.load(reg, v)
        for reg, v in zip(FLOAT_REGS, floats):
            self.ins("LDF", "@" + v.sym, reg)
        self.ins("CALL", fn, comment=comment)


class _Gen:
    """Generates the program of one plan."""

    def __init__(self, plan: Plan, long_branches: bool = False):
        self.p = plan
        self.e = _Emitter(plan.nodes, long_branches)
        self.n = plan.nodes
        #: in a training pattern (the forward and backward hooks run there only)
        self.training = False
        #: the net whose pattern is being generated: None, the main net, or a
        #: sub-net (rapsim.compiler.nets.SubNet)
        self.sub = None

    # -- the net being generated (several nets: compiler/nets.py) -------------------
    def fwd_layers(self) -> list[str]:
        if self.sub is None:
            return self.p.forward
        return [n for n in self.sub.forward_order if n in self.p.forward]

    def bwd_layers(self) -> list[str]:
        if self.sub is None:
            return self.p.backward
        return [n for n in self.sub.backward_order if n in self.p.backward]

    def out_layers(self) -> list[str]:
        return self.p.outputs if self.sub is None else self.sub.outputs

    def incoming(self, name: str) -> list[ConnectPlan]:
        return [c for c in self.p.connects if c.connect.dst == name
                and (self.sub is None or c.index in self.sub.connects)]

    # -- per-node values of a layer -------------------------------------------------
    def rows(self, lp: LayerPlan) -> Var | Imm:
        return self.e.pernode(f"rows_{lp.name}", [lp.split.rows(k) for k in range(self.n)])

    def _ptr(self, tag: str, lp: LayerPlan, sym: str, offsets: list[int]):
        return self.e.pernode(f"{tag}_{lp.name}",
                              [f"{sym}+{o}" if o else sym for o in offsets])

    def act_own(self, lp: LayerPlan):
        """Node k's slice of a layer's activations."""
        return self._ptr("act", lp, lp.act.name, [lp.act_offset(k) for k in range(self.n)])

    def net_own(self, lp: LayerPlan) -> Addr:
        return Addr(lp.net.name)

    def err_own(self, lp: LayerPlan):
        return self._ptr("err", lp, lp.err.name,
                         [lp.split.lo(k) if lp.reduced else 0 for k in range(self.n)])

    def band_src(self, cp: ConnectPlan, sym: str) -> Var:
        """Node k's start in ``sym`` (the source's activations or partial
        error sums, or the stage holding them) of a band connect: the first
        own row's first source."""
        sp, dst = cp.sparse, self.p.layers[cp.connect.dst]
        return self.e.pernode(f"band{cp.index}_{sym}",
                              [f"{sym}+{o}" if o else sym
                               for o in (sp.start + dst.split.lo(k) * sp.stride
                                         for k in range(self.n))])

    # -- the stage: hot vectors kept in SRAM, copied on chip for a kernel ---------------
    def hot(self, buf, cp: ConnectPlan) -> str:
        """The symbol connect ``cp``'s kernel walks for ``buf``: ``buf``
        itself, or the on-chip stage after copying ``buf`` into it (when
        ``buf`` is staged and the copy pays: the busiest node walks it at
        least twice, the copy costs one pass)."""
        stage = self.p.stage
        if not buf.staged or stage is None or buf.words > stage.words:
            return buf.name
        dst = self.p.layers[cp.connect.dst]
        if cp.sparse is not None and not cp.band:
            passes = max(cp.sparse.pairs(k) for k in range(self.n)) / buf.words
        else:
            passes = dst.split.max_rows
        if passes < 2:
            return buf.name
        self.e.call("_vcopy", [Addr(stage.name), Addr(buf.name), Imm(buf.words)],
                    comment=f"{buf.name} into the stage")
        return stage.name

    def unstage(self, buf, sym: str) -> None:
        """After a kernel that added into the stage: copy it back to ``buf``."""
        if sym != buf.name:
            self.e.call("_vcopy", [Addr(buf.name), Addr(sym), Imm(buf.words)],
                        comment=f"{buf.name} back from the stage")

    def off_table(self, lp: LayerPlan) -> Addr:
        sym = f"off_{lp.name}"
        if not any(line.startswith(sym + ":") for line in self.e.data):
            self.e.data.append(f"{sym}:")
            self.e.data.append("        .word   " + ", ".join(map(str, lp.split.off)))
        return Addr(sym)

    def barrier(self) -> None:
        """Every node has finished the phase (the host then reads all logs)."""
        if self.n > 1:
            self.e.ins("CALL", "_ring_barrier", comment="all nodes done")

    def gather(self, lp: LayerPlan, buf) -> None:
        if self.n > 1:
            self.e.call("_ring_allgather", [Addr(buf.name), self.off_table(lp)],
                        comment=f"all-gather {buf.name}")

    # -- behaviours -------------------------------------------------------------------
    def hook(self, event: str, layer: str | None = None) -> None:
        """The behaviours of a hook point (compiler/behaviours.py): those of
        every net, then those of the net being trained (a pass event without
        a layer, or an epoch event: :meth:`epoch_hook`)."""
        if event in EPOCH_EVENTS:
            self.epoch_hook(event)
            return
        self.pass_hook(event, layer)
        if layer is None and event in LAYER_EVENTS:
            p = self.p
            self.pass_hook(event, None, p.network.name if self.sub is None else self.sub.name)

    def pass_hook(self, event: str, layer: str | None, net: str | None = None) -> None:
        """The description's assembly routines of exactly this point, called
        with AR2 = the epoch, AR3 = the current pattern's row, AR4 = the
        layer's own activations and AR5 = its own units (0 and 0 without a
        layer); then, for a host callback, a barrier (every node at this
        point) and a HOOK host call, whose answer 1 stops training."""
        e, p = self.e, self.p
        lp = p.layers[layer] if layer is not None else None
        for b in p.network.behaviours:
            if b.event != event or b.layer != layer or b.net != net:
                continue
            e.ins("LDI", "R5", "AR2")
            self.pattern_row("AR3")
            if lp is not None:
                e.load("AR4", self.act_own(lp))
                e.load("AR5", self.rows(lp))
            else:
                e.ins("LDI", "0", "AR4")
                e.ins("LDI", "0", "AR5")
            e.ins("CALL", b.routine, comment=f"behaviour {event} {layer or net or ''}")
        point = HookPoint(event, layer, net)
        if point not in p.host_hooks:
            return
        self.barrier()
        e.ins("LDI", str(SYS_HOOK), "R0")
        e.ins("LDI", str(p.host_hooks.index(point)), "AR2")
        e.ins("LDI", "R5", "AR3")
        names = [p.network.name] + [s.name for s in p.network.nets]
        if net is not None:
            e.ins("LDI", str(names.index(net)), "AR4")
        elif self.sub is not None:
            e.ins("LDI", str(names.index(self.sub.name)), "AR4")
        elif p.network.nets and p.network.training.alternate == "epoch" and not self.training:
            e.ins("LDI", "@" + self.netsel(), "AR4", comment="the net of the epoch")
        else:
            e.ins("LDI", "0", "AR4")
        e.ins("CALL", "_hostcall", comment=f"HOOK host call: {event} {layer or net or ''}")
        if event != "after_training":
            e.ins("CMPI", "0", "R0")
            e.branch("NZ", "done", comment="a host callback stopped training")

    # -- the passes -------------------------------------------------------------------
    def pattern_row(self, reg: str) -> None:
        """``reg`` = the current pattern's row in the database."""
        self.e.ins("LDI", "@cur", reg)

    def load_inputs(self) -> None:
        e, p = self.e, self.p
        for name in p.inputs:
            lp = p.layers[name]
            e.ins("LDI", "@cur", "R0")
            e.ins("MPYI", "@hv_in_stride", "R0")
            e.ins("ADDI", "@hv_db_in", "R0")
            if p.input_offset[name]:
                e.ins("ADDI", str(p.input_offset[name]), "R0")
            if lp.kind == "binary":             # the index list is read in place
                e.ins("STI", "R0", "@" + self.blist(lp).sym, comment=f"{name}: active units")
                continue
            e.ins("LDI", "R0", "AR3")
            e.load("AR2", Addr(lp.act.name))
            e.load("AR4", Imm(lp.layer.size))
            e.ins("CALL", "_vcopy", comment=f"input record -> {name}")

    def blist(self, lp: LayerPlan):
        """A binary layer's index list: the variable holding its address in
        the current input record, or a threshold layer's list buffer."""
        if lp.blist is not None:
            return Addr(lp.blist.name)
        sym = f"bl_{lp.name}"
        if sym not in self.e.vars:
            self.e.vars.append(sym)
        return Var(sym)

    def forward(self) -> None:
        e, p = self.e, self.p
        for name in self.fwd_layers():
            lp = p.layers[name]
            e.comment(f"forward: {name} ({lp.kind}, {lp.layer.size} units)")
            if self.training:
                self.hook("before_forward", name)
            rows, net = self.rows(lp), self.net_own(lp)
            first = True
            for cp in self.incoming(name):
                src = p.layers[cp.connect.src]
                if cp.kind in ("full", "sparse"):
                    if first:
                        b = Addr(lp.bias.name) if lp.bias else Imm(0)
                    else:
                        b = net
                    W, sp = Addr(cp.weights.name), cp.sparse
                    if cp.binary:
                        e.call("_bcolsum", [net, W, self.blist(src), rows, b],
                               comment=f"{cp.connect.name}: y = sum of the active columns")
                        first = False
                        continue
                    x = self.hot(src.act, cp)
                    if cp.kind == "full":
                        e.call("_mxv", [net, W, Addr(x), rows, Imm(src.layer.size), b],
                               comment=f"{cp.connect.name}: y = W x")
                    elif cp.band:
                        e.call("_mxvs", [net, W, self.band_src(cp, x), rows, Imm(sp.width),
                                         b, Imm(sp.stride)],
                               comment=f"{cp.connect.name}: y = W x (band)")
                    else:
                        e.call("_spmv", [net, W, Addr(x), rows, Addr(sp.cnt.name),
                                         Addr(sp.idx.name), b],
                               comment=f"{cp.connect.name}: y = W x (sparse)")
                else:                                   # bus: y += w .* x
                    tmp = Addr(lp.tmp.name)
                    e.call("_vmul", [tmp, Addr(cp.weights.name), self.act_own(src), rows],
                           comment=f"{cp.connect.name}: w .* x")
                    if first and lp.bias:
                        e.call("_vadd", [net, tmp, Addr(lp.bias.name), rows])
                    elif first:
                        e.call("_vcopy", [net, tmp, rows])
                    else:
                        e.call("_vadd", [net, net, tmp, rows])
                first = False
            act = self.act_own(lp)
            if lp.kind == "sigmoid":
                e.call("_vsigmoid", [act, net, rows])
            elif lp.kind == "tanh":
                e.call("_vtanh", [act, net, rows])
            elif lp.kind == "linear":
                e.call("_vcopy", [act, net, rows])
            elif lp.kind == "softmax":
                # each node its own slice: the maximum and the sum over the ring
                e.call("_vsoftmax_ring" if self.n > 1 else "_vsoftmax", [act, net, rows])
            elif lp.kind == "threshold":
                e.call("_vthreshold", [act, net, rows], comment="y = 1 where net > 0, else 0")
            elif lp.kind in p.network.transfers:
                t = p.network.transfers[lp.kind]
                e.call(t.forward, [act, net, rows], comment=f"transfer {t.name}: y = f(net)")
            else:
                raise RapError(f"layer {name}: no forward kernel for kind {lp.kind}")
            if lp.gathered:
                self.gather(lp, lp.act)
            if lp.blist is not None:
                e.call("_vactive", [Addr(lp.blist.name), Addr(lp.act.name), Imm(lp.layer.size)],
                       comment=f"{name}: the index list of its active units")
            if self.training:
                self.hook("after_forward", name)

    def log_outputs(self) -> None:
        e = self.e
        for name in self.p.outputs:
            lp = self.p.layers[name]
            rows = self.rows(lp)
            e.call("_vcopy", [Var(f"hv_log_{name}"), self.act_own(lp), rows],
                   comment=f"log {name}")
            e.ins("LDI", f"@hv_log_{name}", "R0")
            e.ins("ADDI", "@" + rows.sym, "R0")
            e.ins("STI", "R0", f"@hv_log_{name}")

    def deriv(self, lp: LayerPlan) -> str:
        t = self.p.network.transfers.get(lp.kind)
        if t is not None:
            return t.derivative
        return {"sigmoid": "_vsigmoid_deriv", "tanh": "_vtanh_deriv"}.get(lp.kind, "")

    def backward(self) -> None:
        e, p = self.e, self.p
        for name in self.bwd_layers():
            lp = p.layers[name]
            if lp.err is not None:
                e.call("_vfill", [Addr(lp.err.name), Imm(lp.err.words)], [Var("fzero")],
                       comment=f"clear {lp.err.name}")
        for name in self.bwd_layers():
            lp = p.layers[name]
            e.comment(f"backward: {name}")
            self.hook("before_backward", name)
            rows, act, delta = self.rows(lp), self.act_own(lp), Addr(lp.delta.name)
            tmp = Addr(lp.tmp.name)
            if name in self.out_layers():
                # target record of this node's slice
                toff = e.pernode(f"toff_{name}", [lp.target_offset + lp.split.lo(k)
                                                  for k in range(self.n)])
                e.ins("LDI", "@cur", "R0")
                e.ins("MPYI", "@hv_tgt_stride", "R0")
                e.ins("ADDI", "@hv_db_tgt", "R0")
                e.ins("ADDI", "@" + toff.sym, "R0")
                e.ins("LDI", "R0", "AR3")
                e.load("AR2", delta)
                e.load("AR4", act)
                e.load("AR5", rows)
                e.ins("CALL", "_vsub", comment="d = t - y")
                if p.network.training.error == "mse" and self.deriv(lp):
                    e.call(self.deriv(lp), [tmp, act, rows], comment="f'(net)")
                    e.call("_vmul", [delta, delta, tmp, rows], comment="d = (t - y) f'")
            else:
                if lp.reduced and self.n > 1:
                    e.call("_ring_reduce_scatter", [Addr(lp.err.name), self.off_table(lp)],
                           comment=f"sum the partial errors of {name}")
                err = self.err_own(lp)
                if self.deriv(lp):
                    e.call(self.deriv(lp), [tmp, act, rows], comment="f'(net)")
                    e.call("_vmul", [delta, err, tmp, rows], comment="d = e f'")
                else:
                    e.call("_vcopy", [delta, err, rows], comment="d = e (linear)")
            if lp.bias:
                self.update_vector(Addr(lp.bias.name), lp.bias_m, delta, rows, "bias")
            for cp in self.incoming(name):
                src = p.layers[cp.connect.src]
                W = Addr(cp.weights.name)
                if cp.binary:
                    if src.err is not None:     # a threshold layer: W^T d, column by column
                        y = self.hot(src.err, cp)
                        e.call("_bcoltv", [Addr(y), W, delta, rows, Imm(src.layer.size)],
                               comment=f"{cp.connect.name}: e += W^T d (columns)")
                        self.unstage(src.err, y)
                    if cp.momentum is not None:
                        e.call("_bcolupdm", [W, delta, self.blist(src), rows,
                                             Addr(cp.momentum.name)],
                               [Var("hv_eta"), Var("falpha")],
                               comment="active columns: M = aM + eta d, W += M")
                    else:
                        e.call("_bcolupd", [W, delta, self.blist(src), rows], [Var("hv_eta")],
                               comment="active columns: W += eta d")
                elif cp.kind == "full":
                    if src.err is not None:
                        y = self.hot(src.err, cp)
                        e.call("_mxtv", [Addr(y), W, delta, rows, Imm(src.layer.size)],
                               comment=f"{cp.connect.name}: e += W^T d")
                        self.unstage(src.err, y)
                    x = Addr(self.hot(src.act, cp))
                    if cp.momentum is not None:
                        e.call("_mxoutm", [W, delta, x, rows, Imm(src.layer.size),
                                           Addr(cp.momentum.name)],
                               [Var("hv_eta"), Var("falpha")], comment="W += M = aM + eta d x^T")
                    else:
                        e.call("_mxout", [W, delta, x, rows, Imm(src.layer.size)], [Var("hv_eta")],
                               comment="W += eta d x^T")
                elif cp.kind == "sparse":
                    self.sparse_backward(cp, src, delta, rows)
                else:
                    if src.err is not None:
                        e.call("_vmul", [tmp, W, delta, rows], comment=f"{cp.connect.name}: w d")
                        serr = self.err_own(src)
                        e.call("_vadd", [serr, serr, tmp, rows])
                    e.call("_vmul", [tmp, delta, self.act_own(src), rows], comment="d x")
                    self.update_vector(W, cp.momentum, tmp, rows, "bus weights")
            self.hook("after_backward", name)

    def sparse_backward(self, cp: ConnectPlan, src: LayerPlan, delta: Addr, rows) -> None:
        """A sparse connect: its partial error sums, then its update."""
        e, sp, name = self.e, cp.sparse, cp.connect.name
        W = Addr(cp.weights.name)
        M = Addr(cp.momentum.name) if cp.momentum is not None else None
        if cp.band:
            if src.err is not None:
                y = self.hot(src.err, cp)
                e.call("_mxtvs", [self.band_src(cp, y), W, delta, rows, Imm(sp.width),
                                  Imm(sp.stride)], comment=f"{name}: e += W^T d (band)")
                self.unstage(src.err, y)
            x = self.band_src(cp, self.hot(src.act, cp))
            if M is not None:
                e.call("_mxoutms", [W, delta, x, rows, Imm(sp.width), M, Imm(sp.stride)],
                       [Var("hv_eta"), Var("falpha")], comment="W += M = aM + eta d x^T")
            else:
                e.call("_mxouts", [W, delta, x, rows, Imm(sp.width), Imm(sp.stride)],
                       [Var("hv_eta")], comment="W += eta d x^T")
            return
        tables = [rows, Addr(sp.cnt.name), Addr(sp.idx.name)]
        if src.err is not None:
            y = self.hot(src.err, cp)
            e.call("_spmtv", [Addr(y), W, delta] + tables, comment=f"{name}: e += W^T d (sparse)")
            self.unstage(src.err, y)
        x = Addr(self.hot(src.act, cp))
        if M is not None:
            e.call("_spoutm", [W, delta, x] + tables + [M], [Var("hv_eta"), Var("falpha")],
                   comment="W += M = aM + eta d x^T")
        else:
            e.call("_spout", [W, delta, x] + tables, [Var("hv_eta")], comment="W += eta d x^T")

    def update_vector(self, w: Addr, m, g: Addr, rows, what: str) -> None:
        """w += eta g, or with momentum m = alpha m + eta g, w += m."""
        e = self.e
        if m is None:
            e.call("_vaxpy", [w, g, rows], [Var("hv_eta")], comment=f"{what} += eta d")
            return
        M = Addr(m.name)
        e.call("_vscale", [M, M, rows], [Var("falpha")], comment=f"{what}: m = alpha m")
        e.call("_vaxpy", [M, g, rows], [Var("hv_eta")], comment="m += eta d")
        e.call("_vadd", [w, w, M, rows], comment=f"{what} += m")

    # -- the program ------------------------------------------------------------------
    def hostcall(self, op: int, arg: str | None = None) -> None:
        e = self.e
        e.ins("LDI", str(SYS_TRAIN), "R0")
        e.ins("LDI", str(op), "AR2")
        e.ins("LDI", arg or "0", "AR3")
        e.ins("CALL", "_hostcall", comment="TRAIN host call")

    def pattern_loop(self, label: str, train: bool) -> None:
        """R4 patterns in the order the host wrote at hv_order: train them
        (forward, backward, update) or evaluate them (forward, log)."""
        e = self.e
        self.begin_pass(train)
        e.ins("LDI", "@hv_order", "AR7", comment="AR7: the pattern order")
        e.label(label)
        self.before_record()
        e.ins("LDI", "*AR7++", "R0")
        e.ins("STI", "R0", "@cur")
        self.load_inputs()
        nets = [None] + list(self.p.network.nets) if train else [None]
        if len(nets) > 1:                       # several nets: the one @netsel names
            e.ins("LDI", "@" + self.netsel(), "R0", comment="the net of this pattern")
            for k in range(1, len(nets)):
                e.ins("CMPI", str(k), "R0")
                e.branch("EQ", f"{label}_net{k}")
        for k, sub in enumerate(nets):
            if k:
                e.label(f"{label}_net{k}")
                e.comment(f"net {sub.name}")
            self.sub, self.training = sub, train
            if train:
                self.hook("before_forward")
            self.forward()
            if train:
                self.hook("after_forward")
                self.hook("before_backward")
                self.backward()
                self.hook("after_backward")
            else:
                self.log_outputs()
            self.sub, self.training = None, False
            if len(nets) > 1 and k < len(nets) - 1:
                e.ins("BR", f"{label}_tail")
        if len(nets) > 1:
            e.label(f"{label}_tail")
            if self.p.network.training.alternate == "pattern":
                self.advance_netsel()
        e.ins("SUBI", "1", "R4")
        e.branch("NZ", label)
        self.end_pass()

    # hooks of a pass over the patterns (a streamed database: rapsim.compiler.stream)
    def begin_pass(self, train: bool) -> None:
        """Before the first pattern of a pass (R4: its patterns)."""

    def before_record(self) -> None:
        """Before each pattern's ``cur`` is taken from the order (AR7)."""

    def end_pass(self) -> None:
        """After the last pattern of a pass, before the barrier."""

    def epoch_hook(self, event: str) -> None:
        """An epoch's hooks: those of every epoch, then those of one net
        (several nets): with ``alternate epoch`` only in the epochs that
        train it (a run-time test of netsel); with ``alternate pattern``
        every net trains in every epoch, so they run in every epoch."""
        p = self.p
        self.pass_hook(event, None)
        names = [p.network.name] + [s.name for s in p.network.nets]
        for k, name in enumerate(names):
            mine = ([b for b in p.network.behaviours if b.event == event and b.net == name]
                    or HookPoint(event, None, name) in p.host_hooks)
            if not mine:
                continue
            skip = None
            if p.network.nets and p.network.training.alternate == "epoch":
                skip = f"{event}_not{k}"
                self.e.ins("LDI", "@" + self.netsel(), "R0")
                self.e.ins("CMPI", str(k), "R0")
                self.e.branch("NE", skip, comment=f"not an epoch of net {name}")
            self.pass_hook(event, None, net=name)
            if skip:
                self.e.label(skip)

    def netsel(self) -> str:
        """The variable naming the net to train (0: the main net)."""
        if "netsel" not in self.e.vars:
            self.e.vars.append("netsel")
        return "netsel"

    def advance_netsel(self) -> None:
        """netsel = (netsel + 1) mod the number of nets."""
        e = self.e
        e.ins("LDI", "@" + self.netsel(), "R0")
        e.ins("ADDI", "1", "R0")
        e.ins("CMPI", str(1 + len(self.p.network.nets)), "R0")
        e.ins("LDIEQ", "0", "R0")
        e.ins("STI", "R0", "@netsel", comment="the next net")

    def program(self) -> str:
        e, p = self.e, self.p
        self.prologue()
        e.ins("LDI", "0", "R5", comment="R5: epoch")
        self.hook("before_training")
        e.label("epoch")
        self.hostcall(TRAIN_EPOCH, "R5")
        e.ins("LDI", "R0", "R4", comment="R4: patterns left")
        e.branch("LT", "no_host")
        e.branch("Z", "done")
        self.hook("before_epoch")
        if p.network.nets and p.network.training.alternate == "pattern":
            e.ins("LDI", "0", "R0")
            e.ins("STI", "R0", "@" + self.netsel(), comment="the main net first")
        self.pattern_loop("pattern", train=True)
        self.barrier()
        self.hostcall(TRAIN_TEST, "R5")
        e.ins("LDI", "R0", "R4")
        e.branch("LE", "next")
        self.pattern_loop("tpattern", train=False)
        self.barrier()
        e.label("next")
        self.hook("after_epoch")
        if p.network.nets and p.network.training.alternate == "epoch":
            self.advance_netsel()
        e.ins("ADDI", "1", "R5")
        e.ins("BR", "epoch")
        e.label("done")
        self.hook("after_training")
        e.ins("LDI", "0", "R0")
        e.ins("RETS")
        self.failures()
        return self.assemble_text()

    def prologue(self, before_ldp: tuple[str, ...] = ()) -> None:
        """``_main``: DP, the node count check, this node's row of the
        per-node table (``before_ldp``: instructions that run first, e.g.
        keeping main's arguments)."""
        e, p = self.e, self.p
        net = p.network
        e.comment(f"network {net.name}: {len(net.layers)} layers, {len(net.connects)} connects, "
                  f"{net.connections()} connections, on {self.n} nodes")
        e.label("_main")
        e.ins("LDP", "nv", comment="DP: the page of all .data (checked at link time)")
        for line in before_ldp:
            e.text.append(line)
        e.ins("LDI", "@k_ring", "AR0")
        e.ins("NOP")
        e.ins("LDI", "*+AR0(NODE_COUNT_OFS)", "R0")
        e.ins("CMPI", str(self.n), "R0")
        e.branch("NE", "wrong_n")
        e.ins("LDI", "*+AR0(NODE_ID_OFS)", "R0")
        e.ins("MPYI", "NV_WORDS", "R0")
        e.ins("ADDI", "@k_nvtab", "R0")
        e.ins("LDI", "R0", "AR3")
        e.ins("LDI", "@k_nv", "AR2")
        e.ins("LDI", "NV_WORDS", "AR4")
        e.ins("CALL", "_vcopy", comment="this node's row of the per-node table")

    def failures(self) -> None:
        """The exits with a message (exit status 2): a machine of another
        size, no training host."""
        e = self.e
        e.label("wrong_n")
        e.ins("LDI", "@k_wrongmsg", "AR3")
        e.ins("LDI", "wrongmsg_end-wrongmsg", "AR4")
        e.ins("BR", "fail")
        e.label("no_host")
        e.ins("LDI", "@k_nohostmsg", "AR3")
        e.ins("LDI", "nohostmsg_end-nohostmsg", "AR4")
        e.label("fail")
        e.ins("LDI", "STDERR", "AR2")
        e.ins("CALL", "_write")
        e.ins("LDI", "2", "AR2")
        e.ins("CALL", "_exit")

    def page_vars(self) -> list[str]:
        """More variables on the DP page (a subclass's own)."""
        return []

    def callees(self) -> set[str]:
        """The firmware routines the program calls (imported with .global)."""
        return {line.split()[1] for line in self.e.text
                if line.split()[:1] == ["CALL"] and line.split()[1] != "_main"}

    def assemble_text(self) -> str:
        e, p = self.e, self.p
        out = ['        .include "rap.inc"',
               "        .global _main, " + ", ".join(sorted(self.callees())),
               "        .global " + ", ".join(("cur",) + HOST_VARS + HOST_FLOATS
                                           + tuple(f"hv_log_{n}" for n in p.outputs)
                                           + tuple(v for v in e.vars if v == "netsel")),
               "        .text"]
        out += e.text
        out.append("        .data")
        # every variable and constant below sits on one DP page
        out.append("nv:")
        for sym in e.nv:
            out.append(f"{sym}: .word 0")
        out.append("NV_WORDS .set " + str(max(len(e.nv), 1)) + ("" if e.nv else "  ; (empty)"))
        if not e.nv:
            out.append("        .word 0")
        out.append("cur:    .word 0")
        for v in e.vars:
            out.append(f"{v}: .word 0")
        for v in HOST_VARS:
            out.append(f"{v}: .word 0")
        for n in p.outputs:
            out.append(f"hv_log_{n}: .word 0")
        out.append("hv_eta: .float 0.0")
        out.append("fzero:  .float 0.0")
        out.append(f"falpha: .float {p.momentum!r}")
        out.append("k_ring: .word RINGIO_BASE")
        out.append("k_nv:   .word nv")
        out.append("k_nvtab: .word nvtab")
        out.append("k_wrongmsg: .word wrongmsg")
        out.append("k_nohostmsg: .word nohostmsg")
        out += self.page_vars()
        for expr, sym in e.consts.items():
            out.append(f"{sym}: .word {expr}")
        # the end of what @ addresses; the rest is reached through pointers
        # (k_nvtab, the k<n> constants of the off_ tables, the messages), so
        # the per-node table (NV_WORDS x nodes words) needs no room on the page
        out.append("dataend:")
        out += e.data
        out.append("nvtab:")
        for k in range(self.n):
            vals = [e.nv[s][k] for s in e.nv] or ["0"]
            out.append("        .word   " + ", ".join(vals))
        out.append("wrongmsg:")
        out.append(f'        .string "this program was compiled for {self.n} node'
                   f'{"s" if self.n > 1 else ""}", 10')
        out.append("wrongmsg_end:")
        out.append("nohostmsg:")
        out.append(f'        .string "{NO_HOST_MESSAGE.strip()}", 10')
        out.append("nohostmsg_end:")
        out.append("        .global dataend, nv, nvtab")
        # buffers
        for b in p.buffers:
            out.append(f"        .global {b.name}")
            if b.region == "chip":              # both on-chip blocks: the stage alone
                out.append(f"{b.name} .set RAM0_BASE")
            else:
                out.append(f'{b.name} .usect "{b.section}", {b.words}')
        return "\n".join(out) + "\n"


def generate(plan: Plan, long_branches: bool = False) -> str:
    """The assembly source of ``plan``'s SPMD training program
    (``long_branches``: see :class:`_Emitter`)."""
    return _Gen(plan, long_branches).program()
