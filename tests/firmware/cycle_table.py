"""Measure the firmware's cycles per call: the tables of docs/firmware.md.

    python tests/firmware/cycle_table.py > /tmp/tables.md

Every figure is a simulator measurement (fwharness: CLOCK stamps around the
CALL, host calls free), cold instruction cache, one call per entry.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fwharness import DRAM, RAM0, RAM1, SRAM, SRAM2, SRAM3, Call, run_calls  # noqa: E402

PLACES = {"x on chip, y in SRAM": (RAM0, SRAM, RAM1), "all in SRAM": (SRAM, SRAM2, SRAM3),
          "x in DRAM, y on chip": (DRAM, RAM0, RAM1)}


def vector_table(sizes=(16, 256)) -> str:
    rows = ["| routine | placement | " + " | ".join(f"n = {n}" for n in sizes) + " | per element |",
            "|---|---|" + "---|" * (len(sizes) + 1)]
    for place, (x, y, z) in PLACES.items():
        specs = [("_vdot", lambda n: [x, y, n], ()), ("_vsum", lambda n: [x, n], ()),
                 ("_vcopy", lambda n: [z, x, n], ()), ("_vfill", lambda n: [z, n], (1.0,)),
                 ("_vscale", lambda n: [z, x, n], (2.0,)), ("_vaxpy", lambda n: [z, x, n], (2.0,)),
                 ("_vadd", lambda n: [z, x, y, n], ()), ("_vmul", lambda n: [z, x, y, n], ())]
        for fn, args, fl in specs:
            run = run_calls([Call(fn, args(n), list(fl)) for n in sizes])
            c = [run[k].cycles for k in range(len(sizes))]
            slope = (c[-1] - c[0]) / (sizes[-1] - sizes[0])
            rows.append(f"| `{fn}` | {place} | " + " | ".join(map(str, c)) + f" | {slope:g} |")
    return "\n".join(rows)


def activation_table(sizes=(16, 256)) -> str:
    rows = ["| routine | placement | " + " | ".join(f"n = {n}" for n in sizes) + " | per element |",
            "|---|---|" + "---|" * (len(sizes) + 1)]
    for place, (x, z) in (("x, z on chip", (RAM0, RAM1)), ("x, z in SRAM", (SRAM, SRAM2))):
        for fn in ("_vsigmoid", "_vtanh", "_vsigmoid_deriv", "_vtanh_deriv", "_vexp", "_vsoftmax",
                   "_vsoftmax_ring"):
            run = run_calls([Call(fn, [z, x, n]) for n in sizes])
            c = [run[k].cycles for k in range(len(sizes))]
            slope = (c[-1] - c[0]) / (sizes[-1] - sizes[0])
            rows.append(f"| `{fn}` | {place} | " + " | ".join(map(str, c)) + f" | {slope:g} |")
    return "\n".join(rows)


def matrix_table(shapes=((8, 64), (32, 234), (16, 512), (4, 512))) -> str:
    eta, alpha = 0.1, 0.9
    rows = ["| routine | W in | " + " | ".join(f"{r} x {c}" for r, c in shapes) + " |",
            "|---|---|" + "---|" * len(shapes)]
    for wname, W in (("SRAM", SRAM), ("DRAM", DRAM)):
        M = W + 0x20000
        specs = [("_mxv", lambda r, c: [RAM1, W, RAM0, r, c, 0], ()),
                 ("_mxv (bias)", lambda r, c: [RAM1, W, RAM0, r, c, SRAM3], ()),
                 ("_mxtv", lambda r, c: [RAM1, W, SRAM3, r, c], ()),
                 ("_mxout", lambda r, c: [W, SRAM3, RAM0, r, c], (eta,)),
                 ("_mxoutm", lambda r, c: [W, RAM1, RAM0, r, c, M], (eta, alpha)),
                 ("_mxoutm (d in SRAM)", lambda r, c: [W, SRAM3, RAM0, r, c, M], (eta, alpha))]
        for name, args, fl in specs:
            fn = name.split()[0]
            run = run_calls([Call(fn, args(r, c), list(fl)) for r, c in shapes])
            cells = [f"{run[k].cycles} ({run[k].cycles / (r * c):.2f})"
                     for k, (r, c) in enumerate(shapes)]
            rows.append(f"| `{name}` | {wname} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def sparse_table(rows=(8, 32), per_row=(5, 16, 64)) -> str:
    """The sparse kernels on CSR tables of `rows` rows of `per_row` pairs
    (x, e and d on chip; W, M, cnt, idx in SRAM); cycles per call and per pair."""
    eta, alpha = 0.1, 0.9
    cnt_at, idx_at = SRAM3 + 0x1000, SRAM3 + 0x2000
    shapes = [(r, c) for r in rows for c in per_row]
    out = ["| routine | " + " | ".join(f"{r} rows x {c}" for r, c in shapes) + " |",
           "|---|" + "---|" * len(shapes)]
    specs = [("_spmv", lambda r: [RAM1, SRAM, RAM0, r, cnt_at, idx_at, 0], ()),
             ("_spmtv", lambda r: [RAM1, SRAM, RAM0, r, cnt_at, idx_at], ()),
             ("_spout", lambda r: [SRAM, RAM1, RAM0, r, cnt_at, idx_at], (eta,)),
             ("_spoutm", lambda r: [SRAM, RAM1, RAM0, r, cnt_at, idx_at, SRAM2], (eta, alpha))]
    for fn, args, fl in specs:
        cells = []
        for r, c in shapes:
            def setup(sim, r=r, c=c):
                sim.write(cnt_at, [c] * r)
                sim.write(idx_at, (np.arange(r * c) * 7) % 200)
            run = run_calls([Call(fn, args(r), list(fl))], setup=setup)
            cells.append(f"{run[0].cycles} ({run[0].cycles / (r * c):.2f})")
        out.append(f"| `{fn}` | " + " | ".join(cells) + " |")
    return "\n".join(out)


def scalar_table(nodes=(4, 16, 40, 64)) -> str:
    """Machine time of _ring_sumf, _ring_maxf and of the softmax of the
    234-512-61 MLP's output layer (61 units split over the nodes)."""
    out = ["| N | `_ring_sumf` | `_ring_maxf` | `_vsoftmax_ring`, 61 units | `_vsoftmax`, all 61 on every node |",
           "|---|---|---|---|---|"]
    for N in nodes:
        q, r = divmod(61, N)
        sizes = [q + 1] * r + [q] * (N - r)
        off = np.concatenate([[0], np.cumsum(sizes)])
        calls = [Call("_ring_barrier"), Call("_ring_sumf", [], [1.0]), Call("_ring_barrier"),
                 Call("_ring_maxf", [], [1.0]), Call("_ring_barrier"),
                 Call("_vsoftmax_ring", [RAM1, [RAM0 + int(off[k]) for k in range(N)], sizes]),
                 Call("_ring_barrier"), Call("_vsoftmax", [RAM1, RAM0, 61])]
        run = run_calls(calls, nodes=N)
        out.append(f"| {N} | {run.span(1)} | {run.span(3)} | {run.span(5)} | {run.span(7)} |")
    return "\n".join(out)


