* overlap.asm -- a reduce-scatter run during a weight update with momentum
* (`overlap on`, docs/compiler.md "Overlapped collectives"; the one without
* momentum, _ring_rs_mxout, is in ring.asm).  A library member of its own,
* so that programs that do not call it link as before, byte for byte.
*
*   _ring_rs_mxoutm(e, off, W, d, x, rows, M, eta, alpha)
*       the reduce-scatter of e (as _ring_reduce_scatter(e, off)) during
*       M = alpha M + eta d x^T, W += M (as _mxoutm)

        .include "rap.inc"

        .global _ring_rs_mxoutm
        .global _ring_reduce_scatter, _mxoutm

* ---------------------------------------------------------------------------
* _ring_rs_mxoutm(e AR2, off AR3, W AR4, d AR5, x AR6, rows IR0, M IR1,
*                 eta R2, alpha R3):
* the reduce-scatter of e (as _ring_reduce_scatter(e, off)) during the
* weight update with momentum M = alpha M + eta d x^T, W += M of `rows`
* rows of V = off[N] columns (as _mxoutm(W, d, x, rows, V, M, eta, alpha)):
* `overlap on` with momentum (docs/compiler.md, "Overlapped collectives").
* The results are those of the two calls, bit for bit: the same arithmetic
* on every weight and momentum, the same chain of additions for e.
*
* Row 0's weights go one by one beside the words the node adds and passes
* on or injects, as in _ring_rs_mxout.  _mxoutm's four instructions for a
* weight each make one primary-bus access (M read, M written, W read, W
* written: docs/firmware.md); the ring is on the expansion bus, so its write
* rides in the parallel slot of the W read, and its read (with e's word)
* takes one instruction of its own: five instructions for a word and a
* weight where the two calls take six (4 + 2):
*     ADDF3 *ring, *e++, R4                    the passing partial sum + e
*     MPYF3 *+M(1), *a, R0 || ADDF3 R0, R1, R2 alpha M[k]; M'[k-1]
*     MPYF3 *x++, R5, R1 || STF R2, *M++       s x[k]; M[k-1] stored
*     ADDF3 *W, R2, R3 || STF R4, *ring        W[k-1] + M'[k-1]; the sum on
*     STF R3, *W++                             W[k-1] stored
* (an injected word: LDF *e++, R4 first; the read three instructions before
* the write: with the read just before it every case of the firmware test
* was 100-400 cycles slower, measured).  The words the node keeps go
* alone, 2 cycles each.  The segment counts live in a frame on the stack
* (*+AR7(k)): every address register is a pointer of the loop.  On other
* slice tables, a node without rows or one node, the node makes the two
* calls (the ring sees the same words in the same order).  Changes what
* the two calls change; R4-R7 and AR7 are preserved.
* ---------------------------------------------------------------------------

* the frame of _ring_rs_mxoutm: *+AR7(k)
RMM_X           .set    1               ; x
RMM_ROWS        .set    2               ; rows
RMM_V           .set    3               ; V
RMM_ETA         .set    4               ; eta: 2 words (bits 31-0, then the float)
RMM_ALPHA       .set    6               ; alpha: 2 words
RMM_D0          .set    8               ; d[0]'s word (alpha's during row 0)
RMM_1A          .set    9               ; the counts less one: lap 1a,
RMM_1B          .set    10              ;   lap 1b,
RMM_INJ         .set    11              ;   slice j-1 injected,
RMM_KEEP        .set    12              ;   slice j kept,
RMM_2B          .set    13              ;   lap 2b
RMM_FRAME       .set    13

* MSEG k, p, c: *+AR7(c) + 1 words of the reduce-scatter (k = 0: add and
* pass on, k = 2: inject; e at *p) beside as many weights of row 0
MSEG    .macro  k, p, c
        LDI     *+AR7(:c:), RC
        RPTB    g1?
        .if     k == 0
        ADDF3   *AR0, *:p:++, R4
        .else
        LDF     *:p:++, R4
        .endif
        MPYF3   *+AR1(1), *AR3, R0
||      ADDF3   R0, R1, R2
        MPYF3   *AR5++, R5, R1
||      STF     R2, *AR1++
        ADDF3   *AR4, R2, R3
||      STF     R4, *AR0
g1?:    STF     R3, *AR4++
        .endm

