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

from rapsim.firmware.costs import (CHAINS, COLLECTIVES, DEFAULT_ACCESS, KERNELS, SUBRING_CHAIN,
                                   rs_general_path, token_chain)

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
          ("_mxtvw", {"y": "chip", "W": "sram", "e": "sram"}),
          ("_mxtvw", {"y": "chip", "W": "dram", "e": "sram"}),
          ("_mxtv2", {"y": "chip", "W": "sram", "e": "chip"}),
          ("_mxtv2", {"y": "chip", "W": "sram", "e": "sram"}),
          ("_mxtv2", {"y": "chip", "W": "dram", "e": "chip"}),
          ("_mxtv2w", {"y": "chip", "W": "sram", "e": "chip"}),
          ("_mxtv2w", {"y": "chip", "W": "dram", "e": "sram"}),
          ("_mxtv4", {"y": "chip", "W": "sram", "e": "chip"}),
          ("_mxtv4", {"y": "chip", "W": "chip", "e": "chip"}),
          ("_mxtv4w", {"y": "chip", "W": "sram", "e": "chip"}),
          ("_mxtv4w", {"y": "chip", "W": "chip", "e": "chip"}),
          ("_mxoutc", {"W": "chip", "d": "sram", "x": "chip"}),
          ("_mxoutc", {"W": "sram", "d": "sram", "x": "chip"}),
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
    # W on chip: the shapes that fit an on-chip block (and 13 x 61, the
    # speech MLP's columns on 40 nodes)
    shapes = ([s for s in SHAPES if s[0] * s[1] <= 1024] + [(13, 61)]
              if place.get("W") == "chip" else SHAPES)
    for rows, cols in shapes:
        ints, a = _args(kernel, place, {"rows": rows, "cols": cols, "stride": 2})
        calls.append(Call(kernel, ints, [0.01, 0.9]))
        preds.append(KERNELS[kernel].cycles(a, DEFAULT_ACCESS))
    run = run_calls(calls)
    for i, (rows, cols) in enumerate(shapes):
        _near(preds[i], run.cycles(i), 0.03, 12, f"{kernel} {rows}x{cols} {place}")


