"""The on-chip peripherals end to end, through the shell: a program that
includes rap.inc, sleeps in IDLE until timer 0's interrupt, then copies a
block with the firmware's DMA helpers; `rap as`, `rap ld`, `rap run --stats
--stats-json` report the peripherals' counters."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rapsim import firmware

RAP = str(Path(sys.executable).with_name("rap"))

PROG = """
        .include "rap.inc"
        .global _main, _dma_start, _dma_wait
        .bss    count, 1
        .bss    buf, 64
        .text
_main:  PUSH    R4
        LDI     isr, R0
        STI     R0, @VEC_TINT0          ; DP = 0 (crt0): the vector word
        LDI     INT_TINT0, IE
        LDI     PERIPH_PAGE, AR0
        LSH     16, AR0
        OR      PERIPH_BASE & 0xFFFF, AR0
        LDI     100, R0
        STI     R0, *+AR0(TIMER0_OFS + TIM_PRD_OFS)
        LDI     TIM_RUN, R0
        STI     R0, *+AR0(TIMER0_OFS + TIM_GCR_OFS)
        IDLE                            ; woken 200 cycles after GO
        LDI     0, R0
        STI     R0, *+AR0(TIMER0_OFS + TIM_GCR_OFS)     ; hold the timer
        LDI     buf, AR1                ; buf[k] = 3k + 1
        LDI     1, R0
        LDI     63, RC
        RPTB    fill
        STI     R0, *AR1++
fill:   ADDI    3, R0
        LDI     RAM0_BASE >> 16, AR2    ; _dma_start(RAM0, buf, 64, up)
        LSH     16, AR2
        OR      RAM0_BASE & 0xFFFF, AR2
        LDI     buf, AR3
        LDI     64, AR4
        LDI     DMA_INCSRC | DMA_INCDST, AR5
        CALL    _dma_start
        CALL    _dma_wait
        LDI     R0, R4                  ; counter left: 0
        LDI     RAM0_BASE >> 16, AR2    ; compare RAM0 with buf
        LSH     16, AR2
        OR      RAM0_BASE & 0xFFFF, AR2
        LDI     buf, AR3
        LDI     63, AR4
cmp:    LDI     *AR2++, R0
        CMPI    *AR3++, R0
        LDINE   1, R4
        DBU     AR4, cmp
        LDI     @count, R0
        SUBI    1, R0                   ; one interrupt taken
        OR      R4, R0                  ; exit status 0 when all is well
        POP     R4
        RETS
isr:    PUSH    ST
        PUSH    R0
        LDI     @count, R0
        ADDI    1, R0
        STI     R0, @count
        POP     R0
        POP     ST
        RETIU
"""


def test_timer_idle_and_dma_through_rap_run(tmp_path):
    objs = subprocess.run([sys.executable, "-m", "rapsim.firmware", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True, check=True).stdout.split()
    (tmp_path / "prog.asm").write_text(PROG)
    subprocess.run([RAP, "as", "-I", firmware.include_dir(), "prog.asm", "-o", "prog.obj"],
                   cwd=tmp_path, check=True)
    subprocess.run([RAP, "ld", objs[0], "prog.obj", objs[1], "-o", "prog.out"], cwd=tmp_path,
                   check=True)
    r = subprocess.run([RAP, "run", "prog.out", "--stats", "--stats-json", "s.json"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "on-chip peripherals" in r.stderr and "DMA words" in r.stderr and "TINT0" in r.stderr
    node = json.loads((tmp_path / "s.json").read_text())["nodes"][0]
    p = node["periph"]
    assert p["dma_words"] == 64
    assert p["interrupts"]["TINT0"] == 1 and sum(p["interrupts"].values()) == 1
    assert 150 < p["idle_cycles"] < 200
    assert node["cycles"] == node["instructions"] + node["stall_cycles"]


def test_idle_without_a_wakeup_through_rap_run(tmp_path):
    (tmp_path / "p.asm").write_text("        .global start\nstart:  LDI 100h, IE\n        IDLE\n")
    subprocess.run([RAP, "as", "p.asm", "-o", "p.obj"], cwd=tmp_path, check=True)
    subprocess.run([RAP, "ld", "p.obj", "-e", "start", "-o", "p.out"], cwd=tmp_path, check=True)
    r = subprocess.run([RAP, "run", "p.out"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 3
    assert "IDLE" in r.stderr and "no interrupt can wake it" in r.stderr
    assert "Traceback" not in r.stderr
