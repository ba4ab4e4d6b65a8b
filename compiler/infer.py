"""Inference images: a network's forward pass as a stand-alone RAP program
that reads its weights and patterns through the host daemon and writes the
outputs (``rap cc --forward-only``, ``rap infer``, :func:`infer`).

The image is run with three arguments (``rap run NET.out -- WEIGHTS
PATTERNS OUTPUT``; :func:`infer` and ``rap infer`` write the files and
run it):

``WEIGHTS``   the network's weights as C30 words (:func:`weights_file_words`):
              every connect's weights in the reference's layout (full
              connects row-major (dst, src), bus (dst,), sparse (pairs,)) in
              definition order, then every bias in definition order, then the
              index tables of the sparse connects that need them (pairs per
              destination unit, the source unit of every pair, as integers).
              Each node seeks to its own rows of each array and reads them
              (READ_WORDS): no node reads a whole matrix.  A connect from a
              binary layer is each node's rows in turn, column by column
              (as the binary kernels hold them), so its file fits one node
              count.
``PATTERNS``  input records as C30 words, one after the other (the input
              layers side by side, as in training, a binary layer as its
              index list; :func:`inputs_file_words`),
              or ``-``: standard input, in the same format.  Node 0 reads a
              block of up to B records per call (READ_WORDS; from standard
              input it waits for the whole block or the end of the input) and
              passes the block to every node over the ring
              (``_ring_allgather`` with node 0 owning the whole block and its
              word count before it: 0 at the end of the input, negative when
              node 0 could not open or read a file).
``OUTPUT``    written by node 0 (created or truncated): each output layer's
              slices are all-gathered, node 0 appends the output record (the
              output layers side by side, C30 words) to a block and writes it
              every B records (WRITE_WORDS) and at the end.

B is 64 (``compile_inference(..., block=B)``): two host calls per 64
patterns on node 0 instead of several per pattern on every node.

The forward pass is the training program's (rapsim.compiler.codegen): the
same partition, kernels and ring collectives, so outputs equal those of the
evaluation passes of ``rap train`` with the same weights.  The time of the
pattern loop (from the first record's read to the end of the last write,
host calls included) is taken with CLOCK calls and gives MCPS.

Errors of the image (a missing file, a short weights file, an incomplete
record) are a message on standard error and exit status 2.
"""
from __future__ import annotations

import io
import os
import tempfile
import time
from dataclasses import dataclass, replace

import numpy as np

from rapsim.compiler.build import Program, build_program
from rapsim.compiler.codegen import Addr, Imm, Var, _Gen
from rapsim.compiler.host import own_part
from rapsim.compiler.ir import Network
from rapsim.compiler.lower import Plan, lower
from rapsim.compiler.reference import Weights
from rapsim.config import MachineConfig
from rapsim.errors import RapError

__all__ = ["compile_inference", "infer", "InferResult", "InferenceFailed",
           "weights_file_words", "inputs_file_words", "load_inputs", "load_records"]

#: Messages of the image's failures (exit status 2).
MESSAGES = {
    "usage": "usage: IMAGE WEIGHTS PATTERNS|- OUTPUT",
    "no_weights": "cannot open the weights file",
    "bad_weights": "the weights file does not fit this network: its size differs",
    "no_output": "cannot open or write the output file",
    "no_patterns": "cannot open or read the pattern file",
    "partial": "the pattern input ends inside a record",
}

O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC = 0, 1, 0x40, 0x200


class InferenceFailed(RapError):
    """The inference image stopped with an error."""


@dataclass
class WeightArray:
    """One array of the weights file: where it starts (words), its words,
    and the buffer every node reads its part into."""
    buffer: str
    start: int
    words: int
    parts: list[tuple[int, int]]     # per node: (first word in the array, words)
    integer: bool
    values: object                  # weights -> the whole array (flat)


