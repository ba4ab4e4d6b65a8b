"""Networks and data shared by the back-end tests (lowering, code
generation, training on the simulated RAP)."""
from __future__ import annotations

import textwrap

import numpy as np

from rapsim.compiler.data import PatternSet
from rapsim.compiler.parser import parse_text

XOR = """\
param hidden = 3
layer x: input 2
layer h: sigmoid hidden bias
layer y: sigmoid 1 bias
connect x -> h full
connect h -> y full
net xor { input x  hidden h  output y }
train { rate 0.5  epochs 4  momentum 0.5  error mse  seed 1  init_scale 1.0 }
"""

#: A DAG with every supported kind: a skip connection (x -> o), a bus
#: connect, tanh and linear hidden layers, cross-entropy on sigmoid outputs.
DAG = """\
layer x: input 5
layer a: tanh 7 bias
layer b: linear 7
layer c: sigmoid 6 bias
layer o: sigmoid 3 bias
connect x -> a full
connect a -> b bus
connect b -> c full
connect a -> c full
connect c -> o full
connect x -> o full
net dag { input x  hidden a, b, c  output o }
train { rate 0.2  epochs 3  momentum 0.3  error cross_entropy  seed 5  init_scale 0.5 }
"""

SOFTMAX = """\
layer x: input 6
layer h: sigmoid 9 bias
layer o: softmax 4 bias
connect x -> h full
connect h -> o full
net s { input x  hidden h  output o }
train { rate 0.1  epochs 3  error cross_entropy  seed 2  init_scale 0.3 }
"""

#: Sparse connects of both kinds: a local receptive field (a band: the
#: strided dense kernels), explicit lists and a random generator (the
#: sparse kernels, through index tables; rows without pairs), into layers
#: that also have full connects.
SPARSE = """\
layer x: input 12
layer h: tanh 5 bias
layer g: sigmoid 6
layer o: sigmoid 3 bias
connect x -> h sparse local(4, stride=2)
connect x -> g sparse [0 -> 0, 3 -> 0, 11 -> 0, 5 -> 2, 6 -> 2, 1 -> 3, 2 -> 4, 7 -> 4,
                       8 -> 4, 9 -> 4, 10 -> 5]
connect h -> o sparse random(3, seed=4)
connect g -> o full
connect h -> g sparse [0 -> 1, 4 -> 1, 2 -> 5]
net sp { input x  hidden h, g  output o }
train { rate 0.3  epochs 3  momentum 0.5  error mse  seed 3  init_scale 0.5 }
"""


def net(src: str, **params):
    return parse_text(textwrap.dedent(src), "t.net", params or None)


def diagnostics(src: str) -> str:
    """The messages of a description that must be refused (Diagnostics)."""
    from rapsim.errors import Diagnostics
    try:
        net(src)
    except Diagnostics as e:
        return str(e)
    raise AssertionError("the description was accepted")


def xor_data() -> PatternSet:
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    return PatternSet(x, np.array([[0], [1], [1], [0]], dtype=float))


def random_data(network, count: int, seed: int) -> PatternSet:
    rng = np.random.default_rng(seed)
    n_in = sum(network.layers[n].size for n in network.inputs)
    outs = []
    for name in network.outputs:
        size = network.layers[name].size
        if network.layers[name].kind == "softmax":
            t = np.zeros((count, size))
            t[np.arange(count), rng.integers(0, size, count)] = 1.0
        else:
            t = (rng.random((count, size)) > 0.5).astype(float)
        outs.append(t)
    return PatternSet(rng.random((count, n_in)), np.concatenate(outs, axis=1))

#: A binary input layer (an index list, the column-sum kernels) beside a
#: dense input, into two layers; with momentum (active columns only).
BINARY = """\
layer b: binary 40
layer x: input 3
layer h: tanh 9 bias
layer g: sigmoid 4
layer o: sigmoid 3 bias
connect b -> h full
connect x -> h full
connect b -> g full
connect h -> o full
connect g -> o full
net bin { input b, x  hidden h, g  output o }
train { rate 0.2  epochs 3  momentum 0.5  error mse  seed 6  init_scale 0.5 }
"""


def binary_data(network, n: int, seed: int, active: int = 5) -> PatternSet:
    """Patterns with ``active`` units of each binary layer on (dense inputs
    and targets as random_data)."""
    p = random_data(network, n, seed)
    rng = np.random.default_rng(seed + 100)
    col = 0
    for name in network.inputs:
        size = network.layers[name].size
        if network.layers[name].kind == "binary":
            block = np.zeros((n, size))
            for i in range(n):
                block[i, rng.choice(size, min(active, size), replace=False)] = 1.0
            p.inputs[:, col:col + size] = block
        col += size
    return p

#: A thresholded binary hidden layer (0/1 units, index list, column sums)
#: between a dense input and a sigmoid layer, with a skip connection.
THRESHOLD = """\
layer x: input 6
layer h: tanh 8 bias
layer t: threshold 12 bias
layer o: sigmoid 3 bias
connect x -> h full
connect h -> t full
connect t -> o full
connect x -> o full
net th { input x  hidden h, t  output o }
train { rate 0.2  epochs 3  momentum 0.5  error mse  seed 8  init_scale 0.8 }
"""


def simulated_against_reference(network, tr, te, nodes: int, tol: float = 1e-5):
    """Train ``network`` on the simulated RAP and with the reference (C30
    activations); assert that the weights, the training and the test
    outputs and the epochs' losses agree within ``tol``.  Returns (the
    simulation's result, the reference's)."""
    from rapsim.compiler.reference import train as reference_train
    from rapsim.compiler.train import train
    ref = reference_train(network, tr, te, c30_activations=True)
    sim = train(network, tr, te, nodes=nodes)
    agrees(sim, ref, tr, te, tol, every_figure=False)
    return sim, ref


#: how close the simulated RAP's weights and outputs are to the reference's
WEIGHT_TOL = 1e-5
OUTPUT_TOL = 1e-5


def agrees(sim, ref, tr, te, tol: float = WEIGHT_TOL, every_figure: bool = True) -> None:
    """Assert that the simulated run ``sim`` (a TrainResult) matches the
    reference run ``ref`` within ``tol``: weights, outputs on the training
    and test sets, every epoch's loss (``every_figure``: its rate and
    accuracy too)."""
    assert sim.weights.max_difference(ref.model.weights) < tol
    y_ref = np.stack([ref.model.outputs(x) for x in tr.inputs])
    assert np.abs(sim.outputs[:len(tr)] - y_ref).max() < tol
    if te is not None:
        yt_ref = np.stack([ref.model.outputs(x) for x in te.inputs])
        assert np.abs(sim.test_outputs - yt_ref).max() < tol
    assert len(sim.epochs) == len(ref.epochs)
    for a, b in zip(sim.epochs, ref.epochs):
        assert abs(a.train_loss - b.train_loss) < tol
        if every_figure:
            assert a.rate == b.rate and a.train_accuracy == b.train_accuracy
