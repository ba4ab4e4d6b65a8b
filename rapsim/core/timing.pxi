# The timing rules of a node: every cycle count of the model is here.
#
# An instruction takes   max(base, memory occupancy) + register-conflict stall
#                        + ring stall (+ host-call time, charged by the daemon)
#
#  * base: the cycles of its class when nothing conflicts (guide 7.1.3 and the
#    "Cycles" entry of each instruction page in chapter 13): 1 for ordinary
#    instructions; 4 for standard branches (taken or not: the pipeline is
#    flushed), DBcond, CALL, RETScond, RETIcond, RPTS and RPTB set-up; 5 for
#    CALLcond and TRAPcond; 1 for delayed branches (their 3 slots execute
#    normally).  Cycles beyond 1 are counted as "branch" stalls.
#  * memory occupancy (guide 8.2.3, 9.x; model of RAP-REFERENCE.md): each
#    external bus (primary: SRAM and DRAM; expansion: the ring registers)
#    serves one access per cycle and an access with w wait states holds it
#    1 + w cycles; each on-chip RAM block serves two accesses per cycle.  The
#    accesses of an instruction are its program fetch (unless the instruction
#    cache serves it or RPTS repeats it; a fetch from on-chip RAM uses its
#    block) and its data reads and writes (stack and vector accesses of calls,
#    returns and traps included).  Occupancy is the largest over the buses; the cycles
#    beyond the base are counted as "memory wait" (wait states) and "bus
#    conflict" (extra accesses) stalls.
#  * register conflicts (guide 8.2.2): registers form three groups (AR0-AR7
#    with IR0, IR1 and BK; DP; SP).  An instruction that writes a register of
#    a group in its execute phase keeps the decode of the next two
#    instructions from using that group for addressing: the next one waits 2
#    cycles, the one after it 1.  Address-register updates made by indirect
#    addressing itself happen in decode and cause no conflict.
#  * ring: a read of RING_DATA waits until a word is in the input latch, a
#    write until the output latch is free (ring.pxi).
#  * on-chip peripherals (periph.pxi): the peripheral bus serves one access
#    per cycle, no wait states; the DMA channel competes with the CPU for the
#    buses and the on-chip blocks (the CPU first, guide 12.3.6): the cycles
#    an instruction waits for a DMA access in progress are charged by
#    periph.pxi (counter "cpu_lost_to_dma").

cdef inline int base_cycles(int timing) noexcept nogil:
    if timing == RAP_T_STD or timing == RAP_T_BRANCH_D or timing == RAP_T_DB_D \
            or timing == RAP_T_INTERLOCK or timing == RAP_T_IDLE or timing == RAP_T_SWI:
        return 1
    if timing == RAP_T_CALLC or timing == RAP_T_TRAP:
        return 5
    return 4            # BRANCH, DB, CALL, RETS, RETI, RPTS, RPTB


cdef enum:
    CONFLICT_WINDOW = 2     # decode of the next instruction waits this long after a group write
    INTERRUPT_CYCLES = 4    # taking an interrupt: a pipeline flush like a trap's call
    BUS_PRIMARY = 0
    BUS_EXPANSION = 1
    BUS_PERIPH = 2          # the peripheral bus (DMA and timer registers, periph.pxi)


cdef struct Acc:
    # accesses of one instruction, for its memory occupancy
    int bus_n[3]            # accesses on the primary, expansion and peripheral buses
    int bus_wait[3]         # wait-state cycles on them
    int blk_n[2]            # accesses to on-chip RAM blocks 0 and 1
    int beyond              # the accesses may take more than one cycle (acc_cycles' common case fails)


cdef inline void acc_clear(Acc* a) noexcept nogil:
    a.bus_n[0] = 0
    a.bus_n[1] = 0
    a.bus_wait[0] = 0
    a.bus_wait[1] = 0
    a.bus_n[2] = 0
    a.bus_wait[2] = 0
    a.blk_n[0] = 0
    a.blk_n[1] = 0
    a.beyond = 0


