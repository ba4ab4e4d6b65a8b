* dotbus.asm -- a 256-step dot product, the inner loop of every layer
* (docs/debugging.md walks through it).  Both vectors sit in SRAM, on the
* primary bus, so each MPYF3 || ADDF3 reads two words on one bus: a bus
* conflict stall every step.  With B_ONCHIP = 1 the vector b sits in on-chip
* RAM block 0 instead, and the loop takes one cycle a step.
*
*   rap as examples/dotbus.asm -o dot.obj && rap ld dot.obj -o dot.out
*   rap prof dot.out
*
* It ends at SWI, a software breakpoint: 'rap run' stops there (exit 3).

N       .set    256
B_ONCHIP .set   0               ; 1: the vector b in on-chip RAM block 0
A       .set    0x2000          ; the vector a: SRAM
        .if     B_ONCHIP
B       .set    0x809800        ; on-chip RAM block 0
        .else
B       .set    0x2400          ; SRAM too: the second operand shares the bus
        .endif

        .global start
        .text
start:  LDI     A, AR0
        LDI     B >> 16, AR1    ; AR1 = B (a 24-bit address in two steps)
        LSH     16, AR1
        OR      B & 0xFFFF, AR1
        LDF     0, R0
        LDF     0, R2
        RPTS    N-1
        MPYF3   *AR0++, *AR1++, R0
     || ADDF3   R0, R2, R2
        ADDF    R0, R2          ; the last product
        SWI
