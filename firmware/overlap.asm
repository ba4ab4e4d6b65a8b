* overlap.asm -- collectives run inside a kernel (`overlap on`,
* docs/compiler.md "Overlapped collectives"): a reduce-scatter during a
* weight update with momentum (the one without momentum, _ring_rs_mxout, is
* in ring.asm), and the forward all-gather streamed into the next layer's
* product.  A library member of its own, so that programs that do not call
* these link as before, byte for byte.
*
*   _ring_rs_mxoutm(e, off, W, d, x, rows, M, eta, alpha)
*       the reduce-scatter of e (as _ring_reduce_scatter(e, off)) during
*       M = alpha M + eta d x^T, W += M (as _mxoutm)
*   _ring_allgather_mxv(x, off, y, W, rows, b)
*       the all-gather of x (as _ring_allgather(x, off)) while
*       y = W x + b (as _mxv(y, W, x, rows, off[N], b)) follows the stream

        .include "rap.inc"

        .global _ring_rs_mxoutm, _ring_allgather_mxv
        .global _ring_reduce_scatter, _mxoutm, _ring_allgather, _mxv

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

* ---------------------------------------------------------------------------
* _ring_allgather_mxv(x AR2, off AR3, y AR4, W AR5, rows AR6, b IR0):
* the all-gather of x over the slice table off (as _ring_allgather(x, off))
* while y = W x + b is computed for the node's `rows` rows of V = off[N]
* columns (as _mxv(y, W, x, rows, V, b); b = 0: no bias): `overlap on`,
* the forward all-gather streamed into the next layer's product
* (docs/compiler.md, "Overlapped collectives").  The words reach node j in
* column order -- lap 1 (x[0 .. off[j]) from upstream), its own slice
* (written to the ring), lap 2 (x[off[j+1] .. V)) -- so every row adds its
* terms in _mxv's order, column 0 to V-1, each in an extended-precision
* register: the same bits as the two calls.
*
* For each word: one instruction moves it (read: LDI *ring, R4 || STI R4,
* *x++ stores the word before; write: LDI *++own, R4 || STI R4, *ring),
* then one MPYF3 || ADDF3 per row multiplies a column two words back (read
* from x, stored at least two instructions earlier) -- R + 1 instructions
* a word, as the two calls take 1 + R.  The parallel MPYF3 || ADDF3 takes
* two indirect and two register operands and adds into R2 or R3 only
* (TMS320C3x User's Guide, 13.2 parallel instructions, MPYF3||ADDF3), so
* R2 and R3 are the rows' accumulators: at most 2 rows (ALGMV_MAX_ROWS in
* firmware/costs.py).  Row 0's product is added in the next instruction
* (R0); row 1's in the next word's first (R1, 0.0 before the first word:
* b + 0.0 is b, bit for bit, as _mxtvw's comment in matrix.asm states for
* 0.0 + a product).  The sums are rounded to single precision only by the
* final STF, as _mxv's are (guide 13.2, STF).  The words move as integers
* (LDI/STI), bit for bit.
*
* The fast path: 1 or 2 rows, N >= 2, the node's slice at least 3 words;
* node 0: slice 1 not empty; nodes 1 .. N-2: at least 3 words before the
* slice, slice j+1 not empty; node N-1: N >= 3, slice 0 at least 2 words
* and at least one word between slice 0 and its own.  Elsewhere the node
* makes the two calls (the ring sees the same words in the same order).
* Changes what the two calls change; R4-R7 and AR7 are preserved.
* ---------------------------------------------------------------------------

* AGMLOOP r, c, m: RC = c + 1 passes, each (m = 1) a word read from the
* ring and stored one behind (LDI *ring, R4 || STI R4, *x++), and a
* column's multiply-accumulates, r = 1 or 2 rows (the column at *AR4++, W
* row 0 at *AR5++, row 1 at *AR6++; RPTB ends the block at the labelled
* instruction: the rows' last)
AGMLOOP .macro  r, c, m
        LDI     :c:, RC
        RPTB    e?
        .if     m == 1
        LDI     *AR0, R4
||      STI     R4, *AR1++
        .endif
        .if     r == 1
e?:     MPYF3   *AR5++, *AR4++, R0
||      ADDF3   R0, R2, R2
        .else
        MPYF3   *AR5++, *AR4, R0
||      ADDF3   R1, R3, R3
e?:     MPYF3   *AR6++, *AR4++, R1
||      ADDF3   R0, R2, R2
        .endif
        .endm

* AGMR r, c: c + 1 words read, each with its column (two behind)
AGMR    .macro  r, c
        AGMLOOP r, :c:, 1
        .endm

* AGMRG r, c: c words read (none when c <= 0: a branch), as AGMR
AGMRG   .macro  r, c
        CMPI    0, :c:
        BLE     x?
        SUBI    1, :c:
        AGMR    r, :c:
x?:
        .endm

