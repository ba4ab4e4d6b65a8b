# State of a simulated node and of the ring: plain C structs, no Python objects.
from libc.stdint cimport uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t

# --- why a node stopped (Node.status) --------------------------------------
cdef enum:
    ST_RUNNING = 0      # can execute
    ST_EXITED = 1       # the program called exit through the host daemon
    ST_ERROR = 2        # illegal instruction, bad address, ... (err_* fields)
    ST_HOSTCALL = 3     # wrote HOST_CALL: the host daemon must serve it
    ST_RING_READ = 4    # waiting for a word on the ring input
    ST_RING_WRITE = 5   # waiting for the ring output latch to empty
    ST_RING_SYNC = 6    # waiting for a neighbour's clock (RING_STAT)
    ST_IDLE = 7         # executed IDLE with no interrupt that can wake it
    ST_BREAK = 8        # executed SWI (a breakpoint for the host)
    ST_LIMIT = 9        # reached the cycle limit of this run

# --- error codes (Node.err_code) ------------------------------------------
cdef enum:
    ERR_NONE = 0
    ERR_ILLEGAL = 1         # not a TMS320C30 instruction
    ERR_FETCH = 2           # program fetch from an unmapped address
    ERR_READ = 3            # data read from an unmapped address
    ERR_WRITE = 4           # data write to an unmapped or read-only address
    ERR_DELAY_SLOT = 5      # branch-class instruction in a delayed branch's slots
    ERR_RPTS_TARGET = 6     # RPTS of an instruction that cannot be repeated
    ERR_HOST = 7            # the host daemon rejected a request (message kept in Python)
    ERR_RING_MULTI = 8      # more than one ring read (or write) in one instruction
    ERR_DMA = 9             # the DMA channel addressed memory it cannot use (periph.pxi)
    ERR_DMA_RING = 10       # the CPU used RING_DATA in the direction the DMA channel streams
    ERR_DMA_PRI = 11        # a DMA priority mode this model does not have (rotating)

# --- stall causes (Node.stall[]) ------------------------------------------
cdef enum:
    SC_BRANCH = 0       # pipeline flushes of branches, calls, returns, traps, repeat set-up
    SC_REGCONF = 1      # register conflicts (AR/IR/BK, DP, SP groups)
    SC_MEMWAIT = 2      # wait states
    SC_BUSCONF = 3      # several accesses on one bus (or >2 on an on-chip block)
    SC_RING_READ = 4    # waiting for ring data
    SC_RING_WRITE = 5   # waiting for the ring output latch
    SC_HOSTCALL = 6     # host calls
    NSTALL = 7

# --- memory regions (counters, timing) ------------------------------------
cdef enum:
    RG_SRAM = 0
    RG_DRAM = 1
    RG_RAM0 = 2
    RG_RAM1 = 3
    RG_RINGIO = 4
    NREGION = 5         # the regions of the counters (and of the configurable wait states)
    RG_PERIPH = 5       # the peripheral bus (periph.pxi): counted apart
    NREGION_ALL = 6
    RG_NONE = 255

# --- register groups for pipeline conflicts (guide 8.2.2) -----------------
cdef enum:
    GRP_AR = 1          # AR0-AR7, IR0, IR1, BK
    GRP_DP = 2
    GRP_SP = 4

# --- status register bits (guide 3.1.7, figure 3-2) -----------------------
cdef enum:
    ST_C = 0x0001
    ST_V = 0x0002
    ST_Z = 0x0004
    ST_N = 0x0008
    ST_UF = 0x0010
    ST_LV = 0x0020
    ST_LUF = 0x0040
    ST_OVM = 0x0080
    ST_RM = 0x0100
    ST_CF = 0x0400
    ST_CE = 0x0800
    ST_CC = 0x1000
    ST_GIE = 0x2000

cdef enum:
    NO_PC = -1                      # Node.prev_pc (as 0xFFFFFFFF): no instruction executed yet, or an interrupt

