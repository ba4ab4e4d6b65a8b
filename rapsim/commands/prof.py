"""``rap prof``: where the cycles of a program go, line by line."""
from __future__ import annotations

import json
import sys

from rapsim.errors import RapError

HELP = "profile an image or a network: cycles per source line and routine, with stall causes"
DESCRIPTION = """\
Run an executable image (.out), or compile and train a network description
(.net), with every instruction of every node traced, and charge each
instruction's cycles and stall cycles (by cause) to its source line and to
its routine (a global name some CALL enters, with the code after it).
Printed as an annotated listing like 'perf annotate': a table of routines,
then the source lines of the hottest ones; --json writes every figure.

For a network without --data, the run is one epoch of --patterns random
patterns (and their evaluation), as 'rap bench' measures; with --data it
trains --epochs epochs (default 1) on the file's patterns.

Exit status: 0; 1 for bad input; 3 when the simulated machine stopped
otherwise than by every node exiting (the profile up to there is printed).
"""


def add_arguments(p) -> None:
    from rapsim.commands.cc import params_argument
    from rapsim.commands.run import _positive, add_machine_arguments
    p.add_argument("target", help="executable image (.out) or network description (.net)")
    p.add_argument("args", nargs="*", metavar="-- ARGS", help="arguments of an image's program")
    p.add_argument("--json", metavar="FILE", help="write the profile as JSON")
    p.add_argument("--top", type=int, default=10, metavar="K",
                   help="annotate the source of the K hottest routines (default 10)")
    p.add_argument("--max-cycles", type=_positive, default=1_000_000_000, metavar="N",
                   help="stop when a node reaches N cycles (default 1e9)")
    p.add_argument("--root", default=".", metavar="DIR",
                   help="directory an image's program may use files in (default .)")
    net = p.add_argument_group("networks (.net)")
    net.add_argument("--data", metavar="FILE", help="pattern file to train on")
    net.add_argument("--epochs", type=int, default=1, metavar="E",
                     help="epochs to train with --data (default 1)")
    net.add_argument("--patterns", type=int, default=4, metavar="P",
                     help="random training patterns without --data (default 4; as many "
                          "evaluated)")
    params_argument(net)
    add_machine_arguments(p)


def _profile_image(args, config, attach):
    from rapsim.commands.run import loaded_simulator, read_image_file
    from rapsim.output import NodeOutput
    image = read_image_file(args.target)
    out = NodeOutput(config.nodes, None)
    stdin = sys.stdin.buffer if sys.stdin is not None and not sys.stdin.isatty() else None
    sim = loaded_simulator(config, args.target, image, args,
                           lambda node, fd, data: out.write(node, fd, data), stdin)
    attach(sim)
    try:
        result = sim.run(max_cycles=args.max_cycles)
    finally:
        out.close()
        sim.daemon.close_all()
    for m in result.messages:
        print(f"rap prof: {m}" if not m.startswith("  ") else m, file=sys.stderr)
    return {}, result.ok


def _profile_network(args, config, attach):
    from rapsim.commands.cc import load_network
    from rapsim.compiler.build import compile_network
    from rapsim.compiler.train import (TrainingFailed, measure, measurement_network,
                                       run_program)
    if args.args:
        raise RapError("program arguments are for images, not network descriptions")
    net = load_network(args.target, args.params)
    try:
        if args.data:
            from rapsim.commands.train import load_data
            if args.epochs < 1:
                raise RapError("--epochs must be 1 or more")
            args.test = None
            args.test_fraction = None
            args.split_seed = None
            train_set, test_set = load_data(args, net)
            program = compile_network(net, config.nodes, config.memory)
            run_program(program, config, train_set, test_set, epochs=args.epochs,
                        max_cycles=int(args.max_cycles), instrument=attach)
        else:
            if args.patterns < 1:
                raise RapError("--patterns must be 1 or more")
            from rapsim.commands.bench import MAX_MEASURED_PATTERNS
            if args.patterns > MAX_MEASURED_PATTERNS:
                raise RapError(f"--patterns: at most {MAX_MEASURED_PATTERNS}, not {args.patterns}")
            program = compile_network(measurement_network(net), config.nodes, config.memory)
            measure(net, config, train_patterns=args.patterns, test_patterns=0,
                    program=program, instrument=attach)
    except TrainingFailed as e:
        print(f"rap prof: {e}", file=sys.stderr)
        return {"<source>.asm": program.source}, False
    return {"<source>.asm": program.source}, True


def run(args) -> int:
    from rapsim.commands.run import machine_config
    from rapsim.fileio import check_writable, write_file
    from rapsim.lineprof import LineProfile, annotated_listing
    config = machine_config(args)
    if args.top < 0:
        raise RapError("--top must be 0 or more")
    if args.json:
        check_writable(args.json)
    holder = {}

    def attach(sim):
        prof = LineProfile(sim)
        sim.probes.trace(prof)
        holder["prof"] = prof

    if args.target.endswith(".net"):
        sources, ok = _profile_network(args, config, attach)
    else:
        sources, ok = _profile_image(args, config, attach)
    prof = holder.get("prof")
    if prof is None:
        raise RapError("the program did not start: nothing to profile")
    rep = prof.report(sources)
    sys.stdout.write(annotated_listing(rep, args.top))
    if args.json:
        write_file(args.json, json.dumps(rep, indent=2) + "\n")
    return 0 if ok else 3
