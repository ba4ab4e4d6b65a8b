"""Cycle formulas of the firmware's kernels and ring collectives: the one
table the cost model (:mod:`rapsim.compiler.plan`, ``rap plan``) reads.

Every entry is derived from the routine's source and the C30's timing rules
(TMS320C3x User's Guide, SPRU031, chapter 9 "Pipeline operation": one
instruction per cycle, a primary-bus access per cycle, wait states added to
each access of an external memory; chapter 13 for the parallel instructions'
operand rules) as docs/firmware.md sections 7-10 derive them, and checked
against the simulator by ``tests/firmware/test_fw_costs.py`` on several sizes
and node counts.  None is fitted to a benchmark network.

A **kernel** entry (``KERNELS``) gives the cycles one node pays for one
call -- ``CALL``, the routine and its ``RETS`` -- from the call's arguments
as that node passes them: sizes as integers, pointers as the memory region
they point into (``"chip"``, ``"sram"``, ``"dram"``).  A **collective**
entry (``COLLECTIVES``) gives the machine time of one call (first node's
entry to last node's return, every node entering together) from the vector
length V (the slice table's last offset), the largest slice, and N.

A routine the compiler calls that is in neither table is an error of the
cost model (:class:`rapsim.compiler.plan.PlanError`), never zero.  When a
routine's code changes, its entry here is the one line to change.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

#: cycles of one access to each region with the default wait states
#: (rapsim.memmap.MemoryConfig: SRAM 0 wait states, DRAM 2; on chip 0)
DEFAULT_ACCESS = {"chip": 1, "sram": 1, "dram": 3}


def bus(*regions: str, access=DEFAULT_ACCESS) -> int:
    """Cycles of the primary-bus accesses of one loop pass that reads each
    of ``regions`` once: every external access takes the bus for its
    cycles, on-chip accesses are free beside them (SPRU031 9.2, "Memory
    pipeline conflicts"); at least 1 (the instruction itself)."""
    ext = [access[r] for r in regions if r != "chip"]
    return max(1, sum(ext))


@dataclass(frozen=True)
class Kernel:
    """One routine: its argument names in register order (AR2, AR3, AR4,
    AR5, AR6, IR0, IR1, then R2, R3 for floats, which no formula needs), and
    ``cycles(a, access)`` with ``a`` the arguments by name."""
    args: tuple[str, ...]
    cycles: Callable[[dict, dict], float]
    source: str                 # where the formula comes from


def _mxv(a, acc):
    # RPTS over MPYF3 *W++, *++x || ADDF3 (one MAC per pass); W and x read in
    # one instruction: their primary-bus accesses add (docs/firmware.md 9)
    per_mac = bus(a["W"], a["x"], access=acc)
    per_row = 7 + (1 if a["y"] != "chip" and a["b"] != "chip" else 0)
    return per_mac * a["rows"] * a["cols"] + per_row * a["rows"] + 49


def _mxtv(a, acc):
    # two weights per pass of a 3-instruction RPTB: 1.5 per weight, each W
    # read on the bus, y read and written on chip (docs/firmware.md 9)
    per_w = 0.5 + bus(a["W"], access=acc) if a["y"] == "chip" else 0.5 + bus(a["W"], a["y"], a["y"], access=acc)
    return per_w * a["rows"] * a["cols"] + 10 * a["rows"] + 59


def _first_row(then, overhead: int, zero: int):
    """A kernel that writes its first row by RPTS of MPYF3 || STF (one W
    read a weight, y written on chip beside it), then adds the other rows
    with ``then`` (its early return: 10 cycles for none); no rows: y
    filled with 0.0 (matrix.asm, _mxtvw and _mxtv2w)."""
    def cycles(a, acc):
        if a["rows"] <= 0:
            return max(a["cols"], 0) + zero
        first = bus(a["W"], access=acc) * a["cols"] + overhead
        return first + (then(dict(a, rows=a["rows"] - 1), acc) if a["rows"] > 1 else 10)
    return cycles


def _mxtv2(a, acc):
    # pairs of rows: per pair and column 2 MPYF3 || ADDF3 reading W and y,
    # 2 reading W and e, half a STF || STF (y on chip): 1.25 a weight with W
    # in SRAM, e and y on chip; 12.5 a pair of rows + 78; an odd last row
    # and the short cases (one row, fewer than 3 columns) by _mxtv
    rows, cols = a["rows"], a["cols"]
    if rows < 2 or cols < 3:
        return _mxtv(a, acc) + (16 if rows > 0 and cols > 0 else 0)
    per_col = bus(a["W"], access=acc) + bus(a["W"], a["e"], access=acc) + 0.5
    t = (rows // 2) * (per_col * cols + 12.5) + 78
    return t + (_mxtv(dict(a, rows=1), acc) + 2 if rows % 2 else 0)


def _mxtv4(a, acc):
    # quads of rows (firmware/columns.asm): per column one MPYF3 || ADDF3
    # reading W and y, three reading W and e, half a STF || STF: 4.5 cycles
    # a column of four weights (1.125 a weight) with y and e on chip; 19 a
    # pass (19.5 with odd columns: the last column's own end) + 56 (60
    # odd, 12 more with W off chip); the rows left over (rows mod 4), and
    # fewer than 4 rows or 3 columns, by _mxtv2
    rows, cols = a["rows"], a["cols"]
    if rows < 4 or cols < 3:
        return _mxtv2(a, acc) + (6 if rows > 0 and cols > 0 else 4)
    odd = cols & 1
    per_col = bus(a["W"], a["y"], access=acc) + 3 * bus(a["W"], a["e"], access=acc) + 0.5
    t = (rows // 4) * (per_col * cols + 19 + 0.5 * odd) + 56 + 4 * odd
    t += 12 if a["W"] != "chip" else 0
    return t + (_mxtv2(dict(a, rows=rows % 4), acc) if rows % 4 else 0)


def _mxtv4w(a, acc):
    # _mxtvw on the first row (a call: 61 cycles with the tests), then
    # _mxtv4 on the others; no rows or columns: _mxtvw's (matrix.asm)
    if a["rows"] <= 0 or a["cols"] <= 0:
        return _mxtvw(a, acc) + 4
    first = bus(a["W"], access=acc) * a["cols"] + 61
    return first + _mxtv4(dict(a, rows=a["rows"] - 1), acc)


def _mxoutc(a, acc):
    # _mxtv's loop with W and x exchanged: per two weights two MPYF3 || ADDF3
    # reading x and W, one STF || STF writing W (two accesses: one cycle on
    # chip, two on the bus); fewer than 4 columns: _mxout (matrix.asm)
    if a["rows"] <= 0 or a["cols"] < 4:
        return _mxout(a, acc) + (8 if a["rows"] > 0 and a["cols"] > 0 else 0)
    per_w = bus(a["W"], a["x"], access=acc) + bus(a["W"], a["W"], access=acc) / 2
    return per_w * a["rows"] * a["cols"] + 10 * a["rows"] + 57


_mxtvw = _first_row(_mxtv, 37, 25)
_mxtv2w = _first_row(_mxtv2, 36, 29)


def _mxout(a, acc):
    # ADDF3 R0, *W++, R1 and MPYF3 || STF: W read and written on the bus
    per_w = 2 * acc[a["W"]] if a["W"] != "chip" else 2
    per_w = max(per_w, bus(a["W"], a["W"], a["x"], access=acc))
    return per_w * a["rows"] * a["cols"] + 9 * a["rows"] + 36


def _mxoutm(a, acc):
    # four primary-bus accesses per weight (M, W read and written); d off
    # chip costs one more cycle per weight (docs/firmware.md 9)
    per_w = bus(a["W"], a["W"], a["M"], a["M"], access=acc) + (1 if a["d"] != "chip" else 0)
    return per_w * a["rows"] * a["cols"] + 12 * a["rows"] + 86


def _vec(base: int, alpha: int, *ptrs: str):
    """A vector loop of ``base`` cycles per element with every operand on
    chip; the operands on the primary bus (a vector read and written counts
    twice) take their access cycles one after the other, and a two-
    instruction loop pays one cycle more when one of them is in DRAM (its
    wait states do not overlap the loop's other instruction)
    (docs/firmware.md 7, measured table)."""
    def cycles(a, acc):
        ext = sum(acc[a[p]] for p in ptrs if a[p] != "chip")
        per = max(base, ext) + (1 if base > 1 and "dram" in (a[p] for p in ptrs) else 0)
        return per * max(a["n"], 0) + alpha
    return cycles


KERNELS: dict[str, Kernel] = {
    "_mxv": Kernel(("y", "W", "x", "rows", "cols", "b"), _mxv, "firmware.md 9: 1/MAC + 7/row + 49"),
    "_mxvs": Kernel(("y", "W", "x", "rows", "cols", "b", "stride"), _mxv, "as _mxv (band)"),
    "_mxtv": Kernel(("y", "W", "e", "rows", "cols"), _mxtv, "firmware.md 9: 1.5/weight + 10/row + 59"),
    "_mxtvs": Kernel(("y", "W", "e", "rows", "cols", "stride"), _mxtv, "as _mxtv (band)"),
    "_mxtvw": Kernel(("y", "W", "e", "rows", "cols"), _mxtvw,
                     "matrix.asm _mxtvw: 1/weight of the first row + 37, then _mxtv"),
    "_mxoutc": Kernel(("W", "d", "x", "rows", "cols"), _mxoutc,
                      "matrix.asm _mxoutc: 1.5/weight with W on chip + 10/row + 57"),
    "_mxtv2": Kernel(("y", "W", "e", "rows", "cols"), _mxtv2,
                     "matrix.asm _mxtv2: 1.25/weight + 12.5 a pair of rows + 78"),
    "_mxtv2w": Kernel(("y", "W", "e", "rows", "cols"), _mxtv2w,
                      "matrix.asm _mxtv2w: 1/weight of the first row + 36, then _mxtv2"),
    "_mxtv4": Kernel(("y", "W", "e", "rows", "cols"), _mxtv4,
                     "columns.asm _mxtv4: 1.125/weight + 19 a pass of four rows + 56"),
    "_mxtv4w": Kernel(("y", "W", "e", "rows", "cols"), _mxtv4w,
                      "columns.asm _mxtv4w: 1/weight of the first row + 61, then _mxtv4"),
    "_mxout": Kernel(("W", "d", "x", "rows", "cols"), _mxout, "firmware.md 9: 2/weight + 9/row + 36"),
    "_mxouts": Kernel(("W", "d", "x", "rows", "cols", "stride"), _mxout, "as _mxout (band)"),
    "_mxoutm": Kernel(("W", "d", "x", "rows", "cols", "M"), _mxoutm,
                      "firmware.md 9: 4/weight + 12/row + 86"),
    "_mxoutms": Kernel(("W", "d", "x", "rows", "cols", "M", "stride"), _mxoutm, "as _mxoutm (band)"),
    "_vcopy": Kernel(("z", "x", "n"), _vec(1, 19, "z", "x"), "firmware.md 7: 19 + n"),
    "_vfill": Kernel(("z", "n"), _vec(1, 18, "z"), "firmware.md 7: 18 + n"),
    "_vscale": Kernel(("z", "x", "n"), _vec(1, 19, "z", "x"), "firmware.md 7: 19 + n"),
    "_vaxpy": Kernel(("y", "x", "n"), _vec(2, 26, "y", "x", "y"), "firmware.md 7: 26 + 2n"),
    "_vadd": Kernel(("z", "x", "y", "n"), _vec(2, 20, "z", "x", "y"), "firmware.md 7: 20 + 2n"),
    "_vsub": Kernel(("z", "x", "y", "n"), _vec(2, 20, "z", "x", "y"), "firmware.md 7: 20 + 2n"),
    "_vmul": Kernel(("z", "x", "y", "n"), _vec(2, 20, "z", "x", "y"), "firmware.md 7: 20 + 2n"),
    "_vsigmoid": Kernel(("z", "x", "n"), lambda a, acc: (10 if a["x"] == "chip" else 11)
                        * max(a["n"], 0) + 50, "firmware.md 8: 10/element + 50"),
    "_vtanh": Kernel(("z", "x", "n"), lambda a, acc: (10 if a["x"] == "chip" else 11)
                     * max(a["n"], 0) + 50, "firmware.md 8: 10/element + 50"),
    "_vsigmoid_deriv": Kernel(("z", "y", "n"), lambda a, acc: (2 if a["y"] == "chip" else 4)
                              * max(a["n"], 0) + 25, "firmware.md 8: 2/element + 25"),
    "_vtanh_deriv": Kernel(("z", "y", "n"), lambda a, acc: (2 if a["y"] == "chip" else 3)
                           * max(a["n"], 0) + 25, "firmware.md 8: 2/element + 25"),
    "_vsoftmax": Kernel(("z", "x", "n"), lambda a, acc: (33 if a["x"] == "chip" else 34)
                        * max(a["n"], 0) + 124, "firmware.md 8: 33/element + 124"),
    # seven instructions an element in one RPTB block, w read and written
    # (each access's wait states added); n <= 0 returns at once
    "_vshrink": Kernel(("w", "zero", "n"), lambda a, acc: (7 + 2 * (acc[a["w"]] - 1))
                       * a["n"] + (19 if a["w"] == "chip" else 21) if a["n"] > 0 else 10,
                       "firmware.md 9d: 7/element + 19 (21 off chip)"),
    # sparse connects that are not bands (firmware.md 9b): per pair the IR0
    # load of idx[k], the 2 cycles it holds back the next AR-addressed
    # instruction, and the loop's memory accesses, each W (M) access with
    # its wait states; per row its count, the RPTB set-up and the store (an
    # empty row skips the block).  ``pairs``: the node's pairs, ``empty``:
    # its rows without one (the cost model counts them from the connect's
    # pair list)
    "_spmv": Kernel(("y", "W", "x", "rows", "cnt", "idx", "b"),
                    lambda a, acc: (4 + acc[a["W"]] - 1) * a["pairs"]
                    + 15 * (a["rows"] - a["empty"]) + 10 * a["empty"] + 33,
                    "firmware.md 9b: 4/pair + 15/row + 33"),
    "_spmtv": Kernel(("e", "W", "d", "rows", "cnt", "idx"),
                     lambda a, acc: (5 + acc[a["W"]] - 1) * a["pairs"]
                     + 15 * (a["rows"] - a["empty"]) + 14 * a["empty"] + 31,
                     "firmware.md 9b: 5/pair + 15/row + 31"),
    "_spout": Kernel(("W", "d", "x", "rows", "cnt", "idx"),
                     lambda a, acc: (5 + 2 * (acc[a["W"]] - 1)) * a["pairs"]
                     + 16 * (a["rows"] - a["empty"]) + 8.5 * a["empty"] + 26,
                     "firmware.md 9b: 5/pair + 16/row + 26"),
    "_spoutm": Kernel(("W", "d", "x", "rows", "cnt", "idx", "M"),
                      lambda a, acc: (7 + 2 * (acc[a["W"]] - 1) + 2 * (acc[a["M"]] - 1))
                      * a["pairs"] + 17 * (a["rows"] - a["empty"]) + 8 * a["empty"] + 65,
                      "firmware.md 9b: 7/pair + 17/row + 65"),
    # the binary kernels (firmware.md 9c): a column per active unit of the
    # index list, ``active`` of them (the cost model's assumption: rap plan
    # --active, docs/plan.md); y read and written per row of a column
    "_bcolsum": Kernel(("y", "W", "list", "rows", "b"),
                       lambda a, acc: (max(2, bus(a["W"], a["y"], a["y"], access=acc))
                                       * a["rows"] + 14) * a["active"]
                       + (10 if a["active"] > 0 else 0)
                       + (29 + a["rows"] if a["b"] == 0 else 39 + 2 * a["rows"]),
                       "firmware.md 9c: (2-3/row + 14)/active + y set"),
    "_bcolupd": Kernel(("W", "d", "list", "rows"),
                       lambda a, acc: (max(3, bus(a["W"], a["W"], a["d"], access=acc))
                                       * a["rows"] + 13) * a["active"]
                       + (26 if a["active"] > 0 else 16),
                       "firmware.md 9c: (3/row + 13)/active + 26"),
    "_bcolupdm": Kernel(("W", "d", "list", "rows", "M"),
                        lambda a, acc: ((2 + bus(a["W"], a["W"], a["M"], a["M"], access=acc))
                                        * a["rows"] + 20) * a["active"]
                        + (29 if a["active"] > 0 else 20),
                        "firmware.md 9c: (6/row + 20)/active + 29 (M in DRAM: 10/row)"),
    "_bcoltv": Kernel(("e", "W", "d", "rows", "cols"),
                      lambda a, acc: (bus(a["W"], a["d"], access=acc) * a["rows"] + 15)
                      * a["cols"] + 20 if a["cols"] > 0 else 15,
                      "firmware.md 9c: (1/row + 15)/column + 20"),
    "_vthreshold": Kernel(("z", "x", "n"), lambda a, acc: 4 * a["n"]
                          + (21 if a["x"] == "chip" else 23) if a["n"] > 0 else 10,
                          "firmware.md 9c: 4/element + 21"),
    "_vactive": Kernel(("list", "y", "n"), lambda a, acc: 9 * a["n"]
                       + (28 if a["y"] == "chip" else 29) if a["n"] > 0 else 22,
                       "firmware.md 9c: 9/element + 28"),
    # a chain down a grid row (c contiguous nodes), all rows at once on
    # disjoint links: each member 2 n + 2 (c - 1) + 52 (firmware.md 10b)
    "_subring_reduce": Kernel(("x", "n", "first", "last"),
                              lambda a, acc: 2 * max(a["n"], 0) + 2 * (a["last"] - a["first"])
                              + 52 if a["n"] > 0 and a["last"] > a["first"] else 30,
                              "firmware.md 10b: 2n + 2(c - 1) + 52"),
    # the C30's DMA channel (firmware/dma.asm; TMS320C3x User's Guide 12.3):
    # the evaluation pass's prefetched input record (compiler/prefetch.py)
    "_dma_start": Kernel(("dst", "src", "n", "mode"),
                         lambda a, acc: 24 if a["n"] > 0 else 9,
                         "dma.asm _dma_start: 24 (n <= 0: 9)"),
    # priced as the steady state of the prefetch: the channel (2 cycles a
    # word beside the CPU) has stopped before the wait; a wait that finds
    # it busy takes what is left of the transfer more
    "_dma_wait": Kernel((), lambda a, acc: 21,
                        "dma.asm _dma_wait: 21 when the transfer has ended"),
}


#: a call with no rows (a matrix kernel) or no elements (a vector kernel)
#: returns after the routine's count test (a node outside a layer's group,
#: every tick of a pipeline): CALL, the test, the conditional return
EMPTY_CALL = {"_mxv": 27, "_mxvs": 26, "_mxtv": 10, "_mxtvs": 9, "_mxout": 9, "_mxouts": 9,
              "_mxoutm": 10, "_mxoutms": 9, "_vcopy": 15, "_vfill": 10, "_vscale": 15,
              "_vaxpy": 11, "_vadd": 10, "_vsub": 10, "_vmul": 10, "_vsigmoid": 23,
              "_vtanh": 22, "_vsigmoid_deriv": 10, "_vtanh_deriv": 10, "_vsoftmax": 10}


def _with_empty_call(fn: str, k: Kernel) -> Kernel:
    size = "rows" if "rows" in k.args else "n"
    early = EMPTY_CALL[fn]

    def cycles(a, acc):
        return early if a[size] <= 0 else k.cycles(a, acc)
    return Kernel(k.args, cycles, f"{k.source}; none: {early}")


KERNELS.update({fn: _with_empty_call(fn, KERNELS[fn]) for fn in EMPTY_CALL})


@dataclass(frozen=True)
class Collective:
    """A ring collective: ``cycles(V, slice, N, a, chip, empty=0,
    leading=0)`` machine cycles (``empty``: the nodes with an empty slice,
    ``leading``: those before the first word),
    with V the words of the vector (or the slice table's last offset),
    ``slice`` the largest node's slice, N the nodes, ``a`` the cycles of
    one access to the vector x (1 on chip and in SRAM, 3 in DRAM: every
    word of x is read or written once per pass, so its access time adds to
    the ring's one cycle per hop) and ``chip`` whether x is on chip."""
    cycles: Callable[..., float]
    source: str


def _allgather(V, s, N, a, chip, empty=0, leading=0):
    # a chain from node 0: one hop per word and per node, and an RPTS
    # set-up at every node's switch from forwarding to writing.  A node with
    # an empty slice (``empty`` of them: a layer on a node group, a grid's
    # column) only forwards, a cycle a node, but a table with empty slices
    # takes the small-slice path's set-ups (35 cycles more), and empty
    # slices before the first word (``leading``: nodes with no word before
    # their slice's end) the general, segment by segment, path (80 more)
    # (firmware.md 10)
    if N < 2:
        return 0
    if not empty:
        return a * V + 7 * N + 80
    return a * V + 7 * (N - empty) + empty + 115 + (80 if leading else 0)


def _reduce_scatter(V, s, N, a, chip, empty=0, leading=0):
    # a ring read and a ring write of every word at every node; per node the
    # fast path's segment set-ups (4 more in SRAM: each segment's first pass
    # misses the cache and its fetch shares the primary bus with x; x in
    # DRAM: the hand-over reads and writes x twice more with its wait states)
    if N < 2:
        return 0
    per_node = 9 if chip else 13 + 2 * (a - 1)
    return 2 * a * V + per_node * N + 85


def _rotation(V, N):
    """Phases of a rotation on the even split of V over N (the compiler's
    tables: the first V mod N nodes one word more): q full phases and a
    last one (pad = 1) with r = V mod N words, the rest pads."""
    q, r = divmod(V, N)
    return q, 1 if r else 0, r


def _allgather_rot(V, s, N, a, chip):
    # a phase: N - 1 words one hop a cycle each (a store each: x in DRAM
    # a cycles), two RPTS set-ups (the wrap from node 0 to N-1) and about
    # 35 cycles of own word, RING_FWD and plan loads; a third segment where
    # the stride changes (uneven split); the last phase stores r words and
    # reads the rest as pads (firmware.md 10, "Rotations"; measured on 4-64
    # nodes)
    if N < 2:
        return 0
    q, pad, r = _rotation(V, N)
    if not pad and N >= 4:
        # the fast path (every slice q words): a phase is N - 1 words, two
        # RPTS set-ups and the node's word, the next one's in the DBD's
        # delay slots; no plan read, nothing saved (firmware.md 10,
        # "Rotations": measured on 4-64 nodes)
        return q * (a * (N + 1) + 11) + 61 + N
    return q * (a * N + 43 + 12 * pad) + pad * (N + (a - 1) * r + 103) + 99 + N


def _rs_rot(V, s, N, a, chip):
    # a phase: N - 1 words at 2 cycles a hop (a ring read and a ring write:
    # the expansion bus), x read beside it (DRAM: a - 1 cycles more a word),
    # segment set-ups as the all-gather's (firmware.md 10, "Rotations")
    if N < 2:
        return 0
    q, pad, r = _rotation(V, N)
    if not pad and N >= 4:
        # the fast path: a phase is N - 2 words at a + 1 cycles, two RPTB
        # set-ups (one on 4 nodes, where no node has both segments) and the
        # wrap's word; from the second phase on the nodes' set-ups no longer
        # overlap the ring's fill (about 0.7 N once)
        per = (a + 1) * N + 10 + a - (5 if N == 4 else 0)
        return q * per + (0.7 * N if q >= 2 else 0) + 67 + 1.15 * N
    return q * ((a + 1) * N + 51 + 14 * pad) + pad * (2 * N + (a - 1) * r + 97) + 105 + N


COLLECTIVES: dict[str, Collective] = {
    "_ring_allgather": Collective(_allgather, "firmware.md 10: V + 7N + 80 (x in DRAM: 3V; "
                                              "empty slices: 1 a node + 115, + 80 leading)"),
    "_ring_reduce_scatter": Collective(_reduce_scatter,
                                       "firmware.md 10: 2V + 13N + 85 (on chip 9N; DRAM 6V)"),
    "_ring_allreduce": Collective(lambda V, s, N, a, chip, empty=0, leading=0:
                                  _reduce_scatter(V, s, N, a, chip)
                                  + _allgather(V, s, N, a, chip, empty, leading),
                                  "reduce-scatter + all-gather"),
    "_ring_barrier": Collective(lambda V, s, N, a, chip, empty=0, leading=0: 2 * N + 35,
                                "firmware.md 10: 2N + 35"),
    # the rotations are chosen on even splits only (compiler/collectives.py):
    # no empty slices there
    "_ring_allgather_rot": Collective(lambda V, s, N, a, chip, empty=0, leading=0:
                                      _allgather_rot(V, s, N, a, chip),
                                      "firmware.md 10 Rotations: q (N + 12) + 61 + N (every slice q words, "
                                      "N >= 4), else q (N + 43) + 99 + N (even split)"),
    "_ring_rs_rot": Collective(lambda V, s, N, a, chip, empty=0, leading=0:
                               _rs_rot(V, s, N, a, chip),
                               "firmware.md 10 Rotations: q (2N + 11) + 67 + 1.9N (every slice q "
                               "words, N >= 4), else q (2N + 51) + 105 + N (even split)"),
    # the local softmax of the largest slice, then _ring_maxf (5N + 20) and
    # _ring_sumf (3N + 20)
    "_vsoftmax_ring": Collective(lambda V, s, N, a, chip, empty=0, leading=0: 33 * s + 153 + 8 * N + 40,
                                 "firmware.md 8: 33/element + 153, + 5N + 20 + 3N + 20"),
    # overlap on: the reduce-scatter inside the weight update; the model
    # adds the slowest node's _mxout (rows x V) to this: every word but the
    # node's own slice rides beside a weight of row 0 (3 instructions where
    # the two calls take 4: one cycle saved per word), and the fused entry
    # costs about 130 cycles of set-up more than the two calls'
    # (firmware.md 10, "The reduce-scatter during the update")
    "_ring_rs_mxout": Collective(lambda V, s, N, a, chip, empty=0, leading=0:
                                 _reduce_scatter(V, s, N, a, chip) - (V - s) + 130,
                                 "firmware.md 10: _mxout + reduce-scatter - (V - slice) + 130"),
    # overlap on: the forward all-gather streamed into the next layer's
    # product (_ring_allgather_mxv, firmware/overlap.asm); the model adds
    # the slowest node's _mxv (rows x V) and allgather_mxv_extra(rows, s, N)
    # to this: the fused kernel is the two calls plus its own costs, never
    # less (measured on 4-64 nodes: tests/firmware/test_fw_costs.py)
    "_ring_allgather_mxv": Collective(_allgather,
                                      "overlap.asm: all-gather + _mxv + rows (s + 2) + 90 + 1.2 N"),
}

#: _ring_allgather_mxv's fast path takes at most this many rows a node: the
#: parallel MPYF3 || ADDF3 adds into R2 or R3 only (TMS320C3x User's Guide,
#: 13.2), one accumulator a row (firmware/overlap.asm)
ALGMV_MAX_ROWS = 2


def allgather_mxv_extra(rows: int, s: int, N: int) -> float:
    """The cycles _ring_allgather_mxv takes beyond _ring_allgather followed
    by _mxv (``rows`` the slowest node's rows, ``s`` the largest slice, N
    the nodes): its set-up before the first words move (some 90 cycles more
    than the all-gather's, the product's set-up included), the last s + 2
    columns of each row multiplied after the ring's last word (the own
    slice goes at the chain's speed, its columns follow in lap 2), and about
    1.2 cycles a node of the chain (each node's switch waits for one more
    multiply-accumulate).  Measured against the two calls on V = 512, 4-64
    nodes (docs/bench.md, "Issue 14"): 79-347 cycles more, never less."""
    return rows * (s + 2) + 90 + 1.2 * N


# -- chains: when each node joins and leaves a collective ------------------------------
#
# A ring collective is a chain: it reaches node j some cycles after node 0
# starts it, and nodes leave in ring order.  ``join[j]``: how late node j may
# enter after the chain's start without holding it back; ``leave[j]``: when
# node j returns, after the start, every node having entered in time (the
# largest is the collective's machine time above).  The cost model
# (compiler/plan.py) starts a chain at max over j of (node j's arrival -
# join[j]) and lets node j go on at the start + leave[j]: consecutive chains
# then overlap as on the machine (a chain that starts at node 0 runs while
# later nodes still finish the previous one).  Checked against the
# simulator's per-node times by tests/firmware/test_fw_costs.py.

def _leading(sizes) -> int:
    """Empty slices before the first word."""
    return next((k for k, x in enumerate(sizes) if x > 0), len(sizes))


def _ring_order(N: int, last: float, hop: float):
    """Node N - 1 leaves first (it writes the last slice), then the last
    words go round: node j (j < N - 1) leaves (j + 1) hops after it, node
    N - 2 last, at ``last``."""
    import numpy as np
    j = np.arange(N, dtype=float)
    leave = last - (N - 2 - j) * hop
    leave[-1] = last - (N - 1) * hop
    return leave


def allgather_chain(off, N, a, chip):
    """(join, leave) of ``_ring_allgather``: the chain reaches node j after
    j hops of one cycle; the last slice (node N - 1's) then passes a hop a
    cycle when every non-empty slice has at least 4 words (the fast path),
    else 4 cycles a node (the small-slice path's set-up of the next
    segment: an RPTS set-up, firmware.md 10)."""
    import numpy as np
    V = off[-1]
    sizes = [b - a_ for a_, b in zip(off, off[1:])]
    s = min((x for x in sizes if x > 0), default=0)
    lead = _leading(sizes)
    C = _allgather(V, 0, N, a, chip, sizes.count(0), lead)
    join = np.arange(N, dtype=float)
    if lead:
        # the nodes before the first word set their segments up before the
        # chain reaches them: 80 cycles they need not wait for anyone
        join[:lead] -= 80
        C -= 80
    return join, _ring_order(N, C, 1.0 if s >= 4 else 4.0)


def reduce_scatter_chain(off, N, a, chip):
    """(join, leave) of ``_ring_reduce_scatter``: the chain reaches node j
    after j hops; node j's slice is complete once the partial sums have
    passed j + 1 more segment set-ups (per node, the formula's per-node
    cycles less the 7 of a hop's read and write: 6 in SRAM, 2 on chip).
    A vector of fewer words than nodes (a layer of fewer units than nodes
    split by columns: slices of 0 and 1 words, the last ones empty) sends
    every node down the general path: :func:`rs_general_leave` follows it.
    Other tables with empty slices (the node groups of the layers mapping,
    the grid's columns: slices of several words) keep the ring-order chain,
    which follows those programs within 1 % (docs/plan.md)."""
    import numpy as np
    if rs_general_path(off, N):
        return np.arange(N, dtype=float), rs_general_leave(tuple(off), N, a, chip)
    V = off[-1]
    C = _reduce_scatter(V, 0, N, a, chip)
    per_node = 9 if chip else 13 + 2 * (a - 1)
    return np.arange(N, dtype=float), _ring_order(N, C, per_node - 7)


# -- the reduce-scatter's general path (empty slices) ------------------------------
#
# firmware/ring.asm rs_gen: a table with an empty slice (a layer of fewer
# units than nodes split by columns, a layer on a node group) runs segment
# by segment, each segment a count test, a branch and, when it has words, an
# RPTB (ADDEMIT, ADDKEEP) or RPTS (SEND) set-up; a node with an empty slice
# still runs every segment (empty ones: the test and the taken branch).  The
# words are the fast path's: node j passes slice N-1 (lap 1a) and slices
# 0 .. j-2 (lap 1b), injects slice j-1, keeps slice j (lap 2a), passes
# slices j+1 .. N-2 (lap 2b); node 0 injects slice N-1, node N-1 keeps it.
# So slice k is injected by node k + 1 only once that node has passed the
# slices before it: the injections form a chain of a node's lap-1b exit and
# SEND set-up per node, which no formula in V and N follows.  The model
# runs each node's segments in order, word by word (a word read from the
# ring waits for the upstream node's write of it), with each segment's
# set-up instructions counted from the code; each call runs its code once,
# so most fetches miss the cache (SPRU031 9.1.2: a miss is a fetch from
# external memory, and with x in SRAM or DRAM it shares the primary bus with
# x's accesses): every set-up instruction costs RS_GENERAL["fetch"] cycles.
# The constants are the code's instruction counts, the fetch factor and the
# hop latencies measured on the simulator (tests/firmware/test_fw_costs.py
# holds every node's return within 5 % + 60 cycles).

#: per region of x ("chip", else external): cycles an instruction of a
#: set-up path (cache misses), the entry of node 0 / a middle node / node
#: N-1 up to its first segment (the fast path's tests, rs_gen's 15
#: instructions, a branch), a ring word's latency after the upstream node
#: read it, beyond an access to x (passed on: ``a + pass``), or injected it
RS_GENERAL = {"chip": {"fetch": 1.25, "entry": (55, 50, 55), "pass": 1, "inject": 1},
              "ext": {"fetch": 1.4, "entry": (70, 45, 55), "pass": 1.5, "inject": 0}}
#: instructions between the segments, per role (node 0, middle, node N-1):
#: before each segment, and after the last (ring.asm rs_gen .. RETS; a
#: standard branch or RETS 4, SPRU031 9.1)
_RS_BETWEEN = ((0, 7, 2), (5, 6, 2, 7, 2), (5, 2, 2))
_RS_TAIL = (4, 4, 5)
#: a segment's own set-up: (with words, empty); SEND also 5 after its words
_RS_SETUP = {"EMIT": (10, 5), "KEEP": (10, 5), "SEND": (10, 10)}


def _rs_segments(off, N, j):
    """Node j's segments on the general path: (kind, first word, end)."""
    V = off[-1]
    if j == 0:
        return (("SEND", off[N - 1], V), ("KEEP", 0, off[1]), ("EMIT", off[1], off[N - 1]))
    if j == N - 1:
        return (("KEEP", off[N - 1], V), ("EMIT", 0, off[N - 2]),
                ("SEND", off[N - 2], off[N - 1]))
    return (("EMIT", off[N - 1], V), ("EMIT", 0, off[j - 1]), ("SEND", off[j - 1], off[j]),
            ("KEEP", off[j], off[j + 1]), ("EMIT", off[j + 1], off[N - 1]))


@functools.lru_cache(maxsize=256)
def _rs_general(off: tuple, N: int, a: int, chip: bool) -> tuple:
    import numpy as np
    c = RS_GENERAL["chip" if chip else "ext"]
    f = c["fetch"]
    V = off[-1]
    word = 2 * a                                # a ring read and write, x read (and written)
    emit = np.full((N, V), np.nan)              # when node j put word w on the ring
    roles = [0 if j == 0 else 2 if j == N - 1 else 1 for j in range(N)]
    t = np.array([j + c["entry"][roles[j]] for j in range(N)], dtype=float)
    segs = [_rs_segments(off, N, j) for j in range(N)]
    done = [0] * N
    while any(done[j] < len(segs[j]) for j in range(N)):
        moved = False
        for j in range(N):
            role = roles[j]
            while done[j] < len(segs[j]):
                kind, lo, hi = segs[j][done[j]]
                if kind != "SEND" and hi > lo and np.isnan(emit[(j - 1) % N, lo:hi]).any():
                    break                       # its words have not reached the node yet
                start = t[j] + f * (_RS_BETWEEN[role][done[j]]
                                    + _RS_SETUP[kind][0 if hi > lo else 1])
                n = hi - lo
                if kind == "SEND":
                    emit[j, lo:hi] = start + a * np.arange(n) + c["inject"]
                    t[j] = start + a * n + (f * 5 if n else 0)
                elif n:
                    k = np.arange(n)
                    ready = emit[(j - 1) % N, lo:hi] - word * k
                    read = np.maximum.accumulate(np.maximum(ready, start)) + word * k
                    if kind == "EMIT":
                        emit[j, lo:hi] = read + a + c["pass"]
                    t[j] = read[-1] + word
                else:
                    t[j] = start
                done[j] += 1
                moved = True
        if not moved:
            raise ValueError(f"reduce-scatter general path: no node can go on ({off})")
    return tuple(t + f * np.array([_RS_TAIL[r] for r in roles]))


def rs_general_path(off, N: int) -> bool:
    """The tables the general path's model prices: fewer words than nodes,
    the last slice empty (every node then runs rs_gen)."""
    return N > 1 and off[N] < N and off[N] <= off[N - 1]


def rs_general_leave(off: tuple, N: int, a: int, chip: bool):
    """Every node's return from ``_ring_reduce_scatter`` on the general
    path (a table with an empty slice), node j entering j cycles after
    node 0 (the chain's start)."""
    import numpy as np
    return np.array(_rs_general(tuple(int(x) for x in off), N, a, chip))


def token_chain(N, lap1, lap2, extra):
    """(join, leave) of a token that goes round twice (``_ring_maxf``: lap1
    4, lap2 1, extra 20; ``_ring_sumf``: 2, 1, 20; firmware.md 8): it
    reaches node j after ``lap1`` j cycles, and its second lap (the
    result) passes node j ``lap2`` j cycles after node 0 has it."""
    import numpy as np
    j = np.arange(N, dtype=float)
    return lap1 * j, lap1 * N + extra + lap2 * j


#: the ring softmax (``_vsoftmax_ring``) per node: its local parts around
#: the two token chains, from a slice of s units (firmware.md 8: 33 s + 153
#: in all): the local maximum, then ``_ring_maxf``, the exponentials and
#: their sum, ``_ring_sumf``, the scaling
SOFTMAX_PARTS = ((2, 43), (29, 47), (2, 63))
SOFTMAX_TOKENS = ((4, 1, 20), (2, 1, 20))

def SUBRING_CHAIN(pos, n):
    """(join, leave) of ``_subring_reduce`` for the members at positions
    ``pos`` of their grid row (firmware.md 10b): the sums pass 2 cycles a
    hop, so member k joins 2 k after the first and leaves once it has
    passed them on, the last (k = c - 1) after the whole 2 n + 2 (c - 1) +
    52."""
    return 2 * pos, 2 * max(n, 0) + 2 * pos + 52


#: the collectives whose chain the model follows (the others: every node
#: enters together after the last and leaves at the machine time)
CHAINS = {"_ring_allgather": allgather_chain, "_ring_reduce_scatter": reduce_scatter_chain}
