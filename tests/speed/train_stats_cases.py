"""The training runs whose whole ``rap train --json`` statistics must stay
bit-identical while the host side of training gets faster (issue 16): the
host serves its calls another way, but every simulated cycle, counter,
output, weight-derived figure, MCPS and MCUPS is the same.

Each case is ``rap train`` arguments (paths relative to the repository's
examples/); ``python tests/speed/train_stats_cases.py`` records
tests/speed/train_stats_reference.json (only re-record when a change of
simulated results is intended and reviewed).  The JSON's host-time fields
(:data:`HOST_FIELDS`) are left out: they are the host's, not the machine's.
"""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
REFERENCE = os.path.join(HERE, "train_stats_reference.json")

#: keys of the JSON that measure the host, not the simulated machine
HOST_FIELDS = ("host_seconds", "host_seconds_per_pattern")

#: name -> (network, pattern file or None for make_speech's patterns, extra arguments)
CASES = {
    "xor_4_nodes_3_epochs": ("xor.net", "xor.pat",
                             ["--boards", "1", "--epochs", "3", "--stats", "class_error"]),
    "autoencoder_8_nodes": ("autoencoder.net", "autoencoder.pat",
                            ["--boards", "2", "--epochs", "2"]),
    "speech_40_nodes": ("speech.net", None, ["--boards", "10", "--epochs", "1"]),
}

#: patterns of examples/make_speech.py for the speech case (training and test each)
SPEECH_PATTERNS = 4


def arguments(name: str, workdir: str) -> list[str]:
    """The ``rap train`` arguments of case ``name``; its data and JSON in ``workdir``."""
    net, data, extra = CASES[name]
    if data is None:
        import numpy as np
        from rapsim.compiler.datasets import random_patterns
        x, t = random_patterns(SPEECH_PATTERNS, 234, 61, seed=3)
        xt, tt = random_patterns(SPEECH_PATTERNS, 234, 61, seed=4)
        path = os.path.join(workdir, "speech.npz")
        np.savez(path, inputs=x, targets=t, test_inputs=xt, test_targets=tt)
    else:
        path = os.path.join(EXAMPLES, data)
    return ["train", os.path.join(EXAMPLES, net), "--data", path,
            "--json", os.path.join(workdir, name + ".json"),
            "--save", os.path.join(workdir, name + ".npz"), *extra]


def machine_part(stats: dict) -> dict:
    """The JSON without the host-time fields."""
    return {k: v for k, v in stats.items() if k not in HOST_FIELDS}


def weights_digest(path: str) -> dict:
    """SHA-256 of every array of a ``--save`` file (weights, momentum, state)."""
    import hashlib
    import numpy as np
    with np.load(path, allow_pickle=False) as z:
        return {k: hashlib.sha256(np.ascontiguousarray(z[k]).tobytes()).hexdigest()
                for k in sorted(z.files)}


def result(name: str, workdir: str) -> dict:
    """What case ``name`` left in ``workdir``: the JSON without host time, and
    the digests of the saved state."""
    with open(os.path.join(workdir, name + ".json")) as f:
        out = machine_part(json.load(f))
    out["saved_state"] = weights_digest(os.path.join(workdir, name + ".npz"))
    return out


def main() -> None:
    import tempfile
    from rapsim import cli
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            rc = cli.main(arguments(name, tmp))
            if rc != 0:
                raise SystemExit(f"{name}: rap train exited with {rc}")
            out[name] = result(name, tmp)
    with open(REFERENCE, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {REFERENCE}", file=sys.stderr)


if __name__ == "__main__":
    main()
