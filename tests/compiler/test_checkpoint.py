"""Checkpoints (rapsim.compiler.checkpoint): what is saved comes back
exactly; the checks against the network."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.compiler.checkpoint import (TrainingState, check_weights, load_state,
                                        load_weights, save_state)
from rapsim.compiler.reference import EpochStats, initial_weights
from rapsim.errors import RapError

from netsrc import BASE, net

MOMENTUM = BASE + "train { momentum 0.5 }\n"


def _random_state(n, rng, epochs: int, test: bool) -> TrainingState:
    w = initial_weights(n, seed=int(rng.integers(1 << 30)), scale=float(rng.uniform(0.1, 9)))
    m = initial_weights(n, seed=int(rng.integers(1 << 30)))
    hist = [EpochStats(e, float(rng.random()), float(rng.random()), float(rng.random()),
                       float(rng.random()) if test else None,
                       float(rng.random()) if test else None) for e in range(epochs)]
    return TrainingState(w, m, epochs, int(rng.integers(1 << 31)), bool(rng.integers(2)),
                         float(rng.random()), hist, "schedule" if rng.integers(2) else "epochs",
                         int(rng.integers(1, 1000)))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 6), st.booleans())
def test_round_trip(tmp_path_factory, seed, epochs, test):
    n = net(MOMENTUM)
    state = _random_state(n, np.random.default_rng(seed), epochs, test)
    path = tmp_path_factory.mktemp("ck") / "s.npz"
    save_state(path, n, state)
    got = load_state(path, n)
    assert got.weights.max_difference(state.weights) == 0.0
    assert got.momentum.max_difference(state.momentum) == 0.0
    assert (got.epochs_done, got.order_seed, got.shuffle, got.rate, got.stopped_by,
            got.train_patterns) == (state.epochs_done, state.order_seed, state.shuffle,
                                    state.rate, state.stopped_by, state.train_patterns)
    assert got.history == state.history
    assert load_weights(path, n).max_difference(state.weights) == 0.0


def test_check_weights_names_the_difference():
    n = net(BASE)
    w = initial_weights(n)
    check_weights(n, w)
    w.connects["x->h"] = np.zeros((2, 2))
    with pytest.raises(RapError, match=r"connect x->h has shape \(2, 2\) there, \(3, 2\) here"):
        check_weights(n, w)
    w = initial_weights(n)
    del w.biases["h"]
    with pytest.raises(RapError, match="the bias of layer h is missing"):
        check_weights(n, w)


def test_momentum_must_match(tmp_path):
    plain, with_m = net(BASE), net(MOMENTUM)
    state = TrainingState(initial_weights(plain), None, 0)
    save_state(tmp_path / "p.npz", plain, state)
    with pytest.raises(RapError, match="saved without momentum"):
        load_state(tmp_path / "p.npz", with_m)
    state = TrainingState(initial_weights(with_m), initial_weights(with_m), 0)
    save_state(tmp_path / "m.npz", with_m, state)
    with pytest.raises(RapError, match="saved with momentum; network 'n' trains without"):
        load_state(tmp_path / "m.npz", plain)
    # the weights of either serve the other (--load)
    assert load_weights(tmp_path / "m.npz", plain).max_difference(state.weights) == 0.0


def test_inconsistent_history(tmp_path):
    n = net(BASE)
    save_state(tmp_path / "s.npz", n, TrainingState(initial_weights(n), None, 0))
    z = dict(np.load(tmp_path / "s.npz"))
    z["epochs_done"] = np.array(3)
    np.savez(tmp_path / "bad.npz", **z)
    with pytest.raises(RapError, match="epochs_done is 3 but the history has 0 epochs"):
        load_state(tmp_path / "bad.npz", n)
    z["epochs_done"] = np.array(0)
    z["stopped_by"] = np.array("tired")
    np.savez(tmp_path / "bad.npz", **z)
    with pytest.raises(RapError, match="stopped_by is 'tired'"):
        load_state(tmp_path / "bad.npz", n)