def weight_arrays(plan: Plan) -> list[WeightArray]:
    """The arrays of the weights file, in file order, with each node's part."""
    out: list[WeightArray] = []
    start = 0

    def add(buffer, words, parts, integer, values):
        nonlocal start
        out.append(WeightArray(buffer, start, words, parts, integer, values))
        start += words

    n = plan.nodes
    for cp in (cp for cp in plan.connects if cp.owner is None):     # a shared matrix once
        cols = plan.layers[cp.connect.src].layer.size if cp.kind == "full" else 1
        parts = [(own_part(plan, cp, k).start * cols,
                  (own_part(plan, cp, k).stop - own_part(plan, cp, k).start) * cols)
                 for k in range(n)]
        total = cp.connect.weight_count(plan.network.layers)
        if cp.binary:       # from a binary layer: each node's rows column by column
            values = (lambda w, cp=cp: np.concatenate([
                np.asarray(w.connects[cp.connect.name], np.float64)[own_part(plan, cp, k)].T.ravel()
                for k in range(n)]))
        else:
            values = (lambda w, name=cp.connect.name:
                      np.asarray(w.connects[name], np.float64).ravel())
        add(cp.weights.name, total, parts, False, values)
    for name, lp in plan.layers.items():
        if lp.bias is not None:
            parts = [(lp.split.lo(k), lp.split.rows(k)) for k in range(n)]
            add(lp.bias.name, lp.layer.size, parts, False,
                lambda w, name=name: np.asarray(w.biases[name], np.float64).ravel())
    for cp in plan.connects:
        sp = cp.sparse
        if sp is None or sp.kind != "index":
            continue
        dst = plan.layers[cp.connect.dst]
        pairs = cp.connect.pairs
        cnt = np.bincount(pairs[:, 1], minlength=dst.layer.size)
        add(sp.cnt.name, dst.layer.size, [(dst.split.lo(k), dst.split.rows(k)) for k in range(n)],
            True, lambda w, c=cnt: c)
        add(sp.idx.name, len(pairs), [(sp.lo[k], sp.lo[k + 1] - sp.lo[k]) for k in range(n)],
            True, lambda w, p=pairs: p[:, 0])
    return out


def weights_file_words(plan: Plan, weights: Weights) -> np.ndarray:
    """The weights file of ``plan``'s inference image, as 32-bit words."""
    from rapsim.asm.floatfmt import to_single
    from rapsim.compiler.checkpoint import check_weights
    check_weights(plan.network, weights)
    parts = []
    for a in weight_arrays(plan):
        v = a.values(weights)
        parts.append(np.asarray(v, dtype=np.int64).astype(np.uint32) if a.integer
                     else np.atleast_1d(to_single(v)).astype(np.uint32))
    return np.concatenate(parts) if parts else np.zeros(0, np.uint32)


def inputs_file_words(inputs: np.ndarray, plan: Plan) -> np.ndarray:
    """Input records (patterns, input values) as the image of ``plan``
    (:func:`inference_plan`) reads them: the records as its nodes hold them
    (C30 singles; a binary layer as its index list:
    rapsim.compiler.host.node_records)."""
    from rapsim.compiler.host import node_records
    x = np.asarray(inputs, dtype=np.float64)
    return node_records(plan, x.reshape(len(x), plan.input_words)).ravel()


