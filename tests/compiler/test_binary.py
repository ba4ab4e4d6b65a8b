"""Binary layers as CLONES has them: a binary input is an index list of its
active units; the nodes sum the weight columns of those units (no
multiplies) and update only those columns.  The simulated training agrees
with the reference on 1, 4 and 16 nodes, with and without momentum."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.host import node_records
from rapsim.compiler.reference import Model, initial_weights, train as reference_train
from rapsim.compiler.train import train

from backend import BINARY, binary_data, net, simulated_against_reference

WEIGHT_TOL = OUTPUT_TOL = 1e-5


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("momentum", ["0.5", "0"])
def test_agrees_with_reference(nodes, momentum):
    network = net(BINARY.replace("momentum 0.5", f"momentum {momentum}"))
    tr, te = binary_data(network, 20, 1), binary_data(network, 7, 2)
    simulated_against_reference(network, tr, te, nodes)


def test_the_program_uses_the_binary_kernels():
    prog = compile_network(net(BINARY), 4)
    src = prog.source
    assert src.count("CALL    _bcolsum") == 4            # 2 connects, training and evaluation
    assert "_bcolupdm" in src and "_mxoutm" in src
    # the binary layer is not copied in: no _vcopy of 40 words into an activation vector
    assert "input record -> b" not in src and "input record -> x" in src
    plan = prog.plan
    assert plan.record_words == 41 + 3 and plan.input_words == 43
    assert plan.layers["b"].act is None


def test_node_records_hold_index_lists():
    network = net(BINARY)
    plan = compile_network(network, 1).plan
    x = np.zeros((2, 43))
    x[0, [3, 7, 39]] = 1
    x[:, 40:] = [0.5, -1.0, 2.0]
    rec = node_records(plan, x)
    assert rec.shape == (2, 44)
    assert list(rec[0, :4]) == [3, 3, 7, 39] and not rec[0, 4:41].any()
    assert rec[1, 0] == 0
    assert plan.input_offset == {"b": 0, "x": 41}


def test_momentum_touches_the_active_columns_only():
    network = net(BINARY)
    m = Model(network, initial_weights(network))
    w0 = m.weights.copy()
    x = np.zeros(43)
    x[[1, 2]] = 1
    m.train_pattern(x, np.array([1.0, 0.0, 1.0]), 0.5)
    moved = np.flatnonzero(np.any(m.weights.connects["b->h"] != w0.connects["b->h"], axis=0))
    assert list(moved) == [1, 2]
    assert np.all(m.momentum.connects["b->h"][:, [0, 3]] == 0)


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_rap_train_with_index_lists(nodes, tmp_path, monkeypatch, capsys):
    """End to end: a text database giving the binary layer as its active
    units, `rap train` on 1, 4 and 16 nodes, against the reference."""
    import json
    from clirun_compiler import rap
    from rapsim.compiler.data import load_patterns
    from rapsim.compiler.parser import parse_file
    src = tmp_path / "bin.net"
    src.write_text(BINARY)
    rng = np.random.default_rng(5)
    lines = []
    for i in range(12):
        on = sorted(rng.choice(40, 1 + i % 6, replace=False))
        x = rng.random(3)
        t = (rng.random(3) > 0.5).astype(int)
        lines.append("{" + " ".join(map(str, on)) + "} " + " ".join(f"{v:.3f}" for v in x)
                     + " | " + " ".join(map(str, t)))
    lines.append("{} 0.1 0.2 0.3 | 1 0 1")                 # nothing active
    pat = tmp_path / "bin.pat"
    pat.write_text("\n".join(lines) + "\n")
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", src, "--data", pat, "--nodes", nodes, "--json", js, "--quiet"],
                       monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    network = parse_file(src)
    ref = reference_train(network, load_patterns(pat, network).train, c30_activations=True)
    assert np.allclose([e["train_loss"] for e in r["epochs"]],
                       [e.train_loss for e in ref.epochs], atol=1e-5)
    assert [e["train_accuracy"] for e in r["epochs"]] == [e.train_accuracy for e in ref.epochs]


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("momentum", ["0.5", "0"])
def test_threshold_layer_agrees_with_reference(nodes, momentum):
    """A thresholded binary hidden layer: y = 1 where net > 0; the next
    layer sums the columns of its active units; its error passes back
    straight through (derivative 1)."""
    from backend import THRESHOLD, random_data
    network = net(THRESHOLD.replace("momentum 0.5", f"momentum {momentum}"))
    tr, te = random_data(network, 20, 1), random_data(network, 7, 2)
    sim, ref = simulated_against_reference(network, tr, te, nodes)
    acts = [ref.model.forward(x)["t"] for x in tr.inputs]
    on = np.mean([a.mean() for a in acts])
    assert 0.05 < on < 0.95                         # the layer is neither dead nor saturated
    src = compile_network(network, nodes).source
    assert "_vthreshold" in src and "_vactive" in src and "_bcolsum" in src
    assert "_bcoltv" in src


@pytest.mark.parametrize("text,where,message", [
    ("layer x: input 3\nlayer t: threshold 3\nconnect x -> t\nnet n { input x output t }\n",
     ":4:24:", "threshold layer 't' cannot be an output"),
    ("layer b: binary 3\nlayer h: threshold 2\nlayer y: sigmoid 2\nconnect b -> h\n"
     "connect h -> y bus\nnet n { input b output y }\n",
     ":5:16:", "a threshold layer can only be the source of full connects"),
])
def test_bad_binary_descriptions_through_the_cli(text, where, message, tmp_path, monkeypatch,
                                                 capsys):
    from clirun_compiler import rap
    bad = tmp_path / "bad.net"
    bad.write_text(text)
    pat = tmp_path / "p.pat"
    pat.write_text("1 0 1 | 1 0\n")
    for cmd in (["cc", bad, "-o", tmp_path / "o.out"], ["train", bad, "--data", pat]):
        rc, out, err = rap(cmd, monkeypatch, capsys)
        assert rc == 1 and f"{bad}{where} error: {message}" in err


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0.0, 0.6]))
def test_active_column_update_property(seed, momentum):
    """The reference's update of a connect from a binary layer moves only
    the active units' columns; without momentum it is exactly the dense
    update W += rate d x^T (the other columns' x is 0)."""
    network = net(BINARY.replace("momentum 0.5", f"momentum {momentum}"))
    rng = np.random.default_rng(seed)
    x = np.concatenate([(rng.random(40) < 0.3).astype(float), rng.random(3)])
    t = (rng.random(3) > 0.5).astype(float)
    w0 = initial_weights(network, seed=seed % 1000)
    m = Model(network, w0)
    m.train_pattern(x, t, 0.4)                  # a first step fills the momentum terms
    before = m.weights.copy()
    acts = m.forward(x)
    deltas = m.backward(acts, m.output_deltas(acts, t))
    m.update(acts, deltas, 0.4)
    off = np.flatnonzero(x[:40] == 0)
    for key in ("b->h", "b->g"):
        assert np.array_equal(m.weights.connects[key][:, off], before.connects[key][:, off])
        if momentum == 0:
            dst = key[-1]
            dense = before.connects[key] + 0.4 * np.outer(deltas[dst], x[:40])
            assert np.allclose(m.weights.connects[key], dense, atol=1e-12)
