"""Calling firmware routines on the simulator from Python, and timing them.

:func:`run_calls` links a generated driver (``_main``) with crt0 and the
firmware library, loads it on a machine of N nodes, lets ``setup(sim)``
write the test data, and runs it.  The driver performs the calls of a list
of :class:`Call` in order on every node (SPMD), each with its own
registers:

* integer/pointer arguments in AR2, AR3, AR4, AR5, AR6, IR0, IR1 and float
  arguments in R2, R3 (the calling convention, docs/firmware.md); a value
  may be a number or a per-node list;
* around each call a CLOCK host call stamps the cycle counter (machine
  configured with free host calls): stamp A just before ``CALL fn``, stamp B
  just after it returns.  The driver also times an empty pair first, so that
  ``cycles`` = (B - A) - (B - A)empty counts exactly the CALL, the routine and
  its RETS: the cycles a caller pays for the call once its arguments are in
  their registers;
* after each call it records R0 (integer and float views), R1, DP, SP, AR7
  and the 40 bits of R4-R7, which the driver had set to sentinels, so the
  tests check that every routine preserves what the convention says.

Test data live at the addresses below (free SRAM well above the program
and its stack, the on-chip blocks, DRAM).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from rapsim import firmware
from rapsim.asm.floatfmt import from_single, to_single, from_extended
from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

SRAM = 0x010000          # free SRAM for test data (the program sits at 0x40..)
SRAM2 = 0x020000
SRAM3 = 0x030000
RAM0 = 0x809800
RAM1 = 0x809C00
DRAM = 0x400000

INT_REGS = ("AR2", "AR3", "AR4", "AR5", "AR6", "IR0", "IR1")
FLOAT_REGS = ("R2", "R3")
# sentinels in R4-R7 (40-bit patterns: exponent, sign, fraction), AR7 is the ring page
SENTINELS = {"R4": 0x05_1234_5678, "R5": 0xF3_8765_4321, "R6": 0x7A_0F0F_0F0F, "R7": 0x81_CAFE_BABE}
BLOCK = 40               # words of a step's data block


@dataclass
class Call:
    fn: str                                     # assembly name, e.g. "_vdot"
    ints: Sequence = ()                         # AR2.., per-node lists allowed
    floats: Sequence = ()                       # R2, R3
    label: str = ""


@dataclass
class Result:
    cycles: int
    r0: int                  # R0 bits 31-0, signed
    r0f: float               # R0 as a float (single precision, as stored)
    r1: int
    dp: int
    sp: int
    ar7: int
    saved_ok: bool           # R4-R7 unchanged (all 40 bits)


@dataclass
class Run:
    sim: Simulator
    result: object
    calls: list[Call]
    per_node: list[list[Result]] = field(default_factory=list)   # [node][call]
    empty: list[int] = field(default_factory=list)

    def __getitem__(self, k: int) -> Result:
        """Call k on node 0."""
        return self.per_node[0][k]

    def cycles(self, k: int, node: int = 0) -> int:
        return self.per_node[node][k].cycles

    def span(self, k: int) -> int:
        """Machine time of call k: from the earliest stamp A to the latest
        stamp B over all nodes, less the empty pair's cost."""
        a = min(self._stamps[n][k + 1][0] for n in range(self.sim.nodes))
        b = max(self._stamps[n][k + 1][1] for n in range(self.sim.nodes))
        return b - a - self.empty[0]


def _node_value(v, node: int):
    if isinstance(v, (list, tuple, np.ndarray)):
        return v[node]
    return v


def _word(v) -> int:
    return int(v) & 0xFFFFFFFF


