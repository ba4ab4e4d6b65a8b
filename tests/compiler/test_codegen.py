"""Code generation: the SPMD program's shape, and how it runs without the
training host."""
from __future__ import annotations

import re

import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.codegen import generate
from rapsim.compiler.lower import lower
from rapsim.config import MachineConfig
from rapsim.machine import Simulator

from backend import DAG, SOFTMAX, SPARSE, XOR, net


def calls(source: str) -> list[str]:
    return re.findall(r"^\s+CALL\s+(\w+)", source, re.M)


def pattern_loop(source: str) -> list[str]:
    """The calls of one training pattern (labels 'pattern:' .. 'tpattern:')."""
    body = source[source.index("\npattern:"):source.index("\ntpattern:")]
    return [c for c in calls(body) if c != "_hostcall"]


def test_one_node_has_no_ring_collectives():
    src = generate(lower(net(XOR), 1))
    body = pattern_loop(src)
    assert not [c for c in body if c.startswith("_ring")]
    # h's error sums are written by the first W^T d (_mxtvw), not cleared first
    assert body == ["_vcopy", "_mxv", "_vsigmoid", "_mxv", "_vsigmoid",
                    "_vsub", "_vsigmoid_deriv", "_vmul", "_vscale", "_vaxpy", "_vadd",
                    "_mxtvw", "_mxoutm", "_vsigmoid_deriv", "_vmul", "_vscale", "_vaxpy",
                    "_vadd", "_mxoutm"]


def test_collectives_on_several_nodes():
    body = pattern_loop(generate(lower(net(XOR), 4)))
    # forward: all-gather the hidden layer; backward: reduce-scatter its errors
    assert body.count("_ring_allgather") == 1
    assert body.count("_ring_reduce_scatter") == 1
    assert body.index("_ring_allgather") < body.index("_ring_reduce_scatter")
    # the error goes back through W before W is updated (the first W^T d
    # into a cleared vector writes it: _mxtvw)
    assert body.index("_mxtvw") < body.index("_mxoutm")


def test_softmax_is_distributed():
    body = pattern_loop(generate(lower(net(SOFTMAX), 4)))
    # each node its own slice, the maximum and the sum over the ring: no all-gather
    i = body.index("_vsoftmax_ring")
    assert body[i - 1] == "_mxv" and body.count("_ring_allgather") == 1     # of h only
    assert "_mxout" in body and "_vsigmoid_deriv" in body
    assert "_vsoftmax" in pattern_loop(generate(lower(net(SOFTMAX), 1)))


def test_dag_program_links():
    prog = compile_network(net(DAG), 3)
    body = pattern_loop(prog.source)
    # x -> o, x -> a need no error; each layer's first W^T d writes (_mxtvw)
    assert body.count("_mxv") == 5 and body.count("_mxtv") + body.count("_mxtvw") == 3
    syms = prog.image.symbols
    assert syms["nv"] >> 16 == syms["dataend"] >> 16


def test_per_node_table_is_off_the_data_page():
    """The page that @ addresses holds the variables and constants only: the
    per-node table (NV_WORDS words per node) is reached through a pointer.
    With it on the page, a network of some 250 layers on 64 nodes failed
    with 'the program's variables straddle a 64K-word page'."""
    prog = compile_network(net(DAG), 64)
    syms = prog.image.symbols
    nv_words = int(next(line.split()[2] for line in prog.source.splitlines()
                        if line.startswith("NV_WORDS")))
    assert nv_words > 1 and syms["dataend"] - syms["nv"] < 64 * nv_words
    assert syms["nvtab"] >= syms["dataend"]


def test_sparse_kernels_called():
    body = pattern_loop(generate(lower(net(SPARSE), 4)))
    # forward: the band (local field) by the strided dense kernel, the lists by the sparse one
    assert body.count("_mxvs") == 1 and body.count("_spmv") == 3 and body.count("_mxv") == 1
    # backward: partial errors of x are not needed (an input); h's are
    assert body.count("_mxtvs") == 0 and body.count("_spmtv") == 2
    assert body.count("_mxoutms") == 1 and body.count("_spoutm") == 3
    assert body.count("_ring_reduce_scatter") == 2         # h and g
    plain = pattern_loop(generate(lower(net(SPARSE.replace("momentum 0.5", "momentum 0")), 4)))
    assert plain.count("_mxouts") == 1 and plain.count("_spout") == 3


def _run(prog, nodes):
    out = []
    sim = Simulator(MachineConfig(nodes=nodes), output=lambda n, fd, data: out.append(data))
    sim.load(prog.image)
    return sim.run(max_cycles=1_000_000), b"".join(out).decode()


def test_without_the_training_host_the_program_stops_cleanly():
    res, text = _run(compile_network(net(XOR), 2), 2)
    assert res.ok and res.exit_status == 2
    assert "rap train" in text


def test_wrong_node_count():
    res, text = _run(compile_network(net(XOR), 4), 2)
    assert res.ok and res.exit_status == 2
    assert "compiled for 4 nodes" in text


@pytest.mark.parametrize("nodes", [1, 5, 64])
def test_every_node_count_links(nodes):
    prog = compile_network(net(SOFTMAX), nodes)
    assert prog.image.entry == prog.image.symbols["_c_int00"]
