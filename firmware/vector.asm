* vector.asm -- vector kernels on local data (docs/firmware.md, "Vector
* kernels").  No ring, no host: the RAP's level-one routines.
*
*   _vcopy(dst, src, n)         dst = src (words copied bit for bit)
*   _vfill(dst, n, a)           dst = a            (a: float in R2)
*   _vfilli(dst, n, w)          dst = w            (w: any 32-bit word)
*   _vadd(z, x, y, n)           z = x + y
*   _vsub(z, x, y, n)           z = x - y
*   _vmul(z, x, y, n)           z = x * y          (elementwise)
*   _vscale(z, x, n, a)         z = a x            (a in R2)
*   _vaxpy(y, x, n, a)          y = y + a x        (a in R2)
*   _vdot(x, y, n) -> R0        sum x[k] y[k]      (extended precision)
*   _vsum(x, n) -> R0           sum x[k]
*
* Integer and pointer arguments in AR2, AR3, AR4, AR5 in the order shown,
* float arguments in R2.  n <= 0 does nothing (vdot, vsum return 0.0).  z
* may be the same vector as x or y; other overlaps are not allowed (vcopy:
* dst <= src works, like a forward memmove).  Loops are RPTS (one
* instruction, fetched once) or RPTB (from the instruction cache), so the
* cycles per element depend only on where the data are: one access per
* cycle on the primary bus (SRAM, DRAM: 3 cycles per access with its wait
* states), two per cycle in each on-chip block (docs/firmware.md tables).

        .include "rap.inc"

        .global _vcopy, _vfill, _vfilli, _vadd, _vsub, _vmul, _vscale, _vaxpy
        .global _vdot, _vsum

        .text
* _vcopy(dst AR2, src AR3, n AR4): RPTS over LDI || STI, 1 cycle/word
* when src and dst are not both on the primary bus.
_vcopy:
        LDI     AR4, R1
        SUBI    2, R1                   ; n - 2
        BLT     vc_small
        LDI     *AR3++, R0
        RPTS    R1
        LDI     *AR3++, R0
||      STI     R0, *AR2++
        STI     R0, *AR2
        RETS
vc_small:
        CMPI    -1, R1                  ; n = 1 ?
        RETSNE
        LDI     *AR3, R0
        STI     R0, *AR2
        RETS

* _vfill(dst AR2, n AR3, a R2), _vfilli(dst AR2, n AR3, w AR4)
_vfill:
        LDI     AR3, R1
        SUBI    1, R1
        RETSLT
        RPTS    R1
        STF     R2, *AR2++
        RETS
_vfilli:
        LDI     AR3, R1
        SUBI    1, R1
        RETSLT
        RPTS    R1
        STI     AR4, *AR2++
        RETS

* _vadd, _vsub, _vmul (z AR2, x AR3, y AR4, n AR5): a two-instruction RPTB
* block, 2 cycles/element on chip, 3 with all three vectors in SRAM (three
* accesses on the primary bus).
_vadd:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        RPTB    va_end
        ADDF3   *AR4++, *AR3++, R0
va_end: STF     R0, *AR2++
        RETS
_vsub:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        RPTB    vs_end
        SUBF3   *AR4++, *AR3++, R0      ; x - y
vs_end: STF     R0, *AR2++
        RETS
_vmul:
        LDI     AR5, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        RPTB    vm_end
        MPYF3   *AR4++, *AR3++, R0
vm_end: STF     R0, *AR2++
        RETS

* _vscale(z AR2, x AR3, n AR4, a R2): RPTS over MPYF3 || STF, 1 cycle/element
_vscale:
        LDI     AR4, R1
        SUBI    2, R1
        BLT     vsc_small
        MPYF3   R2, *AR3++, R0
        RPTS    R1
        MPYF3   R2, *AR3++, R0
||      STF     R0, *AR2++
        STF     R0, *AR2
        RETS
vsc_small:
        CMPI    -1, R1
        RETSNE
        MPYF3   R2, *AR3, R0
        STF     R0, *AR2
        RETS

* _vaxpy(y AR2, x AR3, n AR4, a R2): two instructions per element
* (MPYF3 || STF, ADDF3), software-pipelined; AR5 is the store pointer.
_vaxpy:
        LDI     AR2, AR5
        LDI     AR4, R1
        SUBI    1, R1
        RETSLT
        MPYF3   R2, *AR3++, R0          ; a x0
        SUBI    1, R1
        BLT     vx_last
        LDI     R1, RC
        RPTB    vx_end
        ADDF3   R0, *AR2++, R3          ; y(k) + a x(k)
vx_end: MPYF3   R2, *AR3++, R0          ; a x(k+1), store y(k)
||      STF     R3, *AR5++
vx_last:
        ADDF3   R0, *AR2, R3
        STF     R3, *AR5
        RETS

* _vdot(x AR2, y AR3, n AR4) -> R0: RPTS over MPYF3 || ADDF3, 1 cycle per
* multiply-accumulate when x and y are not both on the primary bus.
* Products and sum in extended precision (32-bit mantissa).
_vdot:
        LDI     AR4, R1
        SUBI    2, R1
        BLT     vd_small
        MPYF3   *AR2++, *AR3++, R0
        LDF     0.0, R2
        RPTS    R1
        MPYF3   *AR2++, *AR3++, R0
||      ADDF3   R0, R2, R2
        ADDF3   R0, R2, R0
        RETS
vd_small:
        LDF     0.0, R0
        CMPI    -1, R1
        RETSNE
        MPYF3   *AR2, *AR3, R0
        RETS

* _vsum(x AR2, n AR3) -> R0
_vsum:
        LDF     0.0, R0
        LDI     AR3, R1
        SUBI    1, R1
        RETSLT
        RPTS    R1
        ADDF    *AR2++, R0
        RETS
