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
            if (n.rpts | (n.r[RAP_REG_ST] & ST_RM)) and repeat_bulk(n, limit, budget):
                continue                # RPTS repetitions or RPTB passes in bulk (fast.pxi)
            budget[0] -= 1
            fast_step(n)
        else:
            # RPTS over RING_DATA: its repetitions while the links allow (ringfast.pxi)
            if n.rpts_ring and n.rpts == 2 and ring_rpts(n, limit, budget):
                continue
            budget[0] -= 1
            step(n)
    if n.status != ST_RING_SYNC:        # step() set the bound of a RING_STAT wait
        # a release store: a neighbour on another host thread that sees this
        # bound also sees every ring access before it (ring_stat, ring.pxi)
        rap_store64(&n.lb, periph_lb(n, n.cycle))
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
        L = n.rout
        if n.status != ST_RING_WRITE or not n.wait_reads or L.count != 2 \
                or n.rin.count == 0:
            return 0
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


cdef struct ThreadStats:
    # What running the nodes cost the host, summed over a machine's calls
    # (Machine.thread_stats; the Machine owns it, reset_thread_stats zeroes
    # it).  The counts are the proxies of the threads' cost that a loaded
    # host does not disturb much; the *_ns fields are host clocks.  Nothing
    # here is read by a scheduling decision.
    int64_t calls            # core calls (run_machine or run_machine_threads)
    int64_t threaded_calls   # ... of them with the nodes split over threads
    int64_t thread_starts    # host threads started (pthread_create)
    int64_t serial_starts    # threaded calls that began with the rounds over every node
    int64_t meetings         # the threads met (every group stuck): rounds over every node
    int64_t declined         # every thread waited but a node could move: no meeting
    int64_t handoffs         # waits after a stretch of little work (a ring word's hand-off)
    int64_t asked            # meetings asked for a ring-bound phase (Machine.handoff_waits)
    int64_t rounds           # passes over every node in those rounds
    int64_t sleeps           # a waiting thread slept on the condition variable
    int64_t waits            # a thread's group could not move: it waited (worker_wait)
    int64_t cycles_single    # node-cycles simulated in one-thread calls
    int64_t cycles_serial    # ... in the rounds over every node of threaded calls (one thread)
    int64_t cycles_parallel  # ... by the groups in parallel
    int64_t instr_single     # simulated instructions run in one-thread calls
    int64_t instr_serial     # ... in the rounds over every node of threaded calls
    int64_t instr_parallel   # ... by the groups in parallel
    int64_t instr_group_max  # sum over threaded calls of the most any one group ran in
                             # parallel: (single + serial + this) is the instructions on the
                             # longest thread, a bound on the speed-up the host can see
    int64_t serial_ns        # wall time in the rounds over every node
    int64_t wait_ns          # wall time threads spent waiting (spinning or asleep), summed
    int64_t caller_cpu_ns    # CPU time of the calling thread in threaded calls
    int64_t helper_cpu_ns    # CPU time of the threads started, summed


cdef int64_t node_cycles(Node* nodes, int count) noexcept nogil:
    """The sum of every node's clock (ThreadStats' node-cycles)."""
    cdef int64_t t = 0
    cdef int i
    for i in range(count):
        t += nodes[i].cycle
    return t


cdef int64_t node_instructions(Node* nodes, int count) noexcept nogil:
    """The sum of every node's instructions (ThreadStats' instructions)."""
    cdef int64_t t = 0
    cdef int i
    for i in range(count):
        t += <int64_t>nodes[i].instret
    return t


