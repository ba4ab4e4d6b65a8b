# The C30's on-chip peripherals of a node: the DMA channel (guide 12.3), the
# two timers (guide 12.1), and what the interrupt logic (guide 7.6) needs
# from them.  docs/machine-model.md, "On-chip peripherals", states the model.
#
# Nothing here costs anything for a node that never starts one: the hot loop
# (execute.pxi) looks at Node.periph_on only, which is set while a DMA
# transfer runs, a timer counts or IDLE waits for one of them.
#
# Time.  Peripherals live on the node's own clock, caught up lazily: before
# each instruction, every timer event and every DMA access that starts before
# the instruction's cycle is processed in time order (periph_catch_up).
#
#  * Timers count on the internal clock, f(H1)/2 (guide 12.1.5; CLKSRC = 1):
#    one tick every 2 instruction cycles of this model (an instruction cycle
#    is one H1 cycle).  The counter runs from 0; when it increments to the
#    period it is reset to 0 and TSTAT pulses (pulse mode) or toggles (clock
#    mode, C/P = 1); a 0-to-1 transition of TSTAT sets TINT0/TINT1 in IF
#    (guide 12.1.2-12.1.4).  The TCLK pins are not connected on the RAP
#    model: a timer on the external clock (CLKSRC = 0) never counts.
#  * The DMA channel moves one word per transfer: a read of the source, then
#    a write of the destination, each one cycle plus the wait states of its
#    region (guide 12.3: the DMA has its own buses; a transfer is a read and
#    a write).  The transfer counter is decremented by each read; at the write
#    that follows the read which brought it to 0, TCINT sets DINT in IF, and
#    with TC = 1 the channel stops (STAT = 00).  Addresses step by +1, -1 or
#    not at all (INC/DEC bits; both or neither: fixed).  SYNC delays reads
#    (01), writes (10) or both (11) until an interrupt flag enabled for the
#    DMA (IE bits 26-16) is set; the DMA takes the lowest such flag and
#    clears it (guide 12.3.7.1).
#  * Arbitration (guide 12.3.6): resources are the primary bus, the expansion
#    bus, the peripheral bus and the two on-chip RAM blocks (each block serves
#    two accesses a cycle, so the DMA only waits for a block when the CPU
#    takes both of its ports).  With PRI = 00 (the C30's only rule, and the
#    reset value) the CPU goes first: a DMA access waits until the CPU's
#    accesses of the current instruction on that resource are over; an
#    access already started is never preempted, so an instruction needing a
#    resource the DMA holds waits for it.  PRI = 11 (the C32's bits 13-12,
#    reserved on a C30; the model's option) gives the DMA the first turn when
#    both want a resource in the same cycle.  Rotating priority is not
#    modelled: it stops the node with an error.
#  * A DMA access to RING_DATA moves a ring word with the ring's own blocking
#    (ring.pxi): a read waits for a word, a write for the output latch; a read
#    with RING_FWD words left also forwards the word.  When the word is not
#    there yet in simulation order, the channel waits; the CPU goes on as
#    long as its cycle is not past the neighbour's lower bound that decides
#    the access (it cannot see the outcome before), else the node waits
#    (status ST_RING_*, Periph.dma_wait) and is resumed like a CPU ring
#    access; the CPU is not charged for it.  While the CPU waits for the ring, the channel goes on
#    up to the earliest cycle the CPU could resume (periph_background): a
#    node may send by DMA while its CPU receives.

