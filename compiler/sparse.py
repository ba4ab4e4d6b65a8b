"""Sparse connects: explicit pair lists and the generators that make them.

A sparse connect is a list of (source unit, destination unit) pairs.  It is
written out (``sparse [0 -> 0, 1 -> 0, ...]``) or produced by a generator:

``local(width, stride=1)``
    a 1-D local receptive field: destination unit ``d`` is connected to the
    ``width`` source units ``d*stride .. d*stride + width - 1``; the source
    layer needs ``(dst - 1)*stride + width`` units at least.
``random(fan_in, seed=0)``
    every destination unit gets ``fan_in`` distinct source units, drawn for
    destinations 0, 1, ... in turn by
    ``numpy.random.default_rng(seed).choice(src, fan_in, replace=False)``.

Either way the IR holds the pairs sorted by destination, then source.
"""
from __future__ import annotations

import numpy as np

from .parser import REQUIRED, Call

#: generator name -> its signature (argument -> default or REQUIRED)
GENERATORS = {
    "local": {"width": REQUIRED, "stride": 1},
    "random": {"fan_in": REQUIRED, "seed": 0},
}


def explicit_pairs(pairs, src: str, src_size: int, dst: str, dst_size: int,
                   errors: list) -> np.ndarray:
    """Check a written pair list (``(s, d, loc)`` triples); out-of-range and
    repeated pairs are reported as ``(loc, message)`` in ``errors``."""
    seen: dict[tuple[int, int], object] = {}
    good = []
    for s, d, loc in pairs:
        if not 0 <= s < src_size:
            errors.append((loc, f"sparse pair {s}->{d}: source unit {s} is out of range "
                                f"('{src}' has units 0..{src_size - 1})"))
        elif not 0 <= d < dst_size:
            errors.append((loc, f"sparse pair {s}->{d}: destination unit {d} is out of range "
                                f"('{dst}' has units 0..{dst_size - 1})"))
        elif (s, d) in seen:
            errors.append((loc, f"sparse pair {s}->{d} is given twice (first at {seen[(s, d)]})"))
        else:
            seen[(s, d)] = loc
            good.append((s, d))
    return sort_pairs(np.array(good, dtype=np.int64).reshape(-1, 2))


def generate(call: Call, src: str, src_size: int, dst: str, dst_size: int,
             errors: list) -> tuple[np.ndarray | None, dict | None]:
    """Run a generator; returns the pairs and the generator's description
    (``{"kind": "local", "width": 5, "stride": 2}``), or (None, None) after
    reporting ``(loc, message)`` in ``errors``."""
    sig = GENERATORS.get(call.name.text)
    if sig is None:
        errors.append((call.name.loc, f"unknown sparse generator {call.name.text!r} "
                                      f"(expected local or random)"))
        return None, None
    args = call.bind(sig, errors)
    if args is None:
        return None, None
    values = {}
    for key, (v, loc) in args.items():
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        low = 0 if key == "seed" else 1
        if not isinstance(v, int) or v < low:
            errors.append((loc, f"{key} of {call.name.text}() must be a whole number "
                                f"of at least {low}, got {v:g}"))
            return None, None
        values[key] = v
    if call.name.text == "local":
        width, stride = values["width"], values["stride"]
        need = (dst_size - 1) * stride + width
        if need > src_size:
            errors.append((call.name.loc, f"local(width={width}, stride={stride}) into {dst_size} "
                                          f"units needs {need} source units, '{src}' has {src_size}"))
            return None, None
        d = np.repeat(np.arange(dst_size), width)
        s = d * stride + np.tile(np.arange(width), dst_size)
    else:
        fan_in = values["fan_in"]
        if fan_in > src_size:
            errors.append((call.name.loc, f"random(fan_in={fan_in}) needs {fan_in} source units, "
                                          f"'{src}' has {src_size}"))
            return None, None
        rng = np.random.default_rng(values["seed"])
        s = np.concatenate([rng.choice(src_size, fan_in, replace=False) for _ in range(dst_size)])
        d = np.repeat(np.arange(dst_size), fan_in)
    return sort_pairs(np.stack([s, d], axis=1)), {"kind": call.name.text, **values}


def sort_pairs(pairs: np.ndarray) -> np.ndarray:
    """Pairs sorted by destination unit, then source unit."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return pairs[np.lexsort((pairs[:, 0], pairs[:, 1]))]
