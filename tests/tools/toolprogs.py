"""Hand-analysed programs of the kernel writer's tools tests (tests/tools).

Code sits in SRAM with the instruction cache off, so every fetch uses the
primary bus (tests/ring/ringprogs.py states the timing conventions)."""
from __future__ import annotations

from pathlib import Path

from rapsim.asm.objfile import write_image
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

# cycle by cycle (start cycle: stall causes):
#   0 LDI 0x2000,AR0   1
#   1 LDI 5,R0         1
#   2 STI R0,*AR0++    register_conflict 1 (AR0 written 2 instructions before: waits 1),
#                      bus_conflict 1 (fetch and the SRAM write share the primary bus) -> 5
#   5 LDI *-AR0(1),R1  bus_conflict 1 (the AR0 update of indirect addressing is no conflict)
#   7 ADDF 1.5,R2      1
#   8 LDI AR0,AR1      1
#   9 LDI *AR1,R3      register_conflict 2 (AR1 written just before), bus_conflict 1 -> 13
#  13 CALL sub         branch 3 (4 cycles), pushes 0x48 at SP+1
#  17 RETS             branch 3, pops it
#  21 SWI
STALLS = """
        .global start
start:  LDI 0x2000, AR0
        LDI 5, R0
        STI R0, *AR0++
        LDI *-AR0(1), R1
        ADDF 1.5, R2
        LDI AR0, AR1
        LDI *AR1, R3
        CALL sub
        SWI
sub:    RETS
"""
STALL_CYCLES = [0, 1, 2, 5, 7, 8, 9, 13, 17, 21]

# Node 0 spends a 4-cycle RPTS and 5 NOPs before it writes the ring, then
# spins; node 1 reads at once and waits, then stops the machine at SWI.
RING = """
        .global start
start:  LDP  0x800000
        LDI  @3, R0            ; NODE_ID
        BNZ  reader
        RPTS 4
        NOP
        LDI  42, R1
        STI  R1, @0            ; RING_DATA
        B    $
reader: LDI  @0, R2            ; waits for node 0's word
        SWI
"""

# Every node reads before it writes: nothing ever moves (a ring deadlock).
DEADLOCK = """
        .global start
start:  LDP  0x800000
        LDI  @0, R0
        STI  R0, @0
        SWI
"""


def sim_of(src: str, nodes: int = 1) -> Simulator:
    sim = Simulator(MachineConfig(nodes=nodes, hostcall_cycles=0))
    sim.load(build_text(src))
    return sim


def image_file(path, src: str) -> str:
    write_image(build_text(src), path)
    return str(path)


def rap_main(argv, monkeypatch) -> int:
    """``rap ARGV`` in-process (the exit status)."""
    from rapsim import cli
    return cli.main([str(a) for a in argv])


# A loop for the debugger: stores 1.5, 2.5, 3.5, 4.5 at 0x2000.. and calls
# `bump` (R3 += 1) each time round.  Addresses from 0x40: loop (the STF) is
# 0x43, bump 0x48.
LOOP = """\
        .global start
start:  LDI  0x2000, AR0
        LDF  1.5, R1
        LDI  3, AR1
loop:   STF  R1, *AR0++
        ADDF 1.0, R1
        CALL bump
        DBU  AR1, loop
        SWI
bump:   ADDI 1, R3
        RETS
"""
LOOP_STF_LINE = 5


def image_from_file(folder, name: str, src: str) -> str:
    """Write src to folder/name (folder: the current directory), assemble and
    link it (the line table names the file) into folder/<stem>.out."""
    from rapsim.toolchain import build_files
    (folder / name).write_text(src)
    out = folder / (name.rsplit(".", 1)[0] + ".out")
    write_image(build_files(name), out)
    return str(out)


# The on-chip peripherals (examples/periph.asm, docs/machine-model.md section
# 6): timer 0 with period 10 wakes IDLE through TINT0 (a timer started at g
# reaches its period at g + 20, the IDLE wakes the cycle after, guide
# 12.1.5); the ISR counts in R5 and returns; then the DMA copies 8 words
# RAM0 -> RAM1 with DMA priority (PRI = 11) while the CPU repeats LDI || LDI
# from RAM0 PERIPH_REPS times: every repetition waits one cycle for the
# DMA's RAM0 read (tests/sim/test_periph.py,
# test_dma_priority_takes_the_block_first).
PERIPH_REPS = 6
PERIPH = (Path(__file__).resolve().parents[2] / "examples" / "periph.asm").read_text()

# Every node's DMA channel sends 4 words (100 x node + k) downstream while
# its CPU reads the 4 words from upstream into 0x3000 (each direction of the
# ring has one master, tests/sim/test_periph.py test_dma_ring_shift_on_4_nodes);
# R7 = 1 when done, then the node spins.
DMA_RING = """
        .global start
start:  LDI  80h, AR0
        LSH  16, AR0
        OR   8000h, AR0         ; AR0: the peripherals
        LDI  80h, AR1
        LSH  16, AR1            ; AR1: RING_DATA
        LDI  *+AR1(3), R1       ; NODE_ID
        MPYI 100, R1
        LDI  2000h, AR2
        LDI  3, RC
        RPTB fill
        STI  R1, *AR2++
fill:   ADDI 1, R1
        LDI  2000h, R0
        STI  R0, *+AR0(4)       ; DMA_SRC
        STI  AR1, *+AR0(6)      ; DMA_DST = RING_DATA
        LDI  4, R0
        STI  R0, *+AR0(8)       ; DMA_CNT
        LDI  413h, R0           ; TC, INCSRC, START
        STI  R0, *AR0
        LDI  3000h, AR3
        LDI  3, AR4
rd:     LDI  *AR1, R0
        STI  R0, *AR3++
        DBU  AR4, rd
wait:   LDI  *AR0, R1
        AND  0Ch, R1
        CMPI 0Ch, R1
        BEQ  wait
        LDI  1, R7
end:    BR   end
"""
