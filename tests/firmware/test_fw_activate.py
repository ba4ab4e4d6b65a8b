"""Activation kernels (firmware/activate.asm): sigmoid and tanh from line
tables, exp from a polynomial, softmax; their accuracy over all inputs."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, assert_close, c30, check_convention, run_calls
from rapsim.firmware import tables

SIGMOID_BOUND = 2.5e-5      # docs/firmware.md: 2.4e-5 measured, <= 1e-4 required
TANH_BOUND = 5.0e-5
EXP_REL = 2.4e-7           # 2 ulps; 1.6e-7 measured

EXTREMES = [0.0, 1e-30, -1e-30, 1e-3, -1e-3, 11.99, 12.0, 12.01, -11.99, -12.0, -12.01,
            5.99, 6.0, 6.01, -6.0, -6.01, 30.0, -30.0, 1e10, -1e10, 3.0e38, -3.0e38]


def _grid():
    g = np.concatenate([np.linspace(-16, 16, 64001), np.array(EXTREMES)])
    return c30(g)


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


def test_sigmoid_and_tanh_over_all_inputs():
    x = _grid()
    n = len(x)
    calls = [Call("_vsigmoid", [SRAM2, SRAM, n]), Call("_vtanh", [SRAM3, SRAM, n]),
             Call("_vsigmoid", [SRAM, SRAM, 3])]               # in place, small n
    run = run_calls(calls, setup=lambda sim: sim.write_floats(SRAM, x))
    check_convention(run)
    s = run.sim.read_floats(SRAM2, n)
    t = run.sim.read_floats(SRAM3, n)
    es = np.max(np.abs(s - _sigmoid(x)))
    et = np.max(np.abs(t - np.tanh(x)))
    assert es <= SIGMOID_BOUND, es
    assert et <= TANH_BOUND, et
    assert np.all((s >= 0) & (s <= 1)) and np.all((t >= -1) & (t <= 1))
    assert np.all(np.diff(s[:64001]) >= -2e-7), "sigmoid not monotone (beyond rounding)"
    assert np.allclose(run.sim.read_floats(SRAM, 3), s[:3])


def test_table_error_analysis():
    """The bound the docs state follows from the tables themselves."""
    for f, (A, B), h, bound in ((_sigmoid, tables.sigmoid_table(), tables.SIGMOID_STEP, 2.36e-5),
                                (np.tanh, tables.tanh_table(), tables.TANH_STEP, 4.71e-5)):
        x = np.linspace(-2 * tables.HALF * h, 2 * tables.HALF * h, 200001)
        j = np.clip(np.floor(x / h), -tables.HALF - 1, tables.HALF).astype(int) + tables.HALF + 1
        assert np.max(np.abs(c30(A)[j] + c30(B)[j] * x - f(x))) <= bound


@pytest.mark.parametrize("n", [0, 1, 2, 3, 100])
def test_small_counts(n):
    rng = np.random.default_rng(n)
    x = c30(rng.uniform(-8, 8, n))
    y = c30(rng.uniform(0, 1, n))
    u = c30(rng.uniform(-1, 1, n))
    calls = [Call("_vsigmoid", [RAM1, RAM0, n]), Call("_vtanh", [RAM1 + 0x100, RAM0, n]),
             Call("_vsigmoid_deriv", [SRAM2, SRAM, n]), Call("_vtanh_deriv", [SRAM2 + 0x100, SRAM + 0x100, n]),
             Call("_vexp", [SRAM2 + 0x200, RAM0, n]), Call("_vsoftmax", [SRAM2 + 0x300, RAM0, n])]

    def setup(sim):
        sim.write_floats(RAM0, x)
        sim.write_floats(SRAM, y)
        sim.write_floats(SRAM + 0x100, u)
        for a in (RAM1, RAM1 + 0x100, SRAM2, SRAM2 + 0x100, SRAM2 + 0x200, SRAM2 + 0x300):
            sim.write(a + n, [0x5A5A5A5A])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    sim = run.sim
    assert np.max(np.abs(sim.read_floats(RAM1, n) - _sigmoid(x)), initial=0) <= SIGMOID_BOUND
    assert np.max(np.abs(sim.read_floats(RAM1 + 0x100, n) - np.tanh(x)), initial=0) <= TANH_BOUND
    assert_close(sim.read_floats(SRAM2, n), y * (1 - y), y, 2, "sigmoid'")
    assert_close(sim.read_floats(SRAM2 + 0x100, n), 1 - u * u, 1, 2, "tanh'")
    assert_close(sim.read_floats(SRAM2 + 0x200, n), np.exp(x), np.exp(x), 4, "exp")
    if n:
        e = np.exp(x - x.max())
        assert_close(sim.read_floats(SRAM2 + 0x300, n), e / e.sum(), e / e.sum(), 8, "softmax")
    for a in (RAM1, RAM1 + 0x100, SRAM2, SRAM2 + 0x100, SRAM2 + 0x200, SRAM2 + 0x300):
        assert int(sim.read(a + n, 1)[0]) == 0x5A5A5A5A


def test_exp_range():
    rng = np.random.default_rng(3)
    x = c30(np.concatenate([rng.uniform(-87, 88, 3000), [0.0, 1.0, -1.0, 88.0, -87.0]]))
    big = c30([89.0, 200.0, 3e38])
    tiny = c30([-89.0, -200.0, -3e38])
    n = len(x)
    calls = [Call("_vexp", [SRAM2, SRAM, n]), Call("_vexp", [SRAM3, SRAM + n, 6])]

    def setup(sim):
        sim.write_floats(SRAM, np.concatenate([x, big, tiny]))

    run = run_calls(calls, setup=setup)
    got = run.sim.read_floats(SRAM2, n)
    rel = np.max(np.abs(got / np.exp(x) - 1))
    assert rel <= EXP_REL, rel
    ends = run.sim.read_floats(SRAM3, 6)
    assert np.all(ends[:3] > 3.3e38)                 # the largest single
    assert np.all((ends[3:] > 0) & (ends[3:] < 1e-38))


def test_softmax_large_inputs():
    """Subtracting the maximum first: inputs far beyond exp's range work."""
    x = c30([1000.0, 999.0, 998.5, -1000.0, 1000.0])
    run = run_calls([Call("_vsoftmax", [SRAM2, SRAM, 5]), Call("_vsoftmax", [SRAM, SRAM, 5])],
                    setup=lambda sim: sim.write_floats(SRAM, x))
    e = np.exp(x - x.max())
    ref = e / e.sum()
    assert_close(run.sim.read_floats(SRAM2, 5), ref, ref, 8, "softmax")
    assert_close(run.sim.read_floats(SRAM, 5), ref, ref, 8, "softmax in place")


