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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    name = args._name
    try:
        return int(args._run(args) or 0)
    except Diagnostics as e:
        for m in e.messages:
            print(m, file=sys.stderr)
        return e.exit_code
    except RapError as e:
        print(f"rap {name}: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"rap {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # noqa: BLE001 - the last line of defence
        if os.environ.get("RAP_DEBUG"):
            raise
        print(f"rap {name}: internal error: {type(e).__name__}: {e}\n"
              "  (this is a bug in rap; set RAP_DEBUG=1 to see the traceback)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
