"""The instruction trace: one line per executed instruction (``rap run
--trace FILE``).

The records come from the core (rapsim/core/probe.pxi, fields in
``rapsim._sim.TRACE_DTYPE``): for each instruction, the node, the cycle it
started at (``cycle``: its decode, before any stall), the cycle it executed
at (``t_exec``: after register-conflict and ring waits), the cycle after it
(``end``), PC and word, the registers it wrote with their new values, its
memory accesses (address, value; ring-data reads also the cycle the word
reached the input latch) and its stall cycles by cause.  Within an
instruction the cycles fall in this order::

    cycle .. +register_conflict .. +ring_read .. +ring_write = t_exec,
    t_exec .. end: 1 cycle of execution + branch, memory_wait, bus_conflict

Host-call time is charged by the daemon after the instruction that wrote
HOST_CALL (its record has status "hostcall"): the next instruction of that
node starts ``hostcall_cycles`` later.

The on-chip peripherals (rapsim/core/periph.pxi) add to this:

* an instruction whose accesses waited for a DMA access holding their
  resource has ``dma`` stall cycles (after the ring waits, before ``t_exec``);
* ``dma_words``: the words the node's DMA channel wrote since the node's
  previous record (printed ``dma+N``);
* records that are not instructions (``kind``): an interrupt taken (guide
  7.6: PC pushed, GIE cleared, the vector read; ``pc`` is the interrupted
  instruction's, ``irq`` the IF bit, its cycles ``branch``), printed
  ``interrupt TINT0 -> 0001F5``; and a sleep in IDLE (``pc`` the IDLE's, its
  cycles ``idle``), printed ``(asleep in IDLE)``; and a ring word the DMA
  channel read, wrote or forwarded (``cycle`` = ``t_exec`` = ``end``: the
  access's cycle, ``pc`` the CPU's, its one access the word), printed
  ``(DMA channel)`` before the line of the instruction during which it
  moved (its cycle may be earlier or later than that line's);
* peripheral registers (DMA_GCR, TIMER0_CNT, ...) are named; their value is
  the register as it reads after the instruction (a write shows the register
  read back: the timer's GO bit reads 0, the DMA's STAT bits are live).

A line of the text trace::

    n0 c=13 pc=000047 prog.asm:12 | CALL sub | SP=00000001 | wr 000001=00000048 | branch=3

fields separated by " | ": node and cycle, PC and source line, disassembly,
registers written (R0-R7 as their 40-bit pattern and value), memory accesses
(``rd``/``wr`` address=value; ring registers by name) and stall cycles by
cause (only the causes it caused; ``-`` for none).  Lines come in chunks
sorted by cycle, then node: several nodes' lines interleave by cycle within
a chunk (a chunk is one fill of a node's trace buffer, 8192 instructions).
"""
from __future__ import annotations

from typing import TextIO

import numpy as np

from rapsim import _sim
from rapsim.asm import isa
from rapsim.asm.floatfmt import from_extended
from rapsim.memmap import (HOST_CALL, NODE_COUNT, NODE_ID, PERIPH_REGISTERS, RING_DATA,
                           RING_FWD, RING_STAT)

STALL_CAUSES = _sim.TRACE_CAUSES
STATUS_HOSTCALL = [k for k, v in _sim.STATUS.items() if v == "hostcall"][0]
KIND_INSTR, KIND_INTERRUPT, KIND_IDLE, KIND_DMA_RING = (
    [k for k, v in _sim.RECORD_KINDS.items() if v == name][0]
    for name in ("instruction", "interrupt", "idle", "dma-ring"))
RING_REGISTERS = {RING_DATA: "RING_DATA", RING_STAT: "RING_STAT", RING_FWD: "RING_FWD",
                  NODE_ID: "NODE_ID", NODE_COUNT: "NODE_COUNT", HOST_CALL: "HOST_CALL",
                  **PERIPH_REGISTERS}
MK_WRITE = 1


def register_text(reg: int, value: int, exp: int, fvalue: float | None = None) -> str:
    """``NAME=value``; R0-R7 as the 40-bit pattern and its floating-point
    value (``fvalue`` if the caller has it already)."""
    name = isa.REGISTER_NAMES[reg]
    if reg < 8:
        pattern = (exp & 0xFF) << 32 | value
        f = float(from_extended(pattern)) if fvalue is None else fvalue
        return f"{name}={pattern:010X}({f:.7g})"
    return f"{name}={value:08X}"


def accesses(rec) -> list[tuple[bool, int, int]]:
    """(is_write, address, value) of each memory access of a record."""
    return [(bool(rec["mkind"][k] & MK_WRITE), int(rec["maddr"][k]), int(rec["mval"][k]))
            for k in range(rec["nmem"])]


