# The pre-decoder turns an instruction word into a Decoded record, through the ISA
# table generated from asm/isa.py (the same table the assembler and the
# disassembler use).  A word is legal when bits 31-21 select a form whose
# fixed bits match and whose register, condition and indirect-mode fields
# name existing registers, conditions and modes (asm/decoder.py applies the
# same rules; tests/sim/test_decode_agreement.py checks that they agree).

cdef inline int group_of(int reg) noexcept nogil:
    """The pipeline-conflict group of a register (guide 8.2.2)."""
    if (reg >= RAP_REG_AR0 and reg < RAP_REG_AR0 + 8) or reg == RAP_REG_IR0 \
            or reg == RAP_REG_IR1 or reg == RAP_REG_BK:
        return GRP_AR
    if reg == RAP_REG_DP:
        return GRP_DP
    if reg == RAP_REG_SP:
        return GRP_SP
    return 0


cdef inline int writes_register(int op) noexcept nogil:
    """Does the form's last register operand receive a result?  (Stores and
    pushes read it; compares and tests only set flags.)"""
    return not (op == RAP_OP_STF or op == RAP_OP_STFI or op == RAP_OP_STI or op == RAP_OP_STII
                or op == RAP_OP_PUSH or op == RAP_OP_PUSHF or op == RAP_OP_CMPI
                or op == RAP_OP_CMPF or op == RAP_OP_TSTB or op == RAP_OP_NOP
                or op == RAP_OP_RPTS or op == RAP_OP_IACK or op == RAP_OP_BC or op == RAP_OP_BCD
                or op == RAP_OP_CALLC or op == RAP_OP_DBC or op == RAP_OP_DBCD)


cdef inline bint am_updates(int am) noexcept nogil:
    """The AM_* mode writes its ARn back (guide 6.3, table 6-2: every mode
    but *+ARn(x), *-ARn(x) and *ARn)."""
    return am != AM_PRE and am != AM_PRE_M and am != AM_NONE


cdef inline uint8_t addressing_kind(const rap_imode_t* m) noexcept nogil:
    """The AM_* code (and index kind in bits 7-4) of an indirect mode."""
    cdef uint8_t am
    if m.index == 3:
        am = AM_NONE
    elif m.bitrev:
        am = AM_BITREV
    elif m.premodify:
        am = (AM_PRE_U if m.update else AM_PRE) + (1 if m.sign < 0 else 0)
    elif m.circular:
        am = AM_CIRC + (1 if m.sign < 0 else 0)
    else:
        am = AM_POST + (1 if m.sign < 0 else 0)
    return am | (m.index << 4)


cdef int cond_true(uint32_t st, int c) noexcept nogil:
    """Condition codes (guide 13.3, table 13-9).  Evaluated at decode only,
    into Decoded.ctab (cond_holds below)."""
    cdef int C = st & 1, V = (st >> 1) & 1, Z = (st >> 2) & 1, N = (st >> 3) & 1
    cdef int UF = (st >> 4) & 1, LV = (st >> 5) & 1, LUF = (st >> 6) & 1
    if c == 0:
        return 1
    if c == 1:
        return C
    if c == 2:
        return C | Z
    if c == 3:
        return (not C) and (not Z)
    if c == 4:
        return not C
    if c == 5:
        return Z
    if c == 6:
        return not Z
    if c == 7:
        return N
    if c == 8:
        return N | Z
    if c == 9:
        return (not N) and (not Z)
    if c == 10:
        return not N
    if c == 12:
        return not V
    if c == 13:
        return V
    if c == 14:
        return not UF
    if c == 15:
        return UF
    if c == 16:
        return not LV
    if c == 17:
        return LV
    if c == 18:
        return not LUF
    if c == 19:
        return LUF
    if c == 20:
        return Z | UF
    return 0


cdef inline void cond_table(Decoded* d) noexcept nogil:
    """Decoded.ctab: the truth of condition d.cond for each of the 128 values
    of the flags it can test (ST bits 6-0: LUF LV UF N Z V C)."""
    cdef uint32_t st
    d.ctab[0] = 0
    d.ctab[1] = 0
    for st in range(128):
        if cond_true(st, d.cond):
            d.ctab[st >> 6] |= (<uint64_t>1) << (st & 63)


cdef inline int cond_holds(Decoded* d, uint32_t st) noexcept nogil:
    """Does the condition of d hold for status register st?  (Its truth table,
    Decoded.ctab: one shift instead of the cases of table 13-9.)"""
    return (d.ctab[(st >> 6) & 1] >> (st & 63)) & 1


