* dma.asm -- the C30's DMA channel as the firmware uses it (docs/firmware.md,
* "DMA"; the model of the channel: docs/machine-model.md, "On-chip
* peripherals"; TMS320C3x User's Guide 12.3).
*
*   _dma_start(dst, src, n, mode)   program the channel and start it: n words
*                                   from src to dst; mode = the DMA_* bits of
*                                   rap.inc (address steps, SYNC, TCINT,
*                                   priority); START and TC are added
*   _dma_wait() -> R0               return when the channel has stopped;
*                                   R0 = the transfer counter left (0 when
*                                   the whole block moved)
*   _dma_stop() -> R0               reset the channel at once; R0 = the
*                                   transfer counter left
*   _dma_bcast(x, n, root)          start a broadcast of x[0..n) of node root
*                                   to every node over the ring by DMA: the
*                                   root's channel sends, every other node's
*                                   receives into x and forwards (RING_FWD),
*                                   but the node upstream of the root; the
*                                   same words as _ring_bcast (ring.asm)
*
* Integer arguments in AR2, AR3, AR4, AR5 (docs/firmware.md, "Calling
* convention"); the routines change only R0, R1, AR0-AR5 and the flags.  A
* count n <= 0 does nothing.  The channel works on while the CPU goes on:
* call _dma_wait before using the words moved (or enable DINT with DMA_TCINT
* and wait in IDLE).  There is one channel: a transfer started while another
* runs replaces it.

        .include "rap.inc"

        .global _dma_start, _dma_wait, _dma_stop, _dma_bcast

        .text
* _dma_start(dst AR2, src AR3, n AR4, mode AR5)
_dma_start:
        CMPI    0, AR4
        RETSLE
        LDI     PERIPH_PAGE, AR0
        LSH     16, AR0
        OR      PERIPH_BASE & 0xFFFF, AR0       ; AR0 = PERIPH_BASE
        LDI     AR5, R0
        OR      DMA_START | DMA_TC, R0          ; start; stop at the counter's 0
        LDI     DMA_RESET, R1                   ; a running transfer is replaced:
        STI     R1, *+AR0(DMA_GCR_OFS)          ; reset it first
        STI     AR3, *+AR0(DMA_SRC_OFS)
        STI     AR2, *+AR0(DMA_DST_OFS)
        STI     AR4, *+AR0(DMA_CNT_OFS)
        STI     R0, *+AR0(DMA_GCR_OFS)
        RETS

* _dma_wait() -> R0: poll STAT on the peripheral bus (the loop's fetches come
* from the instruction cache: it leaves the primary bus to the channel)
_dma_wait:
        LDI     PERIPH_PAGE, AR0
        LSH     16, AR0
        OR      PERIPH_BASE & 0xFFFF, AR0
dw_poll:
        LDI     *+AR0(DMA_GCR_OFS), R0
        AND     DMA_STAT, R0
        CMPI    DMA_STAT, R0                    ; 11: busy
        BEQ     dw_poll
        LDI     *+AR0(DMA_CNT_OFS), R0
        RETS

* _dma_stop() -> R0
_dma_stop:
        LDI     PERIPH_PAGE, AR0
        LSH     16, AR0
        OR      PERIPH_BASE & 0xFFFF, AR0
        LDI     DMA_RESET, R0
        STI     R0, *+AR0(DMA_GCR_OFS)
        LDI     *+AR0(DMA_CNT_OFS), R0
        RETS

* _dma_bcast(x AR2, n AR3, root AR4): sets up the node's part, then goes on
* in _dma_start (dst AR2, src AR3, n AR4, mode AR5)
_dma_bcast:
        CMPI    0, AR3
        RETSLE
        LDRING  AR1
        LDI     AR3, R1                         ; n
        LDI     *+AR1(NODE_ID_OFS), R0
        CMPI    AR4, R0
        BEQ     db_root
        ADDI    1, R0                           ; is the next node the root?
        CMPI    *+AR1(NODE_COUNT_OFS), R0
        LDIEQ   0, R0
        CMPI    AR4, R0
        BEQ     db_recv                         ; the node upstream of the root keeps the words
        STI     R1, *+AR1(RING_FWD_OFS)         ; forward the n words it reads
db_recv:
        LDI     AR1, AR3                        ; src: RING_DATA, fixed
        LDI     R1, AR4
        LDI     DMA_INCDST, AR5                 ; dst: x, ascending
        BR      _dma_start
db_root:
        LDI     AR2, AR3                        ; src: x, ascending
        LDI     AR1, AR2                        ; dst: RING_DATA, fixed
        LDI     R1, AR4
        LDI     DMA_INCSRC, AR5
        BR      _dma_start
