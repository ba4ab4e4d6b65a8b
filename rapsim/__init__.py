"""rap: a cycle-level simulator of ICSI's Ring Array Processor and its toolchain.

Installed, the whole project lives under this package: ``rapsim.asm`` (the
TMS320C30 assembler, linker and disassembler, from the ``asm/`` folder),
``rapsim.compiler`` (``compiler/``), ``rapsim.firmware`` (``firmware/``) and the
simulator itself.
"""
__version__ = "0.1.0"
