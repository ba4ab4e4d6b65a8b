# Instrumentation of a node: the instruction trace, breakpoints and
# watchpoints of the kernel writer's tools (rapsim.trace, rapsim.debugger).
#
# A node is instrumented when Node.probe points at a Probe (Machine.probe_*
# in _sim.pyx); run_node() (schedule.pxi) then runs it through
# run_node_probed() below instead of its own loop.  The check is made once
# per call of run_node, not per instruction, so an uninstrumented machine
# runs exactly the code it ran before (benchmarks/bench_sim.py measures it).
#
# probed_step() wraps step() (execute.pxi) without changing it: before the
# instruction it notes the registers, the stall counters and the effective
# addresses of the memory operands (ind_address() is a pure function of the
# registers), after it the registers that changed, the stall cycles by
# cause, the values stored and the ring words moved.  Records go to a C
# buffer per node; when it is full the run yields (EV_YIELD) and the Python
# side drains it (Machine.probe_drain).

cdef enum:
    TR_MAXREG = 8           # registers one record lists (an instruction writes at most 6)
    TR_MAXMEM = 4           # memory accesses one record lists (2 operands, a stack word, a forward)
    PROBE_MAXBREAK = 64
    PROBE_MAXWATCH = 16
    # TraceRec.mkind: bit 0 = write; bits 7-4 = the region (RG_*)
    MK_WRITE = 1
    # Probe.hit
    HIT_NONE = 0
    HIT_BREAK = 1
    HIT_WATCH_MEM = 2
    HIT_WATCH_REG = 3
    HIT_FULL = 4            # the trace buffer has only Probe.reserve slots left (drain
                            # and go on): a step starts with them, for the DMA ring records
                            # of its time and its own (DMA_RESERVE: at most two words in
                            # each latch, read, forwarded or written, move in one step)
    DMA_RESERVE = 8
    # TraceRec.kind: what the record is (the peripherals' events have no instruction)
    RK_INSTR = 0            # an executed instruction
    RK_INTERRUPT = 1        # an interrupt taken (guide 7.6): PC pushed, GIE cleared, vector
    RK_IDLE = 2             # cycles asleep in IDLE until a peripheral's interrupt
    RK_DMA_RING = 3         # a ring word the DMA channel read, wrote or forwarded (at cycle)
    # probe_dma_ring(): what the channel did with RING_DATA
    DR_READ = 0
    DR_WRITE = 1
    DR_FORWARD = 2
    # TraceRec.stall[]: the core's causes (SC_*), then two of the peripherals'
    TC_DMA = NSTALL         # the CPU waited for a DMA access holding a resource
    TC_IDLE = NSTALL + 1    # asleep in IDLE (RK_IDLE records)
    NTRACE_CAUSE = NSTALL + 2


cdef packed struct TraceRec:
    int64_t cycle           # the node's clock when the instruction started (decode)
    int64_t t_exec          # the cycle it executed (after register-conflict and ring waits)
    int64_t end             # the node's clock after it
    uint32_t pc
    uint32_t word
    int32_t node
    uint8_t status          # the node's status after it (ST_HOSTCALL: it wrote HOST_CALL)
    uint8_t nreg
    uint8_t nmem
    uint8_t rpts            # 1: a repetition of RPTS (not fetched again)
    uint8_t kind            # RK_*
    uint8_t irq             # RK_INTERRUPT: the IF bit taken
    uint32_t dma_words      # words the node's DMA channel wrote during it (guide 12.3)
    uint32_t stall[9]       # stall cycles it caused, by cause (SC_*, TC_DMA, TC_IDLE)
    uint8_t reg[8]          # registers written (numbers) ...
    int8_t rexp[8]          # ... with their new value (R0-R7: exponent, bits 39-32)
    uint32_t regval[8]
    uint8_t mkind[4]        # memory accesses: MK_WRITE | region << 4
    uint32_t maddr[4]
    uint32_t mval[4]
    int64_t mtime[4]        # ring-data reads: the cycle the word entered the input latch


