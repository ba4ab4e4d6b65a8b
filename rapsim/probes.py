"""Breakpoints, watchpoints and the instruction trace of a Simulator (the
Python side of rapsim/core/probe.pxi).

Every Simulator has one :class:`Probes` as ``sim.probes``::

    sim.probes.break_at(sim.symbol("_mxv"))                 # every node
    sim.probes.watch_memory(0x2000, node=3, callback=log)   # log(sim, stop) -> True: go on
    sim.probes.trace(lambda recs: ..., nodes=[0, 1], start=1000, stop=5000)
    res = sim.run()          # res.event == "breakpoint" / "watch", res.stop: a Stop

A node only runs the instrumented loop while it has a breakpoint, a watch or
a trace; the others run the plain one at full speed.  Trace records are the
``rapsim._sim.TRACE_DTYPE`` rows (see rapsim.trace for their meaning); sinks
get them in chunks (each sorted by cycle, then node) whenever a node's
buffer fills, the run stops, or :meth:`Probes.drain` is called.
"""
from __future__ import annotations

import tempfile
import weakref
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rapsim import _sim
from rapsim.asm import isa

TRACE_DTYPE = _sim.TRACE_DTYPE
#: the most records a run keeps back (hold()), in bytes: past it they go to
#: the sinks as they come, and a re-executed stop says the trace is as run
HOLD_BYTES = 256 << 20
_NO_END = (1 << 62) - 1


def select(recs: np.ndarray, which) -> np.ndarray:
    """recs[which] (a mask or indices), copied as opaque records: numpy's
    field-by-field copy of TRACE_DTYPE rows is many times slower."""
    return recs.view(f"V{TRACE_DTYPE.itemsize}")[which].view(TRACE_DTYPE)


@dataclass
class Stop:
    """Why a run stopped at a probe.  ``kind``: "breakpoint" or "watch";
    ``pc``: the node's PC now (a breakpoint's address: the instruction there
    has not executed yet); for a watch, ``what`` ("0x002000" or "R3"),
    ``old``/``new`` values and ``by_pc``, the instruction that changed it."""
    kind: str
    node: int
    pc: int
    point: "Point"
    what: str = ""
    old: int = 0
    new: int = 0
    by_pc: int = 0

    def describe(self, sim) -> str:
        if self.kind == "breakpoint":
            return f"node {self.node}: breakpoint {self.point.id} at {sim._where(self.pc)}"
        return (f"node {self.node}: watch {self.point.id}: {self.what} changed from "
                f"0x{self.old:08X} to 0x{self.new:08X} by {sim._where(self.by_pc)}")


@dataclass
class Point:
    """A breakpoint (``kind`` "break", ``address``) or a watchpoint ("watch",
    ``address`` of a memory word or ``register`` number) on ``nodes`` (None:
    every node)."""
    id: int
    kind: str
    nodes: frozenset[int] | None
    address: int | None = None
    register: int | None = None
    temporary: bool = False
    callback: Callable | None = None
    hits: int = 0

    def on(self, node: int) -> bool:
        return self.nodes is None or node in self.nodes

    def describe(self) -> str:
        where = "all nodes" if self.nodes is None else \
            "node" + ("s " if len(self.nodes) > 1 else " ") + ",".join(map(str, sorted(self.nodes)))
        if self.kind == "break":
            what = f"{'t' if self.temporary else ''}break 0x{self.address:06X}"
        elif self.register is not None:
            what = f"watch {isa.REGISTER_NAMES[self.register]}"
        else:
            what = f"watch 0x{self.address:06X}"
        return f"{self.id}: {what} on {where} (hit {self.hits} times)"


