"""Behaviours (compiler/behaviours.py): host callbacks through the Python
API -- a host call that stops every node at its point, counted in the
simulated time -- that read and change weights and activations and stop
training keeping the results so far; user assembly routines linked into the
image at hook points; bad input."""
from __future__ import annotations

import os

import numpy as np
import pytest

from rapsim.compiler.build import compile_network
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model, initial_weights, train as reference_train
from rapsim.compiler.train import train
from rapsim.errors import Diagnostics, RapError

from backend import XOR, net, random_data, xor_data

TOL = 1e-5


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_read_weights_after_every_epoch(nodes):
    network = net(XOR)
    data = xor_data()
    seen = []
    res = train(network, data, nodes=nodes,
                callbacks={"after_epoch": lambda ctx: seen.append((ctx.epoch, ctx.weights()))})
    assert [e for e, _ in seen] == [0, 1, 2, 3]
    for e, w in seen:
        ref = reference_train(network, data, c30_activations=True, epochs=e + 1)
        assert w.max_difference(ref.model.weights) < TOL
    assert res.stopped_by == "epochs"
    assert seen[-1][1].max_difference(res.weights) == 0


@pytest.mark.parametrize("nodes", [1, 4])
def test_stop_keeps_the_results_so_far(nodes):
    network = net(XOR)
    data = xor_data()

    def stop_after_two(ctx):
        if ctx.epoch == 1:
            ctx.stop()
    res = train(network, data, nodes=nodes, callbacks={"after_epoch": stop_after_two})
    ref = reference_train(network, data, c30_activations=True, epochs=2)
    assert res.stopped_by == "behaviour"
    assert len(res.epochs) == 2
    assert res.weights.max_difference(ref.model.weights) < TOL
    for a, b in zip(res.epochs, ref.epochs):
        assert a.train_loss == pytest.approx(b.train_loss, abs=1e-5)


def test_stop_in_the_middle_of_an_epoch():
    network = net(XOR)
    data = xor_data()
    calls = []

    def stop(ctx):
        calls.append(ctx.pattern)
        if len(calls) == 6:                  # the second pattern of epoch 1
            ctx.stop()
    res = train(network, data, nodes=4, callbacks={"after_backward": stop})
    assert len(calls) == 6 and res.stopped_by == "behaviour"
    assert len(res.epochs) == 1              # epoch 0 finished and evaluated
    m = Model(network, initial_weights(network), round_c30=True, c30_activations=True)
    from rapsim.compiler.reference import pattern_order
    rate = 0.5
    for e, count in ((0, 4), (1, 2)):
        for i in pattern_order(4, e, 1)[:count]:
            m.train_pattern(data.inputs[i], data.targets[i], rate)
    assert res.weights.max_difference(m.weights) < TOL
    assert calls == list(pattern_order(4, 0, 1)) + list(pattern_order(4, 1, 1)[:2])


@pytest.mark.parametrize("nodes", [1, 4])
def test_set_weights_before_training(nodes):
    network = net(XOR)
    data = xor_data()
    w = initial_weights(network, seed=42, scale=0.7)

    def put(ctx):
        assert ctx.epoch == -1
        ctx.set_weights(w)
    res = train(network, data, nodes=nodes, callbacks={"before_training": put})
    ref = reference_train(network, data, weights=w, c30_activations=True)
    assert res.weights.max_difference(ref.model.weights) < TOL


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_activations_read_and_changed(nodes):
    """after_forward of layer h: the activations are the reference's; set to
    zero, the h->y weights never move (their update is d h^T)."""
    network = net(XOR)
    data = xor_data()
    w0 = initial_weights(network)
    got = []

    def look(ctx):
        if len(got) < 4 and ctx.epoch == 0:
            got.append((ctx.pattern, ctx.activations("h")))
    train(network, data, nodes=nodes, epochs=1, callbacks={("after_forward", "h"): look})
    m = Model(network, w0, round_c30=True, c30_activations=True)
    first, acts = got[0]
    assert np.abs(acts - m.forward(data.inputs[first])["h"]).max() < TOL

    res = train(network, data, nodes=nodes, epochs=2,
                callbacks={("after_forward", "h"): lambda ctx: ctx.set_activations("h", [0, 0, 0])})
    assert np.all(res.weights.connects["h->y"] == w0.connects["h->y"].astype(np.float32))
    assert np.any(res.weights.biases["y"] != w0.biases["y"].astype(np.float32))


def test_host_calls_are_counted():
    network = net(XOR)
    data = xor_data()
    plain = train(network, data, nodes=4, epochs=1)
    hooked = train(network, data, nodes=4, epochs=1, callbacks={"before_forward": lambda c: None})
    extra = hooked.performance.train.cycles - plain.performance.train.cycles
    assert extra >= 4 * 1600                 # 4 patterns x the host call's 1600 cycles


