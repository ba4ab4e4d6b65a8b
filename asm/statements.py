"""Parsed statements: the objects the parser builds and the assembler reads.

They are shared between every line with the same text (the parser caches
them), so they are never modified once built, apart from the encoding cache
of :class:`Instr`.  Columns are 1-based, relative to the statement's text.
"""
from __future__ import annotations

from .expr import Bin, Here, Sym, Un, is_const
from .operands import DirOp, ImmOp, IndOp, RegOp

__all__ = ["Instr", "Directive", "Str", "Bad", "shift"]


class Instr:
    """An instruction, or a parallel pair (``par`` is the second instruction).

    ``lead`` marks a TI-style continuation line ``|| INSTR``.  ``const``
    tells that every operand is a number, so the encoding does not depend
    on the symbol table; the assembler then caches it in ``word``/``timing``.
    """
    __slots__ = ("mnem", "col", "ops", "par", "lead", "const", "word", "timing")

    def __init__(self, mnem: str, col: int, ops: tuple, par: "Instr | None" = None,
                 lead: bool = False):
        self.mnem = mnem
        self.col = col
        self.ops = ops
        self.par = par
        self.lead = lead
        self.const = all(_op_const(o) for o in ops) and (par is None or par.const)
        self.word = None
        self.timing = None

    def pair(self, second: "Instr") -> "Instr":
        """This instruction in parallel with ``second``."""
        return Instr(self.mnem, self.col, self.ops, second)

    def __repr__(self) -> str:
        s = f"Instr({self.mnem!r}, {self.ops!r}"
        return s + (f", par={self.par!r})" if self.par else ")")


class Directive:
    """A directive: lower-case name with its dot, and its arguments
    (expressions or :class:`Str`, each as ``(node, col)``)."""
    __slots__ = ("name", "col", "args")

    def __init__(self, name: str, col: int, args: tuple):
        self.name = name
        self.col = col
        self.args = args

    def __repr__(self) -> str:
        return f"Directive({self.name!r}, {self.args!r})"


class Str:
    """A string argument ``"text"`` (doubled quotes already undone)."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Str({self.text!r})"


class Bad:
    """A statement that did not parse: the error to report when reached."""
    __slots__ = ("msg", "col")

    def __init__(self, msg: str, col: int):
        self.msg = msg
        self.col = col


def _op_const(op) -> bool:
    t = type(op)
    if t is RegOp:
        return True
    if t is IndOp:
        return op.disp is None or type(op.disp) is int
    return is_const(op.value)


def shift(x, d: int):
    """A copy of operand, argument or expression ``x`` with every column
    moved by ``d`` (numbers and strings are returned as they are)."""
    if d == 0:
        return x
    t = type(x)
    if t is int or t is float or t is Str:
        return x
    if t is RegOp:
        return RegOp(x.num, x.col + d)
    if t is IndOp:
        return IndOp(x.mode, x.ar, None if x.disp is None else shift(x.disp, d), x.col + d)
    if t is DirOp or t is ImmOp:
        return t(shift(x.value, d), x.col + d)
    if t is tuple:
        return shift(x[0], d), x[1] + d
    if t is Sym:
        return Sym(x.name, x.col + d)
    if t is Bin:
        return Bin(x.op, shift(x.a, d), shift(x.b, d), x.col + d)
    if t is Un:
        return Un(x.op, shift(x.a, d), x.col + d)
    if t is Here:
        return Here(x.col + d)
    raise AssertionError(x)
