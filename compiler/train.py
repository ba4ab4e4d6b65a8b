"""Training a network on the simulated RAP, from Python.

>>> result = train(network, train_set, test_set, nodes=4)
>>> result.epochs[-1].test_accuracy, result.performance.mcups
>>> result.weights            # rapsim.compiler.reference.Weights, read back
>>> json.dumps(result.to_dict())

The run is the RAP's: the network is compiled for the machine
(:mod:`rapsim.compiler.build`), the host (:mod:`rapsim.compiler.host`) writes
the initial weights (:func:`rapsim.compiler.reference.initial_weights`, the
same as the numpy reference's) and the pattern database into every node, and
the program trains on-line, pattern after pattern in the reference's order
(:func:`~rapsim.compiler.reference.pattern_order`), asking the host before
every epoch for the next learning rate (CLONES' next_learning_rate, decided
from the error of the evaluation pass that follows every epoch: the test
loss, or the training loss when there is no test set, as in the reference;
with a validation set, its loss: the evaluation pass then takes the training,
validation and test patterns in that order).

:func:`measure` runs a few patterns of random data to give MCPS and MCUPS of a
network on a machine without training it to the end (``rap bench``).
"""
from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from rapsim.compiler.build import Program, compile_network
from rapsim.compiler.checkpoint import TrainingState, check_weights
from rapsim.compiler.host import PatternData, TrainingHost
from rapsim.compiler.ir import Network, Schedule
from rapsim.compiler.metrics import Performance, performance
from rapsim.compiler.reference import (EpochStats, Weights, initial_weights, pattern_correct,
                                       pattern_loss, pattern_order)
from rapsim.compiler.schedule import next_learning_rate
from rapsim.compiler.stats import available, compute
from rapsim.compiler.mapping import require_rows
from rapsim.compiler.phases import of
from rapsim.compiler.stream import (DEFAULT_BLOCK, STREAMING, StreamingHost, compile_streaming,
                                    is_streaming)
from rapsim.config import MachineConfig
from rapsim.errors import RapError

#: The cycle limit of a run, per node (a runaway program stops there).
DEFAULT_MAX_CYCLES = 1 << 40


class TrainingFailed(RapError):
    """The simulated machine stopped before the program finished."""


