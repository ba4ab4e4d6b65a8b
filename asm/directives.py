"""The assembler's directives: their first-pass work and the data they emit.

:class:`DirectiveMixin` is part of :class:`rapsim.asm.assembler.Assembler`;
each ``d_<name>`` method runs in the first pass, when the directive is
reached, and may append an item for the second pass (``.word``, ``.float``,
``.string``, alignment fill), whose words :meth:`emit_data` produces.

A directive's label is defined by the caller according to
:data:`LABEL_AFTER` / :data:`LABEL_OWN` (see docs/assembler.md).
"""
from __future__ import annotations

import os
import re
from functools import partialmethod

import numpy as np

from . import encoder
from .expr import Sym
from .floatfmt import FloatRangeError, to_single
from .operands import Reloc
from .parser import is_reserved
from .statements import Str

#: Directives whose label names the location after the directive's effect.
LABEL_AFTER = frozenset({".text", ".data", ".sect", ".align"})
#: Directives that use the label themselves (it is not a location label).
LABEL_OWN = frozenset({".set", ".equ", ".usect", ".macro"})
#: Directives handled by the line walker itself.
CONDITIONALS = frozenset({".if", ".elseif", ".else", ".endif"})

ALIASES = {".int": ".word", ".equ": ".set", ".copy": ".include", ".def": ".global",
           ".ref": ".global"}

#: A section name (as a linker description's, asm/linkscript.lark, without patterns).
_SECTION_NAME = re.compile(r"[.A-Za-z_$][.A-Za-z0-9_$]*")


class Fill:
    """Second-pass item: ``count`` words of ``value`` (alignment padding)."""
    __slots__ = ("value", "count")

    def __init__(self, value: int, count: int):
        self.value = value
        self.count = count


_nop_word: int | None = None


def nop_word() -> int:
    """The NOP instruction word (from the instruction table)."""
    global _nop_word
    if _nop_word is None:
        _nop_word = encoder.encode("NOP", []).word
    return _nop_word


def data_size(st) -> int:
    """Words of a data directive: one per value, one per string character."""
    return sum(len(a.text) if type(a) is Str else 1 for a, _ in st.args)


def _power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


