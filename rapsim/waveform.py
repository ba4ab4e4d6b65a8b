"""A VCD waveform of a run, for GTKWave (``rap run --vcd FILE``), written
with pyvcd.

Signals (time unit: 1 ps; one machine cycle = round(1e12 / clock) ps, 62500
at 16 MHz):

* ``rap.nodeN.state`` (string): what node N does in each cycle: ``running``
  (an instruction's execute cycle), ``register_conflict``, ``ring_read_wait``,
  ``ring_write_wait`` (waiting to read or write the ring), ``branch``,
  ``memory_wait``, ``bus_conflict`` (the stall cycles after the execute
  cycle, in this order), ``host_call`` (in a host call), and at the end
  ``exited``, ``error``, ``break`` or ``idle`` when the node stopped -- or a
  ring wait that never ended (a deadlock); with the on-chip peripherals
  also ``dma_wait`` (the CPU waits for a DMA access holding a resource, after
  the ring waits), ``interrupt`` (an interrupt's dispatch, guide 7.6) and
  ``idle_wait`` (asleep in IDLE until an interrupt);
* ``rap.nodeN.pc`` (24 bits): the PC of the instruction node N is on;
* ``rap.nodeN.state_code`` (4 bits): the state as a number, for viewers
  without string signals (0 running, 1 register_conflict, 2 ring_read_wait,
  3 ring_write_wait, 4 branch, 5 memory_wait, 6 bus_conflict, 7 host_call,
  8 stopped, 9 dma_wait, 10 interrupt, 11 idle_wait);
* ``rap.nodeN.dma_words`` (32 bits): the words node N's DMA channel has
  written so far in the traced window (changes at the node's instruction
  boundaries: the channel runs between them);
* ``rap.ring.linkN`` -- the link from node N to node N+1: ``out_data`` and
  ``out_full`` (node N's output latch), ``in_data`` and ``in_full`` (node
  N+1's input latch), ``occupancy`` (words in the two latches, 0..2).  An
  empty latch's data is ``x``.

A word written at W (the writer's execute cycle) sits in the output latch
until it moves to the input latch at M (recorded when it is read; for a word
never read, from the ring rules: ``M = max(W + h, R_prev + 1)``,
rapsim/core/ring.pxi) and in the input latch until it is read at R.  The
waveform is built from the instruction trace of every node over the whole
run (rapsim/trace.py); the changes are sorted and written at the end.
"""
from __future__ import annotations

import numpy as np

from rapsim.memmap import RING_DATA
from rapsim.trace import KIND_IDLE, KIND_INSTR, KIND_INTERRUPT, STALL_CAUSES, STATUS_HOSTCALL

STATES = ("running", "register_conflict", "ring_read_wait", "ring_write_wait", "branch",
          "memory_wait", "bus_conflict", "host_call", "stopped", "dma_wait", "interrupt",
          "idle_wait")
_STOPPED = STATES.index("stopped")
_DMA = STALL_CAUSES.index("dma")
_END_STATES = {"ring-read": "ring_read_wait", "ring-write": "ring_write_wait",
               "ring-sync": "ring_read_wait", "hostcall": "host_call"}


