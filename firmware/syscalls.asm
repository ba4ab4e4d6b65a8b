* syscalls.asm -- the UNIX-style system calls over the host daemon, and
* diagnostic printing (docs/firmware.md, "System calls" and "Printing").
*
* Every stub follows the calling convention: arguments in AR2, AR3, AR4
* (integers and pointers, in order), the result in R0; R4-R7, AR7, DP and
* SP are preserved.  A call that fails returns -1 and stores the daemon's
* error number in the global _errno (which is never cleared, as in C).
* Text is one character a word (the low 8 bits), as the daemon expects.
*
*   _exit(status)                      does not return
*   _write(fd, buf, count)   -> count  _read(fd, buf, count)   -> count
*   _open(path, flags, mode) -> fd     _close(fd)              -> 0
*   _lseek(fd, offset, whence) -> offset
*   _clock()                 -> cycles, bits 31-0 (R1: bits 63-32)
*   _read_words(fd, addr, count)  -> words   (raw 32-bit words, bulk copy)
*   _write_words(fd, addr, count) -> words
*   _argc() -> argc                    _argv(index, buf, max) -> length
*
*   _strlen(s) -> length
*   _print_str(s)  _print_char(c)  _print_int(i)  _print_hex(u)
*   _print_float(f in R2)               (all to standard output)
*   _fmt_int(buf, i) -> length          _fmt_hex(buf, u) -> length
*   _fmt_float(buf, f in R2) -> length  (buf: 16 words are enough; the
*                                        text is followed by a 0 word)
*
* The request block of a host call is built on the stack (8 words above
* SP), so the stubs need neither DP nor static data.

        .include "rap.inc"

        .global _exit, _write, _read, _open, _close, _lseek, _clock
        .global _read_words, _write_words, _argc, _argv, _errno, _hostcall
        .global _strlen, _print_str, _print_char, _print_int, _print_hex
        .global _print_float, _fmt_int, _fmt_hex, _fmt_float

        .bss    _errno, 1

        .text
_exit:  LDI     SYS_EXIT, R0
        BR      _hostcall
_write: LDI     SYS_WRITE, R0
        BR      _hostcall
_read:  LDI     SYS_READ, R0
        BR      _hostcall
_open:  LDI     SYS_OPEN, R0
        BR      _hostcall
_close: LDI     SYS_CLOSE, R0
        BR      _hostcall
_lseek: LDI     SYS_LSEEK, R0
        BR      _hostcall
_clock: LDI     SYS_CLOCK, R0
        BR      _hostcall
_argc:  LDI     SYS_ARGC, R0
        BR      _hostcall
_argv:  LDI     SYS_ARGV, R0
        BR      _hostcall
_read_words:
        LDI     SYS_READ_WORDS, R0
        BR      _hostcall
_write_words:
        LDI     SYS_WRITE_WORDS, R0
        BR      _hostcall

* _hostcall: service number in R0, arguments in AR2..AR6 (arg0..arg4).
* Returns the result in R0 and the block's arg0 word in R1 (CLOCK's high
* word); on error (errno != 0) stores errno in _errno.  Clobbers R0-R1,
* AR0-AR1.
_hostcall:
        ADDI    RQ_WORDS, SP            ; reserve the request block
        LDI     SP, AR0
        SUBI    RQ_WORDS-1, AR0         ; AR0 = block (SP-7 .. SP)
        LDRING  AR1
        STI     R0, *+AR0(RQ_SERVICE)
        STI     AR2, *+AR0(RQ_ARG0)
        STI     AR3, *+AR0(RQ_ARG1)
        STI     AR4, *+AR0(RQ_ARG2)
        STI     AR5, *+AR0(RQ_ARG3)
        STI     AR6, *+AR0(RQ_ARG4)
        STI     AR0, *+AR1(HOST_CALL_OFS)   ; the node waits for the daemon here
        LDI     *+AR0(RQ_ARG0), R1
        LDI     *+AR0(RQ_ERRNO), R0
        BZD     hc_ok
        SUBI    RQ_WORDS, SP            ; (delay slots: run either way)
        PUSH    DP
        LDP     _errno
        STI     R0, @_errno