cdef struct Sched:
    # One call of run_machine: the nodes, the knobs, the pending stop and its
    # horizon; with node groups on host threads also what the threads share
    # (every field below `threaded` is read and written under `ctl`, or with
    # the atomic loads and stores of sync.pxi).
    Node* nodes
    int count
    int64_t limit
    int64_t quantum
    int32_t* order
    int64_t horizon         # nodes run only up to the pending stop's cycle
    int pending             # the earliest stop so far (node), or -1
    int threaded            # 0: one host thread (run_machine), else run_machine_threads
    int ctl                 # spin lock of pending/horizon and of the fields below
    int nthreads
    int nstuck              # threads whose group cannot move (worker_wait)
    int in_global           # one thread runs a round over every node (the others wait)
    int epoch               # rounds over every node so far
    int stop                # the call ends: `result` is its event
    int result
    int who
    int rotated             # sched_settle committed a rotation of the whole ring
    int serial              # the last round over every node ran short turns (global_rounds)
    rap_mutex_t mu          # threads that wait for a round over every node sleep on cv
    rap_cond_t cv
    ThreadStats* st         # the machine's figures (run_machine_threads), or NULL
    int64_t moves           # passes of a group that moved a node (worker_loop)
    int want_meet           # a thread asked the others to meet (a ring-bound phase)
    int* group              # each node's group (threaded calls)
    int64_t* gserial        # instructions of each group's nodes in the rounds over every node
    int handoff_waits       # hand-off waits in a row that ask for a meeting (0: never)
    void* workers           # the threads' Worker records (nthreads of them)


cdef void sched_init(Sched* s, Node* nodes, int count, int64_t limit, int64_t quantum,
                     int32_t* order) noexcept nogil:
    """A node still stopped when the call starts (an error, a host call not
    served yet) is pending from the start: the machine cannot go on without
    it."""
    cdef int i
    s.nodes = nodes
    s.count = count
    s.limit = limit
    s.quantum = quantum
    s.order = order
    s.pending = -1
    s.horizon = limit
    s.threaded = 0
    s.ctl = 0
    s.nthreads = 1
    s.nstuck = 0
    s.in_global = 0
    s.epoch = 0
    s.stop = 0
    s.result = EV_DONE
    s.who = -1
    s.rotated = 0
    s.serial = 0
    s.st = NULL
    s.moves = 0
    s.want_meet = 0
    s.group = NULL
    s.gserial = NULL
    s.handoff_waits = 0
    s.workers = NULL
    for i in range(count):
        if stop_event(nodes[i].status) >= 0 and earlier_stop(nodes, i, s.pending):
            s.pending = i
    if s.pending >= 0:
        s.horizon = i64min(limit, nodes[s.pending].cycle)


cdef inline void note_stop(Sched* s, int i) noexcept nogil:
    """Node i stopped: it becomes the pending stop if it is the earliest."""
    if s.threaded:
        rap_spin_lock(&s.ctl)
    if earlier_stop(s.nodes, i, s.pending):
        s.pending = i
        rap_store64(&s.horizon, i64min(s.limit, s.nodes[i].cycle))
    if s.threaded:
        rap_spin_unlock(&s.ctl)


cdef inline bint rotation_ready(Node* n, int64_t lim) noexcept nogil:
    """Is n waiting for a committed rotation (or, its downstream node having
    had its turn in the rotation, for room that is now there) with an RPTS
    repetition over RING_DATA that ring_rpts (ringfast.pxi) runs, below
    lim?"""
    return n.status == ST_RING_WRITE \
        and (n.rout.count < 2 or (n.rout.count == 2 and n.rout.rotate_at < T_NEVER)) \
        and n.rpts == 2 and n.rpts_ring and n.pend_valid and n.pend_fetch_rg == RG_NONE \
        and not n.periph_on and not n.dslots and n.probe == NULL and n.cycle < lim


