"""The programs whose results and counters are recorded in reference.json
(tests/speed/record_reference.py writes it, test_recorded_reference.py compares):
the examples, the firmware routines, the peripherals, the benchmark kernels
and a training run of the compiler.  Every simulator change that claims to
keep results "bit-identical" (issue 16) is checked against this record,
made before the change.

Each case returns the Simulator after its run (and for training, the
result's figures); :func:`snapshot` turns it into JSON-ready values: every
counter of every node, the machine counters, the 32-bit and 40-bit
registers, the PC, the status and a digest of each memory region.
"""
from __future__ import annotations

import hashlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for sub in ("sim", "firmware"):
    p = os.path.join(ROOT, "tests", sub)
    if p not in sys.path:
        sys.path.insert(0, p)
if os.path.join(ROOT, "benchmarks") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from rapsim.config import MachineConfig  # noqa: E402
from rapsim.machine import Simulator  # noqa: E402
from rapsim.memmap import RAM0_BASE, DRAM_BASE  # noqa: E402
from rapsim.toolchain import build_files, build_text  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples")


def _digest(words: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(words, dtype=np.uint32).tobytes()).hexdigest()[:24]


def snapshot(sim: Simulator) -> dict:
    """Every counter, register and memory digest of every node."""
    mem = sim.config.memory
    nodes = []
    for n in range(sim.nodes):
        nodes.append({
            "counters": sim.counters(n),
            "registers": [int(w) for w in sim.register_words(n)],
            "extended": [int(w) for w in sim.extended_registers(n)],
            "sram": _digest(sim.read(0, mem.sram_words, n)),
            "dram": _digest(sim.read(DRAM_BASE, mem.dram_words, n)),
            "onchip": _digest(sim.read(RAM0_BASE, 2048, n)),
        })
    m = sim.machine_counters()
    m.pop("nodes")
    return {"nodes": nodes, "machine": m}


def run_snapshot(sim: Simulator, probed: bool, limit: int | None) -> dict:
    """Run ``sim`` (``probed``: with a breakpoint armed that is never
    reached, so that every instruction takes the general path) and return
    its :func:`snapshot` with the run's event and messages."""
    if probed:
        sim.probes.break_at(0x3FFF00)
    res = sim.run(max_cycles=limit)
    out = snapshot(sim)
    out["event"] = res.event
    out["messages"] = list(res.messages)
    return out


def _run(image, nodes: int = 1, max_cycles: int | None = None, **cfg) -> Simulator:
    sim = Simulator(MachineConfig(nodes=nodes, **cfg))
    sim.load(image)
    res = sim.run(max_cycles=max_cycles)
    sim.last_event = res.event
    return sim


def _ex(name: str, edit: tuple[str, str] | None = None):
    if edit is None:
        return build_files(os.path.join(EXAMPLES, name))
    with open(os.path.join(EXAMPLES, name)) as f:
        text = f.read()
    assert edit[0] in text, f"{name} no longer has {edit[0]!r}"
    return build_text(text.replace(edit[0], edit[1]))


# --- the examples ---------------------------------------------------------------------

def hello():
    return _run(_ex("hello.asm"), nodes=4)


def dotbus_sram():
    return _run(_ex("dotbus.asm"))


def dotbus_onchip():
    return _run(_ex("dotbus.asm", ("B_ONCHIP .set   0", "B_ONCHIP .set   1")))


def shift_deadlock():
    return _run(_ex("shift.asm"), nodes=4)


# --- the benchmark kernels (smaller) --------------------------------------------------

def bench_dot():
    import bench_sim
    return _run(build_text(bench_sim.dot_program(outer=30, n=200)))


def bench_branchy():
    import bench_sim
    return _run(build_text(bench_sim.branchy_program(iterations=3000)))


def bench_nn():
    import bench_sim
    sim = Simulator(MachineConfig())
    sim.load(build_text(bench_sim.nn_program(passes=3)))
    bench_sim._nn_data(sim)
    sim.last_event = sim.run().event
    return sim


def _ring(kind: str, rounds: int, nodes: int):
    import bench_ring
    return _run(build_text(bench_ring.PROGRAMS[kind](rounds, nodes)), nodes=nodes,
                hostcall_cycles=0)


def ring_compute_4():
    return _ring("compute", 6, 4)


def ring_compute_16():
    return _ring("compute", 2, 16)


def ring_gather_4():
    return _ring("ring", 40, 4)


def ring_gather_16():
    return _ring("ring", 4, 16)


def ring_gather_board_hops():
    import bench_ring
    return _run(build_text(bench_ring.PROGRAMS["ring"](6, 8)), nodes=8, hostcall_cycles=0,
                board_hop_cycles=3)


# --- firmware routines ----------------------------------------------------------------

def _fw(calls, setup, nodes: int = 1):
    from fwharness import run_calls
    return run_calls(calls, setup=setup, nodes=nodes).sim


def firmware_matrix():
    from fwharness import RAM0, RAM1, SRAM, SRAM2, SRAM3, Call
    rows, cols = 9, 33
    rng = np.random.default_rng(1)
    calls = [Call("_mxv", [SRAM2, SRAM, RAM0, rows, cols, SRAM3]),
             Call("_mxtv", [RAM1, SRAM, SRAM3 + 0x100, rows, cols]),
             Call("_mxout", [SRAM + 0x3000, SRAM3 + 0x100, RAM0, rows, cols], [0.25]),
             Call("_mxoutm", [SRAM + 0x6000, SRAM3 + 0x100, RAM0, rows, cols, SRAM + 0x9000],
                  [0.25, 0.5])]

    def setup(sim):
        w = rng.standard_normal(rows * cols)
        for a in (SRAM, SRAM + 0x3000, SRAM + 0x6000):
            sim.write_floats(a, w)
        sim.write_floats(SRAM + 0x9000, 0.1 * rng.standard_normal(rows * cols))
        sim.write_floats(RAM0, rng.standard_normal(cols))
        sim.write_floats(SRAM3, rng.standard_normal(rows))
        sim.write_floats(SRAM3 + 0x100, rng.standard_normal(rows))
    return _fw(calls, setup)


