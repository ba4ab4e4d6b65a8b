# The operations of the C30 instruction set (guide chapter 13), one case per
# semantic op of the ISA table.  Operands arrive in assembler order; the
# table's forms are arranged so that for every two-source operation the
# first-written source is operand 0 and the second operand 1, and the
# result is "operand 1 (op) operand 0" -- e.g. SUBI R1,R2 and SUBI3 R1,R2,R3
# both compute R2 - R1, as SUBF3||STF computes its indirect source minus
# its register source.  Destinations are the last operand.

cdef enum:
    M_ARITH = ST_N | ST_Z | ST_V | ST_UF | ST_C     # integer arithmetic
    M_LOGIC = ST_N | ST_Z | ST_V | ST_UF            # logic, loads, floats


cdef inline uint32_t ival(Node* n, Ctx* c, int i) noexcept nogil:
    """The integer value of operand i: the word read from memory, the
    immediate field, or the register (the kind resolved at decode:
    Decoded.src_mem, src_imm)."""
    cdef Decoded* d = c.d
    if (d.src_mem >> i) & 1:
        return c.mv[i]
    if (d.src_imm >> i) & 1:
        return <uint32_t>d.o[i].val
    return n.r[d.o[i].reg]


cdef inline F40 fval(Node* n, Ctx* c, int i) noexcept nogil:
    cdef Opnd* o = &c.d.o[i]
    if (c.d.src_mem >> i) & 1:
        return single_to_f40(c.mv[i])
    if o.kind == RAP_K_FIMM:
        return short_to_f40(<uint32_t>o.val)
    return reg_f(n, o.reg)


cdef inline uint32_t fsingle(Node* n, int reg) noexcept nogil:
    return f40_to_single(reg_f(n, reg))


cdef inline void wint(Node* n, int reg, uint32_t r, uint32_t fl, uint32_t mask) noexcept nogil:
    """Write an integer result; flags only for R0-R7 (guide 3.1.7)."""
    write_reg(n, reg, r)
    if reg < 8:
        set_flags(n, fl, mask)


cdef inline void wflt(Node* n, int reg, F40 r, uint32_t fl) noexcept nogil:
    write_f(n, reg, r)
    set_flags(n, fl, M_LOGIC)


cdef void store_special(Node* n, Ctx* c, int i, uint32_t v) noexcept nogil:
    """store_op() to a ring, host-call or peripheral register (out of line:
    the rare case)."""
    cdef int rg = c.rgs[i]
    cdef uint32_t a = c.ea[i]
    if rg == RG_RINGIO:
        if a == RAP_RING_DATA:
            ring_put(n.rout, v, c.t_ring)
            n.ring_sent += 1
        elif a == RAP_RING_FWD:
            n.fwd_count = <int32_t>v
        elif a == RAP_HOST_CALL:
            c.hostcall = 1
            n.hostcall_addr = v & 0xFFFFFF
    else:
        periph_write(n, a, v, c.t_ring)
    n.acc_write[rg] += 1
    acc_add(n, &c.acc, rg)


cdef inline void store_op(Node* n, Ctx* c, int i, uint32_t v) noexcept nogil:
    """Write v to memory operand i (its address was checked in decode)."""
    cdef int rg = c.rgs[i]
    cdef uint32_t a = c.ea[i]
    if rg >= RG_RINGIO:
        store_special(n, c, i, v)
        return
    word_ptr(n, a, rg)[0] = v
    invalidate_code(n, a)
    n.acc_write[rg] += 1
    acc_add(n, &c.acc, rg)


cdef inline int push(Node* n, Ctx* c, uint32_t v) noexcept nogil:
    cdef uint32_t sp = add24(n.r[RAP_REG_SP], 1)
    if plain_write(n, sp & 0xFFFFFF, v, &c.acc):
        n.err_addr = sp & 0xFFFFFF
        return ERR_WRITE
    n.r[RAP_REG_SP] = sp
    return 0


cdef inline int pop(Node* n, Ctx* c, uint32_t* v) noexcept nogil:
    cdef uint32_t sp = n.r[RAP_REG_SP]
    if plain_read(n, sp & 0xFFFFFF, v, &c.acc):
        n.err_addr = sp & 0xFFFFFF
        return ERR_READ
    n.r[RAP_REG_SP] = add24(sp, -1)
    return 0


cdef inline uint32_t branch_target(Node* n, Ctx* c, int i) noexcept nogil:
    cdef Opnd* o = &c.d.o[i]
    if o.kind == RAP_K_PCREL:
        return (c.pc + rap_forms[c.d.form].pcrel_base + o.val) & 0xFFFFFF
    if o.kind == RAP_K_ADDR24:
        return <uint32_t>o.val
    return n.r[o.reg] & 0xFFFFFF


cdef inline void delayed(Node* n, uint32_t target, int taken) noexcept nogil:
    n.dslots = 3
    n.dtarget = target
    n.dtaken = taken


cdef inline uint32_t int_op2(Node* n, int op, uint32_t a, uint32_t b, uint32_t st, uint32_t* fl,
                             uint32_t* mask) noexcept nogil:
    """The two-source integer operations shared by the general, 3-operand and
    parallel forms: result of ``a op b``."""
    cdef uint32_t r
    mask[0] = M_ARITH
    if op == RAP_OP_ADDI:
        return int_ovm(n, iadd(a, b, 0, fl), fl)
    if op == RAP_OP_SUBI:
        return int_ovm(n, isub(a, b, 0, fl), fl)
    if op == RAP_OP_ADDC:
        return int_ovm(n, iadd(a, b, st & ST_C, fl), fl)
    if op == RAP_OP_SUBB:
        return int_ovm(n, isub(a, b, st & ST_C, fl), fl)
    if op == RAP_OP_ASH:
        return iash(a, b, fl)
    if op == RAP_OP_LSH:
        return ilsh(a, b, fl)
    mask[0] = M_LOGIC
    if op == RAP_OP_MPYI:
        return imul24(n, a, b, fl)
    if op == RAP_OP_AND:
        r = a & b
    elif op == RAP_OP_ANDN:
        r = a & ~b
    elif op == RAP_OP_OR:
        r = a | b
    else:               # XOR
        r = a ^ b
    fl[0] |= nz_flags(r)
    return r


cdef inline uint32_t int_op1(Node* n, int op, uint32_t b, uint32_t st, uint32_t* fl,
                             uint32_t* mask) noexcept nogil:
    """The one-source integer operations (ABSI, NEGI, NEGB, NOT, LDI)."""
    cdef uint32_t r
    if op == RAP_OP_ABSI:
        mask[0] = M_LOGIC
        r = b
        if <int32_t>b < 0:
            r = 0 - b
            if b == 0x80000000u:
                fl[0] |= ST_V | ST_LV
        return int_sat(n, r, 0, fl)
    if op == RAP_OP_NEGI:
        mask[0] = M_ARITH
        return int_ovm(n, isub(0, b, 0, fl), fl)
    if op == RAP_OP_NEGB:
        mask[0] = M_ARITH
        return int_ovm(n, isub(0, b, st & ST_C, fl), fl)
    mask[0] = M_LOGIC
    r = ~b if op == RAP_OP_NOT else b
    fl[0] |= nz_flags(r)
    return r


