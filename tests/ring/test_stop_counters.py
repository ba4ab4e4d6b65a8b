"""Issue 18: at a stop, every counter is the same whatever order and quantum
the scheduler interleaves nodes with -- not only the node and cycle
reported (test_stop_determinism.py) but every node's counters, registers,
ring latches and memory, the host files and the console.  The rule
(docs/machine-model.md, "Stops"): at a stop at cycle c, every node is as at
its first instruction boundary after c (or where it exited, stopped or waits
earlier); of several stops at c the lowest node's is reported.  Nodes the host had run past c are
re-executed from the machine's journal (rapsim/replay.py), host calls served
from it: files and console are written once."""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

import stopprogs
from test_stop_determinism import SRC, TIMER_SRC
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import RAM0_BASE
from rapsim.replay import JOURNAL_WORDS
from rapsim.toolchain import build_text

QUANTA = (0, 1, 7, 1000)
ORDERS4 = [list(p) for p in itertools.permutations(range(4))]


def machine_state(sim: Simulator) -> tuple:
    """Everything a report or a later run could see of the machine."""
    per = []
    for n in range(sim.nodes):
        per.append((repr(sim.counters(n)), tuple(sim.register_words(n)), sim.core.get_pc(n),
                    sim.core.status(n), repr(sim.core.link_state(n)),
                    repr(sim.core.periph_state(n)),
                    sim.read(0x3000, 0x500, n).tobytes(), sim.read(RAM0_BASE, 2048, n).tobytes()))
    return repr(sim.machine_counters()), tuple(per)


def hostile_sim(tmp_path, tag: str, output=None, src=None) -> tuple[Simulator, object]:
    """A 4-node Simulator with stopprogs' program (or ``src``) loaded, its
    daemon's root the new folder tmp_path/tag; (sim, root)."""
    root = tmp_path / tag
    root.mkdir()
    sim = Simulator(MachineConfig(nodes=4), root=str(root), output=output)
    sim.load(build_text(src or stopprogs.source()))
    return sim, root


def run_hostile(tmp_path, order, quantum, tag, setup=None):
    console = []
    sim, root = hostile_sim(tmp_path, tag, lambda node, fd, data: console.append((node, fd, data)))
    if setup is not None:
        setup(sim)
    res = sim.run(max_cycles=1_000_000, quantum=quantum, order=order)
    files = tuple((f, (root / f).read_bytes()) for f in sorted(os.listdir(root)))
    return sim, res, (res.event, res.node, tuple(res.messages), machine_state(sim), files,
                      tuple(console))


def test_hostile_program_same_state_for_every_order_and_quantum(tmp_path):
    seen = {}
    for i, (order, q) in enumerate(itertools.product(ORDERS4, QUANTA)):
        sim, res, key = run_hostile(tmp_path, order, q, f"r{i}")
        seen.setdefault(key, []).append((order, q))
    assert len(seen) == 1, [v[:3] for v in seen.values()]
    event, node, messages, _, files, console = seen.popitem()[0]
    assert (event, node) == ("error", 1)
    assert len(messages) == 1 and "unmapped" in messages[0]      # no "as run" note
    # node 0's host calls before the fault, each served once; never its late write
    assert files == ((stopprogs.FILE, stopprogs.FILE_TEXT.encode()),)
    assert console == ((0, 1, stopprogs.CONSOLE),)


def test_the_rule_each_node_at_its_first_boundary_after_the_stop(tmp_path):
    sim, res, _ = run_hostile(tmp_path, [0, 1, 2, 3], 0, "rule")
    c = sim.core.cycle(1)
    # node 0 (quantum 0: run first, to its long loop) was brought back to the stop
    assert c < sim.core.cycle(0) < c + 8
    assert sim.core.status(0) == "running"
    assert c < sim.core.cycle(2) < c + 8 and sim.core.status(2) == "running"
    assert sim.core.status(3) == "ring-read" and sim.core.cycle(3) < 100
    # the same as a run cut by the cycle limit after c, for the nodes that did
    # not stop (node 1 without its fault)
    cut = Simulator(MachineConfig(nodes=4), root=str(tmp_path / "rule"))
    cut.load(build_text(stopprogs.source().replace("LDI     *AR2, R2", "NOP")))
    assert cut.run(max_cycles=c + 1).event == "limit"
    for n in (0, 2, 3):
        assert cut.counters(n) == sim.counters(n)