cdef enum:
    DPAGE_BITS = 10                 # decode-cache page: 1024 words
    DPAGE_WORDS = 1 << 10
    NDPAGES = 1 << (24 - 10)


cdef struct Node
cdef struct Ctx                     # what the execute stage of one instruction needs (execute.pxi)

# The fast path's handler of an operation (Decoded.fh, chosen at decode by
# fast_handler(), ops.pxi): the most frequent operations of non-repeated
# code have their own, called straight from fast_step() (fast.pxi); the
# others have execute_op(), the general dispatch.  execute_op() calls the
# same operation bodies, so each operation's semantics is written once.
ctypedef int (*FastOp)(Node* n, Ctx* c) noexcept nogil


cdef struct Opnd:
    uint8_t kind        # RAP_K_*
    uint8_t reg         # register number; for indirect operands the AR index
    uint8_t mode        # indirect modification code
    uint8_t am          # indirect: AM_* | index kind << 4 (derived from rap_imodes at decode)
    int32_t val         # displacement, immediate, address or (for floats) unused


# How an indirect operand forms its address and updates its ARn, derived at
# decode time from the generated table of modes (rap_imodes) so that the
# execute stage branches once.
cdef enum:
    AM_POST = 0         # address ARn; ARn += index
    AM_POST_M = 1       # address ARn; ARn -= index
    AM_PRE = 2          # address ARn + index
    AM_PRE_M = 3        # address ARn - index
    AM_PRE_U = 4        # ARn += index; address ARn
    AM_PRE_UM = 5       # ARn -= index; address ARn
    AM_CIRC = 6         # address ARn; ARn += index, circular
    AM_CIRC_M = 7       # address ARn; ARn -= index, circular
    AM_NONE = 8         # address ARn
    AM_BITREV = 9       # address ARn; ARn += IR0, bit-reversed


cdef struct Decoded:
    uint32_t word
    uint16_t op         # RAP_OP_*
    uint16_t form
    uint8_t timing      # RAP_T_*
    uint8_t nops
    uint8_t cond
    uint8_t valid       # 0 = not decoded yet, 1 = ok, 2 = illegal
    uint8_t uses        # register groups used for addressing (decode stage)
    uint8_t writes      # register groups written (execute stage)
    uint8_t naddr       # operands with an address (indirect or direct): at most 2
    uint8_t addr_op[2]  # their operand indices, in ARn-commit order (bits 7-0 first)
    uint8_t addr_w      # bit k set: addr_op[k] is written (a store), else read
    uint8_t addr_u      # bit k set: addr_op[k] is indirect and updates its ARn
    uint8_t access      # 0 for NOP: addresses are formed, memory is not touched
    uint8_t base        # base cycles of its timing class (timing.pxi base_cycles), set at decode
    uint8_t frg         # region it was fetched from (decoded_at; the fast path's fetch), else RG_NONE
    uint8_t src_mem     # bit i set: operand i's value is the word read from memory (DIR, IND, IND8)
    uint8_t src_imm     # bit i set: operand i's integer value is its field (SIMM, UIMM, DPIMM, ADDR24, TRAPN)
    uint8_t fetch_only  # its only memory access is its fetch (no memory operand, no stack, not
                        # IDLE): the fast path's cycles come from the fetch region alone (fast.pxi)
    uint64_t ctab[2]    # conditional forms: the truth of the condition for each value of the
                        # ST flags C V Z N UF LV LUF (bit st & 127), filled at decode (cond_holds)
    FastOp fh           # the fast path's handler of the operation (ops.pxi fast_handler)
    Opnd o[6]


