"""The simulated RAP as a Python object: configure, load, run, inspect.

>>> sim = Simulator(MachineConfig(nodes=4))
>>> sim.load(read_image("prog.out"))
>>> result = sim.run(max_cycles=10_000_000)
>>> result.ok, result.exit_status, sim.counters(0)["cycles"]

The cycle-level core is the C extension ``rapsim._sim``; this module handles
configuration, loading, the host daemon and reporting, never anything per
simulated instruction.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from rapsim import _sim
from rapsim.asm import isa
from rapsim.asm.decoder import decode, format_instruction
from rapsim.asm.operands import DirOp, IndOp
from rapsim.asm.floatfmt import from_extended, from_single, to_extended, to_single
from rapsim.asm.objfile import Image
from rapsim.config import MachineConfig
from rapsim.daemon import BadRequest, HostDaemon
from rapsim.probes import HOLD_BYTES, Probes, Stop
from rapsim.replay import (SETTLED_ENDS, STOPS, Journal, JournalCore, first_stop, rerun, same_stop,
                           step_past, stop_state)
from rapsim.memmap import (ADDRESS_SPACE, HOST_CALL, NODE_COUNT, NODE_ID, RING_STAT, RINGIO_BASE,
                           region_of)

NO_LIMIT = 1 << 62


@dataclass
class RunResult:
    """How a run ended.

    ``event``: "done" (every node exited), "error", "deadlock", "idle",
    "limit" (the cycle limit was reached first), "break" (SWI), or
    "breakpoint" / "watch" (a probe of ``sim.probes``; ``stop`` tells which).
    ``exit_status``: the first non-zero exit status of a node, else 0.
    ``messages``: human-readable reports (errors name node, PC, instruction).
    """
    event: str
    exit_status: int = 0
    node: int = -1
    messages: list[str] = field(default_factory=list)
    cycles: int = 0
    host_seconds: float = 0.0
    stop: Stop | None = None

    @property
    def ok(self) -> bool:
        return self.event == "done"


def _integer(value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    return int(value)


def _address(value, what: str) -> int:
    """A 24-bit address (ValueError naming it otherwise)."""
    v = _integer(value, what)
    if not 0 <= v < ADDRESS_SPACE:
        raise ValueError(f"{what} {v:#x} is outside the 24-bit address space" if v >= 0
                         else f"{what} {v} is negative")
    return v


def _count(value, what: str, most: int) -> int:
    """A count 0..most; integral floats such as 1e9 are accepted."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    v = _integer(value, what)
    if not 0 <= v <= most:
        raise ValueError(f"{what} must be 0..{most}, not {v}")
    return v


def _words(words) -> np.ndarray:
    """Memory words from integers (negative ones as two's complement)."""
    a = np.asarray(words)
    if a.ndim > 1:
        raise ValueError(f"words must be one-dimensional, not of shape {a.shape}")
    a = a.reshape(-1)
    if a.dtype == np.uint32 or a.size == 0:
        return a.astype(np.uint32)
    if a.dtype.kind not in "iu" and not (a.dtype == object and all(
            isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in a)):
        raise TypeError(f"memory words must be integers, not {a.dtype} "
                        "(use write_floats for floating-point values)")
    lo, hi = int(a.min()), int(a.max())
    if lo < -(1 << 31) or hi >= 1 << 32:
        raise ValueError(f"memory word {lo if lo < -(1 << 31) else hi} does not fit 32 bits")
    return (a.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)


def _reg_number(name: str | int) -> int:
    if isinstance(name, int):
        if not 0 <= name < isa.NUM_REGISTERS:
            raise KeyError(f"no register number {name}")
        return name
    try:
        return isa.REG[name.upper()]
    except KeyError:
        raise KeyError(f"no register {name!r}") from None


#: the most host threads one machine may be split over (one per node of the
#: largest machine is 64; more than that is a mistake, not a wish)
MAX_THREADS = 256


def default_threads() -> int:
    """The host cores this process may run on (os.sched_getaffinity)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_threads(value) -> int:
    """A valid thread count (1..MAX_THREADS), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"threads must be a whole number, not {value!r}")
    if not 1 <= value <= MAX_THREADS:
        raise ValueError(f"threads must be 1..{MAX_THREADS}, not {value}")
    return int(value)


