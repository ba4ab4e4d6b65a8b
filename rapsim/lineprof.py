"""Cycles per source line and per routine, with stall causes (``rap prof``).

:class:`LineProfile` is a trace sink (rapsim/probes.py): every executed
instruction's record is charged, by its PC, with its cycles (``end -
cycle``: its own stalls included) and its stall cycles by cause; an
instruction that wrote HOST_CALL is also charged the host call's time (the
daemon charges ``hostcall_cycles`` after it).  The on-chip peripherals'
events are charged too: an interrupt's dispatch (its pipeline flush, as
``branch`` cycles) to the first instruction of its service routine (the
vector's target), a sleep in IDLE (cause ``idle``) to the IDLE instruction;
neither counts as an instruction.  The aggregation is numpy over each chunk
of records, never Python per instruction, and the total is exact: the
cycles of all PCs add up to the node-cycles of the run.

PCs map to source lines through the image's line table and to routines
through its symbols: a routine is a global name that a CALL in the image
enters (or the entry point), with the code after it up to the next such name
(rapsim.compiler.profile uses the same rule); an image without calls uses
every global name.
"""
from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from rapsim import _sim
from rapsim.asm.decoder import decode
from rapsim.probes import select
from rapsim.trace import KIND_DMA_RING, KIND_INSTR, KIND_INTERRUPT, STATUS_HOSTCALL

STALL_CAUSES = _sim.TRACE_CAUSES
_COLS = 2 + len(STALL_CAUSES)          # instructions, cycles, stalls...


def routine_starts(image) -> list[tuple[int, str]]:
    """(address, name) of the routines of an image, in address order."""
    called: set[int] = set()
    for addr, words in image.words():
        for i, w in enumerate(words):
            d = decode(int(w))
            if d is not None and d.form.mnemonic in ("CALL", "LAJ") and d.operands:
                v = getattr(d.operands[0], "value", None)
                if isinstance(v, int):
                    called.add(v)
    names = {}
    for name, addr in image.symbols.items():
        if ":" in name or name.startswith("$") or name.startswith("."):
            continue
        if addr in called or addr == image.entry:
            if addr not in names or (names[addr].startswith("_") and not name.startswith("_")):
                names[addr] = name
    if len(names) <= 1:         # no calls: every global name
        for name, addr in image.symbols.items():
            if ":" not in name and not name.startswith("$") and not name.startswith("."):
                names.setdefault(addr, name)
    return sorted(names.items())


@dataclass
class Row:
    """The charge of a PC, a line or a routine."""
    instructions: int = 0
    cycles: int = 0
    stalls: dict[str, int] = field(default_factory=dict)

    def add(self, v: np.ndarray) -> None:
        self.instructions += int(v[0])
        self.cycles += int(v[1])
        for k, c in enumerate(STALL_CAUSES):
            if v[2 + k]:
                self.stalls[c] = self.stalls.get(c, 0) + int(v[2 + k])

    def to_dict(self) -> dict:
        return {"instructions": self.instructions, "cycles": self.cycles,
                "stalls": {c: self.stalls.get(c, 0) for c in STALL_CAUSES}}


class LineProfile:
    """A trace sink that charges every instruction to its PC."""

    def __init__(self, sim):
        self.sim = sim
        self.hostcall_cycles = sim.config.hostcall_cycles
        self._pc: dict[int, np.ndarray] = {}

    def __call__(self, recs: np.ndarray) -> None:
        if (recs["kind"] == KIND_DMA_RING).any():     # (no cycles of the CPU's)
            recs = select(recs, recs["kind"] != KIND_DMA_RING)
        kind = recs["kind"]
        # an interrupt is charged to its service routine: the vector's target
        # (the record's second access, the vector word read)
        pc = np.where(kind == KIND_INTERRUPT, recs["mval"][:, 1], recs["pc"])
        pcs, inv = np.unique(pc, return_inverse=True)
        cycles = (recs["end"] - recs["cycle"]).astype(np.float64)
        host = np.where(recs["status"] == STATUS_HOSTCALL, self.hostcall_cycles, 0)
        cols = [np.bincount(inv, weights=(kind == KIND_INSTR).astype(np.float64),
                            minlength=len(pcs)),
                np.bincount(inv, weights=cycles + host, minlength=len(pcs))]
        for k, cause in enumerate(STALL_CAUSES):
            w = recs["stall"][:, k].astype(np.float64)
            if cause == "host_call":
                w = w + host
            cols.append(np.bincount(inv, weights=w, minlength=len(pcs)))
        table = np.rint(np.stack(cols, axis=1)).astype(np.int64)
        for pc, row in zip(pcs.tolist(), table):
            acc = self._pc.get(pc)
            if acc is None:
                self._pc[pc] = row.copy()
            else:
                acc += row

    # -- results ---------------------------------------------------------------------
    def by_pc(self) -> dict[int, Row]:
        out = {}
        for pc, v in sorted(self._pc.items()):
            r = Row()
            r.add(v)
            out[pc] = r
        return out

    def total(self) -> Row:
        r = Row()
        for v in self._pc.values():
            r.add(v)
        return r

    def report(self, sources: dict[str, str] | None = None) -> dict:
        """Everything as plain data (the JSON of ``rap prof``): totals, and
        rows by routine and by source line (cycles high to low), with the
        source text of each line where the file can be read."""
        sim = self.sim
        starts = routine_starts(sim.image) if sim.image is not None else []
        addrs = [a for a, _ in starts]
        files = sim.image.files if sim.image is not None else []
        texts = SourceTexts(sources or {})
        routines: dict[str, Row] = {}
        lines: dict[tuple[str, int], tuple[str, Row]] = {}
        for pc, row in self.by_pc().items():
            i = bisect_right(addrs, pc) - 1
            rname = starts[i][1] if i >= 0 else "(outside)"
            routines.setdefault(rname, Row())
            _merge(routines[rname], row)
            where = sim._lines.get(pc)
            key = (files[where[0]] if where and 0 <= where[0] < len(files) else "?",
                   where[1] if where else 0)
            if key not in lines:
                lines[key] = (rname, Row())
            _merge(lines[key][1], row)
        total = self.total()
        return {
            "nodes": sim.nodes,
            "total": total.to_dict(),
            "routines": [{"routine": n, **r.to_dict()} for n, r in
                         sorted(routines.items(), key=lambda kv: -kv[1].cycles)],
            "lines": [{"file": f, "line": ln, "routine": rn, "text": texts.line(f, ln),
                       **r.to_dict()}
                      for (f, ln), (rn, r) in sorted(lines.items(), key=lambda kv: -kv[1][1].cycles)],
        }


