"""The kernel writer's outputs of ``rap run`` (and ``rap train``): the
instruction trace (``--trace``), the waveform (``--vcd``) and the timeline
(``--timeline``).  Each is a trace sink of ``sim.probes``
(rapsim/probes.py): only the nodes they need run the instrumented loop."""
from __future__ import annotations

import argparse

from rapsim.errors import RapError


def _cycle(text: str) -> int:
    from rapsim.commands.run import MAX_COUNT, _whole
    v = _whole(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"a cycle number cannot be negative: {text!r}")
    if v > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"at most {MAX_COUNT:.3g}, not {text!r}")
    return v


def add_arguments(p: argparse.ArgumentParser, trace: bool = True) -> None:
    """--trace* and --vcd (``trace``: rap run) and --timeline (rap run, rap train)."""
    g = p.add_argument_group("kernel writer's tools (docs/debugging.md)")
    if trace:
        g.add_argument("--trace", metavar="FILE",
                       help="write one line per executed instruction: node, cycle, PC, source "
                            "line, disassembly, registers written, memory accesses, stalls")
        g.add_argument("--trace-nodes", metavar="LIST",
                       help="trace only these nodes, e.g. 0,2,4-7 (default: all)")
        g.add_argument("--trace-from", type=_cycle, default=0, metavar="C",
                       help="trace instructions starting at cycle C or later (default 0)")
        g.add_argument("--trace-to", type=_cycle, metavar="C",
                       help="trace instructions starting before cycle C (default: to the end)")
    if trace:
        g.add_argument("--vcd", metavar="FILE",
                       help="write a waveform (VCD, for GTKWave) of every node's state and PC "
                            "and of every ring latch")
    g.add_argument("--timeline", metavar="FILE.json|FILE.png",
                   help="write a Chrome/Perfetto trace-event timeline: a track per node with "
                        "the routines it calls, ring waits and host calls, ring utilisation "
                        "(a .png or .svg name: a picture of it instead)" +
                        ("" if trace else "; of one training pattern (node 0's first pass "
                                          "through the pattern loop)"))


class Outputs:
    """The outputs asked for on the command line, attached to one run."""

    def __init__(self, args, trace: bool = True, mark_label: str | None = None):
        self.args = args
        self.trace_path = getattr(args, "trace", None) if trace else None
        self.vcd_path = getattr(args, "vcd", None)
        self.timeline_path = getattr(args, "timeline", None)
        self.mark_label = mark_label
        self._files = []
        self._finishers = []
        self.sim = None
        frm, to = getattr(args, "trace_from", 0), getattr(args, "trace_to", None)
        if self.trace_path is None and (getattr(args, "trace_nodes", None) or frm
                                        or to is not None):
            raise RapError("--trace-nodes, --trace-from and --trace-to need --trace FILE")
        if to is not None and to <= frm:
            raise RapError(f"--trace-to {to} must be after --trace-from {frm}")

    @property
    def wanted(self) -> bool:
        return bool(self.trace_path or self.vcd_path or self.timeline_path)

    def paths(self) -> list[str]:
        return [p for p in (self.trace_path, self.vcd_path, self.timeline_path) if p]

    def attach(self, sim) -> None:
        """Start every asked-for output on a loaded Simulator."""
        from rapsim.trace import TextTrace, parse_nodes
        a = self.args
        self.sim = sim
        if self.trace_path:
            nodes = None
            if a.trace_nodes:
                try:
                    nodes = parse_nodes(a.trace_nodes, sim.nodes)
                except ValueError as e:
                    raise RapError(f"--trace-nodes: {e}") from None
            f = _OutputFile(self.trace_path, "the trace")
            self._files.append(f)
            sim.probes.trace(TextTrace(sim, f), nodes=nodes, start=a.trace_from, stop=a.trace_to)
        if self.vcd_path:
            from rapsim.waveform import Waveform
            wave = Waveform(sim)
            sim.probes.trace(wave)
            self._finishers.append(lambda sim, result: self._write(wave, self.vcd_path, "VCD"))
        if self.timeline_path:
            from rapsim.timeline import Timeline
            mark = None
            if self.mark_label is not None:
                mark = sim.image.symbols.get(self.mark_label)
            tl = Timeline(sim, mark=mark)
            sim.probes.trace(tl)
            self._finishers.append(lambda sim, result: self._write(tl, self.timeline_path,
                                                                   "timeline"))

    @staticmethod
    def _write(what, path: str, name: str) -> None:
        try:
            what.write(path)
        except OSError as e:
            raise RapError(f"{path}: cannot write the {name}: {e.strerror or e}") from None

    def finish(self, sim=None, result=None) -> None:
        """Write what is left and close the files (nothing if the run never
        started)."""
        sim = sim or self.sim
        if sim is None:
            return
        sim.probes.drain()
        try:
            for fin in self._finishers:
                fin(sim, result)
        finally:
            for f in self._files:
                f.close()
        if sim.probes.dropped:
            raise RapError(f"{sim.probes.dropped} ring words of DMA channels are missing from "
                           f"{', '.join(self.paths())}: a trace buffer was full")


class _OutputFile:
    """A text file written while the machine runs (the instruction trace):
    a failure to write it (a full disk, /dev/full, a file system that
    refuses) is a RapError naming the file, whether it happens at the open,
    at a write in the middle of the run or at the close."""

    def __init__(self, path: str, what: str):
        self.path, self.what = path, what
        self.fh = self._do(lambda: open(path, "w", encoding="utf-8"))

    def _do(self, action):
        try:
            return action()
        except OSError as e:
            raise RapError(f"{self.path}: cannot write {self.what}: "
                           f"{e.strerror or e}") from None

    def write(self, text: str) -> int:
        return self._do(lambda: self.fh.write(text))

    def close(self) -> None:
        if not self.fh.closed:      # (a failed close still closes the file)
            self._do(self.fh.close)