cdef void rotation_rounds(Sched* s, int64_t* budget) noexcept nogil:
    """A full ring of RPTS read-and-forwards over RING_DATA moving by
    rotations, the next one committed (ring_rotation): run each node's
    waiting repetition (ring_rpts), node after node, and commit the next
    rotation at once, while every node waits for it again.  These are the
    turns the scheduler's passes would give (the same functions, the same
    order of decisions by cycle stamps: any order gives the same results),
    without a pass's bookkeeping for each node.  It leaves the rest to the
    passes after a round in which a node is in any other state (its RPTS
    ended, the horizon, the budget), before or after its turn (the others
    have had theirs: any order gives the same results), or at once when a
    node stops (so the horizon stays the one read at the start); not with a
    quantum (its own limits per turn) or from a thread of a node group."""
    cdef Node* nodes = s.nodes
    cdef int count = s.count, j, i, other
    cdef int64_t lim
    cdef Node* n
    if s.quantum > 0:
        return
    lim = rap_load64(&s.horizon)
    while True:
        if budget[0] < count:
            return
        other = 0
        for j in range(count):
            i = s.order[j]
            n = &nodes[i]
            if not rotation_ready(n, lim):
                other = 1               # left as it is: a pass finds it
                continue
            n.status = ST_RUNNING
            # the ring loops' own form (ringfast.pxi), else ring_rpts' general one
            if not rotation_turn(n, lim, budget) and ring_rpts(n, lim, budget) == 0:
                return                  # not ring_rpts' case after all: the passes run it
            if n.status != ST_RING_WRITE:
                if stop_event(n.status) >= 0:
                    note_stop(s, i)
                    return
                other = 1
        if other or not ring_rotation(nodes, count):
            return


cdef int sched_pass(Sched* s, int32_t* order, int norder, int* progress, int* active,
                    int64_t* budget, int64_t chunk=0, int* coarse=NULL) noexcept nogil:
    """Give each node of order[0..norder) its turn: run it until it stops,
    waits, reaches the horizon (or its quantum) or the budget is spent.  A
    waiting node is tried again only if what it waits for changed
    (may_proceed).  Sets *progress if a node moved and counts in *active the
    nodes still running or waiting; EV_YIELD when the budget is spent, else
    -1.  With ``chunk`` > 0 a turn is at most ``chunk`` instructions, and
    *coarse counts the nodes that used a whole turn (run_machine_threads)."""
    cdef int j, i, st
    cdef uint64_t before, before_dma
    cdef int64_t lim, turn, spent
    cdef Node* n
    for j in range(norder):
        i = order[j]
        n = &s.nodes[i]
        if waiting(n.status):
            if not may_proceed(n):
                active[0] += 1      # still waiting: trying again would change nothing
                continue
            n.status = ST_RUNNING
        if n.status != ST_RUNNING:
            continue
        before = n.instret
        before_dma = n.p.dma_acc
        lim = rap_load64(&s.horizon)
        if s.quantum > 0 and n.cycle + s.quantum < lim:
            lim = n.cycle + s.quantum
        if chunk > 0:
            turn = i64min(chunk, budget[0])
            spent = turn
            st = run_node(n, lim, &turn) if n.probe == NULL else probed_runner(n, lim, &turn)
            spent -= turn
            budget[0] -= spent
            if spent >= chunk and st == ST_RUNNING:
                coarse[0] += 1
                if 2 * coarse[0] >= s.count:
                    # half the nodes compute: the rounds over every node hand
                    # back to the groups whatever the other nodes do
                    # (global_rounds), so they are left to the groups
                    progress[0] = 1
                    active[0] += 1
                    return -1
        else:
            st = run_node(n, lim, budget) if n.probe == NULL else probed_runner(n, lim, budget)
        if n.instret != before or n.p.dma_acc != before_dma:
            progress[0] = 1
        if stop_event(st) >= 0:
            note_stop(s, i)
            continue
        if budget[0] <= 0:
            return EV_YIELD
        if st == ST_RUNNING or waiting(st):
            active[0] += 1
            if st == ST_RUNNING and n.cycle < rap_load64(&s.horizon):
                progress[0] = 1
    return -1


cdef int sched_final(Sched* s, int* who) noexcept nogil:
    if s.pending >= 0:
        who[0] = s.pending
        return stop_event(s.nodes[s.pending].status)
    return EV_DONE


