# TMS320C30 floating-point arithmetic, bit-exact (guide chapter 5).
#
# A value is (e, m): an 8-bit exponent and the 32-bit mantissa field of the
# 40-bit register (sign in bit 31, fraction in bits 30-0; the hidden bit is
# the complement of the sign).  Internally a mantissa is the signed number
# M = value / 2**e * 2**31, in [2**31, 2**32) for positive values and in
# [-2**32, -2**31) for negative ones; e == -128 means zero.
#
# Every operation reports its condition flags in a ST-layout bit set (N, Z,
# V, UF, and the latched LV / LUF when V / UF are set); the caller decides
# whether they reach ST (flags change only for destinations R0-R7, guide
# 3.1.7, and always for compares).  After an overflow or an underflow the
# flags describe the result computed to infinite precision (guide 13-28):
# an underflow (result forced to 0, UF) leaves Z = 0 and N = the true sign,
# as the NORM page (13-182) states for its exponent -128 case.

cdef extern from *:
    """
    static inline int rap_clz64(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
    static inline int rap_clz32(unsigned int x) { return x ? __builtin_clz(x) : 32; }
    """
    int rap_clz64(uint64_t x) nogil
    int rap_clz32(uint32_t x) nogil

cdef struct F40:
    int32_t e
    uint32_t m

cdef enum:
    FZERO_EXP = -128
    FL_NZVUF = ST_N | ST_Z | ST_V | ST_UF          # flags a float op rewrites

cdef inline int64_t fman(uint32_t m) noexcept nogil:
    """The signed mantissa M of a mantissa field."""
    return (<int64_t><int32_t>m) ^ (<int64_t>1 << 31)

cdef inline uint32_t fpack(int64_t M) noexcept nogil:
    return (<uint32_t>M) ^ <uint32_t>0x80000000

cdef inline F40 fzero() noexcept nogil:
    cdef F40 r
    r.e = FZERO_EXP
    r.m = 0
    return r

cdef inline F40 fmake(int32_t e, uint32_t m) noexcept nogil:
    cdef F40 r
    r.e = e
    r.m = m
    return r

cdef inline uint32_t fflags_of(F40 r) noexcept nogil:
    """N and Z of a result."""
    if r.e == FZERO_EXP:
        return ST_Z
    return ST_N if (r.m & 0x80000000u) else 0

cdef inline F40 single_to_f40(uint32_t w) noexcept nogil:
    """A single-precision memory word as a register value: the 8 low mantissa
    bits are zero (guide 5.3.4, figure 5-12)."""
    return fmake(<int8_t>(w >> 24), w << 8)

cdef inline uint32_t f40_to_single(F40 v) noexcept nogil:
    """What STF stores: the top 32 bits, the 8 low mantissa bits dropped
    (guide 5.3.4, figure 5-13)."""
    return ((<uint32_t>v.e & 0xFF) << 24) | (v.m >> 8)

cdef inline F40 short_to_f40(uint32_t s) noexcept nogil:
    """A short-float immediate widened (guide 5.3.4): exponent sign-extended,
    fraction padded with zeros; any short zero (exponent -8) is a valid zero."""
    cdef int32_t e = (<int32_t>(s << 16)) >> 28
    if e == -8:
        return fzero()
    return fmake(e, (s & 0xFFF) << 20)


cdef F40 fnormalize_range(int32_t e, int64_t M, uint32_t* fl) noexcept nogil:
    """fnormalize()'s rare case: a normalised M whose exponent is out of
    range.  Overflow saturates to the most positive or negative value with
    V/LV; underflow gives 0 with UF/LUF and N of the infinitely precise
    result (guide 5.5, figure 5-17; 13-28)."""
    if e > 127:
        fl[0] |= ST_V | ST_LV
        if M >= 0:
            fl[0] &= ~ST_N
            return fmake(127, 0x7FFFFFFF)
        fl[0] |= ST_N
        return fmake(127, 0x80000000u)
    fl[0] |= ST_UF | ST_LUF
    if M < 0:
        fl[0] |= ST_N
    return fzero()