cdef inline F40 flt_op(int op, F40 a, F40 b, uint32_t* fl) noexcept nogil:
    """Floating-point operations: two-source ``a op b`` or one-source of b."""
    if op == RAP_OP_ADDF:
        return faddsub(a, b, 0, fl)
    if op == RAP_OP_SUBF:
        return faddsub(a, b, 1, fl)
    if op == RAP_OP_MPYF:
        return fmpy(a, b, fl)
    if op == RAP_OP_ABSF:
        return fabs_(b, fl)
    if op == RAP_OP_NEGF:
        return fneg(b, fl)
    # LDF
    fl[0] |= fflags_of(b)
    return b


cdef inline void mpyf_par_addsubf(Node* n, Ctx* c, int sub) noexcept nogil:
    """MPYF3 || ADDF3 and MPYF3 || SUBF3 (guide 13.2): every operand is read
    before either part writes; V, UF, LV, LUF from both parts.  (Also called
    directly by the bulk RPTS loop, fast.pxi: the inner loop of every layer.)"""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0, fl2 = 0
    cdef F40 fr = fmpy(fval(n, c, 0), fval(n, c, 1), &fl)
    cdef F40 fr2 = faddsub(fval(n, c, 4), fval(n, c, 3), sub, &fl2)
    write_f(n, d.o[2].reg, fr)
    write_f(n, d.o[5].reg, fr2)
    set_flags(n, (fl | fl2) & (ST_V | ST_UF | ST_LV | ST_LUF), M_LOGIC)


cdef inline void mpyf_addsubf_mm(Node* n, uint32_t w0, uint32_t w1, int s4, int s3, int d2,
                                 int d5, int sub) noexcept nogil:
    """mpyf_par_addsubf() for the dot product's form, ``MPYF3 *ARm, *ARn, Rd2
    || ADDF3 Rs4, Rs3, Rd5`` (or SUBF3): the multiply's operands are the
    words w0 and w1 read from memory, the add's registers (operands 3 and
    4 in registers, found at decode: Decoded.src_mem).  The same reads
    before writes and flags (guide 13.2)."""
    cdef uint32_t fl = 0, fl2 = 0
    cdef F40 fr = fmpy(single_to_f40(w0), single_to_f40(w1), &fl)
    cdef F40 fr2 = faddsub(reg_f(n, s4), reg_f(n, s3), sub, &fl2)
    write_f(n, d2, fr)
    write_f(n, d5, fr2)
    set_flags(n, (fl | fl2) & (ST_V | ST_UF | ST_LV | ST_LUF), M_LOGIC)


cdef inline void mpyf_addsubf_run(Node* n, uint32_t* pa, int64_t sa, uint32_t* pb, int64_t sb,
                                  int64_t K, int rp, int racc, int sub) noexcept nogil:
    """K repetitions of the dot product's step in its accumulating form,
    ``MPYF3 *ARm, *ARn, Rp || ADDF3 Rp, Racc, Racc`` (or SUBF3: Racc - Rp),
    Rp and Racc distinct: each repetition adds the previous product and
    multiplies the next words (pa, pb, moving by sa and sb words), exactly
    as K calls of mpyf_addsubf_mm() -- every operand read before either
    part writes (guide 13.2) -- but with the two registers kept in locals.
    Each repetition's flags replace N Z V UF by its V and UF and latch LV
    and LUF (mpyf_addsubf_mm's set_flags), so after K of them ST holds the
    last one's V and UF, N = Z = 0, and LV / LUF if any set them."""
    cdef F40 prod = reg_f(n, rp), acc = reg_f(n, racc), nxt
    cdef uint32_t fl, fl2, last = 0, lat = 0
    cdef int64_t j
    if K <= 0:
        return
    for j in range(K):
        fl = 0
        fl2 = 0
        nxt = fmpy(single_to_f40(pa[0]), single_to_f40(pb[0]), &fl)
        acc = faddsub(acc, prod, sub, &fl2)
        prod = nxt
        last = fl | fl2
        lat |= last
        pa += sa
        pb += sb
    write_f(n, rp, prod)
    write_f(n, racc, acc)
    set_flags(n, last & (ST_V | ST_UF | ST_LV | ST_LUF), M_LOGIC)
    n.r[RAP_REG_ST] |= lat & (ST_LV | ST_LUF)


# --- operations with their own fast-path handler (Decoded.fh, fast_handler below)
# Called by execute_op() and, without its dispatch, by the fast path.

cdef inline void op_int2(Node* n, Ctx* c, uint32_t st, int op) noexcept nogil:
    """ADDI SUBI ADDC SUBB ASH LSH MPYI AND ANDN OR XOR, general and
    3-operand forms (guide 13.2): operand 1 (op) operand 0.  (op is c.d.op;
    the fast-path handlers pass it as a constant, so that the choice of the
    operation is made by the compiler.)"""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0, mask = 0
    # (operand 1 of the two-operand form is its destination register)
    cdef uint32_t b = n.r[d.o[1].reg] if d.nops == 2 else ival(n, c, 1)
    cdef uint32_t r = int_op2(n, op, b, ival(n, c, 0), st, &fl, &mask)
    wint(n, d.o[d.nops - 1].reg, r, fl, mask)


cdef inline void op_ldi(Node* n, Ctx* c) noexcept nogil:
    """LDI src, dst (guide 13.2, LDI): N and Z from the value."""
    cdef uint32_t r = ival(n, c, 0)
    wint(n, c.d.o[1].reg, r, nz_flags(r), M_LOGIC)


cdef inline void op_cmpi(Node* n, Ctx* c) noexcept nogil:
    """CMPI src, dst: flags of dst - src (guide 13.2, CMPI)."""
    cdef uint32_t fl = 0
    cdef uint32_t r = isub(ival(n, c, 1), ival(n, c, 0), 0, &fl)
    set_flags(n, cmp_flags(r, fl), M_ARITH)


cdef inline void op_bc(Node* n, Ctx* c, uint32_t st) noexcept nogil:
    """Bcond (standard): the next PC is the target when the condition holds."""
    if cond_holds(c.d, st):
        c.nextpc = branch_target(n, c, 0)


cdef inline void op_bcd(Node* n, Ctx* c, uint32_t st) noexcept nogil:
    """BcondD: the branch is decided now, taken after three delay slots."""
    delayed(n, branch_target(n, c, 0), cond_holds(c.d, st))


cdef inline void op_flt2(Node* n, Ctx* c, int op) noexcept nogil:
    """ADDF SUBF MPYF, general and 3-operand forms: operand 1 (op) operand 0
    (op: as for op_int2)."""
    cdef uint32_t fl = 0
    cdef F40 fr = flt_op(op, fval(n, c, 1), fval(n, c, 0), &fl)
    wflt(n, c.d.o[c.d.nops - 1].reg, fr, fl)


