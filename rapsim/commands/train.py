"""``rap train``: train a network on a simulated RAP and report its speed."""
from __future__ import annotations

import json
import sys

from rapsim.commands import runtools
from rapsim.errors import RapError

HELP = "train a network on-line on a simulated RAP; report loss, accuracy, MCPS and MCUPS"
DESCRIPTION = """\
Compile a network description for the machine, load the pattern database into
every node, and train on-line (every weight updated after every pattern) on
the simulated RAP, with the same initial weights and pattern order as the
numpy reference (rapsim.compiler.reference).  After every epoch the nodes
evaluate the training set and the test set (forward passes); the host takes
the epoch's loss and accuracy from their outputs and the next learning rate
from the description's schedule.  At the end: simulated time, MCUPS (training),
MCPS (the evaluation passes), stall cycles by cause and ring utilisation
(docs/compiler.md explains each figure).

Exit status: 0 when training finished; 1 for errors in the description, the
data file or an option; 3 when the simulated machine stopped.
"""

EXIT_MACHINE_STOPPED = 3


def add_arguments(p) -> None:
    from rapsim.commands.cc import (collectives_argument, mapping_arguments, overlap_argument,
                                    params_argument)
    from rapsim.commands.run import _positive, add_machine_arguments, add_threads_argument
    p.add_argument("network", help="network description (.net)")
    p.add_argument("--data", required=True, metavar="FILE",
                   help="pattern file: .npz, .npy or text (docs/network-language.md)")
    test = p.add_mutually_exclusive_group()
    test.add_argument("--test", metavar="FILE", help="a separate test pattern file")
    test.add_argument("--test-fraction", type=float, metavar="F",
                      help="hold out this fraction of --data as the test set")
    p.add_argument("--valid", metavar="FILE",
                   help="a validation pattern file: evaluated after every epoch (after the "
                        "training set, before the test set); its loss drives the learning-rate "
                        "schedule instead of the test loss (default: no validation set)")
    p.add_argument("--split-seed", type=int, metavar="S",
                   help="shuffle --data with this seed (0 or more) before --test-fraction takes "
                        "the last patterns (default: no shuffle)")
    p.add_argument("--epochs", type=int, metavar="E", help="at most E epochs (default: the "
                                                          "description's)")
    p.add_argument("--json", metavar="FILE", help="write the results and measurements as JSON")
    p.add_argument("--stats", metavar="NAME[,NAME...]",
                   help="statistics to compute after every epoch besides the description's "
                        "'stats' (class_error, confusion, output_accuracy; shown for the last "
                        "epoch, every epoch's in --json)")
    p.add_argument("--stream", action="store_true",
                   help="stream the patterns from host files in blocks even when the database "
                        "fits a node's memory (it is streamed anyway when it does not)")
    p.add_argument("--stream-block", type=_positive, metavar="N",
                   help="records per block of a streamed database (default 64)")
    p.add_argument("--save", metavar="FILE.npz",
                   help="at the end, save the training state (weights, momentum, epoch count, "
                        "shuffle and schedule state) to resume later")
    start = p.add_mutually_exclusive_group()
    start.add_argument("--resume", metavar="FILE.npz",
                       help="continue the run saved with --save (--epochs then counts the "
                            "epochs to add; default: up to the description's epochs)")
    start.add_argument("--load", metavar="FILE.npz",
                       help="start from these weights (a --save file or a weights file) "
                            "instead of the initial ones")
    p.add_argument("--quiet", action="store_true", help="no progress, only the final report")
    p.add_argument("--max-cycles", type=_positive, default=1 << 40, metavar="N",
                   help="stop a node that reaches N simulated cycles (default 2^40)")
    params_argument(p)
    mapping_arguments(p)
    overlap_argument(p)
    collectives_argument(p)
    add_machine_arguments(p)
    add_threads_argument(p, "default: the cores available")
    runtools.add_arguments(p, trace=False)


def check_options(args) -> None:
    """The options' own errors, before anything is compiled or run."""
    if args.epochs is not None and args.epochs < 0:
        raise RapError("--epochs must be 0 or more")
    if args.split_seed is not None:
        if args.test_fraction is None:
            raise RapError("--split-seed shuffles the patterns for --test-fraction; "
                           "give --test-fraction too")
        if args.split_seed < 0:
            raise RapError(f"--split-seed must be 0 or more, not {args.split_seed}")
    args.stats = stat_names(args.stats)
    from rapsim.fileio import check_writable
    for path in (args.json, args.save, getattr(args, "timeline", None)):
        if path:
            check_writable(path)              # now, not after the whole run