def ring_table(cases=((4, 64), (4, 1024), (16, 64), (16, 256), (16, 1024), (16, 4096), (40, 512),
                      (64, 64), (64, 256), (64, 4096))) -> str:
    rows = ["| N | V | all-gather, x in SRAM | x on chip | 1.2 (V+N) | reduce-scatter | all-reduce "
            "| broadcast | barrier |",
            "|---|---|---|---|---|---|---|---|---|"]
    for N, V in cases:
        off = np.linspace(0, V, N + 1).round().astype(np.int64)

        def setup(sim):
            for n in range(N):
                sim.write(SRAM3, off, node=n)

        calls = [Call("_ring_barrier"), Call("_ring_allgather", [SRAM + 0x8000, SRAM3]),
                 Call("_ring_barrier"), Call("_ring_reduce_scatter", [SRAM, SRAM3]),
                 Call("_ring_barrier"), Call("_ring_allreduce", [SRAM2, SRAM3]),
                 Call("_ring_barrier"), Call("_ring_bcast", [SRAM2, V, 0]),
                 Call("_ring_barrier")]
        if V <= 1024:
            calls += [Call("_ring_allgather", [RAM0, SRAM3])]
        run = run_calls(calls, nodes=N, setup=setup, max_cycles=50_000_000)
        s = [run.span(k) for k in range(len(calls))]
        chip = s[9] if V <= 1024 else "-"
        rows.append(f"| {N} | {V} | {s[1]} | {chip} | {1.2 * (V + N):.0f} | {s[3]} | {s[5]} "
                    f"| {s[7]} | {s[8]} |")
    return "\n".join(rows)


DMA_CASES = ((256, 256, RAM1, "a in RAM0, b in RAM1"), (256, 1000, RAM1, "a in RAM0, b in RAM1"),
             (512, 1000, RAM1, "a in RAM0, b in RAM1"), (256, 1000, SRAM2, "a in RAM0, b in SRAM"))


def dma_table() -> str:
    """The example of docs/firmware.md section 12: broadcast x (in SRAM) from
    node 0 on 4 nodes and compute a dot product, plain (_ring_bcast, _vdot)
    or with the broadcast by DMA (_dma_bcast, _vdot, _dma_wait)."""
    from test_fw_dma import bcast_vs_plain
    rows = ["| x words | dot length | dot operands | plain | by DMA | saved |",
            "|---|---|---|---|---|---|"]
    for nx, m, b, place in DMA_CASES:
        plain, dma = bcast_vs_plain(nx, m, b)
        rows.append(f"| {nx} | {m} | {place} | {plain} | {dma} | {plain - dma} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print("## vector\n")
    print(vector_table())
    print("\n## activation\n")
    print(activation_table())
    print("\n## matrix (cycles per call, and per weight)\n")
    print(matrix_table())
    print("\n## sparse (cycles per call, and per pair)\n")
    print(sparse_table())
    print("\n## scalar reductions and the distributed softmax (machine time)\n")
    print(scalar_table())
    print("\n## ring (machine time of one call)\n")
    print(ring_table())
    print("\n## a ring broadcast by DMA beside a dot product (4 nodes, machine time)\n")
    print(dma_table())
