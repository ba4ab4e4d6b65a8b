"""The training host: what the RAP's UNIX daemon did for a CLONES run.

It has every node's memory mapped (it writes through the
:class:`~rapsim.machine.Simulator`): before the run it writes each node's
rows of the initial weights, zeroed momentum, and the pattern database into
every node's memory; during the run it serves the program's TRAIN host calls
(service 12, docs/syscalls.md):

``TRAIN(0, e)``  before epoch e.  For e > 0 the host first reads the output
                 logs of epoch e-1 from every node (all nodes have passed the
                 barrier that ends it), computes loss and accuracy, and asks
                 the schedule (CLONES' next_learning_rate) for the next rate.
                 It writes the rate and epoch e's pattern order into the
                 calling node's memory and answers the number of patterns
                 (0: training is over; the program returns).
``TRAIN(1, e)``  after epoch e's training patterns: writes the evaluation
                 order (every training record, then every test record) and
                 answers their number; the program logs each node's output
                 slice of each of them.

Each node makes its own calls and gets the same answers (the decision of an
epoch is made once, at the first call, and cached), so nothing depends on the
order in which the simulator runs the nodes.  At every call the host notes the
node's cycle count and counters: the phases between calls give the simulated
time of training and of evaluation, from which :mod:`rapsim.compiler.train`
computes MCUPS and MCPS.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from rapsim.compiler.build import Program
from rapsim.compiler.codegen import SYS_TRAIN, TRAIN_EPOCH, TRAIN_TEST
from rapsim.compiler.lower import STACK_RESERVE, LoweringError, Split
from rapsim.asm.floatfmt import to_single
from rapsim.compiler.reference import Weights, batches
from rapsim.memmap import DRAM_BASE


def own_part(plan, cp, k: int) -> slice:
    """Node k's part of a connect's weights in the reference's layout
    (rows of a full matrix, units of a bus, pairs of a sparse connect; the
    checkerboard: a block, rows and columns)."""
    if cp.block is not None:
        return cp.block_of(k, plan.mapping.grid)
    if cp.columns:          # split by columns: every row, the own source units' columns
        sp = plan.layers[cp.connect.src].split
        return (slice(0, plan.layers[cp.connect.dst].layer.size),
                slice(sp.lo(k), sp.lo(k) + sp.rows(k)))
    if cp.sparse is not None:
        return cp.sparse.own(k)
    sp = plan.layers[cp.connect.dst].split
    return slice(sp.lo(k), sp.lo(k) + sp.rows(k))


class PatternData(Protocol):
    """A pattern database as the nodes see it (e.g.
    :class:`rapsim.compiler.data.PatternSet`): one input record and one
    target record per pattern (all input layers' values, resp. all output
    layers' targets, side by side in the network's order)."""
    inputs: np.ndarray          # (P, input words)
    targets: np.ndarray         # (P, target words)


def _records(p: PatternData | None) -> tuple[np.ndarray, np.ndarray]:
    if p is None:
        return np.zeros((0, 0)), np.zeros((0, 0))
    x = np.asarray(p.inputs, dtype=np.float64)
    t = np.asarray(p.targets, dtype=np.float64)
    return x.reshape(len(x), -1), t.reshape(len(t), -1)


def node_records(plan, inputs: np.ndarray) -> np.ndarray:
    """The input records as the nodes hold them, as 32-bit words, one row
    per pattern: each input layer's values as C30 singles, in the net's
    input order; a binary layer as its index list (the count of active
    units, then their indices, ascending; padded with zeros to
    ``size + 1`` words, ``lower.record_words``)."""
    net = plan.network
    out = np.zeros((len(inputs), plan.record_words), dtype=np.uint32)
    col = 0
    for name in plan.inputs:
        size, at = net.layers[name].size, plan.input_offset[name]
        x = inputs[:, col:col + size]
        if net.layers[name].kind == "binary":
            for i, row in enumerate(x):
                active = np.flatnonzero(row)
                out[i, at] = len(active)
                out[i, at + 1:at + 1 + len(active)] = active
        else:
            out[:, at:at + size] = np.asarray(to_single(x), dtype=np.uint32)
        col += size
    return out


@dataclass
class _Records:
    inputs: np.ndarray
    targets: np.ndarray

    def __len__(self) -> int:
        return len(self.inputs)


@dataclass
class Mark:
    """One TRAIN call of one node: when, and the node's counters then."""
    node: int
    op: int
    epoch: int
    cycle: int
    counters: dict
    link_words: int