cdef enum:
    # DMA global control register (guide 12.3.3, DMA global-control bits)
    DMA_START = 0x3             # bits 1-0: 00 reset, 01 halt at an access boundary,
                                # 10 halt at a transfer boundary, 11 start
    DMA_STAT_MASK = 0xC         # bits 3-2 (read only): 00 held between transfers,
                                # 01 held between a read and its write, 11 busy
    DMA_INCSRC = 0x10
    DMA_DECSRC = 0x20
    DMA_INCDST = 0x40
    DMA_DECDST = 0x80
    DMA_SYNC_SHIFT = 8          # bits 9-8
    DMA_TC = 0x400
    DMA_TCINT = 0x800
    DMA_PRI_SHIFT = 12          # bits 13-12, as the C32's PRI (reserved on the C30)
    DMA_GCR_WRITABLE = 0x3FF3
    # timer global control register (guide 12.1.2)
    TIM_FUNC = 0x1
    TIM_IO = 0x2
    TIM_DATOUT = 0x4
    TIM_DATIN = 0x8
    TIM_GO = 0x40
    TIM_HLD = 0x80              # HLD_, active low: 0 holds the counter
    TIM_CP = 0x100              # 1: clock mode, 0: pulse mode
    TIM_CLKSRC = 0x200          # 1: internal clock f(H1)/2
    TIM_INV = 0x400
    TIM_TSTAT = 0x800
    TIM_GCR_WRITABLE = 0x787    # FUNC, I/O, DATOUT, HLD_, C/P, CLKSRC, INV (GO reads 0)
    # interrupt flags (guide 3.1.8, IF; 3.1.9, IE: bits 10-0 the CPU's, 26-16 the DMA's)
    IF_TINT0 = 8
    IF_DINT = 10
    IF_CPU_MASK = 0x7FF
    IE_DMA_SHIFT = 16
    # resources the CPU and the DMA compete for
    RS_PRIMARY = 0
    RS_EXPANSION = 1
    RS_PERIPH = 2
    RS_RAM0 = 3
    RS_RAM1 = 4
    NRES = 5
    PERIPH_NO_INSTRUCTION = -1  # periph_before: IDLE went on waiting, no instruction this step
    DMA_DEFER = -2              # dma_access: the ring puts the access at or after the bound


cdef inline int resource_of(int rg) noexcept nogil:
    if rg == RG_SRAM or rg == RG_DRAM:
        return RS_PRIMARY
    if rg == RG_RINGIO:
        return RS_EXPANSION
    if rg == RG_PERIPH:
        return RS_PERIPH
    return RS_RAM0 if rg == RG_RAM0 else RS_RAM1


cdef inline int periph_register(uint32_t a) noexcept nogil:
    """Is a one of the peripheral registers this model has?"""
    cdef uint32_t o
    if a == RAP_DMA_GCR or a == RAP_DMA_SRC or a == RAP_DMA_DST or a == RAP_DMA_CNT:
        return 1
    if a >= RAP_TIMER0_BASE and a < RAP_TIMER1_BASE + 0x10:
        o = a & 0xF
        return o == 0 or o == 4 or o == 8
    return 0


cdef void periph_reset(Node* n) noexcept nogil:
    cdef Periph* p = &n.p
    cdef int k
    memset(p, 0, sizeof(Periph))
    for k in range(2):
        p.tim_next[k] = T_NEVER
    n.periph_on = 0


cdef inline void periph_update_on(Node* n) noexcept nogil:
    cdef Periph* p = &n.p
    n.periph_on = p.dma_run or p.tim_run[0] or p.tim_run[1] or p.idle


# --- timers ------------------------------------------------------------------

cdef inline uint64_t timer_ticks_to_period(uint32_t c, uint32_t prd) noexcept nogil:
    """Ticks until a counter at c increments to the period (it counts modulo
    2**32, guide 12.1.4)."""
    if prd == 0 and c == 0:
        return 1            # period and counter 0: TSTAT is set at once (guide 12.1.4)
    return (<uint64_t>(<uint32_t>(prd - c - 1))) + 1


cdef inline void timer_schedule(Periph* p, int k) noexcept nogil:
    if p.tim_run[k]:
        p.tim_next[k] = p.tim_t[k] + 2 * <int64_t>timer_ticks_to_period(p.tim_cnt[k], p.tim_prd[k])
    else:
        p.tim_next[k] = T_NEVER


