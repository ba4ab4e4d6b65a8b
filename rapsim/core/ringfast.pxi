# RPTS repetitions over RING_DATA (issue 16): the ring-bound loops of the
# collectives (a read-and-forward, or a read with a store, repeated by RPTS,
# guide 7.1.1) without step()'s general checks and without failed tries.
#
# The general path (step(), execute.pxi) decides such a repetition as
# decode, ring test, read, commit, execute, retire; when the ring test fails
# (ring.pxi: no word in the input latch, or the output latch full) it keeps
# the instruction (Node.pend_ins) and the scheduler tries it again when the
# link changes.  On a full ring that moves by rotations every repetition
# waits once, so step() ran twice per repetition: once to find the output
# latch full, once to do it.
#
# ring_rpts() runs the same stages in the same order with the same
# functions (ind_address, ring_read_ready / ring_write_ready, ring_take /
# ring_put, the operation's handler, retire(), ring_wait()), so every cycle,
# stall and access counter, register and memory word is the one step()
# gives; it only leaves out what cannot happen in its case, and goes on with
# the next repetition in the same call while the links allow it:
#   * the node is in an RPTS repetition (Node.rpts == 2) found to touch the
#     ring (rpts_ring), no peripheral is on (periph_on: a DMA channel, a
#     timer, IDLE -- step() runs those), no delay slot is pending, and an
#     instruction kept after a ring wait is a repetition (it fetches
#     nothing: pend_fetch_rg == RG_NONE); interrupts are never taken inside
#     RPTS (step(): guide 7.1.1, 7.6);
#   * its memory operands are RING_DATA (at most one read and one write)
#     and plain memory.  Anything else (RING_STAT, RING_FWD, the host-call
#     register, a peripheral register, an unmapped address, two ring reads,
#     a forward with a write) is found before anything is changed, and the
#     repetition is left to step(), which reports the error or does it.
# When the repetition must wait, the node is parked exactly as step()'s
# failed try parks it (ring_wait: pend_ins, pend_valid, wait_t, wait_reads,
# the status), and the scheduler wakes it when the link changes
# (may_proceed, schedule.pxi).  tests/speed/test_recorded_reference.py,
# tests/ring/ and tests/speed/test_ring_fast.py check that results and
# counters are those of the general path.


cdef inline int ring_rpts_decode(Node* n, Decoded* d, RingDec* r) noexcept nogil:
    """The decode stage of step() for a repetition over RING_DATA: the
    register-conflict stall and the effective addresses (no ARn is changed
    yet), into r.  0 if the repetition is not of ring_rpts' kind (step()
    runs it)."""
    cdef Opnd* o
    cdef uint32_t a
    cdef int i, k, rg
    r.cycle = n.cycle
    r.stall = conflict_stall(n, d.uses, n.cycle) if d.uses else 0
    r.rd = -1
    r.wr = -1
    r.lean = 0
    for k in range(d.naddr):
        i = d.addr_op[k]
        o = &d.o[i]
        if o.kind == RAP_K_DIR:
            a = ((n.r[RAP_REG_DP] & 0xFF) << 16) | <uint32_t>o.val
        else:
            a = ind_address(n, o, &r.newar[i])
        r.ea[i] = a
        rg = region_of(n, a)
        r.rgs[i] = rg
        if rg >= RG_RINGIO:
            if a != RAP_RING_DATA:
                return 0
            if (d.addr_w >> k) & 1:
                if r.wr >= 0:
                    return 0
                r.wr = i
            elif r.rd >= 0:
                return 0
            else:
                r.rd = i
    if r.rd < 0 and r.wr < 0:
        return 0
    return not (r.rd >= 0 and r.wr >= 0 and n.fwd_count > 0)     # else ERR_RING_MULTI


# The ring loops' own form, without ring_rpts' loops over the operands:
# an RPTS repetition with two indirect operands, one reading RING_DATA and
# the other a plain-memory read or write (``LDI *AR1, R1 || STI R1,
# *AR6++``, ``ADDF3 *AR1, *AR2++, R0``), or one indirect read of RING_DATA
# (``LDI *AR1, R1``).  ring_rpts_lean() runs the same stages in the same
# order with the same functions as ring_rpts (so the same counters); what
# it saves is the generic operand loops, the region look-up of the ring
# register and the copy of the instruction into Node.pend_ins at each wait:
# once pend_ins holds a copy of the repeated instruction it keeps it until
# the RPTS ends (Node.rpts_ring == 2; step() only copies the same
# instruction there while the RPTS runs, and a new RPTS, its end, a reset
# or the host setting a register or the PC set rpts_ring back to 0).

