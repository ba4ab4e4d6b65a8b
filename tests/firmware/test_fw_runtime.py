"""Start-up (crt0), the system-call stubs and the diagnostic printing."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fwharness import SRAM, SRAM2, SRAM3, Call, c30, check_convention, run_calls, text_at
from rapsim import firmware
from rapsim.config import MachineConfig
from rapsim.toolchain import build_text, run_image

O_WRONLY, O_RDONLY, O_CREAT, O_TRUNC = 1, 0, 0x40, 0x200
ENOENT, EBADF, ERANGE = 2, 9, 34


def _link(src: str):
    return build_text(src, include_dirs=[firmware.include_dir()], libraries=firmware.link_inputs())


PROBE = '''
        .include "rap.inc"
        .global _main, ___argc, ___argv
        .bss    junk, 40
_main:  LDP     res                     ; what _main finds on entry
        STI     AR2, @res               ; argc
        STI     AR3, @res+1             ; argv
        STI     DP, @res+2              ; (DP was 0: LDP above is ours)
        STI     SP, @res+3
        STI     ST, @res+4
        LDI     @junkp, AR0             ; sum of .bss
        LDI     0, R0
        RPTS    39
        ADDI    *AR0++, R0
        STI     R0, @res+5
        LDP     0
        LDI     -3, R0                  ; the exit status
        RETS
        .data
junkp:  .word   junk
res:    .word   -1, -1, -1, -1, -1, -1
'''


def test_crt0(tmp_path):
    image = _link(PROBE)
    from rapsim.machine import Simulator
    sim = Simulator(MachineConfig(nodes=2), root=str(tmp_path), argv=["prog", "alpha", "", "b c"])
    sim.load(image)
    junk = image.symbols["junk"]
    sim.write(junk, np.arange(1, 41))                  # .bss dirty before the start
    result = sim.run(max_cycles=1_000_000)
    assert result.ok and result.exit_status == -3
    for n in range(2):
        argc, argv, _, sp, st, bss = [int(w) for w in sim.read(image.symbols["res"], 6, n)]
        assert argc == 4
        assert bss == 0
        assert st & 0x800 and not st & 0x80             # cache on, OVM off
        free = image.symbols["__SRAM_free"]
        assert argv == free
        ptrs = [int(p) for p in sim.read(argv, 5, n)]
        assert ptrs[4] == 0
        assert [text_at(sim, p, n) for p in ptrs[:4]] == ["prog", "alpha", "", "b c"]
        assert sp > ptrs[3] + 3                          # the stack is above the strings
        assert int(sim.read(image.symbols["___argc"], 1, n)[0]) == 4
        assert int(sim.read(image.symbols["___argv"], 1, n)[0]) == argv


def test_crt0_dp_is_zero_at_main():
    src = '''
        .global _main
_main:  LDI     DP, R0
        RETS
'''
    sim, result = run_image(_link(src), argv=["p"])
    assert result.ok and result.exit_status == 0


def test_file_calls(tmp_path):
    calls = [
        Call("_open", [SRAM, O_CREAT | O_WRONLY | O_TRUNC, 0]),      # 0: fd 3
        Call("_write", [3, SRAM + 0x100, 5]),                        # 1
        Call("_write_words", [3, SRAM + 0x200, 3]),                   # 2
        Call("_close", [3]),                                          # 3
        Call("_open", [SRAM, O_RDONLY, 0]),                           # 4: fd 3 again
        Call("_lseek", [3, 1, 0]),                                    # 5
        Call("_read", [3, SRAM2, 4]),                                 # 6: "ello"
        Call("_read_words", [3, SRAM2 + 0x100, 8]),                   # 7: 3 words
        Call("_read", [3, SRAM2 + 0x200, 4]),                         # 8: end of file
        Call("_close", [3]),                                          # 9
        Call("_open", [SRAM + 0x40, O_RDONLY, 0]),                    # 10: no such file
        Call("_close", [17]),                                         # 11: EBADF
        Call("_clock"), Call("_clock"),                               # 12, 13
        Call("_argc"),                                                # 14
        Call("_argv", [1, SRAM3, 64]),                                # 15
        Call("_argv", [1, SRAM3 + 0x40, 2]),                          # 16: ERANGE
    ]

    def setup(sim):
        sim.write(SRAM, [ord(c) for c in "f.txt"] + [0])
        sim.write(SRAM + 0x40, [ord(c) for c in "nope"] + [0])
        sim.write(SRAM + 0x100, [ord(c) for c in "hello"])
        sim.write(SRAM + 0x200, [0x11223344, 0xFFFFFFFF, 7])

    run = run_calls(calls, setup=setup, sim_kw={"root": str(tmp_path), "argv": ["p", "xyz"]})
    check_convention(run)
    r = [run[k].r0 for k in range(len(calls))]
    assert r[0] == 3 and r[1] == 5 and r[2] == 3 and r[3] == 0
    data = (tmp_path / "f.txt").read_bytes()
    assert data == b"hello" + bytes.fromhex("44332211ffffffff07000000")
    assert r[4] == 3 and r[5] == 1 and r[6] == 4
    assert text_at(run.sim, SRAM2, limit=4) == "ello"
    assert r[7] == 3
    assert [int(w) for w in run.sim.read(SRAM2 + 0x100, 3)] == [0x11223344, 0xFFFFFFFF, 7]
    assert r[8] == 0 and r[9] == 0
    assert r[10] == -1 and r[11] == -1
    errno = int(run.sim.read(run.sim.image.symbols["_errno"], 1)[0])
    assert errno == ERANGE                    # the last failure (ENOENT, EBADF before it)
    assert 0 < r[13] - r[12] < 200            # cycles between the two stamps, free host calls
    assert run[12].r1 == 0                    # CLOCK's high word
    assert r[14] == 2 and r[15] == 3 and text_at(run.sim, SRAM3) == "xyz"
    assert r[16] == -1


def test_errno_enoent(tmp_path):
    run = run_calls([Call("_open", [SRAM, O_RDONLY, 0])],
                    setup=lambda sim: sim.write(SRAM, [ord(c) for c in "none"] + [0]),
                    sim_kw={"root": str(tmp_path)})
    assert run[0].r0 == -1
    assert int(run.sim.read(run.sim.image.symbols["_errno"], 1)[0]) == ENOENT


def test_printing():
    out = []
    calls = [Call("_print_str", [SRAM]), Call("_print_char", [ord("!")]),
             Call("_print_int", [-2147483648]), Call("_print_char", [10]),
             Call("_print_hex", [0xDEADBEEF]), Call("_print_char", [32]),
             Call("_print_float", [], [-0.15625]), Call("_print_char", [10])]
    run = run_calls(calls, nodes=2, setup=lambda sim: sim.write(SRAM, [ord(c) for c in "x="] + [0]),
                    sim_kw={"output": lambda node, fd, data: out.append((node, fd, data))})
    check_convention(run)
    for n in range(2):
        text = b"".join(d for node, fd, d in out if node == n and fd == 1)
        assert text == b"x=!-2147483648\ndeadbeef -0.15625\n"
    assert run[0].r0 == 2                       # _print_str returns what _write returned


INTS = [0, 1, -1, 9, 10, 99, 100, -100, 12345, 999999, 1000000, 123456789, 1000000000,
        2147483647, -2147483647, -2147483648, 65536, -7]


def test_fmt_int_and_hex():
    calls = [Call("_fmt_int", [SRAM + 16 * k, v]) for k, v in enumerate(INTS)]
    calls += [Call("_fmt_hex", [SRAM2 + 16 * k, v]) for k, v in enumerate(INTS)]
    run = run_calls(calls)
    check_convention(run)
    for k, v in enumerate(INTS):
        assert text_at(run.sim, SRAM + 16 * k) == str(v)
        assert run[k].r0 == len(str(v))
        assert text_at(run.sim, SRAM2 + 16 * k) == f"{v & 0xFFFFFFFF:08x}"
        assert run[len(INTS) + k].r0 == 8


# values whose %g text is far from a rounding boundary: printed exactly as C does
EXACT = [0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 100.0, 1e5, 123456.0, 1234567.0, 0.001, 1e-4, 1e-5,
         0.15625, -2.75, 3.14159265, 1e10, 1e-10, 6.02e23, -1.6e-19, 3.0e38, 1.2e-38,
         99999.0, 0.1, 0.3, 7.0e-5, 65504.0]


def _fmt_floats(values):
    calls = [Call("_fmt_float", [SRAM + 16 * k], [v]) for k, v in enumerate(values)]
    run = run_calls(calls)
    check_convention(run)
    texts = [text_at(run.sim, SRAM + 16 * k) for k in range(len(values))]
    for k, t in enumerate(texts):
        assert run[k].r0 == len(t)
    return texts


def test_fmt_float_exact_cases():
    texts = _fmt_floats(EXACT)
    for v, t in zip(c30(EXACT), texts):
        assert t == "%.6g" % v, (v, t)


def test_fmt_float_accuracy():
    """Random values over the whole range: the text is within one unit of
    the sixth significant digit and uses %g's notation (docs/firmware.md)."""
    rng = np.random.default_rng(7)
    values = c30(rng.choice([-1, 1], 150) * 10.0 ** rng.uniform(-37, 37.5, 150))
    texts = _fmt_floats(list(values))
    for v, t in zip(values, texts):
        got = float(t)
        e = math.floor(math.log10(abs(v)))
        assert abs(got - v) <= 1.0001 * 10.0 ** (e - 5), (v, t)
        ref = "%.6g" % v
        assert ("e" in t) == ("e" in ref), (v, t, ref)
