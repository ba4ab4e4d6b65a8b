"""Shared pieces of the ring tests: the exit epilogue, building and running
SPMD programs on a machine of N nodes.

Timing conventions every derivation in tests/ring relies on (docs/machine-
model.md section 4): code and `.data` sit in SRAM (primary bus, no wait
states), the instruction cache is off, so every instruction fetch uses the
primary bus; the ring registers (0x800000-) are on the expansion bus and the
on-chip RAM blocks (0x809800-, 0x809C00-) on neither.  An ordinary
instruction takes 1 cycle; one that also reads or writes SRAM data takes 2
(fetch and data share the primary bus); standard branches and RPTS take 4;
RPTS fetches its instruction once, so the repeated instruction costs 1 cycle
per execution when its data are on the expansion bus or on chip.  A write of
DP or of an AR-group register makes the next instruction that addresses
through that group start no earlier than 2 cycles after the writer ended.
The ring (section 5): a word written at cycle W on a link with hop h is
readable from M = max(W + h, R_prev + 1) (R_prev: when the previous word on
that link was read); a write at W needs W >= M_prev - 1.  Host calls are
free (hostcall_cycles=0) unless a test says otherwise.
"""
from __future__ import annotations

import functools

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

RING_DATA = 0x800000
RAM0 = 0x809800
RAM1 = 0x809C00

# EXIT(0) through the host daemon.  Entered by a branch, it costs 16 cycles
# up to the node's stop (host call free):
#   LDP blockp              1
#   LDI @blockp, AR0        2 (DP written just before) + 2 (fetch + SRAM read)   = 4
#   LDI 1, R0               1
#   STI R0, *AR0            1 (AR0 written 2 cycles before) + 2 (fetch + SRAM write) = 3
#   LDI 0, R0               1
#   STI R0, *+AR0(3)        2 (fetch + SRAM write)
#   LDP 0x800000            1
#   STI AR0, @5             2 (DP) + 1 (HOST_CALL is on the expansion bus)     = 3
#                          --
#                          16
EXIT_CYCLES = 16
EPILOGUE = """
exit:   LDP     blockp
        LDI     @blockp, AR0
        LDI     1, R0
        STI     R0, *AR0
        LDI     0, R0
        STI     R0, *+AR0(3)
        LDP     0x800000
        STI     AR0, @5
        B       $
        .data
blockp: .word   block
        .bss    block, 8
        .text
"""

# Common start of the programs in test_ring_timing (13 cycles to the branch):
#   [0,1)   LDI 0x80, AR1
#   [1,2)   LSH 16, AR1          AR1 -> RING_DATA
#   [2,3)   LDP 0x800000         DP -> the ring registers' page
#   [5,6)   LDI @3, R0           NODE_ID (DP written just before: waits 2)
#   [6,7)   LDI @4, R2           NODE_COUNT
#   [7,8)   SUBI 1, R2           R2 = N - 1
#   [8,9)   CMPI 0, R0
#   [9,13)  BNZ recv             node 0 falls through at 13, the others reach recv at 13
PROLOGUE = """
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1
        LDP     0x800000
        LDI     @3, R0
        LDI     @4, R2
        SUBI    1, R2
        CMPI    0, R0
        BNZ     recv
"""
PROLOGUE_CYCLES = 13


def receive(k: int) -> str:
    """Read k ring words (AR1 -> RING_DATA) into memory at AR0 + 1.. (AR0
    points one word before the destination, which the pipelined store
    overwrites first): RPTS 4 cycles, then word i read by the i-th execution
    of LDI *AR1,R1 || STI R1,*AR0++ (1 cycle each when the word is there;
    forwarded too while RING_FWD is non-zero), then STI R1,*AR0 (1 cycle)
    stores the last word, then B exit."""
    return f"""
        RPTS    {k - 1}
        LDI     *AR1, R1
     || STI     R1, *AR0++
        STI     R1, *AR0
        B       exit
"""


@functools.lru_cache(maxsize=256)
def image(src: str):
    return build_text(src)


def program(body: str) -> str:
    """A complete program: ``body`` (with ``exit`` available) + the epilogue."""
    return body + EPILOGUE


def simulator(src: str, nodes: int, **cfg) -> Simulator:
    cfg.setdefault("hostcall_cycles", 0)
    sim = Simulator(MachineConfig(nodes=nodes, **cfg))
    sim.load(image(src))
    return sim


def run(src: str, nodes: int, *, max_cycles: int | None = 1_000_000, quantum: int = 0,
        order=None, **cfg):
    """Build (cached), load and run; returns (simulator, result)."""
    sim = simulator(src, nodes, **cfg)
    return sim, sim.run(max_cycles=max_cycles, quantum=quantum, order=order)


def cycles(sim) -> list[int]:
    return [sim.counters(n)["cycles"] for n in range(sim.nodes)]