cdef inline int ring_lean_decode(Node* n, Decoded* d, RingDec* r) noexcept nogil:
    """ring_rpts_decode() for ring_rpts_lean's form (above); 0 if the
    repetition is not of it (nothing changed)."""
    cdef int i0, i1, rg
    cdef uint32_t a
    if d.naddr == 2:
        i0 = d.addr_op[0]
        i1 = d.addr_op[1]
        if d.o[i0].kind == RAP_K_DIR or d.o[i1].kind == RAP_K_DIR:
            return 0
        r.ea[i0] = ind_address(n, &d.o[i0], &r.newar[i0])
        r.ea[i1] = ind_address(n, &d.o[i1], &r.newar[i1])
        # the ring operand is read; the other one must be plain memory
        if r.ea[i0] == RAP_RING_DATA and not (d.addr_w & 1):
            r.rd = i0
            a = r.ea[i1]
            i0 = i1
        elif r.ea[i1] == RAP_RING_DATA and not (d.addr_w & 2):
            r.rd = i1
            a = r.ea[i0]
        else:
            return 0
        rg = region_of(n, a)
        if rg >= RG_RINGIO:
            return 0
        r.rgs[i0] = rg
    elif d.naddr == 1:
        i0 = d.addr_op[0]
        if d.o[i0].kind == RAP_K_DIR or (d.addr_w & 1):
            return 0
        r.ea[i0] = ind_address(n, &d.o[i0], &r.newar[i0])
        if r.ea[i0] != RAP_RING_DATA:
            return 0
        r.rd = i0
    else:
        return 0
    r.rgs[r.rd] = RG_RINGIO
    r.wr = -1
    r.lean = 1
    r.cycle = n.cycle
    if d.uses == GRP_AR:
        # the ring loops address through ARn only: conflict_stall() for
        # that group alone (timing.pxi, guide 8.2.2)
        r.stall = i64max(n.grp_ready[0] - n.cycle, 0)
    else:
        r.stall = conflict_stall(n, d.uses, n.cycle) if d.uses else 0
    return 1


cdef inline int ring_lean_park(Node* n, RingDec* r, int status) noexcept nogil:
    """ring_wait() for ring_rpts_lean: the repetition is kept (its decode in
    r, the instruction in pend_ins, copied once per RPTS)."""
    r.valid = 1
    if n.rpts_ring != 2:
        n.pend_ins = n.rpts_ins
        n.rpts_ring = 2
    n.pend_valid = 1
    n.pend_fetch_rg = RG_NONE
    n.status = status
    return status


cdef inline int lean_finish(Node* n, Decoded* d, RingDec* r, Ctx* c, int64_t t,
                            int64_t t_read, int64_t t_ring, int64_t* budget) noexcept nogil:
    """The rest of a repetition of ring_rpts_lean's form once its RING_DATA
    word is in c.mv[r.rd] (ring_rpts_lean, rotation_turn): the plain
    operand read, the ARn updates, execute and retire.  1 if it failed."""
    cdef int i0 = d.addr_op[0]
    cdef int i1 = d.addr_op[1] if d.naddr == 2 else i0
    cdef int rd = r.rd, err
    cdef uint32_t pc = n.rpts_pc
    n.acc_read[RG_RINGIO] += 1
    acc_add(n, &c.acc, RG_RINGIO)
    c.ea[rd] = RAP_RING_DATA
    c.rgs[rd] = RG_RINGIO
    if i1 != i0:
        # the plain operand (the one that is not rd)
        if rd == i0:
            c.ea[i1] = r.ea[i1]
            c.rgs[i1] = r.rgs[i1]
            if not (d.addr_w & 2):
                c.mv[i1] = word_ptr(n, r.ea[i1], r.rgs[i1])[0]
                n.acc_read[r.rgs[i1]] += 1
                acc_add(n, &c.acc, r.rgs[i1])
        else:
            c.ea[i0] = r.ea[i0]
            c.rgs[i0] = r.rgs[i0]
            if not (d.addr_w & 1):
                c.mv[i0] = word_ptr(n, r.ea[i0], r.rgs[i0])[0]
                n.acc_read[r.rgs[i0]] += 1
                acc_add(n, &c.acc, r.rgs[i0])
    # -- keep ARn updates, in commit order (see step())
    if d.addr_u & 1:
        n.r[RAP_REG_AR0 + d.o[i0].reg] = r.newar[i0]
    if d.addr_u & 2:
        n.r[RAP_REG_AR0 + d.o[i1].reg] = r.newar[i1]
    # -- execute (the store, if any, is to plain memory), retire
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    c.t_ring = t_ring
    c.hostcall = 0
    err = d.fh(n, c)
    budget[0] -= 1
    if err:
        fail(n, err, pc, d.word, n.err_addr)
        return 1
    retire(n, c, r.stall, t, t_read, t_ring, 0, 0, 2)
    return 0