* AGMOWN r: the own slice written at one word a cycle (as _ring_allgather
* writes it: the stream waits only for the RPTS set-up), R5 = its first
* word, R4 = lap 1's last (stored at *AR1++).  Its columns are multiplied
* later: lap 2's loop multiplies s + 2 columns behind the word it reads,
* and the end the last s + 2 (R7 + 1), so the own slice reaches the next
* node at the chain's speed, not the product's, and no node stops reading
* the ring to catch up
AGMOWN  .macro  r
        STI     R5, *AR0                ; own[0] to the ring; lap 1's last to x
||      STI     R4, *AR1++
        LDI     *++AR1(1), R4           ; own[1]
        AGMSEND
        .endm

* AGMSEND: the own slice's words from the one in R4 (AR1 -> it) to the
* last, one a cycle (IR1 + 2 words: an RPTS, then the last)
AGMSEND .macro
        RPTS    IR1
        LDI     *++AR1(1), R4
||      STI     R4, *AR0
        STI     R4, *AR0
        .endm

* AGMMAC r: R7 + 1 columns' multiply-accumulates, no word moved
AGMMAC  .macro  r
        .if     r == 1
        RPTS    R7
        MPYF3   *AR5++, *AR4++, R0
||      ADDF3   R0, R2, R2
        .else
        AGMLOOP 2, R7, 0
        .endif
        .endm

* AGMTWO: the first two words read, x[0] stored (no column yet: the
* products follow two words behind)
AGMTWO  .macro
        LDI     *AR0, R4
        LDI     *AR0, R4
||      STI     R4, *AR1++
        .endm

* AGMFWD r, n, c: RING_FWD = n, then c + 1 words read and forwarded
AGMFWD  .macro  r, n, c
        STI     :n:, *+AR0(RING_FWD_OFS)
        AGMR    r, :c:
        .endm

* AGMLAP2 r, f: lap 2: slice j+1 kept (BK + 1 words), then (f = 1) AR3
* words forwarded (R6 = AR3 - 1; f = 0: none, node N-2)
AGMLAP2 .macro  r, f
        AGMR    r, BK
        .if     f == 1
        AGMFWD  r, AR3, R6
        .endif
        .endm

* AGMLAP1 r: lap 1 of nodes 1 .. N-2 (RING_FWD set up before): IR0 + 3
* words, then the own slice (IR1 + 3 words)
AGMLAP1 .macro  r
        AGMTWO                          ; x[0], x[1]
        AGMR    r, IR0                  ; x[2 .. c)
        AGMOWN  r                       ; the own slice
        .endm

* AGMFIRST r: node 0's own slice (R4 = x[0], AR1 -> x[0]) at one word a
* cycle; its columns follow s columns behind in lap 2
AGMFIRST .macro r
        LDI     *++AR1(1), R4           ; x[0] to the ring
||      STI     R4, *AR0
        AGMSEND                         ; x[1 .. s-1]
        .endm

* AGMLAST r: node N-1: slice 0 kept (IR0 + 2 words), slices 1 .. N-2
* forwarded (AR3 words, R6 = AR3 - 1), then its own slice
AGMLAST .macro  r
        AGMTWO                          ; x[0], x[1]
        AGMRG   r, IR0                  ; x[2 .. s0)
        AGMFWD  r, AR3, R6              ; slices 1 .. N-2
        AGMOWN  r
        .endm

* AGMEND r: x[V-1] stored, the last R7 + 1 columns, the sums stored at y
AGMEND  .macro  r
        STI     R4, *AR1
        AGMMAC  r
        .if     r == 1
        ADDF    R0, R2
        STF     R2, *AR2
        .else
        ADDF    R1, R3
        STF     R2, *AR2++
        STF     R3, *AR2
        .endif
        .endm

* AGMBODY r, a: the node's kind (R1: 0 node 0, 1 nodes 1 .. N-2, 2 node
* N-1) chosen, a (the accumulator whose product is added next, R1 or R0) =
* 0.0, the words moved and the r rows' sums stored at y
AGMBODY .macro  r, a
        CMPI    1, R1
        BLT     f?
        BGT     l?
        LDF     0.0, :a:
        CMPI    0, AR3
        BEQ     n?
        AGMLAP1 r
        AGMLAP2 r, 1
        BR      e?
n?:     AGMLAP1 r                       ; node N-2: nothing forwarded in lap 2
        AGMLAP2 r, 0
        BR      e?
f?:     LDF     0.0, :a:
        CMPI    0, AR3
        BEQ     g?
        AGMFIRST r
        AGMLAP2 r, 1
        BR      e?
g?:     AGMFIRST r                      ; N = 2
        AGMLAP2 r, 0
        BR      e?
l?:     LDF     0.0, :a:
        AGMLAST r
e?:     AGMEND  r
        .endm