def test_host_writes_before_the_run_are_replayed(tmp_path):
    # the host changes node 1's loop count before the run: the re-run must start
    # from the same memory, else it would not reach the same stop
    def setup(sim):
        sim.write(sim.image.symbols["count"], [2000], node=1)
        sim.set_reg("R7", 12345, node=2)
    seen = {run_hostile(tmp_path, order, q, f"s{i}", setup)[2]
            for i, (order, q) in enumerate([([0, 1, 2, 3], 0), ([1, 2, 3, 0], 7),
                                            ([3, 0, 2, 1], 1), ([2, 3, 1, 0], 0)])}
    assert len(seen) == 1
    event, node, messages, state, _, _ = seen.pop()
    assert (event, node, len(messages)) == ("error", 1, 1)


def test_a_service_of_the_host_program_is_replayed(tmp_path):
    # a service of the host program (as rap train's TRAIN) writes node memory:
    # the re-run gets the same words without calling it again
    src = SRC.format(n0=1000, n2=500).replace(
        "early:  LDI     0300h, AR2",
        "early:  LDI     03000h, AR0\n        LDI     20, R0\n        STI     R0, *AR0\n"
        "        STI     AR0, @5\n        LDI     *+AR0(16), R1\n"
        "wait1:  SUBI    1, R1\n        BNZ     wait1\n        LDI     0300h, AR2")
    calls = []

    def service(sim, node, args, extra):
        calls.append(node)
        sim.write(0x3010, [40 + node], node=node)      # a loop count
        return 0

    def run(order, q):
        sim = Simulator(MachineConfig(nodes=4, hostcall_cycles=100))
        sim.daemon.add_service(20, service)
        sim.load(build_text(src))
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return res.event, res.node, tuple(res.messages), machine_state(sim)
    seen = {run(order, q) for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]) for q in (0, 7)}
    assert len(seen) == 1
    event, node, messages, _ = seen.pop()
    assert (event, node, len(messages)) == ("error", 1, 1)
    assert sorted(set(calls)) == [1, 3] and len(calls) == 2 * 6     # once per run, never replayed


@pytest.mark.parametrize("nodes", [2, 4])
def test_two_faults_at_different_cycles(nodes):
    def run(order, q):
        sim = Simulator(MachineConfig(nodes=nodes))
        sim.load(build_text(SRC.format(n0=1000, n2=500)))
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return res.event, res.node, tuple(res.messages), machine_state(sim)
    seen = {run(list(o), q) for o in itertools.permutations(range(nodes)) for q in QUANTA}
    assert len(seen) == 1
    assert len(seen.pop()[2]) == 1


@pytest.mark.parametrize("stop, event, message", [
    ("STI     AR2, @5", "error", "node 1: host call"),             # request block unmapped
    ("IDLE", "idle", "node 1: executed IDLE"),
    ("SWI", "break", "node 1: stopped at a software breakpoint"),
])
def test_other_stops_same_state(tmp_path, stop, event, message):
    # node 1's stop is a host call the daemon refuses, IDLE with nothing to
    # wake it, or SWI, while node 0 runs on (quantum 0: far past it)
    src = stopprogs.source().replace("LDI     *AR2, R2", stop)

    def run(order, q, tag):
        sim, root = hostile_sim(tmp_path, tag, src=src)
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return res.event, res.node, tuple(res.messages), machine_state(sim), \
            (root / stopprogs.FILE).read_bytes()
    seen = {run(order, q, f"o{i}") for i, (order, q) in enumerate(
        [([0, 1, 2, 3], 0), ([1, 0, 2, 3], 0), ([3, 2, 1, 0], 7), ([2, 0, 3, 1], 1)])}
    assert len(seen) == 1
    got, node, messages, _, text = seen.pop()
    assert (got, node, len(messages)) == (event, 1, 1)
    assert messages[0].startswith(message), messages[0]
    assert text == stopprogs.FILE_TEXT.encode()


