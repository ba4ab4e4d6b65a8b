"""Lowering: the partition of layers over the nodes and the memory layout."""
from __future__ import annotations

import pytest

from rapsim.compiler.lower import LoweringError, Split, lower
from rapsim.memmap import MemoryConfig

from backend import DAG, SOFTMAX, SPARSE, XOR, net


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
    # a softmax output is computed slice by slice (max and sum over the ring)
    assert not plan.layers["o"].gathered and plan.layers["o"].net.words == 2


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


def test_vectors_beyond_sram_are_an_error():
    """A layer's whole vectors fill SRAM on any number of nodes: a clear
    error, not a link failure of the generated program."""
    src = XOR.replace("param hidden = 3", "param hidden = 110000")
    with pytest.raises(LoweringError) as e:
        lower(net(src), 4)
    assert str(e.value).startswith(
        "network 'xor' on 4 nodes: the vectors left off chip need 357500 words of SRAM per "
        "node, more than the 260096 a node has (the largest: h activations (whole "
        "vector) 110000, h back-propagated error (partial sums, whole vector) 110000, ")
    lower(net(src), 64)                      # the own slices shrink: it fits


def test_program_too_large_for_sram_is_an_error_of_the_network():
    from rapsim.compiler.build import compile_network
    with pytest.raises(LoweringError) as e:
        compile_network(net(XOR), 1, MemoryConfig(sram_words=1000))
    assert str(e.value).startswith("network 'xor' on 1 node does not fit a node's memory "
                                   "(1000 words of SRAM): memory region SRAM overflows by ")


def test_stage_for_vectors_that_do_not_fit():
    src = """\
    layer x: input NX
    layer h: sigmoid NH
    layer y: sigmoid 64
    connect x -> h full
    connect h -> y full
    net big { input x  output y }
    """
    # 300 + 1500 + 1500 words of hot vectors: a stage of 1500 words, both
    # blocks, and every hot vector in SRAM, copied in when walked
    plan = lower(net(src.replace("NX", "300").replace("NH", "1500")), 4)
    assert plan.stage.words == 1500 and plan.stage.region == "chip"
    assert {b.name for b in plan.buffers if b.staged} == {"n_act_x", "n_act_h", "n_err_h"}
    assert all(b.region == "sram" for b in plan.buffers if b.kind == "vector" and b is not plan.stage)
    # 3 x 900: a stage of 900 words in RAM0, one hot vector in RAM1
    plan = lower(net(src.replace("NX", "900").replace("NH", "900")), 4)
    assert plan.stage.words == 900 and plan.stage.region == "ram0"
    assert len([b for b in plan.buffers if b.staged]) == 2
    # everything fits: no stage
    assert lower(net(src.replace("NX", "300").replace("NH", "500")), 4).stage is None
    # the stage would not pay: the partial sums of h (in SRAM) are walked by
    # 2 rows per node only, copying them in and out costs more
    src8 = src.replace("sigmoid 64", "sigmoid 8").replace("NX", "900").replace("NH", "900")
    plan = lower(net(src8), 4)
    assert plan.stage is None and plan.layers["h"].err.region == "sram"


@pytest.mark.parametrize("nodes", [20, 40, 64])
def test_slices_do_not_push_a_walked_vector_off_chip(nodes):
    # square 1024-1024-1024: three 1024-word hot vectors (x and h walked for
    # every row, h's partial error sums) for a stage in RAM0 and RAM1.  An
    # output slice (read a few times per unit) used to rank above the hot
    # vectors on 64 nodes (its accesses were counted as the whole layer's),
    # took RAM1 with the other slices, and left all three hot vectors staged
    # (three copies in and out instead of two)
    src = """\
    layer x: input 1024
    layer h: sigmoid 1024 bias
    layer y: sigmoid 1024 bias
    connect x -> h full
    connect h -> y full
    net sq { input x  output y }
    """
    plan = lower(net(src), nodes)
    assert plan.stage.words == 1024 and plan.stage.region == "ram0"
    hot = [b for b in plan.buffers if b.hot]
    assert sorted(b.region for b in hot) == ["ram1", "sram", "sram"]
    assert sum(b.staged for b in hot) == 2
    # every own slice is read a few times per word, far less than a hot vector
    y = plan.layers["y"]
    assert y.act.uses / y.act.words <= 3 < min(b.uses / b.words for b in hot)


def test_momentum_after_weights():
    src = XOR.replace("momentum 0.5", "momentum 0.9")
    plan = lower(net(src), 1, MemoryConfig(sram_words=0x6000 + 8))
    regions = {b.name: b.region for b in plan.buffers if b.kind == "matrix"}
    # 8 words of SRAM for matrices: the weights (6 + 3 words) first
    assert regions["n_w_0"] == "sram" and regions["n_m_0"] == "dram"


def test_sparse_plan():
    plan = lower(net(SPARSE), 4)
    band, lst, rnd, full, few = plan.connects
    # local(4, stride=2): a band of 4 weights per row, rows 2 apart
    assert band.band and (band.sparse.width, band.sparse.stride, band.sparse.start) == (4, 2, 0)
    assert band.sparse.cnt is None and band.weights.words == 2 * 4        # 2 rows on node 0
    # an explicit list (rows of 0 to 4 pairs) and a random generator: index tables
    assert lst.sparse.kind == rnd.sparse.kind == "index" and full.sparse is None
    assert lst.sparse.lo == (0, 3, 6, 10, 11)          # pairs of destinations 0-1, 2-3, 4, 5
    assert lst.weights.words == lst.sparse.idx.words == 4 and lst.sparse.cnt.words == 2
    assert few.sparse.lo == (0, 2, 2, 2, 3)            # nodes 1 and 2 own no pair
    # sparse sources are gathered, and their errors reduce-scattered
    assert plan.layers["x"].gathered and plan.layers["h"].gathered and plan.layers["h"].reduced
    assert plan.layers["h"].err.words == 5
    assert {b.region for b in plan.buffers if b.kind == "table"} == {"sram"}


def test_sparse_band_detection():
    def kind(pairs, dst=3):
        src = f"""\
        layer x: input 12
        layer y: sigmoid {dst}
        connect x -> y sparse [{", ".join(f"{s} -> {d}" for s, d in pairs)}]
        net n {{ input x  output y }}
        """
        cp = lower(net(src), 2).connects[0]
        sp = cp.sparse
        return (sp.kind, sp.width, sp.stride, sp.start) if sp.kind == "band" else sp.kind

    assert kind([(5, 0), (6, 0), (5, 1), (6, 1), (5, 2), (6, 2)]) == ("band", 2, 0, 5)
    assert kind([(1, 0), (4, 1), (7, 2)]) == ("band", 1, 3, 1)
    assert kind([(1, 0), (2, 0), (4, 1), (5, 1), (6, 2), (7, 2)]) == "index"   # uneven steps
    assert kind([(1, 0), (3, 0), (4, 1), (6, 1), (7, 2), (9, 2)]) == "index"   # gaps
    assert kind([(1, 0), (4, 1)]) == "index"                                    # a row without
    assert kind([(8, 0), (4, 1), (0, 2)]) == "index"                            # going back


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
