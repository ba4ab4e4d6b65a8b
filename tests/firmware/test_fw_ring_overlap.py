"""_ring_rs_mxout and _ring_rs_mxoutm (firmware/ring.asm): the
reduce-scatter of e during the weight update W += eta d x^T (with momentum:
M = alpha M + eta d x^T, W += M) -- the same bits as _mxout (_mxoutm)
followed by _ring_reduce_scatter, on 1 to 64 nodes, with even, uneven and
empty slices, 0 to 3 rows per node; and fewer cycles than the two calls."""
from __future__ import annotations

import numpy as np
import pytest

from fwharness import RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, c30, check_convention, run_calls

OFF, E, W = SRAM3, SRAM, SRAM2
M = SRAM2 + 0x8000


def _run(N, sizes, rows, fused, seed=0, x_at=RAM0, d_at=RAM1, momentum=False):
    off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    V = int(off[-1])
    rng = np.random.default_rng(seed)
    e = c30(rng.standard_normal((N, V)) * 10.0 ** rng.uniform(-2, 2, (N, V)))
    R = max(rows)
    w = c30(rng.standard_normal((N, R * V + 1)))
    x = c30(rng.standard_normal((N, V + 1)))
    d = c30(rng.standard_normal((N, R + 1)))
    m = c30(rng.standard_normal((N, R * V + 1)))
    eta, alpha = 0.125, 0.875
    if momentum and fused:
        calls = [Call("_ring_barrier"),
                 Call("_ring_rs_mxoutm", [E, OFF, W, d_at, x_at, list(rows), M], [eta, alpha])]
    elif momentum:
        calls = [Call("_ring_barrier"),
                 Call("_mxoutm", [W, d_at, x_at, list(rows), V, M], [eta, alpha]),
                 Call("_ring_reduce_scatter", [E, OFF])]
    elif fused:
        calls = [Call("_ring_barrier"),
                 Call("_ring_rs_mxout", [E, OFF, W, d_at, x_at, list(rows)], [eta])]
    else:
        calls = [Call("_ring_barrier"), Call("_mxout", [W, d_at, x_at, list(rows), V], [eta]),
                 Call("_ring_reduce_scatter", [E, OFF])]

    def setup(sim):
        for n in range(N):
            sim.write(OFF, off, node=n)
            sim.write_floats(E, e[n], node=n)
            sim.write_floats(W, w[n], node=n)
            sim.write_floats(x_at, x[n], node=n)
            sim.write_floats(d_at, d[n], node=n)
            sim.write_floats(M, m[n], node=n)

    run = run_calls(calls, nodes=N, setup=setup)
    check_convention(run)
    got = [(run.sim.read(E, V, n), run.sim.read(W, R * V + 1, n), run.sim.read(x_at, V + 1, n),
            run.sim.read(d_at, R + 1, n), run.sim.read(M, R * V + 1, n)) for n in range(N)]
    span = run.span(1) if fused else run.span(1) + run.span(2)
    return got, span


CASES = [(1, [10], [2]), (1, [5], [0]), (2, [3, 4], [1, 1]), (2, [8, 8], [2, 0]), (2, [0, 5], [1, 1]),
         (3, [5, 6, 7], [1, 2, 3]), (3, [1, 0, 9], [2, 2, 2]), (4, [5, 5, 5, 5], [2, 2, 1, 1]),
         (4, [1, 0, 7, 2], [1, 1, 1, 1]), (4, [40, 4, 9, 30], [3, 0, 1, 2]),
         (4, [2, 2, 2, 2], [1, 2, 1, 2]), (4, [6, 0, 0, 0], [1, 1, 1, 1]),
         (16, [8] * 16, [2] * 16), (16, [3, 0, 7, 1, 12, 4, 4, 0, 9, 5, 6, 2, 8, 1, 0, 11], [1] * 16),
         (16, [2] * 16, [1, 2] * 8), (64, [2] * 64, [2] * 64), (64, [8] * 64, [1] * 61 + [0] * 3)]


@pytest.mark.parametrize("momentum", [False, True], ids=["plain", "momentum"])
@pytest.mark.parametrize("N,sizes,rows", CASES)
def test_same_bits_as_the_two_calls(N, sizes, rows, momentum):
    seed = N * 100 + sum(sizes) + sum(rows)
    want, _ = _run(N, sizes, rows, False, seed, momentum=momentum)
    got, _ = _run(N, sizes, rows, True, seed, momentum=momentum)
    for n in range(N):
        for k, what in enumerate(("e", "W", "x", "d", "M")):
            assert np.array_equal(got[n][k], want[n][k]), f"node {n}: {what} differs"


def test_fewer_cycles_than_the_two_calls():
    """Row 0's weights beside the reduce-scatter's words: 3 cycles for a
    word and a weight where the two calls take 4 -- about 0.7 V cycles fewer
    on 16 and 40 nodes (measured 354 of V = 512, 376 and 402 of 520; x and d
    on chip, W and e in SRAM).  On small slices the chain's cost per node
    dominates and nothing is gained (64 nodes of 2 words: 18 cycles more,
    docs/firmware.md 10)."""
    for N, V, R in ((16, 512, 2), (40, 520, 2), (40, 520, 1)):
        sizes = [V // N] * N
        _, two = _run(N, sizes, [R] * N, False, 1)
        _, fused = _run(N, sizes, [R] * N, True, 1)
        assert fused <= two - 0.65 * V, (N, V, R, two, fused)


def test_fewer_cycles_than_the_two_calls_with_momentum():
    """With momentum: five instructions for a word and a weight of row 0
    where the two calls take six (_mxoutm's four primary-bus accesses per
    weight leave only the W read's parallel slot for the ring)."""
    for N, V, R in ((16, 512, 2), (40, 520, 2), (40, 520, 1)):
        sizes = [V // N] * N
        _, two = _run(N, sizes, [R] * N, False, 1, momentum=True)
        _, fused = _run(N, sizes, [R] * N, True, 1, momentum=True)
        print(N, V, R, two, fused, two - fused)
        assert fused < two, (N, V, R, two, fused)
