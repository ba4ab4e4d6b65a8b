"""A Chrome/Perfetto trace-event timeline of a run (``rap run --timeline``,
``rap train --timeline``).

The file is the JSON object form of the Trace Event Format
(``{"traceEvents": [...], "displayTimeUnit": "ns"}``), loadable in
https://ui.perfetto.dev and chrome://tracing:

* one process (pid 0, "RAP") with one track (tid = node) per node, named by
  "M" metadata events;
* "X" (complete) slices on a node's track: each firmware routine a CALL
  enters, from the instruction after the CALL to the end of the RETS (named
  by the routine's label), and inside them the ring waits ("ring read wait",
  "ring write wait") and host calls ("host call"); a node still waiting on
  the ring when the run stops gets a last slice "ring read wait (at end)";
* the on-chip peripherals' events on the same tracks: an interrupt's service,
  from its dispatch to the end of the RETI ("interrupt TINT0", nesting like
  a routine), a sleep in IDLE ("IDLE"), and the CPU's waits for a DMA access
  ("DMA wait");
* "C" (counter) events on pid 0, "ring utilisation": words written to the
  ring (by the CPUs and the DMA channels) in each bucket of cycles /
  (nodes x bucket), 0..1; and, when a DMA
  channel moved words, "DMA words": the words all nodes' channels wrote in
  the bucket / bucket (words per cycle).

Timestamps are simulated time in microseconds (cycle / clock rate); every
event's ``args`` also carry the cycle.  The timeline is built from the
instruction trace (rapsim/trace.py), vectorised over each chunk: only the
calls, returns, waits and host calls are looked at one by one.

``window``: keep only what falls in cycles [start, end) (slices clipped).
``mark``: an address; the window is then node 0's first pass there to its
next one (``rap train --timeline``: one training pattern, the code at the
label ``pattern``).
"""
from __future__ import annotations

import json

import numpy as np

from rapsim.asm.decoder import decode
from rapsim.memmap import RING_DATA
from rapsim import _sim
from rapsim.probes import select
from rapsim.trace import (KIND_DMA_RING, KIND_IDLE, KIND_INSTR, KIND_INTERRUPT, STALL_CAUSES,
                          STATUS_HOSTCALL)

SC_REGCONF, SC_RING_READ, SC_RING_WRITE = 1, 4, 5
TC_DMA = STALL_CAUSES.index("dma")
_CALL, _RET = 1, 2
_SP = 20            # register number of SP (rapsim.asm.isa.REG["SP"])


def _kind(word: int) -> int:
    d = decode(word)
    if d is None:
        return 0
    m = d.form.mnemonic
    if m.startswith("CALL") or m.startswith("TRAP") or m == "LAJ":
        return _CALL
    if m.startswith("RETS") or m.startswith("RETI"):
        return _RET
    return 0


