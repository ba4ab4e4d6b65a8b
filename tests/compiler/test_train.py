"""Training on the simulated RAP agrees with the numpy reference, on 1, 4
and 16 nodes, and measures what it should."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import TrainingFailed, measure, train
from rapsim.config import MachineConfig
from rapsim.memmap import MemoryConfig

from backend import DAG, SOFTMAX, SPARSE, XOR, agrees, net, random_data, xor_data

#: C30 single precision is 2^-23 relative; a few epochs of on-line updates,
#: the firmware's truncating arithmetic and its exp polynomial stay far
#: below this (measured: about 2e-6 for the weights, 3e-7 for the outputs).
WEIGHT_TOL = 1e-5
OUTPUT_TOL = 1e-5


def _case(name):
    if name == "xor":
        return net(XOR), xor_data(), None
    src = {"dag": DAG, "softmax": SOFTMAX, "sparse": SPARSE,
           "sparse-plain": SPARSE.replace("momentum 0.5", "momentum 0")}[name]
    n = net(src)
    return n, random_data(n, 20, 1), random_data(n, 7, 2)


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("name", ["xor", "dag", "softmax", "sparse", "sparse-plain"])
def test_agrees_with_reference(name, nodes):
    network, tr, te = _case(name)
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes)
    agrees(sim, ref, tr, te)
    assert len(sim.epochs) == network.training.epochs
    for a, b in zip(sim.epochs, ref.epochs):
        assert a.test_accuracy == b.test_accuracy


BIG = """\
layer x: input NX
layer h: sigmoid NH bias
layer y: sigmoid 8 bias
connect x -> h full
connect h -> y full
net big { input x  hidden h  output y }
train { rate 0.1  epochs 1  momentum MOM  error mse  seed 3  init_scale 0.05 }
"""


@pytest.mark.parametrize("nx,nh,mom,nodes", [(300, 1500, "0", 4), (900, 900, "0.5", 2),
                                             (300, 1500, "0.5", 1)])
def test_staged_vectors_agree(nx, nh, mom, nodes):
    """Layers too large for on-chip RAM: their vectors live in SRAM and are
    copied into the on-chip stage (one block, or both for 1500 words) for
    the kernels that walk them; the results stay the reference's."""
    network = net(BIG.replace("NX", str(nx)).replace("NH", str(nh)).replace("MOM", mom))
    tr, te = random_data(network, 3, 1), random_data(network, 2, 2)
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes)
    assert sim.weights.max_difference(ref.model.weights) < WEIGHT_TOL
    y_ref = np.stack([ref.model.outputs(x) for x in tr.inputs])
    assert np.abs(sim.outputs[:len(tr)] - y_ref).max() < OUTPUT_TOL


def test_schedule_ends_training():
    # newbob stops when the error stops improving; the host follows it
    src = XOR.replace("rate 0.5", "rate newbob(rate=0.5, start_below=0.5, stop_below=0.5)")
    network = net(src.replace("epochs 4", "epochs 50"))
    ref = reference_train(network, xor_data(), c30_activations=True)
    sim = train(network, xor_data(), nodes=2)
    assert ref.stopped_by == sim.stopped_by == "schedule"
    assert [e.rate for e in sim.epochs] == [e.rate for e in ref.epochs]


def test_epochs_override_and_xor_learns():
    network = net(XOR, hidden=4)
    network.training.momentum = 0.9
    res = train(network, xor_data(), nodes=4, epochs=300)
    assert len(res.epochs) == 300 and res.stopped_by == "epochs"
    assert res.epochs[-1].train_accuracy == 1.0


def test_performance_figures():
    network = net(SOFTMAX)
    tr, te = random_data(network, 12, 3), random_data(network, 5, 4)
    res = train(network, tr, te, nodes=4)
    p = res.performance
    assert p.train.patterns == 3 * 12 and p.evaluate.patterns == 3 * 17
    conns = network.connections()
    assert p.mcups == pytest.approx(conns * p.train.patterns / (p.train.cycles / 16e6) / 1e6)
    assert p.mcps == pytest.approx(conns * p.evaluate.patterns / (p.evaluate.cycles / 16e6) / 1e6)
    assert 0 < p.mcups < p.mcps < p.peak_mcps == 64
    d = res.to_dict()
    json.dumps(d)
    assert d["performance"]["train"]["stalls"]["host_call"] == 0     # TRAIN calls excluded
    assert 0 < d["performance"]["train"]["ring_utilisation"] < 1
    assert set(d["performance"]["train"]["stalls"]) >= {"ring_read", "ring_write", "bus_conflict"}
    assert d["simulated_cycles"] >= p.train.cycles + p.evaluate.cycles
    assert res.host_seconds_per_pattern > 0


def test_measure_speech_shape():
    src = SOFTMAX.replace("input 6", "input 40").replace("sigmoid 9", "sigmoid 64")
    res = measure(net(src), MachineConfig(nodes=8), train_patterns=4, test_patterns=4)
    assert res.performance.train.patterns == 4 and res.performance.evaluate.patterns == 8
    assert res.performance.mcps > 0 and res.performance.mcups > 0


def test_database_in_dram_when_sram_is_short():
    network = net(SOFTMAX)
    tr = random_data(network, 2500, 5)          # 2500 x 10 words: more than the free SRAM
    cfg = MachineConfig(nodes=2, memory=MemoryConfig(sram_words=0x7000))
    res = train(network, tr, config=cfg, epochs=1)
    ref = reference_train(network, tr, c30_activations=True, epochs=1)
    assert res.database == "dram"
    # 2500 updates: the C30's truncating stores drift a little further
    assert res.weights.max_difference(ref.model.weights) < 10 * WEIGHT_TOL


def test_machine_stop_is_reported():
    with pytest.raises(TrainingFailed, match="cycle limit"):
        train(net(XOR), xor_data(), nodes=2, max_cycles=5000)


def test_data_shape_checked():
    network = net(XOR)
    bad = random_data(net(SOFTMAX), 4, 1)
    with pytest.raises(ValueError, match="input records have 6 values"):
        train(network, bad, nodes=1)
