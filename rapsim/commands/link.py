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


def number(text: str) -> int:
    """An option's number, decimal or 0x hex (argparse names this function in
    its message: "invalid number value: 'zz'")."""
    return int(text, 0)


def add_arguments(p) -> None:
    p.add_argument("inputs", nargs="+", metavar="OBJ|ARCHIVE", help="objects and archives, in link order")
    p.add_argument("-o", dest="output", required=True, metavar="IMAGE", help="the image to write")
    p.add_argument("-m", dest="map", metavar="MAPFILE", help="also write a link map")
    p.add_argument("-T", dest="script", metavar="SCRIPT", help="linker description (MEMORY/SECTIONS/ENTRY)")
    p.add_argument("-e", dest="entry", metavar="SYMBOL", help="entry point (a symbol or an address)")
    p.add_argument("--sram-words", type=number, metavar="N",
                   help=f"node SRAM size in words (default {memmap.SRAM_WORDS_DEFAULT}; "
                        f"{memmap.SRAM_WORDS_SMALL} for the small board)")


def run(args) -> int:
    from rapsim.asm.linker import LinkError, link
    from rapsim.asm.linkscript import read_script
    from rapsim.asm.mapfile import render
    from rapsim.asm.objfile import image_bytes, same_file, write_all

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
    outputs = [(args.output, image_bytes(res.image))]          # all written, or none
    if args.map:
        outputs.append((args.map, render(res, args.output).encode("utf-8")))
    for path, _ in outputs:
        for given in [*args.inputs, *([args.script] if args.script else [])]:
            if same_file(path, given):
                raise RapError(f"{path}: refusing to overwrite the input file {given}")
    try:
        write_all(outputs)
    except OSError as e:
        raise RapError(f"cannot write {e.filename}: {e.strerror}") from None
    return 0
