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
from rapsim.compiler import phases, prefetch, sharing
from rapsim.compiler.lower import ConnectPlan, LayerPlan, Plan, Split, columns_kernel
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
            "LE": "GT", "GT": "LE", "N": "NN", "NN": "N"}


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
        #: float constants on the DP page: value -> symbol (fconst)
        self.floats: dict[float, str] = {}

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

    def fconst(self, value: float) -> Var:
        """A float constant on the DP page, for a kernel's R2/R3 argument."""
        if value not in self.floats:
            self.floats[value] = f"kf{len(self.floats)}"
        return Var(self.floats[value])

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


#: overlap on: the fewest words per node of a reduce-scatter run during an
#: update.  Below it the fused chain's third cycle per word costs more than
#: the update's saved one (measured: square 128 on 40 and 64 nodes, 3.2 and
#: 2 words per node, 2 % slower; docs/compiler.md "Overlapped collectives")
OVERLAP_MIN_WORDS = 4

#: overlap on with momentum (_ring_rs_mxoutm): the cycles per node that the
#: rule below charges for the fused chain's higher cost per node (measured
#: about 9 more than the blocking reduce-scatter's 13: 21-24 on 40 nodes).
#: 12: speech 234-512-61 (momentum 0.5) fused was 113 cycles a training
#: pattern faster on 16 nodes and 24 slower on 40, where 468 < 12 x 40
#: leaves it blocking (docs/compiler.md "Overlapped collectives")
OVERLAP_MOMENTUM_PER_NODE = 12


