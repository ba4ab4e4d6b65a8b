"""Record the results and counters of the reference programs
(tests/speed/reference_cases.py) into tests/speed/reference.json.

    python tests/speed/record_reference.py            record every case
    python tests/speed/record_reference.py CASE ...   re-record some cases

Run it only on a simulator whose results are known to be right (it was
first run before the speed work of issue 16 touched the core):
tests/speed/test_recorded_reference.py then checks that every later simulator gives
exactly these values.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reference_cases import CASES, record  # noqa: E402

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def main(argv: list[str]) -> int:
    names = argv or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASES)}", file=sys.stderr)
        return 2
    data = {}
    if argv and os.path.exists(PATH):
        with open(PATH) as f:
            data = json.load(f)
    for name in names:
        data[name] = record(name)
        print(f"recorded {name}")
    with open(PATH, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
