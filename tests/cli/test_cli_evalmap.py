"""``rap cc``, ``rap train`` and ``rap bench`` with ``--eval-mapping`` (and
the net block's ``evaluate``) end to end: both mappings are printed and
named in --json, the evaluation agrees with the reference of its summation
order, and what is not supported is refused with a clear message and exit
status 1 (docs/compiler.md, "A mapping per pass")."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rapsim.compiler.data import load_patterns
from rapsim.compiler.evalmap import eval_columns
from rapsim.compiler.mapping import resolve
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import Model

from clirun import rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
XOR_NET = os.path.join(EXAMPLES, "xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")

#: the hidden layer's outputs split by columns in training
WIDE = """\
layer x: input 5
layer h: sigmoid 24 bias
layer o: softmax 6 bias
connect x -> h
connect h -> o split columns
net w { input x  hidden h  output o }
train { rate 0.1  epochs 2  error cross_entropy  seed 4  init_scale 0.3 }
"""


def _wide(tmp_path, extra: str = ""):
    src = tmp_path / "w.net"
    src.write_text(WIDE.replace("output o }", f"output o {extra}}}") if extra else WIDE)
    rng = np.random.default_rng(5)
    rows = [" ".join(f"{v:.4f}" for v in rng.random(5)) + f" | {k % 6}" for k in range(9)]
    pat = tmp_path / "w.pat"
    pat.write_text("\n".join(rows) + "\n")
    return src, pat


def test_cc_prints_both_mappings(tmp_path, monkeypatch, capsys):
    src, _ = _wide(tmp_path)
    rc, out, err = rap(["cc", src, "-o", tmp_path / "w.out", "--nodes", 4,
                        "--eval-mapping", "data", "--layout"], monkeypatch, capsys)
    assert rc == 0, err
    assert out.startswith("mapping columns (description)")
    assert ("evaluation mapping data (--eval-mapping): the whole weights on each of 4 nodes "
            "(all-gathered from the training slices at the start of each evaluation pass), "
            "patterns split") in out
    assert "ev_n_w_0" in out and "ev_n_w_1" in out


def test_train_json_names_both_mappings(tmp_path, monkeypatch, capsys):
    src, pat = _wide(tmp_path)
    js, saved = tmp_path / "r.json", tmp_path / "r.state"
    rc, out, err = rap(["train", src, "--data", pat, "--nodes", 4, "--eval-mapping", "data",
                        "--json", js, "--save", saved], monkeypatch, capsys)
    assert rc == 0, err
    assert "mapping columns, evaluated by data" in out
    assert "evaluation mapping data (--eval-mapping)" in err
    r = json.loads(js.read_text())
    assert r["mapping"]["name"] == "columns" and r["mapping"]["eval_mapping"] == "data"
    assert r["mapping"]["columns"] == ["h->o"]
    # the last evaluation pass against the reference of its order, with the
    # weights the training produced
    network = parse_file(src)
    from rapsim.compiler.checkpoint import load_state
    weights = load_state(saved, network).weights
    model = Model(network, weights, round_c30=True, c30_activations=True,
                  columns=eval_columns(network, resolve(network, 4)))
    data = load_patterns(pat, network).train
    from rapsim.compiler.reference import evaluate
    assert r["epochs"][-1]["train_loss"] == pytest.approx(evaluate(model, data).loss, abs=1e-5)


def test_the_description_word(tmp_path, monkeypatch, capsys):
    src, pat = _wide(tmp_path, " evaluate data ")
    rc, out, err = rap(["cc", src, "-o", tmp_path / "w.out", "--nodes", 4], monkeypatch, capsys)
    assert rc == 0, err
    assert "evaluation mapping data (description)" in out
    rc, out, err = rap(["cc", src, "-o", tmp_path / "w.out", "--nodes", 4,
                        "--eval-mapping", "same"], monkeypatch, capsys)
    assert rc == 0 and "evaluation mapping" not in out
    rc, out, err = rap(["cc", src, "-o", tmp_path / "x.out", "--nodes", 4, "--mapping", "data"],
                       monkeypatch, capsys)
    assert rc == 1
    assert f"{src}:6:38: evaluate data: the training mapping is data" in err
    assert not (tmp_path / "x.out").exists()


@pytest.mark.parametrize("command", ["cc", "train"])
@pytest.mark.parametrize("extra,message", [
    (["--mapping", "data"], "--eval-mapping data: the training mapping is data; an evaluation "
                            "mapping follows rows or columns only"),
    (["--mapping", "layers"], "the training mapping is layers"),
])
def test_refusals(command, extra, message, tmp_path, monkeypatch, capsys):
    args = ([command, XOR_NET] + (["-o", tmp_path / "x.out"] if command == "cc"
                                  else ["--data", XOR_PAT]) + ["--nodes", "4"]
            + extra + ["--eval-mapping", "data"])
    rc, out, err = rap(args, monkeypatch, capsys)
    assert rc == 1 and message in err
    assert not (tmp_path / "x.out").exists()


def test_forward_only_refused(tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["cc", XOR_NET, "-o", tmp_path / "x.out", "--forward-only",
                        "--eval-mapping", "data"], monkeypatch, capsys)
    assert rc == 1 and "--eval-mapping goes with a training program" in err


def test_unknown_value(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit) as e:
        rap(["cc", XOR_NET, "-o", tmp_path / "x.out", "--eval-mapping", "rows"],
            monkeypatch, capsys)
    assert e.value.code == 2


def test_bench_point(tmp_path, monkeypatch, capsys):
    res = tmp_path / "b.json"
    rc, out, err = rap(["bench", "--families", "square", "--square", 8, "--nodes", 4,
                        "--mapping", "columns", "--eval-mapping", "data", "--warmup", 1,
                        "--patterns", 1, "--results", res, "--no-plot", "--workers", 1,
                        "--quiet"], monkeypatch, capsys)
    assert rc == 0, err
    data = json.loads(res.read_text())
    recs = data if isinstance(data, list) else data["records"]
    (r,) = recs
    assert r["eval_mapping"] == "data" and r["mapping"] == "columns"
    assert r["network"] == "square 8-8-8 columns eval data"
    assert r["mcps"] > 0 and r["mcups"] > 0 and "error" not in r
    assert r["predicted_gather_cycles"] > 0
    assert r["predicted_eval_cycles_per_pattern"] == pytest.approx(r["eval_cycles_per_pattern"],
                                                                   rel=0.1)


@pytest.mark.parametrize("extra,message", [
    (["--mapping", "data"], "--eval-mapping data: the training mapping must be rows or columns"),
    (["--schedule", "pipeline"], "--eval-mapping data: schedule lockstep only"),
])
def test_bench_refusals(extra, message, tmp_path, monkeypatch, capsys):
    rc, out, err = rap(["bench", "--families", "square", "--square", 8, "--nodes", 4,
                        "--eval-mapping", "data", "--results", tmp_path / "b.json",
                        "--no-plot"] + extra, monkeypatch, capsys)
    assert rc == 1 and message in err


def test_plan_prices_the_evaluation_mapping(tmp_path, monkeypatch, capsys):
    src, _ = _wide(tmp_path)
    js = tmp_path / "p.json"
    rc, out, err = rap(["plan", src, "--nodes", 4, "--schedule", "lockstep",
                        "--eval-mapping", "data", "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "evaluated by data" in out
    rows = json.loads(js.read_text())["eval_mapping"]
    assert {r["mapping"].split()[0] for r in rows} == {"rows", "columns"}
    for r in rows:
        assert r["eval_mapping"] == "data" and r["forward_cycles"] > 0
        assert r["gather_cycles"] > 0 and r["mcps"] > 0


def test_plan_refuses_callbacks_with_an_evaluation_mapping(tmp_path, monkeypatch, capsys):
    src, _ = _wide(tmp_path)
    rc, out, err = rap(["plan", src, "--nodes", 4, "--eval-mapping", "data",
                        "--callback", "after_epoch"], monkeypatch, capsys)
    assert rc == 1 and "--eval-mapping data: host callbacks (--callback) are not supported" in err
