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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "speech.npz"),
         int(sys.argv[2]) if len(sys.argv) > 2 else 64)
