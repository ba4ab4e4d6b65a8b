"""Data sets of the examples, generated (nothing is downloaded).

* :func:`digits` -- 8x8-pixel images of the digits 0-9: a fixed glyph per
  digit (a 5x7 font), shifted by up to one pixel in each direction, with a
  fraction of the pixels flipped and grey-level jitter.  For
  examples/digits.net (64 inputs, 10 classes); ``python
  examples/make_digits.py`` writes examples/digits.npz.
* :func:`random_patterns` -- uniform random inputs and one-hot targets of
  any shape, for performance runs such as examples/speech.net (the 234-512-61
  phoneme MLP of ICSI's speech work, whose accuracy is not the point).
"""
from __future__ import annotations

import numpy as np

#: 5x7 glyphs of 0-9 ('#' = ink), placed at column 1, row 0 of an 8x8 image
GLYPHS = {
    0: [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    1: ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    2: [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    3: ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    4: ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    5: ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    6: ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    7: ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    8: [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    9: [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
}
SIDE = 8
CLASSES = 10


def glyph(digit: int) -> np.ndarray:
    """The clean 8x8 image of ``digit`` (1.0 = ink)."""
    img = np.zeros((SIDE, SIDE))
    for r, row in enumerate(GLYPHS[digit]):
        for c, ch in enumerate(row):
            if ch == "#":
                img[r, c + 1] = 1.0
    return img


def digits(count: int, seed: int = 0, flip: float = 0.03, jitter: float = 0.1
           ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` noisy digit images: (inputs (count, 64) in [0, 1], labels
    (count,)).  Labels cycle 0..9 before shuffling, so the classes are
    balanced."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(count) % CLASSES)
    out = np.zeros((count, SIDE * SIDE))
    for i, d in enumerate(labels):
        img = np.roll(glyph(int(d)), (int(rng.integers(0, 2)), int(rng.integers(-1, 2))),
                      axis=(0, 1))
        flips = rng.random(img.shape) < flip
        img = np.where(flips, 1.0 - img, img)
        img = np.clip(img + rng.normal(0.0, jitter, img.shape), 0.0, 1.0)
        out[i] = img.ravel()
    return out, labels


def one_hot(labels: np.ndarray, classes: int = CLASSES) -> np.ndarray:
    t = np.zeros((len(labels), classes))
    t[np.arange(len(labels)), labels] = 1.0
    return t


def random_patterns(count: int, inputs: int, outputs: int, seed: int = 0
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` patterns: inputs uniform in [0, 1), one-hot targets."""
    rng = np.random.default_rng(seed)
    return rng.random((count, inputs)), one_hot(rng.integers(0, outputs, count), outputs)