cdef inline uint32_t timer_value(Periph* p, int k, int64_t t) noexcept nogil:
    """The counter of timer k at cycle t (events before t are already processed
    or come from the schedule)."""
    cdef int64_t after
    if not p.tim_run[k] or t <= p.tim_t[k]:
        return p.tim_cnt[k]
    if t >= p.tim_next[k]:
        if p.tim_prd[k] == 0:
            return 0
        after = (t - p.tim_next[k]) >> 1
        return <uint32_t>(after % p.tim_prd[k])
    return <uint32_t>(p.tim_cnt[k] + <uint32_t>((t - p.tim_t[k]) >> 1))


cdef inline void timer_freeze(Node* n, int k, int64_t t) noexcept nogil:
    """Make (tim_cnt, tim_t) the counter at t, before a register write at t:
    the events before t first, then the tick phase is kept."""
    cdef Periph* p = &n.p
    while p.tim_next[k] < t:
        timer_event(n, k)
    p.tim_cnt[k] = timer_value(p, k, t)
    if p.tim_run[k] and t > p.tim_t[k]:
        p.tim_t[k] = t - ((t - p.tim_t[k]) & 1)
    elif not p.tim_run[k]:
        p.tim_t[k] = t


cdef void timer_event(Node* n, int k) noexcept nogil:
    """Timer k's counter reaches its period at tim_next[k] (guide 12.1.4)."""
    cdef Periph* p = &n.p
    cdef int64_t te = p.tim_next[k]
    cdef int rise = 1
    p.tim_cnt[k] = 0
    p.tim_t[k] = te
    if p.tim_gcr[k] & TIM_CP:           # clock mode: TSTAT toggles, TINT on 0 -> 1
        p.tim_gcr[k] ^= TIM_TSTAT
        rise = (p.tim_gcr[k] & TIM_TSTAT) != 0
    if rise:
        n.r[RAP_REG_IF] |= 1u << (IF_TINT0 + k)
        p.flag_t = te
    if p.tim_prd[k] == 0:
        p.tim_next[k] = T_NEVER         # the counter stays at 0, TSTAT stays set
    else:
        p.tim_next[k] = te + 2 * <int64_t>p.tim_prd[k]


cdef void timer_write(Node* n, int k, int reg, uint32_t v, int64_t t) noexcept nogil:
    cdef Periph* p = &n.p
    timer_freeze(n, k, t)
    if reg == 0:
        p.tim_gcr[k] = (v & TIM_GCR_WRITABLE) | (p.tim_gcr[k] & TIM_TSTAT)
        if (v & TIM_GO) and (v & TIM_HLD):
            p.tim_cnt[k] = 0            # GO: reset the counter and start (guide 12.1.2)
            p.tim_t[k] = t
        p.tim_run[k] = (v & TIM_HLD) != 0 and (v & TIM_CLKSRC) != 0
    elif reg == 4:
        p.tim_cnt[k] = v
        p.tim_t[k] = t
    else:
        p.tim_prd[k] = v
    timer_schedule(p, k)
    periph_update_on(n)


# --- the DMA channel ------------------------------------------------------------

cdef inline uint32_t dma_step(uint32_t a, uint32_t gcr, uint32_t inc, uint32_t dec) noexcept nogil:
    """Next address: +1 (INC), -1 (DEC), unchanged (both or neither)."""
    if (gcr & inc) and not (gcr & dec):
        return (a + 1) & 0xFFFFFF
    if (gcr & dec) and not (gcr & inc):
        return (a - 1) & 0xFFFFFF
    return a


cdef inline uint32_t dma_sync_flags(Node* n) noexcept nogil:
    return n.r[RAP_REG_IF] & (n.r[RAP_REG_IE] >> IE_DMA_SHIFT) & IF_CPU_MASK


cdef inline int dma_needs_sync(Periph* p) noexcept nogil:
    cdef uint32_t s = (p.dma_gcr >> DMA_SYNC_SHIFT) & 3
    return (s & 1) if p.dma_phase == 0 else (s & 2)


