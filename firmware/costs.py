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
    # a chain down a grid row (c contiguous nodes), all rows at once on
    # disjoint links: each member 2 n + 2 (c - 1) + 52 (firmware.md 10b)
    "_subring_reduce": Kernel(("x", "n", "first", "last"),
                              lambda a, acc: 2 * max(a["n"], 0) + 2 * (a["last"] - a["first"])
                              + 52 if a["n"] > 0 and a["last"] > a["first"] else 30,
                              "firmware.md 10b: 2n + 2(c - 1) + 52"),
}


@dataclass(frozen=True)
class Collective:
    """A ring collective: ``cycles(V, slice, N, a, chip)`` machine cycles,
    with V the words of the vector (or the slice table's last offset),
    ``slice`` the largest node's slice, N the nodes, ``a`` the cycles of
    one access to the vector x (1 on chip and in SRAM, 3 in DRAM: every
    word of x is read or written once per pass, so its access time adds to
    the ring's one cycle per hop) and ``chip`` whether x is on chip."""
    cycles: Callable[[int, int, int, int, bool], float]
    source: str


def _allgather(V, s, N, a, chip):
    # a chain from node 0: one hop per word and per node, and an RPTS
    # set-up at every node's switch from forwarding to writing
    return a * V + 7 * N + 80 if N > 1 else 0


def _reduce_scatter(V, s, N, a, chip):
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
    return q * (a * N + 43 + 12 * pad) + pad * (N + (a - 1) * r + 103) + 99 + N


def _rs_rot(V, s, N, a, chip):
    # a phase: N - 1 words at 2 cycles a hop (a ring read and a ring write:
    # the expansion bus), x read beside it (DRAM: a - 1 cycles more a word),
    # segment set-ups as the all-gather's (firmware.md 10, "Rotations")
    if N < 2:
        return 0
    q, pad, r = _rotation(V, N)
    return q * ((a + 1) * N + 51 + 14 * pad) + pad * (2 * N + (a - 1) * r + 97) + 105 + N


COLLECTIVES: dict[str, Collective] = {
    "_ring_allgather": Collective(_allgather, "firmware.md 10: V + 7N + 80 (x in DRAM: 3V)"),
    "_ring_reduce_scatter": Collective(_reduce_scatter,
                                       "firmware.md 10: 2V + 13N + 85 (on chip 9N; DRAM 6V)"),
    "_ring_allreduce": Collective(lambda V, s, N, a, chip: _reduce_scatter(V, s, N, a, chip)
                                  + _allgather(V, s, N, a, chip), "reduce-scatter + all-gather"),
    "_ring_allgather_rot": Collective(_allgather_rot,
                                      "firmware.md 10 Rotations: q (N + 43) + 99 + N (even split)"),
    "_ring_rs_rot": Collective(_rs_rot,
                               "firmware.md 10 Rotations: q (2N + 51) + 105 + N (even split)"),
    "_ring_barrier": Collective(lambda V, s, N, a, chip: 2 * N + 35, "firmware.md 10: 2N + 35"),
    # the local softmax of the largest slice, then _ring_maxf (5N + 20) and
    # _ring_sumf (3N + 20)
    "_vsoftmax_ring": Collective(lambda V, s, N, a, chip: 33 * s + 153 + 8 * N + 40,
                                 "firmware.md 8: 33/element + 153, + 5N + 20 + 3N + 20"),
    # overlap on: the reduce-scatter inside the weight update; the model
    # adds the slowest node's _mxout (rows x V) to this: every word but the
    # node's own slice rides beside a weight of row 0 (3 instructions where
    # the two calls take 4: one cycle saved per word), and the fused entry
    # costs about 130 cycles of set-up more than the two calls'
    # (firmware.md 10, "The reduce-scatter during the update")
    "_ring_rs_mxout": Collective(lambda V, s, N, a, chip: _reduce_scatter(V, s, N, a, chip)
                                 - (V - s) + 130,
                                 "firmware.md 10: _mxout + reduce-scatter - (V - slice) + 130"),
}
