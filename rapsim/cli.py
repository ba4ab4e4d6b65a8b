"""The ``rap`` command line: one program, one subcommand per tool.

Each subcommand lives in its own module of :mod:`rapsim.commands` with
``HELP`` (a one-line summary), ``add_arguments(parser)`` and ``run(args)``.
Errors derived from :class:`rapsim.errors.RapError` become a message and a
non-zero exit status; anything else is reported as an internal error without
a traceback (set ``RAP_DEBUG=1`` to see one).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from rapsim import __version__
from rapsim.errors import Diagnostics, RapError

#: (subcommand, module) in the order ``rap --help`` lists them.
COMMANDS: list[tuple[str, str]] = [
    ("as", "rapsim.commands.assemble"),
    ("ld", "rapsim.commands.link"),
    ("ar", "rapsim.commands.archive"),
    ("dis", "rapsim.commands.disassemble"),
    ("run", "rapsim.commands.run"),
    ("cc", "rapsim.commands.cc"),
    ("train", "rapsim.commands.train"),
    ("infer", "rapsim.commands.infer"),
    ("bench", "rapsim.commands.bench"),
    ("plan", "rapsim.commands.plan"),
    ("prof", "rapsim.commands.prof"),
    ("dbg", "rapsim.commands.dbg"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rap",
        description="Toolchain and cycle-level simulator of ICSI's Ring Array Processor "
                    "(TMS320C30 nodes on a shift ring).",
        epilog="Run 'rap CMD --help' for the options of a subcommand.")
    parser.add_argument("--version", action="version", version=f"rap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="CMD")
    sub.required = True
    for name, modname in COMMANDS:
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run, _name=name)
    return parser


def _split_program_args(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """For a subcommand that passes arguments on to a program (its module
    sets ``PROGRAM_ARGS``: ``rap run``), ``--`` ends the options wherever it
    stands, as POSIX utilities have it: ``rap run IMG --nodes 2 -- a -b``
    gives the program ``a -b``.  Returns (the command's own arguments, the
    program's arguments or None)."""
    if not argv or "--" not in argv:
        return argv, None
    modname = dict(COMMANDS).get(argv[0])
    if modname is None or not getattr(importlib.import_module(modname), "PROGRAM_ARGS", False):
        return argv, None
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def _say(text: str) -> None:
    """Print a message on stderr; file names that are not UTF-8 (surrogate
    escapes) are shown as backslash escapes instead of failing."""
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run one ``rap`` subcommand; returns the exit status.  A Ctrl-C at any
    point after start-up (while the subcommands' modules load, too) ends with
    ``rap CMD: interrupted`` and status 130, never a traceback."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        name = argv[0] if argv and argv[0] in dict(COMMANDS) else None
        print(f"rap {name}: interrupted" if name else "rap: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str]) -> int:
    argv, program_args = _split_program_args(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    name = args._name
    if program_args is not None:
        args.args = [*args.args, *program_args]
    try:
        return int(args._run(args) or 0)
    except Diagnostics as e:
        for m in e.messages:
            _say(m)
        return e.exit_code
    except RapError as e:
        _say(f"rap {name}: error: {e}")
        return e.exit_code
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - the last line of defence
        if os.environ.get("RAP_DEBUG"):
            raise
        _say(f"rap {name}: internal error: {type(e).__name__}: {e}\n"
             "  (this is a bug in rap; set RAP_DEBUG=1 to see the traceback)")
        return 70


if __name__ == "__main__":
    sys.exit(main())