cdef int64_t dma_start(Node* n) noexcept nogil:
    """Cycle at which the channel's next access can start, or T_NEVER (not
    running, or waiting for a synchronising interrupt).  Sets dma_lost_next:
    the cycles of that wait caused by the CPU."""
    cdef Periph* p = &n.p
    cdef int64_t t0, s
    cdef int rg, r
    cdef uint32_t a
    if not p.dma_run:
        return T_NEVER
    t0 = p.dma_t
    if dma_needs_sync(p) and not p.dma_synced:
        if not dma_sync_flags(n):
            return T_NEVER
        if p.flag_t > t0:
            t0 = p.flag_t
    a = p.dma_src if p.dma_phase == 0 else p.dma_dst
    rg = region_of(n, a)
    s = t0
    if rg < NREGION and ((p.dma_gcr >> DMA_PRI_SHIFT) & 3) == 0:
        # the CPU's last instruction holds the resource from cpu_from to
        # cpu_hold (an access earlier than that instruction: the DMA is
        # behind the CPU after a ring wait; earlier instructions are not kept)
        r = resource_of(rg)
        if p.cpu_from[r] <= s < p.cpu_hold[r]:
            s = p.cpu_hold[r]
    p.dma_lost_next = s - t0
    return s


cdef inline int dma_ring_wait(Node* n, int status, int64_t s, int reads) noexcept nogil:
    """The channel's ring access cannot be decided yet (ring.pxi): it waits;
    the CPU goes on while that cannot change what it sees (periph_before)."""
    n.p.dma_wait = status
    n.p.dma_wait_t = s
    n.p.dma_wait_reads = reads
    return status


cdef inline int64_t dma_after_cpu(Periph* p, int r, int64_t x) noexcept nogil:
    """CPU priority: an access the ring moved to cycle x waits for the CPU's
    last instruction's hold of resource r."""
    if ((p.dma_gcr >> DMA_PRI_SHIFT) & 3) == 0 and p.cpu_from[r] <= x < p.cpu_hold[r]:
        return p.cpu_hold[r]
    return x


cdef inline int dma_defer(Node* n, int64_t s0, int64_t when, int64_t s) noexcept nogil:
    """A ring access the ring (when) and the CPU put at cycle s, at or after
    the catch-up's bound: it is done later (the CPU's instruction at that
    cycle goes first), from s on."""
    cdef Periph* p = &n.p
    p.dma_lost += p.dma_lost_next + (s - when)
    p.dma_lost_next = 0
    p.dma_ring_wait += when - s0
    p.dma_t = s
    return DMA_DEFER


