"""The two-pass TMS320C30 assembler.

Pass 1 (:mod:`rapsim.asm.walker`) walks the source line by line: it expands
macros and includes, follows ``.if`` blocks, defines labels and lays out the
sections (every instruction is one word; data directives know their size),
queueing one *item* per instruction or data directive.  Pass 2
(:mod:`rapsim.asm.emit`) evaluates the items' operands with the complete
symbol table and encodes them through :mod:`rapsim.asm.encoder`, which
chooses the encoding from the instruction table.  The result is an
:class:`~rapsim.asm.objfile.ObjectFile`.  Directives are in
:mod:`rapsim.asm.directives`, the listing in :mod:`rapsim.asm.listing`; this
module holds the state they share: sections, symbols, diagnostics.

Every error is collected with its place; :func:`assemble_file` raises
:class:`~rapsim.errors.Diagnostics` listing all of them (and the warnings)
in source order.  A location (``loc``) is the tuple ``(seq, file, line,
coloff, note, tfile, tline)``: ``seq`` orders the diagnostics, ``file`` /
``line`` / ``coloff`` place an error (column = ``coloff`` + the column
within the statement), ``note`` is appended to messages inside macro
expansions, and ``tfile`` / ``tline`` is the line the line table records.
"""
from __future__ import annotations

import gc
import os
import re
from dataclasses import dataclass, field

from .directives import DirectiveMixin
from .emit import EmitMixin
from .expr import POISON, ExprError, evaluate
from .listing import ListingMixin
from .macros import Macro
from .objfile import ObjectFile, Relocation
from .operands import Reloc
from .parser import is_reserved, parse_number
from .reloc import RelocKind
from .textsubs import _ID, shown
from .walker import ADDRESS_SPACE, Unit, WalkerMixin
from rapsim.errors import Diagnostics, RapError
from rapsim.fileio import read_regular

#: Undefined names that look like registers (AR8, IR2...): reported as such.
_NOT_A_REGISTER = re.compile(r"(?:A?R|IR)\d+", re.I)

#: Errors reported before the assembler gives up (a file of garbage, an
#: expansion that fails on every line).
ERROR_LIMIT = 1000

__all__ = ["Assembler", "AsmResult", "assemble_file", "assemble_text", "parse_defines"]


@dataclass
class AsmResult:
    obj: ObjectFile
    warnings: list[str] = field(default_factory=list)
    listing: str | None = None


class _Sect:
    """A section being assembled."""
    __slots__ = ("name", "bss", "kind", "size", "align", "has_code", "words", "relocs", "lines")

    def __init__(self, name: str, kind: str | None):
        self.name = name
        self.kind = kind               # "text", "data", "bss", or None (.sect: decided at the end)
        self.bss = kind == "bss"
        self.size = 0
        self.align = 1
        self.has_code = False
        self.words: list[int] = []
        self.relocs: list[Relocation] = []
        self.lines: list[tuple[int, int, int]] = []

    def final_kind(self) -> str:
        return self.kind or ("text" if self.has_code else "data")


class _Deferred:
    """A ``.set`` whose expression refers forward: evaluated after pass 1."""
    __slots__ = ("node", "here", "loc", "busy")

    def __init__(self, node, here, loc):
        self.node, self.here, self.loc, self.busy = node, here, loc, False


class _Silent(ExprError):
    """A use of a symbol whose definition failed: nothing more to report."""

    def __init__(self):
        super().__init__("", 0)