def momentum_overlap_pays(words: int, nodes: int) -> bool:
    """Whether the reduce-scatter of ``words`` words on ``nodes`` nodes runs
    during an update with momentum (**choice**, docs/compiler.md
    "Overlapped collectives"): the fused row saves a cycle for each word
    the node does not keep (5 instead of 4 + 2), but the weights beside its
    own slice (ceil(words / nodes)) are left for after the chain, 4 cycles
    each, and the chain's cost per node grows (a word stays 3 instructions
    at a node instead of 1): fused when words - 4 ceil(words / nodes) is at
    least OVERLAP_MOMENTUM_PER_NODE x nodes."""
    own = -(-words // nodes)
    return words - 4 * own >= OVERLAP_MOMENTUM_PER_NODE * nodes


class _Gen:
    """Generates the program of one plan."""

    def __init__(self, plan: Plan, long_branches: bool = False):
        self.p = plan
        self.e = _Emitter(plan.nodes, long_branches)
        self.n = plan.nodes
        #: the data mapping: whole layers on every node, updates into the
        #: batch's weight changes (plan.grad), all-reduced every batch
        self.data = plan.grad is not None
        #: the hybrid mapping: the lower layers on each node's own pattern,
        #: the upper ones split by units over a round's N patterns
        self.hybrid = plan.hybrid
        #: the checkerboard: every connect's weights in blocks on a grid
        self.grid = plan.mapping.grid if plan.mapping is not None else None
        #: in a training pattern (the forward and backward hooks run there only)
        self.training = False
        #: the net whose pattern is being generated: None, the main net, or a
        #: sub-net (rapsim.compiler.nets.SubNet)
        self.sub = None
        #: where the forward pass writes a layer's own activations (None: its
        #: act buffer; the streaming schedule's frames: the next state's)
        self.dest = None
        #: overlap on: the layers whose reduce-scatter ran during an update
        #: (:meth:`overlapped_rs`), in the backward pass being generated
        self.rs_overlapped: set[str] = set()
        #: overlap ring: layer -> (the connect whose update could run its
        #: reduce-scatter, why it does not: "" when it does)
        self.rs_reasons: dict[str, tuple] = {}
        #: layer -> the connect whose _mxtvw writes its partial error sums
        #: (:meth:`first_error_writers`), in the backward pass being generated
        self.err_first: dict = {}
        #: the input layer whose next record an evaluation pattern fetches
        #: by DMA (compiler/prefetch.py; None: every record copied)
        self.prefetch = prefetch.target(self)
        #: out-of-line code to place after the pattern loop being generated
        self.out_of_line: list = []

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

    def bus_src(self, src: LayerPlan, dst: LayerPlan):
        """The source units of a bus connect that match node k's units of
        ``dst``: the source's own slice, or, when the two layers are split
        differently (an input layer, held whole, into a layer on a node
        group), the whole source vector at the destination's offset."""
        if src.split == dst.split:
            return self.act_own(src)
        if not src.gathered:
            raise RapError(f"bus connect {src.name}->{dst.name}: the layers are split "
                           f"differently and {src.name} is not held whole")
        return self._ptr("busx", dst, src.act.name, [dst.split.lo(k) for k in range(self.n)])

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
        return self.table(f"off_{lp.name}", lp.split.off)

    def table(self, sym: str, offsets) -> Addr:
        """A slice table of the ring collectives in .data (once)."""
        if not any(line.startswith(sym + ":") for line in self.e.data):
            self.e.data.append(f"{sym}:")
            self.e.data.append("        .word   " + ", ".join(map(str, offsets)))
        return Addr(sym)

    def barrier(self) -> None:
        """Every node has finished the phase (the host then reads all logs)."""
        if self.n > 1:
            self.e.ins("CALL", "_ring_barrier", comment="all nodes done")

    def split(self, lp: LayerPlan) -> bool:
        """The layer's units are divided over several nodes."""
        return self.n > 1 and not lp.split.whole

    def gather(self, lp: LayerPlan, buf) -> None:
        if self.split(lp):
            self.layer_collective("allgather", lp, buf, f"all-gather {buf.name}")

    def layer_collective(self, kind: str, lp: LayerPlan, buf, comment: str) -> None:
        """The all-gather or reduce-scatter of ``buf`` over the layer's
        split: the chain or the rotation, whichever --collectives and the
        cycle formulas choose (rapsim.compiler.collectives), the rotation
        with its plan in the data; the choice goes to plan.collective_report."""
        from rapsim.compiler.collectives import choose
        c = choose(kind, lp.split.off, buf.region or "sram", self.p.collectives)
        args = [Addr(buf.name), self.off_table(lp)]
        if c.plan is not None:
            args.append(self.table(f"rot{kind[0]}_{lp.name}", c.plan))
        self.e.call(c.routine, args, comment=f"{comment} ({c.routine})")
        report = self.p.collective_report
        if not any(r["layer"] == lp.name and r["collective"] == kind for r in report):
            report.append({"layer": lp.name, "collective": kind, "routine": c.routine,
                           "chain_cycles": round(c.chain_cycles),
                           "rotation_cycles": None if c.rotation_cycles is None
                           else round(c.rotation_cycles)})

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
            main = self.sub is None or self.sub in p.network.phases.values()
            self.pass_hook(event, None, p.network.name if main else self.sub.name)

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
        p = self.p
        for name in p.inputs:
            lp = p.layers[name]
            if name == self.prefetch:           # forward() takes it (compiler/prefetch.py)
                continue
            if lp.kind == "binary":             # the index list is read in place
                self.input_address(name)
                self.e.ins("STI", "R0", "@" + self.blist(lp).sym,
                           comment=f"{name}: active units")
            else:
                self.copy_input(name)

    def input_address(self, name: str, row: str = "@cur") -> None:
        """R0 = the address of input layer ``name``'s values in the record
        whose row ``row`` names (``@cur``, or ``*AR7``: the next in the
        order, compiler/prefetch.py)."""
        e = self.e
        e.ins("LDI", row, "R0")
        e.ins("MPYI", "@hv_in_stride", "R0")
        e.ins("ADDI", "@hv_db_in", "R0")
        if self.p.input_offset[name]:
            e.ins("ADDI", str(self.p.input_offset[name]), "R0")

    def copy_input(self, name: str) -> None:
        """The current record's values copied into input layer ``name``."""
        e, lp = self.e, self.p.layers[name]
        self.input_address(name)
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

    def part(self, names: list[str], part: str | None) -> list[str]:
        """The layers of ``names`` in ``part`` of a hybrid: "lower" (split by
        patterns), "upper" (split by units); None: all of them."""
        if part is None:
            return names
        return [n for n in names if self.p.lower_layer(n) == (part == "lower")]

    # -- the checkerboard: weight blocks on a grid ----------------------------------------
    def _at(self, tag: str, sym: str, offsets: list[int]):
        return self.e.pernode(tag, [f"{sym}+{o}" if o else sym for o in offsets])

    def block(self, cp: ConnectPlan):
        """Node k's block of ``cp``: its rows and columns (per-node values;
        no rows when the node has no columns), and the offsets of its first
        row in the destination and of its first column in the source."""
        blocks = [cp.block_of(k, self.grid) for k in range(self.n)]
        cols = [b[1].stop - b[1].start for b in blocks]
        rows = [b[0].stop - b[0].start if c else 0 for b, c in zip(blocks, cols)]
        e = self.e
        return (e.pernode(f"cbr{cp.index}", rows), e.pernode(f"cbc{cp.index}", [max(c, 1) for c in cols]),
                [b[0].start for b in blocks], [b[1].start for b in blocks])

    def forward_blocks(self, lp: LayerPlan) -> None:
        """The net inputs of a layer under the checkerboard (Girau's cb):
        every node multiplies its block of each incoming weight matrix by its
        columns of the source (held whole: all-gathered) into its rows of
        the partial sums; a reduce-scatter with the layer's split sums the
        grid rows' partial products and leaves each node its own units."""
        e, p = self.e, self.p
        self.clear_sums(lp)
        for cp in (c for c in p.connects if c.connect.dst == lp.name):
            src = p.layers[cp.connect.src]
            rows, cols, r0, c0 = self.block(cp)
            y = self._at(f"cby{cp.index}", lp.pnet.name, r0)
            x = self.hot(src.act, cp)
            e.call("_mxv", [y, Addr(cp.weights.name), self._at(f"cbx{cp.index}_{x}", x, c0),
                            rows, cols, y], comment=f"{cp.connect.name}: y += W_ij x_j (block)")
        if self.n > 1:
            # grid row i (ring positions i c .. i c + c - 1) sums its partial
            # products of R_i down the row into its last node, the owner of R_i
            r, c = self.grid
            rows = Split.even(lp.layer.size, r)
            row = [k // c for k in range(self.n)]
            e.call("_subring_reduce",
                   [self._at(f"cbrow_{lp.name}", lp.pnet.name, [rows.lo(i) for i in row]),
                    e.pernode(f"cbrn_{lp.name}", [rows.rows(i) for i in row]),
                    e.pernode("cbfirst", [i * c for i in row]),
                    e.pernode("cblast", [i * c + c - 1 for i in row])],
                   comment=f"sum the grid row's partial products of {lp.name} (sub-ring)")
        self.net_from_sums(lp)

    def clear_sums(self, lp: LayerPlan) -> Addr:
        """Clear a layer's partial net inputs (the checkerboard's blocks, a
        transposed shared matrix): a whole vector every node adds into."""
        pnet = Addr(lp.pnet.name)
        self.e.call("_vfill", [pnet, Imm(lp.pnet.words)], [Var("fzero")],
                    comment=f"clear {lp.pnet.name}")
        return pnet

    def net_from_sums(self, lp: LayerPlan) -> None:
        """net = the node's own units of the summed partial net inputs (+ bias)."""
        e = self.e
        own = self._at(f"pnet_{lp.name}", lp.pnet.name, [lp.split.lo(k) for k in range(self.n)])
        if lp.bias:
            e.call("_vadd", [self.net_own(lp), own, Addr(lp.bias.name), self.rows(lp)],
                   comment="net = sum + bias")
        else:
            e.call("_vcopy", [self.net_own(lp), own, self.rows(lp)])

    def gather_delta(self, lp: LayerPlan, delta: Addr, rows) -> str:
        """The node's error signal into the layer's whole error vector, then
        all-gathered (every node's weight rows meet all of it)."""
        e, dall = self.e, lp.dwhole.name
        e.call("_vcopy", [self._at(f"dall_{lp.name}", dall,
                                   [lp.split.lo(k) for k in range(self.n)]), delta, rows],
               comment="this node's error signal into the whole vector")
        if self.split(lp):
            self.layer_collective("allgather", lp, lp.dwhole, f"all-gather {dall}")
        return dall

    def backward_blocks(self, lp: LayerPlan, delta: Addr, rows) -> None:
        """The checkerboard's backward step of a layer's incoming weights:
        the error signal all-gathered (every node needs its block's rows),
        then per block ``e_j += W_ij^T d_i`` into the source's partial error
        sums (reduce-scattered at the source, as in rows) and ``W_ij += eta
        d_i x_j^T``."""
        e, p = self.e, self.p
        dall = self.gather_delta(lp, delta, rows)
        for cp in (c for c in p.connects if c.connect.dst == lp.name):
            src = p.layers[cp.connect.src]
            brows, bcols, r0, c0 = self.block(cp)
            d = self._at(f"cbd{cp.index}", dall, r0)
            W = Addr(cp.weights.name)
            if src.err is not None:
                y = self.hot(src.err, cp)
                e.call("_mxtv", [self._at(f"cbe{cp.index}_{y}", y, c0), W, d, brows, bcols],
                       comment=f"{cp.connect.name}: e_j += W_ij^T d_i")
                self.unstage(src.err, y)
            xs = self.hot(src.act, cp)
            x = self._at(f"cbx{cp.index}_{xs}", xs, c0)
            if cp.momentum is not None:
                e.call("_mxoutm", [W, d, x, brows, bcols, Addr(cp.momentum.name)],
                       [Var("hv_eta"), Var("falpha")], comment="W_ij += M = aM + eta d_i x_j^T")
            else:
                e.call("_mxout", [W, d, x, brows, bcols], [Var("hv_eta")],
                       comment="W_ij += eta d_i x_j^T")

    # -- parameter sharing: a matrix used transposed (compiler/sharing.py) ---------------
    def forward_transposed(self, lp: LayerPlan) -> None:
        """The net input of a layer fed through shared matrices used
        transposed (``y = W^T x``): every node's rows of W are those of the
        source's own units, so each node multiplies them by its own slice of
        the source (``_mxtv``) into the partial net inputs, a whole vector;
        a reduce-scatter with the layer's split sums them and leaves each
        node its own units.  Then ``net = own sums + bias``; the other
        incoming connects add to it."""
        e, p = self.e, self.p
        pnet = Addr(lp.pnet.name)
        for n, cp in enumerate(c for c in self.incoming(lp.name) if c.by_source):
            src = p.layers[cp.connect.src]
            # the first writes the sums (no clearing: 0 + a b is a b, matrix.asm
            # _mxtvw); a connect split by columns takes two rows a pass (_mxtv2,
            # its own summation order: reference.Model._by_columns), or four
            # where that pays (_mxtv4: lower.columns_kernel)
            first = columns_kernel(src.split.off, lp.layer.size) if cp.columns else "_mxtvw"
            kernel = first.rstrip("w") + ("w" if n == 0 else "")
            e.call(kernel, [pnet, Addr(cp.weights.name), self.act_own(src), self.rows(src),
                            Imm(lp.layer.size)],
                   comment=f"{cp.connect.name}: y {'=' if n == 0 else '+='} W^T x "
                           f"({self.by_source_what(cp)})")
        if self.split(lp):
            self.layer_collective("reduce_scatter", lp, lp.pnet,
                                  f"sum the partial net inputs of {lp.name}")
        self.net_from_sums(lp)

    def backward_transposed(self, lp: LayerPlan, delta: Addr, rows) -> None:
        """The backward step of the shared matrices used transposed into a
        layer: its error signal all-gathered (every node's rows of W meet
        all of it), then each node's error sums of the source's own units,
        ``e_own += W_own d`` (``_mxv`` into the own slice, before the
        source's reduce-scatter, which adds nothing to it from the other
        nodes).  The updates come after the backward pass
        (:meth:`shared_updates`)."""
        e, p = self.e, self.p
        dall = self.gather_delta(lp, delta, rows)
        for cp in (c for c in self.incoming(lp.name) if c.by_source):
            src = p.layers[cp.connect.src]
            if src.err is not None:
                err = self.err_own(src)
                first = self.err_written_by(src) is cp      # then nothing to add to: 0 + s = s
                e.call("_mxv", [err, Addr(cp.weights.name), Addr(dall), self.rows(src),
                                Imm(lp.layer.size), Imm(0) if first else err],
                       comment=f"{cp.connect.name}: e {'=' if first else '+='} W d "
                               f"({self.by_source_what(cp)})")
            if cp.columns:      # its own update right away (shared ones: shared_updates)
                W = Addr(cp.weights.name)
                d, x, n, cols = self.act_own(src), Addr(dall), self.rows(src), Imm(lp.layer.size)
                if cp.momentum is not None:
                    e.call("_mxoutm", [W, d, x, n, cols, Addr(cp.momentum.name)],
                           [Var("hv_eta"), Var("falpha")],
                           comment=f"{cp.connect.name} (columns): W^T += M = aM + eta x d^T")
                else:       # weights on chip: _mxoutc, the same words (lower._onchip_columns)
                    chip = cp.weights.region in ("ram0", "ram1")
                    e.call("_mxoutc" if chip else "_mxout", [W, d, x, n, cols], [Var("hv_eta")],
                           comment=f"{cp.connect.name} (columns): W^T += eta x d^T")

    def first_error_writers(self, names: list[str], part: str | None) -> dict:
        """The layers whose partial error sums (a whole vector) are first
        added to by a plain full connect's ``W^T d`` in the backward pass
        of ``names``: layer -> that connect, whose ``_mxtvw`` then writes
        the vector instead of adding into a cleared one (the same words:
        0 + a b is a b; matrix.asm).  Not for a hybrid's parts, the
        checkerboard or an error vector copied into the stage."""
        p = self.p
        if part is not None or self.grid is not None:
            return {}
        first: dict = {}
        for name in names:
            cps = self.incoming(name)
            for cp in [c for c in cps if c.by_source] + [c for c in cps if not c.by_source]:
                src = p.layers[cp.connect.src]
                if src.err is not None and src.name not in first:
                    first[src.name] = cp
        return {n: cp for n, cp in first.items()
                if cp.kind == "full" and not cp.binary and not cp.by_source
                and p.layers[n].reduced and not p.layers[n].err.staged}

    def err_written_by(self, lp: LayerPlan) -> ConnectPlan | None:
        """The connect split by columns that alone makes a layer's error
        sums (its only outgoing connect; the sums are the node's own
        slice): its ``_mxv`` writes them instead of adding into a cleared
        vector (the same words: 0 + s is s).  None otherwise."""
        out = [cp for cp in self.p.connects if cp.connect.src == lp.name
               and (self.sub is None or cp.index in self.sub.connects)]
        if lp.reduced or len(out) != 1 or not out[0].columns:
            return None
        return out[0]

    @staticmethod
    def by_source_what(cp: ConnectPlan) -> str:
        return "split by columns" if cp.columns else f"shares {cp.connect.share}"

    def shared_updates(self) -> None:
        """The changes of every shared matrix, after the whole backward pass
        (each connect's error sums used the weights as they were before the
        pattern), in the connects' definition order: the first ``W += eta d
        x^T`` (with momentum ``M = alpha M + eta d x^T; W += M``), each next
        one ``W += eta d x^T`` (with momentum ``M += eta d x^T`` too); a
        transposed use adds ``eta x d^T`` to the owner's rows of its
        source's own units (compiler/sharing.py)."""
        e, p = self.e, self.p
        plans = {cp.connect.name: cp for cp in p.connects}
        for key, group in sharing.apply_order(p.network.connects).items():
            group = [c for c in group if self.sub is None or plans[c.name].index in self.sub.connects]
            for n, c in enumerate(group):
                cp = plans[c.name]
                W = Addr(cp.weights.name)
                M = Addr(cp.momentum.name) if cp.momentum is not None else None
                src, dst = p.layers[c.src], p.layers[c.dst]
                if c.transpose:
                    d, x, rows, cols = self.act_own(src), Addr(dst.dwhole.name), self.rows(src), \
                        Imm(dst.layer.size)
                    what = f"{c.name} (transposed)"
                else:
                    d, x, rows, cols = Addr(dst.delta.name), Addr(self.hot(src.act, cp)), \
                        self.rows(dst), Imm(src.layer.size)
                    what = c.name
                if M is not None and n == 0:
                    e.call("_mxoutm", [W, d, x, rows, cols, M], [Var("hv_eta"), Var("falpha")],
                           comment=f"shared {key}, {what}: W += M = aM + eta d x^T")
                    continue
                if M is not None:
                    e.call("_mxout", [M, d, x, rows, cols], [Var("hv_eta")],
                           comment=f"shared {key}, {what}: M += eta d x^T")
                e.call("_mxout", [W, d, x, rows, cols], [Var("hv_eta")],
                       comment=f"shared {key}, {what}: W += eta d x^T")

    def forward(self, part: str | None = None, tick: bool = False,
                exchange: bool = True) -> None:
        """The forward pass of one pattern; ``tick``: one tick of the
        pipeline (compiler/pipeline.py): the layers in backward order, so
        that each reads its sources as the previous tick left them, then
        the ring's part of a softmax split over a group (its maximum and
        sum: a collective, which would hold the other stages back if it
        came between them) and the all-gathers, after all of them (without
        ``exchange``: left in ``self.pending`` for the caller)."""
        e, p = self.e, self.p
        gathers = [] if tick else None
        softmax = []
        names = self.part(self.fwd_layers(), part)
        if self.prefetch is not None:
            if self.training:
                self.copy_input(self.prefetch)
            else:
                self.out_of_line.append(prefetch.receive(self, self.prefetch, "pfi"))
        fuse = None     # (layer, connect): the layer's all-gather left to that product
        for i, name in enumerate(names[::-1] if tick else names):
            lp = p.layers[name]
            e.comment(f"forward: {name} ({lp.kind}, {lp.layer.size} units)")
            if self.training:
                self.hook("before_forward", name)
            rows, net = self.rows(lp), self.net_own(lp)
            first = True
            if self.grid is not None:
                self.forward_blocks(lp)
            elif any(cp.by_source for cp in self.incoming(name)):
                self.forward_transposed(lp)
                first = False
            for cp in (self.incoming(name) if self.grid is None else []):
                if cp.by_source:
                    continue
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
                    if cp.kind == "full" and fuse is not None and fuse[1] is cp:
                        e.call("_ring_allgather_mxv", [Addr(x), self.off_table(src), net, W,
                                                       rows, b],
                               comment=f"all-gather {x} streamed into {cp.connect.name}: "
                                       f"y = W x (overlap on)")
                        fuse = None
                    elif cp.kind == "full":
                        e.call("_mxv", [net, W, Addr(x), rows, Imm(src.layer.size), b],
                               comment=f"{cp.connect.name}: y = W x")
                        if src.name == self.prefetch and not self.training:
                            prefetch.send(self, src.name, "pfo")
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
                    e.call("_vmul", [tmp, Addr(cp.weights.name), self.bus_src(src, lp), rows],
                           comment=f"{cp.connect.name}: w .* x")
                    if first and lp.bias:
                        e.call("_vadd", [net, tmp, Addr(lp.bias.name), rows])
                    elif first:
                        e.call("_vcopy", [net, tmp, rows])
                    else:
                        e.call("_vadd", [net, net, tmp, rows])
                first = False
            act = self.act_own(lp) if self.dest is None else self.dest(lp)
            if lp.kind == "sigmoid":
                e.call("_vsigmoid", [act, net, rows])
            elif lp.kind == "tanh":
                e.call("_vtanh", [act, net, rows])
            elif lp.kind == "linear":
                e.call("_vcopy", [act, net, rows])
            elif lp.kind == "softmax" and gathers is not None and self.split(lp):
                softmax.append((act, net, rows))    # its ring sums after every stage's work
            elif lp.kind == "softmax":
                # each node its own slice: the maximum and the sum over the ring
                e.call("_vsoftmax_ring" if self.split(lp) else "_vsoftmax", [act, net, rows])
            elif lp.kind == "threshold":
                e.call("_vthreshold", [act, net, rows], comment="y = 1 where net > 0, else 0")
            elif lp.kind in p.network.transfers:
                t = p.network.transfers[lp.kind]
                e.call(t.forward, [act, net, rows], comment=f"transfer {t.name}: y = f(net)")
            else:
                raise RapError(f"layer {name}: no forward kernel for kind {lp.kind}")
            if lp.gathered and gathers is not None:
                gathers.append(lp)
            elif lp.gathered:
                cp = self.fused_gather(lp, names[i + 1] if i + 1 < len(names) else None, part)
                if cp is None:
                    self.gather(lp, lp.act)
                else:
                    fuse = (lp, cp)
            if lp.blist is not None:
                e.call("_vactive", [Addr(lp.blist.name), Addr(lp.act.name), Imm(lp.layer.size)],
                       comment=f"{name}: the index list of its active units")
            if self.training:
                self.hook("after_forward", name)
        if fuse is not None:
            raise RapError(f"internal error: the all-gather of {fuse[0].name} was left to "
                           f"{fuse[1].connect.name}, which was not generated")
        for args in softmax:
            e.call("_vsoftmax_ring", list(args), comment="softmax: maximum and sum over the ring")
        if not exchange:
            self.pending = gathers or []
            return
        for lp in gathers or []:
            self.gather(lp, lp.act)

    def pipeline_loop(self, label: str) -> None:
        """The pipelined evaluation pass (compiler/pipeline.py): R4
        patterns in R4 + S - 1 ticks; a tick loads the next pattern's input
        record while there is one (the first R4 ticks), runs every stage
        (:meth:`forward` with ``tick``) and logs the outputs once the first
        pattern has reached the output stage (from tick S - 1 on)."""
        from rapsim.compiler.pipeline import stages
        e, fill = self.e, stages(self.p.network).fill
        e.comment(f"pipelined evaluation: {fill} ticks to fill, {fill} to drain")
        e.ins("LDI", "@hv_order", "AR7", comment="AR7: the pattern order")
        if fill:
            e.ins("ADDI", str(fill), "R4", comment="R4: ticks left (patterns + fill)")
            e.ins("LDI", str(fill), "R6", comment="R6: ticks before the first output")
        e.label(label)
        if fill:
            e.ins("CMPI", str(fill), "R4")
            e.branch("LE", f"{label}_drain", comment="draining: no new pattern")
        e.ins("LDI", "*AR7++", "R0")
        e.ins("STI", "R0", "@cur")
        self.load_inputs()
        e.label(f"{label}_drain")
        self.forward(tick=True)
        if fill:
            e.ins("CMPI", "0", "R6")
            e.branch("EQ", f"{label}_out")
            e.ins("SUBI", "1", "R6", comment="filling: no output yet")
            e.ins("BR", f"{label}_next")
            e.label(f"{label}_out")
        self.log_outputs()
        e.label(f"{label}_next")
        e.ins("SUBI", "1", "R4")
        e.branch("NZ", label)

    def log_outputs(self) -> None:
        e = self.e
        for name in self.p.outputs:
            lp = self.p.layers[name]
            rows = self.rows(lp)
            if name not in self.out_layers():   # a phase's net without it: zeros
                e.call("_vfill", [Var(f"hv_log_{name}"), rows], [Var("fzero")],
                       comment=f"log {name}: not in this net")
            else:
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

    def backward(self, part: str | None = None) -> None:
        """The backward pass (a hybrid's ``part``: :meth:`part`; the cut's
        errors are cleared by the upper part, and the lower part starts
        from their sums over the ring)."""
        e, p = self.e, self.p
        names = self.part(self.bwd_layers(), part)
        shared = sharing.apply_order(p.network.connects)
        cleared = [n for n in names if not (part == "lower" and n in p.cut)]
        if part == "upper":
            cleared += p.cut
        self.err_first = self.first_error_writers(names, part)
        for name in cleared:
            lp = p.layers[name]
            if lp.err is not None and self.err_written_by(lp) is None \
                    and name not in self.err_first:
                e.call("_vfill", [Addr(lp.err.name), Imm(lp.err.words)], [Var("fzero")],
                       comment=f"clear {lp.err.name}")
        self.rs_overlapped, self.rs_reasons = set(), {}
        for at, name in enumerate(names):
            lp = p.layers[name]
            after = names[at + 1] if at + 1 < len(names) else None
            e.comment(f"backward: {name}")
            self.hook("before_backward", name)
            rows, act, delta = self.rows(lp), self.act_own(lp), Addr(lp.delta.name)
            tmp = Addr(lp.tmp.name)
            if name in self.out_layers():
                e.ins("LDI", "@cur", "R0")
                self.output_error(lp, act)
            else:
                if lp.reduced and self.split(lp) and name not in self.rs_overlapped:
                    self.layer_collective("reduce_scatter", lp, lp.err,
                                          f"sum the partial errors of {name}")
                self.hidden_error(lp, act)
            if lp.bias:
                self.update_vector(*self.target(Addr(lp.bias.name), lp.bias_m, f"b{name}"),
                                   delta, rows, "bias")
            if self.grid is not None:
                self.backward_blocks(lp, delta, rows)
            elif any(cp.by_source for cp in self.incoming(name)):
                self.backward_transposed(lp, delta, rows)
            for cp in (self.incoming(name) if self.grid is None else []):
                if cp.by_source:
                    continue
                src = p.layers[cp.connect.src]
                W = Addr(cp.weights.name)
                U, M = self.target(W, cp.momentum, f"w{cp.index}")
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
                    if src.err is not None and self.err_first.get(src.name) is cp:
                        e.call("_mxtvw", [Addr(src.err.name), W, delta, rows,
                                          Imm(src.layer.size)],
                               comment=f"{cp.connect.name}: e = W^T d (the first: not cleared)")
                    elif src.err is not None:
                        y = self.hot(src.err, cp)
                        e.call("_mxtv", [Addr(y), W, delta, rows, Imm(src.layer.size)],
                               comment=f"{cp.connect.name}: e += W^T d")
                        self.unstage(src.err, y)
                    if cp.connect.key in shared:
                        continue                # after the backward pass: shared_updates
                    x = Addr(self.hot(src.act, cp))
                    if M is not None and self.overlapped_rs(name, cp, after, part):
                        e.call("_ring_rs_mxoutm", [Addr(src.err.name), self.off_table(src), U,
                                                   delta, x, rows, Addr(M.name)],
                               [Var("hv_eta"), Var("falpha")],
                               comment=f"W += M = aM + eta d x^T, summing the partial errors "
                                       f"of {src.name} on the ring meanwhile (overlap on)")
                        self.rs_overlapped.add(src.name)
                    elif M is not None:
                        e.call("_mxoutm", [U, delta, x, rows, Imm(src.layer.size),
                                           Addr(M.name)],
                               [Var("hv_eta"), Var("falpha")], comment="W += M = aM + eta d x^T")
                    elif self.overlapped_rs(name, cp, after, part):
                        e.call("_ring_rs_mxout", [Addr(src.err.name), self.off_table(src), U,
                                                  delta, x, rows], [Var("hv_eta")],
                               comment=f"W += eta d x^T, summing the partial errors of "
                                       f"{src.name} on the ring meanwhile (overlap on)")
                        self.rs_overlapped.add(src.name)
                    else:
                        e.call("_mxout", [U, delta, x, rows, Imm(src.layer.size)], [Var("hv_eta")],
                               comment="G += eta d x^T" if self.data else "W += eta d x^T")
                elif cp.kind == "sparse":
                    self.sparse_backward(cp, src, delta, rows, U, M)
                else:
                    if src.err is not None:
                        e.call("_vmul", [tmp, W, delta, rows], comment=f"{cp.connect.name}: w d")
                        serr = self.err_own(src)
                        e.call("_vadd", [serr, serr, tmp, rows])
                    e.call("_vmul", [tmp, delta, self.bus_src(src, lp), rows], comment="d x")
                    self.update_vector(U, M, tmp, rows, "bus weights")
            self.hook("after_backward", name)
        if shared:
            self.shared_updates()
        if p.overlap == "ring":
            seen = {r["layer"] for r in p.overlap_report}
            p.overlap_report.extend(r for r in self.overlap_report() if r["layer"] not in seen)

    def fused_gather(self, lp: LayerPlan, nxt: str | None, part: str | None):
        """overlap on: the connect whose product the all-gather of ``lp``'s
        activations streams into (``_ring_allgather_mxv``, its result the
        bits of the all-gather followed by ``_mxv``), or None: the next
        layer of the forward pass has a full connect from ``lp`` as its
        first product, nothing runs in between (no behaviour, host hook or
        active-unit list, no on-chip stage copy), and the model predicts
        the fused kernel no slower (rapsim.compiler.overlap.gather_fusion).
        The outcome, with the reason where the pair stays, goes to the
        plan's gather_report."""
        p = self.p
        if p.overlap != "ring" or self.grid is not None or self.data or part is not None \
                or self.hybrid or not self.split(lp):
            return None
        why, cp = "no full connect's product from it comes next in the forward pass", None
        first = self.incoming(nxt) if nxt is not None else []
        if first and not any(c.by_source for c in first):
            cp = first[0]
            nlp = p.layers[nxt]
            buf, stage = lp.act, p.stage
            if cp.connect.src != lp.name or cp.kind != "full" or cp.sparse is not None \
                    or cp.columns:
                cp = None
            elif cp.binary:
                why = "its product's source is a binary layer"
            elif lp.blist is not None or p.network.behaviours or p.host_hooks:
                why = "an active-unit list, behaviours or host hooks run in between"
            elif buf.staged and stage is not None and buf.words <= stage.words \
                    and nlp.split.max_rows >= 2:
                why = "its activations are copied to the on-chip stage for the product"
            else:
                from rapsim.compiler.overlap import gather_fusion
                why = gather_fusion(lp.split.off, buf.region or "sram", p.collectives,
                                    nlp.split.max_rows, cp.weights.region or "sram")
        if not any(r["layer"] == lp.name for r in p.gather_report):
            p.gather_report.append({"layer": lp.name, "collective": "allgather",
                                    "overlapped": not why,
                                    "product": cp.connect.name if cp is not None else None,
                                    "reason": why})
        return cp if not why else None

    def overlapped_rs(self, name: str, cp: ConnectPlan, after: str | None,
                      part: str | None) -> bool:
        """overlap on (rapsim.compiler.overlap): the update of full connect
        ``cp`` into layer ``name`` runs the reduce-scatter of its source's
        partial error sums meanwhile (``_ring_rs_mxout``; with momentum
        ``_ring_rs_mxoutm``) unless :meth:`why_blocking` names a reason.
        The program's results are those of the blocking schedule, bit for
        bit.  Each reduce-scatter's outcome goes to the plan's
        overlap_report (printed by rap cc and rap train)."""
        p = self.p
        if p.overlap != "ring" or self.grid is not None or self.data or part is not None:
            return False
        src = p.layers[cp.connect.src]
        if src.err is None or not src.reduced or not self.split(src) \
                or src.name in self.out_layers():
            return False                        # no reduce-scatter of src to overlap
        why = self.why_blocking(name, cp, after)
        if src.name not in self.rs_reasons or not why:
            self.rs_reasons[src.name] = (cp.connect.name, why)
        return not why

    def why_blocking(self, name: str, cp: ConnectPlan, after: str | None) -> str:
        """Why the reduce-scatter of ``cp``'s source (split and reduced)
        cannot run during ``cp``'s update ("" when it can): it must come
        next anyway (the source is the next layer of the backward pass, no
        later connect of ``name`` adds into its errors, no behaviour or
        host hook runs in between), the connect must be full and not from a
        binary layer, the vector must have at least OVERLAP_MIN_WORDS words
        per node, and with momentum :func:`momentum_overlap_pays`."""
        p = self.p
        src = p.layers[cp.connect.src]
        size, n = src.layer.size, self.n
        later = self.incoming(name)
        later = later[later.index(cp) + 1:]
        if after != src.name or any(c.connect.src == src.name for c in later):
            return "other work of the backward pass comes between the update and it"
        if cp.binary:
            return "the connect's source is a binary layer (its update walks active columns)"
        if p.network.behaviours or p.host_hooks:
            return "behaviours or host hooks may run between the update and it"
        if size < OVERLAP_MIN_WORDS * n:
            return (f"{size / n:.1f} words per node, fewer than {OVERLAP_MIN_WORDS} "
                    f"(the fused chain is slower there)")
        if cp.momentum is not None and not momentum_overlap_pays(size, n):
            own = -(-size // n)
            return (f"with momentum: {size} - 4 x {own} < {OVERLAP_MOMENTUM_PER_NODE} x {n} "
                    f"nodes (the fused chain is slower there)")
        from rapsim.compiler.overlap import rotation_instead
        return rotation_instead(src.split.off, src.err.region or "sram", p.collectives,
                                cp.momentum is not None)

    def overlap_report(self) -> list[dict]:
        """overlap ring: every reduce-scatter of the backward pass just
        generated, overlapped (during which connect's update) or blocking
        and why."""
        out = []
        for name in self.bwd_layers():
            lp = self.p.layers[name]
            if name in self.out_layers() or not lp.reduced or not self.split(lp):
                continue
            connect, why = self.rs_reasons.get(
                name, (None, "no full connect's update from it comes right before it"))
            out.append({"layer": name, "overlapped": not why,
                        "update": connect, "reason": why})
        return out

    def output_error(self, lp: LayerPlan, act) -> None:
        """An output layer's error signal ``d = t - y`` (times f' for mse)
        from its own activations ``act``; R0 holds the pattern's row."""
        e, rows = self.e, self.rows(lp)
        delta, tmp = Addr(lp.delta.name), Addr(lp.tmp.name)
        # target record of this node's slice
        toff = e.pernode(f"toff_{lp.name}", [lp.target_offset + lp.split.lo(k)
                                             for k in range(self.n)])
        e.ins("MPYI", "@hv_tgt_stride", "R0")
        e.ins("ADDI", "@hv_db_tgt", "R0")
        e.ins("ADDI", "@" + toff.sym, "R0")
        e.ins("LDI", "R0", "AR3")
        e.load("AR2", delta)
        e.load("AR4", act)
        e.load("AR5", rows)
        e.ins("CALL", "_vsub", comment="d = t - y")
        if self.p.network.training.error == "mse" and self.deriv(lp):
            e.call(self.deriv(lp), [tmp, act, rows], comment="f'(net)")
            e.call("_vmul", [delta, delta, tmp, rows], comment="d = (t - y) f'")

    def hidden_error(self, lp: LayerPlan, act) -> None:
        """A hidden layer's error signal ``d = e f'`` from the sums of its
        partial errors (own slice) and its own activations ``act``."""
        e, rows = self.e, self.rows(lp)
        delta, tmp, err = Addr(lp.delta.name), Addr(lp.tmp.name), self.err_own(lp)
        if self.deriv(lp):
            e.call(self.deriv(lp), [tmp, act, rows], comment="f'(net)")
            e.call("_vmul", [delta, err, tmp, rows], comment="d = e f'")
        else:
            e.call("_vcopy", [delta, err, rows], comment="d = e (linear)")

    def target(self, w: Addr, m, key: str):
        """Where a pattern's weight change goes: the weights ``w`` themselves
        (with their momentum ``m``), or, in the data mapping, the batch's
        weight changes (no momentum: it is applied once per batch)."""
        if self.data:
            return Addr(self.p.grad.name, self.p.grad_offset[key]), None
        return w, m

    def sparse_backward(self, cp: ConnectPlan, src: LayerPlan, delta: Addr, rows, U: Addr,
                        M) -> None:
        """A sparse connect: its partial error sums, then its update (into
        ``U`` with momentum ``M``: :meth:`target`)."""
        e, sp, name = self.e, cp.sparse, cp.connect.name
        W = Addr(cp.weights.name)
        M = Addr(M.name) if M is not None else None
        if cp.band:
            if src.err is not None:
                y = self.hot(src.err, cp)
                e.call("_mxtvs", [self.band_src(cp, y), W, delta, rows, Imm(sp.width),
                                  Imm(sp.stride)], comment=f"{name}: e += W^T d (band)")
                self.unstage(src.err, y)
            x = self.band_src(cp, self.hot(src.act, cp))
            if M is not None:
                e.call("_mxoutms", [U, delta, x, rows, Imm(sp.width), M, Imm(sp.stride)],
                       [Var("hv_eta"), Var("falpha")], comment="W += M = aM + eta d x^T")
            else:
                e.call("_mxouts", [U, delta, x, rows, Imm(sp.width), Imm(sp.stride)],
                       [Var("hv_eta")], comment="W += eta d x^T")
            return
        tables = [rows, Addr(sp.cnt.name), Addr(sp.idx.name)]
        if src.err is not None:
            y = self.hot(src.err, cp)
            e.call("_spmtv", [Addr(y), W, delta] + tables, comment=f"{name}: e += W^T d (sparse)")
            self.unstage(src.err, y)
        x = Addr(self.hot(src.act, cp))
        if M is not None:
            e.call("_spoutm", [U, delta, x] + tables + [M], [Var("hv_eta"), Var("falpha")],
                   comment="W += M = aM + eta d x^T")
        else:
            e.call("_spout", [U, delta, x] + tables, [Var("hv_eta")], comment="W += eta d x^T")

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

    def batch_loop(self) -> None:
        """The training of the data and hybrid mappings (compiler/mapping.py):
        R4 batches of B steps (R6), their weight changes summed into
        plan.grad, then :meth:`apply_batch`.  A data step is this node's
        next pattern (host order entries, -1: none, the short last batch); a
        hybrid step is a round of one pattern per node
        (:meth:`hybrid_round`).  Kernels keep R4-R7 and AR7 (docs/firmware.md,
        calling convention)."""
        e, b = self.e, self.p.mapping.batch
        e.ins("LDI", "@hv_order", "AR7", comment="AR7: this node's pattern order")
        e.label("batch")
        e.ins("LDI", "@" + e.const(str(b)), "R6",
              comment=f"R6: rounds of the batch ({b})" if self.hybrid
              else f"R6: patterns of the batch ({b} per node)")
        step = "round" if self.hybrid else "pattern"
        e.label(step)
        if self.hybrid:
            self.hybrid_round("", train=True)
        else:
            e.ins("LDI", "*AR7++", "R0")
            e.branch("N", "nopattern")      # -1: no pattern for this node in this batch
            e.ins("STI", "R0", "@cur")
            self.load_inputs()
            self.forward()
            self.backward()
            e.label("nopattern")
        e.ins("SUBI", "1", "R6")
        e.branch("NZ", step)
        self.apply_batch()
        e.ins("SUBI", "1", "R4")
        e.branch("NZ", "batch")

    def _slot_ptr(self, tag: str, buf, stride: int, off: int) -> Var:
        """Node k's word ``off`` of slot k in ``buf`` (slots of ``stride``)."""
        return self.e.pernode(f"{tag}", [f"{buf.name}+{k * stride + off}"
                                          if k * stride + off else buf.name
                                          for k in range(self.n)])

    def _add_const(self, reg: str, value: int) -> None:
        e = self.e
        if -32768 <= value <= 32767:
            e.ins("ADDI", str(value), reg)
        else:
            e.ins("ADDI", "@" + e.const(str(value)), reg)

    def _copy_at(self, dst, src, words: int, comment: str) -> None:
        """_vcopy with one side at a run-time address: ``dst`` or ``src`` is
        (var, offset): the word at @var plus offset; the other an Addr."""
        e = self.e
        for reg, side in (("AR2", dst), ("AR3", src)):
            if isinstance(side, tuple):
                e.ins("LDI", "@" + side[0], "R0")
                if side[1]:
                    self._add_const("R0", side[1])
                e.ins("LDI", "R0", reg)
            else:
                e.load(reg, side)
        e.load("AR4", Imm(words))
        e.ins("CALL", "_vcopy", comment=comment)

    def hybrid_round(self, tag: str, train: bool) -> None:
        """One round of the hybrid: N patterns, one per node (*AR7++: this
        node's, -1: none).  Each node runs the lower layers (split by
        patterns) on its own pattern and writes the pattern's index and the
        cut's activations into its slot; an all-gather concatenates the N
        slots (SINGA's concatenate); then every node runs the upper layers
        (split by units, their collectives as in rows) on each of the N
        patterns in node order -- evaluating: logging its output slice --,
        copying the cut's partial error sums of pattern i into error slot
        i; a reduce-scatter sums them so that node k holds its own
        pattern's (SINGA's slice), and each node finishes the backward pass
        of the lower layers on its own pattern.  R7 counts the patterns of
        the round (kernels keep R4-R7 and AR7)."""
        e, p = self.e, self.p
        stride, estride = p.slot_words, p.eslot_words
        upper_inputs = any(c.src in p.inputs and not p.lower_layer(c.dst)
                           for c in p.network.connects)
        own = self._slot_ptr("hyslot", p.slots, stride, 0)
        e.comment(f"hybrid round: lower layers on this node's pattern")
        e.ins("LDI", "*AR7++", "R0")
        e.ins("STI", "R0", "@hy_own")
        e.ins("LDI", "@" + own.sym, "AR0")
        e.ins("STI", "R0", "*AR0", comment="its index into this node's slot")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", f"{tag}nolow")
        e.ins("STI", "R0", "@cur")
        self.load_inputs()
        self.forward("lower")
        for n in p.cut:
            lp = p.layers[n]
            e.call("_vcopy", [self._slot_ptr(f"hyslot_{n}", p.slots, stride, p.slot_offset[n]),
                              Addr(lp.act.name), Imm(lp.layer.size)],
                   comment=f"{n} into this node's slot")
        e.label(f"{tag}nolow")
        if self.n > 1:
            table = self.table("off_slots", [k * stride for k in range(self.n + 1)])
            e.call("_ring_allgather", [Addr(p.slots.name), table],
                   comment="concatenate the round's patterns")
        e.load("R0", Addr(p.slots.name))
        e.ins("STI", "R0", "@hy_ptr", comment="slot i")
        if train and p.eslots is not None:
            e.call("_vfill", [Addr(p.eslots.name), Imm(p.eslots.words)], [Var("fzero")],
                   comment="clear the error slots")
            e.load("R0", Addr(p.eslots.name))
            e.ins("STI", "R0", "@hy_eptr", comment="error slot i")
        e.load("R7", Imm(self.n))
        e.label(f"{tag}upper")
        e.ins("LDI", "@hy_ptr", "AR0")
        e.ins("LDI", "*AR0", "R0")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", f"{tag}noup")
        e.ins("STI", "R0", "@cur", comment="pattern i of the round")
        for n in p.cut:
            lp = p.layers[n]
            self._copy_at(Addr(lp.act.name), ("hy_ptr", p.slot_offset[n]), lp.layer.size,
                          f"{n} of pattern i")
        if upper_inputs:
            self.load_inputs()
        self.forward("upper")
        if train:
            self.backward("upper")
            for n in p.cut:
                lp = p.layers[n]
                self._copy_at(("hy_eptr", p.eslot_offset[n]), Addr(lp.err.name), lp.layer.size,
                              f"{n}'s partial errors of pattern i")
        else:
            self.log_outputs()
        e.label(f"{tag}noup")
        e.ins("LDI", "@hy_ptr", "R0")
        self._add_const("R0", stride)
        e.ins("STI", "R0", "@hy_ptr")
        if train and p.eslots is not None:
            e.ins("LDI", "@hy_eptr", "R0")
            self._add_const("R0", estride)
            e.ins("STI", "R0", "@hy_eptr")
        e.ins("SUBI", "1", "R7")
        e.branch("NZ", f"{tag}upper")
        if not train:
            return
        if self.n > 1 and p.eslots is not None:
            table = self.table("off_eslots", [k * estride for k in range(self.n + 1)])
            e.call("_ring_reduce_scatter", [Addr(p.eslots.name), table],
                   comment="slice back: this node's pattern's errors summed")
        e.ins("LDI", "@hy_own", "R0")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", f"{tag}nolowb")
        e.ins("STI", "R0", "@cur", comment="back to this node's pattern")
        if upper_inputs:
            self.load_inputs()
        for n in p.cut:
            lp = p.layers[n]
            e.call("_vcopy", [Addr(lp.act.name),
                              self._slot_ptr(f"hyslot_{n}", p.slots, stride, p.slot_offset[n]),
                              Imm(lp.layer.size)], comment=f"{n} of this node's pattern")
            e.call("_vcopy", [Addr(lp.err.name),
                              self._slot_ptr(f"hyeslot_{n}", p.eslots, estride,
                                             p.eslot_offset[n]),
                              Imm(lp.layer.size)], comment=f"{n}'s errors from the upper layers")
        self.backward("lower")
        e.label(f"{tag}nolowb")

    def apply_batch(self) -> None:
        """Sum the batch's weight changes over the ring (one all-reduce of
        plan.grad), apply them to every node's copy of the weights -- W += G,
        or with momentum M = alpha M + G, W += M -- and clear them."""
        e, p = self.e, self.p
        g = p.grad
        if self.n > 1 and p.grad_shared:
            table = self.table("off_grad", Split.even(p.grad_shared, self.n).off)
            e.call("_ring_allreduce", [Addr(g.name), table],
                   comment="sum the weight changes of every node")
        parts = [(Addr(cp.weights.name), cp.momentum, f"w{cp.index}", cp.weights.words)
                 for cp in p.connects]
        parts += [(Addr(lp.bias.name), lp.bias_m, f"b{name}", lp.bias.words)
                  for name, lp in p.layers.items() if lp.bias is not None]
        for w, m, key, words in parts:
            G = Addr(g.name, p.grad_offset[key])
            if m is None:
                e.call("_vadd", [w, w, G, Imm(words)], comment=f"{w.sym} += G")
            else:
                M = Addr(m.name)
                e.call("_vscale", [M, M, Imm(words)], [Var("falpha")],
                       comment=f"{m.name} = alpha M")
                e.call("_vadd", [M, M, G, Imm(words)], comment="M += G")
                e.call("_vadd", [w, w, M, Imm(words)], comment=f"{w.sym} += M")
        self.clear_grad()

    def clear_grad(self) -> None:
        self.e.call("_vfill", [Addr(self.p.grad.name), Imm(self.p.grad.words)], [Var("fzero")],
                    comment="clear the batch's weight changes")

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
        if not train and self.p.network.phases:
            self.phase_paths(label)
            e.ins("SUBI", "1", "R4")
            e.branch("NZ", label)
            self.end_pass()
            return
        nets = [None] + list(self.p.network.nets) if train else [None]
        if train and self.p.network.phases:     # the training net (compiler/phases.py)
            nets = [phases.of(self.p.network, "train")]
        if len(nets) > 1:                       # several nets: the one @netsel names
            e.ins("LDI", "@" + self.netsel(), "R0", comment="the net of this pattern")
            for k in range(1, len(nets)):
                e.ins("CMPI", str(k), "R0")
                e.branch("EQ", f"{label}_net{k}")
        for k, sub in enumerate(nets):
            if k:
                e.label(f"{label}_net{k}")
                e.comment(f"net {sub.name}")
            self.pattern_body(sub, train)
            if len(nets) > 1 and k < len(nets) - 1:
                e.ins("BR", f"{label}_tail")
        if len(nets) > 1:
            e.label(f"{label}_tail")
            if self.p.network.training.alternate == "pattern":
                self.advance_netsel()
        e.ins("SUBI", "1", "R4")
        e.branch("NZ", label)
        if self.out_of_line:
            e.ins("BR", f"{label}_end")
            for emit in self.out_of_line:
                emit()
            self.out_of_line = []
            e.label(f"{label}_end")
        self.end_pass()

    def phase_paths(self, label: str) -> None:
        """An evaluation pattern by the net of its phase (compiler/phases.py):
        the pattern's row against where the host says the validation and the
        test patterns start (``hv_phase_valid``, ``hv_phase_test``), then that
        net's forward pass and the log of the outputs (zeros for an output
        it does not hold)."""
        e, net = self.e, self.p.network
        for v in ("hv_phase_valid", "hv_phase_test"):
            if v not in e.vars:
                e.vars.append(v)
        e.ins("LDI", "@cur", "R0", comment="the phase of this pattern")
        e.ins("CMPI", "@hv_phase_valid", "R0")
        e.branch("LT", f"{label}_train")
        e.ins("CMPI", "@hv_phase_test", "R0")
        e.branch("LT", f"{label}_valid")
        for phase in ("test", "valid", "train"):
            if phase != "test":
                e.label(f"{label}_{phase}")
            sub = phases.of(net, phase)
            e.comment(f"the {phase} net" + ("" if sub is not None else " (the main net)"))
            self.sub = sub
            self.forward()
            self.log_outputs()
            self.sub = None
            if phase != "train":
                e.ins("BR", f"{label}_tail")
        e.label(f"{label}_tail")

    def pattern_body(self, sub, train: bool) -> None:
        """One pattern of net ``sub`` (None: the main net): trained
        (forward, backward, update, with their hooks) or evaluated (forward,
        log).  The cost model (rapsim.compiler.plan) prices this body."""
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
        if p.mapping is not None and p.mapping.schedule == "stream":
            from rapsim.compiler.frames_gen import clear_states
            clear_states(self)
        if self.data:
            self.clear_grad()
        e.ins("LDI", "0", "R5", comment="R5: epoch")
        self.hook("before_training")
        e.label("epoch")
        self.hostcall(TRAIN_EPOCH, "R5")
        e.ins("LDI", "R0", "R4", comment="R4: batches left" if self.data else "R4: patterns left")
        e.branch("LT", "no_host")
        e.branch("Z", "done")
        self.hook("before_epoch")
        if p.network.nets and p.network.training.alternate == "pattern":
            e.ins("LDI", "0", "R0")
            e.ins("STI", "R0", "@" + self.netsel(), comment="the main net first")
        if self.data:
            self.batch_loop()
        elif p.mapping is not None and p.mapping.schedule == "pipeline":
            from rapsim.compiler.pipeline_gen import train_ticks
            train_ticks(self, "tick")
        elif p.mapping is not None and p.mapping.schedule == "stream":
            from rapsim.compiler.frames_gen import frames_pass
            frames_pass(self, "frame", learn=True)
        else:
            self.pattern_loop("pattern", train=True)
        self.barrier()
        self.hostcall(TRAIN_TEST, "R5")
        e.ins("LDI", "R0", "R4")
        if self.hybrid:         # R4 rounds of N patterns
            e.branch("LE", "evaluated")
            e.ins("LDI", "@hv_order", "AR7", comment="AR7: this node's pattern of each round")
            e.label("tround")
            self.hybrid_round("t", train=False)
            e.ins("SUBI", "1", "R4")
            e.branch("NZ", "tround")
            e.label("evaluated")
        elif p.eval_plan is not None:   # another mapping evaluates (compiler/evalmap.py)
            from rapsim.compiler.evalmap import eval_pass
            eval_pass(self)
        elif self.data:         # a node's share may be empty; it still joins the barrier
            e.branch("LE", "evaluated")
            self.pattern_loop("tpattern", train=False)
            e.label("evaluated")
        elif p.mapping is not None and p.mapping.schedule == "pipeline":
            e.branch("LE", "next")
            self.pipeline_loop("ttick")
        elif p.mapping is not None and p.mapping.schedule == "stream":
            e.branch("LE", "next")
            from rapsim.compiler.frames_gen import frames_pass
            frames_pass(self, "tframe", learn=False)
        else:
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
        """More variables on the DP page (a subclass's own; the hybrid's
        round: this node's pattern, slot i, error slot i)."""
        if self.hybrid:
            return [f"{v}: .word 0" for v in ("hy_own", "hy_ptr", "hy_eptr")]
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
                                           + tuple(v for v in e.vars if v == "netsel"
                                                   or v.startswith("hv_phase_"))),
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
        for value, sym in e.floats.items():
            out.append(f"{sym}: .float {value!r}")
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
        if p.eval_plan is not None:     # overlaid with the evaluation pass's (compiler/evalmap.py)
            from rapsim.compiler.evalmap import buffer_lines
            out += buffer_lines(p)
        else:
            out += [line for b in p.buffers for line in buffer_line(b)]
        return "\n".join(out) + "\n"


def buffer_line(b) -> list[str]:
    """A buffer's symbol in the program: a .usect of its region's section,
    or the stage of both on-chip blocks at RAM0_BASE."""
    out = [f"        .global {b.name}"]
    if b.region == "chip":              # both on-chip blocks: the stage alone
        out.append(f"{b.name} .set RAM0_BASE")
    else:
        out.append(f'{b.name} .usect "{b.section}", {b.words}')
    return out


def generate(plan: Plan, long_branches: bool = False) -> str:
    """The assembly source of ``plan``'s SPMD training program
    (``long_branches``: see :class:`_Emitter`)."""
    return _Gen(plan, long_branches).program()