cdef int dma_access(Node* n, int64_t s, int64_t T) noexcept nogil:
    """The channel's next access (its read or its write), starting at s (< T).
    0, a ring wait status (nothing was changed), DMA_DEFER (the ring puts it
    at T or later: nothing was changed) or ST_ERROR."""
    cdef Periph* p = &n.p
    cdef uint32_t a = p.dma_src if p.dma_phase == 0 else p.dma_dst
    cdef uint32_t v, flags
    cdef int rg = region_of(n, a)
    cdef int fwd, r
    cdef int64_t when, w2, s0 = s, ring_w = 0
    cdef uint32_t pri = (p.dma_gcr >> DMA_PRI_SHIFT) & 3
    if pri == 1 or pri == 2:
        p.dma_run = 0
        return fail(n, ERR_DMA_PRI, n.pc, p.dma_gcr, RAP_DMA_GCR)
    if rg >= NREGION or (rg == RG_RINGIO and a != RAP_RING_DATA):
        p.dma_run = 0
        return fail(n, ERR_DMA, n.pc, p.dma_gcr, a)
    if p.dma_phase == 0:
        if rg == RG_RINGIO:
            if not ring_read_ready(n.rin, s, &when):
                return dma_ring_wait(n, ST_RING_READ, s, 0)
            fwd = n.fwd_count > 0
            if fwd:
                if not ring_write_ready(n.rout, when, &w2):
                    return dma_ring_wait(n, ST_RING_WRITE, s, 1)
                when = w2
            s = dma_after_cpu(p, RS_EXPANSION, when)
            if s >= T:
                return dma_defer(n, s0, when, s)
            ring_w = when - s0
            p.dma_lost_next += s - when
            if n.probe != NULL:         # the kernel writer's tools (probe.pxi)
                probe_dma_ring(n, DR_READ, n.rin.data[n.rin.head], s, n.rin.mtime[n.rin.head])
            v = ring_take(n.rin, s)
            n.ring_received += 1
            if fwd:
                ring_put(n.rout, v, s)
                n.fwd_count -= 1
                n.ring_forwarded += 1
                if n.probe != NULL:
                    probe_dma_ring(n, DR_FORWARD, v, s, 0)
        else:
            v = word_ptr(n, a, rg)[0]
        p.dma_word = v
        p.dma_src = dma_step(a, p.dma_gcr, DMA_INCSRC, DMA_DECSRC)
        p.dma_cnt = (p.dma_cnt - 1) & 0xFFFFFF
        p.dma_phase = 1
    else:
        if rg == RG_RINGIO:
            if not ring_write_ready(n.rout, s, &when):
                return dma_ring_wait(n, ST_RING_WRITE, s, 0)
            s = dma_after_cpu(p, RS_EXPANSION, when)
            if s >= T:
                return dma_defer(n, s0, when, s)
            ring_w = when - s0
            p.dma_lost_next += s - when
            ring_put(n.rout, p.dma_word, s)
            n.ring_sent += 1
            if n.probe != NULL:
                probe_dma_ring(n, DR_WRITE, p.dma_word, s, 0)
        else:
            word_ptr(n, a, rg)[0] = p.dma_word
            invalidate_code(n, a)
        p.dma_dst = dma_step(a, p.dma_gcr, DMA_INCDST, DMA_DECDST)
        p.dma_phase = 0
        p.dma_words += 1
    p.dma_wait = 0
    p.dma_synced = 0
    p.dma_acc += 1
    p.dma_lost += p.dma_lost_next
    p.dma_ring_wait += ring_w
    p.dma_t = s + 1 + n.wait[rg]
    r = resource_of(rg)
    p.dma_from[r] = s
    p.dma_hold[r] = p.dma_t
    if pri == 3 and p.cpu_from[r] <= s < p.cpu_hold[r]:
        # DMA first: the access took the resource while the last instruction
        # used it; that instruction's accesses were pushed back, and the CPU
        # pays it before its next instruction (periph_cpu_wait)
        w2 = p.dma_t - s if p.dma_t - s < p.cpu_hold[r] - s else p.cpu_hold[r] - s
        p.cpu_debt += w2
        p.cpu_hold[r] += w2
    if p.dma_phase == 0:
        if p.dma_cnt == 0:
            # the transfer that brought the counter to 0 is complete (guide 12.3.3, TC, TCINT)
            if p.dma_gcr & DMA_TCINT:
                n.r[RAP_REG_IF] |= 1u << IF_DINT
                p.flag_t = p.dma_t
            if p.dma_gcr & DMA_TC:
                p.dma_run = 0
        if p.dma_halt:          # START = 10 was written mid-transfer: halt now
            p.dma_run = 0
            p.dma_halt = 0
        if not p.dma_run:
            periph_update_on(n)
    return 0


cdef inline void dma_take_sync(Node* n) noexcept nogil:
    """The access about to start consumes the lowest DMA-enabled flag."""
    cdef uint32_t f = dma_sync_flags(n)
    n.r[RAP_REG_IF] &= ~(f & (~f + 1))


