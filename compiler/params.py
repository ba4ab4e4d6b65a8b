"""CLONES' Param: a table of parameter names, each with a list of values.

The values come from the description's ``param`` statements, overridden by
a parameter file (``rap cc/train --params FILE``) and then by the command
line (``-P NAME=VALUE[,VALUE...]``); the resolved table is
``Network.params``.  A parameter of one value is a number, one of several a
tuple of numbers (written ``param sizes = 128, 256`` and read as
``sizes[0]``, ``sizes[1]`` in expressions).

Parameter files are text, one parameter a line::

    # comment
    hidden = 64
    sizes = 128, 256
    rate 0.5            # '=' is optional: NAME VALUE [VALUE ...]

Behaviours and other host code read the table with :func:`param_table`
(every parameter as a tuple of values, CLONES' view) or
:func:`param_value` (one value).
"""
from __future__ import annotations

import os
import re

from rapsim.errors import RapError

from .ir import Network

__all__ = ["read_params_file", "merge_params", "param_table", "param_value"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def read_params_file(path) -> dict[str, tuple]:
    """The parameters of a parameter file, as ``{name: (values...)}`` (each
    value a number).  Errors name the file and line."""
    from .parser import parse_param_value
    path = os.fspath(path)
    from rapsim.fileio import read_text
    lines = read_text(path, "a parameter file").splitlines()
    out: dict[str, tuple] = {}
    where: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        if "=" in text:
            name, _, rest = text.partition("=")
            name = name.strip()
            values = [v.strip() for v in rest.split(",")]
        else:
            name, *values = text.replace(",", " ").split() or [""]
        if not _NAME.match(name):
            raise RapError(f"{path}:{number}: expected NAME = VALUE[, VALUE...], not {text!r}")
        if name in out:
            raise RapError(f"{path}:{number}: parameter {name!r} is already given "
                           f"(line {where[name]})")
        if not values or any(v == "" for v in values):
            raise RapError(f"{path}:{number}: parameter {name!r} has "
                           f"{'no value' if not values or values == [''] else 'an empty value'}")
        try:
            value = parse_param_value(name, values)
        except RapError as e:
            raise RapError(f"{path}:{number}: {e}") from None
        out[name] = value if isinstance(value, tuple) else (value,)
        where[name] = number
    return out


def merge_params(file_params: dict | None, command_line: dict | None) -> dict:
    """The overrides of a run: a parameter file's, then the command line's
    on top (the command line wins)."""
    out = dict(file_params or {})
    out.update(command_line or {})
    return out


def param_table(network: Network) -> dict[str, tuple]:
    """Every parameter of ``network`` with its list of values (a tuple, one
    value or more), in definition order: the table CLONES' behaviours read."""
    return {k: (v if isinstance(v, tuple) else (v,)) for k, v in network.params.items()}


def param_value(network: Network, name: str, index: int | None = None):
    """Parameter ``name`` of ``network``: its only value (``index`` None),
    or value ``index`` of its list.  A KeyError names the parameters there
    are; an IndexError the list's length."""
    table = param_table(network)
    if name not in table:
        raise KeyError(f"network {network.name!r} has no parameter {name!r} "
                       f"(its parameters: {', '.join(table) or 'none'})")
    values = table[name]
    if index is None:
        if len(values) != 1:
            raise IndexError(f"parameter {name!r} has {len(values)} values: give an index")
        return values[0]
    if not -len(values) <= index < len(values):
        raise IndexError(f"parameter {name!r} has {len(values)} values, not {index + 1}")
    return values[index]