def _merge(into: Row, row: Row) -> None:
    into.instructions += row.instructions
    into.cycles += row.cycles
    for c, v in row.stalls.items():
        into.stalls[c] = into.stalls.get(c, 0) + v


class SourceTexts:
    """Source lines by file name: given texts (a generated program), else the
    file on disk, else the firmware's own copy (by base name)."""

    def __init__(self, given: dict[str, str]):
        self._given = {k: v.splitlines() for k, v in given.items()}
        self._cache: dict[str, list[str] | None] = {}

    def lines_of(self, name: str) -> list[str] | None:
        if name in self._given:
            return self._given[name]
        if name not in self._cache:
            text = None
            candidates = [name]
            try:
                from rapsim import firmware
                candidates.append(os.fspath(firmware.path(os.path.basename(name))))
            except Exception:       # noqa: BLE001 - no firmware copy: the name alone
                pass
            for c in candidates:
                try:
                    with open(c, encoding="utf-8", errors="replace") as f:
                        text = f.read().splitlines()
                    break
                except OSError:
                    continue
            self._cache[name] = text
        return self._cache[name]

    def line(self, name: str, ln: int) -> str | None:
        lines = self.lines_of(name)
        if lines is None or not 1 <= ln <= len(lines):
            return None
        return lines[ln - 1]


def annotated_listing(rep: dict, top: int = 10) -> str:
    """The ``perf annotate``-like text: a table of routines, then for each of
    the ``top`` routines its source lines with cycles, percent of all
    cycles, executions and the stall cycles by cause."""
    total = max(rep["total"]["cycles"], 1)
    short = {"branch": "br", "register_conflict": "reg", "memory_wait": "wait",
             "bus_conflict": "bus", "ring_read": "ringR", "ring_write": "ringW",
             "host_call": "host", "dma": "dma", "idle": "idle"}
    out = [f"{rep['total']['cycles']} node-cycles on {rep['nodes']} node(s), "
           f"{rep['total']['instructions']} instructions",
           "", f"{'cycles':>12} {'%':>6} {'instrs':>10}  stalls by cause            routine"]
    for r in rep["routines"]:
        out.append(f"{r['cycles']:>12} {100 * r['cycles'] / total:6.2f} {r['instructions']:>10}  "
                   f"{_stall_text(r['stalls'], short):<26} {r['routine']}")
    by_routine: dict[str, list[dict]] = {}
    for ln in rep["lines"]:
        by_routine.setdefault(ln["routine"], []).append(ln)
    for r in rep["routines"][:top]:
        rows = sorted(by_routine.get(r["routine"], []), key=lambda x: (x["file"], x["line"]))
        out += ["", f"--- {r['routine']}: {r['cycles']} cycles "
                    f"({100 * r['cycles'] / total:.2f}%) ---",
                f"{'cycles':>10} {'%':>6} {'execs':>8} {'stalls':<22} source"]
        for ln in rows:
            text = ln["text"] if ln["text"] is not None else "(source not available)"
            out.append(f"{ln['cycles']:>10} {100 * ln['cycles'] / total:6.2f} "
                       f"{ln['instructions']:>8} {_stall_text(ln['stalls'], short):<22} "
                       f"{os.path.basename(ln['file'])}:{ln['line']}: {text.rstrip()}")
    return "\n".join(out) + "\n"


def _stall_text(stalls: dict, short: dict) -> str:
    return " ".join(f"{short[c]}={v}" for c, v in stalls.items() if v) or "-"
