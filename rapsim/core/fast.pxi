# The fast path of a node (issue 16): the same instruction semantics, cycle
# rules and counters as step() (execute.pxi), for the common case only.
#
# run_node() (schedule.pxi) sends an instruction here when the node is in a
# plain state at the instruction boundary (plain_state below): no on-chip
# peripheral is active (periph_on), no instruction is waiting to be retried
# after a ring wait (pend_valid), and no enabled interrupt is pending.
# fast_step() then also hands the instruction to step() -- before changing
# anything, so step() does it all from the start -- when
#   * the pre-decoded record is missing or not a legal instruction (step()
#     decodes it, or reports the error);
#   * the instruction is the first of an RPTS repetition, or is in the delay
#     slots of a delayed branch but is not an ordinary instruction (step()
#     checks those rules and reports the error);
#   * one of its memory operands is outside plain memory: a ring or host
#     register, a peripheral register, or unmapped.
# Everything the fast path leaves out (ring waits, peripherals, host calls,
# interrupts, the errors of rare cases) is therefore decided by step(), the
# one general path; what the fast path does is the common part of step()
# without its checks for those cases.  An RPTS repetition (guide 7.1.1,
# "RPTS") and the instructions of an RPTB loop stay on the fast path: the
# repeated instruction is kept in Node.rpts_ins and is neither fetched nor
# decoded again; the loop counter and the RPTB boundary are handled by
# retire(), shared with step().  tests/speed/test_reference.py checks that
# every result and counter equals the recorded reference of the general path.


cdef inline bint plain_state(Node* n) noexcept nogil:
    """May the next instruction of n run on the fast path?  (No peripheral
    activity, no pending retry, no enabled interrupt pending: guide 7.6.)"""
    if n.periph_on | n.pend_valid:
        return 0
    if (n.r[RAP_REG_ST] & ST_GIE) and (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF):
        return 0
    return 1


cdef int fast_step(Node* n) noexcept nogil:
    """Execute one instruction (or one RPTS repetition) of a node in the plain
    state; the rare cases go to step().  Returns the node status."""
    cdef Decoded* d
    cdef Decoded* page
    cdef Opnd* o
    cdef Ctx c
    cdef uint32_t pc = n.pc, a
    cdef uint32_t newar[6]
    cdef int i, k, rg, frg = RG_NONE, err, in_slot
    cdef int rpts_was = n.rpts
    cdef int64_t t, stall_rc

    # -- the instruction: repeated by RPTS, or pre-decoded at pc
    if rpts_was == 2:
        d = &n.rpts_ins
        pc = n.rpts_pc
    else:
        if rpts_was:
            return step(n)              # RPTS's first fetch: the target's checks
        page = n.dcache[pc >> DPAGE_BITS]
        if page == NULL:
            return step(n)
        d = &page[pc & (DPAGE_WORDS - 1)]
        if d.valid != 1:
            return step(n)
        frg = region_of(n, pc)
        if frg >= RG_RINGIO:
            return step(n)
    in_slot = n.dslots > 0
    if in_slot and d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
        return step(n)

    # -- decode: register conflicts, effective addresses (plain memory only;
    # nothing has been changed yet, so step() can still take over)
    t = n.cycle
    stall_rc = conflict_stall(n, d.uses, t) if d.uses else 0
    t += stall_rc
    for k in range(d.naddr):
        i = d.addr_op[k]
        o = &d.o[i]
        if o.kind == RAP_K_DIR:
            a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
        else:
            a = ind_address(n, o, &newar[i])
        c.ea[i] = a
        if d.access:
            rg = region_of(n, a)
            if rg >= RG_RINGIO:
                return step(n)
            c.rgs[i] = rg

    # -- fetch (not for RPTS repetitions): counters and the instruction cache
    acc_clear(&c.acc)
    if frg != RG_NONE:
        n.acc_fetch[frg] += 1
        if frg > RG_DRAM or not cache_fetch(n, pc):
            acc_add(n, &c.acc, frg)

    # -- read memory operands
    if d.access:
        for k in range(d.naddr):
            if (d.addr_w >> k) & 1:
                continue
            i = d.addr_op[k]
            rg = c.rgs[i]
            c.mv[i] = word_ptr(n, c.ea[i], rg)[0]
            n.acc_read[rg] += 1
            acc_add(n, &c.acc, rg)

    # -- keep ARn updates, in commit order (see step())
    for k in range(d.naddr):
        if (d.addr_u >> k) & 1:
            i = d.addr_op[k]
            n.r[RAP_REG_AR0 + d.o[i].reg] = newar[i]

    # -- execute, then cycles and the next PC
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    c.t_ring = t
    c.base = base_cycles(d.timing)
    c.hostcall = 0
    err = execute_op(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)
    retire(n, &c, stall_rc, t, t, t, 0, in_slot, rpts_was)
    return n.status
