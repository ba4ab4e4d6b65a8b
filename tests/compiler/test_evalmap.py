"""A mapping per pass (compiler/evalmap.py; docs/compiler.md, "A mapping per
pass"): trained by rows or columns, evaluated by the data mapping with the
whole weights all-gathered on the simulated machine.  The training is bit
for bit that of the training mapping alone; the evaluation outputs agree
with the reference of the evaluation pass's summation order, with the
weights the training produced, on 1, 4, 16 and 40 nodes; what is not
supported is refused, naming the option or the description's place."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.evalmap import EvalMappingError, eval_columns
from rapsim.compiler.lower import LoweringError
from rapsim.compiler.mapping import resolve
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model
from rapsim.compiler.train import train
from rapsim.memmap import MemoryConfig

from backend import SOFTMAX, WEIGHT_TOL, XOR, net, random_data
from test_columns import WIDE


def _evaluated(network, nodes, mapping, tr, te):
    alone = train(network, tr, te, nodes=nodes, mapping=mapping)
    both = train(network, tr, te, nodes=nodes, mapping=mapping, eval_mapping="data")
    return alone, both


def _reference_outputs(network, nodes, mapping, weights, tr, te):
    model = Model(network, weights, round_c30=True, c30_activations=True,
                  columns=eval_columns(network, resolve(network, nodes, mapping)))
    return np.stack([model.outputs(x) for x in np.concatenate([tr.inputs, te.inputs])])


@pytest.mark.parametrize("nodes", [1, 4, 16, 40])
def test_columns_trained_data_evaluated(nodes):
    # WIDE: h -> o split by columns; on 40 nodes some nodes hold no output
    # unit, and with 9 evaluation patterns most nodes evaluate none
    network = net(WIDE)
    tr, te = random_data(network, 6, 1), random_data(network, 3, 2)
    alone, both = _evaluated(network, nodes, None, tr, te)
    assert resolve(network, nodes).columns == ("h->o",)
    assert both.mapping["name"] == "columns" and both.mapping["eval_mapping"] == "data"
    assert "eval_mapping" not in alone.mapping
    # training: bit for bit the training mapping's (two epochs: the second
    # trains on after an evaluation pass)
    assert both.weights.max_difference(alone.weights) == 0.0
    assert len(both.epochs) == 2
    y = _reference_outputs(network, nodes, None, both.weights, tr, te)
    assert np.abs(both.outputs - y).max() < WEIGHT_TOL
    assert both.epochs[-1].train_loss == pytest.approx(alone.epochs[-1].train_loss, abs=1e-5)
    if nodes > 1:
        gathered = [r for r in both.collectives if r.get("pass") == "evaluation"]
        assert {r["layer"] for r in gathered} == {"x->h weights", "h->o weights (rows of W^T)",
                                                  "h biases", "o biases"}


@pytest.mark.parametrize("nodes", [1, 4])
def test_rows_trained_data_evaluated(nodes):
    network = net(SOFTMAX)
    tr, te = random_data(network, 7, 3), random_data(network, 2, 4)
    alone, both = _evaluated(network, nodes, "rows", tr, te)
    assert both.weights.max_difference(alone.weights) == 0.0
    y = _reference_outputs(network, nodes, "rows", both.weights, tr, te)
    assert np.abs(both.outputs - y).max() < WEIGHT_TOL


def test_the_evaluation_reads_the_gathered_weights():
    # the whole copies start as whatever memory holds: outputs that match the
    # trained weights' reference come from the all-gather of this pass
    network = net(SOFTMAX)
    tr, te = random_data(network, 5, 5), random_data(network, 2, 6)
    res = train(network, tr, te, nodes=4, mapping="rows", eval_mapping="data", epochs=1)
    y = _reference_outputs(network, 4, "rows", res.weights, tr, te)
    assert np.abs(res.outputs - y).max() < WEIGHT_TOL
    stale = Model(network, round_c30=True, c30_activations=True)      # the initial weights
    y0 = np.stack([stale.outputs(x) for x in np.concatenate([tr.inputs, te.inputs])])
    assert np.abs(res.outputs - y0).max() > 100 * WEIGHT_TOL


def test_the_default_program_is_unchanged():
    network = net(WIDE)
    plain = compile_network(network, 4)
    same = compile_network(network, 4, eval_mapping="same")
    other = compile_network(network, 4, eval_mapping="data")
    assert plain.source == same.source
    assert plain.plan.eval_plan is None and "ev_" not in plain.source
    assert other.plan.eval_plan is not None and "_ring_allgather" in other.source


def test_the_description_word(tmp_path):
    text = WIDE.replace("net w { input x  hidden h  output o }",
                        "net w { input x  hidden h  output o  evaluate data }")
    network = net(text)
    assert network.eval_mapping == "data"
    assert compile_network(network, 4).plan.eval_plan is not None
    # the option wins
    assert compile_network(network, 4, eval_mapping="same").plan.eval_plan is None
    # refused with the description's place
    with pytest.raises(EvalMappingError, match=r"t\.net:\d+:\d+: evaluate data: the training "
                                               r"mapping is data"):
        compile_network(network, 4, mapping=resolve(network, 4, "data"))


@pytest.mark.parametrize("preset,message", [
    ("data", "the training mapping is data"),
    ("hybrid", "the training mapping is hybrid"),
    ("checkerboard", "the training mapping is checkerboard"),
])
def test_training_mappings_refused(preset, message):
    network = net(XOR)
    with pytest.raises(EvalMappingError, match="--eval-mapping data: " + message):
        compile_network(network, 4, mapping=resolve(network, 4, preset), eval_mapping="data")


def test_unknown_eval_mapping():
    with pytest.raises(EvalMappingError, match="'rows' is not supported"):
        compile_network(net(XOR), 2, eval_mapping="rows")


@pytest.mark.parametrize("extra,message", [
    ("connect x -> h2 sparse random(2, 1)", "connect x->h2 is sparse: full connects only"),
    ("connect h -> h2 bus", "connect h->h2 is bus: full connects only"),
])
def test_connects_refused(extra, message):
    src = ("layer x: input 4\nlayer h: sigmoid 4 bias\nlayer h2: sigmoid 4\n"
           "layer y: sigmoid 2\nconnect x -> h\n" + extra + "\nconnect h2 -> y\n"
           "connect h -> y\nnet n { input x  hidden h, h2  output y }\n")
    with pytest.raises(EvalMappingError, match=message):
        compile_network(net(src), 2, eval_mapping="data")


def test_behaviours_refused(tmp_path):
    (tmp_path / "noop.asm").write_text("        .global _noop\n        .text\n_noop:  RETS\n")
    src = tmp_path / "t.net"
    src.write_text(XOR + 'behaviour after_epoch call _noop "noop.asm"\n')
    network = parse_file(src)
    assert network.behaviours
    with pytest.raises(EvalMappingError, match="behaviours are not supported"):
        compile_network(network, 2, eval_mapping="data")


def test_whole_weights_that_do_not_fit():
    # 256 x 256 weights: 65536 words a copy; the SRAM of this machine holds the
    # training program's slices but not the whole copy beside them
    src = ("layer x: input 256\nlayer h: sigmoid 256\nlayer y: sigmoid 4\n"
           "connect x -> h\nconnect h -> y\nnet n { input x  hidden h  output y }\n")
    memory = MemoryConfig(sram_words=48 * 1024, dram_words=0)
    network = net(src)
    compile_network(network, 16, memory)                     # training alone fits
    with pytest.raises(LoweringError, match=r"data evaluation: the whole weights \(66560 "
                                            r"words\) do not fit a node"):
        compile_network(network, 16, memory, eval_mapping="data")


def test_host_callbacks_refused():
    network = net(XOR)
    data = random_data(network, 4, 1)
    with pytest.raises(EvalMappingError, match="host callbacks are not supported"):
        train(network, data, nodes=2, eval_mapping="data",
              callbacks={"after_epoch": lambda ctx: None})


@pytest.mark.parametrize("nodes", [4, 16])
def test_the_cost_model_prices_the_evaluation_mapping(nodes):
    # rap plan's walk (evalmap.price) against the simulated cycles: a forward
    # pattern of the machine in the steady state, and the gather a pass
    from rapsim.compiler.evalmap import price
    from rapsim.compiler.train import measure, measurement_network
    from rapsim.config import MachineConfig
    network = net(WIDE)
    m = resolve(network, nodes)
    r = price(network, m)
    config = MachineConfig(nodes=nodes)
    prog = compile_network(measurement_network(network), nodes, eval_mapping="data")
    cycles = {}
    for k in (1, 2):        # k patterns a node
        run = measure(network, config, train_patterns=k * nodes // 2,
                      test_patterns=k * nodes // 2, program=prog)
        cycles[k] = run.performance.evaluate.cycles
    gather, per = 2 * cycles[1] - cycles[2], (cycles[2] - cycles[1]) / nodes
    assert r["gather_cycles"] == pytest.approx(gather, rel=0.1)
    assert r["forward_cycles"] == pytest.approx(per, rel=0.1)


@pytest.mark.parametrize("overlap,collectives", [("on", "auto"), ("off", "rotation"),
                                                 ("off", "chain")])
def test_with_overlap_and_collectives(overlap, collectives):
    # the gather takes the collectives' mode; training as the training
    # mapping alone builds it with the same options, bit for bit
    from rapsim.compiler.train import run_program
    from rapsim.config import MachineConfig
    network = net(WIDE)
    tr, te = random_data(network, 6, 1), random_data(network, 3, 2)
    results = []
    for ev in (None, "data"):
        prog = compile_network(network, 4, overlap=overlap, collectives=collectives,
                               eval_mapping=ev)
        results.append(run_program(prog, MachineConfig(nodes=4), tr, te))
    alone, both = results
    assert both.weights.max_difference(alone.weights) == 0.0
    y = _reference_outputs(network, 4, None, both.weights, tr, te)
    assert np.abs(both.outputs - y).max() < WEIGHT_TOL
    routines = {r["routine"] for r in both.collectives if r.get("pass") == "evaluation"}
    assert routines <= {"_ring_allgather", "_ring_allgather_rot"} and routines
    if collectives == "rotation":
        assert routines == {"_ring_allgather_rot"}


def test_streamed_database_refused():
    from rapsim.errors import RapError
    network = net(SOFTMAX)
    data = random_data(network, 4, 1)
    with pytest.raises(RapError, match="--eval-mapping keeps the pattern database"):
        train(network, data, nodes=2, eval_mapping="data", stream=True)