class _InferGen(_Gen):
    """The forward-only program (module docstring)."""

    def cmp(self, v, reg: str) -> None:
        if isinstance(v, Imm) and -32768 <= v.value <= 32767:
            self.e.ins("CMPI", str(v.value), reg)
        elif isinstance(v, Imm):
            self.e.ins("CMPI", "@" + self.e.const(str(v.value)), reg)
        else:
            self.e.ins("CMPI", "@" + v.sym, reg)

    def argv(self, index: int, reg: str = "AR2") -> None:
        self.e.ins("LDI", "@i_argv", "AR0")
        self.e.ins("LDI", f"*+AR0({index})", reg, comment=f"argv[{index}]")

    def open(self, index: int, flags: int, fail: str) -> None:
        e = self.e
        self.argv(index)
        e.load("AR3", Imm(flags))
        e.ins("LDI", "0", "AR4")
        e.ins("CALL", "_open")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", fail)

    def only_node0(self, skip: str) -> None:
        if self.n > 1:
            first = self.e.pernode("first", [1] + [0] * (self.n - 1))
            self.e.ins("LDI", "@" + first.sym, "R0")
            self.e.branch("Z", skip)

    def read_weights(self) -> None:
        e = self.e
        e.comment("the weights: each node seeks to its parts and reads them")
        self.open(1, O_RDONLY, "no_weights")
        e.ins("STI", "R0", "@i_wfd")
        arrays = weight_arrays(self.p)
        total = sum(a.words for a in arrays)
        e.ins("LDI", "@i_wfd", "AR2")
        e.ins("LDI", "0", "AR3")
        e.ins("LDI", "2", "AR4", comment="SEEK_END: the file's size")
        e.ins("CALL", "_lseek")
        self.cmp(Imm(4 * total), "R0")
        e.branch("NE", "bad_weights")
        for a in arrays:
            if not any(w for _, w in a.parts):
                continue
            off = e.pernode(f"woff_{a.buffer}",
                            [4 * (a.start + first) for first, _ in a.parts])
            count = e.pernode(f"wcnt_{a.buffer}", [w for _, w in a.parts])
            e.ins("LDI", "@i_wfd", "AR2")
            e.load("AR3", off)
            e.ins("LDI", "0", "AR4", comment="SEEK_SET")
            e.ins("CALL", "_lseek", comment=f"to this node's part of {a.buffer}")
            e.ins("CMPI", "0", "R0")
            e.branch("LT", "bad_weights")
            e.ins("LDI", "@i_wfd", "AR2")
            e.load("AR3", Addr(a.buffer))
            e.load("AR4", count)
            e.ins("CALL", "_read_words")
            self.cmp(count, "R0")
            e.branch("NE", "bad_weights")
        e.ins("LDI", "@i_wfd", "AR2")
        e.ins("CALL", "_close")

    def __init__(self, plan: Plan, block: int, long_branches: bool = False, net=None):
        super().__init__(plan, long_branches)
        self.block = block
        #: the sub-net whose forward pass the image runs (None: the main net)
        self.net = net
        #: each output layer's place in the output record, and its words
        self.out_offset, self.out_words = output_record(plan, net)

    def open_files(self) -> None:
        e = self.e
        e.comment("node 0: the output file (created) and the patterns ('-': standard input);")
        e.comment("a failure leaves a negative descriptor, reported with the first record on")
        e.comment("every node (node 0 alone stopping would leave the others waiting)")
        self.only_node0("opened")
        self.open(3, O_WRONLY | O_CREAT | O_TRUNC, "ofd")
        e.label("ofd")
        e.ins("STI", "R0", "@i_ofd")
        self.argv(2)
        e.ins("LDI", "*AR2", "R0")
        e.ins("CMPI", str(ord("-")), "R0")
        e.branch("NE", "popen")
        e.ins("LDI", "*+AR2(1)", "R0")
        e.branch("NZ", "popen")
        e.ins("BR", "pfd", comment="fd 0: standard input")
        e.label("popen")
        self.open(2, O_RDONLY, "pfd")
        e.label("pfd")
        e.ins("STI", "R0", "@i_pfd")
        e.load("R0", Addr("i_oblk"))
        e.ins("STI", "R0", "@i_optr")
        e.label("opened")

    def imm(self, value: int) -> str:
        return str(value) if -32768 <= value <= 32767 else "@" + self.e.const(str(value))

    def read_record(self) -> None:
        """The next record: when the block is used up, node 0 reads the next
        one and every node gets it over the ring, with its word count first
        (0: the end of the input; negative: node 0 could not open or read a
        file); then the record is the block's next ``record_words`` words
        (a binary layer's index list: ``lower.record_words``)."""
        e, w = self.e, self.p.record_words
        e.ins("LDI", "@i_inleft", "R0")
        e.branch("NZ", "have")
        self.only_node0("shared")
        e.ins("LDI", "-4", "R1", comment="-4: no output file")
        e.ins("LDI", "@i_ofd", "R0")
        e.branch("LT", "flag")
        e.ins("LDI", "-2", "R1", comment="-2: no pattern file")
        e.ins("LDI", "@i_pfd", "R0")
        e.branch("LT", "flag")
        e.ins("LDI", "@i_pfd", "AR2")
        e.load("AR3", Addr("i_in", 1))
        e.load("AR4", Imm(self.block * w))
        e.ins("CALL", "_read_words", comment=f"a block of up to {self.block} records")
        e.ins("LDI", "R0", "R1", comment="words read (-1: a read error)")
        e.label("flag")
        e.load("AR0", Addr("i_in"))
        e.ins("STI", "R1", "*AR0")
        e.label("shared")
        if self.n > 1:
            e.call("_ring_allgather", [Addr("i_in"), Addr("i_inoff")],
                   comment="node 0's block to every node")
        e.load("AR0", Addr("i_in"))
        e.ins("LDI", "*AR0", "R0")
        e.branch("Z", "end")
        e.branch("GT", "block")
        e.ins("CMPI", "-4", "R0")
        e.branch("EQ", "no_output")
        e.ins("BR", "no_patterns")
        e.label("block")
        e.ins("STI", "R0", "@i_inleft")
        e.load("R1", Addr("i_in", 1))
        e.ins("STI", "R1", "@i_inptr")
        e.label("have")
        e.ins("LDI", "@i_inleft", "R0")
        e.ins("CMPI", self.imm(w), "R0")
        e.branch("LT", "partial")
        e.ins("SUBI", self.imm(w), "R0")
        e.ins("STI", "R0", "@i_inleft")
        e.ins("LDI", "@i_inptr", "R0")
        e.ins("STI", "R0", "@hv_db_in", comment="the record, where it is in the block")
        e.ins("ADDI", self.imm(w), "R0")
        e.ins("STI", "R0", "@i_inptr")

    def write_outputs(self) -> None:
        """Every output layer's whole vector to node 0 (all-gathered), which
        appends the output record to its output block and writes the block
        when it is full."""
        e, p = self.e, self.p
        for name, at in self.out_offset.items():
            lp = p.layers[name]
            src = self.act_own(lp)
            if self.n > 1:
                dst = e.pernode(f"oown_{name}", [f"i_out+{at + lp.split.lo(k)}"
                                                 for k in range(self.n)])
                e.call("_vcopy", [dst, src, self.rows(lp)], comment=f"own slice of {name}")
                e.call("_ring_allgather", [Addr("i_out", at), self.off_table(lp)],
                       comment=f"{name} whole to every node")
                src = Addr("i_out", at)
        self.only_node0("written")
        for name, at in self.out_offset.items():
            lp = p.layers[name]
            src = Addr("i_out", at) if self.n > 1 else self.act_own(lp)
            e.ins("LDI", "@i_optr", "AR2")
            if at:
                e.ins("ADDI", self.imm(at), "AR2")
            e.load("AR3", src)
            e.load("AR4", Imm(lp.layer.size))
            e.ins("CALL", "_vcopy", comment=f"{name} into the output block")
        e.ins("LDI", "@i_optr", "R0")
        e.ins("ADDI", self.imm(self.out_words), "R0")
        e.ins("STI", "R0", "@i_optr")
        e.ins("LDI", "@i_ocount", "R0")
        e.ins("ADDI", "1", "R0")
        e.ins("STI", "R0", "@i_ocount")
        e.ins("CMPI", self.imm(self.block), "R0")
        e.branch("LT", "written")
        self.flush()
        e.label("written")

    def flush(self) -> None:
        """Node 0: write the output block's records and empty it."""
        e = self.e
        e.ins("LDI", "@i_ocount", "R0")
        e.load("R1", Imm(self.out_words))
        e.ins("MPYI", "R1", "R0")
        e.ins("LDI", "R0", "AR4")
        e.ins("LDI", "@i_ofd", "AR2")
        e.load("AR3", Addr("i_oblk"))
        e.ins("CALL", "_write_words", comment="the output block")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", "no_output")
        e.load("R0", Addr("i_oblk"))
        e.ins("STI", "R0", "@i_optr")
        e.ins("LDI", "0", "R0")
        e.ins("STI", "R0", "@i_ocount")

    def program(self) -> str:
        e = self.e
        self.prologue(("        STI     AR2, @i_argc", "        STI     AR3, @i_argv"))
        e.ins("LDI", "@i_argc", "R0")
        e.ins("CMPI", "4", "R0")
        e.branch("LT", "usage")
        self.read_weights()
        self.open_files()
        e.ins("CALL", "_clock")
        e.ins("STI", "R0", "@i_t0")
        e.ins("STI", "R1", "@i_t0h")
        e.ins("LDI", "0", "R5", comment="R5: patterns done")
        e.label("record")
        self.read_record()
        self.load_inputs()
        self.sub = self.net             # the net that infers (forward orders, connects)
        self.forward()
        self.sub = None
        self.write_outputs()
        e.ins("ADDI", "1", "R5")
        e.ins("BR", "record")
        e.label("end")
        self.only_node0("flushed")
        e.ins("LDI", "@i_ocount", "R0")
        e.branch("Z", "closed")
        self.flush()
        e.label("closed")
        e.ins("LDI", "@i_ofd", "AR2")
        e.ins("CALL", "_close")
        e.label("flushed")
        e.ins("CALL", "_clock")
        e.ins("STI", "R0", "@i_t1")
        e.ins("STI", "R1", "@i_t1h")
        e.ins("STI", "R5", "@i_count")
        e.ins("LDI", "0", "R0")
        e.ins("RETS")
        for label, text in MESSAGES.items():
            e.label(label)
            e.ins("LDI", "@" + e.const(f"m_{label}"), "AR3")
            e.ins("LDI", f"m_{label}_end-m_{label}", "AR4")
            e.ins("BR", "fail")
            e.data += [f"m_{label}:", f'        .string "{text}", 10', f"m_{label}_end:"]
        w, t = self.block * self.p.record_words + 1, self.out_words
        e.data += ["i_inoff:", "        .word   " + ", ".join(["0"] + [str(w)] * self.n)]
        self.failures()
        bufs = [("i_in", w), ("i_out", t), ("i_oblk", self.block * t)]
        return self.assemble_text() + "".join(
            f'{name} .usect ".wsram", {words}\n        .global {name}\n' for name, words in bufs)

    def page_vars(self) -> list[str]:
        names = ("i_argc", "i_argv", "i_wfd", "i_pfd", "i_ofd", "i_t0", "i_t0h", "i_t1",
                 "i_t1h", "i_count", "i_inptr", "i_inleft", "i_optr", "i_ocount")
        return [f"{n}: .word 0" for n in names] + ["        .global " + ", ".join(names)]