cdef int64_t ring_rpts_lean(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """ring_rpts() for the ring loops' own form (above), under ring_rpts'
    conditions (checked by it).  Returns as ring_rpts: 0 if the next
    repetition is not of this form (nothing changed)."""
    cdef Decoded* d = &n.rpts_ins
    cdef RingDec* r = &n.rdec
    cdef Ctx c
    cdef uint32_t v
    cdef int i0, i1, rd, fwd
    cdef int64_t t, t_ring, t_read, when, done = 0
    if not d.access or d.naddr == 0:
        return 0
    i0 = d.addr_op[0]
    i1 = d.addr_op[1] if d.naddr == 2 else i0
    if n.pend_valid and n.rpts_ring != 2:
        # kept in an RPTS repetition (no fetch: ring_rpts checked), so by
        # step() or ring_rpts from rpts_ins: pend_ins is its copy
        if n.pend_ins.word != d.word:
            return 0
        n.rpts_ring = 2
    while True:
        # a node that waited has not moved: its decode is the one kept (by
        # ring_rpts too: then it must be of this form)
        if n.pend_valid and r.valid and r.cycle == n.cycle:
            if r.rd < 0 or r.wr >= 0 or \
                    (i1 != i0 and r.rgs[i0 if r.rd == i1 else i1] >= RG_RINGIO):
                return done
        elif not ring_lean_decode(n, d, r):
            return done
        r.valid = 0
        rd = r.rd
        t = n.cycle + r.stall
        fwd = n.fwd_count > 0
        # -- the ring tests of step(): the read at t_read, the write at t_ring
        if not ring_read_ready(n.rin, t, &when):
            ring_lean_park(n, r, ST_RING_READ)
            return done + 1
        t_read = when
        t_ring = when
        if fwd:
            if not ring_write_ready(n.rout, t_ring, &when):
                n.wait_t = t
                n.wait_reads = 1
                ring_lean_park(n, r, ST_RING_WRITE)
                return done + 1
            t_ring = when
        n.pend_valid = 0
        # -- read memory operands (ring_rpts' order: by operand, as decoded)
        acc_clear(&c.acc)
        v = ring_take(n.rin, t_ring)
        c.mv[rd] = v
        n.ring_received += 1
        if fwd:
            ring_put(n.rout, v, t_ring)
            n.fwd_count -= 1
            n.ring_forwarded += 1
        if lean_finish(n, d, r, &c, t, t_read, t_ring, budget):
            return done + 1
        done += 1
        if n.status != ST_RUNNING or n.rpts != 2 or n.cycle >= limit or budget[0] <= 0:
            return done


cdef int64_t ring_rpts(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """Run the next RPTS repetitions of n over RING_DATA while the links allow
    (see above).  Returns the repetitions done plus one if the node was
    parked or stopped; 0 if the next repetition is not of this kind (the
    caller runs it through step(), nothing was changed).  budget[0] is
    decremented by the repetitions done."""
    cdef Decoded* d
    cdef RingDec* r = &n.rdec
    cdef Ctx c
    cdef uint32_t pc = n.rpts_pc
    cdef int i, k, rg, err, fwd
    cdef int64_t t, t_ring, t_read, when, done = 0
    if n.periph_on or n.dslots or (n.pend_valid and n.pend_fetch_rg != RG_NONE):
        return 0
    done = ring_rpts_lean(n, limit, budget)
    if done:
        return done
    while True:
        # step() runs a kept instruction from pend_ins (a copy of rpts_ins);
        # a node that waited has not moved, so its decode is the one kept
        if n.pend_valid:
            d = &n.pend_ins
            if not (r.valid and r.cycle == n.cycle) and not ring_rpts_decode(n, d, r):
                return done
        else:
            d = &n.rpts_ins
            if not d.access or not ring_rpts_decode(n, d, r):
                return done
        r.valid = 0
        t = n.cycle + r.stall
        fwd = r.rd >= 0 and n.fwd_count > 0
        # -- the ring tests of step(): the read at t_read, the write at t_ring
        t_ring = t
        t_read = t
        if r.rd >= 0:
            if not ring_read_ready(n.rin, t, &when):
                r.valid = 1
                ring_wait(n, d, RG_NONE, ST_RING_READ)
                return done + 1
            t_ring = when
            t_read = when
        if r.wr >= 0 or fwd:
            if not ring_write_ready(n.rout, t_ring, &when):
                n.wait_t = t
                n.wait_reads = r.rd >= 0
                r.valid = 1
                ring_wait(n, d, RG_NONE, ST_RING_WRITE)
                return done + 1
            t_ring = when
        n.pend_valid = 0
        # -- read memory operands (an RPTS repetition fetches nothing)
        acc_clear(&c.acc)
        for k in range(d.naddr):
            i = d.addr_op[k]
            c.ea[i] = r.ea[i]
            rg = r.rgs[i]
            c.rgs[i] = rg
            if (d.addr_w >> k) & 1:
                continue
            if rg == RG_RINGIO:
                c.mv[i] = ring_take(n.rin, t_ring)
                n.ring_received += 1
                if fwd:
                    ring_put(n.rout, c.mv[i], t_ring)
                    n.fwd_count -= 1
                    n.ring_forwarded += 1
            else:
                c.mv[i] = word_ptr(n, r.ea[i], rg)[0]
            n.acc_read[rg] += 1
            acc_add(n, &c.acc, rg)
        # -- keep ARn updates, in commit order (see step())
        for k in range(d.naddr):
            if (d.addr_u >> k) & 1:
                i = d.addr_op[k]
                n.r[RAP_REG_AR0 + d.o[i].reg] = r.newar[i]
        # -- execute (a ring write goes through store_op at c.t_ring), retire
        c.d = d
        c.pc = pc
        c.nextpc = pc + 1
        c.t_ring = t_ring
        c.hostcall = 0
        err = d.fh(n, &c)
        budget[0] -= 1
        if err:
            fail(n, err, pc, d.word, n.err_addr)
            return done + 1
        retire(n, &c, r.stall, t, t_read, t_ring, 0, 0, 2)
        done += 1
        if n.status != ST_RUNNING or n.rpts != 2 or n.cycle >= limit or budget[0] <= 0:
            return done


cdef inline int rotation_turn(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """A node's turn in a rotation round (rotation_rounds, schedule.pxi): the
    repetition it keeps, waiting for the committed rotation (or for room the
    rotation made), decoded by ring_rpts_lean; then the next one decoded and parked, as ring_rpts_lean
    would, in straight code.  0 if the kept repetition is not of that kind
    (nothing changed: the caller runs ring_rpts); else 1, the node parked
    again, stopped, or running (the scheduler's passes go on with it).
    Rotation rounds run on one host thread while any others wait (a thread
    of a node group never runs them), so the links are used without their
    locks (ring.pxi's unlocked functions)."""
    cdef Decoded* d = &n.rpts_ins
    cdef RingDec* r = &n.rdec
    cdef Ctx c
    cdef uint32_t v
    cdef int64_t t, t_ring, t_read, when
    # a lean decode kept at this cycle, pend_ins its copy (so n.rpts == 2)
    if not (r.valid and r.lean and r.cycle == n.cycle and n.rpts_ring == 2
            and n.fwd_count > 0):
        return 0
    t = n.cycle + r.stall
    # -- the ring tests of step() (they pass: a word is in, the rotation committed)
    if not ring_read_ready_(n.rin, t, &when):
        return 0
    t_read = when
    if not ring_write_ready_(n.rout, when, &t_ring):
        return 0
    r.valid = 0
    n.pend_valid = 0
    # -- read memory operands
    acc_clear(&c.acc)
    v = ring_take_(n.rin, t_ring)
    c.mv[r.rd] = v
    n.ring_received += 1
    ring_put_(n.rout, v, t_ring)
    n.fwd_count -= 1
    n.ring_forwarded += 1
    if lean_finish(n, d, r, &c, t, t_read, t_ring, budget):
        return 1
    if n.status != ST_RUNNING or n.rpts != 2 or n.cycle >= limit or budget[0] <= 0:
        return 1
    # -- the next repetition: decoded, then parked if the ring makes it wait
    if not ring_lean_decode(n, d, r):
        return 1
    t = n.cycle + r.stall
    if not ring_read_ready_(n.rin, t, &when):
        ring_lean_park(n, r, ST_RING_READ)
        return 1
    if n.fwd_count > 0 and not ring_write_ready_(n.rout, when, &t_ring):
        n.wait_t = t
        n.wait_reads = 1
        ring_lean_park(n, r, ST_RING_WRITE)
    return 1


# Single ring accesses (issue 16, the training run's collectives): an
# instruction that is not repeated by RPTS -- straight code or an RPTB body
# (the reduce-scatter's ``ADDF3 *AR0, *AR2++, R0`` / ``STF R0, *AR0``, the
# scalar collectives' ``LDF *AR0, R0`` and ``STF R0, *AR0``) -- with one
# indirect operand on RING_DATA (read or written) and at most one other
# indirect operand on plain memory.  step() ran every such access, and every
# retry after a ring wait, with its general checks and its loops over the
# operands.  ring_step_lean() runs step()'s stages in step()'s order with
# step()'s functions (the fetch and its counters, conflict_stall,
# ind_address, ring_read_ready / ring_write_ready, ring_take, the
# operation's handler -- a ring write goes through store_op at c.t_ring --,
# retire()), so every cycle, stall and access counter, register and memory
# word is step()'s.  It is used from step() itself (one dispatch line,
# execute.pxi) when no probe is attached (a probed node is the general path
# the tests compare with), no peripheral is on and no RPTS runs; anything
# else (a direct operand, two ring operands, RING_STAT, RING_FWD, the
# host-call register, a peripheral, an unmapped address, an instruction a
# delay slot may not hold (guide 7.2), an interrupt to take (guide 7.6)) is
# found before anything changes and left to step().  A wait parks the node
# as step()'s ring_wait() does, and keeps the decode (Node.rdec, lean ==
# 2): a waiting node does not move, so the retry uses it instead of
# decoding again.

cdef inline int ring_single_decode(Node* n, Decoded* d, RingDec* r) noexcept nogil:
    """The decode stage of step() for ring_step_lean's form, into r (no ARn
    is changed yet); 0 if the instruction is not of that form."""
    cdef int k, i, rg
    cdef uint32_t a
    if not d.access or d.naddr == 0 or d.naddr > 2:
        return 0
    r.rd = -1
    r.wr = -1
    for k in range(d.naddr):
        i = d.addr_op[k]
        if d.o[i].kind == RAP_K_DIR:
            return 0
        a = ind_address(n, &d.o[i], &r.newar[i])
        r.ea[i] = a
        if a == RAP_RING_DATA:
            if r.rd >= 0 or r.wr >= 0:
                return 0            # two ring operands: step()
            if (d.addr_w >> k) & 1:
                r.wr = i
            else:
                r.rd = i
            r.rgs[i] = RG_RINGIO
        else:
            rg = region_of(n, a)
            if rg >= RG_RINGIO:
                return 0
            r.rgs[i] = rg
    if r.rd < 0 and r.wr < 0:
        return 0
    r.stall = conflict_stall(n, d.uses, n.cycle) if d.uses else 0
    r.cycle = n.cycle
    r.lean = 2
    return 1


cdef int ring_step_lean(Node* n) noexcept nogil:
    """step() for a single ring access of the form above, under the caller's
    conditions (no probe, no peripheral on, n.rpts == 0).  Returns the node
    status, or -1 if the instruction is not of this form (nothing changed:
    step() runs it)."""
    cdef Decoded* d
    cdef Decoded* page
    cdef RingDec* r = &n.rdec
    cdef Ctx c
    cdef uint32_t pc = n.pc
    cdef int fetch_rg = RG_NONE, frg = RG_NONE, k, i, err, fwd, in_slot
    cdef int64_t t, t_read, t_ring, when
    if n.pend_valid:
        # a retry: the instruction kept by ring_wait(), fetched before
        d = &n.pend_ins
        fetch_rg = n.pend_fetch_rg
        if not (r.valid and r.lean == 2 and r.cycle == n.cycle) \
                and not ring_single_decode(n, d, r):
            return -1
    else:
        if (n.r[RAP_REG_ST] & ST_GIE) and (n.r[RAP_REG_IF] & n.r[RAP_REG_IE] & 0x7FF) \
                and n.dslots == 0:
            return -1               # step() takes the interrupt (guide 7.6)
        frg = region_of(n, pc)
        if frg >= RG_RINGIO:
            return -1
        # pre-decoded where it was fetched (else step() decodes it: decoded_at)
        page = n.dcache[(pc & 0xFFFFFF) >> DPAGE_BITS]
        if page == NULL:
            return -1
        d = &page[pc & (DPAGE_WORDS - 1)]
        if d.valid != 1 or not ring_single_decode(n, d, r):
            return -1
    in_slot = n.dslots > 0
    if in_slot and d.timing != RAP_T_STD and d.timing != RAP_T_INTERLOCK:
        return -1                   # step() reports it
    r.valid = 0
    if frg != RG_NONE:
        # -- the fetch (step(): counted at the first try only)
        n.acc_fetch[frg] += 1
        if frg > RG_DRAM or not cache_fetch(n, pc):
            fetch_rg = frg
    # -- the ring tests of step(): the read at t_read, the write at t_ring
    t = n.cycle + r.stall
    t_read = t
    t_ring = t
    fwd = 0
    if r.rd >= 0:
        fwd = n.fwd_count > 0
        if not ring_read_ready(n.rin, t, &when):
            r.valid = 1
            return ring_wait(n, d, fetch_rg, ST_RING_READ)
        t_read = when
        t_ring = when
    if r.wr >= 0 or fwd:
        if not ring_write_ready(n.rout, t_ring, &when):
            n.wait_t = t
            n.wait_reads = r.rd >= 0
            r.valid = 1
            return ring_wait(n, d, fetch_rg, ST_RING_WRITE)
        t_ring = when
    n.pend_valid = 0
    # -- read memory operands, in step()'s order
    acc_clear(&c.acc)
    if fetch_rg != RG_NONE:
        acc_add(n, &c.acc, fetch_rg)
    for k in range(d.naddr):
        i = d.addr_op[k]
        c.ea[i] = r.ea[i]
        c.rgs[i] = r.rgs[i]
        if (d.addr_w >> k) & 1:
            continue
        if i == r.rd:
            c.mv[i] = ring_take(n.rin, t_ring)
            n.ring_received += 1
            if fwd:
                ring_put(n.rout, c.mv[i], t_ring)
                n.fwd_count -= 1
                n.ring_forwarded += 1
        else:
            c.mv[i] = word_ptr(n, r.ea[i], r.rgs[i])[0]
        n.acc_read[r.rgs[i]] += 1
        acc_add(n, &c.acc, r.rgs[i])
    # -- keep ARn updates, in commit order (see step())
    for k in range(d.naddr):
        if (d.addr_u >> k) & 1:
            i = d.addr_op[k]
            n.r[RAP_REG_AR0 + d.o[i].reg] = r.newar[i]
    # -- execute (a ring write goes through store_op at c.t_ring), retire
    c.d = d
    c.pc = pc
    c.nextpc = pc + 1
    c.t_ring = t_ring
    c.hostcall = 0
    err = d.fh(n, &c)
    if err:
        return fail(n, err, pc, d.word, n.err_addr)
    retire(n, &c, r.stall, t, t_read, t_ring, 0, in_slot, 0)
    return n.status
