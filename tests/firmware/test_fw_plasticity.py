"""firmware/plasticity.asm: _vshrink, the L1 step of the streaming
schedule's l1() plasticity (w - c sign(w), stopping at 0)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fwharness import SRAM, Call, c30, check_convention, run_calls


@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 40), c=st.floats(0, 2), seed=st.integers(0, 1000))
def test_vshrink(n, c, seed):
    w = np.random.default_rng(seed).uniform(-3, 3, n)
    cc = float(c30(np.array([c]))[0])

    def setup(sim):
        sim.write_floats(SRAM, w)
        sim.write(SRAM + n, [0x5A5A5A5A])
    run = run_calls([Call("_vshrink", [SRAM, 0, n], [cc])], setup=setup)
    check_convention(run)
    wc = c30(w)
    want = np.where(wc > cc, wc - cc, np.where(wc < -cc, wc + cc, 0.0))
    got = run.sim.read_floats(SRAM, n)
    assert np.abs(got - want).max(initial=0) <= 1e-6 * (1 + np.abs(wc).max(initial=0))
    assert int(run.sim.read(SRAM + n, 1)[0]) == 0x5A5A5A5A


@pytest.mark.parametrize("n", [1, 8])
def test_vshrink_cycles_per_element(n):
    """Seven instructions an element in the RPTB block."""
    runs = [run_calls([Call("_vshrink", [SRAM, 0, k], [0.5])],
                      setup=lambda sim, k=k: sim.write_floats(SRAM, np.ones(k)))
            for k in (n, n + 10)]
    per = (runs[1][0].cycles - runs[0][0].cycles) / 10
    assert 7 <= per <= 12