* MKEEP p, c: *+AR7(c) + 1 words: read a partial sum, add *p, store it in
* *p++ (RSKEEP with R4: R0 and R1 carry the update between segments)
MKEEP   .macro  p, c
        LDI     *+AR7(:c:), RC
        RPTB    h1?
        ADDF3   *AR0, *:p:, R4
h1?:    STF     R4, *:p:++
        .endm

_ring_rs_mxoutm:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R0       ; N
        CMPI    1, R0
        BLE     rmm_two                 ; one node: the update alone
        LDI     IR0, R1
        BLE     rmm_two                 ; no rows
* the fast path's conditions: s(N-1) >= 1, s(j) >= 1, s(j-1) >= 1 (j >= 1)
        ADDI3   R0, AR3, AR1            ; AR1 -> off[N]
        LDI     *-AR1(1), BK            ; BK = off[N-1]
        LDI     *AR1, R1
        SUBI    BK, R1                  ; s(N-1)
        BLE     rmm_two
        LDI     *+AR0(NODE_ID_OFS), R1          ; j
        ADDI3   R1, AR3, AR1            ; AR1 -> off[j]
        LDI     *+AR1(1), R1
        SUBI    *AR1, R1                ; s(j)
        BLE     rmm_two
        CMPI    AR3, AR1
        BEQ     rmm_go                  ; node 0: no slice before its own
        LDI     *AR1, R1
        SUBI    *-AR1(1), R1            ; s(j-1)
        BLE     rmm_two
rmm_go: SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    AR7
        LDI     SP, AR7                 ; the frame
        ADDI    RMM_FRAME, SP
        STI     AR6, *+AR7(RMM_X)
        STI     IR0, *+AR7(RMM_ROWS)
        STI     R2, *+AR7(RMM_ETA)
        STF     R2, *+AR7(RMM_ETA+1)
        STI     R3, *+AR7(RMM_ALPHA)
        STF     R3, *+AR7(RMM_ALPHA+1)
        LDI     *AR5, R4
        STI     R4, *+AR7(RMM_D0)
* the counts (R0 = N, AR1 -> off[j], BK = off[N-1])
        LDI     *+AR0(NODE_ID_OFS), R6          ; R6 = j
        LDI     R0, R7
        SUBI    1, R7                   ; R7 = N - 1
        ADDI3   R0, AR3, AR3            ; AR3 -> off[N]
        LDI     *AR3, R4
        STI     R4, *+AR7(RMM_V)
        SUBI    BK, R4
        SUBI    1, R4
        STI     R4, *+AR7(RMM_1A)       ; s(N-1) - 1
        LDI     *+AR1(1), R4            ; off[j+1]
        SUBI3   R4, BK, R0
        SUBI    1, R0
        STI     R0, *+AR7(RMM_2B)       ; off[N-1] - off[j+1] - 1
        SUBI    *AR1, R4
        SUBI    1, R4
        STI     R4, *+AR7(RMM_KEEP)     ; s(j) - 1
        CMPI    0, R6
        BEQ     rmm_p                   ; node 0: no lap 1b, no slice j-1
        LDI     *-AR1(1), R4            ; off[j-1]
        LDI     *AR1, R0
        SUBI    R4, R0
        SUBI    1, R0
        STI     R0, *+AR7(RMM_INJ)      ; s(j-1) - 1
        SUBI    1, R4
        STI     R4, *+AR7(RMM_1B)       ; off[j-1] - 1
* row 0's prologue (as _mxoutm's): s, alpha in d[0]'s word, alpha M[0], s x[0]
rmm_p:  MPYF3   R2, *AR5, R5            ; s = eta d[0]
        LDI     AR5, AR3                ; AR3 -> d[0]
        LDI     AR6, AR5                ; AR5 -> x
        ADDI3   BK, AR2, AR6            ; AR6 -> slice N-1 of e
        LDI     IR1, AR1                ; AR1 -> M
        STF     R3, *AR3                ; alpha in d[0]'s word for the row
        MPYF3   *AR1, *AR3, R0          ; alpha M[0]
        MPYF3   *AR5++, R5, R1          ; s x[0]
        CMPI    0, R6
        BEQ     rmm_0                   ; node 0
        CMPI    R7, R6
        BEQ     rmm_last                ; node N-1
        LDI     *+AR7(RMM_1B), R2
        BLT     rmm_m0x                 ; no lap 1b
        LDI     *+AR7(RMM_2B), R2
        BLT     rmm_m10                 ; no lap 2b
        MSEG    0, AR6, RMM_1A          ; lap 1a
        MSEG    0, AR2, RMM_1B          ; lap 1b
        MSEG    2, AR2, RMM_INJ         ; slice j-1, injected
        MKEEP   AR2, RMM_KEEP           ; lap 2a, kept
        MSEG    0, AR2, RMM_2B          ; lap 2b
        BR      rmm_tail
