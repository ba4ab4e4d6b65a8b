"""What a training run measured: the
simulated time, MCPS, MCUPS, stalls and ring use of the phases between the
program's TRAIN calls (docs/compiler.md, "Measuring MCPS and MCUPS").

* **MCUPS** = connections x training patterns / simulated seconds of the
  training phases (from the return of an epoch's TRAIN(0) call to the
  request of its TRAIN(1) call: every pattern's forward pass, error, backward
  pass and weight update, the output logging and the barrier that ends the
  epoch; the host call itself is not counted).
* **MCPS** = connections x evaluation patterns / simulated seconds of the
  evaluation phases (TRAIN(1) return to the next TRAIN(0) request: forward
  passes only).
* A phase lasts from the first node's start to the last node's end.
* Peak: one multiply-accumulate per cycle per node, N x 16 M/s at 16 MHz;
  a forward connection is one multiply-accumulate, a trained connection
  three (forward, backward, update), so MCUPS is compared with a third of it.

Connections are :meth:`Network.connections` (the weights of all connects;
biases are not counted).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


from rapsim.compiler.codegen import TRAIN_EPOCH, TRAIN_TEST


@dataclass
class Phase:
    """Simulated cost of one kind of phase, summed over its occurrences."""
    cycles: int = 0
    patterns: int = 0
    instructions: int = 0
    stalls: dict = field(default_factory=dict)
    ring_words: int = 0
    node_cycles: int = 0

    def add(self, start: dict, end: dict, hostcall_cycles: int, patterns: int) -> None:
        """Add one phase given each node's marks at its start and end."""
        nodes = sorted(start)
        span = max(end[n].cycle for n in nodes) - min(start[n].cycle + hostcall_cycles
                                                     for n in nodes)
        self.cycles += max(span, 0)
        self.patterns += patterns
        self.node_cycles += len(nodes) * max(span, 0)
        for n in nodes:
            a, b = start[n].counters, end[n].counters
            self.instructions += b["instructions"] - a["instructions"]
            for k in b["stalls"]:
                d = b["stalls"][k] - a["stalls"][k]
                if k == "host_call":
                    d -= hostcall_cycles            # the TRAIN call that opened the phase
                self.stalls[k] = self.stalls.get(k, 0) + d
            self.ring_words += end[n].link_words - start[n].link_words

    def __sub__(self, other: "Phase") -> "Phase":
        """What this phase cost beyond ``other`` (the same phase of a run
        of fewer patterns): the marginal, steady-state cost of the extra
        patterns, without the fixed cost of the phase (the barrier, the
        nodes' staggered start) and without the first patterns' warm-up."""
        return Phase(self.cycles - other.cycles, self.patterns - other.patterns,
                     self.instructions - other.instructions,
                     {k: v - other.stalls.get(k, 0) for k, v in self.stalls.items()},
                     self.ring_words - other.ring_words, self.node_cycles - other.node_cycles)

    def to_dict(self, clock_hz: float) -> dict:
        d = asdict(self)
        d["seconds"] = self.cycles / clock_hz
        d["ring_utilisation"] = self.ring_words / self.node_cycles if self.node_cycles else 0.0
        d["stall_fraction"] = (sum(self.stalls.values()) / self.node_cycles
                               if self.node_cycles else 0.0)
        return d


@dataclass
class Performance:
    """MCPS and MCUPS of a run, with what they were computed from."""
    nodes: int
    connections: int
    clock_hz: float
    train: Phase
    evaluate: Phase

    @property
    def mcups(self) -> float:
        s = self.train.cycles / self.clock_hz
        return self.connections * self.train.patterns / s / 1e6 if s else 0.0

    @property
    def mcps(self) -> float:
        s = self.evaluate.cycles / self.clock_hz
        return self.connections * self.evaluate.patterns / s / 1e6 if s else 0.0

    def __sub__(self, other: "Performance") -> "Performance":
        """The marginal performance of the patterns this run did beyond
        ``other`` (same network and machine, fewer patterns): see
        :meth:`Phase.__sub__`."""
        if (self.nodes, self.connections, self.clock_hz) != (other.nodes, other.connections,
                                                            other.clock_hz):
            raise ValueError("performances of different networks or machines")
        return Performance(self.nodes, self.connections, self.clock_hz,
                           self.train - other.train, self.evaluate - other.evaluate)

    @property
    def peak_mcps(self) -> float:
        return self.nodes * self.clock_hz / 1e6

    def to_dict(self) -> dict:
        return {
            "nodes": self.nodes, "connections": self.connections, "clock_hz": self.clock_hz,
            "mcps": self.mcps, "mcups": self.mcups,
            "peak_mcps": self.peak_mcps,
            "mcps_percent_of_peak": 100 * self.mcps / self.peak_mcps,
            "mcups_percent_of_peak": 100 * 3 * self.mcups / self.peak_mcps,
            "train": self.train.to_dict(self.clock_hz),
            "evaluate": self.evaluate.to_dict(self.clock_hz),
        }


def performance(marks: list, nodes: int, connections: int, clock_hz: float,
                hostcall_cycles: int, train_patterns: int, eval_patterns: int) -> Performance:
    """Phases from the TRAIN-call marks of every node (rapsim.compiler.host)."""
    by = {}
    for m in marks:
        by.setdefault((m.op, m.epoch), {})[m.node] = m
    train, ev = Phase(), Phase()
    epoch = 0
    while (TRAIN_EPOCH, epoch) in by and (TRAIN_TEST, epoch) in by:
        start, mid = by[(TRAIN_EPOCH, epoch)], by[(TRAIN_TEST, epoch)]
        if len(start) == nodes and len(mid) == nodes:
            train.add(start, mid, hostcall_cycles, train_patterns)
            end = by.get((TRAIN_EPOCH, epoch + 1))
            if eval_patterns and end is not None and len(end) == nodes:
                ev.add(mid, end, hostcall_cycles, eval_patterns)
        epoch += 1
    return Performance(nodes, connections, clock_hz, train, ev)
