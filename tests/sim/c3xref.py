"""An independent reference model of TMS320C30 arithmetic, for the tests.

Written from the TMS320C3x User's Guide (SPRU031) -- chapter 5's algorithm
descriptions and chapter 13's status-bit tables, as collected with page
citations in the project's research notes -- and *not* from the simulator's
code.  It is deliberately built differently from rapsim/core/fpu.pxi: values
are exact rationals (:class:`fractions.Fraction`), every truncation the guide
describes ("discard LSBs") is an explicit ``floor`` onto the grid of the
kept bits, and a result is encoded from its exact value.  Slow but easy to
check by hand.

Conventions
-----------
* An extended (register) value is its 40-bit pattern: exponent in bits
  39-32, sign in bit 31, fraction in bits 30-0 [G 5-8].  The hidden bit is
  the complement of the sign: value = (s ? -2 : 1) + f * 2**-31, times 2**e;
  exponent -128 means zero [G 5-7, 5-8].
* Every operation returns ``(result, flags)``: ``flags`` holds the ST bits
  the operation sets (C V Z N UF LV LUF in ST's bit positions, guide 13-29);
  LV/LUF appear only when set (they are sticky), and :data:`AFFECTS` tells
  which of N Z V UF C the operation rewrites.
* Flag values follow guide 13-28: compares, and arithmetic that overflows or
  underflows, set the flags from the result computed to *infinite
  precision*; otherwise from the value written.  So an integer overflow
  gives N = the true sign and Z = 0, and a floating-point underflow (result
  forced to 0, UF = 1) gives Z = 0 and N = the true sign -- as the NORM page
  (13-182) states for its exponent -128 case.

Where the guide is silent the model follows docs/machine-model.md and says
so with "MODEL CHOICE".
"""
from __future__ import annotations

from fractions import Fraction
from math import floor

# ST bits [G 13-29, figure 13-6]
C, V, Z, N, UF, LV, LUF, OVM = 1, 2, 4, 8, 16, 32, 64, 128
FLOAT_FLAGS = N | Z | V | UF          # what a float op rewrites (C untouched)
INT_ARITH = N | Z | V | UF | C
INT_LOGIC = N | Z | V | UF            # logical ops, loads: C untouched

ZERO_EXP = -128
M32 = 0xFFFFFFFF
ZERO40 = 0x80_0000_0000                # canonical zero: exponent -128, mantissa 0
MOST_POS40 = 0x7F_7FFF_FFFF            # (2 - 2**-31) * 2**127
MOST_NEG40 = 0x7F_8000_0000            # -2 * 2**127


# ---------------------------------------------------------------------------
# Formats [G 5-5 .. 5-13]
# ---------------------------------------------------------------------------

def sx(v: int, bits: int) -> int:
    """Sign-extend a bits-wide field."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def exp40(p: int) -> int:
    return sx(p >> 32, 8)


def man40(p: int) -> int:
    return p & M32


def make40(e: int, m: int) -> int:
    return ((e & 0xFF) << 32) | (m & M32)


def is_zero40(p: int) -> bool:
    return exp40(p) == ZERO_EXP


def value40(p: int) -> Fraction:
    """The exact value of an extended pattern."""
    e, m = exp40(p), man40(p)
    if e == ZERO_EXP:
        return Fraction(0)
    lead = -2 if m >> 31 else 1
    mant = Fraction(lead) + Fraction(m & 0x7FFFFFFF, 1 << 31)
    return mant * Fraction(2) ** e


def single_to40(w: int) -> int:
    """A memory word (single precision) as a register value: 8 zero LSBs
    [G 5-13, figure 5-12]."""
    return make40(sx(w >> 24, 8), (w << 8) & M32)


def to_single(p: int) -> int:
    """What STF stores: the 8 mantissa LSBs are dropped, not rounded
    [G 5-13, figure 5-13]."""
    return ((p >> 32 & 0xFF) << 24) | (man40(p) >> 8)


def short_to40(s: int) -> int:
    """A 16-bit short-float immediate widened [G 5-5, 5-12]: any word with
    exponent -8 is zero and becomes a valid zero of the wider format."""
    e = sx(s >> 12, 4)
    if e == -8:
        return ZERO40
    return make40(e, (s & 0xFFF) << 20)


def natural_exp(x: Fraction) -> int:
    """The exponent e with x / 2**e in [1, 2) (x > 0) or [-2, -1) (x < 0)."""
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    # now 2**(e-1) < a < 2**(e+1); settle it
    while a >= Fraction(2) ** (e + 1):
        e += 1
    while a < Fraction(2) ** e:
        e -= 1
    # a in [2**e, 2**(e+1)); for negatives the range is (2**e, 2**(e+1)]
    if x < 0 and a == Fraction(2) ** e:
        e -= 1
    return e


def floor_to(x: Fraction, grid: Fraction) -> Fraction:
    """Drop the bits of x below grid (two's-complement truncation, i.e.
    towards minus infinity): the guide's "discard LSBs"."""
    return floor(x / grid) * grid


