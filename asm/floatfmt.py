"""TMS320C30 floating-point formats <-> IEEE doubles, vectorised with numpy.

The C30 does not use IEEE 754 (guide 5.3, "Floating-Point Formats").  A
number is an exponent ``e`` (two's complement) followed by a sign bit ``s``
and a fraction ``f`` whose leading (hidden) bit is the complement of the
sign::

    value = (01.f) * 2**e   if s == 0
    value = (10.f) * 2**e   if s == 1      (two's-complement mantissa, -2 + f)

and an exponent of -2**(E-1) (-128, or -8 for the short form) means zero.

=========  ========  ========  ==========  ==============================
format     exponent  sign      fraction    used for
=========  ========  ========  ==========  ==============================
short      4 bits    1 bit     11 bits     16-bit immediates of float ops
single     8 bits    1 bit     23 bits     memory words, ``.float``
extended   8 bits    1 bit     31 bits     the 40-bit registers R0-R7
=========  ========  ========  ==========  ==============================

Extended values are returned as ``uint64`` holding the 40-bit register
pattern: exponent in bits 39-32, sign in bit 31, fraction in bits 30-0.  A
single-precision word is exactly the top 32 bits of that pattern.

Rounding from IEEE: to nearest, ties away from zero (the magnitude is rounded
and the sign applied afterwards); this is how the GNU TMS320C3x/C4x assembler
(binutils ``tc-tic4x.c``) converts constants, which we match so that objects
agree word for word.  Out-of-range values either saturate to the largest
positive / most negative number and flush tiny magnitudes to zero (as the
C30's own arithmetic does, guide 5.3.5/5.4), or raise :class:`FloatRangeError`
(``strict=True``; the assembler uses this so that a constant out of range is
an error, never a silent change).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "FloatRangeError", "FORMATS", "SHORT", "SINGLE", "EXTENDED",
    "to_c3x", "from_c3x", "to_single", "from_single", "to_short", "from_short",
    "to_extended", "from_extended", "single_to_extended", "extended_to_single",
]


class FloatRangeError(ValueError):
    """A value cannot be represented in the requested C30 format."""


@dataclass(frozen=True)
class Format:
    name: str
    exp_bits: int
    frac_bits: int

    @property
    def bits(self) -> int:
        return self.exp_bits + 1 + self.frac_bits

    @property
    def zero_exp(self) -> int:
        """The exponent that encodes zero (-128 or -8)."""
        return -(1 << (self.exp_bits - 1))

    @property
    def max_exp(self) -> int:
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def zero(self) -> int:
        """The word that encodes 0.0."""
        return (1 << (self.bits - 1))

    @property
    def max_positive(self) -> int:
        """Largest positive value: exponent max, sign 0, fraction all ones."""
        return self.max_exp << (self.frac_bits + 1) | ((1 << self.frac_bits) - 1)

    @property
    def max_negative(self) -> int:
        """Most negative value: exponent max, sign 1, fraction 0 (-2**(max+1))."""
        return self.max_exp << (self.frac_bits + 1) | (1 << self.frac_bits)


SHORT = Format("short", 4, 11)
SINGLE = Format("single", 8, 23)
EXTENDED = Format("extended", 8, 31)
FORMATS = {f.name: f for f in (SHORT, SINGLE, EXTENDED)}


def _fmt(fmt: Format | str) -> Format:
    return FORMATS[fmt] if isinstance(fmt, str) else fmt


def to_c3x(values, fmt: Format | str = SINGLE, *, strict: bool = False):
    """Convert IEEE numbers to C30 words of format ``fmt``.

    ``values`` may be a scalar or any array-like; the result has the same
    shape, as ``uint64`` (a Python ``int`` for a scalar input).  With
    ``strict`` a value whose exponent is out of range (overflow, or a
    non-zero magnitude below the smallest normal number) raises
    :class:`FloatRangeError`; otherwise it saturates / flushes to zero.
    NaN always raises; infinities saturate (or raise when strict).
    """
    fmt = _fmt(fmt)
    scalar = np.ndim(values) == 0
    x = np.atleast_1d(np.asarray(values, dtype=np.float64))
    if np.isnan(x).any():
        raise FloatRangeError("NaN has no C30 representation")
    F = fmt.frac_bits
    sone = np.uint64(1 << F)
    out = np.full(x.shape, fmt.zero, dtype=np.uint64)
    nz = x != 0
    finite = np.isfinite(x)
    mag = np.abs(np.where(finite & nz, x, 1.0))
    m, e = np.frexp(mag)                     # mag = m * 2**e, 0.5 <= m < 1
    exp = e.astype(np.int64) - 1             # normalised: mag = (2m) * 2**exp
    # exact integer rounding of the 53-bit mantissa to F+1 bits, ties away from 0
    m53 = np.ldexp(m, 53).astype(np.uint64)
    drop = np.uint64(53 - (F + 1))
    smant = (m53 + (np.uint64(1) << (drop - np.uint64(1)))) >> drop
    carry = smant == (sone << np.uint64(1))
    smant = np.where(carry, sone, smant)
    exp = exp + carry
    neg = x < 0
    pow2 = smant == sone
    # negative: fraction = 2 - m (scaled); a power of two becomes -2 * 2**(exp-1)
    frac_neg = np.where(pow2, np.uint64(0), ((sone << np.uint64(1)) - smant) & (sone - np.uint64(1)))
    exp = np.where(neg & pow2, exp - 1, exp)
    frac = np.where(neg, frac_neg | sone, smant - sone)
    over = (exp > fmt.max_exp) | ~finite
    under = exp <= fmt.zero_exp
    bad = nz & (over | under)
    if strict and bad.any():
        v = float(x[bad][0])
        what = "overflows" if (over & nz)[bad][0] else "underflows"
        raise FloatRangeError(f"{v!r} {what} the C30 {fmt.name} floating-point format")
    expf = (exp.astype(np.int64) & ((1 << fmt.exp_bits) - 1)).astype(np.uint64)
    words = expf << np.uint64(F + 1) | frac
    words = np.where(over & ~neg, np.uint64(fmt.max_positive), words)
    words = np.where(over & neg, np.uint64(fmt.max_negative), words)
    words = np.where(under & ~over, np.uint64(fmt.zero), words)
    out = np.where(nz, words, out)
    return int(out[0]) if scalar else out


def from_c3x(words, fmt: Format | str = SINGLE):
    """Convert C30 words of format ``fmt`` to IEEE doubles (exactly)."""
    fmt = _fmt(fmt)
    scalar = np.ndim(words) == 0
    w = np.atleast_1d(np.asarray(words).astype(np.uint64))
    w = w & np.uint64((1 << fmt.bits) - 1)
    F = fmt.frac_bits
    e = (w >> np.uint64(F + 1)).astype(np.int64)
    e = np.where(e >= (1 << (fmt.exp_bits - 1)), e - (1 << fmt.exp_bits), e)
    s = (w >> np.uint64(F)) & np.uint64(1)
    f = (w & np.uint64((1 << F) - 1)).astype(np.float64) / float(1 << F)
    mant = np.where(s == 1, f - 2.0, f + 1.0)
    val = np.ldexp(mant, e)
    val = np.where(e == fmt.zero_exp, 0.0, val)
    return float(val[0]) if scalar else val


def to_single(values, *, strict: bool = False):
    """IEEE -> 32-bit C30 single precision words."""
    r = to_c3x(values, SINGLE, strict=strict)
    return r if isinstance(r, int) else r.astype(np.uint32)


def from_single(words):
    """32-bit C30 single precision words -> IEEE doubles."""
    return from_c3x(words, SINGLE)


def to_short(values, *, strict: bool = False):
    """IEEE -> 16-bit C30 short floats (the immediates of float instructions)."""
    r = to_c3x(values, SHORT, strict=strict)
    return r if isinstance(r, int) else r.astype(np.uint16)


def from_short(words):
    """16-bit C30 short floats -> IEEE doubles."""
    return from_c3x(words, SHORT)


def to_extended(values, *, strict: bool = False):
    """IEEE -> 40-bit C30 extended precision register patterns (in uint64)."""
    return to_c3x(values, EXTENDED, strict=strict)


def from_extended(patterns):
    """40-bit C30 extended precision register patterns -> IEEE doubles."""
    return from_c3x(patterns, EXTENDED)


def single_to_extended(words):
    """A single-precision word as the register pattern a load gives
    (the 8 low fraction bits are zero; guide 5.3.4)."""
    if np.ndim(words) == 0:
        return (int(words) & 0xFFFFFFFF) << 8
    return (np.asarray(words).astype(np.uint64) & np.uint64(0xFFFFFFFF)) << np.uint64(8)


def extended_to_single(patterns):
    """The single-precision word of a register pattern: its top 32 bits, the
    low 8 fraction bits dropped (what STF stores)."""
    if np.ndim(patterns) == 0:
        return (int(patterns) >> 8) & 0xFFFFFFFF
    return ((np.asarray(patterns).astype(np.uint64) >> np.uint64(8)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