cdef inline void op_cmpf(Node* n, Ctx* c) noexcept nogil:
    """CMPF src, dst: flags of dst - src (guide 13.2, CMPF)."""
    cdef uint32_t fl = 0
    faddsub(fval(n, c, 1), fval(n, c, 0), 1, &fl)
    set_flags(n, fl, M_LOGIC)


cdef inline void op_dbc(Node* n, Ctx* c, uint32_t st) noexcept nogil:
    """DBcond and DBcondD: ARn - 1 in 24 bits; branch if the condition holds
    and ARn >= 0 (guide 13.2, DBcond)."""
    cdef Decoded* d = c.d
    cdef uint32_t v = add24(n.r[d.o[0].reg], -1)
    cdef int take
    n.r[d.o[0].reg] = v
    take = cond_holds(d, st) and ((<int32_t>(v << 8)) >> 8) >= 0
    if d.op == RAP_OP_DBCD:
        delayed(n, branch_target(n, c, 1), take)
    elif take:
        c.nextpc = branch_target(n, c, 1)


cdef inline void op_flt1(Node* n, Ctx* c, int op) noexcept nogil:
    """ABSF NEGF LDF (and LDFI as LDF): the one-source float operations."""
    cdef uint32_t fl = 0
    cdef F40 fb = fval(n, c, 0)
    cdef F40 fr = flt_op(op, fb, fb, &fl)
    wflt(n, c.d.o[c.d.nops - 1].reg, fr, fl)


cdef inline void op_stf(Node* n, Ctx* c) noexcept nogil:
    """STF src, dst (guide 13.2, STF): the register as a single."""
    store_op(n, c, 1, fsingle(n, c.d.o[0].reg))


cdef inline void op_br(Node* n, Ctx* c) noexcept nogil:
    """BR and BRD: the target, now or after three delay slots."""
    cdef Decoded* d = c.d
    if d.timing == RAP_T_BRANCH_D:
        delayed(n, <uint32_t>d.o[0].val, 1)
    else:
        c.nextpc = <uint32_t>d.o[0].val


cdef inline void op_rpts(Node* n, Ctx* c) noexcept nogil:
    """RPTS src (guide 7.1.1): RC, RS and RE set, RM on; the next fetch is
    the instruction to repeat."""
    n.r[RAP_REG_RC] = ival(n, c, 0)
    n.r[RAP_REG_RS] = c.pc + 1
    n.r[RAP_REG_RE] = c.pc + 1
    n.r[RAP_REG_ST] |= ST_RM
    n.rpts = 1


cdef inline void op_sti(Node* n, Ctx* c) noexcept nogil:
    """STI src, dst (guide 13.2, STI)."""
    store_op(n, c, 1, n.r[c.d.o[0].reg])


