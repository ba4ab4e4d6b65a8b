"""``rap cc``: compile a network description into a RAP image."""
from __future__ import annotations

import argparse

from rapsim.errors import RapError

HELP = "compile a network description into an SPMD training program for N nodes"
DESCRIPTION = """\
Compile a network description (docs/network-language.md) for a RAP of N nodes:
partition every layer over the nodes, lay out each node's memory, generate the
SPMD assembly program that trains the network on-line and evaluates it
(docs/compiler.md), assemble it and link it with the firmware into IMAGE.

The image runs under 'rap train' (or rapsim.compiler.train), whose host loads
the weights and patterns and serves the program's TRAIN calls; 'rap train'
compiles by itself, so 'rap cc' is for looking at the program (--asm, --layout)
and for keeping an image.

With --forward-only it builds the inference image instead: the forward pass
alone, reading the weights and the input records through the host daemon and
writing the outputs ('rap run IMAGE -- WEIGHTS PATTERNS|- OUTPUT', or
'rap infer'; docs/inference.md).
"""


def params_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("-P", dest="params", action="append", default=[], metavar="NAME=VALUE",
                   help="override a 'param' of the description (repeatable; a list: "
                        "NAME=V1,V2,...); wins over --params")
    p.add_argument("--params", dest="params_file", metavar="FILE",
                   help="override 'param's from a parameter file (NAME = VALUE[, VALUE...] "
                        "a line; docs/network-language.md)")


