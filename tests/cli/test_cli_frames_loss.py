"""The loss plasticity of ``schedule stream`` end to end through ``rap
train``: examples/delayed-xor.net learns XOR answered 2 frames after the
stimulus onset, trained by the back-propagated loss over 3 frames; a bad
loss plasticity ends with its place and exit status 1."""
from __future__ import annotations

import json
import os

from clirun import net_file, rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
DX_NET = os.path.join(EXAMPLES, "delayed-xor.net")
XOR_PAT = os.path.join(EXAMPLES, "xor.pat")


def test_delayed_xor_learns(tmp_path, monkeypatch, capsys):
    js = tmp_path / "r.json"
    rc, out, err = rap(["train", DX_NET, "--data", XOR_PAT, "--nodes", 4, "--json", js],
                       monkeypatch, capsys)
    assert rc == 0, err
    assert "plasticities: x->h loss(window=3), h->h loss(window=3), h->y loss(window=3)" in err
    r = json.loads(js.read_text())
    epochs = r["epochs"]
    assert epochs[0]["train_accuracy"] < 1 and epochs[0]["train_loss"] > 0.1
    assert epochs[-1]["train_accuracy"] == 1.0 and epochs[-1]["train_loss"] < 0.03
    assert sum(e["train_accuracy"] == 1.0 for e in epochs[100:]) >= 80
    acc = r["frames"]["accuracy_by_offset"]["train"]
    assert acc[1:] == [1.0, 1.0, 1.0]                   # from 2 frames after the onset
    assert "accuracy by frames since the onset (1, 2, ...): train" in out


def test_a_loss_out_of_reach_is_refused(tmp_path, monkeypatch, capsys):
    src = open(DX_NET).read().replace("window=3", "window=1")
    rc, out, err = rap(["train", net_file(tmp_path, src), "--data", XOR_PAT, "--nodes", 4],
                       monkeypatch, capsys)
    assert rc == 1
    assert ("n.net:21:9: error: schedule stream: connect x->h: loss(window=1) never reaches it (h is 1 "
            "connect upstream of an output layer: window=2 or more)") in err
    assert "Traceback" not in err