def encode40(x: Fraction) -> int:
    """The pattern of x, which must be exactly representable."""
    if x == 0:
        return ZERO40
    e = natural_exp(x)
    M = x / Fraction(2) ** e * (1 << 31)
    assert M.denominator == 1, f"{x} is not representable"
    M = int(M)
    man = M - (1 << 31) if M > 0 else M + (1 << 32) + (1 << 31)
    assert 0 <= man <= M32
    return make40(e, man)


def finish(x: Fraction, *, sat_pos: int = MOST_POS40, sat_neg: int = MOST_NEG40) -> tuple[int, int]:
    """Encode an exact result that fits 32 mantissa bits, with the exponent
    checks of every float op [G 5-33 steps 11-16, 13-29]: exponent above 127
    saturates to the most positive / negative value with V and LV; at or
    below -128 the result is 0 with UF and LUF (flags from the infinitely
    precise result: N its sign, Z = 0, guide 13-28)."""
    if x == 0:
        return ZERO40, Z
    neg = N if x < 0 else 0
    e = natural_exp(x)
    if e > 127:
        return (sat_neg if x < 0 else sat_pos), V | LV | neg
    if e < -127:
        return ZERO40, UF | LUF | neg
    return encode40(x), neg


def nz40(p: int) -> int:
    """N and Z of a value as written."""
    if is_zero40(p):
        return Z
    return N if man40(p) >> 31 else 0


# ---------------------------------------------------------------------------
# Floating-point operations [G 5.4 - 5.10, 13]
# ---------------------------------------------------------------------------

def negf(a: int) -> tuple[int, int]:
    if is_zero40(a):
        return ZERO40, Z
    return finish(-value40(a))


def absf(a: int) -> tuple[int, int]:
    if is_zero40(a):
        return ZERO40, Z
    return finish(abs(value40(a)))


def _add(a: int, b: int, sign: int) -> tuple[int, int]:
    """a + sign*b by the flowchart of figure 5-17 [G 5-32, 5-33]:
    c = (a(man) +- (b(man) * 2**-(a(exp) - b(exp)))) * 2**a(exp) -- the
    smaller-exponent operand is shifted right *before* the add or subtract,
    discarding its LSBs; a mantissa overflow is shifted right once (again
    discarding a bit); cancellation is normalised exactly."""
    ea, eb = exp40(a), exp40(b)
    E = max(ea, eb)
    if abs(ea - eb) >= 32:
        # MODEL CHOICE (machine-model 3.2, unverified in the guide): the
        # smaller operand is lost entirely, the larger returned unchanged.
        if ea > eb:
            return a, nz40(a)
        return (b, nz40(b)) if sign > 0 else negf(b)
    grid = Fraction(2) ** (E - 31)
    xa, xb = value40(a), value40(b)
    if ea < eb:
        xa = floor_to(xa, grid)
    elif eb < ea:
        xb = floor_to(xb, grid)
    s = xa + sign * xb
    if s == 0:
        # MODEL CHOICE: an exact cancellation is a zero, Z = 1, UF = 0
        return ZERO40, Z
    if s >= Fraction(2) ** (E + 1) or s < -Fraction(2) ** (E + 1):
        s = floor_to(s, grid * 2)
    return finish(s)


def addf(a: int, b: int) -> tuple[int, int]:
    """ADDF: a + b (dst + src).  A zero operand returns the other one
    unchanged (MODEL CHOICE for two zeros: the first operand, a)."""
    if is_zero40(b):
        return a, nz40(a)
    if is_zero40(a):
        return b, nz40(b)
    return _add(a, b, +1)


def subf(a: int, b: int) -> tuple[int, int]:
    """SUBF and CMPF: a - b (dst - src).  A zero subtrahend returns a; a
    zero minuend gives NEGF(b)."""
    if is_zero40(b):
        return a, nz40(a)
    if is_zero40(a):
        return negf(b)
    return _add(a, b, -1)


