# Staged host-call replies: host calls served on the node's own thread,
# without stopping the machine.
#
# A host call (a node writes its request block's address to HOST_CALL:
# docs/syscalls.md) normally stops the node, ends the run and is served by
# the daemon in Python.  A host program that already knows the answer of a
# node's next call (the training host: every node asks TRAIN(op, epoch) and
# gets the same rate and pattern order, decided once at the first node's
# call) stages it here: the request it answers (service, arg0, arg1), the
# words to write into the node's memory and the result.  When the node
# makes exactly that request, retire_next() (execute.pxi) hands it to
# hostcall_staged(), which does what the daemon and finish_hostcall() would
# have done -- the same words written, result and errno 0 in the block, the
# host call's cycles charged -- and the node goes on; the threads do not
# meet and Python is not entered.  What was served is logged (with a copy
# of the node's counters at the call, for the host's marks) for the host to
# collect after the run (Machine.hostcall_served): the journal of
# rapsim/replay.py records these calls like the daemon's.
#
# A staged reply is used at most once, and only when the request block and
# every word to write lie in plain memory and no probe watches the node;
# otherwise the call stops the node as before and Python serves it (the host
# then drops the unused reply).  So nothing simulated depends on whether a
# reply was staged: cycles, counters and memory are those of the daemon's
# service.
from libc.stdlib cimport malloc, realloc


cdef struct HcReply:
    uint32_t key[3]         # the request answered: service, arg0, arg1 (block words 0, 3, 4)
    uint32_t result
    uint32_t* buf           # the writes: (address, count, words...) after each other
    uint32_t buflen
    int used


cdef struct HcServed:
    int reply               # index in HcNode.replies
    uint64_t link_words     # words carried by the node's output link at the call
    Node snap               # the node as it made the call (its counters)


cdef struct HcNode:
    HcReply* replies
    int nreplies
    int cap
    HcServed* served
    int nserved
    int scap


cdef inline uint32_t* hc_span(Node* n, uint32_t addr, uint32_t count) noexcept nogil:
    """Storage of [addr, addr+count) if it is plain memory of one region (or
    the two contiguous on-chip blocks), else NULL (as Machine.write decides)."""
    cdef int rg, rg2
    if count == 0 or count > (1 << 24):
        return NULL
    rg = region_of(n, addr)
    rg2 = region_of(n, addr + count - 1)
    if (rg == RG_RAM0 or rg == RG_RAM1) and (rg2 == RG_RAM0 or rg2 == RG_RAM1):
        return word_ptr(n, addr, RG_RAM0)
    if rg >= RG_RINGIO or rg2 != rg:
        return NULL
    return word_ptr(n, addr, rg)


cdef int hostcall_staged(Node* n) noexcept nogil:
    """Serve node n's host call (status ST_HOSTCALL) from a staged reply if
    one answers it; 1 if served (the node runs on), else 0."""
    cdef HcNode* h = <HcNode*>n.hc
    cdef HcReply* r
    cdef HcServed* s
    cdef uint32_t* blk = hc_span(n, n.hostcall_addr, 8)
    cdef uint32_t* p
    cdef uint32_t* dst
    cdef uint32_t* end
    cdef uint32_t k
    cdef int i
    if h == NULL or blk == NULL or n.probe != NULL or n.periph_on:
        return 0      # (a probe or an active peripheral: the daemon serves it)
    r = NULL
    for i in range(h.nreplies):
        if not h.replies[i].used and h.replies[i].key[0] == blk[0] and \
                h.replies[i].key[1] == blk[3] and h.replies[i].key[2] == blk[4]:
            r = &h.replies[i]
            break
    if r == NULL:
        return 0
    p = r.buf                   # every write in plain memory, or the daemon serves it
    end = r.buf + r.buflen
    while p < end:
        if hc_span(n, p[0], p[1]) == NULL:
            return 0
        p += 2 + p[1]
    if h.nserved == h.scap:
        s = <HcServed*>realloc(h.served, (2 * h.scap + 4) * sizeof(HcServed))
        if s == NULL:
            return 0            # (no memory for the log: the daemon serves it)
        h.served = s
        h.scap = 2 * h.scap + 4
    s = &h.served[h.nserved]
    h.nserved += 1
    s.reply = i
    s.link_words = n.rout.words
    memcpy(&s.snap, n, sizeof(Node))
    r.used = 1
    p = r.buf
    while p < end:
        dst = hc_span(n, p[0], p[1])
        memcpy(dst, p + 2, p[1] * sizeof(uint32_t))
        for k in range(p[1]):
            invalidate_code(n, p[0] + k)
        p += 2 + p[1]
    blk[1] = r.result           # the daemon's reply: result, errno 0 (docs/syscalls.md)
    blk[2] = 0
    invalidate_code(n, n.hostcall_addr + 1)
    invalidate_code(n, n.hostcall_addr + 2)
    # Machine.finish_hostcall's charge: the host call's cycles, then on
    n.cycle += n.hostcall_cycles
    n.stall[SC_HOSTCALL] += n.hostcall_cycles
    n.host_calls += 1
    rap_store64(&n.lb, n.cycle)     # (as finish_hostcall; a release store, sync.pxi)
    n.status = ST_RUNNING
    return 1


cdef int hostcall_stage(Node* n, uint32_t service, uint32_t arg0, uint32_t arg1,
                        uint32_t result, uint32_t* buf, uint32_t buflen) noexcept nogil:
    """Add a staged reply for node n (buf: its writes, copied); 0, or -1 if
    there is no memory."""
    cdef HcNode* h = <HcNode*>n.hc
    cdef HcReply* r
    if h == NULL:
        h = <HcNode*>calloc(1, sizeof(HcNode))
        if h == NULL:
            return -1
        n.hc = h
    if h.nreplies == h.cap:
        r = <HcReply*>realloc(h.replies, (2 * h.cap + 4) * sizeof(HcReply))
        if r == NULL:
            return -1
        h.replies = r
        h.cap = 2 * h.cap + 4
    r = &h.replies[h.nreplies]
    r.buf = <uint32_t*>malloc(buflen * sizeof(uint32_t) + 4)
    if r.buf == NULL:
        return -1
    memcpy(r.buf, buf, buflen * sizeof(uint32_t))
    r.buflen = buflen
    r.key[0] = service
    r.key[1] = arg0
    r.key[2] = arg1
    r.result = result
    r.used = 0
    h.nreplies += 1
    return 0


cdef void hostcall_clear(Node* n) noexcept nogil:
    """Drop node n's staged replies and its log of served ones."""
    cdef HcNode* h = <HcNode*>n.hc
    cdef int i
    if h == NULL:
        return
    for i in range(h.nreplies):
        free(h.replies[i].buf)
    free(h.replies)
    free(h.served)
    free(h)
    n.hc = NULL