def stat_names(option: str | None) -> list[str]:
    """The statistics a ``--stats NAME[,NAME...]`` option names (checked)."""
    from rapsim.compiler.stats import available
    if option is None:
        return []
    names = [s.strip() for s in option.split(",")]
    for s in names:
        if s not in available():
            raise RapError(f"--stats: unknown statistic {s!r} (there are: "
                           f"{', '.join(available())})")
    return names


def load_data(args, network):
    from rapsim.compiler.data import load_patterns, split
    db = load_patterns(args.data, network)
    train, test = db.train, db.test
    if test is not None and (args.test or args.test_fraction is not None):
        raise RapError(f"{args.data} holds a test set already; "
                       f"{'--test' if args.test else '--test-fraction'} would replace it")
    if args.test:
        tdb = load_patterns(args.test, network)
        if tdb.test is not None:
            raise RapError(f"{args.test} holds a training and a test set; --test takes a file "
                           f"of test patterns only")
        test = tdb.train
    elif args.test_fraction is not None:
        train, test = split(train, args.test_fraction, args.split_seed)
    return train, test


def load_valid(args, network):
    """The ``--valid`` file's patterns (a file of validation patterns only),
    or None."""
    from rapsim.compiler.data import load_patterns
    if not getattr(args, "valid", None):
        return None
    vdb = load_patterns(args.valid, network)
    if vdb.test is not None:
        raise RapError(f"{args.valid} holds a training and a test set; --valid takes a file "
                       f"of validation patterns only")
    if not len(vdb.train.inputs):
        raise RapError(f"{args.valid} holds no patterns; --valid needs at least one")
    return vdb.train


def _pct(v) -> str:
    return "" if v is None else f"{100 * v:.1f}%"


def _num(v) -> str:
    return "" if v is None else f"{v:.5f}"


def epoch_row(st) -> list[str]:
    return [str(st.epoch), f"{st.rate:g}", _num(st.train_loss), _pct(st.train_accuracy),
            _num(st.test_loss), _pct(st.test_accuracy)] + \
        ([_num(st.valid_loss), _pct(st.valid_accuracy)] if st.valid_loss is not None else [])


EPOCH_COLUMNS = ["epoch", "rate", "train loss", "train acc", "test loss", "test acc",
                 "valid loss", "valid acc"]


