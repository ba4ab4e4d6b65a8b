"""Overlapped collectives (Girau's computation/communication overlap; issue
14, docs/compiler.md "Overlapped collectives"): the net's ``overlap``
attribute, overridden by ``--overlap`` on ``rap cc``, ``rap train`` and
``rap bench``.

* ``off`` (the default): the RAP's blocking collectives, the programs of
  before (byte-identical);
* ``on`` = ``ring``: the reduce-scatter of a layer's partial error sums runs
  during the weight update of the connect that produced them, its ring
  accesses interleaved into the update's loop (firmware/ring.asm,
  ``_ring_rs_mxout``); the results are bit-identical to ``off``;
* ``dma`` (the C30's DMA moving the ring words) is refused with the reason
  (docs/compiler.md, "Open issues").

With ``on``, a forward all-gather that feeds the next layer's product could
also stream into it (``_ring_allgather_mxv``, firmware/overlap.asm: the same
bits as the all-gather followed by ``_mxv``): :func:`gather_fusion` says
where, from firmware/costs.py's model, and why not elsewhere -- measured,
the fused kernel is slower than the two calls on every shape tried
(docs/compiler.md, "Overlapped collectives"), so the model keeps the
blocking pair and rap cc/train print the reason.

Where ``--collectives`` would call the rotation for a reduce-scatter and
its formula is below the fused chain's, the reduce-scatter stays a
blocking rotation (:func:`rotation_instead`): the choice per layer is made
here, and rap cc/train print it (overlap_report) with both predictions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rapsim.errors import RapError

if TYPE_CHECKING:
    from rapsim.compiler.ir import Network

#: the values the attribute and the option take
OVERLAPS = ("off", "on", "ring", "dma")


def resolve(written: str, option: str | None = None) -> str:
    """The overlap a program is built with: ``option`` (the command line's)
    or else ``written`` (the description's); "on" is "ring".  Returns "off"
    or "ring"; raises RapError for "dma" and unknown names."""
    name = option if option is not None else written
    if name not in OVERLAPS:
        raise RapError(f"unknown overlap {name!r} (expected one of {', '.join(OVERLAPS)})")
    if name == "dma":
        raise RapError("overlap dma is not supported: the DMA channel takes 2 cycles a word "
                       "and each node's transfers must be started by the CPU on the chain's "
                       "critical path (measured: the all-gather by DMA takes 2336 cycles "
                       "against 887 on 40 nodes, more than it could hide; docs/compiler.md, "
                       "\"Open issues\"); use overlap on (ring) or off")
    return "ring" if name == "on" else name


def overlap_for(network: Network, mapping, option: str | None = None) -> str:
    """The overlap a program is built with ("off" or "ring"): ``option``
    (--overlap) or else the description's; refused for the mappings whose
    collectives it does not apply to."""
    overlap = resolve(network.overlap, option)
    if overlap != "off" and mapping.schedule != "lockstep":
        raise RapError(f"overlap {overlap} applies to schedule lockstep, not {mapping.schedule} "
                       f"(its ticks and frames have their own exchanges: docs/compiler.md, "
                       f"\"Schedules\")")
    if overlap != "off" and mapping.name in ("data", "hybrid", "checkerboard"):
        raise RapError(f"overlap {overlap} applies to the rows and layers mappings, not "
                       f"{mapping.name} (its collectives are all-reduces of the weight changes "
                       f"or a grid's sub-rings: docs/compiler.md, \"Overlapped collectives\")")
    return overlap


def rotation_instead(off, region: str, collectives: str, momentum: bool) -> str:
    """Why the reduce-scatter over the slice table ``off`` (a vector in
    ``region``) should stay a blocking rotation rather than run fused with
    the update (``_ring_rs_mxout``, ``_ring_rs_mxoutm`` with momentum): the
    rotation that ``collectives`` (--collectives) chooses is predicted
    cheaper than the fused chain's reduce-scatter, whose formula is its
    cost beside the update (firmware/costs.py); "" when it is not, or when
    the chain would be called.  (The update itself costs the same either
    way, so the collectives' formulas decide.)"""
    from rapsim.compiler.collectives import choose, cycles
    from rapsim.firmware.costs import COLLECTIVES
    c = choose("reduce_scatter", off, region, collectives)
    if c.plan is None:
        return ""
    fused_name = "_ring_rs_mxoutm" if momentum and "_ring_rs_mxoutm" in COLLECTIVES \
        else "_ring_rs_mxout"
    fused = cycles(fused_name, off, region)
    if c.rotation_cycles is not None and c.rotation_cycles >= fused:
        return ""
    rot = "?" if c.rotation_cycles is None else f"{c.rotation_cycles:.0f}"
    return (f"the rotation ({c.routine}, {rot} cycles predicted) is cheaper than the fused "
            f"chain's reduce-scatter ({fused:.0f})")


def gather_fusion(off, region: str, collectives: str, rows: int, weights: str) -> str:
    """Why the forward all-gather over the slice table ``off`` (a vector in
    ``region``) should not stream into the next layer's product of ``rows``
    rows a node at most (weights in ``weights``): "" when
    ``_ring_allgather_mxv`` is predicted no slower than ``_ring_allgather``
    followed by ``_mxv`` (firmware/costs.py), else the reason.  Where
    --collectives takes a rotation the words do not reach a node in column
    order, so no fusion gives the blocking pair's bits (docs/compiler.md)."""
    from rapsim.compiler.collectives import choose, cost_region
    from rapsim.firmware.costs import ALGMV_MAX_ROWS, DEFAULT_ACCESS, KERNELS, allgather_mxv_extra
    c = choose("allgather", off, region, collectives)
    if c.plan is not None:
        return (f"the all-gather is a rotation ({c.routine}): its words do not reach a node "
                f"in column order, so the product cannot follow them bit for bit")
    if rows > ALGMV_MAX_ROWS:
        return (f"{rows} rows a node, more than the fused kernel's {ALGMV_MAX_ROWS} "
                f"accumulators (R2, R3)")
    if rows < 1:
        return "no node has a row of the product"
    N, V = len(off) - 1, off[-1]
    s = max(b - a for a, b in zip(off, off[1:]))
    pair = c.chain_cycles + KERNELS["_mxv"].cycles(
        {"y": "chip", "W": cost_region(weights), "x": cost_region(region),
         "rows": rows, "cols": V, "b": "sram"}, DEFAULT_ACCESS)
    fused = pair + allgather_mxv_extra(rows, s, N)
    if fused > pair:
        return (f"the fused all-gather and product ({fused:.0f} cycles predicted) is slower "
                f"than the two calls ({pair:.0f})")
    return ""


def report_lines(report: list[dict]) -> list[str]:
    """The lines rap cc and rap train print for a plan's overlap_report (and
    gather_report): each reduce-scatter of the backward pass, overlapped
    with an update or left blocking and why, and each forward all-gather
    streamed into a product or not and why (never silently:
    docs/compiler.md)."""
    out = []
    for r in report:
        if r.get("collective") == "allgather":
            out.append(f"overlap ring: the all-gather of {r['layer']} "
                       + (f"streams into the product of {r['product']}" if r["overlapped"]
                          else f"stays blocking: {r['reason']}"))
        elif r["overlapped"]:
            out.append(f"overlap ring: the reduce-scatter of {r['layer']} runs during the "
                       f"update of {r['update']}")
        else:
            out.append(f"overlap ring: the reduce-scatter of {r['layer']} stays blocking: "
                       f"{r['reason']}")
    return out
