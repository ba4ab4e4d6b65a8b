"""Every entry of the cost model's table (firmware/costs.py) against the
simulator: each kernel called alone on several sizes and placements, each
collective on several vector lengths and node counts (x in SRAM and in
DRAM).  The formulas are derived from the routines' code (docs/plan.md);
these tests hold them to the simulator.

Tolerance: a kernel's prediction is within 3 % + 12 cycles of the
measured call (the CALL, the routine and its RETS); a collective's within
3 % + 40 cycles of its machine time (the first node's entry to the last
node's return).  The small absolute terms are the routines' short paths
(odd counts, a repeat of one) that a one-line formula does not follow.
"""
from __future__ import annotations

import pytest

from fwharness import DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, run_calls

from rapsim.firmware.costs import COLLECTIVES, DEFAULT_ACCESS, KERNELS

REGION = {"chip": (RAM0, RAM1), "sram": (SRAM, SRAM2), "dram": (DRAM, DRAM + 0x40000)}


def _near(pred, meas, rel, absolute, what):
    assert abs(pred - meas) <= rel * meas + absolute, (
        f"{what}: predicted {pred:.0f}, simulated {meas} ({pred / meas - 1:+.1%})")


# (kernel, placement of each pointer argument, sizes)
MATRIX = [("_mxv", {"y": "sram", "W": "sram", "x": "chip", "b": "sram"}),
          ("_mxv", {"y": "chip", "W": "dram", "x": "chip", "b": "sram"}),
          ("_mxv", {"y": "sram", "W": "sram", "x": "sram", "b": "sram"}),
          ("_mxtv", {"y": "chip", "W": "sram", "e": "sram"}),
          ("_mxtv", {"y": "chip", "W": "dram", "e": "sram"}),
          ("_mxout", {"W": "sram", "d": "sram", "x": "chip"}),
          ("_mxout", {"W": "dram", "d": "sram", "x": "chip"}),
          ("_mxoutm", {"W": "sram", "d": "chip", "x": "chip", "M": "sram"}),
          ("_mxoutm", {"W": "sram", "d": "sram", "x": "chip", "M": "sram"}),
          ("_mxoutm", {"W": "dram", "d": "chip", "x": "chip", "M": "dram"}),
          # the band kernels (a local receptive field: row i reads x from i * stride)
          ("_mxvs", {"y": "sram", "W": "sram", "x": "chip", "b": "sram"}),
          ("_mxtvs", {"y": "chip", "W": "sram", "e": "sram"}),
          ("_mxouts", {"W": "sram", "d": "sram", "x": "chip"}),
          ("_mxoutms", {"W": "sram", "d": "chip", "x": "chip", "M": "sram"})]
SHAPES = [(4, 16), (8, 64), (32, 234), (16, 512)]

_ADDR = {"y": 0x1000, "W": 0x0, "x": 0x0, "b": 0x2000, "e": 0x2400, "d": 0x2800,
         "M": 0x20000, "z": 0x1800}
_SECOND = {"x", "y", "e"}          # on chip: the other block than W's


def _addr(name, region):
    """A distinct address for each argument inside its region."""
    base = REGION[region][1 if name in _SECOND else 0]
    if region == "chip":
        return base + {"y": 0, "x": 0, "e": 0, "d": 0x200, "b": 0x300, "z": 0x200}.get(name, 0)
    return base + _ADDR.get(name, 0)


def _args(kernel, place, sizes):
    k = KERNELS[kernel]
    ints, a = [], {}
    for name in k.args:
        if name in sizes:
            ints.append(sizes[name])
            a[name] = sizes[name]
        elif name == "b" and place.get("b") is None:
            ints.append(0)
            a[name] = "chip"
        else:
            ints.append(_addr(name, place[name]))
            a[name] = place[name]
    return ints, a


@pytest.mark.parametrize("kernel,place", MATRIX,
                         ids=[f"{k}-" + "-".join(f"{n}{r[0]}" for n, r in p.items())
                              for k, p in MATRIX])