def test_activation_cycles():
    """Cycles per element (two sizes), data in SRAM: sigmoid and tanh 11,
    on chip 10; the derivatives 2; exp 29; softmax about 35."""
    def per_element(fn, src, dst):
        run = run_calls([Call(fn, [dst, src, 64]), Call(fn, [dst, src, 320])])
        return (run[1].cycles - run[0].cycles) / 256

    assert per_element("_vsigmoid", SRAM, SRAM2) == 11
    assert per_element("_vtanh", RAM0, RAM1) == 10
    assert per_element("_vsigmoid_deriv", RAM0, RAM1) == 2
    assert per_element("_vtanh_deriv", RAM0, RAM1) == 2
    assert per_element("_vexp", RAM0, RAM1) == 29
    assert per_element("_vsoftmax", RAM0, RAM1) <= 35


@pytest.mark.parametrize("sizes", [[7], [3, 4], [2, 0, 3, 1], [0, 0, 5, 0], [1] * 10 + [0] * 6,
                                   [16, 16, 16], [1, 1, 1, 1]])
def test_softmax_over_the_ring(sizes):
    """_vsoftmax_ring: each node its own slice (some none), the softmax of
    the whole vector; the extremes of test_softmax_extremes work too."""
    N = len(sizes)
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    V = int(off[-1])
    rng = np.random.default_rng(V * 7 + N)
    x = c30(rng.standard_normal(V) * 4)
    if V >= 3:
        x[1], x[2] = 1000.0, -1000.0            # far out of exp's range
    calls = [Call("_vsoftmax_ring", [RAM1, [RAM0 + int(off[k]) for k in range(N)], sizes])]

    def setup(sim):
        for n in range(N):
            sim.write_floats(RAM0, x, node=n)
            sim.write(RAM1 + sizes[n], [0x5A5A5A5A], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    check_convention(run)
    e = np.exp(x - x.max())
    want = e / e.sum()
    got = np.concatenate([run.sim.read_floats(RAM1, sizes[k], k) for k in range(N)])
    assert_close(got, want, want, 8, "softmax over the ring")
    for n in range(N):
        assert int(run.sim.read(RAM1 + sizes[n], 1, n)[0]) == 0x5A5A5A5A
