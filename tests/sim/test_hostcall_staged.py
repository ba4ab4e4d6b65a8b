"""Staged host-call replies (rapsim/core/hostcall.pxi, HostDaemon.stage): a
call the host has answered in advance is served by the core on the node's
own thread, with exactly the daemon's result: every counter, register and
memory word as when Python serves it, on 1 and 2 threads; the host program
is told of each such call with the node's counters at the call; the
journal replays them at a stop (the rule of docs/machine-model.md,
"Stops"); probes, unmatched requests and a reset fall back to the daemon."""
from __future__ import annotations

import numpy as np
import pytest

from hostprog import BLOCK, EXIT, RESULTS, call_lines
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

SERVICE = 20
DATA = 0x3200           # the host writes node * 10 + arg1 at DATA + arg1
NODES = 4


def _prog(fault_node: int | None = None, work: int = 200) -> str:
    lines = ["        .global start", "start:  LDP  0x800000",
             f"        LDI  {BLOCK}, AR0", f"        LDI  {RESULTS}, AR1"]
    lines += ["        " + ln for ln in call_lines(SERVICE, [7, 1])]
    if fault_node is not None:
        lines += ["        LDI  @3, R2", f"        CMPI {fault_node}, R2", "        BNE  go",
                  "        STI  R2, @3"]          # NODE_ID is read-only: an error
    lines += ["go:     NOP", f"        RPTS {work}", "        ADDI 1, R3"]
    lines += ["        " + ln for ln in call_lines(SERVICE, [7, 2])]
    lines += ["        " + ln for ln in call_lines(SERVICE, [7, 3])]
    lines += ["        " + ln for ln in call_lines(EXIT, [0])]
    lines += ["        SWI"]
    return "\n".join(lines) + "\n"


class Host:
    """Serves SERVICE; with ``stage``, the first call of (7, 1) stages every
    node's replies to (7, 1), (7, 2) and (7, 3)."""

    def __init__(self, stage: bool):
        self.stage = stage
        self.served = []            # (node, args, counters) of the calls Python served
        self.in_core = []           # ... and of those the core served

    def reply(self, node, a1):
        return 700 + a1, [(DATA + a1, np.array([node * 10 + a1], dtype=np.uint32))]

    def serve(self, sim, node, args, extra):
        self.served.append((node, tuple(args[:2]), sim.core.counters(node)))
        result, writes = self.reply(node, args[1])
        for addr, words in writes:
            sim.core.write(node, addr, words)
        if self.stage and tuple(args[:2]) == (7, 1):
            for k in range(NODES):
                for a1 in (1, 2, 3):
                    if (k, a1) != (node, 1):
                        sim.daemon.stage(sim, k, SERVICE, (7, a1), *self.reply(k, a1))
        return result

    def note(self, sim, node, args, counters, link_words):
        self.in_core.append((node, tuple(args), counters))


def _run(stage: bool, threads: int = 1, src: str | None = None, setup=None):
    sim = Simulator(MachineConfig(nodes=NODES), threads=threads)
    sim.load(build_text(src or _prog()))
    host = Host(stage)
    sim.daemon.add_service(SERVICE, host.serve, on_served=host.note)
    if setup:
        setup(sim)
    res = sim.run(max_cycles=1_000_000)
    return sim, res, host


def _state(sim):
    return [(sim.counters(n), sim.register_words(n).tolist(),
             sim.read(RESULTS, 16, n).tolist(), sim.read(DATA, 4, n).tolist(),
             sim.read(BLOCK, 8, n).tolist()) for n in range(NODES)]


@pytest.mark.parametrize("threads", [1, 2])
def test_staged_replies_give_the_daemons_results(threads):
    sim0, res0, host0 = _run(stage=False)
    sim1, res1, host1 = _run(stage=True, threads=threads)
    assert res0.event == res1.event == "done"
    assert _state(sim1) == _state(sim0)
    assert (res1.cycles, res1.exit_status) == (res0.cycles, res0.exit_status)
    # the first call went to Python, the other eleven were served in the core
    assert [(n, a) for n, a, _ in host1.served] == [(0, (7, 1))]
    assert len(host1.in_core) == 3 * NODES - 1
    # each told with the counters the daemon would have seen at that call
    want = {(n, a): c for n, a, c in host0.served}
    for n, a, c in host1.served + host1.in_core:
        assert c == want[(n, a)]
    assert sim1.daemon.calls == sim0.daemon.calls == 4 * NODES
    assert all(sim1.core.staged_hostcalls(n) == 0 for n in range(NODES))
    # the journal holds every call, those served in the core included
    assert sum(len(v) for v in sim1.journal.calls.values()) == 4 * NODES
    assert sim1.journal.broken is None


def test_a_stop_past_staged_calls_follows_the_rule():
    """Node 2 faults while node 0 (run first) has gone on through calls the
    core served past the fault's cycle: re-executed from the journal, every
    node is where the rule puts it, as with the daemon serving every call."""
    src = _prog(fault_node=2, work=50)
    sim0, res0, _ = _run(stage=False, src=src)
    sim1, res1, host1 = _run(stage=True, src=src)
    assert res0.event == res1.event == "error" and res0.node == res1.node == 2
    stop = sim1.core.cycle(2)
    assert any(n == 0 and c["cycles"] > stop for n, _, c in host1.in_core)
    assert res1.messages == res0.messages
    assert not any("as run" in m for m in res1.messages)
    assert _state(sim1) == _state(sim0)
    # node 0's calls past the stop were dropped from the journal with the re-run
    assert len(sim1.journal.calls[0]) == len(sim0.journal.calls[0])


def test_unmatched_and_probed_calls_go_to_the_daemon():
    # replies staged for other arguments are never used
    def setup(sim):
        for k in range(NODES):
            sim.daemon.stage(sim, k, SERVICE, (7, 9), 1, [])
    sim, res, host = _run(stage=False, setup=setup)
    assert res.ok and len(host.served) == 4 * NODES - NODES and not host.in_core
    assert all(sim.core.staged_hostcalls(n) == 1 for n in range(NODES))
    # a probed machine: the daemon serves every call, with the same results
    sim0, _, _ = _run(stage=False)
    sim1, res1, host1 = _run(stage=True, setup=lambda s: s.probes.trace(lambda rec: None))
    assert res1.ok and not host1.in_core and len(host1.served) == 3 * NODES
    assert _state(sim1) == _state(sim0)


def test_reset_forgets_staged_replies_and_staging_needs_on_served():
    sim = Simulator(MachineConfig(nodes=2))
    sim.load(build_text(_prog()))
    sim.daemon.add_service(SERVICE, lambda *a: 0)
    with pytest.raises(ValueError, match="on_served"):
        sim.daemon.stage(sim, 0, SERVICE, (7, 1), 0, [])
    sim.daemon.add_service(SERVICE, lambda *a: 0, on_served=lambda *a: None)
    sim.daemon.stage(sim, 1, SERVICE, (7, 1), 0, [(DATA, [5])])
    assert sim.core.staged_hostcalls(1) == 1
    sim.reset()
    assert sim.core.staged_hostcalls(1) == 0