def test_a_timer_interrupt_fault_same_state():
    def run(order, q):
        sim = Simulator(MachineConfig(nodes=4))
        sim.load(build_text(TIMER_SRC))
        res = sim.run(max_cycles=100_000, quantum=q, order=order)
        return res.event, res.node, tuple(res.messages), machine_state(sim)
    seen = {run(o, q) for o in ORDERS4[::5] for q in QUANTA}
    assert len(seen) == 1
    assert seen.pop()[:2] == ("error", 1)


def test_a_breakpoint_stop_same_state_and_the_run_goes_on_alike():
    # node 2's SWI is the first stop; the host lets it go on (the journal
    # records that with the stop), and the next stop -- nodes 0 and 1 fault
    # at one cycle: the lower wins -- is the same for every schedule too
    src = SRC.format(n0=1000, n2=2).replace("CMPI    1, R0\n        BEQ     early",
                                            "CMPI    9, R0\n        BEQ     early")

    def run(order, q):
        sim = Simulator(MachineConfig(nodes=3))
        sim.load(build_text(src))
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        at_break = (res.event, res.node, tuple(res.messages), machine_state(sim))
        sim.core.resume(2)
        res2 = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return at_break, (res2.event, res2.node, tuple(res2.messages), machine_state(sim))
    seen = {run(list(o), q) for o in itertools.permutations(range(3)) for q in QUANTA}
    assert len(seen) == 1
    at_break, after = seen.pop()
    assert at_break[:2] == ("break", 2) and len(at_break[2]) == 1
    assert after[:2] == ("error", 0) and len(after[2]) == 1


def test_host_changes_between_runs_are_replayed(tmp_path):
    # a run cut by the cycle limit, a host write into node 2's memory, and a
    # run to node 1's fault: re-executed through both runs (the write
    # included), the same state for every schedule
    def run(order, q, tag):
        sim, root = hostile_sim(tmp_path, tag)
        assert sim.run(max_cycles=20, quantum=q, order=order).event == "limit"
        sim.write(0x34F0, [777], node=2)        # (machine_state compares it)
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return res.event, res.node, tuple(res.messages), machine_state(sim), \
            (root / stopprogs.FILE).read_bytes()
    seen = {run(order, q, f"b{i}") for i, (order, q) in enumerate(
        [([0, 1, 2, 3], 0), ([1, 0, 2, 3], 7), ([3, 2, 1, 0], 0), ([2, 0, 3, 1], 1)])}
    assert len(seen) == 1
    event, node, messages, _, text = seen.pop()
    assert (event, node, len(messages)) == ("error", 1, 1)
    assert text == stopprogs.FILE_TEXT.encode()


def test_a_journal_that_cannot_rebuild_the_machine_says_so(tmp_path):
    # the host stepped a node between runs: the stop is reported with the
    # other nodes' counters as run, and a note naming them -- never silently
    sim, _ = hostile_sim(tmp_path, "run")
    assert sim.run(max_cycles=20).event == "limit"
    sim.step(3)
    res = sim.run(max_cycles=1_000_000, order=[0, 1, 2, 3])
    assert (res.event, res.node) == ("error", 1)
    assert len(res.messages) == 2
    assert res.messages[1].startswith("note: node 0 is as run, not as the rule of a stop has it "
                                      "(every node at its first instruction boundary after "
                                      f"the stop's cycle {sim.core.cycle(1)})")
    assert res.messages[1].endswith("the host called the core's step()")
    assert sim.core.cycle(0) > 40_000       # node 0 ran on to its late write


def test_the_journal_is_bounded(tmp_path):
    sim = Simulator(MachineConfig(nodes=4), root=str(tmp_path))
    assert sim.journal.limit == JOURNAL_WORDS
    sim.journal.limit = 200                 # a few host calls' worth
    sim.load(build_text(stopprogs.source()))
    res = sim.run(max_cycles=1_000_000, order=[0, 1, 2, 3])
    assert (res.event, res.node) == ("error", 1)
    assert "outgrew 200 words" in res.messages[-1]
    assert sim.journal.setup == [] and sim.journal.calls == {}      # its memory is freed


