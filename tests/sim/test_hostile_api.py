"""Issue 18: cycle arithmetic never wraps (host-call costs are bounded at
the boundary, the extension refuses more), and out-of-range values are
refused by the Python API before they reach the extension."""
from __future__ import annotations

import numpy as np
import pytest

from hostprog import CLOCK, program, replies
from rapsim import _sim
from rapsim.config import MAX_EXTRA_CYCLES, MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text


def test_the_largest_host_call_cost_counts_without_wrapping():
    sim = Simulator(MachineConfig(hostcall_cycles=MAX_EXTRA_CYCLES))
    sim.load(build_text(program([(CLOCK, []), (CLOCK, []), (CLOCK, [])], 0)))
    res = sim.run()
    assert res.ok
    assert res.cycles > 4 * MAX_EXTRA_CYCLES > 0
    clocks = [r[0] | r[2] << 32 for r in replies(sim, 3)]
    assert clocks == sorted(clocks) and clocks[2] - clocks[1] > MAX_EXTRA_CYCLES


@pytest.mark.parametrize("cost", [-1, MAX_EXTRA_CYCLES + 1, (1 << 63) - 1])
def test_host_call_cost_out_of_range(cost):
    with pytest.raises(ValueError, match="host-call cost must be 0..1099511627776"):
        MachineConfig(hostcall_cycles=cost)
    with pytest.raises((ValueError, OverflowError)):
        _sim.Machine(1, 1024, 0, [0, 0, 0, 0, 0], cost)


def test_extension_refuses_a_cost_that_could_wrap():
    core = _sim.Machine(1, 1024, 0, [0, 0, 0, 0, 0], 0)
    with pytest.raises(ValueError, match="a host call costs"):
        core.finish_hostcall(0, (1 << 63) - 1)


def test_cycle_limit_with_the_largest_cost_stops_with_a_positive_count():
    sim = Simulator(MachineConfig(hostcall_cycles=MAX_EXTRA_CYCLES))
    sim.load(build_text(program([(CLOCK, [])] * 5, 0)))
    res = sim.run(max_cycles=2 * MAX_EXTRA_CYCLES)
    assert res.event == "limit"
    assert 2 * MAX_EXTRA_CYCLES <= res.cycles < 4 * MAX_EXTRA_CYCLES
    assert all(c["cycles"] >= 0 for c in [sim.counters(0)])
    assert np.int64(res.cycles) > 0
