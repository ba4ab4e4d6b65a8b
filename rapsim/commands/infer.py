"""``rap infer``: run a network's forward pass on a simulated RAP with given
weights; write the outputs and report MCPS."""
from __future__ import annotations

import json
import sys

from rapsim.errors import RapError

HELP = "run a network's inference image (forward passes) with given weights; report MCPS"
DESCRIPTION = """\
Compile the network's inference image (as 'rap cc --forward-only' does), write
the weights (a .npz from 'rap train --save' or a weights file) and the input
records into files, and run the image on the simulated RAP: each node reads
its own rows of the weights through the host daemon, node 0 reads the
patterns in blocks and passes each record over the ring, the output slices are
gathered over the ring, and node 0 writes them in blocks (docs/inference.md).  MCPS is the connections times the
patterns over the simulated time of the pattern loop (host calls included).

--data takes a pattern file as 'rap train' reads it (targets are ignored), or
inputs alone (.npy, .npz with 'inputs', or text, one record a line); '-'
streams raw input records from standard input to the image (C30 single
precision words, little-endian, the input layers side by side).

Exit status: 0 when done; 1 for bad input; 3 when the simulated machine
stopped.
"""

EXIT_MACHINE_STOPPED = 3


def add_arguments(p) -> None:
    from rapsim.commands.cc import params_argument
    from rapsim.commands.run import _positive, add_machine_arguments
    p.add_argument("network", help="network description (.net)")
    p.add_argument("--weights", required=True, metavar="FILE.npz",
                   help="the weights: a 'rap train --save' file or a weights file")
    p.add_argument("--data", required=True, metavar="FILE",
                   help="input records (a pattern file, inputs alone, or - for raw words on "
                        "standard input)")
    p.add_argument("--out", metavar="FILE.npy",
                   help="write the outputs (patterns x output units) here; default: print them")
    p.add_argument("--json", metavar="FILE", help="write the measurements as JSON")
    p.add_argument("--stats", metavar="NAME[,NAME...]",
                   help="statistics of the outputs against the targets of --data, besides the "
                        "description's 'stats' (class_error, confusion, output_accuracy)")
    p.add_argument("--net", metavar="NAME",
                   help="the net that infers: a sub-net's name (default: the main net, the "
                        "description's first; docs/inference.md)")
    p.add_argument("--max-cycles", type=_positive, default=1 << 40, metavar="N",
                   help="stop a node that reaches N simulated cycles (default 2^40)")
    params_argument(p)
    add_machine_arguments(p)


def _stdin_records(words: int):
    import numpy as np

    from rapsim.asm.floatfmt import from_single
    raw = sys.stdin.buffer.read() if sys.stdin is not None else b""
    if len(raw) % (4 * words):
        raise RapError(f"standard input: {len(raw)} bytes are not whole records of {words} "
                       "words (4 bytes each)")
    x = from_single(np.frombuffer(raw, dtype="<u4"))
    return np.asarray(x, dtype=np.float64).reshape(-1, words)


def report(result, file=None) -> None:
    from rich.console import Console
    from rich.table import Table
    con = Console(file=file or sys.stdout, width=120)
    t = Table(title=f"inference on {result.nodes} node{'s' if result.nodes > 1 else ''}, "
                    f"{result.connections} connections")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_row("patterns", str(result.patterns))
    t.add_row("simulated seconds (pattern loop)", f"{result.seconds:.6f}")
    t.add_row("cycles per pattern", f"{result.cycles / max(result.patterns, 1):.0f}")
    t.add_row("MCPS", f"{result.mcps:.2f}")
    t.add_row("percent of peak", f"{result.mcps_percent_of_peak:.1f}%")
    t.add_row("cycles of the whole run (weights loading included)", str(result.run_cycles))
    con.print(t)


def run(args) -> int:
    import numpy as np

    from rapsim.commands.cc import load_network
    from rapsim.commands.run import machine_config
    from rapsim.compiler.checkpoint import load_weights
    from rapsim.compiler.data import input_size
    from rapsim.commands.train import report_stats, stat_names
    from rapsim.compiler.infer import (InferenceFailed, compile_inference, infer, load_records,
                                       select_net)
    from rapsim.compiler.stats import compute
    from rapsim.fileio import check_writable, write_file
    config = machine_config(args)
    for path in (args.out, args.json):
        if path:
            check_writable(path)
    net = load_network(args.network, args.params, args.params_file)
    weights = load_weights(args.weights, net)
    stdin = args.data == "-"
    x, targets = (_stdin_records(input_size(net)), None) if stdin else \
        load_records(args.data, net)
    names = list(net.stats) + [s for s in stat_names(args.stats) if s not in net.stats]
    sub = select_net(net, args.net)
    if names and sub is not None:
        raise RapError(f"statistics ({', '.join(names)}) are of the main net's outputs: not "
                       f"with --net {args.net} (a sub-net)")
    if names and targets is None:
        raise RapError(f"statistics ({', '.join(names)}) need targets: {args.data} holds inputs "
                       "alone")
    program = compile_inference(net, config.nodes, config.memory, net=args.net)
    try:
        result = infer(net, weights, x, config=config, program=program, stdin=stdin,
                       max_cycles=int(args.max_cycles))
    except InferenceFailed as e:
        print(f"rap infer: {e}", file=sys.stderr)
        return EXIT_MACHINE_STOPPED
    if args.out:
        import io
        buf = io.BytesIO()
        np.save(buf, result.outputs)
        write_file(args.out, buf.getvalue())
    else:
        for row in result.outputs:
            print(" ".join(f"{v:.7g}" for v in row))
    record = {}
    if names:
        record = {"epoch": None, "data": compute(net, names, result.outputs, targets)}
        from rich.console import Console
        report_stats(record, Console(file=sys.stdout, width=120))
    report(result)
    if args.json:
        out = result.to_dict()
        if names:
            out["stats"] = record["data"]
        write_file(args.json, json.dumps(out, indent=2) + "\n")
    return 0
