"""The cost of user routines for ``rap plan`` (docs/plan.md, "Assumptions
and limits"): the cost model cannot read a user's assembly as it reads the
firmware's loops, so each routine is timed on one simulated node.

* A user transfer function (``transfer ... forward F derivative D``,
  called as ``F(z, x, n)``) runs alone, its vectors on chip, for two
  lengths: alpha + beta n, where beta is the cycles an element and alpha
  the call's fixed cost (its CALL, set-up and RETS).
* A behaviour (``behaviour EVENT [LAYER] call R "FILE"``, compiler/
  behaviours.py) runs as linked into the network's own program (it may
  read the generated buffers, e.g. ``n_bias_y``, and the program's .data
  page): a driver replaces the program's ``_main``, sets the registers the
  hook point sets (AR2 the epoch, AR3 the pattern's row, AR4 the layer's
  own activations, AR5 its own units) and calls the routine; with a layer,
  for two unit counts (alpha + beta n), else once (a constant).
* The host call a host callback makes (``_hostcall``, firmware/
  syscalls.asm) is the routine's own instructions, timed the same way on
  a machine that charges nothing for the daemon, plus the machine's
  ``hostcall_cycles`` (docs/machine-model.md section 7: a node is charged
  that many cycles for every host call, whatever the daemon does; the
  host's own Python time is not simulated time).

Runs of a few hundred cycles, once per routine and process; the network's
cost is still the analytic walk of its program.  Every figure assumes the
routine's cost does not depend on the data it reads (it is timed on the
memory as linked, zeros and the initial .data).
"""
from __future__ import annotations

import os
import re

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


def _cycles(user_objs, fn: str | None, n: int, memory, source: str | None = None,
            hostcall_cycles: int | None = None) -> int:
    """The cycles of a one-node run of ``source`` (default: the transfer
    function driver of ``fn`` at length ``n``) linked with ``user_objs``
    and the firmware."""
    from rapsim import firmware
    from rapsim.asm.assembler import assemble_text
    from rapsim.config import MachineConfig
    from rapsim.machine import Simulator
    from rapsim.toolchain import link_objects
    gen = assemble_text(source if source is not None else _driver(fn, n), "<plan>.asm",
                        [firmware.include_dir()]).obj
    image = link_objects([("<plan>.obj", gen)] + list(user_objs),
                         libraries=firmware.link_inputs(), memory=memory)
    kw = {} if memory is None else {"memory": memory}
    if hostcall_cycles is not None:
        kw["hostcall_cycles"] = hostcall_cycles
    sim = Simulator(MachineConfig(nodes=1, **kw))
    sim.load(image)
    r = sim.run(max_cycles=10_000_000)
    if r.event != "done":
        raise RapError(f"{fn}: timing the routine alone did not finish ({r.event}): "
                       + "; ".join(r.messages))
    return r.cycles


#: measured routines: (assembly file, routine, memory) -> (alpha, beta)
_MEASURED: dict = {}


def _fit(cycles, lengths=LENGTHS) -> tuple[float, float]:
    """``(alpha, beta)`` of a routine's extra cycles ``cycles(n)`` at
    ``lengths``: alpha + beta n through the two, or (alpha, 0) for one."""
    got = [cycles(n) for n in lengths]
    if len(got) == 1:
        return float(got[0]), 0.0
    beta = (got[1] - got[0]) / (lengths[1] - lengths[0])
    return got[0] - beta * lengths[0], beta


def routine_costs(network, memory=None) -> dict[str, tuple[float, float]]:
    """``{routine: (alpha, beta)}`` for every user transfer function of
    ``network`` (its forward and derivative routines)."""
    if not network.transfers:
        return {}
    from rapsim.compiler.build import user_objects
    objs = base = None
    out = {}
    for t in network.transfers.values():
        for fn in (t.forward, t.derivative):
            key = (t.asm, fn, repr(memory))
            if key not in _MEASURED:
                if objs is None:
                    # the transfer functions' files only: a behaviour's may need the
                    # program's buffers
                    mine = {os.path.splitext(t.asm)[0] + ".obj"
                            for t in network.transfers.values()}
                    objs = [o for o in user_objects(network) if o[0] in mine]
                    base = _cycles(objs, None, 0, memory)
                _MEASURED[key] = _fit(lambda n: _cycles(objs, fn, n, memory) - base)
            out[fn] = _MEASURED[key]
    return out