cdef int execute_op(Node* n, Ctx* c) noexcept nogil:
    """Run the operation of c.d; 0 or an ERR_* code (with n.err_addr)."""
    cdef Decoded* d = c.d
    cdef int op = d.op, nops = d.nops, dst = d.o[d.nops - 1].reg if d.nops else 0
    cdef uint32_t st = n.r[RAP_REG_ST], fl = 0, fl2 = 0, mask = 0, a, b, r, v, sv, gie
    cdef F40 fa, fb, fr, fr2
    cdef int err, sub

    # ---- integer, general and 3-operand forms ---------------------------
    if op == RAP_OP_ADDI or op == RAP_OP_SUBI or op == RAP_OP_ADDC or op == RAP_OP_SUBB \
            or op == RAP_OP_ASH or op == RAP_OP_LSH or op == RAP_OP_MPYI or op == RAP_OP_AND \
            or op == RAP_OP_ANDN or op == RAP_OP_OR or op == RAP_OP_XOR:
        op_int2(n, c, st, op)
    elif op == RAP_OP_SUBRI or op == RAP_OP_SUBRB:
        r = int_ovm(n, isub(ival(n, c, 0), ival(n, c, 1),
                            (st & ST_C) if op == RAP_OP_SUBRB else 0, &fl), &fl)
        wint(n, dst, r, fl, M_ARITH)
    elif op == RAP_OP_CMPI:
        op_cmpi(n, c)
    elif op == RAP_OP_TSTB:
        r = ival(n, c, 1) & ival(n, c, 0)
        set_flags(n, nz_flags(r), M_LOGIC)
    elif op == RAP_OP_ABSI or op == RAP_OP_NEGI or op == RAP_OP_NEGB or op == RAP_OP_NOT \
            or op == RAP_OP_LDII:
        r = int_op1(n, op, ival(n, c, 0), st, &fl, &mask)
        wint(n, dst, r, fl, mask)
    elif op == RAP_OP_LDI:
        if nops == 1:           # LDP: bits 23-16 of an address into DP (no flags)
            write_reg(n, RAP_REG_DP, <uint32_t>d.o[0].val)
        else:
            op_ldi(n, c)
    elif op == RAP_OP_SUBC:
        a = ival(n, c, 1)
        b = ival(n, c, 0)
        if a >= b:
            r = ((a - b) << 1) | 1
        else:
            r = a << 1
        write_reg(n, dst, r)
    elif op == RAP_OP_ROL or op == RAP_OP_ROLC or op == RAP_OP_ROR or op == RAP_OP_RORC:
        a = n.r[dst]
        if op == RAP_OP_ROL:
            r = (a << 1) | (a >> 31)
            fl = ST_C if a >> 31 else 0
        elif op == RAP_OP_ROLC:
            r = (a << 1) | (st & ST_C)
            fl = ST_C if a >> 31 else 0
        elif op == RAP_OP_ROR:
            r = (a >> 1) | (a << 31)
            fl = ST_C if a & 1 else 0
        else:
            r = (a >> 1) | ((st & ST_C) << 31)
            fl = ST_C if a & 1 else 0
        wint(n, dst, r, fl | nz_flags(r), M_ARITH)
    # ---- floating point ---------------------------------------------------
    elif op == RAP_OP_ADDF or op == RAP_OP_SUBF or op == RAP_OP_MPYF:
        op_flt2(n, c, op)
    elif op == RAP_OP_SUBRF:
        fr = faddsub(fval(n, c, 0), fval(n, c, 1), 1, &fl)
        wflt(n, dst, fr, fl)
    elif op == RAP_OP_CMPF:
        op_cmpf(n, c)
    elif op == RAP_OP_ABSF or op == RAP_OP_NEGF or op == RAP_OP_LDF or op == RAP_OP_LDFI:
        op_flt1(n, c, RAP_OP_LDF if op == RAP_OP_LDFI else op)
    elif op == RAP_OP_NORM:
        fr = fnorm(fval(n, c, 0), &fl)      # (fl is set by the call: not in one expression)
        wflt(n, dst, fr, fl)
    elif op == RAP_OP_RND:
        # Z is unaffected by RND (guide 13-202)
        fr = frnd(fval(n, c, 0), &fl)
        write_f(n, dst, fr)
        set_flags(n, fl, M_LOGIC & ~ST_Z)
    elif op == RAP_OP_FIX:
        r = <uint32_t>ffix(fval(n, c, 0), &fl)
        wint(n, dst, r, fl, M_LOGIC)
    elif op == RAP_OP_FLOAT:
        fr = ffloat(<int32_t>ival(n, c, 0), &fl)
        wflt(n, dst, fr, fl)
    elif op == RAP_OP_LDE:
        fb = fval(n, c, 0)
        n.rexp[dst] = fb.e
        if fb.e == FZERO_EXP:
            n.r[dst] = 0
    elif op == RAP_OP_LDM:
        n.r[dst] = fval(n, c, 0).m
    # ---- loads and stores, stack -----------------------------------------
    elif op == RAP_OP_STF or op == RAP_OP_STFI:
        op_stf(n, c)
    elif op == RAP_OP_STI or op == RAP_OP_STII:
        op_sti(n, c)
    elif op == RAP_OP_LDFC:
        if cond_holds(d, st):
            write_f(n, dst, fval(n, c, 0))
    elif op == RAP_OP_LDIC:
        if cond_holds(d, st):
            write_reg(n, dst, ival(n, c, 0))
    elif op == RAP_OP_PUSH:
        return push(n, c, n.r[dst])
    elif op == RAP_OP_PUSHF:
        return push(n, c, fsingle(n, dst))
    elif op == RAP_OP_POP:
        err = pop(n, c, &v)
        if err:
            return err
        wint(n, dst, v, nz_flags(v), M_LOGIC)
    elif op == RAP_OP_POPF:
        err = pop(n, c, &v)
        if err:
            return err
        fr = single_to_f40(v)
        wflt(n, dst, fr, fflags_of(fr))
    elif op == RAP_OP_NOP or op == RAP_OP_IACK or op == RAP_OP_SIGI:
        pass
    # ---- program control -------------------------------------------------
    elif op == RAP_OP_BR:
        op_br(n, c)
    elif op == RAP_OP_BC:
        op_bc(n, c, st)
    elif op == RAP_OP_BCD:
        op_bcd(n, c, st)
    elif op == RAP_OP_DBC or op == RAP_OP_DBCD:
        op_dbc(n, c, st)
    elif op == RAP_OP_CALL:
        err = push(n, c, c.pc + 1)
        if err:
            return err
        c.nextpc = <uint32_t>d.o[0].val
    elif op == RAP_OP_CALLC:
        if cond_holds(d, st):
            err = push(n, c, c.pc + 1)
            if err:
                return err
            c.nextpc = branch_target(n, c, 0)
    elif op == RAP_OP_RETSC or op == RAP_OP_RETIC:
        if cond_holds(d, st):
            err = pop(n, c, &v)
            if err:
                return err
            c.nextpc = v & 0xFFFFFF
            if op == RAP_OP_RETIC:
                n.r[RAP_REG_ST] |= ST_GIE
    elif op == RAP_OP_TRAPC:
        # GIE is cleared, and restored if the condition is false (guide 13 TRAPcond)
        gie = st & ST_GIE
        n.r[RAP_REG_ST] &= ~ST_GIE
        if cond_holds(d, st):
            err = push(n, c, c.pc + 1)
            if err:
                return err
            if plain_read(n, RAP_TRAP_VECTOR_BASE + <uint32_t>d.o[0].val, &v, &c.acc):
                n.err_addr = RAP_TRAP_VECTOR_BASE + <uint32_t>d.o[0].val
                return ERR_READ
            c.nextpc = v & 0xFFFFFF
        else:
            n.r[RAP_REG_ST] |= gie
    elif op == RAP_OP_RPTS:
        op_rpts(n, c)
    elif op == RAP_OP_RPTB:
        n.r[RAP_REG_RS] = c.pc + 1
        n.r[RAP_REG_RE] = <uint32_t>d.o[0].val
        n.r[RAP_REG_ST] |= ST_RM
        n.rptb_skip = 0            # a new loop: rptb_bulk() looks at its body again
    elif op == RAP_OP_IDLE:
        n.r[RAP_REG_ST] |= ST_GIE
        if not (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF):
            if periph_can_wake(n):
                n.p.idle = 1            # sleep until a peripheral raises an enabled interrupt
                n.periph_on = 1
            else:
                n.status = ST_IDLE      # nothing could ever wake it
    elif op == RAP_OP_SWI:
        n.status = ST_BREAK
    # ---- parallel instructions (guide 13.2, "parallel" formats) ----------
    elif op == RAP_OP_STF_P_STF or op == RAP_OP_STI_P_STI:
        if op == RAP_OP_STF_P_STF:
            sv = fsingle(n, d.o[0].reg)
            v = fsingle(n, d.o[2].reg)
        else:
            sv = n.r[d.o[0].reg]
            v = n.r[d.o[2].reg]
        store_op(n, c, 3, v)        # the second part first: the first wins
        store_op(n, c, 1, sv)
    elif op == RAP_OP_LDF_P_LDF:
        fa = fval(n, c, 0)
        fb = fval(n, c, 2)
        write_f(n, d.o[3].reg, fb)
        write_f(n, d.o[1].reg, fa)
    elif op == RAP_OP_LDI_P_LDI:
        a = ival(n, c, 0)
        b = ival(n, c, 2)
        write_reg(n, d.o[3].reg, b)
        write_reg(n, d.o[1].reg, a)
    elif op == RAP_OP_MPYF_P_ADDF or op == RAP_OP_MPYF_P_SUBF:
        mpyf_par_addsubf(n, c, op == RAP_OP_MPYF_P_SUBF)
    elif op == RAP_OP_MPYI_P_ADDI or op == RAP_OP_MPYI_P_SUBI:
        r = imul24(n, ival(n, c, 0), ival(n, c, 1), &fl)
        a = ival(n, c, 4)
        b = ival(n, c, 3)
        if op == RAP_OP_MPYI_P_SUBI:
            v = int_ovm(n, isub(a, b, 0, &fl2), &fl2)
        else:
            v = int_ovm(n, iadd(a, b, 0, &fl2), &fl2)
        write_reg(n, d.o[2].reg, r)
        write_reg(n, d.o[5].reg, v)
        set_flags(n, (fl | fl2) & (ST_V | ST_UF | ST_LV | ST_LUF), M_LOGIC)
    else:
        return exec_par_store(n, c, op)
    return 0


cdef int exec_par_store(Node* n, Ctx* c, int op) noexcept nogil:
    """An operation in parallel with a store: ``OP [src1,] src2, dst1 || STx
    src3, dst2`` (par_store)."""
    return par_store(n, c, op)