hc_ok:  POP     DP
        LDI     *+AR0(RQ_RESULT), R0
        RETS

* _strlen(s AR2) -> R0: words before the first 0 word.
_strlen:
        LDI     AR2, AR0
        LDI     -1, R0
sl_loop:
        LDI     *AR0++, R1
        BNZD    sl_loop
        ADDI    1, R0
        NOP
        NOP
        RETS

* _print_str(s AR2): write the 0-terminated string s to standard output.
_print_str:
        CALL    _strlen
        LDI     AR2, AR3
        LDI     R0, AR4
        LDI     STDOUT, AR2
        BR      _write

* _print_char(c AR2)
_print_char:
        PUSH    AR2                     ; the character, on the stack
        LDI     SP, AR3
        LDI     1, AR4
        LDI     STDOUT, AR2
        CALL    _write
        SUBI    1, SP
        RETS

* _print_int(i AR2), _print_hex(u AR2), _print_float(f R2): format into
* a 16-word buffer on the stack, then write it.
_print_int:
        LDI     AR2, AR3
        LDI     0, R1
        BR      pr_common
_print_hex:
        LDI     AR2, AR3
        LDI     1, R1
        BR      pr_common
_print_float:
        LDI     2, R1
pr_common:
        ADDI    16, SP
        LDI     SP, AR2
        SUBI    15, AR2                 ; AR2 = buffer (SP-15 .. SP)
        CMPI    1, R1
        BGT     pr_f
        BEQ     pr_h
        CALL    _fmt_int
        BR      pr_w
pr_h:   CALL    _fmt_hex
        BR      pr_w
pr_f:   CALL    _fmt_float
pr_w:   LDI     SP, AR3
        SUBI    15, AR3
        LDI     R0, AR4
        LDI     STDOUT, AR2
        CALL    _write
        SUBI    16, SP
        RETS

* _fmt_int(buf AR2, i AR3) -> R0 = length.  Signed decimal, 1-11 characters
* and a 0 word.  Digits by subtracting powers of ten (exact for every
* 32-bit value, -2147483648 included).
_fmt_int:
        PUSH    DP
        LDP     pow10p
        LDI     @pow10p, AR1            ; AR1 -> 10^9, 10^8, ..., 10
        POP     DP
        LDI     AR2, AR0                ; AR0 = output
        LDI     AR3, R0                 ; R0 = value
        BGE     fi_pos
        LDI     '-', R1
        STI     R1, *AR0++
        NEGI    R0, R0                  ; magnitude; 0x80000000 read unsigned
fi_pos: LDI     0, R3                   ; R3 != 0 once a digit is out
        LDI     8, AR5                  ; 9 powers 10^9 .. 10^1
fi_dig: LDI     *AR1++, R1              ; p
        LDI     '0', R2
fi_sub: CMPI    R1, R0                  ; unsigned: R0 < p ?
        BLO     fi_got
        SUBI    R1, R0
        ADDI    1, R2
        BR      fi_sub
fi_got: CMPI    '0', R2
        BNE     fi_out
        CMPI    0, R3
        BEQ     fi_next                 ; a leading zero
fi_out: STI     R2, *AR0++
        LDI     1, R3
fi_next:
        DBU     AR5, fi_dig
        ADDI    '0', R0                 ; the units digit, always
        STI     R0, *AR0++
        LDI     0, R1
        STI     R1, *AR0                ; the terminating 0
        SUBI3   AR2, AR0, R0            ; length
        RETS

* _fmt_hex(buf AR2, u AR3) -> R0 = 8: eight lower-case hex digits and a 0.
_fmt_hex:
        LDI     AR2, AR0
        LDI     -28, R2                 ; shift of the next nibble
        LDI     7, AR5