# -- behaviours and host calls -------------------------------------------------------

#: the driver's name for the program's own ``_main`` (never run when timing)
_PROGRAM_MAIN = "_plan_program_main"


def _hook_driver(source: str, routine: str | None, act: int, n: int) -> str:
    """The network's program with a ``_main`` that sets the hook point's
    registers and calls ``routine`` once (None: the same without the call)."""
    body = re.sub(r"\b_main\b", _PROGRAM_MAIN, source)
    call = [f"        CALL    {routine}"] if routine else []
    return body + "\n".join(
        ["", "        .global _main", "        .text",
         "_main:  LDP     nv",
         "        LDI     0, AR2", "        LDI     0, AR3",
         f"        LDI     {act >> 16}, AR4", "        LSH     16, AR4",
         f"        OR      {act & 0xFFFF}, AR4",
         f"        LDI     {n}, AR5"]
        + call + ["        LDI     0, R0", "        RETS", ""])


def behaviour_costs(network, program, memory=None) -> dict:
    """``{(routine, layer or None): (alpha, beta)}`` for every behaviour of
    ``network``, timed as linked into ``program`` (its compiled
    :class:`~rapsim.compiler.build.Program`, or a function returning it:
    compiled only when a routine is not timed yet): a behaviour with a layer
    at AR5 = 16 and 64 units (alpha + beta n, AR4 its activations' address
    in the program), one without once (alpha, beta 0)."""
    from rapsim.compiler.build import user_objects
    out, objs = {}, None
    for b in network.behaviours:
        key = (b.asm, b.routine, b.layer, repr(memory))
        if key not in _MEASURED:
            if callable(program):
                program = program()
            objs = objs or user_objects(network)
            act = 0
            if b.layer is not None:
                act = program.image.symbols[program.plan.layers[b.layer].act.name]

            def run(fn, n):
                return _cycles(objs, fn, n, memory, _hook_driver(program.source, fn, act, n))
            _MEASURED[key] = _fit(lambda n: run(b.routine, n) - run(None, n),
                                  LENGTHS if b.layer is not None else (0,))
        out[(b.routine, b.layer)] = _MEASURED[key]
    return out


def _hostcall_driver(call: bool) -> str:
    lines = ['        .global _main, _hostcall', '        .include "rap.inc"', '        .text',
             '_main:  LDI     SYS_CLOCK, R0', '        LDI     0, AR2',
             '        LDI     0, AR3', '        LDI     0, AR4']
    if call:
        lines.append('        CALL    _hostcall')
    return "\n".join(lines + ['        LDI     0, R0', '        RETS', ''])


def hostcall_cycles(charged: int, memory=None) -> float:
    """A host call's cycles on the node that makes it: ``_hostcall``'s own
    instructions (its CALL and RETS, the request block written and read:
    timed with a daemon that charges nothing) plus ``charged``, what the
    machine charges a node for the daemon's service (``--hostcall-cycles``,
    docs/machine-model.md section 7: ``Machine.finish_hostcall`` in
    rapsim/_sim.pyx adds ``MachineConfig.hostcall_cycles`` to the node's
    clock when the daemon has served the request; the daemon's own Python
    time is not simulated)."""
    key = ("_hostcall", repr(memory))
    if key not in _MEASURED:
        _MEASURED[key] = float(
            _cycles((), "_hostcall", 0, memory, _hostcall_driver(True), hostcall_cycles=0)
            - _cycles((), None, 0, memory, _hostcall_driver(False), hostcall_cycles=0))
    return _MEASURED[key] + charged