class Assembler(WalkerMixin, DirectiveMixin, EmitMixin, ListingMixin):
    """Assemble one source file (see :func:`assemble_file`)."""

    def __init__(self, include_dirs=(), defines: dict | None = None, listing: bool = False):
        self.include_dirs = list(include_dirs)
        self.files: list[str] = []
        self.diags: list[tuple[int, int, str]] = []
        self.n_errors = 0
        self.sections: dict[str, _Sect] = {}
        self.cur = self.section(".text", "text")
        self.values: dict[str, object] = {}          # symbol -> int/float/Reloc/_Deferred
        self.where: dict[str, tuple | None] = {}     # symbol -> loc of its definition
        self.kinds: dict[str, str] = {}              # symbol -> "label" | "set"
        self.globals: dict[str, tuple] = {}          # name -> (directive, loc, col)
        self.macros: dict[str, Macro] = {}
        self.items: list = []
        self.second_loc: dict[int, tuple] = {}       # item index -> loc of a '||' line
        self.seq = 0
        self.ended = False
        self.macro_depth = 0
        self.expanded = 0                 # lines expanded so far (walker.EXPANSION_LIMIT)
        self.expansion_start = None       # loc of the outermost macro call or .loop
        self.serial = 0
        self.open_files: list[str] = []
        self.prev_instr: int | None = None
        self.lst: list | None = [] if listing else None
        self.lst_cur: list | None = None              # the listing record of this line
        self.lst_opts = {"list": True, "mlist": True, "fclist": True,
                         "title": "", "length": None, "width": None}
        self.scope = 0                               # local-label scope (textsubs)
        self.local_names: set[str] = set()           # the scoped names of local labels
        self.subst: dict[str, str] = {}              # substitution symbols (.asg/.eval)
        self.var_frames: list[dict] = []             # .var symbols saved per macro call
        self.loop_depth = 0
        self.breaking = False                        # a .break is unwinding its .loop
        self.float_queue: list = []                  # .float values, converted at the end
        for name, value in (defines or {}).items():
            self.values[name] = value
            self.where[name] = None
            self.kinds[name] = "set"

    # -- diagnostics ------------------------------------------------------
    def _diag(self, loc, col, msg: str, severity: str) -> None:
        seq, f, line, coloff, note = loc[0], loc[1], loc[2], loc[3], loc[4]
        c = 1 if col is None else max(1, coloff + col)
        self.diags.append((seq, len(self.diags),
                           f"{self.files[f]}:{line}:{c}: {severity}: {shown(msg)}{note}"))

    def error(self, loc, col, msg: str) -> None:
        """Report ``msg`` at column ``col`` of the statement of ``loc``
        (``None``: the label field, column 1)."""
        if msg and self.n_errors < ERROR_LIMIT:
            self.n_errors += 1
            self._diag(loc, col, msg, "error")
            if self.n_errors == ERROR_LIMIT:
                self._diag(loc, col, f"{ERROR_LIMIT} errors: assembly stopped", "error")
                self.ended = True

    def warning(self, loc, col, msg: str) -> None:
        self._diag(loc, col, msg, "warning")

    def messages(self) -> list[str]:
        return [m for _, _, m in sorted(self.diags)]

    # -- sections and symbols ---------------------------------------------
    def section(self, name: str, kind: str | None) -> _Sect:
        sec = self.sections.get(name)
        if sec is None:
            sec = self.sections[name] = _Sect(name, kind)
        return sec

    def switch(self, name: str, kind: str | None) -> None:
        """``.text``/``.data``/``.sect``: continue in section ``name``; local
        labels start a new scope (as in TI's assemblers)."""
        self.cur = self.section(name, kind)
        self.new_scope()

    def new_scope(self) -> None:
        """Start a new local-label scope (``.newblock``, a section change,
        entering or leaving an included file)."""
        self.serial += 1
        self.scope = self.serial

    def define(self, name: str, value, loc, col) -> bool:
        if is_reserved(name):
            self.error(loc, col, f"'{name}' is a register name and cannot be a symbol")
            return False
        if name in self.values:
            prev = self.where.get(name)
            at = "on the command line (-D)" if prev is None else \
                f"at {self.files[prev[1]]}:{prev[2]}"
            self.error(loc, col, f"duplicate definition of '{name}' (first defined {at})")
            return False
        self.values[name] = value
        self.where[name] = loc
        self.kinds[name] = "label" if type(value) is Reloc else "set"
        return True

    def define_set(self, name: str, node, loc, col) -> None:
        here = Reloc(self.cur.name, self.cur.size)
        try:
            v = evaluate(node, self._lookup1, here)
        except ExprError as e:
            if not e.undefined:
                self.error(loc, e.col, str(e))
                return
            v = _Deferred(node, here, loc)
        if self.define(name, v, loc, col):
            self.kinds[name] = "set"

    def _lookup1(self, name: str, col: int):
        """A symbol's value during pass 1: it must be defined already."""
        v = self.values.get(name)
        if v is None or type(v) is _Deferred:
            raise self._undefined(name, col, "is not defined at this point")
        if v is POISON:
            raise _Silent()
        return v

    def _lookup2(self, name: str, col: int):
        """A symbol's value during pass 2."""
        v = self.values.get(name)
        if v is None:
            raise self._undefined(name, col, None)
        if type(v) is _Deferred:
            v = self._resolve(name, v)
        if v is POISON:
            raise _Silent()
        return v

    @staticmethod
    def _undefined(name: str, col: int, what: str | None) -> ExprError:
        if is_reserved(name):
            return ExprError(f"register {name.upper()} cannot be used in an expression", col)
        if _NOT_A_REGISTER.fullmatch(name):
            return ExprError(f"{name.upper()} is not a register of the TMS320C30 (R0-R7, "
                             "AR0-AR7, IR0, IR1, DP, BK, SP, ST, IE, IF, IOF, RS, RE, RC)", col)
        msg = f"symbol '{name}' {what}" if what else f"undefined symbol '{name}'"
        return ExprError(msg, col, undefined=True)

    def _resolve(self, name: str, d: _Deferred):
        if d.busy:
            self.error(d.loc, None, f"circular definition of '{name}'")
            self.values[name] = POISON
            return POISON
        d.busy = True
        try:
            v = evaluate(d.node, self._lookup2, d.here)
        except ExprError as e:
            self.error(d.loc, e.col, str(e))
            v = POISON
        if self.values.get(name) is d:
            self.values[name] = v
        return self.values[name]

    def value1(self, node, loc):
        """An expression's value in pass 1 (its symbols must be defined at
        this point), or None after reporting an error."""
        try:
            return evaluate(node, self._lookup1, Reloc(self.cur.name, self.cur.size))
        except ExprError as e:
            self.error(loc, e.col, str(e))
            return None

    def absolute(self, arg, loc, what: str) -> int | None:
        """An argument needed in pass 1: an integer known at this point."""
        node, col = arg
        if type(node) is int:
            return node
        v = self.value1(node, loc)
        if v is None:
            return None
        if type(v) is not int:
            self.error(loc, col, f"{what} must be an absolute integer, not "
                                 f"{'an address' if type(v) is Reloc else repr(v)}")
            return None
        return v

    def value(self, node, loc, here):
        """An expression's value in pass 2, or None after reporting an error."""
        try:
            return evaluate(node, self._lookup2, here)
        except ExprError as e:
            self.error(loc, e.col, str(e))
            return None

    # -- layout -----------------------------------------------------------
    def _room(self, sec: _Sect, n: int, loc) -> bool:
        """Whether ``n`` more words fit in the 24-bit address space."""
        if sec.size + n <= ADDRESS_SPACE:
            return True
        self.error(loc, 1, f"section '{sec.name}' would exceed the 24-bit address space "
                           f"({sec.size} + {n} words)")
        return False

    def add_item(self, stmt, loc, size: int) -> None:
        sec = self.cur
        if not self._room(sec, size, loc):
            return
        self.items.append((sec, sec.size, stmt, loc))
        if self.lst is not None:
            self.list_words(sec, sec.size, size)
        sec.size += size

    def add_data(self, st, loc, size: int) -> None:
        if self.cur.bss:
            self.error(loc, st.col, f"{st.name} in uninitialised section '{self.cur.name}'")
            return
        self.add_item(st, loc, size)

    def advance(self, n: int, loc) -> None:
        if not self._room(self.cur, n, loc):
            return
        if self.lst is not None:
            self.list_words(self.cur, self.cur.size, 0)
        self.cur.size += n

    def add_reloc(self, sec: _Sect, off: int, kind, target: Reloc) -> None:
        sec.relocs.append(Relocation(off, RelocKind(kind), target.symbol, target.addend))

    # -- files ------------------------------------------------------------
    def file_index(self, path: str) -> int:
        try:
            return self.files.index(path)
        except ValueError:
            self.files.append(path)
            return len(self.files) - 1

    @staticmethod
    def read_lines(path: str) -> list[str]:
        data = read_regular(path)
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise OSError(0, "a UTF-16 text file; save it as UTF-8", path)
        if b"\0" in data:                # an object, an image...: one message, not hundreds
            raise OSError(0, "not a text file (it holds NUL bytes)", path)
        head, eof, tail = data.partition(b"\x1a")
        if eof and not tail.strip(b"\x1a \t\r\n"):
            data = head                    # a DOS end-of-file mark (Ctrl-Z) ends the text
        # A byte that is not UTF-8 becomes a lone surrogate (U+DC80..U+DCFF): harmless
        # in comments, an error naming the byte anywhere else (asm/parser.py).  A
        # byte-order mark (Windows editors write one) is skipped.
        text = data.decode("utf-8-sig", errors="surrogateescape")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]

    # -- end of pass 1 ----------------------------------------------------
    def _finish_symbols(self) -> None:
        for name, (kind, loc, col) in self.globals.items():
            if name in self.values:
                continue
            if kind == ".def":
                self.error(loc, col, f"'{name}' is declared with .def but not defined")
            self.values[name] = Reloc(name, 0)
            self.kinds[name] = "extern"
            self.where[name] = loc
        for name in list(self.values):
            v = self.values[name]
            if type(v) is _Deferred:
                self._resolve(name, v)
        for name in self.sections:
            if name in self.values and self.where.get(name) is not None:
                self.error(self.where[name], None,
                           f"symbol '{name}' has the name of a section")

    # -- driver -----------------------------------------------------------
    def assemble_lines(self, lines: list[str], path: str) -> AsmResult:
        """Assemble the lines of the main file ``path``."""
        # The assembler allocates many small objects and frees few; the cyclic
        # garbage collector would walk them over and over (a third of the run
        # time on a large file).  It builds no cycles, so it is paused meanwhile.
        paused = gc.isenabled()
        gc.disable()
        try:
            idx = self.file_index(path)
            self.open_files.append(os.path.realpath(path))
            self._run(lines, Unit(idx))
            self._finish_symbols()
            self._pass2()
            obj = self._object(path)
        finally:
            if paused:
                gc.enable()
        msgs = self.messages()
        if self.n_errors:
            raise Diagnostics(msgs)
        listing = self.render_listing(path) if self.lst is not None else None
        return AsmResult(obj, msgs, listing)


