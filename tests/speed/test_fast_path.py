"""The fast path (rapsim/core/fast.pxi) against the general path: the same
program run plainly and with a probe attached (an armed breakpoint at an
address never reached sends every instruction through step(), probe.pxi)
gives identical counters, registers and memory -- for RPTS loops whose
operands start in, cross or leave a region, every indirect mode, stores,
wait states, and runs cut by a cycle limit in the middle of a repetition."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import MemoryConfig
from rapsim.toolchain import build_text

from reference_cases import snapshot

RAM0, RAM1, DRAM = 0x809800, 0x809C00, 0x400000
#: operand start addresses: plain regions, near their ends (so runs cross
#: into the next region or out of the map), the ring registers
BASES = [0x2000, RAM0, RAM1 - 3, RAM1 + 0x3FE, DRAM, 0x3FFFE, 0x800000 - 2, RAM0 + 0x200]
MODES = ["*AR{r}++", "*AR{r}--", "*+AR{r}(1)", "*++AR{r}(1)", "*--AR{r}(1)", "*AR{r}++(IR0)",
         "*AR{r}--(IR1)", "*AR{r}", "*AR{r}++%"]
BODIES = [
    "MPYF3 {a}, {b}, R0\n     || ADDF3 R0, R2, R2",
    "MPYF3 {a}, {b}, R0\n     || SUBF3 R0, R2, R2",
    "ADDF3 {a}, {b}, R3",
    "LDI {a}, R1\n     || STI R1, {b}",
    "LDF {a}, R4\n     || LDF {b}, R5",
    "STF R2, {a}\n     || STF R3, {b}",
    "ADDI {a}, R6",
    "NOP {a}",
]


def _ld(value: int, reg: str) -> str:
    return f"        LDI {value >> 16}, {reg}\n        LSH 16, {reg}\n        OR {value & 0xFFFF}, {reg}\n"


def _program(body: str, ma: str, mb: str, count: int, ba: int, bb: int, ir: int) -> str:
    a, b = ma.format(r=0), mb.format(r=1)
    return ("        .global start\nstart:\n" + _ld(ba, "AR0") + _ld(bb, "AR1")
            + f"        LDI {ir}, IR0\n        LDI {ir}, IR1\n        LDI 5, BK\n"
            + "        LDF 1.5, R2\n        LDF -0.25, R3\n        LDI 7, R6\n"
            + f"        RPTS {count}\n        {body.format(a=a, b=b)}\n"
            + "        ADDI 1, R7\n        SWI\n")


def _run(src: str, limit: int | None, probed: bool, dram_wait: int) -> dict:
    sim = Simulator(MachineConfig(memory=MemoryConfig(dram_wait=dram_wait)))
    sim.load(build_text(src))
    for i in range(64):                                 # data, so that results differ per word
        sim.write(0x2000 + i, [0x3F800000 + (i << 16)])
        sim.write(RAM0 + i, [0x40000000 + (i << 12)])
    if probed:
        sim.probes.break_at(0x3FFF00)                   # never reached: the general path
    res = sim.run(max_cycles=limit)
    out = snapshot(sim)
    out["event"] = res.event
    out["messages"] = list(res.messages)
    return out


@settings(max_examples=60, deadline=None)
@given(body=st.sampled_from(BODIES), ma=st.sampled_from(MODES), mb=st.sampled_from(MODES),
       count=st.integers(0, 40), ba=st.sampled_from(BASES), bb=st.sampled_from(BASES),
       ir=st.integers(0, 3), limit=st.one_of(st.none(), st.integers(1, 80)),
       dram_wait=st.integers(0, 3))
def test_fast_path_equals_general_path(body, ma, mb, count, ba, bb, ir, limit, dram_wait):
    if body.startswith("ADDI") or body.startswith("NOP"):
        mb = ma                                         # one memory operand
    src = _program(body, ma, mb, count, ba, bb, ir)
    assert _run(src, limit, False, dram_wait) == _run(src, limit, True, dram_wait)
