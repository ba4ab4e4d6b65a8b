"""Shared pieces of the fuzz targets.

Every target feeds hostile input to one tool and accepts any outcome except
the ones issue 18 rules out: an "internal error" (an exception the tool does
not turn into a message), a Python traceback, a crash of the extension or a
hang.  ``examples(ci, long)`` is the budget of a target: ``ci`` examples in
the default run (derandomized, so CI sees the same cases every time),
``long`` under ``--fuzz-long``.  ``count(target, n)`` adds n cases to the
per-target counts printed at the end of the session.
"""
from __future__ import annotations

import contextlib
import io
import os
import signal
from pathlib import Path

from hypothesis import HealthCheck, settings

from rapsim import cli

#: set by conftest.py from --fuzz-long
LONG = False

#: cases run per target in this session
COUNTS: dict[str, int] = {}

ROOT = Path(__file__).resolve().parents[2]


def examples(ci: int, long: int) -> settings:
    """Hypothesis settings for a target: a fixed number of examples, no
    deadline (hangs are caught by :func:`time_limit`), derandomized in CI."""
    return settings(max_examples=long if LONG else ci, deadline=None, derandomize=not LONG,
                    database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))


def count(target: str, n: int = 1) -> None:
    COUNTS[target] = COUNTS.get(target, 0) + n


class Hang(Exception):
    """A target took longer than its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Fail with :class:`Hang` if the body runs longer than ``seconds``."""
    def expired(signum, frame):
        raise Hang(f"{what} did not finish within {seconds} s")
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def rap(argv: list[str], seconds: float = 20.0) -> tuple[int, str, str]:
    """``rap ARGV`` in-process: (exit status, stdout, stderr).  Fails the test
    on an internal error, a traceback or a hang."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            time_limit(seconds, "rap " + " ".join(map(str, argv[:1]))):
        try:
            rc = cli.main([str(a) for a in argv])
        except SystemExit as e:          # argparse
            rc = e.code if isinstance(e.code, int) else 2
    text = err.getvalue()
    assert rc != 70 and "internal error" not in text, text[-2000:]
    assert "Traceback" not in text, text[-2000:]
    return rc, out.getvalue(), text


def sources() -> list[tuple[str, str]]:
    """The project's own assembly sources (seeds of the mutation targets)."""
    files = sorted((ROOT / "firmware").glob("*.asm")) + sorted((ROOT / "examples").glob("*.asm"))
    return [(p.name, p.read_text()) for p in files]


def networks() -> list[tuple[str, str]]:
    """The example network descriptions."""
    return [(p.name, p.read_text()) for p in sorted((ROOT / "examples").glob("*.net"))]


def write(path: Path, data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    path.write_bytes(data)
    return os.fspath(path)


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

from hypothesis import strategies as st  # noqa: E402

#: numbers that probe every range check: huge, negative, boundary, odd radix
NUMBERS = ["0", "1", "-1", "32767", "-32768", "65535", "0FFFFFFh", "1000000h", "0x7FFFFFFF",
           "0xFFFFFFFF", "0x100000000", "9" * 40, "1" * 5000, "0x" + "F" * 3000, "1e400",
           "1e-400", "3.5", "-0.0", "1" * 400 + ".5", "101b", "777q", "2147483648",
           "9223372036854775807", "18446744073709551616"]

TOKENS = NUMBERS + [
    "\n", " ", ",", "(", ")", "*", "+", "-", "<<", ">>", "~", "!", "'", '"', ":", ";", "||",
    "@", "$", "*AR0++(IR0)%", "*+AR1(5)", "*-AR7(255)", "*AR2++(IR1)B", "R0", "R7", "AR3",
    "SP", "ST", "IE", "DP", "BK", "RC", "x", "lab", "start", ".word", ".float", ".int",
    ".space", ".bss", ".text", ".data", ".sect \"s\"", ".global", ".set", ".equ", ".asg",
    ".eval", ".loop", ".endloop", ".break", ".macro", ".endm", ".if", ".else", ".endif",
    ".include", ".copy", ".align", ".string", ".byte", ".long", ".newblock", "$1", "m",
    "LDI", "LDF", "ADDI", "MPYF", "STI", "B", "BR", "CALL", "CALLU", "RETS", "DBNZ", "RPTB",
    "RPTS", "PUSH", "POP", "SWI", "IDLE", "NOP", "TRAP", "LDI3", "ADDF3", "||STI", "BUD",
]


def mutated(seeds: list[tuple[str, str]], tokens: list[str] = TOKENS):
    """A seed text with a few edits: spans deleted, duplicated or swapped,
    tokens and random characters inserted."""
    @st.composite
    def build(draw):
        name, text = draw(st.sampled_from(seeds))
        for _ in range(draw(st.integers(1, 6))):
            n = len(text)
            i = draw(st.integers(0, n))
            j = draw(st.integers(i, min(n, i + 200)))
            op = draw(st.integers(0, 4))
            if op == 0:
                text = text[:i] + text[j:]
            elif op == 1:
                text = text[:j] + text[i:j] * draw(st.integers(2, 50)) + text[j:]
            elif op == 2:
                text = text[:i] + draw(st.sampled_from(tokens)) + text[i:]
            elif op == 3:
                text = text[:i] + draw(st.text(max_size=8)) + text[j:]
            else:
                k = draw(st.integers(0, n))
                text = text[:i] + text[k:k + (j - i)] + text[j:]
        return name, text
    return build()


def token_lines(tokens: list[str] = TOKENS, lines: int = 30):
    """Sources of random lines of tokens (a label in column 1 now and then)."""
    line = st.tuples(st.sampled_from(["", "", "x", "lab:", "m", "s"]),
                     st.lists(st.sampled_from(tokens), max_size=8))
    return st.lists(line, min_size=1, max_size=lines).map(
        lambda ls: "\n".join(f"{lab} {' '.join(toks)}" for lab, toks in ls) + "\n")


def mutate_bytes(draw, data: bytes, edits: int = 8) -> bytes:
    """``data`` with 1..``edits`` random edits: bits flipped, spans cut,
    bytes inserted, 32-bit words overwritten (inside a composite strategy:
    ``draw`` is its draw)."""
    import struct
    raw = bytearray(data)
    for _ in range(draw(st.integers(1, edits))):
        op = draw(st.integers(0, 3))
        i = draw(st.integers(0, max(0, len(raw) - 1)))
        if op == 0 and raw:
            raw[i] ^= 1 << draw(st.integers(0, 7))
        elif op == 1:
            del raw[i:i + draw(st.integers(1, 64))]
        elif op == 2:
            raw[i:i] = draw(st.binary(max_size=16))
        else:
            raw[i:i + 4] = struct.pack("<I", draw(st.integers(0, 2 ** 32 - 1)))
    return bytes(raw)