@dataclass
class TrainResult:
    """What a run produced and measured."""
    network: str
    config: MachineConfig
    epochs: list[EpochStats]
    stopped_by: str                     # "schedule" (rate 0), "epochs" or "behaviour"
    weights: Weights                    # read back from the nodes
    outputs: np.ndarray                 # last evaluation pass: training, then test patterns
    train_patterns: int
    test_patterns: int
    performance: Performance
    cycles: int                         # simulated cycles of the whole run
    host_seconds: float
    totals: dict = field(default_factory=dict)   # machine counters of the whole run
    memory: list = field(default_factory=list)   # (symbol, words, region, role)
    database: str = ""                  # where the pattern database was placed
    #: where training stands at the end (weights, momentum, epochs, the
    #: shuffle's and the schedule's state): save it with
    #: rapsim.compiler.checkpoint.save_state to resume later
    state: TrainingState | None = None
    #: the selected statistics after every epoch of this run
    #: (rapsim.compiler.stats): {"epoch": e, "train": {name: value},
    #: "test": {name: value} (with a test set)}
    stats: list = field(default_factory=list)
    mapping: dict = field(default_factory=dict)  # rapsim.compiler.mapping.Mapping.to_dict()
    valid_patterns: int = 0             # the validation set's (evaluated before the test set)
    overlap: str = "off"                # the collectives overlapped (rapsim.compiler.overlap)
    #: schedule pipeline: stages, fill and drain ticks, cycles per tick and
    #: per stage (rapsim.compiler.pipeline.stage_balance); {} otherwise
    pipeline: dict = field(default_factory=dict)
    #: schedule stream: frames a pattern and the accuracy of each frame since
    #: stimulus onset (rapsim.compiler.frames); {} otherwise
    frames: dict = field(default_factory=dict)
    #: schedule stream: every frame's outputs of the last evaluation pass
    #: (patterns x frames x output units); None otherwise
    frame_outputs: np.ndarray | None = None
    #: overlap ring: each reduce-scatter, overlapped or blocking and why (Plan.overlap_report)
    overlap_report: list = field(default_factory=list)
    #: overlap ring: each forward all-gather, streamed into a product or
    #: blocking and why (Plan.gather_report)
    gather_report: list = field(default_factory=list)
    #: each layer's all-gather and reduce-scatter: chain or rotation, and the
    #: cycles of both (Plan.collective_report; rapsim.compiler.collectives)
    collectives: list = field(default_factory=list)

    @property
    def simulated_seconds(self) -> float:
        return self.cycles / self.config.clock_hz

    @property
    def host_seconds_per_pattern(self) -> float:
        """Host seconds per simulated training pattern (evaluation included)."""
        n = self.performance.train.patterns
        return self.host_seconds / n if n else 0.0

    @property
    def test_outputs(self) -> np.ndarray:
        return self.outputs[self.train_patterns + self.valid_patterns:]

    def _epoch_dict(self, e: EpochStats) -> dict:
        d = {"epoch": e.epoch, "rate": e.rate, "train_loss": e.train_loss,
             "train_accuracy": e.train_accuracy, "test_loss": e.test_loss,
             "test_accuracy": e.test_accuracy}
        if self.valid_patterns:
            d["valid_loss"], d["valid_accuracy"] = e.valid_loss, e.valid_accuracy
        st = next((s for s in self.stats if s["epoch"] == e.epoch), None)
        if st is not None:
            d["stats"] = {k: v for k, v in st.items() if k != "epoch"}
        return d

    def to_dict(self) -> dict:
        """Everything but the weights and outputs, as JSON-ready values."""
        out = {
            "network": self.network,
            "nodes": self.config.nodes,
            "boards": self.config.boards,
            "clock_hz": self.config.clock_hz,
            "train_patterns": self.train_patterns,
            "test_patterns": self.test_patterns,
            "valid_patterns": self.valid_patterns,
            "stopped_by": self.stopped_by,
            "epochs": [self._epoch_dict(e) for e in self.epochs],
            "simulated_cycles": self.cycles,
            "simulated_seconds": self.simulated_seconds,
            "host_seconds": self.host_seconds,
            "host_seconds_per_pattern": self.host_seconds_per_pattern,
            "performance": self.performance.to_dict(),
            "machine": self.totals,
            "database": self.database,
            "mapping": self.mapping,
            "overlap": self.overlap,
            **({"pipeline": self.pipeline} if self.pipeline else {}),
            **({"frames": self.frames} if self.frames else {}),
            "memory": [{"symbol": s, "words": w, "region": r, "role": role}
                       for s, w, r, role in self.memory],
        }
        if self.overlap != "off":       # each reduce-scatter: overlapped, or blocking and why
            out["overlap_collectives"] = self.overlap_report
            out["overlap_gathers"] = self.gather_report
        out["collectives"] = self.collectives
        return out


def _totals(sim) -> dict:
    m = sim.machine_counters()
    per = m["nodes"]
    stalls: dict[str, int] = {}
    for c in per:
        for k, v in c["stalls"].items():
            stalls[k] = stalls.get(k, 0) + v
    return {"cycles": m["cycles"], "instructions": m["instructions"], "stalls": stalls,
            "ring_words": m["ring_words"], "ring_utilisation": m["ring_utilisation"],
            "host_calls": sum(c["host_calls"] for c in per)}


def _targets(data) -> np.ndarray | None:
    """A set's targets as (patterns, words), or None without patterns."""
    if data is None or not len(data.targets):
        return None
    return np.asarray(data.targets, dtype=np.float64).reshape(len(data.targets), -1)


