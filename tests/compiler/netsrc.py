"""Helpers of the network-compiler front-end tests: parse a description
from a string, or collect the messages it is rejected with."""
from __future__ import annotations

import textwrap

import pytest

from rapsim.compiler.parser import parse_text
from rapsim.errors import Diagnostics

#: A small valid network: 2 inputs, 3 sigmoid hidden units, 1 output.
BASE = """\
layer x: input 2
layer h: sigmoid 3 bias
layer y: sigmoid 1
connect x -> h
connect h -> y
net n { input x  output y }
"""


def net(src: str, **kw):
    return parse_text(textwrap.dedent(src), "t.net", **kw)


def messages(src: str, **kw) -> list[str]:
    with pytest.raises(Diagnostics) as e:
        parse_text(textwrap.dedent(src), "t.net", **kw)
    return e.value.messages
