"""Results and every counter are bit-identical to the recorded reference
(tests/speed/reference.json, written by record_reference.py before the
simulator's speed work): the examples, firmware routines, peripherals,
benchmark kernels and a training run."""
from __future__ import annotations

import json
import os

import pytest

from reference_cases import CASES, record

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")) as f:
    REFERENCE = json.load(f)


def _diff(want, got, path="") -> list[str]:
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for k in sorted(set(want) | set(got)):
            if k not in got or k not in want:
                out.append(f"{path}/{k}: only in {'reference' if k in want else 'this run'}")
            else:
                out += _diff(want[k], got[k], f"{path}/{k}")
        return out
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return [d for i, (a, b) in enumerate(zip(want, got)) for d in _diff(a, b, f"{path}[{i}]")]
    return [] if want == got else [f"{path}: reference {want!r}, now {got!r}"]


def test_every_case_is_recorded():
    assert sorted(REFERENCE) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bit_identical_to_the_reference(name):
    got = json.loads(json.dumps(record(name)))      # the same JSON types as the file
    diffs = _diff(REFERENCE[name], got)
    assert not diffs, f"{name}: {len(diffs)} differences, first: " + "; ".join(diffs[:8])
