"""Databases larger than a node's memory: the patterns streamed from host
files in blocks, as the RAP read its databases.

By default the host writes the whole pattern database into every node's
memory (rapsim.compiler.host).  When it does not fit (neither at the top of
SRAM nor in DRAM after the weights), or when asked (``rap train --stream``),
the program is compiled with streaming passes instead:

* the host writes each pass's records, in the pass's order, to a file in the
  daemon's root (a temporary folder): ``train.bin`` before every epoch (the
  epoch's shuffled order, rewritten at its TRAIN(0) call), ``eval.bin`` once
  (every training record, then every test record); a record is the input
  values then the targets, C30 words;
* every node opens the pass's file at the start of the pass (OPEN), reads it
  a block of B records at a time (READ_WORDS) into one of two block buffers
  in its memory -- alternately: double-buffered, the block being worked on
  is never the one being read -- and closes it at the end of the pass.  Each
  node reads whole records (the inputs are needed whole by every node; a
  node uses only its slice of the targets).
* the host-call cost of every OPEN, READ_WORDS and CLOSE is counted as for
  any host call (``--hostcall-cycles``).  The simulator's host calls block
  the calling node, so the read of the next block does not overlap the work
  on the current one: the double buffer gives the layout of the real
  machine, not its overlap (a stated limit of the model).

The pattern order table in node memory then holds ``0 .. B-1`` (the record's
place in its block); in an evaluation pass every node writes its log of
each output layer to a host file of its own (``log_LAYER_NODE.bin``) a block
at a time, which the host reads; every
computation is the in-memory program's: the weights and outputs are
identical (tests/cli/test_cli_stream.py).
"""
from __future__ import annotations

import os

import numpy as np

from rapsim.compiler.build import Program, build_program
from rapsim.compiler.codegen import _Gen
from rapsim.compiler.host import TrainingHost
from rapsim.compiler.ir import Network
from rapsim.compiler.lower import lower

__all__ = ["compile_streaming", "StreamingHost", "DEFAULT_BLOCK", "TRAIN_FILE", "EVAL_FILE"]

#: Records per block when none is given.
DEFAULT_BLOCK = 64
TRAIN_FILE, EVAL_FILE = "train.bin", "eval.bin"

#: the variables the host writes for the streaming passes
STREAM_VARS = ("s_buf0", "s_bufsum", "s_blockwords", "s_block")


def log_file(layer: str, node: int) -> str:
    """The host file of node ``node``'s outputs of ``layer`` in an
    evaluation pass."""
    return f"log_{layer}_{node}.bin"


def carries_rows(plan) -> bool:
    """Whether a streamed record ends with its row in the database (one
    word after the targets): for the behaviours' and host callbacks'
    pattern (rapsim.compiler.behaviours), since a streaming node's order
    table holds places in a block, not rows."""
    return bool(plan.network.behaviours or plan.host_hooks)