cdef inline int par_store(Node* n, Ctx* c, int op) noexcept nogil:
    """exec_par_store's body, inline so that a handler passing its operation
    as a constant (fh_ldi_p_sti) drops the choice.  The stored register is
    read before the operation writes."""
    cdef Decoded* d = c.d
    cdef int nops = d.nops, three = d.nops == 5
    cdef int dst = d.o[2].reg if three else d.o[1].reg
    cdef int src3 = d.o[nops - 2].reg
    cdef uint32_t st = n.r[RAP_REG_ST], fl = 0, mask = 0, sv, r
    cdef F40 fr
    cdef int base_op
    if op == RAP_OP_ADDF_P_STF or op == RAP_OP_SUBF_P_STF or op == RAP_OP_MPYF_P_STF \
            or op == RAP_OP_ABSF_P_STF or op == RAP_OP_NEGF_P_STF or op == RAP_OP_LDF_P_STF \
            or op == RAP_OP_FLOAT_P_STF:
        sv = fsingle(n, src3)
        if op == RAP_OP_FLOAT_P_STF:
            fr = ffloat(<int32_t>ival(n, c, 0), &fl)
        elif three:
            base_op = RAP_OP_ADDF if op == RAP_OP_ADDF_P_STF else (
                RAP_OP_SUBF if op == RAP_OP_SUBF_P_STF else RAP_OP_MPYF)
            fr = flt_op(base_op, fval(n, c, 1), fval(n, c, 0), &fl)
        else:
            base_op = RAP_OP_ABSF if op == RAP_OP_ABSF_P_STF else (
                RAP_OP_NEGF if op == RAP_OP_NEGF_P_STF else RAP_OP_LDF)
            fr = flt_op(base_op, fval(n, c, 0), fval(n, c, 0), &fl)
        wflt(n, dst, fr, fl)
    else:
        sv = n.r[src3]
        if op == RAP_OP_FIX_P_STI:
            r = <uint32_t>ffix(fval(n, c, 0), &fl)
            mask = M_LOGIC
        elif three:
            if op == RAP_OP_ADDI_P_STI:
                base_op = RAP_OP_ADDI
            elif op == RAP_OP_SUBI_P_STI:
                base_op = RAP_OP_SUBI
            elif op == RAP_OP_MPYI_P_STI:
                base_op = RAP_OP_MPYI
            elif op == RAP_OP_AND_P_STI:
                base_op = RAP_OP_AND
            elif op == RAP_OP_OR_P_STI:
                base_op = RAP_OP_OR
            elif op == RAP_OP_XOR_P_STI:
                base_op = RAP_OP_XOR
            elif op == RAP_OP_ASH_P_STI:
                base_op = RAP_OP_ASH
            else:
                base_op = RAP_OP_LSH
            r = int_op2(n, base_op, ival(n, c, 1), ival(n, c, 0), st, &fl, &mask)
        else:
            if op == RAP_OP_ABSI_P_STI:
                base_op = RAP_OP_ABSI
            elif op == RAP_OP_NEGI_P_STI:
                base_op = RAP_OP_NEGI
            elif op == RAP_OP_NOT_P_STI:
                base_op = RAP_OP_NOT
            else:
                base_op = RAP_OP_LDI
            r = int_op1(n, base_op, ival(n, c, 0), st, &fl, &mask)
        wint(n, dst, r, fl, mask)
    store_op(n, c, nops - 1, sv)
    return 0


# --- the fast path's handlers (Decoded.fh) ---------------------------------------
# One per operation, so that the fast path calls the operation's body with
# no dispatch (an indirect call chosen at decode); the integer and float
# two-operand handlers pass their operation as a constant to the shared body.

cdef int fh_addi(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_ADDI)
    return 0

cdef int fh_subi(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_SUBI)
    return 0

cdef int fh_addc(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_ADDC)
    return 0

cdef int fh_subb(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_SUBB)
    return 0

cdef int fh_ash(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_ASH)
    return 0

cdef int fh_lsh(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_LSH)
    return 0

cdef int fh_mpyi(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_MPYI)
    return 0

cdef int fh_and(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_AND)
    return 0

cdef int fh_andn(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_ANDN)
    return 0

cdef int fh_or(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_OR)
    return 0

cdef int fh_xor(Node* n, Ctx* c) noexcept nogil:
    op_int2(n, c, n.r[RAP_REG_ST], RAP_OP_XOR)
    return 0

cdef int fh_ldi(Node* n, Ctx* c) noexcept nogil:
    op_ldi(n, c)
    return 0

cdef int fh_cmpi(Node* n, Ctx* c) noexcept nogil:
    op_cmpi(n, c)
    return 0

cdef int fh_bc(Node* n, Ctx* c) noexcept nogil:
    op_bc(n, c, n.r[RAP_REG_ST])
    return 0

cdef int fh_bcd(Node* n, Ctx* c) noexcept nogil:
    op_bcd(n, c, n.r[RAP_REG_ST])
    return 0

cdef int fh_sti(Node* n, Ctx* c) noexcept nogil:
    op_sti(n, c)
    return 0

cdef int fh_addf(Node* n, Ctx* c) noexcept nogil:
    op_flt2(n, c, RAP_OP_ADDF)
    return 0

cdef int fh_subf(Node* n, Ctx* c) noexcept nogil:
    op_flt2(n, c, RAP_OP_SUBF)
    return 0

cdef int fh_mpyf(Node* n, Ctx* c) noexcept nogil:
    op_flt2(n, c, RAP_OP_MPYF)
    return 0

cdef int fh_cmpf(Node* n, Ctx* c) noexcept nogil:
    op_cmpf(n, c)
    return 0

cdef int fh_dbc(Node* n, Ctx* c) noexcept nogil:
    op_dbc(n, c, n.r[RAP_REG_ST])
    return 0

cdef int fh_ldf(Node* n, Ctx* c) noexcept nogil:
    op_flt1(n, c, RAP_OP_LDF)
    return 0

cdef int fh_absf(Node* n, Ctx* c) noexcept nogil:
    op_flt1(n, c, RAP_OP_ABSF)
    return 0

cdef int fh_negf(Node* n, Ctx* c) noexcept nogil:
    op_flt1(n, c, RAP_OP_NEGF)
    return 0

cdef int fh_stf(Node* n, Ctx* c) noexcept nogil:
    op_stf(n, c)
    return 0

cdef int fh_br(Node* n, Ctx* c) noexcept nogil:
    op_br(n, c)
    return 0

cdef int fh_rpts(Node* n, Ctx* c) noexcept nogil:
    op_rpts(n, c)
    return 0

cdef int fh_nop(Node* n, Ctx* c) noexcept nogil:
    return 0                        # NOP: its operand's address (and ARn update) only


cdef int fh_mpyf_p_addf(Node* n, Ctx* c) noexcept nogil:
    mpyf_par_addsubf(n, c, 0)       # MPYF3 || ADDF3: the dot products' and mxtv's step
    return 0

cdef int fh_mpyf_p_subf(Node* n, Ctx* c) noexcept nogil:
    mpyf_par_addsubf(n, c, 1)
    return 0


cdef int fh_par_store(Node* n, Ctx* c) noexcept nogil:
    return exec_par_store(n, c, c.d.op)    # OP || STx

cdef int fh_ldi_p_sti(Node* n, Ctx* c) noexcept nogil:
    return par_store(n, c, RAP_OP_LDI_P_STI)   # the ring loops' read-and-store

cdef int fh_ldf_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_store(n, c, RAP_OP_LDF_P_STF)

cdef int fh_mpyf_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_store(n, c, RAP_OP_MPYF_P_STF)  # the weight update's (_mxout) second step

cdef int fh_addf_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_store(n, c, RAP_OP_ADDF_P_STF)

cdef int fh_subf_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_store(n, c, RAP_OP_SUBF_P_STF)


