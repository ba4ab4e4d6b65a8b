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
4 instructions a pair, 2 pairs a layer (one more for a bus or band
connect's own pointer into it), whatever its size (:func:`state_pairs`).
The pairs are fixed at the first frame's swap; :func:`check_pairs`
refuses (an internal error) a program whose code made another word
pointing into a state buffer after it, which the swap would leave
behind.
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
    state_pairs(g)                      # the pointers the evaluation pass logs through
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
    check_pairs(g)


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
    """The words to exchange at the end of a frame (module docstring):
    every word on the DP page that points into a layer's state buffer
    (``act_L`` or ``nxt_L``, maybe plus an offset; a per-node word: every
    node's value into the same buffer) paired with the word of the same
    offsets into the other buffer, made when missing.  The constants of
    every layer's two whole buffers and its two own-slice pointers are
    made first (the evaluation pass logs through the latter)."""
    e, p = g.e, g.p
    for name in p.forward:
        lp = p.layers[name]
        e.const(lp.act.name), e.const(next_buffer(p, name).name)
        g.act_own(lp), _next_own(g, lp)
    other = {}
    for name in p.forward:
        a, b = p.layers[name].act.name, next_buffer(p, name).name
        other[a], other[b] = b, a
    state = re.compile(rf"^({'|'.join(map(re.escape, other))})(\+\d+)?$")

    def partner(values):
        ms = [state.match(v) for v in values]
        if not all(ms) or len({m.group(1) for m in ms}) != 1:
            return None
        return [other[m.group(1)] + (m.group(2) or "") for m in ms]

    out, used = [], set()
    for expr, sym in list(e.consts.items()):
        twin = partner([expr])
        if twin is not None and sym not in used:
            out.append((sym, e.const(twin[0])))
            used.update(out[-1])
    for sym, values in list(e.nv.items()):
        twin = partner(values)
        if twin is None or sym in used:
            continue
        mate = next((s2 for s2, v2 in e.nv.items() if v2 == twin and s2 not in used), None)
        if mate is None:                # made once, with a name of its own
            k = 0
            while f"nv_sw{k}_{sym[3:]}" in e.nv:
                k += 1
            mate = e.pernode(f"sw{k}_{sym[3:]}", twin).sym
        out.append((sym, mate))
        used.update(out[-1])
    return out


def check_pairs(g) -> None:
    """The pairs every frame swapped are still all the program's state
    pointers (a word made after the first frame's swap would be left
    pointing at the wrong frame's state: a bug of this generator, not of
    the description)."""
    now, then = state_pairs(g), g.stream_pairs
    new = [a for pair in now for a in pair if not any(a in q for q in then)]
    if new:
        raise RapError(f"internal error: schedule stream: word {new[0]} points into a state "
                       f"buffer but is not swapped with the frames")


def swap_states(g) -> None:
    """The next states become the current ones: each pair of pointer words
    exchanged (4 instructions a pair; the units stay where they are)."""
    e = g.e
    e.comment("the next states become the current ones: pointer swap")
    pairs = state_pairs(g)
    if getattr(g, "stream_pairs", None) is None:
        g.stream_pairs = pairs
    for a, b in g.stream_pairs:
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