class Simulator:
    """A simulated RAP machine with its host daemon."""

    def __init__(self, config: MachineConfig | None = None, *, root: str = ".",
                 argv: Iterable[str] = (), output: Callable[[int, int, bytes], None] | None = None,
                 stdin=None, threads: int = 1):
        self.config = config or MachineConfig()
        #: host threads a run splits the nodes over (contiguous groups, at
        #: most one per node; the results never depend on it: schedule.pxi)
        self.threads = check_threads(threads)
        mem = self.config.memory
        waits = [mem.sram_wait, mem.dram_wait, mem.onchip_wait, mem.onchip_wait, mem.ringio_wait]
        self._raw = _sim.Machine(self.config.nodes, mem.sram_words, mem.dram_words, waits,
                                 self.config.hostcall_cycles)
        # board-crossing hops: out of the last node of each board, and from the
        # last node back to node 0 (on one board the ring closes on the board)
        if self.config.boards > 1:
            for n in range(self.config.nodes):
                if self.config.board_of(n) != self.config.board_of((n + 1) % self.config.nodes):
                    self._raw.set_link_latency(n, self.config.board_hop_cycles)
        #: what brought the machine to its state, to re-execute it to a stop
        #: (rapsim/replay.py; docs/machine-model.md, "Stops")
        self.journal = Journal()
        self._core = JournalCore(self._raw, self.journal)
        self.daemon = HostDaemon(root, list(argv), output, stdin)
        self.image: Image | None = None
        self._lines: dict[int, tuple[int, int]] = {}
        self._labels: dict[int, str] = {}
        self.probes = Probes(self)
        self.step_stop: Stop | None = None

    @property
    def core(self):
        """The cycle-level core (rapsim._sim.Machine); the changes made
        through it are told to :attr:`journal` first."""
        return self._core

    @core.setter
    def core(self, value) -> None:
        # a core replaced by hand (a wrapper of the old one): stops are
        # reported as run
        self.journal.give_up("sim.core was replaced")
        self._raw = self._core = value

    def thread_stats(self) -> dict:
        """What running the nodes has cost the host so far: core calls,
        threads started, the threads' meetings, waits and sleeps, node-cycles
        simulated on one thread, in the rounds over every node and by the
        groups in parallel, wall and CPU nanoseconds (``Machine.thread_stats``,
        core/schedule.pxi's ThreadStats; docs/performance.md, "Node groups
        on host threads").  Host figures, not simulated ones: they depend on
        ``threads`` and on the host, the results never do."""
        return self._raw.thread_stats()

    @property
    def handoff_waits(self) -> int:
        """A tuning of the host threads, never of a result (default: 2 a
        node of the machine): after this many
        waits in a row in which a node group did little work (a ring word
        handed over between groups: a collective), the threads meet and run
        the phase on one thread (core/schedule.pxi, worker_wait; 0: never,
        the rule before; docs/performance.md, "Node groups on host
        threads")."""
        return self._raw.handoff_waits

    @handoff_waits.setter
    def handoff_waits(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
                or not 0 <= value <= 1 << 30:
            raise ValueError(f"handoff_waits must be a whole number 0..{1 << 30}, not {value!r}")
        self._raw.handoff_waits = int(value)

    @property
    def nodes(self) -> int:
        return self.config.nodes

    def _node_list(self, node: int | None) -> range | list[int]:
        return range(self.nodes) if node is None else [node]

    # -- loading ----------------------------------------------------------------
    def load(self, image: Image) -> None:
        """Load one image into every node (SPMD), reset the machine and point
        every PC at the image's entry."""
        if not isinstance(image, Image):
            raise TypeError(f"load() takes an Image (rapsim.asm.objfile.read_image), "
                            f"not {type(image).__name__}")
        if not isinstance(image.entry, int) or not 0 <= image.entry < ADDRESS_SPACE:
            raise ValueError(f"entry point {image.entry!r} is not a 24-bit address")
        for seg in image.segments:
            if seg.size and not self.core.mapped(0, seg.address, seg.size):
                raise ValueError(f"segment {seg.name} at 0x{seg.address:06X} ({seg.size} words) "
                                 "does not fit the node's memory map")
        self.journal.loaded(image)
        with self.journal.quiet():
            for addr, words in image.words():
                self._load_words(addr, np.asarray(words, dtype=np.uint32))
            self.image = image
            self._lines = {a: (f, ln) for a, f, ln in image.lines}
            self._labels = {}
            for name, addr in sorted(image.symbols.items(), key=lambda kv: (len(kv[0]), kv[0])):
                self._labels.setdefault(addr, name)
            self.reset(image.entry)

    _PAGE = 1024        # words: a host page of node memory is 4 KB

    def _load_words(self, addr: int, words: np.ndarray) -> None:
        """Store a segment in every node, page by page, leaving out zero pages
        where the memory is zero already: untouched memory costs the host
        nothing, even for the large zero-filled arrays of 64 nodes."""
        for k in range(0, len(words), self._PAGE):
            part = words[k:k + self._PAGE]
            zero = not part.any()
            for n in range(self.nodes):
                if not zero or self.core.read(n, addr + k, len(part)).any():
                    self.core.write(n, addr + k, part)

    def reset(self, pc: int | None = None) -> None:
        """Reset registers, counters and the ring (memory is kept); PC from
        the reset vector, or ``pc``.  The files the nodes left open are
        closed: the program starts again with descriptors from 3."""
        if pc is not None:
            pc = _address(pc, "pc")
        self.daemon.close_all()
        self.core.reset()
        if pc is not None:
            for n in range(self.nodes):
                self.core.set_pc(n, pc)

    # -- running ----------------------------------------------------------------
    def run(self, max_cycles: int | None = None, *, quantum: int = 0,
            order: Iterable[int] | None = None, sample_every: int = 0,
            sampler: Callable[["Simulator"], None] | None = None,
            threads: int | None = None) -> RunResult:
        """Run until every node has exited, or until an error, a deadlock, a
        breakpoint or the cycle limit (per node) stops the machine.

        ``quantum`` (cycles a node runs before another gets its turn; 0: until
        it waits) and ``order`` (a permutation of the nodes) change only how
        the simulator interleaves nodes on the host, never a result.
        ``sampler(sim)``, with ``sample_every`` > 0, is called each time every
        running node has reached the next multiple of ``sample_every`` cycles
        (a profiler's hook, e.g. to look at every node's PC); it changes no
        result either.  ``threads`` (default: ``self.threads``) splits the
        nodes over that many host threads; it changes no result either.
        """
        threads = self.threads if threads is None else check_threads(threads)
        limit = NO_LIMIT if max_cycles is None else _count(max_cycles, "max_cycles", NO_LIMIT)
        quantum = _count(quantum, "quantum", NO_LIMIT)
        order = None if order is None else list(order)
        every = _count(sample_every, "sample_every", NO_LIMIT) if sampler is not None else 0
        stop = min(limit, every) if every > 0 else limit
        t0 = time.perf_counter()
        self.probes.before_run()
        self.journal.start_run()
        self.probes.hold()
        try:
            return self._run(limit, every, stop, quantum, order, sampler, t0, threads)
        finally:
            self.probes.release()       # (interrupted: what was recorded reaches the sinks)

    def _run(self, limit, every, stop, quantum, order, sampler, t0, threads) -> RunResult:
        while True:
            event, who = self._raw.run(stop, quantum, order, threads)
            self._collect_staged()
            if event == "probe":
                hit = self.probes.stopped(who)
                if hit is None:
                    continue
                return self._finish(RunResult(hit.kind, node=who, messages=[hit.describe(self)],
                                              stop=hit), t0)
            if event == "limit" and stop < limit:
                sampler(self)
                stop = min(limit, stop + every)
                continue
            if event != "hostcall":
                break
            refused = self._serve(who)
            if refused:
                res = RunResult("error", node=who)
                settled = self._settle(res, quantum, order)
                if res.node == who:
                    res.messages.insert(0, refused)
                else:                           # a lower node's stop at the same cycle
                    self._describe(res, limit)
                return self._finish(res, t0, limit if settled else None)
        res = RunResult(event, node=who)
        settled = self._settle(res, quantum, order) if event in STOPS else event in SETTLED_ENDS
        self._describe(res, limit)
        return self._finish(res, t0, limit if settled else None)

    def _describe(self, res: RunResult, limit: int) -> None:
        """The messages of a run's end."""
        event, who = res.event, res.node
        if event == "error":
            res.messages.insert(0, self._error_text(who))
        elif event == "deadlock":
            res.messages.append("deadlock: no node can progress")
            res.messages += [self._node_state(n) for n in range(self.nodes)]
        elif event == "idle":
            res.messages.insert(0, f"node {who}: executed IDLE at {self._where(self._last_pc(who))}"
                                " and no interrupt can wake it (IE enables no pending interrupt, "
                                "no counting timer's TINT and no running DMA transfer's DINT with "
                                "TCINT)")
        elif event == "limit":
            res.messages.append(f"cycle limit of {limit} reached before the program finished "
                                "(a runaway program? raise --max-cycles)")
            res.messages += [self._node_state(n) for n in range(self.nodes)
                             if self.core.status(n) != "exited"]
        elif event == "break":
            res.messages.insert(0, f"node {who}: stopped at a software breakpoint (SWI) at "
                                f"{self._where(self._last_pc(who))}")

    def _settle(self, res: RunResult, quantum: int, order) -> bool:
        """Bring the machine to the state of the rule at the stop ``res``
        (docs/machine-model.md, "Stops"): every node at its first instruction
        boundary after the stop's cycle c, or where it stopped or waits.  If
        a node other than the stopped one had run past c, the run is
        re-executed to c from :attr:`journal` (rapsim/replay.py) and the
        machine takes the re-run's state; where that cannot be done, a note
        in ``res.messages`` says so.  Of several stops at c, the lowest
        node's is reported (``res.node`` and ``res.event`` may change)."""
        k = res.node
        c = self._raw.cycle(k)
        past = [n for n in range(self.nodes) if n != k and self._raw.cycle(n) > c]
        why = None
        if past:
            why = self.journal.broken
            if why is None and self.probes.points:
                why = "breakpoints or watchpoints were armed"
            if why is None:
                stop = stop_state(self._raw, res.event, k)
                core, why = rerun(self, self.journal, stop, quantum, order)
                if core is not None:
                    old = self._swap(core)
                    self.probes.moved(old, c)       # (traced: the records past c are cut)
                    step_past(core, c)
                    why = same_stop(core, stop)
                    if why is None:
                        past = []
                        self.journal.keep_replayed(self.journal.left)
                        if self.probes.overflowed:
                            res.messages.append(
                                f"note: the trace holds the instructions as run, also those "
                                f"after cycle {c} of nodes the simulator had run past it (the "
                                f"records kept back during the run outgrew "
                                f"{HOLD_BYTES >> 20} MiB)")
                    else:
                        self._swap(old)
                        self.probes.unmoved(old)
        at_c = [n for n in range(self.nodes)
                if self._raw.status(n) == "running" and self._raw.cycle(n) == c]
        if not self.probes.points:
            # (traced instructions go to the trace; a breakpoint or watchpoint
            # at c is left for the debugger's next run)
            step_past(self._raw, c)
            res.node, res.event = first_stop(self._raw, k, c)
            at_c = []
        if past or at_c:
            which = sorted(past + at_c)
            several = len(which) > 1
            res.messages.append(
                f"note: node{'s' if several else ''} {', '.join(map(str, which))} "
                f"{'are' if several else 'is'} as run, not as the rule of a stop has "
                f"{'them' if several else 'it'} (every node at its first instruction "
                f"boundary after the stop's cycle {c}): "
                f"{why or 'breakpoints or watchpoints were armed'}")
            return False
        return True

    def _swap(self, core):
        """Put ``core`` in the place of the machine's core; returns the old one."""
        old, self._raw = self._raw, core
        self._core = JournalCore(core, self.journal)
        return old

    def _finish(self, res: RunResult, t0: float, settled: int | None = None) -> RunResult:
        """``settled``: the run's limit if every node is where the rule puts
        it (the host may go on from there: the journal records its changes)."""
        self.probes.drain()
        self.probes.release()
        if settled is not None:
            self.journal.paused(res.event, res.node,
                                self._raw.cycle(res.node) if res.node >= 0 else -1, settled)
        res.host_seconds = time.perf_counter() - t0
        res.cycles = max(self.core.cycle(n) for n in range(self.nodes))
        for n in range(self.nodes):
            if self.core.status(n) == "exited" and self.core.exit_status(n) != 0:
                res.exit_status = self.core.exit_status(n)
                break
        return res

    def _collect_staged(self) -> None:
        """The host calls the core served from staged replies
        (rapsim/core/hostcall.pxi; :meth:`HostDaemon.stage`) since the last
        look, recorded as the daemon's: in the journal and by the daemon
        (its count, the host program's notes)."""
        served = self._raw.hostcalls_served()
        for node, (service, a0, a1, result, writes, counters, link_words, block) in served:
            changes = [("core", "write", (node, addr, words), {}) for addr, words in writes]
            changes.append(("core", "write", (node, block + 1,
                                              np.array([result, 0], dtype=np.uint32)), {}))
            self.journal.served(node, changes, counters["cycles"])
            self.daemon.served(self, node, service, [a0, a1], counters, link_words)

    def _serve(self, node: int) -> str | None:
        """Serve the host call of a node (it goes on, or has exited); the error
        report if the daemon cannot read its request block (the node stops)."""
        self.journal.begin_call(node)
        try:
            exited, status = self.daemon.serve(self, node)
        except BadRequest as e:
            self.journal.end_call(refused=True)
            self._raw.fail_hostcall(node)
            return f"{self._error_text(node)}: {e}"
        except BaseException:
            self.journal.abort_call("a host call ended in an exception")
            raise
        self.journal.end_call(exited, status)
        self._raw.finish_hostcall(node, self.config.hostcall_cycles, exited, status)
        if self.probes.points:
            self.probes.refresh()       # the daemon's writes are not an instruction's
        return None

    def step(self, node: int = 0) -> str:
        """Execute one instruction of one node (ignoring the others) and
        return its status: "running", "exited", "error", "break", "idle",
        or "ring-read" / "ring-write" / "ring-sync" when the instruction has
        to wait for the ring (it is tried again by the next step or run).  A
        host call is served at once, as run() does.  A watchpoint the
        instruction triggered is left in ``self.step_stop`` (else None)."""
        self.probes.before_run()
        status = self.core.step(node)
        self._collect_staged()
        self.step_stop = self.probes.stopped(node) if self.core.probed(node) else None
        if status == "hostcall":
            self._serve(node)
            status = self.core.status(node)
        return status

    # -- reporting helpers ------------------------------------------------------
    def disassemble_at(self, addr: int, node: int = 0, word: int | None = None) -> str:
        if word is None:
            if not self.core.mapped(node, addr):
                return "(unmapped)"
            word = int(self.core.read(node, addr, 1)[0])
        d = decode(word)
        text = format_instruction(d, addr, self._labels.get) if d else ".word (illegal)"
        return f"{word:08X}  {' '.join(text.split())}"

    def _where(self, pc: int) -> str:
        pc &= 0xFFFFFF
        s = f"PC 0x{pc:06X}"
        if pc in self._lines and self.image is not None:
            f, ln = self._lines[pc]
            fname = self.image.files[f] if 0 <= f < len(self.image.files) else "?"
            s += f" ({fname}:{ln})"
        return s

    def _last_pc(self, node: int) -> int:
        """PC of the instruction a node executed last (SWI, IDLE, ...)."""
        prev = self.core.prev_pc(node)
        return prev if prev is not None else (self.core.get_pc(node) - 1) & 0xFFFFFF

    def _error_text(self, node: int) -> str:
        reason, pc, word, addr = self.core.error(node)
        text = f"node {node}: {reason} at {self._where(pc)}"
        if reason.startswith("instruction fetch"):
            # nothing to show at PC: show the instruction that led there
            prev = self.core.prev_pc(node)
            if prev is not None:
                text += (f"; the last instruction executed was at {self._where(prev)}: "
                         f"{self.disassemble_at(prev, node)}")
            return text
        text += f": {self.disassemble_at(pc, node, word)}"
        if "address" in reason:
            text += f" (address 0x{addr:06X}{self._address_note(addr, reason, word)})"
        return text

    _READ_ONLY = {RING_STAT: "RING_STAT", NODE_ID: "NODE_ID", NODE_COUNT: "NODE_COUNT"}

    def _address_note(self, addr: int, reason: str, word: int) -> str:
        """Why an access to addr failed, for an error report."""
        d = decode(word)
        # no memory operand: the access was a push, pop, call, return, trap or interrupt
        stack = d is not None and not any(isinstance(o, (IndOp, DirOp)) for o in d.operands)
        if RINGIO_BASE <= addr <= HOST_CALL and stack:
            return ", a ring register: the stack cannot be there"
        if addr in self._READ_ONLY:
            return f": {self._READ_ONLY[addr]} is read-only"
        if RINGIO_BASE <= addr < RINGIO_BASE + 0x2000:
            return ", where no register exists: the ring and node registers are 0x800000-0x800005"
        if "read-only" in reason and region_of(addr, self.config.memory) is None:
            return ", which is unmapped"
        return ""

    def _node_state(self, n: int) -> str:
        st = self.core.status(n)
        pc = self.core.get_pc(n)
        if st.startswith("ring"):
            _, word = self.core.wait_kind(n)
            what = {"ring-read": "waits to read from the ring",
                    "ring-write": "waits to write to the ring (output latch full)",
                    "ring-sync": "waits on RING_STAT for a neighbour"}[st]
            if self.core.dma_waiting(n):
                what = "its DMA channel " + what
            up = (n - 1) % self.nodes
            down = (n + 1) % self.nodes
            other = up if st == "ring-read" else down
            ost = self.core.status(other)
            tail = f"; {'upstream' if st == 'ring-read' else 'downstream'} node {other} is {ost}" \
                if ost in ("exited", "error", "idle") else ""
            return (f"  node {n}: cycle {self.core.cycle(n)}, {self._where(pc)}: "
                    f"{self.disassemble_at(pc, n, word)}: {what}{tail}")
        if st == "exited":
            return f"  node {n}: exited with status {self.core.exit_status(n)} at cycle {self.core.cycle(n)}"
        return f"  node {n}: {st} at cycle {self.core.cycle(n)}, {self._where(pc)}: {self.disassemble_at(pc, n)}"

    # -- registers ----------------------------------------------------------------
    def reg(self, name: str | int, node: int = 0) -> int:
        """A register's 32-bit value (R0-R7: bits 31-0)."""
        return self.core.get_reg(node, _reg_number(name))

    def set_reg(self, name: str | int, value: int, node: int | None = None) -> None:
        r = _reg_number(name)
        v = _integer(value, "a register value")
        if not -(1 << 31) <= v < 1 << 32:
            raise ValueError(f"register value {v} does not fit 32 bits")
        for n in self._node_list(node):
            self.core.set_reg(n, r, v & 0xFFFFFFFF)

    def reg40(self, name: str | int, node: int = 0) -> int:
        """The 40-bit pattern of R0-R7 (exponent in bits 39-32)."""
        r = _reg_number(name)
        if r >= 8:
            raise KeyError(f"{name} is not an extended-precision register")
        return (self.core.get_exp(node, r) & 0xFF) << 32 | self.core.get_reg(node, r)

    def set_reg40(self, name: str | int, pattern: int, node: int | None = None) -> None:
        r = _reg_number(name)
        if r >= 8:
            raise KeyError(f"{name} is not an extended-precision register")
        e = (pattern >> 32) & 0xFF
        for n in self._node_list(node):
            self.core.set_exp(n, r, e - 256 if e & 0x80 else e)
            self.core.set_reg(n, r, pattern & 0xFFFFFFFF)

    def regf(self, name: str | int, node: int = 0) -> float:
        """R0-R7 as a floating-point value (exact)."""
        return float(from_extended(self.reg40(name, node)))

    def set_regf(self, name: str | int, value: float, node: int | None = None) -> None:
        self.set_reg40(name, int(to_extended(value)), node)

    def register_words(self, node: int = 0) -> np.ndarray:
        """The 28 registers as a uint32 array, by register number (R0-R7:
        bits 31-0)."""
        return np.array([self.core.get_reg(node, i) for i in range(isa.NUM_REGISTERS)],
                        dtype=np.uint32)

    def set_register_words(self, words, node: int | None = None) -> None:
        """Set the 28 registers from a uint32 array (R0-R7: bits 31-0)."""
        a = np.asarray(words, dtype=np.uint32)
        if a.shape != (isa.NUM_REGISTERS,):
            raise ValueError(f"expected {isa.NUM_REGISTERS} register words, got shape {a.shape}")
        for n in self._node_list(node):
            for i, w in enumerate(a):
                self.core.set_reg(n, i, int(w))

    def extended_registers(self, node: int = 0) -> np.ndarray:
        """R0-R7 as their 40-bit patterns (uint64 array); convert with
        rapsim.asm.floatfmt.from_extended, or use extended_values()."""
        return np.array([self.reg40(i, node) for i in range(8)], dtype=np.uint64)

    def extended_values(self, node: int = 0) -> np.ndarray:
        """R0-R7 as float64 values (exact)."""
        return from_extended(self.extended_registers(node))

    def set_extended_values(self, values, node: int | None = None) -> None:
        """Set R0-R7 from floats (rounded to extended precision)."""
        a = np.asarray(values, dtype=np.float64)
        if a.shape != (8,):
            raise ValueError(f"expected 8 values for R0-R7, got shape {a.shape}")
        for i, p in enumerate(to_extended(a)):
            self.set_reg40(i, int(p), node)

    def registers(self, node: int = 0) -> dict:
        """Every register: R0-R7 as {"hex": 40-bit pattern, "value": float,
        "int": bits 31-0 signed}, the others as integers; plus PC."""
        out: dict = {}
        for i, name in enumerate(isa.REGISTER_NAMES):
            if i < 8:
                p = self.reg40(i, node)
                low = p & 0xFFFFFFFF
                out[name] = {"hex": f"0x{p:010X}", "value": float(from_extended(p)),
                             "int": low - (1 << 32) if low & 0x80000000 else low}
            else:
                out[name] = self.reg(i, node)
        out["PC"] = self.core.get_pc(node)
        return out

    # -- memory -------------------------------------------------------------------
    def read(self, addr: int, count: int, node: int = 0) -> np.ndarray:
        """``count`` words from ``addr`` as a uint32 array; the range must be
        plain memory (one region, or the two on-chip blocks) of the node."""
        addr, count = _address(addr, "address"), _count(count, "count", ADDRESS_SPACE)
        if not self.core.mapped(node, addr, count):
            raise ValueError(f"address range 0x{addr:06X}..0x{addr + count - 1:06X} "
                             f"({count} words) is not inside one memory region of node {node}")
        return self.core.read(node, addr, count)

    def write(self, addr: int, words, node: int | None = None) -> None:
        """Store words (integers: 0..2**32-1, or negative ones as two's
        complement) at ``addr`` of one node, or of every node (None)."""
        addr = _address(addr, "address")
        a = _words(words)
        for n in self._node_list(node):
            self.core.write(n, addr, a)
        if self.probes.points:
            self.probes.refresh()

    def read_floats(self, addr: int, count: int, node: int = 0) -> np.ndarray:
        """Single-precision C30 words as float64 (exact)."""
        return from_single(self.read(addr, count, node))

    def write_floats(self, addr: int, values, node: int | None = None) -> None:
        """Store floats as single-precision C30 words (rounded to nearest)."""
        self.write(addr, to_single(np.asarray(values, dtype=np.float64)), node)

    # -- counters -----------------------------------------------------------------
    def counters(self, node: int = 0) -> dict:
        """Every counter of a node: cycles, instructions, stalls by cause,
        accesses per region, cache, ring, host calls, and under "periph" the
        on-chip peripherals' (DMA words, cycles the CPU lost to the DMA and
        the DMA to the CPU, the DMA's ring waits, IDLE cycles, interrupts
        taken per source); plus stall_cycles (cycles - instructions), the
        status and the PC."""
        c = self.core.counters(node)
        # cycles = instructions + stall_cycles: the cycles the CPU waited for
        # a DMA access and slept in IDLE count too (counters()["periph"])
        c["stall_cycles"] = sum(c["stalls"].values()) + c["periph"]["cpu_lost_to_dma"] \
            + c["periph"]["idle_cycles"]
        c["status"] = self.core.status(node)
        c["pc"] = self.core.get_pc(node)
        return c

    def machine_counters(self) -> dict:
        """Per-node counters plus machine totals (the peripherals' counters
        summed over the nodes under "periph") and ring utilisation (words
        moved over all links / (links x cycles): 1.0 = every link busy every
        cycle)."""
        per = [self.counters(n) for n in range(self.nodes)]
        cycles = max(c["cycles"] for c in per) if per else 0
        words = sum(self.core.link_words(n) for n in range(self.nodes))
        periph = {k: sum(c["periph"][k] for c in per) for k in per[0]["periph"] if k != "interrupts"}
        periph["interrupts"] = {k: sum(c["periph"]["interrupts"][k] for c in per)
                                for k in per[0]["periph"]["interrupts"]}
        return {
            "nodes": per,
            "cycles": cycles,
            "seconds": cycles / self.config.clock_hz,
            "instructions": sum(c["instructions"] for c in per),
            "ring_words": words,
            "ring_utilisation": words / (self.nodes * cycles) if cycles else 0.0,
            "periph": periph,
        }
