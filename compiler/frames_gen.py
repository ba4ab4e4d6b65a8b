"""The streaming schedule's passes (compiler/frames.py; docs/compiler.md,
"Schedules"): the code of a pass over R4 patterns, each presented for
``frames`` frames, generated with the program's
:class:`rapsim.compiler.codegen._Gen`.

A frame: every layer computes its own slice of its next state (``nxt_``)
from the current states of its sources (``_Gen.forward`` with ``dest``);
the all-gathers of the next states; in a training pass, every connect's
plasticity; then the next states become the current ones (copies).  An
evaluation pass logs the output slices after every frame.
"""
from __future__ import annotations

from rapsim.compiler.codegen import Addr, Imm
from rapsim.compiler.frames import next_buffer


def frames_pass(g, label: str, learn: bool) -> None:
    """R4 patterns in the order at hv_order, ``frames`` frames each."""
    e, p = g.e, g.p
    F = p.network.training.frames
    e.comment(f"streaming {'training' if learn else 'evaluation'} pass: {F} frame"
              f"{'s' if F > 1 else ''} a pattern")
    e.ins("LDI", "@hv_order", "AR7", comment="AR7: the pattern order")
    e.label(label)
    e.ins("LDI", "*AR7++", "R0")
    e.ins("STI", "R0", "@cur")
    g.load_inputs()
    e.ins("LDI", str(F), "R6", comment="R6: frames of this pattern")
    e.label(f"{label}_f")
    frame(g, learn)
    if not learn:
        g.log_outputs()
    e.ins("SUBI", "1", "R6")
    e.branch("NZ", f"{label}_f")
    e.ins("SUBI", "1", "R4")
    e.branch("NZ", label)


def _next_own(g, lp):
    return g._ptr("nx", lp, next_buffer(g.p, lp.name).name,
                  [lp.act_offset(k) for k in range(g.n)])


def frame(g, learn: bool) -> None:
    e, p = g.e, g.p
    g.dest = lambda lp: _next_own(g, lp)
    g.forward(tick=True, exchange=False)
    g.dest = None
    for lp in g.pending:
        g.gather(lp, next_buffer(p, lp.name))
    if learn:
        for cp in p.connects:
            rule = cp.connect.plasticity
            if rule is not None:
                _plasticity(g, cp, rule)
    e.comment("the next states become the current ones")
    for name in p.forward:
        lp = p.layers[name]
        nxt = next_buffer(p, name)
        if lp.gathered:
            e.call("_vcopy", [Addr(lp.act.name), Addr(nxt.name), Imm(lp.layer.size)])
        else:
            e.call("_vcopy", [g.act_own(lp), _next_own(g, lp), g.rows(lp)])


def _plasticity(g, cp, rule: dict) -> None:
    """Connect ``cp``'s weights after a frame (compiler/frames.py)."""
    e, p = g.e, g.p
    dst, src = p.layers[cp.connect.dst], p.layers[cp.connect.src]
    W, rows, size = Addr(cp.weights.name), g.rows(dst), src.layer.size
    words = e.pernode(f"wn{cp.index}", [dst.split.rows(k) * size for k in range(g.n)])
    name = cp.connect.name
    if rule["rule"] == "hebbian":
        if rule["decay"]:
            e.call("_vscale", [W, W, words], [e.fconst(1 - rule["rate"] * rule["decay"])],
                   comment=f"{name}: hebbian decay, W = (1 - rate decay) W")
        e.call("_mxout", [W, _next_own(g, dst), Addr(src.act.name), rows, Imm(size)],
               [e.fconst(rule["rate"])], comment=f"{name}: hebbian, W += rate y_dst(t+1) "
                                                 f"y_src(t)^T")
    elif rule["rule"] == "l2":
        e.call("_vscale", [W, W, words], [e.fconst(1 - rule["rate"] * rule["weight"])],
               comment=f"{name}: L2, W = (1 - rate weight) W")
    else:
        e.call("_vshrink", [W, Imm(0), words], [e.fconst(rule["rate"] * rule["weight"])],
               comment=f"{name}: L1, W -= rate weight sign(W)")


def clear_states(g) -> None:
    """The stream starts from zero states (every non-input layer's both
    buffers), once, before the first pass."""
    from rapsim.compiler.codegen import Var
    for name in g.p.forward:
        lp = g.p.layers[name]
        for buf in (lp.act, next_buffer(g.p, name)):
            g.e.call("_vfill", [Addr(buf.name), Imm(buf.words)], [Var("fzero")],
                     comment=f"{buf.name}: the stream starts from 0")