cdef struct Probe:
    int trace               # record instructions
    int64_t t_from          # ... that start in [t_from, t_to)
    int64_t t_to
    TraceRec* buf
    int cap
    int len
    int reserve             # slots kept free at the start of a step (HIT_FULL)
    int nbreak
    uint32_t breaks[64]
    uint32_t skip_pc        # resuming from a breakpoint at this PC: do not stop there at once
    int skip
    int nwatch
    uint32_t waddr[16]
    uint32_t wval[16]
    uint32_t wregs          # bit r: register r is watched
    int hit                 # HIT_*
    uint32_t hit_addr       # breakpoint PC, watched address or register number
    uint32_t hit_old
    uint32_t hit_new
    uint32_t hit_pc         # PC of the instruction that changed a watched value
    uint32_t last_pc        # PC of the node's last executed instruction (an IDLE's, for RK_IDLE)
    uint64_t dma_seen       # the node's DMA word count at its last record
    uint64_t dma_forwards   # ring words the DMA channel forwarded (not the CPU's)
    uint64_t dropped        # DMA ring records that found the buffer full (lost)


# The instrumented path calls step() and is called by run_node() through
# function pointers: the C compiler then optimises step() and run_node() for
# the plain loop exactly as it did before this path existed (measured:
# direct calls cost the plain loop 5-10 %).
ctypedef int (*run_fn)(Node*, int64_t, int64_t*) noexcept nogil


cdef inline Decoded* next_instruction(Node* n, Decoded* tmp) noexcept nogil:
    """The instruction step() will execute next (NULL: a fetch error).  The
    decode cache is only looked at (a new decode goes to tmp): calling
    decoded_at() from here would make the compiler stop inlining it into
    step() (measured: 5 % of the plain loop)."""
    cdef Decoded* page
    cdef int rg
    if n.pend_valid:
        return &n.pend_ins
    if n.rpts == 2:
        return &n.rpts_ins
    rg = region_of(n, n.pc)
    if rg >= RG_RINGIO:
        return NULL
    page = n.dcache[n.pc >> DPAGE_BITS]
    if page != NULL and page[n.pc & (DPAGE_WORDS - 1)].valid:
        return &page[n.pc & (DPAGE_WORDS - 1)]
    tmp.valid = 0
    decode_word(word_ptr(n, n.pc, rg)[0], tmp)
    return tmp


cdef inline uint32_t ringio_value(Node* n, uint32_t a) noexcept nogil:
    if a == RAP_RING_DATA:
        return n.rin.data[n.rin.head] if n.rin.count > 0 else 0
    if a == RAP_NODE_ID:
        return n.node_id
    if a == RAP_NODE_COUNT:
        return n.node_count
    if a == RAP_RING_FWD:
        return n.fwd_count
    if a == RAP_HOST_CALL:
        return n.hostcall_addr
    return 0


cdef inline uint32_t mem_value(Node* n, uint32_t a, int rg) noexcept nogil:
    cdef uint32_t* p = word_ptr(n, a, rg)
    return p[0] if p != NULL else 0


cdef inline void add_access(TraceRec* r, int kind, uint32_t a, uint32_t v, int64_t mt) noexcept nogil:
    if r.nmem < TR_MAXMEM:
        r.mkind[r.nmem] = kind
        r.maddr[r.nmem] = a
        r.mval[r.nmem] = v
        r.mtime[r.nmem] = mt
        r.nmem += 1


cdef uint64_t NO_SNAPSHOT = ~(<uint64_t>0)


cdef inline int interrupt_taken(Node* n, uint64_t* ints0) noexcept nogil:
    """The IF bit of the interrupt the last step() took (-1: none; ints0[8]
    all ones: no snapshot was taken, none could be)."""
    cdef int k
    if ints0[8] == NO_SNAPSHOT:
        return -1
    for k in range(11):
        if n.p.ints[k] != ints0[k]:
            return k
    return -1


