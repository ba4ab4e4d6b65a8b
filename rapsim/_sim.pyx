# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The cycle-level core of the RAP simulator (C-level Cython, no Python object
per simulated instruction).

The model lives in rapsim/core/*.pxi, one concern per file: state.pxi (the
node and link structs), memory.pxi (address decoding), decode.pxi (the
pre-decoder over the generated ISA table), fpu.pxi and alu.pxi (arithmetic),
ops.pxi (instruction semantics), execute.pxi (one instruction through the
pipeline stages), fast.pxi (the common case of execute.pxi without its checks for rare cases), timing.pxi (every cycle rule), ring.pxi (the ring), periph.pxi (the on-chip DMA
and timers), schedule.pxi (running many nodes, also in groups on host
threads) and sync.pxi (those threads' locks and atomic loads and stores).  This module only wraps them for Python:
see rapsim.machine for the documented API.
"""
import numpy as np
cimport numpy as cnp
from libc.string cimport memcpy, memset
from cpython.exc cimport PyErr_CheckSignals

include "_isa_gen.pxi"
include "core/state.pxi"
include "core/sync.pxi"
include "core/memory.pxi"
include "core/fpu.pxi"
include "core/alu.pxi"
include "core/timing.pxi"
include "core/ring.pxi"
include "core/decode.pxi"
include "core/periph.pxi"
include "core/hostcall.pxi"
include "core/execute.pxi"
include "core/ops.pxi"
include "core/fast.pxi"
include "core/ringfast.pxi"
include "core/probe.pxi"
include "core/schedule.pxi"

cnp.import_array()

# Python names of the C enums (rapsim.machine maps them to text).
EVENTS = {EV_DONE: "done", EV_HOSTCALL: "hostcall", EV_ERROR: "error", EV_BREAK: "break",
          EV_LIMIT: "limit", EV_DEADLOCK: "deadlock", EV_IDLE: "idle"}
STATUS = {ST_RUNNING: "running", ST_EXITED: "exited", ST_ERROR: "error", ST_HOSTCALL: "hostcall",
          ST_RING_READ: "ring-read", ST_RING_WRITE: "ring-write", ST_RING_SYNC: "ring-sync",
          ST_IDLE: "idle", ST_BREAK: "break", ST_LIMIT: "limit"}
ERRORS = {ERR_NONE: "none", ERR_ILLEGAL: "illegal instruction",
          ERR_FETCH: "instruction fetch from an unmapped address",
          ERR_READ: "data read from an unmapped address",
          ERR_WRITE: "data write to an unmapped or read-only address",
          ERR_DELAY_SLOT: "branch, call, return, trap, repeat or IDLE in the delay slots of a delayed branch",
          ERR_RPTS_TARGET: "RPTS cannot repeat a branch, call, return, trap, repeat or IDLE",
          ERR_HOST: "host call rejected",
          ERR_RING_MULTI: "more than one ring read or ring write in one instruction",
          ERR_DMA: "DMA transfer from or to an address the DMA channel cannot use (unmapped, a "
                   "peripheral register, or a ring register other than RING_DATA)",
          ERR_DMA_RING: "RING_DATA used by the CPU in the direction the running DMA transfer "
                        "streams",
          ERR_DMA_PRI: "DMA priority mode (global control bits 13-12) 01 or 10: rotating "
                       "CPU/DMA arbitration is not modelled (00: CPU first, 11: DMA first)"}
STALL_CAUSES = ("branch", "register_conflict", "memory_wait", "bus_conflict",
                "ring_read", "ring_write", "host_call")
REGION_NAMES = ("SRAM", "DRAM", "RAM0", "RAM1", "RINGIO")
#: the causes of a trace record's stall cycles: the core's, then the CPU's
#: waits for a DMA access (periph.pxi) and the cycles asleep in IDLE
TRACE_CAUSES = STALL_CAUSES + ("dma", "idle")
#: trace record kinds (TraceRec.kind, core/probe.pxi)
RECORD_KINDS = {RK_INSTR: "instruction", RK_INTERRUPT: "interrupt", RK_IDLE: "idle",
                RK_DMA_RING: "dma-ring"}
#: interrupt flags by IF bit (guide 3.1.8)
INTERRUPT_NAMES = ("INT0", "INT1", "INT2", "INT3", "XINT0", "RINT0", "XINT1", "RINT1",
                   "TINT0", "TINT1", "DINT")

#: numpy dtype of one trace record (TraceRec in core/probe.pxi, packed)
TRACE_DTYPE = np.dtype([
    ("cycle", "<i8"), ("t_exec", "<i8"), ("end", "<i8"), ("pc", "<u4"), ("word", "<u4"),
    ("node", "<i4"), ("status", "u1"), ("nreg", "u1"), ("nmem", "u1"), ("rpts", "u1"),
    ("kind", "u1"), ("irq", "u1"), ("dma_words", "<u4"), ("stall", "<u4", (NTRACE_CAUSE,)),
    ("reg", "u1", (TR_MAXREG,)), ("rexp", "i1", (TR_MAXREG,)),
    ("regval", "<u4", (TR_MAXREG,)), ("mkind", "u1", (TR_MAXMEM,)), ("maddr", "<u4", (TR_MAXMEM,)),
    ("mval", "<u4", (TR_MAXMEM,)), ("mtime", "<i8", (TR_MAXMEM,))])
assert TRACE_DTYPE.itemsize == sizeof(TraceRec)
HITS = {HIT_NONE: None, HIT_BREAK: "break", HIT_WATCH_MEM: "watch-memory",
        HIT_WATCH_REG: "watch-register", HIT_FULL: "trace-full"}

#: True if this build can split a machine over host threads (POSIX threads,
#: core/sync.pxi); False: every run is on one thread whatever ``threads`` says
HOST_THREADS = bool(RAP_HAVE_THREADS)

#: instructions simulated between two checks for Ctrl-C (a few milliseconds)
RUN_SLICE = 1 << 20


def split_groups_of(instret, int nthreads):
    """The node groups run_machine_threads would make for nodes that have run
    ``instret`` instructions each, on ``nthreads`` threads: the group of each
    node (core/schedule.pxi, split_groups; tests and docs)."""
    cdef int count = len(instret), i
    cdef Node* nodes
    cdef int* group
    if not 1 <= nthreads <= count:
        raise ValueError(f"1..{count} groups, not {nthreads}")
    nodes = <Node*>calloc(count, sizeof(Node))
    group = <int*>calloc(count, sizeof(int))
    try:
        if nodes == NULL or group == NULL:
            raise MemoryError("cannot allocate the groups")
        for i in range(count):
            if instret[i] < 0:
                raise ValueError("instruction counts are at least 0")
            nodes[i].instret = instret[i]
        split_groups(nodes, count, nthreads, group)
        return [group[i] for i in range(count)]
    finally:
        free(nodes)
        free(group)


cdef void reset_node(Node* n) noexcept nogil:
    cdef int i
    for i in range(32):
        n.r[i] = 0
    for i in range(8):
        n.rexp[i] = FZERO_EXP
    n.pc = 0
    n.dslots = 0
    n.dtarget = 0
    n.dtaken = 0
    n.rpts = 0
    n.rpts_ring = 0
    n.rpts_pc = 0
    n.rptb_skip = 0
    n.fwd_count = 0
    n.status = ST_RUNNING
    n.err_code = ERR_NONE
    n.err_pc = 0
    n.err_word = 0
    n.err_addr = 0
    n.hostcall_addr = 0
    n.prev_pc = NO_PC
    n.exit_status = 0
    n.cycle = 0
    n.instret = 0
    for i in range(NSTALL):
        n.stall[i] = 0
    for i in range(NREGION_ALL):
        n.acc_read[i] = 0
        n.acc_write[i] = 0
        n.acc_fetch[i] = 0
    n.cache_hits = 0
    n.cache_misses = 0
    n.ring_sent = 0
    n.ring_received = 0
    n.ring_forwarded = 0
    n.host_calls = 0
    for i in range(3):
        n.grp_ready[i] = 0
    cache_clear(n)
    n.pend_valid = 0
    n.rdec.valid = 0
    n.lb = 0
    periph_reset(n)


#: The most one host call may cost (rapsim.config.MAX_EXTRA_CYCLES): with run
#: limits below 2**62 no cycle count can wrap 64 bits.
MAX_HOSTCALL_CYCLES = 1 << 40


cdef dict node_counters(Node* n):
    """Every counter of a node (Machine.counters; a staged host call's copy
    of the node, hostcall.pxi)."""
    return {
        "cycles": n.cycle,
        "instructions": n.instret,
        "stalls": {STALL_CAUSES[k]: n.stall[k] for k in range(NSTALL)},
        "reads": {REGION_NAMES[k]: n.acc_read[k] for k in range(NREGION)},
        "writes": {REGION_NAMES[k]: n.acc_write[k] for k in range(NREGION)},
        "fetches": {REGION_NAMES[k]: n.acc_fetch[k] for k in range(NREGION)},
        "cache": {"hits": n.cache_hits, "misses": n.cache_misses},
        "ring": {"sent": n.ring_sent, "received": n.ring_received,
                 "forwarded": n.ring_forwarded},
        "host_calls": n.host_calls,
        "periph": {
            "dma_words": n.p.dma_words,
            "cpu_lost_to_dma": n.p.cpu_lost,
            "dma_lost_to_cpu": n.p.dma_lost,
            "dma_ring_wait": n.p.dma_ring_wait,
            "idle_cycles": n.p.idle_cycles,
            "interrupts": {INTERRUPT_NAMES[k]: n.p.ints[k] for k in range(11)},
        },
    }


cdef class Machine:
    """N simulated nodes joined by the ring (low level; see rapsim.machine)."""
    cdef Node* nodes
    cdef Link* links
    cdef readonly int count
    cdef int serial     # the last threaded call ended in rounds over every node (schedule.pxi)
    cdef ThreadStats tstats     # what running the nodes cost the host (thread_stats)
    #: hand-off waits in a row after which a thread asks the others to meet
    #: and run a ring-bound phase on one thread (schedule.pxi, worker_wait;
    #: 0: never); a tuning of the host threads, never of a result
    cdef public int handoff_waits

    def __cinit__(self, int count, uint32_t sram_words, uint32_t dram_words, waits,
                  int64_t hostcall_cycles):
        cdef int i
        cdef Node* n
        if count < 1:
            raise ValueError("a machine needs at least one node")
        if not 0 <= hostcall_cycles <= MAX_HOSTCALL_CYCLES:
            raise ValueError(f"a host call costs 0..{MAX_HOSTCALL_CYCLES} cycles, "
                             f"not {hostcall_cycles}")
        if len(waits) != NREGION or not all(0 <= w <= 255 for w in waits):
            raise ValueError(f"waits: {NREGION} wait-state counts 0..255 (SRAM, DRAM, RAM0, "
                             "RAM1, RINGIO)")
        self.nodes = <Node*>calloc(count, sizeof(Node))
        self.links = <Link*>calloc(count, sizeof(Link))
        if self.nodes == NULL or self.links == NULL:
            raise MemoryError("cannot allocate the machine")
        self.count = count
        self.handoff_waits = HANDOFF_WAITS_PER_NODE * count
        for i in range(count):
            n = &self.nodes[i]
            if alloc_node_memory(n, sram_words, dram_words) != 0:
                raise MemoryError(f"cannot allocate the memory of node {i}")
            for j, wv in enumerate(waits):
                n.wait[j] = wv
            n.wait[RG_PERIPH] = 0       # peripheral registers: no wait states
            n.hostcall_cycles = hostcall_cycles
            n.node_id = i
            n.node_count = count
            n.rin = &self.links[(i - 1 + count) % count]
            n.rout = &self.links[i]
            n.up = &self.nodes[(i - 1 + count) % count]
            n.down = &self.nodes[(i + 1) % count]
            reset_node(n)
            link_reset(&self.links[i])

    def __dealloc__(self):
        cdef int i
        if self.nodes != NULL:
            for i in range(self.count):
                self._free_probe(&self.nodes[i])
                hostcall_clear(&self.nodes[i])
                free_node_memory(&self.nodes[i])
            free(self.nodes)
        if self.links != NULL:
            free(self.links)

    cdef Node* _node(self, int i) except NULL:
        if i < 0 or i >= self.count:
            raise IndexError(f"node {i} does not exist (0..{self.count - 1})")
        return &self.nodes[i]

    def reset(self):
        """Reset every node (registers, counters, pipeline) and the ring;
        memory is kept.  PC is loaded from the reset vector (word 0)."""
        cdef int i
        for i in range(self.count):
            reset_node(&self.nodes[i])
            hostcall_clear(&self.nodes[i])      # (staged replies were for the old run)
            self.nodes[i].pc = self.nodes[i].sram[0] & 0xFFFFFF if self.nodes[i].sram_words else 0
            link_reset(&self.links[i])

    # -- memory --------------------------------------------------------------
    cdef uint32_t* _span(self, Node* n, uint32_t addr, uint32_t count) except? NULL:
        cdef int rg = region_of(n, addr)
        cdef int rg2
        if count == 0:
            return NULL
        rg2 = region_of(n, addr + count - 1)
        if rg >= RG_RINGIO or rg2 != rg or count > (1 << 24):
            raise ValueError(f"address range 0x{addr:06X}..0x{addr + count - 1:06X} is not "
                             "inside one memory region")
        return word_ptr(n, addr, rg)

    def write(self, int i, uint32_t addr, words):
        """Store words (a uint32 array) at addr of node i."""
        cdef Node* n = self._node(i)
        cdef cnp.ndarray[cnp.uint32_t, ndim=1] a = np.ascontiguousarray(words, dtype=np.uint32)
        cdef uint32_t cnt = a.shape[0]
        cdef uint32_t* p
        cdef uint32_t k
        if cnt == 0:
            return
        # the two on-chip blocks are contiguous storage
        if cnt <= 2 * RAP_ONCHIP_BLOCK_SIZE and region_of(n, addr) in (RG_RAM0, RG_RAM1) \
                and region_of(n, addr + cnt - 1) in (RG_RAM0, RG_RAM1):
            p = word_ptr(n, addr, RG_RAM0)
        else:
            p = self._span(n, addr, cnt)
        memcpy(p, &a[0], cnt * sizeof(uint32_t))
        for k in range(cnt):
            invalidate_code(n, addr + k)

    def read(self, int i, uint32_t addr, uint32_t count):
        """count words from addr of node i, as a uint32 array."""
        cdef Node* n = self._node(i)
        cdef cnp.ndarray[cnp.uint32_t, ndim=1] a
        cdef uint32_t* p = NULL
        if count > 0:       # the range is checked before anything is allocated
            if count <= 2 * RAP_ONCHIP_BLOCK_SIZE and region_of(n, addr) in (RG_RAM0, RG_RAM1) \
                    and region_of(n, addr + count - 1) in (RG_RAM0, RG_RAM1):
                p = word_ptr(n, addr, RG_RAM0)
            else:
                p = self._span(n, addr, count)
        a = np.zeros(count, dtype=np.uint32)
        if count == 0:
            return a
        memcpy(&a[0], p, count * sizeof(uint32_t))
        return a

    def mapped(self, int i, uint32_t addr, uint32_t count=1):
        """True if [addr, addr+count) is plain memory of node i."""
        cdef Node* n = self._node(i)
        cdef int rg = region_of(n, addr)
        if count == 0:
            return True
        if count > (1 << 24):       # addr + count - 1 would wrap round
            return False
        return rg < RG_RINGIO and region_of(n, addr + count - 1) < RG_RINGIO and \
            (region_of(n, addr + count - 1) == rg or (rg in (RG_RAM0, RG_RAM1)))

    # -- registers -------------------------------------------------------------
    def get_reg(self, int i, int reg):
        """The 32-bit value of register number reg (R0-R7: bits 31-0)."""
        if reg < 0 or reg >= RAP_NUM_REGISTERS:
            raise IndexError(reg)
        return self._node(i).r[reg]

    def set_reg(self, int i, int reg, uint32_t value):
        if reg < 0 or reg >= RAP_NUM_REGISTERS:
            raise IndexError(reg)
        write_reg(self._node(i), reg, value)
        self._node(i).rdec.valid = 0     # a waiting ring repetition decodes again

    def get_exp(self, int i, int reg):
        """Bits 39-32 (the exponent, signed) of R0-R7."""
        if reg < 0 or reg >= 8:
            raise IndexError(reg)
        return self._node(i).rexp[reg]

    def set_exp(self, int i, int reg, int value):
        if reg < 0 or reg >= 8 or value < -128 or value > 127:
            raise ValueError("exponent registers are R0-R7, values -128..127")
        self._node(i).rexp[reg] = value

    property pcs:
        def __get__(self):
            return [self.nodes[i].pc for i in range(self.count)]

    def get_pc(self, int i):
        return self._node(i).pc

    def set_pc(self, int i, uint32_t pc):
        cdef Node* n = self._node(i)
        n.pc = pc & 0xFFFFFF
        n.prev_pc = NO_PC
        n.pend_valid = 0
        n.rdec.valid = 0
        n.dslots = 0
        n.rpts = 0
        n.rpts_ring = 0

    # -- running ---------------------------------------------------------------
    def run(self, int64_t limit, int64_t quantum=0, order=None, int threads=1):
        """Run until an event; returns (event name, node index or -1).
        ``quantum`` and ``order`` only change how the simulator interleaves
        nodes, never the results; nor does ``threads``, the host threads the
        nodes are split over in contiguous groups (core/schedule.pxi; at most
        one per node; a machine with an instrumented node runs on one)."""
        cdef int who = -1
        cdef int ev, i
        cdef int64_t budget
        cdef int64_t slice_ = RUN_SLICE
        cdef int nthreads
        cdef int64_t c0, i0
        cdef cnp.ndarray[cnp.int32_t, ndim=1] o
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        if order is None:
            o = np.arange(self.count, dtype=np.int32)
        else:
            o = np.ascontiguousarray(order, dtype=np.int32)
            if o.ndim != 1 or sorted(o.tolist()) != list(range(self.count)):
                raise ValueError("order must be a permutation of the nodes")
        nthreads = min(threads, self.count)
        for i in range(self.count):
            # a node stopped at a host call staged since (hostcall.pxi): served now
            if self.nodes[i].status == ST_HOSTCALL and self.nodes[i].hc != NULL:
                hostcall_staged(&self.nodes[i])
        while True:
            budget = slice_
            if nthreads > 1 and self._probe_any():
                nthreads = 1            # probes stop runs per instruction: one thread
            with nogil:
                ev = -1
                self.tstats.calls += 1
                if nthreads > 1:
                    ev = run_machine_threads(self.nodes, self.count, limit, quantum, &o[0],
                                             nthreads, &who, &budget, &self.serial,
                                             &self.tstats, self.handoff_waits)
                if ev < 0:
                    c0 = node_cycles(self.nodes, self.count)
                    i0 = node_instructions(self.nodes, self.count)
                    ev = run_machine(self.nodes, self.count, limit, quantum, &o[0], &who, &budget)
                    self.tstats.cycles_single += node_cycles(self.nodes, self.count) - c0
                    self.tstats.instr_single += node_instructions(self.nodes, self.count) - i0
            if ev != EV_YIELD:
                return EVENTS[ev], who
            who = self._probe_hit()
            if who >= 0:
                return "probe", who
            PyErr_CheckSignals()        # Ctrl-C: KeyboardInterrupt, the machine stays as it is

    def thread_stats(self):
        """What running the nodes has cost the host since the machine was
        made (or reset_thread_stats): core calls, threaded calls, threads
        started, the threads' meetings and their rounds over every node,
        sleeps on the condition variable, node-cycles simulated on one
        thread, in those rounds and by the groups in parallel, and host
        clocks (wall ns in the rounds and waiting, CPU ns of the calling
        thread and of the threads started) -- ThreadStats, schedule.pxi.
        None of it is a simulated figure: it depends on ``threads``."""
        t = self.tstats
        return {"calls": t.calls, "threaded_calls": t.threaded_calls,
                "thread_starts": t.thread_starts, "serial_starts": t.serial_starts,
                "waits": t.waits, "meetings": t.meetings, "declined": t.declined,
                "handoffs": t.handoffs, "asked": t.asked, "rounds": t.rounds,
                "sleeps": t.sleeps,
                "cycles_single": t.cycles_single, "cycles_serial": t.cycles_serial,
                "cycles_parallel": t.cycles_parallel, "instr_single": t.instr_single,
                "instr_serial": t.instr_serial, "instr_parallel": t.instr_parallel,
                "instr_group_max": t.instr_group_max, "serial_ns": t.serial_ns,
                "wait_ns": t.wait_ns, "caller_cpu_ns": t.caller_cpu_ns,
                "helper_cpu_ns": t.helper_cpu_ns}

    def reset_thread_stats(self):
        """Zero thread_stats()."""
        memset(&self.tstats, 0, sizeof(ThreadStats))

    cdef int _probe_any(self):
        cdef int i
        for i in range(self.count):
            if self.nodes[i].probe != NULL:
                return 1
        return 0

    def step(self, int i):
        """Execute one instruction of node i (ignoring the others); returns
        its status name."""
        cdef Node* n = self._node(i)
        if n.status in (ST_RING_READ, ST_RING_WRITE, ST_RING_SYNC, ST_BREAK):
            n.status = ST_RUNNING
        if n.status != ST_RUNNING:
            return STATUS[n.status]
        with nogil:
            if n.probe != NULL:
                probed_step(n, <Probe*>n.probe)
                (<Probe*>n.probe).skip = 0
            else:
                step(n)
        return STATUS[n.status]

    def status(self, int i):
        return STATUS[self._node(i).status]

    def resume(self, int i):
        """Let a node that stopped at a breakpoint (SWI) or a host call run on."""
        cdef Node* n = self._node(i)
        if n.status in (ST_BREAK, ST_HOSTCALL):
            n.status = ST_RUNNING

    def error(self, int i):
        """(reason, pc, word, address) of a node stopped by an error."""
        cdef Node* n = self._node(i)
        return ERRORS.get(n.err_code, "error"), n.err_pc, n.err_word, n.err_addr

    def wait_kind(self, int i):
        """What a waiting node waits for, and the instruction it is trying."""
        cdef Node* n = self._node(i)
        return STATUS[n.status], n.pend_ins.word if n.pend_valid else 0

    def prev_pc(self, int i):
        """PC of the last instruction node i executed, or None (none yet, or
        an interrupt was taken since)."""
        cdef uint32_t p = self._node(i).prev_pc
        return None if p == <uint32_t>NO_PC else p

    def hostcall_addr(self, int i):
        return self._node(i).hostcall_addr

    def finish_hostcall(self, int i, int64_t cycles, exited=False, int exit_status=0):
        """Charge a host call's simulated time and let the node go on (or
        mark it exited)."""
        cdef Node* n = self._node(i)
        if not 0 <= cycles <= MAX_HOSTCALL_CYCLES:
            raise ValueError(f"a host call costs 0..{MAX_HOSTCALL_CYCLES} cycles, not {cycles}")
        n.cycle += cycles           # cannot wrap: run limits stay below 2**62 (machine.NO_LIMIT)
        n.stall[SC_HOSTCALL] += cycles
        n.host_calls += 1
        n.lb = n.cycle
        if exited:
            n.status = ST_EXITED
            n.exit_status = exit_status
        else:
            n.status = ST_RUNNING

    def fail_hostcall(self, int i):
        """Stop node i: the daemon could not read its request block."""
        cdef Node* n = self._node(i)
        cdef uint32_t pc = n.prev_pc if n.prev_pc != <uint32_t>NO_PC else (n.pc - 1) & 0xFFFFFF
        cdef uint32_t* p = word_ptr(n, pc, region_of(n, pc))
        fail(n, ERR_HOST, pc, p[0] if p != NULL else 0, n.hostcall_addr)

    def exit_status(self, int i):
        return self._node(i).exit_status

    def cycle(self, int i):
        return self._node(i).cycle

    def instret(self, int i):
        return self._node(i).instret

    def counters(self, int i):
        """Every counter of node i."""
        return node_counters(self._node(i))

    # -- staged host-call replies (core/hostcall.pxi) ------------------------------
    def stage_hostcall(self, int i, uint32_t service, uint32_t arg0, uint32_t arg1,
                       uint32_t result, writes):
        """Answer node i's next host call asking exactly (service, arg0,
        arg1) on the node's own thread, without stopping the machine: write
        ``writes`` ([(address, uint32 words), ...]) into its memory, then
        ``result`` and errno 0 into the request block, and charge the host
        call's cycles, as the daemon and finish_hostcall() would.  Used
        once; a call the core cannot serve so (a probe, an active
        peripheral, memory that is not plain) stops the node as before."""
        cdef Node* n = self._node(i)
        parts = []
        for addr, words in writes:
            w = np.ascontiguousarray(words, dtype=np.uint32).reshape(-1)
            parts.append(np.array([addr, w.size], dtype=np.uint32))
            parts.append(w)
        cdef cnp.ndarray[cnp.uint32_t, ndim=1] buf = np.ascontiguousarray(
            np.concatenate(parts) if parts else np.zeros(1, dtype=np.uint32), dtype=np.uint32)
        if hostcall_stage(n, service, arg0, arg1, result, &buf[0],
                          buf.shape[0] if parts else 0) != 0:
            raise MemoryError("cannot stage a host-call reply")

    def drop_hostcall(self, int i, uint32_t service, uint32_t arg0, uint32_t arg1):
        """Forget node i's staged reply to (service, arg0, arg1), if any (the
        daemon served that call)."""
        cdef HcNode* h = <HcNode*>self._node(i).hc
        cdef int k
        if h != NULL:
            for k in range(h.nreplies):
                r = &h.replies[k]
                if not r.used and r.key[0] == service and r.key[1] == arg0 and r.key[2] == arg1:
                    r.used = 1

    def hostcall_served(self, int i):
        """The host calls of node i served from staged replies since the last
        look, in order: [(service, arg0, arg1, result, [(address, words),
        ...], the node's counters at the call, its output link's words
        then, the request block's address)]; used and dropped replies are
        forgotten."""
        cdef HcNode* h = <HcNode*>self._node(i).hc
        cdef HcReply* r
        cdef HcServed* s
        cdef uint32_t* p
        cdef int k, j
        out = []
        if h == NULL:
            return out
        for k in range(h.nserved):
            s = &h.served[k]
            r = &h.replies[s.reply]
            writes = []
            p = r.buf
            while p < r.buf + r.buflen:
                writes.append((p[0], np.array(<uint32_t[:p[1]]>(p + 2), dtype=np.uint32)
                               if p[1] else np.zeros(0, dtype=np.uint32)))
                p += 2 + p[1]
            out.append((r.key[0], r.key[1], r.key[2], r.result, writes,
                        node_counters(&s.snap), s.link_words, s.snap.hostcall_addr))
        h.nserved = 0
        j = 0
        for k in range(h.nreplies):
            if h.replies[k].used:
                free(h.replies[k].buf)
            else:
                h.replies[j] = h.replies[k]
                j += 1
        h.nreplies = j
        return out

    def hostcalls_served(self):
        """[(node, call), ...]: hostcall_served() of every node that has
        served a staged reply since the last look, in node order."""
        cdef int i
        cdef HcNode* h
        out = []
        for i in range(self.count):
            h = <HcNode*>self.nodes[i].hc
            if h != NULL and h.nserved:
                out += [(i, call) for call in self.hostcall_served(i)]
        return out

    def staged_hostcalls(self, int i):
        """How many staged replies of node i wait for their call."""
        cdef HcNode* h = <HcNode*>self._node(i).hc
        cdef int k, m = 0
        if h != NULL:
            for k in range(h.nreplies):
                m += not h.replies[k].used
        return m

    def periph_state(self, int i):
        """Node i's on-chip peripherals as the CPU would read them now: every
        DMA and timer register (guide 12.3.2, 12.1.2: the DMA's STAT bits and
        the timer counters at the node's cycle), and whether the node sleeps
        in IDLE or its DMA channel waits for the ring."""
        cdef Node* n = self._node(i)
        regs = {a: periph_read(n, a, n.cycle) for a in
                (RAP_DMA_GCR, RAP_DMA_SRC, RAP_DMA_DST, RAP_DMA_CNT,
                 RAP_TIMER0_BASE, RAP_TIMER0_BASE + 4, RAP_TIMER0_BASE + 8,
                 RAP_TIMER1_BASE, RAP_TIMER1_BASE + 4, RAP_TIMER1_BASE + 8)}
        return {"registers": regs, "dma_running": bool(n.p.dma_run),
                "dma_ring_wait": n.p.dma_wait != 0, "idle": bool(n.p.idle),
                "timer_running": [bool(n.p.tim_run[0]), bool(n.p.tim_run[1])]}

    def dma_waiting(self, int i):
        """True if node i waits for the ring because of its DMA channel."""
        cdef Node* n = self._node(i)
        return bool(n.p.dma_wait) and n.status in (ST_RING_READ, ST_RING_WRITE)

    def set_link_latency(self, int i, int64_t cycles):
        """Cycles of the hop out of node i (default 1)."""
        if not 0 <= i < self.count or cycles < 1:
            raise ValueError("bad link or latency")
        self.links[i].latency = cycles

    def link_state(self, int i):
        """The words on the link out of node i, oldest first, as (value,
        cycle written, cycle readable from): at most two (node i's output
        latch and node i+1's input latch; ring.pxi)."""
        cdef Link* L
        cdef int k, s
        if not 0 <= i < self.count:
            raise IndexError(f"link {i} does not exist (0..{self.count - 1})")
        L = &self.links[i]
        out = []
        for k in range(L.count):
            s = (L.head + k) & 3
            out.append((L.data[s], L.wtime[s], L.mtime[s] if k == 0 else None))
        return out

    def link_words(self, int i):
        """Words carried by the link out of node i."""
        return self.links[i].words if 0 <= i < self.count else 0


    # -- instrumentation (core/probe.pxi) ------------------------------------------
    cdef void _free_probe(self, Node* n) noexcept:
        cdef Probe* p = <Probe*>n.probe
        if p != NULL:
            if p.buf != NULL:
                free(p.buf)
            free(p)
            n.probe = NULL

    cdef Probe* _probe(self, int i) except NULL:
        cdef Node* n = self._node(i)
        if n.probe == NULL:
            n.probe = calloc(1, sizeof(Probe))
            if n.probe == NULL:
                raise MemoryError("cannot allocate a probe")
        return <Probe*>n.probe

    cdef int _probe_hit(self):
        """The first node whose probe stopped the run (or -1); a full trace
        buffer counts too."""
        cdef int i
        cdef Probe* p
        for i in range(self.count):
            p = <Probe*>self.nodes[i].probe
            if p != NULL and p.hit != HIT_NONE:
                return i
        return -1

    def probe_trace(self, int i, int64_t t_from=0, int64_t t_to=0x3FFFFFFFFFFFFFFF, int capacity=8192):
        """Record every instruction node i starts in [t_from, t_to) (drain
        them with probe_drain).  Called again, it changes the window and
        keeps the records not drained yet (and the buffer's capacity).  A
        buffer of 16 records or more never loses a DMA ring record."""
        cdef Probe* p = self._probe(i)
        if capacity < 2:
            raise ValueError("capacity must be at least 2 records")
        if p.buf == NULL:
            p.buf = <TraceRec*>calloc(capacity, sizeof(TraceRec))
            if p.buf == NULL:
                raise MemoryError("cannot allocate the trace buffer")
            p.cap = capacity
            p.len = 0
            p.reserve = DMA_RESERVE if capacity >= 2 * DMA_RESERVE else 1
            p.dma_seen = self.nodes[i].p.dma_words
            p.last_pc = self.nodes[i].pc
        p.trace = 1
        p.t_from = t_from
        p.t_to = t_to

    def probe_set(self, int i, breaks=(), watch_addrs=(), int watch_regs=0):
        """Breakpoints (PCs) and watchpoints (memory words, a register mask)
        of node i; the watched words' current values are the reference."""
        cdef Probe* p = self._probe(i)
        cdef Node* n = &self.nodes[i]
        cdef int k, rg
        breaks = list(breaks)
        watch_addrs = list(watch_addrs)
        if len(breaks) > PROBE_MAXBREAK or len(watch_addrs) > PROBE_MAXWATCH:
            raise ValueError(f"at most {PROBE_MAXBREAK} breakpoints and {PROBE_MAXWATCH} "
                             "watched words per node")
        p.nbreak = len(breaks)
        for k, a in enumerate(breaks):
            p.breaks[k] = <uint32_t>a & 0xFFFFFF
        p.nwatch = len(watch_addrs)
        for k, a in enumerate(watch_addrs):
            p.waddr[k] = <uint32_t>a & 0xFFFFFF
            rg = region_of(n, p.waddr[k])
            p.wval[k] = mem_value(n, p.waddr[k], rg) if rg < RG_RINGIO else 0
        p.wregs = <uint32_t>watch_regs

    def probe_skip(self, int i):
        """Resume node i from the breakpoint at its PC (do not stop there at once)."""
        cdef Probe* p = self._probe(i)
        p.skip = 1
        p.skip_pc = self.nodes[i].pc

    def probe_hit(self, int i):
        """(what, address, old, new, pc) of the probe stop of node i, or None;
        clears it."""
        cdef Node* n = self._node(i)
        cdef Probe* p = <Probe*>n.probe
        if p == NULL or p.hit == HIT_NONE:
            return None
        out = (HITS[p.hit], p.hit_addr, p.hit_old, p.hit_new, p.hit_pc)
        p.hit = HIT_NONE
        return out

    def probe_drain(self, int i):
        """The trace records of node i since the last drain (a TRACE_DTYPE
        array)."""
        cdef Node* n = self._node(i)
        cdef Probe* p = <Probe*>n.probe
        cdef cnp.ndarray a
        if p == NULL or p.buf == NULL or p.len == 0:
            return np.zeros(0, dtype=TRACE_DTYPE)
        a = np.empty(p.len, dtype=TRACE_DTYPE)
        memcpy(cnp.PyArray_DATA(a), p.buf, p.len * sizeof(TraceRec))
        p.len = 0
        if p.hit == HIT_FULL:
            p.hit = HIT_NONE
        return a

    def probe_dropped(self, int i):
        """DMA ring records of node i lost to a full trace buffer (0 unless
        one step moved more ring words than the buffer holds)."""
        cdef Node* n = self._node(i)
        return (<Probe*>n.probe).dropped if n.probe != NULL else 0

    def probe_off(self, int i):
        """Remove node i's instrumentation (it runs the plain loop again)."""
        self._free_probe(self._node(i))

    def probed(self, int i):
        return self._node(i).probe != NULL


def decode_words(words):
    """Decode words with the simulator's pre-decoder: for each word, the ISA
    table form index, or -1 if illegal (tests compare this with the Python
    decoder)."""
    cdef Decoded d
    out = []
    for w in words:
        if decode_word(<uint32_t>w, &d):
            out.append(d.form)
        else:
            out.append(-1)
    return out
