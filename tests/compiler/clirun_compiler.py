"""``rap`` in-process for the compiler's end-to-end tests (no traceback,
no internal error, whatever the outcome)."""
from __future__ import annotations

from rapsim import cli


def rap(args, monkeypatch, capsys):
    rc = cli.main([str(a) for a in args])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err
