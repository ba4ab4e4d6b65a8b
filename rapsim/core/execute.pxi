# Executing one instruction of a node (guide chapters 6, 7 and 13).
#
# An instruction is processed in the order of the C30 pipeline (guide 8.1):
#   decode  - register-conflict stall; effective addresses of indirect and
#             direct operands (ARn updates are computed but not yet kept);
#   read    - memory operands are read (ring reads may wait);
#   commit  - ARn updates are kept, only by operands whose mode updates ARn
#             (for two updates of one ARn, the operand in bits 15-8 wins:
#             guide 13.2, 3-operand and parallel formats);
#   execute - registers are read (they see this instruction's ARn updates),
#             the operation runs, registers and memory are written; every
#             operand of a parallel pair is read before either part writes.
# Nothing is changed before an access that may have to wait, so a waiting
# instruction is simply tried again later (Node.pend_*).

cdef inline uint32_t add24(uint32_t ar, int64_t delta) noexcept nogil:
    """ARn +/- delta in the 24-bit auxiliary-register arithmetic; the upper
    8 bits are kept (guide 6.3)."""
    return (ar & 0xFF000000u) | (<uint32_t>(<int64_t>(ar & 0xFFFFFF) + delta) & 0xFFFFFFu)


cdef inline uint32_t circ_update(uint32_t ar, int sign, uint32_t step, uint32_t bk) noexcept nogil:
    """Circular post-modification (guide 6.4): the buffer is BK words long and
    starts where the K low bits of ARn are zero, 2**K > BK."""
    cdef uint32_t bkv = bk & 0xFFFF
    cdef uint32_t mask = 0
    cdef int64_t idx, t
    while mask < bkv:               # mask = 2**K - 1, the smallest with 2**K > BK
        mask = (mask << 1) | 1
    idx = ar & mask
    t = idx + sign * <int64_t>step
    if t >= bkv:
        t -= bkv
    elif t < 0:
        t += bkv
    return (ar & ~mask) | (<uint32_t>t & mask)


cdef inline uint32_t rev24(uint32_t x) noexcept nogil:
    cdef uint32_t r = 0
    cdef int i
    for i in range(24):
        r = (r << 1) | ((x >> i) & 1)
    return r


cdef inline uint32_t ind_address(Node* n, Opnd* o, uint32_t* newar) noexcept nogil:
    """Effective address of an indirect operand and the new value of its ARn
    (guide 6.3, table 6-2; o.am was derived from the table of modes)."""
    cdef uint32_t ar = n.r[RAP_REG_AR0 + o.reg]
    cdef int am = o.am & 15
    cdef int ik = o.am >> 4
    cdef uint32_t idx, ea
    if am == AM_NONE:
        newar[0] = ar
        return ar & 0xFFFFFF
    if ik == 0:
        idx = <uint32_t>o.val
    elif ik == 1:
        idx = n.r[RAP_REG_IR0] & 0xFFFFFF
    else:
        idx = n.r[RAP_REG_IR1] & 0xFFFFFF
    if am == AM_POST:
        newar[0] = add24(ar, idx)
        return ar & 0xFFFFFF
    if am == AM_POST_M:
        newar[0] = add24(ar, -<int64_t>idx)
        return ar & 0xFFFFFF
    if am == AM_PRE:
        newar[0] = ar
        return add24(ar, idx) & 0xFFFFFF
    if am == AM_PRE_M:
        newar[0] = ar
        return add24(ar, -<int64_t>idx) & 0xFFFFFF
    if am == AM_PRE_U:
        ea = add24(ar, idx)
        newar[0] = ea
        return ea & 0xFFFFFF
    if am == AM_PRE_UM:
        ea = add24(ar, -<int64_t>idx)
        newar[0] = ea
        return ea & 0xFFFFFF
    if am == AM_CIRC:
        newar[0] = circ_update(ar, 1, idx, n.r[RAP_REG_BK])
    elif am == AM_CIRC_M:
        newar[0] = circ_update(ar, -1, idx, n.r[RAP_REG_BK])
    else:               # *ARn++(IR0)B: reverse-carry addition (guide 6.5)
        newar[0] = (ar & 0xFF000000u) | rev24((rev24(ar & 0xFFFFFF) + rev24(idx)) & 0xFFFFFF)
    return ar & 0xFFFFFF


