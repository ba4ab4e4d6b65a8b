"""The streaming schedule's passes (compiler/frames.py; docs/compiler.md,
"Schedules"): the code of a pass over R4 patterns, each presented for
``frames`` frames, generated with the program's
:class:`rapsim.compiler.codegen._Gen`.

A frame: every layer computes its own slice of its next state (``nxt_``)
from the current states of its sources (``_Gen.forward`` with ``dest``);
the all-gathers of the next states; in a training pass, every connect's
plasticity; then the next states become the current ones by a pointer swap
(:func:`swap_states`), not a copy.  An evaluation pass logs the output
slices after every frame.

**The swap.**  Every kernel argument that points into a layer's state
buffers is loaded from a word on the DP page: a constant ``k<n>`` holding
``act_L`` or ``nxt_L`` (the whole vector), or a per-node word ``nv_act_L``
/ ``nv_nx_L`` (the node's own slice).  In the stream program such a word
named after ``act_L`` always means "the current state" and one named after
``nxt_L`` "the next state", so exchanging the two words of each pair at
the end of a frame makes the next state current without moving a unit:
4 instructions a pair, at most 2 pairs a layer, whatever its size
(:func:`state_pairs`).  The pairs are fixed before the first frame's code;
:func:`check_pairs` refuses (an internal error) a program whose frame code
created another word pointing into a state buffer, which would be left
behind by the swap.
"""
from __future__ import annotations

import re

from rapsim.compiler import frames_loss
from rapsim.compiler.codegen import Addr, Imm
from rapsim.compiler.frames import next_buffer
from rapsim.errors import RapError


def frames_pass(g, label: str, learn: bool) -> None:
    """R4 patterns in the order at hv_order, ``frames`` frames each."""
    e, p = g.e, g.p
    F = p.network.training.frames
    pairs = state_pairs(g)
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
    check_pairs(g, pairs)


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
    loss = frames_loss.window(g)
    if loss:
        frames_loss.record(g)
    if learn:
        if loss:
            frames_loss.backprop(g)     # first: it reads the other connects' weights
        for cp in p.connects:
            rule = cp.connect.plasticity
            if rule is not None and rule["rule"] != "loss":
                _plasticity(g, cp, rule)
    if loss:
        frames_loss.advance(g)
    swap_states(g)


def state_pairs(g) -> list[tuple[str, str]]:
    """The words to exchange at the end of a frame (module docstring): for
    every non-input layer, the constants of its two whole buffers and its
    two per-node own-slice pointers (the same constants when every node's
    slice starts at the buffer's start: one pair then)."""
    e, p = g.e, g.p
    pairs = []
    for name in p.forward:
        lp = p.layers[name]
        whole = (e.const(lp.act.name), e.const(next_buffer(p, name).name))
        own = (g.act_own(lp).sym, _next_own(g, lp).sym)
        for pair in (whole, own):
            if pair not in pairs:
                pairs.append(pair)
    return pairs


def check_pairs(g, pairs) -> None:
    """Every word of the program that points into a state buffer is in a
    swapped pair (else the swap would leave it pointing at the wrong
    frame's state: a bug of this generator, not of the description)."""
    e, p = g.e, g.p
    names = "|".join(re.escape(b.name) for name in p.forward
                     for b in (p.layers[name].act, next_buffer(p, name)))
    state = re.compile(rf"^({names})(\+\d+)?$")
    words = [(sym, [expr]) for expr, sym in e.consts.items()] + list(e.nv.items())
    swapped = {w for pair in pairs for w in pair}
    for sym, exprs in words:
        if sym not in swapped and any(state.match(x) for x in exprs):
            raise RapError(f"internal error: schedule stream: word {sym} ({exprs[0]}) points "
                           f"into a state buffer but is not swapped with the frames")


def swap_states(g) -> None:
    """The next states become the current ones: each pair of pointer words
    exchanged (4 instructions a pair; the units stay where they are)."""
    e = g.e
    e.comment("the next states become the current ones: pointer swap")
    for a, b in state_pairs(g):
        e.ins("LDI", "@" + a, "R0")
        e.ins("LDI", "@" + b, "R1")
        e.ins("STI", "R0", "@" + b)
        e.ins("STI", "R1", "@" + a, comment=f"swap {a} <-> {b}")


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
    if frames_loss.window(g):
        frames_loss.clear(g)