VECTOR = [("_vcopy", ("chip", "sram")), ("_vfill", ("chip", "sram")),
          ("_vscale", ("chip", "sram")), ("_vaxpy", ("chip", "sram")),
          ("_vadd", ("chip", "sram")), ("_vsub", ("chip", "sram")), ("_vmul", ("chip", "sram")),
          ("_vsigmoid", ("chip", "sram")), ("_vtanh", ("chip", "sram")),
          ("_vsigmoid_deriv", ("chip", "sram")), ("_vtanh_deriv", ("chip", "sram")),
          ("_vsoftmax", ("chip", "sram")), ("_vshrink", ("chip", "sram", "dram"))]
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
    for V in sorted({N, 3 * N // 2, 2 * N, 128, 512}):
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


def _table_at(addr, off):
    """A run's setup: the slice table ``off`` at ``addr`` on every node."""
    def setup(sim):
        for n in range(sim.nodes):
            sim.write(addr, off, n)
    return setup


@pytest.mark.parametrize("N,V,rows", [(4, 256, 2), (16, 512, 2), (40, 520, 1), (40, 520, 2),
                                      (64, 128, 2)])
def test_rs_mxout_formula(N, V, rows):
    """overlap on: the reduce-scatter during the update, e in SRAM, W in
    SRAM, d and x on chip: the entry plus the slowest node's _mxout."""
    off = _even(V, N)
    run = run_calls([Call("_ring_barrier"),
                     Call("_ring_rs_mxout", [SRAM, SRAM3, SRAM2, RAM1, RAM0, rows], [0.01])],
                    nodes=N, setup=_table_at(SRAM3, off))
    s = max(b - a for a, b in zip(off, off[1:]))
    pred = (COLLECTIVES["_ring_rs_mxout"].cycles(V, s, N, 1, False)
            + KERNELS["_mxout"].cycles({"W": "sram", "d": "chip", "x": "chip", "rows": rows,
                                        "cols": V}, DEFAULT_ACCESS))
    _near(pred, run.span(1), 0.05, 60, f"_ring_rs_mxout N={N} V={V} rows={rows}")


CNT, IDX, LIST = SRAM3 + 0x1000, SRAM3 + 0x2000, SRAM3 + 0x3000


@pytest.mark.parametrize("counts", [[5] * 8, [16] * 8, [0, 3, 0, 7, 1, 0, 2, 9], [0] * 4,
                                    [64] * 32])
def test_sparse_kernel_formula(counts):
    """The sparse kernels of a connect that is not a band: their cost from
    the node's pairs and its rows without one (W and M in SRAM and in
    DRAM, x, d and e on chip, cnt and idx in SRAM)."""
    rows, pairs, empty = len(counts), sum(counts), counts.count(0)
    cases = []
    for wr, wa in (("sram", SRAM), ("dram", DRAM)):
        cases += [("_spmv", [SRAM2, wa, RAM0, rows, CNT, IDX, 0], [], {"W": wr}),
                  ("_spmtv", [RAM1, wa, RAM0, rows, CNT, IDX], [], {"W": wr}),
                  ("_spout", [wa, RAM0, RAM1, rows, CNT, IDX], [0.1], {"W": wr}),
                  ("_spoutm", [wa, RAM0, RAM1, rows, CNT, IDX, wa + 0x4000], [0.1, 0.9],
                   {"W": wr, "M": wr})]

    def setup(sim):
        sim.write(CNT, counts)
        sim.write(IDX, [i % 30 for i in range(pairs)])
    run = run_calls([Call(fn, ints, fl) for fn, ints, fl, _ in cases], setup=setup)
    for i, (fn, _, _, place) in enumerate(cases):
        a = {"W": "sram", "M": "sram", "rows": rows, "pairs": pairs, "empty": empty, **place}
        _near(KERNELS[fn].cycles(a, DEFAULT_ACCESS), run.cycles(i), 0.03, 12,
              f"{fn} rows {counts} W in {place['W']}")


@pytest.mark.parametrize("rows", [1, 8, 32])
@pytest.mark.parametrize("active", [0, 1, 10, 20])
def test_binary_kernel_formula(rows, active):
    """The binary kernels from the index list's active count (W in SRAM,
    y in SRAM and on chip, M in SRAM and DRAM), _bcoltv by columns, and the
    threshold layer's kernels by elements."""
    cases = [("_bcolsum", [SRAM2, SRAM, LIST, rows, 0], [], {"y": "sram", "W": "sram", "b": 0}),
             ("_bcolsum", [RAM1, SRAM, LIST, rows, SRAM2], [],
              {"y": "chip", "W": "sram", "b": "sram"}),
             ("_bcolupd", [SRAM, RAM0, LIST, rows], [0.1], {"W": "sram", "d": "chip"}),
             ("_bcolupdm", [SRAM, RAM0, LIST, rows, SRAM + 0x8000], [0.1, 0.9],
              {"W": "sram", "d": "chip", "M": "sram"}),
             ("_bcolupdm", [SRAM, RAM0, LIST, rows, DRAM], [0.1, 0.9],
              {"W": "sram", "d": "chip", "M": "dram"}),
             ("_bcoltv", [RAM1, SRAM, RAM0, rows, active], [], {"W": "sram", "d": "chip",
                                                                "cols": active}),
             ("_vthreshold", [RAM1, RAM0, active], [], {"x": "chip", "n": active}),
             ("_vthreshold", [SRAM2, SRAM, active], [], {"x": "sram", "n": active}),
             ("_vactive", [SRAM2, RAM0, active], [], {"y": "chip", "n": active}),
             ("_vactive", [SRAM2, SRAM, active], [], {"y": "sram", "n": active})]
    run = run_calls([Call(fn, ints, fl) for fn, ints, fl, _ in cases],
                    setup=lambda sim: sim.write(LIST, [active] + list(range(0, 2 * active, 2))))
    for i, (fn, _, _, place) in enumerate(cases):
        a = {"rows": rows, "active": active, **place}
        _near(KERNELS[fn].cycles(a, DEFAULT_ACCESS), run.cycles(i), 0.03, 12,
              f"{fn} rows={rows} active={active} {place}")


def test_user_routine_cost():
    """A user transfer function's alpha + beta n (timed alone at two
    lengths by rap plan) against the routine called at other lengths."""
    import os
    from rapsim.compiler.parser import parse_file
    from rapsim.compiler.plan_user import routine_costs
    net = parse_file(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                  "softsign.net"))
    costs = routine_costs(net)
    asm = net.transfers["softsign"].asm
    lengths = [0, 1, 7, 37, 200]
    calls = [Call(fn, [RAM1, RAM0, n]) for fn in costs for n in lengths]
    with open(asm) as f:
        run = run_calls(calls, extra=[f.read()])
    for i, (fn, n) in enumerate((fn, n) for fn in costs for n in lengths):
        alpha, beta = costs[fn]
        _near(alpha + beta * n, run.cycles(i), 0.03, 12, f"{fn} n={n}")


def _owners_table(V, N, K):
    """Slices on K of N nodes (the last of each group of N / K), empty
    elsewhere: a layer on node groups, a grid's columns."""
    step = N // K
    owners = [k for k in range(N) if (k + 1) % step == 0]
    sizes = [0] * N
    for i, k in enumerate(owners):
        sizes[k] = V * (i + 1) // K - V * i // K
    off = [0]
    for x in sizes:
        off.append(off[-1] + x)
    return off


def _first_owners(V, N, K):
    """Slices on nodes 0 .. K - 1 (a layer on the first node group)."""
    off = [V * min(k, K) // K for k in range(N + 1)]
    return off


@pytest.mark.parametrize("N,V,K,where", [(64, 128, 1, "last"), (64, 128, 8, "last"),
                                         (64, 128, 32, "last"), (64, 512, 4, "last"),
                                         (64, 512, 16, "last"), (4, 8, 1, "last"),
                                         (16, 128, 4, "last"), (4, 8, 1, "first"),
                                         (16, 128, 4, "first"), (64, 128, 1, "first"),
                                         (64, 128, 8, "first"), (8, 32, 2, "first")])
def test_allgather_empty_slices_formula(N, V, K, where):
    """An all-gather whose slices are on K of N nodes (the last of each
    group, or the first K): a node with an empty slice only forwards, the
    table's set-ups cost more, and more again with empty slices before the
    first word."""
    off = _owners_table(V, N, K) if where == "last" else _first_owners(V, N, K)

    def setup(sim):
        for n in range(N):
            sim.write(SRAM3, off, n)
    run = run_calls([Call("_ring_barrier"), Call("_ring_allgather", [SRAM, SRAM3])], nodes=N,
                    setup=setup)
    sizes = [b - a for a, b in zip(off, off[1:])]
    lead = next(k for k, x in enumerate(sizes) if x > 0)
    pred = COLLECTIVES["_ring_allgather"].cycles(V, max(sizes), N, 1, False, sizes.count(0),
                                                 lead)
    _near(pred, run.span(1), 0.03, 40, f"_ring_allgather N={N} V={V} on {K} nodes")


def _leaves(run, k, N, first=None):
    """Each node's return from call k, after the first node's entry (or
    node ``first[n]``'s)."""
    st = run._stamps
    t0 = min(st[n][k + 1][0] for n in range(N))
    return [st[n][k + 1][1] - (t0 if first is None else st[first[n]][k + 1][0]) - run.empty[n]
            for n in range(N)]


@pytest.mark.parametrize("fn", ["_ring_allgather", "_ring_reduce_scatter"])
@pytest.mark.parametrize("N,V", [(16, 32), (16, 128), (64, 128), (64, 512)])
def test_chain_leave_times(fn, N, V):
    """The chains the cost model follows (CHAINS): every node's return
    against the simulator's (the nodes entering one cycle apart, as a
    barrier leaves them: within join), within 5 % + 60 cycles each (the
    ring softmax's tolerance: a leave time sums the chain's reach and its
    tail), and the order they leave in: node N - 2 last."""
    off = _even(V, N)

    def setup(sim):
        for n in range(N):
            sim.write(SRAM3, off, n)
    run = run_calls([Call("_ring_barrier"), Call(fn, [SRAM, SRAM3])], nodes=N, setup=setup)
    join, leave = CHAINS[fn](off, N, 1, False)
    got = _leaves(run, 1, N)
    assert all(j >= k for j, k in zip(join, range(N)))      # entering a cycle apart: in time
    for k in range(N):
        _near(leave[k], got[k], 0.05, 60, f"{fn} N={N} V={V}: node {k} leaves")
    assert got.index(max(got)) == N - 2 == int(leave.argmax())


@pytest.mark.parametrize("N,V,region", [
    (16, 12, "chip"), (16, 12, "sram"), (16, 12, "dram"), (16, 4, "chip"), (16, 15, "sram"),
    (64, 40, "chip"), (64, 12, "sram"), (64, 63, "dram"), (40, 12, "chip"), (8, 5, "dram"),
    (4, 3, "chip"), (32, 20, "sram")])
def test_reduce_scatter_general_path_leave_times(N, V, region):
    """A reduce-scatter of fewer words than nodes (the compiler's even
    split: the last N - V slices empty) runs ring.asm's general path
    (rs_gen) on every node; the model (rs_general_leave, via CHAINS)
    follows every node's segments word by word: every node's return within
    5 % + 60 cycles (the chains' tolerance), the machine time within 6 %."""
    off = _split(V, N)
    assert rs_general_path(off, N)
    x = REGION[region][0]

    def setup(sim):
        for n in range(N):
            sim.write(SRAM3, off, n)
    run = run_calls([Call("_ring_barrier"), Call("_ring_reduce_scatter", [x, SRAM3])],
                    nodes=N, setup=setup)
    join, leave = CHAINS["_ring_reduce_scatter"](off, N, DEFAULT_ACCESS[region],
                                                 region == "chip")
    got = _leaves(run, 1, N)
    for k in range(N):
        _near(leave[k], got[k], 0.05, 60, f"rs general N={N} V={V} {region}: node {k}")
    _near(max(leave), run.span(1), 0.06, 0, f"rs general N={N} V={V} {region}")


@pytest.mark.parametrize("N", [16, 64])
def test_softmax_tokens_leave_times(N):
    """The ring softmax's two tokens (maxf, sumf: firmware.md 8) as the
    model follows them: node j leaves (second lap) in ring order, node 0
    first."""
    off = _even(N, N)
    sizes = [off[k + 1] - off[k] for k in range(N)]
    ptrs = [RAM0 + off[k] for k in range(N)]
    run = run_calls([Call("_ring_barrier"), Call("_vsoftmax_ring", [ptrs, ptrs, sizes])],
                    nodes=N)
    got = _leaves(run, 1, N)
    from rapsim.firmware.costs import SOFTMAX_PARTS, SOFTMAX_TOKENS
    import numpy as np
    t = np.arange(N, dtype=float)
    s = np.array(sizes, dtype=float)
    (a1, b1), (a2, b2), (a3, b3) = SOFTMAX_PARTS
    t = t + a1 * s + b1
    for (lap1, lap2, extra), (a, b) in zip(SOFTMAX_TOKENS, ((a2, b2), (a3, b3))):
        join, leave = token_chain(N, lap1, lap2, extra)
        t = float(np.max(t - join)) + leave + a * s + b
    for k in range(N):
        _near(t[k], got[k], 0.05, 60, f"_vsoftmax_ring N={N}: node {k} leaves")


def test_subring_chain_leave_times():
    """_subring_reduce down grid rows of 8 on 64 nodes: member k leaves
    2 k after the first (SUBRING_CHAIN)."""
    N, c, n = 64, 8, 32
    first = [k // c * c for k in range(N)]
    last = [f + c - 1 for f in first]
    run = run_calls([Call("_ring_barrier"), Call("_subring_reduce", [RAM0, n, first, last])],
                    nodes=N)
    got = _leaves(run, 1, N, first)
    import numpy as np
    _, leave = SUBRING_CHAIN(np.arange(c, dtype=float), n)
    for k in range(N):
        _near(leave[k % c], got[k], 0.03, 12, f"_subring_reduce member {k % c} leaves")


def test_dma_formula():
    """_dma_start's cost (a transfer started, and a count of 0) and
    _dma_wait's once the transfer has ended: each a call alone, the second
    of two waits after a transfer (the first waits for the words)."""
    calls = []
    for n in (4, 61, 234):
        calls += [Call("_dma_start", [RAM0, SRAM, n, 0x50]), Call("_dma_wait", []),
                  Call("_dma_wait", [])]
    calls.append(Call("_dma_start", [RAM0, SRAM, 0, 0x50]))
    run = run_calls(calls)
    for i, n in enumerate((4, 61, 234)):
        start = KERNELS["_dma_start"].cycles({"dst": "chip", "src": "sram", "n": n,
                                              "mode": "chip"}, DEFAULT_ACCESS)
        _near(start, run.cycles(3 * i), 0.03, 12, f"_dma_start n={n}")
        _near(KERNELS["_dma_wait"].cycles({}, DEFAULT_ACCESS), run.cycles(3 * i + 2), 0.03, 12,
              "_dma_wait after the transfer")
        # the first wait takes the rest of the transfer: 2 cycles a word
        assert run.cycles(3 * i + 1) >= 2 * n - 24
    _near(KERNELS["_dma_start"].cycles({"dst": "chip", "src": "sram", "n": 0, "mode": "chip"},
                                       DEFAULT_ACCESS), run.cycles(9), 0.03, 12, "_dma_start n=0")


def test_empty_calls():
    """A call with no rows or no elements (a node outside a layer's group)
    costs the routine's count test and return (EMPTY_CALL)."""
    from rapsim.firmware.costs import EMPTY_CALL
    calls, args = [], []
    for fn in EMPTY_CALL:
        k = KERNELS[fn]
        ints, a = [], {}
        for i, name in enumerate(k.args):
            if name in ("rows", "n", "cols", "b"):
                ints.append(0)
                a[name] = 0
            elif name == "stride":
                ints.append(1)
                a[name] = 1
            else:
                ints.append(SRAM + 0x100 * i)
                a[name] = "sram"
        calls.append(Call(fn, ints, [0.1, 0.5]))
        args.append((fn, a))
    run = run_calls(calls)
    for i, (fn, a) in enumerate(args):
        assert KERNELS[fn].cycles(a, DEFAULT_ACCESS) == run.cycles(i), fn


@pytest.mark.parametrize("N,rows", [(4, [2] * 4), (8, [2] * 8), (16, [2] * 16), (16, [1] * 16),
                                    (40, [2] * 21 + [1] * 19), (40, [1] * 40),
                                    (64, [1] * 61 + [0] * 3)])
def test_allgather_mxv_formula(N, rows):
    """overlap on: the forward all-gather streamed into the product (x on
    chip, W in SRAM, y on chip, b in SRAM; V = 512, the speech output
    layer's shapes): the all-gather's formula plus the slowest node's _mxv
    and allgather_mxv_extra."""
    from rapsim.firmware.costs import allgather_mxv_extra
    V = 512
    off = _even(V, N)
    run = run_calls([Call("_ring_barrier"),
                     Call("_ring_allgather_mxv", [RAM0, SRAM3, RAM1, SRAM2, rows, SRAM])],
                    nodes=N, setup=_table_at(SRAM3, off))
    s = max(b - a for a, b in zip(off, off[1:]))
    R = max(rows)
    pred = (COLLECTIVES["_ring_allgather_mxv"].cycles(V, s, N, 1, True)
            + KERNELS["_mxv"].cycles({"y": "chip", "W": "sram", "x": "chip", "rows": R,
                                      "cols": V, "b": "sram"}, DEFAULT_ACCESS)
            + allgather_mxv_extra(R, s, N))
    _near(pred, run.span(1), 0.05, 60, f"_ring_allgather_mxv N={N} rows={R}")
