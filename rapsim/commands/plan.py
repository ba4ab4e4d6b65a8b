"""``rap plan``: the predicted cost of every mapping of a network, ranked."""
from __future__ import annotations

import argparse
import json

from rapsim.errors import RapError

HELP = "predict the cycles per pattern of every mapping of a network and rank them"
DESCRIPTION = """\
Predict, without simulating, the cycles per training pattern and per forward
pattern, MCPS and MCUPS of a network under every mapping the compiler
accepts on a machine of N nodes (docs/plan.md): the cost model walks the
program the compiler generates and prices every kernel call and ring
collective from the firmware's cycle formulas (rapsim/firmware/costs.py).
Every mapping is a candidate with overlap off and, for the mappings that
take it (rows, layers), on (docs/compiler.md, "Overlapped collectives"),
under schedule lockstep, and the layers placement also under schedule
pipeline (a description's schedule stream: every mapping it runs on, under
stream only).
Candidates are ranked by cycles per training pattern; the best is marked and
is what 'rap cc/train --mapping auto' uses.  --check also compiles and
simulates the top candidates and prints predicted against measured.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from rapsim.commands.cc import params_argument
    from rapsim.commands.run import add_machine_arguments
    from rapsim.compiler.evalmap import EVAL_MAPPINGS
    p.add_argument("network", help="network description (.net)")
    p.add_argument("--batch", type=int, default=1, metavar="B",
                   help="data and hybrid mappings: patterns per node between two all-reduces "
                        "(default 1)")
    p.add_argument("--json", metavar="FILE", help="also write the predictions as JSON")
    p.add_argument("--check", action="store_true",
                   help="compile and simulate the top candidates: predicted against measured")
    p.add_argument("--top", type=int, default=3, metavar="K",
                   help="with --check: how many of the ranked mappings to simulate (default 3)")
    p.add_argument("--overlap", metavar="MODE", choices=("off", "on", "ring"),
                   help="rank only the candidates built with this overlap (default: every "
                        "mapping with overlap off and, where it applies, on)")
    p.add_argument("--active", type=float, default=None, metavar="F",
                   help="the fraction of a binary or threshold layer's units assumed active "
                        "when pricing the binary kernels (default 0.5; docs/plan.md)")
    p.add_argument("--data", metavar="FILE",
                   help="a pattern file: its binary input layers' mean active fraction "
                        "replaces --active for them")
    p.add_argument("--schedule", metavar="NAME", choices=("lockstep", "pipeline", "stream"),
                   help="plan this schedule only (default: lockstep and pipeline, or the "
                        "description's stream; docs/plan.md)")
    p.add_argument("--eval-mapping", metavar="NAME", choices=EVAL_MAPPINGS,
                   help="also price the evaluation pass by its own mapping (data) after "
                        "training by rows or columns: forward cycles, MCPS and the weights' "
                        "all-gather a pass (docs/compiler.md, \"A mapping per pass\")")
    p.add_argument("--callback", action="append", default=[], metavar="EVENT[:NAME]",
                   help="price a host callback at this hook point (an event, or an event "
                        "and a layer or net: after_forward:h), as train(callbacks=...) "
                        "gives them: a barrier and a host call (--hostcall-cycles); "
                        "repeatable")
    params_argument(p)
    add_machine_arguments(p)


def run(args) -> int:
    from rich.console import Console
    from rich.table import Table
    from rapsim.commands.cc import load_network
    from rapsim.commands.run import machine_config
    from rapsim.compiler.plan import DEFAULT_ACTIVE, measure_point, plan_all
    from rapsim.fileio import check_writable, write_file
    if args.batch < 1:
        raise RapError(f"--batch must be at least 1, not {args.batch}")
    if args.top < 1:
        raise RapError(f"--top must be at least 1, not {args.top}")
    active = DEFAULT_ACTIVE if args.active is None else args.active
    if not 0 <= active <= 1:
        raise RapError(f"--active must be a fraction from 0 to 1, not {args.active}")
    if args.json:
        check_writable(args.json)
    config = machine_config(args)
    net = load_network(args.network, args.params, args.params_file)
    mhz = config.clock_hz / 1e6
    fractions = {None: active}
    if args.data:
        from rapsim.compiler.data import load_patterns
        from rapsim.compiler.plan import data_activity
        fractions.update(data_activity(net, load_patterns(args.data, net).train))
    hooks = _host_hooks(args.callback, net, args.network)
    if args.eval_mapping and hooks:
        raise RapError(f"--eval-mapping {args.eval_mapping}: host callbacks (--callback) are not "
                       f"supported (they may read the training layout during the evaluation "
                       f"pass; docs/compiler.md, \"A mapping per pass\")")
    ranked, refused = plan_all(net, config.nodes, config.memory, args.batch, mhz, args.overlap,
                               args.schedule, active=fractions, host_hooks=hooks,
                               hostcall_cycles=config.hostcall_cycles)
    assumptions = _assumptions(net, fractions, config.memory, args.data)
    if ranked:
        assumptions += _hook_assumptions(ranked[0], hooks, config.hostcall_cycles)
    con = Console()
    t = Table(title=f"{args.network} on {config.nodes} node{'s' if config.nodes > 1 else ''}: "
                    f"predicted cost of every mapping (ranked by training)")
    for col in ("", "mapping", "train cyc", "fwd cyc", "MCUPS", "MCPS",
                "where a training pattern goes"):
        t.add_column(col, justify="left" if col in ("", "mapping") or col.startswith("where")
                     else "right")
    for i, p in enumerate(ranked):
        parts = sorted(p.train_breakdown.items(), key=lambda kv: -kv[1])[:3]
        t.add_row("best" if i == 0 else "", p.label,
                  f"{p.train_cycles:,.0f}", f"{p.forward_cycles:,.0f}", f"{p.mcups:.2f}",
                  f"{p.mcps:.2f}", ", ".join(f"{k.lstrip('_')} {v / p.train_cycles:.0%}"
                                              for k, v in parts))
    con.print(t)
    for line in assumptions:
        con.print(f"assumed: {line}")
    for r in refused:
        con.print(f"refused: {r.mapping}: {r.reason}")
    out = {"network": args.network, "nodes": config.nodes, "clock_mhz": mhz,
           "best": ranked[0].mapping if ranked else None,
           "best_schedule": ranked[0].schedule if ranked else None,
           "ranked": [p.to_dict() for p in ranked],
           "refused": [{"mapping": r.mapping, "reason": r.reason} for r in refused],
           "assumptions": assumptions}
    if args.eval_mapping:
        from rapsim.compiler.evalmap import plan_rows
        rows = plan_rows(net, ranked, config.memory, mhz, args.eval_mapping)
        e = Table(title=f"evaluated by {args.eval_mapping} (the weights all-gathered at the "
                        f"start of each evaluation pass)")
        for col in ("mapping", "train cyc", "MCUPS", "fwd cyc", "MCPS", "gather cyc",
                    "patterns to pay"):
            e.add_column(col, justify="left" if col == "mapping" else "right")
        for r in rows:
            e.add_row(r["mapping"], f"{r['train_cycles']:,.0f}", f"{r['mcups']:.2f}",
                      f"{r['forward_cycles']:,.0f}", f"{r['mcps']:.2f}",
                      f"{r['gather_cycles']:,.0f}",
                      "never" if r["patterns_to_break_even"] is None
                      else str(r["patterns_to_break_even"]))
        con.print(e)
        con.print("patterns to pay: the evaluation patterns a pass from which the amortised "
                  "MCPS (gather included) pass the training mapping's own evaluation")
        out["eval_mapping"] = rows
    if args.check and ranked:
        c = Table(title="predicted against simulated cycles per pattern")
        for col in ("mapping", "train predicted", "train simulated", "error",
                    "forward predicted", "forward simulated", "error"):
            c.add_column(col, justify="left" if col == "mapping" else "right")
        checks = []
        for p in ranked[:args.top]:
            train, fwd = measure_point(net, config, p.mapping, p.batch, overlap=p.overlap,
                                       schedule=p.schedule, host_hooks=hooks)
            et, ef = p.train_cycles / train - 1, p.forward_cycles / fwd - 1
            checks.append({"mapping": p.mapping, "overlap": p.overlap, "schedule": p.schedule,
                           "train_predicted": p.train_cycles,
                           "train_simulated": train, "train_error": et,
                           "forward_predicted": p.forward_cycles, "forward_simulated": fwd,
                           "forward_error": ef})
            c.add_row(p.label, f"{p.train_cycles:,.0f}", f"{train:,.0f}", f"{et:+.1%}",
                      f"{p.forward_cycles:,.0f}", f"{fwd:,.0f}", f"{ef:+.1%}")
        con.print(c)
        out["check"] = checks
    if args.json:
        write_file(args.json, json.dumps(out, indent=1) + "\n")
    if not ranked:
        raise RapError("no candidate could be priced: every mapping is refused by the compiler "
                       "or has a routine without a cost entry (reasons above)")
    return 0


def _assumptions(net, fractions: dict, memory, data) -> list[str]:
    """What the prediction assumes beyond the program (docs/plan.md): the
    active units of the binary kernels, the user routines' measured cost."""
    from rapsim.compiler.plan_user import routine_costs
    out = []
    measured = [n for n in fractions if n is not None]
    for n in measured:
        out.append(f"{fractions[n]:.1%} of the units of {n} active in every pattern (their "
                   f"mean over {data})")
    lists = [n for n, L in net.layers.items() if L.kind in ("binary", "threshold")
             and n not in measured]
    if lists:
        out.append(f"{fractions[None]:.0%} of the units of {', '.join(lists)} active in every "
                   f"pattern (the binary kernels' cost; --active)")
    for fn, (alpha, beta) in routine_costs(net, memory).items():
        out.append(f"user routine {fn}: {alpha:.0f} + {beta:.1f} n cycles (timed alone on one "
                   f"node, vectors on chip)")
    return out