cdef inline void acc_add(Node* n, Acc* a, int region) noexcept nogil:
    """Count one access to a region in the instruction's occupancy.  (Acc.beyond
    notes when the accesses so far exceed what one cycle serves -- one
    zero-wait access per bus, two per on-chip block: the counts only grow,
    so acc_cycles() then needs the full count, and otherwise is 1.)"""
    if region == RG_SRAM or region == RG_DRAM:
        a.bus_n[BUS_PRIMARY] += 1
        a.bus_wait[BUS_PRIMARY] += n.wait[region]
        if a.bus_n[BUS_PRIMARY] + a.bus_wait[BUS_PRIMARY] > 1:
            a.beyond = 1
    elif region == RG_RINGIO:
        a.bus_n[BUS_EXPANSION] += 1
        a.bus_wait[BUS_EXPANSION] += n.wait[region]
        if a.bus_n[BUS_EXPANSION] + a.bus_wait[BUS_EXPANSION] > 1:
            a.beyond = 1
    elif region == RG_RAM0:
        a.blk_n[0] += 1
        if a.blk_n[0] > 2:
            a.beyond = 1
    elif region == RG_RAM1:
        a.blk_n[1] += 1
        if a.blk_n[1] > 2:
            a.beyond = 1
    elif region == RG_PERIPH:
        a.bus_n[BUS_PERIPH] += 1
        if a.bus_n[BUS_PERIPH] > 1:
            a.beyond = 1


cdef inline int acc_cycles(Acc* a, int* wait_part, int* conflict_part) noexcept nogil:
    """Memory occupancy of the instruction (cycles, at least 1); the cycles
    beyond one split into wait-state and bus-conflict parts."""
    cdef int best = 1, w = 0, c = 0, occ, b
    if not a.beyond:
        wait_part[0] = 0            # the common case: nothing beyond one cycle
        conflict_part[0] = 0
        return 1
    for b in range(3):
        if a.bus_n[b]:
            occ = a.bus_n[b] + a.bus_wait[b]
            if occ > best:
                best = occ
                w = a.bus_wait[b]
                c = a.bus_n[b] - 1
    for b in range(2):
        occ = (a.blk_n[b] + 1) >> 1
        if occ > best:
            best = occ
            w = 0
            c = occ - 1
    wait_part[0] = w
    conflict_part[0] = c
    return best


cdef inline void charge_cycles(Node* n, int64_t t, int base, int occ, int wait_part) noexcept nogil:
    """Charge an instruction whose accesses start at cycle t: it takes
    max(base, occ) cycles; the cycles of its class beyond one are "branch"
    stalls, the occupancy beyond the base "memory wait" (up to wait_part, the
    wait states) and "bus conflict" stalls.  Shared by retire() (occ from
    acc_cycles) and the fast path's fetch-only instructions (fast.pxi)."""
    cdef int extra = occ - base, ew
    if base > 1:
        n.stall[SC_BRANCH] += base - 1
    if extra > 0:
        ew = wait_part if wait_part < extra else extra
        n.stall[SC_MEMWAIT] += ew
        n.stall[SC_BUSCONF] += extra - ew
        n.cycle = t + occ
    else:
        n.cycle = t + base


cdef inline int64_t conflict_stall(Node* n, int uses, int64_t t) noexcept nogil:
    """Cycles the decode of an instruction waits for register groups it uses."""
    cdef int64_t s = 0
    cdef int g
    for g in range(3):
        if uses & (1 << g):
            if n.grp_ready[g] - t > s:
                s = n.grp_ready[g] - t
    return s


cdef inline void note_group_writes(Node* n, int writes, int64_t t_next) noexcept nogil:
    cdef int g
    for g in range(3):
        if writes & (1 << g):
            n.grp_ready[g] = t_next + CONFLICT_WINDOW


cdef inline int cache_fetch(Node* n, uint32_t pc) noexcept nogil:
    """Instruction-cache lookup for a fetch from external memory (guide 4.3):
    two 32-word segments with LRU replacement, one word filled per miss; CE
    enables, CF freezes the contents.  Returns 1 on a hit."""
    cdef uint32_t ssa = pc >> 5, bit = 1u << (pc & 31)
    cdef uint32_t st = n.r[RAP_REG_ST]
    cdef int s
    if not (st & ST_CE):
        return 0
    # the most recently used segment first (a segment address is never in
    # both segments, so the order of the look-up changes nothing)
    s = 1 - n.lru
    if n.ssa[s] == ssa and (n.present[s] & bit):
        n.cache_hits += 1
        return 1
    s = n.lru
    if n.ssa[s] == ssa and (n.present[s] & bit):
        n.lru = 1 - s
        n.cache_hits += 1
        return 1
    n.cache_misses += 1
    if st & ST_CF:
        return 0
    for s in range(2):
        if n.ssa[s] == ssa:
            n.present[s] |= bit
            n.lru = 1 - s
            return 0
    s = n.lru
    n.ssa[s] = ssa
    n.present[s] = bit
    n.lru = 1 - s
    return 0


cdef inline void cache_clear(Node* n) noexcept nogil:
    n.present[0] = 0
    n.present[1] = 0
    n.ssa[0] = 0xFFFFFFFFu
    n.ssa[1] = 0xFFFFFFFFu
    n.lru = 1
