"""The pipelined training pass (compiler/pipeline.py; docs/compiler.md,
"Schedules"): the code of its ticks, generated with the program's
:class:`rapsim.compiler.codegen._Gen`.

With S stages and P patterns the pass takes P + 2 S - 2 ticks.  In tick t

* the input layers take pattern t (while t < P) and its row goes to the
  tick's slot of ``pst_cur``;
* every node stashes, in slot t mod (2 S - 1), each connect's source
  vector as the forward step is about to read it (before any layer of the
  node overwrites it), then every stage computes its forward step
  (``_Gen.forward`` with ``tick``: stage s on pattern t - s + 1, from the
  previous tick's values) and stashes its own activations;
* stage by stage, from the first: stage s takes pattern b = t - 2 S + s + 1
  when 0 <= b < P: its error signal from the stash (the output stage: the
  target of b; a hidden stage: the sums of its partial errors that stage
  s + 1 passed back in the previous tick, times f' of its stashed
  activations), ``W^T d`` into the partial errors of stage s - 1 (cleared
  first: stage s - 1 has read their sums already), and the update of its
  weights and biases from the stashed sources;
* then the exchange: the reduce-scatters of the partial errors (upstream)
  and the all-gathers of the activations (downstream), on the whole ring.
"""
from __future__ import annotations

from rapsim.compiler.codegen import Addr, Imm, Var
from rapsim.compiler.pipeline import slots, stages

#: words of .data the pass uses: the tick, the patterns of the pass, the
#: tick's stash slot and a stage's backward slot
_VARS = ("ptick", "ppat", "pslot", "pbslot")


def _slot_ptr(e, var: str, base: str, words: int, slot: str) -> Var:
    """``var`` = ``base`` + @``slot`` x ``words``."""
    if var not in e.vars:
        e.vars.append(var)
    e.ins("LDI", "@" + slot, "R0")
    if words != 1:
        e.ins("MPYI", str(words) if words <= 32767 else "@" + e.const(str(words)), "R0")
    e.ins("ADDI", "@" + e.const(base), "R0")
    e.ins("STI", "R0", "@" + var)
    return Var(var)


def _slot_back(e, behind: int, modulo: int, dst: str) -> None:
    """@``dst`` = (@pslot - ``behind``) mod ``modulo``."""
    e.ins("LDI", "@pslot", "R0")
    if behind:
        e.ins("SUBI", str(behind), "R0")
        e.ins("LDI", "R0", "R1")
        e.ins("ADDI", str(modulo), "R1")
        e.ins("CMPI", "0", "R0")
        e.ins("LDILT", "R1", "R0", comment=f"{behind} ticks back")
    e.ins("STI", "R0", "@" + dst)


def train_ticks(g, label: str) -> None:
    """The training pass of a pipelined program (R4: its patterns, the
    order at hv_order; the module docstring)."""
    e, p = g.e, g.p
    st = stages(p.network)
    S, M = st.depth, slots(p.network)
    for v in _VARS:
        if v not in e.vars:
            e.vars.append(v)
    e.comment(f"pipelined training: {S} stages, {2 * S - 2} ticks beyond the patterns, "
              f"stashes of {M} slots")
    e.ins("STI", "R4", "@ppat", comment="patterns of the pass")
    e.ins("LDI", "0", "R0")
    e.ins("STI", "R0", "@ptick")
    e.ins("STI", "R0", "@pslot")
    if S > 1:
        e.ins("ADDI", str(2 * S - 2), "R4", comment="R4: ticks left")
    e.ins("LDI", "@hv_order", "AR7", comment="AR7: the pattern order")
    e.label(label)
    e.ins("LDI", "@ptick", "R0")
    e.ins("CMPI", "@ppat", "R0")
    e.branch("GE", f"{label}_noin", comment="no pattern left to enter")
    e.ins("LDI", "*AR7++", "R0")
    e.ins("STI", "R0", "@cur")
    e.ins("LDI", "@" + e.const("pst_cur"), "R1")
    e.ins("ADDI", "@pslot", "R1")
    e.ins("LDI", "R1", "AR0")
    e.ins("STI", "R0", "*AR0", comment="the tick's pattern")
    g.load_inputs()
    e.label(f"{label}_noin")
    e.comment("stash the sources as this tick's forward step reads them")
    for cp in p.connects:
        src = p.layers[cp.connect.src]
        dst = _slot_ptr(e, f"pfx{cp.index}", f"pst_x{cp.index}", src.layer.size, "pslot")
        if cp.kind == "bus":            # the source units of the node's own rows
            e.call("_vcopy", [dst, g.bus_src(src, p.layers[cp.connect.dst]),
                              g.rows(p.layers[cp.connect.dst])],
                   comment=f"stash {cp.connect.name}'s source (own units)")
        else:
            e.call("_vcopy", [dst, Addr(src.act.name), Imm(src.layer.size)],
                   comment=f"stash {cp.connect.name}'s source")
    g.forward(tick=True, exchange=False)
    gathers = g.pending
    e.comment("stash this tick's activations")
    for name in p.forward:
        lp = p.layers[name]
        dst = _slot_ptr(e, f"pfy_{name}", f"pst_y_{name}", max(lp.split.max_rows, 1), "pslot")
        e.call("_vcopy", [dst, g.act_own(lp), g.rows(lp)], comment=f"stash {name}")
    for s in range(1, S + 1):
        _backward_stage(g, label, st, s, S, M)
    e.comment("exchange: partial errors upstream, activations downstream")
    for name in p.forward:
        lp = p.layers[name]
        if lp.err is not None and lp.reduced and g.split(lp):
            e.call("_ring_reduce_scatter", [Addr(lp.err.name), g.off_table(lp)],
                   comment=f"sum the partial errors of {name}")
    for lp in gathers:
        g.gather(lp, lp.act)
    e.ins("LDI", "@ptick", "R0")
    e.ins("ADDI", "1", "R0")
    e.ins("STI", "R0", "@ptick")
    e.ins("LDI", "@pslot", "R0")
    e.ins("ADDI", "1", "R0")
    e.ins("CMPI", str(M), "R0")
    e.ins("LDIEQ", "0", "R0")
    e.ins("STI", "R0", "@pslot", comment=f"the next slot (mod {M})")
    e.ins("SUBI", "1", "R4")
    e.branch("NZ", label)