def inference_plan(network: Network, nodes: int, memory=None) -> Plan:
    """The forward pass's partition and layout: the training program's,
    without momentum buffers."""
    net = replace(network, training=replace(network.training, momentum=0.0))
    return lower(net, nodes, memory)


#: Records per block of the patterns read and the outputs written by node 0.
DEFAULT_BLOCK = 64


def select_net(network: Network, net: str | None):
    """The sub-net named ``net`` (None, or the main net's name: None, the
    main net); a RapError names an unknown net and the nets there are."""
    if net is None or net == network.name:
        return None
    for s in network.nets:
        if s.name == net:
            return s
    names = ", ".join([network.name] + [s.name for s in network.nets])
    raise RapError(f"network {network.name!r} has no net {net!r} (its nets: {names})")


def output_record(plan: Plan, sub=None) -> tuple[dict[str, int], int]:
    """The output layers of the net that infers (``sub``: a sub-net, None:
    the main net) with their places in an output record, and its words."""
    names = plan.outputs if sub is None else sub.outputs
    at, out = 0, {}
    for name in names:
        out[name] = at
        at += plan.layers[name].layer.size
    return out, at


def compile_inference(network: Network, nodes: int, memory=None,
                      block: int = DEFAULT_BLOCK, net: str | None = None) -> Program:
    """Lower, generate, assemble and link ``network``'s inference image
    (node 0 reads ``block`` records a call and writes ``block`` output
    records a call).  ``net``: the net whose forward pass the image runs
    (a sub-net's name; None: the main net)."""
    if block < 1:
        raise ValueError(f"a block holds at least 1 record, not {block}")
    from rapsim.compiler.mapping import require_rows, resolve
    require_rows(resolve(network, nodes), network, "the inference image (--forward-only, rap infer)")
    if network.schedule not in (None, "lockstep"):
        from rapsim.compiler.mapping import MappingError
        raise MappingError(f"the inference image (--forward-only, rap infer) runs lock-step "
                           f"only, not schedule {network.schedule}", network.schedule_loc)
    from rapsim.compiler.phases import refuse
    refuse(network, "the training program only, not the inference image (--forward-only, "
                    "rap infer)")
    sub = select_net(network, net)
    plan = inference_plan(network, nodes, memory)
    prog = build_program(plan, lambda long_branches: _InferGen(plan, block, long_branches,
                                                               sub).program())
    prog.infers = sub
    return prog


