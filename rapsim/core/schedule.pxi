# Running the nodes of a machine.  Each node runs on its own clock until it
# stops, reaches the cycle limit or waits for the ring; ring accesses are
# decided from cycle stamps (ring.pxi), so the order in which nodes run
# changes nothing in the results.  When no node can move, lower bounds on
# the cycle of each waiting node's next action are propagated around the
# ring; if that frees nobody, the machine is deadlocked.

cdef enum:
    EV_DONE = 0         # every node has exited
    EV_HOSTCALL = 1     # node `who` asks the host daemon for a service
    EV_ERROR = 2        # node `who` stopped with an error
    EV_BREAK = 3        # node `who` executed SWI
    EV_LIMIT = 4        # every running node reached the cycle limit
    EV_DEADLOCK = 5     # no node can progress
    EV_IDLE = 6         # node `who` executed IDLE with nothing to wake it
    EV_YIELD = 7        # no event yet, the instruction budget of this call is spent (the
                        # host checks for Ctrl-C and calls again)


cdef inline int waiting(int status) noexcept nogil:
    return status == ST_RING_READ or status == ST_RING_WRITE or status == ST_RING_SYNC


cdef inline int stop_event(int status) noexcept nogil:
    """The event a node's status stops the machine with, or -1."""
    if status == ST_HOSTCALL:
        return EV_HOSTCALL
    if status == ST_ERROR:
        return EV_ERROR
    if status == ST_BREAK:
        return EV_BREAK
    if status == ST_IDLE:
        return EV_IDLE
    return -1


cdef inline int may_proceed(Node* n) noexcept nogil:
    """Has what a waiting node waits for changed since it last tried?  (A read
    waits for a word on its input link, a write for room on its output link
    or a rotation; a RING_STAT wait for a change of its links, its
    neighbours' bounds or IF: ring_sync_changed, ring.pxi.)"""
    if n.periph_on and n.p.dma_run:
        return 1            # its DMA channel may go on (periph.pxi)
    if n.status == ST_RING_SYNC:
        return n.periph_on or ring_sync_changed(n)
    if n.status == ST_RING_READ:
        return n.rin.count > 0
    if n.status == ST_RING_WRITE:
        return n.rout.count < 2 or (n.rout.count == 2 and n.rout.rotate_at < T_NEVER)
    return 1


cdef int run_node(Node* n, int64_t limit, int64_t* budget) noexcept nogil:
    """Run one node until it stops, waits, its clock reaches limit or it has
    spent the budget of instructions (budget[0] is decremented; stopping
    early is like a shorter quantum: it changes no result).  Instructions in
    the plain state run on the fast path (fast.pxi), the others through
    step().  An instrumented node (probe.pxi) runs run_node_probed instead
    (run_machine checks)."""
    while n.status == ST_RUNNING:
        if n.cycle >= limit or budget[0] <= 0:
            break
        if plain_state(n):
            # the common case (fast.pxi): RPTS repetitions in bulk, or one instruction
            if n.rpts == 2 and rpts_bulk(n, limit, budget):
                continue
            budget[0] -= 1
            fast_step(n)
        else:
            budget[0] -= 1
            step(n)
    if n.status != ST_RING_SYNC:        # step() set the bound of a RING_STAT wait
        n.lb = periph_lb(n, n.cycle)
    return n.status


cdef void lower_bounds(Node* nodes, int count) noexcept nogil:
    """Lower bounds (Node.lb) on the cycle of each node's next ring-data
    access.  A running node (or one in a host call) acts at its clock or
    later; a node waiting on RING_STAT at the bound step() gave it; a node
    waiting for data acts no earlier than one hop after its upstream node can
    write; a node waiting for room no earlier than its downstream node can
    read (or its running DMA channel's next access, if earlier); a stopped
    node never acts (T_NEVER).  Waiting nodes whose chain of
    waits ends at a stopped node, or runs round the whole ring, never act
    either: they are deadlocked (lb == T_NEVER)."""
    cdef int i, it, changed
    cdef int64_t b
    cdef Node* n
    for i in range(count):
        n = &nodes[i]
        if n.status == ST_RUNNING or n.status == ST_HOSTCALL:
            n.lb = periph_lb(n, n.cycle)
        elif n.status == ST_RING_SYNC:
            n.lb = periph_lb(n, i64max(n.lb, n.cycle))
        else:
            n.lb = T_NEVER      # stopped, or waiting: resolved below
    # a waiter's bound is final once its neighbour's is: at most count rounds
    for it in range(count + 1):
        changed = 0
        for i in range(count):
            n = &nodes[i]
            b = T_NEVER
            if n.status == ST_RING_READ:
                if n.up.lb < T_NEVER:
                    b = i64max(n.cycle, n.up.lb + n.rin.latency)
            elif n.status == ST_RING_WRITE:
                if n.down.lb < T_NEVER:
                    b = i64max(n.cycle, n.down.lb)
            else:
                continue
            if n.periph_on and n.p.dma_run:
                # its DMA channel goes on while the CPU waits (periph.pxi)
                b = min(b, i64max(n.cycle, n.p.dma_t))
            if b != n.lb:
                n.lb = b
                changed = 1
        if not changed:
            break