class _StreamGen(_Gen):
    """The training program with streaming passes (module docstring)."""

    evaluating = False

    def pattern_row(self, reg: str) -> None:
        """The row word after the current record's targets."""
        e = self.e
        e.ins("LDI", "@cur", "R0")
        e.ins("MPYI", "@hv_tgt_stride", "R0")
        e.ins("ADDI", "@hv_db_tgt", "R0")
        t = self.p.target_words
        e.ins("ADDI", str(t) if t <= 32767 else "@" + e.const(str(t)), "R0")
        e.ins("LDI", "R0", "AR0")
        e.ins("LDI", "*AR0", reg, comment="the pattern's row in the database")

    def begin_pass(self, train: bool) -> None:
        e = self.e
        self.evaluating = not train
        if self.evaluating:
            for name in self.p.outputs:
                path = e.pernode(f"logpath_{name}", [f"s_lp_{name}_{k}" for k in range(self.n)])
                e.load("AR2", path)
                e.ins("LDI", str(0x241), "AR3", comment="O_WRONLY | O_CREAT | O_TRUNC")
                e.ins("LDI", "0", "AR4")
                e.ins("CALL", "_open", comment=f"this node's log of {name}: a host file")
                e.ins("CMPI", "0", "R0")
                e.branch("LT", "no_stream")
                e.ins("STI", "R0", f"@s_lfd_{name}")
        path = "s_train_path" if train else "s_eval_path"
        e.ins("LDI", "@" + e.const(path), "AR2", comment="the pass's records: a host file")
        e.ins("LDI", "0", "AR3", comment="O_RDONLY")
        e.ins("LDI", "0", "AR4")
        e.ins("CALL", "_open")
        e.ins("CMPI", "0", "R0")
        e.branch("LT", "no_stream")
        e.ins("STI", "R0", "@s_fd")
        e.ins("LDI", "0", "R0")
        e.ins("STI", "R0", "@s_left", comment="no record in the block yet")
        e.ins("LDI", "@s_buf0", "R0")
        e.ins("STI", "R0", "@s_buf", comment="the first block goes to the other buffer")

    def before_record(self) -> None:
        e = self.e
        lbl = f"s_have{len(e.text)}"
        e.ins("LDI", "@s_left", "R0")
        e.branch("NZ", lbl)
        if self.evaluating:
            self.flush_logs()
        e.ins("LDI", "@s_bufsum", "R1", comment="the other block buffer")
        e.ins("SUBI", "@s_buf", "R1")
        e.ins("STI", "R1", "@s_buf")
        e.ins("STI", "R1", "@hv_db_in", comment="records of the block")
        e.ins("LDI", "R1", "R0")
        w = self.p.record_words
        e.ins("ADDI", str(w) if w <= 32767 else "@" + e.const(str(w)), "R0")
        e.ins("STI", "R0", "@hv_db_tgt", comment="their targets")
        e.ins("LDI", "@s_fd", "AR2")
        e.ins("LDI", "R1", "AR3")
        e.ins("LDI", "@s_blockwords", "AR4")
        e.ins("CALL", "_read_words", comment="the next block of records")
        e.ins("CMPI", "0", "R0")
        e.branch("LE", "no_stream")
        e.ins("LDI", "@s_block", "R0")
        e.ins("STI", "R0", "@s_left")
        e.ins("LDI", "@hv_order", "AR7", comment="records 0 .. B-1 of the block")
        e.label(lbl)
        e.ins("LDI", "@s_left", "R0")
        e.ins("SUBI", "1", "R0")
        e.ins("STI", "R0", "@s_left")

    def end_pass(self) -> None:
        e = self.e
        e.ins("LDI", "@s_fd", "AR2")
        e.ins("CALL", "_close")
        if self.evaluating:
            self.flush_logs()
            for name in self.p.outputs:
                e.ins("LDI", f"@s_lfd_{name}", "AR2")
                e.ins("CALL", "_close")

    def flush_logs(self) -> None:
        """Write the outputs logged since the last flush to the log files
        and start the log blocks again."""
        e = self.e
        for name in self.p.outputs:
            skip = f"s_logged{len(e.text)}"
            e.ins("LDI", f"@hv_log_{name}", "R0")
            e.ins("SUBI", f"@s_logbase_{name}", "R0", comment=f"words of {name} logged")
            e.branch("Z", skip)
            e.ins("LDI", "R0", "AR4")
            e.ins("LDI", f"@s_lfd_{name}", "AR2")
            e.ins("LDI", f"@s_logbase_{name}", "AR3")
            e.ins("CALL", "_write_words", comment=f"the log block of {name}")
            e.ins("CMPI", "0", "R0")
            e.branch("LT", "no_stream")
            e.ins("LDI", f"@s_logbase_{name}", "R0")
            e.ins("STI", "R0", f"@hv_log_{name}")
            e.label(skip)

    def failures(self) -> None:
        e = self.e
        e.label("no_stream")
        e.ins("LDI", "@" + e.const("s_msg"), "AR3")
        e.ins("LDI", "s_msg_end-s_msg", "AR4")
        e.ins("BR", "fail")
        e.data += ["s_msg:", '        .string "cannot read the pattern stream from the host", 10',
                   "s_msg_end:",
                   "s_train_path:", f'        .string "{TRAIN_FILE}", 0',
                   "s_eval_path:", f'        .string "{EVAL_FILE}", 0']
        for name in self.p.outputs:
            for k in range(self.n):
                e.data += [f"s_lp_{name}_{k}:", f'        .string "{log_file(name, k)}", 0']
        super().failures()

    def page_vars(self) -> list[str]:
        logs = tuple(f"s_logbase_{n}" for n in self.p.outputs)
        names = ("s_fd", "s_left", "s_buf") + STREAM_VARS + logs + tuple(
            f"s_lfd_{n}" for n in self.p.outputs)
        return [f"{n}: .word 0" for n in names] + [
            "        .global " + ", ".join(STREAM_VARS + logs)]


#: the construct named when a mapping other than rows meets streaming
STREAMING = "a streamed pattern database (--stream, or one larger than a node's memory)"


def compile_streaming(network: Network, nodes: int, memory=None, host_hooks=()) -> Program:
    """``network``'s training program with streamed pattern passes
    (``host_hooks``: as :func:`rapsim.compiler.build.compile_network`; the
    rows mapping only: another is refused)."""
    from rapsim.compiler.mapping import require_rows, resolve
    require_rows(resolve(network, nodes), network, STREAMING)
    from rapsim.compiler.phases import refuse
    refuse(network, "an in-memory database only, not a streamed one (--stream, or a database "
                    "larger than a node's memory)")
    plan = lower(network, nodes, memory)
    plan.host_hooks = list(host_hooks)
    return build_program(plan, lambda long_branches: _StreamGen(plan, long_branches).program())


