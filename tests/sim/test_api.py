"""The Python API (rapsim.machine.Simulator) as a user drives it: runs that
stop and are run again, stepping over host calls, interrupting a long run,
and clear errors (ValueError / TypeError naming the argument) for bad
arguments."""
from __future__ import annotations

import signal
import time

import numpy as np
import pytest

from hostprog import O_RDONLY, OPEN, WRITE, program, replies, string
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

HEAD = "        .global start\nstart:\n"


def simulator(body: str, nodes: int = 1, **kw) -> Simulator:
    sim = Simulator(MachineConfig(nodes=nodes), **kw)
    sim.load(build_text(HEAD + body))
    return sim


# ---------------------------------------------------------------------------
# runs that stop, and runs again


@pytest.mark.parametrize("body, event", [
    ("        LDI 5, R0\n        .word 0xFFFFFFFF\n", "error"),
    ("        LDI 5, R0\n        SWI\n", "break"),
    ("        IDLE\n", "idle"),
])
def test_running_a_stopped_machine_again_reports_the_stop_again(body, event):
    # a second run() must not say "done" (ok) while the node never exited
    sim = simulator(body)
    first = sim.run(max_cycles=1000)
    assert first.event == event
    again = sim.run(max_cycles=1000)
    assert again.event == event and not again.ok and again.node == 0
    assert again.messages and again.messages[0] == first.messages[0]


def test_a_stopped_node_stops_the_others_on_the_next_run_too():
    # node 0 stops at an illegal instruction; node 1 would exit normally
    body = ("        LDP 0x800000\n        LDI @3, R0\n        BNZ fine\n"
            "        .word 0xFFFFFFFF\nfine:   SWI\n")
    sim = simulator(body, nodes=2)
    assert sim.run(max_cycles=1000).event == "error"
    res = sim.run(max_cycles=1000)
    assert res.event == "error" and res.node == 0


def test_step_serves_host_calls():
    out = []
    sim = Simulator(output=lambda node, fd, data: out.append(data))
    sim.load(build_text(program([(WRITE, [1, "m", 3])], 5, string("m", "hi\n"))))
    seen = []
    for _ in range(200):
        status = sim.step(0)
        seen.append(status)
        if status != "running":
            break
    assert seen[-1] == "exited" and "hostcall" not in seen
    assert out == [b"hi\n"]
    assert sim.core.exit_status(0) == 5
    assert sim.counters(0)["host_calls"] == 2


def test_run_serves_a_host_call_left_pending():
    # the low-level core.step stops at the host call; run() serves it
    out = []
    sim = Simulator(output=lambda node, fd, data: out.append(data))
    sim.load(build_text(program([(WRITE, [1, "m", 3])], 0, string("m", "hi\n"))))
    while sim.core.step(0) != "hostcall":
        pass
    res = sim.run(max_cycles=100_000)
    assert res.ok and out == [b"hi\n"]


# ---------------------------------------------------------------------------
# a long run can be interrupted (Ctrl-C, or any signal handler that raises)


class Alarm(Exception):
    pass


def test_a_long_run_can_be_interrupted_and_goes_on_afterwards():
    sim = simulator("loop:   ADDI 1, R0\n        BR loop\n")

    def handler(signum, frame):
        raise Alarm()

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        t0 = time.perf_counter()
        with pytest.raises(Alarm):
            sim.run(max_cycles=1 << 50)         # hours of host time without the check
        assert time.perf_counter() - t0 < 10
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # the machine is where the interruption left it and runs on
    cycle = sim.core.cycle(0)
    assert cycle > 0 and sim.core.status(0) == "running"
    res = sim.run(max_cycles=cycle + 100)
    assert res.event == "limit" and cycle + 100 <= sim.core.cycle(0) < cycle + 110


def test_interrupted_runs_give_the_same_results():
    # the periodic check for signals is invisible in the results
    body = "loop:   ADDI 1, R0\n        MPYI R0, R1\n        BR loop\n"
    a = simulator(body)
    a.run(max_cycles=3_000_000)
    b = simulator(body)
    for limit in range(500_000, 3_000_001, 500_000):
        b.run(max_cycles=limit)
    assert a.counters(0) == b.counters(0)
    assert list(a.register_words(0)) == list(b.register_words(0))


# ---------------------------------------------------------------------------
# bad arguments


@pytest.fixture
def sim():
    return simulator("        SWI\n", nodes=2)


