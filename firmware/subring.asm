* subring.asm -- collectives on a sub-ring: a group of contiguous ring
* positions first .. last (no wrap), whose links no other group uses, so
* that several groups run theirs at the same time (docs/firmware.md,
* "Sub-ring collectives"; the checkerboard's grid rows, docs/mappings.md).
*
*   _subring_reduce(x, n, first, last)   node last: x[0..n) = the sum over
*                                        the nodes first .. last of their
*                                        x[0..n) (floats); the others' x
*                                        is left as it was
*
* Every node calls it with its own group's first and last; a node outside
* first .. last, a group of one node, or n <= 0 returns at once.  The
* words go down the chain once: node first writes its n words, each node
* after it reads a word, adds its own and writes the sum on (2 cycles a
* word: the ring is read and written), node last adds its own and keeps
* the sum.  The chain streams one word every 2 cycles and each hop adds 2
* cycles of latency, so the routine takes at most 2n + 2 (last - first) +
* 52 cycles on every member (tests/firmware/test_fw_subring.py): the words
* once, the hops, and the set-up (the tests for the node's place, the
* loop's, the members' skew); a node outside returns within 30.  Additions in
* ring order: ((x_first + x_first+1) + ...) + x_last, each rounded to
* single precision as it is stored on the ring.

        .include "rap.inc"

        .global _subring_reduce

        .text
* ---------------------------------------------------------------------------
* _subring_reduce(x AR2, n AR3, first AR4, last AR5)
* ---------------------------------------------------------------------------
_subring_reduce:
        LDRING  AR0
        LDI     *+AR0(NODE_ID_OFS), R1  ; k
        CMPI    AR4, R1
        RETSLT                          ; before the group: not a member
        CMPI    AR5, R1
        RETSGT                          ; after it
        CMPI    AR4, AR5
        RETSEQ                          ; a group of one: nothing to add
        LDI     AR3, R0
        CMPI    0, R0
        RETSLE                          ; no words
        SUBI    1, R0                   ; n - 1: RPTB/RPTS counts
        CMPI    AR4, R1
        BEQ     sr_first
        CMPI    AR5, R1
        BEQ     sr_last
* a node inside the chain: read, add its own, write the sum on
        LDI     R0, RC
        RPTB    sr_mid
        ADDF3   *AR0, *AR2++, R0
sr_mid: STF     R0, *AR0
        RETS
* the last node: read, add its own, keep the sum
sr_last:
        LDI     R0, RC
        RPTB    sr_keep
        ADDF3   *AR0, *AR2, R0
sr_keep:
        STF     R0, *AR2++
        RETS
* the first node: write its n words (1 cycle a word; the chain takes them
* at its pace, the ring blocking this node's writes)
sr_first:
        CMPI    0, R0
        BEQ     sr_one
        SUBI    1, R0                   ; n - 2
        LDI     *AR2++, R1
        RPTS    R0
        LDI     *AR2++, R1
||      STI     R1, *AR0
        STI     R1, *AR0
        RETS
sr_one: LDI     *AR2, R1
        STI     R1, *AR0
        RETS
