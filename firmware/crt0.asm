* crt0.asm -- start-up of a RAP node program (docs/firmware.md, "Start-up").
*
* The linker makes _c_int00 the entry point and writes its address into the
* reset vector (word 0).  _c_int00:
*   1. enables the instruction cache (ST = CE; OVM = 0, no interrupts);
*   2. clears .bss (__bss_start .. __bss_end - 1);
*   3. fetches the arguments through the host (ARGC, ARGV) into the free
*      SRAM after the last section: first argv[0..argc-1] and a null
*      pointer, then the strings, one character a word, each ended by 0;
*   4. puts the stack after them (it grows upwards towards __SRAM_end);
*   5. sets DP = 0 and calls _main(argc in AR2, argv in AR3);
*   6. exits through the host with _main's result (R0) as the status.
* A program that wants its stack elsewhere defines main and moves SP itself
* (SP must stay valid across every call into the firmware).

        .include "rap.inc"

        .global _c_int00, _main, _exit
        .global __bss_start, __bss_end, __SRAM_free, __SRAM_end
        .global ___argc, ___argv

ARGV_RESERVE    .set    256             ; words kept free for the stack while argv is read

        .text
_c_int00:
        LDI     ST_CE, ST               ; cache on; OVM = 0; GIE = 0
        LDP     bounds
        LDI     @bounds, AR0            ; AR0 = __bss_start
        LDI     @bounds+1, R1
        LDI     @bounds+2, AR1          ; AR1 = __SRAM_free: argv area, then the stack
        LDI     @bounds+3, R3           ; R3  = __SRAM_end
        SUBI3   AR0, R1, R1             ; R1 = .bss words
        BLE     nobss
        SUBI    1, R1
        LDI     0, R0
        RPTS    R1
        STI     R0, *AR0++
nobss:
        ; the request block lives at the top of the free area while argv is
        ; read: AR2 = __SRAM_end - 8
        LDI     R3, AR2
        SUBI    RQ_WORDS, AR2
        LDRING  AR3                     ; AR3 = the ring/node register page
        LDI     SYS_ARGC, R0
        STI     R0, *+AR2(RQ_SERVICE)
        STI     AR2, *+AR3(HOST_CALL_OFS)
        LDI     *+AR2(RQ_RESULT), R2    ; R2 = argc (-1: treat as 0)
        LDIN    0, R2
        STI     R2, @bounds+4           ; ___argc
        STI     AR1, @bounds+5          ; ___argv = argv[] at __SRAM_free
        ADDI3   R2, AR1, AR4            ; AR4 = where the next string goes:
        ADDI    1, AR4                  ;   after argv[0..argc] (NULL included)
        LDI     0, R1                   ; R1 = index
argloop:
        CMPI    R2, R1
        BGE     argdone
        STI     AR4, *AR1++             ; argv[i] = AR4
        LDI     SYS_ARGV, R0
        STI     R0, *+AR2(RQ_SERVICE)
        STI     R1, *+AR2(RQ_ARG0)
        STI     AR4, *+AR2(RQ_ARG1)
        SUBI3   AR4, AR2, R0            ; max = room below the request block,
        SUBI    ARGV_RESERVE, R0        ;   less the stack reserve
        STI     R0, *+AR2(RQ_ARG2)
        STI     AR2, *+AR3(HOST_CALL_OFS)
        LDI     *+AR2(RQ_RESULT), R0    ; length, or -1 (argument too long:
        LDIN    0, R0                   ;   an empty string was not written)
        BNN     argok
        STI     R0, *AR4                ; R0 = 0 here: store the empty string
argok:  ADDI    R0, AR4
        ADDI    1, AR4                  ; past the string and its 0
        ADDI    1, R1
        BR      argloop
argdone:
        LDI     0, R0
        STI     R0, *AR1                ; argv[argc] = NULL
        LDI     AR4, SP                 ; the stack starts after the strings
        LDI     @bounds+4, AR2          ; main(argc, argv)
        LDI     @bounds+5, AR3
        LDP     0                       ; DP = 0 (callee-saved from here on)
        CALL    _main
        LDI     R0, AR2
        CALL    _exit                   ; does not return
        BR      $

        .data
bounds: .word   __bss_start, __bss_end, __SRAM_free, __SRAM_end
___argc:
        .word   0                       ; bounds+4
___argv:
        .word   0                       ; bounds+5
