* sparse.asm -- sparse matrix kernels over a node's list of connections
* (docs/firmware.md, "Sparse kernels").
*
* A node holds the connections (pairs) of a sparse connect whose destination
* units are its own, row by row (CSR): for its rows i = 0 .. rows-1,
* cnt[i] pairs; for pair k (all rows' pairs one after the other) its weight
* W[k] and its source unit idx[k] (an offset into the source vector x, or
* into the partial error vector e).
*
*   _spmv(y, W, x, rows, cnt, idx, b)   y[i] = b[i] + sum_k W[k] x[idx[k]]
*                                         (b = 0: no bias; b = y: accumulate)
*   _spmtv(e, W, d, rows, cnt, idx)     e[idx[k]] += W[k] d[i]   (W^T d)
*   _spout(W, d, x, rows, cnt, idx, eta)              W[k] += eta d[i] x[idx[k]]
*   _spoutm(W, d, x, rows, cnt, idx, M, eta, alpha)   M[k] = alpha M[k] + eta d[i] x[idx[k]]
*                                                     W[k] += M[k]
*
* Integer/pointer arguments in AR2, AR3, AR4, AR5, AR6, IR0, IR1 in the order
* shown, eta in R2, alpha in R3.  rows <= 0 does nothing; a row may have no
* pairs (cnt[i] = 0: _spmv stores b[i], or 0.0).  idx[k] >= 0.
*
* The gather: IR0 = idx[k] is loaded from memory and x[idx[k]] read as
* *+AR4(IR0).  A load of IR0 delays the next instruction that addresses
* through an auxiliary register by 2 cycles (docs/machine-model.md 4), and
* every instruction of these loops does, so each pair costs its IR0 load and
* 2 cycles in which only register arithmetic can run, besides its other
* memory accesses (one per cycle on the primary bus):
*   _spmv 4 cycles per pair, _spmtv 5, _spout 5, _spoutm 7 (+ a fixed cost
*   per row and per call; docs/firmware.md tables them).
* Placement: x (or e) on chip, W, M, cnt and idx in SRAM.  A connect whose
* rows are contiguous ranges of the source (a local receptive field) is
* better run by the strided dense kernels of matrix.asm (1 cycle per
* multiply-accumulate).

        .include "rap.inc"

        .global _spmv, _spmtv, _spout, _spoutm

        .text
* ---------------------------------------------------------------------------
* _spmv(y AR2, W AR3, x AR4, rows AR5, cnt AR6, idx IR0, b IR1)
*
* Row i: R2 = b[i]; RPTB over the row's pairs:
*     LDI   *AR1++, IR0                             IR0 = idx[k]
*     MPYF3 *+AR4(IR0), *AR3++, R0 || ADDF3 R0, R2, R2
* ---------------------------------------------------------------------------
_spmv:
        LDI     AR5, R1
        RETSLE                          ; rows <= 0
        LDI     IR0, AR1                ; AR1 -> idx
        LDF     0.0, R2
        PUSHF   R2                      ; 0.0 on the stack: the bias when b = 0
        LDI     IR1, R0
        LDI     IR1, AR0                ; AR0 -> b
        LDI     1, IR1                  ; bias step
        LDIZ    SP, AR0                 ; b = 0: AR0 -> the 0.0,
        LDIZ    0, IR1                  ;        which it never leaves
        SUBI    1, R1
        LDI     R1, AR5                 ; DB count: rows - 1
sv_row: LDI     *AR6++, R1              ; cnt[i]
        SUBI    1, R1
        BLTD    sv_store                ; no pairs: y[i] = b[i]
        LDF     *AR0++(IR1), R2         ; R2 = b[i]
        LDF     0.0, R0
        LDI     R1, RC
        RPTB    sv_blk
        LDI     *AR1++, IR0             ; idx[k]
sv_blk: MPYF3   *+AR4(IR0), *AR3++, R0  ; x[idx[k]] W[k]
||      ADDF3   R0, R2, R2
        ADDF    R0, R2                  ; the row's last product
sv_store:
        DBD     AR5, sv_row
        STF     R2, *AR2++              ; y[i]
        NOP
        NOP
        SUBI    1, SP
        RETS

* ---------------------------------------------------------------------------
* _spmtv(e AR2, W AR3, d AR4, rows AR5, cnt AR6, idx IR0):
* e[idx[k]] += W[k] d[i] for the pairs k of row i.
*
* Row i: R4 = d[i]; the product of pair k is computed while pair k-1 is
* stored (RPTB of cnt - 1 passes, then the last pair):
*     LDI   *AR1++, IR0                             IR0 = idx[k]
*     ADDF3 R0, *+AR2(IR0), R1                      R1 = e[idx[k]] + d W[k]
*     MPYF3 *AR3++, R4, R0 || STF R1, *+AR2(IR0)    R0 = d W[k+1]; store e
* Pairs of one row have different sources, so no pair reads an e word
* another pair of the same pass has not stored yet.
* ---------------------------------------------------------------------------
_spmtv:
        LDI     AR5, R0
        RETSLE
        SAVEX   R4
        LDI     IR0, AR1                ; AR1 -> idx
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: rows - 1
st_row: LDI     *AR6++, R1              ; cnt[i]
        SUBI    2, R1                   ; cnt - 2
        BLTD    st_short                ; cnt <= 1
        LDF     *AR4++, R4              ; R4 = d[i]
        LDI     R1, RC
        NOP
        MPYF3   *AR3++, R4, R0          ; d W[k0]
        RPTB    st_blk
        LDI     *AR1++, IR0
        ADDF3   R0, *+AR2(IR0), R1
st_blk: MPYF3   *AR3++, R4, R0
||      STF     R1, *+AR2(IR0)
st_last:
        LDI     *AR1++, IR0             ; the row's last pair
        ADDF3   R0, *+AR2(IR0), R1
        STF     R1, *+AR2(IR0)
st_next:
        DBD     AR5, st_row
        NOP
        NOP
        NOP
        RESTX   R4
        RETS
st_short:                               ; R1 = -1: one pair, -2: none
        CMPI    -1, R1
        BNE     st_next
        BRD     st_last
        MPYF3   *AR3++, R4, R0
        NOP
        NOP

* ---------------------------------------------------------------------------
* _spout(W AR2, d AR3, x AR4, rows AR5, cnt AR6, idx IR0, eta R2):
* W[k] += eta d[i] x[idx[k]].
*
* Row i: R3 = eta d[i]; the first pair before the RPTB, then cnt - 1 passes
* that each store the previous weight:
*     LDI   *AR1++, IR0                             IR0 = idx[k]
*     MPYF3 *+AR4(IR0), R3, R0 || STF R1, *AR0++    R0 = s x[idx[k]]; store W[k-1]
*     ADDF3 R0, *AR2++, R1                          R1 = W[k] + s x
* ---------------------------------------------------------------------------
_spout:
        LDI     AR5, R0
        RETSLE
        LDI     IR0, AR1                ; AR1 -> idx
        LDI     AR2, AR0                ; AR0: W write pointer
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: rows - 1
so_row: LDI     *AR6++, R1              ; cnt[i]
        SUBI    1, R1
        BLTD    so_next                 ; no pairs
        MPYF3   R2, *AR3++, R3          ; s = eta d[i]
        NOP
        NOP
        LDI     *AR1++, IR0             ; the first pair
        SUBI    1, R1                   ; cnt - 2
        BLTD    so_last                 ; one pair
        LDI     R1, RC
        MPYF3   *+AR4(IR0), R3, R0
        ADDF3   R0, *AR2++, R1
        RPTB    so_blk
        LDI     *AR1++, IR0
        MPYF3   *+AR4(IR0), R3, R0
||      STF     R1, *AR0++
so_blk: ADDF3   R0, *AR2++, R1
so_last:
        STF     R1, *AR0++
so_next:
        DBD     AR5, so_row
        NOP
        NOP
        NOP
        RETS

* ---------------------------------------------------------------------------
* _spoutm(W AR2, d AR3, x AR4, rows AR5, cnt AR6, idx IR0, M IR1, eta R2,
*         alpha R3):  M[k] = alpha M[k] + eta d[i] x[idx[k]];  W[k] += M[k]
*
* Row i: R5 = eta d[i]; pair k's products are formed while pair k-1 is
* finished (M and W read and written through one pointer each).  Five
* primary-bus accesses per pair (idx, W and M read and written) and the 2
* cycles after the IR0 load: 7 cycles per pair.
*     LDI   *AR1++, IR0                             IR0 = idx[k]
*     ADDF3 R0, R1, R6                              R6 = M'[k-1]
*     ADDF3 R6, *AR2, R7 || STF R6, *AR7++          R7 = W[k-1] + M'; store M[k-1]
*     MPYF3 *+AR4(IR0), R5, R0 || STF R7, *AR2++    R0 = s x[idx[k]]; store W[k-1]
*     MPYF3 *AR7, R4, R1                            R1 = alpha M[k]
* ---------------------------------------------------------------------------
_spoutm:
        LDI     AR5, R0
        RETSLE
        SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    AR7
        LDF     R3, R4                  ; R4 = alpha
        LDI     IR0, AR1                ; AR1 -> idx
        LDI     IR1, AR7                ; AR7 -> M
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: rows - 1
sm_row: LDI     *AR6++, R3              ; cnt[i]
        SUBI    1, R3
        BLTD    sm_next                 ; no pairs
        MPYF3   R2, *AR3++, R5          ; s = eta d[i]
        NOP
        NOP
        LDI     *AR1++, IR0             ; the first pair
        SUBI    1, R3                   ; cnt - 2
        BLTD    sm_last                 ; one pair
        LDI     R3, RC
        MPYF3   *+AR4(IR0), R5, R0      ; s x
        MPYF3   *AR7, R4, R1            ; alpha M
        RPTB    sm_blk
        LDI     *AR1++, IR0
        ADDF3   R0, R1, R6
        ADDF3   R6, *AR2, R7
||      STF     R6, *AR7++
        MPYF3   *+AR4(IR0), R5, R0
||      STF     R7, *AR2++
sm_blk: MPYF3   *AR7, R4, R1
sm_last:
        ADDF3   R0, R1, R6              ; the row's last pair
        ADDF3   R6, *AR2, R7
||      STF     R6, *AR7++
        STF     R7, *AR2++
sm_next:
        DBD     AR5, sm_row
        NOP
        NOP
        NOP
        POP     AR7
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        RETS