def is_streaming(program: Program) -> bool:
    return "s_block" in program.image.symbols


class StreamingHost(TrainingHost):
    """The training host of a streaming program: the records go to files in
    ``folder`` (the daemon's root), blocks of ``block`` records."""

    def __init__(self, *args, folder: str, block: int = DEFAULT_BLOCK, **kw):
        super().__init__(*args, **kw)
        if block < 1:
            raise ValueError(f"a block holds at least 1 record, not {block}")
        self.folder = folder
        self.block = block
        self._file_epoch: int | None = None

    @property
    def record_words(self) -> int:
        """Words of one streamed record: the inputs as the nodes hold them
        (a binary layer's index list: ``plan.record_words``), then the
        targets."""
        return self.plan.record_words + self.plan.target_words + carries_rows(self.plan)

    def _sizes(self) -> dict[str, int]:
        sizes = super()._sizes()
        del sizes["in"], sizes["tgt"]
        sizes["order"] = self.block
        sizes["blk0"] = sizes["blk1"] = self.block * self.record_words
        for name in self.plan.outputs:            # a block of logs, written out
            sizes["log_" + name] = self.block * max(self.plan.layers[name].split.max_rows, 1)
        return sizes

    def _records(self, rows: np.ndarray) -> bytes:
        from rapsim.asm.floatfmt import to_single
        from rapsim.compiler.host import node_records
        ins = [self.train.inputs] + ([self.test.inputs] if self.test else [])
        tgs = np.concatenate([self.train.targets] + ([self.test.targets] if self.test else []))
        x = node_records(self.plan, np.concatenate(ins)[rows])
        t = np.asarray(to_single(tgs[rows]), dtype=np.uint32).reshape(len(rows), -1)
        parts = [x, t] + ([np.asarray(rows, np.uint32).reshape(-1, 1)]
                          if carries_rows(self.plan) else [])
        return np.concatenate(parts, axis=1).astype("<u4").tobytes()

    def _write(self, name: str, data: bytes) -> None:
        tmp = os.path.join(self.folder, name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, os.path.join(self.folder, name))   # open descriptors keep the old one

    def load(self, sim) -> None:
        from rapsim.compiler.lower import LoweringError
        try:
            self._layout()
        except LoweringError:
            raise LoweringError(
                f"the streamed database's two blocks of {self.block} records, its order table "
                f"and the output logs ({sum(self._sizes().values())} words per node) do not fit "
                "a node's memory: use smaller blocks (--stream-block)") from None
        sym = self.program.image.symbols
        self._write(EVAL_FILE, self._records(np.arange(self.eval_patterns)))
        rw = self.record_words
        sim.write(sym["hv_in_stride"], [rw])
        sim.write(sym["hv_tgt_stride"], [rw])
        sim.write(sym["hv_order"], [self.addr["order"]])
        sim.write(self.addr["order"], np.arange(self.block))
        sim.write(sym["s_buf0"], [self.addr["blk0"]])
        sim.write(sym["s_bufsum"], [self.addr["blk0"] + self.addr["blk1"]])
        sim.write(sym["s_blockwords"], [self.block * rw])
        sim.write(sym["s_block"], [self.block])
        for name in self.plan.outputs:
            sim.write(sym[f"s_logbase_{name}"], [self.addr["log_" + name]])
        self.start_nets(sim)
        from rapsim.compiler.codegen import SYS_TRAIN
        sim.daemon.add_service(SYS_TRAIN, self.serve)

    def _order_words(self, epoch: int) -> np.ndarray:
        order = super()._order_words(epoch)
        if self._file_epoch != epoch:
            self._write(TRAIN_FILE, self._records(order))
            self._file_epoch = epoch
        return np.arange(self.block)

    def _eval_order_words(self) -> np.ndarray:
        return np.arange(self.block)

    def current_row(self, sim, node: int) -> int:
        """The row in the database of the pattern node ``node`` works on
        (carried by the streamed record: :func:`carries_rows`)."""
        sym = self.program.image.symbols
        cur, tgt, stride = (int(sim.read(sym[s], 1, node)[0])
                            for s in ("cur", "hv_db_tgt", "hv_tgt_stride"))
        return int(sim.read(tgt + cur * stride + self.plan.target_words, 1, node)[0])

    def read_outputs(self, sim) -> np.ndarray:
        """The last evaluation pass's outputs, from the nodes' log files."""
        from rapsim.asm.floatfmt import from_single
        out, patterns = [], self.eval_patterns
        for name in self.plan.outputs:
            sp = self.plan.layers[name].split
            parts = []
            for k in range(self.plan.nodes):
                raw = np.fromfile(os.path.join(self.folder, log_file(name, k)), dtype="<u4")
                parts.append(from_single(raw).reshape(patterns, sp.rows(k)))
            out.append(np.concatenate(parts, axis=1))
        return np.concatenate(out, axis=1)
