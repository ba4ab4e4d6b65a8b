* plasticity.asm -- kernels of the streaming schedule's local plasticities
* (compiler/frames.py; docs/firmware.md, "Plasticity kernels").  No ring,
* no host.
*
*   _vshrink(w, n, c)           w = w - c sign(w), stopping at 0   (c >= 0 in R2)
*
* The L1 regularisation step (soft threshold): w - c where w > c, w + c
* where w < -c, 0 in between.  Integer and pointer arguments in AR2, AR4
* (the vector kernels' convention: docs/firmware.md), the float in R2; n <= 0
* does nothing.  Seven instructions per element in one RPTB block, branch
* free: the conditional loads LDFGT / LDFLT take the flags of the SUBF3 /
* ADDF3 before them (TMS320C3x User's Guide 13, LDFcond: the condition is
* tested on the status register, the load itself changes no flag).

        .include "rap.inc"

        .global _vshrink

        .text
* _vshrink(w AR2, n AR4, c R2)
_vshrink:
        LDI     AR4, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        RPTB    vsh_end
        LDF     0.0, R3                 ; 0 between -c and c
        LDF     *AR2, R0                ; w
        SUBF3   R2, R0, R1              ; w - c
        LDFGT   R1, R3                  ; w > c: w - c
        ADDF3   R2, R0, R1              ; w + c
        LDFLT   R1, R3                  ; w < -c: w + c
vsh_end:
        STF     R3, *AR2++
        RETS
