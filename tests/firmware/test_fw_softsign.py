"""The example user transfer function (examples/softsign.asm): accuracy
against its numpy pair, the calling convention, and its cycle cost (the
figures docs/network-language.md states)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from fwharness import SRAM, SRAM2, SRAM3, RAM0, RAM1, Call, c30, check_convention, run_calls

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
SOURCE = open(os.path.join(EXAMPLES, "softsign.asm")).read()

#: docs/network-language.md: cycles per element with the vectors on chip
FORWARD_CYCLES, DERIV_CYCLES = 29, 4


def _pair():
    import runpy
    ns = runpy.run_path(os.path.join(EXAMPLES, "softsign.py"))
    return ns["forward"], ns["derivative"]


def test_softsign_accuracy_and_convention():
    f, df = _pair()
    x = c30(np.concatenate([np.linspace(-50, 50, 4001), [0.0, 1e-30, -1e-30, 3e38, -3e38]]))
    n = len(x)
    calls = [Call("_softsign", [SRAM2, SRAM, n]), Call("_softsign_deriv", [SRAM3, SRAM2, n]),
             Call("_softsign", [SRAM, SRAM, 0]), Call("_softsign_deriv", [SRAM, SRAM, 0])]
    run = run_calls(calls, setup=lambda sim: sim.write_floats(SRAM, x), extra=[SOURCE])
    check_convention(run)
    y = run.sim.read_floats(SRAM2, n)
    d = run.sim.read_floats(SRAM3, n)
    # 4 ulps of a value below 1 (C30 multiplies truncate; 2.8e-7 measured)
    assert np.max(np.abs(y - f(x))) < 4.8e-7
    assert np.max(np.abs(d - df(y))) < 4.8e-7
    assert run[2].cycles < 12 and run[3].cycles < 12    # n = 0 returns at once


@pytest.mark.parametrize("n", [1, 2, 64])
def test_softsign_cycles_per_element(n):
    x = c30(np.linspace(-3, 3, 64))
    calls = [Call("_softsign", [RAM1, RAM0, n]), Call("_softsign_deriv", [RAM1, RAM0, n]),
             Call("_softsign", [RAM1, RAM0, n + 1]), Call("_softsign_deriv", [RAM1, RAM0, n + 1])]
    run = run_calls(calls, setup=lambda sim: sim.write_floats(RAM0, x), extra=[SOURCE])
    assert run[2].cycles - run[0].cycles == FORWARD_CYCLES
    assert run[3].cycles - run[1].cycles == DERIV_CYCLES