# --- handlers per operand form (issue 16): chosen at decode when the form is
# known to be simple, so that the handler tests no operand kind and no
# destination: the two-operand form with a register (``_r``) or immediate
# (``_i``) source, and the three-operand form with two register sources
# (``_rr``), each writing R0-R7 (so the flags are set and ST is not the
# destination: guide 3.1.7).  The bodies are op_int2's (int_op2), op_ldi's
# and op_cmpi's, with the operand kinds taken as constants.

cdef enum:
    FORM_R = 0      # two-operand form: register source, R0-R7 destination
    FORM_I = 1      # two-operand form: immediate source, R0-R7 destination
    FORM_RR = 2     # three-operand form: two register sources, R0-R7 destination
    FORM_RM = 3     # float three-operand form: register operand 0, memory operand 1
    FORM_MR = 4     # ... memory operand 0, register operand 1 (float_form)


cdef inline int operand_form(Decoded* d) noexcept nogil:
    """The simple operand form of a decoded instruction (FORM_*), or -1."""
    if d.nops == 2 and d.o[1].kind == RAP_K_REG and d.o[1].reg < 8:
        if d.src_imm & 1:
            return FORM_I
        if d.o[0].kind == RAP_K_REG:
            return FORM_R
    elif d.nops == 3 and d.o[0].kind == RAP_K_REG and d.o[1].kind == RAP_K_REG \
            and d.o[2].kind == RAP_K_REG and d.o[2].reg < 8:
        return FORM_RR
    return -1


cdef inline void op_int2_form(Node* n, Ctx* c, int op, int form) noexcept nogil:
    """op_int2() for a form resolved at decode (FORM_R, FORM_I, FORM_RR):
    the result of ``operand 1 (op) operand 0`` written to an R0-R7
    destination, with its flags."""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0, mask = 0, a, b, r
    cdef int dst
    if form == FORM_RR:
        a = n.r[d.o[0].reg]
        b = n.r[d.o[1].reg]
        dst = d.o[2].reg
    else:
        a = <uint32_t>d.o[0].val if form == FORM_I else n.r[d.o[0].reg]
        dst = d.o[1].reg
        b = n.r[dst]
    r = int_op2(n, op, b, a, n.r[RAP_REG_ST], &fl, &mask)
    n.r[dst] = r
    set_flags(n, fl, mask)

cdef int fh_addi_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDI, FORM_R)
    return 0

cdef int fh_addi_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDI, FORM_I)
    return 0

cdef int fh_addi_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDI, FORM_RR)
    return 0

cdef int fh_subi_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBI, FORM_R)
    return 0

cdef int fh_subi_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBI, FORM_I)
    return 0

cdef int fh_subi_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBI, FORM_RR)
    return 0

cdef int fh_addc_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDC, FORM_R)
    return 0

cdef int fh_addc_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDC, FORM_I)
    return 0

cdef int fh_addc_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ADDC, FORM_RR)
    return 0

cdef int fh_subb_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBB, FORM_R)
    return 0

cdef int fh_subb_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBB, FORM_I)
    return 0

cdef int fh_subb_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_SUBB, FORM_RR)
    return 0

cdef int fh_ash_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ASH, FORM_R)
    return 0

cdef int fh_ash_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ASH, FORM_I)
    return 0

cdef int fh_ash_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ASH, FORM_RR)
    return 0

cdef int fh_lsh_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_LSH, FORM_R)
    return 0

cdef int fh_lsh_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_LSH, FORM_I)
    return 0

cdef int fh_lsh_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_LSH, FORM_RR)
    return 0

cdef int fh_mpyi_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_MPYI, FORM_R)
    return 0

cdef int fh_mpyi_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_MPYI, FORM_I)
    return 0

cdef int fh_mpyi_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_MPYI, FORM_RR)
    return 0

cdef int fh_and_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_AND, FORM_R)
    return 0

cdef int fh_and_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_AND, FORM_I)
    return 0

cdef int fh_and_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_AND, FORM_RR)
    return 0

cdef int fh_andn_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ANDN, FORM_R)
    return 0

cdef int fh_andn_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ANDN, FORM_I)
    return 0

cdef int fh_andn_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_ANDN, FORM_RR)
    return 0

cdef int fh_or_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_OR, FORM_R)
    return 0

cdef int fh_or_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_OR, FORM_I)
    return 0

cdef int fh_or_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_OR, FORM_RR)
    return 0

cdef int fh_xor_r(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_XOR, FORM_R)
    return 0

cdef int fh_xor_i(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_XOR, FORM_I)
    return 0

cdef int fh_xor_rr(Node* n, Ctx* c) noexcept nogil:
    op_int2_form(n, c, RAP_OP_XOR, FORM_RR)
    return 0

cdef inline void op_ldi_form(Node* n, Ctx* c, int form) noexcept nogil:
    """op_ldi() for FORM_R and FORM_I."""
    cdef Decoded* d = c.d
    cdef uint32_t r = <uint32_t>d.o[0].val if form == FORM_I else n.r[d.o[0].reg]
    n.r[d.o[1].reg] = r
    set_flags(n, nz_flags(r), M_LOGIC)

cdef int fh_ldi_r(Node* n, Ctx* c) noexcept nogil:
    op_ldi_form(n, c, FORM_R)
    return 0

cdef int fh_ldi_i(Node* n, Ctx* c) noexcept nogil:
    op_ldi_form(n, c, FORM_I)
    return 0


cdef inline void op_cmpi_form(Node* n, Ctx* c, int form) noexcept nogil:
    """op_cmpi() for FORM_R and FORM_I (the destination is only read)."""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0
    cdef uint32_t a = <uint32_t>d.o[0].val if form == FORM_I else n.r[d.o[0].reg]
    cdef uint32_t r = isub(n.r[d.o[1].reg], a, 0, &fl)
    set_flags(n, cmp_flags(r, fl), M_ARITH)

cdef int fh_cmpi_r(Node* n, Ctx* c) noexcept nogil:
    op_cmpi_form(n, c, FORM_R)
    return 0

cdef int fh_cmpi_i(Node* n, Ctx* c) noexcept nogil:
    op_cmpi_form(n, c, FORM_I)
    return 0


# The float operations in the same forms (issue 16): ADDF SUBF MPYF CMPF LDF
# with a register or short-float immediate source (FORM_R, FORM_I) and the
# three-operand ADDF3 SUBF3 MPYF3 with two register sources (FORM_RR), all
# operands in R0-R7.  The bodies are op_flt2's, op_cmpf's and op_flt1's
# (flt_op, faddsub: guide 5.4-5.6), with the operand kinds as constants.

cdef inline bint freg(Opnd* o) noexcept nogil:
    """Is the operand one of R0-R7 (a float register, or an integer-kind
    register operand naming one)?"""
    return (o.kind == RAP_K_FREG or o.kind == RAP_K_REG) and o.reg < 8


