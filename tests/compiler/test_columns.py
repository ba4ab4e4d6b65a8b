"""Connects split by columns (the ``columns`` mapping, Girau's horizontal
sectioning; docs/compiler.md "Connects split by columns"): the simulated
RAP against the reference of the same summation order on 1 to 64 nodes
(momentum, biases, softmax outputs, a mix of rows and columns into one
layer), the description's ``split`` word and the preset's choice, the
refusals with their places, and the cost model's price of it."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.codegen import generate
from rapsim.compiler.lower import lower
from rapsim.compiler.mapping import MappingError, columns_that_pay, resolve
from rapsim.compiler.pipeline import apply_schedule
from rapsim.compiler.plan import measure_point, predict
from rapsim.compiler.reference import Model, initial_weights
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train
from rapsim.config import MachineConfig

from backend import DAG, SOFTMAX, XOR, agrees, diagnostics, net, random_data
from clirun_compiler import rap

#: wider than the machines of 40 and 64 nodes: nodes with 1 or 2 hidden
#: units, and nodes without output units; with momentum
WIDE = """\
layer x: input 9
layer h: sigmoid 90 bias
layer o: softmax 12 bias
connect x -> h
connect h -> o split columns
net w { input x  hidden h  output o }
train { rate 0.1  epochs 2  momentum 0.5  error cross_entropy  seed 4  init_scale 0.3 }
"""

CASES = {"softmax": SOFTMAX, "dag": DAG, "xor": XOR}


def _against_reference(network, nodes, tr, te, mapping="columns"):
    m = resolve(network, nodes, mapping)
    ref = reference_train(network, tr, te, c30_activations=True, mapping=m)
    sim = train(network, tr, te, nodes=nodes, mapping=mapping)
    agrees(sim, ref, tr, te)
    return sim, ref


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("name", ["softmax", "dag", "xor"])
def test_agrees_with_reference(name, nodes):
    network = net(CASES[name])
    assert resolve(network, nodes, "columns").columns      # something is split by columns
    _against_reference(network, nodes, random_data(network, 10, 1), random_data(network, 4, 2))


@pytest.mark.parametrize("nodes", [40, 64])
def test_large_machines_from_the_description(nodes):
    network = net(WIDE)
    m = resolve(network, nodes)
    assert (m.name, m.source, m.columns) == ("columns", "description", ("h->o",))
    tr, te = random_data(network, 6, 1), random_data(network, 3, 2)
    m = resolve(network, nodes)
    ref = reference_train(network, tr, te, c30_activations=True, mapping=m)
    sim = train(network, tr, te, nodes=nodes)
    agrees(sim, ref, tr, te)


def test_the_reference_sums_in_the_ring_order():
    # W x by columns over 4 nodes: the same value as W @ x up to rounding
    network = net(WIDE)
    m = resolve(network, 4)
    from rapsim.compiler.reference import column_offsets
    model = Model(network, columns=column_offsets(network, m))
    plain = Model(network)
    x = np.random.default_rng(3).random(9)
    a, b = model.forward(x)["o"], plain.forward(x)["o"]
    assert np.abs(a - b).max() < 1e-12
    assert column_offsets(network, resolve(network, 4, "rows")) == {}


def test_node_memory_holds_columns_as_rows_of_w_transposed():
    network = net(WIDE)
    plan = lower(network, 4, mapping=resolve(network, 4))
    cp = next(c for c in plan.connects if c.connect.name == "h->o")
    assert cp.columns and cp.weights.words == 23 * 12           # ceil(90 / 4) rows of 12
    h = plan.layers["h"]
    assert not h.gathered and not h.reduced                     # no all-gather, no reduce-scatter
    assert plan.layers["o"].pnet.words == 12 and plan.layers["o"].dwhole.words == 12
    src = generate(plan)
    assert "_ring_reduce_scatter" in src and "_mxtv" in src
    # trained weights read back whole, in the reference's layout
    tr = random_data(network, 4, 1)
    sim = train(network, tr, nodes=4, epochs=1)
    assert sim.weights.connects["h->o"].shape == (12, 90)


def test_split_rows_is_the_rows_program_word_for_word():
    plain = net(SOFTMAX)
    written = net(SOFTMAX.replace("connect h -> o full", "connect h -> o full split rows"))
    a, b = resolve(plain, 4), resolve(written, 4)
    assert a.name == b.name == "rows" and not b.columns
    assert generate(lower(plain, 4, mapping=a)) == generate(lower(written, 4, mapping=b))


def test_the_preset_replaces_the_description():
    network = net(WIDE)
    assert resolve(network, 4, "rows").name == "rows"
    assert resolve(network, 4, "columns").columns == ("h->o",)


def test_the_preset_splits_hidden_connects_into_smaller_layers():
    assert columns_that_pay(net(SOFTMAX)) == ("h->o",)
    # DAG: b, a (7) -> c (6) and c (6) -> o (3); x -> * start at the input
    assert columns_that_pay(net(DAG)) == ("b->c", "a->c", "c->o")
    wide = net(WIDE.replace("layer o: softmax 12", "layer o: softmax 120"))
    assert columns_that_pay(wide) == ()


ERRORS = [
    ("connect h -> o split columns", "connect h -> o split diagonal",
     "5:22: error: connect h->o: unknown split 'diagonal' (expected rows or columns)"),
    ("connect h -> o split columns", "connect h -> o bus split columns",
     "5:26: error: connect h->o: split columns needs a full connect, not bus"),
]


@pytest.mark.parametrize("old,new,message", ERRORS)
def test_description_errors(old, new, message):
    assert f"t.net:{message}" in diagnostics(WIDE.replace(old, new))


def test_placement_attributes_refused():
    src = WIDE.replace("layer o: softmax 12 bias", "layer o: softmax 12 bias nodes 2..3")
    with pytest.raises(MappingError, match=r"t.net:5:22: error: connect h->o: split columns is "
                                           r"supported .* not with the placement attributes of "
                                           r"the layers mapping"):
        resolve(net(src), 4)


def test_shared_matrix_refused():
    src = """\