@pytest.mark.parametrize("call, exc, text", [
    (lambda s: s.read(0x100, -1), ValueError, "count"),
    (lambda s: s.read(-1, 1), ValueError, "address -1 is negative"),
    (lambda s: s.read(1 << 24, 1), ValueError, "24-bit"),
    (lambda s: s.read(1 << 32, 1), ValueError, "24-bit"),
    (lambda s: s.read(0x100, 1 << 32), ValueError, "count"),
    (lambda s: s.read(0x3FFFF, 2), ValueError, "not inside one memory region"),
    (lambda s: s.read(256.0, 1), TypeError, "address must be an integer"),
    (lambda s: s.read(0x100, 1, node=2), IndexError, "node 2"),
    (lambda s: s.write(-5, [1]), ValueError, "negative"),
    (lambda s: s.write(0x100, [1.5]), TypeError, "write_floats"),
    (lambda s: s.write(0x100, ["a"]), TypeError, "integers"),
    (lambda s: s.write(0x100, [1 << 32]), ValueError, "32 bits"),
    (lambda s: s.write(0x100, [-(1 << 31) - 1]), ValueError, "32 bits"),
    (lambda s: s.write(0x100, [[1, 2]]), ValueError, "one-dimensional"),
    (lambda s: s.set_reg("R0", 1 << 40), ValueError, "32 bits"),
    (lambda s: s.set_reg("R0", 1.5), TypeError, "integer"),
    (lambda s: s.run(max_cycles=-5), ValueError, "max_cycles"),
    (lambda s: s.run(max_cycles=1 << 70), ValueError, "max_cycles"),
    (lambda s: s.run(max_cycles="100"), TypeError, "max_cycles"),
    (lambda s: s.run(max_cycles=100, quantum=-1), ValueError, "quantum"),
    (lambda s: s.run(max_cycles=100, sample_every=-3, sampler=print), ValueError, "sample_every"),
    (lambda s: s.run(max_cycles=100, order=[0, 0]), ValueError, "permutation"),
    (lambda s: s.reset(-1), ValueError, "pc"),
    (lambda s: s.reset(1 << 30), ValueError, "pc"),
    (lambda s: s.load(None), TypeError, "Image"),
])
def test_bad_arguments_are_clear_errors(sim, call, exc, text):
    with pytest.raises(exc, match=text):
        call(sim)


def test_memory_words_may_be_negative_or_any_integer_type(sim):
    sim.write(0x100, [-1, -(1 << 31), (1 << 32) - 1, 7])
    sim.write(0x104, np.array([3, 4], dtype=np.int8), node=1)
    sim.write(0x106, 9)                                         # a scalar: one word
    assert list(sim.read(0x100, 4)) == [0xFFFFFFFF, 0x80000000, 0xFFFFFFFF, 7]
    assert list(sim.read(0x104, 3, node=1)) == [3, 4, 9]
    assert sim.read(0x100, 0).shape == (0,)
    sim.write(0x200, [])                                        # nothing
    sim.set_reg("R1", -2)
    assert sim.reg("R1") == 0xFFFFFFFE


def test_integral_float_cycle_limit_is_accepted(sim):
    assert sim.run(max_cycles=1e3).event == "break"


def test_entry_point_outside_the_address_space_is_refused():
    img = build_text(HEAD + "        SWI\n")
    for entry in (-5, 1 << 24, 1 << 40):
        img.entry = entry
        with pytest.raises(ValueError, match="entry point"):
            Simulator().load(img)


def test_low_level_core_checks_ranges_before_touching_memory():
    # a count that wraps the address round used to pass the on-chip check
    # and copy 16 GB out of the 2 K words of on-chip RAM (a crash)
    from rapsim import _sim
    m = _sim.Machine(1, 1 << 18, 1 << 22, [0, 2, 0, 0, 0], 1600)
    for addr, count in ((0x809C00, 0xFFFFFFFF), (0x809800, 0xFFFFFC00), (0x3FFFF, 0xFFFFFFFF)):
        assert not m.mapped(0, addr, count)
        with pytest.raises(ValueError, match="not inside one memory region"):
            m.read(0, addr, count)
    assert len(m.read(0, 0x809800, 2048)) == 2048 and m.mapped(0, 0x809800, 2048)
    with pytest.raises(ValueError, match="wait-state"):
        _sim.Machine(1, 1 << 18, 1 << 22, [0] * 9, 1600)      # wrote past Node.wait[5]


def test_reset_closes_the_files_a_program_left_open(tmp_path):
    # run again after reset() (or load()): descriptors start at 3 again, and
    # a program that never closes its files cannot run out of them
    (tmp_path / "f").write_text("x")
    sim = Simulator(root=str(tmp_path))
    img = build_text(program([(OPEN, ["p", O_RDONLY, 0])] * 20, 0, string("p", "f")))
    for _ in range(3):
        sim.load(img)
        assert sim.run(max_cycles=10 ** 6).ok
        assert [r[:2] for r in replies(sim, 20)] == [(3 + k, 0) for k in range(20)]
    sim.reset(img.entry)
    assert sim.daemon.nodes[0].files == {}


def test_zero_pages_of_an_image_cost_no_host_memory():
    # 64 nodes x 4 M zero words used to be written (1 GB of host memory
    # touched); zero pages are only written where memory is not zero already
    src = (HEAD + "        SWI\n        .sect \".dram\"\nbig:    .space 4000000\n"
           "        .word 5\n")
    img = build_text(src)
    sim = Simulator(MachineConfig(nodes=64))
    written = []

    class Counting:
        def __init__(self, core):
            self._core = core

        def __getattr__(self, name):
            return getattr(self._core, name)

        def write(self, node, addr, words):
            written.append(len(words))
            self._core.write(node, addr, words)

    sim.core = Counting(sim.core)
    sim.load(img)
    assert sum(written) < 64 * 2048            # the code, the vector and the page with the 5
    assert sim.read(0x400000 + 4000000, 1, node=63)[0] == 5
    # memory that is not zero any more is cleared by the next load
    sim.write(0x400000 + 12345, [7], node=3)
    sim.load(img)
    assert sim.read(0x400000 + 12345, 1, node=3)[0] == 0
