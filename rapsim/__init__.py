"""rap: a cycle-level simulator of ICSI's Ring Array Processor and its toolchain.

Installed, the whole project lives under this package: ``rapsim.asm`` (the
TMS320C30 assembler, linker and disassembler, from the ``asm/`` folder),
``rapsim.compiler`` (``compiler/``), ``rapsim.firmware`` (``firmware/``) and the
simulator itself.
"""
import os as _os

# The simulator computes on one thread per process; numpy's OpenBLAS threads
# would otherwise spin on the second core of a small machine and slow it down
# (measured: about a third of the simulation rate on a 2-core machine).
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