cdef void dma_write_gcr(Node* n, uint32_t v, int64_t t) noexcept nogil:
    """A CPU write of the DMA global control (guide 12.3.3, START)."""
    cdef Periph* p = &n.p
    cdef uint32_t start = v & DMA_START
    p.dma_gcr = v & DMA_GCR_WRITABLE
    p.dma_halt = 0
    if start == 0:                      # reset: a word read and not written is lost
        p.dma_run = 0
        p.dma_phase = 0
    elif start == 1:                    # halt at the next read or write boundary
        p.dma_run = 0
    elif start == 2:                    # halt at the next transfer boundary
        if p.dma_run and p.dma_phase == 1:
            p.dma_halt = 1
        else:
            p.dma_run = 0
    elif not p.dma_run:                 # start, or restart where it was held
        if p.dma_phase == 0 and (v & DMA_TC) and p.dma_cnt == 0:
            pass                        # TC with a zero counter: nothing to move
        else:
            p.dma_run = 1
            p.dma_t = t + 1
            if p.flag_t < t:
                p.flag_t = t
    periph_update_on(n)


# --- the register file ------------------------------------------------------------

cdef uint32_t periph_read(Node* n, uint32_t a, int64_t t) noexcept nogil:
    """A CPU read of a peripheral register (checked by periph_register)."""
    cdef Periph* p = &n.p
    cdef uint32_t stat
    cdef int k
    if a == RAP_DMA_GCR:
        stat = 3 if p.dma_run else p.dma_phase
        return (p.dma_gcr & ~(<uint32_t>DMA_STAT_MASK)) | (stat << 2)
    if a == RAP_DMA_SRC:
        return p.dma_src
    if a == RAP_DMA_DST:
        return p.dma_dst
    if a == RAP_DMA_CNT:
        return p.dma_cnt
    k = 0 if a < RAP_TIMER1_BASE else 1
    if (a & 0xF) == 0:
        return p.tim_gcr[k]
    if (a & 0xF) == 4:
        return timer_value(p, k, t)
    return p.tim_prd[k]


cdef void periph_write(Node* n, uint32_t a, uint32_t v, int64_t t) noexcept nogil:
    """A CPU write of a peripheral register at cycle t."""
    cdef Periph* p = &n.p
    if a == RAP_DMA_GCR:
        dma_write_gcr(n, v, t)
    elif a == RAP_DMA_SRC:
        p.dma_src = v & 0xFFFFFF
    elif a == RAP_DMA_DST:
        p.dma_dst = v & 0xFFFFFF
    elif a == RAP_DMA_CNT:
        p.dma_cnt = v & 0xFFFFFF
    else:
        timer_write(n, 0 if a < RAP_TIMER1_BASE else 1, a & 0xF, v, t)


# --- the node's clock -------------------------------------------------------------

cdef int periph_catch_up(Node* n, int64_t T) noexcept nogil:
    """Process, in time order, every timer event and DMA access that starts
    before cycle T.  0, a ring wait status or ST_ERROR."""
    cdef Periph* p = &n.p
    cdef int64_t te, td
    cdef int st, blocked = 0, deferred = 0
    if n.r[RAP_REG_IF] & ~p.if_known:
        # flags the CPU set since the last catch-up: there from its cycle on
        if p.flag_t < p.caught:
            p.flag_t = p.caught
    while True:
        te = p.tim_next[0] if p.tim_next[0] < p.tim_next[1] else p.tim_next[1]
        td = T_NEVER if blocked or deferred else dma_start(n)
        if td < T and td <= te:
            if dma_needs_sync(p) and not p.dma_synced:
                dma_take_sync(n)
                p.dma_synced = 1
            st = dma_access(n, td, T)
            if st == ST_ERROR:
                return st
            if st == DMA_DEFER:
                deferred = 1
            elif st:
                blocked = st            # the timers go on
            continue
        if te < T:
            timer_event(n, 0 if p.tim_next[0] == te else 1)
            continue
        break
    if blocked:
        return blocked
    if not deferred and td < T_NEVER and p.dma_lost_next > 0 and p.dma_t < T:
        # the CPU holds the resource of the next access up to T or later: it
        # cannot start before T (and the wait so far is counted now)
        p.dma_lost += T - (td - p.dma_lost_next)
        p.dma_t = T
    p.caught = T
    p.if_known = n.r[RAP_REG_IF]
    return 0


