* matrix.asm -- matrix kernels on a node's local block of rows
* (docs/firmware.md, "Matrix kernels").  W is rows x cols, row-major,
* contiguous (row i at W + i*cols), single-precision floats.
*
*   _mxv(y, W, x, rows, cols, b)    y = W x + b      (b = 0: no bias)
*   _mxtv(y, W, e, rows, cols)      y = y + W^T e    (y: cols, e: rows)
*   _mxtvw(y, W, e, rows, cols)     y = W^T e        (written, not added)
*   _mxtv2(y, W, e, rows, cols)     y = y + W^T e, two rows a pass (1.25/weight)
*   _mxtv2w(y, W, e, rows, cols)    y = W^T e, then two rows a pass
*   _mxoutc(W, d, x, rows, cols, eta)            W = W + eta d x^T, W on chip
*   _mxout(W, d, x, rows, cols, eta)             W = W + eta d x^T
*   _mxoutm(W, d, x, rows, cols, M, eta, alpha)  M = alpha M + eta d x^T
*                                                W = W + M
*   _mxvs, _mxtvs, _mxouts, _mxoutms: the same on a band (a local receptive
*   field): one more argument, the stride, after the integer ones (IR1 for
*   _mxvs and _mxoutms, IR0 for _mxtvs and _mxouts); row i reads x (adds
*   into y) from i * stride.  The plain kernels are the strided ones with
*   stride 0.
*
* Integer/pointer arguments in AR2, AR3, AR4, AR5, AR6, IR0 in the order
* shown, eta in R2, alpha in R3.  rows <= 0 or cols <= 0 is allowed (mxv
* then stores b, or 0.0).  No routine reads or writes outside its operands.
*
* Placement for the cycle figures (docs/firmware.md): the vector that is
* read again for every row -- x in mxv and the outer products, y in mxtv --
* in on-chip RAM, W (and M) in SRAM or DRAM.  Then
*   mxv:    1 cycle per multiply-accumulate + 7 per row + 49 per call
*           (RPTS over MPYF3 || ADDF3)
*   mxtv:   1.5 cycles per weight + 10 per row + 59 (pairs of
*           MPYF3 || ADDF3 and a STF || STF for every two weights)
*   mxout:  2 cycles per weight (two primary-bus accesses) + 9 per row + 36
*   mxoutm: 4 cycles per weight (four primary-bus accesses, one a cycle) +
*           12 per row + 86, with d on chip as well
* With W in DRAM (3 cycles an access): 3, 3.5, 6 and 12 cycles per weight.

        .include "rap.inc"

        .global _mxv, _mxtv, _mxout, _mxoutm, _mxtvw, _mxtv2, _mxtv2w, _mxoutc
        .global _mxvs, _mxtvs, _mxouts, _mxoutms

        .text
* ---------------------------------------------------------------------------
* _mxv(y AR2, W AR3, x AR4, rows AR5, cols AR6, b IR0)
*
* Row i: R2 = b[i]; RPTS over MPYF3 *W++, *++x, R0 || ADDF3 R0, R2, R2;
* the loop's last product is added, and the first product of the next row
* and its bias are loaded, in the three slots of the delayed branch that
* closes the row loop.  x is walked with pre-increment and rewound with
* *--AR4(IR0), IR0 = cols - 1, so no address register is ever loaded inside
* the loop (a load would stall the next access by 2 cycles).
* ---------------------------------------------------------------------------
_mxv:
        LDI     0, IR1                  ; stride 0: every row reads x from x[0]