class Timeline:
    """A trace sink that collects the timeline's events."""

    def __init__(self, sim, window: tuple[int, int | None] | None = None, mark: int | None = None):
        self.sim = sim
        self.us = 1e6 / sim.config.clock_hz
        self.window = window
        self.mark = mark
        self._marks: list[int] = []
        self._kinds: dict[int, int] = {}
        self._stack: dict[int, list[tuple[str, int]]] = {n: [] for n in range(sim.nodes)}
        self._pending: dict[int, int] = {}       # node -> start cycle of a routine being entered
        self.slices: list[tuple[int, str, int, int, dict]] = []   # node, name, start, end, args
        self._writes: list[np.ndarray] = []
        self._dma: list[np.ndarray] = []        # rows (t, words)
        self.hostcall = sim.config.hostcall_cycles

    def _kinds_of(self, words: np.ndarray) -> np.ndarray:
        uniq, inv = np.unique(words, return_inverse=True)
        for w in uniq.tolist():
            if w not in self._kinds:
                self._kinds[w] = _kind(w)
        k = np.array([self._kinds[w] for w in uniq.tolist()], dtype=np.int8)
        return k[inv]

    def __call__(self, recs: np.ndarray) -> None:
        sp_changed = np.any((recs["reg"] == _SP) & (np.arange(8) < recs["nreg"][:, None]), axis=1)
        instr = recs["kind"] == KIND_INSTR
        kinds = np.where(sp_changed & instr, self._kinds_of(recs["word"]), 0)
        dma = recs["dma_words"] > 0
        if dma.any():
            self._dma.append(np.stack([recs["t_exec"][dma], recs["dma_words"][dma]], axis=1))
        # ring-data writes, for the utilisation counter
        wr = ((recs["mkind"] & 1) == 1) & (recs["maddr"] == RING_DATA) \
            & (np.arange(4) < recs["nmem"][:, None])
        self._writes.append(np.repeat(recs["t_exec"], wr.sum(axis=1)))
        if self.mark is not None:
            hit = (recs["node"] == 0) & (recs["pc"] == self.mark)
            self._marks += recs["cycle"][hit].tolist()
        for n in np.unique(recs["node"]).tolist():
            mine = recs["node"] == n
            self._node(n, select(recs, mine), kinds[mine])

    def _node(self, n: int, recs: np.ndarray, kinds: np.ndarray) -> None:
        st = recs["stall"]
        interesting = (kinds != 0) | (st[:, SC_RING_READ] > 0) | (st[:, SC_RING_WRITE] > 0) \
            | (st[:, TC_DMA] > 0) | (recs["status"] == STATUS_HOSTCALL) \
            | (recs["kind"] != KIND_INSTR)
        idx = np.flatnonzero(interesting)
        if n in self._pending and len(recs):
            self._enter(n, int(recs["pc"][0]))
        sub = select(recs, idx)
        cols = zip(idx.tolist(), sub["cycle"].tolist(), sub["stall"].tolist(),
                   sub["pc"].tolist(), sub["status"].tolist(), sub["end"].tolist(),
                   kinds[idx].tolist(), sub["kind"].tolist(), sub["irq"].tolist())
        pcs = recs["pc"]
        for i, cycle, stall, pc, status, end, kind, rkind, irq in cols:
            if rkind == KIND_INTERRUPT:     # its service nests like a routine, up to RETI
                self._stack[n].append((f"interrupt {_sim.INTERRUPT_NAMES[irq]}", cycle))
                continue
            if rkind == KIND_IDLE:
                self.slices.append((n, "IDLE", cycle, end, {"pc": pc}))
                continue
            if rkind == KIND_DMA_RING:      # (counted in the ring utilisation only)
                continue
            c = cycle + stall[SC_REGCONF]
            rr, rw, dw = stall[SC_RING_READ], stall[SC_RING_WRITE], stall[TC_DMA]
            if rr:
                self.slices.append((n, "ring read wait", c, c + rr, {"pc": pc}))
            if rw:
                self.slices.append((n, "ring write wait", c + rr, c + rr + rw, {"pc": pc}))
            if dw:
                self.slices.append((n, "DMA wait", c + rr + rw, c + rr + rw + dw, {"pc": pc}))
            if status == STATUS_HOSTCALL and self.hostcall:
                self.slices.append((n, "host call", end, end + self.hostcall, {"pc": pc}))
            if kind == _CALL:
                self._pending[n] = end
                if i + 1 < len(recs):
                    self._enter(n, int(pcs[i + 1]))
            elif kind == _RET and self._stack[n]:
                name, start = self._stack[n].pop()
                self.slices.append((n, name, start, end, {}))

    def _enter(self, n: int, target: int) -> None:
        start = self._pending.pop(n)
        self._stack[n].append((self.sim._labels.get(target, f"0x{target:06X}"), start))

    # -- the file ------------------------------------------------------------------------
    def bounds(self) -> tuple[int, int]:
        """The cycle window the file covers."""
        end_all = max(self.sim.core.cycle(n) for n in range(self.sim.nodes)) + 1
        if self.window is not None:
            lo, hi = self.window
            return lo, end_all if hi is None else hi
        if self.mark is not None and self._marks:
            return self._marks[0], self._marks[1] if len(self._marks) > 1 else end_all
        return 0, end_all

    def events(self) -> list[dict]:
        sim = self.sim
        lo, hi = self.bounds()
        end_all = max(sim.core.cycle(n) for n in range(sim.nodes))
        slices = list(self.slices)
        for n, stack in self._stack.items():        # routines still open at the end
            for name, start in stack:
                slices.append((n, name, start, sim.core.cycle(n), {"open at end": True}))
        for n in range(sim.nodes):
            st = sim.core.status(n)
            if st.startswith("ring"):
                what = {"ring-read": "ring read wait", "ring-write": "ring write wait",
                        "ring-sync": "ring status wait"}[st]
                slices.append((n, f"{what} (at end)", sim.core.cycle(n), max(end_all, sim.core.cycle(n)) + 1,
                               {"pc": sim.core.get_pc(n)}))
        ev: list[dict] = [{"ph": "M", "pid": 0, "tid": 0, "name": "process_name", "ts": 0,
                           "args": {"name": f"RAP ({sim.nodes} nodes)"}}]
        for n in range(sim.nodes):
            ev.append({"ph": "M", "pid": 0, "tid": n, "name": "thread_name", "ts": 0,
                       "args": {"name": f"node {n}"}})
            ev.append({"ph": "M", "pid": 0, "tid": n, "name": "thread_sort_index", "ts": 0,
                       "args": {"sort_index": n}})
        # outer slices first at equal starts, so that viewers nest them
        slices.sort(key=lambda s: (s[0], s[2], -(s[3] - s[2])))
        for n, name, a, b, args in slices:
            a2, b2 = max(a, lo), min(b, hi)
            if b2 <= a2 and not (a == b and lo <= a < hi):
                continue
            ev.append({"ph": "X", "pid": 0, "tid": n, "name": name, "ts": a2 * self.us,
                       "dur": (b2 - a2) * self.us, "args": {"cycle": a2, "cycles": b2 - a2, **args}})
        ev += self._counters(lo, hi)
        return ev

    def _counters(self, lo: int, hi: int) -> list[dict]:
        span = max(hi - lo, 1)
        bucket = max(16, span // 400)
        t = np.concatenate(self._writes) if self._writes else np.zeros(0, np.int64)
        t = t[(t >= lo) & (t < hi)]
        counts = np.bincount((t - lo) // bucket, minlength=-(-span // bucket)) if len(t) else \
            np.zeros(-(-span // bucket), np.int64)
        out = []
        for k, c in enumerate(counts.tolist()):
            cyc = lo + k * bucket
            out.append({"ph": "C", "pid": 0, "tid": 0, "name": "ring utilisation", "ts": cyc * self.us,
                        "args": {"utilisation": c / (self.sim.nodes * bucket)}})
        if self._dma:
            d = np.concatenate(self._dma)
            d = d[(d[:, 0] >= lo) & (d[:, 0] < hi)]
            words = np.bincount((d[:, 0] - lo) // bucket, weights=d[:, 1],
                                minlength=len(counts))
            for k, c in enumerate(words.tolist()):
                out.append({"ph": "C", "pid": 0, "tid": 0, "name": "DMA words",
                            "ts": (lo + k * bucket) * self.us,
                            "args": {"words per cycle": c / bucket}})
        return out

    def document(self) -> dict:
        lo, hi = self.bounds()
        return {"traceEvents": self.events(), "displayTimeUnit": "ns",
                "otherData": {"generator": "rap", "nodes": self.sim.nodes,
                              "clock_hz": self.sim.config.clock_hz,
                              "cycles": [lo, hi]}}

    def write(self, path: str) -> None:
        """The JSON file; a path ending in .png or .svg gets the picture
        instead (rapsim.plots.timeline_figure)."""
        if path.lower().endswith((".png", ".svg")):
            from rapsim.plots import timeline_figure
            timeline_figure(self.document(), path)
            return
        from rapsim.fileio import write_file
        write_file(path, json.dumps(self.document()) + "\n")


def validate(doc: dict) -> list[str]:
    """Problems of a trace-event document (empty: valid): the fields the
    Trace Event Format requires of M, X, B/E and C events, and proper
    nesting of slices on each track."""
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents list"]
    open_b: dict[tuple, list] = {}
    slices: dict[tuple, list[tuple[float, float, str, int]]] = {}
    for i, e in enumerate(doc["traceEvents"]):
        ph = e.get("ph")
        for f in ("ph", "ts", "pid", "tid", "name"):
            if f not in e:
                problems.append(f"event {i}: no {f}")
        if ph not in ("M", "X", "B", "E", "C", "i", "I"):
            problems.append(f"event {i}: unknown phase {ph!r}")
        if not isinstance(e.get("ts", 0), (int, float)):
            problems.append(f"event {i}: ts is not a number")
            continue
        track = (e.get("pid"), e.get("tid"))
        if ph == "X":
            d = e.get("dur")
            if not isinstance(d, (int, float)) or d < 0:
                problems.append(f"event {i}: X without a non-negative dur")
                continue
            slices.setdefault(track, []).append((e["ts"], d, e.get("name"), i))
        elif ph == "B":
            open_b.setdefault(track, []).append(e)
        elif ph == "E":
            if not open_b.get(track):
                problems.append(f"event {i}: E without B on {track}")
            else:
                open_b[track].pop()
        elif ph == "C":
            if not isinstance(e.get("args"), dict) or not e["args"] or not all(
                    isinstance(v, (int, float)) for v in e["args"].values()):
                problems.append(f"event {i}: C event without numeric args")
    # complete slices of a track nest: each ends before its parent does
    for track, sl in slices.items():
        ends: list[float] = []
        for ts, d, name, i in sorted(sl, key=lambda x: (x[0], -x[1])):
            while ends and ends[-1] <= ts + 1e-9:
                ends.pop()
            if ends and ts + d > ends[-1] + 1e-9:
                problems.append(f"event {i}: slice {name!r} overlaps its parent on {track}")
            ends.append(ts + d)
    for track, bs in open_b.items():
        if bs:
            problems.append(f"{len(bs)} B events never ended on {track}")
    return problems
