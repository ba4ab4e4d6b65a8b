# The fast path of a node (issue 16): the same instruction semantics, cycle
# rules and counters as step() (execute.pxi), for the common case only.
#
# run_node() (schedule.pxi) sends an instruction here when the node is in a
# plain state at the instruction boundary (plain_state below): no on-chip
# peripheral is active (periph_on), no instruction is waiting to be retried
# after a ring wait (pend_valid), the RPTS repetitions in progress have not
# been found to touch the ring or a peripheral (rpts_ring: they then all go
# to step(), without the fast path's attempt first), and no enabled
# interrupt is pending.
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
# retire(), shared with step().  tests/speed/test_recorded_reference.py checks that
# every result and counter equals the recorded reference of the general path.


cdef inline bint plain_state(Node* n) noexcept nogil:
    """May the next instruction of n run on the fast path?  (No peripheral
    activity, no pending retry, no RPTS over the ring, no enabled interrupt
    pending: guide 7.6.)"""
    if n.periph_on | n.pend_valid | n.rpts_ring:
        return 0
    if (n.r[RAP_REG_ST] & ST_GIE) and (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF):
        return 0
    return 1


cdef inline int fast_step(Node* n) noexcept nogil:
    """Execute one instruction (or one RPTS repetition) of a node in the plain
    state; the rare cases go to step().  Returns the node status.  (Small,
    so that it is inlined in run_node(): the instruction's look-up and the
    fetch-only instructions; those with memory operands and RPTS
    repetitions go on in fast_mem().)"""
    cdef Decoded* d
    cdef Decoded* page
    cdef uint32_t pc = n.pc
    cdef int in_slot
    cdef int rpts_was = n.rpts

    # -- the instruction: repeated by RPTS, or pre-decoded at pc
    if rpts_was:
        if rpts_was == 1:
            return step(n)              # RPTS's first fetch: the target's checks
        d = &n.rpts_ins
        in_slot = n.dslots > 0
        if in_slot and d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
            return step(n)
        return fast_mem(n, d, n.rpts_pc, RG_NONE, in_slot, rpts_was)
    page = n.dcache[pc >> DPAGE_BITS]
    if page == NULL:
        return step(n)
    d = &page[pc & (DPAGE_WORDS - 1)]
    if d.valid != 1 or d.frg >= RG_RINGIO:
        return step(n)
    in_slot = n.dslots > 0
    if in_slot and d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
        return step(n)
    if d.fetch_only:
        return fast_fetch_only(n, d, pc, in_slot)
    # (pre-decoded where it was fetched: d.frg is its region)
    if d.naddr == 1 and d.access:
        return fast_mem1(n, d, pc, in_slot)
    return fast_mem(n, d, pc, d.frg, in_slot, 0)


cdef int fast_mem1(Node* n, Decoded* d, uint32_t pc, int in_slot) noexcept nogil:
    """fast_mem() for the most frequent case: a fetched instruction (not an
    RPTS repetition) with one memory operand, read or written (the same
    stages, without the loops over the operands)."""
    cdef int i = d.addr_op[0], rg, frg = d.frg, err
    cdef Opnd* o = &d.o[i]
    cdef Ctx c
    cdef uint32_t a, newar = 0
    cdef int64_t t = n.cycle, stall_rc = 0
    # -- decode: register conflicts, the effective address (plain memory only)
    if d.uses:
        stall_rc = conflict_stall(n, d.uses, t)
        t += stall_rc
    if o.kind == RAP_K_DIR:
        a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
    else:
        a = ind_address(n, o, &newar)
    rg = region_of(n, a)
    if rg >= RG_RINGIO:
        return step(n)
    c.ea[i] = a
    c.rgs[i] = rg
    # -- fetch, then the operand's read
    acc_clear(&c.acc)
    n.acc_fetch[frg] += 1
    if frg > RG_DRAM or not cache_fetch(n, pc):
        acc_add(n, &c.acc, frg)
    if not d.addr_w:
        c.mv[i] = word_ptr(n, a, rg)[0]
        n.acc_read[rg] += 1
        acc_add(n, &c.acc, rg)
    if d.addr_u:
        n.r[RAP_REG_AR0 + o.reg] = newar
    # -- execute, then cycles and the next PC
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    c.t_ring = t
    c.hostcall = 0
    err = d.fh(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)
    retire_plain(n, &c, stall_rc, t, in_slot, 0)
    return n.status