cdef inline void write_reg(Node* n, int reg, uint32_t v) noexcept nogil:
    """Write the 32 bits of a register (for R0-R7 the exponent is kept)."""
    n.r[reg] = v
    if reg == RAP_REG_ST and (v & ST_CC):
        cache_clear(n)
        n.r[reg] = v & ~ST_CC


cdef inline void write_f(Node* n, int reg, F40 v) noexcept nogil:
    n.rexp[reg] = v.e
    n.r[reg] = v.m


cdef inline F40 reg_f(Node* n, int reg) noexcept nogil:
    return fmake(n.rexp[reg], n.r[reg])


cdef inline void set_flags(Node* n, uint32_t fl, uint32_t mask) noexcept nogil:
    """Replace the flags in mask, and latch LV / LUF."""
    n.r[RAP_REG_ST] = (n.r[RAP_REG_ST] & ~mask) | (fl & mask) | (fl & (ST_LV | ST_LUF))


cdef inline int fail(Node* n, int code, uint32_t pc, uint32_t word, uint32_t addr) noexcept nogil:
    n.status = ST_ERROR
    n.err_code = code
    n.err_pc = pc
    n.err_word = word
    n.err_addr = addr
    return ST_ERROR


cdef inline int plain_read(Node* n, uint32_t a, uint32_t* v, Acc* acc) noexcept nogil:
    """A data read of ordinary memory (stack, vectors).  0 or ERR_READ."""
    cdef int rg = region_of(n, a)
    cdef uint32_t* p = word_ptr(n, a, rg)
    if p == NULL:
        return ERR_READ
    v[0] = p[0]
    n.acc_read[rg] += 1
    acc_add(n, acc, rg)
    return 0


cdef inline int plain_write(Node* n, uint32_t a, uint32_t v, Acc* acc) noexcept nogil:
    cdef int rg = region_of(n, a)
    cdef uint32_t* p = word_ptr(n, a, rg)
    if p == NULL:
        return ERR_WRITE
    p[0] = v
    invalidate_code(n, a)
    n.acc_write[rg] += 1
    acc_add(n, acc, rg)
    return 0


cdef inline int take_interrupt(Node* n) noexcept nogil:
    """Dispatch the highest-priority enabled pending interrupt (guide 7.6):
    clear its IF bit, push PC, clear GIE, jump through its vector."""
    cdef uint32_t pend = n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF
    cdef int b = 0
    cdef uint32_t v, sp
    cdef Acc acc
    acc_clear(&acc)
    while not (pend >> b) & 1:
        b += 1
    n.r[RAP_REG_IF] &= ~(1u << b)
    sp = add24(n.r[RAP_REG_SP], 1)
    if plain_write(n, sp & 0xFFFFFF, n.pc, &acc) or plain_read(n, b + 1, &v, &acc):
        return fail(n, ERR_WRITE, n.pc, 0, sp & 0xFFFFFF)
    n.p.ints[b] += 1
    n.r[RAP_REG_SP] = sp
    n.r[RAP_REG_ST] &= ~ST_GIE
    n.pc = v & 0xFFFFFF
    n.prev_pc = NO_PC
    n.cycle += INTERRUPT_CYCLES
    n.stall[SC_BRANCH] += INTERRUPT_CYCLES
    return ST_RUNNING


cdef struct Ctx:
    # what the execute stage of one instruction needs
    Decoded* d
    uint32_t pc
    uint32_t nextpc
    int64_t t_ring          # cycle of ring accesses
    int hostcall            # HOST_CALL was written
    Acc acc
    uint32_t ea[6]          # effective addresses of memory operands
    uint32_t mv[6]          # values read from memory operands
    int rgs[6]              # their regions


