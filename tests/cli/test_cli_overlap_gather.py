"""``--overlap on`` and the forward all-gather streamed into the product,
end to end: rap cc and rap train name each gathered layer's outcome (the
blocking pair kept, and why), rap train --json lists them as
overlap_gathers, and the training is the same as with overlap off."""
from __future__ import annotations

import json

from clirun import rap

NET = """
layer x: input 6
layer h: sigmoid 20 bias
layer y: sigmoid 3
connect x -> h full
connect h -> y full
net n { input x; hidden h; output y }
train { rate 0.1; epochs 2; momentum 0; seed 1 }
"""
PATTERNS = "\n".join(" ".join(str((i * 7 + j * 3) % 5 / 4) for j in range(6)) + " | "
                     + " ".join("1" if (i + j) % 3 == 0 else "0" for j in range(3))
                     for i in range(8)) + "\n"


def test_each_forward_all_gather_is_reported(tmp_path, monkeypatch, capsys):
    net, pat = tmp_path / "n.net", tmp_path / "n.pat"
    net.write_text(NET)
    pat.write_text(PATTERNS)
    rc, out, err = rap(["cc", net, "-o", tmp_path / "a.img", "-S", tmp_path / "a.s",
                        "--nodes", 4, "--overlap", "on"], monkeypatch, capsys)
    assert rc == 0, err
    assert "overlap ring: the all-gather of h stays blocking: the fused all-gather and " \
           "product (" in out and "is slower than the two calls (" in out
    assert "_ring_allgather_mxv" not in (tmp_path / "a.s").read_text()
    runs = {}
    for ov in ("off", "on"):
        js = tmp_path / f"{ov}.json"
        rc, out, err = rap(["train", net, "--data", pat, "--nodes", 4, "--overlap", ov,
                            "--json", js], monkeypatch, capsys)
        assert rc == 0, err
        runs[ov] = json.loads(js.read_text())
        assert ("the all-gather of h" in out) == (ov == "on")
    gathers = runs["on"]["overlap_gathers"]
    assert [(g["layer"], g["product"], g["overlapped"]) for g in gathers] == \
        [("h", "h->y", False)]
    assert "slower than the two calls" in gathers[0]["reason"]
    assert "overlap_gathers" not in runs["off"]
    assert [e["train_loss"] for e in runs["on"]["epochs"]] == \
        [e["train_loss"] for e in runs["off"]["epochs"]]
