"""Assembler expressions: their tree, C precedence and evaluation.

A parsed expression is either a plain number (``int`` or ``float``, folded
at parse time) or a tree of the node classes below.  Evaluation yields a
:data:`~rapsim.asm.operands.Value`: an ``int``, a ``float`` or a
relocatable :class:`~rapsim.asm.operands.Reloc` (``symbol + addend``).

Rules (see docs/assembler.md, "Expressions"):

* integers are Python integers, unbounded while an expression is evaluated;
  the range is checked where the value is placed (a 16-bit immediate, a
  32-bit ``.word``...).  ``/`` and ``%`` truncate towards zero as in C;
* a float mixes with ``+ - * /``, the comparisons and unary ``-``/``+``/``!``
  only;
* with relocatables only ``reloc + int``, ``int + reloc``, ``reloc - int``,
  ``reloc - reloc`` of the same symbol (an int) and comparisons of two
  relocatables of the same symbol are allowed; anything else is the error
  "expression is not relocatable".
"""
from __future__ import annotations

import math
from typing import Callable

from .operands import Reloc

__all__ = ["POISON", "Sym", "Here", "Bin", "Un", "ExprError", "PRECEDENCE", "build", "fold",
           "binary", "unary", "evaluate", "is_const"]


#: The value of a symbol whose definition failed (already reported): uses of
#: it fail silently instead of repeating the error.
POISON = object()


class ExprError(Exception):
    """An expression cannot be evaluated.  ``col`` is the 1-based column
    (relative to the parsed text) of the offending token; ``undefined`` is
    set when the cause is a symbol not (yet) defined."""

    def __init__(self, message: str, col: int = 0, undefined: bool = False):
        super().__init__(message)
        self.col = col
        self.undefined = undefined


class Sym:
    """A symbol reference."""
    __slots__ = ("name", "col")

    def __init__(self, name: str, col: int):
        self.name = name
        self.col = col

    def __repr__(self) -> str:
        return f"Sym({self.name!r})"


class Here:
    """``$``: the address of the current instruction or directive."""
    __slots__ = ("col",)

    def __init__(self, col: int):
        self.col = col

    def __repr__(self) -> str:
        return "Here()"


class Bin:
    """A binary operation; ``col`` is the operator's column."""
    __slots__ = ("op", "a", "b", "col")

    def __init__(self, op: str, a, b, col: int):
        self.op, self.a, self.b, self.col = op, a, b, col

    def __repr__(self) -> str:
        return f"Bin({self.op!r}, {self.a!r}, {self.b!r})"


class Un:
    """A unary operation (``-``, ``+``, ``~``, ``!``)."""
    __slots__ = ("op", "a", "col")

    def __init__(self, op: str, a, col: int):
        self.op, self.a, self.col = op, a, col

    def __repr__(self) -> str:
        return f"Un({self.op!r}, {self.a!r})"


#: Binary operators by binding strength (C's order; higher binds tighter).
PRECEDENCE = {
    "|": 1, "^": 2, "&": 3, "==": 4, "!=": 4,
    "<": 5, ">": 5, "<=": 5, ">=": 5, "<<": 6, ">>": 6,
    "+": 7, "-": 7, "*": 8, "/": 8, "%": 8,
}


def is_const(node) -> bool:
    t = type(node)
    return t is int or t is float


def _not_reloc(col: int) -> ExprError:
    return ExprError("expression is not relocatable", col)


def _int_only(op: str, col: int) -> ExprError:
    return ExprError(f"operator '{op}' needs integer operands", col)


def _compare(op: str, a, b) -> int:
    if op == "==":
        return int(a == b)
    if op == "!=":
        return int(a != b)
    if op == "<":
        return int(a < b)
    if op == ">":
        return int(a > b)
    if op == "<=":
        return int(a <= b)
    return int(a >= b)


#: Integer values are exact up to this many bits (sign apart): enough for
#: any constant of the C30's float formats (2**128 and beyond), and an
#: expression whose value, or any intermediate value, is larger is an error
#: rather than a number of millions of digits (``x*x`` repeated by .eval).
INT_BITS = 2048


