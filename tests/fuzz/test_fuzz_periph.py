"""Fuzz: the on-chip peripherals programmed with random values.

A program writes random words into the DMA channel's and the timers'
registers (and now and then anywhere in the peripheral window), loads IE
and IF with random bits, sets or leaves ST's GIE, and then goes on with a
random tail: IDLE, a busy loop, a RETI, or random instruction words.  The
interrupt vectors point at a handler that returns (RETI), at 0, or at a
random word.  Any outcome of the run is fine (done, error, deadlock, idle,
limit, ...) except an exception, a crash of the extension or a hang
(docs/reliability.md)."""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim import memmap
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

REGISTERS = sorted(memmap.PERIPH_REGISTERS)
#: words worth writing: addresses of every region, counts, control bits
ADDRESSES = [0x0, 0x40, 0x10000, 0x3FFFF, 0x400000, 0x809800, 0x809BFF, 0x809C00, 0x809FFF,
             0x800000, 0x808000, 0x8097FF, 0xFFFFFF, 0x1000000]
value = st.one_of(st.integers(0, 2 ** 32 - 1), st.sampled_from(ADDRESSES),
                  st.integers(0, 64), st.integers(0, 0xFFFF) | st.just(0xC3))
#: a register of the DMA channel or a timer; one write in 32 anywhere in the
#: peripheral window (most of which is unmapped: the run stops there)
register = st.tuples(st.integers(0, 31),
                     st.integers(memmap.PERIPH_BASE, memmap.PERIPH_BASE + memmap.PERIPH_SIZE - 1)
                     ).map(lambda t: t[1] if t[0] == 0 else REGISTERS[t[0] % len(REGISTERS)])
TAILS = {
    "idle": "        IDLE\n        SWI\n",
    "loop": "spin:   B spin\n",
    "reti": "        RETI\n",
    "swi": "        SWI\n",
    "words": "",            # random words follow the program
}


def _ld(v: int, reg: str) -> str:
    """Load a 32-bit word: LDI sign-extends its 16 bits (the extension is
    shifted out), OR zero-extends."""
    hi = (v >> 16) & 0xFFFF
    return (f"        LDI {hi - 0x10000 if hi & 0x8000 else hi}, {reg}\n        LSH 16, {reg}\n"
            f"        OR {v & 0xFFFF}, {reg}\n")


def program(writes, ie: int, iflags: int, gie: bool, tail: str) -> str:
    src = ["        .global start, handler", "start:  LDI 1000h, SP"]
    for addr, v in writes:
        src.append(_ld(addr, "AR0") + _ld(v, "R0") + "        STI R0, *AR0")
    src.append(_ld(ie, "R1") + "        LDI R1, IE")
    src.append(_ld(iflags, "R1") + "        LDI R1, IF")
    if gie:
        src.append("        OR 2000h, ST")
    src.append(TAILS[tail])
    src.append("handler: RETI")
    return "\n".join(src) + "\n"


def _run(root: str, nodes: int, writes, ie, iflags, gie, tail, vectors, words, quantum):
    image = build_text(program(writes, ie, iflags, gie, tail))
    sim = Simulator(MachineConfig(nodes=nodes), root=root, stdin=io.BytesIO(b""))
    sim.load(image)
    handler = image.symbols["handler"]
    vec = [handler if v == "handler" else v for v in vectors]
    sim.write(1, np.array(vec, dtype=np.uint64).astype(np.uint32))
    if tail == "words":
        end = max(a for a in image.symbols.values() if a < 0x800000)
        sim.write(end, np.array(words, dtype=np.uint64).astype(np.uint32))
    with fuzzkit.time_limit(30, f"a run of random peripheral settings on {nodes} nodes"):
        res = sim.run(max_cycles=20_000, quantum=quantum)
    assert res.event in ("done", "error", "deadlock", "idle", "limit", "break"), res.event
    assert res.messages or res.event == "done"
    sim.machine_counters()
    for n in range(nodes):
        sim.counters(n)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_periph_root"))


@fuzzkit.examples(ci=200, long=10000)
@given(writes=st.lists(st.tuples(register, value), max_size=12),
       ie=st.one_of(st.integers(0, 2 ** 32 - 1), st.sampled_from([0, 0x100, 0x200, 0x400, 0x700])),
       iflags=st.one_of(st.just(0), st.integers(0, 2 ** 32 - 1)), gie=st.booleans(),
       tail=st.sampled_from(sorted(TAILS)),
       vectors=st.lists(st.one_of(st.just("handler"), st.just(0), st.integers(0, 2 ** 32 - 1)),
                        min_size=0x3F, max_size=0x3F),
       words=st.lists(st.integers(0, 2 ** 32 - 1), min_size=16, max_size=16),
       nodes=st.sampled_from([1, 4]), quantum=st.sampled_from([0, 1, 7]))
def test_random_peripheral_settings(root, writes, ie, iflags, gie, tail, vectors, words, nodes,
                                    quantum):
    fuzzkit.count("simulator: peripheral settings", 1)
    _run(root, nodes, writes, ie, iflags, gie, tail, vectors, words, quantum)