def output_names(network: Network, net: str | None = None) -> list[str]:
    """The output layers of the net that infers, in the output record's order."""
    sub = select_net(network, net)
    return list(network.outputs if sub is None else sub.outputs)


@dataclass
class InferResult:
    """The outputs of an inference run and its speed."""
    outputs: np.ndarray          # (patterns, output units)
    patterns: int
    cycles: int                  # the pattern loop, first node's start to last node's end
    run_cycles: int              # the whole run (weights loading included)
    clock_hz: float
    connections: int
    nodes: int
    host_seconds: float

    @property
    def seconds(self) -> float:
        return self.cycles / self.clock_hz

    @property
    def mcps(self) -> float:
        """Connections per second of the pattern loop, in millions."""
        return self.connections * self.patterns / self.seconds / 1e6 if self.cycles else 0.0

    @property
    def mcps_percent_of_peak(self) -> float:
        peak = self.nodes * self.clock_hz / 1e6          # 1 multiply-accumulate per cycle
        return 100.0 * self.mcps / peak

    def to_dict(self) -> dict:
        return {"patterns": self.patterns, "nodes": self.nodes, "cycles": self.cycles,
                "run_cycles": self.run_cycles, "seconds": self.seconds,
                "connections": self.connections, "mcps": self.mcps,
                "mcps_percent_of_peak": self.mcps_percent_of_peak,
                "host_seconds": self.host_seconds}


