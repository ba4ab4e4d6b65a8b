"""``rap as``: assemble a TMS320C30 source file into a relocatable object."""
from __future__ import annotations

import sys
from pathlib import Path

from rapsim.asm.assembler import assemble_file, parse_defines
from rapsim.asm.objfile import object_bytes, same_file, write_all
from rapsim.errors import RapError

HELP = "assemble a TMS320C30 source file (TI syntax) into an object"
DESCRIPTION = """\
Assemble FILE.asm into the relocatable object FILE.obj.

Errors are reported as FILE:LINE:COL: error: MESSAGE, all of them; the exit
status is then 1 and no object is written.  Warnings (FILE:LINE:COL:
warning: ...) do not stop the assembly.

--hex prints the words of the assembled sections on standard output, one
8-digit hex word per line, section after section (each based at 0; words a
relocation completes at link time print with their unrelocated bits; .bss
and .usect sections print nothing).  With --hex the object is written only
if -o is given.  See docs/assembler.md for the syntax and the directives."""


def add_arguments(p) -> None:
    p.add_argument("file", metavar="FILE.asm", nargs="?", help="the source file")
    p.add_argument("-o", "--output", metavar="FILE.obj",
                   help="the object file (default: FILE.obj beside the source)")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="search DIR for .include files (after the including file's directory)")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define the absolute symbol NAME (VALUE a number, default 1)")
    p.add_argument("-l", "--listing", nargs="?", const=True, default=None, metavar="LISTING",
                   help="write a listing (default name: FILE.lst)")
    p.add_argument("--hex", action="store_true",
                   help="print the assembled words on standard output")


def hex_words(obj) -> str:
    """The ``--hex`` text of an object."""
    lines = []
    for sec in obj.sections:
        if sec.data is not None:
            lines.extend(f"{int(w):08X}" for w in sec.data)
    return "".join(s + "\n" for s in lines)


def run(args) -> int:
    if args.file is None and isinstance(args.listing, str):
        args.file, args.listing = args.listing, True      # "rap as -l FILE.asm"
    if args.file is None:
        raise RapError("no input file (usage: rap as FILE.asm [-o FILE.obj] ...)")
    src = Path(args.file)
    result = assemble_file(str(src), args.include_dirs, parse_defines(args.defines),
                           listing=args.listing is not None)
    for w in result.warnings:
        print(w, file=sys.stderr)
    outputs = []                     # all written, or none
    if args.output or not args.hex:
        outputs.append((args.output or src.with_suffix(".obj"), object_bytes(result.obj)))
    if args.listing is not None:
        path = src.with_suffix(".lst") if args.listing is True else Path(args.listing)
        outputs.append((path, result.listing.encode("utf-8", errors="surrogateescape")))
    for path, _ in outputs:
        if same_file(path, src):
            raise RapError(f"{path}: refusing to overwrite the source file")
    try:
        write_all(outputs)
    except OSError as e:
        raise RapError(f"cannot write {e.filename}: {e.strerror}") from None
    if args.hex:
        sys.stdout.write(hex_words(result.obj))
    return 0