rmm_m10: MSEG   0, AR6, RMM_1A
        MSEG    0, AR2, RMM_1B
        MSEG    2, AR2, RMM_INJ
        MKEEP   AR2, RMM_KEEP
        BR      rmm_tail
rmm_m0x: LDI    *+AR7(RMM_2B), R2
        BLT     rmm_m00
        MSEG    0, AR6, RMM_1A
        MSEG    2, AR2, RMM_INJ
        MKEEP   AR2, RMM_KEEP
        MSEG    0, AR2, RMM_2B
        BR      rmm_tail
rmm_m00: MSEG   0, AR6, RMM_1A
        MSEG    2, AR2, RMM_INJ
        MKEEP   AR2, RMM_KEEP
        BR      rmm_tail
* node N-1: keeps slice N-1, passes slices 0 .. N-3 on, injects slice N-2
rmm_last:
        LDI     *+AR7(RMM_1B), R2
        BLT     rmm_l0
        MKEEP   AR6, RMM_1A
        MSEG    0, AR2, RMM_1B
        MSEG    2, AR2, RMM_INJ
        BR      rmm_tail
rmm_l0: MKEEP   AR6, RMM_1A
        MSEG    2, AR2, RMM_INJ
        BR      rmm_tail
* node 0: injects slice N-1, keeps slice 0, passes slices 1 .. N-2 on
rmm_0:  LDI     *+AR7(RMM_2B), R2
        BLT     rmm_00
        MSEG    2, AR6, RMM_1A
        MKEEP   AR2, RMM_KEEP
        MSEG    0, AR2, RMM_2B
        BR      rmm_tail
rmm_00: MSEG    2, AR6, RMM_1A
        MKEEP   AR2, RMM_KEEP
* the weights of row 0 left over (s(j) - 1 of them), then rows 1 .. rows-1:
* _mxoutm(W + V, d + 1, x, rows - 1, V, M + V, eta, alpha)
rmm_tail:
        LDI     *+AR7(RMM_KEEP), R2
        SUBI    1, R2
        BLT     rmm_t1                  ; none left but the last
        LDI     R2, RC
        RPTB    rmm_t0
        MPYF3   *+AR1(1), *AR3, R0
||      ADDF3   R0, R1, R2
        MPYF3   *AR5++, R5, R1
||      STF     R2, *AR1++
        ADDF3   *AR4, R2, R3
rmm_t0: STF     R3, *AR4++
rmm_t1: ADDF3   R0, R1, R2              ; the row's last weight
        STF     R2, *AR1++
        ADDF3   *AR4, R2, R3
        STF     R3, *AR4++
        LDI     *+AR7(RMM_D0), R0
        STI     R0, *AR3                ; d[0] back
        ADDI    1, AR3                  ; d + 1
        LDI     AR4, AR2                ; W + V: row 1
        LDI     AR1, IR0                ; M + V
        LDI     *+AR7(RMM_X), AR4
        LDI     *+AR7(RMM_ROWS), AR5
        SUBI    1, AR5                  ; rows - 1
        LDI     *+AR7(RMM_V), AR6
        LDF     *+AR7(RMM_ETA+1), R2
        LDI     *+AR7(RMM_ETA), R2
        LDF     *+AR7(RMM_ALPHA+1), R3
        LDI     *+AR7(RMM_ALPHA), R3
        LDI     AR7, SP
        POP     AR7
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        BR      _mxoutm
* the two calls: _mxoutm(W, d, x, rows, V, M, eta, alpha), then the
* reduce-scatter (R0 = N)
rmm_two: ADDI3  R0, AR3, AR1            ; AR1 -> off[N]
        PUSH    AR2
        PUSH    AR3
        LDI     AR4, AR2                ; W
        LDI     AR5, AR3                ; d
        LDI     AR6, AR4                ; x
        LDI     IR0, AR5                ; rows
        LDI     *AR1, AR6               ; V
        LDI     IR1, IR0                ; M
        CALL    _mxoutm
        POP     AR3
        POP     AR2
        BR      _ring_reduce_scatter