def test_stdin_read_before_the_fault_is_not_read_again():
    # node 0 reads standard input, then works on past node 1's fault: the
    # re-run takes the bytes from the journal, standard input is read once
    import io
    from hostprog import BLOCK, BUF, READ, RESULTS, call_lines
    call = "".join(f"        {ln}\n" for ln in
                   [f"LDI  {BLOCK}, AR0", f"LDI  {RESULTS}, AR1", *call_lines(READ, [0, BUF, 4])])
    src = f"""
        .global start
start:  LDP     0x800000
        LDI     @3, R0              ; NODE_ID
        CMPI    1, R0
        BEQ     n1
{call}        LDI     5000, R1
l0:     SUBI    1, R1
        BNZ     l0
        .word   0FFFFFFFFh
n1:     LDI     200, R1
l1:     SUBI    1, R1
        BNZ     l1
        .word   0FFFFFFFFh
"""

    def run(order, q):
        stdin = io.BytesIO(b"abcdefgh")
        sim = Simulator(MachineConfig(nodes=2, hostcall_cycles=10), stdin=stdin)
        sim.load(build_text(src))
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        return res.event, res.node, len(res.messages), machine_state(sim), stdin.read()
    seen = {run(list(o), q) for o in ([0, 1], [1, 0]) for q in QUANTA}
    assert len(seen) == 1
    event, node, messages, state, rest = seen.pop()
    assert (event, node, messages) == ("error", 1, 1)
    assert rest == b"efgh"


def test_a_traced_run_traces_the_instructions_of_the_rule(tmp_path):
    # the trace holds the instructions up to the stop as the rule has them,
    # not those of a node the simulator had run past it: the same records of
    # each node for every order and quantum, one per instruction counted
    def run(order, q, tag):
        sim, _ = hostile_sim(tmp_path, tag)
        chunks = []
        sim.probes.trace(chunks.append, capacity=512)
        res = sim.run(max_cycles=1_000_000, quantum=q, order=order)
        recs = np.concatenate(chunks)
        instr = recs[recs["kind"] == 0]
        assert len(instr) == sum(sim.counters(n)["instructions"] for n in range(4))
        recs = recs[np.lexsort((recs["cycle"], recs["node"]))]      # (batches come as run)
        fields = tuple(tuple(recs[f].tolist()) for f in ("node", "cycle", "end", "pc", "word", "kind"))
        return res.event, res.node, tuple(res.messages), machine_state(sim), fields
    seen = {run(order, q, f"t{i}") for i, (order, q) in enumerate(
        [([0, 1, 2, 3], 0), ([1, 0, 2, 3], 0), ([3, 2, 1, 0], 7), ([2, 0, 3, 1], 1000)])}
    assert len(seen) == 1
    assert seen.pop()[:2] == ("error", 1)


def test_a_trace_too_long_to_keep_back_says_so(tmp_path, monkeypatch):
    # past the bound of records kept back, they reach the sinks as they come:
    # the counters still follow the rule, and a note says the trace does not
    import rapsim.probes
    monkeypatch.setattr(rapsim.probes, "HOLD_BYTES", 4096)
    plain, _, _ = run_hostile(tmp_path, [0, 1, 2, 3], 0, "plain")
    sim, _ = hostile_sim(tmp_path, "run")
    chunks = []
    sim.probes.trace(chunks.append, capacity=64)
    res = sim.run(max_cycles=1_000_000, order=[0, 1, 2, 3])
    assert (res.event, res.node) == ("error", 1)
    assert res.messages[-1].startswith("note: the trace holds the instructions as run")
    assert machine_state(sim)[0] == machine_state(plain)[0]
    recs = np.concatenate(chunks)
    assert (recs["node"] == 0).sum() > sim.counters(0)["instructions"]