def parse_params(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise RapError(f"-P takes NAME=VALUE, not {item!r}")
        if name.strip() in out:
            raise RapError(f"-P {name.strip()} is given twice ({out[name.strip()]!r} and "
                           f"{value.strip()!r})")
        out[name.strip()] = value.strip()
    return out


def mapping_arguments(p: argparse.ArgumentParser) -> None:
    """--mapping and --batch (docs/compiler.md, "Mappings")."""
    from rapsim.compiler.mapping import PRESETS
    p.add_argument("--mapping", metavar="NAME", choices=PRESETS + ("auto",),
                   help=f"a whole-net mapping ({', '.join(PRESETS)}) replacing the "
                        f"description's (default: the description's, else rows); auto: "
                        f"the one 'rap plan' ranks first (docs/plan.md)")
    p.add_argument("--batch", type=int, default=1, metavar="B",
                   help="data and hybrid mappings: patterns per node between two all-reduces "
                        "of the weight changes (default 1)")
    from rapsim.compiler.mapping import SCHEDULES
    p.add_argument("--schedule", metavar="NAME", choices=SCHEDULES,
                   help=f"the schedule ({', '.join(SCHEDULES)}) replacing the description's "
                        f"(default: the description's, else lockstep; docs/compiler.md, "
                        f"\"Schedules\")")
    from rapsim.compiler.evalmap import OPTION_CHOICES
    p.add_argument("--eval-mapping", metavar="NAME", choices=OPTION_CHOICES,
                   help="the evaluation pass's own mapping, replacing the description's "
                        "'evaluate NAME': data (train by --mapping rows or columns, evaluate "
                        "each node its own patterns with the whole weights, all-gathered from "
                        "the training slices at the start of each evaluation pass) or same "
                        "(the training mapping evaluates: the default; docs/compiler.md, "
                        "\"A mapping per pass\")")


def overlap_argument(p: argparse.ArgumentParser) -> None:
    """--overlap (docs/compiler.md, "Overlapped collectives")."""
    from rapsim.compiler.overlap import OVERLAPS
    p.add_argument("--overlap", metavar="MODE", choices=OVERLAPS,
                   help="overlapped collectives: off (the blocking ones), on = ring (the "
                        "reduce-scatter during the weight update); dma is refused "
                        "(default: the description's, else off)")


def collectives_argument(p: argparse.ArgumentParser) -> None:
    """--collectives (docs/compiler.md, "Collectives: chains and rotations")."""
    from rapsim.compiler.collectives import MODES
    p.add_argument("--collectives", metavar="MODE", choices=MODES, default="auto",
                   help="the layers' all-gathers and reduce-scatters: auto (default: the "
                        "cheaper of chain and rotation by their cycle formulas; the results are "
                        "the same bit for bit), chain, rotation")


def collective_lines(report: list) -> list[str]:
    """One line per layer collective: the routine chosen and both formulas."""
    return [f"{r['collective']} {r['layer']}: {r['routine']} (predicted: chain "
            f"{r['chain_cycles']}, rotation "
            f"{'-' if r['rotation_cycles'] is None else r['rotation_cycles']} cycles)"
            for r in report]


def resolve_mapping(args, net, nodes: int, memory=None):
    """The Mapping of the options and the description, with its schedule
    (``--mapping auto``: the cost model's choice, rapsim.compiler.plan, its
    source ``auto``)."""
    from rapsim.compiler.mapping import resolve
    from rapsim.compiler.pipeline import apply_schedule
    schedule = getattr(args, "schedule", None)
    if args.mapping == "auto":
        import sys
        from rapsim.compiler.plan import best_mapping
        name = best_mapping(net, nodes, memory, args.batch, getattr(args, "overlap", None),
                            schedule)
        m = apply_schedule(net, resolve(net, nodes, name, args.batch
                                        if name in ("data", "hybrid") else 1), schedule)
        m.source = "auto"
        print(f"--mapping auto: rap plan ranks {name} first on {nodes} node"
              f"{'s' if nodes > 1 else ''}", file=sys.stderr)
        return m
    return apply_schedule(net, resolve(net, nodes, args.mapping, args.batch), schedule)


def describe_mapping(mapping, net) -> str:
    """The mapping's line, and the schedule's when it is not lockstep."""
    from rapsim.compiler.pipeline import describe
    extra = describe(mapping, net)
    return mapping.describe() + ("\n" + extra if extra else "")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from rapsim.commands.run import add_machine_arguments
    p.add_argument("network", help="network description (.net)")
    p.add_argument("-o", "--output", required=True, metavar="IMAGE", help="image to write")
    p.add_argument("-S", "--asm", metavar="FILE", help="also write the generated assembly")
    p.add_argument("--layout", action="store_true",
                   help="print the partition and every node buffer's place in memory")
    p.add_argument("--forward-only", action="store_true",
                   help="build the inference image: it reads weights and patterns from files "
                        "(or patterns from stdin) and writes the outputs (docs/inference.md)")
    p.add_argument("--weights", metavar="FILE.npz",
                   help="with --forward-only and --weights-file: the weights to convert")
    p.add_argument("--weights-file", metavar="FILE",
                   help="with --forward-only: write --weights as the image's weights file")
    p.add_argument("--net", metavar="NAME",
                   help="with --forward-only: the net that infers, a sub-net's name (default: "
                        "the main net, the description's first)")
    params_argument(p)
    mapping_arguments(p)
    overlap_argument(p)
    collectives_argument(p)
    add_machine_arguments(p)


def load_network(path: str, params: list[str], params_file: str | None = None):
    """The network of ``path`` with the overrides of a parameter file and of
    ``-P`` (which wins)."""
    from rapsim.compiler.params import merge_params, read_params_file
    from rapsim.compiler.parser import parse_file
    from_file = read_params_file(params_file) if params_file else {}
    given = parse_params(params)
    try:
        return parse_file(path, merge_params(from_file, given))
    except RapError as e:
        # an unknown parameter that only the file gives: name the file
        bad = [k for k in from_file if k not in given and f"parameter {k!r} is not defined"
               in str(e)]
        if bad:
            raise RapError(f"{params_file}: {e}") from None
        raise


def print_layout(plan, file=None) -> None:
    """The partition and the buffers of a plan as rich tables."""
    import sys
    from rich.console import Console
    from rich.table import Table
    con = Console(file=file or sys.stdout, width=120)
    t = Table(title=f"{plan.network.name} on {plan.nodes} node{'s' if plan.nodes > 1 else ''}: "
                    "units per node")
    for col in ("layer", "kind", "units", "per node", "gathered", "errors reduced", "placement"):
        t.add_column(col, justify="left" if col in ("layer", "kind", "placement") else "right")
    mapping = plan.mapping.layers if plan.mapping is not None else {}
    for name, lp in plan.layers.items():
        rows = sorted({lp.split.rows(k) for k in range(plan.nodes)}, reverse=True)
        where = mapping.get(name)
        t.add_row(name, lp.kind, str(lp.layer.size), "/".join(map(str, rows)),
                  "yes" if lp.gathered and not lp.split.whole else "",
                  "yes" if lp.reduced and not lp.split.whole else "",
                  f"nodes {where.first}..{where.last}, by {where.split}" if where else "")
    con.print(t)
    m = Table(title="node memory (the same on every node, sized for the largest slice)")
    for col in ("buffer", "words", "region", "holds"):
        m.add_column(col, justify="right" if col == "words" else "left")
    for sym, words, region, role in plan.summary():
        m.add_row(sym, str(words), region, role)
    con.print(m)


def run(args) -> int:
    from rapsim.asm.objfile import image_bytes
    from rapsim.commands.run import machine_config
    from rapsim.compiler.build import compile_network
    from rapsim.fileio import check_writable, write_file
    config = machine_config(args)
    if (args.weights or args.weights_file) and not args.forward_only:
        raise RapError("--weights and --weights-file go with --forward-only")
    if args.net is not None and not args.forward_only:
        raise RapError("--net goes with --forward-only (a training program trains all its nets)")
    if args.eval_mapping is not None and args.forward_only:
        raise RapError("--eval-mapping goes with a training program (the inference image "
                       "has no training pass)")
    if args.overlap is not None and args.forward_only:
        raise RapError("--overlap goes with a training program (the inference image has no "
                       "reduce-scatter to overlap)")
    if bool(args.weights) != bool(args.weights_file):
        raise RapError("--weights and --weights-file go together (the weights to convert and "
                       "the file to write)")
    outputs = [args.output] + ([args.asm] if args.asm else []) + (
        [args.weights_file] if args.weights_file else [])
    for path in outputs:                  # no file when one cannot be written
        check_writable(path)
    net = load_network(args.network, args.params, args.params_file)
    mapping = resolve_mapping(args, net, config.nodes, config.memory)
    if args.forward_only:
        from rapsim.compiler.checkpoint import load_weights
        from rapsim.compiler.infer import compile_inference, weights_file_words
        from rapsim.compiler.mapping import require_rows
        if mapping.schedule != "lockstep":
            raise RapError(f"the inference image (--forward-only, rap infer) runs lock-step "
                           f"only, not schedule {mapping.schedule}; the pipelined forward pass "
                           f"is the evaluation pass of 'rap train' (docs/compiler.md, "
                           f"\"Schedules\")")
        require_rows(mapping, net, "the inference image (--forward-only, rap infer)")
        weights = load_weights(args.weights, net) if args.weights else None
        prog = compile_inference(net, config.nodes, config.memory, net=args.net)
        if weights is not None:
            write_file(args.weights_file,
                       weights_file_words(prog.plan, weights).astype("<u4").tobytes())
    else:
        prog = compile_network(net, config.nodes, config.memory, mapping=mapping,
                               overlap=args.overlap, collectives=args.collectives,
                               eval_mapping=args.eval_mapping)
    print(describe_mapping(mapping, net))
    if prog.plan.eval_plan is not None:
        from rapsim.compiler.evalmap import describe
        print(describe(prog.plan))
    if not args.forward_only and prog.plan.collective_report:
        print("\n".join(collective_lines(prog.plan.collective_report)))
    if not args.forward_only and prog.plan.overlap != "off":
        from rapsim.compiler.overlap import report_lines
        print("\n".join(report_lines(prog.plan.overlap_report + prog.plan.gather_report)))
    write_file(args.output, image_bytes(prog.image))
    if args.asm:
        write_file(args.asm, prog.source)
    if args.layout:
        print_layout(prog.plan)
    return 0
