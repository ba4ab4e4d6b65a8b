"""An interactive debugger for RAP programs (``rap dbg IMAGE``), built on the
standard library's cmd (line editing, history and completion through
readline where the platform has it) and on ``sim.probes`` (rapsim/probes.py).

The machine is all-stop: ``continue`` runs every node until one of them
stops at a breakpoint or a watchpoint (or the program ends, fails or
deadlocks); the others are then wherever their own clocks are (each node
runs on its own clock, shown with its state; ``continue`` lets each run
QUANTUM cycles at a time, so they are near the stopped node's).  ``step``
and ``next`` move one node ("node N", default the current node) or, with
"all", every node one instruction in turn; ``continue node N`` runs that
node alone.  ``help`` lists the commands; docs/debugging.md walks through a
session.
"""
from __future__ import annotations

import cmd
import os
import shlex

from rapsim.asm import isa
from rapsim.asm.decoder import decode
from rapsim.asm.floatfmt import from_single

ALONE_LIMIT = 1_000_000     # instructions ``continue node N`` runs before it gives up
#: cycles a node runs before the next one gets its turn during ``continue``:
#: a node spinning in a loop cannot keep a breakpoint of another from being
#: reached, and at a stop the other nodes are at most this far from the
#: stopped node's clock (it changes no result: rapsim.machine.Simulator.run)
QUANTUM = 1000

#: the largest COUNT of step and next (each step is one call into the core)
MAX_STEPS = 1 << 24


class DebugError(Exception):
    """A command that cannot be done (the message says why)."""


def parse_int(text: str) -> int:
    """A number as the rap command line takes it (0x40, 40h, 64)."""
    from argparse import ArgumentTypeError
    from rapsim.commands.run import _int
    try:
        return _int(text)
    except ArgumentTypeError as e:
        raise DebugError(str(e)) from None