@dataclass
class _Joined:
    """Validation then test patterns as one evaluation set for the host."""
    inputs: np.ndarray
    targets: np.ndarray


def _evaluation_set(valid_set, test_set):
    """What the host evaluates after the training set: the validation
    patterns, then the test patterns (either may be absent)."""
    if valid_set is None or not len(valid_set.inputs):
        return test_set
    if test_set is None or not len(test_set.inputs):
        return valid_set
    def flat(a):
        a = np.asarray(a, dtype=np.float64)
        return a.reshape(len(a), -1)
    return _Joined(np.concatenate([flat(valid_set.inputs), flat(test_set.inputs)]),
                   np.concatenate([flat(valid_set.targets), flat(test_set.targets)]))


class _Schedule:
    """The host's side of the epoch loop: statistics of each finished epoch
    and the next rate, exactly as rapsim.compiler.reference.train does."""

    def __init__(self, network: Network, train_set, test_set, epochs: int,
                 on_epoch: Callable[[EpochStats], None] | None,
                 resume: TrainingState | None = None, stats: list[str] = (), valid_set=None):
        self.net = network
        self.stat_names = list(stats)
        self.stats: list[dict] = []
        self.t_train = _targets(train_set)
        self.t_valid = _targets(valid_set)
        self.t_test = _targets(test_set)
        self.limit = epochs
        self.on_epoch = on_epoch
        self.history: list[EpochStats] = list(resume.history) if resume else []
        self.rate = resume.rate if resume else 0.0
        # a run a behaviour stopped goes on when resumed
        self.stopped_by = (resume.stopped_by if resume and resume.stopped_by != "behaviour"
                           else "epochs")

    def _figures(self, y: np.ndarray, t: np.ndarray, phase: str) -> tuple[float, float]:
        """Loss and accuracy of a set evaluated by the net of ``phase``, over
        that net's outputs (compiler/phases.py)."""
        sub = of(self.net, phase)
        outs = sub.outputs if sub is not None else None
        return (float(np.mean(pattern_loss(self.net, y, t, outs))),
                float(np.mean(pattern_correct(self.net, y, t, outs))))

    def __call__(self, epoch: int, outputs: np.ndarray | None) -> float:
        if outputs is not None:
            n = len(self.t_train)
            st = EpochStats(epoch - 1, self.rate, *self._figures(outputs[:n], self.t_train,
                                                                 "train"))
            v = n + (0 if self.t_valid is None else len(self.t_valid))
            if self.t_valid is not None:
                st.valid_loss, st.valid_accuracy = self._figures(outputs[n:v], self.t_valid,
                                                                 "valid")
            if self.t_test is not None:
                st.test_loss, st.test_accuracy = self._figures(outputs[v:], self.t_test, "test")
            self.history.append(st)
            if self.stat_names:
                rec = {"epoch": epoch - 1,
                       "train": compute(self.net, self.stat_names, outputs[:n], self.t_train)}
                if self.t_valid is not None:
                    rec["valid"] = compute(self.net, self.stat_names, outputs[n:v], self.t_valid)
                if self.t_test is not None:
                    rec["test"] = compute(self.net, self.stat_names, outputs[v:], self.t_test)
                self.stats.append(rec)
            if self.on_epoch is not None:
                self.on_epoch(st)
        if epoch >= self.limit:
            return 0.0
        self.rate = next_learning_rate(self.net.training.rate, epoch, self.rate,
                                       [h.error for h in self.history])
        if self.rate == 0:
            self.stopped_by = "schedule"
        return self.rate


