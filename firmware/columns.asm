* columns.asm -- the partial net inputs of a connect split by columns, four
* rows a pass (docs/firmware.md 9, "_mxtv4"; docs/compiler.md, "Connects
* split by columns").  W is rows x cols, row-major, as in matrix.asm.
*
*   _mxtv4(y, W, e, rows, cols)    y = y + W^T e, four rows a pass (1.125/weight)
*   _mxtv4w(y, W, e, rows, cols)   y = W^T e: the first row written, then _mxtv4
*
* Arguments as matrix.asm's (AR2..AR6).  rows <= 0 or cols <= 0 is allowed.

        .include "rap.inc"

        .global _mxtv4, _mxtv4w
        .global _mxtvw, _mxtv2

        .text
* ---------------------------------------------------------------------------
* _mxtv4w(y AR2, W AR3, e AR4, rows AR5, cols AR6): y = W^T e.  The first
* row by _mxtvw (y = e[0] W[0], written), then the others by _mxtv4.
* ---------------------------------------------------------------------------
_mxtv4w:
        LDI     AR5, R0
        BLE     _mxtvw                  ; no rows: _mxtvw writes y = 0
        LDI     AR6, R0
        BLE     _mxtvw                  ; no columns: _mxtvw returns
        PUSH    AR5
        LDI     1, AR5
        CALL    _mxtvw                  ; y = e[0] W[0]; AR3 -> W[1], AR4 -> e + 1
        POP     AR5
        SUBI    1, AR5                  ; the other rows: on into _mxtv4

* ---------------------------------------------------------------------------
* _mxtv4(y AR2, W AR3, e AR4, rows AR5, cols AR6):  y[j] += sum_i e[i] W[i][j]
*
* Four rows a, b, c, d = i .. i+3 a pass: y[j] = (((y[j] + pa) + pb) + pc)
* + pd, p = e[.] W[.][j], in the registers' extended precision and stored
* once (the order compiler/reference.py follows).  A column takes four
* parallel multiply-adds, each product added by the next instruction; of
* a parallel instruction's two indirect operands (TMS320C3x User's Guide
* 13.2, MPYF3 || ADDF3) one is the weight, the other y[j] (the
* instruction that starts the sum: e[b] comes from R4) or the row's e
* (the other three: their adds are register to register).  Column j's sum
* runs in R2 when j is even and in R3 when it is odd, so that the two
* finished sums of a pass of two columns are stored by one STF || STF:
* 9 instructions for 8 weights.  With W, y and e on chip (two accesses a
* cycle) 1.125 cycles a weight.
*     MPYF3 *Wa++, *ea, R0   || ADDF3 R1, R2, R2     pa(j+1); y[j] done
*     MPYF3 *Wb++, R4, R1    || ADDF3 *yr++, R0, R3  pb(j+1); y[j+1] + pa
*     MPYF3 *Wc++, *ec, R0   || ADDF3 R1, R3, R3     pc; + pb
*     MPYF3 *Wd++, *ed, R1   || ADDF3 R0, R3, R3     pd; + pc
*     MPYF3 *Wa++, *ea, R0   || ADDF3 R1, R3, R3     pa(j+2); y[j+1] done
*     STF R2, *+yw(1)        || STF R3, *++yw(IR0)   y[j], y[j+1]
*     (the first three of column j+2, into R2)
* AR3, AR1, AR5, AR6: rows a, b, c, d; AR4 -> e[i+2] (ea = *-AR4(IR0),
* ec = *AR4, ed = *+AR4(1), IR0 = 2); AR0: y read; AR2: y write - 1;
* AR7: the passes left; BK: RC of a pass of two columns.  The rows left
* over (rows mod 4) go to _mxtv2 (a pair, and a last row alone by _mxtv).
* Fewer than 4 rows or 3 columns: all of it to _mxtv2.
* ---------------------------------------------------------------------------
* Column 0 of a pass (its first product, then three into R2)
Q4FIRST .macro
        LDI     BK, RC
        LDF     *-AR4(1), R4            ; e[b]
        MPYF3   *AR3++, *-AR4(IR0), R0  ; pa
        MPYF3   *AR1++, R4, R1