@dataclass
class EpochDecision:
    rate: float
    patterns: int
    #: the rate as the C30 single the nodes get (converted once per epoch,
    #: not at each node's call)
    rate_word: np.ndarray | None = None


def _u32(words) -> np.ndarray:
    """Integer words (an order's -1 as 0xFFFFFFFF) as the uint32 array the
    core writes, as :meth:`rapsim.machine.Simulator.write` makes them."""
    return (np.asarray(words, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32)


class TrainingHost:
    """Loads a compiled program's data into a simulator and serves its
    TRAIN calls.

    ``decide(epoch, outputs) -> rate`` is called once per epoch boundary
    (``epoch`` about to run; ``outputs``: those of the evaluation pass after
    the previous epoch, training patterns then test patterns, as
    (patterns, output units); None before the first epoch); 0 stops.
    ``order(epoch) -> indices`` gives the training records of an epoch.
    ``first_epoch``: the number of the program's first epoch for ``decide``
    and ``order`` (a resumed run; the TRAIN calls and :class:`Mark` count
    from 0).
    """

    def __init__(self, program: Program, train: PatternData, test: PatternData | None,
                 order: Callable[[int], np.ndarray],
                 decide: Callable[[int, np.ndarray | None], float], *,
                 first_epoch: int = 0):
        self.program = program
        #: the epoch the program's epoch 0 is (a resumed run continues the
        #: numbering: order and decide see the run's epochs from here on)
        self.first_epoch = first_epoch
        self.evaluated = False
        #: the validation patterns at the start of ``test`` (--valid; the
        #: evaluation pass runs them by the validation net: compiler/phases.py)
        self.valid_patterns = 0
        self.plan = program.plan
        self.train = _Records(*_records(train))
        self.test = _Records(*_records(test)) if test is not None and len(test.inputs) else None
        self.order = order
        self.decide = decide
        self.marks: list[Mark] = []
        self.decisions: dict[int, EpochDecision] = {}
        self.rates: list[float] = []
        self._orders: dict[int, np.ndarray] = {}
        #: the (op, epoch) TRAIN calls whose replies are staged in the core
        self._staged: set[tuple[int, int]] = set()
        plan = self.plan
        if not len(self.train):
            raise ValueError("there are no training patterns")
        if self.train.inputs.shape[1] != plan.input_words:
            raise ValueError(f"input records have {self.train.inputs.shape[1]} values, the "
                             f"network's input layers {plan.input_words}")
        if self.train.targets.shape[1] != plan.target_words:
            raise ValueError(f"target records have {self.train.targets.shape[1]} values, the "
                             f"network's output layers {plan.target_words}")
        if self.test is not None and (self.test.inputs.shape[1] != plan.input_words
                                      or self.test.targets.shape[1] != plan.target_words):
            raise ValueError("the test records do not have the training records' shape")

    # -- the database layout ------------------------------------------------------------
    def _sizes(self) -> dict[str, int]:
        """The words of each part of the database in a node's memory."""
        plan = self.plan
        records = self.eval_patterns
        # the data mapping's order: a node's batches, -1 filling the last one
        batch = plan.mapping.batch if self.by_patterns else 0
        sizes = {"in": records * plan.record_words, "tgt": records * plan.target_words,
                 "order": records + batch}
        ev = plan.eval_plan or plan         # the plan that logs (compiler/evalmap.py)
        for name in plan.outputs:
            sizes["log_" + name] = records * max(ev.layers[name].split.max_rows, 1)
        return sizes

    def fits(self) -> bool:
        """Whether the database fits a node's memory (SRAM or DRAM)."""
        try:
            self._layout()
        except LoweringError:
            return False
        return True

    def _layout(self) -> None:
        plan, sym = self.plan, self.program.image.symbols
        sizes = self._sizes()
        total = sum(sizes.values())
        sram_lo = sym["__SRAM_free"] + STACK_RESERVE + 256
        if sram_lo + total <= sym["__SRAM_end"]:
            base = sym["__SRAM_end"] - total
            self.db_region = "sram"
        else:
            dram_used = [sym[b.name] + b.words for b in plan.buffers if b.region == "dram"]
            base = max(dram_used, default=DRAM_BASE)
            self.db_region = "dram"
            if base + total > DRAM_BASE + plan.memory.dram_words:
                raise LoweringError(f"the pattern database ({total} words per node) does not fit "
                                    "in a node's DRAM")
        self.addr = {}
        for k, n in sizes.items():
            self.addr[k] = base
            base += n

    def load(self, sim) -> None:
        """Write the database, the host variables, and nothing else (weights:
        :meth:`write_weights`)."""
        self._layout()
        sym = self.program.image.symbols
        ins = [self.train.inputs] + ([self.test.inputs] if self.test else [])
        tgs = [self.train.targets] + ([self.test.targets] if self.test else [])
        sim.write(self.addr["in"], node_records(self.plan, np.concatenate(ins)).ravel())
        sim.write_floats(self.addr["tgt"], np.concatenate(tgs).ravel())
        sim.write(sym["hv_db_in"], [self.addr["in"], self.addr["tgt"], self.plan.record_words,
                                    self.plan.target_words, self.addr["order"]])
        if "hv_phase_valid" in sym:         # phases: where the valid and test patterns start
            start = len(self.train)
            sim.write(sym["hv_phase_valid"], [start])
            sim.write(sym["hv_phase_test"], [start + self.valid_patterns])
        self.start_nets(sim)
        sim.daemon.add_service(SYS_TRAIN, self.serve, on_served=self._served)

    def start_nets(self, sim) -> None:
        """Several nets alternating per epoch: the net of the program's
        first epoch is that of the run's epoch ``first_epoch`` (a resumed
        run goes on with the alternation; rapsim.compiler.nets)."""
        from rapsim.compiler.nets import net_of_pattern
        net = self.plan.network
        if net.nets and net.training.alternate == "epoch":
            k = net_of_pattern("epoch", 1 + len(net.nets), self.first_epoch, 0)
            sim.write(self.program.image.symbols["netsel"], [k])

    @property
    def by_patterns(self) -> bool:
        """The data and hybrid mappings: training patterns shared out over
        the nodes in batches (:meth:`_batches`)."""
        return self.plan.grad is not None

    @property
    def by_rounds(self) -> bool:
        """The hybrid mapping: patterns evaluated in rounds of N, pattern
        r N + k on node k (-1: none, in the last round); every node logs
        its slice of every pattern's outputs, as in rows."""
        return self.plan.hybrid

    @property
    def eval_by_patterns(self) -> bool:
        """The evaluation pass's patterns shared out over the nodes, each
        logging its share's whole outputs: the data mapping, or another
        training mapping with --eval-mapping data (compiler/evalmap.py)."""
        return (self.by_patterns and not self.by_rounds) or self.plan.eval_plan is not None

    def _rounds(self, node: int) -> np.ndarray:
        n = self.plan.nodes
        rounds = -(-self.eval_patterns // n)
        order = np.arange(rounds * n).reshape(rounds, n)[:, node]
        return np.where(order < self.eval_patterns, order, -1)

    def _own(self, cp, k: int) -> slice:
        return own_part(self.plan, cp, k)

    def current_row(self, sim, node: int) -> int:
        """The row in the database of the pattern node ``node`` works on."""
        return int(sim.read(self.program.image.symbols["cur"], 1, node)[0])

    def write_weights(self, sim, weights: Weights, momentum: Weights | None = None, *,
                      keep_momentum: bool = False) -> None:
        """Each node's rows of ``weights`` (:class:`~rapsim.compiler.reference.Weights`:
        full connects (dst, src), bus (dst,), sparse (pairs,); biases (size,));
        the momentum terms ``momentum`` in the same layout (None: 0, or
        ``keep_momentum``: as they are, for a behaviour's set_weights); the
        index tables of sparse connects (pairs per own row, source of each
        own pair)."""
        plan, sym = self.plan, self.program.image.symbols
        self._write_rows(sim, weights, lambda cp: cp.weights, lambda lp: lp.bias)
        if momentum is not None:
            self._write_rows(sim, momentum, lambda cp: cp.momentum, lambda lp: lp.bias_m)
        for cp in plan.connects:
            sp = cp.sparse
            if sp is not None and sp.kind == "index":
                pairs, dst = cp.connect.pairs, plan.layers[cp.connect.dst].split
                for k in range(plan.nodes):
                    own = pairs[self._own(cp, k)]
                    cnt = np.bincount(own[:, 1] - dst.lo(k), minlength=dst.rows(k))
                    sim.write(sym[sp.cnt.name], cnt, node=k)
                    sim.write(sym[sp.idx.name], own[:, 0], node=k)
        if momentum is None and not keep_momentum:
            # momentum starts at 0.0 (memory starts at word 0, which is 1.0)
            zero = ([cp.momentum for cp in plan.connects]
                    + [lp.bias_m for lp in plan.layers.values()])
            for buf in (b for b in zero if b is not None):
                sim.write_floats(sym[buf.name], np.zeros(buf.words))

    def _write_rows(self, sim, weights: Weights, cbuf, lbuf) -> None:
        """Each node's rows of ``weights`` into the buffers ``cbuf(connect
        plan)`` and ``lbuf(layer plan)`` (weights and biases, or their
        momentum)."""
        plan, sym = self.plan, self.program.image.symbols
        for cp in (cp for cp in plan.connects if cp.owner is None):
            w = np.asarray(weights.connects[cp.connect.name], dtype=np.float64)
            for k in range(plan.nodes):
                own = w[self._own(cp, k)]
                # from a binary layer: column by column (firmware/binary.asm); split
                # by columns: the own columns as rows of W^T
                sim.write_floats(sym[cbuf(cp).name],
                                 (own.T if cp.binary or cp.columns else own).ravel(), node=k)
        for name, lp in plan.layers.items():
            if lbuf(lp) is not None:
                b = np.asarray(weights.biases[name], dtype=np.float64)
                for k in range(plan.nodes):
                    sim.write_floats(sym[lbuf(lp).name],
                                     b[lp.split.lo(k):lp.split.lo(k) + lp.split.rows(k)], node=k)

    def read_weights(self, sim) -> Weights:
        """The weights and biases now in the nodes, assembled whole (the
        data mapping: node 0's copy; every node holds the same)."""
        return self._read_rows(sim, lambda cp: cp.weights, lambda lp: lp.bias)

    def read_momentum(self, sim) -> Weights | None:
        """The momentum terms now in the nodes (None without momentum), in
        the weights' layout."""
        if not self.plan.momentum:
            return None
        return self._read_rows(sim, lambda cp: cp.momentum, lambda lp: lp.bias_m)

    def _read_rows(self, sim, cbuf, lbuf) -> Weights:
        plan, sym = self.plan, self.program.image.symbols
        out = Weights()
        for cp in (cp for cp in plan.connects if cp.owner is None):   # a shared matrix once
            dst = plan.layers[cp.connect.dst]
            cols = plan.layers[cp.connect.src].layer.size if cp.kind == "full" else 1
            if cp.block is not None or cp.columns:   # a block, or columns as rows of W^T
                w = np.zeros((dst.layer.size, cols))
                for k in range(plan.nodes):
                    r, c = self._own(cp, k)
                    nr, nc = r.stop - r.start, c.stop - c.start
                    part = sim.read_floats(sym[cbuf(cp).name], nr * nc, node=k)
                    w[r, c] = part.reshape(nc, nr).T if cp.columns else part.reshape(nr, nc)
                out.connects[cp.connect.name] = w
                continue
            # a layer held whole (data, a hybrid's lower layers): node 0's copy
            nodes = 1 if dst.split.whole else plan.nodes
            own = [self._own(cp, k) for k in range(nodes)]
            parts = [sim.read_floats(sym[cbuf(cp).name], (o.stop - o.start) * cols, node=k)
                     for k, o in enumerate(own)]
            if cp.binary:                       # stored column by column
                parts = [p.reshape(cols, o.stop - o.start).T.ravel() for p, o in zip(parts, own)]
            w = np.concatenate(parts)
            out.connects[cp.connect.name] = (w.reshape(dst.layer.size, cols)
                                             if cp.kind == "full" else w)
        for name, lp in plan.layers.items():
            if lbuf(lp) is not None:
                out.biases[name] = np.concatenate([
                    sim.read_floats(sym[lbuf(lp).name], lp.split.rows(k), node=k)
                    for k in range(1 if lp.split.whole else plan.nodes)])
        return out

    @property
    def eval_patterns(self) -> int:
        return len(self.train) + (len(self.test) if self.test else 0)

    def read_outputs(self, sim) -> np.ndarray:
        """The outputs of the last evaluation pass, the output layers side by
        side: (training patterns + test patterns, output units)."""
        out = []
        patterns = self.eval_patterns
        if self.eval_by_patterns:           # node k logged its share's whole outputs
            share = Split.even(patterns, self.plan.nodes)
            for name in self.plan.outputs:
                size = self.plan.layers[name].layer.size
                out.append(np.concatenate([
                    sim.read_floats(self.addr["log_" + name], share.rows(k) * size, node=k)
                    .reshape(share.rows(k), size) for k in range(self.plan.nodes)]))
            return np.concatenate(out, axis=1)
        for name in self.plan.outputs:
            sp = self.plan.layers[name].split
            parts = [sim.read_floats(self.addr["log_" + name], patterns * sp.rows(k), node=k)
                     .reshape(patterns, sp.rows(k)) for k in range(self.plan.nodes)]
            out.append(np.concatenate(parts, axis=1))
        return np.concatenate(out, axis=1)

    # -- the service ----------------------------------------------------------------------
    def serve(self, sim, node: int, args: list[int], extra: dict) -> int:
        """A TRAIN call of ``node`` (the daemon's service 12).  The first
        node's call of each (op, epoch) also stages the other nodes' replies
        in the core (:meth:`rapsim.daemon.HostDaemon.stage`): they are the
        same whenever a node asks, so the core serves those calls on the
        nodes' own threads, without stopping the machine (:meth:`_served`
        notes them)."""
        op, epoch = args[0], args[1]
        core = sim.core
        if (op, epoch) in self._staged:     # staged, but the core could not serve it
            core.drop_hostcall(node, SYS_TRAIN, op & 0xFFFFFFFF, epoch & 0xFFFFFFFF)
        self.marks.append(Mark(node, op, epoch, core.cycle(node), core.counters(node),
                               core.link_words(node)))
        result, writes = self._reply(sim, node, op, epoch)
        # the writes go to the core directly (journaled, sim.core): the
        # addresses are the program's own, the words made here
        for addr, words in writes:
            core.write(node, addr, words)
        if (op, epoch) not in self._staged and sim.daemon.stages(SYS_TRAIN):
            self._staged.add((op, epoch))
            for k in range(self.plan.nodes):
                if k != node:
                    sim.daemon.stage(sim, k, SYS_TRAIN, (op, epoch), *self._reply(sim, k, op, epoch))
        return result

    def _served(self, sim, node: int, args: list[int], counters: dict, link_words: int) -> None:
        """A TRAIN call the core served from its staged reply: noted as
        :meth:`serve` notes a call."""
        self.marks.append(Mark(node, args[0], args[1], counters["cycles"], counters, link_words))

    def _reply(self, sim, node: int, op: int, epoch: int) -> tuple[int, list]:
        """The answer of ``node``'s TRAIN(op, epoch): the result and the
        words to write [(address, uint32 words)]."""
        if op == TRAIN_EPOCH:
            d = self.decisions.get(epoch)
            if d is None:
                d = self._decide(sim, epoch)
                self.decisions[epoch] = d
            if not d.patterns:
                return 0, []
            eta = (self._eta, d.rate_word)
            if self.by_patterns:
                batches, order = self._batches(self._order_words(epoch), node)
                return batches, [eta, (self.addr["order"], _u32(order))]
            return d.patterns, [eta, (self.addr["order"], _u32(self._order_words(epoch)))]
        if op == TRAIN_TEST:
            self.evaluated = True
            logs = self._log_words()
            if self.by_rounds:
                order = self._rounds(node)
                return len(order), logs + [(self.addr["order"], _u32(order))]
            if self.eval_by_patterns:
                share = Split.even(self.eval_patterns, self.plan.nodes)
                order = np.arange(share.lo(node), share.lo(node) + share.rows(node))
                return share.rows(node), logs + [(self.addr["order"], _u32(order))]
            return self.eval_patterns, logs + [(self.addr["order"],
                                                _u32(self._eval_order_words()))]
        from rapsim.daemon import DaemonError
        import errno
        raise DaemonError(errno.EINVAL, f"unknown TRAIN operation {op}")

    @property
    def _eta(self) -> int:
        return self.program.image.symbols["hv_eta"]

    def _batches(self, order: np.ndarray, node: int) -> tuple[int, np.ndarray]:
        """The data mapping's share of an epoch for ``node``: the number of
        batches, and its patterns batch after batch, B words a batch (-1:
        none, in a short last batch): the shares of
        :func:`rapsim.compiler.reference.batches`."""
        b = self.plan.mapping.batch
        mine = [np.concatenate([share[node], np.full(b - len(share[node]), -1, dtype=np.int64)])
                for share in batches(np.asarray(order, dtype=np.int64), self.plan.nodes, b)]
        return len(mine), np.concatenate(mine)

    def _order_words(self, epoch: int) -> np.ndarray:
        if epoch not in self._orders:
            o = np.asarray(self.order(self.first_epoch + epoch), dtype=np.int64)
            if sorted(o.tolist()) != list(range(len(self.train))):
                raise ValueError(f"the order of epoch {epoch} is not a permutation of the patterns")
            self._orders = {epoch: o}
        return self._orders[epoch]

    def _eval_order_words(self) -> np.ndarray:
        return np.arange(self.eval_patterns)

    def _log_words(self) -> list:
        """The writes that start an evaluation pass's output logs."""
        sym = self.program.image.symbols
        return [(sym[f"hv_log_{name}"], _u32([self.addr["log_" + name]]))
                for name in self.plan.outputs]

    def _decide(self, sim, epoch: int) -> EpochDecision:
        outputs = self.read_outputs(sim) if epoch > 0 else None
        rate = float(self.decide(self.first_epoch + epoch, outputs))
        if rate > 0:
            self.rates.append(rate)
        return EpochDecision(rate, len(self.train) if rate > 0 else 0,
                             np.asarray(to_single(np.array([rate])), dtype=np.uint32))