cdef int ring_rotation(Node* nodes, int count) noexcept nogil:
    """Every node waits to write into a full output latch, and every one of
    those instructions also reads its input (read-and-forward, or a read and
    a write of RING_DATA in one instruction): the whole ring can shift at
    once.  Node i's access needs node i+1's read no later than its own, so
    all happen at one cycle T, the latest of each node's own constraints
    (issue cycle, arrival of its input word, the hop of its second output
    word).  Commits every reader to T (Link.rotate_at); returns 1 if it did."""
    cdef int i
    cdef int64_t T = T_PAST
    cdef Node* n
    cdef Link* L
    for i in range(count):
        n = &nodes[i]
        if n.status != ST_RING_WRITE or not n.wait_reads or n.rout.count != 2 \
                or n.rin.count == 0:
            return 0
    for i in range(count):
        n = &nodes[i]
        L = n.rout
        T = i64max(T, n.wait_t)
        T = i64max(T, n.rin.mtime[n.rin.head])
        T = i64max(T, L.wtime[(L.head + 1) & 3] + L.latency - 1)
    for i in range(count):
        nodes[i].rout.rotate_at = T
    return 1


cdef inline int64_t i64min(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef inline int earlier_stop(Node* nodes, int i, int best) noexcept nogil:
    """Is node i's stop earlier in simulated time than node best's (ties: the
    lower node number)?"""
    return best < 0 or nodes[i].cycle < nodes[best].cycle or \
        (nodes[i].cycle == nodes[best].cycle and i < best)


cdef int run_machine(Node* nodes, int count, int64_t limit, int64_t quantum, int32_t* order,
                     int* who, int64_t* budget) noexcept nogil:
    """Run every node until an event.  Scheduling knobs that must not change
    any result (tests check this): ``quantum`` (cycles a node runs before the
    next one gets its turn; 0 = until it stops or waits) and ``order`` (the
    order nodes take turns in).  After about budget[0] instructions the call
    returns EV_YIELD, and a new call goes on where it stopped.

    The event reported is the first in simulated time, whatever the
    interleaving: when a node stops (an error, a breakpoint, IDLE, a host
    call), it becomes the pending stop and the other nodes run on only up to
    its cycle (the horizon); one of them stopping earlier takes its place.
    When no node below the horizon can move, the pending stop is reported
    (ties: the lower node number).  A node still stopped when the call starts
    (an error, a host call not served yet) is pending from the start: the
    machine cannot go on without it."""
    cdef int j, i, progress, active, st, ev
    cdef int pending = -1
    cdef uint64_t before, before_dma
    cdef int64_t lim
    cdef int64_t horizon = limit
    cdef Node* n
    for i in range(count):
        if stop_event(nodes[i].status) >= 0 and earlier_stop(nodes, i, pending):
            pending = i
    if pending >= 0:
        horizon = i64min(limit, nodes[pending].cycle)
    while True:
        progress = 0
        active = 0
        for j in range(count):
            i = order[j]
            n = &nodes[i]
            if waiting(n.status):
                if not may_proceed(n):
                    active += 1         # still waiting: trying again would change nothing
                    continue
                n.status = ST_RUNNING
            if n.status != ST_RUNNING:
                continue
            before = n.instret
            before_dma = n.p.dma_acc
            lim = horizon
            if quantum > 0 and n.cycle + quantum < horizon:
                lim = n.cycle + quantum
            st = run_node(n, lim, budget) if n.probe == NULL else probed_runner(n, lim, budget)
            if n.instret != before or n.p.dma_acc != before_dma:
                progress = 1
            if stop_event(st) >= 0:
                if earlier_stop(nodes, i, pending):
                    pending = i
                    horizon = i64min(limit, n.cycle)
                continue
            if budget[0] <= 0:
                return EV_YIELD
            if st == ST_RUNNING or waiting(st):
                active += 1
                if st == ST_RUNNING and n.cycle < horizon:
                    progress = 1
        if active == 0:
            break
        if progress:
            continue
        # nobody moved: are the waiting nodes only waiting for the limit?
        for i in range(count):
            n = &nodes[i]
            if n.status == ST_RUNNING and n.cycle < horizon:
                progress = 1
        if progress:
            continue
        if ring_rotation(nodes, count):
            continue
        lower_bounds(nodes, count)
        for i in range(count):
            n = &nodes[i]
            if n.status == ST_RING_SYNC or (waiting(n.status) and n.periph_on and n.p.dma_run):
                n.status = ST_RUNNING
                before = n.instret
                before_dma = n.p.dma_acc
                st = run_node(n, horizon, budget) if n.probe == NULL \
                    else probed_runner(n, horizon, budget)
                if stop_event(st) >= 0:
                    if earlier_stop(nodes, i, pending):
                        pending = i
                        horizon = i64min(limit, n.cycle)
                    progress = 1
                    break
                if budget[0] <= 0:
                    return EV_YIELD
                if n.instret != before or n.p.dma_acc != before_dma:
                    progress = 1
                    break
        if progress:
            continue
        if pending >= 0:
            break
        # stuck: deadlocked waiters (chains of waits that end at a stopped
        # node or run round the ring), else nodes waiting for nodes that
        # reached the cycle limit
        for i in range(count):
            n = &nodes[i]
            if (n.status == ST_RING_READ or n.status == ST_RING_WRITE) and n.lb >= T_NEVER:
                who[0] = i
                return EV_DEADLOCK
        for i in range(count):
            n = &nodes[i]
            if n.status == ST_RUNNING:
                return EV_LIMIT
        for i in range(count):
            n = &nodes[i]
            if waiting(n.status):
                who[0] = i
                return EV_DEADLOCK      # RING_STAT waits that cannot be resolved
        return EV_LIMIT
    if pending >= 0:
        who[0] = pending
        return stop_event(nodes[pending].status)
    return EV_DONE
