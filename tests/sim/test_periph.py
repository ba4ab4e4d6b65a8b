"""The C30's on-chip peripherals against the TMS320C3x User's Guide (SPRU031)
chapter 12 (12.1 timers, 12.3 DMA controller) and the interrupt rules of
3.1.8-3.1.9 and 7.6, as docs/machine-model.md ("On-chip peripherals") states
the model: DMA address modes, the transfer counter's stop and interrupt,
synchronisation, CPU/DMA arbitration on each memory region, timer periods
and interrupt timing, IDLE woken by a peripheral, and the errors.

Timing facts of the model used below (docs/machine-model.md):
* a write of the DMA global control with START = 11 at cycle g starts the
  channel at g + 1; a transfer is a read then a write, each one cycle plus
  the wait states of its region; the counter drops at each read;
* a timer started (GO) at cycle g ticks at g + 2, g + 4, ... (f(H1)/2) and
  reaches a period P at g + 2P, where TINT is set;
* an instruction sees what the peripherals did before its own cycle.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from simkit import STACK, build, run, run_result

DMA, TIM0, TIM1 = 0x808000, 0x808020, 0x808030
SRAM_A, SRAM_B, DRAM_A, RAM0, RAM1 = 0x10000, 0x20000, 0x400000, 0x809800, 0x809C00
INCSRC, DECSRC, INCDST, DECDST = 0x10, 0x20, 0x40, 0x80
SYNC_SRC, TC, TCINT, PRI_DMA = 0x100, 0x400, 0x800, 0x3000
START = 3
GO, HLD, CP, CLKSRC = 0x40, 0x80, 0x100, 0x200
TIM_RUN = GO | HLD | CLKSRC
ETINT0, ETINT1, EDINT = 0x100, 0x200, 0x400
GIE = 1 << 13


def ld(value: int, reg: str) -> str:
    """Load a 24-bit constant into reg (3 instructions)."""
    return (f"        LDI {value >> 16}, {reg}\n        LSH 16, {reg}\n"
            f"        OR {value & 0xFFFF}, {reg}\n")


def dma_setup(src: int, dst: int, count: int) -> str:
    """AR0 = DMA global control; source, destination and counter written."""
    return (ld(DMA, "AR0") + ld(src, "R0") + "        STI R0, *+AR0(4)\n" + ld(dst, "R0")
            + "        STI R0, *+AR0(6)\n" + ld(count, "R0") + "        STI R0, *+AR0(8)\n")


def dma_go(gcr: int) -> str:
    return f"        LDI {gcr}, R0\n        STI R0, *AR0\n"


WAIT = ("dwait:  LDI *AR0, R1\n        AND 0Ch, R1\n        CMPI 0Ch, R1\n        BEQ dwait\n")


def periph(sim, node=0):
    return sim.counters(node)["periph"]


# --- DMA: address modes, counter, interrupt -----------------------------------------

MODES = [(INCSRC | INCDST, lambda w: w),                    # block copy
         (DECSRC | INCDST, lambda w: w[::-1]),              # reversed
         (INCSRC | DECDST, lambda w: w[::-1]),              # reversed the other way
         (INCSRC, lambda w: w[-1:] * len(w)),               # fixed destination: the last word stays
         (INCDST, lambda w: w[:1] * len(w)),                # fixed source: a fill
         (INCSRC | DECSRC | INCDST, lambda w: w[:1] * len(w))]  # both INC and DEC: fixed


@pytest.mark.parametrize("mode,expect", MODES)
def test_dma_address_modes(mode, expect):
    n = 8
    words = [0x1000 + 17 * k for k in range(n)]
    src = SRAM_A + (n - 1 if mode & DECSRC and not mode & INCSRC else 0)
    fixed_dst = not (mode & (INCDST | DECDST))
    dst = RAM0 + (n - 1 if mode & DECDST else 0) + (n - 1 if fixed_dst else 0)
    sim = run(dma_setup(src, dst, n) + dma_go(mode | TC | START) + WAIT
              + "        LDI *+AR0(4), AR4\n        LDI *+AR0(6), AR5\n        SWI\n",
              mem={SRAM_A: words, RAM0: [0] * (n + 1)})
    got = [int(w) for w in sim.read(RAM0, n)]
    if fixed_dst:
        assert got == [0] * (n - 1) + expect(words)[-1:]
    else:
        assert got == expect(words)
    assert int(sim.read(RAM0 + n, 1)[0]) == 0               # nothing beyond the block
    step = lambda inc, dec: (1 if inc and not dec else -1 if dec and not inc else 0)
    assert sim.reg("AR4") == src + n * step(mode & INCSRC, mode & DECSRC)
    assert sim.reg("AR5") == dst + n * step(mode & INCDST, mode & DECDST)
    assert periph(sim)["dma_words"] == n


def test_transfer_counter_stop_and_interrupt_flag():
    # TC: the channel stops with the counter at 0 and STAT 00; TCINT sets DINT
    sim = run(dma_setup(SRAM_A, RAM0, 5) + dma_go(INCSRC | INCDST | TC | TCINT | START) + WAIT
              + "        LDI *AR0, AR4\n        LDI *+AR0(8), AR5\n        LDI IF, AR6\n        SWI\n",
              mem={SRAM_A: list(range(1, 11))})
    assert [int(w) for w in sim.read(RAM0, 6)] == [1, 2, 3, 4, 5, 0]
    assert sim.reg("AR4") & 0xC == 0 and sim.reg("AR5") == 0
    assert sim.reg("AR6") == 0x400                          # DINT, not taken (IE = 0)


def test_without_tc_the_channel_goes_on_past_zero():
    # TC = 0: the counter wraps round (24 bits) and the words keep moving;
    # TCINT still flags the transition to 0
    sim = run(dma_setup(SRAM_A, RAM0, 3) + dma_go(INCSRC | INCDST | TCINT | START)
              + "        RPTS 30\n        NOP\n        LDI *+AR0(8), AR5\n        LDI IF, AR6\n"
              + "        LDI 0, R0\n        STI R0, *AR0\n        SWI\n",
              mem={SRAM_A: list(range(1, 21))})
    assert sim.reg("AR5") > 0xFFFF00                        # counted down through 0
    assert sim.reg("AR6") == 0x400
    assert periph(sim)["dma_words"] > 3
    assert [int(w) for w in sim.read(RAM0, 5)] == [1, 2, 3, 4, 5]


def test_tc_with_a_zero_counter_moves_nothing():
    sim = run(dma_setup(SRAM_A, RAM0, 0) + dma_go(INCSRC | INCDST | TC | START)
              + "        NOP\n        NOP\n        LDI *AR0, AR4\n        SWI\n",
              mem={SRAM_A: [7]})
    assert periph(sim)["dma_words"] == 0 and sim.reg("AR4") & 0xC == 0


def test_dint_is_taken_at_the_end_of_the_block():
    body = ("        LDI isr, R0\n        STI R0, @11\n"         # DINT's vector is word 0xB
            "        LDI 400h, IE\n        OR 2000h, ST\n"
            + dma_setup(SRAM_A, RAM0, 6) + dma_go(INCSRC | INCDST | TC | TCINT | START)
            + "spin:   CMPI 0, AR5\n        BZ spin\n        SWI\n"
            "isr:    LDI *+AR0(8), AR4\n        LDI 1, AR5\n        RETIU\n")
    sim = run(body, regs={"SP": STACK}, mem={SRAM_A: list(range(6))})
    assert sim.reg("AR5") == 1 and sim.reg("AR4") == 0
    assert periph(sim)["interrupts"]["DINT"] == 1
    assert sim.reg("IF") & 0x400 == 0                       # cleared when taken


@settings(max_examples=25, deadline=None)
@given(k=st.integers(0, 40), n=st.integers(1, 30))
def test_dma_throughput_without_contention(k, n):
    # on chip to on chip, k NOPs after the start: the CPU reads the counter at
    # g + 1 + k; reads happened at g + 1, g + 3, ... before it
    sim = run(dma_setup(RAM0, RAM1, n) + dma_go(INCSRC | INCDST | TC | START)
              + (f"        RPTS {k - 1}\n        NOP\n" if k > 4 else "        NOP\n" * k)
              + "        LDI *+AR0(8), AR4\n        SWI\n",
              mem={RAM0: list(range(n))})
    elapsed = k + 1 + (4 if k > 4 else 0)                   # RPTS costs 4, its NOPs 1 each
    assert sim.reg("AR4") == max(0, n - elapsed // 2)


# --- arbitration: the CPU first (PRI = 00), or the DMA first (PRI = 11) -----------------

def contention(src: int, dst: int, cpu: int, reps: int, gcr: int = INCSRC | INCDST | TC | START,
               parallel: bool = True):
    """The DMA moves 500 words src -> dst while the CPU repeats a load (two
    parallel loads from cpu and cpu + 200, or one) reps times; returns
    (words read by the DMA when the loop ends, simulator)."""
    loop = ("        LDI *AR1++, R0\n||      LDI *AR2++, R1\n" if parallel
            else "        LDI *AR1++, R0\n")
    body = (dma_setup(src, dst, 500) + ld(cpu, "AR1") + ld(cpu + 200, "AR2") + dma_go(gcr)
            + f"        RPTS {reps - 1}\n" + loop + "        LDI *+AR0(8), R3\n" + WAIT + "        SWI\n")
    sim = run(body)
    return 500 - sim.reg("R3"), sim


@pytest.mark.parametrize("reps", [10, 20])
def test_onchip_block_both_ports_taken_by_the_cpu_starve_the_dma(reps):
    # the repeated LDI || LDI takes both ports of RAM0 every cycle: the DMA's
    # reads of RAM0 wait for the loop to end; it got 2 transfers in during
    # the 4 cycles of RPTS (reads at g+1 and g+3)
    moved, sim = contention(RAM0, RAM1, RAM0, reps)
    assert moved == 2
    # ready at g + 5, waiting for the reps cycles of the loop
    assert periph(sim)["dma_lost_to_cpu"] == reps
    assert periph(sim)["cpu_lost_to_dma"] == 0


@pytest.mark.parametrize("reps", [10, 20])
def test_onchip_block_one_port_leaves_the_other_to_the_dma(reps):
    # one CPU access per cycle to RAM0 leaves a port: the DMA runs at full
    # speed (2 cycles a word) through the 4 + reps cycles
    moved, sim = contention(RAM0, RAM1, RAM0, reps, parallel=False)
    assert moved == (4 + reps + 1) // 2
    assert periph(sim)["dma_lost_to_cpu"] == 0


@pytest.mark.parametrize("reps", [10, 20])
def test_the_other_block_is_free(reps):
    moved, sim = contention(RAM0, RAM0 + 300, RAM1, reps)
    assert moved == (4 + reps + 1) // 2
    assert periph(sim)["dma_lost_to_cpu"] == 0 and periph(sim)["cpu_lost_to_dma"] == 0


@pytest.mark.parametrize("reps", [10, 20])
def test_primary_bus_sram_taken_by_the_cpu_starves_the_dma(reps):
    # two SRAM reads per repetition hold the primary bus for the whole loop;
    # RPTS's own fetch holds it 1 of its 4 cycles: one transfer (read g+2)
    moved, sim = contention(SRAM_A, RAM1, SRAM_B, reps)
    assert moved == 2
    assert sim.counters()["cycles"] > 2 * reps
    assert periph(sim)["cpu_lost_to_dma"] == 0


@pytest.mark.parametrize("reps", [10, 20])
def test_dma_between_the_onchip_blocks_is_not_slowed_by_the_primary_bus(reps):
    # 4 (RPTS) + 3 (first repetition: fetch and two reads) + 2 per repetition
    moved, _ = contention(RAM0, RAM1, SRAM_B, reps)
    assert moved == (4 + 3 + 2 * (reps - 1) + 1) // 2


def test_dram_wait_states_slow_the_dma_and_its_holds_delay_the_cpu():
    # an RPTB loop (from the cache) reads SRAM once every 3 cycles: the DMA's
    # DRAM read (3 cycles on the primary bus, 2 wait states) starts in the
    # gap and is not preempted, so the next SRAM read waits for it
    body = ("        OR 800h, ST\n" + dma_setup(DRAM_A, RAM1, 40) + ld(SRAM_B, "AR1")
            + "        LDI 29, RC\n"
            + dma_go(INCSRC | INCDST | TC | START)
            + "        RPTB lend\n        LDI *AR1++, R0\n        NOP\nlend:   NOP\n" + WAIT
            + "        SWI\n")
    sim = run(body)
    p = periph(sim)
    assert p["dma_words"] == 40
    assert p["cpu_lost_to_dma"] > 0
    c = sim.counters()
    assert c["stall_cycles"] == c["cycles"] - c["instructions"]


@pytest.mark.parametrize("reps", [10, 20])
def test_dma_priority_takes_the_block_first(reps):
    # PRI = 11: the DMA's RAM0 read goes first, the repeated LDI || LDI waits
    # a cycle each time: the DMA runs at full speed, the CPU loses one cycle
    # per repetition
    moved, sim = contention(RAM0, RAM1, RAM0, reps, gcr=INCSRC | INCDST | TC | START | PRI_DMA)
    assert periph(sim)["cpu_lost_to_dma"] == reps
    assert periph(sim)["dma_lost_to_cpu"] == 0
    # reads at g + 1 + 2j up to the counter's read at g + 5 + 2 reps, which
    # the DMA's read of that same cycle precedes
    assert moved == reps + 3


def test_rotating_priority_is_a_clear_error():
    sim, res = run_result(dma_setup(SRAM_A, RAM0, 4) + dma_go(INCSRC | INCDST | TC | START | 0x1000)
                          + "        NOP\n        NOP\n        SWI\n")
    assert res.event == "error"
    assert "rotating" in res.messages[0] and res.messages[0].startswith("node 0: ")


@pytest.mark.parametrize("bad", [0x808040, 0x800001, 0xC00000])
def test_dma_to_an_address_it_cannot_use_is_an_error(bad):
    # (the source on chip: the CPU's fetches from SRAM, uncached, would
    # keep the primary bus to themselves and the DMA would never read)
    sim, res = run_result(dma_setup(RAM0, bad, 4) + dma_go(INCSRC | INCDST | TC | START)
                          + "        NOP\n        NOP\n        NOP\n        SWI\n")
    assert res.event == "error"
    assert "DMA transfer" in res.messages[0] and f"0x{bad:06X}" in res.messages[0]


def test_unmodelled_peripheral_register_is_an_error():
    sim, res = run_result(ld(0x808040, "AR0") + "        LDI *AR0, R0\n        SWI\n")
    assert res.event == "error" and "unmapped" in res.messages[0]


# --- synchronisation by interrupts --------------------------------------------------

def test_dma_reads_paced_by_timer_interrupts():
    # SYNC = 01 with TINT0 enabled for the DMA (IE bit 24): one word per
    # timer period (20 cycles); the CPU's IE half is 0 so it takes nothing
    body = (ld(TIM0, "AR1") + "        LDI 10, R0\n        STI R0, *+AR1(8)\n"
            + ld(ETINT0 << 16, "R0") + "        LDI R0, IE\n"
            + dma_setup(SRAM_A, RAM0, 100) + dma_go(INCSRC | INCDST | TC | SYNC_SRC | START)
            + f"        LDI {TIM_RUN}, R0\n        STI R0, *AR1\n"
            + "        RPTS 204\n        NOP\n        LDI *+AR0(8), AR4\n        SWI\n")
    sim = run(body, mem={SRAM_A: list(range(100))})
    assert sim.reg("AR4") == 100 - 10                       # 10 periods of 20 cycles
    assert [int(w) for w in sim.read(RAM0, 11)] == list(range(10)) + [0]
    assert sim.reg("IF") & 0x100 == 0                       # each flag taken by the DMA
    assert periph(sim)["interrupts"]["TINT0"] == 0


# --- timers --------------------------------------------------------------------------

def timer_prog(period: int, gcr: int, nops: int, reg: int = 4, timer: int = TIM0) -> str:
    return (ld(timer, "AR0") + f"        LDI {period}, R0\n        STI R0, *+AR0(8)\n"
            + f"        LDI {gcr}, R0\n        STI R0, *AR0\n" + "        NOP\n" * nops
            + f"        LDI IF, R2\n        LDI *+AR0({reg}), R3\n        SWI\n")


@pytest.mark.parametrize("nops", range(0, 12))
def test_timer_counts_every_second_cycle(nops):
    # GO at g; the read at g + 2 + nops sees (2 + nops) // 2 ticks
    sim = run(timer_prog(1000, TIM_RUN, nops))
    assert sim.reg("R3") == (2 + nops) // 2


@pytest.mark.parametrize("timer,bit", [(TIM0, 0x100), (TIM1, 0x200)])
@pytest.mark.parametrize("period", [1, 3, 5])
def test_tint_is_set_when_the_counter_reaches_the_period(timer, bit, period):
    # TINT at g + 2P: an instruction at g + 2P + 1 sees it, one at g + 2P not;
    # the counter went back to 0 at g + 2P and ticked once at g + 2P + 2
    seen = run(timer_prog(period, TIM_RUN, 2 * period, timer=timer))
    assert seen.reg("R2") == bit and seen.reg("R3") == (1 if period > 1 else 0)
    before = run(timer_prog(period, TIM_RUN, 2 * period - 1, timer=timer))
    assert before.reg("R2") == 0


def test_timer_hold_external_clock_and_restart():
    # HLD_ = 0 holds; CLKSRC = 0 (TCLK, not connected) never counts; GO
    # resets the counter
    body = (ld(TIM0, "AR0") + f"        LDI 1000, R0\n        STI R0, *+AR0(8)\n"
            f"        LDI {TIM_RUN}, R0\n        STI R0, *AR0\n" + "        NOP\n" * 9
            + f"        LDI {CLKSRC}, R0\n        STI R0, *AR0\n"          # hold
            + "        NOP\n" * 10 + "        LDI *+AR0(4), R4\n"
            + f"        LDI {HLD | CLKSRC}, R0\n        STI R0, *AR0\n"   # resume without GO
            + "        NOP\n" * 3 + "        LDI *+AR0(4), R5\n"
            + f"        LDI {GO | HLD}, R0\n        STI R0, *AR0\n"       # external clock: frozen
            + "        NOP\n" * 10 + "        LDI *+AR0(4), R6\n        LDI *AR0, R7\n        SWI\n")
    sim = run(body)
    assert sim.reg("R4") == 5                               # 10 cycles counted before the hold
    assert sim.reg("R5") == 5 + 2                           # 4 more cycles
    assert sim.reg("R6") == 0                               # GO reset it, nothing ticks
    assert sim.reg("R7") & GO == 0                          # GO reads 0


@pytest.mark.parametrize("clock_mode", [False, True])
def test_clock_mode_interrupts_every_other_period(clock_mode):
    # P = 5: the counter reaches the period at g + 10, g + 20, g + 30; in
    # pulse mode each sets TINT0, in clock mode TSTAT toggles 1, 0, 1 and only
    # its rises do.  IF is read at g + 11, cleared at g + 12, read at g + 28
    # and g + 31.
    body = (ld(TIM0, "AR0") + "        LDI 5, R0\n        STI R0, *+AR0(8)\n"
            + f"        LDI {TIM_RUN | (CP if clock_mode else 0)}, R0\n        STI R0, *AR0\n"
            + "        NOP\n" * 10 + "        LDI IF, R2\n        LDI 0, IF\n"
            + "        NOP\n" * 15 + "        LDI IF, R3\n        LDI 0, IF\n"
            + "        NOP\n" + "        LDI IF, R4\n        LDI *AR0, R5\n        SWI\n")
    sim = run(body)
    assert sim.reg("R2") == 0x100
    assert sim.reg("R3") == (0 if clock_mode else 0x100)
    assert sim.reg("R4") == 0x100
    assert bool(sim.reg("R5") & 0x800) == clock_mode         # TSTAT high after a rise


# --- IDLE ----------------------------------------------------------------------------

def test_idle_woken_by_a_timer():
    body = ("        LDI isr, R0\n        STI R0, @9\n        LDI 100h, IE\n"
            + ld(TIM0, "AR0") + "        LDI 50, R0\n        STI R0, *+AR0(8)\n"
            + f"        LDI {TIM_RUN}, R0\n        STI R0, *AR0\n"
            + "        IDLE\n        LDI 3, AR1\n        SWI\n"
            "isr:    LDI *+AR0(4), AR4\n        ADDI 1, AR5\n        RETIU\n")
    sim = run(body, regs={"SP": STACK})
    assert sim.reg("AR5") == 1 and sim.reg("AR1") == 3
    p = periph(sim)
    # IDLE at g + 1 (1 cycle); asleep from g + 2 to g + 101, woken the cycle
    # after the counter reached 50 at g + 100
    assert p["idle_cycles"] == 99 and p["interrupts"]["TINT0"] == 1
    assert sim.reg("AR4") == 2                              # 4 (interrupt) + 1 later, counting again
    c = sim.counters()
    assert c["stall_cycles"] == c["cycles"] - c["instructions"]


def test_idle_woken_by_the_end_of_a_dma_block():
    body = ("        LDI isr, R0\n        STI R0, @11\n        LDI 400h, IE\n"
            + dma_setup(SRAM_A, RAM0, 20) + dma_go(INCSRC | INCDST | TC | TCINT | START)
            + "        IDLE\n        SWI\n"
            "isr:    LDI *+AR0(8), AR4\n        LDI 1, AR5\n        RETIU\n")
    sim = run(body, regs={"SP": STACK}, mem={SRAM_A: list(range(20))})
    assert sim.reg("AR5") == 1 and sim.reg("AR4") == 0
    assert [int(w) for w in sim.read(RAM0, 20)] == list(range(20))
    assert periph(sim)["idle_cycles"] > 30


@pytest.mark.parametrize("setup", [
    f"        LDI {TIM_RUN}, R0\n        STI R0, *AR0\n",            # TINT0 not enabled in IE
    f"        LDI {GO | HLD}, R0\n        STI R0, *AR0\n",            # external clock: never ticks
])
def test_idle_that_nothing_can_wake_stays_an_error(setup):
    body = ld(TIM0, "AR0") + "        LDI 5, R0\n        STI R0, *+AR0(8)\n" + setup \
        + ("        LDI 200h, IE\n" if "200" not in setup else "") + "        IDLE\n        SWI\n"
    sim, res = run_result(body)
    assert res.event == "idle" and "no interrupt can wake it" in res.messages[0]


# --- the ring by DMA -------------------------------------------------------------------

def ring_sim(nodes: int, body: str) -> Simulator:
    sim = Simulator(MachineConfig(nodes=nodes))
    sim.load(build(body))
    return sim


def test_dma_ring_shift_on_4_nodes():
    # every node's DMA sends 8 words downstream while its CPU reads the 8
    # words from upstream: each direction of the ring has one master
    body = (dma_setup(SRAM_A, 0x800000, 8) + dma_go(INCSRC | TC | START)
            + ld(0x800000, "AR1") + ld(SRAM_B, "AR2") + "        LDI 7, AR3\n"
            + "rd:     LDI *AR1, R0\n        STI R0, *AR2++\n        DBU AR3, rd\n" + WAIT
            + "        LDI 1, R7\nend:    BR end\n")
    sim = ring_sim(4, body)
    for n in range(4):
        sim.write(SRAM_A, [100 * n + k for k in range(8)], node=n)
    res = sim.run(max_cycles=3_000)
    assert res.event == "limit", res.messages
    for n in range(4):
        up = (n - 1) % 4
        assert sim.reg("R7", n) == 1
        assert [int(w) for w in sim.read(SRAM_B, 8, n)] == [100 * up + k for k in range(8)]
        assert periph(sim, n)["dma_words"] == 8 and sim.counters(n)["ring"]["sent"] == 8
        assert sim.counters(n)["ring"]["received"] == 8


def test_dma_ring_write_waits_for_room_like_the_cpu():
    # one node, nobody reads: the link holds two words, the channel waits for
    # ever to write the third (the CPU polls STAT meanwhile: time goes on)
    sim = ring_sim(1, dma_setup(RAM0, 0x800000, 5) + dma_go(INCSRC | TC | START) + WAIT
                   + "        SWI\n")
    res = sim.run(max_cycles=2_000)
    assert res.event == "limit"
    assert periph(sim)["dma_words"] == 2 and sim.counters()["ring"]["sent"] == 2


def test_cpu_and_dma_on_one_ring_direction_is_an_error():
    sim = ring_sim(2, dma_setup(SRAM_A, 0x800000, 5) + dma_go(INCSRC | TC | START)
                   + ld(0x800000, "AR1") + "        STI R0, *AR1\n        SWI\n")
    res = sim.run(max_cycles=10_000)
    assert res.event == "error" and "RING_DATA used by the CPU" in res.messages[0]


def test_programs_without_peripherals_count_nothing_there():
    sim = run("        LDI 5, R0\n        SWI\n")
    p = periph(sim)
    assert all(v == 0 for k, v in p.items() if k != "interrupts")
    assert not any(p["interrupts"].values())


# --- the simulation order changes nothing ------------------------------------------------

def _finish_all(sim, order, quantum, limit=20_000):
    """Run until every node has reached its SWI; each node's counters then."""
    done = {}
    for _ in range(sim.nodes + 1):
        res = sim.run(max_cycles=limit, quantum=quantum, order=order)
        if res.event != "break":
            break
        c = sim.counters(res.node)
        done[res.node] = (c["cycles"], c["instructions"], c["stalls"], c["periph"], c["ring"])
        sim.core.finish_hostcall(res.node, 0, exited=True)     # let the others go on
    return done