fh_dig: LSH3    R2, AR3, R0             ; R0 = u >> (28 - 4k)
        AND     15, R0
        LDI     '0', R1
        CMPI    10, R0
        LDIGE   'a'-10, R1
        ADDI    R1, R0
        STI     R0, *AR0++
        DBUD    AR5, fh_dig
        ADDI    4, R2
        NOP
        NOP
        LDI     0, R1
        STI     R1, *AR0
        LDI     8, R0
        RETS

* _fmt_float(buf AR2, f R2) -> R0 = length.  Like C's printf("%g"): six
* significant digits, trailing zeros dropped, fixed notation when the
* decimal exponent e is in -4..5, else d.ddddde+XX.  f is scaled into
* [1, 10) by multiplying with 10^(+-2^k) (single-precision products,
* truncated), rounded to a 6-digit integer and printed exactly: the text is
* within one unit of the sixth significant digit of f (relative error
* below 1e-5; tests/firmware/test_syscalls.py).  Zero prints as "0".
* Uses R0-R3, AR0-AR5 and 8 words of stack.
_fmt_float:
        PUSH    DP
        LDP     fconstp
        LDI     @fconstp, AR1           ; AR1 -> the scaling table
        LDI     @pow10p, AR4
        POP     DP
        ADDI    4, AR4                  ; AR4 -> 10^5, 10^4, ..., 10
        LDI     AR2, AR0                ; AR0 = output
        LDI     AR2, IR0                ; IR0 = buffer start
        LDF     R2, R0
        BNZ     ff_nz
        LDI     '0', R1                 ; zero
        STI     R1, *AR0++
        BR      ff_end
ff_nz:  BGT     ff_pos
        LDI     '-', R1
        STI     R1, *AR0++
        NEGF    R0, R0
ff_pos: LDI     0, R3                   ; R3 = decimal exponent e
        LDI     5, AR5                  ; 6 table rows: k = 32, 16, 8, 4, 2, 1
        CMPF    1.0, R0
        BLT     ff_small
ff_big: MPYF3   *+AR1(1), R0, R1        ; R1 = m * 10^-k
        LDI     R3, R2
        ADDI    *+AR1(2), R2            ; R2 = e + k
        CMPF    *AR1, R0                ; m >= 10^k ?
        LDFGE   R1, R0
        LDIGE   R2, R3
        DBUD    AR5, ff_big
        ADDI    3, AR1
        NOP
        NOP
        BR      ff_round
ff_small:
        MPYF3   *AR1, R0, R1            ; R1 = m * 10^k
        LDI     R3, R2
        SUBI    *+AR1(2), R2            ; R2 = e - k
        CMPF    10.0, R1                ; m * 10^k < 10 ?
        LDFLT   R1, R0
        LDILT   R2, R3
        DBUD    AR5, ff_small
        ADDI    3, AR1
        NOP
        NOP
ff_round:                               ; m in [1, 10) up to rounding; AR1 -> 1e5
        MPYF    *AR1, R0
        ADDF    0.5, R0
        FIX     R0, R0                  ; D = round(m * 1e5)
        CMPI    *+AR1(1), R0            ; D >= 1000000: m rounded up to 10
        BLT     ff_lo
        LDI     *+AR1(2), R0            ; D = 100000, e + 1
        ADDI    1, R3
ff_lo:  CMPI    *+AR1(2), R0            ; D < 100000: m fell just below 1
        BGE     ff_dig
        MPYI    10, R0
        SUBI    1, R3
ff_dig: ADDI    6, SP                   ; digits d0..d5 (characters) on the stack
        LDI     SP, AR1
        SUBI    5, AR1                  ; AR1 -> d0
        LDI     AR1, AR3
        LDI     4, AR5                  ; d0..d4 by subtraction, d5 = the rest
ff_d1:  LDI     *AR4++, R1              ; p = 10^5 .. 10
        LDI     '0', R2
ff_d2:  CMPI    R1, R0
        BLT     ff_d3
        SUBI    R1, R0
        ADDI    1, R2
        BR      ff_d2