def _host_hooks(specs: list[str], net, path: str) -> list:
    """The hook points of ``--callback EVENT[:NAME]``, checked as
    train(callbacks=...) checks its keys."""
    from rapsim.compiler.behaviours import hook_points
    points = []
    for spec in specs:
        event, _, name = spec.partition(":")
        key = (event, name) if name else event
        try:
            (point,) = hook_points({key: _host_hooks}, net)
        except ValueError as e:
            raise RapError(f"--callback {spec}: {path}: {e}") from None
        if point not in points:
            points.append(point)
    return points


_PER_PATTERN = ("before_forward", "after_forward", "before_backward", "after_backward")


def _hook_assumptions(best, hooks: list, charged: int) -> list[str]:
    """The behaviours' and host callbacks' figures (docs/plan.md,
    "Behaviours and host callbacks")."""
    out = []
    for (fn, layer), (alpha, beta) in best.behaviours.items():
        cost = (f"{alpha:.0f} + {beta:.1f} n cycles, n its units on the node" if layer
                else f"{alpha:.0f} cycles")
        out.append(f"behaviour {fn}{' at ' + layer if layer else ''}: {cost} (timed as "
                   f"linked into the program on one node; its cost taken not to depend on "
                   f"the data)")
    if best.hostcall_cycles is not None:
        out.append(f"host callback at {', '.join(_point(p) for p in hooks)}: a barrier and a "
                   f"host call of {best.hostcall_cycles:.0f} cycles on every node "
                   f"({best.hostcall_cycles - charged:.0f} of _hostcall's instructions + "
                   f"{charged} charged by the machine, --hostcall-cycles); the host's own "
                   f"time in the callback is not simulated time")
    if best.epoch_cycles or best.run_cycles:
        out.append(f"per pattern: the behaviours and host callbacks of the pattern events "
                   f"({', '.join(_PER_PATTERN)}); not those of the epoch events "
                   f"({best.epoch_cycles:,.0f} cycles an epoch) nor of before_training and "
                   f"after_training ({best.run_cycles:,.0f} cycles a run)")
    return out


def _point(p) -> str:
    return p.event + (f":{p.layer or p.net}" if p.layer or p.net else "")