SHIFT = (dma_setup(SRAM_A, 0x800000, 8) + dma_go(INCSRC | TC | START)
         + ld(0x800000, "AR1") + ld(SRAM_B, "AR2") + "        LDI 7, AR3\n"
         + "rd:     LDI *AR1, R0\n        STI R0, *AR2++\n        DBU AR3, rd\n" + WAIT
         + "        SWI\n")
BCAST = (ld(0x800000, "AR1") + "        LDI *+AR1(3), R1\n        CMPI 0, R1\n        BNZ recv\n"
         + ld(SRAM_A, "AR2") + "        LDI 7, AR3\nsnd:    LDI *AR2++, R0\n        STI R0, *AR1\n"
         "        DBU AR3, snd\n        SWI\n"
         "recv:   CMPI 3, R1\n        BZ nofwd\n        LDI 8, R0\n        STI R0, *+AR1(2)\n"
         "nofwd:  " + dma_setup(0x800000, SRAM_B, 8).lstrip() + dma_go(INCDST | TC | START)
         + "        RPTS 20\n        NOP\n" + WAIT + "        SWI\n")


@pytest.mark.parametrize("body", [SHIFT, BCAST], ids=["shift", "broadcast"])
def test_dma_on_the_ring_is_independent_of_the_simulation_order(body):
    outcomes = []
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]):
        for quantum in (0, 1, 5):
            sim = ring_sim(4, body)
            for n in range(4):
                sim.write(SRAM_A, [100 * n + k for k in range(8)], node=n)
            done = _finish_all(sim, order, quantum)
            assert len(done) == 4
            outcomes.append(done)
    assert all(o == outcomes[0] for o in outcomes)
    # every receiver got node 0's words (broadcast) or its upstream's (shift)
    for n in range(1, 4):
        up = 0 if body is BCAST else n - 1
        assert [int(w) for w in sim.read(SRAM_B, 8, n)] == [100 * up + k for k in range(8)]