cdef inline void retire_next(Node* n, Ctx* c, int in_slot, int rpts_was) noexcept nogil:
    """The end of an executed instruction after its cycles (shared by step()
    and the fast path, through retire() or directly): retire_pc(), then the
    host call its store asked for, if any."""
    retire_pc(n, c, in_slot, rpts_was)
    if c.hostcall:
        n.status = ST_HOSTCALL
        if n.hc != NULL:
            hostcall_staged(n)      # a staged reply serves it in place (hostcall.pxi)


cdef inline void retire_pc(Node* n, Ctx* c, int in_slot, int rpts_was) noexcept nogil:
    """retire_next() without the host call (alone for an instruction without
    memory operands, which cannot store to HOST_CALL: fast_fetch_only): the
    instruction count, the register groups it writes (guide 8.2.2), and the
    next PC (delay slots, RPTS repetitions, RPTB loops: guide 7.1)."""
    cdef Decoded* d = c.d
    cdef uint32_t pc = c.pc, v
    n.instret += 1
    if d.writes:
        note_group_writes(n, d.writes, n.cycle)
    if in_slot:
        n.dslots -= 1
        if n.dslots == 0 and n.dtaken:
            c.nextpc = n.dtarget
    if rpts_was != 0:
        # this was one execution of the instruction RPTS repeats
        v = n.r[RAP_REG_RC] - 1
        n.r[RAP_REG_RC] = v
        if <int32_t>v >= 0:
            c.nextpc = pc
        else:
            n.rpts = 0
            n.rpts_ring = 0
            n.r[RAP_REG_ST] &= ~ST_RM
    elif (n.r[RAP_REG_ST] & ST_RM) and n.rpts == 0 and pc == (n.r[RAP_REG_RE] & 0xFFFFFF) \
            and c.nextpc == pc + 1:
        v = n.r[RAP_REG_RC] - 1
        n.r[RAP_REG_RC] = v
        if <int32_t>v >= 0:
            c.nextpc = n.r[RAP_REG_RS]
        else:
            n.r[RAP_REG_ST] &= ~ST_RM
    n.pc = c.nextpc & 0xFFFFFF
    n.prev_pc = pc


cdef inline void retire(Node* n, Ctx* c, int64_t stall_rc, int64_t t, int64_t t_read,
                        int64_t t_ring, int64_t dma_delay, int in_slot, int rpts_was) noexcept nogil:
    """The end of an executed instruction, shared by step() and the fast path
    (fast.pxi): its cycles and stall counters (timing.pxi), then
    retire_next()."""
    cdef int occ, wait_part, conf_part
    occ = acc_cycles(&c.acc, &wait_part, &conf_part)
    n.stall[SC_REGCONF] += stall_rc
    n.stall[SC_RING_READ] += t_read - t
    n.stall[SC_RING_WRITE] += t_ring - dma_delay - t_read
    charge_cycles(n, t_ring, c.d.base, occ, wait_part)
    if n.periph_on:
        n.p.cpu_lost += dma_delay
        periph_note_cpu(n, &c.acc, t_ring)
    retire_next(n, c, in_slot, rpts_was)


