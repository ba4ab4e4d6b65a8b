"""The loss plasticity's code in the streaming schedule's frames
(compiler/frames.py, "The loss plasticity"; docs/compiler.md, "Schedules"):
truncated back-propagation through time over a window of W frames, on
every node's own slices, generated with the program's
:class:`rapsim.compiler.codegen._Gen`.

Every frame (training and evaluation: the states run on as one stream)
records the states of each layer the loss reads back
(:func:`rapsim.compiler.frames.loss_history`) in its history ``hst_L``,
W + 1 slots of the layout of its activation buffer, slot tau mod (W + 1)
holding y(tau): the inputs of frame t in slot s = t mod (W + 1) and the
states it computed in slot s + 1 (``record``); ``bp_slot`` holds s, advanced at the end of the
frame (``advance``).  A training frame then runs the back-propagation
(``backprop``)::

    step 0:  d_o = the output error of y_o(t+1) against the pattern's target
    step j:  err_l = 0;  err_l += W_c^T d_m(step j-1) for every c: l -> m
             reduce-scatter err_l (the partial sums of every node's rows)
             d_l(step j) = f'(y_l(t+1-j)) err_l           (own slice)
    then     W_c += rate d_dst(step j) y_src(t-j)^T     every loss connect, every j
             b_l += rate d_l(step j)                    every layer a loss connect feeds

with each step's deltas in ``bpd_L`` (W slots of the own slice).  A slot's
address is computed at run time from ``bp_slot`` (5 instructions and a
multiply: ``slot_address``); everything else is the lock-step program's
kernels (_mxtv, _ring_reduce_scatter, the derivatives, _vmul, _mxout,
_vaxpy).
"""
from __future__ import annotations

from rapsim.compiler.codegen import Addr, Imm, Var
from rapsim.compiler.frames import (delta_buffer, history_buffer, loss_biased, loss_connects,
                                    loss_history, loss_rate, loss_reach, loss_window,
                                    next_buffer)


def window(g) -> int | None:
    return loss_window(g.p.network)


def _var(g, sym: str) -> Var:
    """A word on the DP page for a computed kernel argument."""
    if sym not in g.e.vars:
        g.e.vars.append(sym)
    return Var(sym)


def slot_address(g, name: str, offset: int, own: bool, sym: str) -> Var:
    """The address of layer ``name``'s state y(t + offset) in its history
    (``own``: the node's own slice in it), computed into @sym."""
    e, lp = g.e, g.p.layers[name]
    H = window(g) + 1
    buf = history_buffer(g.p, name)
    e.ins("LDI", "@bp_slot", "R0", comment=f"{name}: y(t{offset:+d}) in its history")
    a = offset % H
    if a:
        e.ins("ADDI", str(a), "R0")
        e.ins("LDI", "R0", "R1")
        e.ins("SUBI", str(H), "R1")
        e.ins("CMPI", str(H), "R0")
        e.ins("LDIGE", "R1", "R0", comment=f"(s {offset:+d}) mod {H}")
    stride = lp.act.words
    e.ins("MPYI", str(stride) if stride <= 32767 else "@" + e.const(str(stride)), "R0")
    e.ins("ADDI", "@" + e.const(buf.name), "R0")
    if own:
        off = e.pernode(f"hoff_{name}", [lp.act_offset(k) for k in range(g.n)])
        e.ins("ADDI", "@" + off.sym, "R0")
    e.ins("STI", "R0", "@" + sym)
    return _var(g, sym)


def clear(g) -> None:
    """The histories start from zeros (the states before the stream), in
    slot 0."""
    _var(g, "bp_slot")
    for name in loss_history(g.p.network, window(g)):
        buf = history_buffer(g.p, name)
        g.e.call("_vfill", [Addr(buf.name), Imm(buf.words)], [Var("fzero")],
                 comment=f"{buf.name}: the states before the stream are 0")


def record(g) -> None:
    """Frame t's inputs into slot s, the states it computed (the next
    states, gathered) into slot s + 1."""
    p = g.p
    for name in loss_history(p.network, window(g)):
        lp = p.layers[name]
        inp = name in p.inputs
        dst = slot_address(g, name, 0 if inp else 1, False, "bp_a0")
        src = Addr(lp.act.name if inp else next_buffer(p, name).name)
        g.e.call("_vcopy", [dst, src, Imm(lp.act.words)], comment=f"record {name}")


def advance(g) -> None:
    """s = (s + 1) mod (W + 1)."""
    e = g.e
    H = window(g) + 1
    e.ins("LDI", "@bp_slot", "R0")
    e.ins("ADDI", "1", "R0")
    e.ins("LDI", "0", "R1")
    e.ins("CMPI", str(H), "R0")
    e.ins("LDIGE", "R1", "R0")
    e.ins("STI", "R0", "@bp_slot", comment="the next frame's slot")
    _var(g, "bp_slot")


