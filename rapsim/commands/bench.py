"""``rap bench``: performance sweeps over network and machine sizes.

Every point of a sweep is one network (a family and a size) on one machine
(a node count): :func:`measure_point` compiles the network for the machine
and measures its steady-state MCPS and MCUPS on random patterns
(docs/bench.md).  The points run in parallel (local processes, or a Dask
cluster) through :func:`rapsim.sweep.run_sweep`, which keeps every finished
point in one results file so that an interrupted sweep resumes where it
stopped; the scaling plots come from :mod:`rapsim.plots`.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from dataclasses import dataclass

from rapsim.config import MAX_BOARDS, MAX_NODES, NODES_PER_BOARD
from rapsim.commands.run import add_threads_argument
from rapsim.errors import RapError

HELP = "sweep network and machine sizes: MCPS, MCUPS, percent of peak, scaling plots"
DESCRIPTION = """\
Measure the speed of networks on simulated RAPs of several sizes.  The
networks are two families (docs/bench.md):

  speech   the ICSI phone classifier: 234 inputs (9 frames x 26 features),
           H sigmoid hidden units, 61 softmax outputs, cross-entropy error
           (examples/speech.net); --hidden chooses H
  square   n-n-n: n inputs, n sigmoid hidden units, n sigmoid outputs, mean
           squared error (two n x n weight matrices); --square chooses n

each on 1, 2, 4, 5, 8, 10 and 16 boards of 4 nodes by default (--boards,
--nodes).  A point is compiled once and run twice on random patterns: a run
of W training patterns and W + K (--warmup W, --patterns K; the evaluation
pass of each run is twice as long); the figures are those of the K extra
patterns, i.e. the steady-state cost of a pattern without the fixed cost of
a training or evaluation phase (barrier, staggered start) and without the
first pattern's warm-up.

MCPS = connections x forward patterns / simulated seconds; MCUPS the same
for training patterns (forward, backward, weight update); peak = 1
multiply-accumulate per cycle per node (16 M/s at 16 MHz), a trained
connection counting 3 (docs/compiler.md).  The results file (--results,
JSON or CSV) is rewritten after every point; a second run with the same
points measures only those missing from it (--fresh starts over).  The plot
(--plot STEM: STEM.png and STEM.svg) shows the speedup of MCPS and MCUPS
over the fewest nodes measured, with the linear speedup.

Exit status: 0 when every point was measured or does not fit the machine
(shown in the table); 1 for bad options, an unreadable results file or an
unreachable Dask scheduler; 3 when a simulated machine stopped at a point.
"""

EXIT_MACHINE_STOPPED = 3

DEFAULT_BOARDS = (1, 2, 4, 5, 8, 10, 16)
DEFAULT_SIZES = (128, 256, 512, 1024, 2048)
DEFAULT_WARMUP = 1
DEFAULT_PATTERNS = 2
DEFAULT_RESULTS = "rap-bench.json"
DEFAULT_PROFILE_EVERY = 32

#: ``--quick``: a small sweep (16 points, about 7 s on two cores) with the
#: machine sizes of the RAP's published figures (20 and 40 nodes).
QUICK = {"boards": (1, 5, 10, 16), "speech": (128, 512), "square": (128, 512)}

#: The RAP's published figures (../shared/RAP-REFERENCE.md), by node count.
PUBLISHED = {20: {"mcps": "200-300", "mcups": "30-60"}, 40: {"mcps": "574", "mcups": "106"}}


#: the most training patterns one point of a sweep (or one profile) measures:
#: every pattern is simulated, and 2^20 already take hours (docs/reliability.md)
MAX_MEASURED_PATTERNS = 1 << 20

def published(nodes: int) -> str:
    p = PUBLISHED.get(nodes)
    return f"{p['mcps']} MCPS, {p['mcups']} MCUPS" if p else ""

SPEECH_NET = """\
# 234-H-61 speech MLP, as examples/speech.net (mlp-common.net)
param hidden = 512
layer features: input 234
layer hid: sigmoid hidden bias
layer phones: softmax 61 bias
connect features -> hid full
connect hid -> phones full
net speech { input features  hidden hid  output phones }
train { rate 0.008  epochs 1  momentum 0  error cross_entropy  seed 1
        init_scale 0.05  shuffle true }
