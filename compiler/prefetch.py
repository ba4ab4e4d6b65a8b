"""The input record of the next evaluation pattern fetched by the C30's DMA
channel while the node computes (docs/compiler.md, "The input record by
DMA"; TMS320C3x User's Guide 12.3, the DMA controller).

In an evaluation pass the input layer's activations are read by its one
outgoing connect's ``_mxv`` and by nothing after it, so once that product
is done the buffer is free: the program starts a DMA transfer of the next
pattern's record (its row from the pattern order, ``*AR7``) into it and
goes on with the rest of the forward pass (sigmoid, the columns' partial
net inputs on chip, the ring collectives, the softmax); the next pattern
waits for the channel (``_dma_wait``) instead of copying its record with
``_vcopy``.  The first pattern of a pass, and the training patterns (whose
update reads the record again at the end of the pattern), copy it as
before; the words are the same, so results are bit for bit those of the
copy.

**Choice**: only under the ``columns`` mapping (the one whose forward pass
issue 14's MCPS target is measured on), lock-step, one non-binary input
layer of at least MIN_WORDS units with a single full connect out of it by
rows, no behaviours or host
callbacks (which could read the input layer), no phases or several nets;
everything else keeps the plain copy, so every other program is unchanged.
"""
from __future__ import annotations

#: the fewest words of a record for which the prefetch pays: a copy costs
#: 19 + n cycles (_vcopy), the prefetch 24 (_dma_start) + 21 (_dma_wait) +
#: 10 instructions (firmware/costs.py), when the transfer (2 cycles a word)
#: ends before the next pattern needs it
MIN_WORDS = 40

#: the flag variable: 1 while a prefetched record is in flight
FLAG = "pf_in"

#: _dma_start's mode: both addresses step by one (START and TC are added
#: by the routine; the CPU keeps the bus first, docs/machine-model.md 6)
DMA_MODE = "DMA_INCSRC|DMA_INCDST"


def target(gen) -> str | None:
    """The input layer whose record the evaluation pass prefetches, or None
    (the conditions of the module docstring)."""
    p = gen.p
    m = p.mapping
    if m is None or not m.columns or m.schedule != "lockstep" or m.name != "columns":
        return None
    if gen.data or gen.hybrid or gen.grid is not None or getattr(p, "overlap", "off") != "off":
        return None
    net = p.network
    if net.phases or net.nets or net.behaviours or p.host_hooks:
        return None
    if len(p.inputs) != 1:
        return None
    name = p.inputs[0]
    lp = p.layers[name]
    if lp.kind == "binary" or lp.layer.size < MIN_WORDS:
        return None
    out = [cp for cp in p.connects if cp.connect.src == name]
    if len(out) != 1 or out[0].kind != "full" or out[0].by_source or out[0].sparse is not None:
        return None
    if lp.act.staged and p.stage is not None:
        return None                 # the stage would be a second reader
    return name


def _flag(gen) -> str:
    if FLAG not in gen.e.vars:
        gen.e.vars.append(FLAG)
    return FLAG


def receive(gen, name: str, label: str):
    """An evaluation pattern's input: wait for the prefetched record (the
    steady state, in line), or copy it (the first pattern of a pass: out of
    line).  Returns the function that emits the out-of-line copy, for the
    caller to call after the loop, so that the cost model's walk of one
    pattern (compiler/plan.py) prices the steady state."""
    e = gen.e
    flag = _flag(gen)
    e.ins("LDI", "@" + flag, "R0", comment="a record prefetched by DMA?")
    e.branch("Z", f"{label}_copy", comment="no: the first pattern of the pass")
    e.ins("CALL", "_dma_wait", comment=f"input record -> {name} (DMA, prefetched)")
    e.label(f"{label}_in")

    def out_of_line() -> None:
        e.label(f"{label}_copy")
        gen.copy_input(name)
        e.ins("BR", f"{label}_in")
    return out_of_line


def send(gen, name: str, label: str) -> None:
    """After the input layer's last reader in an evaluation pattern: start
    the DMA of the next pattern's record into it (none after the last
    pattern of the pass, R4 = 1), and set the flag accordingly."""
    from .codegen import Addr, Imm
    e, lp = gen.e, gen.p.layers[name]
    flag = _flag(gen)
    e.ins("LDI", "0", "R0")
    e.ins("CMPI", "1", "R4")
    e.branch("LE", f"{label}_last", comment="the last pattern: nothing to prefetch")
    gen.input_address(name, "*AR7")
    e.ins("LDI", "R0", "AR3")
    e.load("AR2", Addr(lp.act.name))
    e.load("AR4", Imm(lp.layer.size))
    e.ins("LDI", DMA_MODE, "AR5")
    e.ins("CALL", "_dma_start", comment=f"the next pattern's record -> {name} (DMA)")
    e.ins("LDI", "1", "R0")
    e.label(f"{label}_last")
    e.ins("STI", "R0", "@" + flag)
