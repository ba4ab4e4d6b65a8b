"""The linker: relocatable objects and archives into an executable image.

Steps (docs/linker.md tells the user's side):

1. load the inputs (objects, and archives whose members stay available);
2. resolve symbols: collect global definitions (a second definition is an
   error), then pull in archive members that define a symbol still
   undefined, over all archives, until nothing changes;
3. lay out (:mod:`rapsim.asm.layout`): merge same-named sections, place them
   in the memory regions of the default map or of a linker description;
4. define the linker symbols ``__x_start``/``__x_end`` per output section and
   ``__R_start``/``__R_end``/``__R_free`` per region, where no object defines
   them;
5. apply every relocation with :func:`rapsim.asm.reloc.apply`;
6. choose the entry point and, unless a section occupies address 0, write
   it into the reset vector (a one-word section ``.reset`` at 0).

All errors of a step are collected and raised together as :class:`LinkError`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rapsim import memmap
from rapsim.errors import RapError

from . import reloc
from .archive import member_objects
from .layout import LINKER_SYMBOL, Input, OutSection, RegionUse, check, merge, place, symbol_key
from .linkscript import LinkScript
from .objfile import (Image, ObjectFile, ObjectFormatError, Segment, Symbol, file_kind,
                      parse_object, read_bytes)

#: Entry symbols tried, in order, when neither -e nor ENTRY() names one.
DEFAULT_ENTRY_SYMBOLS = ("_c_int00", "start")
RESET_SECTION = ".reset"


class LinkError(RapError):
    """One or more link errors, each a complete sentence in ``messages``."""

    def __init__(self, messages: list[str]):
        super().__init__("\n".join(messages))
        self.messages = list(messages)


@dataclass
class InputFile:
    """A command-line input: one object, or an archive's member objects."""
    name: str
    objects: list[tuple[str, ObjectFile]]
    archive: bool = False


@dataclass
class LinkedSymbol:
    name: str                 # as in the image (locals maybe qualified)
    address: int
    binding: str              # global, local, linker
    origin: str               # input name, or "linker"


@dataclass
class LinkResult:
    image: Image
    sections: list[OutSection]
    regions: list[RegionUse]
    symbols: list[LinkedSymbol]
    inputs: list[Input]
    entry_name: str | None = None
    reset_vector: bool = False
    archives: list[str] = field(default_factory=list)


def load_input(path: str) -> InputFile:
    """Read one input file: an object or an archive of objects."""
    if not Path(path).exists():
        raise ObjectFormatError(f"{path}: no such file")
    data = read_bytes(path)
    kind = file_kind(data)
    if kind == "object":
        return InputFile(path, [(path, parse_object(data, path))])
    if kind == "archive":
        return InputFile(path, member_objects(path, data), archive=True)
    if kind == "image":
        raise ObjectFormatError(f"{path}: is an executable image, not an object or archive")
    raise ObjectFormatError(f"{path}: not a RAP object or archive (bad magic number)")


def load_inputs(paths: list[str]) -> list[InputFile]:
    files, errors = [], []
    for p in paths:
        try:
            files.append(load_input(p))
        except ObjectFormatError as e:
            errors.append(str(e))
    if errors:
        raise LinkError(errors)
    return files


# ---------------------------------------------------------------------------
# Symbol resolution
# ---------------------------------------------------------------------------

def _defined(obj: ObjectFile) -> dict[str, Symbol]:
    return {s.name: s for s in obj.symbols if s.binding != "undefined"}


def _references(inp: Input) -> dict[str, None]:
    """Names ``inp`` needs from elsewhere (ordered, no duplicates)."""
    local = _defined(inp.obj)
    secs = {s.name for s in inp.obj.sections}
    refs = {s.name: None for s in inp.obj.symbols if s.binding == "undefined"}
    for sec in inp.obj.sections:
        for r in sec.relocs:
            if r.symbol and r.symbol not in secs and r.symbol not in local:
                refs[r.symbol] = None
    return refs


def _globals(obj: ObjectFile) -> list[str]:
    return [s.name for s in obj.symbols if s.binding == "global"]


