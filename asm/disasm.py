"""The disassembler: objects, images and hex words back to TI-syntax source.

All instruction knowledge comes from :mod:`rapsim.asm.decoder` (and through
it the ISA table).  The output re-assembles to the same words:

* each section (object) or segment (image) becomes ``.text``, ``.data``,
  ``.sect "name"``, or for uninitialised ones ``.bss label, n`` (section
  ``.bss``) / ``label .usect "name", n``;
* text sections are decoded one instruction per line, with the address and
  the word in a trailing comment; a word that is not a legal instruction, or
  one the assembler would encode differently (:func:`decoder.is_canonical`),
  is written ``.word 0x........``, and so is every word of a data section;
* an operand with a relocation (objects) is written with its symbol
  (``CALL printf``, ``.word table+4``); a PC-relative target gets a label
  from the symbol table, or a made-up ``L...`` label when it falls inside
  the section, or ``$+n``; an absolute address without relocation stays a
  number in an object (naming it would make it relocatable) and gets a
  symbol's name in an image.

An image's segments are printed as sections of their own names; re-linking
the re-assembled object with the linker description printed in the header
(each section at its fixed address) reproduces the image.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from . import decoder
from .isa import Kind
from .layout import LINKER_SYMBOL
from .objfile import Image, ObjectFile, Relocation
from .reloc import RelocKind

#: The operand kind each relocation kind fills.
RELOC_OPERAND = {RelocKind.ABS24: Kind.ADDR24, RelocKind.PCREL16: Kind.PCREL,
                 RelocKind.PCREL16D: Kind.PCREL, RelocKind.DIR16: Kind.DIR,
                 RelocKind.SIMM16: Kind.SIMM, RelocKind.UIMM16: Kind.UIMM,
                 RelocKind.DP16: Kind.DPIMM}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*$")   # as the assembler's IDENT
_HEX_LINE = re.compile(r"^(?:(?:0x)?(?P<addr>[0-9A-Fa-f]+)\s*:\s*)?"
                       r"(?:0x)?(?P<word>[0-9A-Fa-f]{8})$")
COMMENT_COLUMN = 40


@dataclass
class Chunk:
    """One section or segment to print."""
    name: str
    kind: str                        # text, data, bss
    base: int                        # address of word 0 (0 in objects)
    size: int
    words: np.ndarray | None
    labels: dict[int, list[str]] = field(default_factory=dict)   # offset -> names
    relocs: dict[int, Relocation] = field(default_factory=dict)
    align: int = 1

    def add_label(self, off: int, name: str) -> None:
        self.labels.setdefault(off, []).append(name)


def parse_hex(text: str, name: str = "<hex>", base: int | None = None) -> tuple[np.ndarray, int]:
    """``(words, address of the first)`` of a hex listing: one 8-digit word per
    line, optionally after ``ADDRESS:``; blank lines and ``;``/``#`` comments
    are ignored.  The addresses, where given, must follow each other (a gap
    would put every later word, and branch target, at a wrong address); the
    first one is the base unless ``base`` is given, which it must then equal."""
    words = []
    for n, m in _hex_lines(text, name):
        if m.group("addr") is not None:
            addr, want = int(m.group("addr"), 16), (base or 0) + len(words)
            if base is None and not words:
                base = addr
            elif addr != want and not words:
                raise ValueError(f"{name}:{n}: address 0x{addr:06X} of the first word is not "
                                 f"--base 0x{base:06X}")
            elif addr != want:
                raise ValueError(f"{name}:{n}: address 0x{addr:06X} is not the next one, "
                                 f"0x{want:06X} (the words must be consecutive)")
        words.append(int(m.group("word"), 16))
    return np.array(words, dtype=np.uint32), base or 0


def _hex_lines(text: str, name: str):
    """``(line number, match)`` of each word line of a hex listing."""
    for n, line in enumerate(text.splitlines(), 1):
        line = re.split(r"[;#]", line, maxsplit=1)[0].strip()
        if not line:
            continue
        m = _HEX_LINE.match(line)
        if not m:
            raise ValueError(f"{name}:{n}: not an 8-digit hex word: {line!r}")
        yield n, m


def looks_like_hex(data: bytes) -> bool:
    try:
        for _ in _hex_lines(data.decode("utf-8-sig"), ""):
            pass
    except (UnicodeDecodeError, ValueError):
        return False
    return bool(data.strip())


class _Namer:
    """Valid, unique label names."""

    def __init__(self):
        self.used: set[str] = set()

    def take(self, name: str) -> str:
        n = name if _IDENT.match(name) else re.sub(r"\W", "_", name.split(":")[-1])
        if not _IDENT.match(n):
            n = "_" + n
        base, k = n, 1
        while n in self.used:
            k += 1
            n = f"{base}_{k}"
        self.used.add(n)
        return n


def _quoted(text: str) -> str:
    """``text`` inside a string constant (a quote is doubled)."""
    return text.replace('"', '""')


def _hexw(v: int) -> str:
    return f"0x{v:08X}"


def _plus(name: str, k: int) -> str:
    return name if k == 0 else f"{name}{k:+d}"


class Disassembler:
    """Prints a list of chunks.  ``absolute``: addresses are final (images,
    hex words), so a PC-relative target may be in another chunk.
    ``name_addresses``: absolute addresses (BR, CALL, RPTB) may be written as
    labels, because the output is re-linked at the same addresses (images)."""

    def __init__(self, chunks: list[Chunk], absolute: bool, reserved: set[str] = frozenset(),
                 name_addresses: bool = False):
        self.chunks = chunks
        self.absolute = absolute
        self.name_addresses = name_addresses
        self.namer = _Namer()
        for c in chunks:
            for off, names in c.labels.items():
                c.labels[off] = [self.namer.take(n) for n in names]
        self.namer.used.update(reserved)

    # -- labels ---------------------------------------------------------
    def _chunk_at(self, addr: int, chunk: Chunk) -> tuple[Chunk, int] | None:
        cands = [chunk] + ([c for c in self.chunks if c is not chunk] if self.absolute else [])
        for c in cands:
            if c.base <= addr <= c.base + c.size:
                return c, addr - c.base
        return None

    def label_at(self, chunk: Chunk, off: int, make: bool) -> str | None:
        names = chunk.labels.get(off)
        if names:
            return names[0]
        if not make:
            return None
        tag = f"{chunk.base + off:06X}" if self.absolute else f"{self.chunks.index(chunk)}_{off:04X}"
        name = self.namer.take("L" + tag)
        chunk.add_label(off, name)
        return name

    def _target_label(self, chunk: Chunk, addr: int, make: bool) -> str | None:
        hit = self._chunk_at(addr, chunk)
        return self.label_at(*hit, make=make) if hit else None

    def reloc_text(self, r: Relocation) -> str:
        if r.symbol == "":
            return f"0x{r.addend & 0xFFFFFFFF:X}" if r.addend >= 0 else str(r.addend)
        sec = next((c for c in self.chunks if c.name == r.symbol), None)
        if sec is None:
            return _plus(r.symbol, r.addend)
        if 0 <= r.addend <= sec.size:
            return self.label_at(sec, r.addend, make=True)
        return _plus(self.label_at(sec, 0, make=True), r.addend)

    def prepare(self) -> None:
        """Make the labels branch targets and relocations need."""
        for c in self.chunks:
            for r in c.relocs.values():
                self.reloc_text(r)
            if c.kind != "text" or c.words is None:
                continue
            for off, w in enumerate(c.words):
                d = decoder.decode(int(w))
                if d is None or off in c.relocs or not decoder.is_canonical(d):
                    continue
                for spec, op in zip(d.form.operands, d.operands):
                    if spec.kind is Kind.PCREL:
                        self._target_label(c, c.base + off + op.value + d.form.pcrel_base, make=True)

    # -- printing -------------------------------------------------------
    def _line(self, text: str, addr: int, word: int | None = None, label: str = "") -> str:
        tail = f"; {addr:06X}" + (f"  {word:08X}" if word is not None else "")
        return f"{label:<7} {text:<{COMMENT_COLUMN - 9}} {tail}".rstrip()

    def _instruction(self, c: Chunk, off: int, w: int) -> str | None:
        d = decoder.decode(w)
        if d is None or not decoder.is_canonical(d):
            return None
        texts: dict[int, str] = {}
        r = c.relocs.get(off)
        kinds = [s.kind for s in d.form.operands]
        if r is not None:
            want = RELOC_OPERAND.get(r.kind)
            if want not in kinds:
                return None
            texts[kinds.index(want)] = self.reloc_text(r)
        elif not self.name_addresses and Kind.ADDR24 in kinds:
            i = kinds.index(Kind.ADDR24)
            texts[i] = f"0x{d.operands[i].value:06X}"
        return decoder.format_instruction(
            d, c.base + off, lambda a: self._target_label(c, a, make=False), texts)

    def _word(self, c: Chunk, off: int, w: int) -> str:
        r = c.relocs.get(off)
        if r is not None and r.kind is RelocKind.WORD32:
            return ".word   " + self.reloc_text(r)
        if r is not None:
            # only an instruction can carry this relocation, and the word is
            # not one that takes it: source written back would drop it
            raise ValueError(f"section {c.name}, offset 0x{off:X}: relocation {r.kind.value} "
                             f"against {r.symbol!r} on the word {w:08X}, which is not an "
                             "instruction with such an operand (a corrupt object?)")
        return ".word   " + _hexw(w)

    def _header(self, c: Chunk) -> list[str]:
        if c.kind == "bss":
            return []
        if c.name in (".text", ".data"):
            d = c.name
        else:
            d = f'.sect   "{_quoted(c.name)}"'
        # .align at offset 0 pads nothing but gives the section its alignment back
        return ["", f"        {d}"] + ([f"        .align  {c.align}"] if c.align > 1 else [])

    def _bss(self, c: Chunk) -> list[str]:
        """``.bss``/``.usect`` lines, one per label (a made-up one at 0)."""
        self.label_at(c, 0, make=True)
        offs = sorted(o for o in c.labels if 0 <= o <= c.size)
        out = [""]
        for i, off in enumerate(offs):
            nxt = offs[i + 1] if i + 1 < len(offs) else c.size
            names = c.labels[off]
            for j, name in enumerate(names):
                n = nxt - off if j == len(names) - 1 else 0
                # the first reservation carries the section's alignment
                n = f"{n},{c.align}" if c.align > 1 and len(out) == 1 else n
                if c.name == ".bss":
                    out.append(self._line(f".bss    {name},{n}", c.base + off))
                else:
                    out.append(self._line(f'.usect  "{_quoted(c.name)}",{n}', c.base + off,
                                          label=name))
        return out

    def chunk_lines(self, c: Chunk) -> list[str]:
        if c.kind == "bss" or c.words is None:
            return self._bss(c)
        out = self._header(c)
        for off in range(c.size):
            out += [f"{n}:" for n in c.labels.get(off, [])]
            w = int(c.words[off])
            r = c.relocs.get(off)
            # an instruction's relocation in a data section (code in .data)
            # keeps its instruction form: a .word could not carry it
            code = c.kind == "text" or (r is not None and r.kind is not RelocKind.WORD32)
            text = self._instruction(c, off, w) if code else None
            out.append(self._line(text or self._word(c, off, w), c.base + off, w))
        out += [f"{n}:" for n in c.labels.get(c.size, [])]
        return out

    def render(self, header: list[str], prologue: list[str] = ()) -> str:
        self.prepare()
        body = [line for c in self.chunks for line in self.chunk_lines(c)]
        return "\n".join([f"; {h}" if h else ";" for h in header] + list(prologue) + body) + "\n"


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def disassemble_object(obj: ObjectFile, name: str = "<object>") -> str:
    chunks = []
    for s in obj.sections:
        c = Chunk(s.name, s.kind, 0, s.size, s.data, align=s.align)
        c.relocs = {r.offset: r for r in s.relocs}
        chunks.append(c)
    by_name = {c.name: c for c in chunks}
    prologue = []
    outside = []               # symbols of a section beyond its ends (X .set lab+100)
    for y in obj.symbols:
        if y.binding == "global" or y.binding == "undefined":
            prologue.append(f"        .global {y.name}")
        if y.binding != "undefined" and y.section is None:
            prologue.append(f"{y.name} .set {y.value:#x}")
        elif y.binding != "undefined":
            c = by_name[y.section]
            if 0 <= y.value <= c.size:
                c.add_label(y.value, y.name)
            else:
                outside.append((y.name, c, y.value))
    header = [f"disassembly of {name} (relocatable object, source {obj.source or '?'})",
              "addresses in comments are offsets in their section"]
    reserved = {y.name for y in obj.symbols} | {r.symbol for s in obj.sections for r in s.relocs}
    d = Disassembler(chunks, absolute=False, reserved=reserved)
    for sym, c, off in outside:
        prologue.append(f"{sym} .set {_plus(d.label_at(c, 0, make=True), off)}")
    try:
        return d.render(header, prologue)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def disassemble_image(img: Image, name: str = "<image>") -> str:
    chunks = [Chunk(s.name, s.kind, s.address, s.size, s.data) for s in
              sorted(img.segments, key=lambda s: s.address)]
    for sym, addr in sorted(img.symbols.items(), key=lambda kv: (kv[1], ":" in kv[0], kv[0])):
        if LINKER_SYMBOL.match(sym):
            continue                 # the linker defines them again on re-linking
        for c in chunks:
            if c.base <= addr < c.base + c.size or (addr == c.base + c.size and not any(
                    d.base == addr for d in chunks)):
                c.add_label(addr - c.base, sym)
                break
    header = [f"disassembly of {name} (executable image), entry point 0x{img.entry:06X}",
              "each segment is a section of its own name; to rebuild the same image,",
              "assemble this file and link it with this linker description (rap ld -T):",
              "  SECTIONS {"]
    header += [f"    {c.name:<16} : > 0x{c.base:06X}" for c in chunks]
    header += ["  }", f"  ENTRY({_entry_name(img)})" if _entry_name(img) else
               f"  (and rap ld -e 0x{img.entry:X})"]
    return Disassembler(chunks, absolute=True, name_addresses=True).render(header)


def _entry_name(img: Image) -> str | None:
    names = sorted(n for n, a in img.symbols.items() if a == img.entry and _IDENT.match(n)
                   and not LINKER_SYMBOL.match(n))
    return names[0] if names else None


def disassemble_words(words: np.ndarray, base: int = 0, name: str = "<hex>") -> str:
    c = Chunk(".text", "text", base, len(words), np.asarray(words, dtype=np.uint32))
    header = [f"disassembly of {name} ({len(words)} words at 0x{base:06X})"]
    return Disassembler([c], absolute=True).render(header)