def _bounded(v: int, col: int) -> int:
    if v.bit_length() > INT_BITS:
        raise ExprError(f"integer overflow: the value needs more than {INT_BITS} bits "
                        f"(integers are -2**{INT_BITS}..2**{INT_BITS})", col)
    return v


def _int_op(op: str, a: int, b: int, col: int) -> int:
    return _bounded(_int_op1(op, a, b, col), col)


def _int_op1(op: str, a: int, b: int, col: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            raise ExprError("division by zero", col)
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return q if op == "/" else a - q * b
    if op in ("<<", ">>"):
        if not 0 <= b <= 63:
            raise ExprError(f"shift count {b} out of range 0..63", col)
        return a << b if op == "<<" else a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    return _compare(op, a, b)


def binary(op: str, a, b, col: int):
    """``a op b`` under the rules of the module docstring."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int_op(op, a, b, col)
    if ta is Reloc or tb is Reloc:
        if op == "+" and tb is int:
            return Reloc(a.symbol, a.addend + b)
        if op == "+" and ta is int:
            return Reloc(b.symbol, b.addend + a)
        if op == "-" and tb is int:
            return Reloc(a.symbol, a.addend - b)
        if ta is Reloc and tb is Reloc and a.symbol == b.symbol:
            if op == "-":
                return a.addend - b.addend
            if op in ("==", "!=", "<", ">", "<=", ">="):
                return _compare(op, a.addend, b.addend)
        raise _not_reloc(col)
    # at least one float
    try:
        if op in ("+", "-", "*"):
            v = a + b if op == "+" else (a - b if op == "-" else a * b)
        elif op == "/":
            if b == 0:
                raise ExprError("division by zero", col)
            v = a / b
        else:
            v = None
    except OverflowError:                    # an integer too large for a double
        v = math.inf
    if v is not None:
        if math.isinf(v):
            raise ExprError(f"floating-point overflow in {op!r}", col)
        return v
    if op in ("==", "!=", "<", ">", "<=", ">="):
        return _compare(op, a, b)
    raise _int_only(op, col)


def unary(op: str, a, col: int):
    t = type(a)
    if op == "+":
        return a
    if t is Reloc:
        raise _not_reloc(col)
    if op == "-":
        return -a
    if op == "!":
        return int(not a)
    if t is float:
        raise _int_only(op, col)
    return ~a


def fold(op: str, a, b, col: int):
    """A Bin node, or its value when both sides are constants (errors such
    as a division by zero are left for evaluation to report in place)."""
    if is_const(a) and is_const(b):
        try:
            return binary(op, a, b, col)
        except ExprError:
            pass
    return Bin(op, a, b, col)


def build(terms: list, ops: list[tuple[str, int]]):
    """Combine ``terms[0] ops[0] terms[1] ...`` by :data:`PRECEDENCE`
    (all binary operators are left-associative)."""
    out = [terms[0]]
    stack: list[tuple[str, int]] = []
    for (op, col), t in zip(ops, terms[1:]):
        p = PRECEDENCE[op]
        while stack and PRECEDENCE[stack[-1][0]] >= p:
            o, c = stack.pop()
            b = out.pop()
            out.append(fold(o, out.pop(), b, c))
        stack.append((op, col))
        out.append(t)
    while stack:
        o, c = stack.pop()
        b = out.pop()
        out.append(fold(o, out.pop(), b, c))
    return out[0]


Lookup = Callable[[str, int], object]


def evaluate(node, lookup: Lookup, here):
    """Value of ``node``; ``lookup(name, col)`` gives a symbol's value (or
    raises :class:`ExprError`), ``here`` is the value of ``$``."""
    t = type(node)
    if t is int or t is float:
        return node
    try:
        return _eval(node, lookup, here)
    except RecursionError:
        raise ExprError("expression nested too deeply", getattr(node, "col", 0)) from None


def _eval(node, lookup: Lookup, here):
    t = type(node)
    if t is int or t is float:
        return node
    if t is Sym:
        return lookup(node.name, node.col)
    if t is Bin:
        return binary(node.op, _eval(node.a, lookup, here), _eval(node.b, lookup, here),
                      node.col)
    if t is Un:
        return unary(node.op, _eval(node.a, lookup, here), node.col)
    if t is Here:
        return here
    raise AssertionError(node)
