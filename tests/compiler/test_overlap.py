"""Overlapped collectives (rapsim.compiler.overlap, docs/compiler.md
"Overlapped collectives"): ``overlap on`` trains to the same bits as the
blocking schedule on 1, 4, 16 and 64 nodes (rows and layers mappings), its
program differs only where a reduce-scatter runs during an update, ``off``
gives the very same program as before, and what is not supported is
refused clearly."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.parser import parse_text
from rapsim.compiler.train import random_patterns, train
from rapsim.errors import RapError

NET = """
layer x: input 24
layer h: sigmoid 300 bias
layer g: tanh 260
layer y: softmax 67 bias
connect x -> h full
connect h -> g full
connect g -> y full
net n {{ input x; hidden h, g; output y{extra} }}
train {{ rate 0.05; epochs 2; momentum {momentum}; error cross_entropy; seed 3 }}
"""


def _net(extra="", momentum=0):
    return parse_text(NET.format(extra=extra, momentum=momentum))


def _train(net, nodes, overlap, mapping=None):
    data = random_patterns(net, 6, seed=1)
    return train(net, data, nodes=nodes, overlap=overlap, mapping=mapping)


def _assert_same(off, on):
    """The same weights, biases and outputs, bit for bit."""
    for k in off.weights.connects:
        assert np.array_equal(on.weights.connects[k], off.weights.connects[k]), k
    for k in off.weights.biases:
        assert np.array_equal(on.weights.biases[k], off.weights.biases[k]), k
    assert np.array_equal(on.outputs, off.outputs)


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_same_bits_as_blocking(nodes):
    net = _net()
    off, on = _train(net, nodes, "off"), _train(net, nodes, "on")
    assert on.overlap == "ring" and off.overlap == "off"
    _assert_same(off, on)


def test_layers_mapping_same_bits():
    net = _net()
    off, on = _train(net, 16, "off", "layers"), _train(net, 16, "ring", "layers")
    for k in off.weights.connects:
        assert np.array_equal(on.weights.connects[k], off.weights.connects[k]), k


def test_the_program_calls_the_overlapped_update_only_with_overlap_on():
    net = _net()
    off = compile_network(net, 16)
    on = compile_network(net, 16, overlap="on")
    assert "_ring_rs_mxout" not in off.source and "_ring_rs_mxout" in on.source
    # h and g are reduced after the updates of g and y: both overlapped
    assert on.source.count("CALL    _ring_rs_mxout") == 2
    assert on.source.count("_ring_reduce_scatter") < off.source.count("_ring_reduce_scatter")
    # the description's attribute does the same as the option, and off is the default
    assert compile_network(_net("; overlap on"), 16).source == on.source
    assert compile_network(_net("; overlap off"), 16).source == off.source
    assert compile_network(_net("; overlap on"), 16, overlap="off").source == off.source


def test_small_slices_keep_the_blocking_schedule():
    """Under OVERLAP_MIN_WORDS (4) words per node the fused chain is slower:
    overlap on leaves those reduce-scatters blocking.  On 64 nodes h of 300
    units and g of 260 (4.7 and 4.06 per node) are overlapped; h of 200
    (3.1 per node) is not, g still is."""
    on64 = compile_network(_net(), 64, overlap="on").source
    assert on64.count("CALL    _ring_rs_mxout") == 2           # 300 and 260 >= 4 x 64
    small = parse_text(NET.format(extra="", momentum=0).replace("300", "200"))
    assert compile_network(small, 64, overlap="on").source.count("CALL    _ring_rs_mxout") == 1


def test_a_cheaper_rotation_stays_blocking():
    """Where --collectives takes the rotation for a reduce-scatter and its
    formula is below the fused chain's, overlap on keeps the rotation
    (compiler/overlap.py rotation_instead), saying so; on 16 nodes (chains)
    both are fused as before."""
    from rapsim.compiler.overlap import rotation_instead
    even = [k * 8 for k in range(65)]                        # 512 words on 64 nodes
    why = rotation_instead(even, "sram", "auto", False)
    assert "_ring_rs_rot" in why and "cheaper than the fused chain" in why
    assert rotation_instead(even, "sram", "chain", False) == ""
    assert rotation_instead([k * 32 for k in range(17)], "sram", "auto", False) == ""
    net = parse_text(NET.format(extra="", momentum=0).replace("300", "512").replace("260", "256"))
    on64 = compile_network(net, 64, overlap="on")          # 8 and 4 words a node, even
    assert on64.source.count("CALL    _ring_rs_mxout") == 0
    assert on64.source == compile_network(net, 64).source
    report = on64.plan.overlap_report
    assert len(report) == 2 and all(not r["overlapped"] and "rotation" in r["reason"]
                                    for r in report)
    assert compile_network(net, 16, overlap="on").source.count("CALL    _ring_rs_mxout") == 2


@pytest.mark.parametrize("nodes", [1, 4, 16, 64])
def test_momentum_same_bits_as_blocking(nodes, monkeypatch):
    """With momentum the update runs the reduce-scatter too
    (_ring_rs_mxoutm): the same bits as off.  The cost rule
    (momentum_overlap_pays) is set aside here so that every node count runs
    the fused form (on 4 nodes it never pays: the test of the rule is
    below)."""
    from rapsim.compiler import codegen
    monkeypatch.setattr(codegen, "momentum_overlap_pays", lambda words, nodes: True)
    net = _net(momentum=0.5)
    if nodes > 1:
        assert compile_network(net, nodes, overlap="on").source.count(
            "CALL    _ring_rs_mxoutm") == 2
    _assert_same(_train(net, nodes, "off"), _train(net, nodes, "on"))


def test_momentum_overlap_where_it_pays():
    """The cost rule: words - 4 ceil(words / N) >= 12 N.  On 16 nodes h (300)
    and g (260) pass; on 4 nodes (a quarter kept) and on 64 (the chain's
    cost per node) neither does, and the program is the blocking one."""
    from rapsim.compiler.codegen import momentum_overlap_pays
    assert momentum_overlap_pays(512, 16) and momentum_overlap_pays(1024, 40)
    assert not momentum_overlap_pays(512, 40) and not momentum_overlap_pays(512, 64)
    assert not momentum_overlap_pays(4096, 4)
    net = _net(momentum=0.5)
    assert compile_network(net, 16, overlap="on").source.count("CALL    _ring_rs_mxoutm") == 2
    for nodes in (4, 64):
        assert compile_network(net, nodes, overlap="on").source == \
            compile_network(net, nodes).source


@pytest.mark.parametrize("mapping", ["data", "hybrid", "checkerboard"])
def test_other_mappings_are_refused(mapping):
    from rapsim.compiler.mapping import resolve
    net = _net()
    with pytest.raises(RapError, match=f"applies to the rows and layers mappings, not {mapping}"):
        compile_network(net, 4, mapping=resolve(net, 4, mapping), overlap="on")
    compile_network(net, 4, mapping=resolve(net, 4, mapping), overlap="off")


def test_dma_and_unknown_values_are_refused():
    with pytest.raises(RapError, match="overlap dma is not supported"):
        compile_network(_net(), 4, overlap="dma")
    with pytest.raises(RapError, match="unknown overlap"):
        compile_network(_net(), 4, overlap="sometimes")
    with pytest.raises(RapError, match="overlap dma is not supported"):
        _net("; overlap dma")
    with pytest.raises(RapError, match="overlap in a net block takes one of"):
        _net("; overlap maybe")
    with pytest.raises(RapError, match="'overlap' is given twice"):
        _net("; overlap on; overlap off")
