"""The two-pass TMS320C30 assembler.

Pass 1 walks the source line by line (:meth:`Assembler._run`): it expands
macros and includes, follows ``.if`` blocks, defines labels and lays out the
sections (every instruction is one word; data directives know their size),
queueing one *item* per instruction or data directive.  Pass 2
(:meth:`Assembler._pass2`) evaluates the items' operands with the complete
symbol table and encodes them through :mod:`rapsim.asm.encoder`, which
chooses the encoding from the instruction table.  The result is an
:class:`~rapsim.asm.objfile.ObjectFile`.

Every error is collected with its place; :func:`assemble_file` raises
:class:`~rapsim.errors.Diagnostics` listing all of them (and the warnings)
in source order.  A location (``loc``) is the tuple ``(seq, file, line,
coloff, note, tfile, tline)``: ``seq`` orders the diagnostics, ``file`` /
``line`` / ``coloff`` place an error (column = ``coloff`` + the column
within the statement), ``note`` is appended to messages inside macro
expansions, and ``tfile`` / ``tline`` is the line the line table records.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from . import isa
from .directives import (ALIASES, CONDITIONALS, DATA, LABEL_AFTER, LABEL_OWN,
                         DirectiveMixin, Fill, data_size, search_include)
from .encoder import EncodeError, encode, encode_parallel
from .expr import ExprError, Sym, evaluate, is_const
from .listing import ListingMixin
from .macros import MACRO_DEPTH_LIMIT, Macro, directive_word, split_args
from .objfile import ObjectFile, Relocation, Section, Symbol
from .operands import DirOp, ImmOp, IndOp, RegOp, Reloc
from .parser import AsmSyntaxError, is_reserved, parse_number, parse_statement, split_line
from .statements import Bad, Directive, Instr, Str
from .reloc import RelocKind
from rapsim.errors import Diagnostics, RapError

__all__ = ["Assembler", "AsmResult", "assemble_file", "assemble_text"]

INCLUDE_DEPTH_LIMIT = 32
ADDRESS_SPACE = 1 << 24          # words

_DELAYED = frozenset({isa.Timing.BRANCH_D, isa.Timing.DB_D})
#: What may not sit in the 3 delay slots of a delayed branch (guide 3.8 / RAP-REFERENCE).
_NOT_IN_SLOT = frozenset({
    isa.Timing.BRANCH, isa.Timing.BRANCH_D, isa.Timing.DB, isa.Timing.DB_D, isa.Timing.CALL,
    isa.Timing.CALLC, isa.Timing.RETS, isa.Timing.RETI, isa.Timing.TRAP, isa.Timing.RPTS,
    isa.Timing.RPTB, isa.Timing.IDLE, isa.Timing.SWI})


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


class _Unit:
    """Lines being walked: a file, or the expansion of a macro call."""
    __slots__ = ("file", "linenos", "note", "tfile", "tline", "tag")

    def __init__(self, file: int, linenos=None, note: str = "", tfile=None, tline=None,
                 tag: str = ""):
        self.file, self.linenos, self.note = file, linenos, note
        self.tfile, self.tline, self.tag = tfile, tline, tag


class _Deferred:
    """A ``.set`` whose expression refers forward: evaluated after pass 1."""
    __slots__ = ("node", "here", "loc", "busy")

    def __init__(self, node, here, loc):
        self.node, self.here, self.loc, self.busy = node, here, loc, False


_POISON = object()           # a symbol whose definition failed: uses are not reported again


class _Silent(ExprError):
    def __init__(self):
        super().__init__("", 0)


class Assembler(DirectiveMixin, ListingMixin):
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
        self.serial = 0
        self.open_files: list[str] = []
        self.prev_instr: int | None = None
        self.lst: list | None = [] if listing else None
        for name, value in (defines or {}).items():
            self.values[name] = value
            self.where[name] = None
            self.kinds[name] = "set"

    # -- diagnostics ------------------------------------------------------
    def _diag(self, loc, col, msg: str, severity: str) -> None:
        seq, f, line, coloff, note = loc[0], loc[1], loc[2], loc[3], loc[4]
        c = 1 if col is None else max(1, coloff + col)
        self.diags.append((seq, len(self.diags),
                           f"{self.files[f]}:{line}:{c}: {severity}: {msg}{note}"))

    def error(self, loc, col, msg: str) -> None:
        """Report ``msg`` at column ``col`` of the statement of ``loc``
        (``None``: the label field, column 1)."""
        if msg:
            self.n_errors += 1
            self._diag(loc, col, msg, "error")

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
        self.cur = self.section(name, kind)

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
        if v is _POISON:
            raise _Silent()
        return v

    def _lookup2(self, name: str, col: int):
        """A symbol's value during pass 2."""
        v = self.values.get(name)
        if v is None:
            raise self._undefined(name, col, None)
        if type(v) is _Deferred:
            v = self._resolve(name, v)
        if v is _POISON:
            raise _Silent()
        return v

    @staticmethod
    def _undefined(name: str, col: int, what: str | None) -> ExprError:
        if is_reserved(name):
            return ExprError(f"register {name.upper()} cannot be used in an expression", col)
        msg = f"symbol '{name}' {what}" if what else f"undefined symbol '{name}'"
        return ExprError(msg, col, undefined=True)

    def _resolve(self, name: str, d: _Deferred):
        if d.busy:
            self.error(d.loc, None, f"circular definition of '{name}'")
            self.values[name] = _POISON
            return _POISON
        d.busy = True
        try:
            v = evaluate(d.node, self._lookup2, d.here)
        except ExprError as e:
            self.error(d.loc, e.col, str(e))
            v = _POISON
        if self.values.get(name) is d:
            self.values[name] = v
        return self.values[name]

    def absolute(self, arg, loc, what: str) -> int | None:
        """An argument needed in pass 1: an integer known at this point."""
        node, col = arg
        if type(node) is int:
            return node
        try:
            v = evaluate(node, self._lookup1, Reloc(self.cur.name, self.cur.size))
        except ExprError as e:
            self.error(loc, e.col, str(e))
            return None
        if type(v) is not int:
            self.error(loc, col, f"{what} must be an absolute integer, not "
                                 f"{'an address' if type(v) is Reloc else repr(v)}")
            return None
        return v

    def value(self, node, col, loc, here):
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
        self.error(loc, None if loc is None else 1,
                   f"section '{sec.name}' would exceed the 24-bit address space "
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
        with open(path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]

    def include(self, name: str, loc, col) -> None:
        including = self.files[loc[1]]
        path, tried = search_include(name, including, self.include_dirs)
        if path is None:
            where = ", ".join(repr(d or ".") for d in tried)
            self.error(loc, col, f"cannot find include file '{name}'"
                                 + (f" (searched {where})" if where else ""))
            return
        real = os.path.realpath(path)
        if real in self.open_files:
            self.error(loc, col, f"include loop: '{name}' is already being assembled")
            return
        if len(self.open_files) >= INCLUDE_DEPTH_LIMIT:
            self.error(loc, col, f"includes nested deeper than {INCLUDE_DEPTH_LIMIT}")
            return
        try:
            lines = self.read_lines(path)
        except OSError as e:
            self.error(loc, col, f"cannot read include file '{name}': {e.strerror}")
            return
        idx = self.file_index(os.path.normpath(path))
        depth = len(self.open_files)
        self.open_files.append(real)
        self._run(lines, _Unit(idx, tag=chr(ord("A") + depth - 1)))
        self.open_files.pop()

    # -- pass 1: the line walker ------------------------------------------
    def _run(self, lines: list[str], unit: _Unit) -> None:
        conds: list[list] = []            # [active, done, else_seen, loc, col]
        active = True
        f, note, linenos = unit.file, unit.note, unit.linenos
        lst = self.lst
        i, n = 0, len(lines)
        while i < n and not self.ended:
            text = lines[i]
            lineno = linenos[i] if linenos is not None else i + 1
            i += 1
            self.seq += 1
            if not active:
                d = directive_word(text)
                if d in CONDITIONALS:
                    active = self._cond_skipped(d, text, conds, unit, lineno)
                if lst is not None:
                    self.list_line(unit, lineno, text)
                continue
            try:
                label, stext, col = split_line(text)
            except AsmSyntaxError as e:
                self.error((self.seq, f, lineno, 0, note), e.col, str(e))
                continue
            loc = (self.seq, f, lineno, col - 1, note,
                   f if unit.tfile is None else unit.tfile,
                   lineno if unit.tline is None else unit.tline)
            if lst is not None:
                self.list_line(unit, lineno, text)
            if not stext:
                if label is not None:
                    self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
                    self.prev_instr = None
                continue
            if self.macros:
                word = stext.split(None, 1)[0]
                m = self.macros.get(word.upper())
                if m is not None:
                    self._call(m, label, stext[len(word):], loc, unit)
                    continue
            st = parse_statement(stext)
            t = type(st)
            if t is Instr:
                if st.lead:
                    self._continuation(label, st, loc)
                    continue
                sec = self.cur
                if label is not None:
                    self.define(label, Reloc(sec.name, sec.size), loc, None)
                if sec.size >= ADDRESS_SPACE and not self._room(sec, 1, loc):
                    continue
                self.prev_instr = len(self.items)
                self.items.append((sec, sec.size, st, loc))
                if lst is not None:
                    self.list_words(sec, sec.size, 1)
                sec.size += 1
                sec.has_code = True
                continue
            self.prev_instr = None
            if t is Bad:
                if label is not None:
                    self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
                self.error(loc, st.col, st.msg)
                continue
            name = ALIASES.get(st.name, st.name)
            if name in CONDITIONALS:
                active = self._cond(name, st, conds, loc)
            elif name == ".macro":
                i = self._define_macro(label, st, lines, i, unit, loc)
            else:
                self._directive(name, label, st, loc)
        for c in conds:
            if not self.ended:
                self.error(c[3], c[4], "unterminated .if (missing .endif)")

    def _directive(self, name: str, label, st: Directive, loc) -> None:
        handler = getattr(self, "d_" + name[1:], None) if name[1:].isidentifier() else None
        if handler is None:
            self.error(loc, st.col, f"unknown directive '{st.name}'")
            return
        if label is not None and name not in LABEL_AFTER and name not in LABEL_OWN:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        handler(label, st, loc)
        if label is not None and name in LABEL_AFTER:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)

    def _continuation(self, label, st: Instr, loc) -> None:
        """A TI-style ``|| INSTR`` line: the second half of the previous one."""
        if label is not None:
            self.error(loc, None, "a '||' line cannot have a label")
        k = self.prev_instr
        self.prev_instr = None
        if k is None:
            self.error(loc, 1, "'||' must follow an instruction (the first of the pair)")
            return
        sec, off, first, floc = self.items[k]
        if first.par is not None:
            self.error(loc, 1, "an instruction cannot have more than two parallel parts")
            return
        self.items[k] = (sec, off, first.pair(st), floc)
        self.second_loc[k] = loc

    # -- conditional assembly ---------------------------------------------
    def _truth(self, st: Directive, loc) -> bool | None:
        """The condition of ``.if``/``.elseif``; None after an error."""
        if len(st.args) != 1:
            self.error(loc, st.col, f"{st.name} takes 1 argument, got {len(st.args)}")
            return None
        node, col = st.args[0]
        if type(node) is Str:
            self.error(loc, col, f"the condition of {st.name} must be a value, not a string")
            return None
        try:
            v = evaluate(node, self._lookup1, Reloc(self.cur.name, self.cur.size))
        except ExprError as e:
            self.error(loc, e.col, str(e))
            return None
        if type(v) is Reloc:
            self.error(loc, col, f"the condition of {st.name} must be absolute, not an address")
            return None
        return bool(v)

    def _cond(self, name: str, st: Directive, conds: list, loc) -> bool:
        """A conditional directive in an active region; returns the new state."""
        if name == ".if":
            v = self._truth(st, loc)
            # after an error no branch is assembled (done = True)
            conds.append([bool(v), v is not False, False, loc, st.col])
            return bool(v)
        if not conds:
            self.error(loc, st.col, f"{name} without .if")
            return True
        top = conds[-1]
        if name == ".endif":
            if st.args:
                self.error(loc, st.col, ".endif takes no arguments")
            conds.pop()
            return True
        if top[2]:
            self.error(loc, st.col, f"{name} after .else")
        if name == ".else":
            top[2] = True
        top[0], top[1] = False, True      # the branch that was active is over
        return False

    def _cond_skipped(self, d: str, text: str, conds: list, unit: _Unit, lineno: int) -> bool:
        """A conditional directive met while skipping; returns the new state."""
        if d == ".if":
            conds.append([False, True, False, (self.seq, unit.file, lineno, 0, unit.note), 1])
            return False
        top = conds[-1]
        if d == ".endif":
            conds.pop()
            return conds[-1][0] if conds else True
        if top[2]:
            col = text.lower().find(d) + 1
            self.error((self.seq, unit.file, lineno, 0, unit.note), col, f"{d} after .else")
            return False
        if d == ".else":
            top[2] = True
            top[0] = not top[1]
            top[1] = True
            return top[0]
        if top[1]:                            # .elseif after a taken branch
            return False
        try:
            _, stext, col = split_line(text)
        except AsmSyntaxError:
            stext, col = text.strip(), 1
        loc = (self.seq, unit.file, lineno, col - 1, unit.note)
        st = parse_statement(stext)
        if type(st) is Bad:
            self.error(loc, st.col, st.msg)
            return False
        v = self._truth(st, loc)
        top[0], top[1] = bool(v), v is not False
        return top[0]

    # -- macros -----------------------------------------------------------
    def _define_macro(self, label, st: Directive, lines: list[str], i: int, unit: _Unit,
                      loc) -> int:
        body, linenos = [], []
        depth, j = 1, i
        while j < len(lines):
            d = directive_word(lines[j])
            if d == ".macro":
                depth += 1
            elif d == ".endm":
                depth -= 1
                if depth == 0:
                    break
            body.append(lines[j])
            linenos.append(unit.linenos[j] if unit.linenos is not None else j + 1)
            j += 1
        else:
            self.error(loc, st.col, "unterminated .macro (missing .endm)")
        if self.lst is not None:
            for k in range(i, min(j + 1, len(lines))):
                self.list_line(unit, unit.linenos[k] if unit.linenos else k + 1, lines[k])
        params = []
        for node, col in st.args:
            if type(node) is not Sym:
                self.error(loc, col, "macro parameters must be names")
            elif node.name in params:
                self.error(loc, col, f"duplicate macro parameter '{node.name}'")
            else:
                params.append(node.name)
        if label is None:
            self.error(loc, st.col, ".macro needs a name in the label field")
        else:
            self.macros[label.upper()] = Macro(label, params, body, linenos, unit.file, loc[2])
        return j + 1

    def _call(self, m: Macro, label, argtext: str, loc, unit: _Unit) -> None:
        self.prev_instr = None
        if label is not None:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        if self.macro_depth >= MACRO_DEPTH_LIMIT:
            self.error(loc, 1, f"macro calls nested deeper than {MACRO_DEPTH_LIMIT} "
                               f"(is '{m.name}' recursive?)")
            return
        args = split_args(argtext)
        if len(args) > len(m.params):
            self.error(loc, 1, f"macro '{m.name}' takes {len(m.params)} argument"
                               f"{'s' if len(m.params) != 1 else ''}, got {len(args)}")
            return
        self.serial += 1
        note = f" (in macro '{m.name}' called at {self.files[loc[1]]}:{loc[2]})"
        sub = _Unit(m.file, m.linenos, note, loc[5], loc[6], "+")
        self.macro_depth += 1
        self._run(m.expand(args, self.serial), sub)
        self.macro_depth -= 1

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

    # -- pass 2 -----------------------------------------------------------
    def _operands(self, ops, here) -> list:
        out = []
        for op in ops:
            t = type(op)
            if t is RegOp:
                out.append(op)
            elif t is IndOp:
                d = op.disp
                if d is None or type(d) is int:
                    out.append(op)
                    continue
                v = evaluate(d, self._lookup2, here)
                if type(v) is not int:
                    raise ExprError("an indirect displacement must be an absolute integer, "
                                    f"not {'an address' if type(v) is Reloc else repr(v)}",
                                    op.col)
                out.append(IndOp(op.mode, op.ar, v, op.col))
            elif is_const(op.value):
                out.append(op)
            else:
                out.append(t(evaluate(op.value, self._lookup2, here), op.col))
        return out

    def _encode(self, k: int, sec: _Sect, off: int, st: Instr, loc):
        """Encode item ``k``; returns the form's timing class or None."""
        if st.word is not None:
            sec.words[off] = st.word
            return st.timing
        here = Reloc(sec.name, off)
        par = st.par
        ops = ops2 = None
        try:
            ops = self._operands(st.ops, here)
            if par is not None:
                ops2 = self._operands(par.ops, here)
        except ExprError as e:
            self.error(loc if ops is None else self.second_loc.get(k, loc), e.col, str(e))
            return None
        try:
            if par is None:
                enc = encode(st.mnem, ops, off, sec.name)
            else:
                enc = encode_parallel(st.mnem, ops, par.mnem, ops2, off, sec.name)
        except EncodeError as e:
            self._encode_error(k, st, loc, e)
            return None
        sec.words[off] = enc.word
        for fx in enc.fixups:
            sec.relocs.append(Relocation(off, fx.kind, fx.target.symbol, fx.target.addend))
        warned = par is None and self._check_same_ar(ops, loc)
        if st.const and not enc.fixups and not warned:
            st.word, st.timing = enc.word, enc.form.timing
        return enc.form.timing

    def _encode_error(self, k: int, st: Instr, loc, e: EncodeError) -> None:
        i = e.operand
        if i is None:
            self.error(loc, st.col, str(e))
            return
        n1 = len(st.ops)
        if i < n1:
            self.error(loc, st.ops[i].col, str(e))
        else:
            self.error(self.second_loc.get(k, loc), st.par.ops[i - n1].col, str(e))

    def _check_same_ar(self, ops, loc) -> bool:
        """Guide 13-24: when both indirect sources of a 3-operand instruction
        update the same ARn only one update is kept; warn (True if warned)."""
        if len(ops) < 3:
            return False
        seen = set()
        for op in ops:
            if type(op) is IndOp and isa.INDIRECT_MODES[op.mode].update:
                if op.ar in seen:
                    self.warning(loc, op.col, f"two operands update AR{op.ar}; the processor "
                                              "keeps only one of the updates")
                    return True
                seen.add(op.ar)
        return False

    def _pass2(self) -> None:
        for sec in self.sections.values():
            if not sec.bss:
                sec.words = [0] * sec.size
        slot = None                       # (section, offset, mnemonic) of a delayed branch
        for k, (sec, off, st, loc) in enumerate(self.items):
            t = type(st)
            if t is Instr:
                timing = self._encode(k, sec, off, st, loc)
                sec.lines.append((off, loc[5], loc[6]))
                if slot is not None:
                    if slot[0] is sec and 0 < off - slot[1] <= 3:
                        if timing in _NOT_IN_SLOT:
                            self.warning(loc, st.col, f"{st.mnem} in a delay slot of the delayed "
                                                      f"branch {slot[2]} (3 instructions after it "
                                                      "may not branch, call, return, trap, "
                                                      "repeat or idle)")
                    else:
                        slot = None
                if timing in _DELAYED:
                    slot = (sec, off, st.mnem)
            elif t is Fill:
                sec.words[off:off + st.count] = [st.value] * st.count
            else:
                self.emit_data(sec, off, st, loc)
                sec.lines.extend((o, loc[5], loc[6]) for o in range(off, off + data_size(st)))

    # -- the object -------------------------------------------------------
    def _symbols(self) -> list[Symbol]:
        out = []
        for name, v in self.values.items():
            g = name in self.globals
            kind = self.kinds.get(name)
            if kind == "extern":
                out.append(Symbol(name, None, 0, "undefined"))
            elif type(v) is Reloc and v.symbol in self.sections:
                out.append(Symbol(name, v.symbol, v.addend, "global" if g else "local"))
            elif type(v) is int:
                if not -(1 << 31) <= v < (1 << 32):
                    if g:
                        self.error(self.where[name], None, f"global symbol '{name}' = {v} "
                                                           "does not fit in 32 bits")
                    continue
                out.append(Symbol(name, None, v, "global" if g else "local"))
            elif g and v is not _POISON:
                self.error(self.globals[name][1], self.globals[name][2],
                           f"'{name}' cannot be global: its value is not an integer or an "
                           "address of this file")
        return out

    def _object(self, source: str) -> ObjectFile:
        obj = ObjectFile(source=source, files=list(self.files))
        for sec in self.sections.values():
            kind = sec.final_kind()
            data = None if sec.bss else np.array(sec.words, dtype=np.uint32)
            obj.sections.append(Section(sec.name, kind, sec.size, data, sec.align,
                                        sec.relocs, sec.lines))
        obj.symbols = self._symbols()
        return obj

    # -- driver -----------------------------------------------------------
    def assemble_lines(self, lines: list[str], path: str) -> AsmResult:
        idx = self.file_index(path)
        self.open_files.append(os.path.realpath(path))
        self._run(lines, _Unit(idx))
        self._finish_symbols()
        self._pass2()
        obj = self._object(path)
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
        if not name.isidentifier() or is_reserved(name):
            raise RapError(f"-D {d}: '{name}' is not a valid symbol name")
        try:
            out[name] = parse_number(val.strip()) if val.strip() else 1
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
