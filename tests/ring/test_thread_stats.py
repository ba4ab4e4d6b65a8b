"""What the host threads did (Simulator.thread_stats, core/schedule.pxi's
ThreadStats; docs/performance.md, "Node groups on host threads"): every
node-cycle is counted once, on one thread or by the groups in parallel;
threads are started only by threaded calls; a machine's figures add up over
its calls and reset to zero; and the results stay those of one thread."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

from bench_ring import _simulator  # noqa: E402
from rapsim import _sim  # noqa: E402

KEYS = {"calls", "threaded_calls", "thread_starts", "serial_starts", "waits", "meetings",
        "declined", "rounds", "sleeps", "cycles_single", "cycles_serial", "cycles_parallel",
        "serial_ns", "wait_ns", "caller_cpu_ns", "helper_cpu_ns", "handoffs", "asked",
        "instr_single", "instr_serial", "instr_parallel", "instr_group_max"}


def node_cycles(sim, nodes):
    return sum(sim.core.cycle(n) for n in range(nodes))


def test_one_thread_counts_every_cycle_on_one_thread():
    sim = _simulator("compute", 16, 1, 20)
    assert sim.run().event == "done"
    st = sim.thread_stats()
    assert set(st) == KEYS
    assert st["calls"] >= 1 and st["threaded_calls"] == 0 and st["thread_starts"] == 0
    assert st["cycles_single"] == node_cycles(sim, 16)
    assert st["instr_single"] == sum(sim.core.instret(n) for n in range(16))
    assert st["cycles_serial"] == st["cycles_parallel"] == st["meetings"] == 0


@pytest.mark.skipif(not _sim.HOST_THREADS, reason="a build without host threads")
@pytest.mark.parametrize("kind, nodes, threads", [("compute", 16, 2), ("compute", 64, 4),
                                                  ("ring", 64, 2)])
def test_threads_count_every_cycle_once(kind, nodes, threads):
    ref = _simulator(kind, nodes, 1, 20)
    ref.run()
    sim = _simulator(kind, nodes, threads, 20)
    assert sim.run().event == "done"
    st = sim.thread_stats()
    total = node_cycles(sim, nodes)
    assert total == node_cycles(ref, nodes)
    assert st["cycles_single"] + st["cycles_serial"] + st["cycles_parallel"] == total
    assert st["instr_single"] + st["instr_serial"] + st["instr_parallel"] == \
        sum(sim.core.instret(n) for n in range(nodes))
    assert st["instr_parallel"] // threads <= st["instr_group_max"] <= st["instr_parallel"]
    assert st["threaded_calls"] == st["calls"] >= 1
    assert st["thread_starts"] <= (threads - 1) * st["threaded_calls"]
    assert st["serial_starts"] <= st["threaded_calls"]
    assert st["meetings"] <= st["waits"] and st["declined"] <= st["waits"]
    assert min(st.values()) >= 0
    if kind == "compute":
        # the nodes compute between all-gathers: the groups run them in parallel
        assert st["thread_starts"] >= 1 and st["cycles_parallel"] > total // 2
        assert st["caller_cpu_ns"] > 0 and st["helper_cpu_ns"] > 0
    else:
        # a full ring's rotations: the rounds over every node, on one thread
        assert st["cycles_serial"] > total // 2


def test_stats_add_up_and_reset():
    sim = _simulator("compute", 4, 1, 10)
    sim.run(max_cycles=3000)
    first = sim.thread_stats()
    sim.run()
    second = sim.thread_stats()
    assert second["calls"] > first["calls"]
    assert second["cycles_single"] == node_cycles(sim, 4) > first["cycles_single"]
    sim.core.reset_thread_stats()
    assert set(sim.thread_stats().values()) == {0}


def outcome(sim, nodes):
    return [sim.core.counters(n) for n in range(nodes)], \
        [[sim.core.get_reg(n, r) for r in range(28)] for n in range(nodes)]


@pytest.mark.skipif(not _sim.HOST_THREADS, reason="a build without host threads")
@pytest.mark.parametrize("kind, nodes", [("compute", 16), ("ring", 16)])
def test_handoff_waits_change_no_result(kind, nodes):
    """Asking the threads to meet after every hand-off wait (1), never (0) or
    after the default's: the same counters and registers as one thread."""
    ref = _simulator(kind, nodes, 1, 30)
    ref.run()
    want = outcome(ref, nodes)
    for k in (0, 1, 32):
        for threads in (2, 4):
            sim = _simulator(kind, nodes, threads, 30, handoff_waits=k)
            assert sim.handoff_waits == k
            assert sim.run().event == "done"
            assert outcome(sim, nodes) == want, (k, threads)
            st = sim.thread_stats()
            assert st["asked"] <= st["handoffs"] <= st["waits"]
            if k == 0:
                assert st["asked"] == 0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2", 1 << 31])
def test_handoff_waits_bad_values(bad):
    sim = _simulator("compute", 4, 1, 1)
    with pytest.raises(ValueError, match="handoff_waits"):
        sim.handoff_waits = bad


@given(st.lists(st.one_of(st.integers(0, 3), st.integers(0, 10 ** 9)), min_size=1, max_size=64),
       st.data())
def test_split_groups_contiguous_and_even(instret, data):
    """Contiguous groups, one or more nodes each, in ring order; equal counts
    give the even split; no group could give a node to its neighbour and
    leave the two closer to an even share."""
    n = data.draw(st.integers(1, len(instret)))
    group = _sim.split_groups_of(instret, n)
    assert group[0] == 0 and group[-1] == n - 1
    assert all(b - a in (0, 1) for a, b in zip(group, group[1:]))
    if len(set(instret)) == 1:
        sizes = [group.count(g) for g in range(n)]
        assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("instret, n, want", [
    ([100] * 16, 2, [0] * 8 + [1] * 8),
    ([0] * 40, 2, [0] * 20 + [1] * 20),
    # the speech MLP on 40 nodes: nodes 0-20 run 16% more than 21-39
    ([215401] + [215681] * 20 + [187729] * 11 + [177945] * 8, 2, [0] * 19 + [1] * 21),
    ([1, 1, 1, 10 ** 6], 2, [0, 0, 0, 1]),
    ([10 ** 6, 1, 1, 1], 3, [0, 1, 2, 2]),
])
def test_split_groups_examples(instret, n, want):
    assert _sim.split_groups_of(instret, n) == want


def test_split_groups_bad():
    with pytest.raises(ValueError):
        _sim.split_groups_of([1, 2], 3)
    with pytest.raises(ValueError):
        _sim.split_groups_of([1, -2], 1)


def test_summary_and_bound():
    from rapsim.threadstats import speedup_bound, summary
    sim = _simulator("compute", 16, 1, 5)
    sim.run()
    st = sim.thread_stats()
    assert speedup_bound(st) == 1.0
    assert "bound 1.00x" in summary(st) and "100.0% of instructions" in summary(st)
    if _sim.HOST_THREADS:
        sim = _simulator("compute", 16, 2, 30)
        sim.run()
        # the groups share the dot products: the busiest ran about half
        assert 1.5 < speedup_bound(sim.thread_stats()) <= 2.0