def _delta(g, name: str, j: int) -> Addr:
    lp = g.p.layers[name]
    return Addr(delta_buffer(g.p, name).name, j * max(lp.split.max_rows, 1))


def backprop(g) -> None:
    """The loss plasticity of a training frame (module docstring)."""
    e, p, net = g.e, g.p, g.p.network
    W = window(g)
    steps = loss_reach(net, W)
    e.comment(f"loss plasticity: back-propagation over {W} frame{'s' if W > 1 else ''}")
    for name in steps[0]:
        lp = p.layers[name]
        e.ins("LDI", "@cur", "R0")
        g.output_error(lp, g._ptr("nx", lp, next_buffer(p, name).name,
                                  [lp.act_offset(k) for k in range(g.n)]))
        e.call("_vcopy", [_delta(g, name, 0), Addr(lp.delta.name), g.rows(lp)],
               comment=f"d_{name} of step 0")
    for j in range(1, W):
        for name in steps[j]:
            lp = p.layers[name]
            e.comment(f"loss step {j}: {name}, y(t{1 - j:+d})")
            e.call("_vfill", [Addr(lp.err.name), Imm(lp.err.words)], [Var("fzero")],
                   comment=f"clear {lp.err.name}")
            for cp in p.connects:
                if cp.connect.src == name and cp.connect.dst in steps[j - 1]:
                    _back_through(g, cp, _delta(g, cp.connect.dst, j - 1))
            if lp.reduced and g.split(lp):
                e.call("_ring_reduce_scatter", [Addr(lp.err.name), g.off_table(lp)],
                       comment=f"sum the partial errors of {name}")
            y = slot_address(g, name, 1 - j, True, "bp_a0")
            d = _delta(g, name, j)
            if g.deriv(lp):
                e.call(g.deriv(lp), [Addr(lp.tmp.name), y, g.rows(lp)], comment="f'")
                e.call("_vmul", [d, g.err_own(lp), Addr(lp.tmp.name), g.rows(lp)],
                       comment=f"d_{name} = e f'")
            else:
                e.call("_vcopy", [d, g.err_own(lp), g.rows(lp)], comment=f"d_{name} = e")
    _updates(g, steps)


def _back_through(g, cp, d: Addr) -> None:
    """Connect ``cp``'s part of its source's error sums, ``e += W^T d``
    (the lock-step backward pass's kernels: full, sparse, band and bus)."""
    e, p, c = g.e, g.p, cp.connect
    src, dst = p.layers[c.src], p.layers[c.dst]
    W, rows = Addr(cp.weights.name), g.rows(dst)
    if cp.kind == "full":
        e.call("_mxtv", [Addr(src.err.name), W, d, rows, Imm(src.layer.size)],
               comment=f"{c.name}: e += W^T d")
    elif cp.kind == "sparse" and cp.band:
        e.call("_mxtvs", [g.band_src(cp, src.err.name), W, d, rows, Imm(cp.sparse.width),
                          Imm(cp.sparse.stride)], comment=f"{c.name}: e += W^T d (band)")
    elif cp.kind == "sparse":
        e.call("_spmtv", [Addr(src.err.name), W, d, rows, Addr(cp.sparse.cnt.name),
                          Addr(cp.sparse.idx.name)], comment=f"{c.name}: e += W^T d (sparse)")
    else:                                       # bus: the same units, own slices
        e.call("_vmul", [Addr(dst.tmp.name), W, d, rows], comment=f"{c.name}: w d")
        err = g.err_own(src)
        e.call("_vadd", [err, err, Addr(dst.tmp.name), rows])


def _updates(g, steps) -> None:
    """The loss's changes, after all its deltas (module docstring)."""
    e, p, net = g.e, g.p, g.p.network
    cps = {cp.connect.name: cp for cp in p.connects}
    for c in loss_connects(net):
        cp, dst, src = cps[c.name], p.layers[c.dst], p.layers[c.src]
        rate = e.fconst(c.plasticity["rate"])
        for j, step in enumerate(steps):
            if c.dst in step:
                x = slot_address(g, c.src, -j, False, "bp_a1")
                e.call("_mxout", [Addr(cp.weights.name), _delta(g, c.dst, j), x,
                                  g.rows(dst), Imm(src.layer.size)], [rate],
                       comment=f"{c.name}: W += rate d(t{1 - j:+d}) y_src(t{-j:+d})^T")
    for name in loss_biased(net):
        lp = p.layers[name]
        rate = e.fconst(loss_rate(net, name))
        for j, step in enumerate(steps):
            if name in step:
                e.call("_vaxpy", [Addr(lp.bias.name), _delta(g, name, j), g.rows(lp)], [rate],
                       comment=f"{name}: b += rate d(t{1 - j:+d})")