def resolve(files: list[InputFile]) -> tuple[list[Input], dict[str, tuple[Input, Symbol]]]:
    """The objects that take part (archive members pulled in as needed) and
    the global symbol table."""
    inputs: list[Input] = []
    defs: dict[str, tuple[Input, Symbol]] = {}
    dups: list[str] = []

    def add(inp: Input) -> None:
        inputs.append(inp)
        for name, sym in _defined(inp.obj).items():
            if sym.binding != "global":
                continue
            if name in defs:
                dups.append(f"symbol {name} is defined in both {defs[name][0].name} and {inp.name}")
            else:
                defs[name] = (inp, sym)

    pending: list[Input] = []
    for i, f in enumerate(files):
        for j, (name, obj) in enumerate(f.objects):
            (pending if f.archive else inputs).append(Input(name, obj, (i, j)))
    plain, inputs = inputs, []
    for inp in plain:
        add(inp)
    changed = True
    while changed and pending:
        changed = False
        wanted = {n for inp in inputs for n in _references(inp) if n not in defs}
        for inp in list(pending):
            if wanted.intersection(_globals(inp.obj)):
                pending.remove(inp)
                add(inp)
                wanted = {n for i2 in inputs for n in _references(i2) if n not in defs}
                changed = True
    if dups:
        raise LinkError(dups)
    inputs.sort(key=lambda x: x.order)
    return inputs, defs


# ---------------------------------------------------------------------------
# Regions, linker symbols
# ---------------------------------------------------------------------------

def regions_for(script: LinkScript | None, config: memmap.MemoryConfig) -> list[RegionUse]:
    """The regions to place sections in: the description's MEMORY, checked
    against the node's mapped memory, or the default map's allocatable ones."""
    mapped = [r for r in config.regions() if r.allocatable]
    if script is None or script.regions is None:
        return [RegionUse(r.name, r.origin, r.length) for r in mapped]
    errors = []
    spans = sorted((r.origin, r.end) for r in mapped)
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out = []
    for spec in script.regions:
        end = spec.origin + spec.length
        if not any(a <= spec.origin and end <= b for a, b in merged):
            errors.append(f"{spec.pos}: error: memory region {spec.name} "
                          f"({spec.origin:#08x}-{end - 1:#08x}) is not inside the node's memory "
                          "(see docs/linker.md for the memory map)")
        for o in out:
            if spec.origin < o.end and o.origin < end:
                errors.append(f"{spec.pos}: error: memory region {spec.name} overlaps {o.name}")
        out.append(RegionUse(spec.name, spec.origin, spec.length))
    if errors:
        raise LinkError(errors)
    return out


def _add_wanted_sections(sections: list[OutSection], regions: list[RegionUse],
                         wanted: set[str]) -> None:
    """Empty output sections for referenced ``__x_start``/``__x_end`` of
    sections no input has (so that crt0's .bss loop links without a .bss)."""
    keys = {symbol_key(o.name) for o in sections} | {r.name for r in regions}
    for name in sorted(wanted):
        m = LINKER_SYMBOL.match(name)
        if m and m.group(2) != "free" and m.group(1) not in keys:
            sec = "." + m.group(1)
            kind = {".text": "text", ".data": "data"}.get(sec, "bss")
            sections.append(OutSection(sec, kind, note="empty: referenced by " + name))
            keys.add(m.group(1))


def linker_symbols(sections: list[OutSection], regions: list[RegionUse]) -> dict[str, int]:
    out = {}
    for r in regions:
        out.update({f"__{r.name}_start": r.origin, f"__{r.name}_end": r.end,
                    f"__{r.name}_free": r.free})
    for o in sections:
        if o.note and o.name == RESET_SECTION:
            continue
        k = symbol_key(o.name)
        out.update({f"__{k}_start": o.address, f"__{k}_end": o.end})
    return out


# ---------------------------------------------------------------------------
# Relocation
# ---------------------------------------------------------------------------

def _value(inp: Input, sym: Symbol) -> int:
    return sym.value + (inp.bases[sym.section] if sym.section is not None else 0)