cdef int decode_word(uint32_t w, Decoded* d) noexcept nogil:
    """Fill d from word w.  Returns 1 if legal, 0 if not (d.valid = 2)."""
    cdef int c, i, ok, fi, pass_
    cdef uint32_t bits
    cdef const rap_form_t* f
    cdef const rap_opspec_t* s
    cdef Opnd* o
    d.word = w
    d.valid = 2
    for c in range(RAP_DECODE_CANDS):
        fi = rap_decode[w >> RAP_DECODE_SHIFT][c]
        if fi == 0xFFFF:
            break
        f = &rap_forms[fi]
        if (w & f.mask) != f.opcode:
            continue
        d.cond = 0
        if f.cond_shift != 255:
            d.cond = (w >> f.cond_shift) & 31
            if not rap_cond_valid[d.cond]:
                continue
        ok = 1
        d.uses = 0
        d.writes = 0
        d.src_mem = 0
        d.src_imm = 0
        for i in range(f.nops):
            s = &f.o[i]
            o = &d.o[i]
            bits = (w >> s.shift) & ((1u << s.width) - 1)
            o.kind = s.kind
            o.reg = 0
            o.mode = 0
            o.val = 0
            if s.kind == RAP_K_REG:
                if bits >= RAP_NUM_REGISTERS:
                    ok = 0
                    break
                o.reg = bits
            elif s.kind == RAP_K_FREG:
                if bits >= 8:
                    ok = 0
                    break
                o.reg = bits
            elif s.kind == RAP_K_PREG or s.kind == RAP_K_R01:
                o.reg = bits
            elif s.kind == RAP_K_R23:
                o.reg = 2 + bits
            elif s.kind == RAP_K_ARN:
                o.reg = RAP_REG_AR0 + bits
                d.uses |= GRP_AR
            elif s.kind == RAP_K_IND or s.kind == RAP_K_IND8:
                if s.kind == RAP_K_IND:
                    o.mode = bits >> 11
                    o.reg = (bits >> 8) & 7
                    o.val = bits & 0xFF
                else:
                    o.mode = bits >> 3
                    o.reg = bits & 7
                    o.val = 1
                if o.mode >= RAP_NUM_IMODES:
                    ok = 0
                    break
                o.am = addressing_kind(&rap_imodes[o.mode])
                d.uses |= GRP_AR
            elif s.kind == RAP_K_DIR:
                o.val = bits
                d.uses |= GRP_DP
            elif s.kind == RAP_K_SIMM or s.kind == RAP_K_PCREL:
                o.val = <int16_t>bits
            elif s.kind == RAP_K_DPIMM:
                if bits > 0xFF:     # not an LDP (a 24-bit address): the LDI form decodes it
                    ok = 0
                    break
                o.val = bits
            else:               # UIMM, FIMM, ADDR24, TRAPN, DPIMM
                o.val = bits
            if s.kind == RAP_K_DIR or s.kind == RAP_K_IND or s.kind == RAP_K_IND8:
                d.src_mem |= 1 << i
            elif s.kind == RAP_K_SIMM or s.kind == RAP_K_UIMM or s.kind == RAP_K_DPIMM \
                    or s.kind == RAP_K_ADDR24 or s.kind == RAP_K_TRAPN:
                d.src_imm |= 1 << i
        if not ok:
            continue
        d.op = f.op
        d.form = fi
        d.timing = f.timing
        d.nops = f.nops
        # register operands of branches are read early (decode stage)
        if f.nops and (d.op == RAP_OP_BC or d.op == RAP_OP_BCD or d.op == RAP_OP_CALLC
                       or d.op == RAP_OP_DBC or d.op == RAP_OP_DBCD):
            o = &d.o[f.nops - 1]
            if o.kind == RAP_K_REG:
                d.uses |= group_of(o.reg)
        if d.op == RAP_OP_PUSH or d.op == RAP_OP_PUSHF or d.op == RAP_OP_POP \
                or d.op == RAP_OP_POPF or d.op == RAP_OP_CALL or d.op == RAP_OP_CALLC \
                or d.op == RAP_OP_RETSC or d.op == RAP_OP_RETIC or d.op == RAP_OP_TRAPC:
            d.uses |= GRP_SP
        if not f.parallel and f.nops and writes_register(d.op):
            o = &d.o[f.nops - 1]
            if o.kind == RAP_K_REG:
                d.writes = group_of(o.reg)
        if d.op == RAP_OP_LDI and f.nops == 1:      # LDP
            d.writes = GRP_DP
        # operands with an address, bits 7-0 ones first (their ARn update is
        # kept first, so when both update one ARn the operand in bits 15-8
        # wins: guide 13.2); only operands whose mode updates ARn write it
        # back, so a non-updating operand never undoes the other's update
        d.naddr = 0
        d.addr_w = 0
        d.addr_u = 0
        d.access = 0 if d.op == RAP_OP_NOP else 1
        for pass_ in range(2):
            for i in range(f.nops):
                o = &d.o[i]
                if o.kind == RAP_K_IND or o.kind == RAP_K_IND8 or o.kind == RAP_K_DIR:
                    if (f.o[i].shift == 8) == (pass_ == 1):
                        if f.o[i].store:
                            d.addr_w |= 1 << d.naddr
                        if o.kind != RAP_K_DIR and am_updates(o.am & 15):
                            d.addr_u |= 1 << d.naddr
                        d.addr_op[d.naddr] = i
                        d.naddr += 1
        d.base = base_cycles(d.timing)
        d.fh = fast_handler(d)
        d.fetch_only = d.naddr == 0 and not (d.uses & GRP_SP) and d.op != RAP_OP_IDLE
        if f.cond_shift != 255:
            cond_table(d)
        else:
            d.ctab[0] = ~(<uint64_t>0)      # no condition: always
            d.ctab[1] = ~(<uint64_t>0)
        d.frg = RG_NONE
        d.valid = 1
        return 1
    return 0


cdef Decoded* decoded_at(Node* n, uint32_t a) noexcept nogil:
    """The pre-decoded instruction at address a (decoded on first use).
    NULL only if the decode cache cannot be allocated."""
    cdef uint32_t pg = (a & 0xFFFFFF) >> DPAGE_BITS
    cdef Decoded* page = n.dcache[pg]
    cdef Decoded* d
    cdef int region
    cdef uint32_t* p
    if page == NULL:
        page = <Decoded*>calloc(DPAGE_WORDS, sizeof(Decoded))
        if page == NULL:
            return NULL
        n.dcache[pg] = page
    d = &page[a & (DPAGE_WORDS - 1)]
    if d.valid == 0:
        region = region_of(n, a)
        p = word_ptr(n, a, region)
        if decode_word(p[0], d):
            d.frg = region
    return d
