"""User transfer functions: a layer kind defined in the description by a
pair of assembly routines (the activation and its derivative), linked into
the image, and a numpy pair that the reference (``compiler/reference.py``)
uses, so that the simulated training is checked against it like the built-in
kinds (docs/network-language.md, "transfer")::

    transfer softsign {
        asm        "softsign.asm"      # assembled and linked with the program
        forward    _softsign           # z = f(net):  (z AR2, net AR3, n AR4)
        derivative _softsign_deriv     # z = f'(y):   (z AR2, y AR3, n AR4)
        numpy      "softsign.py"       # defines forward(net) and derivative(y)
    }
    layer h: softsign 8 bias

The routines follow the firmware's calling convention (docs/firmware.md,
section 4) and the argument order of ``_vsigmoid`` / ``_vsigmoid_deriv``:
the derivative is given as a function of the layer's *output* ``y``, as
back-propagation uses it.  Both must accept ``n = 0`` (a node may own no
unit of a layer).  File names are relative to the describing file's folder.
"""
from __future__ import annotations

import os
import runpy
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .ir import Loc

__all__ = ["TransferDecl", "Transfer", "build_transfers", "ENTRIES"]

#: the entries of a transfer block and whether their value is a file name
ENTRIES = {"asm": True, "forward": False, "derivative": False, "numpy": True}


@dataclass
class TransferDecl:
    """A ``transfer NAME { ... }`` block as read: entry -> (value, is a
    string, where), plus the folder its file names are relative to."""
    name: str
    loc: Loc
    base_dir: str
    entries: list[tuple[str, str, bool, Loc, Loc]] = field(default_factory=list)


@dataclass
class Transfer:
    """A checked user transfer function."""
    name: str
    asm: str                    # path of the assembly file
    forward: str                # its routines' symbols
    derivative: str
    numpy_file: str
    f: Callable = None          # numpy: forward(net) -> y
    df: Callable = None         # numpy: derivative(y) -> f'(net)
    loc: Loc | None = None
    #: where the routines were named (for link-time errors)
    forward_loc: Loc | None = None
    derivative_loc: Loc | None = None


def build_transfers(decls: list[TransferDecl], reserved: set, errors: list
                    ) -> tuple[dict[str, Transfer], set]:
    """The checked transfers of a description, and the names of all the
    declared ones (a layer of a broken one is not reported again as of an
    unknown kind); problems go to ``errors`` as ``(loc, message)``.
    ``reserved``: the built-in layer kinds."""
    out: dict[str, Transfer] = {}
    declared = {d.name for d in decls} - set(reserved)
    for d in decls:
        if d.name in reserved:
            errors.append((d.loc, f"transfer {d.name!r}: {d.name} is a built-in layer kind"))
            continue
        if d.name in out:
            errors.append((d.loc, f"transfer {d.name!r} is already defined (at {out[d.name].loc})"))
            continue
        got: dict[str, tuple[str, Loc]] = {}
        ok = True
        for key, value, is_string, kloc, vloc in d.entries:
            if key not in ENTRIES:
                errors.append((kloc, f"unknown entry {key!r} in transfer {d.name!r} "
                                     f"(expected asm, forward, derivative or numpy)"))
                ok = False
            elif key in got:
                errors.append((kloc, f"{key!r} is given twice in transfer {d.name!r}"))
                ok = False
            elif ENTRIES[key] != is_string:
                what = "a file name in quotes" if ENTRIES[key] else "a routine's name (no quotes)"
                errors.append((vloc, f"{key} of transfer {d.name!r} takes {what}"))
                ok = False
            else:
                got[key] = (value, vloc)
        for key in ENTRIES:
            if key not in got and not any(e[0] == key for e in d.entries):
                errors.append((d.loc, f"transfer {d.name!r} needs {key!r}"))
                ok = False
        if not ok:
            continue
        paths = {}
        for key in ("asm", "numpy"):
            value, vloc = got[key]
            path = os.path.normpath(os.path.join(d.base_dir, value))
            if not os.path.isfile(path):
                what = "a folder, not a file" if os.path.isdir(path) else "no such file"
                errors.append((vloc, f"transfer {d.name!r}: cannot read {value!r}: {what} ({path})"))
                ok = False
            paths[key] = path
        if not ok:
            continue
        fns = _numpy_pair(paths["numpy"], got["numpy"][1], d.name, errors)
        if fns is None:
            continue
        out[d.name] = Transfer(d.name, paths["asm"], got["forward"][0], got["derivative"][0],
                               paths["numpy"], fns[0], fns[1], d.loc,
                               got["forward"][1], got["derivative"][1])
    return out, declared


def _numpy_pair(path: str, loc: Loc, name: str, errors: list):
    """Run the numpy file and take its ``forward`` and ``derivative``; try
    them on a small vector so that a broken pair is reported here, not in
    the middle of a reference run."""
    try:
        ns = runpy.run_path(path)
    except BaseException as e:          # a user file: any failure is its error
        tb = traceback.extract_tb(e.__traceback__)
        line = next((f"{fr.filename}:{fr.lineno}" for fr in reversed(tb)
                     if os.path.abspath(fr.filename) == os.path.abspath(path)), path)
        errors.append((loc, f"transfer {name!r}: {line}: {type(e).__name__}: {e}"))
        return None
    fns = []
    for fn in ("forward", "derivative"):
        f = ns.get(fn)
        if not callable(f):
            errors.append((loc, f"transfer {name!r}: {path} defines no function {fn}(x)"))
            return None
        fns.append(f)
    probe = np.linspace(-2.0, 2.0, 5)
    for fn, f in zip(("forward", "derivative"), fns):
        try:
            y = np.asarray(f(probe), dtype=np.float64)
        except Exception as e:
            errors.append((loc, f"transfer {name!r}: {fn}() of {path} fails on a vector: "
                                f"{type(e).__name__}: {e}"))
            return None
        if y.shape != probe.shape or not np.all(np.isfinite(y)):
            errors.append((loc, f"transfer {name!r}: {fn}() of {path} must return a finite "
                                f"array of its argument's shape"))
            return None
    return fns