class Debugger(cmd.Cmd):
    """The command interpreter over one loaded Simulator."""

    intro = ""
    doc_header = "commands (help COMMAND for more)"

    def __init__(self, sim, stdin=None, stdout=None, max_cycles: int = 1 << 40,
                 sources: dict[str, str] | None = None):
        super().__init__(stdin=stdin, stdout=stdout)
        from rapsim.lineprof import SourceTexts
        self.sim = sim
        self.node = 0
        self.max_cycles = max_cycles
        self.texts = SourceTexts(sources or {})
        self.finished = None            # the RunResult that ended the program, if any
        self.failed = False
        self.err_prefix = ""            # "FILE:LINE: " while a script runs
        self._update_prompt()

    # -- plumbing ---------------------------------------------------------------------
    def _update_prompt(self) -> None:
        self.prompt = f"(rap n{self.node}) " if self.sim.nodes > 1 else "(rap) "

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")

    def onecmd(self, line: str) -> bool:
        try:
            return super().onecmd(line)
        except DebugError as e:
            self.say(f"{self.err_prefix}error: {e}")
            self.failed = True
            return False

    def emptyline(self) -> bool:          # (cmd's default repeats the last command)
        return False

    def default(self, line: str) -> bool:
        if line.strip() == "EOF":
            self.say()
            return True
        raise DebugError(f"unknown command {line.split()[0]!r} (help lists the commands)")

    def _split(self, arg: str) -> tuple[list[str], list[int] | None]:
        """Words of the arguments, and the nodes of a trailing "node N" /
        "all" (None: not given)."""
        try:
            words = shlex.split(arg)
        except ValueError as e:
            raise DebugError(str(e)) from None
        nodes = None
        if words and words[-1] == "all":
            words.pop()
            nodes = list(range(self.sim.nodes))
        elif len(words) >= 2 and words[-2] == "node":
            n = parse_int(words[-1])
            if not 0 <= n < self.sim.nodes:
                raise DebugError(f"node {n} does not exist (0..{self.sim.nodes - 1})")
            words = words[:-2]
            nodes = [n]
        return words, nodes

    def location(self, text: str) -> int:
        """An address: a number (0x40, 40h, 64), a label, or FILE:LINE."""
        sim = self.sim
        if text in sim.image.symbols:
            return sim.image.symbols[text]
        if ":" in text and text.rsplit(":", 1)[1].isdigit():
            fname, ln = text.rsplit(":", 1)
            ln = int(ln)
            hits = sorted(a for a, (f, line) in sim._lines.items() if line == ln and (
                sim.image.files[f] == fname or os.path.basename(sim.image.files[f]) == fname))
            if not hits:
                raise DebugError(f"no code at {text}")
            return hits[0]
        if text[:1].isdigit():
            a = parse_int(text)
            if not 0 <= a < 1 << 24:
                raise DebugError(f"address {text} is outside the 24-bit address space")
            return a
        raise DebugError(f"no label {text!r} (and not an address or FILE:LINE)")

    def where(self, pc: int, node: int | None = None) -> str:
        node = self.node if node is None else node
        label = self.sim._labels.get(pc)
        return f"{self.sim._where(pc)}{' <' + label + '>' if label else ''}: " \
               f"{self.sim.disassemble_at(pc, node)}"

    def _node_line(self, n: int) -> str:
        core = self.sim.core
        st = core.status(n)
        return f"node {n}: {st}, cycle {core.cycle(n)}, {self.where(core.get_pc(n), n)}"

    def _report_stop(self, res) -> None:
        if res.stop is not None:
            self.node = res.node
            self._update_prompt()
            self.say(res.messages[0])
            self.say(f"  {self.where(self.sim.core.get_pc(res.node))}")
            return
        if res.event != "break":        # (SWI: 'continue' resumes the node)
            self.finished = res
        if res.event == "done":
            self.say(f"the program finished: every node exited (status {res.exit_status}), "
                     f"{res.cycles} cycles")
        else:
            for m in res.messages:
                self.say(m)
            if res.node >= 0:
                self.node = res.node
                self._update_prompt()

    # -- breakpoints and watchpoints ----------------------------------------------------
    def _break(self, arg: str, temporary: bool) -> None:
        words, nodes = self._split(arg)
        if len(words) != 1:
            raise DebugError("usage: break LOCATION [node N | all]")
        addr = self.location(words[0])
        p = self.sim.probes.break_at(addr, nodes, temporary=temporary)
        self.say(f"{'temporary ' if temporary else ''}breakpoint {p.id} at "
                 f"{self.where(addr)} ({_nodes_text(nodes)})")

    def do_break(self, arg):
        """break LOCATION [node N | all]: stop before the instruction at
        LOCATION (an address, a label or FILE:LINE) on every node (default)
        or node N."""
        self._break(arg, False)

    def do_tbreak(self, arg):
        """tbreak LOCATION [node N | all]: a breakpoint deleted once hit."""
        self._break(arg, True)

    def do_watch(self, arg):
        """watch ADDRESS|LABEL|REGISTER [node N | all]: stop after an
        instruction that changed the memory word (or the register)."""
        words, nodes = self._split(arg)
        if len(words) != 1:
            raise DebugError("usage: watch ADDRESS|LABEL|REGISTER [node N | all]")
        w = words[0]
        try:
            if w.upper() in isa.REG:
                p = self.sim.probes.watch_register(w, nodes)
                what = w.upper()
            else:
                a = self.location(w)
                p = self.sim.probes.watch_memory(a, nodes)
                what = f"0x{a:06X}"
        except ValueError as e:
            raise DebugError(str(e)) from None
        self.say(f"watchpoint {p.id}: {what} ({_nodes_text(nodes)})")

    def do_delete(self, arg):
        """delete [ID ...]: delete breakpoints and watchpoints (all without ID)."""
        words, _ = self._split(arg)
        try:
            if not words:
                self.sim.probes.delete()
                self.say("deleted every breakpoint and watchpoint")
            for w in words:
                self.sim.probes.delete(parse_int(w))
                self.say(f"deleted {w}")
        except KeyError as e:
            raise DebugError(e.args[0]) from None

    def do_info(self, arg):
        """info [break|nodes]: the breakpoints and watchpoints, or every node's state."""
        what = arg.strip() or "break"
        if "break".startswith(what) or "watch".startswith(what):
            pts = self.sim.probes.points
            if not pts:
                self.say("no breakpoints or watchpoints")
            for p in pts.values():
                self.say(p.describe())
        elif "nodes".startswith(what):
            for n in range(self.sim.nodes):
                self.say(self._node_line(n))
        else:
            raise DebugError("usage: info [break|nodes]")

    # -- running ----------------------------------------------------------------------------
    def _check_running(self) -> None:
        if self.finished is not None:
            raise DebugError("the program has stopped (" + self.finished.event + "); quit and "
                             "start again")
        for n in range(self.sim.nodes):         # nodes stopped at SWI go on
            if self.sim.core.status(n) == "break":
                self.sim.core.resume(n)

    def do_continue(self, arg):
        """continue [node N]: run the machine until a node stops at a
        breakpoint or watchpoint, or the program ends; "node N": run node N
        alone (the others stay where they are)."""
        self._check_running()
        words, nodes = self._split(arg)
        if words:
            raise DebugError("usage: continue [node N]")
        if nodes is not None and len(nodes) == 1:
            self._continue_alone(nodes[0])
            return
        self._report_stop(self.sim.run(max_cycles=self.max_cycles, quantum=QUANTUM))

    do_c = do_continue

    def _continue_alone(self, n: int) -> None:
        sim = self.sim
        breaks = {p.address for p in sim.probes.points.values() if p.kind == "break" and p.on(n)}
        for i in range(ALONE_LIMIT):
            st = sim.step(n)
            if sim.step_stop is not None:
                self._report_stop(_stop_result(sim, n))
                return
            if st != "running":
                self.say(f"node {n}: {st} at cycle {sim.core.cycle(n)}")
                self.say(f"  {self.where(sim.core.get_pc(n), n)}")
                if st.startswith("ring"):
                    self.say("  (it waits for another node: 'continue' runs them all)")
                return
            pc = sim.core.get_pc(n)
            if pc in breaks:
                pts = [p for p in sim.probes.points.values()
                       if p.kind == "break" and p.address == pc and p.on(n)]
                sim.probes._resume_pc[n] = pc
                for p in pts:
                    p.hits += 1
                    if p.temporary:
                        sim.probes.delete(p.id)
                self.node = n
                self._update_prompt()
                self.say(f"node {n}: breakpoint {pts[0].id} at {sim._where(pc)}")
                self.say(f"  {self.where(pc, n)}")
                return
        self.say(f"node {n}: still running after {ALONE_LIMIT} instructions")

    def _step_nodes(self, arg: str, over: bool) -> None:
        self._check_running()
        words, nodes = self._split(arg)
        count = parse_int(words[0]) if words else 1
        if len(words) > 1 or count < 1:
            raise DebugError(f"usage: {'next' if over else 'step'} [COUNT] [node N | all]")
        if count > MAX_STEPS:
            raise DebugError(f"count must be 1..{MAX_STEPS}, not {count} ('continue' runs on "
                             "to a breakpoint)")
        nodes = shown = [self.node] if nodes is None else nodes
        sim = self.sim
        for _ in range(count):
            # a node that has stopped for good (exited, error) steps no more:
            # a large COUNT ends when every stepped node has stopped
            nodes = [n for n in nodes if _can_step(sim.core.status(n))]
            if not nodes:
                break
            for n in nodes:
                pc = sim.core.get_pc(n)
                d = decode(int(sim.core.read(n, pc, 1)[0])) if sim.core.mapped(n, pc) else None
                if over and d is not None and d.form.mnemonic.startswith("CALL") \
                        and sim.core.status(n) == "running":
                    sim.probes.break_at((pc + 1) & 0xFFFFFF, n, temporary=True)
                    res = sim.run(max_cycles=self.max_cycles, quantum=QUANTUM)
                    if res.stop is None or res.stop.pc != (pc + 1) & 0xFFFFFF or res.node != n:
                        self._report_stop(res)
                        return
                    continue
                before = _periph_marks(sim, n)
                st = sim.step(n)
                self._peripheral_event(n, before)
                if sim.step_stop is not None:
                    self._report_stop(_stop_result(sim, n))
                    return
                if st not in ("running",) and not st.startswith("ring"):
                    self.say(f"node {n}: {st}")
        for n in shown:
            self.say(self._node_line(n))

    def _peripheral_event(self, n: int, before: tuple[int, int, dict, int]) -> None:
        """Say what a step did that was not an instruction: an interrupt
        taken (guide 7.6) or a sleep in IDLE (it counts as a step)."""
        sim = self.sim
        instret, idle, ints, cycle = before
        if sim.core.instret(n) != instret:
            return
        now = sim.core.counters(n)["periph"]
        taken = [k for k, v in now["interrupts"].items() if v != ints[k]]
        if taken:
            self.say(f"node {n}: interrupt {taken[0]} taken at cycle {cycle}: PC pushed, "
                     f"GIE cleared, vector -> {self.where(sim.core.get_pc(n), n)}")
        elif now["idle_cycles"] != idle:
            self.say(f"node {n}: asleep in IDLE from cycle {cycle} to {sim.core.cycle(n)}")

    def do_step(self, arg):
        """step [COUNT] [node N | all]: execute COUNT instructions (default 1)
        of the current node, node N, or every node in turn.  A node waiting
        for the ring stays waiting.  Taking an interrupt, or sleeping in IDLE
        until one, is a step of its own (and says so)."""
        self._step_nodes(arg, over=False)

    do_s = do_step

    def do_next(self, arg):
        """next [COUNT] [node N | all]: like step, but a CALL runs (the whole
        machine) until it returns."""
        self._step_nodes(arg, over=True)

    do_n = do_next

    def do_node(self, arg):
        """node N: make node N the current node."""
        n = parse_int(arg) if arg.strip() else self.node
        if not 0 <= n < self.sim.nodes:
            raise DebugError(f"node {n} does not exist (0..{self.sim.nodes - 1})")
        self.node = n
        self._update_prompt()
        self.say(self._node_line(n))

    # -- looking ---------------------------------------------------------------------------
    def do_regs(self, arg):
        """regs [node N]: the registers (R0-R7 also as floating-point values)."""
        words, nodes = self._split(arg)
        if words:
            raise DebugError("usage: regs [node N | all]")
        for n in nodes or [self.node]:
            r = self.sim.registers(n)
            self.say(f"node {n}, cycle {self.sim.core.cycle(n)}, PC 0x{r['PC']:06X}")
            for i in range(8):
                v = r[f"R{i}"]
                self.say(f"  R{i}  {v['hex'][2:]}  {v['value']:<16.9g} int {v['int']}")
            names = [x for x in isa.REGISTER_NAMES[8:]]
            for k in range(0, len(names), 5):
                self.say("  " + "  ".join(f"{nm:<3} {r[nm]:08X}" for nm in names[k:k + 5]))

    def do_x(self, arg):
        """x[/f] ADDRESS|LABEL [COUNT] [node N]: memory words in hex (x/f:
        as single-precision floats)."""
        words, nodes = self._split(arg)
        floats = False
        if words and words[0].startswith("/"):
            fmt = words.pop(0)
            if fmt not in ("/f", "/x"):
                raise DebugError(f"unknown format {fmt!r}: x/x shows hex words, x/f floats")
            floats = fmt == "/f"
        if not words or len(words) > 2:
            raise DebugError("usage: x[/f] ADDRESS|LABEL [COUNT] [node N]")
        addr = self.location(words[0])
        count = parse_int(words[1]) if len(words) == 2 else 8
        for n in nodes or [self.node]:
            try:
                vals = self.sim.read(addr, count, n)
            except ValueError as e:
                raise DebugError(str(e)) from None
            shown = from_single(vals) if floats else None
            for k in range(0, count, 4):
                row = vals[k:k + 4]
                cells = ([f"{v:<14.7g}" for v in shown[k:k + 4]] if floats
                         else [f"{int(v):08X}" for v in row])
                self.say(f"node {n} 0x{addr + k:06X}: " + " ".join(cells))

    def parseline(self, line):
        # "x/f 0x100" is the command x with the argument "/f 0x100"
        if line.startswith("x/"):
            line = "x " + line[1:]
        return super().parseline(line)

    def do_disas(self, arg):
        """disas [LOCATION] [node N]: the instructions around PC (or LOCATION)."""
        words, nodes = self._split(arg)
        n = (nodes or [self.node])[0]
        pc = self.sim.core.get_pc(n)
        centre = self.location(words[0]) if words else pc
        for a in range(max(0, centre - 5), centre + 6):
            if not self.sim.core.mapped(n, a):
                continue
            mark = "=>" if a == pc else "  "
            label = self.sim._labels.get(a)
            if label:
                self.say(f"   {label}:")
            self.say(f"{mark} 0x{a:06X}  {self.sim.disassemble_at(a, n)}")

    def do_list(self, arg):
        """list [LOCATION]: the source lines around PC (or LOCATION)."""
        words, nodes = self._split(arg)
        n = (nodes or [self.node])[0]
        a = self.location(words[0]) if words else self.sim.core.get_pc(n)
        where = self.sim._lines.get(a)
        if where is None:
            raise DebugError(f"no source line for 0x{a:06X}")
        fname = self.sim.image.files[where[0]]
        lines = self.texts.lines_of(fname)
        if lines is None:
            raise DebugError(f"cannot read {fname}")
        for ln in range(max(1, where[1] - 5), min(len(lines), where[1] + 5) + 1):
            self.say(f"{'=>' if ln == where[1] else '  '} {ln:5d}  {lines[ln - 1]}")

    def do_ring(self, arg):
        """ring: every link's latches (the words on their way, with the cycle
        each was written) and what each node waits for."""
        if arg.strip():
            raise DebugError("usage: ring")
        sim = self.sim
        for i in range(sim.nodes):
            words = sim.core.link_state(i)
            nxt = (i + 1) % sim.nodes
            if not words:
                text = "empty"
            else:
                parts = []
                for k, (v, w, m) in enumerate(words):
                    where = "input latch" if k == 0 and len(words) == 2 else \
                        ("in flight" if k == 0 else "output latch")
                    if len(words) == 1:
                        where = f"readable from cycle {m}"
                    parts.append(f"{v:08X} (written at {w}, {where})")
                text = "; ".join(parts)
            self.say(f"link {i}->{nxt}: {len(words)} word(s): {text}")
        for n in range(sim.nodes):
            st = sim.core.status(n)
            if st.startswith("ring"):
                self.say(f"node {n} {st}: {self.where(sim.core.get_pc(n), n)}")

    def do_periph(self, arg):
        """periph [node N]: the on-chip peripherals: interrupt flags and
        enables, the DMA channel's and the timers' registers as the CPU would
        read them now, and their counters."""
        words, nodes = self._split(arg)
        if words:
            raise DebugError("usage: periph [node N]")
        for n in nodes or [self.node]:
            for line in periph_text(self.sim, n):
                self.say(line)

    def do_quit(self, arg):
        """quit: leave the debugger."""
        return True

    do_q = do_quit

    # -- completion -------------------------------------------------------------------------
    def _complete_names(self, text: str, registers: bool = False) -> list[str]:
        names = list(self.sim.image.symbols) + (list(isa.REGISTER_NAMES) if registers else [])
        return sorted(n for n in names if n.startswith(text))[:200]

    def complete_break(self, text, line, begidx, endidx):
        return self._complete_names(text)

    complete_tbreak = complete_disas = complete_x = complete_list = complete_break

    def complete_watch(self, text, line, begidx, endidx):
        return self._complete_names(text, registers=True)