cdef inline int float_form(Decoded* d) noexcept nogil:
    """The simple operand form of a float instruction (FORM_*), or -1."""
    if d.nops == 2 and freg(&d.o[1]):
        if d.o[0].kind == RAP_K_FIMM:
            return FORM_I
        if freg(&d.o[0]):
            return FORM_R
    elif d.nops == 3 and freg(&d.o[2]):
        if freg(&d.o[0]) and freg(&d.o[1]):
            return FORM_RR
        if freg(&d.o[0]) and (d.src_mem & 3) == 2:
            return FORM_RM          # e.g. the weight update's ADDF3 R0, *AR2++, R1
        if freg(&d.o[1]) and (d.src_mem & 3) == 1:
            return FORM_MR
    return -1


cdef inline F40 flt_src0(Node* n, Decoded* d, int form) noexcept nogil:
    """Operand 0 of a float form: the short-float immediate or the register."""
    if form == FORM_I:
        return short_to_f40(<uint32_t>d.o[0].val)
    return reg_f(n, d.o[0].reg)


cdef inline F40 flt_opnd(Node* n, Ctx* c, int i, int form) noexcept nogil:
    """Operand i (0 or 1) of a float form: the single read from memory
    (FORM_RM's operand 1, FORM_MR's operand 0), operand 0 as flt_src0()
    (FORM_I's immediate), or the register."""
    if (form == FORM_RM and i == 1) or (form == FORM_MR and i == 0):
        return single_to_f40(c.mv[i])
    if i == 0:
        return flt_src0(n, c.d, form)
    return reg_f(n, c.d.o[1].reg)


cdef inline void op_flt2_form(Node* n, Ctx* c, int op, int form) noexcept nogil:
    """op_flt2() for FORM_R, FORM_I, FORM_RR, FORM_RM and FORM_MR: operand
    1 (op) operand 0."""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0
    cdef F40 fr = flt_op(op, flt_opnd(n, c, 1, form), flt_opnd(n, c, 0, form), &fl)
    wflt(n, d.o[1].reg if form <= FORM_I else d.o[2].reg, fr, fl)

cdef int fh_addf_r(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_ADDF, FORM_R)
    return 0

cdef int fh_addf_i(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_ADDF, FORM_I)
    return 0

cdef int fh_addf_rr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_ADDF, FORM_RR)
    return 0

cdef int fh_subf_r(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_SUBF, FORM_R)
    return 0

cdef int fh_subf_i(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_SUBF, FORM_I)
    return 0

cdef int fh_subf_rr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_SUBF, FORM_RR)
    return 0

cdef int fh_mpyf_r(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_MPYF, FORM_R)
    return 0

cdef int fh_mpyf_i(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_MPYF, FORM_I)
    return 0

cdef int fh_mpyf_rr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_MPYF, FORM_RR)
    return 0

cdef int fh_addf_rm(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_ADDF, FORM_RM)
    return 0

cdef int fh_addf_mr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_ADDF, FORM_MR)
    return 0

cdef int fh_subf_rm(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_SUBF, FORM_RM)
    return 0

cdef int fh_subf_mr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_SUBF, FORM_MR)
    return 0

cdef int fh_mpyf_rm(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_MPYF, FORM_RM)
    return 0

cdef int fh_mpyf_mr(Node* n, Ctx* c) noexcept nogil:
    op_flt2_form(n, c, RAP_OP_MPYF, FORM_MR)
    return 0

cdef inline void op_cmpf_form(Node* n, Ctx* c, int form) noexcept nogil:
    """op_cmpf() for FORM_R and FORM_I (the destination is only read)."""
    cdef uint32_t fl = 0
    faddsub(reg_f(n, c.d.o[1].reg), flt_src0(n, c.d, form), 1, &fl)
    set_flags(n, fl, M_LOGIC)

cdef int fh_cmpf_r(Node* n, Ctx* c) noexcept nogil:
    op_cmpf_form(n, c, FORM_R)
    return 0

cdef int fh_cmpf_i(Node* n, Ctx* c) noexcept nogil:
    op_cmpf_form(n, c, FORM_I)
    return 0

cdef inline void op_ldf_form(Node* n, Ctx* c, int form) noexcept nogil:
    """op_flt1() of LDF for FORM_R and FORM_I: N and Z of the value."""
    cdef F40 v = flt_src0(n, c.d, form)
    wflt(n, c.d.o[1].reg, v, fflags_of(v))

cdef int fh_ldf_r(Node* n, Ctx* c) noexcept nogil:
    op_ldf_form(n, c, FORM_R)
    return 0

cdef int fh_ldf_i(Node* n, Ctx* c) noexcept nogil:
    op_ldf_form(n, c, FORM_I)
    return 0


cdef FastOp float_form_handler(int op, int form) noexcept nogil:
    """The handler of a float operation in a simple operand form, or NULL."""
    if op == RAP_OP_ADDF:
        return fh_addf_i if form == FORM_I else (fh_addf_r if form == FORM_R else (
            fh_addf_rr if form == FORM_RR else (fh_addf_rm if form == FORM_RM else fh_addf_mr)))
    if op == RAP_OP_SUBF:
        return fh_subf_i if form == FORM_I else (fh_subf_r if form == FORM_R else (
            fh_subf_rr if form == FORM_RR else (fh_subf_rm if form == FORM_RM else fh_subf_mr)))
    if op == RAP_OP_MPYF:
        return fh_mpyf_i if form == FORM_I else (fh_mpyf_r if form == FORM_R else (
            fh_mpyf_rr if form == FORM_RR else (fh_mpyf_rm if form == FORM_RM else fh_mpyf_mr)))
    if op == RAP_OP_CMPF and form <= FORM_I:
        return fh_cmpf_i if form == FORM_I else fh_cmpf_r
    if op == RAP_OP_LDF and form <= FORM_I:
        return fh_ldf_i if form == FORM_I else fh_ldf_r
    return NULL


# ADDF3 SUBF3 MPYF3 || STF with one register and one memory source (the
# weight update's MPYF3 R3, *AR1++, R0 || STF R1, *AR0++): par_store()'s
# body with the operation and the sources' kinds as constants.

cdef inline int par_float_form(Decoded* d) noexcept nogil:
    """FORM_RM when the instruction is ``OPF3 Rs1, *src2, Rd || STF Rs3,
    *dst2`` (the parallel forms' registers are R0-R7: guide 13.2, figure
    13-4; its operand 0 is a register field, operand 1 indirect), or -1."""
    if d.nops == 5 and d.o[0].kind == RAP_K_PREG and (d.src_mem & 3) == 2:
        return FORM_RM
    return -1


cdef inline int par_storef_form(Node* n, Ctx* c, int op, int form) noexcept nogil:
    """par_store() of ADDF3/SUBF3/MPYF3 || STF in FORM_RM: the stored
    register read before the operation writes (guide 13.2)."""
    cdef Decoded* d = c.d
    cdef uint32_t fl = 0
    cdef uint32_t sv = fsingle(n, d.o[3].reg)
    cdef F40 fr = flt_op(op, flt_opnd(n, c, 1, form), flt_opnd(n, c, 0, form), &fl)
    wflt(n, d.o[2].reg, fr, fl)
    store_op(n, c, 4, sv)
    return 0