cdef int step(Node* n) noexcept nogil:
    """Execute one instruction (or one repetition under RPTS).  Returns the
    node status (ST_RUNNING to continue)."""
    cdef Decoded* d
    cdef Opnd* o
    cdef Ctx c
    cdef uint32_t pc = n.pc, v, a
    cdef int i, k, rg, fetch_rg = RG_NONE, err, special = 0
    cdef int ring_rd = -1, ring_wr = -1, ring_stat_i = -1, fwd = 0
    cdef int64_t t0, t, stall_rc, t_ring, t_read, when
    cdef uint32_t newar[6]
    cdef int in_slot
    cdef int rpts_was = n.rpts
    cdef int64_t dma_delay = 0

    # a single ring access: its own path (ring_step_lean, ringfast.pxi)
    if n.probe == NULL and rpts_was == 0 and not n.periph_on:
        err = ring_step_lean(n)
        if err >= 0:
            return err

    # -- on-chip peripherals: catch the timers and the DMA up (periph.pxi)
    if n.periph_on:
        err = periph_before(n)
        if err:
            return n.status if err == PERIPH_NO_INSTRUCTION else err

    # -- interrupts at an instruction boundary (not in RPTS or delay slots)
    if (n.r[RAP_REG_ST] & ST_GIE) and (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF) \
            and not n.pend_valid and n.rpts == 0 and n.dslots == 0:
        return take_interrupt(n)

    # -- the instruction: retried, repeated by RPTS, or fetched
    acc_clear(&c.acc)
    if n.pend_valid:
        d = &n.pend_ins
        fetch_rg = n.pend_fetch_rg
        if n.rpts == 2:
            pc = n.rpts_pc
    elif n.rpts == 2:
        d = &n.rpts_ins
        pc = n.rpts_pc
    else:
        rg = region_of(n, pc)
        if rg >= RG_RINGIO:
            return fail(n, ERR_FETCH, pc, 0, pc)
        d = decoded_at(n, pc)
        if d == NULL:
            return fail(n, ERR_FETCH, pc, 0, pc)
        if d.valid != 1:
            return fail(n, ERR_ILLEGAL, pc, d.word, pc)
        n.acc_fetch[rg] += 1
        if rg > RG_DRAM or not cache_fetch(n, pc):
            fetch_rg = rg
        if n.rpts == 1:
            if d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
                return fail(n, ERR_RPTS_TARGET, pc, d.word, pc)
            n.rpts_ins = d[0]
            n.rpts_pc = pc
            n.rpts = 2
            n.rpts_ring = 0
            d = &n.rpts_ins
    in_slot = n.dslots > 0
    if in_slot and d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
        return fail(n, ERR_DELAY_SLOT, pc, d.word, pc)
    if fetch_rg != RG_NONE:
        acc_add(n, &c.acc, fetch_rg)

    # -- decode: register conflicts, effective addresses
    t0 = n.cycle
    stall_rc = conflict_stall(n, d.uses, t0) if d.uses else 0
    t = t0 + stall_rc
    for k in range(d.naddr):
        i = d.addr_op[k]
        o = &d.o[i]
        if o.kind == RAP_K_DIR:
            a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
        else:
            a = ind_address(n, o, &newar[i])
        c.ea[i] = a
        if not d.access:
            continue
        rg = region_of(n, a)
        c.rgs[i] = rg
        if rg >= RG_RINGIO:
            if rg == RG_NONE:
                return fail(n, ERR_WRITE if (d.addr_w >> k) & 1 else ERR_READ, pc, d.word, a)
            special = 1
            if rg == RG_PERIPH:
                if not periph_register(a):
                    return fail(n, ERR_WRITE if (d.addr_w >> k) & 1 else ERR_READ, pc, d.word, a)
            elif a == RAP_RING_DATA:
                if (d.addr_w >> k) & 1:
                    if ring_wr >= 0:
                        return fail(n, ERR_RING_MULTI, pc, d.word, a)
                    ring_wr = i
                else:
                    if ring_rd >= 0:
                        return fail(n, ERR_RING_MULTI, pc, d.word, a)
                    ring_rd = i
            elif a == RAP_RING_STAT or a == RAP_NODE_ID or a == RAP_NODE_COUNT:
                if (d.addr_w >> k) & 1:
                    return fail(n, ERR_WRITE, pc, d.word, a)
                if a == RAP_RING_STAT:
                    ring_stat_i = i
            elif a != RAP_RING_FWD and a != RAP_HOST_CALL:
                return fail(n, ERR_WRITE if (d.addr_w >> k) & 1 else ERR_READ, pc, d.word, a)

    # -- ring accesses: wait (and retry later) unless they can happen now.
    # The read (and a write in the same instruction) happen at cycle t_ring:
    # t_read - t cycles waiting for the word, t_ring - t_read for the output
    # latch (ring.pxi).
    t_ring = t
    t_read = t
    if special:
        if n.periph_on and (ring_rd >= 0 or ring_wr >= 0) and dma_ring_clash(n, ring_rd >= 0,
                                                                           ring_wr >= 0):
            return fail(n, ERR_DMA_RING, pc, d.word, RAP_RING_DATA)
        if ring_rd >= 0 and n.fwd_count > 0:
            if ring_wr >= 0:
                return fail(n, ERR_RING_MULTI, pc, d.word, RAP_RING_DATA)
            fwd = 1
        if ring_rd >= 0:
            if not ring_read_ready(n.rin, t, &when):
                return ring_wait(n, d, fetch_rg, ST_RING_READ)
            t_ring = when
            t_read = when
        if ring_wr >= 0 or fwd:
            if not ring_write_ready(n.rout, t_ring, &when):
                n.wait_t = t
                n.wait_reads = ring_rd >= 0
                return ring_wait(n, d, fetch_rg, ST_RING_WRITE)
            t_ring = when
        if ring_stat_i >= 0:
            if not ring_stat(n, t, &c.mv[ring_stat_i]):
                # no ring-data access of this node before t (t + 1 if this
                # instruction has none): the bound its neighbours' RING_STAT use
                n.lb = periph_lb(n, t if (ring_rd >= 0 or ring_wr >= 0) else t + 1)
                ring_sync_note(n)
                return ring_wait(n, d, fetch_rg, ST_RING_SYNC)
    if n.periph_on:
        # a DMA access in progress when the instruction's accesses start (at
        # t_ring, after any ring wait) holds its resource: they all wait
        # (periph.pxi; counted apart from the ring stalls)
        err = periph_cpu_wait(n, d, c.rgs, fetch_rg, t_ring, &dma_delay)
        if err == ST_ERROR:
            return err
        if err:
            return ring_wait(n, d, fetch_rg, err)
        t_ring += dma_delay
    n.pend_valid = 0

    # -- read memory operands
    if d.access:
        for k in range(d.naddr):
            if (d.addr_w >> k) & 1:
                continue
            i = d.addr_op[k]
            rg = c.rgs[i]
            if rg == RG_RINGIO:
                a = c.ea[i]
                if a == RAP_RING_DATA:
                    c.mv[i] = ring_take(n.rin, t_ring)
                    n.ring_received += 1
                    if fwd:
                        ring_put(n.rout, c.mv[i], t_ring)
                        n.fwd_count -= 1
                        n.ring_forwarded += 1
                elif a == RAP_NODE_ID:
                    c.mv[i] = n.node_id
                elif a == RAP_NODE_COUNT:
                    c.mv[i] = n.node_count
                elif a == RAP_RING_FWD:
                    c.mv[i] = n.fwd_count
                elif a == RAP_HOST_CALL:
                    c.mv[i] = n.hostcall_addr
            elif rg == RG_PERIPH:
                c.mv[i] = periph_read(n, c.ea[i], t_ring)
            else:
                c.mv[i] = word_ptr(n, c.ea[i], rg)[0]
            n.acc_read[rg] += 1
            acc_add(n, &c.acc, rg)

    # -- keep ARn updates, in commit order; an operand whose mode does not
    # update its ARn writes nothing back (else *AR2 after *AR2++ would undo
    # the increment)
    for k in range(d.naddr):
        if (d.addr_u >> k) & 1:
            i = d.addr_op[k]
            n.r[RAP_REG_AR0 + d.o[i].reg] = newar[i]

    # -- execute
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    c.t_ring = t_ring
    c.hostcall = 0
    err = execute_op(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)

    retire(n, &c, stall_rc, t, t_read, t_ring, dma_delay, in_slot, rpts_was)
    return n.status


cdef inline int ring_wait(Node* n, Decoded* d, int fetch_rg, int status) noexcept nogil:
    """The instruction must wait for the ring: keep it to try again (a running
    DMA channel goes on meanwhile, periph.pxi)."""
    if d != &n.pend_ins:
        n.pend_ins = d[0]
    n.pend_valid = 1
    n.pend_fetch_rg = fetch_rg
    if n.periph_on and n.p.dma_run:
        if periph_background(n, status) == ST_ERROR:
            return ST_ERROR
    n.status = status
    return status