cdef inline void fill_registers(TraceRec* r, Node* n, uint32_t* r0, int32_t* e0) noexcept nogil:
    """The registers whose value changed, with their new value."""
    cdef int k
    r.nreg = 0
    for k in range(RAP_NUM_REGISTERS):
        if n.r[k] != r0[k] or (k < 8 and n.rexp[k] != e0[k]):
            if r.nreg < TR_MAXREG:
                r.reg[r.nreg] = k
                r.regval[r.nreg] = n.r[k]
                r.rexp[r.nreg] = n.rexp[k] if k < 8 else 0
                r.nreg += 1


cdef inline int peripheral_event(Node* n, Probe* p, TraceRec* r, int64_t c0, uint32_t pc,
                                 uint32_t* r0, int32_t* e0, uint64_t* s0, uint64_t* ints0,
                                 uint64_t idle0, int rec_on) noexcept nogil:
    """A step that executed no instruction but took an interrupt or slept in
    IDLE: its record (RK_INTERRUPT, RK_IDLE) in r; 0 if it was neither (a
    ring wait, an error) or an IDLE sleep merged into the record before."""
    cdef int b = interrupt_taken(n, ints0)
    cdef int k
    cdef uint32_t a
    cdef TraceRec* last
    if b < 0 and n.p.idle_cycles == idle0:
        return 0
    memset(r, 0, sizeof(TraceRec))
    if b < 0:
        if rec_on and p.len > 0:
            last = &p.buf[p.len - 1]
            if last.kind == RK_IDLE and last.end == c0:
                last.stall[TC_IDLE] += <uint32_t>(n.p.idle_cycles - idle0)
                last.end = n.cycle
                return 0
        r.kind = RK_IDLE
        r.pc = p.last_pc
        r.stall[TC_IDLE] = <uint32_t>(n.p.idle_cycles - idle0)
    else:
        # guide 7.6: PC pushed on the stack, the vector word read
        r.kind = RK_INTERRUPT
        r.irq = b
        r.pc = pc
        a = n.r[RAP_REG_SP] & 0xFFFFFF
        add_access(r, MK_WRITE | (region_of(n, a) << 4), a, mem_value(n, a, region_of(n, a)), 0)
        add_access(r, region_of(n, b + 1) << 4, b + 1, mem_value(n, b + 1, region_of(n, b + 1)), 0)
        for k in range(NSTALL):
            r.stall[k] = <uint32_t>(n.stall[k] - s0[k])
    r.word = 0
    r.cycle = c0
    r.t_exec = c0
    r.end = n.cycle
    r.node = n.node_id
    r.status = n.status
    fill_registers(r, n, r0, e0)
    return 1


cdef void probe_dma_ring(Node* n, int what, uint32_t v, int64_t t, int64_t mt) noexcept nogil:
    """Called by the DMA channel (periph.pxi, dma_access) of an instrumented
    node for each ring word it moves: a RK_DMA_RING record at the access's
    cycle t (mt: a read word's cycle in the input latch).  The record goes
    before the record of the instruction in progress, and leaves it a slot."""
    cdef Probe* p = <Probe*>n.probe
    cdef TraceRec* r
    if what == DR_FORWARD:
        p.dma_forwards += 1
    if not p.trace or not (p.t_from <= t < p.t_to):
        return
    if p.len + 1 >= p.cap:
        p.dropped += 1
        return
    r = &p.buf[p.len]
    memset(r, 0, sizeof(TraceRec))
    r.kind = RK_DMA_RING
    r.cycle = t
    r.t_exec = t
    r.end = t
    r.pc = n.pc
    r.node = n.node_id
    r.status = n.status
    add_access(r, (MK_WRITE if what != DR_READ else 0) | (RG_RINGIO << 4), RAP_RING_DATA, v, mt)
    p.len += 1
    if p.len + p.reserve >= p.cap:
        p.hit = HIT_FULL