def trunc_single(p: int) -> Fraction:
    """An operand of the multiplier: extended operands are truncated to
    single precision, their 8 mantissa LSBs ignored [G 5-26]."""
    return value40(p & ~0xFF)


def mpyf(a: int, b: int) -> tuple[int, int]:
    """MPYF: 24 x 24-bit mantissa product, normalised by a right shift of
    0, 1 or 2, extra bits disposed of (truncated) [G 5-26 .. 5-31, figure
    5-16].  A zero operand gives 0 (Z, no UF)."""
    if is_zero40(a) or is_zero40(b):
        return ZERO40, Z
    p = trunc_single(a) * trunc_single(b)
    e = natural_exp(p)
    return finish(floor_to(p, Fraction(2) ** (e - 31)))


def norm(a: int) -> tuple[int, int]:
    """NORM [G 5-37, 5-38, 13-182]: the implied bit equals the sign bit, so
    the value is the signed 32-bit mantissa field times 2**(exp-31)."""
    e, m = exp40(a), man40(a)
    if e == ZERO_EXP:
        if m == 0:
            return ZERO40, Z                       # 13-182: Z = 1, UF = 0
        return ZERO40, UF | LUF | (N if m >> 31 else 0)   # 13-182: Z = 0, UF = 1
    if m == 0:
        return ZERO40, Z
    return finish(Fraction(sx(m, 32)) * Fraction(2) ** (e - 31))


def rnd(a: int) -> tuple[int, int]:
    """RND [G 5-39, 5-40 figure 5-19, 13-202]: add half a single-precision
    LSB (2**(exp-24)) and clear the 8 LSBs: round to nearest single, ties
    towards plus infinity.  Overflow saturates to the most positive /
    negative *single* value.  A zero operand sets UF (not Z); Z is never
    changed (13-202: "Z unaffected") -- see RND_AFFECTS."""
    if is_zero40(a):
        return ZERO40, UF | LUF    # "UF 1 if ... the src operand is 0"; LUF follows UF (13-29)
    x = value40(a)
    ulp = Fraction(2) ** (exp40(a) - 23)
    r = floor_to(x + ulp / 2, ulp)
    return finish(r, sat_pos=make40(127, 0x7FFFFF00), sat_neg=make40(127, 0x80000000))


def fix(a: int) -> tuple[int, int]:
    """FIX [G 5-41, 5-42, 13-99]: floor; exponents above 30 saturate with
    V and LV; UF = 0.  Returns a 32-bit integer."""
    if is_zero40(a):
        return 0, Z
    x = value40(a)
    if exp40(a) > 30:
        return (0x80000000, V | LV | N) if x < 0 else (0x7FFFFFFF, V | LV)
    r = floor(x)
    assert -(1 << 31) <= r < (1 << 31)
    return r & M32, nz32(r & M32)


def float_(i: int) -> tuple[int, int]:
    """FLOAT [G 5-43, 13-103]: exact."""
    v = sx(i, 32)
    return finish(Fraction(v))


def lde(src: int, dst: int) -> int:
    """LDE [G 13-112]: the exponent of src into dst; the mantissa is kept
    unless the exponent is the zero code, which clears it.  No flags."""
    e = exp40(src)
    return make40(e, 0 if e == ZERO_EXP else man40(dst))


# ---------------------------------------------------------------------------
# Integer operations [G 13, 13-28/13-29]
# ---------------------------------------------------------------------------

def nz32(r: int) -> int:
    r &= M32
    return Z if r == 0 else (N if r >> 31 else 0)


def _arith(true: int, carry: int, ovm: bool) -> tuple[int, int]:
    """A signed add/subtract result: V when the true result does not fit 32
    bits; then N and Z describe the true result (13-28) and OVM saturates
    it (13-29)."""
    fl = carry
    if -(1 << 31) <= true < (1 << 31):
        return true & M32, fl | nz32(true)
    fl |= V | LV | (N if true < 0 else 0)
    if ovm:
        return (0x80000000 if true < 0 else 0x7FFFFFFF), fl
    return true & M32, fl


