"""Behaviours with the host's run features: host callbacks and assembly
routines over a streamed database (the pattern's row carried by the
streamed record), callbacks in a resumed run (the run's epochs) and a run a
callback stopped saved and resumed, the Param table (lists, a parameter
file) read by callbacks."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.checkpoint import load_state, save_state
from rapsim.compiler.params import read_params_file
from rapsim.compiler.parser import parse_file, parse_text
from rapsim.compiler.reference import pattern_order
from rapsim.compiler.stream import compile_streaming
from rapsim.compiler.train import run_program, train
from rapsim.config import MachineConfig

from backend import random_data

NETS = """\
layer x: input 5
layer h: tanh 6 bias
layer g: sigmoid 4 bias
layer y: sigmoid 2 bias
connect x -> h
connect x -> g
connect h -> y
connect g -> y
net main { input x  hidden h, g  output y }
net part { input x  hidden g  output y }
train { rate 0.3  epochs 3  momentum 0.4  seed 4  init_scale 0.6  alternate pattern }
"""


def _log_patterns(log):
    return {("after_backward", "part"): lambda ctx: log.append((ctx.epoch, ctx.pattern, ctx.net)),
            ("after_backward", "main"): lambda ctx: log.append((ctx.epoch, ctx.pattern, ctx.net))}


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_callbacks_over_a_streamed_database(nodes):
    """The same patterns, nets and weights whether the database is in node
    memory or streamed in blocks of 3 records."""
    network = parse_text(NETS, "t.net")
    data = random_data(network, 10, 3)
    mem, st = [], []
    a = train(network, data, nodes=nodes, callbacks=_log_patterns(mem), stream=False)
    b = train(network, data, nodes=nodes, callbacks=_log_patterns(st), stream=True,
              stream_block=3)
    assert "streamed" in b.database and "streamed" not in a.database
    assert mem == st
    want = [(e, int(i), "main" if k % 2 == 0 else "part")
            for e in range(3) for k, i in enumerate(pattern_order(10, e, 4))]
    assert mem == want
    assert a.weights.max_difference(b.weights) == 0


ROWSUM = """\
* after_backward: rowsum += AR3 + 1 (AR3: the pattern's row)
        .global _rowsum, rowsum
        .text
_rowsum:
        PUSH    DP
        LDP     rowsum
        LDI     AR3, R0
        ADDI    1, R0
        ADDI    @rowsum, R0
        STI     R0, @rowsum
        POP     DP
        RETS
        .data
rowsum: .word   0
"""


@pytest.mark.parametrize("nodes", [1, 4])
def test_assembly_routine_gets_the_row_when_streamed(nodes, tmp_path):
    (tmp_path / "rowsum.asm").write_text(ROWSUM)
    src = tmp_path / "t.net"
    src.write_text(NETS + 'behaviour after_backward call _rowsum "rowsum.asm"\n')
    network = parse_file(src)
    data = random_data(network, 7, 2)
    sums = []

    def read(ctx):
        sym = ctx.host.program.image.symbols["rowsum"]
        sums.append([int(ctx.sim.read(sym, 1, k)[0]) for k in range(nodes)])
    config = MachineConfig(nodes=nodes)
    for stream in (False, True):
        prog = (compile_streaming if stream else compile_network)(
            network, nodes, host_hooks=[_after_training()])
        run_program(prog, config, data, stream=stream, stream_block=2,
                    callbacks={"after_training": read})
    # every epoch presents every row once: 3 epochs x (1 + ... + 7)
    assert sums[0] == sums[1] == [3 * 28] * nodes


def _after_training():
    from rapsim.compiler.behaviours import HookPoint
    return HookPoint("after_training")


def test_callbacks_of_a_resumed_run_count_its_epochs():
    network = parse_text(NETS.replace("alternate pattern", "alternate epoch"), "t.net")
    data = random_data(network, 6, 1)
    whole, first, rest = [], [], []
    epochs = lambda log: {"after_epoch": lambda ctx: log.append((ctx.epoch, ctx.net))}
    train(network, data, epochs=4, callbacks=epochs(whole))
    half = train(network, data, epochs=2, callbacks=epochs(first))
    train(network, data, epochs=2, resume=half.state, callbacks=epochs(rest))
    assert whole == first + rest
    assert [e for e, _ in rest] == [2, 3] and [n for _, n in whole] == ["main", "part"] * 2


def test_a_stopped_run_saves_and_resumes(tmp_path):
    network = parse_text(NETS, "t.net")
    data = random_data(network, 6, 1)

    def stop(ctx):
        if ctx.epoch == 1:
            ctx.stop()
    r = train(network, data, callbacks={"after_epoch": stop})
    assert r.stopped_by == "behaviour" and len(r.epochs) == 2
    path = tmp_path / "s.npz"
    save_state(path, network, r.state)
    state = load_state(path, network)
    assert state.stopped_by == "behaviour" and state.epochs_done == 2
    # stopped after a whole epoch: resuming gives the run without the stop
    resumed = train(network, data, resume=state)
    whole = train(network, data)
    assert resumed.stopped_by == "epochs" == whole.stopped_by
    assert resumed.weights.max_difference(whole.weights) == 0


def test_callbacks_read_param_lists_and_files(tmp_path):
    src = tmp_path / "t.net"
    src.write_text("param sizes = 3, 5\nparam rates = 0.1, 0.2\n"
                   + NETS.replace("tanh 6", "tanh sizes[1]"))
    pfile = tmp_path / "p.params"
    pfile.write_text("# a parameter file\nsizes = 4, 7\n")
    network = parse_file(src, params=read_params_file(pfile))
    got = []
    train(network, random_data(network, 4, 1), epochs=1,
          callbacks={"before_training": lambda ctx: got.append(ctx.params)})
    assert got == [{"sizes": (4, 7), "rates": (0.1, 0.2)}]
    assert network.layers["h"].size == 7
