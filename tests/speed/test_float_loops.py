"""The float loops of the fast path (issue 16, training) against the general
path on hostile data: RPTS dot products and RPTB weight-update blocks over
words with every kind of exponent -- zero (-128), the extremes that
overflow or underflow the product or the sum, denormal-range results,
negative mantissas, the most negative mantissa -- run plainly and probed
(every instruction through step()), with identical registers (40 bits),
ST (N Z V UF and the latched LV LUF), counters and memory required."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_text

from reference_cases import run_snapshot

X, W, Y = 0x2000, 0x2100, 0x2200        # two operand vectors and an output vector

#: single-precision words: exponent byte (0x80 = -128 is zero; 0x7F and
#: 0x81 the extremes) and a 24-bit mantissa field with its sign bit
EXPONENTS = st.one_of(st.sampled_from([0x80, 0x81, 0x82, 0x7F, 0x7E, 0xC0, 0x40, 0x00, 0xFF, 0x01]),
                      st.integers(0, 255))
MANTISSAS = st.one_of(st.sampled_from([0, 0x800000, 0x7FFFFF, 0xFFFFFF, 0x000001, 0x400000]),
                      st.integers(0, 0xFFFFFF))
WORDS = st.builds(lambda e, m: (e << 24) | m, EXPONENTS, MANTISSAS)


def _run(src: str, data: dict[int, list[int]], probed: bool) -> dict:
    sim = Simulator(MachineConfig())
    sim.load(build_text(src))
    for a, words in data.items():
        sim.write(a, words)
    return run_snapshot(sim, probed, None)


def _ld(value: int, reg: str) -> str:
    return f"        LDI {value >> 16}, {reg}\n        LSH 16, {reg}\n        OR {value & 0xFFFF}, {reg}\n"


def _start(st_bits: int) -> str:
    """Load AR0/AR1/AR2 with the vectors, R0-R3 from the first words of Y
    (so the accumulators start at any value, zero included), ST's latched
    bits as drawn."""
    return ("        .global start\nstart:\n" + _ld(X, "AR0") + _ld(W, "AR1") + _ld(Y, "AR2")
            + "".join(f"        LDF *+AR2({i}), R{i}\n" for i in range(4))
            + f"        LDI {st_bits}, ST\n")


BODIES = {
    "dot": "        MPYF3 *AR0++, *AR1++, R0\n     || ADDF3 R0, R2, R2\n",
    "dot_sub": "        MPYF3 *AR0++, *AR1++, R0\n     || SUBF3 R0, R2, R2\n",
    "dot_other": "        MPYF3 *AR0++, *AR1++, R1\n     || ADDF3 R0, R2, R3\n",
    "dot_down": "        MPYF3 *AR0--, *AR1++(IR0), R1\n     || ADDF3 R1, R3, R3\n",
}


@settings(max_examples=80, deadline=None)
@given(body=st.sampled_from(sorted(BODIES)), x=st.lists(WORDS, min_size=24, max_size=24),
       w=st.lists(WORDS, min_size=24, max_size=24), y=st.lists(WORDS, min_size=4, max_size=4),
       count=st.integers(0, 20), st_bits=st.sampled_from([0, 0x20, 0x40, 0x60]))
def test_rpts_dot_products_on_any_floats_equal_general_path(body, x, w, y, count, st_bits):
    """RPTS over MPYF3 || ADDF3/SUBF3 (the accumulating form that
    mpyf_addsubf_run keeps in locals, and others) on random words."""
    src = (_start(st_bits) + ("        LDI 1, IR0\n        ADDI 20, AR0\n" if body == "dot_down" else "")
           + f"        RPTS {count}\n" + BODIES[body] + "        ADDF R2, R3\n        SWI\n")
    data = {X: x, W: w, Y: y}
    fast = _run(src, data, False)
    assert fast["event"] != "error", fast["messages"]
    assert fast == _run(src, data, True)


def _block(op1: str, op2: str, dst: int) -> str:
    """The weight update's block (matrix.asm _mxout) with any float
    operations: ``OP1 R0, *W++, R1`` (a register and a memory source,
    FORM_RM of ops.pxi) and ``OP2 R3, *x++, R0 || STF R1, *y++`` (or
    with R1 as the destination: the store takes R1 before it is written)."""
    return (f"        {op1} R0, *AR1++, R1\n"
            f"blk:    {op2} R3, *AR0++, R{dst}\n     || STF R1, *AR2++\n")


@settings(max_examples=60, deadline=None)
@given(op1=st.sampled_from(["ADDF3", "SUBF3", "MPYF3"]), op2=st.sampled_from(["ADDF3", "SUBF3", "MPYF3"]),
       x=st.lists(WORDS, min_size=24, max_size=24), w=st.lists(WORDS, min_size=24, max_size=24),
       y=st.lists(WORDS, min_size=4, max_size=4), count=st.integers(0, 20),
       st_bits=st.sampled_from([0, 0x20, 0x40, 0x60]), repeat=st.booleans(), dst=st.sampled_from([0, 1]))
def test_weight_update_blocks_on_any_floats_equal_general_path(op1, op2, x, w, y, count, st_bits, repeat,
                                                               dst):
    """The weight update's block on random words, as an RPTB block
    (rptb_bulk) and as a DBU loop (non-repeated code, fast_mem), with
    the operations' handlers per form (FORM_RM, and OPF3 || STF)."""
    loop = (f"        LDI {count}, RC\n        RPTB blk\n" + _block(op1, op2, dst) if repeat else
            f"        LDI {count}, AR4\ntop:\n" + _block(op1, op2, dst) + "        DBU AR4, top\n")
    src = _start(st_bits) + "        ADDI 8, AR2\n" + loop + "        ADDF R2, R3\n        SWI\n"
    data = {X: x, W: w, Y: y}
    fast = _run(src, data, False)
    assert fast["event"] != "error", fast["messages"]
    assert fast == _run(src, data, True)