"""

SQUARE_NET = """\
# n-n-n square MLP: two full n x n connects, sigmoid hidden and output units
param n = 256
layer x: input n
layer h: sigmoid n bias
layer y: sigmoid n bias
connect x -> h full
connect h -> y full
net square { input x  hidden h  output y }
train { rate 0.01  epochs 1  momentum 0  error mse  seed 1  init_scale 0.05
        shuffle true }
"""


@dataclass(frozen=True)
class Family:
    name: str
    text: str
    param: str              # the description's parameter that the size sets
    option: str             # the command-line option of its sizes

    def layers(self, size: int) -> str:
        return f"234-{size}-61" if self.name == "speech" else f"{size}-{size}-{size}"

    def label(self, size: int) -> str:
        return f"{self.name} {self.layers(size)}"

    def network(self, size: int):
        from rapsim.compiler.parser import parse_text
        return parse_text(self.text, f"<{self.name}>", {self.param: size})


FAMILIES = {
    "speech": Family("speech", SPEECH_NET, "hidden", "--hidden"),
    "square": Family("square", SQUARE_NET, "n", "--square"),
}

#: The machine options of 'rap run' that a sweep passes on to every point.
MACHINE_OPTIONS = ("sram_words", "dram_words", "sram_wait", "dram_wait", "onchip_wait",
                   "clock_mhz", "hostcall_cycles", "board_hop_cycles")

STALL_CAUSES = ("branch", "register_conflict", "memory_wait", "bus_conflict", "ring_read",
                "ring_write")


# -- one point ------------------------------------------------------------------------

def point_config(point: dict):
    """The MachineConfig of a point (its node count and machine options)."""
    from rapsim.commands.run import machine_config
    ns = argparse.Namespace(boards=None, nodes=point["nodes"],
                            **{k: None for k in MACHINE_OPTIONS})
    for k, v in (point.get("machine") or {}).items():
        setattr(ns, k, v)
    return machine_config(ns)


def _phase_figures(prefix: str, ph, macs_per_pattern: int, nodes: int) -> dict:
    """Where a phase's cycles go, per pattern and per node: useful
    multiply-accumulates, other instructions, stalls by cause, idle."""
    per = max(ph.patterns, 1) * nodes
    ideal = macs_per_pattern / nodes
    instr = ph.instructions / per
    stalls = {c: ph.stalls.get(c, 0) / per for c in STALL_CAUSES}
    cycles = ph.cycles / max(ph.patterns, 1)
    out = {f"{prefix}_cycles_per_pattern": cycles,
           f"{prefix}_mac_cycles": ideal,
           f"{prefix}_instructions": instr,
           f"{prefix}_overhead_instructions": instr - ideal}
    for c, v in stalls.items():
        out[f"{prefix}_stall_{c}"] = v
    out[f"{prefix}_idle"] = cycles - instr - sum(stalls.values())
    out[f"{prefix}_ring_words_per_pattern"] = ph.ring_words / max(ph.patterns, 1)
    out[f"{prefix}_ring_utilisation"] = (ph.ring_words / ph.node_cycles
                                         if ph.node_cycles else 0.0)
    return out


def _regions(memory: list, word: str) -> str:
    regions = sorted({region for _, _, region, role in memory if word in role})
    return "+".join(regions)


def measure_point(point: dict, threads: int = 1) -> dict:
    """Measure one point of a sweep (module-level: it is pickled to worker
    processes and Dask workers).  ``point``: family, size, nodes, warmup,
    patterns and optionally machine (options of 'rap run').  A network that
    the back end cannot place on the machine, or a run the simulated machine
    does not finish, gives a record with ``error`` and ``error_kind``
    ("lowering" or "machine") instead of figures.  ``threads``: host threads
    each simulated machine is split over (no figure but the host time
    depends on it; not part of the point's identity)."""
    from rapsim.compiler.build import compile_network
    from rapsim.compiler.lower import LoweringError
    from rapsim.compiler.profile import Profile, per_pattern
    from rapsim.compiler.train import measure, measurement_network

    t0 = time.perf_counter()
    fam = FAMILIES[point["family"]]
    from rapsim.compiler.train import scheduled_mapping
    size, nodes = int(point["size"]), int(point["nodes"])
    warmup, patterns = int(point["warmup"]), int(point["patterns"])
    mapping, batch = point.get("mapping", "rows"), int(point.get("batch", 1))
    schedule = point.get("schedule", "lockstep")
    overlap = point.get("overlap", "off")
    collectives = point.get("collectives", "auto")
    eval_mapping = point.get("eval_mapping")
    rec: dict = {"network": fam.label(size) + ("" if mapping == "rows" else f" {mapping}")
                 + ("" if eval_mapping is None else f" eval {eval_mapping}")
                 + ("" if overlap == "off" else f" overlap {overlap}")
                 + ("" if collectives == "auto" else f" {collectives}")
                 + ("" if schedule == "lockstep" else f" {schedule}"),
                 "layers": fam.layers(size), "nodes": nodes, "mapping": mapping,
                 "schedule": schedule,
                 "boards": -(-nodes // NODES_PER_BOARD), "units_per_node": size / nodes}
    if overlap != "off":
        rec["overlap"] = overlap
    if collectives != "auto":
        rec["collectives"] = collectives
    if eval_mapping is not None:
        # the evaluation pass split by patterns (compiler/evalmap.py): W and
        # W + K training patterns per node, as the data mapping counts them,
        # so that every node evaluates some in both runs
        rec["eval_mapping"] = eval_mapping
        warmup, patterns = warmup * nodes, patterns * nodes
    if mapping in ("data", "hybrid"):
        # every node trains W and W + K batches of B patterns (and evaluates as many)
        rec["batch"] = batch
        warmup, patterns = warmup * nodes * batch, patterns * nodes * batch
    config = point_config(point)
    net = fam.network(size)
    rec["connections"] = net.connections()
    every = int(point.get("profile") or 0)
    try:
        mnet = measurement_network(net)
        program = compile_network(mnet, config.nodes, config.memory,
                                  mapping=scheduled_mapping(
                                      mnet, config.nodes,
                                      # a pipeline places the layers itself (rows: no preset)
                                      None if (mapping, schedule) == ("rows", "pipeline")
                                      else mapping, batch, schedule),
                                  overlap=overlap, collectives=collectives,
                                  eval_mapping=eval_mapping)
        rec.update(_prediction(mnet, config, program.plan, eval_mapping))
        t1 = time.perf_counter()
        runs, profiles = [], []
        for count in ([warmup] if warmup else []) + [warmup + patterns]:
            prof = Profile(program.image, nodes) if every else None
            runs.append(measure(net, config, train_patterns=count, test_patterns=count,
                                program=program, sampler=prof, sample_every=every,
                                threads=threads))
            profiles.append(prof)
    except LoweringError as e:
        return {**rec, "error": str(e), "error_kind": "lowering",
                "host_seconds": time.perf_counter() - t0}
    except RapError as e:
        return {**rec, "error": str(e), "error_kind": "machine",
                "host_seconds": time.perf_counter() - t0}
    last = runs[-1]
    perf = last.performance - runs[0].performance if warmup else last.performance
    d = perf.to_dict()
    whole = last.performance
    rec.update({
        "mcps": d["mcps"], "mcps_percent_of_peak": d["mcps_percent_of_peak"],
        "mcups": d["mcups"], "mcups_percent_of_peak": d["mcups_percent_of_peak"],
        "peak_mcps": d["peak_mcps"],
        "run_mcps": whole.mcps, "run_mcups": whole.mcups,
        "weights_in": _regions(last.memory, "weights"),
        "database_in": last.database,
    })
    if last.pipeline:
        rec["pipeline"] = last.pipeline
    c = rec["connections"]
    rec.update(_phase_figures("train", perf.train, 3 * c, nodes))
    rec.update(_phase_figures("eval", perf.evaluate, c, nodes))
    for ph in ("train", "eval"):
        if rec.get(f"predicted_{ph}_cycles_per_pattern") and rec[f"{ph}_cycles_per_pattern"]:
            rec[f"predicted_{ph}_error"] = (rec[f"predicted_{ph}_cycles_per_pattern"]
                                            / rec[f"{ph}_cycles_per_pattern"] - 1)
    if every:
        fewer = profiles[0] if warmup else None
        rec["train_profile"] = per_pattern(profiles[-1], fewer, "train", patterns, nodes)
        rec["eval_profile"] = per_pattern(profiles[-1], fewer, "evaluate", 2 * patterns, nodes)
    rec.update({
        "simulated_node_cycles": sum(r.totals["cycles"] for r in runs) * nodes,
        "simulate_seconds": sum(r.host_seconds for r in runs),
        "compile_seconds": t1 - t0,
        "host_seconds": time.perf_counter() - t0,
    })
    return rec


def _prediction(network, config, plan, eval_mapping: str | None = None) -> dict:
    """The cost model's cycles per pattern of the point's program (rap
    plan, docs/plan.md), recorded beside the measured ones; a program the
    model cannot price records why instead.  With an evaluation mapping
    (compiler/evalmap.py) the forward pattern is its, and the weights'
    all-gather a pass is recorded too."""
    from rapsim.compiler.plan import PlanError, predict
    try:
        p = predict(network, plan.mapping, config.memory, config.clock_hz / 1e6,
                    overlap=plan.overlap)
        out = {"predicted_train_cycles_per_pattern": p.train_cycles,
               "predicted_eval_cycles_per_pattern": p.forward_cycles}
        if eval_mapping is not None:
            from rapsim.compiler.evalmap import price
            r = price(network, plan.mapping, config.memory, eval_mapping)
            out["predicted_eval_cycles_per_pattern"] = r["forward_cycles"]
            out["predicted_gather_cycles"] = r["gather_cycles"]
    except PlanError as e:
        return {"predicted_error_reason": str(e)}
    return out


#: figures every measured record has (the table, the plot and the profile tables use them)
FIGURES = ("mcps", "mcps_percent_of_peak", "mcups", "mcups_percent_of_peak",
           "train_cycles_per_pattern", "train_mac_cycles", "eval_cycles_per_pattern",
           "eval_mac_cycles")


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def record_complete(rec: dict) -> bool:
    """Is a record of a results file usable as it is: a point that did not
    fit or failed (with its error), or a measured one with every figure?
    Others are measured again (rapsim.sweep.run_sweep)."""
    if not _number(rec.get("host_seconds", 0)):
        return False
    if rec.get("error") is not None:
        return isinstance(rec["error"], str)
    if not isinstance(rec.get("network"), str) or not all(_number(rec.get(k)) for k in FIGURES):
        return False
    return all(rec.get(f"{ph}_profile") is None or (
        isinstance(rec[f"{ph}_profile"], dict) and all(map(_number, rec[f"{ph}_profile"].values())))
        for ph in ("train", "eval"))


# -- options ------------------------------------------------------------------------

def _int_list(text: str, what: str, lo: int, hi: int | None = None) -> list[int]:
    out = []
    for item in text.split(","):
        item = item.strip()
        try:
            v = int(item)
        except ValueError:
            raise RapError(f"{what}: {item!r} is not a whole number "
                           f"(give a comma-separated list such as 1,4,10)") from None
        if v < lo or (hi is not None and v > hi):
            rng = f"{lo} to {hi}" if hi is not None else f"at least {lo}"
            raise RapError(f"{what}: {v} is out of range ({rng})")
        if v not in out:
            out.append(v)
    return out


def _names(text: str, known, unknown) -> list[str]:
    """The distinct names of a comma list, in order; ``unknown(item)``: the
    message for a name not in ``known``."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if item not in known:
            raise RapError(unknown(item))
        if item not in out:
            out.append(item)
    return out


def _mappings(text: str) -> list[str]:
    from rapsim.compiler.mapping import PRESETS
    return _names(text, PRESETS, lambda item: f"--mapping: {item!r} is unknown (rap bench "
                                              f"sweeps {', '.join(PRESETS)})")


def _schedules(text: str) -> list[str]:
    from rapsim.compiler.mapping import SCHEDULES
    return _names(text, SCHEDULES, lambda item: f"--schedule: {item!r} is unknown (rap bench "
                                                f"sweeps {', '.join(SCHEDULES)})")


def _overlaps(text: str) -> list[str]:
    from rapsim.compiler.overlap import OVERLAPS, resolve
    out = _names(text, OVERLAPS,
                 lambda item: f"--overlap: {item!r} is unknown (rap bench sweeps off, on, ring)")
    for item in out:
        try:
            resolve(item)
        except RapError as e:
            raise RapError(f"--overlap: {e}") from None
    return out


def _families(text: str) -> list[str]:
    return _names(text, FAMILIES, lambda item: f"--families: unknown family {item!r} "
                                               f"(known: {', '.join(FAMILIES)})")


def add_arguments(p: argparse.ArgumentParser) -> None:
    from rapsim.commands.run import add_machine_arguments
    s = p.add_argument_group("sweep")
    s.add_argument("--families", metavar="F,...",
                   help=f"network families to sweep (default: {','.join(FAMILIES)})")
    s.add_argument("--hidden", metavar="H,...",
                   help="hidden units of the speech MLP 234-H-61 (default: "
                        + ",".join(map(str, DEFAULT_SIZES)) + ")")
    s.add_argument("--square", metavar="N,...",
                   help="units per layer of the square n-n-n MLP (default: "
                        + ",".join(map(str, DEFAULT_SIZES)) + ")")
    s.add_argument("--boards", metavar="B,...",
                   help="machine sizes in boards of 4 nodes (default: "
                        + ",".join(map(str, DEFAULT_BOARDS)) + ")")
    s.add_argument("--nodes", metavar="N,...",
                   help="machine sizes in nodes, instead of the default boards, or added to "
                        "--boards when both are given (e.g. --boards 1,4,16 --nodes 1,2 for "
                        "one- and two-node baselines)")
    s.add_argument("--quick", action="store_true",
                   help=f"a small sweep (boards {','.join(map(str, QUICK['boards']))}, "
                        f"hidden {','.join(map(str, QUICK['speech']))}, square "
                        f"{','.join(map(str, QUICK['square']))}); explicit lists win")
    s.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, metavar="W",
                   help=f"training patterns of the shorter of the two runs of a point, the "
                        f"warm-up that the figures leave out (default {DEFAULT_WARMUP}; 0: one "
                        "run, figures of its whole phases, fixed costs included)")
    s.add_argument("--patterns", type=int, default=DEFAULT_PATTERNS, metavar="K",
                   help=f"measured training patterns per point, the longer run's extra ones "
                        f"(default {DEFAULT_PATTERNS}; twice as many forward patterns)")
    s.add_argument("--mapping", metavar="M,...",
                   help="mappings to sweep as a dimension (rows, data, layers, hybrid, "
                        "checkerboard, columns; default rows): the "
                        "table and the plot get a line per mapping (docs/compiler.md)")
    s.add_argument("--eval-mapping", metavar="M",
                   help="the evaluation pass's own mapping (data): trained by --mapping "
                        "(rows or columns), evaluated by patterns, the weights all-gathered "
                        "at the start of each evaluation pass (docs/compiler.md, \"A mapping "
                        "per pass\"); its points count W and K training patterns per node")
    s.add_argument("--overlap", metavar="O,...",
                   help="overlapped collectives to sweep as a dimension (off, on = ring; "
                        "default off): the table and the plot get a line per value "
                        "(docs/compiler.md, \"Overlapped collectives\")")
    s.add_argument("--collectives", metavar="MODE", default="auto",
                   help="the layers' all-gathers and reduce-scatters: auto (default: the "
                        "cheaper of chain and rotation by their cycle formulas), chain, rotation "
                        "(docs/compiler.md, \"Collectives: chains and rotations\")")
    s.add_argument("--batch", type=int, default=1, metavar="B",
                   help="data and hybrid mappings: patterns per node between two all-reduces "
                        "(default 1); their points count W and K batches of N x B patterns")
    s.add_argument("--schedule", metavar="S,...",
                   help="schedules to sweep as a dimension (lockstep, pipeline; default "
                        "lockstep): a line per schedule (docs/compiler.md, \"Schedules\")")
    s.add_argument("--profile", type=int, nargs="?", const=DEFAULT_PROFILE_EVERY, metavar="C",
                   help="also profile every point: the cycles of a pattern by routine, from "
                        f"each node's PC sampled every C cycles (default {DEFAULT_PROFILE_EVERY}); "
                        "the simulation takes 2-4 times as long")
    o = p.add_argument_group("output and execution")
    o.add_argument("--results", default=DEFAULT_RESULTS, metavar="FILE",
                   help=f"results file, .json or .csv (default {DEFAULT_RESULTS}); points "
                        "already in it are not measured again")
    o.add_argument("--fresh", action="store_true",
                   help="measure every point again, ignoring the results file (replaced when "
                        "the first point is done: an interruption before that leaves it as it was)")
    o.add_argument("--plot", metavar="STEM",
                   help="scaling plot: STEM.png and STEM.svg (default: the results file's "
                        "name without its suffix, plus '-scaling')")
    o.add_argument("--no-plot", action="store_true", help="do not draw the scaling plot")
    o.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: one per core; 1: in this process)")
    o.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the points on the Dask cluster of this scheduler "
                        "(e.g. tcp://host:8786) instead of local processes")
    o.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="S",
                   help="seconds to wait for the Dask scheduler (default 10)")
    o.add_argument("--quiet", action="store_true", help="no progress bar")
    add_threads_argument(o, "default 1 per point: the points already run in parallel "
                            "processes, one per core")
    add_machine_arguments(p, sizes=False)


@dataclass
class Sweep:
    families: list[str]
    sizes: dict[str, list[int]]
    nodes: list[int]
    warmup: int
    patterns: int
    machine: dict
    profile: int = 0
    mappings: tuple = ("rows",)
    batch: int = 1
    overlaps: tuple = ("off",)
    schedules: tuple = ("lockstep",)
    collectives: str = "auto"
    eval_mapping: str | None = None

    def points(self) -> list[dict]:
        pts = []
        for fam in self.families:
            for size in self.sizes[fam]:
                for n, m, o, sc in ((n, m, o, sc) for sc in self.schedules
                                    for o in self.overlaps for m in self.mappings
                                    for n in self.nodes):
                    p = {"family": fam, "size": size, "nodes": n, "warmup": self.warmup,
                         "patterns": self.patterns}
                    if m != "rows":             # rows points keep their old identity
                        p.update(mapping=m, batch=self.batch)
                    if o != "off":              # and so do points without overlap
                        p["overlap"] = o
                    if sc != "lockstep":        # and so do lock-step ones
                        p["schedule"] = sc
                    if self.collectives != "auto":
                        p["collectives"] = self.collectives
                    if self.eval_mapping is not None:
                        p["eval_mapping"] = self.eval_mapping
                    if self.machine:
                        p["machine"] = dict(self.machine)
                    if self.profile:
                        p["profile"] = self.profile
                    pts.append(p)
        return pts


def sweep_from_args(args) -> Sweep:
    quick = args.quick
    fams = _families(args.families) if args.families else list(FAMILIES)
    sizes = {}
    for name, fam in FAMILIES.items():
        text = getattr(args, fam.option[2:])
        if text is not None and name not in fams:
            raise RapError(f"{fam.option} was given but the {name} family is not swept "
                           f"(--families {','.join(fams)})")
        if text is not None:
            sizes[name] = _int_list(text, fam.option, 1)
        else:
            sizes[name] = list(QUICK[name] if quick else DEFAULT_SIZES)
    nodes = []
    if args.boards is not None or args.nodes is None:
        boards = (_int_list(args.boards, "--boards", 1, MAX_BOARDS) if args.boards is not None
                  else list(QUICK["boards"] if quick else DEFAULT_BOARDS))
        nodes = [NODES_PER_BOARD * b for b in boards]
    if args.nodes is not None:
        nodes += [n for n in _int_list(args.nodes, "--nodes", 1, MAX_NODES) if n not in nodes]
    nodes.sort()
    if args.warmup < 0:
        raise RapError("--warmup must be 0 or more")
    if args.patterns < 1:
        raise RapError("--patterns must be at least 1")
    if args.warmup + args.patterns > MAX_MEASURED_PATTERNS:
        raise RapError(f"--warmup and --patterns: at most {MAX_MEASURED_PATTERNS} patterns in "
                       f"all, not {args.warmup + args.patterns} (each is simulated)")
    machine = {k: getattr(args, k) for k in MACHINE_OPTIONS if getattr(args, k, None) is not None}
    if args.profile is not None and args.profile < 1:
        raise RapError("--profile: the sampling interval must be at least 1 cycle")
    mappings = _mappings(args.mapping) if args.mapping else ["rows"]
    if args.batch < 1:
        raise RapError(f"--batch must be at least 1, not {args.batch}")
    if args.batch != 1 and not {"data", "hybrid"} & set(mappings):
        raise RapError(f"--batch {args.batch} applies to the data and hybrid mappings; give "
                       f"--mapping data or hybrid")
    overlaps = _overlaps(args.overlap) if args.overlap else ["off"]
    schedules = _schedules(args.schedule) if args.schedule else ["lockstep"]
    from rapsim.compiler.collectives import check_mode
    from rapsim.compiler.evalmap import TRAIN_MAPPINGS, check_name
    eval_mapping = check_name(args.eval_mapping)
    if eval_mapping is not None and not set(mappings) <= set(TRAIN_MAPPINGS):
        raise RapError(f"--eval-mapping {eval_mapping}: the training mapping must be "
                       f"{' or '.join(TRAIN_MAPPINGS)} (--mapping {','.join(mappings)})")
    if eval_mapping is not None and schedules != ["lockstep"]:
        raise RapError(f"--eval-mapping {eval_mapping}: schedule lockstep only "
                       f"(--schedule {','.join(schedules)})")
    sw = Sweep(fams, sizes, nodes, args.warmup, args.patterns, machine, args.profile or 0,
               tuple(mappings), args.batch, tuple(overlaps), tuple(schedules),
               check_mode(args.collectives), eval_mapping)
    for n in nodes:                               # bad machine options fail here, not in a worker
        point_config({"nodes": n, "machine": machine})
    return sw


# -- output -------------------------------------------------------------------------

def _cost(point: dict) -> float:
    """A rough host cost of a point, to start the longest first."""
    size = point["size"]
    conns = 234 * size + 61 * size if point["family"] == "speech" else 2 * size * size
    return conns * (3.0 if conns / point["nodes"] > 200_000 else 1.0)


def _speedups(records: list[dict], metric: str) -> dict[tuple[str, int], tuple[float, float]]:
    """(network, nodes) -> (speedup over the fewest nodes x those nodes,
    efficiency = speedup / nodes)."""
    from rapsim.plots import speedup_series
    out = {}
    for label, pts in speedup_series(records, metric).items():
        for n, s in pts:
            out[(label, n)] = (s, s / n)
    return out


def _output(file):
    """Where the tables go: ``file``, else standard output (nowhere when it
    is closed, as print() does)."""
    file = file or sys.stdout
    return file if file is not None else open(os.devnull, "w")


def print_table(records: list[dict], file=None) -> None:
    from rich.console import Console
    from rich.table import Table
    file = _output(file)
    con = Console(file=file, width=None if file.isatty() else 200)
    ok = [r for r in records if r.get("error") is None]
    sp = {m: _speedups(ok, m) for m in ("mcps", "mcups")}
    t = Table(title="rap bench: steady-state speed on the simulated RAP (16 MHz; peak = "
                    "1 multiply-accumulate per cycle per node; a trained connection = 3)")
    cols = [("network", "left"), ("connections", "right"), ("nodes", "right"),
            ("boards", "right"), ("units/node", "right"), ("MCPS", "right"),
            ("% peak", "right"), ("MCUPS", "right"), ("% peak ", "right"),
            ("MCPS speedup", "right"), ("MCUPS speedup", "right"), ("plan error", "right"),
            ("weights", "left"),
            ("host s", "right"), ("RAP, published", "left")]
    for name, just in cols:
        t.add_column(name, justify=just)
    key = lambda r: (r["point"]["family"], r["point"]["size"],  # noqa: E731
                     r["point"].get("mapping", "rows"), r["point"].get("overlap", "off"),
                     r["point"].get("schedule", "lockstep"),
                     r["point"]["nodes"])
    last = None
    for r in sorted(records, key=key):
        p = r["point"]
        label = r.get("network") or (FAMILIES[p["family"]].label(p["size"])
                                     + ("" if p.get("mapping", "rows") == "rows"
                                        else f" {p['mapping']}")
                                     + ("" if p.get("schedule", "lockstep") == "lockstep"
                                        else f" {p['schedule']}"))
        n = p["nodes"]
        if last is not None and last != label:
            t.add_section()
        last = label
        head = [label, str(r.get("connections", "")), str(n), str(-(-n // NODES_PER_BOARD)),
                f"{p['size'] / n:g}"]
        if r.get("error") is not None:
            what = ("does not fit: " if r.get("error_kind") == "lowering" else "FAILED: ")
            t.add_row(*head, f"[red]{what}{r['error']}[/red]", *[""] * 7,
                      f"{r.get('host_seconds', 0):.1f}", published(n))
            continue

        def su(m):
            s, e = sp[m].get((label, n), (None, None))
            return "" if s is None else f"{s:.1f} ({100 * e:.0f}%)"
        t.add_row(*head, f"{r['mcps']:.1f}", f"{r['mcps_percent_of_peak']:.1f}",
                  f"{r['mcups']:.1f}", f"{r['mcups_percent_of_peak']:.1f}",
                  su("mcps"), su("mcups"), _plan_error(r), r.get("weights_in", ""),
                  f"{r.get('host_seconds', 0):.1f}", published(n))
    con.print(t)
    con.print("speedup: over the fewest nodes measured for the network (times their count), "
              "with the percentage of linear; units/node: hidden units per node; plan error: "
              "the cost model's cycles per training / forward pattern against the measured "
              "(rap plan, docs/plan.md); host s: host seconds to compile and simulate the point")


def _plan_error(r: dict) -> str:
    """The prediction's relative error of a record (blank in results files
    written before rap plan)."""
    t, f = r.get("predicted_train_error"), r.get("predicted_eval_error")
    if not _number(t) or not _number(f):
        return ""
    return f"{100 * t:+.1f}% / {100 * f:+.1f}%"


def print_profiles(records: list[dict], file=None, columns: int = 9) -> None:
    """The profiled points: cycles of a pattern per node, by routine."""
    from rich.console import Console
    from rich.table import Table
    file = _output(file)
    con = Console(file=file, width=None if file.isatty() else 200)
    for phase, title in (("train", "training"), ("eval", "forward (evaluation)")):
        recs = [r for r in records if r.get(f"{phase}_profile")]
        if not recs:
            continue
        total: dict[str, float] = {}
        for r in recs:
            for name, v in r[f"{phase}_profile"].items():
                total[name] = total.get(name, 0) + v / r[f"{phase}_cycles_per_pattern"]
        names = [n for n, _ in sorted(total.items(), key=lambda kv: -kv[1])][:columns]
        t = Table(title=f"where the cycles of a {title} pattern go: cycles per node "
                        "(multiply-accumulates at 1 per cycle would take 'MAC')")
        for col in ("network", "nodes", "cycles", "MAC", *names, "other"):
            t.add_column(col, justify="left" if col == "network" else "right")
        for r in sorted(recs, key=lambda r: (r["point"]["family"], r["point"]["size"],
                                             r["point"]["nodes"])):
            prof = r[f"{phase}_profile"]
            cells = [f"{prof.get(n, 0):.0f}" for n in names]
            other = sum(v for n, v in prof.items() if n not in names)
            t.add_row(r["network"], str(r["point"]["nodes"]),
                      f"{r[f'{phase}_cycles_per_pattern']:.0f}", f"{r[f'{phase}_mac_cycles']:.0f}",
                      *cells, f"{other:.0f}")
        con.print(t)


def run(args) -> int:
    from rapsim.sweep import load_results, point_id, run_sweep
    sw = sweep_from_args(args)
    path = args.results
    if not path.lower().endswith((".json", ".csv")):
        raise RapError(f"--results: {path!r} must end in .json or .csv")
    if args.workers is not None and args.workers < 1:
        raise RapError("--workers must be at least 1")
    if not args.scheduler_timeout > 0:
        raise RapError("--scheduler-timeout must be a positive number of seconds")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise RapError(f"cannot create the folder of {path}: {e.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise RapError(f"cannot write {path}: the folder is not writable")
    points = sw.points()
    done = set() if args.fresh else {point_id(r["point"]) for r in load_results(path)
                                     if record_complete(r)}
    todo = sum(point_id(p) not in done for p in points)
    order = sorted(points, key=lambda p: -_cost(p))
    t0 = time.perf_counter()
    measure = measure_point if not args.threads else functools.partial(measure_point,
                                                                       threads=args.threads)
    records = run_sweep(order, measure, path, workers=args.workers,
                        scheduler=args.scheduler, progress=not args.quiet,
                        description=f"rap bench: {todo} points",
                        connect_timeout=args.scheduler_timeout, complete=record_complete,
                        fresh=args.fresh)
    wall = time.perf_counter() - t0
    print_table(records)
    print_profiles(records)
    where = f"on the Dask cluster at {args.scheduler}" if args.scheduler else (
        f"with {args.workers or os.cpu_count() or 1} local worker(s)")
    print(f"{len(points)} points: {todo} measured now ({wall:.1f} s wall {where}), "
          f"{len(points) - todo} taken from {path}")
    ok = [r for r in records if r.get("error") is None]
    if ok and not args.no_plot:
        from rapsim.plots import plot_speedup
        stem = args.plot or os.path.splitext(path)[0] + "-scaling"
        try:
            files = plot_speedup(ok, ("mcps", "mcups"), stem,
                                 title="rap bench: speedup against nodes (simulated RAP)")
        except OSError as e:
            raise RapError(f"cannot write the plot {stem}.png/.svg: {e}") from None
        print(f"scaling plot: {' and '.join(files)}")
    failed = [r for r in records if r.get("error_kind") == "machine"]
    if failed:
        print(f"rap bench: the simulated machine stopped at {len(failed)} point(s); see the "
              "table and the results file", file=sys.stderr)
        return EXIT_MACHINE_STOPPED
    return 0