class Probes:
    """The breakpoints, watchpoints and trace sinks of one Simulator."""

    def __init__(self, sim):
        # a weak reference: a Simulator and its Probes would otherwise form a
        # reference cycle, and a machine's node memory (megabytes per node,
        # C memory the collector does not count) would wait for the cyclic
        # garbage collector instead of being freed when the last reference goes
        self._owner = weakref.ref(sim)
        self.points: dict[int, Point] = {}
        self._next_id = 1
        self._sinks: list[tuple[Callable[[np.ndarray], None], frozenset[int], int, int]] = []
        self._trace_nodes: set[int] = set()
        self._capacity: dict[int, int] = {}
        self._dropped_before = 0        # by cores replaced since (moved())
        self._held = None               # records of a run kept back (hold())
        self.overflowed = False         # the last run's records outgrew HOLD_BYTES
        self._cut: tuple[int, int] | None = None
        self._resume_pc: dict[int, int] = {}

    # -- points -------------------------------------------------------------------
    @property
    def _sim(self):
        sim = self._owner()
        if sim is None:
            raise RuntimeError("the Simulator of these probes no longer exists: keep a "
                               "reference to the Simulator while its probes are in use")
        return sim

    def _nodes(self, node) -> frozenset[int] | None:
        if node is None:
            return None
        nodes = [node] if isinstance(node, int) else list(node)
        for n in nodes:
            if not isinstance(n, int) or not 0 <= n < self._sim.nodes:
                raise ValueError(f"node {n} does not exist (0..{self._sim.nodes - 1})")
        return frozenset(nodes)

    def _add(self, p: Point) -> Point:
        self._next_id += 1
        self.points[p.id] = p
        self._sync()
        return p

    def break_at(self, address: int, node=None, *, temporary: bool = False,
                 callback: Callable | None = None) -> Point:
        """Stop a node before it executes the instruction at ``address``.
        ``node``: an index, a list, or None for every node.  ``callback(sim,
        stop)`` is called at each hit; if it returns True the run goes on."""
        if not isinstance(address, int) or not 0 <= address < 1 << 24:
            raise ValueError(f"breakpoint address {address!r} is not a 24-bit address")
        return self._add(Point(self._next_id, "break", self._nodes(node), address=address,
                               temporary=temporary, callback=callback))

    def watch_memory(self, address: int, node=None, *, callback: Callable | None = None) -> Point:
        """Stop a node after an instruction that changed the memory word at
        ``address`` (of that node)."""
        if not isinstance(address, int) or not 0 <= address < 1 << 24 \
                or not self._sim.core.mapped(0, address):
            raise ValueError(f"cannot watch address {address!r}: not plain memory of the node")
        return self._add(Point(self._next_id, "watch", self._nodes(node), address=address,
                               callback=callback))

    def watch_register(self, name: str | int, node=None, *,
                       callback: Callable | None = None) -> Point:
        """Stop a node after an instruction that changed a register (its 32
        low bits for R0-R7)."""
        if isinstance(name, int) and 0 <= name < isa.NUM_REGISTERS:
            reg = name
        elif isinstance(name, str) and name.upper() in isa.REG:
            reg = isa.REG[name.upper()]
        else:
            raise ValueError(f"no register {name!r}")
        return self._add(Point(self._next_id, "watch", self._nodes(node), register=reg,
                               callback=callback))

    def delete(self, point_id: int | None = None) -> None:
        """Delete one point (by id), or every point."""
        if point_id is None:
            self.points.clear()
        elif point_id in self.points:
            del self.points[point_id]
        else:
            raise KeyError(f"no breakpoint or watchpoint {point_id}")
        self._sync()

    # -- traces -------------------------------------------------------------------
    def trace(self, sink: Callable[[np.ndarray], None], nodes=None, start: int = 0,
              stop: int | None = None, capacity: int = 8192) -> None:
        """Send the record of every instruction that ``nodes`` (None: all)
        start in cycles [start, stop) to ``sink`` (TRACE_DTYPE arrays).
        Several sinks each get only their own nodes and cycles."""
        chosen = frozenset(range(self._sim.nodes) if nodes is None else self._nodes(nodes))
        if not isinstance(start, int) or start < 0 or (stop is not None and stop <= start):
            raise ValueError(f"bad cycle range {start}..{stop}")
        end = _NO_END if stop is None else stop
        self._sinks.append((sink, chosen, start, end))
        for n in chosen:
            # the node records the union of its sinks' windows
            mine = [(a, b) for _, ns, a, b in self._sinks if n in ns]
            self._sim.core.probe_trace(n, min(a for a, _ in mine), max(b for _, b in mine),
                                       capacity)
            self._trace_nodes.add(n)
            self._capacity[n] = capacity

    @property
    def dropped(self) -> int:
        """DMA ring records lost to a full trace buffer, all nodes (0 unless
        one instruction's time saw more DMA ring words than a buffer holds)."""
        return self._dropped_before + sum(self._sim.core.probe_dropped(n)
                                          for n in self._trace_nodes)

    def hold(self) -> None:
        """Keep the records of the coming run back (in a temporary file) until
        :meth:`release`: a run that stops may be re-executed to the stop's
        cycle (rapsim/replay.py), and the records of instructions past it
        must not reach the sinks.  Only with traces and no points (a run
        with breakpoints or watchpoints is never re-executed)."""
        self.overflowed = False
        if self._trace_nodes and not self.points and self._held is None:
            self._held = tempfile.TemporaryFile()
            self._held_batches: list[int] = []     # records per drain, handed on alike
            self._cut = None

    def release(self) -> None:
        """Hand the records kept back to the sinks (those recorded before a
        :meth:`moved` only if they start before its cycle)."""
        held, self._held = self._held, None
        if held is None:
            return
        cut, self._cut = self._cut, None
        size = TRACE_DTYPE.itemsize
        try:
            held.seek(0)
            done = 0
            for count in self._held_batches:
                recs = np.frombuffer(held.read(size * count), dtype=TRACE_DTYPE).copy()
                if cut is not None and done < cut[0]:     # (a batch is before or after the cut)
                    keep = recs["cycle"] < cut[1]
                    if not keep.all():
                        recs = select(recs, keep)
                done += size * count
                self._to_sinks(recs)
        finally:
            held.close()

    def moved(self, old_core, cycle: int) -> None:
        """The Simulator's core was replaced by one re-executed to ``cycle``
        (a stop, rapsim/replay.py): the records left in the old core are
        drained (of those kept back since :meth:`hold`, only the ones that
        start before ``cycle`` will reach the sinks: the new core records
        the rest), and the traces and points are armed on the new core."""
        self._dropped_before += sum(old_core.probe_dropped(n) for n in self._trace_nodes)
        self._deliver([p for p in (old_core.probe_drain(n) for n in sorted(self._trace_nodes))
                       if len(p)])
        if self._held is not None:
            self._cut = (self._held.tell(), cycle)
        for n in self._trace_nodes:
            mine = [(a, b) for _, ns, a, b in self._sinks if n in ns]
            self._sim.core.probe_trace(n, min(a for a, _ in mine), max(b for _, b in mine),
                                       self._capacity[n])
        self._sync()

    def unmoved(self, old_core) -> None:
        """The core replaced by :meth:`moved` is back (the re-execution was
        refused): every record kept back reaches the sinks."""
        self._cut = None
        self._dropped_before -= sum(old_core.probe_dropped(n) for n in self._trace_nodes)

    def untrace(self) -> None:
        """Drain the records left and stop tracing."""
        self.drain()
        self._sinks.clear()
        self._trace_nodes.clear()
        for n in range(self._sim.nodes):
            if self._sim.core.probed(n):
                self._sim.core.probe_off(n)
        self._sync()

    def drain(self) -> None:
        """Hand every record still in the nodes' buffers to the sinks."""
        if not self._trace_nodes:
            return
        self._deliver([p for p in (self._sim.core.probe_drain(n)
                                   for n in sorted(self._trace_nodes)) if len(p)])

    def _deliver(self, parts: list[np.ndarray]) -> None:
        """Hand the records drained from the nodes to the sinks (or keep
        them back: hold())."""
        if not parts:
            return
        recs = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if len(parts) > 1:      # (one node's records are in order already)
            recs = select(recs, np.lexsort((recs["node"], recs["cycle"])))
        if self._held is not None:
            self._held.write(np.ascontiguousarray(recs).tobytes())
            self._held_batches.append(len(recs))
            if self._held.tell() <= HOLD_BYTES:
                return
            self.overflowed = True      # (the rest of the run goes to the sinks as it comes)
            self.release()
            return
        self._to_sinks(recs)

    def _to_sinks(self, recs: np.ndarray) -> None:
        if not len(recs):
            return
        all_nodes = frozenset(self._trace_nodes)
        for sink, nodes, start, end in self._sinks:
            mine = recs
            if nodes != all_nodes or start > 0 or end < _NO_END:
                keep = (recs["cycle"] >= start) & (recs["cycle"] < end)
                if nodes != all_nodes:
                    keep &= np.isin(recs["node"], list(nodes))
                if not keep.all():
                    mine = select(recs, keep)
            if len(mine):
                sink(mine)

    # -- the core's side -------------------------------------------------------------
    def refresh(self) -> None:
        """Take the watched words' current values as the reference (after
        memory was changed other than by an instruction: the host daemon's
        reply to a host call, Simulator.write)."""
        self._sync()

    def _sync(self) -> None:
        core = self._sim.core
        for n in range(self._sim.nodes):
            pts = [p for p in self.points.values() if p.on(n)]
            if not pts and n not in self._trace_nodes:
                if core.probed(n):
                    core.probe_off(n)
                continue
            breaks = sorted({p.address for p in pts if p.kind == "break"})
            words = sorted({p.address for p in pts if p.kind == "watch" and p.register is None})
            regs = 0
            for p in pts:
                if p.register is not None:
                    regs |= 1 << p.register
            core.probe_set(n, breaks, words, regs)

    def before_run(self) -> None:
        """A node resuming from a breakpoint executes that instruction first."""
        for n, pc in self._resume_pc.items():
            if self._sim.core.probed(n) and self._sim.core.get_pc(n) == pc:
                self._sim.core.probe_skip(n)
        self._resume_pc.clear()

    def stopped(self, node: int) -> Stop | None:
        """After the core reported a probe stop of ``node``: drain the traces,
        and the Stop if the run must return (None: go on)."""
        self.drain()
        hit = self._sim.core.probe_hit(node)
        if hit is None or hit[0] == "trace-full":
            return None
        kind, addr, old, new, by_pc = hit
        pc = self._sim.core.get_pc(node)
        if kind == "break":
            pts = [p for p in self.points.values()
                   if p.kind == "break" and p.address == addr and p.on(node)]
            stop = Stop("breakpoint", node, pc, pts[0] if pts else None)
            self._resume_pc[node] = pc
        else:
            if kind == "watch-memory":
                pts = [p for p in self.points.values() if p.kind == "watch"
                       and p.register is None and p.address == addr and p.on(node)]
                what = f"0x{addr:06X}"
            else:
                pts = [p for p in self.points.values() if p.kind == "watch"
                       and p.register == addr and p.on(node)]
                what = isa.REGISTER_NAMES[addr]
            stop = Stop("watch", node, pc, pts[0] if pts else None, what, old, new, by_pc)
        if stop.point is None:      # deleted meanwhile: nothing to report
            return None
        stop.point.hits += 1
        go_on = bool(stop.point.callback(self._sim, stop)) if stop.point.callback else False
        if stop.point.temporary:
            self.delete(stop.point.id)
        if go_on:
            self.before_run()
            return None
        return stop