class Waveform:
    """A trace sink collecting every node's states and the ring's words."""

    def __init__(self, sim):
        self.sim = sim
        self.hostcall = sim.config.hostcall_cycles
        self._states: list[np.ndarray] = []     # rows (t, node, code)
        self._pcs: list[np.ndarray] = []        # rows (t, node, pc)
        self._writes: list[np.ndarray] = []     # rows (t, node, value)
        self._reads: list[np.ndarray] = []      # rows (t, node, mtime)
        self._dma: list[np.ndarray] = []        # rows (t, node, words)

    def __call__(self, recs: np.ndarray) -> None:
        n = len(recs)
        st = recs["stall"].astype(np.int64)
        c0 = recs["cycle"]
        rc, rr, rw, br, mw, bc = st[:, 1], st[:, 4], st[:, 5], st[:, 0], st[:, 2], st[:, 3]
        dw = st[:, _DMA]
        te = recs["t_exec"]
        host = (recs["status"] == STATUS_HOSTCALL) & (self.hostcall > 0)
        kind = recs["kind"]
        ins = kind == KIND_INSTR
        # segments of each instruction, in time order: (start, code, present);
        # an interrupt or an IDLE sleep is one segment
        segs = [(c0, 1, ins & (rc > 0)), (c0 + rc, 2, ins & (rr > 0)),
                (c0 + rc + rr, 3, ins & (rw > 0)), (c0 + rc + rr + rw, 9, ins & (dw > 0)),
                (te, 0, ins), (te + 1, 4, ins & (br > 0)), (te + 1 + br, 5, ins & (mw > 0)),
                (te + 1 + br + mw, 6, ins & (bc > 0)), (recs["end"], 7, host),
                (c0, 10, kind == KIND_INTERRUPT), (c0, 11, kind == KIND_IDLE)]
        times = np.stack([s[0] for s in segs], axis=1)
        codes = np.broadcast_to(np.array([s[1] for s in segs]), times.shape)
        keep = np.stack([s[2] for s in segs], axis=1)
        nodes = np.broadcast_to(recs["node"][:, None], times.shape)
        self._states.append(np.stack([times[keep], nodes[keep], codes[keep]], axis=1))
        self._pcs.append(np.stack([c0[ins], recs["node"][ins].astype(np.int64),
                                   recs["pc"][ins].astype(np.int64)], axis=1))
        dma = recs["dma_words"] > 0
        if dma.any():
            self._dma.append(np.stack([c0[dma], recs["node"][dma].astype(np.int64),
                                       recs["dma_words"][dma].astype(np.int64)], axis=1))
        k = np.arange(4) < recs["nmem"][:, None]
        ring = k & (recs["maddr"] == RING_DATA)
        wr = ring & ((recs["mkind"] & 1) == 1)
        rd = ring & ((recs["mkind"] & 1) == 0)
        tt = np.broadcast_to(te[:, None], wr.shape)
        nn = np.broadcast_to(recs["node"][:, None].astype(np.int64), wr.shape)
        self._writes.append(np.stack([tt[wr], nn[wr], recs["mval"][wr].astype(np.int64)], axis=1))
        self._reads.append(np.stack([tt[rd], nn[rd], recs["mtime"][rd]], axis=1))

    @staticmethod
    def _rows(parts: list[np.ndarray]) -> np.ndarray:
        parts = [p for p in parts if len(p)]
        return np.concatenate(parts) if parts else np.zeros((0, 3), np.int64)

    def _latency(self, link: int) -> int:
        cfg = self.sim.config
        if cfg.boards > 1 and cfg.board_of(link) != cfg.board_of((link + 1) % cfg.nodes):
            return cfg.board_hop_cycles
        return 1

    def changes(self) -> list[tuple[int, int, str, object]]:
        """Every value change as (cycle, order, signal, value), sorted."""
        sim = self.sim
        out: list[tuple[int, int, str, object]] = []
        seq = 0
        states = self._rows(self._states)
        for node in range(sim.nodes):
            mine = states[states[:, 1] == node]
            last = None
            for t, _, code in mine.tolist():
                if code != last:
                    out.append((t, seq, f"node{node}.state", code))
                    seq += 1
                    last = code
            status = sim.core.status(node)
            if status != "running":         # (a running node keeps its last state)
                out.append((sim.core.cycle(node), seq, f"node{node}.state",
                            _END_STATES.get(status, status)))
                seq += 1
        pcs = self._rows(self._pcs)
        for t, node, pc in pcs.tolist():
            out.append((t, seq, f"node{node}.pc", pc))
            seq += 1
        total = [0] * sim.nodes
        for t, node, words in self._rows(self._dma).tolist():
            total[node] += words
            out.append((t, seq, f"node{node}.dma_words", total[node]))
            seq += 1
        writes, reads = self._rows(self._writes), self._rows(self._reads)
        for link in range(sim.nodes):
            w = writes[writes[:, 1] == link]
            r = reads[reads[:, 1] == (link + 1) % sim.nodes]
            h = self._latency(link)
            prev_read = None
            for k, (wt, _, value) in enumerate(w.tolist()):
                if k < len(r):
                    rt, mt = int(r[k, 0]), int(r[k, 2])
                elif k == len(r):
                    mt = max(wt + h, prev_read + 1) if prev_read is not None else wt + h
                    rt = None
                else:
                    mt = rt = None          # still in the output latch at the end
                out.append((wt, seq, f"link{link}.out", value))
                if mt is not None:
                    out.append((mt, seq + 1, f"link{link}.move", value))
                if rt is not None:
                    out.append((rt, seq + 2, f"link{link}.read", value))
                    prev_read = rt
                seq += 3
        out.sort(key=lambda c: (c[0], c[1]))
        return out

    def write(self, path: str) -> None:
        """Write the VCD file (errors as OSError)."""
        from vcd import VCDWriter
        sim = self.sim
        period = max(1, round(1e12 / sim.config.clock_hz))
        changes = self.changes()
        with open(path, "w", encoding="ascii") as f, \
                VCDWriter(f, timescale="1 ps", date="", comment="rap: a simulated RAP",
                          version="rap") as w:
            var = {}
            for n in range(sim.nodes):
                s = f"rap.node{n}"
                var[f"node{n}.state"] = w.register_var(s, "state", "string", init="running")
                var[f"node{n}.code"] = w.register_var(s, "state_code", "integer", size=4, init=0)
                var[f"node{n}.pc"] = w.register_var(s, "pc", "wire", size=24, init=0)
                var[f"node{n}.dma_words"] = w.register_var(s, "dma_words", "integer", size=32,
                                                           init=0)
            occ = {}
            for n in range(sim.nodes):
                s = f"rap.ring.link{n}"
                var[f"link{n}.out_data"] = w.register_var(s, "out_data", "wire", size=32, init="x")
                var[f"link{n}.out_full"] = w.register_var(s, "out_full", "wire", size=1, init=0)
                var[f"link{n}.in_data"] = w.register_var(s, "in_data", "wire", size=32, init="x")
                var[f"link{n}.in_full"] = w.register_var(s, "in_full", "wire", size=1, init=0)
                var[f"link{n}.occupancy"] = w.register_var(s, "occupancy", "integer", size=2,
                                                           init=0)
                occ[n] = [0, 0]         # words in the output latch, in the input latch
            for t, _, sig, value in changes:
                ts = t * period
                kind, what = sig.split(".")
                if what == "state":
                    name = value if isinstance(value, str) else STATES[value]
                    w.change(var[f"{kind}.state"], ts, name)
                    w.change(var[f"{kind}.code"], ts,
                             STATES.index(name) if name in STATES else _STOPPED)
                elif what in ("pc", "dma_words"):
                    w.change(var[sig], ts, value)
                else:
                    n = int(kind[4:])
                    o = occ[n]
                    if what == "out":
                        o[0] += 1
                        w.change(var[f"{kind}.out_data"], ts, value)
                        w.change(var[f"{kind}.out_full"], ts, 1)
                    elif what == "move":
                        o[0] -= 1
                        o[1] += 1
                        if o[0] == 0:
                            w.change(var[f"{kind}.out_data"], ts, "x")
                            w.change(var[f"{kind}.out_full"], ts, 0)
                        w.change(var[f"{kind}.in_data"], ts, value)
                        w.change(var[f"{kind}.in_full"], ts, 1)
                    else:           # read
                        o[1] -= 1
                        if o[1] == 0:
                            w.change(var[f"{kind}.in_data"], ts, "x")
                            w.change(var[f"{kind}.in_full"], ts, 0)
                    w.change(var[f"{kind}.occupancy"], ts, o[0] + o[1])
            end = max(sim.core.cycle(n) for n in range(sim.nodes)) + 1
            w.flush(end * period)
