"""Lowering: the partition of layers over the nodes and the memory layout."""
from __future__ import annotations

import pytest

from rapsim.compiler.lower import LoweringError, Split, lower
from rapsim.memmap import MemoryConfig

from backend import DAG, SOFTMAX, XOR, net


@pytest.mark.parametrize("size,nodes", [(1, 1), (7, 4), (61, 64), (512, 40), (3, 16), (64, 64)])
def test_split_is_ring_split(size, nodes):
    sp = Split.even(size, nodes)
    rows = [sp.rows(k) for k in range(nodes)]
    assert sp.off[0] == 0 and sp.off[-1] == size and sum(rows) == size
    q, r = divmod(size, nodes)
    assert rows == [q + 1] * r + [q] * (nodes - r)     # _ring_split: larger slices first
    assert sp.max_rows == max(rows)


def test_partition_of_an_mlp():
    plan = lower(net(XOR, hidden=10), 4)
    h, y, x = plan.layers["h"], plan.layers["y"], plan.layers["x"]
    assert [h.split.rows(k) for k in range(4)] == [3, 3, 2, 2]
    # x and h feed full connects: gathered; the output is not
    assert x.gathered and h.gathered and not y.gathered
    assert h.reduced and h.err.words == 10          # partial error sums over all of h
    assert y.err is None and x.net is None
    # node-local rows of the weight matrices, sized for the largest slice
    w0, w1 = plan.connects
    assert w0.weights.words == 3 * 2 and w1.weights.words == 1 * 10
    assert plan.forward == ["h", "y"] and plan.backward == ["y", "h"]


def test_vectors_on_chip_weights_in_sram():
    plan = lower(net(SOFTMAX), 2)
    for b in plan.buffers:
        assert b.region == ("sram" if b.kind == "matrix" else b.region)
        if b.kind == "vector":
            assert b.region in ("ram0", "ram1")
    assert plan.layers["o"].gathered          # softmax needs the whole net input


def test_large_vectors_and_weights_spill():
    # 2000-unit layers do not fit a 1K on-chip block; 2000 x 2000 weights
    # do not fit 256 K words of SRAM on one node
    src = """\
    layer x: input 2000
    layer h: sigmoid 2000
    layer y: sigmoid 2
    connect x -> h full
    connect h -> y full
    net big { input x  output y }
    """
    plan = lower(net(src), 1)
    assert plan.layers["x"].act.region == "sram"
    assert plan.connects[0].weights.region == "dram"
    assert plan.connects[1].weights.region == "sram"
    # on 64 nodes each holds 32 rows: everything fits SRAM
    plan64 = lower(net(src), 64)
    assert all(c.weights.region == "sram" for c in plan64.connects)


def test_momentum_after_weights():
    src = XOR.replace("momentum 0.5", "momentum 0.9")
    plan = lower(net(src), 1, MemoryConfig(sram_words=0x6000 + 8))
    regions = {b.name: b.region for b in plan.buffers if b.kind == "matrix"}
    # 8 words of SRAM for matrices: the weights (6 + 3 words) first
    assert regions["n_w_0"] == "sram" and regions["n_m_0"] == "dram"


def test_sparse_connect_rejected():
    src = XOR.replace("connect x -> h full", "connect x -> h sparse [0 -> 0, 1 -> 2]")
    with pytest.raises(LoweringError) as e:
        lower(net(src), 2)
    assert "sparse connects have no kernel" in str(e.value)
    assert str(e.value).startswith("t.net:5:")          # file:line:col of the connect


# The front end rejects these too; the back end checks again for networks
# built directly as IR objects.
def _mutated(src, fn):
    n = net(src)
    fn(n)
    return n


@pytest.mark.parametrize("network,needle", [
    (lambda: _mutated(SOFTMAX, lambda n: setattr(n.training, "error", "mse")),
     "needs error cross_entropy"),
    (lambda: _mutated(XOR, lambda n: (setattr(n.training, "error", "cross_entropy"),
                                      setattr(n.layers["y"], "kind", "linear"))),
     "cross_entropy error needs sigmoid or softmax"),
    (lambda: _mutated(XOR, lambda n: setattr(n.layers["h"], "kind", "softmax")),
     "no softmax derivative"),
    (lambda: _mutated(XOR, lambda n: setattr(n, "forward_order", [])), "was not checked"),
])
def test_unsupported_networks(network, needle):
    with pytest.raises(LoweringError, match=needle):
        lower(network(), 2)


def test_node_count_checked():
    with pytest.raises(LoweringError, match="1 to 64 nodes"):
        lower(net(XOR), 65)


def test_dag_plan():
    plan = lower(net(DAG), 3)
    a, b = plan.layers["a"], plan.layers["b"]
    # a feeds a full connect (a -> c) and a bus (a -> b): gathered, reduced
    assert a.gathered and a.reduced and a.err.words == 7
    # b feeds only a full connect: gathered; its error comes through b -> c
    assert b.gathered and b.reduced
    assert plan.input_words == 5 and plan.target_words == 3