cdef int sched_settle(Sched* s, int active, int progress, int* who, int64_t* budget) noexcept nogil:
    """After a pass over every node: -1 to go on, or the call's event.  When
    nobody moved: nodes waiting only for the horizon, a rotation of the
    whole ring, RING_STAT waits freed by raised lower bounds, the pending
    stop, else deadlock or the cycle limit."""
    cdef int i, st
    cdef uint64_t before, before_dma
    cdef Node* nodes = s.nodes
    cdef int count = s.count
    cdef Node* n
    if active == 0:
        return sched_final(s, who)
    if progress:
        # a full ring of read-and-forwards that moved by one rotation waits
        # for the next one: commit it now rather than after a pass that
        # finds nobody can move (the same state, so the same cycle T)
        s.rotated = ring_rotation(nodes, count)
        if s.rotated:
            rotation_rounds(s, budget)
        return -1
    # nobody moved: are the waiting nodes only waiting for the limit?
    for i in range(count):
        n = &nodes[i]
        if n.status == ST_RUNNING and n.cycle < s.horizon:
            return -1
    if ring_rotation(nodes, count):
        s.rotated = 1
        return -1
    lower_bounds(nodes, count)
    for i in range(count):
        n = &nodes[i]
        if n.status == ST_RING_SYNC or (waiting(n.status) and n.periph_on and n.p.dma_run):
            n.status = ST_RUNNING
            before = n.instret
            before_dma = n.p.dma_acc
            st = run_node(n, s.horizon, budget) if n.probe == NULL \
                else probed_runner(n, s.horizon, budget)
            if stop_event(st) >= 0:
                note_stop(s, i)
                return -1
            if budget[0] <= 0:
                return EV_YIELD
            if n.instret != before or n.p.dma_acc != before_dma:
                return -1
    if s.pending >= 0:
        return sched_final(s, who)
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


cdef int run_machine(Node* nodes, int count, int64_t limit, int64_t quantum, int32_t* order,
                     int* who, int64_t* budget) noexcept nogil:
    """Run every node until an event, on this host thread.  Scheduling knobs
    that must not change any result (tests check this): ``quantum`` (cycles
    a node runs before the next one gets its turn; 0 = until it stops or
    waits) and ``order`` (the order nodes take turns in).  After about
    budget[0] instructions the call returns EV_YIELD, and a new call goes on
    where it stopped.

    The event reported is the first in simulated time, whatever the
    interleaving: when a node stops (an error, a breakpoint, IDLE, a host
    call), it becomes the pending stop and the other nodes run on only up to
    its cycle (the horizon); one of them stopping earlier takes its place.
    When no node below the horizon can move, the pending stop is reported
    (ties: the lower node number)."""
    cdef Sched s
    cdef int progress, active, r
    sched_init(&s, nodes, count, limit, quantum, order)
    while True:
        progress = 0
        active = 0
        if sched_pass(&s, order, count, &progress, &active, budget) == EV_YIELD:
            return EV_YIELD
        r = sched_settle(&s, active, progress, who, budget)
        if r >= 0:
            return r


# --- node groups on host threads --------------------------------------------
#
# run_machine_threads splits the nodes into contiguous groups, one per host
# thread.  Each thread runs sched_pass over its own group, exactly as
# run_machine does over all nodes; the groups meet only on the links that
# join them (Link.shared: each access holds the link's lock, ring.pxi) and
# through the neighbours' lower bounds (a RING_STAT decision).  Every ring
# access is decided by cycle stamps, so a reader whose word is not there yet
# waits and is tried again when the link changes -- the conservative rule:
# nothing is decided before the stamps that decide it exist.  Results and
# counters are those of run_machine (any interleaving gives them).
#
# What needs every node at once -- a rotation of the whole ring, the lower
# bounds that free RING_STAT waits, the pending stop, deadlock and the cycle
# limit -- is decided when no group can move: the threads meet (nstuck ==
# nthreads) and the last one to arrive runs rounds of run_machine over
# every node (sched_pass + sched_settle) while the others wait.  It goes on
# with such rounds while no node runs a whole turn of SERIAL_CHUNK
# instructions, or the ring rotates and fewer than half the nodes do (a
# ring-bound phase: every step of a node needs its neighbours, so the
# groups would meet at every rotation or ring word), and hands back to the
# groups in parallel otherwise (nodes compute again), or ends the call with
# the round's event.  A call
# after one that ended in such rounds starts with them (run_machine_threads,
# Machine.serial).  Only the simulated state (the turns the nodes run)
# decides, and no result depends on it.  A stop (host call, error, SWI, IDLE) is
# noted under the lock and lowers the horizon for every group; the call
# returns only when the threads meet, so the event reported -- and so the
# host call the daemon serves next, with the GIL, in Python -- is the first
# in simulated time (ties: the lower node), as with one thread.

