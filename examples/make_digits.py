"""Write the digit classifier's patterns (examples/digits.net) as an .npz:
400 training and 200 test images of noisy 8x8 digits
(rapsim.compiler.datasets.digits).

    python examples/make_digits.py [OUT]        (default examples/digits.npz)
    rap train examples/digits.net --data examples/digits.npz --boards 1
"""
import os
import sys

import numpy as np

from rapsim.compiler.datasets import digits, one_hot


def main(out: str) -> None:
    x, labels = digits(400, seed=1)
    xt, labels_t = digits(200, seed=2)
    np.savez(out, inputs=x, targets=one_hot(labels), test_inputs=xt,
             test_targets=one_hot(labels_t))
    print(f"wrote {out}: {len(x)} training and {len(xt)} test patterns of {x.shape[1]} pixels")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="write examples/digits.net's patterns")
    ap.add_argument("out", nargs="?", default=os.path.join(os.path.dirname(__file__), "digits.npz"))
    args = ap.parse_args()
    try:
        main(args.out)
    except OSError as e:
        sys.exit(f"make_digits.py: cannot write {args.out}: {e.strerror}")