cdef int periph_can_wake(Node* n) noexcept nogil:
    """Could a peripheral ever raise an interrupt IE enables for the CPU (IDLE)?
    A counting timer with its TINT enabled, or a running DMA transfer with
    TCINT and DINT enabled."""
    cdef Periph* p = &n.p
    cdef uint32_t ie = n.r[RAP_REG_IE]
    cdef int k
    for k in range(2):
        if p.tim_run[k] and (ie >> (IF_TINT0 + k)) & 1:
            return 1
    return p.dma_run and (p.dma_gcr & DMA_TCINT) != 0 and (ie >> IF_DINT) & 1


cdef int periph_before(Node* n) noexcept nogil:
    """Before an instruction: catch the peripherals up to the node's cycle; in
    IDLE, move the clock to the next peripheral event.  0 (go on with the
    instruction or the interrupt), PERIPH_NO_INSTRUCTION (still in IDLE), a
    ring wait status, ST_ERROR or ST_IDLE (nothing can wake it any more)."""
    cdef Periph* p = &n.p
    cdef int64_t tn, td, horizon = T_NEVER
    cdef int st = periph_catch_up(n, n.cycle)
    if st == ST_ERROR:
        return st
    if st:
        # the DMA waits for a ring word or room that another node's future
        # access decides, not before that node's lower bound: an instruction
        # at or before it cannot see the outcome and goes on
        horizon = dma_ring_horizon(n, st)
        if n.cycle > horizon:
            n.status = st
            n.wait_t = p.dma_wait_t
            n.wait_reads = p.dma_wait_reads
            return st
    if not p.idle:
        return 0
    if n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & IF_CPU_MASK:
        p.idle = 0                      # woken: the interrupt is taken now (guide 7.6, IDLE)
        periph_update_on(n)
        return 0
    if not periph_can_wake(n):
        p.idle = 0
        periph_update_on(n)
        n.status = ST_IDLE
        return ST_IDLE
    tn = p.tim_next[0] if p.tim_next[0] < p.tim_next[1] else p.tim_next[1]
    td = horizon if st else dma_start(n)
    if td < tn:
        tn = td
    if tn >= T_NEVER:
        p.idle = 0
        periph_update_on(n)
        n.status = ST_IDLE
        return ST_IDLE
    if tn + 1 > n.cycle:
        p.idle_cycles += tn + 1 - n.cycle
        n.cycle = tn + 1
    return PERIPH_NO_INSTRUCTION


cdef int periph_cpu_wait(Node* n, Decoded* d, int* rgs, int fetch_rg, int64_t t,
                         int64_t* delay) noexcept nogil:
    """Cycles an instruction issuing at t waits for DMA accesses in progress
    at t holding the resources it needs: its fetch and its memory operands (an on-chip block
    only when it takes both ports).  With DMA priority the DMA's accesses
    that start at t go first.  0, or a ring wait status / ST_ERROR from the
    DMA."""
    cdef Periph* p = &n.p
    cdef int64_t w = 0
    cdef int k, i, r, st
    cdef int blk[2]
    if ((p.dma_gcr >> DMA_PRI_SHIFT) & 3) == 3:
        st = periph_catch_up(n, t + 1)
        if st:
            return st
    blk[0] = 0
    blk[1] = 0
    if fetch_rg != RG_NONE:
        r = resource_of(fetch_rg)
        if r >= RS_RAM0:
            blk[r - RS_RAM0] += 1
        elif p.dma_from[r] <= t and p.dma_hold[r] - t > w:
            w = p.dma_hold[r] - t
    if d.access:
        for k in range(d.naddr):
            i = d.addr_op[k]
            r = resource_of(rgs[i])
            if r >= RS_RAM0:
                blk[r - RS_RAM0] += 1
            elif p.dma_from[r] <= t and p.dma_hold[r] - t > w:
                w = p.dma_hold[r] - t
    for k in range(2):
        if blk[k] >= 2 and p.dma_from[RS_RAM0 + k] <= t and p.dma_hold[RS_RAM0 + k] - t > w:
            w = p.dma_hold[RS_RAM0 + k] - t
    delay[0] = w + p.cpu_debt
    p.cpu_debt = 0
    return 0


