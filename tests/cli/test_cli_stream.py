"""Databases streamed from host files in blocks (rapsim.compiler.stream):
the same weights, outputs and statistics as the in-memory database, forced
or chosen because the database does not fit; bad options."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.train import train

from clirun import net_file, rap

NET = """
layer x: input 40
layer h: sigmoid 7 bias
layer y: softmax 4 bias
connect x -> h
connect h -> y
net n { input x  output y }
train { rate 0.3  epochs 3  momentum 0.5  error cross_entropy  seed 2  init_scale 0.5 }
"""


@pytest.fixture
def files(tmp_path):
    net = net_file(tmp_path, NET)
    rng = np.random.default_rng(8)
    x = rng.random((1000, 40))
    labels = np.argmax(x[:, :4] + x[:, 4:8], axis=1)
    data = tmp_path / "d.npz"
    np.savez(data, inputs=x[:800], targets=np.eye(4)[labels[:800]],
             test_inputs=x[800:], test_targets=np.eye(4)[labels[800:]])
    return net, data


def _run(args, tmp_path, name, monkeypatch, capsys):
    js, saved = tmp_path / f"{name}.json", tmp_path / f"{name}.npz"
    rc, out, err = rap(args + ["--quiet", "--json", js, "--save", saved], monkeypatch, capsys)
    assert rc == 0, err
    return json.loads(js.read_text()), np.load(saved)


def _same_training(a, b) -> None:
    (ja, za), (jb, zb) = a, b
    assert ja["epochs"] == jb["epochs"]
    for k in za.files:
        if k.startswith(("w:", "b:", "m:", "mb:")):
            assert np.array_equal(za[k], zb[k]), k


@pytest.mark.parametrize("nodes, block", [(1, 64), (4, 7), (16, 1000)])
def test_forced_stream_equals_in_memory(nodes, block, files, tmp_path, monkeypatch, capsys):
    net, data = files
    args = ["train", net, "--data", data, "--nodes", nodes, "--epochs", 2]
    mem = _run(args, tmp_path, "mem", monkeypatch, capsys)
    streamed = _run(args + ["--stream", "--stream-block", block], tmp_path, "st", monkeypatch,
                    capsys)
    _same_training(mem, streamed)
    assert streamed[0]["database"].endswith(f"streamed in blocks of {block} records")
    assert "streamed" not in mem[0]["database"]
    # the streams' host calls are counted: more of them than in memory
    assert streamed[0]["machine"]["host_calls"] > mem[0]["machine"]["host_calls"]


@pytest.mark.parametrize("nodes", [1, 4])
def test_database_beyond_node_memory_is_streamed(nodes, files, tmp_path, monkeypatch, capsys):
    """1000 records of 44 words (44,000 words, with order and logs 46,000)
    fit neither 20,000 words of DRAM nor what 32 K of SRAM leaves."""
    net, data = files
    small = ["--sram-words", 32768, "--dram-words", 20000]
    args = ["train", net, "--data", data, "--nodes", nodes, "--epochs", 2]
    rc, out, err = rap(args + small + ["--quiet"], monkeypatch, capsys)
    assert rc == 0, err
    assert "streamed in blocks of 64 records" in out
    streamed = _run(args + small, tmp_path, "st", monkeypatch, capsys)
    mem = _run(args, tmp_path, "mem", monkeypatch, capsys)       # default memory: it fits
    _same_training(mem, streamed)
    assert streamed[0]["database"].startswith("sram, streamed")


def test_python_api_and_resume(files):
    net_path, data = files
    net = parse_file(str(net_path))
    db = load_patterns(str(data), net)
    whole = train(net, db.train, db.test, epochs=3)
    part = train(net, db.train, db.test, epochs=1, stream=True, stream_block=50)
    rest = train(net, db.train, db.test, epochs=2, stream=True, stream_block=33,
                 resume=part.state)
    assert np.array_equal(whole.outputs, rest.outputs)
    assert whole.weights.max_difference(rest.weights) == 0.0


def test_blocks_that_do_not_fit(files, monkeypatch, capsys):
    net, data = files
    rc, out, err = rap(["train", net, "--data", data, "--sram-words", 32768, "--dram-words",
                        20000, "--stream-block", 900, "--epochs", 1], monkeypatch, capsys)
    assert rc == 1
    assert "two blocks of 900 records" in err and "--stream-block" in err


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_bad_block_option(value, files, monkeypatch, capsys):
    net, data = files
    with pytest.raises(SystemExit) as e:
        rap(["train", net, "--data", data, "--stream-block", value], monkeypatch, capsys)
    assert e.value.code == 2
    assert "argument --stream-block" in capsys.readouterr().err
