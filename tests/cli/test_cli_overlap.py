"""``--overlap`` on ``rap cc``, ``rap train`` and ``rap bench`` end to end:
named in the output and in --json, a dimension of the bench sweep, the
same training as without it, and refused clearly where not supported."""
from __future__ import annotations

import json

import pytest

from rapsim.sweep import load_results

from clirun import rap

NET = """
layer x: input 6
layer h: sigmoid 20 bias
layer y: sigmoid 9
connect x -> h full
connect h -> y full
net n { input x; hidden h; output y }
train { rate 0.1; epochs 2; momentum 0; seed 1 }
"""


def patterns(outputs: int) -> str:
    """Eight patterns of NET's 6 inputs and ``outputs`` one-hot targets."""
    return "\n".join(" ".join(str((i * 7 + j * 3) % 5 / 4) for j in range(6)) + " | "
                     + " ".join("1" if (i + j) % outputs == 0 else "0" for j in range(outputs))
                     for i in range(8)) + "\n"


PATTERNS = patterns(9)


@pytest.fixture
def files(tmp_path):
    net, pat = tmp_path / "n.net", tmp_path / "n.pat"
    net.write_text(NET)
    pat.write_text(PATTERNS)
    return net, pat


def train_off_on(net, pat, nodes, tmp_path, monkeypatch, capsys, *extra):
    """``rap train`` with ``--overlap off`` and ``on``: {ov: (--json record, stdout)};
    the weights saved to ``tmp_path/OV.npz``."""
    runs = {}
    for ov in ("off", "on"):
        js = tmp_path / f"{ov}.json"
        rc, out, err = rap(["train", net, "--data", pat, "--nodes", nodes, "--overlap", ov,
                            "--json", js, "--save", tmp_path / f"{ov}.npz", *extra],
                           monkeypatch, capsys)
        assert rc == 0, err
        runs[ov] = json.loads(js.read_text()), out
    return runs


def test_train_overlap_on_is_named_and_trains_the_same(files, tmp_path, monkeypatch, capsys):
    net, pat = files
    both = train_off_on(net, pat, 4, tmp_path, monkeypatch, capsys)
    for ov, (_, out) in both.items():
        assert ("overlap ring" in out) == (ov == "on")
    runs = {ov: js for ov, (js, _) in both.items()}
    assert runs["on"]["overlap"] == "ring" and runs["off"]["overlap"] == "off"
    assert [e["train_loss"] for e in runs["on"]["epochs"]] == \
        [e["train_loss"] for e in runs["off"]["epochs"]]
    assert (tmp_path / "on.npz").read_bytes() == (tmp_path / "off.npz").read_bytes()


def test_cc_overlap(files, tmp_path, monkeypatch, capsys):
    net, _ = files
    asm = {}
    for ov in ("off", "on"):
        rc, out, err = rap(["cc", net, "-o", tmp_path / f"{ov}.img", "-S", tmp_path / f"{ov}.s",
                            "--nodes", 4, "--overlap", ov], monkeypatch, capsys)
        assert rc == 0, err
        asm[ov] = (tmp_path / f"{ov}.s").read_text()
    rc, out, err = rap(["cc", net, "-o", tmp_path / "d.img", "-S", tmp_path / "d.s", "--nodes", 4],
                       monkeypatch, capsys)
    assert rc == 0 and (tmp_path / "d.s").read_text() == asm["off"]
    assert "_ring_rs_mxout" in asm["on"] and "_ring_rs_mxout" not in asm["off"]


@pytest.mark.parametrize("args,message", [
    (["--overlap", "dma"], "overlap dma is not supported"),
    (["--overlap", "on", "--forward-only"], "--overlap goes with a training program"),
])
def test_cc_refuses(files, tmp_path, monkeypatch, capsys, args, message):
    net, _ = files
    rc, out, err = rap(["cc", net, "-o", tmp_path / "x.img", "--nodes", 4, *args],
                       monkeypatch, capsys)
    assert rc == 1 and message in err