cdef int probed_step(Node* n, Probe* p) noexcept nogil:
    """step() with the instruction's record (when tracing) and watchpoints."""
    cdef uint32_t r0[32]
    cdef int32_t e0[8]
    cdef uint64_t s0[7]
    cdef uint64_t ints0[11]
    cdef uint64_t ins0 = n.instret, fwd0 = n.ring_forwarded, dfwd0 = p.dma_forwards
    cdef uint64_t idle0 = n.p.idle_cycles, lost0 = n.p.cpu_lost
    cdef int64_t c0 = n.cycle
    cdef Decoded dtmp
    cdef Decoded* d = next_instruction(n, &dtmp)
    cdef TraceRec rec
    cdef TraceRec* r = &rec
    cdef Opnd* o
    cdef uint32_t pc = n.rpts_pc if (n.rpts == 2) else n.pc
    cdef uint32_t a, nar, sp0
    cdef int i, k, rg, st, stack = 0, rec_on
    cdef int rep = n.rpts == 2
    memcpy(r0, n.r, sizeof(r0))
    memcpy(e0, n.rexp, sizeof(e0))
    memcpy(s0, n.stall, sizeof(s0))
    # an interrupt can only be taken with one pending, or set by the
    # peripherals while they catch up: only then is the count looked at
    ints0[8] = NO_SNAPSHOT              # (no snapshot: interrupt_taken finds none)
    if n.periph_on or (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF):
        memcpy(ints0, n.p.ints, sizeof(ints0))
    sp0 = n.r[RAP_REG_SP]
    rec_on = p.trace and p.t_from <= c0 < p.t_to and p.len < p.cap
    # (the DMA's ring records during step() leave this record its slot)
    if rec_on:
        # (the fields set after the instruction are not cleared here)
        r.nmem = 0
        r.kind = RK_INSTR
        r.irq = 0
        r.stall[TC_IDLE] = 0
        if d != NULL and d.valid == 1 and d.access:
            for k in range(d.naddr):
                i = d.addr_op[k]
                o = &d.o[i]
                if o.kind == RAP_K_DIR:
                    a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
                else:
                    a = ind_address(n, o, &nar)
                rg = region_of(n, a)
                if (d.addr_w >> k) & 1:
                    add_access(r, MK_WRITE | (rg << 4), a, 0, 0)
                elif rg == RG_RINGIO:
                    add_access(r, rg << 4, a, ringio_value(n, a),
                               n.rin.mtime[n.rin.head] if a == RAP_RING_DATA else 0)
                else:
                    add_access(r, rg << 4, a, mem_value(n, a, rg), 0)   # RG_PERIPH: after it
        if d != NULL and d.valid == 1:
            stack = d.op == RAP_OP_PUSH or d.op == RAP_OP_PUSHF or d.op == RAP_OP_POP \
                or d.op == RAP_OP_POPF or d.timing == RAP_T_CALL or d.timing == RAP_T_CALLC \
                or d.timing == RAP_T_RETS or d.timing == RAP_T_RETI or d.timing == RAP_T_TRAP
    step(n)             # (its return value unused, as in run_node: the compiler drops it)
    st = n.status
    if n.instret == ins0:
        # nothing executed: a ring wait, an error, or (only with the on-chip
        # peripherals running) an interrupt taken or a sleep in IDLE
        if n.cycle == c0 or not peripheral_event(n, p, r, c0, pc, r0, e0, s0, ints0, idle0, rec_on):
            return st
        if rec_on:
            r.dma_words = <uint32_t>(n.p.dma_words - p.dma_seen)
            p.dma_seen = n.p.dma_words
            p.buf[p.len] = rec
            p.len += 1
            if p.len + p.reserve >= p.cap:
                p.hit = HIT_FULL
        if r.kind == RK_IDLE:
            return st
    else:
        p.last_pc = pc
    if rec_on and r.kind == RK_INSTR:
        r.cycle = c0
        r.end = n.cycle
        r.pc = pc
        r.word = d.word if d != NULL else 0
        r.node = n.node_id
        r.status = st
        r.rpts = rep
        for k in range(NSTALL):
            r.stall[k] = <uint32_t>(n.stall[k] - s0[k])
        r.stall[TC_DMA] = <uint32_t>(n.p.cpu_lost - lost0)
        r.dma_words = <uint32_t>(n.p.dma_words - p.dma_seen)
        p.dma_seen = n.p.dma_words
        # executed after the register-conflict, ring and DMA waits
        r.t_exec = c0 + r.stall[SC_REGCONF] + r.stall[SC_RING_READ] + r.stall[SC_RING_WRITE] \
            + r.stall[TC_DMA]
        for k in range(r.nmem):
            a = r.maddr[k]
            rg = r.mkind[k] >> 4
            if rg == RG_PERIPH:
                # a peripheral register as it reads now (after a write: read back)
                r.mval[k] = periph_read(n, a, r.t_exec)
            elif r.mkind[k] & MK_WRITE:
                if rg == RG_RINGIO:
                    if a == RAP_RING_DATA:
                        r.mval[k] = n.rout.data[(n.rout.head + n.rout.count - 1) & 3]
                    else:
                        r.mval[k] = ringio_value(n, a)
                else:
                    r.mval[k] = mem_value(n, a, rg)
        if n.ring_forwarded - fwd0 != p.dma_forwards - dfwd0:      # the CPU forwarded
            add_access(r, MK_WRITE | (RG_RINGIO << 4), RAP_RING_DATA,
                       n.rout.data[(n.rout.head + n.rout.count - 1) & 3], 0)
        if stack and n.r[RAP_REG_SP] != sp0:
            a = n.r[RAP_REG_SP] & 0xFFFFFF
            if ((n.r[RAP_REG_SP] - sp0) & 0xFFFFFF) == 1:
                add_access(r, MK_WRITE | (region_of(n, a) << 4), a,
                           mem_value(n, a, region_of(n, a)), 0)
            else:
                a = sp0 & 0xFFFFFF
                add_access(r, region_of(n, a) << 4, a, mem_value(n, a, region_of(n, a)), 0)
        fill_registers(r, n, r0, e0)
        p.buf[p.len] = rec
        p.len += 1
        if p.len + p.reserve >= p.cap:
            p.hit = HIT_FULL
    # watchpoints: a watched word or register that this instruction (or
    # interrupt) changed
    for k in range(p.nwatch):
        a = p.waddr[k]
        rg = region_of(n, a)
        if rg < RG_RINGIO and mem_value(n, a, rg) != p.wval[k]:
            p.hit = HIT_WATCH_MEM
            p.hit_addr = a
            p.hit_old = p.wval[k]
            p.hit_new = mem_value(n, a, rg)
            p.hit_pc = pc
            p.wval[k] = p.hit_new
            return st
    if p.wregs:
        for k in range(RAP_NUM_REGISTERS):
            if (p.wregs >> k) & 1 and n.r[k] != r0[k]:
                p.hit = HIT_WATCH_REG
                p.hit_addr = k
                p.hit_old = r0[k]
                p.hit_new = n.r[k]
                p.hit_pc = pc
                return st
    return st


cdef inline int at_breakpoint(Node* n, Probe* p) noexcept nogil:
    """Is the node about to fetch an instruction at a breakpoint?"""
    cdef int k
    if p.nbreak == 0 or n.pend_valid or n.rpts == 2:
        return 0
    if p.skip and p.skip_pc == n.pc:
        return 0
    for k in range(p.nbreak):
        if p.breaks[k] == n.pc:
            return 1
    return 0


cdef int run_node_probed(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """run_node() for an instrumented node: stops (the run yields, the node
    still running) at a breakpoint, a watchpoint or a full trace buffer."""
    cdef Probe* p = <Probe*>n.probe
    while n.status == ST_RUNNING:
        if n.cycle >= limit or budget[0] <= 0:
            break
        if at_breakpoint(n, p):
            p.hit = HIT_BREAK
            p.hit_addr = n.pc
            budget[0] = 0
            break
        budget[0] -= 1
        probed_step(n, p)
        p.skip = 0
        if p.hit != HIT_NONE:
            budget[0] = 0
            break
    if n.status != ST_RING_SYNC:
        n.lb = n.cycle
    return n.status


cdef run_fn probed_runner = run_node_probed