def driver(calls: list[Call], nodes: int) -> str:
    """The driver's assembly text.  The data of step k for node n is a
    BLOCK-word row at stepdata + (k * nodes + n) * BLOCK:
    0-6 the integer arguments, 7-8 the float arguments (single words),
    9-16 R4..R7 as (float word, low word) pairs -- R4 and R5 hold the
    addresses of the stamp blocks in their low words --, then what the
    driver records after the call (20-33)."""
    fns = sorted({c.fn for c in calls})
    out = ['        .include "rap.inc"',
           '        .global _main' + "".join(", " + f for f in fns),
           '        .text',
           '_main:',
           '        LDRING  AR7',
           '        LDI     *+AR7(NODE_ID_OFS), R0   ; this node',
           '        MPYI    %d, R0' % BLOCK,
           '        LDP     steps',
           '        ADDI    @steps, R0',
           '        STI     R0, @stepp']
    for k in range(len(calls) + 1):
        off = k * BLOCK * nodes
        out += [f'* step {k}',
                '        LDP     steps',
                '        LDI     @stepp, AR0',
                f'        ADDI    {off}, AR0',
                '        LDP     0',
                '        NOP',
                '        LDF     *+AR0(9), R4',
                '        LDI     *+AR0(10), R4',
                '        LDF     *+AR0(11), R5',
                '        LDI     *+AR0(12), R5',
                '        LDF     *+AR0(13), R6',
                '        LDI     *+AR0(14), R6',
                '        LDF     *+AR0(15), R7',
                '        LDI     *+AR0(16), R7',
                '        LDF     *+AR0(7), R2',
                '        LDF     *+AR0(8), R3',
                '        LDI     *+AR0(0), AR2',
                '        LDI     *+AR0(1), AR3',
                '        LDI     *+AR0(2), AR4',
                '        LDI     *+AR0(3), AR5',
                '        LDI     *+AR0(4), AR6',
                '        LDI     *+AR0(6), IR1',
                '        LDI     *+AR0(5), IR0',
                '        NOP',
                '        NOP',
                '        STI     R4, *+AR7(HOST_CALL_OFS)      ; stamp A']
        if k > 0:
            out.append(f'        CALL    {calls[k - 1].fn}')
        out += ['        STI     R5, *+AR7(HOST_CALL_OFS)      ; stamp B',
                '        LDI     SP, AR2',
                '        LDI     DP, AR3',
                '        LDP     steps',
                '        LDI     @stepp, AR0',
                f'        ADDI    {off}, AR0',
                '        NOP',
                '        NOP',
                '        STI     R0, *+AR0(20)',
                '        STF     R0, *+AR0(21)',
                '        STI     R1, *+AR0(22)',
                '        STI     AR3, *+AR0(23)',
                '        STI     AR2, *+AR0(24)',
                '        STI     AR7, *+AR0(25)',
                '        STI     R4, *+AR0(26)',
                '        STF     R4, *+AR0(27)',
                '        STI     R5, *+AR0(28)',
                '        STF     R5, *+AR0(29)',
                '        STI     R6, *+AR0(30)',
                '        STF     R6, *+AR0(31)',
                '        STI     R7, *+AR0(32)',
                '        STF     R7, *+AR0(33)']
    out += ['        LDP     0',
            '        LDI     0, R0',
            '        RETS',
            '        .data',
            'stepp:  .word   0',
            'steps:  .word   stepdata']
    rows = []
    for k in range(len(calls) + 1):
        c = calls[k - 1] if k else Call("")
        for n in range(nodes):
            ints = [_word(_node_value(v, n)) for v in c.ints]
            ints += [0] * (7 - len(ints))
            fl = [int(to_single(float(_node_value(v, n)))) for v in c.floats]
            fl += [0x80000000] * (2 - len(fl))
            stamp = (k * nodes + n) * 16
            regs = []
            for r, low in (("R4", f"stamps+{stamp}"), ("R5", f"stamps+{stamp + 8}"),
                           ("R6", None), ("R7", None)):
                pat = SENTINELS[r]
                regs += [str((pat >> 8) & 0xFFFFFFFF), low or str(pat & 0xFFFFFFFF)]
            words = [str(w) for w in ints + fl] + regs
            words += ["0"] * (BLOCK - len(words))
            rows.append("        .word   " + ", ".join(words))
    out.append("stepdata:")
    out += rows
    out.append("stamps:")
    for k in range(len(calls) + 1):
        for n in range(nodes):
            out.append("        .word   7, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0")
    return "\n".join(out) + "\n"


def build(calls: list[Call], nodes: int = 1, extra: Sequence[str] = ()):
    src = driver(calls, nodes)
    return build_text(src, *extra, include_dirs=[firmware.include_dir()],
                      libraries=firmware.link_inputs())