class _Resolver:
    """Symbol values once sections are placed: an object's own sections and
    symbols first, then the globals, then the linker-defined symbols."""

    def __init__(self, defs: dict[str, tuple[Input, Symbol]]):
        self.defs = defs
        self.globals = {n: _value(i, s) for n, (i, s) in defs.items()}
        self.provided: dict[str, int] = {}

    def lookup(self, inp: Input, name: str) -> int | None:
        if name == "":
            return 0
        if name in inp.bases:
            return inp.bases[name]
        local = _defined(inp.obj).get(name)
        if local is not None:
            return _value(inp, local)
        if name in self.globals:
            return self.globals[name]
        return self.provided.get(name)

    def is_absolute(self, inp: Input, name: str) -> bool:
        """``name`` is an absolute symbol (a ``.set`` value), not an address
        of a section or a linker-defined one."""
        if name == "" or name in inp.bases:
            return name == ""
        local = _defined(inp.obj).get(name)
        if local is None and name in self.defs:
            local = self.defs[name][1]
        return local is not None and local.section is None


def _undefined(inputs: list[Input], res: _Resolver) -> list[str]:
    users: dict[str, list[str]] = {}
    for inp in inputs:
        for name in _references(inp):
            if res.lookup(inp, name) is None:
                users.setdefault(name, []).append(inp.name)
    return [f"undefined symbol {n}, referenced by {', '.join(u)}" for n, u in sorted(users.items())]


def _source_line(obj: ObjectFile, section, offset: int) -> str:
    for off, fi, line in section.lines:
        if off == offset and 0 <= fi < len(obj.files):
            return f" ({obj.files[fi]}:{line})"
    return ""


def relocate(sections: list[OutSection], res: _Resolver) -> tuple[dict[str, np.ndarray], list[str]]:
    """Contents of every initialised output section, relocations applied."""
    datas, errors = {}, []
    for o in sections:
        if o.kind == "bss" or not o.size:
            continue
        data = np.zeros(o.size, dtype=np.uint32)
        for p in o.pieces:
            sec, inp = p.section, p.input
            if sec.data is not None:
                data[p.offset:p.offset + sec.size] = sec.data
            for r in sec.relocs:
                at = p.offset + r.offset
                s = res.lookup(inp, r.symbol)
                try:
                    if r.kind is reloc.RelocKind.DP16 and 0 < s + r.addend < 0x100 \
                            and res.is_absolute(inp, r.symbol):
                        # the assembler's LDP rule (encoder.py), for a page
                        # number only the linker knows
                        raise reloc.RangeError(
                            f"LDP takes an address, not a page number: {s + r.addend:#x} "
                            f"is on page 0 (for page {s + r.addend:#x} use the address "
                            f"{(s + r.addend) << 16:#x})")
                    data[at] = reloc.apply(int(data[at]), r.kind, s + r.addend, o.address + at)
                except reloc.RangeError as e:
                    errors.append(f"{inp.name}: section {sec.name}, offset {r.offset:#x}"
                                  f"{_source_line(inp.obj, sec, r.offset)}: relocation "
                                  f"{r.kind.value} against {r.symbol or '(absolute)'}"
                                  f"{f'{r.addend:+d}' if r.addend else ''}: {e}")
        datas[o.name] = data
    return datas, errors


# ---------------------------------------------------------------------------
# Entry point and image
# ---------------------------------------------------------------------------

def _local_named(inputs: list[Input], name: str) -> list[int]:
    return [_value(i, s) for i in inputs for s in i.obj.symbols
            if s.name == name and s.binding == "local"]


def choose_entry(requested: str | None, res: _Resolver, inputs: list[Input],
                 sections: list[OutSection]) -> tuple[int, str | None]:
    """(entry address, symbol name or None).  See docs/linker.md."""
    def find(name: str) -> int | None:
        if name in res.globals:
            return res.globals[name]
        if name in res.provided:
            return res.provided[name]
        locals_ = _local_named(inputs, name)
        return locals_[0] if len(locals_) == 1 else None

    if requested is not None:
        v, name = find(requested), requested
        if v is None:
            try:
                v, name = int(requested, 0), None
            except ValueError:
                owners = [i.name for i in inputs for s in i.obj.symbols
                          if s.name == requested and s.binding == "local"]
                if len(owners) > 1:
                    raise LinkError([f"entry symbol {requested} is ambiguous: a local symbol "
                                     f"of {', '.join(owners)} (make one of them .global)"]
                                    ) from None
                raise LinkError([f"entry symbol {requested} is not defined"]) from None
        if not 0 <= v < 1 << 24:             # the reset vector holds a 24-bit address
            what = f"entry symbol {requested} ({v:#x})" if name else f"entry point {requested}"
            raise LinkError([f"{what} is outside the 24-bit address space"])
        return v, name
    for name in DEFAULT_ENTRY_SYMBOLS:
        v = find(name)
        if v is not None:
            return v, name
    text = [o for o in sections if o.name == ".text" and o.size] or \
        [o for o in sections if o.kind == "text" and o.size]
    return (text[0].address, None) if text else (0, None)