cdef struct Link:
    # One ring link: node n's output latch feeding node n+1's input latch.
    # Words are timestamped so that the lock-step schedule is reproduced
    # exactly whatever order the simulator runs nodes in (ring.pxi).
    uint32_t data[4]    # circular queue of words in flight (at most 2)
    int64_t wtime[4]    # cycle in which each word was written
    int64_t mtime[4]    # cycle from which each word is readable (in the input latch)
    int head            # index of the oldest unread word
    int count           # words written and not yet read (0..2)
    int64_t last_read   # cycle of the last read (or -1)
    int64_t last_move   # mtime of the most recently written word (or -1)
    uint64_t words      # words carried
    int64_t latency     # cycles of one hop (1; board-to-board hops may be configured longer)
    int64_t rotate_at   # the reader has committed to take the head word at this cycle (a
                        # rotation of a full ring, ring.pxi); T_NEVER otherwise
    int shared          # the writer and the reader run on different host threads (schedule.pxi)
    int lock            # ... then every access holds this spin lock (sync.pxi, ring.pxi)
    char pad[64]        # links are in one array: keeps a link off its neighbours' cache lines
                        # (two host threads writing one line slow both down, schedule.pxi)


cdef struct RingDec:
    # The decode of an RPTS repetition over RING_DATA, or of a single ring
    # access, that had to wait (ring_rpts, ring_step_lean: ringfast.pxi):
    # its retry reuses it, since a waiting node does not move (the same
    # cycle, registers and instruction).
    int valid               # 0: none (reset, a register or the PC set from the host)
    int rd                  # the operand that reads RING_DATA, or -1
    int wr                  # the operand that writes RING_DATA, or -1
    int lean                # 1: by ring_lean_decode (ringfast.pxi), ring_rpts_lean's form;
                            # 2: by ring_single_decode, a single access (ring_step_lean)
    int64_t cycle           # the node's cycle when it was decoded
    int64_t stall           # its register-conflict stall (guide 8.2.2)
    uint32_t ea[6]          # effective addresses, regions and new ARn of the
    uint32_t newar[6]       # memory operands, by operand index (execute.pxi Ctx)
    int rgs[6]


cdef struct Periph:
    # the DMA channel (guide 12.3) and the two timers (guide 12.1) of a node
    uint32_t dma_gcr        # global control as written (START, INC/DEC, SYNC, TC, TCINT, PRI)
    uint32_t dma_src
    uint32_t dma_dst
    uint32_t dma_cnt        # transfer counter (24 bits)
    int dma_run             # the channel transfers (STAT = 11)
    int dma_phase           # 0: the next access is the read, 1: the write of dma_word
    uint32_t dma_word
    int64_t dma_t           # earliest cycle of the channel's next access
    int dma_wait            # the channel waits for the ring (ST_RING_READ/WRITE), else 0
    int64_t dma_wait_t      # ... from this cycle
    int dma_wait_reads      # ... in a read-and-forward
    int dma_synced          # the synchronising interrupt of the next access was taken
    int dma_halt            # START = 10 written between a read and its write: halt after the write
    int64_t dma_lost_next   # cycles the next access waits for the CPU
    int64_t cpu_debt        # DMA priority: cycles the DMA took from the last instruction
    int64_t flag_t          # cycle from which the interrupt flags now set are there
    int64_t caught          # the cycle the peripherals were last caught up to
    uint32_t if_known       # IF after that catch-up
    int64_t cpu_from[5]     # per resource (RS_*): the CPU's last instruction holds it from
    int64_t cpu_hold[5]     # this cycle until this one
    int64_t dma_from[5]     # per resource: the DMA's last access on it holds it from
    int64_t dma_hold[5]     # this cycle until this one
    uint32_t tim_gcr[2]
    uint32_t tim_prd[2]
    uint32_t tim_cnt[2]     # counter value at cycle tim_t
    int64_t tim_t[2]        # reference cycle: counter tim_cnt, a timer tick every 2 cycles after it
    int64_t tim_next[2]     # cycle of the next time the counter reaches the period (T_NEVER)
    int tim_run[2]          # counting (HLD_ = 1 and internal clock)
    int idle                # IDLE waits for an interrupt a peripheral will raise
    # counters
    uint64_t dma_words
    uint64_t dma_acc        # DMA accesses (the scheduler's measure of progress)
    uint64_t dma_lost       # cycles the DMA waited for the CPU
    uint64_t cpu_lost       # cycles the CPU waited for the DMA
    uint64_t dma_ring_wait  # cycles the DMA waited for the ring
    uint64_t idle_cycles    # cycles spent in IDLE waiting for an interrupt
    uint64_t ints[11]       # interrupts taken, per IF bit


