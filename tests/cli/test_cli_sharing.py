"""The tied-weight auto-encoder example (examples/autoencoder.net, share_from)
end to end through ``rap train``: it learns the 8-3-8 encoder problem, its
--save file holds the shared matrix once and --load / --resume read it back,
and another mapping is refused cleanly."""
from __future__ import annotations

import json
import os

import numpy as np

from clirun import rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
NET = os.path.join(EXAMPLES, "autoencoder.net")
PAT = os.path.join(EXAMPLES, "autoencoder.pat")


def test_autoencoder_trains_and_saves_once(tmp_path, monkeypatch, capsys):
    save, out = tmp_path / "ae.npz", tmp_path / "ae.json"
    rc, _, err = rap(["train", NET, "--data", PAT, "--nodes", 4, "--save", save,
                      "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    res = json.loads(out.read_text())
    assert res["epochs"][-1]["train_accuracy"] == 1.0
    assert res["epochs"][-1]["train_loss"] < 0.01
    keys = sorted(k for k in np.load(save).files if ":" in k)
    assert keys == ["b:h", "b:y", "m:x->h", "mb:h", "mb:y", "w:x->h"]
    # --load starts from the saved weights: already right in the first epoch
    rc, _, err = rap(["train", NET, "--data", PAT, "--nodes", 2, "--load", save,
                      "--epochs", 1, "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    assert json.loads(out.read_text())["epochs"][0]["train_accuracy"] == 1.0
    rc, _, err = rap(["train", NET, "--data", PAT, "--nodes", 1, "--resume", save,
                      "--epochs", 2, "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    epochs = json.loads(out.read_text())["epochs"]
    assert [e["epoch"] for e in epochs[-2:]] == [300, 301]
    assert epochs[-1]["train_accuracy"] == 1.0


def test_autoencoder_other_mapping_refused(monkeypatch, capsys):
    rc, _, err = rap(["train", NET, "--data", PAT, "--nodes", 4, "--mapping", "data"],
                     monkeypatch, capsys)
    assert rc == 1
    assert ("autoencoder.net:15:21: error: connect h->y shares the weights of x->h "
            "(share_from): parameter sharing is supported under the rows mapping only, "
            "not the data mapping") in err
