"""Command-line arguments shared by the benchmark scripts run as
``python benchmarks/NAME.py``: a parser whose description is the script's
docstring, and argument types that turn bad values into a usage error
(status 2) rather than a traceback."""
from __future__ import annotations

import argparse
import os

from rapsim.commands.run import _positive


def parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser that prints the script's docstring under --help."""
    return argparse.ArgumentParser(description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


#: a count of at least 1, read as ``rap run`` reads its counts (decimal, 0x.., ..h, 1e6)
positive_int = _positive


def positive_ints(text: str) -> list[int]:
    """A comma-separated list of integers of at least 1, e.g. ``4,16,64``."""
    return [positive_int(part) for part in text.split(",")]


def existing_file(text: str) -> str:
    """The path of a file that exists."""
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return text