def shown(epochs: list, most: int = 20) -> list:
    """At most about ``most`` epochs: evenly spaced, the last always."""
    step = max(1, -(-len(epochs) // most))
    return [e for i, e in enumerate(epochs) if i % step == 0 or i == len(epochs) - 1]


def report(result, file=None) -> None:
    """The final tables: per-epoch figures and the machine's measurements."""
    from rich.console import Console
    from rich.table import Table
    con = Console(file=file or sys.stdout, width=120)
    if result.epochs:
        t = Table(title=f"{result.network}: {len(result.epochs)} epochs "
                        f"({result.stopped_by} ended training)")
        valid = any(st.valid_loss is not None for st in result.epochs)
        for c in EPOCH_COLUMNS[:len(EPOCH_COLUMNS) if valid else 6]:
            t.add_column(c, justify="right")
        for st in shown(result.epochs):
            t.add_row(*epoch_row(st))
        con.print(t)
    if result.stats:
        report_stats(result.stats[-1], con)
    perf = result.performance.to_dict()
    cfg = result.config
    m = Table(title=f"{cfg.nodes} node{'s' if cfg.nodes > 1 else ''} "
                    f"({cfg.boards} board{'s' if cfg.boards > 1 else ''}) at "
                    f"{cfg.clock_hz / 1e6:g} MHz, {perf['connections']} connections")
    m.add_column("figure")
    m.add_column("training", justify="right")
    m.add_column("evaluation", justify="right")
    tr, ev = perf["train"], perf["evaluate"]
    m.add_row("patterns", str(tr["patterns"]), str(ev["patterns"]))
    m.add_row("simulated seconds", f"{tr['seconds']:.6f}", f"{ev['seconds']:.6f}")
    m.add_row("MCUPS / MCPS", f"{perf['mcups']:.2f} MCUPS", f"{perf['mcps']:.2f} MCPS")
    m.add_row("percent of peak", f"{perf['mcups_percent_of_peak']:.1f}%",
              f"{perf['mcps_percent_of_peak']:.1f}%")
    m.add_row("cycles per pattern", f"{tr['cycles'] / max(tr['patterns'], 1):.0f}",
              f"{ev['cycles'] / max(ev['patterns'], 1):.0f}")
    for cause in tr["stalls"]:
        if cause == "host_call":
            continue
        m.add_row(f"stall: {cause.replace('_', ' ')}",
                  f"{tr['stalls'][cause] / max(tr['node_cycles'], 1):.1%}",
                  f"{ev['stalls'].get(cause, 0) / max(ev['node_cycles'], 1):.1%}")
    m.add_row("ring utilisation", f"{tr['ring_utilisation']:.1%}", f"{ev['ring_utilisation']:.1%}")
    con.print(m)
    if result.mapping:
        con.print(f"mapping {result.mapping['name']}"
                  + (f", batch {result.mapping['batch']} per node"
                     if result.mapping["name"] in ("data", "hybrid") else "")
                  + (f", schedule {result.mapping['schedule']}"
                     if result.mapping.get("schedule", "lockstep") != "lockstep" else "")
                  + (f", evaluated by {result.mapping['eval_mapping']}"
                     if result.mapping.get("eval_mapping") else ""))
    if result.frames:
        f = result.frames
        con.print(f"stream: {f['frames_per_pattern']} frames a pattern; accuracy by frames "
                  f"since the onset (1, 2, ...): "
                  + "; ".join(f"{part} " + " ".join(f"{a:.3f}" for a in acc)
                              for part, acc in f["accuracy_by_offset"].items()))
    if result.pipeline:
        p = result.pipeline
        con.print(f"pipeline: {p['stages']} stages, {p['fill_ticks']} ticks to fill, "
                  f"{p['drain_ticks']} to drain, {p['ticks_per_pass']} ticks an evaluation pass, "
                  f"{p['cycles_per_tick']:.0f} cycles a tick; busy cycles a tick by stage "
                  f"(busiest node, ring waits left out): "
                  + ", ".join(f"{s['stage']} {'+'.join(s['layers'])} (nodes {s['nodes'][0]}.."
                              f"{s['nodes'][1]}) {s['busy_cycles_per_tick']:.0f}"
                              for s in p["per_stage"])
                  + f"; balance {p['balance']:.2f} (least / most); training: "
                  f"{p['train_extra_ticks']} ticks beyond the patterns, forward steps behind "
                  f"by " + ", ".join(str(s["staleness"]) for s in p["per_stage"])
                  + " updates (stage 1 first)")
    if result.overlap != "off":
        from rapsim.compiler.overlap import report_lines
        con.print(f"overlap {result.overlap}: the reduce-scatters during the weight updates")
        for line in report_lines(result.overlap_report + result.gather_report):
            con.print(line, markup=False)
    con.print(f"whole run: {result.cycles} cycles = {result.simulated_seconds:.6f} simulated s; "
              f"{result.host_seconds:.2f} host s ({1e3 * result.host_seconds_per_pattern:.2f} "
              f"ms per training pattern); stall percentages are of node-cycles; pattern "
              f"database in {_region(result.database)}")


def report_stats(record: dict, con) -> None:
    """The statistics of one epoch (rapsim.compiler.stats) as tables."""
    from rich.table import Table
    parts = {"train": "training set", "valid": "validation set", "test": "test set",
             "data": "the data"}
    for part in ("train", "valid", "test", "data"):
        for name, value in record.get(part, {}).items():
            title = (f"epoch {record['epoch']}, " if record["epoch"] is not None else "") + \
                f"{parts[part]}: "
            if name == "confusion":
                for layer, m in value.items():
                    con.print(title + f"confusion of {layer} (rows: target, columns: output)")
                    t = Table()
                    t.add_column("class")
                    for j in range(len(m)):
                        t.add_column(str(j), justify="right")
                    for i, row in enumerate(m):
                        t.add_row(str(i), *map(str, row))
                    con.print(t)
            elif name == "class_error":
                for layer, v in value.items():
                    con.print(title + f"error per class of {layer}")
                    t = Table()
                    for col in ("class", "patterns", "error"):
                        t.add_column(col, justify="right")
                    for i, (n, e) in enumerate(zip(v["patterns"], v["error"])):
                        t.add_row(str(i), str(n), "" if e is None else f"{100 * e:.1f}%")
                    con.print(t)
            elif name == "output_accuracy":
                acc = value["accuracy"]
                con.print(title + "accuracy per output unit: " + " ".join(
                    "-" if a is None else f"{100 * a:.1f}%" for a in acc))
            else:
                con.print(title + f"{name}: {json.dumps(value)}")


def _region(database: str) -> str:
    """'sram' -> 'SRAM'; 'sram, streamed in blocks ...' -> 'SRAM, streamed in blocks ...'."""
    region, sep, rest = database.partition(",")
    return region.upper() + sep + rest


class _Progress:
    """A rich progress bar over epochs, with a line per finished epoch."""

    def __init__(self, total: int, quiet: bool, first: int = 0):
        self.quiet = quiet
        self.first = first                            # a resumed run's first epoch
        self.every = max(1, -(-total // 20))          # about 20 lines at most
        self.total = total
        self.progress = None
        if quiet:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
        self.console = Console(file=sys.stderr)
        self.progress = Progress("[progress.description]{task.description}", BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=True)
        self.task = self.progress.add_task("training", total=total)

    def __enter__(self):
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.__exit__(*exc)

    def epoch(self, st) -> None:
        if self.progress is None:
            return
        cells = epoch_row(st)
        k = st.epoch - self.first
        if k % self.every == 0 or k == self.total - 1:
            self.console.print("  ".join(f"{c} {v}" for c, v in zip(EPOCH_COLUMNS, cells) if v))
        self.progress.advance(self.task)


def run(args) -> int:
    from rapsim.commands.cc import describe_mapping, load_network, resolve_mapping
    from rapsim.commands.run import machine_config, threads_of
    from rapsim.compiler.build import compile_network
    from rapsim.compiler.train import TrainingFailed, run_program
    from rapsim.fileio import write_file
    config = machine_config(args)
    check_options(args)
    net = load_network(args.network, args.params, args.params_file)
    train_set, test_set = load_data(args, net)
    valid_set = load_valid(args, net)
    from rapsim.compiler.checkpoint import load_state, load_weights, save_state
    resume = load_state(args.resume, net) if args.resume else None
    weights = load_weights(args.load, net) if args.load else None
    mapping = resolve_mapping(args, net, config.nodes, config.memory)
    program = compile_network(net, config.nodes, config.memory, mapping=mapping,
                              overlap=args.overlap, collectives=args.collectives,
                              eval_mapping=args.eval_mapping)
    if not args.quiet:
        print(describe_mapping(mapping, net), file=sys.stderr)
        if program.plan.eval_plan is not None:
            from rapsim.compiler.evalmap import describe
            print(describe(program.plan), file=sys.stderr)
    outputs = runtools.Outputs(args, trace=False, mark_label="pattern")
    if resume is not None:
        done = resume.epochs_done
        epochs = max(net.training.epochs - done, 0) if args.epochs is None else args.epochs
    else:
        epochs = net.training.epochs if args.epochs is None else args.epochs
    try:
        with _Progress(epochs, args.quiet, resume.epochs_done if resume else 0) as prog:
            result = run_program(program, config, train_set, test_set, epochs=args.epochs,
                                 weights=weights, on_epoch=prog.epoch,
                                 max_cycles=int(args.max_cycles), resume=resume,
                                 stats=args.stats, stream=True if args.stream else None,
                                 stream_block=args.stream_block, valid_set=valid_set,
                                 instrument=outputs.attach if outputs.wanted else None,
                                 threads=threads_of(args))
    except TrainingFailed as e:
        print(f"rap train: {e}", file=sys.stderr)
        return EXIT_MACHINE_STOPPED
    finally:
        outputs.finish()
    report(result)
    if args.save:
        save_state(args.save, net, result.state)
    if args.json:
        from rapsim.compiler.params import param_table
        out = result.to_dict()
        out["params"] = {k: list(v) for k, v in param_table(net).items()}
        write_file(args.json, json.dumps(out, indent=2) + "\n")
    return 0
