* dmaring.asm -- ring collectives with the C30's DMA channel moving the
* words (docs/firmware.md 12; the channel's model: docs/machine-model.md 6).
* A library member of its own, so that programs that do not call it link as
* before, byte for byte.
*
*   _dma_allgather(x, off)          the all-gather of _ring_allgather (the
*                                   same chain, the same words in x) with the
*                                   channel reading every word of laps 1 and
*                                   2 from the ring; the CPU writes its own
*                                   slice and starts each transfer when the
*                                   previous one ends (what it costs: the
*                                   measure behind the refusal of
*                                   `overlap dma`, docs/compiler.md)

        .include "rap.inc"

        .global _dma_allgather

        .text

* ---------------------------------------------------------------------------
* _dma_allgather(x AR2, off AR3): node j, as _ring_allgather's general path
* (ring.asm): lap 1 (node N-1: slice 0 kept, then slices 1 .. N-2
* forwarded; the others: slices 0 .. j-1 forwarded), its own slice, lap 2
* (slice j+1 kept, then slices j+2 .. N-1 forwarded).  Each lap's part is a
* transfer of the channel from RING_DATA into x (RING_FWD set first: the
* words it reads are forwarded as the CPU's would be), polled to its end;
* the own slice is written by the CPU.  Changes R0-R3, AR0-AR6, IR0, IR1,
* BK, RC, RS, RE and the flags.
* ---------------------------------------------------------------------------

* DMAREC n, f: the channel reads n (a register; <= 0: nothing) words from
* RING_DATA into *AR2 (AR2 advanced past them), forwarding the first f (a
* register), and the CPU waits for the last
DMAREC  .macro  n, f
        LDI     :n:, R0
        BLE     d9?
        STI     :f:, *+AR0(RING_FWD_OFS)
        LDI     DMA_RESET, R1
        STI     R1, *+AR1(DMA_GCR_OFS)
        STI     AR0, *+AR1(DMA_SRC_OFS)
        STI     AR2, *+AR1(DMA_DST_OFS)
        STI     R0, *+AR1(DMA_CNT_OFS)
        LDI     DMA_INCDST, R1
        OR      DMA_START | DMA_TC, R1
        STI     R1, *+AR1(DMA_GCR_OFS)
        ADDI    R0, AR2
d1?:    LDI     *+AR1(DMA_GCR_OFS), R1
        AND     DMA_STAT, R1
        CMPI    DMA_STAT, R1
        BEQ     d1?
d9?:
        .endm

_dma_allgather:
        LDRING  AR0
        LDI     PERIPH_PAGE, AR1
        LSH     16, AR1
        OR      PERIPH_BASE & 0xFFFF, AR1       ; AR1 = PERIPH_BASE
        LDI     *+AR0(NODE_COUNT_OFS), R2       ; N
        LDI     *+AR0(NODE_ID_OFS), R3          ; j
        CMPI    1, R2
        RETSLE                          ; one node: nothing to do
        ADDI3   R2, AR3, AR5            ; AR5 -> off[N]
        LDI     *AR5, BK                ; BK = V
        ADDI3   R3, AR3, AR4            ; AR4 -> off[j]
        LDI     *+AR4(1), AR6
        SUBI    *AR4, AR6               ; AR6 = s(j): written
        SUBI    1, R2
        CMPI    R2, R3
        BEQ     da_last
        LDI     0, AR5                  ; lap 1: nothing kept,
        LDI     *AR4, IR0               ;        off[j] forwarded
        LDI     *+AR4(2), R0            ; off[j+2]
        LDI     R0, IR1
        SUBI    *+AR4(1), IR1           ; lap 2: s(j+1) kept,
        SUBI3   R0, BK, R2              ;        V - off[j+2] forwarded
        BR      da_go
da_last:                                ; node N-1
        LDI     *+AR3(1), AR5           ; lap 1: slice 0 kept,
        LDI     *AR4, IR0
        SUBI    AR5, IR0                ;        slices 1 .. N-2 forwarded
        LDI     0, IR1                  ; no lap 2
        LDI     0, R2
da_go:  LDI     0, R3
        DMAREC  AR5, R3                 ; lap 1, kept
        DMAREC  IR0, IR0                ; lap 1, forwarded
        LDI     AR6, R1                 ; its own slice, by the CPU
        SUBI    2, R1
        BLT     da_s1
        LDI     *AR2++, R0
        RPTS    R1
        LDI     *AR2++, R0
||      STI     R0, *AR0
        STI     R0, *AR0
        BR      da_l2
da_s1:  CMPI    -1, R1                  ; one word
        BNE     da_l2
        LDI     *AR2++, R0
        STI     R0, *AR0
da_l2:  DMAREC  IR1, R3                 ; lap 2, kept
        DMAREC  R2, R2                  ; lap 2, forwarded
        RETS
