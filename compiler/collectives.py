"""Which all-gather and reduce-scatter a program calls: the chain
(ring.asm) or the rotation (rotation.asm), per collective, from their cycle
formulas (firmware/costs.py).

Both give the same words and the same sums bit for bit (the rotation adds
in the chain's order: docs/firmware.md section 10, "Rotations"), so the
choice changes only the cycles.  ``rap cc/train --collectives``:

* ``auto`` (the default): the rotation where its formula is below 80 % of
  the chain's (:data:`ROTATION_MARGIN`) for the layer's slice table, vector
  and memory, and only on the even split (the tables its formula is
  measured on); the chain everywhere else (node groups, the hybrid's
  slots, large slices);
* ``chain``: the chains everywhere (the figures before the rotations);
* ``rotation``: the rotation wherever the collective is a layer's
  (any slice table: its plan is made for that table).

The rotation needs its plan in the program's data (N + a few words per
node and segment): :func:`choose` returns it with the routine.
"""
from __future__ import annotations

from dataclasses import dataclass

from rapsim.compiler.lower import Split
from rapsim.errors import RapError
from rapsim.firmware.costs import COLLECTIVES, DEFAULT_ACCESS
from rapsim.firmware.rotation import allgather_plan, rs_plan

MODES = ("auto", "chain", "rotation")

#: auto takes the rotation where its formula is below this share of the
#: chain's: each formula is good to 3 % + 40 cycles in isolation
#: (tests/firmware/test_fw_costs.py), and in a program the chain does better
#: than its formula (it starts as each node arrives, a rotation's phases
#: wait for the last node; measured on speech 234-512-61, 64 nodes, before
#: the rotations' fast path: a rotation predicted 2 % and 18 % cheaper was
#: 3 % dearer and even; with the fast path, predicted 32 % and 33 %
#: cheaper, the program is 4.9 % faster: docs/bench.md "Issue 14")
ROTATION_MARGIN = 0.8

#: kind -> (chain routine, rotation routine, plan maker)
ROUTINES = {"allgather": ("_ring_allgather", "_ring_allgather_rot", allgather_plan),
            "reduce_scatter": ("_ring_reduce_scatter", "_ring_rs_rot", rs_plan)}


@dataclass(frozen=True)
class Choice:
    """The routine one collective calls, its plan (None for a chain) and
    both routines' predicted cycles (machine time of one call)."""
    kind: str
    routine: str
    plan: list[int] | None
    chain_cycles: float
    rotation_cycles: float | None


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise RapError(f"--collectives: {mode!r} is not one of {', '.join(MODES)}")
    return mode


def cost_region(region: str) -> str:
    """A placement region as firmware/costs.py names it ("chip", "sram", "dram")."""
    return "chip" if region in ("ram0", "ram1", "chip") else region


def cycles(routine: str, off, region: str) -> float:
    """The formula's cycles (firmware/costs.py) of the ring collective
    ``routine`` over the slice table ``off`` of a vector in ``region`` (a
    placement region, as :func:`choose` takes it)."""
    region = cost_region(region)
    n, V = len(off) - 1, off[-1]
    s = max(b - a for a, b in zip(off, off[1:]))
    return COLLECTIVES[routine].cycles(V, s, n, DEFAULT_ACCESS[region], region == "chip")


def choose(kind: str, off, region: str, mode: str = "auto") -> Choice:
    """The collective ``kind`` ("allgather" or "reduce_scatter") over the
    slice table ``off`` of a vector in ``region`` (a placement region of
    rapsim.compiler.lower: "ram0", "ram1", "chip", "sram", "dram"),
    under ``mode`` (:data:`MODES`)."""
    chain, rot, make = ROUTINES[kind]
    chain_cycles = cycles(chain, off, region)
    rot_cycles = cycles(rot, off, region) \
        if tuple(off) == Split.even(off[-1], len(off) - 1).off else None
    check_mode(mode)
    if mode == "rotation" or (mode == "auto" and rot_cycles is not None
                              and rot_cycles < ROTATION_MARGIN * chain_cycles):
        return Choice(kind, rot, make(off), chain_cycles, rot_cycles)
    return Choice(kind, chain, None, chain_cycles, rot_cycles)