def test_matrix_kernel_formula(kernel, place):
    calls, preds = [], []
    for rows, cols in SHAPES:
        ints, a = _args(kernel, place, {"rows": rows, "cols": cols, "stride": 2})
        calls.append(Call(kernel, ints, [0.01, 0.9]))
        preds.append(KERNELS[kernel].cycles(a, DEFAULT_ACCESS))
    run = run_calls(calls)
    for i, (rows, cols) in enumerate(SHAPES):
        _near(preds[i], run.cycles(i), 0.03, 12, f"{kernel} {rows}x{cols} {place}")


VECTOR = [("_vcopy", ("chip", "sram")), ("_vfill", ("chip", "sram")),
          ("_vscale", ("chip", "sram")), ("_vaxpy", ("chip", "sram")),
          ("_vadd", ("chip", "sram")), ("_vsub", ("chip", "sram")), ("_vmul", ("chip", "sram")),
          ("_vsigmoid", ("chip", "sram")), ("_vtanh", ("chip", "sram")),
          ("_vsigmoid_deriv", ("chip", "sram")), ("_vtanh_deriv", ("chip", "sram")),
          ("_vsoftmax", ("chip", "sram"))]
LENGTHS = [4, 16, 61, 256]


@pytest.mark.parametrize("kernel,regions", VECTOR, ids=[k for k, _ in VECTOR])
def test_vector_kernel_formula(kernel, regions):
    k = KERNELS[kernel]
    calls, preds = [], []
    for region in regions:
        for n in LENGTHS:
            ints, a = [], {}
            for i, name in enumerate(k.args):
                if name == "n":
                    ints.append(n)
                    a[name] = n
                else:
                    ints.append(REGION[region][i % 2] + 0x400 * (i // 2))
                    a[name] = region
            calls.append(Call(kernel, ints, [0.5]))
            preds.append((region, n, k.cycles(a, DEFAULT_ACCESS)))
    run = run_calls(calls)
    for i, (region, n, pred) in enumerate(preds):
        _near(pred, run.cycles(i), 0.03, 12, f"{kernel} n={n} in {region}")


def _even(V, N):
    return [k * V // N for k in range(N + 1)]


@pytest.mark.parametrize("fn", ["_ring_allgather", "_ring_reduce_scatter", "_ring_allreduce"])
@pytest.mark.parametrize("N", [4, 16, 40])
def test_collective_formula(fn, N):
    points = [(V, x, region) for V in (N, 256, 2048)
              for x, region in ((SRAM, "sram"), (DRAM, "dram"), (RAM0, "chip"))
              if region != "chip" or V <= 1024]
    off_at = {V: SRAM3 + 0x100 * i for i, V in enumerate(sorted({p[0] for p in points}))}
    calls = [Call("_ring_barrier")]
    for V, x, _ in points:
        calls += [Call(fn, [x, off_at[V]]), Call("_ring_barrier")]

    def setup(sim):
        for n in range(N):
            for V, addr in off_at.items():
                sim.write(addr, _even(V, N), n)
    run = run_calls(calls, nodes=N, setup=setup)
    for i, (V, _, region) in enumerate(points):
        off = _even(V, N)
        pred = COLLECTIVES[fn].cycles(V, max(b - a for a, b in zip(off, off[1:])), N,
                                      DEFAULT_ACCESS[region], region == "chip")
        _near(pred, run.span(1 + 2 * i), 0.03, 40, f"{fn} N={N} V={V} x in {region}")


def _split(V, N):
    """The compiler's even split (compiler/lower.py Split.even)."""
    q, r = divmod(V, N)
    return [k * q + min(k, r) for k in range(N + 1)]


@pytest.mark.parametrize("fn", ["_ring_allgather_rot", "_ring_rs_rot"])
@pytest.mark.parametrize("N", [4, 16, 40, 64])
def test_rotation_formula(fn, N):
    """The rotations on the compiler's even tables (their plans from
    rapsim.firmware.rotation), x in SRAM and DRAM, even and uneven splits."""
    from rapsim.firmware.rotation import allgather_plan, rs_plan
    make = allgather_plan if fn == "_ring_allgather_rot" else rs_plan
    for V in sorted({N, 3 * N // 2, 128, 512}):
        off = _split(V, N)
        plan = make(off)
        points = [(SRAM, "sram"), (DRAM, "dram")]
        calls = [Call("_ring_barrier")]
        for x, _ in points:
            calls += [Call(fn, [x, SRAM3, SRAM3 + 0x100]), Call("_ring_barrier")]

        def setup(sim):
            for n in range(N):
                sim.write(SRAM3, off, n)
                sim.write(SRAM3 + 0x100, plan, n)
        run = run_calls(calls, nodes=N, setup=setup)
        s = max(b - a for a, b in zip(off, off[1:]))
        for i, (_, region) in enumerate(points):
            pred = COLLECTIVES[fn].cycles(V, s, N, DEFAULT_ACCESS[region], False)
            _near(pred, run.span(1 + 2 * i), 0.03, 40, f"{fn} N={N} V={V} x in {region}")


@pytest.mark.parametrize("N", [4, 16, 40, 64])
def test_barrier_formula(N):
    run = run_calls([Call("_ring_barrier"), Call("_ring_barrier")], nodes=N)
    _near(COLLECTIVES["_ring_barrier"].cycles(0, 0, N, 1, False), run.span(1), 0.03, 40,
          f"barrier N={N}")


@pytest.mark.parametrize("N,units", [(4, 61), (16, 61), (16, 256), (64, 61)])
def test_softmax_ring_formula(N, units):
    off = _even(units, N)
    sizes = [off[k + 1] - off[k] for k in range(N)]
    ptrs = [RAM0 + off[k] for k in range(N)]
    run = run_calls([Call("_ring_barrier"), Call("_vsoftmax_ring", [ptrs, ptrs, sizes])],
                    nodes=N)
    pred = COLLECTIVES["_vsoftmax_ring"].cycles(units, max(sizes), N, 1, False)
    _near(pred, run.span(1), 0.05, 60, f"_vsoftmax_ring N={N} units={units}")


@pytest.mark.parametrize("N,c,n", [(4, 2, 16), (16, 4, 64), (16, 4, 5), (64, 8, 32)])
def test_subring_reduce_formula(N, c, n):
    """Grid rows of c nodes, every row at once (the checkerboard's row
    reduction): the longest member's call (the row's last node, which
    waits for the sum) against the entry, which every member is charged."""
    rows = [k // c for k in range(N)]
    first, last = [r * c for r in rows], [r * c + c - 1 for r in rows]
    run = run_calls([Call("_ring_barrier"), Call("_subring_reduce", [RAM0, n, first, last])],
                    nodes=N)
    pred = KERNELS["_subring_reduce"].cycles({"x": "chip", "n": n, "first": 0, "last": c - 1},
                                             DEFAULT_ACCESS)
    _near(pred, max(run.cycles(1, k) for k in range(N)), 0.03, 12,
          f"_subring_reduce N={N} c={c} n={n}")


@pytest.mark.parametrize("N,V,rows", [(4, 256, 2), (16, 512, 2), (40, 520, 1), (40, 520, 2),
                                      (64, 128, 2)])
def test_rs_mxout_formula(N, V, rows):
    """overlap on: the reduce-scatter during the update, e in SRAM, W in
    SRAM, d and x on chip: the entry plus the slowest node's _mxout."""
    off = _even(V, N)
    OFF = SRAM3

    def setup(sim):
        for n in range(N):
            sim.write(OFF, off, n)
    run = run_calls([Call("_ring_barrier"),
                     Call("_ring_rs_mxout", [SRAM, OFF, SRAM2, RAM1, RAM0, rows], [0.01])],
                    nodes=N, setup=setup)
    s = max(b - a for a, b in zip(off, off[1:]))
    pred = (COLLECTIVES["_ring_rs_mxout"].cycles(V, s, N, 1, False)
            + KERNELS["_mxout"].cycles({"W": "sram", "d": "chip", "x": "chip", "rows": rows,
                                        "cols": V}, DEFAULT_ACCESS))
    _near(pred, run.span(1), 0.05, 60, f"_ring_rs_mxout N={N} V={V} rows={rows}")