cdef int fast_mem(Node* n, Decoded* d, uint32_t pc, int frg, int in_slot,
                  int rpts_was) noexcept nogil:
    """fast_step() for an instruction with memory operands, or a repetition
    under RPTS (frg: the region it is fetched from, RG_NONE for a
    repetition, which fetches nothing)."""
    cdef Opnd* o
    cdef Ctx c
    cdef uint32_t a
    cdef uint32_t newar[6]
    cdef int i, k, rg, err
    cdef int64_t t, stall_rc

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
                if rpts_was == 2:
                    n.rpts_ring = 1     # so are the next repetitions, most likely
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
    c.hostcall = 0
    err = d.fh(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)
    retire_plain(n, &c, stall_rc, t, in_slot, rpts_was)
    return n.status


cdef inline void retire_plain(Node* n, Ctx* c, int64_t stall_rc, int64_t t, int in_slot,
                              int rpts_was) noexcept nogil:
    """retire() for an instruction of the fast path: its accesses are plain
    memory and start at t (no ring wait, no DMA delay: the node was in the
    plain state), so only the register-conflict stall, the occupancy and
    retire_next() remain.  (IDLE may turn the peripherals on: they are then
    told of the instruction's accesses, as by retire().)"""
    cdef int occ, wait_part, conf_part
    occ = acc_cycles(&c.acc, &wait_part, &conf_part)
    if stall_rc:
        n.stall[SC_REGCONF] += stall_rc
    charge_cycles(n, t, c.d.base, occ, wait_part)
    if n.periph_on:
        periph_note_cpu(n, &c.acc, t)
    retire_next(n, c, in_slot, rpts_was)


cdef inline int fast_fetch_only(Node* n, Decoded* d, uint32_t pc, int in_slot) noexcept nogil:
    """fast_step() for an instruction whose only memory access is its fetch
    (Decoded.fetch_only: no memory operand, no stack, not IDLE; not an RPTS
    repetition).  Its occupancy is that of the fetch alone (guide 8.2.3,
    timing.pxi): none when the instruction cache serves it, else 1 + the
    wait states of an external bus, 1 from an on-chip block (two accesses
    per cycle) -- what acc_cycles() gives for that one access, without
    counting it into an Acc."""
    cdef Ctx c
    cdef int frg = d.frg, occ = 1, w = 0, err
    cdef int64_t t = n.cycle, stall_rc = 0
    if d.uses:
        stall_rc = conflict_stall(n, d.uses, t)
        t += stall_rc
        n.stall[SC_REGCONF] += stall_rc
    n.acc_fetch[frg] += 1
    if frg <= RG_DRAM and not cache_fetch(n, pc):
        w = n.wait[frg]
        occ = 1 + w
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    # (no memory operand: c.t_ring and c.hostcall are not used)
    err = d.fh(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)
    charge_cycles(n, t, d.base, occ, w)
    retire_pc(n, &c, in_slot, 0)
    return n.status


# --- RPTS repetitions in bulk ----------------------------------------------------
#
# An RPTS repetition (guide 7.1.1, RPTS) fetches nothing, and when its memory
# operands stay in one plain region every repetition has the same cycles
# (one on-chip block or bus occupancy, guide 8.2.3 / timing.pxi): the
# repetitions then run in a tight loop (addresses, reads, the operation),
# and the cycle, instruction, stall and repeat counters are added once for
# the whole run.  The conditions, checked before the first one, make every
# repetition the same to the timing model:
#   * no register-conflict stall now, and the instruction writes only R0-R7
#     (so no AR, IR, BK, DP, SP, RC or ST group changes under the loop), and
#     does not use the stack;
#   * its indirect operands use distinct ARn with linear modes (not circular
#     or bit-reversed), and over the repetitions every address stays in one
#     plain region without wrapping round 24 bits;
#   * the cycle limit and the instruction budget allow K >= 1 repetitions,
#     and RC >= K (the repetition that ends the loop is left to fast_step(),
#     whose retire() ends it).