cdef void periph_note_cpu(Node* n, Acc* a, int64_t t) noexcept nogil:
    """After an instruction that issued at t: until when its accesses hold
    each resource (the DMA waits for them with CPU priority); a resource the
    instruction does not use is not held (T_PAST)."""
    cdef Periph* p = &n.p
    cdef int u[NRES]
    cdef int r
    u[RS_PRIMARY] = a.bus_n[BUS_PRIMARY] + a.bus_wait[BUS_PRIMARY]
    u[RS_EXPANSION] = a.bus_n[BUS_EXPANSION] + a.bus_wait[BUS_EXPANSION]
    u[RS_PERIPH] = a.bus_n[BUS_PERIPH]
    u[RS_RAM0] = a.blk_n[0] >> 1        # one access leaves a port free for the DMA
    u[RS_RAM1] = a.blk_n[1] >> 1
    for r in range(NRES):
        p.cpu_from[r] = t
        p.cpu_hold[r] = t + u[r] if u[r] else T_PAST


cdef int dma_ring_clash(Node* n, int reads, int writes) noexcept nogil:
    """Does the CPU use RING_DATA in a direction a running DMA transfer streams
    in (its source or destination fixed at RING_DATA)?  The model keeps each
    direction of the ring to one master at a time."""
    cdef Periph* p = &n.p
    cdef int fixed_src, fixed_dst
    if not p.dma_run:
        return 0
    fixed_src = p.dma_src == RAP_RING_DATA and \
        ((p.dma_gcr & DMA_INCSRC) != 0) == ((p.dma_gcr & DMA_DECSRC) != 0)
    fixed_dst = p.dma_dst == RAP_RING_DATA and \
        ((p.dma_gcr & DMA_INCDST) != 0) == ((p.dma_gcr & DMA_DECDST) != 0)
    return (reads and fixed_src) or (writes and (fixed_dst or (fixed_src and n.fwd_count > 0)))


cdef inline int64_t dma_ring_horizon(Node* n, int status) noexcept nogil:
    """The earliest cycle a blocked DMA ring access can happen at: a word
    comes one hop after the upstream node's next write, room after the
    downstream node's next read (their lower bounds, schedule.pxi)."""
    if status == ST_RING_READ:
        return n.up.lb + n.rin.latency
    return n.down.lb


cdef int periph_background(Node* n, int status) noexcept nogil:
    """The CPU waits for the ring (status): the DMA channel and the timers go
    on, up to the earliest cycle the CPU could go on (a word read needs the
    upstream node's write; room to write needs the downstream node's read:
    their lower bounds, schedule.pxi).  0 or ST_ERROR."""
    cdef int64_t B
    if status == ST_RING_READ:
        B = i64max(n.cycle, n.up.lb + n.rin.latency)
    elif status == ST_RING_WRITE:
        B = i64max(n.cycle, n.down.lb)
    else:
        return 0
    if periph_catch_up(n, B) == ST_ERROR:
        return ST_ERROR
    n.p.dma_wait = 0                    # the node waits for its CPU's access
    return 0


cdef inline int64_t periph_lb(Node* n, int64_t b) noexcept nogil:
    """A node's lower bound b on the cycle of its next ring-data access, made
    to hold for its DMA channel too: the channel is caught up only before
    each instruction, so its next access may lie before the node's cycle."""
    if n.periph_on and n.p.dma_run and n.p.dma_t < b:
        return n.p.dma_t
    return b
