"""``rap dis``: disassemble an object, an image or a file of hex words."""
from __future__ import annotations

import sys

from rapsim.errors import RapError

HELP = "disassemble an object, an image or hex words to TI-syntax source"
DESCRIPTION = """\
Print TI-syntax source that re-assembles to the same words (docs/disassembler.md).

FILE may be a relocatable object, an executable image, or a text file of hex
words, one 8-digit word per line (as 'rap as --hex' prints); the kind is
detected from the contents, or forced with --hex.  --base gives the address
of the first hex word (default: the first line's ADDRESS: if the lines carry
addresses, which must then be consecutive; else 0).
"""


def add_arguments(p) -> None:
    from rapsim.commands.link import number

    p.add_argument("file", metavar="FILE")
    p.add_argument("--hex", action="store_true", help="read FILE as hex words")
    p.add_argument("--base", type=number, default=None, metavar="ADDR",
                   help="address of the first hex word (default: the file's first "
                        "ADDRESS: if any, else 0)")
    p.add_argument("-o", dest="output", metavar="OUT", help="write to OUT instead of standard output")


def disassemble_file(path: str, force_hex: bool = False, base: int | None = None) -> str:
    from rapsim.asm import disasm
    from rapsim.asm.objfile import ObjectFormatError, file_kind, parse_image, parse_object, read_bytes

    try:
        data = read_bytes(path)
        kind = "hex" if force_hex else file_kind(data)
        if kind == "object":
            return disasm.disassemble_object(parse_object(data, path), path)
        if kind == "image":
            return disasm.disassemble_image(parse_image(data, path), path)
        if kind == "archive":
            raise RapError(f"{path}: is an archive; extract its members with 'rap ar x' first")
        if kind == "hex" or disasm.looks_like_hex(data):
            try:
                text = data.decode("utf-8-sig")        # a byte-order mark is skipped
            except UnicodeDecodeError:
                raise RapError(f"{path}: not a text file of hex words") from None
            if base is not None and not 0 <= base < 1 << 24:
                raise RapError(f"--base {base:#x} is outside the 24-bit address space")
            words, base = disasm.parse_hex(text, path, base)
            if base + len(words) > 1 << 24:
                raise RapError(f"{path}: {len(words)} words at {base:#x} run past the "
                               "end of the 24-bit address space")
            return disasm.disassemble_words(words, base, path)
    except ObjectFormatError as e:
        raise RapError(str(e)) from None
    except ValueError as e:
        raise RapError(str(e)) from None
    raise RapError(f"{path}: not a RAP object, image or hex word file (use --hex to force)")


def run(args) -> int:
    from rapsim.asm.objfile import same_file, write_atomic

    text = disassemble_file(args.file, args.hex, args.base)
    if args.output and same_file(args.output, args.file):
        raise RapError(f"{args.output}: refusing to overwrite the input file")
    if args.output:
        try:
            write_atomic(args.output, text.encode("utf-8"))
        except OSError as e:
            raise RapError(f"cannot write {args.output}: {e.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0
