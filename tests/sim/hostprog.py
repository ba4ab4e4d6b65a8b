"""Assembly programs that make host calls (docs/syscalls.md), for the daemon
and ``rap run`` tests.

``program(calls, exit_status)`` returns the source of a program that makes
each call in turn, then EXIT(exit_status).  A call is ``(service, args)``;
an argument is an integer (any 32-bit value) or the name of a label in
``data`` (its address).  After call k the reply words (result, errno) and
the request block's arg0 (CLOCK's high word) are stored at
``RESULTS + 3*k``; :func:`replies` reads them back.
"""
from __future__ import annotations

BLOCK = 0x3000          # the request block (SRAM)
RESULTS = 0x3100        # result, errno, arg0 of each call
BUF = 0x3400            # a free buffer for READ/ARGV (SRAM)

EXIT, WRITE, READ, OPEN, CLOSE, LSEEK, CLOCK, ARGC, ARGV, READ_WORDS, WRITE_WORDS = range(1, 12)
O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_CREAT, O_EXCL, O_TRUNC, O_APPEND = 0x40, 0x80, 0x200, 0x400


def load(value, reg: str = "R0") -> list[str]:
    """Instructions loading a 32-bit value (or a label's address) into reg."""
    if isinstance(value, str):
        return [f"LDI  {value}, {reg}"]
    v = value & 0xFFFFFFFF
    if v < 0x8000:
        return [f"LDI  {v}, {reg}"]
    if v >= 0xFFFF8000:
        return [f"LDI  {v - (1 << 32)}, {reg}"]
    hi, lo = v >> 16, v & 0xFFFF
    return [f"LDI  {hi - 0x10000 if hi >= 0x8000 else hi}, {reg}", f"LSH  16, {reg}",
            f"OR   {lo}, {reg}"]


def call_lines(service: int, args=()) -> list[str]:
    out = [*load(service), "STI  R0, *AR0"]
    for i, a in enumerate(args):
        out += [*load(a), f"STI  R0, *+AR0({3 + i})"]
    out += ["STI  AR0, @5",                     # HOST_CALL (DP = 0x80)
            "LDI  *+AR0(1), R0", "STI  R0, *AR1++",
            "LDI  *+AR0(2), R0", "STI  R0, *AR1++",
            "LDI  *+AR0(3), R0", "STI  R0, *AR1++"]
    return out


def program(calls, exit_status: int | None = 0, data: str = "", prologue: str = "") -> str:
    lines = ["        .global start",
             "start:  LDP  0x800000",
             f"        LDI  {BLOCK}, AR0",
             f"        LDI  {RESULTS}, AR1"]
    lines += ["        " + ln for ln in prologue.strip().splitlines()]
    for service, args in calls:
        lines += ["        " + ln for ln in call_lines(service, args)]
    if exit_status is not None:
        lines += ["        " + ln for ln in call_lines(EXIT, [exit_status])]
    lines += ["        SWI", "        .data", data]
    return "\n".join(lines) + "\n"


def string(label: str, text: str) -> str:
    """A NUL-terminated string, one character per word (newlines allowed)."""
    parts = []
    for i, piece in enumerate(text.split("\n")):
        if i:
            parts.append("10")
        if piece:
            parts.append(f'"{piece}"')
    return f"{label}: .word {', '.join(parts + ['0'])}\n" if not any(
        p.startswith('"') for p in parts) else f"{label}: .string {', '.join(parts + ['0'])}\n"


def replies(sim, ncalls: int, node: int = 0) -> list[tuple[int, int, int]]:
    """(result as signed int, errno, arg0) of each call."""
    w = [int(x) for x in sim.read(RESULTS, 3 * ncalls, node)]
    s32 = (lambda v: v - (1 << 32) if v & 0x80000000 else v)
    return [(s32(w[3 * k]), w[3 * k + 1], w[3 * k + 2]) for k in range(ncalls)]
