# The RAP ring (RAP-REFERENCE.md: facts section 1, decisions section 3).
#
# Node n's output latch feeds node n+1's input latch (mod N, across boards).
# Each link holds at most two words in flight: one in the writer's output
# latch, one in the reader's input latch.  With W the cycle a word is written,
# M the first cycle it can be read (it is in the input latch) and R the cycle
# it is read, for the k-th word of a link:
#
#     M[k] = max(W[k] + h, R[k-1] + 1)   h = 1: one hop per cycle, once the input latch is free
#     W[k] >= M[k-1] - 1                 a write waits for the output latch to empty
#     R[k] >= M[k]                       a read waits for the word
#
# (h may be set longer for board-to-board hops), so a stream moves one word
# per node per cycle and back-pressure stops a writer two words ahead of its
# reader.  A word holds the writer's output latch until it enters the input
# latch, so a hop of h > 1 cycles carries one word every h - 1 cycles (the
# link has only its two latches; nothing is pipelined in the cable).
#
# A ring whose every latch is full can still move if every node reads and
# writes in the same access (read-and-forward, or a parallel read and write):
# all links shift at once.  Each node then waits for its downstream
# neighbour's read, round the whole ring; the rules give every node the same
# cycle T, the latest of their own constraints, and the scheduler commits
# each link's reader to that cycle (Link.rotate_at, ring_rotation in
# schedule.pxi) so that the writers can go first.
#
# Every quantity is a cycle stamp, so the outcome does not depend on the
# order in which the simulator runs the nodes: a node only decides a ring
# access when the stamps it needs exist (otherwise it waits, status
# ST_RING_*, and is resumed later).

cdef enum:
    T_NEVER = 0x3FFFFFFFFFFFFFFF    # "no such cycle" (as a lower bound: never)
    T_PAST = -0x3FFFFFFFFFFFFFFF


cdef inline void link_reset(Link* L) noexcept nogil:
    if L.latency < 1:
        L.latency = 1
    L.head = 0
    L.count = 0
    L.last_read = T_PAST
    L.last_move = T_PAST
    L.words = 0
    L.rotate_at = T_NEVER
    L.lock = 0


cdef inline int64_t i64max(int64_t a, int64_t b) noexcept nogil:
    return a if a > b else b


cdef inline int ring_read_ready_(Link* L, int64_t t, int64_t* when) noexcept nogil:
    """Can the reader of L take a word at cycle t?  1 with the cycle it gets it
    (t, or later if the word arrives later), 0 if no word is on its way yet."""
    if L.count == 0:
        return 0
    when[0] = i64max(t, L.mtime[L.head])
    return 1


cdef inline uint32_t ring_take_(Link* L, int64_t when) noexcept nogil:
    cdef int h = L.head
    cdef uint32_t v = L.data[h]
    cdef int64_t m = L.mtime[h]
    L.head = (h + 1) & 3
    L.count -= 1
    L.last_read = when
    L.rotate_at = T_NEVER
    if L.count == 0:
        L.last_move = m
    else:
        L.mtime[L.head] = i64max(L.wtime[L.head] + L.latency, when + 1)
    return v


cdef inline int ring_write_ready_(Link* L, int64_t t, int64_t* when) noexcept nogil:
    """Can the writer of L put a word in its output latch at cycle t?  1 with
    the cycle it can (t or later), 0 while both latches are full (unless the
    reader has committed to take its word: a ring rotation)."""
    if L.count >= 2:
        if L.count == 2 and L.rotate_at < T_NEVER:
            # M of the second word = max(W + h, rotate_at + 1)
            when[0] = i64max(i64max(t, L.rotate_at), L.wtime[(L.head + 1) & 3] + L.latency - 1)
            return 1
        return 0
    if L.count == 1:
        when[0] = i64max(t, L.mtime[L.head] - 1)
    else:
        when[0] = i64max(t, L.last_move - 1)
    return 1


cdef inline void ring_put_(Link* L, uint32_t v, int64_t when) noexcept nogil:
    cdef int s = (L.head + L.count) & 3
    L.data[s] = v
    L.wtime[s] = when
    if L.count == 0:
        L.mtime[s] = i64max(when + L.latency, L.last_read + 1)
    L.count += 1
    L.words += 1


cdef inline int ring_stat_in(Link* I, int64_t up_lb, int64_t t) noexcept nogil:
    """Bit 0 of RING_STAT at cycle t (see ring_stat), or -1: undecided."""
    if I.count > 0:
        if I.mtime[I.head] <= t:
            return 1
    elif up_lb + I.latency <= t:
        return -1           # the upstream node may still write a word readable at t
    return 0


cdef inline int ring_stat_out(Link* O, int64_t down_lb, int64_t t) noexcept nogil:
    """Bit 1 of RING_STAT at cycle t (see ring_stat), or -1: undecided."""
    cdef int64_t w
    if O.count > 2:
        return -1           # a rotation: wait until the downstream node has taken its word
    if O.count == 2:
        # the second word can leave the output latch at max(W + h, R + 1) - 1,
        # R >= M the cycle the downstream node reads the first: a write at t
        # needs W + h - 1 <= t and M <= R <= t
        if O.wtime[(O.head + 1) & 3] + O.latency - 1 <= t and O.mtime[O.head] <= t \
                and down_lb <= t:
            return -1       # the downstream node may still read in time
    elif ring_write_ready_(O, t, &w) and w == t:
        return 2
    return 0