cdef enum:
    # a node's turn in the rounds over every node; when half the nodes run
    # whole turns, the machine goes back to its groups in parallel (64: the
    # round that finds the nodes computing again runs little on one thread;
    # a ring-bound phase's turns are a few instructions)
    SERIAL_CHUNK = 64
    # spins of a waiting thread between two sched_yield()
    SPINS_PER_YIELD = 64
    # meetings a thread declines in a row for a stale wait (worker_wait)
    DECLINE_TRIES = 32
    # instructions a node between two waits of its group below which the
    # second wait is a ring word's hand-off (worker_wait)
    HANDOFF_WORK = 8
    # hand-off waits in a row after which a thread asks to meet, per node of
    # the machine (the default of Machine.handoff_waits: an all-gather hands
    # each group fewer words than there are nodes; 0 never asks)
    HANDOFF_WAITS_PER_NODE = 2


cdef struct Worker:
    # One per thread, in one array: the budget is written at every simulated
    # instruction (run_node), so each record is padded to keep the others
    # off its cache lines (two threads writing one line slow both down).
    char pad0[64]
    Sched* s
    int32_t* order          # this group's nodes, in the run's order
    int norder
    int64_t budget          # instructions this thread may run before the call yields
    rap_thread_t tid
    # this thread's figures (ThreadStats), summed into the machine's at the end
    int64_t wait_ns         # in worker_wait, the rounds over every node included
    int64_t global_ns       # ... of which running those rounds
    int64_t cpu_ns
    int64_t sleeps
    int64_t waits
    int64_t declined
    int64_t pass_moves      # Sched.moves when this thread's last pass began
    int declines            # meetings this thread declined in a row (worker_wait)
    int64_t budget_mark     # budget at this thread's last wait: the work since is the difference
    int64_t handoffs
    int64_t asked
    int handoff_run         # hand-off waits in a row
    char pad1[64]


cdef inline void sched_request_stop(Sched* s, int ev) noexcept nogil:
    rap_spin_lock(&s.ctl)
    if not s.stop:
        s.result = ev
        rap_store32(&s.stop, 1)
    rap_spin_unlock(&s.ctl)


cdef int group_could_move(Sched* s, Worker* w) noexcept nogil:
    """Could a node of w's group move now?  (Read only: a hint for a waiting
    thread; the pass that follows decides.)"""
    cdef int j
    cdef Node* n
    cdef int64_t h = rap_load64(&s.horizon)
    for j in range(w.norder):
        n = &s.nodes[w.order[j]]
        if n.status == ST_RUNNING:
            if n.cycle < h:
                return 1
        elif waiting(n.status) and may_proceed(n):
            return 1
    return 0


cdef int global_rounds(Sched* s, Worker* w) noexcept nogil:
    """Rounds over every node, by this thread alone (see above): -1 to go back
    to the groups in parallel (nodes ran whole turns: s.serial is 0), else
    the call's event."""
    cdef int r, i
    cdef int64_t c0 = node_cycles(s.nodes, s.count), t0 = rap_now_ns()
    for i in range(s.count):
        s.gserial[s.group[i]] -= <int64_t>s.nodes[i].instret
    r = global_rounds_run(s, w)
    for i in range(s.count):
        s.gserial[s.group[i]] += <int64_t>s.nodes[i].instret
    s.st.cycles_serial += node_cycles(s.nodes, s.count) - c0
    s.st.serial_ns += rap_now_ns() - t0
    return r


cdef int global_rounds_run(Sched* s, Worker* w) noexcept nogil:
    cdef int r, progress, active, coarse
    while True:
        progress = 0
        active = 0
        coarse = 0
        s.st.rounds += 1
        if sched_pass(s, s.order, s.count, &progress, &active, &w.budget, SERIAL_CHUNK,
                      &coarse) == EV_YIELD or w.budget <= 0:
            return EV_YIELD
        s.rotated = 0
        r = sched_settle(s, active, progress, &s.who, &w.budget)
        # one thread while no node runs a whole turn, or while the ring
        # rotates and fewer than half do
        s.serial = coarse == 0 or (s.rotated and 2 * coarse < active)
        if r >= 0 or not s.serial:
            return r