cdef struct Node:
    # architectural state (guide chapter 3)
    uint32_t r[32]          # registers by number; R0-R7: bits 31-0 of the 40-bit register
    int32_t rexp[8]         # R0-R7: bits 39-32 (the exponent), -128..127
    uint32_t pc
    # control state
    int32_t dslots          # delay slots left after a delayed branch (0 = none)
    uint32_t dtarget
    int32_t dtaken
    int32_t rpts            # an RPTS repetition is in progress
    Decoded rpts_ins        # the instruction RPTS repeats (fetched once)
    int32_t rpts_ring       # its repetitions touch the ring or a peripheral: step() runs them (fast.pxi);
                            # 2: ... and pend_ins holds a copy of rpts_ins (ring_rpts_lean, ringfast.pxi)
    uint32_t rpts_pc
    int32_t fwd_count       # RING_FWD: words still to forward
    # run state
    int status
    int err_code
    uint32_t err_pc
    uint32_t err_word
    uint32_t err_addr
    uint32_t hostcall_addr
    uint32_t prev_pc        # PC of the last instruction executed (NO_PC: none), for error reports
    int exit_status
    int node_id
    int node_count
    # clock and counters
    int64_t cycle
    uint64_t instret
    uint64_t stall[7]
    uint64_t acc_read[6]
    uint64_t acc_write[6]
    uint64_t acc_fetch[6]
    uint64_t cache_hits
    uint64_t cache_misses
    uint64_t ring_sent
    uint64_t ring_received
    uint64_t ring_forwarded
    uint64_t host_calls
    # pipeline timing state (timing.pxi)
    int64_t grp_ready[3]    # cycle from which decode may use each register group
    # instruction cache (guide 4.3): two 32-word segments, LRU
    uint32_t ssa[2]         # segment start addresses (address bits 23-5)
    uint32_t present[2]     # one present bit per word
    int lru                 # index of the least recently used segment
    # memories
    uint32_t* sram
    uint32_t sram_words
    uint32_t* dram
    uint32_t dram_words
    uint32_t ram[2048]      # on-chip RAM blocks 0 and 1
    int wait[6]             # wait states per region (the peripheral bus: 0)
    int64_t hostcall_cycles
    # pre-decoded instructions, by 1K-word page (allocated on first fetch)
    Decoded** dcache
    # an instruction that had to wait (ring): retried without a new fetch
    int pend_valid
    Decoded pend_ins
    int pend_fetch_rg
    # ring links and neighbours (owned by the machine)
    Link* rin
    Link* rout
    Node* up                # the node whose output feeds our input
    Node* down              # the node our output feeds
    int64_t lb              # lower bound of the cycle of this node's next action (scheduler)
    int64_t sync_seen[9]    # what a RING_STAT wait last saw of its links and neighbours (ring.pxi)
    int64_t wait_t          # a ring wait: the cycle the waiting instruction issues at
    int wait_reads          # a ring wait: the waiting instruction reads RING_DATA
    RingDec rdec            # a waiting RPTS repetition over RING_DATA: its decode (ringfast.pxi)
    # on-chip peripherals (periph.pxi); the hot loop looks only at periph_on
    int periph_on           # a DMA transfer runs, a timer counts, or IDLE waits for them
    Periph p
    void* probe             # instrumentation (a Probe, probe.pxi); NULL: none
    void* hc                # staged host-call replies (an HcNode, hostcall.pxi); NULL: none
    uint32_t rptb_skip      # RS + 1 of the RPTB loop whose body rptb_bulk() found it cannot run
                            # in bulk (fast.pxi); 0: none.  Cleared by RPTB and a reset.
    char pad[64]            # nodes are in one array: the last fields of one node and the
                            # registers of the next, run by another host thread, never
                            # share a cache line (schedule.pxi)