def _image_symbols(inputs: list[Input], res: _Resolver) -> list[LinkedSymbol]:
    out = [LinkedSymbol(n, v, "global", res.defs[n][0].name) for n, v in res.globals.items()]
    taken = set(res.globals)
    out += [LinkedSymbol(n, v, "linker", "linker") for n, v in res.provided.items() if n not in taken]
    taken |= set(res.provided)
    locals_ = [(i, s) for i in inputs for s in i.obj.symbols if s.binding == "local"]
    count: dict[str, int] = {}
    for _, s in locals_:
        count[s.name] = count.get(s.name, 0) + 1
    for i, s in locals_:
        clash = s.name in taken or count[s.name] > 1
        out.append(LinkedSymbol(f"{i.name}:{s.name}" if clash else s.name, _value(i, s), "local", i.name))
    return out


def link_files(files: list[InputFile], *, script: LinkScript | None = None,
               entry: str | None = None, config: memmap.MemoryConfig = memmap.DEFAULT) -> LinkResult:
    """Link loaded inputs; raise :class:`LinkError` listing every error of
    the first step that fails."""
    inputs, defs = resolve(files)
    regions = regions_for(script, config)
    sections = merge(inputs, script)
    wanted = {n for inp in inputs for n in _references(inp) if n not in defs}
    _add_wanted_sections(sections, regions, wanted)
    errors = place(sections, regions, script)
    if errors:
        raise LinkError(errors)
    occupied = any(o.size and o.address == 0 for o in sections)
    if not occupied:
        home = [r.name for r in regions if r.origin == 0]
        sections.append(OutSection(RESET_SECTION, "data", size=1, address=memmap.RESET_VECTOR,
                                   region=home[0] if home else None, note="reset vector"))
    errors = check(sections, regions)
    if errors:
        raise LinkError(errors)
    for o in sections:
        for p in o.pieces:
            p.input.bases[p.section.name] = o.address + p.offset
    res = _Resolver(defs)
    res.provided = {n: v for n, v in linker_symbols(sections, regions).items() if n not in res.globals}
    errors = _undefined(inputs, res)
    if errors:
        raise LinkError(errors)
    datas, errors = relocate(sections, res)
    if errors:
        raise LinkError(errors)
    entry_addr, entry_name = choose_entry(entry if entry is not None else (script and script.entry),
                                          res, inputs, sections)
    if not occupied:
        datas[RESET_SECTION] = np.array([entry_addr], dtype=np.uint32)
    symbols = _image_symbols(inputs, res)
    image = build_image(sections, datas, symbols, inputs, regions, entry_addr)
    return LinkResult(image, sections, regions, symbols, inputs, entry_name, not occupied,
                      [f.name for f in files if f.archive])


def build_image(sections, datas, symbols, inputs, regions, entry: int) -> Image:
    img = Image(entry=entry, memory=[{"name": r.name, "origin": r.origin, "length": r.length}
                                     for r in regions])
    for o in sorted(sections, key=lambda o: o.address):
        if o.size:
            img.segments.append(Segment(o.name, o.address, o.size, o.kind, datas.get(o.name)))
    img.symbols = {s.name: s.address for s in symbols}
    file_index: dict[str, int] = {}
    for inp in inputs:
        for sec in inp.obj.sections:
            base = inp.bases.get(sec.name, 0)
            for off, fi, line in sec.lines:
                if not 0 <= fi < len(inp.obj.files):
                    continue
                f = inp.obj.files[fi]
                idx = file_index.setdefault(f, len(file_index))
                img.lines.append((base + off, idx, line))
    img.files = list(file_index)
    img.lines.sort()
    return img


def link(paths: list[str], **kw) -> LinkResult:
    """Link the object and archive files ``paths`` (see :func:`link_files`)."""
    return link_files(load_inputs(paths), **kw)