cdef int stale_wait(Sched* s) noexcept nogil:
    """Did a group move a node since some thread's last pass began?  (Under
    s.ctl, with every thread waiting.)"""
    cdef Worker* ws = <Worker*>s.workers
    cdef int64_t m = rap_load64(&s.moves)
    cdef int g
    for g in range(s.nthreads):
        if ws[g].pass_moves != m:
            return 1
    return 0


cdef void worker_wait(Sched* s, Worker* w) noexcept nogil:
    """w's group cannot move: wait until a neighbour group changes something
    it waits for, or -- the last thread to get here -- run the rounds over
    every node (see above) while the others sleep."""
    cdef int64_t t0 = rap_now_ns()
    cdef int64_t work = w.budget_mark - w.budget
    w.waits += 1
    w.budget_mark = w.budget
    # A group that waits again after little work -- some, but fewer than
    # HANDOFF_WORK instructions a node since its last wait -- waits for ring words its
    # neighbour group hands over one or two at a time: a ring-bound phase
    # (a collective), where every word that crosses a group boundary costs a
    # hand-off between threads.  After handoff_waits such waits in a row the
    # thread asks the others to meet, and the rounds over every node run the
    # phase on one thread until the nodes compute again (global_rounds).
    if work == 0:
        pass                        # woken for nothing (another group's move): no news
    elif work < HANDOFF_WORK * w.norder:
        w.handoffs += 1
        w.handoff_run += 1
        if s.handoff_waits > 0 and w.handoff_run >= s.handoff_waits \
                and not rap_load32(&s.want_meet):
            rap_store32(&s.want_meet, 1)
            w.asked += 1
            w.handoff_run = 0
    else:
        w.handoff_run = 0
    worker_wait_run(s, w)
    w.wait_ns += rap_now_ns() - t0


cdef void worker_wait_run(Sched* s, Worker* w) noexcept nogil:
    cdef int epoch, r, spins = 0
    rap_spin_lock(&s.ctl)
    if s.stop:
        rap_spin_unlock(&s.ctl)
        return
    epoch = s.epoch
    s.nstuck += 1
    if s.nstuck == s.nthreads and w.declines < DECLINE_TRIES and not s.want_meet \
            and stale_wait(s):
        # Not a meeting (yet): a group moved since a waiting thread's pass
        # began (s.moves), so that pass may have missed a ring word or room
        # its neighbour group gave it -- the race of two passes that end at
        # once.  That thread sees s.moves change in its wait loop and goes
        # back to its passes; so does this one.  Before this check such a
        # race sent the machine to the rounds over every node, on one
        # thread, until the nodes computed again (ThreadStats: declined).
        # After DECLINE_TRIES in a row the meeting is held all the same: the
        # other thread has no core (a loaded host), and this one runs the
        # rounds over every node rather than wait for it.
        s.nstuck -= 1
        rap_spin_unlock(&s.ctl)
        w.declined += 1
        w.declines += 1
        return
    w.declines = 0
    if s.nstuck == s.nthreads:
        rap_store32(&s.in_global, 1)
        rap_store32(&s.want_meet, 0)
        rap_spin_unlock(&s.ctl)
        s.st.meetings += 1
        w.global_ns -= rap_now_ns()
        r = global_rounds(s, w)
        w.global_ns += rap_now_ns()
        rap_spin_lock(&s.ctl)
        s.nstuck = 0
        if r >= 0 and not s.stop:
            s.result = r
            rap_store32(&s.stop, 1)
        rap_store32(&s.epoch, epoch + 1)
        rap_store32(&s.in_global, 0)
        rap_spin_unlock(&s.ctl)
        rap_mutex_lock(&s.mu)
        rap_cond_broadcast(&s.cv)
        rap_mutex_unlock(&s.mu)
        return
    rap_spin_unlock(&s.ctl)
    while True:
        if rap_load32(&s.epoch) != epoch or rap_load32(&s.stop):
            return
        if rap_load32(&s.in_global):
            rap_mutex_lock(&s.mu)
            while rap_load32(&s.in_global) and rap_load32(&s.epoch) == epoch:
                w.sleeps += 1
                rap_cond_wait(&s.cv, &s.mu)
            rap_mutex_unlock(&s.mu)
            continue
        if rap_load32(&s.want_meet):
            pass                    # stay: a meeting was asked for
        elif rap_load64(&s.moves) != w.pass_moves or group_could_move(s, w):
            rap_spin_lock(&s.ctl)
            if s.epoch == epoch and not s.in_global and not s.stop:
                s.nstuck -= 1
                rap_spin_unlock(&s.ctl)
                return
            rap_spin_unlock(&s.ctl)
        spins += 1
        if spins % SPINS_PER_YIELD == 0:
            rap_yield()             # the host may have fewer free cores than threads
        else:
            RAP_CPU_RELAX()