layer x: input 6
layer h: sigmoid 3 bias
layer y: sigmoid 6 bias
connect x -> h split columns
connect h -> y share_from x -> h transpose
net ae { input x  hidden h  output y }
"""
    with pytest.raises(MappingError, match="t.net:4:22: error: connect x->h: split columns is "
                                           "not supported for a shared weight matrix"):
        resolve(net(src), 4)


def test_threshold_source_refused():
    src = WIDE.replace("layer h: sigmoid 90 bias", "layer h: threshold 90 bias").replace(
        "error cross_entropy", "error cross_entropy")
    with pytest.raises(MappingError, match="t.net:5:22: error: connect h->o: split columns is "
                                           "not supported from the threshold layer 'h'"):
        resolve(net(src), 4)


@pytest.mark.parametrize("schedule", ["pipeline", "stream"])
def test_other_schedules_refused(schedule):
    network = net(WIDE)
    m = resolve(network, 4)
    with pytest.raises(MappingError, match="columns mapping"):
        apply_schedule(network, m, schedule)


def test_plan_prices_it_within_the_bar():
    # issue 15's bar is 10 %: both within 5 % (training -1.9 %, forward
    # -3.2 %); the 12-word reduce-scatter on 16 nodes has empty slices, which
    # the firmware runs on its general path (firmware/costs.py
    # rs_general_leave; before the model followed it the forward pass was
    # 9.1 % low)
    network = net(WIDE)
    config = MachineConfig(nodes=16)
    m = resolve(network, 16, "columns")
    p = predict(network, m)
    tr, fwd = measure_point(network, config, "columns")
    assert abs(p.train_cycles / tr - 1) <= 0.05, (p.train_cycles, tr)
    assert abs(p.forward_cycles / fwd - 1) <= 0.05, (p.forward_cycles, fwd)


def test_rap_train_and_cc(tmp_path, monkeypatch, capsys):
    f = tmp_path / "w.net"
    f.write_text(WIDE)
    network = net(WIDE)
    data = random_data(network, 6, 1)
    d = tmp_path / "w.npz"
    np.savez(d, inputs=data.inputs, targets=data.targets)
    rc, out, err = rap(["train", f, "--data", d, "--nodes", 4, "--epochs", 1], monkeypatch,
                       capsys)
    assert rc == 0, err
    assert "mapping columns (description)" in out + err and "h->o" in out + err
    bad = tmp_path / "bad.net"
    bad.write_text(WIDE.replace("split columns", "split sideways"))
    rc, out, err = rap(["cc", bad, "-o", tmp_path / "x.img", "--nodes", 4], monkeypatch, capsys)
    assert rc != 0 and "bad.net:5:22: error: connect h->o: unknown split 'sideways'" in err


def test_error_sums_written_not_added_bit_for_bit(monkeypatch):
    # h's error sums come from h->o alone: _mxv writes them (b = 0) instead
    # of adding into a cleared vector; the same words, one _vfill fewer
    from rapsim.compiler import codegen
    network = net(WIDE)
    plan = lower(network, 4, mapping=resolve(network, 4))
    assert "clear n_err_h" not in generate(plan)
    tr = random_data(network, 6, 1)
    a = train(network, tr, nodes=4)
    monkeypatch.setattr(codegen._Gen, "err_written_by", lambda self, lp: None)
    assert "clear n_err_h" in generate(lower(network, 4, mapping=resolve(network, 4)))
    b = train(network, tr, nodes=4)
    assert a.weights.max_difference(b.weights) == 0.0 and np.array_equal(a.outputs, b.outputs)


@pytest.mark.parametrize("name", ["dag", "softmax", "sparse", "mixed"])
def test_first_writer_bit_for_bit(name, monkeypatch):
    # the first W^T d into a whole error vector (rows), or the first W^T x
    # into the partial net inputs (a transposed shared matrix), is _mxtvw
    # writing the vector instead of _vfill and _mxtv: the same words (a
    # connect split by columns takes two rows a pass, another order:
    # test_agrees_with_reference)
    mapping = "rows"
    from rapsim.compiler import codegen
    from backend import SPARSE
    import test_sharing
    src = {"dag": DAG, "softmax": SOFTMAX, "sparse": SPARSE,
           "mixed": test_sharing.MIXED.replace("MOM", "0.5")}[name]
    network = net(src)
    tr = random_data(network, 6, 1)
    a = train(network, tr, nodes=4, mapping=mapping)
    text = generate(lower(network, 4, mapping=resolve(network, 4, mapping)))
    assert "_mxtvw" in text
    monkeypatch.setattr(codegen._Gen, "first_error_writers", lambda self, names, part: {})
    real = codegen._Gen.forward_transposed

    def cleared(self, lp):                  # the forward sums cleared and added, as before
        self.clear_sums(lp)
        calls = len(self.e.text)
        real(self, lp)
        self.e.text[calls:] = [t.replace("_mxtvw", "_mxtv ") for t in self.e.text[calls:]]
    monkeypatch.setattr(codegen._Gen, "forward_transposed", cleared)
    assert "_mxtvw" not in generate(lower(network, 4, mapping=resolve(network, 4, mapping)))
    b = train(network, tr, nodes=4, mapping=mapping)
    assert a.weights.max_difference(b.weights) == 0.0 and np.array_equal(a.outputs, b.outputs)


def test_columns_weights_on_chip_bit_for_bit(monkeypatch):
    # without momentum a connect split by columns keeps its weights in an
    # on-chip block when the vectors leave room: _mxoutc updates them at 1.5
    # cycles a weight, the words of _mxout
    from rapsim.compiler import lower as lower_mod
    network = net(SOFTMAX)
    plan = lower(network, 4, mapping=resolve(network, 4, "columns"))
    cp = next(c for c in plan.connects if c.columns)
    assert cp.weights.region in ("ram0", "ram1") and "_mxoutc" in generate(plan)
    tr = random_data(network, 6, 1)
    a = train(network, tr, nodes=4, mapping="columns")
    monkeypatch.setattr(lower_mod, "_onchip_columns", lambda plan, vectors: [])
    plan = lower(network, 4, mapping=resolve(network, 4, "columns"))
    assert next(c for c in plan.connects if c.columns).weights.region == "sram"
    assert "_mxoutc" not in generate(plan)
    b = train(network, tr, nodes=4, mapping="columns")
    assert a.weights.max_difference(b.weights) == 0.0 and np.array_equal(a.outputs, b.outputs)
    # with momentum (_mxoutm walks W and M on the bus): the weights stay off chip
    wide = net(WIDE)
    plan = lower(wide, 4, mapping=resolve(wide, 4))
    assert next(c for c in plan.connects if c.columns).weights.region == "sram"


@pytest.mark.parametrize("name,nodes", [("softmax", 1), ("softmax", 4), ("softmax", 16),
                                        ("wide", 40), ("wide", 64)])
def test_prefetched_input_record_bit_for_bit(name, nodes, monkeypatch):
    # an evaluation pattern's input record comes by DMA, started after the
    # input layer's _mxv of the pattern before (compiler/prefetch.py): the
    # words of the copy, so every output and weight is the same (these
    # records are short: the size from which it pays is lowered to 0)
    from rapsim.compiler import prefetch
    monkeypatch.setattr(prefetch, "MIN_WORDS", 0)
    network = net(WIDE if name == "wide" else SOFTMAX)
    text = generate(lower(network, nodes, mapping=resolve(network, nodes, "columns")))
    assert "_dma_start" in text and "_dma_wait" in text
    tr, te = random_data(network, 6, 1), random_data(network, 5, 2)
    a = train(network, tr, te, nodes=nodes, mapping="columns")
    monkeypatch.setattr(prefetch, "target", lambda gen: None)
    assert "_dma_start" not in generate(lower(network, nodes,
                                              mapping=resolve(network, nodes, "columns")))
    b = train(network, tr, te, nodes=nodes, mapping="columns")
    assert len(a.outputs) >= len(te)
    assert a.weights.max_difference(b.weights) == 0.0 and np.array_equal(a.outputs, b.outputs)


def test_prefetch_only_where_its_conditions_hold(monkeypatch):
    # rows keeps the copy; so does a columns net whose input layer feeds
    # two layers, or whose record is shorter than MIN_WORDS
    from rapsim.compiler import prefetch
    network = net(SOFTMAX)
    assert "_dma_start" not in generate(lower(network, 4, mapping=resolve(network, 4, "columns")))
    monkeypatch.setattr(prefetch, "MIN_WORDS", 0)
    assert "_dma_start" in generate(lower(network, 4, mapping=resolve(network, 4, "columns")))
    assert "_dma_start" not in generate(lower(network, 4, mapping=resolve(network, 4, "rows")))
    dag = net(DAG)
    m = resolve(dag, 4, "columns")
    assert m.columns and "_dma_start" not in generate(lower(dag, 4, mapping=m))


def _quads(hidden_per_node: int, nodes: int) -> str:
    return f"""\
