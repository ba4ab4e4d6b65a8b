"""A hostile SPMD program for the tests of counters at a stop
(docs/machine-model.md, "Stops"): while node 1 faults, node 0 makes host
calls that write a file and the console, node 2 polls RING_STAT (and faults
later), node 3 waits to read the ring for ever.

Node 0 opens ``out0.txt`` (descriptor 3), writes "hi\\n" to the console and
"a\\n" to the file three times with some work between, then works long
after node 1's fault and writes "late\\n" (never, in simulated time: node 1
has faulted by then).  Node 1 counts down ``n1`` (from the word ``count``,
which a host may change before the run) and reads unmapped memory; node 2
polls RING_STAT ``n2`` times and executes an illegal word; node 3 reads
RING_DATA from node 2, which never writes."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))

from hostprog import (BLOCK, O_CREAT, O_TRUNC, O_WRONLY, OPEN, RESULTS, WRITE,  # noqa: E402
                      call_lines, string)

FILE = "out0.txt"
FILE_TEXT = "a\na\na\n"         # what node 0 writes before node 1's fault
CONSOLE = b"hi\n"


def _indent(lines) -> str:
    """Instruction lines indented, label lines ("name:") not."""
    return "".join(f"{ln}\n" if ln.endswith(":") else f"        {ln}\n" for ln in lines)


def _delay(label: str, n: int) -> list[str]:
    return [f"LDI  {n}, R1", f"{label}:", "SUBI 1, R1", f"BNZ  {label}"]


def source(n0_late: int = 10000, n2: int = 6000) -> str:
    node0 = [f"LDI  {BLOCK}, AR0", f"LDI  {RESULTS}, AR1"]
    node0 += call_lines(OPEN, ["fname", O_WRONLY | O_CREAT | O_TRUNC, 0o644])
    node0 += call_lines(WRITE, [1, "hi", 3])
    for i in range(3):
        node0 += _delay(f"d0_{i}", 50) + call_lines(WRITE, [3, "msg", 2])
    node0 += _delay("d0_late", n0_late) + call_lines(WRITE, [3, "late", 5]) + ["B $"]
    body = _indent(node0)
    return f"""
        .global start
start:  LDP     0x800000
        LDI     @3, R0              ; NODE_ID
        CMPI    1, R0
        BEQ     n1
        CMPI    2, R0
        BEQ     n2
        CMPI    3, R0
        BEQ     n3
{body}
n1:     LDP     count
        LDI     @count, R1
        LDP     0x800000
l1:     SUBI    1, R1
        BNZ     l1
        LDI     0300h, AR2
        LSH     12, AR2
        LDI     *AR2, R2            ; 0x300000: unmapped
        B       $
n2:     LDI     {n2}, R3
poll:   LDI     @1, R1              ; RING_STAT
        SUBI    1, R3
        BNZ     poll
        .word   0FFFFFFFFh          ; illegal
n3:     LDI     @0, R1              ; RING_DATA: node 2 never writes
        B       $
        .data
count:  .word   3000
{string("fname", FILE)}{string("hi", "hi" + chr(10))}{string("msg", "a" + chr(10))}{string("late", "late" + chr(10))}"""