cdef inline bint linear_mode(Node* n, Opnd* o, int64_t* pre, int64_t* upd) noexcept nogil:
    """For an indirect operand o in a linear mode (guide 6.3): its address is
    ARn + pre[0] and its ARn is then ARn + upd[0] (both before the 24-bit
    wrap); 0 for a circular or bit-reversed mode (guide 6.4, 6.5)."""
    cdef int am = o.am & 15, ik = o.am >> 4
    cdef int64_t idx
    if ik == 0:
        idx = <uint32_t>o.val
    elif ik == 1:
        idx = n.r[RAP_REG_IR0] & 0xFFFFFF
    else:
        idx = n.r[RAP_REG_IR1] & 0xFFFFFF
    if am == AM_POST:
        pre[0] = 0
        upd[0] = idx
    elif am == AM_POST_M:
        pre[0] = 0
        upd[0] = -idx
    elif am == AM_PRE:
        pre[0] = idx
        upd[0] = 0
    elif am == AM_PRE_M:
        pre[0] = -idx
        upd[0] = 0
    elif am == AM_PRE_U:
        pre[0] = idx
        upd[0] = idx
    elif am == AM_PRE_UM:
        pre[0] = -idx
        upd[0] = -idx
    elif am == AM_NONE:
        pre[0] = 0
        upd[0] = 0
    else:
        return 0
    return 1


cdef inline bint bulk_address_range(Node* n, Opnd* o, int64_t K, int* region, int64_t* first_a,
                                    int64_t* step) noexcept nogil:
    """Do the addresses of indirect operand o over the next K repetitions,
    and its ARn after them, stay in one plain region without a 24-bit wrap?
    (Its region in region[0]; the address of the first repetition in
    first_a[0] and the step from one repetition's address to the next --
    also the step of ARn when the mode updates it -- in step[0].)"""
    cdef int64_t ar = n.r[RAP_REG_AR0 + o.reg] & 0xFFFFFF, pre, delta, first, last, end
    if not linear_mode(n, o, &pre, &delta):
        return 0                    # circular or bit-reversed
    first = ar + pre
    last = first + (K - 1) * delta
    end = ar + K * delta
    first_a[0] = first
    step[0] = delta
    if first < 0 or last < 0 or end < 0 or first > 0xFFFFFF or last > 0xFFFFFF or end > 0xFFFFFF:
        return 0
    region[0] = region_of(n, <uint32_t>first)
    return region[0] < RG_RINGIO and region_of(n, <uint32_t>last) == region[0]