def firmware_activate():
    from fwharness import RAM0, RAM1, SRAM, SRAM2, Call
    n = 37
    rng = np.random.default_rng(2)
    calls = [Call("_vsigmoid", [RAM1, RAM0, n]), Call("_vtanh", [RAM1 + 0x100, RAM0, n]),
             Call("_vsigmoid_deriv", [SRAM2, SRAM, n]),
             Call("_vtanh_deriv", [SRAM2 + 0x100, SRAM + 0x100, n]),
             Call("_vexp", [SRAM2 + 0x200, RAM0, n]), Call("_vsoftmax", [SRAM2 + 0x300, RAM0, n])]

    def setup(sim):
        sim.write_floats(RAM0, 4 * rng.standard_normal(n))
        sim.write_floats(SRAM, rng.random(n))
        sim.write_floats(SRAM + 0x100, rng.random(n))
    return _fw(calls, setup)


def firmware_dma():
    from fwharness import RAM0, SRAM, Call
    INCSRC, INCDST = 0x10, 0x40
    calls = [Call("_dma_start", [RAM0, SRAM, 50, INCSRC | INCDST]), Call("_dma_wait")]

    def setup(sim):
        sim.write(SRAM, list(range(50)))
    return _fw(calls, setup)


# --- peripherals: DMA, timers, interrupts ---------------------------------------------

def periph_dma_paced_by_timer():
    import test_periph as tp
    from simkit import run
    body = (tp.ld(tp.TIM0, "AR1") + "        LDI 10, R0\n        STI R0, *+AR1(8)\n"
            + tp.ld(tp.ETINT0 << 16, "R0") + "        LDI R0, IE\n"
            + tp.dma_setup(tp.SRAM_A, tp.RAM0, 100)
            + tp.dma_go(tp.INCSRC | tp.INCDST | tp.TC | tp.SYNC_SRC | tp.START)
            + f"        LDI {tp.TIM_RUN}, R0\n        STI R0, *AR1\n"
            + "        RPTS 204\n        NOP\n        LDI *+AR0(8), AR4\n        SWI\n")
    return run(body, mem={tp.SRAM_A: list(range(100))})


def periph_dint_interrupt():
    import test_periph as tp
    from simkit import STACK, run
    body = ("        LDI isr, R0\n        STI R0, @11\n"
            "        LDI 400h, IE\n        OR 2000h, ST\n"
            + tp.dma_setup(tp.SRAM_A, tp.RAM0, 6)
            + tp.dma_go(tp.INCSRC | tp.INCDST | tp.TC | tp.TCINT | tp.START)
            + "spin:   CMPI 0, AR5\n        BZ spin\n        SWI\n"
            "isr:    LDI *+AR0(8), AR4\n        LDI 1, AR5\n        RETIU\n")
    return run(body, regs={"SP": STACK}, mem={tp.SRAM_A: list(range(6))})


def periph_dma_contention():
    import test_periph as tp
    from simkit import run
    body = (tp.dma_setup(tp.SRAM_A, tp.RAM0, 200)
            + tp.dma_go(tp.INCSRC | tp.INCDST | tp.TC | tp.START)
            + tp.ld(tp.SRAM_B, "AR2") + "        RPTS 99\n        LDI *AR2++, R3\n"
            + "        LDI *+AR0(8), AR4\n        SWI\n")
    return run(body, mem={tp.SRAM_A: list(range(200))})


# --- the compiler: a training run -----------------------------------------------------

def _train(netfile: str, nodes: int, patterns: int):
    from rapsim.compiler.parser import parse_file
    from rapsim.compiler.train import measure
    held = []
    res = measure(parse_file(os.path.join(EXAMPLES, netfile)), MachineConfig(nodes=nodes),
                  train_patterns=patterns, test_patterns=patterns, instrument=held.append)
    out = snapshot(held[0])
    out["train"] = {"cycles": res.cycles, "outputs": _digest(res.outputs.view(np.uint32)
                                                             if res.outputs.dtype == np.float32
                                                             else np.frombuffer(
                                                                 np.ascontiguousarray(
                                                                     res.outputs, np.float64)
                                                                 .tobytes(), np.uint32)),
                    "performance": res.performance.to_dict()}
    return out


def train_xor():
    return _train("xor.net", 4, 4)


def train_digits():
    return _train("digits.net", 4, 2)


CASES = {f.__name__: f for f in (
    hello, dotbus_sram, dotbus_onchip, shift_deadlock, bench_dot, bench_branchy, bench_nn,
    ring_compute_4, ring_compute_16, ring_gather_4, ring_gather_16, ring_gather_board_hops,
    firmware_matrix, firmware_activate, firmware_dma, periph_dma_paced_by_timer,
    periph_dint_interrupt, periph_dma_contention, train_xor, train_digits)}


def record(name: str) -> dict:
    """The JSON-ready record of one case."""
    got = CASES[name]()
    if isinstance(got, dict):
        return got
    out = snapshot(got)
    out["event"] = getattr(got, "last_event", None)
    return out
