"""Mappings (compiler/mapping.py, docs/mappings.md): the placement
attributes of the language, the presets, the refusals of what the back end
does not map, rows kept exactly as before, and every mapping against the
numpy reference of its semantics on 1 to 64 nodes: data and hybrid
(mini-batches), layers and checkerboard (on-line)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from backend import DAG, SOFTMAX, SPARSE, XOR, agrees, net, random_data, xor_data
from rapsim.compiler.build import compile_network
from rapsim.compiler.codegen import generate
from rapsim.compiler.lower import lower
from rapsim.compiler.mapping import MappingError, Placement, grid, resolve
from rapsim.compiler.parser import parse_text
from rapsim.compiler.reference import batches, initial_weights, Model
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics

WEIGHT_TOL = 1e-5
OUTPUT_TOL = 1e-5

HEAD = "layer x: input 2\n"
TAIL = "layer y: sigmoid 1 bias\nconnect x -> h\nconnect h -> y\n"


def _src(h_line: str, net_extra: str = "") -> str:
    return HEAD + h_line + "\n" + TAIL + f"net n {{ input x  hidden h  output y {net_extra}}}\n"


# -- the IR and the presets ---------------------------------------------------------------

def test_default_is_rows_on_the_whole_ring():
    m = resolve(net(XOR), 4)
    assert m.name == "rows" and m.source == "default" and m.batch == 1
    assert set(m.layers) == {"x", "h", "y"}
    assert all(p == Placement(0, 3, "units") for p in m.layers.values())


@pytest.mark.parametrize("preset,split", [("rows", "units"), ("data", "patterns")])
def test_presets(preset, split):
    m = resolve(net(DAG), 16, preset)
    assert m.name == preset and m.source == "--mapping"
    assert all(p.split == split and (p.first, p.last) == (0, 15) for p in m.layers.values())
    d = m.to_dict()
    assert d["name"] == preset and d["layers"]["a"] == {"nodes": [0, 15], "split": split}


def test_preset_replaces_the_description():
    n = parse_text(_src("layer h: sigmoid 3 partition patterns", "partition patterns"))
    assert resolve(n, 4).name == "data"
    assert resolve(n, 4, "rows").name == "rows"


def test_net_default_and_layer_attributes():
    n = parse_text(_src("layer h: sigmoid 3 bias partition patterns nodes 0..3",
                        "partition patterns"))
    m = resolve(n, 4, batch=5)
    assert m.name == "data" and m.source == "description" and m.batch == 5
    assert n.placement["h"].nodes == (0, 3) and n.placement[""].partition == "patterns"
    # units everywhere written out is rows
    n = parse_text(_src("layer h: sigmoid 3 partition units nodes 0 .. 1 + 1"))
    assert resolve(n, 3).name == "rows"


def test_unknown_preset_is_refused():
    with pytest.raises(MappingError, match="unknown mapping 'blocks' \\(expected rows, data, "
                                           "layers, hybrid, checkerboard, columns\\)"):
        resolve(net(XOR), 4, "blocks")


@pytest.mark.parametrize("h_line,net_extra,nodes,message", [
    ("layer h: sigmoid 3 nodes 0..4", "", 4,
     "<text>:2:20: error: layer 'h': nodes 0..4 is beyond the ring of 4 nodes (positions 0..3)"),
    ("layer h: sigmoid 3 location 1", "", 4,
     "<text>:2:20: error: layer 'h': location 1: node groups by number (SINGA location) are "
     "not supported yet; give the group's ring positions (nodes a..b)"),
    ("layer h: sigmoid 3 partition patterns nodes 1..2", "partition patterns", 4,
     "<text>:2:39: error: layer 'h': nodes 1..2 with partition patterns: the data mapping on "
     "a node group"),
    ("layer h: sigmoid 3 partition units", "partition patterns", 4,
     "<text>:6:37: error: hybrid mapping: output layer 'y' is split by patterns; the upper "
     "layers, split by units, must hold every output"),
    ("layer h: sigmoid 3 partition patterns nodes 1..3", "", 4,
     "<text>:2:39: error: layer 'h': nodes 1..3 in a mapping that mixes partition patterns and "
     "units: hybrid mappings on node groups"),
])
def test_attributes_not_supported_are_refused(h_line, net_extra, nodes, message):
    n = parse_text(_src(h_line, net_extra))
    with pytest.raises(MappingError) as e:
        resolve(n, nodes)
    assert str(e.value).startswith(message), str(e.value)


def test_partition_none_on_one_node_is_rows():
    n = parse_text(_src("layer h: sigmoid 3 partition none"))
    assert resolve(n, 1).name == "rows"


def test_partition_none_is_the_groups_first_node():
    n = parse_text(_src("layer h: sigmoid 3 partition none nodes 2..3"))
    m = resolve(n, 4)
    assert m.name == "layers" and m.layers["h"] == Placement(2, 2, "units")
    assert m.layers["y"] == Placement(0, 3, "units")


def test_nodes_attribute_gives_layers():
    n = parse_text(_src("layer h: sigmoid 3 nodes 1..2"))
    m = resolve(n, 4)
    assert m.name == "layers" and m.source == "description"
    assert m.layers["h"] == Placement(1, 2, "units")
    assert lower(n, 4, mapping=m).layers["h"].split.off == (0, 0, 2, 3, 3)


def test_bus_across_groups_is_refused():
    src = ("layer x: input 2\nlayer h: sigmoid 3 nodes 0..1\nlayer g: sigmoid 3\n"
           "layer y: sigmoid 1\nconnect x -> h\nconnect h -> g bus\nconnect g -> y\n"
           "net n { input x  hidden h, g  output y }\n")
    with pytest.raises(MappingError) as e:
        resolve(parse_text(src), 4)
    assert str(e.value).startswith("<text>:6:9: error: bus connect h->g joins layers on "
                                   "different node groups (h 0..1, g 0..3)"), str(e.value)


def test_input_layer_stays_whole():
    src = _src("layer h: sigmoid 3").replace("layer x: input 2", "layer x: input 2 nodes 0..1")
    with pytest.raises(MappingError, match="input layer 'x': nodes 0..1: input layers are held "
                                           "whole by every node"):
        resolve(parse_text(src), 4)


@pytest.mark.parametrize("nodes", [1, 2, 3, 4, 5, 16, 64])
def test_layers_preset_groups(nodes):
    """Consecutive groups in forward order, sized by work, bus-joined
    layers together; fewer nodes than layers: layers share nodes."""
    n = net(DAG)
    m = resolve(n, nodes, "layers")
    g = {k: (p.first, p.last) for k, p in m.layers.items()}
    assert g["x"] == (0, nodes - 1) and g["a"] == g["b"]
    order = [g["a"], g["c"], g["o"]]
    if nodes >= 3:
        assert order[0][0] == 0 and order[-1][1] == nodes - 1
        assert all(order[i][1] + 1 == order[i + 1][0] for i in range(2))
    else:
        assert all(lo == hi for lo, hi in order)


@pytest.mark.parametrize("h_line,net_extra,message", [
    ("layer h: sigmoid 3 partition rows", "", "2:30: error: unknown partition 'rows' "
                                              "(expected units, patterns, none)"),
    ("layer h: sigmoid 3 partition", "", "2:20: error: partition needs one of units, "
                                         "patterns, none"),
    ("layer h: sigmoid 3 partition units partition units", "", "2:36: error: 'partition' is "
                                                              "given twice (at <text>:2:20)"),
    ("layer h: sigmoid 3 nodes 3..1", "", "2:20: error: nodes 3..1: the last node comes "
                                          "before the first"),
    ("layer h: sigmoid 3 nodes 0..1 location 2", "", "2:31: error: a layer takes one 'nodes' "
                                                     "or 'location'"),
    ("layer h: sigmoid 3 location -1", "", "2:29: error: a location must be at least 0, got -1"),
    ("layer h: sigmoid 3", "partition blocks", "6:37: error: partition in a net block takes "
                                               "one of units, patterns, none"),
])
def test_attribute_errors(h_line, net_extra, message):
    with pytest.raises(Diagnostics) as e:
        parse_text(_src(h_line, net_extra))
    assert f"<text>:{message}" in str(e.value), str(e.value)


def test_numbers_before_a_range_still_read():
    """``0..3`` is 0, .., 3 (the number rule leaves ``0.`` alone before a
    second dot); ``2.`` and ``.5`` stay numbers."""
    n = parse_text(_src("layer h: sigmoid 2. * 1.5 nodes 0..3"))
    assert n.layers["h"].size == 3 and n.placement["h"].nodes == (0, 3)


@pytest.mark.parametrize("batch", [0, -1, 1.5, True])
def test_bad_batch(batch):
    with pytest.raises(MappingError, match="--batch must be a whole number of at least 1"):
        resolve(net(XOR), 4, "data", batch)


def test_batch_needs_the_data_mapping():
    with pytest.raises(MappingError, match="--batch 2 applies to the data and hybrid mappings"):
        resolve(net(XOR), 4, "rows", 2)


# -- rows is today's mapping, bit for bit ----------------------------------------------------

@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_rows_program_is_unchanged(nodes):
    """The rows mapping, whether given or not, generates the program of the
    plain lowering (the one before mappings existed)."""
    n = net(DAG)
    plain = generate(lower(n, nodes))
    assert generate(lower(n, nodes, mapping=resolve(n, nodes, "rows"))) == plain
    written = net(DAG.replace("net dag { input x", "net dag { partition units  input x"))
    assert generate(lower(written, nodes, mapping=resolve(written, nodes))) == plain


def test_rows_run_is_unchanged():
    n = net(XOR)
    a = train(n, xor_data(), nodes=4)
    b = train(n, xor_data(), nodes=4, mapping="rows")
    assert a.cycles == b.cycles and a.weights.max_difference(b.weights) == 0.0
    assert b.mapping["name"] == "rows"


# -- the reference's mini-batch semantics ----------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(1, 9), st.integers(1, 5))
def test_batches_share_every_pattern_once(p, nodes, batch):
    order = np.random.default_rng(p).permutation(p)
    seen = []
    steps = list(batches(order, nodes, batch))
    assert len(steps) == -(-p // (nodes * batch))
    for shares in steps:
        assert len(shares) == nodes and all(len(s) <= batch for s in shares)
        seen += [int(i) for s in shares for i in s]
    assert seen == order.tolist()


def test_data_on_one_node_with_batch_one_is_online():
    n = net(DAG)
    tr = random_data(n, 12, 1)
    online = reference_train(n, tr)
    data = reference_train(n, tr, mapping=resolve(n, 1, "data", 1))
    assert online.model.weights.max_difference(data.model.weights) < 1e-12


def test_train_batch_uses_the_weights_before_the_batch():
    """One batch of two patterns = the sum of the two on-line changes, each
    computed from the same starting weights."""
    n = net(SOFTMAX.replace("epochs 3", "epochs 1"))
    tr = random_data(n, 2, 3)
    w0 = initial_weights(n)
    a, b, both = Model(n, w0), Model(n, w0), Model(n, w0)
    a.train_pattern(tr.inputs[0], tr.targets[0], 0.1)
    b.train_pattern(tr.inputs[1], tr.targets[1], 0.1)
    both.train_batch([[(tr.inputs[0], tr.targets[0])], [(tr.inputs[1], tr.targets[1])]], 0.1)
    for k, w in both.weights.connects.items():
        expect = a.weights.connects[k] + b.weights.connects[k] - w0.connects[k]
        assert np.abs(w - expect).max() < 1e-12


# -- the data mapping on the simulated RAP against the reference -------------------------------

def _case(name):
    if name == "xor":
        return net(XOR), xor_data(), None
    n = net({"dag": DAG, "softmax": SOFTMAX, "sparse": SPARSE,
             "sparse-plain": SPARSE.replace("momentum 0.5", "momentum 0")}[name])
    return n, random_data(n, 20, 1), random_data(n, 7, 2)


@pytest.mark.parametrize("mapping_name", ["data", "hybrid"])
@pytest.mark.parametrize("name,nodes,batch", [
    ("xor", 1, 1), ("xor", 4, 1), ("xor", 16, 2), ("xor", 64, 1),
    ("dag", 1, 3), ("dag", 4, 1), ("dag", 16, 2),
    ("softmax", 4, 2), ("softmax", 16, 1),
    ("sparse", 1, 1), ("sparse", 4, 3), ("sparse-plain", 16, 1), ("sparse", 64, 1),
])
def test_mini_batch_mappings_agree_with_reference(mapping_name, name, nodes, batch):
    """data and hybrid share the mini-batch semantics (N x B patterns a
    batch, every change computed with the weights before the batch): the
    same reference checks both."""
    network, tr, te = _case(name)
    mapping = resolve(network, nodes, mapping_name, batch)
    ref = reference_train(network, tr, te, c30_activations=True, mapping=mapping)
    sim = train(network, tr, te, nodes=nodes, mapping=mapping_name, batch=batch)
    assert sim.mapping["name"] == mapping_name and sim.mapping["batch"] == batch
    agrees(sim, ref, tr, te)


def test_rows_and_data_batch_one_learn_xor_alike():
    """The same net under rows (on-line) and under data with --batch 1 (4
    patterns summed per step on 4 nodes) both learn XOR."""
    n = net(XOR)
    rows = train(n, xor_data(), nodes=4, epochs=300)
    data = train(n, xor_data(), nodes=4, epochs=300, mapping="data")
    assert rows.epochs[-1].train_accuracy == data.epochs[-1].train_accuracy == 1.0


def test_data_layout_holds_whole_weights_and_the_changes():
    n = net(DAG)
    prog = compile_network(n, 4, mapping=resolve(n, 4, "data"))
    plan = prog.plan
    assert plan.grad.words == n.connections() + sum(L.size for L in n.layers.values() if L.bias)
    assert all(lp.split.whole and lp.split.rows(3) == lp.layer.size
               for lp in plan.layers.values())
    assert "_ring_allreduce" in prog.source and "_ring_allgather" not in prog.source
    assert "_ring_reduce_scatter" not in prog.source


# -- layers on node groups on the simulated RAP against the (on-line) reference ----------------

#: an input layer bus-connected into a layer on a node group (the whole
#: input at the group's offsets), a skip from the input to the output
BUSIN = """\
layer x: input 6
layer h: tanh 6 bias
layer g: sigmoid 5 bias
layer y: sigmoid 2 bias
connect x -> h bus
connect h -> g full
connect g -> y full
connect x -> y full
net busin { input x  hidden h, g  output y }
train { rate 0.3  epochs 2  momentum 0.2  seed 4  init_scale 0.5 }
"""


@pytest.mark.parametrize("name,nodes", [
    ("xor", 1), ("xor", 4), ("dag", 2), ("dag", 5), ("dag", 16), ("softmax", 4),
    ("sparse", 3), ("sparse", 64), ("busin", 4), ("busin", 16)])
def test_layers_agree_with_reference(name, nodes):
    if name == "busin":
        network = net(BUSIN)
        tr, te = random_data(network, 12, 5), None
    else:
        network, tr, te = _case(name)
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes, mapping="layers")
    assert sim.mapping["name"] == "layers"
    agrees(sim, ref, tr, te)


def test_layers_from_attributes_agree_with_reference():
    src = DAG.replace("layer c: sigmoid 6 bias", "layer c: sigmoid 6 bias nodes 2..3") \
             .replace("layer o: sigmoid 3 bias", "layer o: sigmoid 3 bias partition none nodes 3..3")
    network = net(src)
    tr = random_data(network, 10, 1)
    ref = reference_train(network, tr, c30_activations=True)
    sim = train(network, tr, nodes=4)
    assert sim.mapping["name"] == "layers" and sim.mapping["layers"]["o"]["nodes"] == [3, 3]
    assert sim.weights.max_difference(ref.model.weights) < WEIGHT_TOL


# -- the hybrid mapping ------------------------------------------------------------------------

def test_hybrid_preset_splits_hidden_by_patterns_and_outputs_by_units():
    m = resolve(net(DAG), 4, "hybrid", 2)
    assert m.name == "hybrid" and m.mini_batch and not m.by_patterns and m.batch == 2
    assert {n: p.split for n, p in m.layers.items()} == {
        "x": "units", "a": "patterns", "b": "patterns", "c": "patterns", "o": "units"}
    assert all((p.first, p.last) == (0, 3) for p in m.layers.values())
    assert m.describe().startswith("mapping hybrid (--mapping): a, b, c split by patterns")


def test_hybrid_from_attributes():
    n = parse_text(_src("layer h: sigmoid 3 partition patterns"))
    m = resolve(n, 4, batch=3)
    assert m.name == "hybrid" and m.source == "description" and m.batch == 3
    assert m.layers["h"].split == "patterns" and m.layers["y"].split == "units"


#: a layer split by patterns above one split by units (g over h)
UPSIDE = """\
layer x: input 3
layer h: sigmoid 4 partition units
layer g: sigmoid 4 partition patterns
layer y: sigmoid 2
connect x -> h
connect h -> g
connect g -> y
net u { input x  hidden h, g  output y }
"""

#: a bus connect from a layer split by patterns into one split by units
BUSCUT = """\
layer x: input 3
layer h: sigmoid 4 partition patterns
layer y: sigmoid 4
connect x -> h
connect h -> y bus
net b { input x  hidden h  output y }
"""


@pytest.mark.parametrize("src,message", [
    (UPSIDE, "<text>:6:9: error: hybrid mapping: connect h->g feeds g (split by patterns) from "
             "h (split by units)"),
    (BUSCUT, "<text>:5:9: error: hybrid mapping: bus connect h->y joins h and y, one split by "
             "patterns and one by units"),
])
def test_hybrid_refusals(src, message):
    with pytest.raises(MappingError) as e:
        resolve(parse_text(src), 4)
    assert str(e.value).startswith(message), str(e.value)


def test_hybrid_layout_and_program():
    """The lower layers' weights whole on every node and their changes
    all-reduced; the output layer's rows split; the cut (c, and a through
    its skip to c) concatenated in slots and sliced back."""
    n = net(DAG)
    prog = compile_network(n, 4, mapping=resolve(n, 4, "hybrid"))
    plan = prog.plan
    assert plan.hybrid and plan.cut == ["c"]
    assert plan.layers["a"].split.whole and not plan.layers["o"].split.whole
    lower_words = sum(cp.weights.words for cp in plan.connects if cp.connect.dst != "o") + 7 + 6
    assert plan.grad_shared == lower_words
    assert plan.grad.words == lower_words + plan.layers["o"].split.max_rows * (6 + 5) + 1
    assert plan.slots.words == 4 * (1 + 6) and plan.eslots.words == 4 * 6
    src = prog.source
    assert "_ring_allgather" in src and "_ring_reduce_scatter" in src and "_ring_allreduce" in src
    assert "off_slots:\n        .word   0, 7, 14, 21, 28" in src
    assert "off_eslots:\n        .word   0, 6, 12, 18, 24" in src
    assert f"off_grad:\n        .word   0, {-(-lower_words // 4)}" in src


def test_rows_and_hybrid_batch_one_learn_xor_alike():
    n = net(XOR)
    rows = train(n, xor_data(), nodes=4, epochs=300)
    hybrid = train(n, xor_data(), nodes=4, epochs=300, mapping="hybrid")
    assert rows.epochs[-1].train_accuracy == hybrid.epochs[-1].train_accuracy == 1.0


# -- the checkerboard ----------------------------------------------------------------------------

#: DAG with its bus connect made full (the checkerboard splits full connects)
DAG_FULL = DAG.replace("connect a -> b bus", "connect a -> b full")


@pytest.mark.parametrize("nodes,rc", [(1, (1, 1)), (4, (2, 2)), (6, (2, 3)), (7, (1, 7)),
                                      (8, (2, 4)), (16, (4, 4)), (64, (8, 8))])
def test_checkerboard_grid(nodes, rc):
    assert grid(nodes) == rc


def test_checkerboard_preset():
    m = resolve(net(DAG_FULL), 16, "checkerboard")
    assert m.name == "checkerboard" and m.grid == (4, 4)
    assert m.layers["x"].split == "units" and m.layers["c"].split == "blocks"
    assert m.to_dict()["grid"] == {"rows": 4, "cols": 4}
    assert "4 x 4 blocks on a grid of 16 nodes laid out row by row" in m.describe()


@pytest.mark.parametrize("src,message", [
    (DAG, "t.net:7:9: error: mapping 'checkerboard': bus connect a->b: the checkerboard splits "
          "full weight matrices into blocks; bus connects are not supported by it"),
    (SPARSE, "t.net:5:9: error: mapping 'checkerboard': sparse connect x->h"),
])
def test_checkerboard_refuses_bus_and_sparse(src, message):
    with pytest.raises(MappingError) as e:
        resolve(net(src), 4, "checkerboard")
    assert str(e.value).startswith(message), str(e.value)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 64))
def test_checkerboard_blocks_tile_the_matrix(d, s_, nodes):
    """Every weight of a D x S matrix is in exactly one node's block, and
    the buffer holds the largest block."""
    src = (f"layer x: input {s_}\nlayer y: sigmoid {d}\nconnect x -> y\n"
           f"net t {{ input x  output y }}\n")
    n = parse_text(src)
    plan = lower(n, nodes, mapping=resolve(n, nodes, "checkerboard"))
    cp = plan.connects[0]
    seen = np.zeros((d, s_), dtype=int)
    for k in range(nodes):
        r, c = cp.block_of(k, plan.mapping.grid)
        seen[r, c] += 1
        assert (r.stop - r.start) * (c.stop - c.start) <= cp.weights.words
    assert (seen == 1).all()


def test_checkerboard_program():
    """Per layer: its blocks' partial products summed along the grid rows
    on sub-rings into the rows' last nodes (forward), its error signal
    all-gathered (backward), the activations all-gathered and the source
    errors reduce-scattered as in rows."""
    n = net(XOR)
    prog = compile_network(n, 4, mapping=resolve(n, 4, "checkerboard"))
    src = prog.source
    assert src.count("partial products of h (sub-ring)") == 2     # training and evaluation
    assert src.count("partial products of y (sub-ring)") == 2
    assert src.count("CALL    _subring_reduce") == 4
    forward_h = src.split("forward: h")[1].split("forward: y")[0]
    assert "_subring_reduce" in forward_h and "_ring_reduce_scatter" not in forward_h
    # the layers' units on the grid rows' last nodes (2 x 2: nodes 1 and 3)
    assert prog.plan.layers["h"].split.off == (0, 0, 2, 2, 3)     # 3 units: rows of 2 and 1
    assert src.count("all-gather n_dall_") == 2
    assert prog.plan.connects[0].weights.words == 2 * 1     # h: 4 units / 2 rows, x: 2 / 2 cols
    assert prog.plan.connects[1].weights.words == 1 * 2     # y: 1 unit / 2 rows, h: 4 / 2 cols


@pytest.mark.parametrize("name,nodes", [
    ("xor", 1), ("xor", 4), ("xor", 5), ("xor", 64), ("dag", 4), ("dag", 6), ("dag", 16),
    ("softmax", 8), ("softmax", 64)])
def test_checkerboard_agrees_with_reference(name, nodes):
    """The checkerboard computes exactly the on-line steps (the reference
    without a mapping), only the sums are taken in another order."""
    if name == "xor":
        network, tr, te = net(XOR), xor_data(), None
    else:
        network = net({"dag": DAG_FULL, "softmax": SOFTMAX}[name])
        tr, te = random_data(network, 20, 1), random_data(network, 7, 2)
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes, mapping="checkerboard")
    assert sim.mapping["name"] == "checkerboard"
    agrees(sim, ref, tr, te)


# -- the CLONES constructs under mappings other than rows ----------------------------------------

def test_clones_constructs_are_refused_under_other_mappings(tmp_path):
    """Several nets, behaviours, user transfer functions and binary or
    threshold layers run under rows only: every other mapping is refused
    naming the construct and its place (never mapped as rows)."""
    import os
    from backend import BINARY, THRESHOLD
    from rapsim.compiler.parser import parse_file
    from test_nets import POOL
    cases = [
        (net(BINARY), "data", "the data mapping: binary layer 'b' is supported under the rows "
                              "mapping only"),
        (net(THRESHOLD), "hybrid", "the hybrid mapping: threshold layer 't' is supported under "
                                   "the rows mapping only"),
        (net(POOL.replace("ALT", "epoch")), "checkerboard",
         "the checkerboard mapping: net 'short' (several nets in one pool) is supported under "
         "the rows mapping only"),
        (parse_file(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                 "softsign.net")), "layers",
         "uses the user transfer function 'softsign', supported under the rows mapping only"),
    ]
    (tmp_path / "clip.asm").write_text("        .global _clip\n        .text\n_clip:  RETS\n")
    src = tmp_path / "b.net"
    src.write_text(XOR + 'behaviour after_epoch call _clip "clip.asm"\n')
    cases.append((parse_file(str(src)), "data",
                  "the data mapping: the behaviour at event 'after_epoch' is supported under the "
                  "rows mapping only"))
    for network, preset, message in cases:
        with pytest.raises(MappingError) as e:
            resolve(network, 4, preset)
        assert message in str(e.value) and ": error: " in str(e.value), str(e.value)
        assert resolve(network, 4).name == "rows"
