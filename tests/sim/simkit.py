"""Running small C30 programs for the instruction-semantics tests.

``run(body, regs=..., mem=...)`` assembles ``body`` (TI syntax, instructions
indented) after a ``start`` label, presets registers and memory, runs it to
its ``SWI`` and returns the simulator.  ``Kernel`` assembles a program once
and re-runs it with new register values (for property tests: a run then
costs microseconds).
"""
from __future__ import annotations

from rapsim.asm.floatfmt import from_extended, to_extended
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

HEAD = "        .global start\nstart:\n"
DATA = 0x2000        # free SRAM for data (programs sit at 0x40..)
STACK = 0x1000


def build(body: str):
    return build_text(HEAD + body)


def _preset(sim: Simulator, regs: dict | None, mem: dict | None) -> None:
    for addr, words in (mem or {}).items():
        sim.write(addr, words)
    for name, value in (regs or {}).items():
        if isinstance(value, Ext):
            sim.set_reg40(name, value.pattern)
        else:
            sim.set_reg(name, value)


class Ext:
    """A 40-bit register pattern to preset (``regs={"R0": Ext(0x0733C16EEF)}``)."""

    def __init__(self, pattern: int):
        self.pattern = pattern


def fx(value: float) -> Ext:
    """A float as an extended register preset."""
    return Ext(int(to_extended(value)))


def run(body: str, *, regs: dict | None = None, mem: dict | None = None,
        expect: str = "break", max_cycles: int = 200_000) -> Simulator:
    sim = Simulator()
    sim.load(build(body))
    _preset(sim, regs, mem)
    res = sim.run(max_cycles=max_cycles)
    assert res.event == expect, res.messages
    sim.result = res
    return sim


def run_result(body: str, *, regs: dict | None = None, mem: dict | None = None,
               max_cycles: int = 200_000):
    """Run and return (simulator, RunResult) whatever the outcome."""
    sim = Simulator()
    sim.load(build(body))
    _preset(sim, regs, mem)
    return sim, sim.run(max_cycles=max_cycles)


class Kernel:
    """A program assembled once and run many times with fresh registers."""

    def __init__(self, body: str):
        self.image = build(body)
        self.sim = Simulator()
        self.sim.load(self.image)

    def __call__(self, regs: dict | None = None, mem: dict | None = None) -> Simulator:
        sim = self.sim
        sim.reset(self.image.entry)
        _preset(sim, regs, mem)
        res = sim.run(max_cycles=10_000)
        assert res.event == "break", res.messages
        return sim


def value(pattern: int) -> float:
    return float(from_extended(pattern))
