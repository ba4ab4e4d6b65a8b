"""The cost of a user transfer function for ``rap plan`` (docs/plan.md,
"User routines"): the cost model cannot read a user's assembly as it reads
the firmware's loops, so each routine (``transfer ... forward F derivative
D``, called as ``F(z, x, n)``) is run alone on one simulated node, its
vectors on chip, for two lengths: alpha + beta n, where beta is the cycles
an element and alpha the call's fixed cost (its CALL, set-up and RETS).  A
run of a few hundred cycles, once per routine and process; the network's
cost is still the analytic walk of its program.
"""
from __future__ import annotations

from rapsim.errors import RapError
from rapsim.memmap import RAM0_BASE, RAM1_BASE

#: the two lengths the routine is timed at (on-chip vectors of 1 K words)
LENGTHS = (16, 64)


def _driver(fn: str | None, n: int) -> str:
    call = [f"        LDI     {n}, AR4", f"        CALL    {fn}"] if fn else \
        ["        LDI     0, AR4", "        NOP", "        NOP", "        NOP"]
    return "\n".join(
        ['        .global _main' + (f", {fn}" if fn else ""),
         '        .text',
         '_main:',
         f'        LDI     {RAM0_BASE >> 16}, AR2',
         '        LSH     16, AR2',
         f'        OR      {RAM0_BASE & 0xFFFF}, AR2',
         f'        LDI     {RAM1_BASE >> 16}, AR3',
         '        LSH     16, AR3',
         f'        OR      {RAM1_BASE & 0xFFFF}, AR3']
        + call + ['        LDI     0, R0', '        RETS']) + "\n"


def _cycles(user_objs, fn: str | None, n: int, memory) -> int:
    from rapsim import firmware
    from rapsim.asm.assembler import assemble_text
    from rapsim.config import MachineConfig
    from rapsim.machine import Simulator
    from rapsim.toolchain import link_objects
    gen = assemble_text(_driver(fn, n), "<plan>.asm", [firmware.include_dir()]).obj
    image = link_objects([("<plan>.obj", gen)] + list(user_objs),
                         libraries=firmware.link_inputs(), memory=memory)
    cfg = MachineConfig(nodes=1) if memory is None else MachineConfig(nodes=1, memory=memory)
    sim = Simulator(cfg)
    sim.load(image)
    r = sim.run(max_cycles=10_000_000)
    if r.event != "done":
        raise RapError(f"{fn}: timing the routine alone did not finish ({r.event}): "
                       + "; ".join(r.messages))
    return r.cycles


#: measured routines: (assembly file, routine, memory) -> (alpha, beta)
_MEASURED: dict = {}


def routine_costs(network, memory=None) -> dict[str, tuple[float, float]]:
    """``{routine: (alpha, beta)}`` for every user transfer function of
    ``network`` (its forward and derivative routines)."""
    if not network.transfers:
        return {}
    from rapsim.compiler.build import user_objects
    objs = None
    out = {}
    for t in network.transfers.values():
        for fn in (t.forward, t.derivative):
            key = (t.asm, fn, repr(memory))
            if key not in _MEASURED:
                objs = objs or user_objects(network)
                base = _cycles(objs, None, 0, memory)
                a, b = (_cycles(objs, fn, n, memory) - base for n in LENGTHS)
                beta = (b - a) / (LENGTHS[1] - LENGTHS[0])
                _MEASURED[key] = (a - beta * LENGTHS[0], beta)
            out[fn] = _MEASURED[key]
    return out