# --- any block, any regions, any steps ------------------------------------------------------

PLACES = {"SRAM": SRAM_A, "DRAM": DRAM_A, "RAM0": RAM0, "RAM1": RAM1 + 0x100}
STEPS = {1: (INCSRC, INCDST), -1: (DECSRC, DECDST), 0: (0, 0)}
WAITS = {"SRAM": 0, "DRAM": 2, "RAM0": 0, "RAM1": 0}


@settings(max_examples=40, deadline=None)
@given(src=st.sampled_from(sorted(PLACES)), dst=st.sampled_from(sorted(PLACES)),
       ds=st.sampled_from([1, -1, 0]), dd=st.sampled_from([1, -1, 0]), n=st.integers(1, 40))
def test_any_block_moves_like_a_loop_of_reads_and_writes(src, dst, ds, dd, n):
    s0 = PLACES[src] + (n - 1 if ds < 0 else 0)
    d0 = PLACES[dst] + 0x80 + (n - 1 if dd < 0 else 0)     # never overlapping the source
    words = [0x5000 + 7 * k for k in range(n)]
    base = PLACES[src]
    mode = STEPS[ds][0] | STEPS[dd][1]
    sim = run("        OR 800h, ST\n" + dma_setup(s0, d0, n) + dma_go(mode | TC | START) + WAIT
              + "        SWI\n", mem={base: words, PLACES[dst] + 0x80 - 1: [0] * (n + 2)})
    mem = {PLACES[dst] + 0x80 - 1 + k: 0 for k in range(n + 2)}
    src_mem = {base + k: w for k, w in enumerate(words)}
    for k in range(n):                                        # the reference: read, then write
        mem[d0 + k * dd] = src_mem[s0 + k * ds]
    lo = PLACES[dst] + 0x80 - 1
    assert [int(w) for w in sim.read(lo, n + 2)] == [mem[lo + k] for k in range(n + 2)]
    p = periph(sim)
    assert p["dma_words"] == n
    c = sim.counters()
    assert c["stall_cycles"] == c["cycles"] - c["instructions"]
    # the channel needs (1 + wait states) per access at least
    assert c["cycles"] >= n * (2 + WAITS[src] + WAITS[dst])
