"""Vector kernels (firmware/vector.asm) against numpy, and their cycles.

Tolerances (docs/firmware.md, "Precision"): results are computed in the
40-bit registers and stored as singles by STF, which truncates: one unit
in the last place (ulp = 2^-23 relative) for every stored value, plus
2^-31 relative for each extended-precision operation before it (counted
here as one more ulp where it matters).  Inputs are the C30 singles the
test wrote (numpy works on exactly those values, in float64).
"""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import (DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, assert_close, c30,
                       check_convention, run_calls)
from rapsim.asm.floatfmt import to_single

X, Y, Z = RAM0, SRAM, RAM1           # x on chip block 0, y in SRAM, results on block 1
OUT = SRAM2                          # one result area per call, 0x400 words apart
A, B = 1.75, -0.3125


def _out(k):
    return OUT + 0x400 * k


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 64, 257])
def test_vector_kernels(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
    y = rng.standard_normal(n)
    words = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    calls = [
        Call("_vcopy", [_out(0), SRAM3, n]),
        Call("_vfill", [_out(1), n], [A]),
        Call("_vfilli", [_out(2), n, 0x80000000]),
        Call("_vadd", [_out(3), X, Y, n]),
        Call("_vsub", [_out(4), X, Y, n]),
        Call("_vmul", [_out(5), X, Y, n]),
        Call("_vscale", [_out(6), X, n], [A]),
        Call("_vaxpy", [_out(7), X, n], [B]),      # _out(7) starts as a copy of y
        Call("_vdot", [X, Y, n]),
        Call("_vsum", [X, n]),
        Call("_vadd", [Y + 0x1000, Y + 0x1000, X, n]),   # in place: y2 = y2 + x
    ]

    def setup(sim):
        sim.write_floats(X, x)
        sim.write_floats(Y, y)
        sim.write_floats(Y + 0x1000, y)
        sim.write_floats(_out(7), y)
        sim.write(SRAM3, words)
        for k in range(7):                        # canaries just past every result
            sim.write(_out(k) + n, [0x5A5A5A5A])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    xc, yc = c30(x), c30(y)
    assert [int(w) for w in sim.read(_out(0), n)] == [int(w) for w in words]
    assert np.all(sim.read_floats(_out(1), n) == c30([A])[0])
    assert np.all(sim.read(_out(2), n) == 0x80000000)
    assert_close(sim.read_floats(_out(3), n), xc + yc, np.abs(xc) + np.abs(yc), 2, "vadd")
    assert_close(sim.read_floats(_out(4), n), xc - yc, np.abs(xc) + np.abs(yc), 2, "vsub")
    assert_close(sim.read_floats(_out(5), n), xc * yc, xc * yc, 2, "vmul")
    assert_close(sim.read_floats(_out(6), n), A * xc, A * xc, 2, "vscale")
    assert_close(sim.read_floats(_out(7), n), yc + B * xc, np.abs(yc) + np.abs(B * xc), 3, "vaxpy")
    dot = float(np.dot(xc, yc))
    assert_close(run[8].r0f, dot, max(n, 1) * np.sum(np.abs(xc * yc)) / 100 + abs(dot), 2, "vdot")
    assert_close(run[9].r0f, xc.sum(), np.sum(np.abs(xc)) + 1e-30, n + 1, "vsum")
    assert_close(sim.read_floats(Y + 0x1000, n), yc + xc, np.abs(xc) + np.abs(yc), 2, "in place")
    if n == 0:
        assert run[8].r0f == 0.0 and run[9].r0f == 0.0
    for k in range(7):
        assert int(sim.read(_out(k) + n, 1)[0]) == 0x5A5A5A5A, f"call {k} wrote past its vector"


def test_vcopy_overlapping_forward():
    """dst below src (a forward memmove) works: the documented overlap."""
    run = run_calls([Call("_vcopy", [SRAM, SRAM + 3, 10])],
                    setup=lambda sim: sim.write(SRAM, np.arange(20)))
    assert [int(w) for w in run.sim.read(SRAM, 13)] == list(range(3, 13)) + [10, 11, 12]


def _cycles(fn, ints, n_values, floats=(), setup=None):
    calls = [Call(fn, [*(ints[:-1]), n], list(floats)) for n in n_values]
    run = run_calls(calls, setup=setup)
    return [run[k].cycles for k in range(len(calls))]


def test_dot_one_cycle_per_mac():
    """vdot: 1 cycle per multiply-accumulate with one vector on chip and the
    other in SRAM (or both on chip), plus a fixed overhead of at most 22
    cycles per call, CALL and RETS included (docs/firmware.md)."""
    ns = [2, 50, 300, 1000]
    for xa, ya in ((RAM0, SRAM), (SRAM, RAM1), (RAM0, RAM0 + 0x200), (RAM0, RAM1)):
        c = _cycles("_vdot", [xa, ya, 0], ns)
        over = {ci - n for ci, n in zip(c, ns)}
        assert len(over) == 1 and over.pop() <= 22, (hex(xa), hex(ya), c)
    # both in SRAM: the primary bus serves one access per cycle: 2 cycles per MAC
    c = _cycles("_vdot", [SRAM, SRAM2, 0], ns)
    assert [c[i + 1] - c[i] for i in range(3)] == [2 * (ns[i + 1] - ns[i]) for i in range(3)]
    # one vector in DRAM (2 wait states): 3 cycles per MAC
    c = _cycles("_vdot", [DRAM, RAM0, 0], ns)
    assert [c[i + 1] - c[i] for i in range(3)] == [3 * (ns[i + 1] - ns[i]) for i in range(3)]


def test_elementwise_cycles():
    """Cycles per element, from two sizes: vscale and vcopy 1 (one access on
    the primary bus per element), vadd 2 with x, y on chip, 3 with all
    three vectors in SRAM (three primary-bus accesses), vaxpy 2."""
    def per_element(fn, ints, floats=()):
        c = _cycles(fn, ints, [100, 400], floats)
        return (c[1] - c[0]) / 300

    assert per_element("_vscale", [RAM1, SRAM, 0], [2.0]) == 1
    assert per_element("_vcopy", [RAM1, SRAM, 0]) == 1
    assert per_element("_vadd", [SRAM, RAM0, RAM1, 0]) == 2
    assert per_element("_vadd", [SRAM, SRAM2, SRAM3, 0]) == 3
    assert per_element("_vaxpy", [RAM1, SRAM, 0], [2.0]) == 2
    assert per_element("_vfill", [SRAM, 0], [2.0]) == 1
