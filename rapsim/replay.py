"""Deterministic counters at a stop: the journal of a machine and its re-execution.

When a run stops (an error, a breakpoint SWI, IDLE with nothing to wake it)
on node k at cycle c, the scheduler reports the first stop in simulated time
whatever the interleaving (rapsim/core/schedule.pxi), but a node that the
host had already run past c before the stop was found cannot be undone.
The rule (docs/machine-model.md, "Stops"): at a stop at cycle c, every node
is as at its first instruction boundary after c (or where it exited,
stopped or waits for the ring earlier); of several stops at c the lowest
node's is reported.

This module gets there by re-execution.  :class:`Journal` records what
brought the machine where it is: the images loaded and every change the
host made through ``sim.core`` before the first run (memory, registers);
the ends of the runs the host went on from (:class:`Pause`) with its
changes then; and for every host call served, per node in order, the words
the daemon (or a host program's service) wrote into node memory and how
the call ended.  :func:`rerun` builds a fresh machine from that journal and
runs it to the horizon c, serving the host calls from the journal -- never
touching host files, standard input or the console again; :func:`step_past`
and :func:`first_stop` finish the rule, :func:`same_stop` checks that the
re-run reached the same stop.  :class:`Simulator` (rapsim/machine.py) then
takes the fresh machine's state.

The journal's memory is bounded (:data:`JOURNAL_WORDS`); a machine whose
journal outgrew it, or whose state was changed in a way a journal cannot
replay (a node stepped by hand, memory written after a run the journal
cannot place), reports its stops with a note that the other nodes'
counters are as run (``Journal.broken`` says why).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the most a journal holds, in 32-bit words (copied memory words, plus
#: RECORD_WORDS for each recorded change or host call): 2**24 words, 64 MiB
JOURNAL_WORDS = 1 << 24
#: what one recorded change or host call costs besides its words (its
#: Python objects), in words
RECORD_WORDS = 32

#: methods of the core (rapsim._sim.Machine) that change no state of the
#: simulated machine: called through the journal as they are
READ_ONLY = frozenset({
    "read", "mapped", "get_reg", "get_exp", "get_pc", "status", "error", "wait_kind",
    "prev_pc", "hostcall_addr", "exit_status", "cycle", "instret", "counters",
    "periph_state", "dma_waiting", "link_state", "link_words", "decode_words", "count",
    # probes (rapsim/probes.py) observe; a run with breakpoints or watchpoints
    # is not re-executed
    "probe_trace", "probe_set", "probe_skip", "probe_hit", "probe_drain", "probe_dropped",
    "probe_off", "probed",
    # staged host-call replies (rapsim/core/hostcall.pxi): a staged reply is
    # served exactly as the daemon would serve the call, and each call served
    # so is recorded (Journal.served); a re-run serves them from the journal
    "stage_hostcall", "drop_hostcall", "hostcall_served", "hostcalls_served",
    "staged_hostcalls",
})
#: methods that change the machine's state in a way a journal can replay:
#: recorded (with a copy of their arguments) before the first run and
#: while a host call is served
REPLAYABLE = frozenset({"write", "set_reg", "set_exp", "set_pc", "reset", "set_link_latency"})
#: core methods a host may also call between runs, at a stop the journal can
#: place (a breakpoint let go on, a host call finished by hand)
BETWEEN_RUNS = frozenset({"resume", "finish_hostcall", "fail_hostcall"})
#: run ends after which every node is where the rule puts it (docs/machine-model.md)
SETTLED_ENDS = ("done", "limit", "deadlock")


@dataclass
class Pause:
    """The end of a run whose state is the rule's (``event`` of ``node`` at
    ``cycle``, or the run's ``limit``), and the host's changes before the
    next run (entries as in ``Journal.setup``)."""
    event: str
    node: int
    cycle: int
    limit: int
    changes: list = field(default_factory=list)


@dataclass
class HostCall:
    """How the daemon served one host call of a node: the core changes it
    made (("core", "write", (node, addr, words), {}), ...), and whether the node exited
    (with its status), or the request was refused (the node stopped)."""
    changes: list = field(default_factory=list)
    exited: bool = False
    status: int = 0
    refused: bool = False
    #: the node's cycle at the call if the core served it from a staged
    #: reply (it did not stop the machine: it may lie past a later stop's
    #: horizon); None for a call the daemon served
    cycle: int | None = None


class Journal:
    """What brought a machine to its state, for :func:`rerun`.

    ``setup``: ("load", image) and ("core", method, args, kwargs) in order, up to
    the first run; ``calls[node]``: that node's served host calls in order;
    ``pauses``: the ends of runs the host went on from, with its changes.
    ``broken``: None while the journal can rebuild the machine, else why not.
    """

    def __init__(self, limit: int = JOURNAL_WORDS):
        self.limit = limit
        self.setup: list = []
        self.calls: dict[int, list[HostCall]] = {}
        self.pauses: list[Pause] = []
        self._window: Pause | None = None   # the last run's end, while the host may change things
        self.words = 0
        self.broken: str | None = None
        self.ran = False                # a run has started: no more setup
        self._call: HostCall | None = None
        self._quiet = 0
        #: after a re-run (rerun): per node, the calls of the run it did not
        #: make (keep_replayed drops them once the re-run's machine is taken)
        self.left: dict[int, int] = {}

    def _charge(self, words: int) -> bool:
        self.words += words + RECORD_WORDS
        if self.words > self.limit:
            self.give_up(f"the journal of host changes and host-call replies outgrew "
                         f"{self.limit} words")
            return False
        return True

    def give_up(self, why: str) -> None:
        """The journal cannot rebuild the machine any more (the first reason is kept)."""
        if self.broken is None:
            self.broken = why
        self.setup, self.calls, self.pauses, self._call, self._window = [], {}, [], None, None

    # -- what the host does ------------------------------------------------------
    def loaded(self, image) -> None:
        """Simulator.load(image) (its own core changes are not recorded)."""
        if self.broken is not None:
            return
        if self.ran and self._window is None:
            self.give_up("an image was loaded again after a run that is not where the rule "
                         "puts it")
        elif self._charge(0):
            (self._window.changes if self.ran else self.setup).append(("load", image))

    def quiet(self) -> "_Quiet":
        """A context in which core changes are not recorded (load's own)."""
        return _Quiet(self)

    def core_call(self, name: str, args: tuple, kwargs: dict) -> None:
        """A core method other than a read-only one is about to be called."""
        if self._quiet or self.broken is not None:
            return
        between = self._call is None and self.ran
        if name not in REPLAYABLE and not (between and name in BETWEEN_RUNS):
            self.give_up(f"the host called the core's {name}()")
            return
        if between and self._window is None:
            self.give_up(f"the host changed the machine after a run that is not where the rule "
                         f"puts it (the core's {name}())")
            return
        cost = 0
        if name == "write":         # (node, addr, words): a copy of the words
            args, kwargs = list(args), dict(kwargs)
            if len(args) == 3:
                args[2] = words = np.array(args[2], dtype=np.uint32).reshape(-1)
            else:
                kwargs["words"] = words = np.array(kwargs["words"], dtype=np.uint32).reshape(-1)
            cost = words.size
        if not self._charge(cost):
            return
        target = self._call.changes if self._call is not None else \
            self._window.changes if self.ran else self.setup
        target.append(("core", name, tuple(args), kwargs))

    # -- host calls ----------------------------------------------------------------
    def start_run(self) -> None:
        self.ran = True
        self._window = None

    def paused(self, event: str, node: int, cycle: int, limit: int) -> None:
        """A run ended with every node where the rule puts it: the host's
        changes until the next run are recorded with this end."""
        if self.broken is None and self._charge(0):
            self._window = Pause(event, node, cycle, limit)
            self.pauses.append(self._window)

    def begin_call(self, node: int) -> None:
        if self.broken is None:
            self._call = HostCall()
            self.calls.setdefault(node, []).append(self._call)

    def end_call(self, exited: bool = False, status: int = 0, refused: bool = False) -> None:
        if self._call is not None:
            self._call.exited, self._call.status, self._call.refused = exited, status, refused
            self._call = None
            self._charge(0)

    def served(self, node: int, changes: list, cycle: int) -> None:
        """A host call the core served from a staged reply at ``cycle``
        (rapsim/core/hostcall.pxi), with the core writes it made."""
        if self.broken is None and self._charge(sum(c[2][2].size for c in changes)):
            self.calls.setdefault(node, []).append(HostCall(list(changes), cycle=cycle))

    def keep_replayed(self, left: dict) -> None:
        """After a re-run to a stop: forget the calls it did not make
        (``left``: per node, how many of its last calls; served from staged
        replies past the stop's horizon, so not made by the machine now)."""
        for node, count in left.items():
            if count:
                del self.calls[node][-count:]

    def abort_call(self, why: str) -> None:
        """A host call ended in an exception: the run ends without it."""
        self._call = None
        self.give_up(why)


class _Quiet:
    def __init__(self, journal: Journal):
        self.journal = journal

    def __enter__(self):
        self.journal._quiet += 1

    def __exit__(self, *exc):
        self.journal._quiet -= 1


class JournalCore:
    """The core (rapsim._sim.Machine) as the host sees it: every call goes
    to the core; calls that change the machine are told to the journal
    first.  The run loop of :class:`Simulator` uses the core itself."""

    def __init__(self, core, journal: Journal):
        self.__dict__["_core"] = core
        self.__dict__["_journal"] = journal

    def __getattr__(self, name: str):
        attr = getattr(self._core, name)
        if name in READ_ONLY:
            self.__dict__[name] = attr      # looked up once
            return attr
        journal = self._journal

        def changing(*args, **kwargs):
            journal.core_call(name, args, kwargs)
            return attr(*args, **kwargs)
        return changing

    def __setattr__(self, name, value):
        setattr(self._core, name, value)


@dataclass
class StopState:
    """The first run's stop as the re-run must reproduce it."""
    event: str
    node: int
    cycle: int
    instret: int
    error: tuple | None
    instrets: list[int]


def stop_state(core, event: str, node: int) -> StopState:
    return StopState(event, node, core.cycle(node), core.instret(node),
                     core.error(node) if event == "error" else None,
                     [core.instret(n) for n in range(core.count)])


def _apply(core, entry) -> None:
    _, name, args, kwargs = entry
    getattr(core, name)(*args, **kwargs)


STOPS = ("error", "break", "idle")


def step_past(core, c: int) -> None:
    """Every node still running at exactly cycle ``c`` (the horizon stopped it
    before its instruction there) executes that instruction, in node order:
    each node is then at its first instruction boundary after c, or stopped
    at c (a fault there).  Ties are decided with the instruction at c
    executed, whatever node the scheduler found stopped first."""
    for n in range(core.count):
        if core.status(n) == "running" and core.cycle(n) == c:
            core.step(n)


def first_stop(core, k: int, c: int) -> tuple[int, str]:
    """The stop to report once every node has run past ``c`` (step_past):
    node ``k``'s at cycle c, or a lower-numbered node's that stopped at c
    too (ties go to the lower node number)."""
    for n in range(k):
        st = core.status(n)
        if st in STOPS and core.cycle(n) == c:
            return n, st
    return k, core.status(k)


def rerun(sim, journal: Journal, stop: StopState, quantum: int, order):
    """Rebuild ``sim``'s machine from ``journal`` and run it to the stop's
    horizon: every node to its first instruction boundary at or after the
    stop's cycle c, or its stop, serving host calls from the journal.
    Returns (core, None), the rebuilt core (:func:`step_past` and
    :func:`same_stop` finish the rule: docs/machine-model.md, "Stops"), or
    (None, why) if the re-run went another way than the run (the caller
    keeps the run as it was)."""
    from rapsim.machine import Simulator
    try:
        fresh = Simulator(sim.config, root=sim.daemon.root)    # (its daemon is never asked)
    except OSError as e:
        return None, f"a fresh machine could not be made: {e}"
    core = fresh._raw
    _changes(fresh, journal.setup)
    pending = {n: list(reversed(calls)) for n, calls in journal.calls.items()}
    for pause in journal.pauses:            # the runs before, each to its end
        if pause.event in SETTLED_ENDS:
            event = _reach(sim, core, pause.limit, quantum, order, pending)
            if event != pause.event:
                return None, f"the re-run ended a run with {event}, not {pause.event}"
        else:
            _reach(sim, core, pause.cycle, quantum, order, pending)
            step_past(core, pause.cycle)
            if (core.status(pause.node), core.cycle(pause.node)) != (pause.event, pause.cycle):
                return None, f"the re-run did not reach the stop of node {pause.node} of a run"
        _changes(fresh, pause.changes)
    _reach(sim, core, stop.cycle, quantum, order, pending)
    # calls the core served from staged replies at or past the horizon were
    # made by nodes the run had taken past the stop: not made now
    early = [c for v in pending.values() for c in v if c.cycle is None or c.cycle < stop.cycle]
    if early:
        return None, f"the re-run did not make {len(early)} host call(s) of the run"
    journal.left = {n: len(v) for n, v in pending.items() if v}
    if any(core.instret(n) > stop.instrets[n] for n in range(core.count)):
        return None, "the re-run went further than the run"
    return core, None


def _changes(fresh, entries) -> None:
    for entry in entries:
        if entry[0] == "load":
            fresh.load(entry[1])
        else:
            _apply(fresh._raw, entry)


def _reach(sim, core, limit: int, quantum: int, order, pending: dict) -> str:
    """Run ``core`` to ``limit`` (a run's limit, or a stop's horizon),
    serving host calls from ``pending`` (per node, last first); the event
    it ended with."""
    while True:
        event, who = core.run(limit, quantum, order)
        if event != "hostcall" or not pending.get(who):
            return event        # (a host call not in the journal: the horizon is reached)
        call = pending[who].pop()
        for entry in call.changes:
            _apply(core, entry)
        if call.refused:
            core.fail_hostcall(who)
            return "error"
        core.finish_hostcall(who, sim.config.hostcall_cycles, call.exited, call.status)


def same_stop(core, stop: StopState) -> str | None:
    """None if ``core`` (re-run, then step_past) has the run's stop, else why not."""
    k = stop.node
    again = stop_state(core, stop.event, k)
    if core.status(k) != stop.event or (again.cycle, again.instret, again.error) != \
            (stop.cycle, stop.instret, stop.error):
        return f"the re-run did not reach the same stop of node {k}"
    return None
