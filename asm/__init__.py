"""TMS320C30 assembler, linker and disassembler (TI syntax, TI encodings).

The instruction set is described once, in :mod:`rapsim.asm.isa`.
"""