def _can_step(status: str) -> bool:
    """Whether a node in this state executes more instructions when stepped
    (running, waiting for the ring, at a breakpoint; not exited, stopped by
    an error or in IDLE, which only 'continue' can wake)."""
    return status in ("running", "break") or status.startswith("ring")


def _nodes_text(nodes) -> str:
    if nodes is None:
        return "all nodes"
    return "node " + ",".join(map(str, nodes))


def _periph_marks(sim, n: int) -> tuple[int, int, dict, int]:
    """What tells a step that took an interrupt or slept in IDLE."""
    c = sim.core.counters(n)
    return c["instructions"], c["periph"]["idle_cycles"], c["periph"]["interrupts"], c["cycles"]


_DMA_START = ("reset", "halt (access)", "halt (transfer)", "start")
_DMA_STAT = {0: "held between transfers", 1: "held between a read and its write", 3: "busy"}


def periph_text(sim, n: int) -> list[str]:
    """The ``periph`` command's lines for node n (guide 3.1.8-3.1.9: IF and
    IE; 12.3.2: the DMA global control; 12.1.2: the timer global control)."""
    from rapsim import _sim
    from rapsim.memmap import DMA_CNT, DMA_DST, DMA_GCR, DMA_SRC, TIMER0_BASE, TIMER1_BASE
    r = sim.registers(n)
    ps = sim.core.periph_state(n)
    regs = ps["registers"]
    c = sim.core.counters(n)["periph"]

    def flags(v: int, shift: int = 0) -> str:
        names = [nm for k, nm in enumerate(_sim.INTERRUPT_NAMES) if (v >> (k + shift)) & 1]
        return ",".join(names) or "-"
    gie = "on" if r["ST"] & 0x2000 else "off"
    out = [f"node {n}, cycle {sim.core.cycle(n)}: GIE {gie}, IF {r['IF']:08X} ({flags(r['IF'])}), "
           f"IE {r['IE']:08X} (CPU {flags(r['IE'])}; DMA {flags(r['IE'], 16)})"
           + (", asleep in IDLE" if ps["idle"] else "")]
    g = regs[DMA_GCR]
    state = "running" if ps["dma_running"] else "stopped"
    if ps["dma_ring_wait"]:
        state += ", waiting for the ring"
    out.append(f"  DMA  GCR {g:08X} (START {_DMA_START[g & 3]}, STAT "
               f"{_DMA_STAT.get((g >> 2) & 3, 'reserved')}, SYNC {(g >> 8) & 3}, "
               f"TC {(g >> 10) & 1}, TCINT {(g >> 11) & 1}, PRI {(g >> 12) & 3}) {state}")
    out.append(f"       SRC {regs[DMA_SRC]:06X}  DST {regs[DMA_DST]:06X}  CNT {regs[DMA_CNT]:06X}"
               f"  words moved {c['dma_words']}, CPU lost to DMA {c['cpu_lost_to_dma']}, "
               f"DMA lost to CPU {c['dma_lost_to_cpu']}, DMA ring wait {c['dma_ring_wait']}")
    for k, base in enumerate((TIMER0_BASE, TIMER1_BASE)):
        g = regs[base]
        mode = "clock" if g & 0x100 else "pulse"
        counting = "counting" if ps["timer_running"][k] else "held"
        out.append(f"  TIM{k} GCR {g:08X} (HLD_ {(g >> 7) & 1}, {mode} mode, CLKSRC "
                   f"{(g >> 9) & 1}, TSTAT {(g >> 11) & 1}) {counting}  PRD {regs[base + 8]:08X}"
                   f"  CNT {regs[base + 4]:08X}")
    taken = ", ".join(f"{k} {v}" for k, v in c["interrupts"].items() if v) or "none"
    out.append(f"  interrupts taken: {taken}; IDLE cycles {c['idle_cycles']}")
    return out


def _stop_result(sim, node):
    from rapsim.machine import RunResult
    stop = sim.step_stop
    return RunResult(stop.kind, node=node, messages=[stop.describe(sim)], stop=stop)


def run_script(dbg: Debugger, path: str, lines: list[str]) -> int:
    """Run commands from a script, echoing each after the prompt; stops at
    the first error (exit status 1), which names the file and line."""
    for k, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        dbg.say(f"{dbg.prompt}{text}")
        dbg.failed = False
        dbg.err_prefix = f"{path}:{k}: "
        try:
            if dbg.onecmd(text):
                return 0
        finally:
            dbg.err_prefix = ""
        if dbg.failed:
            return 1
    return 0