cdef inline F40 fnormalize(int32_t e, int64_t M, uint32_t* fl) noexcept nogil:
    """Normalise M (|value| < 4), then check exponent overflow (saturate,
    V/LV) and underflow (exact zero, UF/LUF) -- guide 5.5, figure 5-17.

    The common cases first (issue 16): t = (M >> 31) ^ (sign of M) is 1
    when M is normalised (the sign repeated down to bit 32, bit 31 its
    complement), 2 or 3 after a carry out of an addition or a product
    >= 2 (one right shift), 4 or more only for MPYF's -2 x -2 (two: |M| <=
    2**33 from every caller), 0 after a cancellation or for zero (a left
    shift by the leading sign bits).  The exponent range -127..127 is one
    unsigned compare; N is the sign of M.  Bit-identical to shifting one
    place at a time (tests/sim/test_float.py checks every operation
    against tests/sim/c3xref.py, written from the guide)."""
    cdef int k
    cdef int64_t t = (M >> 31) ^ (M >> 63)
    if t != 1:
        if t > 1:
            if t < 4:
                M >>= 1
                e += 1
            else:
                M >>= 2
                e += 2
        elif M == 0:
            fl[0] |= ST_Z
            return fzero()
        else:
            k = rap_clz64(<uint64_t>(M ^ (M >> 63))) - 32
            M = M << k
            e -= k
    if <uint32_t>(e + 127) > 254u:
        return fnormalize_range(e, M, fl)
    fl[0] |= (<uint32_t>(<uint64_t>M >> 63)) * ST_N
    return fmake(e, fpack(M))


cdef inline F40 fneg(F40 a, uint32_t* fl) noexcept nogil:
    if a.e == FZERO_EXP:
        fl[0] |= ST_Z
        return fzero()
    return fnormalize(a.e, -fman(a.m), fl)


cdef inline F40 fabs_(F40 a, uint32_t* fl) noexcept nogil:
    if a.e == FZERO_EXP:
        fl[0] |= ST_Z
        return fzero()
    cdef int64_t M = fman(a.m)
    if M >= 0:
        return a
    return fnormalize(a.e, -M, fl)


cdef inline F40 faddsub(F40 a, F40 b, int sub, uint32_t* fl) noexcept nogil:
    """a + b (or a - b): align the smaller operand by an arithmetic right
    shift (low bits discarded), then add or subtract, normalise (guide 5.6,
    5-32: c = (a(man) - (b(man) * 2**-(a(exp)-b(exp)))) * 2**a(exp), figure
    5-17): a subtrahend is shifted before it is negated.  A zero operand
    returns the other unchanged; an exponent difference of 32 or more
    returns the larger operand (its sign adjusted for a - b)."""
    cdef int64_t Ma, Mb, M
    cdef int32_t d, e
    if b.e == FZERO_EXP:
        fl[0] |= fflags_of(a)
        return a
    if a.e == FZERO_EXP:
        if sub:
            return fneg(b, fl)
        fl[0] |= fflags_of(b)
        return b
    Ma = fman(a.m)
    Mb = fman(b.m)
    if a.e >= b.e:
        d = a.e - b.e
        e = a.e
        if d >= 32:
            fl[0] |= fflags_of(a)
            return a
        Mb >>= d
    else:
        d = b.e - a.e
        e = b.e
        if d >= 32:
            if sub:
                return fneg(b, fl)
            fl[0] |= fflags_of(b)
            return b
        Ma >>= d
    M = Ma - Mb if sub else Ma + Mb
    return fnormalize(e, M, fl)