def words(sim, addr: int, count: int, node: int) -> list[int]:
    return [int(w) for w in sim.read(addr, count, node)]


# --------------------------------------------------------------------------
# All-gather of a vector whose slices are spread over the nodes
# --------------------------------------------------------------------------
# Node k owns V[off_k : off_k + L_k]; V sits at RAM1 + 1 on every node (RAM1
# itself is scratch for the pipelined store).  The slices travel in one
# pipelined stream, node 0's first: node k forwards what it receives before
# its own slice, appends its own, then receives the slices of nodes k+1..N-1
# as they come round.  No word is forwarded to the node it came from:
#   node 0:      write own; read L_1 (no forward); read-forward slices 2..N-1
#   node 0<k<N-1: read-forward slices 0..k-1; write own; read L_{k+1} (no
#                forward); read-forward slices k+2..N-1
#   node N-1:    read L_0 (no forward); read-forward slices 1..N-2; write own
# Every node runs the same five transfers from a table row (p, q, L_k, b, c):
# read p words, read-and-forward q, write its L_k, read b, read-and-forward c,
# with one pointer walking V.  Each link carries a word per cycle once the
# stream flows, and no node writes while its downstream neighbour writes too,
# so nothing deadlocks whatever the slice lengths (0 included).
VEC = RAM1 + 1

ALLGATHER_SUB = """
* allgather: AR1 -> RING_DATA, AR2 -> this node's table row, DP = 0x80.
* Clobbers R0-R7, AR0, AR2, RC.
allgather:
        LDI     AR1, AR0
        OR      09C01h, AR0     ; AR0 -> V
        LDI     *AR2++, R7      ; p: read, no forward
        LDI     0, R6
        CALL    rd
        LDI     *AR2++, R7      ; q: read and forward
        LDI     1, R6
        CALL    rd
        LDI     *AR2++, R7      ; own slice
        CALL    wr
        LDI     *AR2++, R7      ; b: read, no forward
        LDI     0, R6
        CALL    rd
        LDI     *AR2++, R7      ; c: read and forward
        LDI     1, R6
        CALL    rd
        RETS
* rd: R7 words from the ring to *AR0++ (forwarded too if R6 = 1)
rd:     CMPI    0, R7
        BEQ     rdret
        LDI     R7, R5
        MPYI    R6, R5
        STI     R5, @2          ; RING_FWD = R7 or 0
        SUBI    1, R7
        LDI     *--AR0(1), R1   ; the pipelined store first rewrites V[-1]
        RPTS    R7
        LDI     *AR1, R1
     || STI     R1, *AR0++
        STI     R1, *AR0++
rdret:  RETS
* wr: R7 words from *AR0++ to the ring
wr:     CMPI    0, R7
        BEQ     wrret
        LDI     *AR0++, R1
        SUBI    2, R7
        BN      wr1
        RPTS    R7
        LDI     *AR0++, R1
     || STI     R1, *AR1
wr1:    STI     R1, *AR1
wrret:  RETS
"""


def allgather_table(lens: list[int]) -> list[tuple[int, int, int, int, int]]:
    """The (p, q, own, b, c) row of every node (see above)."""
    n = len(lens)
    offs = [sum(lens[:k]) for k in range(n + 1)]
    total = offs[n]
    rows = []
    for k in range(n):
        if n == 1:
            rows.append((0, 0, 0, 0, 0))
        elif k == n - 1:
            rows.append((lens[0], offs[k] - lens[0], lens[k], 0, 0))
        else:
            c = total - offs[k + 2] if k + 2 <= n else 0
            rows.append((0, offs[k], lens[k], lens[k + 1], c))
    return rows


def table_text(rows) -> str:
    return "\n".join("        .word   " + ", ".join(str(v) for v in r) for r in rows)


ALLGATHER_PROLOGUE = """
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1         ; AR1 -> RING_DATA
        LDP     0x800000
        LDI     stack, SP
        LDI     @3, R0          ; NODE_ID
        MPYI    5, R0
        LDI     tab, AR2
        ADDI    R0, AR2         ; AR2 -> this node's row
"""


def allgather_program(lens: list[int], repeat: int = 1) -> str:
    """Every node ends with V (len sum(lens)) at VEC; ``repeat`` times."""
    loop = ""
    if repeat > 1:
        loop = f"""
        LDI     {repeat - 1}, R4
again:  PUSH    R4
        PUSH    AR2
        CALL    allgather
        POP     AR2
        POP     R4
        SUBI    1, R4
        BGE     again
        B       exit
"""
    else:
        loop = """
        CALL    allgather
        B       exit
"""
    return program(ALLGATHER_PROLOGUE + loop + ALLGATHER_SUB + f"""
        .data
tab:
{table_text(allgather_table(lens))}
        .bss    stack, 32
        .text
""")
