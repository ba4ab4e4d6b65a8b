"""Fuzz suite options (docs/reliability.md).

``pytest tests/fuzz`` runs every target on a small fixed budget of examples
(derandomized: the same cases every run, about a minute in all);
``pytest tests/fuzz --fuzz-long`` runs the long campaign, and
``--fuzz-report FILE`` writes the case counts per target as JSON.
"""
from __future__ import annotations

import json

import fuzzkit


def pytest_addoption(parser):
    group = parser.getgroup("fuzz")
    group.addoption("--fuzz-long", action="store_true", default=False,
                    help="run the long fuzz campaign instead of the CI budget")
    group.addoption("--fuzz-report", metavar="FILE", default=None,
                    help="write the fuzz case counts per target to FILE (JSON)")


def pytest_configure(config):
    fuzzkit.LONG = bool(config.getoption("--fuzz-long", default=False))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not fuzzkit.COUNTS:
        return
    mode = "long campaign" if fuzzkit.LONG else "CI budget"
    terminalreporter.write_sep("-", f"fuzz cases per target ({mode})")
    for name, n in sorted(fuzzkit.COUNTS.items()):
        terminalreporter.write_line(f"{name:32s} {n:>10d}")
    path = config.getoption("--fuzz-report", default=None)
    if path:
        with open(path, "w") as fh:
            json.dump({"mode": mode, "counts": dict(sorted(fuzzkit.COUNTS.items()))}, fh, indent=1)
