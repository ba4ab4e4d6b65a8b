"""Linker descriptions (``rap ld -T FILE``): parsing and checking.

The grammar is in ``linkscript.lark`` and explained in docs/linker.md.  A
description has up to three kinds of statement, in any order:

* ``MEMORY { NAME : origin = N, length = N ... }`` replaces the default
  regions (those of :meth:`rapsim.memmap.MemoryConfig.regions`);
* ``SECTIONS { .name [:] [{ input... }] [> REGION | > ADDRESS] [align(N)] ... }``
  places output sections;
* ``ENTRY(symbol)`` names the entry point.

Every error, syntactic or not, is reported as ``file:line:col: error: ...``
through :class:`rapsim.errors.Diagnostics`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from lark import Lark, Token, Tree, UnexpectedInput

from rapsim.errors import Diagnostics, RapError

from .objfile import ObjectFormatError, read_bytes


@dataclass
class RegionSpec:
    name: str
    origin: int
    length: int
    pos: str = ""              # "file:line:col" of the definition


@dataclass
class SectionRule:
    name: str                  # output section
    inputs: list[str] | None   # input section patterns ({...}); None: the name itself
    region: str | None = None
    address: int | None = None
    align: int = 1
    pos: str = ""


@dataclass
class LinkScript:
    path: str = "<script>"
    regions: list[RegionSpec] | None = None      # None: the default memory map
    sections: list[SectionRule] = field(default_factory=list)
    entry: str | None = None

    def rule(self, name: str) -> SectionRule | None:
        for r in self.sections:
            if r.name == name:
                return r
        return None


@functools.cache
def _parser() -> Lark:
    return Lark.open("linkscript.lark", rel_to=__file__, parser="lalr", propagate_positions=True)


def number(text: str) -> int:
    """A number of the description: 0x1F, 1Fh, 31 or 4K (4096)."""
    t = text.lower()
    if t.startswith("0x"):
        return int(t[2:], 16)
    if t.endswith("h"):
        return int(t[:-1], 16)
    if t.endswith("k"):
        return int(t[:-1]) * 1024
    return int(t)


class _Builder:
    def __init__(self, path: str):
        self.path = path
        self.script = LinkScript(path)
        self.errors: list[str] = []

    def pos(self, item) -> str:
        line = getattr(item, "line", None) or getattr(getattr(item, "meta", None), "line", 0)
        col = getattr(item, "column", None) or getattr(getattr(item, "meta", None), "column", 0)
        return f"{self.path}:{line}:{col}"

    def error(self, item, msg: str) -> None:
        self.errors.append(f"{self.pos(item)}: error: {msg}")

    def build(self, tree: Tree) -> LinkScript:
        for st in tree.children:
            getattr(self, st.data)(st)
        return self.script

    def memory(self, t: Tree) -> None:
        if self.script.regions is not None:
            self.error(t, "a second MEMORY block (put all regions in one)")
        self.script.regions = regions = self.script.regions or []
        for r in t.children:
            name = str(r.children[0])
            vals = {c.data: number(c.children[1]) for c in r.children[1:] if isinstance(c, Tree)
                    and c.data in ("origin", "length")}
            if any(x.name == name for x in regions):
                self.error(r, f"memory region {name} is defined twice")
            if vals["length"] <= 0:
                self.error(r, f"memory region {name} has length 0")
            regions.append(RegionSpec(name, vals["origin"], vals["length"], self.pos(r)))

    def sections(self, t: Tree) -> None:
        for o in t.children:
            name = str(o.children[0])
            rule = SectionRule(name, None, pos=self.pos(o))
            for c in o.children[1:]:
                if c.data == "inputs":
                    rule.inputs = [str(x) for x in c.children] or None   # {}: the name itself
                elif c.data == "to_region":
                    rule.region = str(c.children[-1])
                elif c.data == "to_address":
                    rule.address = number(c.children[-1])
                elif c.data == "align":
                    rule.align = number(c.children[-1])
                    if rule.align < 1 or rule.align & (rule.align - 1):
                        self.error(c, f"align({rule.align}) is not a power of 2")
                    elif rule.align > 1 << 24:
                        self.error(c, f"align({rule.align}) is larger than the 24-bit "
                                      "address space")
            if rule.region is not None and rule.address is not None:
                self.error(o, f"{name} is given both a region and an address")
            if self.script.rule(name):
                self.error(o, f"output section {name} appears twice in SECTIONS")
            self.script.sections.append(rule)

    def entry(self, t: Tree) -> None:
        if self.script.entry is not None:
            self.error(t, "ENTRY given twice")
        self.script.entry = str(t.children[0])


def _syntax_message(e: UnexpectedInput, text: str) -> str:
    tok = getattr(e, "token", None)
    if isinstance(tok, Token):
        what = "end of file" if tok.type == "$END" else repr(str(tok))
    else:
        what = repr(text[e.pos_in_stream:e.pos_in_stream + 1]) if e.pos_in_stream is not None \
            else "input"
    expected = sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or [])
    hint = {"NAME": "a name", "NUMBER": "a number", "SECNAME": "a section name",
            "RBRACE": "'}'", "LBRACE": "'{'", "COLON": "':'", "EQUAL": "'='", "MORETHAN": "'>'",
            "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "ORIGIN_KW": "'origin'",
            "LENGTH_KW": "'length'", "LOAD": "'load'", "ALIGN_KW": "'align'"}
    words = [hint.get(x, x) for x in expected if not x.startswith("__")][:6]
    return f"unexpected {what}" + (f"; expected {', '.join(words)}" if words else "")


def parse_script(text: str, path: str = "<script>") -> LinkScript:
    """Parse a linker description; raise Diagnostics for any error."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        raise Diagnostics([f"{path}:{e.line}:{e.column}: error: {_syntax_message(e, text)}"]) from None
    b = _Builder(path)
    script = b.build(tree)
    if b.errors:
        raise Diagnostics(b.errors)
    return script


def read_script(path: str) -> LinkScript:
    try:
        data = read_bytes(path)
    except ObjectFormatError as e:
        raise RapError(str(e)) from None
    try:
        text = data.decode("utf-8-sig")         # a byte-order mark is skipped
    except UnicodeDecodeError:
        raise Diagnostics([f"{path}:1:1: error: not a text file (invalid UTF-8)"]) from None
    return parse_script(text, str(Path(path)))
