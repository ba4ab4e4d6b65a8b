; timer 0 wakes IDLE through TINT0, then a DMA copy with DMA priority (docs/debugging.md section 4)
        .global start
start:  LDI  1000h, SP
        LDI  isr, R0
        STI  R0, @9             ; TINT0's vector (IF bit 8: word 9)
        LDI  100h, IE           ; ETINT0
        LDI  80h, AR0
        LSH  16, AR0
        OR   8000h, AR0         ; AR0: the peripherals (DMA at +0, timer 0 at +32)
        LDI  10, R0
        STI  R0, *+AR0(40)      ; TIMER0_PRD
        LDI  2C0h, R0           ; GO | HLD_ | CLKSRC
        STI  R0, *+AR0(32)      ; TIMER0_GCR: counts from here
        IDLE
        STI  R0, *+AR0(32)      ; (GO again: no effect once counting)
        LDI  0, R1
        STI  R1, *+AR0(32)      ; hold timer 0
        LDI  80h, AR1
        LSH  16, AR1
        OR   9800h, AR1         ; AR1: RAM0
        LDI  AR1, R0
        STI  R0, *+AR0(4)       ; DMA_SRC = RAM0
        ADDI 400h, R0
        STI  R0, *+AR0(6)       ; DMA_DST = RAM1
        LDI  8, R0
        STI  R0, *+AR0(8)       ; DMA_CNT
        LDI  AR1, AR2
        ADDI 200, AR2
        LDI  3453h, R0          ; PRI 11, TC, INCDST, INCSRC, START
        STI  R0, *AR0
        RPTS 5
        LDI  *AR1++, R2
||      LDI  *AR2++, R3
wait:   LDI  *AR0, R1
        AND  0Ch, R1
        CMPI 0Ch, R1
        BEQ  wait
        SWI
isr:    ADDI 1, R5
        RETI