layer x: input 10
layer h: sigmoid {hidden_per_node * nodes} bias
layer o: softmax 7 bias
connect x -> h
connect h -> o split columns
net q {{ input x  hidden h  output o }}
train {{ rate 0.1  epochs 2  error cross_entropy  seed 5  init_scale 0.3 }}
"""


@pytest.mark.parametrize("nodes", [1, 4, 16, 40, 64])
def test_four_rows_a_pass_agrees_with_reference(nodes):
    # 13 units of h a node: its partial net inputs by _mxtv4w (the first
    # row written, three passes of four rows; lower.columns_kernel), the
    # reference in that order
    network = net(_quads(13, nodes))
    assert "_mxtv4w" in generate(lower(network, nodes, mapping=resolve(network, nodes)))
    # (3 training patterns: the loss of 6, about 10 nats, is summed in
    # single precision and leaves the reference's by 1.5e-5 whatever the
    # kernel; the weights agree within 3e-7)
    _against_reference(network, nodes, random_data(network, 3, 1), random_data(network, 3, 2),
                       mapping=None)


def test_the_reference_sums_four_rows_in_the_registers():
    # 13 source units on one node, y = 1 from the first and 2^-25 from each
    # of the 12 others: three passes of four store 1 + 3 * 2^-23, where two
    # rows a pass would store 1 + 2^-24, rounded to 1, after every pair
    network = net(_quads(13, 1))
    c = next(c for c in network.connects if c.name == "h->o")
    model = Model(network, columns={"h->o": ((0, 13), (0, 7))})
    wc = np.full((7, 13), 2.0 ** -25)
    wc[:, 0] = 1.0
    got = model._by_columns(c, wc, np.ones(13))
    assert list(got) == [1.0 + 3 * 2.0 ** -23] * 7


def test_speech_mlp_program_and_plan(tmp_path, monkeypatch, capsys):
    # through the rap command: the speech MLP on 40 nodes by columns fetches
    # its evaluation records by DMA and writes its partial net inputs four
    # rows a pass, and the cost model prices both
    import json
    from pathlib import Path
    speech = Path(__file__).resolve().parents[2] / "examples" / "speech.net"
    asm = tmp_path / "speech.asm"
    rc, out, err = rap(["cc", speech, "-o", tmp_path / "s.img", "--nodes", 40, "--mapping",
                        "columns", "-S", asm], monkeypatch, capsys)
    assert rc == 0, err
    text = asm.read_text()
    loop = text[text.index("tpattern:"):text.index("tpattern_end:")]
    assert "CALL    _dma_wait" in loop and "CALL    _dma_start" in loop
    assert loop.index("CALL    _dma_wait") < loop.index("CALL    _mxv") < loop.index(
        "CALL    _dma_start") < loop.index("CALL    _mxtv4w")
    # the copy only out of line, after the loop's closing branch
    assert loop.index("pfi_copy:") > loop.index("BNZ     tpattern")
    plan = tmp_path / "plan.json"
    rc, out, err = rap(["plan", speech, "--nodes", 40, "--json", plan], monkeypatch, capsys)
    assert rc == 0, err
    best = json.loads(plan.read_text())["ranked"][0]
    assert best["mapping"] == "columns"
    fwd = best["forward_breakdown"]
    assert fwd["_dma_wait"] == 21 and fwd["_dma_start"] == 24 and "_mxtv4w" in fwd
    assert fwd["_vcopy"] < 50                   # the log's copy of the outputs only