_ring_allgather_mxv:
        LDRING  AR0
        LDI     AR6, R0                 ; rows
        BLE     agm_two
        CMPI    2, R0
        BGT     agm_two                 ; more rows than accumulators
        LDI     *+AR0(NODE_COUNT_OFS), R1       ; N
        CMPI    1, R1
        BLE     agm_two
        LDI     *+AR0(NODE_ID_OFS), R2          ; j
        ADDI3   R2, AR3, AR1            ; AR1 -> off[j]
        SUBI    1, R1                   ; R1 = N - 1
        LDI     *+AR1(1), R3
        SUBI    *AR1, R3                ; s(j)
        CMPI    3, R3
        BLT     agm_two
        CMPI    R1, R2
        BEQ     agm_cl                  ; node N-1
        LDI     *+AR1(2), R3
        SUBI    *+AR1(1), R3            ; s(j+1)
        BLE     agm_two
        CMPI    0, R2
        BEQ     agm_go                  ; node 0
        LDI     *AR1, R3                ; c = off[j]
        CMPI    3, R3
        BLT     agm_two
        BR      agm_go
agm_cl: CMPI    2, R1
        BLT     agm_two                 ; N = 2
        LDI     *+AR3(1), R3            ; s0
        CMPI    2, R3
        BLT     agm_two
        CMPI    *AR1, R3
        BGE     agm_two                 ; no word between slice 0 and slice N-1
* the counts and pointers, before the first ring access (R0 = rows,
* R1 = N - 1, R2 = j, AR1 -> off[j])
agm_go: SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    AR4                     ; y
        PUSH    IR0                     ; b
        ADDI3   R1, AR3, AR6            ; AR6 -> off[N-1]
        LDI     *+AR6(1), R3            ; V
        ADDI3   R3, AR5, AR6            ; AR6 -> W + V: row 1
        LDI     *+AR1(1), R6
        SUBI    *AR1, R6
        SUBI    3, R6
        LDI     R6, IR1                 ; s(j) - 3: the own slice's RPTS
        LDI     R6, R7
        ADDI    4, R7                   ; s(j) + 1: the columns left at the end
        CMPI    0, R2
        BEQ     agm_k0
        CMPI    R1, R2
        BEQ     agm_kl
* nodes 1 .. N-2: lap 1 forwarded (c words), IR0 = c - 3; then as node 0
        LDI     *AR1, R6                ; c
        STI     R6, *+AR0(RING_FWD_OFS)
        SUBI    3, R6
        LDI     R6, IR0
        LDI     1, R4                   ; the kind: 1
        BR      agm_k2
agm_k0: LDI     0, R4                   ; the kind: 0
        SUBI    2, R7                   ; s(0) - 1: node 0 has no lap 1
* lap 2: BK = s(j+1) - 1, AR3 = V - off[j+2], R6 = AR3 - 1
agm_k2: LDI     *+AR1(2), R6
        SUBI    *+AR1(1), R6
        SUBI    1, R6
        LDI     R6, BK
        LDI     R3, R6
        SUBI    *+AR1(2), R6
        LDI     R6, AR3
        SUBI    1, R6
        BR      agm_pp
* node N-1: IR0 = s0 - 2, AR3 = off[N-1] - s0, R6 = AR3 - 1
agm_kl: LDI     *+AR3(1), R6            ; s0
        LDI     *AR1, R3
        SUBI    R6, R3                  ; off[N-1] - s0
        SUBI    2, R6
        LDI     R6, IR0
        LDI     R3, AR3
        LDI     R3, R6
        SUBI    1, R6
        LDI     2, R4                   ; the kind: 2
* the pointers: AR1 = x (R4 = x[0]), AR4 = x, R5 = own[0], AR2 = y;
* the sums R2, R3 = b (or 0.0), R0, R1 = 0.0
agm_pp: LDI     *AR1, R3                ; off[j]
        ADDI3   R3, AR2, AR1            ; AR1 -> own slice
        LDI     AR2, AR4                ; x: the columns
        LDI     R4, R1                  ; the kind
        LDI     *AR1, R5                ; own[0]
        LDI     AR2, AR1                ; AR1 = x
        POP     AR2                     ; b
        LDI     *AR1, R4                ; x[0] (node 0's first word)
        LDF     0.0, R2
        LDF     0.0, R3
        CMPI    0, AR2
        BEQ     agm_nb
        LDF     *AR2, R2                ; b[0]
        CMPI    1, R0
        BEQ     agm_nb
        LDF     *+AR2(1), R3            ; b[1]
agm_nb: POP     AR2                     ; y
        CMPI    1, R0
        BEQ     agm_r1
        AGMBODY 2, R1
        BR      agm_ret
agm_r1: AGMBODY 1, R0
agm_ret:
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        RETS
* the two calls: _ring_allgather(x, off), then _mxv(y, W, x, rows, V, b)
agm_two:
        LDI     *+AR0(NODE_COUNT_OFS), R1
        ADDI3   R1, AR3, AR1
        LDI     *AR1, R1                ; V
        PUSH    R1
        PUSH    AR2
        PUSH    AR4
        PUSH    AR5
        PUSH    AR6
        PUSH    IR0
        CALL    _ring_allgather
        POP     IR0                     ; b
        POP     AR5                     ; rows
        POP     AR3                     ; W
        POP     AR2                     ; y
        POP     AR4                     ; x
        POP     AR6                     ; V
        BR      _mxv
