"""Relocation kinds: how a link-time value is placed in an instruction word.

Shared by the assembler (values known at assembly time go through the same
checks) and the linker, so that a value out of range is reported the same
way whichever of them resolves it.
"""
from __future__ import annotations

import enum


class RelocKind(str, enum.Enum):
    WORD32 = "word32"      # the whole word: S + A (mod 2**32)
    ABS24 = "abs24"        # bits 23-0: a program address (BR, CALL, RPTB)
    PCREL16 = "pcrel16"    # bits 15-0: S + A - (P + 1), signed (Bcond, DBcond, CALLcond)
    PCREL16D = "pcrel16d"  # bits 15-0: S + A - (P + 3), signed (delayed forms)
    DIR16 = "dir16"        # bits 15-0: low 16 bits of a data address (@label)
    SIMM16 = "simm16"      # bits 15-0: signed 16-bit immediate
    UIMM16 = "uimm16"      # bits 15-0: unsigned 16-bit immediate
    DP16 = "dp16"          # bits 15-0: bits 23-16 of an address (LDP)


class RangeError(ValueError):
    """A value does not fit the field it must be placed in."""


def place(kind: RelocKind, value: int, pc: int = 0) -> tuple[int, int]:
    """Return ``(mask, bits)``: the bits of the instruction word that ``kind``
    occupies and their new contents for ``value`` (the resolved S + A) at
    instruction address ``pc``.  Raises :class:`RangeError` if it does not
    fit."""
    if kind is RelocKind.WORD32:
        if not -(1 << 31) <= value < (1 << 32):
            raise RangeError(f"value {value:#x} does not fit in a 32-bit word")
        return 0xFFFFFFFF, value & 0xFFFFFFFF
    if kind is RelocKind.ABS24:
        if not 0 <= value < (1 << 24):
            raise RangeError(f"address {value:#x} is outside the 24-bit address space")
        return 0x00FFFFFF, value
    if kind in (RelocKind.PCREL16, RelocKind.PCREL16D):
        base = 1 if kind is RelocKind.PCREL16 else 3
        disp = value - (pc + base)
        if not -(1 << 15) <= disp < (1 << 15):
            raise RangeError(f"branch target {value:#x} is {disp:+d} words from {pc:#x}+{base}; "
                             "PC-relative branches reach -32768..+32767")
        return 0xFFFF, disp & 0xFFFF
    if kind is RelocKind.DIR16:
        if not 0 <= value < (1 << 24):
            raise RangeError(f"direct address {value:#x} is outside the 24-bit address space")
        return 0xFFFF, value & 0xFFFF
    if kind is RelocKind.SIMM16:
        if not -(1 << 15) <= value < (1 << 15):
            raise RangeError(f"value {value} does not fit a signed 16-bit immediate (-32768..32767)")
        return 0xFFFF, value & 0xFFFF
    if kind is RelocKind.UIMM16:
        if not 0 <= value < (1 << 16):
            raise RangeError(f"value {value} does not fit an unsigned 16-bit immediate (0..65535)")
        return 0xFFFF, value
    if kind is RelocKind.DP16:
        if not 0 <= value < (1 << 24):
            raise RangeError(f"address {value:#x} is outside the 24-bit address space")
        return 0xFFFF, value >> 16
    raise ValueError(f"unknown relocation kind {kind!r}")


def apply(word: int, kind: RelocKind, value: int, pc: int = 0) -> int:
    """``word`` with the field of ``kind`` set for ``value``."""
    mask, bits = place(kind, value, pc)
    return word & ~mask & 0xFFFFFFFF | bits
