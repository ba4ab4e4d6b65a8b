"""Compile a network into a linked RAP image: lower, generate, assemble,
link with the firmware, and check the layout the linker chose.

>>> prog = compile_network(network, nodes=4)
>>> prog.source      # the generated assembly
>>> prog.image       # the executable image (rapsim.asm.objfile.Image)
>>> prog.plan        # partition and memory layout (rapsim.compiler.lower.Plan)
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from rapsim import firmware
from rapsim.asm.objfile import Image
from rapsim.compiler.codegen import generate
from rapsim.compiler.ir import Network
from rapsim.compiler.lower import STACK_RESERVE, LoweringError, Plan, lower
from rapsim.compiler.overlap import overlap_for
from rapsim.errors import RapError
from rapsim.memmap import MemoryConfig


@dataclass
class Program:
    plan: Plan
    source: str
    image: Image
    #: an inference image's net (rapsim.compiler.nets.SubNet; None: the main net)
    infers: object = None

    def address(self, sym: str) -> int:
        return self.image.symbols[sym]


def user_objects(network: Network) -> list:
    """The assembled files of the network's user transfer functions
    (compiler/transfer.py) and behaviours (compiler/behaviours.py),
    ``(name, ObjectFile)``, each once; a routine they name must be a
    global symbol of its file."""
    from rapsim.asm.assembler import assemble_file
    from rapsim.errors import Diagnostics
    objs: dict[str, object] = {}
    users = [(f"transfer {t.name!r}", t.asm, t.loc,
              ((t.forward, t.forward_loc), (t.derivative, t.derivative_loc)))
             for t in network.transfers.values()]
    users += [(f"behaviour {b.event}", b.asm, b.loc, ((b.routine, b.routine_loc),))
              for b in network.behaviours]
    for what, path, where, routines in users:
        if path not in objs:
            try:
                objs[path] = assemble_file(path, [firmware.include_dir()]).obj
            except Diagnostics as e:
                raise RapError(f"{where}: error: {what}: its assembly file has "
                               f"errors:\n" + str(e)) from None
        defined = {s.name for s in objs[path].symbols if s.binding == "global"}
        for sym, loc in routines:
            if sym not in defined:
                raise RapError(f"{loc}: error: {what}: {path} does not define "
                               f"{sym} as a global routine (.global {sym})")
    return [(os.path.splitext(path)[0] + ".obj", obj) for path, obj in objs.items()]


def assemble(plan: Plan, source: str) -> Image:
    """Assemble and link ``source`` with crt0, the network's user transfer
    functions and the firmware library."""
    from rapsim.asm.assembler import assemble_text
    from rapsim.toolchain import link_objects
    users = user_objects(plan.network)
    try:
        gen = assemble_text(source, "<source>.asm", [firmware.include_dir()]).obj
        return link_objects([("<source>.obj", gen)] + users,
                            libraries=firmware.link_inputs(), memory=plan.memory)
    except RapError as e:
        if "memory region" in str(e) and "overflows" in str(e):
            nodes = f"{plan.nodes} node{'s' if plan.nodes > 1 else ''}"
            raise LoweringError(f"network {plan.network.name!r} on {nodes} does not fit a node's "
                                f"memory ({plan.memory.sram_words} words of SRAM): {e}") from None
        raise RapError(f"the program generated for network {plan.network.name!r} on "
                       f"{plan.nodes} nodes does not assemble or link: {e}") from None


def check_layout(plan: Plan, image: Image) -> None:
    """Everything the generated code assumes of the placement: all .data on
    the page DP points at, and room for the stack in SRAM."""
    syms = image.symbols
    if syms["nv"] >> 16 != (syms["dataend"] - 1) >> 16:
        raise LoweringError("the program's variables straddle a 64K-word page")
    room = syms["__SRAM_end"] - syms["__SRAM_free"]
    if room < STACK_RESERVE:
        raise LoweringError(f"{plan.network.name}: code, vectors and weights leave "
                            f"{room} words of SRAM for the stack (need {STACK_RESERVE})")


def compile_network(network: Network, nodes: int, memory: MemoryConfig | None = None,
                    host_hooks=(), mapping=None, overlap: str | None = None,
                    collectives: str = "auto", eval_mapping: str | None = None) -> Program:
    """Lower, generate, assemble and link ``network`` for ``nodes`` nodes,
    with ``mapping`` (a :class:`rapsim.compiler.mapping.Mapping`; default:
    the description's, else rows).  ``host_hooks``: the hook points
    (rapsim.compiler.behaviours.HookPoint) where the program calls the host
    for a host callback.  ``overlap``: the --overlap option (default: the
    description's; rapsim.compiler.overlap).  ``collectives``: the
    --collectives option (rapsim.compiler.collectives).  ``eval_mapping``:
    the evaluation pass's own mapping (rapsim.compiler.evalmap; None: the
    training mapping evaluates)."""
    from rapsim.compiler.collectives import check_mode
    check_mode(collectives)
    if mapping is None:
        from rapsim.compiler.mapping import resolve
        from rapsim.compiler.pipeline import apply_schedule
        mapping = apply_schedule(network, resolve(network, nodes))
    overlap = overlap_for(network, mapping, overlap)
    plan = lower(network, nodes, memory, mapping)
    plan.host_hooks = list(host_hooks)
    plan.overlap = overlap
    plan.collectives = collectives
    from rapsim.compiler import evalmap
    name, where = evalmap.choose(network, eval_mapping)
    if name is not None:
        evalmap.check(network, mapping, name, where, host_hooks=plan.host_hooks)
        plan.eval_plan = evalmap.eval_plan(plan, name, "--eval-mapping" if eval_mapping
                                           else "description")
    return build_program(plan, lambda long_branches: generate(plan, long_branches))


def build_program(plan: Plan, source_of) -> Program:
    """Assemble and link the program ``source_of(long_branches)`` generates
    for ``plan``, and check its layout.  A program too large for PC-relative
    branches (a long chain of layers) is generated again with absolute ones;
    the cycle counts of all other programs are unchanged."""
    source = source_of(False)
    try:
        image = assemble(plan, source)
    except RapError as e:
        if "PC-relative branches reach" not in str(e):
            raise
        source = source_of(True)
        image = assemble(plan, source)
    check_layout(plan, image)
    return Program(plan, source, image)
