"""Where the cycles of a training run go: a sampling profile by routine and
phase (``rap bench --profile``, docs/bench.md).

Every ``every`` cycles of the machine (:meth:`rapsim.machine.Simulator.run`'s
sampler hook) each node's cycles since the previous sample are charged to
the routine its PC is in -- the firmware routine (``_mxv``,
``_ring_allgather``, ...: a global name that some CALL of the image enters,
with the code after it up to the next such name, so that a kernel's shared
tail or an inner entry point counts as the kernel that was called) or
``_main``, the generated program's own code between the calls -- and to the
phase the node is in, which the TRAIN calls
the host has recorded tell (``train``: after TRAIN(0), ``evaluate``: after
TRAIN(1); ``start`` before the first call and ``end`` after the last).  The
charge is exact in total (every node-cycle of the run is charged once) and
right to within ``every`` cycles at each routine boundary; the difference of
two profiles of runs that differ only in their number of patterns
(:func:`per_pattern`) leaves the steady-state cost of a pattern, as
``rap bench`` measures it, with the boundary errors averaged out.
"""
from __future__ import annotations

from bisect import bisect_right

from rapsim.compiler.codegen import TRAIN_EPOCH

#: Cycles between samples by default: fine enough for routines of tens of
#: cycles; the run takes two to four times as long as without samples.
DEFAULT_EVERY = 32


class Profile:
    """A sampler for :func:`rapsim.compiler.train.run_program`
    (``sampler=profile``); ``cycles[(phase, routine)]`` = node-cycles."""

    def __init__(self, image, nodes: int):
        text = next(s for s in image.segments if s.name == ".text")
        lo, hi = text.address, text.address + text.size
        called = _call_targets(image, lo, hi)
        # routines: the global names that some CALL enters, and the entry
        # points; a label a routine falls through into is part of it
        entries = sorted((addr, name) for name, addr in image.symbols.items()
                         if name.startswith("_") and not name.startswith("__")
                         and ":" not in name and lo <= addr < hi
                         and (addr in called or name in ("_c_int00", "_main")))
        self._addrs = [a for a, _ in entries]
        self._names = [n for _, n in entries]
        self._last = [0] * nodes
        self._phase = ["start"] * nodes
        self._seen = 0
        self.cycles: dict[tuple[str, str], int] = {}

    def routine(self, pc: int) -> str:
        i = bisect_right(self._addrs, pc) - 1
        return self._names[i] if i >= 0 else "(outside)"

    def __call__(self, sim, host) -> None:
        marks = host.marks
        while self._seen < len(marks):
            m = marks[self._seen]
            self._seen += 1
            if m.op == TRAIN_EPOCH:
                d = host.decisions.get(m.epoch)
                self._phase[m.node] = "end" if d is not None and not d.patterns else "train"
            else:
                self._phase[m.node] = "evaluate"
        core = sim.core
        for n in range(len(self._last)):
            c = core.cycle(n)
            d = c - self._last[n]
            if d:
                key = (self._phase[n], self.routine(core.get_pc(n)))
                self.cycles[key] = self.cycles.get(key, 0) + d
                self._last[n] = c


def _call_targets(image, lo: int, hi: int) -> set[int]:
    """Addresses that a CALL instruction in the text enters."""
    from rapsim.asm.decoder import decode
    out = set()
    for addr, words in image.words():
        for i, w in enumerate(words):
            if lo <= addr + i < hi:
                d = decode(int(w))
                if d is not None and d.form.mnemonic == "CALL" and d.operands:
                    v = getattr(d.operands[0], "value", None)
                    if isinstance(v, int):
                        out.add(v)
    return out


def per_pattern(more: Profile, fewer: Profile | None, phase: str, patterns: int,
                nodes: int) -> dict[str, float]:
    """Cycles per pattern and per node of each routine in ``phase``: the
    profile of a run of ``patterns`` more patterns than ``fewer``'s, less
    that one (``fewer`` None: the whole phase of ``more``)."""
    out: dict[str, float] = {}
    for (ph, routine), c in more.cycles.items():
        if ph == phase:
            out[routine] = out.get(routine, 0) + c
    if fewer is not None:
        for (ph, routine), c in fewer.cycles.items():
            if ph == phase:
                out[routine] = out.get(routine, 0) - c
    scale = 1.0 / max(patterns * nodes, 1)
    return {r: v * scale for r, v in sorted(out.items(), key=lambda kv: -kv[1])}