cdef void* worker_main(void* arg) noexcept nogil:
    cdef Worker* w = <Worker*>arg
    cdef Sched* s = w.s
    cdef int64_t cpu0 = rap_thread_cpu_ns()
    worker_loop(w, s)
    w.cpu_ns = rap_thread_cpu_ns() - cpu0
    return NULL


cdef void worker_loop(Worker* w, Sched* s) noexcept nogil:
    cdef int progress, active
    while not rap_load32(&s.stop):
        progress = 0
        active = 0
        w.pass_moves = rap_load64(&s.moves)
        if sched_pass(s, w.order, w.norder, &progress, &active, &w.budget) == EV_YIELD:
            sched_request_stop(s, EV_YIELD)
            break
        if progress:
            rap_add64(&s.moves, 1)
            w.declines = 0
            if rap_load32(&s.want_meet):
                worker_wait(s, w)   # another thread asked to meet
        else:
            worker_wait(s, w)


cdef void split_groups(Node* nodes, int count, int nthreads, int* group) noexcept nogil:
    """group[i]: the group of node i.  Contiguous groups (node numbers in
    ring order), at least one node each, that share out the instructions
    the nodes have run so far (Node.instret, a simulated counter: the same
    split for the same simulated state) as evenly as contiguity allows --
    so that a node group whose nodes run more (a layer's units not divided
    evenly by the node count, node 0's extra work) is smaller.  With every
    node at the same count (a new machine, an SPMD kernel) group g starts
    at node g*count/nthreads rounded, halves down."""
    cdef int64_t total = 0, cum = 0
    cdef int i, g = 0, first = 0
    for i in range(count):
        total += nodes[i].instret + 1
    # node i goes to the group its middle falls in: the group g whose share
    # [g*total/n, (g+1)*total/n) holds cum + weight/2 -- within the bounds
    # that leave every group (this one and the ones after) a node
    for i in range(count):
        while g < nthreads - 1 and i > first and \
                (2 * cum + nodes[i].instret + 1) * nthreads >= 2 * (g + 1) * total:
            g += 1
            first = i
        if g < nthreads - 1 and count - i == nthreads - 1 - g and i > first:
            g += 1                  # one node left for each group still to come
            first = i
        group[i] = g
        cum += nodes[i].instret + 1


