"""pytest configuration of the speed benchmarks (run apart from the unit
tests: ``pytest benchmarks --benchmark-only``).

* The benchmark files are named ``bench_*.py``; pytest collects only
  ``test_*.py`` from a folder, so they are collected here.
* After the run, every figure a benchmark put in ``extra_info`` under a name
  ending in ``_per_second`` (node-cycles, instructions, lines, patterns) is
  printed in one table: pytest-benchmark's own table shows seconds per
  round, which are not comparable between sizes.
"""
from __future__ import annotations

import pytest


def pytest_collect_file(file_path, parent):
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):   # named files pytest collects itself
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    session = getattr(config, "_benchmarksession", None)
    rows = []
    for bench in getattr(session, "benchmarks", None) or []:
        for key, value in sorted(bench.extra_info.items()):
            if key.endswith("_per_second") and isinstance(value, (int, float)):
                rows.append((bench.name, key[:-len("_per_second")].replace("_", " "), value))
    if not rows:
        return
    tr = terminalreporter
    tr.section("speed figures (best or mean round, see each benchmark)")
    width = max(len(name) for name, _, _ in rows)
    for name, what, value in rows:
        scaled = (f"{value / 1e6:10.2f} M" if value >= 1e6 else
                  f"{value / 1e3:10.2f} k" if value >= 1e3 else f"{value:10.2f}  ")
        tr.write_line(f"{name:<{width}}  {scaled} {what} per second")
