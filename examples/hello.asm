* hello.asm -- the smallest complete RAP program: every node prints a line
* through the host daemon and exits with status 0.  No firmware needed:
* it fills a host-call request block itself (docs/syscalls.md).
*
*   rap as examples/hello.asm -o hello.obj && rap ld hello.obj -o hello.out
*   rap run hello.out --nodes 4

RINGIO  .set    0x800000        ; ring and node registers
HOSTCALL .set   5               ; offset from RINGIO, reached with DP = 0x80
WRITE   .set    2               ; host services
EXIT    .set    1

        .global start
        .text
start:  LDP     blockp          ; DP -> page 0, where our data lives
        LDI     @blockp, AR0    ; AR0 -> request block
        LDI     @msgp, R1       ; R1 -> the text
        LDP     RINGIO          ; DP -> page of the node registers
        LDI     WRITE, R0
        STI     R0, *AR0        ; service = WRITE
        LDI     1, R0
        STI     R0, *+AR0(3)    ; arg0 = fd 1 (stdout)
        STI     R1, *+AR0(4)    ; arg1 = the text
        LDI     msglen, R0
        STI     R0, *+AR0(5)    ; arg2 = its length in words
        STI     AR0, @HOSTCALL  ; ask the host
        LDI     EXIT, R0
        STI     R0, *AR0        ; service = EXIT
        LDI     0, R0
        STI     R0, *+AR0(3)    ; status = 0
        STI     AR0, @HOSTCALL
        B       $               ; not reached

        .data
blockp: .word   block
msgp:   .word   msg
msg:    .string "Hello from a simulated RAP node", 10
msglen  .set    $ - msg
        .bss    block, 8
