"""The choice between chain and rotation collectives
(rapsim.compiler.collectives, --collectives): from the cycle formulas, the
rotation only on even splits in auto, and the same training results bit for
bit whichever is chosen (through the `rap` command)."""
from __future__ import annotations

import json
import os
import sys

import pytest

from rapsim.compiler.collectives import MODES, check_mode, choose
from rapsim.errors import RapError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from clirun import rap  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def _even(V, N):
    q, r = divmod(V, N)
    return [k * q + min(k, r) for k in range(N + 1)]


def test_auto_takes_the_rotation_where_slices_are_small():
    """Square 128 on 64 nodes (2 words a node): the chains' cost per node
    dominates; speech 512 on 16 nodes (32 words a node): the chain."""
    for kind, rot in (("allgather", "_ring_allgather_rot"), ("reduce_scatter", "_ring_rs_rot")):
        c = choose(kind, _even(128, 64), "sram")
        assert c.routine == rot and c.plan is not None
        assert c.rotation_cycles < c.chain_cycles
        c = choose(kind, _even(512, 16), "ram0")
        assert c.routine.endswith(("_allgather", "_reduce_scatter")) and c.plan is None
        assert c.rotation_cycles > c.chain_cycles


def test_forced_modes_and_uneven_tables():
    group = [0, 0, 5, 10, 10]                   # a layer on nodes 1-2 of 4
    assert choose("allgather", group, "sram").routine == "_ring_allgather"
    assert choose("allgather", group, "sram").rotation_cycles is None
    assert choose("allgather", group, "sram", "rotation").routine == "_ring_allgather_rot"
    assert choose("reduce_scatter", _even(128, 64), "dram", "chain").routine \
        == "_ring_reduce_scatter"
    assert set(MODES) == {"auto", "chain", "rotation"}
    with pytest.raises(RapError, match="--collectives: 'ring' is not one of"):
        check_mode("ring")


def test_train_same_results_with_chain_and_rotation(tmp_path, monkeypatch, capsys):
    """rap train on 8 nodes with each mode: the same epochs, bit for bit;
    --json names the routine of every layer collective."""
    out = {}
    for mode in ("chain", "rotation", "auto"):
        js = tmp_path / f"{mode}.json"
        rc, _, err = rap(["train", os.path.join(EXAMPLES, "autoencoder.net"), "--data",
                          os.path.join(EXAMPLES, "autoencoder.pat"), "--boards", 2,
                          "--epochs", 20, "--collectives", mode, "--json", js, "--quiet"],
                         monkeypatch, capsys)
        assert rc == 0, err
        out[mode] = json.loads(js.read_text())
    assert out["chain"]["epochs"] == out["rotation"]["epochs"] == out["auto"]["epochs"]
    assert {r["routine"] for r in out["chain"]["collectives"]} == {
        "_ring_allgather", "_ring_reduce_scatter"}
    assert {r["routine"] for r in out["rotation"]["collectives"]} == {
        "_ring_allgather_rot", "_ring_rs_rot"}
    assert out["chain"]["simulated_cycles"] != out["rotation"]["simulated_cycles"]


def test_cc_names_the_choice_and_rejects_a_bad_mode(tmp_path, monkeypatch, capsys):
    rc, outp, _ = rap(["cc", os.path.join(EXAMPLES, "xor.net"), "--boards", 2, "-o",
                       tmp_path / "x.out", "--collectives", "rotation"], monkeypatch, capsys)
    assert rc == 0
    assert "allgather h: _ring_allgather_rot (predicted: chain" in outp
    with pytest.raises(SystemExit):
        rap(["cc", os.path.join(EXAMPLES, "xor.net"), "-o", tmp_path / "y.out",
             "--collectives", "ring"], monkeypatch, capsys)