cdef int fh_mpyf_rm_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_storef_form(n, c, RAP_OP_MPYF, FORM_RM)

cdef int fh_addf_rm_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_storef_form(n, c, RAP_OP_ADDF, FORM_RM)

cdef int fh_subf_rm_p_stf(Node* n, Ctx* c) noexcept nogil:
    return par_storef_form(n, c, RAP_OP_SUBF, FORM_RM)


cdef FastOp par_float_form_handler(int op) noexcept nogil:
    """The handler of OPF3 || STF in FORM_RM (par_float_form), or NULL."""
    if op == RAP_OP_MPYF_P_STF:
        return fh_mpyf_rm_p_stf
    if op == RAP_OP_ADDF_P_STF:
        return fh_addf_rm_p_stf
    if op == RAP_OP_SUBF_P_STF:
        return fh_subf_rm_p_stf
    return NULL


cdef FastOp form_handler(int op, int form) noexcept nogil:
    """The handler of an operation in a simple operand form (FORM_*), or
    NULL when it has none."""
    if op == RAP_OP_LDI and form != FORM_RR:
        return fh_ldi_i if form == FORM_I else fh_ldi_r
    if op == RAP_OP_CMPI and form != FORM_RR:
        return fh_cmpi_i if form == FORM_I else fh_cmpi_r
    if op == RAP_OP_ADDI:
        return fh_addi_i if form == FORM_I else (fh_addi_r if form == FORM_R else fh_addi_rr)
    if op == RAP_OP_SUBI:
        return fh_subi_i if form == FORM_I else (fh_subi_r if form == FORM_R else fh_subi_rr)
    if op == RAP_OP_ADDC:
        return fh_addc_i if form == FORM_I else (fh_addc_r if form == FORM_R else fh_addc_rr)
    if op == RAP_OP_SUBB:
        return fh_subb_i if form == FORM_I else (fh_subb_r if form == FORM_R else fh_subb_rr)
    if op == RAP_OP_ASH:
        return fh_ash_i if form == FORM_I else (fh_ash_r if form == FORM_R else fh_ash_rr)
    if op == RAP_OP_LSH:
        return fh_lsh_i if form == FORM_I else (fh_lsh_r if form == FORM_R else fh_lsh_rr)
    if op == RAP_OP_MPYI:
        return fh_mpyi_i if form == FORM_I else (fh_mpyi_r if form == FORM_R else fh_mpyi_rr)
    if op == RAP_OP_AND:
        return fh_and_i if form == FORM_I else (fh_and_r if form == FORM_R else fh_and_rr)
    if op == RAP_OP_ANDN:
        return fh_andn_i if form == FORM_I else (fh_andn_r if form == FORM_R else fh_andn_rr)
    if op == RAP_OP_OR:
        return fh_or_i if form == FORM_I else (fh_or_r if form == FORM_R else fh_or_rr)
    if op == RAP_OP_XOR:
        return fh_xor_i if form == FORM_I else (fh_xor_r if form == FORM_R else fh_xor_rr)
    return NULL


cdef FastOp fast_handler(Decoded* d) noexcept nogil:
    """The fast path's handler of a decoded instruction (Decoded.fh, set at
    decode): its operation's handler for its operand form when it has one
    (form_handler), else its own for the most frequent operations of
    non-repeated code, else execute_op()."""
    cdef int op = d.op, nops = d.nops, form = operand_form(d)
    cdef FastOp fh
    if form >= 0:
        fh = form_handler(op, form)
        if fh != NULL:
            return fh
    form = float_form(d)
    if form >= 0:
        fh = float_form_handler(op, form)
        if fh != NULL:
            return fh
    if par_float_form(d) >= 0:
        fh = par_float_form_handler(op)
        if fh != NULL:
            return fh
    if op == RAP_OP_ADDI:
        return fh_addi
    if op == RAP_OP_SUBI:
        return fh_subi
    if op == RAP_OP_ADDC:
        return fh_addc
    if op == RAP_OP_SUBB:
        return fh_subb
    if op == RAP_OP_ASH:
        return fh_ash
    if op == RAP_OP_LSH:
        return fh_lsh
    if op == RAP_OP_MPYI:
        return fh_mpyi
    if op == RAP_OP_AND:
        return fh_and
    if op == RAP_OP_ANDN:
        return fh_andn
    if op == RAP_OP_OR:
        return fh_or
    if op == RAP_OP_XOR:
        return fh_xor
    if op == RAP_OP_LDI and nops == 2:
        return fh_ldi
    if op == RAP_OP_CMPI:
        return fh_cmpi
    if op == RAP_OP_BC:
        return fh_bc
    if op == RAP_OP_BCD:
        return fh_bcd
    if op == RAP_OP_STI:
        return fh_sti
    if op == RAP_OP_ADDF:
        return fh_addf
    if op == RAP_OP_SUBF:
        return fh_subf
    if op == RAP_OP_MPYF:
        return fh_mpyf
    if op == RAP_OP_CMPF:
        return fh_cmpf
    if op == RAP_OP_DBC or op == RAP_OP_DBCD:
        return fh_dbc
    if op == RAP_OP_LDF:
        return fh_ldf
    if op == RAP_OP_ABSF:
        return fh_absf
    if op == RAP_OP_NEGF:
        return fh_negf
    if op == RAP_OP_STF:
        return fh_stf
    if op == RAP_OP_BR:
        return fh_br
    if op == RAP_OP_RPTS:
        return fh_rpts
    if op == RAP_OP_NOP:
        return fh_nop
    if op == RAP_OP_MPYF_P_ADDF:
        return fh_mpyf_p_addf
    if op == RAP_OP_MPYF_P_SUBF:
        return fh_mpyf_p_subf
    if op == RAP_OP_LDI_P_STI:
        return fh_ldi_p_sti
    if op == RAP_OP_LDF_P_STF:
        return fh_ldf_p_stf
    if op == RAP_OP_MPYF_P_STF:
        return fh_mpyf_p_stf
    if op == RAP_OP_ADDF_P_STF:
        return fh_addf_p_stf
    if op == RAP_OP_SUBF_P_STF:
        return fh_subf_p_stf
    if op == RAP_OP_ADDI_P_STI \
            or op == RAP_OP_SUBI_P_STI or op == RAP_OP_MPYI_P_STI or op == RAP_OP_AND_P_STI \
            or op == RAP_OP_OR_P_STI or op == RAP_OP_XOR_P_STI or op == RAP_OP_ASH_P_STI \
            or op == RAP_OP_LSH_P_STI or op == RAP_OP_ABSI_P_STI or op == RAP_OP_NEGI_P_STI \
            or op == RAP_OP_NOT_P_STI or op == RAP_OP_FIX_P_STI or op == RAP_OP_ADDF_P_STF \
            or op == RAP_OP_SUBF_P_STF or op == RAP_OP_MPYF_P_STF or op == RAP_OP_ABSF_P_STF \
            or op == RAP_OP_NEGF_P_STF or op == RAP_OP_FLOAT_P_STF:
        return fh_par_store     # the operations execute_op() leaves to exec_par_store()
    return execute_op