cdef inline F40 fmpy(F40 a, F40 b, uint32_t* fl) noexcept nogil:
    """a * b: both operands truncated to single precision (24-bit mantissas),
    the 50-bit product truncated to an extended-precision result (guide 5.4,
    figure 5-16)."""
    cdef int64_t ma, mb, P
    if a.e == FZERO_EXP or b.e == FZERO_EXP:
        fl[0] |= ST_Z
        return fzero()
    ma = (<int64_t>((<int32_t>a.m) >> 8)) ^ 0x800000
    mb = (<int64_t>((<int32_t>b.m) >> 8)) ^ 0x800000
    P = (ma * mb) >> 15
    return fnormalize(a.e + b.e, P, fl)


cdef inline F40 frnd(F40 a, uint32_t* fl) noexcept nogil:
    """RND: round to single precision by adding half a single-precision LSB
    and truncating (guide 5.8, figure 5-19): ties go towards +infinity.  A
    zero operand sets UF, not Z (guide 13-202 note).  Overflow saturates to
    the largest single-precision magnitude.  The caller leaves Z alone
    (13-202: "Z unaffected")."""
    cdef int64_t M
    cdef F40 r
    if a.e == FZERO_EXP:
        fl[0] |= ST_UF | ST_LUF
        return fzero()
    M = (fman(a.m) + 0x80) & ~(<int64_t>0xFF)
    r = fnormalize(a.e, M, fl)
    if fl[0] & ST_V:
        r.m = 0x7FFFFF00 if (r.m & 0x80000000u) == 0 else 0x80000000u
    r.m &= 0xFFFFFF00u
    fl[0] &= ~ST_Z
    return r


cdef inline int32_t ffix(F40 a, uint32_t* fl) noexcept nogil:
    """FIX: the largest integer not above the value (guide 5.9, figure 5-20);
    exponents above 30 saturate with V/LV."""
    cdef int64_t M
    cdef int s
    cdef int32_t r
    if a.e == FZERO_EXP:
        fl[0] |= ST_Z
        return 0
    M = fman(a.m)
    if a.e > 30:
        fl[0] |= ST_V | ST_LV
        if M >= 0:
            return 0x7FFFFFFF
        fl[0] |= ST_N
        return <int32_t>0x80000000
    s = 31 - a.e
    if s >= 63:
        r = -1 if M < 0 else 0
    else:
        r = <int32_t>(M >> s)
    if r == 0:
        fl[0] |= ST_Z
    elif r < 0:
        fl[0] |= ST_N
    return r


cdef inline F40 ffloat(int32_t i, uint32_t* fl) noexcept nogil:
    """FLOAT: an integer as an extended-precision value, exactly (guide 5.10)."""
    cdef int64_t M = i
    cdef int k
    if i == 0:
        fl[0] |= ST_Z
        return fzero()
    k = rap_clz64(<uint64_t>(M ^ (M >> 63))) - 32
    if i < 0:
        fl[0] |= ST_N
    return fmake(31 - k, fpack(M << k))


cdef inline F40 fnorm(F40 a, uint32_t* fl) noexcept nogil:
    """NORM: normalise an unnormalised extended value whose hidden bit equals
    its sign bit (guide 5.7, 13 NORM)."""
    cdef uint32_t sign, x
    cdef int k
    cdef int32_t e
    sign = a.m & 0x80000000u
    if a.e == FZERO_EXP:
        if a.m != 0:
            # guide 13-182: dst = 0, Z = 0, UF = 1 (an underflow; N is the
            # sign of the value, as for every underflow)
            fl[0] |= ST_UF | ST_LUF
            if sign:
                fl[0] |= ST_N
        else:
            fl[0] |= ST_Z
        return fzero()
    if a.m == 0:
        fl[0] |= ST_Z
        return fzero()
    if sign:
        fl[0] |= ST_N
    x = a.m ^ (0xFFFFFFFFu if sign else 0)
    k = rap_clz32(x)
    e = a.e - k
    if e < -127:
        fl[0] |= ST_UF | ST_LUF
        return fzero()
    if k >= 32:
        return fmake(e, sign)
    return fmake(e, ((a.m << k) & 0x7FFFFFFFu) | sign)