||      ADDF3   *AR0++, R0, R2          ; y[0] + pa
        MPYF3   *AR5++, *AR4, R0
||      ADDF3   R1, R2, R2
        MPYF3   *AR6++, *+AR4(1), R1
||      ADDF3   R0, R2, R2
        .endm

* Column j + 1 (odd) after column j: pa(j+1) and y[j] finished, then the
* other three into R3
Q4ODD   .macro
        MPYF3   *AR3++, *-AR4(IR0), R0
||      ADDF3   R1, R2, R2
        MPYF3   *AR1++, R4, R1
||      ADDF3   *AR0++, R0, R3
        MPYF3   *AR5++, *AR4, R0
||      ADDF3   R1, R3, R3
        MPYF3   *AR6++, *+AR4(1), R1
||      ADDF3   R0, R3, R3
        .endm

* A pass of four rows, TAIL after its passes of two columns
Q4ROW   .macro  tail
row?:   Q4FIRST
        RPTB    blk?
        Q4ODD
        MPYF3   *AR3++, *-AR4(IR0), R0
||      ADDF3   R1, R3, R3              ; y[j+1] done
        STF     R2, *+AR2(1)
||      STF     R3, *++AR2(IR0)
        MPYF3   *AR1++, R4, R1
||      ADDF3   *AR0++, R0, R2
        MPYF3   *AR5++, *AR4, R0
||      ADDF3   R1, R2, R2
blk?:   MPYF3   *AR6++, *+AR4(1), R1
||      ADDF3   R0, R2, R2
        tail
        SUBI    IR1, AR0                ; y
        LDI     AR6, AR3                ; the next four rows: W[i+4] ..
        ADDI3   IR1, AR6, AR1
        ADDI3   IR1, AR1, AR5
        LDI     AR0, AR2
        DBD     AR7, row?
        ADDI3   IR1, AR5, AR6
        ADDI    4, AR4                  ; e[i+6]
        SUBI    1, AR2
        .endm

Q4TODD  .macro                          ; odd cols: the last column was j
        ADDF3   R1, R2, R2
        STF     R2, *+AR2(1)
        .endm

Q4TEVEN .macro                          ; even cols: one more column, j + 1
        Q4ODD
        ADDF3   R1, R3, R3
        STF     R2, *+AR2(1)
||      STF     R3, *++AR2(IR0)
        .endm

_mxtv4:
        LDI     AR5, R0
        CMPI    4, R0
        BLT     _mxtv2                  ; fewer than 4 rows
        LDI     AR6, R1
        CMPI    3, R1
        BLT     _mxtv2                  ; fewer than 3 columns
        SAVEX   R4
        PUSH    AR7
        PUSH    R0                      ; rows (the rows left over: _mxtv2)
        LSH     -2, R0
        SUBI    1, R0
        LDI     R0, AR7                 ; DB count: passes - 1
        LDI     AR6, IR1                ; IR1: a row
        LDI     2, IR0
        ADDI3   IR1, AR3, AR1           ; W[i+1]
        ADDI3   IR1, AR1, AR5           ; W[i+2]
        ADDI3   IR1, AR5, AR6           ; W[i+3]
        ADDI    2, AR4                  ; AR4 -> e[i+2]
        LDI     AR2, AR0                ; AR0: y read pointer
        SUBI    1, AR2                  ; AR2: y write pointer - 1
        TSTB    1, R1
        BZ      q4_even
        SUBI    3, R1
        LSH     -1, R1
        LDI     R1, BK                  ; odd cols: (cols - 1) / 2 passes of two
        Q4ROW   Q4TODD
        BR      q4_left
q4_even:
        SUBI    4, R1
        LSH     -1, R1
        LDI     R1, BK                  ; even cols: (cols - 2) / 2 passes of two
        Q4ROW   Q4TEVEN
q4_left:
        POP     R0                      ; rows
        POP     AR7
        RESTX   R4
        AND     3, R0
        RETSZ                           ; no rows left over
        LDI     R0, AR5                 ; 1 to 3 rows (AR3, AR4 - 2 on them)
        LDI     AR0, AR2
        SUBI    2, AR4
        LDI     IR1, AR6
        BR      _mxtv2