def access_text(write: bool, addr: int, value: int) -> str:
    where = RING_REGISTERS.get(addr, f"{addr:06X}")
    return f"{'wr' if write else 'rd'} {where}={value:08X}"


def stalls(rec) -> dict[str, int]:
    """Stall cycles of a record by cause (non-zero ones)."""
    return {STALL_CAUSES[k]: int(v) for k, v in enumerate(rec["stall"]) if v}


class Source:
    """PC to "file:line" and disassembly for one loaded Simulator (cached)."""

    def __init__(self, sim):
        self.sim = sim
        self._dis: dict[tuple[int, int], str] = {}

    def line(self, pc: int) -> str:
        where = self.sim._lines.get(pc)
        if where is None or self.sim.image is None:
            return "?"
        f, ln = where
        files = self.sim.image.files
        return f"{files[f] if 0 <= f < len(files) else '?'}:{ln}"

    def event(self, kind: int, irq: int, maddr: list, mval: list) -> str:
        """The text of a record that is no instruction (interrupt, IDLE)."""
        if kind == KIND_INTERRUPT:
            return f"interrupt {_sim.INTERRUPT_NAMES[irq]} -> {mval[1]:06X}"
        if kind == KIND_DMA_RING:
            return "(DMA channel)"
        return "(asleep in IDLE)"

    def disassembly(self, pc: int, word: int) -> str:
        key = (pc, word)
        text = self._dis.get(key)
        if text is None:
            text = self.sim.disassemble_at(pc, word=word).split("  ", 1)[1]
            self._dis[key] = text
        return text


_FIELDS = ("node", "cycle", "pc", "word", "nreg", "reg", "regval", "rexp", "nmem", "mkind",
           "maddr", "mval", "stall", "rpts", "status", "kind", "irq", "dma_words")


def format_records(recs: np.ndarray, src: Source) -> list[str]:
    """The trace lines of records (their fields are taken out as Python
    lists once: numpy's per-element access would cost most of the time)."""
    cols = [recs[f].tolist() for f in _FIELDS]
    # the values of every listed register as extended-precision floats, at once
    fvals = from_extended(((recs["rexp"].astype(np.int64) & 0xFF) << 32)
                          | recs["regval"].astype(np.int64)).tolist()
    out = []
    for (node, cycle, pc, word, nreg, reg, regval, rexp, nmem, mkind, maddr, mval, stall,
         rpts, status, kind, irq, dma), fv in zip(zip(*cols), fvals):
        regs = " ".join(register_text(reg[k], regval[k], rexp[k], fv[k])
                        for k in range(nreg)) or "-"
        mem = " ".join(access_text(bool(mkind[k] & MK_WRITE), maddr[k], mval[k])
                       for k in range(nmem))
        if dma:
            mem = f"{mem} dma+{dma}" if mem else f"dma+{dma}"
        st = " ".join(f"{STALL_CAUSES[k]}={v}" for k, v in enumerate(stall) if v) or "-"
        if kind != KIND_INSTR:
            what = src.event(kind, irq, maddr, mval)
        else:
            what = src.disassembly(pc, word) + (" (rpts)" if rpts else "") \
                + (" (host call)" if status == STATUS_HOSTCALL else "")
        out.append(f"n{node} c={cycle} pc={pc:06X} {src.line(pc)} | "
                   f"{what} | {regs} | {mem or '-'} | {st}")
    return out


def format_record(rec, src: Source) -> str:
    """The trace line of one record."""
    return format_records(np.asarray(rec).reshape(1), src)[0]


class TextTrace:
    """A trace sink writing one line per instruction to a text file."""

    HEADER = ("# rap trace: node cycle pc source | instruction | registers written | "
              "memory accesses | stall cycles by cause\n")

    def __init__(self, sim, out: TextIO):
        self.src = Source(sim)
        self.out = out
        self.lines = 0
        out.write(self.HEADER)

    def __call__(self, recs: np.ndarray) -> None:
        self.out.write("".join(line + "\n" for line in format_records(recs, self.src)))
        self.lines += len(recs)


def parse_nodes(text: str, count: int) -> list[int]:
    """A node list such as "0,2,5-7" (ValueError naming the bad part)."""
    nodes: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-", 1))
                if lo > hi:
                    raise ValueError
                # only the machine's nodes: a range such as 0-99999999999
                # must not be built (its ends are checked below)
                nodes.update(range(max(lo, 0), min(hi, count - 1) + 1))
                nodes.update(n for n in (lo, hi) if not 0 <= n < count)
            else:
                nodes.add(int(part))
        except ValueError:
            raise ValueError(f"bad node list {text!r}: {part!r} is not a node or a range "
                             "such as 2-5") from None
    bad = sorted(n for n in nodes if not 0 <= n < count)
    if bad:
        raise ValueError(f"node {bad[0]} does not exist (the machine has nodes 0..{count - 1})")
    return sorted(nodes)