def _check_inputs(network: Network, plan: Plan, inputs) -> np.ndarray:
    x = np.asarray(inputs, dtype=np.float64)
    if x.ndim == 1 and plan.input_words == len(x):
        x = x.reshape(1, -1)
    if x.ndim != 2 or x.shape[1] != plan.input_words:
        raise RapError(f"the inputs have shape {x.shape}; network {network.name!r} takes rows "
                       f"of {plan.input_words} values")
    if not np.all(np.isfinite(x)) or np.any(np.abs(x) > 3.4e38):
        raise RapError("the inputs hold NaN, infinite values or values beyond the C30's range")
    from rapsim.compiler.data import _binary
    _binary(x, network, lambda i: f"the inputs: pattern {i}")
    return x


def infer(network: Network, weights: Weights, inputs, *, nodes: int | None = None,
          config: MachineConfig | None = None, program: Program | None = None,
          stdin: bool = False, max_cycles: int = 1 << 40,
          net: str | None = None) -> InferResult:
    """Run ``network``'s inference image on ``inputs`` (rows of the input
    layers' values) with ``weights``: the outputs (the output layers side by
    side) and MCPS.  ``stdin``: pass the records on the image's standard
    input instead of a file.  ``program``: a :func:`compile_inference`
    image for ``config``.  ``net``: the net that infers (a sub-net's name;
    None: the main net, or ``program``'s)."""
    from rapsim.machine import Simulator
    config = config or MachineConfig(nodes=nodes or 1)
    if program is None:
        program = compile_inference(network, config.nodes, config.memory, net=net)
    elif net is not None and select_net(network, net) is not program.infers:
        raise RapError(f"the image was compiled for another net than {net!r}")
    plan = program.plan
    out_words = output_record(plan, program.infers)[1]
    if plan.nodes != config.nodes:
        raise RapError(f"the image was compiled for {plan.nodes} nodes, the machine has "
                       f"{config.nodes}")
    x = _check_inputs(network, plan, inputs)
    wwords = weights_file_words(plan, weights)
    xwords = inputs_file_words(x, plan).astype("<u4").tobytes()
    errors: list[bytes] = []
    with tempfile.TemporaryDirectory(prefix="rap-infer-") as d:
        with open(os.path.join(d, "weights.bin"), "wb") as fh:
            fh.write(wwords.astype("<u4").tobytes())
        if not stdin:
            with open(os.path.join(d, "inputs.bin"), "wb") as fh:
                fh.write(xwords)
        sim = Simulator(config, root=d,
                        argv=["infer", "weights.bin", "-" if stdin else "inputs.bin",
                              "outputs.bin"],
                        output=lambda node, fd, data: errors.append(data) if fd == 2 else None,
                        stdin=io.BytesIO(xwords) if stdin else None)
        sim.load(program.image)
        t = time.perf_counter()
        try:
            res = sim.run(max_cycles=max_cycles)
        finally:
            sim.daemon.close_all()
        host_seconds = time.perf_counter() - t
        if not res.ok or res.exit_status:
            why = b"".join(errors).decode(errors="replace").strip()
            raise InferenceFailed("the inference image stopped: " + (
                why or "; ".join(res.messages or [f"exit status {res.exit_status}"])))
        with open(os.path.join(d, "outputs.bin"), "rb") as fh:
            raw = np.frombuffer(fh.read(), dtype="<u4")
    from rapsim.asm.floatfmt import from_single
    sym = program.image.symbols
    counts = {int(sim.read(sym["i_count"], 1, node=k)[0]) for k in range(plan.nodes)}
    if counts != {len(x)} or len(raw) != len(x) * out_words:
        raise InferenceFailed(f"the image processed {sorted(counts)} patterns of {len(x)} and "
                              f"wrote {len(raw)} words")

    def clock(name: str, k: int) -> int:
        lo, hi = sim.read(sym[name], 1, node=k)[0], sim.read(sym[name + "h"], 1, node=k)[0]
        return int(hi) << 32 | int(lo)
    t0 = min(clock("i_t0", k) for k in range(plan.nodes))
    t1 = max(clock("i_t1", k) for k in range(plan.nodes))
    outputs = from_single(raw).reshape(len(x), out_words)
    return InferResult(outputs, len(x), t1 - t0, res.cycles, config.clock_hz,
                       _connections(network, program.infers), plan.nodes, host_seconds)