def addi(dst: int, src: int, *, cin: int = 0, ovm: bool = False) -> tuple[int, int]:
    """ADDI / ADDC: dst + src (+ C).  C is the carry out of bit 31."""
    u = (dst & M32) + (src & M32) + cin
    return _arith(sx(dst, 32) + sx(src, 32) + cin, C if u >> 32 else 0, ovm)


def subi(dst: int, src: int, *, bin_: int = 0, ovm: bool = False) -> tuple[int, int]:
    """SUBI / SUBB / CMPI / NEGI / NEGB: dst - src (- C).  C is the borrow
    (13-92: "C 1 if a borrow occurs")."""
    borrow = C if (dst & M32) < (src & M32) + bin_ else 0
    return _arith(sx(dst, 32) - sx(src, 32) - bin_, borrow, ovm)


def absi(src: int, *, ovm: bool = False) -> tuple[int, int]:
    """ABSI: |src|; only 0x80000000 overflows (C unaffected)."""
    true = abs(sx(src, 32))
    r, fl = _arith(true, 0, ovm)
    return r, fl


def mpyi(a: int, b: int, *, ovm: bool = False) -> tuple[int, int]:
    """MPYI [G 13-159]: the signed 24-bit low parts multiplied into 48 bits;
    the low 32 bits kept; V if the product does not fit 32 bits."""
    true = sx(a, 24) * sx(b, 24)
    r, fl = _arith(true, 0, ovm)
    return r, fl


def shift_count(c: int) -> int:
    """The 7-bit two's-complement shift count of ASH/LSH [G 13-71, 13-73]."""
    return sx(c, 7)


def ash(v: int, count: int) -> tuple[int, int]:
    """ASH: left (zero fill) for a positive count, arithmetic right for a
    negative one; C = the last bit shifted out, 0 for a count of 0; V = 0.
    MODEL CHOICE (machine-model 3.1) beyond 32 positions: left gives 0 (C
    only from a 32-bit shift), right gives the sign everywhere (C = sign)."""
    v &= M32
    n = shift_count(count)
    if n == 0:
        return v, nz32(v)
    if n > 0:
        wide = v << n                   # exact, as an unbounded integer
        c = (wide >> 32) & 1
        r = wide & M32
    else:
        s = sx(v, 32)
        k = -n
        c = (s >> (k - 1)) & 1          # Python's >> is arithmetic on any width
        r = (s >> k) & M32
    return r, nz32(r) | (C if c else 0)


def lsh(v: int, count: int) -> tuple[int, int]:
    """LSH: as ASH, but the right shift fills with zeros."""
    v &= M32
    n = shift_count(count)
    if n == 0:
        return v, nz32(v)
    if n > 0:
        wide = v << n
        c = (wide >> 32) & 1
        r = wide & M32
    else:
        k = -n
        c = (v >> (k - 1)) & 1
        r = (v >> k) & M32
    return r, nz32(r) | (C if c else 0)


def subc(dst: int, src: int) -> int:
    """SUBC [G 13-226]: conditional subtract for division, no flags."""
    dst &= M32
    src &= M32
    if dst >= src:
        return (((dst - src) << 1) | 1) & M32
    return (dst << 1) & M32


# ---------------------------------------------------------------------------
# Condition codes [G 13-30/13-31, table 13-12]
# ---------------------------------------------------------------------------

CONDITIONS = {
    "U": lambda f: True,
    "LO": lambda f: bool(f & C), "C": lambda f: bool(f & C),
    "LS": lambda f: bool(f & (C | Z)),
    "HI": lambda f: not f & C and not f & Z,
    "HS": lambda f: not f & C, "NC": lambda f: not f & C,
    "EQ": lambda f: bool(f & Z), "Z": lambda f: bool(f & Z),
    "NE": lambda f: not f & Z, "NZ": lambda f: not f & Z,
    "LT": lambda f: bool(f & N), "N": lambda f: bool(f & N),
    "LE": lambda f: bool(f & (N | Z)),
    "GT": lambda f: not f & N and not f & Z, "P": lambda f: not f & N and not f & Z,
    "GE": lambda f: not f & N, "NN": lambda f: not f & N,
    "NV": lambda f: not f & V, "V": lambda f: bool(f & V),
    "NUF": lambda f: not f & UF, "UF": lambda f: bool(f & UF),
    "NLV": lambda f: not f & LV, "LV": lambda f: bool(f & LV),
    "NLUF": lambda f: not f & LUF, "LUF": lambda f: bool(f & LUF),
    "ZUF": lambda f: bool(f & (Z | UF)),
}
