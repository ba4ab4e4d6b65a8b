"""The recorded reference (reference.json: the examples, firmware routines,
peripherals, benchmark kernels and training runs) is reproduced bit for bit
with the machine's nodes split over 2 and 4 host threads (issue 16;
core/schedule.pxi, run_machine_threads)."""
from __future__ import annotations

import json

import pytest

from rapsim.machine import Simulator
from reference_cases import CASES, record
from test_recorded_reference import REFERENCE, _diff


@pytest.mark.parametrize("threads", [2, 4])
@pytest.mark.parametrize("name", sorted(CASES))
def test_bit_identical_on_threads(name, threads, monkeypatch):
    init = Simulator.__init__

    def on_threads(self, *a, **kw):
        init(self, *a, **kw)
        self.threads = threads

    monkeypatch.setattr(Simulator, "__init__", on_threads)
    got = json.loads(json.dumps(record(name)))
    diffs = _diff(REFERENCE[name], got)
    assert not diffs, f"{name} on {threads} threads: {len(diffs)} differences, first: " + \
        "; ".join(diffs[:8])