def _connections(network: Network, sub) -> int:
    """The connections of the net that infers (its MCPS counts those)."""
    if sub is None:
        return network.connections()
    return sum(network.connects[i].weight_count(network.layers) for i in sub.connects)


def load_inputs(path, network: Network) -> np.ndarray:
    """Input records for inference from a file: a pattern file as
    ``rap train`` reads it (its targets are ignored; a test set in a .npz is
    appended), or inputs alone -- a ``.npy`` of (patterns, input values), a
    ``.npz`` with ``inputs`` (or ``x``), or text, one record of input values
    a line (``#`` comments).  Errors name the file (and line)."""
    return load_records(path, network)[0]


def load_records(path, network: Network) -> tuple[np.ndarray, np.ndarray | None]:
    """Like :func:`load_inputs`, with the targets of a pattern file (None
    for a file of inputs alone)."""
    from rapsim.compiler.data import _open_regular, input_size, load_patterns
    path = os.fspath(path)
    words = input_size(network)
    if not os.path.exists(path):
        raise RapError(f"{path}: no such file")
    if os.path.isdir(path):
        raise RapError(f"{path}: is a folder, not a pattern file")
    suffix = os.path.splitext(path)[1].lower()
    try:
        db = load_patterns(path, network)
        x, t = db.train.inputs, db.train.targets
        if db.test is not None:
            x = np.concatenate([x, db.test.inputs])
            t = np.concatenate([t, db.test.targets])
        return x, t
    except RapError as e:
        first_error = e
    with _open_regular(path) as fh:
        if suffix in (".npy", ".npz"):
            z = _load_numpy_inputs(fh, path, suffix, first_error)
            if z.ndim != 2 or z.shape[1] != words or z.dtype.kind not in "fiub":
                raise RapError(f"{path}: expected numbers as rows of {words} input values, got "
                               f"{z.dtype} of shape {z.shape}")
            x = z.astype(np.float64)
            _check_values(path, x)
            return x, None
        text = fh.read().decode("utf-8-sig", errors="replace")
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            row = [float(v) for v in text.split()]
        except ValueError:
            raise first_error from None
        if len(row) != words:
            raise first_error
        rows.append(row)
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), words)
    _check_values(path, x)
    return x, None