cdef inline int64_t rpts_bulk_reads(Node* n, Ctx* c, int64_t K, int64_t t0, int64_t cyc,
                                    int64_t* first, int64_t* step, int* err) noexcept nogil:
    """rpts_bulk()'s repetitions of an instruction that reads memory and
    stores nothing: its operands' words are taken through pointers that
    move by each operand's step (the addresses stay in one plain region,
    bulk_address_range), and the reads and the ARn updates of the
    repetitions are counted and written once after them -- the instruction
    reads and writes only R0-R7, so no repetition sees an ARn.  Returns the
    repetitions done (K, or fewer when one fails: err[0] is then its error,
    and its reads and ARn updates are counted like those of step())."""
    cdef Decoded* d = c.d
    cdef uint32_t* p[2]
    cdef uint32_t pc = c.pc, ar
    cdef int64_t j = 0, m
    cdef int k, i, reg
    cdef int64_t s0, s1
    cdef int r4, r3, r2, r5, sub
    for k in range(d.naddr):
        i = d.addr_op[k]
        p[k] = word_ptr(n, <uint32_t>first[k], c.rgs[i])
    if (d.op == RAP_OP_MPYF_P_ADDF or d.op == RAP_OP_MPYF_P_SUBF) and d.naddr == 2 \
            and (d.src_mem & 0x1B) == 0x03:
        # the dot product, MPYF3 *ARm, *ARn, R || ADDF3 R, R, R: its registers
        # and memory words taken once here (mpyf_addsubf_mm, ops.pxi)
        k = 0 if d.addr_op[0] == 0 else 1
        s0 = step[k]
        s1 = step[1 - k]
        r4 = d.o[4].reg
        r3 = d.o[3].reg
        r2 = d.o[2].reg
        r5 = d.o[5].reg
        sub = d.op == RAP_OP_MPYF_P_SUBF
        if r3 == r2 and r4 == r5 and r2 != r5:
            # the accumulating form (matrix.asm's mv_row): registers in locals
            if sub:                     # (the operation as a constant in each copy)
                mpyf_addsubf_run(n, p[k], s0, p[1 - k], s1, K, r2, r5, 1)
            else:
                mpyf_addsubf_run(n, p[k], s0, p[1 - k], s1, K, r2, r5, 0)
            j = K
        while j < K:
            mpyf_addsubf_mm(n, p[k][s0 * j], p[1 - k][s1 * j], r4, r3, r2, r5, sub)
            j += 1
    while j < K:
        for k in range(d.naddr):
            c.mv[d.addr_op[k]] = p[k][step[k] * j]
        c.nextpc = pc + 1
        c.t_ring = t0 + j * cyc
        if d.op == RAP_OP_MPYF_P_ADDF:
            mpyf_par_addsubf(n, c, 0)   # the dot product's step, without the dispatch
        else:
            err[0] = d.fh(n, c)         # (its own handler: execute_op's body without the dispatch)
            if err[0]:
                break
        j += 1
    m = j + 1 if err[0] else j      # (a failing repetition has read and updated its ARn)
    for k in range(d.naddr):
        i = d.addr_op[k]
        n.acc_read[c.rgs[i]] += m
        if (d.addr_u >> k) & 1:
            reg = RAP_REG_AR0 + d.o[i].reg
            ar = n.r[reg]
            n.r[reg] = (ar & 0xFF000000u) | (<uint32_t>((ar & 0xFFFFFF) + m * step[k]) & 0xFFFFFFu)
    return j


