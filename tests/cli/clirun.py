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


def rap(args, monkeypatch, capsys):
    """``rap ARGS`` in-process: (exit status, stdout, stderr); never a
    traceback or an internal error."""
    rc = rap_main([str(a) for a in args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err, cap.err
    return rc, cap.out, cap.err


def net_file(tmp_path, text: str):
    """A network description ``text`` written to ``tmp_path/n.net``."""
    path = tmp_path / "n.net"
    path.write_text(text)
    return path


# --- helpers of the 'rap run' tests ------------------------------------------

import pytest  # noqa: E402


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    """Run the test in a fresh directory (import this fixture to use it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def image(path, src: str) -> str:
    """Assemble and link ``src`` into the image file ``path``."""
    from rapsim.asm.objfile import write_image
    from rapsim.toolchain import build_text
    write_image(build_text(src), path)
    return str(path)


def rap_run(args, monkeypatch, capsys):
    """``rap run ARGS`` in-process: (exit status, stdout, stderr); never a
    traceback."""
    rc = rap_main(["run", *map(str, args)], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err and "internal error" not in cap.err
    return rc, cap.out, cap.err


def same_npz(a, b) -> None:
    """Assert that two .npz files hold the same arrays, bit for bit (NaN equal to NaN)."""
    import numpy as np
    za, zb = np.load(a), np.load(b)
    assert sorted(za.files) == sorted(zb.files)
    for k in za.files:
        assert np.array_equal(za[k], zb[k], equal_nan=za[k].dtype.kind == "f"), k