def run_program(program: Program, config: MachineConfig, train_set: PatternData,
                test_set: PatternData | None = None, *, weights: Weights | None = None,
                epochs: int | None = None, on_epoch=None,
                max_cycles: int = DEFAULT_MAX_CYCLES, sampler=None,
                sample_every: int = 0, resume: TrainingState | None = None,
                stats: list[str] | None = None, stream: bool | None = None,
                stream_block: int | None = None, instrument=None,
                callbacks: dict | None = None, valid_set: PatternData | None = None,
                threads: int = 1) -> TrainResult:
    """Train with an already compiled program (see :func:`train`).
    ``sampler(sim, host)`` is called every ``sample_every`` cycles of the
    machine (:meth:`rapsim.machine.Simulator.run`; a profiler's hook);
    ``instrument(sim)`` once the program is loaded, before the run (to attach
    traces, breakpoints or watchpoints: ``sim.probes``).  ``threads``: host
    threads the machine is split over (:class:`rapsim.machine.Simulator`;
    no result depends on it).

    ``resume``: continue a run from its :class:`TrainingState` (weights,
    momentum, epoch count, pattern-order seed, the schedule's rate and
    errors): the epochs go on from ``resume.epochs_done``, and the result is
    exactly that of one run without the break.  Then ``epochs`` counts the
    epochs to run beyond the saved ones (None: up to the description's
    ``epochs`` in all).

    ``stats``: statistics (rapsim.compiler.stats) to compute after every
    epoch besides the description's own (``network.stats``).

    ``stream``: stream the patterns from host files in blocks of
    ``stream_block`` records (rapsim.compiler.stream) -- True: always;
    None (the default): only when the database does not fit a node's
    memory (the program is then recompiled with streaming passes); False:
    never (a database that does not fit is an error).

    ``callbacks``: host callbacks (rapsim.compiler.behaviours), at hook
    points the program was compiled with (``compile_network(...,
    host_hooks=...)``)."""
    from rapsim.machine import Simulator
    net = program.plan.network
    if config.nodes != program.plan.nodes:
        raise RapError(f"the program was compiled for {program.plan.nodes} nodes, "
                       f"the machine has {config.nodes}")
    t = net.training
    first = resume.epochs_done if resume else 0
    if resume is not None:
        if weights is not None:
            raise RapError("give either weights or a state to resume from, not both")
        limit = t.epochs if epochs is None else first + epochs
        n = len(train_set.inputs)
        if resume.train_patterns and resume.train_patterns != n:
            raise RapError(f"the saved run trained on {resume.train_patterns} patterns, this "
                           f"one has {n}: the pattern order would not go on")
        seed, shuffle = resume.order_seed, resume.shuffle
        weights = resume.weights
    else:
        limit = t.epochs if epochs is None else epochs
        seed, shuffle = t.seed, t.shuffle
    if weights is not None:
        check_weights(net, weights)
    names = list(net.stats) + [s for s in (stats or []) if s not in net.stats]
    unknown = [s for s in names if s not in available()]
    if unknown:
        raise RapError(f"unknown statistic {unknown[0]!r} (there are: {', '.join(available())})")
    short = next(((ph, n) for ph, sub in net.phases.items() for n in net.outputs
                  if n not in sub.outputs), None)
    if names and short is not None:
        raise RapError(f"statistics ({', '.join(names)}) read every output layer, and output "
                       f"layer {short[1]!r} is excluded from the {short[0]} net (exclude): "
                       f"statistics with phases that drop an output are not supported")
    sched = _Schedule(net, train_set, test_set, limit, on_epoch, resume, names, valid_set)
    n_train = len(train_set.inputs)
    n_valid = 0 if sched.t_valid is None else len(sched.t_valid)
    args = (train_set, _evaluation_set(valid_set, test_set), lambda e: pattern_order(n_train, e, seed, shuffle), sched)
    streaming = is_streaming(program)
    framed = program.plan.mapping is not None and program.plan.mapping.schedule == "stream"
    if not streaming:
        if framed:
            from rapsim.compiler.frames import frames_host
            host = frames_host(TrainingHost)(program, *args, first_epoch=first)
        else:
            host = TrainingHost(program, *args, first_epoch=first)
        if stream or (stream is None and not host.fits()):
            if program.plan.eval_plan is not None:
                raise RapError("--eval-mapping keeps the pattern database in the nodes' memory: "
                               + ("it does not fit beside the whole weights" if not stream
                                  else "streamed databases (--stream) are not supported"))
            if framed:
                raise RapError("schedule stream keeps its pattern database in the nodes' "
                               "memory: it does not fit, and streamed databases (--stream) "
                               "run lock-step only")
            if program.plan.mapping is not None:
                require_rows(program.plan.mapping, net, STREAMING)
            program = compile_streaming(net, config.nodes, config.memory,
                                        host_hooks=program.plan.host_hooks)
            streaming = True
    folder = tempfile.TemporaryDirectory(prefix="rap-stream-") if streaming else None
    try:
        if streaming:
            host = StreamingHost(program, *args, first_epoch=first, folder=folder.name,
                                 block=stream_block or DEFAULT_BLOCK)
        sim = Simulator(config, argv=["train"], root=folder.name if streaming else ".",
                        threads=threads)
        sim.load(program.image)
        host.valid_patterns = n_valid
        host.load(sim)
        hooks = _hook_host(program, callbacks, host, sim)
        host.write_weights(sim, weights or initial_weights(net),
                           resume.momentum if resume is not None else None)
        if instrument is not None:
            instrument(sim)
        t0 = time.perf_counter()
        try:
            res = sim.run(max_cycles=max_cycles, sample_every=sample_every,
                          sampler=None if sampler is None else (lambda s: sampler(s, host)))
        finally:
            sim.daemon.close_all()
        host_seconds = time.perf_counter() - t0
        if not res.ok or res.exit_status:
            raise TrainingFailed("the simulated RAP stopped before training finished: "
                                 + "; ".join(res.messages or [f"exit status {res.exit_status}"]))
        if hooks is not None and hooks.stopped is not None:
            if hooks.stopped.event == "after_epoch":    # that epoch's evaluation pass is done
                sched(hooks.stopped_epoch + 1, host.read_outputs(sim))
            sched.stopped_by = "behaviour"
        outputs = (host.read_outputs(sim) if host.evaluated       # (a stream's: in its files)
                   else np.zeros((0, program.plan.target_words)))
    finally:
        if folder is not None:
            folder.cleanup()
    perf = performance(host.marks, config.nodes, net.connections(), config.clock_hz,
                       config.hostcall_cycles, n_train, host.eval_patterns)
    final = host.read_weights(sim)
    mapping = program.plan.mapping.to_dict() if program.plan.mapping is not None else {}
    if program.plan.eval_plan is not None:      # compiler/evalmap.py
        from rapsim.compiler.evalmap import name_of
        mapping["eval_mapping"] = name_of(program.plan)
    state = TrainingState(final, host.read_momentum(sim), len(sched.history), seed, shuffle,
                          sched.rate, list(sched.history), sched.stopped_by, n_train)
    frames = {}
    if framed and host.frame_outputs is not None:
        from rapsim.compiler.frames import accuracy_by_offset
        fo, n_tr = host.frame_outputs, n_train
        frames = {"frames_per_pattern": net.training.frames,
                  "accuracy_by_offset": {"train": accuracy_by_offset(net, fo[:n_tr],
                                                                     _targets(train_set))}}
        if test_set is not None and len(test_set.inputs):
            frames["accuracy_by_offset"]["test"] = accuracy_by_offset(
                net, fo[n_tr + n_valid:], _targets(test_set))
    pipe = {}
    if program.plan.mapping is not None and program.plan.mapping.schedule == "pipeline":
        from rapsim.compiler.pipeline import stage_balance, stages
        pipe = stage_balance(program.plan, host.marks,
                             host.eval_patterns + stages(net).fill)
    return TrainResult(net.name, config, sched.history, sched.stopped_by, final,
                       outputs, n_train, host.eval_patterns - n_train - n_valid, perf, res.cycles,
                       host_seconds, _totals(sim), program.plan.summary(),
                       host.db_region + (f", streamed in blocks of {host.block} records"
                                         if streaming else ""),
                       state, sched.stats, mapping, n_valid, program.plan.overlap,
                       pipe, frames, host.frame_outputs if framed else None,
                       list(program.plan.overlap_report),
                       gather_report=list(program.plan.gather_report),
                       collectives=list(program.plan.collective_report))


