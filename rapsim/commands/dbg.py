"""``rap dbg``: the interactive debugger (rapsim/debugger.py)."""
from __future__ import annotations

import os
import sys

from rapsim.errors import RapError

HELP = "debug an image on a simulated RAP: breakpoints, watchpoints, stepping, registers, ring"
DESCRIPTION = """\
Load an executable image on a simulated RAP and debug it interactively:
breakpoints (address, label or FILE:LINE; on every node or one), watchpoints
on memory words and registers, step/next/continue per node or machine-wide,
registers (R0-R7 also as floating-point values), memory, disassembly around
PC, source lines, and the ring's latches.  'help' inside lists the commands;
--script FILE runs commands from a file (one a line, # comments) instead of
the terminal.  Line editing, history (~/.rap_dbg_history) and completion of
commands, labels and registers come from readline where available.

Exit status: 0; 1 for bad input, or a script command that failed (the
message names the script's file and line).
"""

HISTORY = "~/.rap_dbg_history"


def add_arguments(p) -> None:
    from rapsim.commands.run import _positive, add_machine_arguments
    p.add_argument("image", help="executable image (.out) from 'rap ld'")
    p.add_argument("args", nargs="*", metavar="-- ARGS", help="arguments passed to the program")
    p.add_argument("--script", metavar="FILE", help="run the debugger commands in FILE")
    p.add_argument("--max-cycles", type=_positive, default=1 << 40, metavar="N",
                   help="a 'continue' stops when a node reaches N cycles (default 2^40)")
    p.add_argument("--root", default=".", metavar="DIR",
                   help="directory the program's files are confined to (default .)")
    add_machine_arguments(p)


def _interactive(dbg) -> None:
    try:
        import readline
    except ImportError:             # no readline: plain input, no history
        readline = None
    path = os.path.expanduser(HISTORY)
    if readline is not None:
        try:
            readline.read_history_file(path)
        except OSError:
            pass
        readline.set_completer_delims(" \t\n")
    try:
        dbg.cmdloop()
    finally:
        if readline is not None:
            try:
                readline.set_history_length(1000)
                readline.write_history_file(path)
            except OSError:
                pass


def run(args) -> int:
    from rapsim.commands.run import loaded_simulator, machine_config, read_image_file
    from rapsim.debugger import Debugger, run_script
    from rapsim.output import NodeOutput
    config = machine_config(args)
    image = read_image_file(args.image)
    lines = None
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise RapError(f"{args.script}: cannot read the script: "
                           f"{getattr(e, 'strerror', None) or e}") from None
    out = NodeOutput(config.nodes, None)
    sim = loaded_simulator(config, args.image, image, args,
                           lambda node, fd, data: out.write(node, fd, data), None)
    dbg = Debugger(sim, max_cycles=int(args.max_cycles), stdout=sys.stdout)
    try:
        if lines is not None:
            return run_script(dbg, args.script, lines)
        dbg.say(f"rap dbg: {args.image} on {config.nodes} node(s); every node at "
                f"{sim._where(sim.core.get_pc(0))}.  'help' lists the commands.")
        _interactive(dbg)
        return 0
    finally:
        out.close()
        sim.daemon.close_all()