def parse_defines(defs) -> dict[str, int | float]:
    """``-D NAME[=VALUE]`` options as symbols (VALUE a number, default 1)."""
    out = {}
    for d in defs or ():
        name, _, val = d.partition("=")
        name = name.strip()
        if not re.fullmatch(_ID, name) or is_reserved(name):        # as in the source
            raise RapError(f"-D {d}: '{name}' is not a valid symbol name")
        text = val.strip()
        sign = -1 if text.startswith("-") else 1
        try:
            out[name] = sign * parse_number(text.lstrip("+-")) if text else 1
        except ValueError:
            raise RapError(f"-D {d}: '{val}' is not a number") from None
    return out


def assemble_file(path: str, include_dirs=(), defines=None, listing: bool = False) -> AsmResult:
    """Assemble the source file ``path``.  Raises :class:`RapError` if it
    cannot be read and :class:`Diagnostics` if it has errors."""
    try:
        lines = Assembler.read_lines(path)
    except OSError as e:
        raise RapError(f"cannot read {path}: {e.strerror}") from None
    return Assembler(include_dirs, defines, listing).assemble_lines(lines, path)


def assemble_text(text: str, name: str = "<input>", include_dirs=(), defines=None,
                  listing: bool = False) -> AsmResult:
    """Assemble source text (``name`` is used in messages and as the
    directory base for includes)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return Assembler(include_dirs, defines, listing).assemble_lines(lines, name)