def _hook_host(program: Program, callbacks: dict | None, host: TrainingHost, sim):
    """The server of the program's HOOK host calls, or None."""
    from rapsim.compiler.behaviours import SYS_HOOK, HookHost, hook_points
    points = program.plan.host_hooks
    if not callbacks and not points:
        return None
    given = hook_points(callbacks or {}, program.plan.network)
    if set(given) != set(points):
        raise RapError(f"the program was compiled with host hooks at {points}, the callbacks "
                       f"are for {list(given)}: compile with compile_network(..., "
                       f"host_hooks=...) for the same points")
    hooks = HookHost(list(points), given, host)
    sim.daemon.add_service(SYS_HOOK, hooks.serve)
    return hooks


def train(network: Network, train_set: PatternData, test_set: PatternData | None = None, *,
          nodes: int | None = None, config: MachineConfig | None = None,
          weights: Weights | None = None, epochs: int | None = None,
          on_epoch: Callable[[EpochStats], None] | None = None,
          max_cycles: int = DEFAULT_MAX_CYCLES,
          resume: TrainingState | None = None,
          stats: list[str] | None = None, stream: bool | None = None,
          stream_block: int | None = None, callbacks: dict | None = None,
          mapping: str | None = None, batch: int = 1,
          valid_set: PatternData | None = None, overlap: str | None = None,
          schedule: str | None = None, eval_mapping: str | None = None) -> TrainResult:
    """Compile ``network`` for the machine (``config``, or ``nodes`` nodes
    with the default configuration) and train it on-line on ``train_set``
    (rows of ``inputs`` and ``targets``, e.g. a
    :class:`rapsim.compiler.data.PatternSet`), evaluating on the training and
    test sets after every epoch.  ``weights`` default to the reference's
    initial weights, ``epochs`` to ``network.training.epochs``;
    ``on_epoch(stats)`` is called after every epoch; ``resume``, ``stats``, ``stream``,
    ``stream_block``: see :func:`run_program`.  ``callbacks``: host
    callbacks, ``{event or (event, layer): fn(ctx)}``
    (:mod:`rapsim.compiler.behaviours`), each run through a host call that
    stops the nodes at its point (its simulated cost is in the figures).
    ``mapping`` (a preset name: rows, data, ...) and ``batch`` choose the
    mapping (:func:`rapsim.compiler.mapping.resolve`; default: the
    description's); ``overlap`` the overlapped collectives
    (:mod:`rapsim.compiler.overlap`; default: the description's); ``schedule``
    its schedule (lockstep, pipeline, stream:
    :func:`rapsim.compiler.pipeline.apply_schedule`; default: the
    description's); ``eval_mapping`` the evaluation pass's own mapping
    (:mod:`rapsim.compiler.evalmap`; default: the training mapping's)."""
    from rapsim.compiler.behaviours import hook_points
    config = config or MachineConfig(nodes=nodes or 1)
    points = list(hook_points(callbacks or {}, network))
    program = compile_network(network, config.nodes, config.memory, host_hooks=points,
                              mapping=scheduled_mapping(network, config.nodes, mapping, batch,
                                                        schedule),
                              overlap=overlap, eval_mapping=eval_mapping)
    return run_program(program, config, train_set, test_set, weights=weights, epochs=epochs,
                       on_epoch=on_epoch, max_cycles=max_cycles, resume=resume,
                       stats=stats, stream=stream, stream_block=stream_block,
                       callbacks=callbacks, valid_set=valid_set)


