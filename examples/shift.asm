* shift.asm -- every node passes its node number to the next node on the
* ring (a one-step shift).  It has a bug on purpose (docs/debugging.md):
* each node reads its neighbour's word before it writes its own, so every
* node waits for a word that no node will ever send -- a ring deadlock.
* The fix swaps the two lines marked below.
*
*   rap as examples/shift.asm -o shift.obj && rap ld shift.obj -o shift.out
*   rap run shift.out --nodes 4

RING_DATA .set  0               ; offsets of the ring registers from 0x800000,
NODE_ID .set    3               ; reached through DP = 0x80

        .global start
        .text
start:  LDP     0x800000        ; DP: the page of the ring registers
        LDI     @NODE_ID, R0    ; R0 = this node's number
        LDI     @RING_DATA, R1  ; take the upstream node's number   } swap these
        STI     R0, @RING_DATA  ; send ours downstream              } two lines
        SWI                     ; done: stop here (a software breakpoint)
