"""Write random patterns for the speech-style MLP (examples/speech.net,
234 inputs: 9 frames of 26 features; 61 phoneme classes), for performance
runs: the data are uniform noise with random one-hot targets
(rapsim.compiler.datasets.random_patterns).

    python examples/make_speech.py [OUT] [PATTERNS]   (default examples/speech.npz, 64)
    rap train examples/speech.net --data examples/speech.npz --boards 4 --epochs 1
"""
import os
import sys

import numpy as np

from rapsim.compiler.datasets import random_patterns


def main(out: str, count: int) -> None:
    x, t = random_patterns(count, 234, 61, seed=3)
    xt, tt = random_patterns(count, 234, 61, seed=4)
    np.savez(out, inputs=x, targets=t, test_inputs=xt, test_targets=tt)
    print(f"wrote {out}: {count} training and {count} test patterns")


def _count(text: str) -> int:
    import argparse
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="write random patterns for examples/speech.net")
    ap.add_argument("out", nargs="?", default=os.path.join(os.path.dirname(__file__), "speech.npz"))
    ap.add_argument("patterns", nargs="?", type=_count, default=64,
                    help="training patterns, and as many test patterns (default 64)")
    args = ap.parse_args()
    try:
        main(args.out, args.patterns)
    except OSError as e:
        sys.exit(f"make_speech.py: cannot write {args.out}: {e.strerror}")
