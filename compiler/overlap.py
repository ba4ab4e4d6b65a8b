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


def report_lines(report: list[dict]) -> list[str]:
    """The lines rap cc and rap train print for a plan's overlap_report:
    each reduce-scatter of the backward pass, overlapped with an update or
    left blocking and why (never silently: docs/compiler.md)."""
    out = []
    for r in report:
        if r["overlapped"]:
            out.append(f"overlap ring: the reduce-scatter of {r['layer']} runs during the "
                       f"update of {r['update']}")
        else:
            out.append(f"overlap ring: the reduce-scatter of {r['layer']} stays blocking: "
                       f"{r['reason']}")
    return out