def run_calls(calls: list[Call], *, nodes: int = 1,
              setup: Callable[[Simulator], None] | None = None, max_cycles: int = 20_000_000,
              extra: Sequence[str] = (), expect_ok: bool = True, sim_kw: dict | None = None,
              **cfg) -> Run:
    image = build(calls, nodes, extra)
    config = MachineConfig(nodes=nodes, hostcall_cycles=0, **cfg)
    sim = Simulator(config, **(sim_kw or {}))
    sim.load(image)
    if setup is not None:
        setup(sim)
    result = sim.run(max_cycles=max_cycles)
    if expect_ok:
        assert result.ok, "\n".join(result.messages)
    run = Run(sim, result, calls)
    syms = image.symbols
    stepdata, stamps = syms["stepdata"], syms["stamps"]
    run._stamps = []
    for n in range(nodes):
        st = []
        for k in range(len(calls) + 1):
            s = sim.read(stamps + (k * nodes + n) * 16, 16, n)
            st.append((int(s[1]), int(s[9])))
        run._stamps.append(st)
    run.empty = [st[0][1] - st[0][0] for st in run._stamps]
    for n in range(nodes):
        res = []
        for k in range(1, len(calls) + 1):
            d = sim.read(stepdata + (k * nodes + n) * BLOCK, BLOCK, n)
            a, b = run._stamps[n][k]
            saved = True
            for i, r in enumerate(("R4", "R5", "R6", "R7")):
                lo, fl = int(d[26 + 2 * i]), int(d[27 + 2 * i])
                want_lo = int(d[10 + 2 * i])
                if lo != want_lo or fl >> 24 != SENTINELS[r] >> 32:
                    saved = False
            r0 = int(d[20])
            res.append(Result(cycles=(b - a) - run.empty[n],
                              r0=r0 - (1 << 32) if r0 & 0x80000000 else r0,
                              r0f=float(from_single(np.uint32(d[21]))), r1=int(d[22]),
                              dp=int(d[23]), sp=int(d[24]), ar7=int(d[25]), saved_ok=saved))
        run.per_node.append(res)
    return run


def check_convention(run: Run) -> None:
    """Every call preserved R4-R7, AR7, DP and SP (on every node)."""
    for n, res in enumerate(run.per_node):
        sps = {r.sp for r in res}
        for k, r in enumerate(res):
            what = f"node {n}, call {k} ({run.calls[k].fn})"
            assert r.saved_ok, f"{what}: R4-R7 not preserved"
            assert r.ar7 == 0x800000, f"{what}: AR7 not preserved"
            assert r.dp == 0, f"{what}: DP not preserved"
        assert len(sps) == 1, f"node {n}: SP changed across calls: {sps}"


def text_at(sim: Simulator, addr: int, node: int = 0, limit: int = 64) -> str:
    """The 0-terminated string (one character a word) at addr."""
    w = sim.read(addr, limit, node)
    out = []
    for x in w:
        if x == 0:
            break
        out.append(chr(int(x) & 0xFF))
    return "".join(out)


ULP = 2.0 ** -23        # one unit in the last place of a C30 single (24-bit mantissa)


def assert_close(got, exact, scale, ulps: float, what: str = "") -> None:
    """|got - exact| <= ulps * 2^-23 * scale, elementwise (scale: the size
    of the quantities the rounding errors are relative to)."""
    got, exact = np.asarray(got, dtype=float), np.asarray(exact, dtype=float)
    bound = ulps * ULP * np.broadcast_to(np.abs(scale), exact.shape) + 1e-37
    err = np.abs(got - exact)
    bad = err > bound
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {bad.size} off; worst error "
                           f"{float(err.max()):.3g}, bound there {float(bound[np.argmax(err)]):.3g}")


def floats(sim: Simulator, addr: int, n: int, node: int = 0) -> np.ndarray:
    return sim.read_floats(addr, n, node)


def c30(values) -> np.ndarray:
    """Values rounded to C30 single precision (what write_floats stores)."""
    return from_single(to_single(np.asarray(values, dtype=np.float64)))


#: a word no kernel writes: put just past an output to show nothing runs over it
CANARY = 0x5A5A5A5A


def check_mxtv_pair(calls: list[Call], checks, name: str) -> None:
    """Run ``calls``, pairs of ``_NAME`` (y + W^T e) and ``_NAMEw`` (W^T e
    written), and check each against numpy within the C30's precision, the
    canary past each y kept and the calling convention.  ``checks``: one
    (rows, cols, W, e, y, yw, w, ev, y0) a pair: the addresses, then the
    values W, e and y hold before the call."""
    def setup(sim):
        for rows, cols, W, e, y, yw, w, ev, y0 in checks:
            sim.write_floats(W, w.ravel())
            sim.write_floats(e, ev)
            sim.write_floats(y, y0)
            sim.write_floats(yw, -y0)               # overwritten
            sim.write(y + cols, [CANARY])
            sim.write(yw + cols, [CANARY])

    run = run_calls(calls, setup=setup)
    check_convention(run)
    for rows, cols, W, e, y, yw, w, ev, y0 in checks:
        scale = np.abs(w).T @ np.abs(ev)
        assert_close(run.sim.read_floats(y, cols), y0 + w.T @ ev, scale + np.abs(y0), 2 + rows,
                     f"{name} {rows}x{cols}")
        assert_close(run.sim.read_floats(yw, cols), w.T @ ev, scale, 2 + rows,
                     f"{name}w {rows}x{cols}")
        assert int(run.sim.read(y + cols, 1)[0]) == CANARY
        assert int(run.sim.read(yw + cols, 1)[0]) == CANARY