def test_bench_overlap_is_a_dimension(tmp_path, monkeypatch, capsys):
    results = tmp_path / "r.json"
    rc, out, err = rap(["bench", "--families", "speech", "--hidden", "16", "--nodes", "4",
                        "--warmup", "1", "--patterns", "1", "--workers", "1", "--quiet",
                        "--overlap", "off,on", "--results", results, "--no-plot"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "speech 234-16-61 overlap on" in out
    recs = load_results(str(results))
    by = {r.get("overlap", "off"): r for r in recs}
    assert set(by) == {"off", "on"} and "overlap" not in by["off"]["point"]
    assert by["on"]["point"]["overlap"] == "on" and by["on"]["mcups"] > 0
    # the forward pass has no reduce-scatter: the same MCPS
    assert by["on"]["mcps"] == by["off"]["mcps"]
    rc, out, err = rap(["bench", "--families", "speech", "--hidden", "16", "--nodes", "4",
                        "--overlap", "dma", "--results", results], monkeypatch, capsys)
    assert rc == 1 and "--overlap: overlap dma is not supported" in err


def test_each_reduce_scatter_is_reported(files, tmp_path, monkeypatch, capsys):
    """overlap on never leaves a reduce-scatter blocking silently: rap cc and
    rap train name each one, overlapped (during which update) or blocking
    and why; --json lists them as overlap_collectives."""
    net, pat = files
    rc, out, err = rap(["cc", net, "-o", tmp_path / "a.img", "--nodes", 4, "--overlap", "on"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "the reduce-scatter of h runs during the update of h->y" in out
    mom = tmp_path / "m.net"
    mom.write_text(NET.replace("momentum 0;", "momentum 0.5;"))
    js = tmp_path / "m.json"
    rc, out, err = rap(["train", mom, "--data", pat, "--nodes", 4, "--overlap", "on",
                        "--json", js], monkeypatch, capsys)
    assert rc == 0, err
    assert "the reduce-scatter of h stays blocking: with momentum: 20 - 4 x 5 < 12 x 4" in out
    rep = json.loads(js.read_text())["overlap_collectives"]
    assert rep == [{"layer": "h", "overlapped": False, "update": "h->y",
                    "reason": "with momentum: 20 - 4 x 5 < 12 x 4 nodes "
                              "(the fused chain is slower there)"}]
    js_off = tmp_path / "off.json"
    rc, out, err = rap(["train", mom, "--data", pat, "--nodes", 4, "--json", js_off],
                       monkeypatch, capsys)
    assert rc == 0 and "overlap_collectives" not in json.loads(js_off.read_text())
    assert "reduce-scatter" not in out


def test_a_cheaper_rotation_is_reported(tmp_path, monkeypatch, capsys):
    """Where --collectives takes the rotation and it is predicted cheaper
    than the fused chain (8 hidden units a node on 64 nodes), overlap on
    keeps it blocking and says why, in the output and in --json; the
    training is the same as with overlap off."""
    net, pat = tmp_path / "w.net", tmp_path / "w.pat"
    net.write_text(NET.replace("sigmoid 20", "sigmoid 512").replace("epochs 2", "epochs 1"))
    pat.write_text("\n".join(PATTERNS.splitlines()[:3]) + "\n")
    rc, out, err = rap(["cc", net, "-o", tmp_path / "a.img", "--nodes", 64, "--overlap", "on"],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "the reduce-scatter of h stays blocking: the rotation (_ring_rs_rot" in out
    assert "is cheaper than the fused chain's reduce-scatter" in out
    runs = {ov: js for ov, (js, _) in
            train_off_on(net, pat, 64, tmp_path, monkeypatch, capsys).items()}
    rep = runs["on"]["overlap_collectives"]
    assert len(rep) == 1 and not rep[0]["overlapped"] and "_ring_rs_rot" in rep[0]["reason"]
    assert [c["routine"] for c in runs["on"]["collectives"]] == \
        [c["routine"] for c in runs["off"]["collectives"]]
    assert "_ring_rs_rot" in [c["routine"] for c in runs["on"]["collectives"]]
    assert runs["on"]["simulated_cycles"] == runs["off"]["simulated_cycles"]
    assert [e["train_loss"] for e in runs["on"]["epochs"]] == \
        [e["train_loss"] for e in runs["off"]["epochs"]]


def test_each_forward_all_gather_is_reported(tmp_path, monkeypatch, capsys):
    """``--overlap on`` and the forward all-gather streamed into the product:
    rap cc and rap train name each gathered layer's outcome (the blocking
    pair kept, and why), rap train --json lists them as overlap_gathers, and
    the training is the same as with overlap off (3 outputs: at most 2 rows a
    node on 4 nodes, where the fused kernel applies)."""
    net, pat = tmp_path / "n.net", tmp_path / "n.pat"
    net.write_text(NET.replace("sigmoid 9", "sigmoid 3"))
    pat.write_text(patterns(3))
    rc, out, err = rap(["cc", net, "-o", tmp_path / "a.img", "-S", tmp_path / "a.s",
                        "--nodes", 4, "--overlap", "on"], monkeypatch, capsys)
    assert rc == 0, err
    assert "overlap ring: the all-gather of h stays blocking: the fused all-gather and " \
           "product (" in out and "is slower than the two calls (" in out
    assert "_ring_allgather_mxv" not in (tmp_path / "a.s").read_text()
    both = train_off_on(net, pat, 4, tmp_path, monkeypatch, capsys)
    for ov, (_, out) in both.items():
        assert ("the all-gather of h" in out) == (ov == "on")
    runs = {ov: js for ov, (js, _) in both.items()}
    gathers = runs["on"]["overlap_gathers"]
    assert [(g["layer"], g["product"], g["overlapped"]) for g in gathers] == \
        [("h", "h->y", False)]
    assert "slower than the two calls" in gathers[0]["reason"]
    assert "overlap_gathers" not in runs["off"]
    assert [e["train_loss"] for e in runs["on"]["epochs"]] == \
        [e["train_loss"] for e in runs["off"]["epochs"]]
