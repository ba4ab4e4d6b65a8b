"""Section layout for the linker: merging input sections into output sections
and placing those in memory regions.

Default placement (no linker description, or sections it does not name):

=================================  =========
input section name                 region
=================================  =========
``.vectors*``                      VECTORS
``.ram0*``                         RAM0
``.ram1*``                         RAM1
``.dram*``                         DRAM
anything else                      SRAM
=================================  =========

Within a region, sections named in the description's SECTIONS come first, in
its order; then ``.text``, ``.data``, the other initialised sections (in the
order they first appear on the command line), ``.bss``, and the other
uninitialised sections.  A section is placed at the first address after the
previous one that is a multiple of its alignment and does not overlap a
section given a fixed address.  Same-named input sections are concatenated
in command-line order, each at a multiple of its own alignment.
"""
from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field

from .linkscript import LinkScript, SectionRule
from .objfile import ObjectFile, Section

DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    (".vectors", "VECTORS"), (".ram0", "RAM0"), (".ram1", "RAM1"), (".dram", "DRAM"))
DEFAULT_REGION = "SRAM"
_KIND_RANK = {"text": 0, "data": 1, "bss": 2}
#: Names of linker-defined symbols: ``__x_start``/``__x_end`` (sections),
#: ``__R_start``/``__R_end``/``__R_free`` (regions).
LINKER_SYMBOL = re.compile(r"__(\w+?)_(start|end|free)$")


@dataclass
class Input:
    """One object taking part in the link."""
    name: str                       # "a.obj" or "lib.a(m.obj)"
    obj: ObjectFile
    order: tuple[int, int] = (0, 0)  # (command-line position, archive member index)
    bases: dict[str, int] = field(default_factory=dict)   # section -> final address


@dataclass
class Piece:
    input: Input
    section: Section
    offset: int = 0                 # within the output section


@dataclass
class OutSection:
    name: str
    kind: str = "data"
    pieces: list[Piece] = field(default_factory=list)
    align: int = 1
    size: int = 0
    address: int = 0
    region: str | None = None
    rule: SectionRule | None = None
    note: str = ""                  # why the linker made it (reset vector, ...)

    @property
    def end(self) -> int:
        return self.address + self.size


@dataclass
class RegionUse:
    name: str
    origin: int
    length: int
    used: int = 0                   # words occupied by sections
    free: int = 0                   # first address after the last section

    @property
    def end(self) -> int:
        return self.origin + self.length


def align_up(v: int, a: int) -> int:
    return -(-v // a) * a


def symbol_key(name: str) -> str:
    """The part of a linker-defined symbol naming section ``name``:
    ``.text`` -> ``text``, ``.ram0.data`` -> ``ram0_data``."""
    return re.sub(r"\W", "_", name.lstrip("."))


def _output_name(name: str, script: LinkScript | None) -> str:
    if script:
        for r in script.sections:
            if r.inputs is None and r.name == name:
                return r.name
            if r.inputs and any(fnmatch.fnmatchcase(name, p) for p in r.inputs):
                return r.name
    return name


def merge(inputs: list[Input], script: LinkScript | None) -> list[OutSection]:
    """Output sections from the inputs' sections, in order of first appearance."""
    out: dict[str, OutSection] = {}
    for inp in inputs:
        for sec in inp.obj.sections:
            name = _output_name(sec.name, script)
            o = out.setdefault(name, OutSection(name, sec.kind, rule=script.rule(name) if script else None))
            o.pieces.append(Piece(inp, sec))
    for o in out.values():
        o.kind = min((p.section.kind for p in o.pieces), key=_KIND_RANK.__getitem__, default=o.kind)
        size, align = 0, o.rule.align if o.rule else 1
        for p in o.pieces:
            size = p.offset = align_up(size, p.section.align)
            size += p.section.size
            align = math.lcm(align, p.section.align)
        o.size, o.align = size, align
    return list(out.values())


def default_region(name: str) -> str:
    for prefix, region in DEFAULT_RULES:
        if name.startswith(prefix):
            return region
    return DEFAULT_REGION


def _default_rank(o: OutSection) -> int:
    if o.name == ".text":
        return 0
    if o.name == ".data":
        return 1
    if o.name == ".bss":
        return 3
    return 4 if o.kind == "bss" else 2


def place(sections: list[OutSection], regions: list[RegionUse],
          script: LinkScript | None) -> list[str]:
    """Give every section an address; return the error messages."""
    errors: list[str] = []
    by_name = {r.name: r for r in regions}
    script_order = {r.name: i for i, r in enumerate(script.sections)} if script else {}
    fixed = [o for o in sections if o.rule and o.rule.address is not None]
    for o in fixed:
        o.address = o.rule.address
        home = [r for r in regions if r.origin <= o.address < r.end]
        o.region = home[0].name if home else None
        if o.address % o.align:
            errors.append(f"{o.rule.pos}: error: address {o.address:#08x} of {o.name} is not a "
                          f"multiple of its alignment {o.align}")
        if not home and o.size:
            errors.append(f"{o.name} at fixed address {o.address:#08x} is not in any memory region")
    queues: dict[str, list[tuple[tuple, OutSection]]] = {}
    for i, o in enumerate(sections):
        if o in fixed:
            continue
        rname = o.rule.region if o.rule and o.rule.region else default_region(o.name)
        if rname not in by_name:
            where = f"{o.rule.pos}: error: " if o.rule and o.rule.region else ""
            how = "" if where else " (its default region); place it with -T SECTIONS"
            errors.append(f"{where}no memory region {rname} for section {o.name}{how}")
            continue
        key = (0, script_order[o.name], 0) if o.name in script_order else (1, _default_rank(o), i)
        queues.setdefault(rname, []).append((key, o))
    for r in regions:
        busy = sorted((o.address, o.end) for o in fixed if o.size)
        cur = r.origin
        for _, o in sorted(queues.get(r.name, []), key=lambda x: x[0]):
            cur = align_up(cur, o.align)
            moved = True
            while moved and o.size:
                moved = False
                for a, b in busy:
                    if a < cur + o.size and cur < b:
                        cur, moved = align_up(b, o.align), True
            o.address, o.region = cur, r.name
            cur += o.size
    return errors


def check(sections: list[OutSection], regions: list[RegionUse]) -> list[str]:
    """Fill in region use; report overflows and overlaps."""
    errors = []
    for r in regions:
        mine = [o for o in sections if o.region == r.name and o.size]
        r.used = sum(o.size for o in mine)
        r.free = max((o.end for o in mine), default=r.origin)
        if r.free > r.end:
            names = ", ".join(f"{o.name} ({o.size} words)" for o in mine)
            errors.append(f"memory region {r.name} overflows by {r.free - r.end} words: "
                          f"{r.length} words at {r.origin:#08x}, sections {names} "
                          f"reach {r.free:#08x}")
    placed = sorted((o for o in sections if o.size), key=lambda o: (o.address, o.end))
    last = None
    for o in placed:
        if last is not None and o.address < last.end:
            errors.append(f"sections {last.name} ({last.address:#08x}-{last.end - 1:#08x}) and "
                          f"{o.name} ({o.address:#08x}-{o.end - 1:#08x}) overlap")
        if last is None or o.end > last.end:
            last = o
    return errors
