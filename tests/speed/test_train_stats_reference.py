"""``rap train --json`` (and the ``--save`` state) of three training runs are
bit-identical to the recorded reference (train_stats_reference.json,
recorded before the host side of training was made faster), on 1 and 2 host
threads: only the host's time may change."""
from __future__ import annotations

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from clirun import rap  # noqa: E402
from test_recorded_reference import _diff  # noqa: E402
from train_stats_cases import CASES, REFERENCE, arguments, result  # noqa: E402

with open(REFERENCE) as f:
    RECORDED = json.load(f)


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(CASES)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", sorted(CASES))
def test_train_statistics_bit_identical(name, threads, tmp_path, monkeypatch, capsys):
    rc, out, err = rap(arguments(name, str(tmp_path)) + ["--threads", str(threads)],
                       monkeypatch, capsys)
    assert rc == 0, err
    got = json.loads(json.dumps(result(name, str(tmp_path))))
    diffs = _diff(RECORDED[name], got)
    assert not diffs, f"{name}: {len(diffs)} differences, first: " + "; ".join(diffs[:8])
    assert "host_seconds" not in got and got["simulated_cycles"] > 0


def test_a_changed_run_is_found(tmp_path, monkeypatch, capsys):
    """The comparison sees a change of simulated behaviour: one more epoch."""
    args = arguments("xor_4_nodes_3_epochs", str(tmp_path))
    args[args.index("--epochs") + 1] = "4"
    rc, _, err = rap(args, monkeypatch, capsys)
    assert rc == 0, err
    assert _diff(RECORDED["xor_4_nodes_3_epochs"], result("xor_4_nodes_3_epochs", str(tmp_path)))
