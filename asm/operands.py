"""Operand values shared by the assembler's parser, the encoder and the decoder.

The parser turns operand text into one of the ``*Op`` classes below, holding
expressions; the assembler evaluates the expressions into :data:`Value` s
(an ``int``, a ``float`` or a relocatable :class:`Reloc`) and hands the
operands to :mod:`rapsim.asm.encoder`.  The decoder produces the same classes
with plain numbers, so that encode(decode(w)) can be checked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Union

from . import isa


class Reloc(NamedTuple):
    """A value known only at link time: ``symbol + addend``.  For a label
    defined in the file being assembled, ``symbol`` is the name of the
    section it lives in and ``addend`` its offset there."""
    symbol: str
    addend: int = 0

    def __add__(self, k: int) -> "Reloc":
        return Reloc(self.symbol, self.addend + k)


Value = Union[int, float, Reloc]


@dataclass
class RegOp:
    """A register operand (``R3``, ``AR0``, ``DP``...)."""
    num: int
    col: int = 0

    def __str__(self) -> str:
        return isa.REGISTER_NAMES[self.num]


@dataclass
class IndOp:
    """An indirect operand ``*...ARn...``.  ``disp`` is the displacement for
    modes indexed by a displacement (None when omitted: TI's default is 1),
    an expression before evaluation."""
    mode: int
    ar: int
    disp: Any = None
    col: int = 0

    def __str__(self) -> str:
        d = 1 if self.disp is None else self.disp
        return isa.format_indirect(self.mode, self.ar, d)


@dataclass
class DirOp:
    """A direct operand ``@expr``."""
    value: Any
    col: int = 0


@dataclass
class ImmOp:
    """A bare expression: an immediate, an address or a label."""
    value: Any
    col: int = 0


ParsedOperand = Union[RegOp, IndOp, DirOp, ImmOp]