cdef int run_machine_threads(Node* nodes, int count, int64_t limit, int64_t quantum,
                             int32_t* order, int nthreads, int* who, int64_t* budget,
                             int* serial, ThreadStats* st, int handoff_waits) noexcept nogil:
    """run_machine with the nodes split into nthreads contiguous groups
    (2 <= nthreads <= count), each on its own host thread (see above); the
    same results and counters.  -1 if a thread cannot be started or memory
    allocated (nothing was run; the caller runs on one thread).

    serial[0] (the machine keeps it from one call to the next): in, the last
    call ended in rounds over every node with short turns -- the call then
    starts with such rounds on this thread and starts the other threads only
    when they find the nodes running whole turns (a host call in a
    ring-bound phase costs no thread start); out, whether this call ended
    so.  Only the simulated state decides it (the turns nodes run), and no
    result depends on it.  st: the machine's figures, added to."""
    cdef Sched s
    cdef Worker* ws
    cdef int32_t* orders
    cdef int g, i, j, k, r, started = 0, failed = 0
    cdef int* group
    cdef int64_t* gstart
    cdef int64_t* gserial
    cdef int64_t worst
    cdef int64_t c0 = node_cycles(nodes, count), serial0 = st.cycles_serial
    cdef int64_t cpu0 = rap_thread_cpu_ns()
    sched_init(&s, nodes, count, limit, quantum, order)
    s.st = st
    ws = <Worker*>calloc(nthreads, sizeof(Worker))
    orders = <int32_t*>calloc(count, sizeof(int32_t))
    group = <int*>calloc(count, sizeof(int))
    gstart = <int64_t*>calloc(2 * nthreads, sizeof(int64_t))
    if ws == NULL or orders == NULL or group == NULL or gstart == NULL:
        free(ws)
        free(orders)
        free(group)
        free(gstart)
        return -1
    gserial = &gstart[nthreads]
    s.threaded = 1
    s.nthreads = nthreads
    s.workers = ws
    s.handoff_waits = handoff_waits
    rap_mutex_init(&s.mu)
    rap_cond_init(&s.cv)
    split_groups(nodes, count, nthreads, group)
    s.group = group
    s.gserial = gserial
    for i in range(count):
        gstart[group[i]] += <int64_t>nodes[i].instret
    k = 0
    for g in range(nthreads):
        ws[g].s = &s
        ws[g].order = &orders[k]
        ws[g].norder = 0
        ws[g].budget = budget[0] // nthreads + 1
        ws[g].budget_mark = ws[g].budget
        for j in range(count):
            if group[order[j]] == g:
                orders[k] = order[j]
                k += 1
                ws[g].norder += 1
    for i in range(count):
        nodes[i].rout.shared = group[i] != group[(i + 1) % count]
        nodes[i].rout.lock = 0
    if serial[0]:
        # go on with the rounds over every node the last call ended in
        st.serial_starts += 1
        r = global_rounds(&s, &ws[0])
        if r >= 0:
            s.result = r
            s.stop = 1
    if not s.stop:
        for g in range(1, nthreads):
            if rap_thread_start(&ws[g].tid, worker_main, &ws[g]) != 0:
                failed = 1
                break
            started += 1
        if failed:
            # the threads started end at once: the call yields with nothing lost
            sched_request_stop(&s, EV_YIELD)
        else:
            worker_main(&ws[0])
    for g in range(1, started + 1):
        rap_thread_join(&ws[g].tid)
    for i in range(count):
        nodes[i].rout.shared = 0
    st.threaded_calls += 1
    st.thread_starts += started
    st.cycles_parallel += node_cycles(nodes, count) - c0 - (st.cycles_serial - serial0)
    st.caller_cpu_ns += rap_thread_cpu_ns() - cpu0
    # each group's instructions outside the rounds over every node
    for i in range(count):
        gstart[group[i]] -= <int64_t>nodes[i].instret
    worst = 0
    for g in range(nthreads):
        gstart[g] = -gstart[g] - gserial[g]
        st.instr_serial += gserial[g]
        st.instr_parallel += gstart[g]
        worst = i64max(worst, gstart[g])
    st.instr_group_max += worst
    for g in range(nthreads):
        st.wait_ns += ws[g].wait_ns - ws[g].global_ns
        st.sleeps += ws[g].sleeps
        st.waits += ws[g].waits
        st.declined += ws[g].declined
        st.handoffs += ws[g].handoffs
        st.asked += ws[g].asked
        if g > 0:
            st.helper_cpu_ns += ws[g].cpu_ns
    rap_cond_destroy(&s.cv)
    rap_mutex_destroy(&s.mu)
    free(ws)
    free(orders)
    free(group)
    free(gstart)
    if failed and started == 0 and not serial[0]:
        return -1
    serial[0] = s.serial
    if s.result == EV_YIELD:
        budget[0] = 0
    who[0] = s.who
    return s.result
