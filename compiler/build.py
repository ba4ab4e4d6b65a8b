"""Compile a network into a linked RAP image: lower, generate, assemble,
link with the firmware, and check the layout the linker chose.

>>> prog = compile_network(network, nodes=4)
>>> prog.source      # the generated assembly
>>> prog.image       # the executable image (rapsim.asm.objfile.Image)
>>> prog.plan        # partition and memory layout (rapsim.compiler.lower.Plan)
"""
from __future__ import annotations

from dataclasses import dataclass

from rapsim import firmware
from rapsim.asm.objfile import Image
from rapsim.compiler.codegen import generate
from rapsim.compiler.ir import Network
from rapsim.compiler.lower import STACK_RESERVE, LoweringError, Plan, lower
from rapsim.errors import RapError
from rapsim.memmap import MemoryConfig


@dataclass
class Program:
    plan: Plan
    source: str
    image: Image

    def address(self, sym: str) -> int:
        return self.image.symbols[sym]


def assemble(plan: Plan, source: str) -> Image:
    """Assemble and link ``source`` with crt0 and the firmware library."""
    from rapsim.toolchain import build_text
    try:
        return build_text(source, include_dirs=[firmware.include_dir()],
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
                    mapping=None) -> Program:
    """Lower, generate, assemble and link ``network`` for ``nodes`` nodes,
    with ``mapping`` (a :class:`rapsim.compiler.mapping.Mapping`; default:
    the description's, else rows)."""
    if mapping is None:
        from rapsim.compiler.mapping import resolve
        mapping = resolve(network, nodes)
    plan = lower(network, nodes, memory, mapping)
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
