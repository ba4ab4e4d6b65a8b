"""``rap ld``: link objects and archives into an executable image."""
from __future__ import annotations

from rapsim import memmap
from rapsim.errors import Diagnostics, RapError

HELP = "link objects and archives into an executable image"
DESCRIPTION = """\
Link RAP objects (.obj) and archives (.a) into an executable image.

Sections go to the node's memory by the default map (docs/linker.md):
.vectors* -> VECTORS, .ram0* -> RAM0, .ram1* -> RAM1, .dram* -> DRAM,
everything else to SRAM (.text, .data, other initialised, .bss, other
uninitialised).  A linker description (-T) can override it.  Unless a
section occupies address 0, the reset vector (word 0) gets the entry point:
-e SYMBOL, else ENTRY() of the description, else _c_int00, else start, else
the start of .text.
"""


def add_arguments(p) -> None:
    p.add_argument("inputs", nargs="+", metavar="OBJ|ARCHIVE", help="objects and archives, in link order")
    p.add_argument("-o", dest="output", required=True, metavar="IMAGE", help="the image to write")
    p.add_argument("-m", dest="map", metavar="MAPFILE", help="also write a link map")
    p.add_argument("-T", dest="script", metavar="SCRIPT", help="linker description (MEMORY/SECTIONS/ENTRY)")
    p.add_argument("-e", dest="entry", metavar="SYMBOL", help="entry point (a symbol or an address)")
    p.add_argument("--sram-words", type=lambda s: int(s, 0), metavar="N",
                   help=f"node SRAM size in words (default {memmap.SRAM_WORDS_DEFAULT}; "
                        f"{memmap.SRAM_WORDS_SMALL} for the small board)")


def run(args) -> int:
    from rapsim.asm.linker import LinkError, link
    from rapsim.asm.linkscript import read_script
    from rapsim.asm.mapfile import render
    from rapsim.asm.objfile import write_atomic, write_image

    try:
        config = memmap.MemoryConfig() if args.sram_words is None else \
            memmap.MemoryConfig(sram_words=args.sram_words)
    except ValueError as e:
        raise RapError(f"--sram-words: {e}") from None
    script = read_script(args.script) if args.script else None
    try:
        res = link(args.inputs, script=script, entry=args.entry, config=config)
    except LinkError as e:
        raise Diagnostics([f"rap ld: error: {m}" if ": error: " not in m else m
                           for m in e.messages]) from None
    try:
        write_image(res.image, args.output)
        if args.map:
            write_atomic(args.map, render(res, args.output).encode("utf-8"))
    except OSError as e:
        raise RapError(f"cannot write {e.filename}: {e.strerror}") from None
    return 0
