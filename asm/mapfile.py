"""The link map (``rap ld -m FILE``): a plain-text report of a link.

Four parts: the entry point; the memory regions with their use; each output
section with its address, size and input pieces; every symbol sorted by
address.  Numbers are hexadecimal with 6 digits for addresses and decimal
for sizes in words.  docs/linker.md shows an example.
"""
from __future__ import annotations

from .linker import LinkResult


def _a(v: int) -> str:
    return f"0x{v:06X}"


def render(res: LinkResult, output: str = "") -> str:
    L = ["RAP link map" + (f" for {output}" if output else ""), ""]
    entry = _a(res.image.entry) + (f" ({res.entry_name})" if res.entry_name else "")
    L.append(f"entry point: {entry}")
    L.append("reset vector: " + ("word 0x000000 written by the linker" if res.reset_vector
                                 else "provided by the input (a section occupies address 0)"))
    L.append("inputs: " + ", ".join(i.name for i in res.inputs))
    L += ["", "Memory regions", f"  {'name':<12} {'origin':<9} {'end':<9} {'length':>9} "
          f"{'used':>9} {'free':>9}  first free"]
    for r in res.regions:
        L.append(f"  {r.name:<12} {_a(r.origin)}  {_a(r.end - 1)}  {r.length:>9} {r.used:>9} "
                 f"{r.length - r.used:>9}  {_a(r.free)}")
    L += ["", "Output sections", f"  {'name':<16} {'address':<9} {'size':>8}  {'kind':<5} region"]
    for o in sorted(res.sections, key=lambda o: (o.address, o.name)):
        note = f"  ({o.note})" if o.note else ""
        align = f"  align {o.align}" if o.align > 1 else ""
        L.append(f"  {o.name:<16} {_a(o.address)}  {o.size:>8}  {o.kind:<5} {o.region or '-'}{align}{note}")
        for p in o.pieces:
            L.append(f"      {_a(o.address + p.offset)}  {p.section.size:>8}  {p.input.name}"
                     + (f" ({p.section.name})" if p.section.name != o.name else ""))
    L += ["", "Symbols (by address)", f"  {'address':<9} {'binding':<7} {'name':<32} defined in"]
    for s in sorted(res.symbols, key=lambda s: (s.address, s.name)):
        L.append(f"  {_a(s.address)}  {s.binding:<7} {s.name:<32} {s.origin}")
    return "\n".join(L) + "\n"