def scheduled_mapping(network: Network, nodes: int, mapping: str | None = None,
                      batch: int = 1, schedule: str | None = None):
    """The mapping of a preset (or the description's) with its schedule
    (:func:`rapsim.compiler.mapping.resolve`,
    :func:`rapsim.compiler.pipeline.apply_schedule`)."""
    from rapsim.compiler.mapping import resolve
    from rapsim.compiler.pipeline import apply_schedule
    return apply_schedule(network, resolve(network, nodes, mapping, batch), schedule)


@dataclass
class _Random:
    inputs: np.ndarray
    targets: np.ndarray


def random_patterns(network: Network, count: int, seed: int = 0) -> _Random:
    """``count`` patterns of uniform random inputs in [0, 1) (0 or 1 with
    equal chances in binary layers) and one-hot targets (one unit per
    output layer), for performance runs."""
    from .data import MAX_PATTERN_BYTES
    words = sum(network.layers[n].size for n in network.inputs)
    width = words + sum(network.layers[n].size for n in network.outputs)
    if count * width * 8 > MAX_PATTERN_BYTES:
        raise RapError(f"{count} random patterns of {width} values need {count * width * 8} "
                       f"bytes, more than a pattern set may hold ({MAX_PATTERN_BYTES}); "
                       "ask for fewer patterns")
    rng = np.random.default_rng(seed)
    targets = []
    for name in network.outputs:
        size = network.layers[name].size
        t = np.zeros((count, size))
        t[np.arange(count), rng.integers(0, size, count)] = 1.0
        targets.append(t)
    inputs = rng.random((count, words))
    col = 0
    for name in network.inputs:             # binary layers: units on with probability 1/2
        size = network.layers[name].size
        if network.layers[name].kind == "binary":
            inputs[:, col:col + size] = inputs[:, col:col + size] < 0.5
        col += size
    return _Random(inputs, np.concatenate(targets, axis=1))


