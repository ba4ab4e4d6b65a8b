"""RPTB blocks in bulk (rapsim/core/fast.pxi, rptb_bulk) against the general
path: random RPTB programs run plainly (the passes of a qualifying block in
the tight loop) and with a probe attached (every instruction through
step(), probe.pxi) give identical counters, registers and memory -- blocks
of 1-4 instructions over every indirect mode (linear, circular, with IR0
and IR1), one ARn shared by several instructions or both operands of one,
stores (also into the block's own code), operands that start in, cross or
leave a region, SRAM and DRAM wait states, the instruction cache on or
off, instructions that keep a block out of the bulk loop (an AR written,
a circular mode), and cycle limits that cut a pass."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import MemoryConfig
from rapsim.toolchain import build_text

from reference_cases import run_snapshot

RAM0, RAM1, DRAM = 0x809800, 0x809C00, 0x400000
#: operand start addresses: plain regions, near their ends (so that passes
#: cross into the next region or out of the map), the ring registers;
#: "blk" is the block's own first word (stores through it change the code)
BASES = [0x2000, RAM0, RAM1 - 3, RAM1 + 0x3FE, DRAM, DRAM + 7, 0x3FFFE, 0x800000 - 2, "blk"]
MODES = ["*AR{r}++", "*AR{r}--", "*+AR{r}(1)", "*-AR{r}(1)", "*++AR{r}(1)", "*--AR{r}(1)",
         "*AR{r}++(IR0)", "*AR{r}--(IR1)", "*++AR{r}(IR0)", "*AR{r}", "*AR{r}++%"]
#: block instructions: {a} and {b} are memory operands
BODY = [
    "MPYF3 {a}, {b}, R0\n     || ADDF3 R0, R2, R2",
    "MPYF3 {a}, {b}, R0\n     || SUBF3 R0, R2, R2",
    "ADDF3 R0, {a}, R1",
    "MPYF3 R3, {a}, R0\n     || STF R1, {b}",
    "STF R2, {a}\n     || STF R3, {b}",
    "LDF {a}, R4\n     || LDF {b}, R5",
    "LDI {a}, R1\n     || STI R1, {b}",
    "ADDF3 {a}, {b}, R3",
    "CMPF3 {a}, {b}",
    "ADDI {a}, R6",
    "NOP {a}",
    "STF R1, {a}",
    "STI R6, {a}",
    "MPYF R3, R1",
    "SUBF 0.5, R2",
    "ADDI 1, R7",
    "LDI @0x2005, R1",
    "STI R7, @0x2010",
    "LDI R6, AR2",                  # writes an AR: not in bulk
]


@st.composite
def _block(draw):
    n = draw(st.integers(1, 4))
    lines = []
    for j in range(n):
        body = draw(st.sampled_from(BODY))
        a = draw(st.sampled_from(MODES)).format(r=draw(st.integers(0, 3)))
        b = draw(st.sampled_from(MODES)).format(r=draw(st.integers(0, 3)))
        label = "bend:" if j == n - 1 else "     "
        lines.append(f"{label}   " + body.format(a=a, b=b))
    return "\n".join(lines)


def _ld(value, reg: str) -> str:
    if value == "blk":
        return f"        LDI blk, {reg}\n"
    return f"        LDI {value >> 16}, {reg}\n        LSH 16, {reg}\n        OR {value & 0xFFFF}, {reg}\n"


def _program(block: str, bases: list, count: int, ir0: int, ir1: int, cache: bool) -> str:
    return ("        .global start\nstart:\n" + ("        OR 800h, ST\n" if cache else "")
            + "".join(_ld(b, f"AR{r}") for r, b in enumerate(bases))
            + f"        LDI {ir0}, IR0\n        LDI {ir1}, IR1\n        LDI 6, BK\n"
            + "        LDF 1.5, R2\n        LDF -0.25, R3\n        LDF 3.0, R1\n        LDI 7, R6\n"
            + f"        LDI {count}, RC\n        RPTB bend\nblk:\n" + block + "\n"
            + "        ADDI 1, R7\n        SWI\n")


def _run(src: str, limit, probed: bool, dram_wait: int, sram_wait: int) -> dict:
    sim = Simulator(MachineConfig(memory=MemoryConfig(dram_wait=dram_wait, sram_wait=sram_wait)))
    sim.load(build_text(src))
    for i in range(64):                                 # data, so that results differ per word
        sim.write(0x2000 + i, [0x3F800000 + (i << 16)])
        sim.write(RAM0 + i, [0x40000000 + (i << 12)])
        sim.write(DRAM + i, [0x3F000000 + (i << 14)])
    return run_snapshot(sim, probed, limit)


@settings(max_examples=150, deadline=None)
@given(block=_block(), bases=st.lists(st.sampled_from(BASES), min_size=4, max_size=4),
       count=st.integers(0, 40), ir0=st.integers(0, 3), ir1=st.integers(0, 3),
       cache=st.booleans(), limit=st.one_of(st.none(), st.integers(1, 200)),
       dram_wait=st.integers(0, 3), sram_wait=st.integers(0, 2))
def test_rptb_bulk_equals_general_path(block, bases, count, ir0, ir1, cache, limit, dram_wait,
                                       sram_wait):
    src = _program(block, bases, count, ir0, ir1, cache)
    fast = _run(src, limit, False, dram_wait, sram_wait)
    assert fast == _run(src, limit, True, dram_wait, sram_wait)


def test_rptb_bulk_weight_update():
    """_mxout's block (firmware/matrix.asm): W += s x over 300 weights, x on
    chip and W in SRAM or DRAM, the cache on; the same on the general path."""
    for w_base, x_base in ((0x2000, RAM0), (DRAM, RAM0), (0x2000, 0x2400)):
        src = ("        .global start\nstart:\n        OR 800h, ST\n"
               + _ld(w_base, "AR2") + _ld(w_base, "AR0") + _ld(x_base, "AR1")
               + "        LDF 0.125, R3\n        MPYF3 R3, *AR1++, R0\n"
               + "        LDI 298, RC\n        RPTB mo_blk\n"
               + "        ADDF3 R0, *AR2++, R1\nmo_blk: MPYF3 R3, *AR1++, R0\n"
               + "     || STF R1, *AR0++\n        ADDF3 R0, *AR2++, R1\n        STF R1, *AR0++\n"
               + "        SWI\n")
        fast = _run(src, None, False, 2, 0)
        assert fast["event"] == "break", fast["messages"]
        assert fast["nodes"][0]["counters"]["instructions"] > 600
        assert fast == _run(src, None, True, 2, 0)