_mxvs:
        LDI     AR6, R1                 ; R1 = cols
        SUBI3   IR1, AR6, AR1           ; AR1 = cols - stride
        LDI     IR0, AR6                ; AR6 -> b
        LDI     1, IR1                  ; bias step
        LDF     0.0, R2
        PUSHF   R2                      ; 0.0 on the stack: the bias when b = 0
        LDI     IR0, R0
        LDIZ    SP, AR6                 ; b = 0: AR6 -> the 0.0,
        LDIZ    0, IR1                  ;        which it never leaves
        LDI     AR5, R3                 ; rows
        BLE     mv_ret
        SUBI    2, R1                   ; cols - 2: RPTS count
        BLT     mv_small
        LDI     AR1, IR0
        SUBI    1, IR0                  ; IR0 = cols - 1 - stride
        ADDI    IR0, AR4                ; AR4 -> x[cols-1-stride]
        MPYF3   *AR3++, *--AR4(IR0), R0 ; W[0][0] x[0]
        LDF     *AR6++(IR1), R2         ; b[0]
        SUBI    2, R3
        BLT     mv_last                 ; one row
        LDI     R3, AR5                 ; rows - 2: the DB count
mv_row: RPTS    R1
        MPYF3   *AR3++, *++AR4, R0
||      ADDF3   R0, R2, R2
        DBD     AR5, mv_row
        ADDF    R0, R2                  ; y[i]
        MPYF3   *AR3++, *--AR4(IR0), R0 ; W[i+1][0] x[0]
        LDF     *AR6++(IR1), R2         ; b[i+1]; store y[i]
||      STF     R2, *AR2++
mv_last:
        RPTS    R1
        MPYF3   *AR3++, *++AR4, R0
||      ADDF3   R0, R2, R2
        ADDF    R0, R2
        STF     R2, *AR2
mv_ret: SUBI    1, SP
        RETS
* cols <= 1 (R1 = cols - 2 < 0)
mv_small:
        SUBI    1, R3
        LDI     R3, RC                  ; rows - 1
        LDI     1, IR0
        SUBI    AR1, IR0                ; IR0 = 1 - (cols - stride): the stride when cols = 1
        CMPI    -1, R1
        BNE     mv_bonly
        RPTB    mv_s1
        MPYF3   *AR3++, *AR4++(IR0), R0 ; W[i][0] x[i stride]
        ADDF    *AR6++(IR1), R0
mv_s1:  STF     R0, *AR2++
        BR      mv_ret
mv_bonly:                               ; cols <= 0: y = b (or 0.0)
        RPTB    mv_s2
        LDF     *AR6++(IR1), R0
mv_s2:  STF     R0, *AR2++
        BR      mv_ret

* ---------------------------------------------------------------------------
* _mxtvw(y AR2, W AR3, e AR4, rows AR5, cols AR6):  y[j] = sum_i e[i] W[i][j]
*
* y written, not added to: the first row stores e[0] W[0][j] (one cycle a
* weight: MPYF3 || STF of the previous product, TMS320C3x User's Guide
* 13.2, parallel multiply and store), then the other rows add as _mxtv does
* (a branch into it with rows - 1).  The words are those of clearing y and
* calling _mxtv: there the first row stores 0 + e[0] W[0][j], and adding
* 0.0 to the product changes no bit of it.  rows <= 0: y = 0.
* ---------------------------------------------------------------------------
_mxtv2w:                                ; the same first row, then _mxtv2 (below)
        LDI     1, IR1
        BR      tvw_in
_mxtvw:
        LDI     0, IR1                  ; IR1: the rows after the first by _mxtv (0)
tvw_in: LDI     AR6, R1                 ; or _mxtv2 (1)
        RETSLE                          ; cols <= 0
        LDI     AR5, R0
        BLE     tvw_zero                ; no rows: y = 0
        LDF     *AR4++, R2              ; s = e[0]
        LDI     AR2, AR0                ; AR0: y write pointer
        MPYF3   *AR3++, R2, R3          ; s W[0][0]
        SUBI    2, R1                   ; cols - 2: the repeat count
        BN      tvw_last                ; cols = 1
        RPTS    R1
        MPYF3   R2, *AR3++, R3          ; s W[0][j+1]