def measurement_network(network: Network) -> Network:
    """``network`` as :func:`measure` runs it: one epoch at a constant
    learning rate (0.01)."""
    return replace(network, training=replace(network.training,
                                             rate=Schedule("constant", {"rate": 0.01}), epochs=1))


def measure(network: Network, config: MachineConfig, *, train_patterns: int = 16,
            test_patterns: int = 16, seed: int = 0,
            program: Program | None = None, sampler=None,
            sample_every: int = 0, instrument=None, mapping: str | None = None,
            batch: int = 1, overlap: str | None = None,
            schedule: str | None = None, threads: int = 1,
            callbacks: dict | None = None,
            eval_mapping: str | None = None) -> TrainResult:
    """One epoch of ``train_patterns`` random patterns and an evaluation pass
    over them and ``test_patterns`` more, at a constant learning rate: the
    MCPS and MCUPS of ``network`` on ``config`` (``result.performance``).
    ``program``: ``measurement_network(network)`` already compiled for
    ``config`` (several measurements of one point then compile once);
    ``sampler``, ``sample_every``, ``instrument``: see :func:`run_program`;
    ``mapping``, ``batch``, ``overlap``, ``schedule``, ``eval_mapping``: see
    :func:`train`; ``threads``, ``callbacks``: see :func:`run_program`
    (``callbacks``: the host callbacks of a ``program`` compiled with host
    hooks)."""
    net = measurement_network(network)
    if program is None:
        program = compile_network(net, config.nodes, config.memory,
                                  mapping=scheduled_mapping(net, config.nodes, mapping, batch,
                                                            schedule),
                                  overlap=overlap, eval_mapping=eval_mapping)
    data = random_patterns(net, train_patterns + test_patterns, seed)
    tr = _Random(data.inputs[:train_patterns], data.targets[:train_patterns])
    te = _Random(data.inputs[train_patterns:], data.targets[train_patterns:])
    return run_program(program, config, tr, te, epochs=1, sampler=sampler,
                       sample_every=sample_every, instrument=instrument, threads=threads,
                       callbacks=callbacks)
