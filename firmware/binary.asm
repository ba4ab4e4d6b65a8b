* binary.asm -- kernels of connects from binary layers (CLONES'
* Binary_layer; docs/firmware.md, "Binary kernels").
*
* A binary layer's pattern is the set of its active units, kept as an index
* list: list[0] = count, list[1 .. count] = the active unit indices (0 ..
* size-1, ascending, each once).  The node's weights of a connect from it
* are stored column by column (column j: its rows' weights into the node's
* own units, W[j*rows .. j*rows + rows - 1]), so that the columns of the
* active units are contiguous vectors:
*
*   _bcolsum(y, W, list, rows, b)      y = b + sum over active j of W[:, j]
*                                      (b = 0: no bias; b = y: accumulate)
*   _bcolupd(W, d, list, rows, eta)    W[:, j] += eta d, for active j
*   _bcolupdm(W, d, list, rows, M, eta, alpha)
*                                      M[:, j] = alpha M[:, j] + eta d,
*                                      W[:, j] += M[:, j], for active j
*
* No multiplies in the forward sum (an active unit's value is 1), and only
* the active columns are touched by the update: the cost is in proportion to
* the active units, not to the layer's size (docs/firmware.md tables it).
* Integer/pointer arguments in AR2, AR3, AR4, AR5, AR6 in the order shown,
* eta in R2, alpha in R3 (docs/firmware.md, section 4).  rows <= 0 does
* nothing; count 0 leaves y = b (or 0.0).

        .include "rap.inc"
        .global _bcolsum, _bcolupd, _bcolupdm, _bcoltv, _vthreshold, _vactive
        .text

* _bcolsum(y AR2, W AR3, list AR4, rows AR5, b AR6).  y is set first (the
* bias copied, 2 cycles/row, or 0.0, 1 cycle/row; nothing when b = y), then
* every active column added, a two-instruction RPTB block: 2 cycles/row
* and 14 per column (the next column's set-up in the delayed branch's slots).
_bcolsum:
        LDI     AR5, R1
        SUBI    1, R1                   ; rows - 1
        RETSLT
        LDI     AR5, IR1                ; IR1: rows
        LDI     AR2, AR0                ; AR0: y, written
        LDI     AR6, R0
        BZ      bs_zero
        CMPI    AR2, AR6
        BEQ     bs_cols                 ; b = y: accumulate
        LDI     R1, RC
        RPTB    bs_b
        LDF     *AR6++, R0
bs_b:   STF     R0, *AR0++
        BR      bs_cols
bs_zero:
        LDF     0.0, R0
        RPTS    R1
        STF     R0, *AR0++
bs_cols:
        LDI     *AR4++, R3              ; count
        RETSLE
        LDI     AR2, AR0                ; AR0: y, read
        LDI     AR2, AR6                ; AR6: y, written
        LDI     R1, RC
bs_col: LDI     *AR4++, R0              ; j
        MPYI    IR1, R0                 ; j * rows
        ADDI    AR3, R0
        LDI     R0, AR1                 ; AR1: column j
        RPTB    bs_add
        ADDF3   *AR1++, *AR0++, R2
bs_add: STF     R2, *AR6++
        SUBI    1, R3
        BNZD    bs_col                  ; the next column's set-up in the delay slots
        LDI     AR2, AR0
        LDI     AR2, AR6
        LDI     R1, RC
        RETS

* _bcolupd(W AR2, d AR3, list AR4, rows AR5, eta R2): per active column a
* three-instruction RPTB block (eta d[i], + W, store): 3 cycles/row, and
* 13 per column.
_bcolupd:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT
        LDI     *AR4++, R3              ; count
        RETSLE
        LDI     AR3, AR0                ; AR0: d
        LDI     R1, RC
bu_col: LDI     *AR4++, R0
        MPYI    AR5, R0
        ADDI    AR2, R0
        LDI     R0, AR1                 ; AR1: column j
        RPTB    bu_end
        MPYF3   R2, *AR0++, R0          ; eta d[i]
        ADDF3   R0, *AR1, R0
bu_end: STF     R0, *AR1++
        SUBI    1, R3
        BNZD    bu_col                  ; the next column's set-up in the delay slots
        LDI     AR3, AR0
        LDI     R1, RC
        NOP
        RETS

* _bcolupdm(W AR2, d AR3, list AR4, rows AR5, M AR6, eta R2, alpha R3):
* per active column and row: M = alpha M + eta d, W += M (6 cycles/row).
_bcolupdm:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, BK                  ; BK: rows - 1 (AR5 is needed below)
        LDI     *AR4++, IR1             ; count (no flags: IR1 is not R0-R7)
        CMPI    0, IR1
        RETSLE
bm_col: LDI     *AR4++, R0              ; j
        LDI     R0, IR0
        MPYI    BK, IR0
        ADDI    R0, IR0                 ; IR0: j (rows - 1) + j = j rows
        LDI     AR2, AR1
        ADDI    IR0, AR1                ; AR1: W column j
        LDI     AR6, AR5
        ADDI    IR0, AR5                ; AR5: M column j
        LDI     AR3, AR0                ; AR0: d
        LDI     BK, RC
        RPTB    bm_end
        MPYF3   R3, *AR5, R0            ; alpha M
        MPYF3   R2, *AR0++, R1          ; eta d
        ADDF    R1, R0                  ; the new M
        STF     R0, *AR5++
        ADDF3   R0, *AR1, R0            ; W + M
bm_end: STF     R0, *AR1++
        SUBI    1, IR1
        CMPI    0, IR1
        BNZ     bm_col
        RETS

* _bcoltv(e AR2, W AR3, d AR4, rows AR5, cols AR6): the error a connect from
* a thresholded binary layer passes back, W^T d with W column by column:
* e[j] += sum_i W[j*rows + i] d[i] for every column j (one dot product per
* column: RPTS over MPYF3 || ADDF3, 1 cycle per weight, + 15 per column).
_bcoltv:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT                          ; rows = 0
        LDI     AR6, R3
        RETSLE                          ; cols = 0
bt_col: LDI     AR4, AR0                ; AR0: d
        LDF     0.0, R0
        LDF     0.0, R2
        RPTS    R1
        MPYF3   *AR3++, *AR0++, R0
||      ADDF3   R0, R2, R2
        ADDF3   R0, R2, R2
        ADDF    *AR2, R2
        STF     R2, *AR2++
        SUBI    1, R3
        BNZ     bt_col
        RETS

* _vthreshold(z AR2, x AR3, n AR4): z[k] = 1.0 if x[k] > 0, else 0.0 (a
* thresholded binary layer; the conditional loads leave the flags of the
* load of x[k]: SPRU031 chapter 13, LDFcond, status bits unaffected;
* 4-5 cycles/element).
_vthreshold:
        LDI     AR4, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        LDF     1.0, R3
        LDF     0.0, R2
        RPTB    th_end
        LDF     *AR3++, R0              ; flags of x[k]
        LDFGT   R3, R0
        LDFLE   R2, R0
th_end: STF     R0, *AR2++
        RETS

* _vactive(list AR2, y AR3, n AR4): the index list of a 0/1 vector y of n
* units: list[0] = the count, list[1 ..] the indices k with y[k] != 0,
* ascending.  Every index is stored and the pointer moves on only for an
* active unit (IR0 = 0 or 1; a load of IR0 costs the next access 2 cycles;
* flags are set only by loads into R0-R7, SPRU031 section 13.5):
* about 10 cycles/unit; list has room for n + 1 words.
_vactive:
        LDI     AR2, AR0
        ADDI    1, AR0                  ; AR0: the next entry
        LDI     0, R2                   ; k
        LDI     AR4, R1
        SUBI    1, R1
        BLT     vac_end
        LDI     R1, RC
        RPTB    vac_blk
        LDI     0, IR0
        LDF     *AR3++, R0              ; flags of y[k] (LDI to IR0 sets none)
        LDINZ   1, IR0
        STI     R2, *AR0++(IR0)
vac_blk: ADDI   1, R2
vac_end:
        LDI     AR0, R0
        SUBI    AR2, R0
        SUBI    1, R0
        STI     R0, *AR2                ; the count
        RETS
