"""_ring_allgather_mxv (firmware/overlap.asm): the all-gather of x streamed
into y = W x + b -- the same bits as _ring_allgather followed by _mxv, on 1
to 64 nodes, even, uneven and empty slices, 0 to 3 rows per node (the fast
path takes 1 or 2), with and without a bias; the gathered x and y against
numpy."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.asm.floatfmt import from_single

from fwharness import RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, c30, check_convention, run_calls

OFF, B = SRAM3, SRAM3 + 0x100
W = SRAM2


def _run(N, sizes, rows, fused, seed=0, x_at=RAM0, y_at=RAM1, bias=True):
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    V = int(off[-1])
    rng = np.random.default_rng(seed)
    R = max(max(rows), 1)
    whole = c30(rng.standard_normal(V) * 10.0 ** rng.uniform(-2, 2, V))
    junk = c30(rng.standard_normal((N, V + 1)))
    w = c30(rng.standard_normal((N, R * V + 1)))
    b = c30(rng.standard_normal((N, R + 1)))
    y0 = c30(rng.standard_normal((N, R + 1)))
    b_at = B if bias else 0
    if fused:
        calls = [Call("_ring_barrier"),
                 Call("_ring_allgather_mxv", [x_at, OFF, y_at, W, list(rows), b_at])]
    else:
        calls = [Call("_ring_barrier"), Call("_ring_allgather", [x_at, OFF]),
                 Call("_mxv", [y_at, W, x_at, list(rows), V, b_at])]

    def setup(sim):
        for n in range(N):
            x = junk[n].copy()
            x[off[n]:off[n + 1]] = whole[off[n]:off[n + 1]]
            sim.write(OFF, off, node=n)
            sim.write_floats(x_at, x, node=n)
            sim.write_floats(W, w[n], node=n)
            sim.write_floats(B, b[n], node=n)
            sim.write_floats(y_at, y0[n], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    check_convention(run)
    got = [(run.sim.read(x_at, V + 1, n), run.sim.read(y_at, R + 1, n),
            run.sim.read(W, R * V + 1, n)) for n in range(N)]
    span = run.span(1) if fused else run.span(1) + run.span(2)
    return got, span, (whole, w, b, off)


CASES = [(1, [10], [2]), (2, [3, 4], [1, 1]), (2, [8, 8], [2, 0]), (2, [0, 5], [1, 1]),
         (3, [5, 6, 7], [1, 2, 3]), (3, [1, 0, 9], [2, 2, 2]), (3, [4, 4, 4], [2, 1, 2]),
         (4, [5, 5, 5, 5], [2, 2, 1, 1]), (4, [1, 0, 7, 2], [1, 1, 1, 1]),
         (4, [40, 4, 9, 30], [3, 0, 1, 2]), (4, [2, 3, 3, 3], [1, 2, 1, 2]),
         (4, [3, 3, 3, 3], [2, 2, 2, 2]), (4, [6, 0, 0, 0], [1, 1, 1, 1]),
         (5, [3, 3, 4, 3, 3], [1, 1, 1, 1, 1]),
         (16, [8] * 16, [2] * 16), (16, [3, 0, 7, 1, 12, 4, 4, 0, 9, 5, 6, 2, 8, 1, 0, 11], [1] * 16),
         (16, [4] * 16, [1, 2] * 8), (40, [13] * 32 + [12] * 8, [2] * 21 + [1] * 19),
         (64, [2] * 64, [2] * 64), (64, [8] * 64, [1] * 61 + [0] * 3)]


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("N,sizes,rows", CASES)
def test_same_bits_as_the_two_calls(N, sizes, rows, bias):
    seed = N * 100 + sum(sizes) + sum(rows)
    want, _, _ = _run(N, sizes, rows, False, seed, bias=bias)
    got, _, _ = _run(N, sizes, rows, True, seed, bias=bias)
    for n in range(N):
        for k, what in enumerate(("x", "y", "W")):
            assert np.array_equal(got[n][k], want[n][k]), f"node {n}: {what} differs"


@pytest.mark.parametrize("N,sizes,rows", [(4, [6, 5, 7, 6], [2, 1, 2, 1]),
                                          (16, [12] * 16, [2] * 16),
                                          (40, [13] * 32 + [12] * 8, [2] * 21 + [1] * 19)])
def test_against_numpy(N, sizes, rows):
    """Every node ends with the whole x (bit for bit) and y = W x + b to
    single precision, and nothing past y's rows is written."""
    got, _, (whole, w, b, off) = _run(N, sizes, rows, True, 7, x_at=SRAM)
    V = int(off[-1])
    for n in range(N):
        x, y = from_single(got[n][0]), from_single(got[n][1])
        assert np.array_equal(x[:V], whole), f"node {n}: x not gathered"
        r = rows[n]
        ref = w[n][:r * V].reshape(r, V).astype(np.float64) @ whole + b[n][:r]
        assert np.allclose(y[:r], ref, rtol=1e-5, atol=1e-5 * np.abs(whole).max()), f"node {n}"
