"""Several nets over one pool of layers and connects (compiler/nets.py): a
net and its sub-nets trained in turn, per epoch or per pattern, the shared
weights held once; against the reference on 1, 4 and 16 nodes; bad input."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics

from backend import net, random_data, simulated_against_reference

TOL = 1e-5

POOL = """\
layer x: input 5
layer h: tanh 7 bias
layer g: sigmoid 6 bias
layer y: sigmoid 3 bias
connect x -> h
connect h -> g
connect g -> y
connect h -> y
connect x -> y
net main { input x  hidden h, g  output y }
net short { input x  hidden h  output y }
net direct { input x  output y }
train { rate 0.3  epochs 5  momentum 0.4  seed 3  init_scale 0.6  alternate ALT }
"""


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("alt", ["epoch", "pattern"])
def test_agrees_with_reference(nodes, alt):
    network = net(POOL.replace("ALT", alt))
    assert [n.name for n in network.nets] == ["short", "direct"]
    assert network.nets[0].forward_order == ["x", "h", "y"]
    assert network.nets[1].forward_order == ["x", "y"]
    tr, te = random_data(network, 10, 1), random_data(network, 4, 2)
    simulated_against_reference(network, tr, te, nodes)


def test_the_sub_nets_really_train_in_turn():
    """Per epoch: epoch 1 trains 'short' only, so g's bias and the g->y
    weights stay as epoch 0 left them; epoch 2 ('direct') moves only x->y
    and y's bias."""
    network = net(POOL.replace("ALT", "epoch"))
    tr = random_data(network, 6, 1)
    w = []
    train(network, tr, nodes=4, epochs=3,
          callbacks={"after_epoch": lambda ctx: w.append(ctx.weights())})
    same = lambda a, b: np.array_equal(a, b)
    assert same(w[1].connects["g->y"], w[0].connects["g->y"])
    assert same(w[1].biases["g"], w[0].biases["g"])
    assert not same(w[1].connects["h->y"], w[0].connects["h->y"])
    for k in ("x->h", "h->g", "g->y", "h->y"):
        assert same(w[2].connects[k], w[1].connects[k]), k
    assert not same(w[2].connects["x->y"], w[1].connects["x->y"])


def test_shared_weights_are_held_once():
    network = net(POOL.replace("ALT", "pattern"))
    plan = compile_network(network, 4).plan
    names = [cp.weights.name for cp in plan.connects]
    assert len(names) == len(set(names)) == 5
    src = compile_network(network, 4).source
    assert "pattern_net1:" in src and "pattern_net2:" in src and "netsel" in src


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_example_trains_through_the_cli(nodes, tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    here = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", os.path.join(here, "subnet.net"), "--data",
                        os.path.join(here, "xor.pat"), "--nodes", nodes, "--json", js, "--quiet"],
                       monkeypatch, capsys)
    assert rc == 0, err
    r = json.loads(js.read_text())
    from rapsim.compiler.data import load_patterns
    network = parse_file(os.path.join(here, "subnet.net"))
    ref = reference_train(network, load_patterns(os.path.join(here, "xor.pat"), network).train,
                          c30_activations=True)
    assert np.allclose([e["train_loss"] for e in r["epochs"]],
                       [e.train_loss for e in ref.epochs], atol=1e-5)
    assert r["epochs"][-1]["train_accuracy"] == 1.0


BAD = {
    "subnet_input": ("net d { input h  output y }\n",
                     ["12:5: error: net 'd': input 'h' is not an input of the main net "
                      "(a sub-net reads the main net's patterns)"]),
    "subnet_output": ("net d { input x  hidden h  output g }\n",
                      ["12:5: error: net 'd': output 'g' is not an output of the main net "
                       "(a sub-net learns the main net's targets)"]),
    "unreached": ("net d { input x  hidden g  output y }\n",
                  ["12:5: error: net 'd': layer 'g' is not reached from the net's inputs "
                   "through its connects"]),
    "same_name": ("net main { input x  output y }\n",
                  ["12:5: error: net 'main' is already defined (at t.net:10:5)"]),
    "unknown_layer": ("net d { input x  output q }\n", ["12:25: error: unknown layer 'q'"]),
    "no_output": ("net d { input x }\n", ["12:5: error: net 'd' needs input and output layers"]),
    "alternate": ("", ["11:77: error: alternate must be epoch or pattern, not sometimes"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_nets(case):
    extra, want = BAD[case]
    alt = "sometimes" if case == "alternate" else "epoch"
    src = POOL.replace("ALT", alt).replace("net short { input x  hidden h  output y }\n"
                                           "net direct { input x  output y }\n", "") + extra
    with pytest.raises(Diagnostics) as e:
        net(src)
    assert [m.split("t.net:", 1)[1] for m in e.value.messages] == want


def test_bad_nets_through_the_cli(tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    bad = tmp_path / "bad.net"
    bad.write_text(POOL.replace("ALT", "epoch").replace("net direct { input x  output y }",
                                                        "net direct { input h  output y }"))
    pat = tmp_path / "p.pat"
    pat.write_text("1 0 1 0 1 | 1 0 1\n")
    for cmd in (["cc", bad, "-o", tmp_path / "o.out"], ["train", bad, "--data", pat]):
        rc, out, err = rap(cmd, monkeypatch, capsys)
        assert rc == 1 and f"{bad}:12:5: error: net 'direct': input 'h' is not an input" in err