def _backward_stage(g, label: str, st, s: int, S: int, M: int) -> None:
    """Stage s's backward step of its pattern b = t - 2 S + s + 1, when
    0 <= b < P."""
    e, p = g.e, g.p
    lo, skip = 2 * S - s - 1, f"{label}_nob{s}"
    e.comment(f"backward: stage {s}, the pattern of {lo} ticks ago")
    e.ins("LDI", "@ptick", "R0")
    e.ins("CMPI", str(lo), "R0")
    e.branch("LT", skip, comment="filling: no pattern here yet")
    e.ins("SUBI", "@ppat", "R0")
    e.ins("CMPI", str(lo), "R0")
    e.branch("GE", skip, comment="draining: every pattern done here")
    _slot_back(e, 2 * (S - s), M, "pbslot")
    for name in st.layers(s - 1):
        src = p.layers[name]
        if src.err is not None:
            e.call("_vfill", [Addr(src.err.name), Imm(src.err.words)], [Var("fzero")],
                   comment=f"clear {src.err.name} (its sums are read)")
    for name in st.layers(s):
        lp = p.layers[name]
        rows, delta = g.rows(lp), Addr(lp.delta.name)
        y = _slot_ptr(e, f"pby_{name}", f"pst_y_{name}", max(lp.split.max_rows, 1), "pbslot")
        if name in p.outputs:
            _slot_back(e, S - 1, M, "pbslot")           # the slot of the tick b entered
            e.ins("LDI", "@" + e.const("pst_cur"), "R1")
            e.ins("ADDI", "@pbslot", "R1")
            e.ins("LDI", "R1", "AR0")
            e.ins("LDI", "*AR0", "R0", comment="the pattern's row")
            g.output_error(lp, y)
            _slot_back(e, 2 * (S - s), M, "pbslot")
        else:
            g.hidden_error(lp, y)
        if lp.bias:
            g.update_vector(Addr(lp.bias.name), lp.bias_m, delta, rows, "bias")
        for cp in g.incoming(name):
            x = _slot_ptr(e, f"pbx{cp.index}", f"pst_x{cp.index}",
                          p.layers[cp.connect.src].layer.size, "pbslot")
            _backward_connect(g, cp, delta, rows, x)
    e.label(skip)


def _backward_connect(g, cp, delta: Addr, rows, x: Var) -> None:
    """Connect ``cp``'s backward step in a tick: ``W^T d`` into its source's
    partial errors (with W as it is now), then its update from the stashed
    source ``x`` -- the lock-step backward pass's kernels of its kind (full,
    sparse pair list, band, bus), each reading the stash instead of the
    source's current activations."""
    e, p, c = g.e, g.p, cp.connect
    src, dst = p.layers[c.src], p.layers[c.dst]
    W, M = Addr(cp.weights.name), cp.momentum
    eta = [Var("hv_eta")] + ([Var("falpha")] if M is not None else [])
    mom = [Addr(M.name)] if M is not None else []
    what = "W += M = aM + eta d x^T" if M is not None else "W += eta d x^T"
    if cp.kind == "full":
        if src.err is not None:
            e.call("_mxtv", [Addr(src.err.name), W, delta, rows, Imm(src.layer.size)],
                   comment=f"{c.name}: e += W^T d")
        e.call("_mxoutm" if M is not None else "_mxout",
               [W, delta, x, rows, Imm(src.layer.size)] + mom, eta, comment=what)
    elif cp.kind == "sparse" and cp.band:
        sp = cp.sparse
        if src.err is not None:
            e.call("_mxtvs", [g.band_src(cp, src.err.name), W, delta, rows, Imm(sp.width),
                              Imm(sp.stride)], comment=f"{c.name}: e += W^T d (band)")
        first = e.pernode(f"pband{cp.index}", [sp.start + dst.split.lo(k) * sp.stride
                                               for k in range(g.n)])
        e.ins("LDI", "@" + x.sym, "R0")
        e.ins("ADDI", "@" + first.sym, "R0")
        e.ins("STI", "R0", "@" + x.sym, comment="the band's first source of the own rows")
        e.call("_mxoutms" if M is not None else "_mxouts",
               [W, delta, x, rows, Imm(sp.width)] + mom + [Imm(sp.stride)], eta,
               comment=what + " (band)")
    elif cp.kind == "sparse":
        tables = [rows, Addr(cp.sparse.cnt.name), Addr(cp.sparse.idx.name)]
        if src.err is not None:
            e.call("_spmtv", [Addr(src.err.name), W, delta] + tables,
                   comment=f"{c.name}: e += W^T d (sparse)")
        e.call("_spoutm" if M is not None else "_spout", [W, delta, x] + tables + mom, eta,
               comment=what + " (sparse)")
    else:                               # bus: w .* d into the own units' errors
        tmp = Addr(dst.tmp.name)
        if src.err is not None:
            e.call("_vmul", [tmp, W, delta, rows], comment=f"{c.name}: w d")
            err = g.err_own(src)
            e.call("_vadd", [err, err, tmp, rows])
        e.call("_vmul", [tmp, delta, x, rows], comment="d x (the stashed own units)")
        g.update_vector(W, M, tmp, rows, "bus weights")
