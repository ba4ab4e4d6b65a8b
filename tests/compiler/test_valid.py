"""A validation set (``valid_set``, ``rap train --valid``): evaluated after
the training set and before the test set; its loss drives the schedule.
The simulated RAP agrees with the numpy reference on 1 and 4 nodes."""
from __future__ import annotations

import numpy as np
import pytest

from rapsim.compiler.checkpoint import _history, _history_array
from rapsim.compiler.reference import EpochStats
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train

from backend import DAG, agrees, net, random_data


def _net():
    return net(DAG)


@pytest.mark.parametrize("nodes", [1, 4])
def test_valid_agrees_with_reference(nodes):
    network = _net()
    tr, va, te = random_data(network, 12, 1), random_data(network, 5, 3), random_data(network, 7, 2)
    ref = reference_train(network, tr, te, c30_activations=True, valid_set=va)
    sim = train(network, tr, te, nodes=nodes, valid_set=va)
    agrees(sim, ref, tr, te)
    assert sim.valid_patterns == 5 and sim.test_patterns == 7
    yv = np.stack([ref.model.outputs(x) for x in va.inputs])
    assert np.abs(sim.outputs[12:17] - yv).max() < 1e-5
    for a, b in zip(sim.epochs, ref.epochs):
        assert a.valid_loss == pytest.approx(b.valid_loss, abs=1e-5)
        assert a.valid_accuracy == b.valid_accuracy
        assert a.error == a.valid_loss
    d = sim.to_dict()
    assert d["valid_patterns"] == 5 and "valid_loss" in d["epochs"][0]


def test_valid_drives_the_schedule():
    """The same run with the validation set and without it: the schedule
    follows the validation loss, not the test loss."""
    network = _net()
    tr, va, te = random_data(network, 12, 1), random_data(network, 5, 3), random_data(network, 7, 2)
    with_valid = reference_train(network, tr, te, valid_set=va, epochs=3)
    errors = [e.valid_loss for e in with_valid.epochs]
    assert [e.error for e in with_valid.epochs] == errors
    assert errors != [e.test_loss for e in with_valid.epochs]
    plain = reference_train(network, tr, te, epochs=3)
    assert [e.error for e in plain.epochs] == [e.test_loss for e in plain.epochs]
    assert all(e.valid_loss is None for e in plain.epochs)


def test_valid_only_without_test():
    network = _net()
    tr, va = random_data(network, 8, 1), random_data(network, 4, 3)
    ref = reference_train(network, tr, None, c30_activations=True, valid_set=va)
    sim = train(network, tr, None, nodes=4, valid_set=va)
    agrees(sim, ref, tr, None)
    assert sim.test_patterns == 0 and sim.valid_patterns == 4
    assert all(e.test_loss is None and e.valid_loss is not None for e in sim.epochs)


def test_history_keeps_valid_and_reads_old_files():
    h = [EpochStats(0, 0.5, 1.0, 0.5, None, None, 0.25, 0.75)]
    assert _history(_history_array(h)) == h
    old = np.array([[0, 0.5, 1.0, 0.5, 0.3, 0.6]])
    assert _history(old) == [EpochStats(0, 0.5, 1.0, 0.5, 0.3, 0.6)]
