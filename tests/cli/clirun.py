"""Run ``rap`` subcommands in-process for the CLI tests.

``rap_main`` calls :func:`rapsim.cli.main` with the subcommands whose modules
can be imported (while a sibling tool is still being written, its missing
module must not break the others' tests).
"""
from __future__ import annotations

import importlib.util

from rapsim import cli


def rap_main(argv: list[str], monkeypatch) -> int:
    present = [(n, m) for n, m in cli.COMMANDS if importlib.util.find_spec(m) is not None]
    monkeypatch.setattr(cli, "COMMANDS", present)
    return cli.main([str(a) for a in argv])