def test_bad_callbacks():
    network = net(XOR)
    data = xor_data()
    for cb, msg in [({"before_lunch": print}, "unknown event 'before_lunch'"),
                    ({("after_epoch", "h"): print}, "event after_epoch takes a net, not a layer"),
                    ({("before_training", "xor"): print}, "event before_training takes no layer"),
                    ({("after_forward", "q"): print}, "unknown layer or net 'q'"),
                    ({("after_forward", "x"): print}, "x is an input layer"),
                    ({"after_epoch": 3}, "is not callable")]:
        with pytest.raises(ValueError, match=msg):
            train(network, data, callbacks=cb)


# -- user assembly routines -------------------------------------------------------

CLIP = """\
* after_backward: clip layer y's bias to [-0.25, 0.25] (a behaviour routine:
* AR2 epoch, AR3 pattern, AR4 own activations, AR5 own units; the
* firmware's calling convention)
        .global _clip
        .global n_bias_y
        .text
_clip:  LDI     @k_bias, AR0
        LDF     *AR0, R0
        LDF     0.25, R1
        CMPF    R1, R0
        LDFGT   R1, R0
        NEGF    R1, R1
        CMPF    R1, R0
        LDFLT   R1, R0
        STF     R0, *AR0
        PUSH    DP
        LDP     count
        LDI     @count, R0
        ADDI    1, R0
        STI     R0, @count
        POP     DP
        RETS
        .data
count:  .word   0
k_bias: .word   n_bias_y
        .global count
"""


def _clip_net(tmp_path, extra=""):
    (tmp_path / "clip.asm").write_text(CLIP)
    src = tmp_path / "t.net"
    src.write_text(XOR.replace("layer y: sigmoid 1 bias", "layer y: sigmoid 1 bias") +
                   'behaviour after_backward call _clip "clip.asm"\n' + extra)
    return src


@pytest.mark.parametrize("nodes", [1, 4])
def test_assembly_routine_runs_at_its_point(nodes, tmp_path):
    network = parse_file(_clip_net(tmp_path))
    network.training.rate.params["rate"] = 3.0
    data = xor_data()
    prog = compile_network(network, nodes)
    assert "CALL    _clip" in prog.source
    from rapsim.compiler.train import run_program
    from rapsim.config import MachineConfig
    res = run_program(prog, MachineConfig(nodes=nodes), data)
    b = res.weights.biases["y"]
    assert np.all(np.abs(b) <= 0.25)
    # the reference with the same clipping after every pattern
    m = Model(network, initial_weights(network), round_c30=True, c30_activations=True)
    from rapsim.compiler.reference import pattern_order
    for e in range(network.training.epochs):
        for i in pattern_order(4, e, 1):
            m.train_pattern(data.inputs[i], data.targets[i], 3.0)
            m.weights.biases["y"] = np.clip(m.weights.biases["y"], -0.25, 0.25)
    assert res.weights.max_difference(m.weights) < TOL


BAD = [
    ('behaviour after_lunch call _clip "clip.asm"\n', "9:11: error: unknown event 'after_lunch'"),
    ('behaviour after_epoch h call _clip "clip.asm"\n', "9:23: error: event after_epoch takes a net, not a layer"),
    ('behaviour after_training xor call _clip "clip.asm"\n', "9:26: error: event after_training takes no layer or net"),
    ('behaviour after_forward q call _clip "clip.asm"\n', "9:25: error: unknown layer or net 'q'"),
    ('behaviour after_forward x call _clip "clip.asm"\n', "9:1: error: layer 'x' is an input"),
    ('behaviour after_epoch host\n', "9:23: error: expected 'call ROUTINE \"FILE\"'"),
    ('behaviour after_epoch call _clip\n', "9:28: error: call _clip: the assembly file"),
    ('behaviour after_epoch call _clip "nope.asm"\n', "9:34: error: cannot read 'nope.asm'"),
    ('behaviour after_epoch call _a _b "clip.asm"\n', "9:23: error: call takes one routine"),
]


@pytest.mark.parametrize("line,message", BAD)
def test_bad_behaviours(line, message, tmp_path):
    (tmp_path / "clip.asm").write_text(CLIP)
    src = tmp_path / "t.net"
    src.write_text(XOR + line)
    with pytest.raises(Diagnostics) as e:
        parse_file(src)
    assert any(m.startswith(f"{src}:{message}") for m in e.value.messages), e.value.messages


def test_missing_routine_and_cli(tmp_path, monkeypatch, capsys):
    from clirun_compiler import rap
    (tmp_path / "clip.asm").write_text(CLIP)
    src = tmp_path / "t.net"
    src.write_text(XOR + 'behaviour after_epoch call _nothere "clip.asm"\n')
    rc, out, err = rap(["cc", src, "-o", tmp_path / "o.out"], monkeypatch, capsys)
    assert rc == 1 and f"{src}:9:28: error: behaviour after_epoch:" in err
    assert "does not define _nothere" in err