ff_d3:  STI     R2, *AR3++
        DBU     AR5, ff_d1
        ADDI    '0', R0
        STI     R0, *AR3                ; AR3 -> d5
        LDI     6, R2                   ; R2 = nd: digits left after dropping
ff_trim:                                ; trailing zeros (at least 1)
        LDI     *AR3--, R1
        CMPI    '0', R1
        BNE     ff_cases
        SUBI    1, R2
        CMPI    1, R2
        BGT     ff_trim
ff_cases:
        CMPI    -4, R3
        BLT     ff_sci
        CMPI    6, R3
        BGE     ff_sci
        CMPI    0, R3
        BLT     ff_frac
* fixed, e = 0..5: d0..de, then '.' and d(e+1)..d(nd-1) if any
        LDI     R3, AR5                 ; e + 1 digits
ff_f1:  LDI     *AR1++, R1
        STI     R1, *AR0++
        DBU     AR5, ff_f1
        SUBI3   R3, R2, R1
        SUBI    1, R1                   ; R1 = nd - (e + 1) digits left
        BLE     ff_free
        LDI     '.', R0
        STI     R0, *AR0++
        SUBI    1, R1
        LDI     R1, AR5
ff_f2:  LDI     *AR1++, R0
        STI     R0, *AR0++
        DBU     AR5, ff_f2
        BR      ff_free
* fixed, e = -4..-1: "0." then -e-1 zeros then d0..d(nd-1)
ff_frac:
        LDI     '0', R0
        STI     R0, *AR0++
        LDI     '.', R1
        STI     R1, *AR0++
        NEGI    R3, R1
        SUBI    2, R1                   ; -e - 1 zeros (DB count -e - 2)
        BN      ff_fr2
        LDI     R1, AR5
ff_fr1: STI     R0, *AR0++
        DBU     AR5, ff_fr1
ff_fr2: LDI     R2, AR5
        SUBI    1, AR5
ff_fr3: LDI     *AR1++, R0
        STI     R0, *AR0++
        DBU     AR5, ff_fr3
        BR      ff_free
* scientific: d0 ['.' d1..d(nd-1)] 'e' sign and two digits (|e| <= 39)
ff_sci: LDI     *AR1++, R0
        STI     R0, *AR0++
        SUBI    1, R2
        BZ      ff_s2
        LDI     '.', R0
        STI     R0, *AR0++
        SUBI    1, R2
        LDI     R2, AR5
ff_s1:  LDI     *AR1++, R0
        STI     R0, *AR0++
        DBU     AR5, ff_s1
ff_s2:  LDI     'e', R0
        STI     R0, *AR0++
        LDI     '+', R0
        CMPI    0, R3
        BGE     ff_s3
        LDI     '-', R0
        NEGI    R3, R3
ff_s3:  STI     R0, *AR0++
        LDI     '0', R0                 ; tens digit
ff_s4:  CMPI    10, R3
        BLT     ff_s5
        SUBI    10, R3
        ADDI    1, R0
        BR      ff_s4
ff_s5:  STI     R0, *AR0++
        ADDI    '0', R3
        STI     R3, *AR0++
ff_free:
        SUBI    6, SP                   ; drop the digit words
ff_end: LDI     0, R1
        STI     R1, *AR0
        LDI     AR0, R0
        SUBI    IR0, R0                 ; length
        RETS

        .data
pow10p: .word   pow10
fconstp:
        .word   fscale
pow10:  .word   1000000000, 100000000, 10000000, 1000000
        .word   100000, 10000, 1000, 100, 10, 1
* rows (10^k, 10^-k, k), k = 32, 16, 8, 4, 2, 1; then 1e5 and the limits
fscale: .float  1.0e32, 1.0e-32
        .word   32
        .float  1.0e16, 1.0e-16
        .word   16
        .float  1.0e8, 1.0e-8
        .word   8
        .float  1.0e4, 1.0e-4
        .word   4
        .float  1.0e2, 1.0e-2
        .word   2
        .float  10.0, 0.1
        .word   1
        .float  1.0e5
        .word   1000000, 100000