def _load_numpy_inputs(fh, path: str, suffix: str, first_error: RapError) -> np.ndarray:
    """The inputs of a ``.npy`` (the array) or ``.npz`` (``inputs`` or
    ``x``) opened at ``fh``; the array's header is checked (numeric dtype, a
    shape the file's bytes hold) before numpy allocates it."""
    import zipfile

    from rapsim.compiler.data import MAX_PATTERN_BYTES, _NP_ERRORS, _np_load, _npy_header
    if suffix == ".npy":
        _npy_header(fh, path, None, os.fstat(fh.fileno()).st_size)
        z = _np_load(fh, path)
        if not isinstance(z, np.ndarray):
            raise RapError(f"{path}: is a .npz archive, not a .npy array: name it .npz")
        return z
    try:
        with zipfile.ZipFile(fh) as zf:
            names = {n[:-4]: zf.getinfo(n) for n in zf.namelist() if n.endswith(".npy")}
            key = next((k for k in ("inputs", "x") if k in names), None)
            if key is None:
                raise first_error
            if names[key].file_size > MAX_PATTERN_BYTES:
                raise RapError(f"{path}: array {key!r} unpacks to more than "
                               f"{MAX_PATTERN_BYTES} bytes")
            with zf.open(names[key]) as member:
                _npy_header(member, path, f"array {key!r}", names[key].file_size)
            with zf.open(names[key]) as member:
                return np.lib.format.read_array(member, allow_pickle=False)
    except RapError:
        raise
    except _NP_ERRORS as e:
        raise RapError(f"{path}: not a readable numpy file ({e})") from None


def _check_values(path: str, x: np.ndarray) -> None:
    bad = ~np.isfinite(x) | (np.abs(np.nan_to_num(x)) > 3.4e38)
    if bad.any():
        i = int(np.argwhere(bad)[0][0])
        raise RapError(f"{path}: pattern {i}: a value is NaN, infinite or beyond the C30's range")