def test_per_net_hooks():
    """A pass hook of one net runs for that net's patterns only; ctx.net
    names the net of every pattern."""
    from test_nets import POOL
    network = net(POOL.replace("ALT", "pattern"))
    data = random_data(network, 6, 1)
    every, direct = [], []
    train(network, data, nodes=4, epochs=2,
          callbacks={"after_backward": lambda ctx: every.append(ctx.net),
                     ("after_backward", "direct"): lambda ctx: direct.append(ctx.net)})
    assert every == ["main", "short", "direct"] * 4
    assert direct == ["direct"] * 4


def test_per_net_assembly_routine(tmp_path):
    from test_nets import POOL
    (tmp_path / "clip.asm").write_text(CLIP.replace("n_bias_y", "n_bias_y"))
    src = tmp_path / "t.net"
    src.write_text(POOL.replace("ALT", "epoch") + 'behaviour after_backward short call _clip "clip.asm"\n')
    network = parse_file(src)
    text = compile_network(network, 1).source
    body = text.split("pattern_net1:")[1].split("pattern_net2:")[0]
    assert body.count("CALL    _clip") == 1 and text.count("CALL    _clip") == 1


@pytest.mark.parametrize("nodes", [1, 4, 16])
def test_assembly_behaviour_through_rap_train(nodes, tmp_path, monkeypatch, capsys):
    """`rap train` of a description with a behaviour routine (clip y's bias
    after every pattern): the losses are the reference's with the same
    clipping."""
    import json
    from clirun_compiler import rap
    from rapsim.compiler.reference import evaluate, pattern_order
    src = _clip_net(tmp_path)
    pat = tmp_path / "xor.pat"
    pat.write_text("0 0 | 0\n0 1 | 1\n1 0 | 1\n1 1 | 0\n")
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", src, "--data", pat, "--nodes", nodes, "--json", js, "--quiet"],
                       monkeypatch, capsys)
    assert rc == 0, err
    got = [e["train_loss"] for e in json.loads(js.read_text())["epochs"]]
    network = parse_file(src)
    data = xor_data()
    m = Model(network, initial_weights(network), c30_activations=True)
    want = []
    for e in range(network.training.epochs):
        for i in pattern_order(4, e, 1):
            m.train_pattern(data.inputs[i], data.targets[i], 0.5)
            m.weights.biases["y"] = np.clip(m.weights.biases["y"], -0.25, 0.25)
        want.append(evaluate(m, data).loss)
    assert np.allclose(got, want, atol=1e-5)


def test_callbacks_read_the_parameters():
    network = net(XOR)
    got = []
    train(network, xor_data(), epochs=1,
          callbacks={"before_training": lambda ctx: got.append(ctx.params)})
    assert got == [{"hidden": 3}]


def test_set_weights_checks_shapes():
    network = net(XOR)

    def put(ctx):
        w = ctx.weights()
        w.connects["x->h"] = w.connects["x->h"][:, :1]
        ctx.set_weights(w)
    with pytest.raises(ValueError, match=r"connects 'x->h' has shape \(3, 1\), not \(3, 2\)"):
        train(network, xor_data(), epochs=1, callbacks={"before_training": put})


def test_per_net_epoch_hooks():
    """alternate epoch: a net's epoch hooks run in the epochs that train it
    (ctx.net names it); hooks of every epoch still run in all."""
    from test_nets import POOL
    network = net(POOL.replace("ALT", "epoch"))
    data = random_data(network, 4, 1)
    every, short = [], []
    train(network, data, nodes=4, epochs=5,
          callbacks={"before_epoch": lambda ctx: every.append((ctx.epoch, ctx.net)),
                     ("after_epoch", "short"): lambda ctx: short.append((ctx.epoch, ctx.net))})
    assert every == [(0, "main"), (1, "short"), (2, "direct"), (3, "main"), (4, "short")]
    assert short == [(1, "short"), (4, "short")]


def test_per_net_epoch_routine(tmp_path):
    from test_nets import POOL
    (tmp_path / "clip.asm").write_text(CLIP)
    src = tmp_path / "t.net"
    src.write_text(POOL.replace("ALT", "epoch") + 'behaviour before_epoch direct call _clip "clip.asm"\n')
    text = compile_network(parse_file(src), 1).source
    assert text.count("CALL    _clip") == 1
    head = text.split("CALL    _clip")[0].rsplit("BNE", 1)[0]
    assert head.rstrip().endswith("CMPI    2, R0")       # only in the epochs of net 'direct'