||      STF     R3, *AR0++              ; y[j] = s W[0][j]
tvw_last:
        STF     R3, *AR0                ; y[cols-1]
        SUBI    1, AR5                  ; the other rows (AR3 = W[1], AR4 = e + 1)
        CMPI    0, IR1
        BNZ     _mxtv2                  ; _mxtv2w: two rows a pass
        BR      _mxtv                   ; add as _mxtv does; its RETS returns
tvw_zero:
        LDF     0.0, R2
        SUBI    1, R1
        RPTS    R1
        STF     R2, *AR2++
        RETS

* ---------------------------------------------------------------------------
* _mxtv2(y AR2, W AR3, e AR4, rows AR5, cols AR6):  y[j] += sum_i e[i] W[i][j]
*
* Two rows i, i+1 a pass: y[j] = (y[j] + e[i] W[i][j]) + e[i+1] W[i+1][j]
* with both sums in the registers' extended precision and one store (so
* its words differ from _mxtv's, which stores after every row).  Two
* columns per pass of a five-instruction RPTB block:
*     MPYF3 *Wi++, R4, R0     || ADDF3 *yr++, R0, R2    p = s W[i][j+1];   t = y[j] + p'
*     MPYF3 *Wi1++, *e1, R1   || ADDF3 R2, R1, R3       q = e[i+1] W[i+1][j+1];  u = t + q'
*     (the same for column j+2, u into R2)
*     STF R3, *+yw(1) || STF R2, *++yw(IR0)
* (the parallel operations read their registers before either writes
* them, TMS320C3x User's Guide 13.2, as in TI's FIR loop; e[i+1] is read
* from memory, the second multiply's two operands both indirect).  With W
* in SRAM, y and e on chip: 1.25 cycles a weight.  An odd last row goes to
* _mxtv; one row or fewer than 3 columns: all of it.
* ---------------------------------------------------------------------------
* Two columns a pass over a row (cols in R1, m = cols / 2): ROW with EVEN
* after m - 1 passes (the last two columns), then a branch to DONE; or
* with ODD after m passes (the last column).
PAIRS   .macro  row, even, odd, done
        LDI     R1, R0
        LSH     -1, R0                  ; m
        TSTB    1, R1
        BNZ     odd?
        SUBI    2, R0
        LDI     R0, BK                  ; even cols: m - 1 passes
        row     even
        BR      done
odd?:   SUBI    1, R0
        LDI     R0, BK                  ; odd cols: m passes
        row     odd
        .endm

* A pair of rows of _mxtv2 (BK: the RC of its passes), then TAIL: the last
* one or two columns; the pointers on to the next pair.
T2ROW   .macro  tail
row?:   LDI     BK, RC
        LDF     *AR4++, R4              ; s = e[i]; AR4 -> e[i+1]
        MPYF3   *AR3++, R4, R0          ; s W[i][0]
        MPYF3   *AR1++, *AR4, R1        ; e[i+1] W[i+1][0]
        RPTB    blk?
        MPYF3   *AR3++, R4, R0
||      ADDF3   *AR0++, R0, R2
        MPYF3   *AR1++, *AR4, R1
||      ADDF3   R2, R1, R3
        MPYF3   *AR3++, R4, R0
||      ADDF3   *AR0++, R0, R2
        MPYF3   *AR1++, *AR4, R1
||      ADDF3   R2, R1, R2
blk?:   STF     R3, *+AR2(1)
||      STF     R2, *++AR2(IR0)
        tail
        NOP     *AR4++                  ; e[i+2]
        NOP     *AR3++(IR1)             ; W[i+2]
        DBD     AR5, row?
        NOP     *AR1++(IR1)             ; W[i+3]
        NOP     *AR0--(IR1)             ; y
        NOP     *AR2--(IR1)             ; y - 1
        .endm

T2EVEN  .macro                          ; columns 2m-2 and 2m-1
        MPYF3   *AR3++, R4, R0
||      ADDF3   *AR0++, R0, R2
        MPYF3   *AR1++, *AR4, R1
||      ADDF3   R2, R1, R3
        ADDF3   R0, *AR0++, R2
        ADDF3   R2, R1, R2
        STF     R3, *+AR2(1)
||      STF     R2, *++AR2(IR0)
        .endm

T2ODD   .macro                          ; column 2m
        ADDF3   R0, *AR0++, R2
        ADDF3   R2, R1, R2
        STF     R2, *++AR2
        .endm

_mxtv2:
        LDI     AR5, R0
        RETSLE                          ; rows <= 0
        LDI     AR6, R1
        RETSLE                          ; cols <= 0
        CMPI    2, R0
        BLT     _mxtv                   ; one row
        CMPI    3, R1
        BLT     _mxtv                   ; fewer than 3 columns
        SAVEX   R4
        PUSH    R0                      ; rows (an odd last row: _mxtv)
        LSH     -1, R0
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: pairs - 1
        LDI     AR6, IR1                ; IR1: a row
        LDI     2, IR0
        LDI     AR3, AR1
        ADDI    AR6, AR1                ; AR1: W[i+1]
        LDI     AR2, AR0                ; AR0: y read pointer
        SUBI    1, AR2                  ; AR2: y write pointer (y + 2p - 1)
        PAIRS   T2ROW, T2EVEN, T2ODD, t2_left
t2_left:
        POP     R0                      ; rows
        RESTX   R4
        TSTB    1, R0
        RETSZ                           ; even: done
        LDI     AR0, AR2                ; an odd last row (AR3, AR4 on it): _mxtv
        LDI     1, AR5
        BR      _mxtv

* ---------------------------------------------------------------------------
* _mxtv(y AR2, W AR3, e AR4, rows AR5, cols AR6):  y[j] += sum_i e[i] W[i][j]
*
* Row by row: y += e[i] * W[i][.], two weights per pass of a three-
* instruction RPTB block:
*     MPYF3 *W++, R4, R0 || ADDF3 *yr++, R1, R2    R0 = s W[2p+1], R2 = y[2p] + s W[2p]
*     MPYF3 *W++, R4, R1 || ADDF3 *yr++, R0, R3    R1 = s W[2p+2], R3 = y[2p+1] + R0
*     STF R2, *+yw(1) || STF R3, *++yw(IR0)        y[2p], y[2p+1]  (yw = y + 2p - 1, IR0 = 2)
* With W in SRAM and y on chip each instruction takes one cycle.  cols < 4
* takes a simple loop (3 cycles per weight).
* ---------------------------------------------------------------------------
_mxtv:
        LDI     0, IR0                  ; stride 0: every row adds into y[0..]
_mxtvs:
        LDI     AR5, R0
        RETSLE                          ; rows <= 0
        LDI     AR6, R1
        RETSLE                          ; cols <= 0
        SAVEX   R4
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: rows - 1
        LDI     AR2, AR0                ; AR0: y read pointer
        LDI     AR2, AR1
        SUBI    1, AR1                  ; AR1: y write pointer (y + 2p - 1)
        SUBI3   IR0, AR6, IR1           ; IR1 = cols - stride
        LDI     2, IR0
        CMPI    4, R1
        BLT     tv_small
        SUBI    2, IR1                  ; IR1 = cols - 2 - stride: AR0 and AR1
                                        ; end a row 2 + IR1 ahead of the next
        LDI     R1, R0
        LSH     -1, R0                  ; m = cols / 2
        TSTB    1, R1
        BNZ     tv_odd
* even cols = 2m: m - 1 passes, then the last two weights
        SUBI    2, R0
        LDI     R0, BK                  ; RC value of a row
tv_erow:
        LDI     BK, RC
        LDF     *AR4++, R4              ; s = e[i]
        MPYF3   *AR3++, R4, R1          ; s W[i][0]
        RPTB    tv_eb
        MPYF3   *AR3++, R4, R0
||      ADDF3   *AR0++, R1, R2
        MPYF3   *AR3++, R4, R1
||      ADDF3   *AR0++, R0, R3
tv_eb:  STF     R2, *+AR1(1)
||      STF     R3, *++AR1(IR0)
        MPYF3   *AR3++, R4, R0          ; s W[i][2m-1]
||      ADDF3   *AR0++, R1, R2          ; y[2m-2] + s W[i][2m-2]
        ADDF3   R0, *AR0--, R3          ; y[2m-1] + s W[i][2m-1]
        DBD     AR5, tv_erow
        STF     R2, *+AR1(1)
||      STF     R3, *+AR1(IR0)
        NOP     *AR0--(IR1)             ; AR0, AR1 -> the next row's y
        NOP     *AR1--(IR1)
        BR      tv_ret
* odd cols = 2m + 1: m passes, then the last weight
tv_odd: SUBI    1, R0
        LDI     R0, BK
        ADDI    1, IR1                  ; IR1 = cols - 1 - stride
tv_orow:
        LDI     BK, RC
        LDF     *AR4++, R4
        MPYF3   *AR3++, R4, R1
        RPTB    tv_ob
        MPYF3   *AR3++, R4, R0
||      ADDF3   *AR0++, R1, R2
        MPYF3   *AR3++, R4, R1
||      ADDF3   *AR0++, R0, R3
tv_ob:  STF     R2, *+AR1(1)
||      STF     R3, *++AR1(IR0)
        ADDF3   R1, *AR0, R2            ; y[2m] + s W[i][2m]
        DBD     AR5, tv_orow
        STF     R2, *+AR1(1)
        NOP     *AR0--(IR1)             ; AR0, AR1 -> the next row's y
        NOP     *AR1--(IR1)
        BR      tv_ret
* cols = 1..3: y[j] += s W[i][j] one weight at a time
tv_small:
        SUBI    1, R1
        LDI     R1, BK                  ; cols - 1
tv_srow:
        LDF     *AR4++, R4
        LDI     BK, RC
        RPTB    tv_sb
        MPYF3   R4, *AR3++, R0
        ADDF3   R0, *AR0, R2
tv_sb:  STF     R2, *AR0++
        DBD     AR5, tv_srow
        NOP     *AR0--(IR1)             ; AR0 -> the next row's y
        NOP
        NOP
tv_ret: RESTX   R4
        RETS

* ---------------------------------------------------------------------------
* _mxout(W AR2, d AR3, x AR4, rows AR5, cols AR6, eta R2): W += eta d x^T
*
* Row i: s = eta d[i], then an RPTB block of two instructions per weight,
*     ADDF3 R0, *Wr++, R1                   R1 = W[k] + s x[k]
*     MPYF3 R3, *x++, R0 || STF R1, *Ww++   R0 = s x[k+1], store W[k]
* two primary-bus accesses per weight (read and write of W), so 2 cycles
* per weight with x on chip.  x is rewound with *AR1--(IR1), IR1 = cols.
* ---------------------------------------------------------------------------
_mxouts:
        LDI     AR5, R0
        RETSLE
        LDI     AR6, R1
        RETSLE
        SUBI    1, R0                   ; rows - 1
        LDI     AR2, AR0                ; AR0: W write pointer
        BRD     mo_go
        LDI     AR4, AR1                ; AR1: x pointer
        SUBI3   IR0, AR6, IR1           ; IR1 = cols - stride
        NOP
_mxout:
        LDI     AR5, R0
        RETSLE
        LDI     AR6, R1
        RETSLE
        SUBI    1, R0                   ; rows - 1
        LDI     AR2, AR0                ; AR0: W write pointer
        LDI     AR4, AR1                ; AR1: x pointer
        LDI     AR6, IR1                ; IR1 = cols (- stride)
mo_go:  SUBI    2, R1                   ; cols - 2: RC of a row
        BLT     mo_one
        LDI     R0, AR5
        LDI     R1, IR0
        LDI     IR0, RC
mo_row: MPYF3   R2, *AR3++, R3          ; s = eta d[i]
        MPYF3   R3, *AR1++, R0          ; s x[0]
        RPTB    mo_blk
        ADDF3   R0, *AR2++, R1
mo_blk: MPYF3   R3, *AR1++, R0
||      STF     R1, *AR0++
        ADDF3   R0, *AR2++, R1          ; the last weight of the row
        DBD     AR5, mo_row
        STF     R1, *AR0++
        NOP     *AR1--(IR1)             ; rewind x
        LDI     IR0, RC
        RETS
mo_one: LDI     R0, RC                  ; cols = 1: one weight per row
        LDI     1, IR0
        SUBI    IR1, IR0                ; IR0 = 1 - (cols - stride) = stride
        RPTB    mo_ob
        MPYF3   R2, *AR3++, R3
        MPYF3   R3, *AR4++(IR0), R0     ; s x[i stride]
        ADDF3   R0, *AR2, R1
mo_ob:  STF     R1, *AR2++
        RETS

* ---------------------------------------------------------------------------
* _mxoutc(W AR2, d AR3, x AR4, rows AR5, cols AR6, eta R2):  W += eta d x^T
*
* _mxout for W in on-chip RAM (both blocks take two accesses a cycle,
* TMS320C3x User's Guide 2.3), two weights per pass of a three-instruction
* RPTB block, _mxtv's with the roles of W and x exchanged:
*     MPYF3 *x++, R4, R1 || ADDF3 *Wr++, R0, R2    R1 = s x[2p+1], R2 = W[2p] + s x[2p]
*     MPYF3 *x++, R4, R0 || ADDF3 *Wr++, R1, R3    R0 = s x[2p+2], R3 = W[2p+1] + R1
*     STF R2, *+Ww(1) || STF R3, *++Ww(IR0)
* 1.5 cycles a weight against _mxout's 2; the same arithmetic (s = eta d[i]
* by MPYF3, W + s x[j] by one ADDF3 each), so the same words.  Fewer than 4
* columns: _mxout.
* ---------------------------------------------------------------------------
* A row of _mxoutc (BK: the RC of its passes), then TAIL (given the loop's
* label): the last one or two weights, the DBD and its first delay slot.
OCROW   .macro  tail
row?:   LDI     BK, RC
        MPYF3   R5, *AR3++, R4          ; s = eta d[i]
        MPYF3   *AR1++, R4, R0          ; s x[0]
        RPTB    blk?
        MPYF3   *AR1++, R4, R1
||      ADDF3   *AR0++, R0, R2
        MPYF3   *AR1++, R4, R0
||      ADDF3   *AR0++, R1, R3
blk?:   STF     R2, *+AR2(1)
||      STF     R3, *++AR2(IR0)
        tail    row?
        NOP     *AR1--(IR1)             ; rewind x
        NOP
        .endm

OCEVEN  .macro  loop                    ; W[2m-2] + s x[2m-2], s x[2m-1]
        MPYF3   *AR1++, R4, R1
||      ADDF3   *AR0++, R0, R2
        ADDF3   R1, *AR0++, R3          ; W[2m-1] + s x[2m-1]
        DBD     AR5, loop
        STF     R2, *+AR2(1)
||      STF     R3, *++AR2(IR0)
        .endm

OCODD   .macro  loop
        ADDF3   R0, *AR0++, R2          ; W[2m] + s x[2m]
        DBD     AR5, loop
        STF     R2, *++AR2
        .endm


_mxoutc:
        LDI     AR5, R0
        RETSLE                          ; rows <= 0
        LDI     AR6, R1
        CMPI    4, R1
        BLT     _mxout                  ; fewer than 4 columns (or none)
        SAVEX   R4
        SAVEX   R5
        LDF     R2, R5                  ; eta (R2 is a sum below)
        SUBI    1, R0
        LDI     R0, AR5                 ; DB count: rows - 1
        LDI     AR2, AR0                ; AR0: W read pointer
        SUBI    1, AR2                  ; AR2: W write pointer (W + 2p - 1)
        LDI     AR4, AR1                ; AR1: x pointer
        LDI     AR6, IR1                ; IR1 = cols: rewinds x
        LDI     2, IR0
        PAIRS   OCROW, OCEVEN, OCODD, oc_ret
oc_ret: RESTX   R5
        RESTX   R4
        RETS

* ---------------------------------------------------------------------------
* _mxoutm(W AR2, d AR3, x AR4, rows AR5, cols AR6, M IR0, eta R2, alpha R3)
*     M = alpha M + eta d x^T;  W = W + M
*
* Four instructions, one primary-bus access each, per weight:
*     MPYF3 *+Mp(1), *a, R0 || ADDF3 R0, R1, R2   R0 = alpha M[k], R2 = M'[k-1]
*     MPYF3 *++x(1), R5, R1 || STF R2, *Mp++      R1 = s x[k], store M[k-1]
*     ADDF3 *Wp, R2, R3                           R3 = W[k-1] + M'[k-1]
*     STF R3, *Wp++                               store W[k-1]
* The parallel MPYF3 || ADDF3 reads two memory operands, so alpha must be
* in memory, and on chip: for the row, d[i]'s own word (d on chip) holds
* alpha (*a), and gets d[i] back at the end of the row.  4 cycles per weight
* with x and d on chip, W and M in SRAM: the floor of four accesses on one
* bus (docs/firmware.md).  d must not overlap x, W or M.
* ---------------------------------------------------------------------------
_mxoutm:
        LDI     0, IR1                  ; stride 0: every row reads x from x[0]
_mxoutms:
        LDI     AR5, R0
        RETSLE
        LDI     AR6, R1
        RETSLE
        SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    AR7
        LDF     R3, R4                  ; R4 = alpha
        LDF     R2, R7                  ; R7 = eta
        SUBI    1, R0
        LDI     R0, AR5                 ; rows - 1
        LDI     IR0, AR1                ; AR1 -> M (read and written)
        LDI     AR4, AR7                ; AR7: x pointer
        SUBI    2, R1                   ; cols - 2: RC of a row
        BLT     mm_one
        LDI     R1, BK
        LDI     R1, RC
        ADDI    1, R1
        SUBI    IR1, R1
        LDI     R1, IR1                 ; IR1 = cols - 1 - stride
        ADDI    IR1, AR7                ; *--AR7(IR1) -> x[0]
mm_row: LDF     *AR3, R6                ; d[i]
        MPYF3   R7, R6, R5              ; s = eta d[i]
        STF     R4, *AR3                ; alpha in d[i]'s word for the row
        MPYF3   *AR1, *AR3, R0          ; alpha M[0]
        MPYF3   *--AR7(IR1), R5, R1     ; s x[0]
        RPTB    mm_blk
        MPYF3   *+AR1(1), *AR3, R0      ; alpha M[k]
||      ADDF3   R0, R1, R2              ; M'[k-1]
        MPYF3   *++AR7(1), R5, R1       ; s x[k]
||      STF     R2, *AR1++              ; M[k-1]
        ADDF3   *AR2, R2, R3            ; W[k-1] + M'[k-1]
mm_blk: STF     R3, *AR2++
        ADDF3   R0, R1, R2              ; the row's last weight
        STF     R2, *AR1++
        ADDF3   *AR2, R2, R3
        DBD     AR5, mm_row
        STF     R3, *AR2++
        STF     R6, *AR3++              ; d[i] back
        LDI     BK, RC
        BR      mm_ret
mm_one: LDI     R0, RC                  ; cols = 1: one weight per row
        RPTB    mm_ob
        MPYF3   R7, *AR3++, R5          ; s = eta d[i]
        MPYF3   *AR1, R4, R0            ; alpha M
        MPYF3   R5, *AR7++(IR1), R1     ; s x[i stride]
        ADDF3   R0, R1, R2
        STF     R2, *AR1++
        ADDF3   R2, *AR2, R3
mm_ob:  STF     R3, *AR2++
mm_ret: POP     AR7
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        RETS
