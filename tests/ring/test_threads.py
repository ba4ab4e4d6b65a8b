"""Node groups on host threads (issue 16; core/schedule.pxi,
run_machine_threads) never change a result: the same program on 1, 2, 3
and 4 host threads (with the scheduler's other knobs, quantum and order)
gives identical counters for every node, registers, memory, events and
messages.  The programs are the ring's determinism set (RING_STAT polling
that steers control flow, back-pressure bursts, a full ring shifting at
once, uneven all-gathers, board hops, runs cut by the cycle limit), the
firmware's collectives (all-gather, reduce-scatter, all-reduce, broadcast,
barrier) on 16 nodes, the benchmark kernels on 64 nodes, stops in several
nodes (the first in simulated time is reported) and host calls (their
output comes in the same order)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import MAX_THREADS, Simulator, check_threads, default_threads
from rapsim.toolchain import build_text

from ringprogs import simulator
from test_determinism import CASES, QUANTA, orders, snapshot
from test_stop_determinism import SRC as STOP_SRC

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for sub in (os.path.join(ROOT, "tests", "firmware"), os.path.join(ROOT, "benchmarks")):
    if sub not in sys.path:
        sys.path.insert(0, sub)

THREADS = (2, 3, 4)


def run_threads(src, nodes, threads, quantum=0, order=None, max_cycles=2_000_000, setup=None,
                **cfg):
    sim = simulator(src, nodes, **cfg)
    if setup:
        setup(sim)
    res = sim.run(max_cycles=max_cycles, quantum=quantum, order=order, threads=threads)
    return snapshot(sim, res)


@pytest.mark.parametrize("case", sorted(CASES))
def test_threads_change_nothing(case):
    src, nodes, cfg, setup, kw = CASES[case]
    ref = run_threads(src, nodes, 1, setup=setup, **kw, **cfg)
    for threads in THREADS:
        for q in (0, 7):
            got = run_threads(src, nodes, threads, q, setup=setup, **kw, **cfg)
            assert got == ref, (case, threads, q)
    o = orders(nodes, seed=len(case))[-1]
    assert run_threads(src, nodes, 2, 1, o, setup=setup, **kw, **cfg) == ref


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_schedules_on_threads(data):
    case = data.draw(st.sampled_from(sorted(CASES)))
    src, nodes, cfg, setup, kw = CASES[case]
    threads = data.draw(st.integers(1, min(nodes, 6)))
    q = data.draw(st.one_of(st.sampled_from(QUANTA), st.integers(1, 5000)))
    order = data.draw(st.permutations(list(range(nodes))))
    ref = run_threads(src, nodes, 1, setup=setup, **kw, **cfg)
    assert run_threads(src, nodes, threads, q, order, setup=setup, **kw, **cfg) == ref


def test_resuming_after_a_limit_on_threads():
    src, nodes, cfg, setup, kw = CASES["poll-9"]
    ref = run_threads(src, nodes, 1)
    sim = simulator(src, nodes)
    for limit, threads in ((100, 2), (101, 4), (350, 3), (600, 2)):
        assert sim.run(max_cycles=limit, threads=threads).event == "limit"
    res = sim.run(max_cycles=2_000_000, threads=4)
    got = snapshot(sim, res)
    assert got["counters"] == ref["counters"] and got["mem"] == ref["mem"]
    assert got["regs"] == ref["regs"]


def test_collectives_on_threads():
    # the firmware's ring collectives on 16 nodes: all-gather, reduce-scatter,
    # all-reduce, broadcast, barrier (tests/firmware/test_fw_ring.py)
    from fwharness import Call, SRAM, SRAM2, SRAM3, run_calls
    N, V = 16, 50
    sizes = [3, 0, 5, 2, 4, 1, 6, 3, 0, 7, 2, 4, 5, 1, 3, 4]
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    rng = np.random.default_rng(5)
    words = rng.integers(0, 1 << 32, (N, V), dtype=np.uint64)
    parts = rng.standard_normal((N, V))
    calls = [Call("_ring_allgather", [SRAM, SRAM3]),
             Call("_ring_reduce_scatter", [SRAM2, SRAM3]),
             Call("_ring_allreduce", [SRAM2 + 0x4000, SRAM3]),
             Call("_ring_bcast", [SRAM2 + 0x8000, V, 7]),
             Call("_ring_barrier")]

    def setup(sim):
        for n in range(N):
            sim.write(SRAM3, off, node=n)
            sim.write(SRAM + off[n], words[n, off[n]:off[n + 1]], node=n)
            sim.write_floats(SRAM2, parts[n], node=n)
            sim.write_floats(SRAM2 + 0x4000, parts[n], node=n)
            sim.write(SRAM2 + 0x8000, words[n], node=n)

    def state(threads):
        run = run_calls(calls, nodes=N, setup=setup, sim_kw={"threads": threads})
        sim = run.sim
        return (sim.machine_counters(), [sim.registers(n) for n in range(N)],
                [[sim.read(a, V, n).tolist() for a in (SRAM, SRAM2, SRAM2 + 0x4000,
                                                      SRAM2 + 0x8000)] for n in range(N)])

    ref = state(1)
    for threads in (2, 4, 16):
        assert state(threads) == ref, threads


@pytest.mark.parametrize("kind", ["compute", "ring"])
def test_benchmark_kernels_on_64_nodes(kind):
    from bench_ring import PROGRAMS
    image = build_text(PROGRAMS[kind](3, 64))

    def state(threads):
        sim = Simulator(MachineConfig(nodes=64, hostcall_cycles=0), threads=threads)
        sim.load(image)
        res = sim.run()
        assert res.event == "done", res.messages
        return sim.machine_counters(), [sim.registers(n) for n in range(64)]

    ref = state(1)
    for threads in (2, 4):
        assert state(threads) == ref


# Several nodes stop (tests/ring/test_stop_determinism.py's program): an
# error at cycle ~8 on nodes 1 and 3, SWI on node 2, an illegal word on node
# 0 later.
def test_first_stop_is_reported_on_threads():
    seen = set()
    for threads in (1, 2, 4):
        for q in (0, 7):
            sim = Simulator(MachineConfig(nodes=4), threads=threads)
            sim.load(build_text(STOP_SRC.format(n0=1000, n2=500)))
            res = sim.run(max_cycles=1_000_000, quantum=q)
            seen.add((res.event, res.node, sim.core.cycle(res.node), res.messages[0]))
    assert len(seen) == 1, seen
    assert seen.pop()[:2] == ("error", 1)


def test_host_calls_come_in_the_same_order():
    # every node prints through the host daemon (host calls stop the run and
    # are served with the GIL): the output and its order do not depend on
    # the threads
    with open(os.path.join(ROOT, "examples", "hello.asm")) as f:
        image = build_text(f.read())

    def output(threads):
        got = []
        sim = Simulator(MachineConfig(nodes=8), threads=threads,
                        output=lambda node, fd, data: got.append((node, fd, data)))
        sim.load(image)
        res = sim.run()
        assert res.event == "done"
        return got, sim.machine_counters()

    ref = output(1)
    assert len(ref[0]) == 8
    for threads in (2, 3, 8):
        assert output(threads) == ref


def test_thread_counts_are_checked():
    assert check_threads(1) == 1 and check_threads(MAX_THREADS) == MAX_THREADS
    for bad in (0, -1, MAX_THREADS + 1, 2.5, "2", True, None):
        with pytest.raises(ValueError):
            check_threads(bad)
    sim = simulator(CASES["poll-4"][0], 4)
    with pytest.raises(ValueError):
        sim.run(threads=0)
    with pytest.raises(ValueError):
        sim.core.run(100, 0, None, 0)
    assert default_threads() >= 1


def test_more_threads_than_nodes_and_probes_run():
    # at most one thread per node; a probed node puts the machine on one thread
    src, nodes = CASES["rotate-5"][0], CASES["rotate-5"][1]
    ref = run_threads(src, nodes, 1)
    assert run_threads(src, nodes, 64) == ref
    sim = simulator(src, nodes)
    recs = []
    sim.probes.trace(recs.append, nodes=[2])
    res = sim.run(max_cycles=2_000_000, threads=4)
    assert snapshot(sim, res)["counters"] == ref["counters"]
    assert sum(len(r) for r in recs) > 0


# Random ring programs: each node runs its own random sequence of ring
# writes, reads, RING_FWD settings, RPTS read(-and-forward) bursts,
# RING_STAT reads and polls, and delay loops.  Whatever happens (done,
# deadlock, the cycle limit), 1 thread and N threads give the same.
def _op_text(op, label: str) -> str:
    kind, k = op
    if kind == "write":
        return f"        LDI     {k}, R1\n        STI     R1, *AR1\n"
    if kind == "read":
        return "        LDI     *AR1, R1\n        ADDI    R1, R4\n"
    if kind == "fwd":
        return f"        LDI     {k}, R2\n        STI     R2, @2\n"
    if kind == "burst":
        return (f"        RPTS    {k - 1}\n        LDI     *AR1, R1\n"
                "     || STI     R1, *AR0++\n        STI     R1, *AR0\n")
    if kind == "stat":
        return "        LDI     @1, R3\n        ADDI    R3, R5\n"
    if kind == "poll":
        return (f"{label}: ADDI    1, R6\n        LDI     @1, R3\n        AND     {k}, R3\n"
                f"        BZ      {label}\n")
    return f"        LDI     {k}, AR4\n{label}: DBU     AR4, {label}\n"     # delay


def random_ring_program(per_node) -> str:
    src = ["        .global start\n        .text\nstart:  LDI     0x80, AR1\n"
           "        LSH     16, AR1\n        LDP     0x800000\n        LDI     @3, R0\n"
           "        LDI     AR1, AR0\n        OR      09C00h, AR0\n"]
    for i in range(len(per_node)):
        src.append(f"        CMPI    {i}, R0\n        BEQ     node{i}\n")
    for i, ops in enumerate(per_node):
        src.append(f"node{i}:\n")
        for j, op in enumerate(ops):
            src.append(_op_text(op, f"l{i}_{j}"))
        src.append("        B       done\n")
    src.append("done:   STI     R4, *AR0++\n        STI     R5, *AR0++\n"
               "        STI     R6, *AR0++\n        B       exit\n")
    return "".join(src)


ring_op = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 99)), st.tuples(st.just("read"), st.just(0)),
    st.tuples(st.just("fwd"), st.integers(0, 3)), st.tuples(st.just("burst"), st.integers(1, 6)),
    st.tuples(st.just("stat"), st.just(0)), st.tuples(st.just("poll"), st.sampled_from([1, 2])),
    st.tuples(st.just("delay"), st.integers(0, 40)))


def spmd_ops(segments, delays, nodes: int):
    """Each node's ops for SPMD segments (the same on every node, so that
    the words balance) with its own delays before each: "exchange" (write a
    word, read one), "gather" (write, forward N-2, read N-1 in an RPTS
    burst), "polled" (poll RING_STAT for room, write, poll for a word,
    read)."""
    per_node = []
    for i in range(nodes):
        ops = []
        for seg, d in zip(segments, delays[i]):
            if d:
                ops.append(("delay", d))
            if seg == "exchange":
                ops += [("write", i), ("read", 0)]
            elif seg == "gather":
                ops += [("write", 10 + i), ("fwd", max(nodes - 2, 0)), ("burst", nodes - 1)]
            else:
                ops += [("poll", 2), ("write", 20 + i), ("poll", 1), ("read", 0)]
        per_node.append(ops)
    return per_node


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_ring_programs_on_threads(data):
    from ringprogs import program
    nodes = data.draw(st.integers(2, 8), label="nodes")
    if data.draw(st.booleans(), label="spmd"):
        segments = data.draw(st.lists(st.sampled_from(["exchange", "gather", "polled"]),
                                      min_size=1, max_size=6), label="segments")
        delays = data.draw(st.lists(st.lists(st.integers(0, 60), min_size=len(segments),
                                             max_size=len(segments)),
                                    min_size=nodes, max_size=nodes), label="delays")
        per_node = spmd_ops(segments, delays, nodes)
    else:
        per_node = data.draw(st.lists(st.lists(ring_op, min_size=1, max_size=10),
                                      min_size=nodes, max_size=nodes), label="programs")
    threads = data.draw(st.integers(2, nodes), label="threads")
    src = program(random_ring_program(per_node))
    ref = run_threads(src, nodes, 1, max_cycles=20_000)
    got = run_threads(src, nodes, threads, max_cycles=20_000)
    assert got == ref


def test_stop_counters_on_threads(tmp_path):
    # issue 18's hostile program (tests/ring/test_stop_counters.py): a fault,
    # host calls writing a file and the console, nodes running far past the
    # stop -- the same event, messages, state of every node, files and
    # console on 1 to 4 threads
    from test_stop_counters import hostile_sim, machine_state
    seen = set()
    for threads in (1, 2, 3, 4):
        for q in (0, 7):
            console = []
            tag = f"t{threads}q{q}"
            sim, root = hostile_sim(tmp_path, tag, lambda node, fd, data: console.append(
                (node, fd, data)))
            res = sim.run(max_cycles=1_000_000, quantum=q, threads=threads)
            files = tuple((f, (root / f).read_bytes()) for f in sorted(os.listdir(root)))
            seen.add((res.event, res.node, tuple(res.messages), machine_state(sim), files,
                      tuple(console)))
    assert len(seen) == 1
    assert seen.pop()[:2] == ("error", 1)