class DirectiveMixin:
    """First-pass directive handlers (methods of the Assembler)."""

    # -- argument helpers -------------------------------------------------
    def _nargs(self, st, loc, lo: int, hi: int) -> bool:
        n = len(st.args)
        if lo <= n <= hi:
            return True
        if lo == hi:
            want = "no arguments" if lo == 0 else f"{lo} argument{'s' if lo > 1 else ''}"
        elif hi > 99:
            want = f"at least {lo} argument{'s' if lo > 1 else ''}"
        else:
            want = f"{lo} to {hi} arguments"
        self.error(loc, st.col, f"{st.name} takes {want}, got {n}")
        return False

    def _string_arg(self, st, loc, i: int, what: str) -> str | None:
        node, col = st.args[i]
        if type(node) is not Str:
            self.error(loc, col, f"{st.name} needs {what} in double quotes")
            return None
        return node.text

    def _section_arg(self, st, loc, i: int) -> str | None:
        """A section name: one a linker description can name (docs/linker.md)."""
        name = self._string_arg(st, loc, i, "a section name")
        if name is not None and not _SECTION_NAME.fullmatch(name):
            self.error(loc, st.args[i][1], f"bad section name {name!r}: use letters, digits, "
                       "'.', '_' and '$', not starting with a digit (a linker description "
                       "must be able to name it)")
            return None
        return name

    def _name_arg(self, st, loc, i: int) -> str | None:
        node, col = st.args[i]
        if type(node) is not Sym:
            self.error(loc, col, f"{st.name} needs a symbol name here")
            return None
        return node.name

    def _size_arg(self, st, loc, i: int, what: str, power2: bool = False) -> int | None:
        v = self.absolute(st.args[i], loc, what)
        if v is None:
            return None
        if power2 and not _power_of_two(v):
            self.error(loc, st.args[i][1], f"{what} must be a power of 2, got {v}")
            return None
        if v < 0:
            self.error(loc, st.args[i][1], f"{what} must not be negative, got {v}")
            return None
        return v

    def _no_strings(self, st, loc) -> bool:
        for node, col in st.args:
            if type(node) is Str:
                self.error(loc, col, f"{st.name} does not take strings (use .string)")
                return False
        return True

    # -- sections ---------------------------------------------------------
    def d_text(self, label, st, loc):
        if self._nargs(st, loc, 0, 0):
            self.switch(".text", "text")

    def d_data(self, label, st, loc):
        if self._nargs(st, loc, 0, 0):
            self.switch(".data", "data")

    def d_sect(self, label, st, loc):
        if not self._nargs(st, loc, 1, 1):
            return
        name = self._section_arg(st, loc, 0)
        if name is None:
            return
        sec = self.sections.get(name)
        if sec is not None and sec.bss:
            self.error(loc, st.args[0][1], f"section '{name}' is uninitialised (.bss/.usect); "
                                           "it cannot hold code or data")
            return
        self.switch(name, None)

    def _reserve(self, sname: str, symbol: str, size: int, align: int, loc, col: int):
        sec = self.section(sname, "bss")
        if not sec.bss:
            self.error(loc, col, f"section '{sname}' is initialised; .usect/.bss need an "
                                 "uninitialised section")
            return
        sec.size = -(-sec.size // align) * align
        sec.align = max(sec.align, align)
        if not self._room(sec, size, loc):
            return
        self.define(symbol, Reloc(sname, sec.size), loc, col)
        sec.size += size

    def d_bss(self, label, st, loc):
        if not self._nargs(st, loc, 2, 3):
            return
        name = self._name_arg(st, loc, 0)
        size = self._size_arg(st, loc, 1, "a .bss size")
        align = self._size_arg(st, loc, 2, "a .bss alignment", True) if len(st.args) > 2 else 1
        if name is not None and size is not None and align is not None:
            self._reserve(".bss", name, size, align, loc, st.args[0][1])

    def d_usect(self, label, st, loc):
        if label is None:
            self.error(loc, st.col, ".usect needs a label: the symbol it defines")
            return
        if not self._nargs(st, loc, 2, 3):
            return
        sname = self._section_arg(st, loc, 0)
        size = self._size_arg(st, loc, 1, "a .usect size")
        align = self._size_arg(st, loc, 2, "a .usect alignment", True) if len(st.args) > 2 else 1
        if sname is not None and size is not None and align is not None:
            self._reserve(sname, label, size, align, loc, None)

    # -- data -------------------------------------------------------------
    def d_word(self, label, st, loc):
        if self._nargs(st, loc, 1, 1 << 30) and self._no_strings(st, loc):
            self.add_data(st, loc, len(st.args))

    d_float = d_word

    def d_string(self, label, st, loc):
        if self._nargs(st, loc, 1, 1 << 30):
            self.add_data(st, loc, data_size(st))

    def d_space(self, label, st, loc):
        if self._nargs(st, loc, 1, 1):
            n = self._size_arg(st, loc, 0, "a .space size")
            if n is not None:
                self.advance(n, loc)

    def d_align(self, label, st, loc):
        if not self._nargs(st, loc, 1, 1):
            return
        n = self._size_arg(st, loc, 0, "an .align boundary", True)
        if n is None:
            return
        sec = self.cur
        sec.align = max(sec.align, n)
        pad = -sec.size % n
        if pad and sec.has_code and not sec.bss:
            self.add_item(Fill(nop_word(), pad), loc, pad)
        elif pad:
            self.advance(pad, loc)

    # -- symbols ----------------------------------------------------------
    def d_set(self, label, st, loc):
        args = st.args
        if label is None:
            if not self._nargs(st, loc, 2, 2):
                return
            label = self._name_arg(st, loc, 0)
            col = args[0][1]
            args = args[1:]
            if label is None:
                return
        else:
            if not self._nargs(st, loc, 1, 1):
                return
            col = None
        node, ecol = args[0]
        if type(node) is Str:
            self.error(loc, ecol, f"{st.name} needs a value, not a string")
            return
        self.define_set(label, node, loc, col)

    def d_global(self, label, st, loc):
        if not self._nargs(st, loc, 1, 1 << 30):
            return
        for i in range(len(st.args)):
            name = self._name_arg(st, loc, i)
            if name is None:
                continue
            if is_reserved(name):
                self.error(loc, st.args[i][1], f"'{name}' is a register name, not a symbol")
                continue
            if name in self.local_names:
                self.error(loc, st.args[i][1], f"a local label cannot be {st.name}")
                continue
            self.globals.setdefault(name, (st.name, loc, st.args[i][1]))

    # -- source control ---------------------------------------------------
    def d_include(self, label, st, loc):
        if self._nargs(st, loc, 1, 1):
            name = self._string_arg(st, loc, 0, "a file name")
            if name is not None:
                self.include(name, loc, st.args[0][1])

    def d_end(self, label, st, loc):
        if self._nargs(st, loc, 0, 0):
            self.ended = True

    def d_endm(self, label, st, loc):
        self.error(loc, st.col, ".endm without .macro")

    def d_endloop(self, label, st, loc):
        self.error(loc, st.col, ".endloop without .loop")

    def d_newblock(self, label, st, loc):
        """``.newblock``: local labels ($n, name?) start a new scope."""
        if self._nargs(st, loc, 0, 0):
            self.new_scope()

    # -- messages ---------------------------------------------------------
    def _user_message(self, st, loc, report) -> None:
        if self._nargs(st, loc, 1, 1):
            text = self._string_arg(st, loc, 0, "a message")
            if text is not None:
                report(loc, st.col, text or f"({st.name})")

    def d_emsg(self, label, st, loc):
        """``.emsg "text"``: report an error of the user's."""
        self._user_message(st, loc, self.error)

    def d_wmsg(self, label, st, loc):
        """``.wmsg "text"``: report a warning of the user's."""
        self._user_message(st, loc, self.warning)

    # -- listing control (see listing.py) ---------------------------------
    def _list_flag(self, key: str, on: bool, label, st, loc) -> None:
        if self._nargs(st, loc, 0, 0):
            self.lst_opts[key] = on

    d_list = partialmethod(_list_flag, "list", True)
    d_nolist = partialmethod(_list_flag, "list", False)
    d_mlist = partialmethod(_list_flag, "mlist", True)
    d_mnolist = partialmethod(_list_flag, "mlist", False)
    d_fclist = partialmethod(_list_flag, "fclist", True)
    d_fcnolist = partialmethod(_list_flag, "fclist", False)

    def d_title(self, label, st, loc):
        if self._nargs(st, loc, 1, 1):
            text = self._string_arg(st, loc, 0, "a title")
            if text is not None:
                self.lst_opts["title"] = text

    def d_page(self, label, st, loc):
        if self._nargs(st, loc, 0, 0):
            self.list_page()

    def _list_size(self, st, loc, key: str, lo: int, hi: int) -> None:
        if self._nargs(st, loc, 1, 1):
            v = self.absolute(st.args[0], loc, f"a {st.name} value")
            if v is None:
                return
            if not lo <= v <= hi:
                self.error(loc, st.args[0][1], f"{st.name} must be {lo}..{hi}, got {v}")
                return
            self.lst_opts[key] = v

    def d_length(self, label, st, loc):
        self._list_size(st, loc, "length", 50, 32767)

    def d_width(self, label, st, loc):
        self._list_size(st, loc, "width", 80, 200)

    # -- second pass ------------------------------------------------------
    def emit_data(self, sec, off: int, st, loc):
        """Words of a ``.word``/``.float``/``.string`` item into ``sec``."""
        if st.name == ".float":
            self._emit_floats(sec, off, st, loc)
            return
        words, name = sec.words, st.name
        here = Reloc(sec.name, off)
        for node, col in st.args:
            if type(node) is Str:
                for ch in node.text:
                    words[off] = ord(ch) & 0xFFFFFFFF
                    off += 1
                continue
            v = node if type(node) is int else self.value(node, loc, here)
            t = type(v)
            if v is None:
                pass
            elif t is Reloc:
                self.add_reloc(sec, off, "word32", v)
            elif t is float:
                self.error(loc, col, f"{name} needs integers; use .float for {v!r}")
            elif not -(1 << 31) <= v < (1 << 32):
                self.error(loc, col, f"value {v} does not fit in a 32-bit word")
            else:
                words[off] = v & 0xFFFFFFFF
            off += 1

    def _emit_floats(self, sec, off: int, st, loc):
        """``.float`` values, queued for :meth:`convert_floats`."""
        here = Reloc(sec.name, off)
        queue = self.float_queue
        for i, (node, col) in enumerate(st.args):
            v = node if type(node) is float else self.value(node, loc, here)
            if type(v) is Reloc:
                self.error(loc, col, "a .float value must be a constant, not an address")
            elif v is not None:
                try:
                    queue.append((sec, off + i, float(v), loc, col))
                except OverflowError:            # an integer beyond a double
                    self.error(loc, col, f"{v} overflows the C30 single floating-point format")

    def convert_floats(self):
        """Every ``.float`` value of the file to C30 single precision, in one
        numpy call; a value out of range is an error (strict conversion)."""
        queue = self.float_queue
        if not queue:
            return
        try:
            ws = to_single(np.array([q[2] for q in queue], dtype=np.float64), strict=True)
        except (FloatRangeError, OverflowError):
            ws = []
            for _, _, v, loc, col in queue:
                try:
                    ws.append(to_single(v, strict=True))
                except (FloatRangeError, OverflowError) as e:
                    self.error(loc, col, str(e))
                    ws.append(0)
        for (sec, a, _, _, _), w in zip(queue, ws):
            sec.words[a] = int(w)


def search_include(name: str, including: str, dirs: list[str]) -> tuple[str | None, list[str]]:
    """The path of include file ``name``: tried in the including file's
    directory, then in each ``-I`` directory in order.  Returns the path (or
    None) and the directories searched."""
    if os.path.isabs(name):
        return (name if os.path.isfile(name) else None), []
    tried = [os.path.dirname(including)] + list(dirs)
    for d in tried:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p, tried
    return None, tried
