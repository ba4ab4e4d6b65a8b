"""The kernel writer's tools and the on-chip peripherals: the trace records an
interrupt taken, a sleep in IDLE, the CPU's waits for the DMA and the DMA's
words; the profile, the timeline, the waveform and the debugger show them.
The program (toolprogs.PERIPH) is hand-analysed:

* timer 0 (period 10) is started by the STI at cycle 12 (GO); it reaches
  its period at 12 + 2 x 10 = 32 and sets TINT0 (guide 12.1.5: one tick
  every 2 cycles); the IDLE at 13 sleeps from 14 and wakes at 33;
* the interrupt is taken at 33 (guide 7.6): PC 0x4C pushed at SP + 1,
  4 cycles of pipeline flush; the ISR's ADDI runs at 37, its RETI at 38;
* the DMA copies 8 words RAM0 -> RAM1 with DMA priority while RPTS repeats
  LDI || LDI from RAM0 6 times: every repetition waits 1 cycle for the
  DMA's RAM0 read (tests/sim/test_periph.py states the arbitration).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from rapsim.lineprof import LineProfile
from rapsim.probes import TRACE_DTYPE
from rapsim.timeline import Timeline, validate
from rapsim.trace import (KIND_DMA_RING, KIND_IDLE, KIND_INSTR, KIND_INTERRUPT, STALL_CAUSES,
                          Source, accesses, format_record, format_records, stalls)
from rapsim.waveform import Waveform
from test_tools_vcd import at, parse
from toolprogs import DMA_RING, PERIPH, PERIPH_REPS, image_from_file, rap_main, sim_of

GO, IDLE_AT, WAKE, ISR, RETI_END = 12, 13, 33, 37, 42
ISR_PC, RESUME_PC = 0x63, 0x4C


def traced():
    sim = sim_of(PERIPH)
    chunks = []
    sim.probes.trace(chunks.append)
    res = sim.run(max_cycles=5_000)
    assert res.event == "break"
    return sim, np.concatenate(chunks) if chunks else np.zeros(0, TRACE_DTYPE)


def test_trace_records_interrupt_idle_and_dma():
    sim, recs = traced()
    c = sim.counters(0)
    kinds = recs["kind"].tolist()
    assert kinds.count(KIND_IDLE) == 1 and kinds.count(KIND_INTERRUPT) == 1
    assert sum(k == KIND_INSTR for k in kinds) == c["instructions"]
    idle = recs[kinds.index(KIND_IDLE)]
    assert (int(idle["cycle"]), int(idle["end"])) == (IDLE_AT + 1, WAKE)
    assert stalls(idle) == {"idle": WAKE - IDLE_AT - 1} and idle["pc"] == 0x4B   # the IDLE's
    irq = recs[kinds.index(KIND_INTERRUPT)]
    assert (int(irq["cycle"]), int(irq["end"])) == (WAKE, ISR)
    assert stalls(irq) == {"branch": 4} and irq["irq"] == 8 and irq["pc"] == RESUME_PC
    assert [(int(irq["maddr"][k]), int(irq["mval"][k])) for k in range(irq["nmem"])] == \
        [(0x1001, RESUME_PC), (9, ISR_PC)]
    after = recs[kinds.index(KIND_INTERRUPT) + 1]
    assert (int(after["cycle"]), int(after["pc"])) == (ISR, ISR_PC)
    # every cycle of the node is in exactly one record: they follow each other
    assert recs["end"][:-1].tolist() == recs["cycle"][1:].tolist()
    assert int(recs["end"][-1]) == c["cycles"]
    # stall cycles by cause add up to the node's counters
    total = recs["stall"].sum(axis=0)
    for k, cause in enumerate(STALL_CAUSES[:len(c["stalls"])]):
        assert total[k] == c["stalls"][cause]
    assert total[STALL_CAUSES.index("dma")] == c["periph"]["cpu_lost_to_dma"] == PERIPH_REPS
    assert total[STALL_CAUSES.index("idle")] == c["periph"]["idle_cycles"]
    assert int(recs["dma_words"].sum()) == c["periph"]["dma_words"] == 8
    # each repetition of the LDI || LDI waited one cycle, before it executed
    reps = recs[(recs["pc"] == 0x5D) & (recs["kind"] == KIND_INSTR)]
    assert len(reps) == PERIPH_REPS
    assert reps["stall"][:, STALL_CAUSES.index("dma")].tolist() == [1] * PERIPH_REPS
    assert (reps["t_exec"] - reps["cycle"]).tolist() == [1] * PERIPH_REPS


def test_rap_run_trace_lines(cwd, monkeypatch):
    img = image_from_file(cwd, "per.asm", PERIPH)
    assert rap_main(["run", img, "--trace", "t.txt"], monkeypatch) == 3      # (SWI)
    lines = (cwd / "t.txt").read_text().splitlines()
    assert "n0 c=9 pc=000048 per.asm:11 | STI R0,*+AR0(40) | - | wr TIMER0_PRD=0000000A | " \
           "register_conflict=1" in lines
    # the timer's global control reads back without GO (guide 12.1.2)
    assert f"n0 c={GO} pc=00004A per.asm:13 | STI R0,*+AR0(32) | - | wr TIMER0_GCR=00000280 | -" \
        in lines
    assert f"n0 c={IDLE_AT + 1} pc=00004B per.asm:14 | (asleep in IDLE) | - | - | idle=19" in lines
    assert f"n0 c={WAKE} pc=00004C per.asm:15 | interrupt TINT0 -> 000063 | SP=00001001 " \
           "ST=00000000 | wr 001001=0000004C rd 000009=00000063 | branch=4" in lines
    rep = [ln for ln in lines if "pc=00005D" in ln]
    assert len(rep) == PERIPH_REPS and all(ln.endswith("| dma=1") for ln in rep)
    assert "dma+2" in rep[0]


def test_prof_charges_interrupt_idle_and_dma(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "per.asm", PERIPH)
    rap_main(["prof", img, "--json", "p.json"], monkeypatch)
    rep = json.loads((cwd / "p.json").read_text())
    sim, _ = traced()
    c = sim.counters(0)
    assert rep["total"]["cycles"] == c["cycles"]            # exact with the peripherals too
    assert rep["total"]["instructions"] == c["instructions"]
    assert rep["total"]["stalls"]["idle"] == WAKE - IDLE_AT - 1
    assert rep["total"]["stalls"]["dma"] == PERIPH_REPS
    lines = {ln["line"]: ln for ln in rep["lines"]}
    assert lines[14]["cycles"] == 1 + 19 and lines[14]["instructions"] == 1     # IDLE + sleep
    assert lines[39]["cycles"] == 4 + 1 and lines[39]["stalls"]["branch"] == 4  # dispatch + ADDI
    assert lines[32]["stalls"]["dma"] == PERIPH_REPS
    text = capsys.readouterr().out
    assert "idle=19" in text and f"dma={PERIPH_REPS}" in text


def test_timeline_slices_and_dma_counter():
    sim = sim_of(PERIPH)
    tl = Timeline(sim)
    sim.probes.trace(tl)
    sim.run(max_cycles=5_000)
    doc = tl.document()
    assert validate(doc) == []
    xs = [(e["name"], e["args"]["cycle"], e["args"]["cycles"]) for e in doc["traceEvents"]
          if e["ph"] == "X"]
    assert ("IDLE", IDLE_AT + 1, 19) in xs
    # the interrupt's service nests like a routine: dispatch to the end of RETI
    assert ("interrupt TINT0", WAKE, RETI_END - WAKE) in xs
    waits = [x for x in xs if x[0] == "DMA wait"]
    assert len(waits) == PERIPH_REPS and all(x[2] == 1 for x in waits)
    dma = [e for e in doc["traceEvents"] if e["ph"] == "C" and e["name"] == "DMA words"]
    bucket = (dma[1]["args"] and round((dma[1]["ts"] - dma[0]["ts"]) / tl.us))
    assert round(sum(e["args"]["words per cycle"] for e in dma) * bucket) == 8


def test_timeline_picture_draws_peripheral_slices(tmp_path):
    sim = sim_of(PERIPH)
    tl = Timeline(sim)
    sim.probes.trace(tl)
    sim.run(max_cycles=5_000)
    tl.write(str(tmp_path / "t.png"))
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_vcd_states_and_dma_words(cwd, monkeypatch):
    img = image_from_file(cwd, "per.asm", PERIPH)
    rap_main(["run", img, "--vcd", "w.vcd"], monkeypatch)
    sig = parse(cwd / "w.vcd")
    state = sig["node0.state"]
    assert at(state, IDLE_AT) == "running"
    assert at(state, IDLE_AT + 1) == at(state, WAKE - 1) == "idle_wait"
    assert at(state, WAKE) == at(state, ISR - 1) == "interrupt"
    assert at(state, ISR) == "running"
    assert at(sig["node0.state_code"], WAKE) == 10
    assert "dma_wait" in [v for _, v in state]
    assert sig["node0.dma_words"][-1][1] == 8
    # the PC follows instructions only: the ISR's from its first cycle
    assert at(sig["node0.pc"], ISR) == ISR_PC


def test_debugger_steps_through_idle_and_the_interrupt(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "per.asm", PERIPH)
    (cwd / "s.txt").write_text("break per.asm:14\ncontinue\nperiph\nstep 4\nperiph\n")
    rc = rap_main(["dbg", img, "--script", "s.txt"], monkeypatch)
    out = capsys.readouterr().out
    assert rc == 0 and "Traceback" not in out
    assert f"node 0, cycle {IDLE_AT}: GIE off, IF 00000000 (-), IE 00000100 (CPU TINT0; DMA -)" \
        in out
    assert "TIM0 GCR 00000280 (HLD_ 1, pulse mode, CLKSRC 1, TSTAT 0) counting  PRD 0000000A" \
        in out
    assert f"node 0: asleep in IDLE from cycle {IDLE_AT + 1} to {WAKE}" in out
    assert f"node 0: interrupt TINT0 taken at cycle {WAKE}: PC pushed, GIE cleared, vector -> " \
           "PC 0x000063 (per.asm:39) <isr>" in out
    assert f"node 0: running, cycle {ISR + 1}, PC 0x000064" in out
    assert "interrupts taken: TINT0 1; IDLE cycles 19" in out


def test_watch_sees_the_interrupts_stack_word():
    # a watchpoint on the stack word is hit by the interrupt's push (no
    # instruction of the program wrote it)
    sim = sim_of(PERIPH)
    sim.probes.watch_memory(0x1001)
    res = sim.run(max_cycles=5_000)
    assert res.event == "watch"
    assert (res.stop.old, res.stop.new, res.stop.by_pc) == (0, RESUME_PC, RESUME_PC)
    assert sim.core.cycle(0) == ISR


def test_software_interrupt_without_peripherals_is_traced():
    # IF written by the program (guide 3.1.8: a write sets a flag): INT0 is
    # taken before the next instruction, with no peripheral running
    sim = sim_of("""
        .global start
