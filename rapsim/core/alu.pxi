# Integer arithmetic and logic of the C30 with its condition flags (guide
# 3.1.7 and chapter 13).  Each function returns the result and ORs the flags
# it produces (ST layout: C, V, Z, N; LV with V) into *fl.  When an
# operation overflows, N and Z describe the result computed to infinite
# precision (guide 13-28): N is its true sign and Z is 0, whatever the 32
# bits written.  Overflow-mode saturation (ST.OVM) is applied by int_ovm():
# the register then receives the most positive or most negative integer
# (same sign, so the same N).

cdef inline uint32_t nz_flags(uint32_t r) noexcept nogil:
    if r == 0:
        return ST_Z
    return ST_N if (r & 0x80000000u) else 0

cdef inline uint32_t iadd(uint32_t a, uint32_t b, uint32_t cin, uint32_t* fl) noexcept nogil:
    cdef uint64_t s = <uint64_t>a + <uint64_t>b + <uint64_t>cin
    cdef uint32_t r = <uint32_t>s
    if s >> 32:
        fl[0] |= ST_C
    if ((a ^ r) & (b ^ r)) & 0x80000000u:
        fl[0] |= ST_V | ST_LV
    return r

cdef inline uint32_t isub(uint32_t a, uint32_t b, uint32_t bin, uint32_t* fl) noexcept nogil:
    """a - b - bin; C is the borrow."""
    cdef uint32_t r = a - b - bin
    if <uint64_t>a < <uint64_t>b + <uint64_t>bin:
        fl[0] |= ST_C
    if ((a ^ b) & (a ^ r)) & 0x80000000u:
        fl[0] |= ST_V | ST_LV
    return r

cdef inline uint32_t int_sat(Node* n, uint32_t r, int true_negative, uint32_t* fl) noexcept nogil:
    """Add N and Z -- of the true result if it overflowed (guide 13-28) --
    and saturate an overflowed result when ST.OVM is set (to the most
    negative integer if the true result is negative, else the most
    positive)."""
    if fl[0] & ST_V:
        if true_negative:
            fl[0] |= ST_N
        if n.r[RAP_REG_ST] & ST_OVM:
            r = 0x80000000u if true_negative else 0x7FFFFFFFu
        return r
    fl[0] |= nz_flags(r)
    return r

cdef inline uint32_t cmp_flags(uint32_t r, uint32_t fl) noexcept nogil:
    """N and Z of a compare (dst - src, result r, flags fl from isub): of
    the result to infinite precision (guide 13-28), so that LT/GE (N alone)
    are true signed comparisons even when the 32-bit difference overflows."""
    if fl & ST_V:
        return fl | (0 if r & 0x80000000u else ST_N)
    return fl | nz_flags(r)

cdef inline uint32_t int_ovm(Node* n, uint32_t r, uint32_t* fl) noexcept nogil:
    """int_sat for additions and subtractions, whose overflowed results have
    the wrong sign."""
    return int_sat(n, r, (r & 0x80000000u) == 0, fl)

cdef inline uint32_t imul24(Node* n, uint32_t a, uint32_t b, uint32_t* fl) noexcept nogil:
    """MPYI: 24-bit signed operands, low 32 bits of the 48-bit product; V if
    the product does not fit 32 bits (guide 13 MPYI)."""
    cdef int64_t x = (<int32_t>(a << 8)) >> 8
    cdef int64_t y = (<int32_t>(b << 8)) >> 8
    cdef int64_t p = x * y
    cdef uint32_t r = <uint32_t>p
    if p != <int64_t><int32_t>r:
        fl[0] |= ST_V | ST_LV
    return int_sat(n, r, p < 0, fl)

cdef inline int shift_count(uint32_t c) noexcept nogil:
    """The signed 7-bit shift count of ASH/LSH (guide 13 ASH): -64..63."""
    return (<int32_t>(c << 25)) >> 25

cdef inline uint32_t iash(uint32_t v, uint32_t count, uint32_t* fl) noexcept nogil:
    cdef int c = shift_count(count)
    cdef uint32_t r
    if c > 0:
        if c < 32:
            if (v >> (32 - c)) & 1:
                fl[0] |= ST_C
            r = v << c
        else:
            if c == 32 and (v & 1):
                fl[0] |= ST_C
            r = 0
    elif c < 0:
        c = -c
        if c < 32:
            if (v >> (c - 1)) & 1:
                fl[0] |= ST_C
            r = <uint32_t>((<int32_t>v) >> c)
        else:
            if v & 0x80000000u:
                fl[0] |= ST_C
            r = 0xFFFFFFFFu if (v & 0x80000000u) else 0
    else:
        r = v
    fl[0] |= nz_flags(r)
    return r

cdef inline uint32_t ilsh(uint32_t v, uint32_t count, uint32_t* fl) noexcept nogil:
    cdef int c = shift_count(count)
    cdef uint32_t r
    if c > 0:
        if c < 32:
            if (v >> (32 - c)) & 1:
                fl[0] |= ST_C
            r = v << c
        else:
            if c == 32 and (v & 1):
                fl[0] |= ST_C
            r = 0
    elif c < 0:
        c = -c
        if c < 32:
            if (v >> (c - 1)) & 1:
                fl[0] |= ST_C
            r = v >> c
        else:
            if c == 32 and (v & 0x80000000u):
                fl[0] |= ST_C
            r = 0
    else:
        r = v
    fl[0] |= nz_flags(r)
    return r