cdef int64_t rpts_bulk(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """Run the next repetitions of the instruction RPTS repeats in bulk, if
    the conditions above hold; returns how many (0: none, the caller runs
    the next one through fast_step()).  budget[0] is decremented by it."""
    cdef Decoded* d = &n.rpts_ins
    cdef Opnd* o
    cdef Ctx c
    cdef Acc acc
    cdef uint32_t pc = n.rpts_pc, a
    cdef uint32_t newar[6]
    cdef uint32_t ars = 0
    cdef int i, k, rg, err, occ, wait_part, conf_part, extra, ew
    cdef int64_t K, j, cyc, t0
    cdef int64_t first[2]
    cdef int64_t step[2]
    K = <int32_t>n.r[RAP_REG_RC]
    if K <= 0 or (d.uses & GRP_SP):
        return 0
    t0 = n.cycle
    if d.uses and conflict_stall(n, d.uses, t0):
        return 0
    for i in range(d.nops):
        if d.o[i].kind == RAP_K_REG and d.o[i].reg >= 8:
            return 0                # only R0-R7 may be read or written
    if budget[0] < K:
        K = budget[0]
    acc_clear(&acc)
    for k in range(d.naddr):
        i = d.addr_op[k]
        o = &d.o[i]
        if o.kind == RAP_K_DIR:
            a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
            rg = region_of(n, a)
            if rg >= RG_RINGIO:
                return 0
            first[k] = a
            step[k] = 0
        else:
            if (ars >> o.reg) & 1:
                return 0            # two operands on one ARn
            ars |= 1u << o.reg
            if not bulk_address_range(n, o, K, &rg, &first[k], &step[k]):
                return 0
        c.rgs[i] = rg
        if d.access:
            acc_add(n, &acc, rg)
    occ = acc_cycles(&acc, &wait_part, &conf_part)
    cyc = occ if occ > 1 else 1     # the base of RPTS-able instructions is 1
    if limit - t0 < K * cyc:        # repetitions that start before the limit
        K = (limit - t0 + cyc - 1) // cyc
        if K <= 0:
            return 0
    # -- the repetitions
    c.d = d
    c.pc = pc
    c.hostcall = 0
    acc_clear(&c.acc)
    err = 0
    j = 0
    if d.access and not d.addr_w:
        j = rpts_bulk_reads(n, &c, K, t0, cyc, first, step, &err)
    else:
        while j < K:
            for k in range(d.naddr):
                i = d.addr_op[k]
                o = &d.o[i]
                if o.kind == RAP_K_DIR:
                    c.ea[i] = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
                else:
                    c.ea[i] = ind_address(n, o, &newar[i])
            if d.access:
                for k in range(d.naddr):
                    if (d.addr_w >> k) & 1:
                        continue
                    i = d.addr_op[k]
                    c.mv[i] = word_ptr(n, c.ea[i], c.rgs[i])[0]
                    n.acc_read[c.rgs[i]] += 1
            for k in range(d.naddr):
                if (d.addr_u >> k) & 1:
                    i = d.addr_op[k]
                    n.r[RAP_REG_AR0 + d.o[i].reg] = newar[i]
            c.nextpc = pc + 1
            c.t_ring = t0 + j * cyc
            if d.op == RAP_OP_MPYF_P_ADDF:
                mpyf_par_addsubf(n, &c, 0)  # the dot product's step, without the dispatch
            else:
                err = d.fh(n, &c)       # (its own handler, e.g. _mxtv's MPYF3 || STF)
                if err:
                    break
            j += 1
    # -- the counters of the j repetitions done, as retire() would add them
    n.cycle = t0 + j * cyc
    n.instret += j
    extra = occ - 1
    if extra > 0:
        ew = wait_part if wait_part < extra else extra
        n.stall[SC_MEMWAIT] += j * ew
        n.stall[SC_BUSCONF] += j * (extra - ew)
    n.r[RAP_REG_RC] = n.r[RAP_REG_RC] - <uint32_t>j
    budget[0] -= j
    if j:
        n.prev_pc = pc
    if err:
        budget[0] -= 1
        fail(n, err, pc, d.word, n.err_addr)
        return j + 1
    return j


# --- RPTB loops in bulk ------------------------------------------------------------
#
# An RPTB block (guide 7.1.2, "RPTB") fetches and runs its instructions
# RS..RE again and again; RE's retire() decrements RC and jumps back to RS
# (execute.pxi retire_pc).  When the node is in the plain state at RS and
# every instruction of the block is one the timing model gives the same
# cycles at every pass, rptb_bulk() runs the next passes in a tight loop of
# the pre-decoded handlers and adds the cycle, instruction, access, stall,
# cache and RC counters once.  The conditions, checked before the first
# pass (any failure: the passes go on one instruction at a time):
#   * the block is at most RPTB_MAX instructions, pre-decoded (valid),
#     fetched from plain memory, no RPTS (rpts), no delay slot pending;
#   * each instruction is an ordinary one (timing class STD, guide 7.1.3:
#     no branch, call, repeat, IDLE or trap) whose handler cannot fail
#     (bulk_op), reads and writes only R0-R7 among the registers (so no AR,
#     IR, BK, DP, SP, RC, RS, RE or ST write, and no register-group write:
#     its pipeline conflicts, guide 8.2.2, are then those of the first pass,
#     which must have none), and does not use the stack;
#   * its indirect operands use linear modes (not circular or bit-reversed,
#     guide 6.4, 6.5); each ARn moves by the same step every pass (the sum
#     of the updates of the block's operands on it, read from the decoded
#     modifiers), so every operand's address is affine in the pass, and
#     over the passes run each stays in one plain region -- so every
#     instruction has the same occupancy at every pass (acc_cycles,
#     timing.pxi, computed once) -- and no store reaches the block's code;
#   * with the instruction cache on (guide 4.3) every externally fetched
#     word of the block is in it (every fetch is then a hit; with the cache
#     off every fetch is an access);
#   * the passes run are K <= RC (the pass that ends the loop is left to
#     fast_step()), the instruction budget allows K passes, and the last
#     instruction of the last pass starts before the cycle limit.
# A block found not to qualify for one of the static reasons is remembered
# (Node.rptb_skip) until the next RPTB, so that its passes do not look again.

cdef enum:
    RPTB_MAX = 8            # the longest RPTB body run in bulk


cdef struct BlkMem:
    # one memory operand of a block instruction over the passes
    int i                   # its operand index
    int w                   # 1: written (a store), 0: read
    int reg                 # its ARn, -1 for a direct operand
    int rg                  # its region (the same at every pass)
    int64_t a               # its address in the first pass
    int64_t step            # from one pass's address to the next (the ARn's step per pass)
    uint32_t* p             # a read: the first pass's word


cdef struct BlkIns:
    Decoded* d
    int nm                  # memory operands (none for NOP: its addresses are only formed)
    BlkMem m[2]
    int cyc                 # cycles of one execution (max(1, occupancy), timing.pxi)
    int ew                  # ... of them memory-wait and bus-conflict stalls
    int eb


cdef inline bint bulk_op(Decoded* d) noexcept nogil:
    """May a block instruction run in rptb_bulk()?  (An ordinary instruction
    with a handler that cannot fail, no stack, no register-group write, and
    only R0-R7 among its register operands.)"""
    cdef int i, op = d.op
    if d.timing != RAP_T_STD or d.writes or (d.uses & GRP_SP):
        return 0
    if d.fh == <FastOp>execute_op and not (
            op == RAP_OP_STF_P_STF or op == RAP_OP_STI_P_STI or op == RAP_OP_LDF_P_LDF
            or op == RAP_OP_LDI_P_LDI or op == RAP_OP_MPYI_P_ADDI or op == RAP_OP_MPYI_P_SUBI):
        return 0                    # (those parallel pairs' cases of execute_op return 0)
    for i in range(d.nops):
        if d.o[i].kind == RAP_K_REG and d.o[i].reg >= 8:
            return 0
    return 1


cdef inline bint in_cache(Node* n, uint32_t pc) noexcept nogil:
    """Is the word at pc in the instruction cache (guide 4.3)?  (No count,
    no LRU change: cache_fetch() of a word present is a hit.)"""
    cdef uint32_t ssa = pc >> 5, bit = 1u << (pc & 31)
    return (n.ssa[0] == ssa and (n.present[0] & bit)) or (n.ssa[1] == ssa and (n.present[1] & bit))


cdef inline int64_t region_first(Node* n, int rg) noexcept nogil:
    if rg == RG_SRAM:
        return 0
    if rg == RG_DRAM:
        return RAP_DRAM_BASE
    return RAP_RAM0_BASE + (rg - RG_RAM0) * RAP_ONCHIP_BLOCK_SIZE


cdef inline int64_t region_last(Node* n, int rg) noexcept nogil:
    if rg == RG_SRAM:
        return <int64_t>n.sram_words - 1
    if rg == RG_DRAM:
        return RAP_DRAM_BASE + <int64_t>n.dram_words - 1
    return RAP_RAM0_BASE + (rg - RG_RAM0 + 1) * RAP_ONCHIP_BLOCK_SIZE - 1


cdef inline int64_t rptb_skip(Node* n, uint32_t rs) noexcept nogil:
    n.rptb_skip = rs + 1
    return 0


cdef int64_t rptb_bulk(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """At RS of an RPTB loop in the plain state: run the next passes of the
    block in bulk if the conditions above hold; returns the instructions
    run (0: none, the caller runs the next one through fast_step()).
    budget[0] is decremented by them."""
    cdef uint32_t rs = n.r[RAP_REG_RS] & 0xFFFFFF, re = n.r[RAP_REG_RE] & 0xFFFFFF, pc, a
    cdef BlkIns b[RPTB_MAX]
    cdef Ctx cs[RPTB_MAX]
    cdef Decoded* page
    cdef Decoded* d
    cdef Opnd* o
    cdef BlkIns* bi
    cdef BlkMem* m
    cdef Ctx* c
    cdef Acc acc
    cdef int L, i, k, ii, reg, ce, uses = 0, wp, cp, occ, nupd, touched = 0
    cdef int upd_reg[2]
    cdef int64_t upd_val[2]
    cdef int64_t off[8]
    cdef int64_t K, P, start_last, pre, upd, lo, hi, j, t0 = n.cycle, last, ar
    if n.rptb_skip == rs + 1 or n.rpts or n.dslots:
        return 0
    K = <int32_t>n.r[RAP_REG_RC]
    if K < 1:
        return 0                    # the last pass (or none): one at a time
    if re < rs or re - rs >= RPTB_MAX:
        return rptb_skip(n, rs)
    L = re - rs + 1
    # -- the block's instructions (pre-decoded by its first pass)
    for i in range(L):
        pc = rs + i
        page = n.dcache[pc >> DPAGE_BITS]
        if page == NULL:
            return 0
        d = &page[pc & (DPAGE_WORDS - 1)]
        if d.valid != 1:
            return 0
        if d.frg >= RG_RINGIO or not bulk_op(d):
            return rptb_skip(n, rs)
        b[i].d = d
        uses |= d.uses
    if uses and conflict_stall(n, uses, t0):
        return 0                    # (no group write in the block: none at the next passes)
    ce = (n.r[RAP_REG_ST] & ST_CE) != 0
    if ce:
        for i in range(L):
            if b[i].d.frg <= RG_DRAM and not in_cache(n, rs + i):
                if n.r[RAP_REG_ST] & ST_CF:
                    return rptb_skip(n, rs)     # frozen: it would miss at every pass
                return 0                        # the next pass fills it
    # -- every operand's address in the first pass, and each ARn's step per
    # pass (decode forms all of an instruction's addresses from the ARn
    # before it, then keeps the updates in commit order: execute.pxi)
    for reg in range(8):
        off[reg] = 0
    for i in range(L):
        d = b[i].d
        b[i].nm = 0
        nupd = 0
        for k in range(d.naddr):
            ii = d.addr_op[k]
            o = &d.o[ii]
            reg = -1
            if o.kind == RAP_K_DIR:
                a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
            else:
                reg = o.reg
                if not linear_mode(n, o, &pre, &upd):
                    return rptb_skip(n, rs)     # circular or bit-reversed
                a = <uint32_t>(((n.r[RAP_REG_AR0 + reg] & 0xFFFFFF) + off[reg] + pre) & 0xFFFFFF)
                if (d.addr_u >> k) & 1:
                    upd_reg[nupd] = reg
                    upd_val[nupd] = off[reg] + upd
                    nupd += 1
            if d.access:
                m = &b[i].m[b[i].nm]
                m.i = ii
                m.w = (d.addr_w >> k) & 1
                m.reg = reg
                m.a = a
                b[i].nm += 1
        for k in range(nupd):           # in commit order: the last update of an ARn wins
            off[upd_reg[k]] = upd_val[k]
            touched |= 1 << upd_reg[k]
    for reg in range(8):                # steps in 24-bit arithmetic, as the smallest signed value
        off[reg] = ((off[reg] & 0xFFFFFF) ^ 0x800000) - 0x800000
    # -- regions, occupancy, and the passes the limits allow
    if K > (1 << 20):
        K = 1 << 20                 # (the stores' occupancy counts in cs[].acc stay small)
    if K * L > budget[0]:
        K = budget[0] // L
    P = 0
    start_last = 0
    for i in range(L):
        bi = &b[i]
        d = bi.d
        acc_clear(&acc)
        if d.frg > RG_DRAM or not ce:
            acc_add(n, &acc, d.frg)
        for k in range(bi.nm):
            m = &bi.m[k]
            m.step = off[m.reg] if m.reg >= 0 else 0
            m.rg = region_of(n, <uint32_t>m.a)
            if m.rg >= RG_RINGIO:
                return rptb_skip(n, rs)
            if m.step > 0:
                hi = region_last(n, m.rg)
                if (hi - m.a) // m.step + 1 < K:
                    K = (hi - m.a) // m.step + 1
            elif m.step < 0:
                lo = region_first(n, m.rg)
                if (m.a - lo) // (-m.step) + 1 < K:
                    K = (m.a - lo) // (-m.step) + 1
            acc_add(n, &acc, m.rg)
        occ = acc_cycles(&acc, &wp, &cp)
        bi.cyc = occ if occ > 1 else 1
        bi.ew = wp if wp < occ - 1 else occ - 1
        bi.eb = occ - 1 - bi.ew if occ > 1 else 0
        if bi.ew < 0:
            bi.ew = 0
        start_last = P
        P += bi.cyc
    if limit - 1 - t0 - start_last < 0:
        return 0
    if (limit - 1 - t0 - start_last) // P + 1 < K:
        K = (limit - 1 - t0 - start_last) // P + 1
    if K <= 0:
        return 0
    # no store may reach the block's own code (its decode would change)
    for i in range(L):
        for k in range(b[i].nm):
            m = &b[i].m[k]
            if m.w:
                last = m.a + (K - 1) * m.step
                lo = m.a if m.step >= 0 else last
                hi = last if m.step >= 0 else m.a
                if lo <= re and hi >= rs:
                    return rptb_skip(n, rs)
    # -- the passes
    for i in range(L):
        bi = &b[i]
        c = &cs[i]
        c.d = bi.d
        c.pc = rs + i
        c.t_ring = t0
        c.hostcall = 0
        acc_clear(&c.acc)
        c.nextpc = c.pc + 1             # (no handler of bulk_op changes it)
        for k in range(bi.nm):
            m = &bi.m[k]
            c.rgs[m.i] = m.rg
            if not m.w:
                m.p = word_ptr(n, <uint32_t>m.a, m.rg)
    j = 0
    while j < K:
        for i in range(L):
            bi = &b[i]
            c = &cs[i]
            for k in range(bi.nm):      # this pass's words and addresses; on to the next pass's
                m = &bi.m[k]
                if m.w:
                    c.ea[m.i] = <uint32_t>m.a
                    m.a += m.step
                else:
                    c.mv[m.i] = m.p[0]
                    m.p += m.step
            bi.d.fh(n, c)               # (bulk_op: it cannot fail)
        j += 1
    # -- the counters of the K passes, as retire() would have added them
    n.cycle = t0 + K * P
    n.instret += K * L
    for i in range(L):
        bi = &b[i]
        n.acc_fetch[bi.d.frg] += K
        n.stall[SC_MEMWAIT] += K * bi.ew
        n.stall[SC_BUSCONF] += K * bi.eb
        for k in range(bi.nm):
            if not bi.m[k].w:
                n.acc_read[bi.m[k].rg] += K
    if ce:
        # every external fetch a hit; the last pass's fetches leave the LRU state
        for i in range(L):
            if b[i].d.frg <= RG_DRAM:
                n.cache_hits += K - 1
                cache_fetch(n, rs + i)
    for reg in range(8):
        if (touched >> reg) & 1:
            ar = n.r[RAP_REG_AR0 + reg]
            n.r[RAP_REG_AR0 + reg] = (ar & 0xFF000000u) | (<uint32_t>((ar & 0xFFFFFF) + K * off[reg]) & 0xFFFFFFu)
    n.r[RAP_REG_RC] = n.r[RAP_REG_RC] - <uint32_t>K
    n.prev_pc = re
    budget[0] -= K * L
    return K * L


cdef inline int64_t repeat_bulk(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """In a repeat (RPTS, or ST.RM of an RPTB loop) in the plain state: the
    next RPTS repetitions (rpts_bulk) or, at RS, the next RPTB passes
    (rptb_bulk) in bulk; the instructions run (0: none)."""
    if n.rpts == 2:
        return rpts_bulk(n, limit, budget)
    if n.rpts == 0 and n.pc == (n.r[RAP_REG_RS] & 0xFFFFFF):
        return rptb_bulk(n, limit, budget)
    return 0