start:  LDI  1000h, SP
        LDI  isr, R0
        STI  R0, @1             ; INT0's vector
        LDI  1, IE
        OR   2000h, ST          ; GIE
        OR   1, IF
        NOP
        SWI
isr:    RETI
""")
    chunks = []
    sim.probes.trace(chunks.append)
    sim.run(max_cycles=1_000)
    recs = np.concatenate(chunks)
    irq = recs[recs["kind"] == KIND_INTERRUPT]
    assert len(irq) == 1 and irq["irq"][0] == 0 and stalls(irq[0]) == {"branch": 4}
    assert recs["end"][:-1].tolist() == recs["cycle"][1:].tolist()
    assert int(recs["end"][-1]) == sim.counters(0)["cycles"]


def dma_ring_run(sink_of, nodes=3):
    sim = sim_of(DMA_RING, nodes)
    sink = sink_of(sim)
    sim.probes.trace(sink)
    sim.run(max_cycles=400)
    sim.probes.drain()
    assert all(sim.reg("R7", n) == 1 for n in range(nodes))
    assert sim.probes.dropped == 0
    return sim, sink


def test_dma_ring_words_are_records():
    chunks = []
    sim, _ = dma_ring_run(lambda sim: chunks.append)
    recs = np.concatenate(chunks)
    src = Source(sim)
    for n in range(3):
        mine = recs[(recs["node"] == n) & (recs["kind"] == KIND_DMA_RING)]
        # the channel wrote the node's 4 words to RING_DATA, in order, at
        # the cycles the ring's latches took them
        assert [accesses(r) for r in mine] == [[(True, 0x800000, 100 * n + k)] for k in range(4)]
        assert (mine["cycle"] == mine["t_exec"]).all() and (mine["cycle"] == mine["end"]).all()
        assert (np.diff(mine["cycle"]) > 0).all()
        assert format_record(mine[0], src).startswith(f"n{n} c={int(mine[0]['cycle'])} ")
        assert f"| (DMA channel) | - | wr RING_DATA={100 * n:08X} | -" in \
            format_record(mine[0], src)
        # the CPU's reads of the upstream words stay the instructions'
        up = (n - 1) % 3
        reads = [a for r in recs[(recs["node"] == n) & (recs["kind"] == KIND_INSTR)]
                 for a in accesses(r) if a[1] == 0x800000]
        assert reads == [(False, 0x800000, 100 * up + k) for k in range(4)]


def test_dma_ring_words_in_the_waveform_and_timeline(tmp_path):
    sim, wave = dma_ring_run(Waveform)
    wave.write(tmp_path / "w.vcd")
    sig = parse(tmp_path / "w.vcd")
    for link in range(3):
        words = [v for _, v in sig[f"link{link}.out_data"] if v != "x"]
        assert words == [100 * link + k for k in range(4)]
        assert [v for _, v in sig[f"link{link}.in_data"] if v != "x"] == words
        assert sig[f"link{link}.occupancy"][-1][1] == 0
    _, tl = dma_ring_run(Timeline)
    doc = tl.document()
    assert validate(doc) == []
    util = [e for e in doc["traceEvents"] if e["name"] == "ring utilisation"]
    bucket = round((util[1]["ts"] - util[0]["ts"]) / tl.us)
    assert round(sum(e["args"]["utilisation"] for e in util) * 3 * bucket) == 12


def test_dma_ring_records_cost_the_profile_nothing():
    sim, prof = dma_ring_run(LineProfile)
    total = prof.total()
    assert total.cycles == sum(sim.counters(n)["cycles"] for n in range(3))
    assert total.instructions == sum(sim.counters(n)["instructions"] for n in range(3))


def test_small_trace_buffers_lose_no_dma_ring_record():
    # a buffer that fills drains and goes on: the same records whatever its
    # size, from 16 records (it keeps 8 free for the DMA ring words of a step)
    def records(capacity):
        sim = sim_of(DMA_RING, 3)
        chunks = []
        sim.probes.trace(chunks.append, capacity=capacity)
        sim.run(max_cycles=400)
        sim.probes.drain()
        assert sim.probes.dropped == 0
        recs = np.concatenate(chunks)
        return sorted(format_records(recs, Source(sim)))
    assert records(16) == records(21) == records(8192)
    sim = sim_of(DMA_RING, 1)
    with pytest.raises(ValueError, match="at least 2"):
        sim.probes.trace(lambda recs: None, capacity=1)


def test_debugger_periph_usage_error_names_the_script_line(cwd, monkeypatch, capsys):
    img = image_from_file(cwd, "per.asm", PERIPH)
    (cwd / "s.txt").write_text("periph node 0\nperiph now\n")
    rc = rap_main(["dbg", img, "--script", "s.txt"], monkeypatch)
    cap = capsys.readouterr()
    assert rc == 1 and "Traceback" not in cap.out + cap.err
    assert "node 0, cycle 0: GIE off" in cap.out
    assert "s.txt:2: error: usage: periph [node N]" in cap.out + cap.err


def test_a_finished_simulator_is_freed_at_once_and_its_probes_say_so():
    # no reference cycle between a Simulator and its probes: the machine's
    # node memory goes with its last reference, not at the next collection
    import gc
    import weakref
    gc.disable()
    try:
        sim = sim_of(DMA_RING, 1)
        probes, alive = sim.probes, weakref.ref(sim)
        del sim
        assert alive() is None
        with pytest.raises(RuntimeError, match="no longer exists"):
            probes.trace(lambda recs: None)
    finally:
        gc.enable()
