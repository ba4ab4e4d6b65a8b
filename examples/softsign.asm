* The rational soft-sign, a user transfer function (examples/softsign.net,
* docs/network-language.md "transfer"):
*
*     y = x / (1 + |x|)          f'(net) = 1 / (1 + |x|)^2 = (1 - |y|)^2
*
* Both routines follow the firmware's calling convention (docs/firmware.md,
* section 4: arguments in AR2-AR4, R0-R3 / AR0-AR6 / IR0-IR1 / RC / RS / RE
* scratch, R4-R7 / AR7 / DP / SP preserved) and accept n = 0.
*
* With w = (1 + |x|) / 16, y = (x r) / 16 where r = 1/w is five Newton
* steps r <- r (2 - w r) from r0 = 0.75 2^-e, e the exponent of w (SPRU031,
* section 5.3: the exponent is the top 8 bits of the single-precision
* word; a word with a zero mantissa and sign is 2^e): |1 - w r0| <= 0.5,
* so the relative error is 2^-32 before rounding, below single precision.
* The scaling by 1/16 keeps r0 a normal number (e >= -4, and 2^-e above
* 2^-127 for every w up to the largest single): x near 3.4e38 gives +-1.

        .global _softsign, _softsign_deriv
        .text

* _softsign(z AR2, x AR3, n AR4): z[k] = x[k] / (1 + |x[k]|)
_softsign:
        LDI     AR4, R1
        SUBI    1, R1
        RETSLT                          ; n = 0
        LDI     R1, RC
        RPTB    ss_end
        ABSF    *AR3, R3
        ADDF    1.0, R3
        MPYF    0.0625, R3              ; w = (1 + |x|) / 16
        PUSHF   R3
        POP     R1
        ASH     -24, R1                 ; e = the exponent of w
        NEGI    R1, R1
        LSH     24, R1
        PUSH    R1
        POPF    R0                      ; 2^-e
        MPYF    0.75, R0                ; r0
        .loop   5                       ; r = r (2 - w r), five times (unrolled)
        MPYF3   R0, R3, R1
        SUBRF   2.0, R1
        MPYF    R1, R0
        .endloop
        MPYF3   R0, *AR3++, R1          ; x r
        MPYF    0.0625, R1              ; x r / 16 = x / (1 + |x|)
ss_end: STF     R1, *AR2++
        RETS

* _softsign_deriv(z AR2, y AR3, n AR4): z[k] = (1 - |y[k]|)^2
_softsign_deriv:
        LDI     AR4, R1
        SUBI    1, R1
        RETSLT
        LDI     R1, RC
        RPTB    sd_end
        ABSF    *AR3++, R0
        SUBRF   1.0, R0                 ; 1 - |y|
        MPYF    R0, R0
sd_end: STF     R0, *AR2++
        RETS
