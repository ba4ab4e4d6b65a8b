"""Phases (exclude) end to end through ``rap train``: examples/auxiliary.net
(an auxiliary output only in the training net, a connect only in the
validation and test nets) with --valid, against the numpy reference, and
the refusals' exit status."""
from __future__ import annotations

import json
import os

from rapsim.compiler.data import load_patterns
from rapsim.compiler.parser import parse_file
from rapsim.compiler.reference import train as reference_train

from clirun import rap

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
NET = os.path.join(EXAMPLES, "auxiliary.net")
PAT = os.path.join(EXAMPLES, "auxiliary.pat")


def test_auxiliary_example_with_valid(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.json"
    rc, _, err = rap(["train", NET, "--data", PAT, "--valid", PAT, "--nodes", 2,
                      "--epochs", 60, "--json", out], monkeypatch, capsys)
    assert rc == 0, err
    res = json.loads(out.read_text())["epochs"]
    network = parse_file(NET)
    data = load_patterns(PAT, network).train
    ref = reference_train(network, data, valid_set=data, epochs=60, c30_activations=True)
    assert len(res) == 60
    for got, want in zip(res, ref.epochs):
        assert abs(got["train_loss"] - want.train_loss) < 1e-5
        assert abs(got["valid_loss"] - want.valid_loss) < 1e-5
    # the validation net has no auxiliary output and holds the direct connect:
    # its loss on the same patterns is not the training net's
    assert abs(ref.epochs[-1].valid_loss - ref.epochs[-1].train_loss) > 1e-3
    assert res[-1]["valid_accuracy"] == 1.0


def test_auxiliary_example_refusals(monkeypatch, capsys):
    rc, _, err = rap(["train", NET, "--data", PAT, "--nodes", 2, "--mapping", "layers"],
                     monkeypatch, capsys)
    assert rc == 1
    assert ("auxiliary.net:15:27: error: layer 'aux' is excluded from valid, test (exclude): "
            "phases are supported by the rows mapping only, not the layers mapping") in err
    rc, _, err = rap(["cc", NET, "-o", os.devnull, "--forward-only"], monkeypatch, capsys)
    assert rc == 1
    assert "not the inference image" in err