cdef inline int ring_stat(Node* n, int64_t t, uint32_t* value) noexcept nogil:
    """RING_STAT at cycle t: bit 0 = a read now would not wait, bit 1 = a write
    now would not wait.  Returns 0 (and leaves value alone) if that depends on
    what a neighbour may still do before cycle t (its lower bound ``lb`` on
    the cycle of its next ring-data access is too early): the node then waits
    for it (ST_RING_SYNC) and the scheduler raises the bounds.

    With node groups on host threads the neighbours' bounds are loaded before
    their links are looked at: a bound seen is one its node stored after
    every ring access before it (a release store, run_node), so a word or a
    read it does not cover is already in the link."""
    cdef int64_t up_lb = rap_load64(&n.up.lb)
    cdef int64_t down_lb = rap_load64(&n.down.lb)
    cdef int a, b
    cdef Link* I = n.rin
    cdef Link* O = n.rout
    if I.shared:
        rap_spin_lock(&I.lock)
        a = ring_stat_in(I, up_lb, t)
        rap_spin_unlock(&I.lock)
    else:
        a = ring_stat_in(I, up_lb, t)
    if a < 0:
        return 0
    if O.shared:
        rap_spin_lock(&O.lock)
        b = ring_stat_out(O, down_lb, t)
        rap_spin_unlock(&O.lock)
    else:
        b = ring_stat_out(O, down_lb, t)
    if b < 0:
        return 0
    value[0] = <uint32_t>(a | b)
    return 1


# A link between two node groups on different host threads (Link.shared) is
# touched by both: each access (the reader's test and take, the writer's
# test and put) holds the link's spin lock.  Only the reader takes and only
# the writer puts, so what a test found stays true until the same side's
# take or put: the outcome is the one the cycle stamps decide, whichever
# thread comes first.

cdef inline int ring_read_ready(Link* L, int64_t t, int64_t* when) noexcept nogil:
    """Can the reader of L take a word at cycle t?  1 with the cycle it gets it
    (t, or later if the word arrives later), 0 if no word is on its way yet."""
    cdef int r
    if L.shared:
        rap_spin_lock(&L.lock)
        r = ring_read_ready_(L, t, when)
        rap_spin_unlock(&L.lock)
        return r
    return ring_read_ready_(L, t, when)


cdef inline uint32_t ring_take(Link* L, int64_t when) noexcept nogil:
    """The reader takes the head word at cycle when."""
    cdef uint32_t v
    if L.shared:
        rap_spin_lock(&L.lock)
        v = ring_take_(L, when)
        rap_spin_unlock(&L.lock)
        return v
    return ring_take_(L, when)


cdef inline int ring_write_ready(Link* L, int64_t t, int64_t* when) noexcept nogil:
    """Can the writer of L put a word in its output latch at cycle t?  1 with
    the cycle it can (t or later), 0 while both latches are full (unless the
    reader has committed to take its word: a ring rotation)."""
    cdef int r
    if L.shared:
        rap_spin_lock(&L.lock)
        r = ring_write_ready_(L, t, when)
        rap_spin_unlock(&L.lock)
        return r
    return ring_write_ready_(L, t, when)


cdef inline void ring_put(Link* L, uint32_t v, int64_t when) noexcept nogil:
    """The writer puts v in its output latch at cycle when."""
    if L.shared:
        rap_spin_lock(&L.lock)
        ring_put_(L, v, when)
        rap_spin_unlock(&L.lock)
    else:
        ring_put_(L, v, when)


# A node waiting on RING_STAT (ST_RING_SYNC) is decided by ring_stat() from
# its two links and its neighbours' bounds only (and an interrupt raised
# meanwhile, guide 7.6).  Those change only when a word is written or read,
# a rotation is committed, or a neighbour's bound moves: the scheduler
# tries the node again only then (may_proceed, schedule.pxi); a retry with
# all of them unchanged would wait again with nothing changed.

cdef inline void ring_sync_state(Node* n, int64_t* s) noexcept nogil:
    s[0] = <int64_t>n.rin.words
    s[1] = n.rin.last_read
    s[2] = n.rin.rotate_at
    s[3] = <int64_t>n.rout.words
    s[4] = n.rout.last_read
    s[5] = n.rout.rotate_at
    s[6] = rap_load64(&n.up.lb)
    s[7] = rap_load64(&n.down.lb)
    s[8] = n.r[RAP_REG_IF]


cdef inline void ring_sync_note(Node* n) noexcept nogil:
    """Keep what a RING_STAT wait saw (ring_sync_changed compares)."""
    ring_sync_state(n, n.sync_seen)


cdef inline bint ring_sync_changed(Node* n) noexcept nogil:
    """Has anything a RING_STAT wait depends on changed since it waited?"""
    cdef int64_t s[9]
    cdef int i
    ring_sync_state(n, s)
    for i in range(9):
        if s[i] != n.sync_seen[i]:
            return 1
    return 0
