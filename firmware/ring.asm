* ring.asm -- collective operations over the RAP ring (docs/firmware.md,
* "Ring collectives").  Every node calls the same routine with the same
* slice table (SPMD); the ring's hardware blocking is the only
* synchronisation.
*
*   _ring_barrier()                    no node leaves before all have entered
*   _ring_bcast(x, n, root)            x[0..n) of node root to every node
*   _ring_allgather(x, off)            every node ends with all of x
*   _ring_reduce_scatter(x, off)       node j: x[off[j]..off[j+1]) = sum over
*                                      all nodes (floats); the rest of x is
*                                      left as it was
*   _ring_allreduce(x, off)            reduce-scatter, then all-gather: every
*                                      node ends with the sum of all x
*   _ring_split(off, n)                off[k] = the even split of n words:
*                                      slices of n/N or n/N + 1 words
*   _ring_rs_mxout(e, off, W, d, x, rows, eta)  the reduce-scatter of e
*                                      during the update W += eta d x^T
*                                      (overlap on)
*   (_ring_rs_mxoutm, the same during the update with momentum, is its own
*   library member: overlap.asm)
*   _ring_sumf(v) -> R0                the sum of every node's float v (R2)
*   _ring_maxf(v) -> R0                the largest of every node's float v
*
* off is a table of N + 1 offsets, identical on every node: node k owns
* x[off[k]] .. x[off[k+1] - 1]; off[0] = 0, off[N] = V (the vector length),
* non-decreasing (empty slices are allowed).  x holds the whole vector on
* every node (V words); the words of the slice a node owns are its input.
* All-gather and broadcast move words bit for bit (any data); the
* reductions add single-precision floats (docs/firmware.md gives the order
* of the additions and the precision).
*
* Algorithms (one word per node per cycle on every link at best):
* - all-gather: a chain from node 0.  Node j first reads what comes from
*   upstream (slices 0..j-1), forwarding it with RING_FWD (node N-1 does
*   not forward slice 0, which node 0 has), then writes its own slice, then
*   reads the slices j+1..N-1 that come round a second time, forwarding
*   those its downstream still lacks (all but slice j+1).  About
*   V + 80 + 6.5N cycles: two hops and one switch from reading to writing
*   (an RPTS set-up) per node; at most 1.2 (V + N) + 520 for any table on
*   up to 64 nodes (docs/firmware.md).
* - reduce-scatter: a chain as well.  Node 0 writes its part of slice N-1;
*   node j adds its own values to every word that passes and writes the
*   sums on, except the words of its own slice, which it keeps; after
*   passing slices N-1, 0 .. j-2 node j injects its part of slice j-1, then
*   adds up the second lap (slice j, which is complete when it arrives,
*   and slices j+1 .. N-2).  Every word is read, added and written: 2
*   cycles per word per node (a read and a write of the ring: two accesses
*   to the expansion bus), about 2V + 13N + 85 cycles in all with x in
*   SRAM, 2V + 9N + 85 on chip (the fast path below).
* - broadcast: the root writes, every other node reads and forwards (the
*   node before the root does not forward): about V + N + 50 cycles.
* - barrier: node 0 sends a token round the ring (every node forwards it
*   when it arrives), then a second one that releases the nodes.
* - scalar sum and maximum: a chain as well.  Node 0 writes its value;
*   node j reads the partial result of nodes 0..j-1, combines its own and
*   writes it on; node N-1's result is the total, which it writes round to
*   node 0, and nodes 0 .. N-3 forward it.  Every node gets the same bits;
*   about 4N + 20 cycles.

        .include "rap.inc"

        .global _ring_barrier, _ring_bcast, _ring_allgather
        .global _ring_reduce_scatter, _ring_allreduce, _ring_split
        .global _ring_sumf, _ring_maxf, _ring_rs_mxout
        .global _mxout

* ---------------------------------------------------------------------------
* Segments of a collective: AR0 = RINGIO_BASE, AR2 = the memory pointer
* (advanced past the segment), R1 = the word count (any value; <= 0: none).
* R0 is used.  Each is straight-line code with its own labels.
* ---------------------------------------------------------------------------

* SEND: write R1 words from *AR2++ to the ring (1 cycle/word)
SEND    .macro
        SUBI    2, R1
        BLT     s1?
        LDI     *AR2++, R0
        RPTS    R1
        LDI     *AR2++, R0
||      STI     R0, *AR0
        STI     R0, *AR0
        BR      s9?
s1?:    CMPI    -1, R1
        BNE     s9?
        LDI     *AR2++, R0
        STI     R0, *AR0
s9?:
        .endm

* RECV: read R1 words from the ring into *AR2++ (1 cycle/word); the first
* R2 of them are also sent on downstream (RING_FWD = R2, 0 <= R2 <= R1)
RECV    .macro
        STI     R2, *+AR0(RING_FWD_OFS)
        SUBI    2, R1
        BLT     r1?
        LDI     *AR0, R0
        RPTS    R1
        LDI     *AR0, R0
||      STI     R0, *AR2++
        STI     R0, *AR2++
        BR      r9?
r1?:    CMPI    -1, R1
        BNE     r9?
        LDI     *AR0, R0
        STI     R0, *AR2++
r9?:
        .endm

* ADDEMIT: R1 words: read a float from the ring, add *AR2++, write the sum
* on (2 cycles/word: the ring is read and written)
ADDEMIT .macro
        SUBI    1, R1
        BLT     a9?
        LDI     R1, RC
        RPTB    a1?
        ADDF3   *AR0, *AR2++, R0
a1?:    STF     R0, *AR0
a9?:
        .endm

* ADDKEEP: R1 words: read a float from the ring, add *AR2, store the sum
* in *AR2++ (2 cycles/word)
ADDKEEP .macro
        SUBI    1, R1
        BLT     k9?
        LDI     R1, RC
        RPTB    k1?
        ADDF3   *AR0, *AR2, R0
k1?:    STF     R0, *AR2++
k9?:
        .endm

* WRITEOWN (all-gather): write the node's slice -- R3, R2, BK = its first
* three words, AR4 -> the fourth, AR6 = its length - 4 -- then store R0,
* the last word of lap 1, at *AR2: no access to x before the RPTS, so that
* x in SRAM costs no more at the switch.  Leaves AR4 -> the word after the
* slice and R3 = its last word.
WRITEOWN .macro
        STI     R3, *AR0
        STI     R2, *AR0
        LDI     BK, R3
        RPTS    AR6
        LDI     *AR4++, R3
||      STI     R3, *AR0
        STI     R3, *AR0
        STI     R0, *AR2++
        .endm

        .text
* ---------------------------------------------------------------------------
* _ring_barrier()
* ---------------------------------------------------------------------------
_ring_barrier:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R1
        LDI     *+AR0(NODE_ID_OFS), R0
        CMPI    1, R1
        RETSLE                          ; one node: nothing to wait for
        CMPI    0, R0
        BNE     rb_other
        STI     R0, *AR0                ; node 0: token 1 round the ring,
        LDI     *AR0, R2                ;   back when every node is here,
        STI     R0, *AR0                ;   then token 2 releases them
        RETS
rb_other:
        SUBI    1, R1
        LDI     2, R2                   ; forward both tokens,
        CMPI    R1, R0
        LDIEQ   1, R2                   ; node N-1 only the first
        STI     R2, *+AR0(RING_FWD_OFS)
        LDI     *AR0, R2                ; token 1
        LDI     *AR0, R2                ; token 2
        RETS

* ---------------------------------------------------------------------------
* _ring_bcast(x AR2, n AR3, root AR4)
* ---------------------------------------------------------------------------
_ring_bcast:
        LDRING  AR0
        LDI     AR3, R1                 ; n
        RETSLE
        LDI     *+AR0(NODE_COUNT_OFS), R2
        LDI     *+AR0(NODE_ID_OFS), R3
        CMPI    1, R2
        RETSLE
        CMPI    AR4, R3
        BNE     bc_recv
        SEND                            ; the root writes
        RETS
bc_recv:
        ADDI    1, R3                   ; downstream node
        CMPI    R2, R3
        LDIEQ   0, R3
        LDI     R1, R2
        CMPI    AR4, R3                 ; downstream is the root:
        LDIEQ   0, R2                   ;   do not forward
        RECV
        RETS

* ---------------------------------------------------------------------------
* _ring_allgather(x AR2, off AR3)
*
* Node j reads lap 1 (x[0 .. off[j]), forwarded; node N-1 keeps slice 0 to
* itself), writes x[off[j] .. off[j+1]), reads lap 2 (x[off[j+1] .. V),
* slice j+1 not forwarded).
*
* The fast path (the node's slice at least 4 words, its lap 1 none or at
* least 2; for node N-1 slice 0 at least 2): all counts are computed and
* the slice's first three words loaded into registers (R3, R2, BK) before
* the first ring access.  Lap 1 ends with its last word in R0, not stored;
* WRITEOWN writes the first two words, starts the RPTS that writes the rest
* (its first pass the third word, from a register), and stores R0 only
* afterwards: no access to x at the switch, so x in SRAM costs no more
* there.  Where a node switches from reading to writing the stream pauses
* for that RPTS's set-up, about 4 cycles, the cost per node with the two
* hops.  The second segment of a lap is set up between two slices, where
* the stream pauses anyway (a node further on switching), and its loop
* stores the previous segment's last word in its first pass, so it needs
* no extra read before its RPTS.  Other slice tables take ag_small below.
* ---------------------------------------------------------------------------
_ring_allgather:
        LDRING  AR0
        LDI     0, R0
        LDI     *+AR0(NODE_ID_OFS), R3          ; j
        LDI     *+AR0(NODE_COUNT_OFS), R2       ; N
        ADDI3   R3, AR3, AR1            ; AR1 -> off[j]
        ADDI3   R2, AR3, AR5            ; AR5 -> off[N] = V
        LDI     *AR1, R0                ; c = off[j]: the words of lap 1
        LDI     *+AR1(1), R1
        SUBI    R0, R1                  ; sj
        SUBI    4, R1
        BLTD    ag_small                ; fast path: sj >= 4
        ADDI3   R0, AR2, AR4            ; AR4 -> own slice
        LDI     R1, AR6                 ; AR6 = sj - 4: RPTS count of the write
        SUBI    1, R2                   ; R2 = N - 1
        CMPI    R2, R3
        BEQD    ag_flast                ; node N-1 (or the only node)
        LDI     R3, R1                  ; R1 = j
        LDI     *AR4++, R3              ; own[0]
        LDI     *AR4++, R2              ; own[1]
        LDI     *AR4++, BK              ; own[2]
        CMPI    0, R0
        BEQD    ag_f0                   ; nothing before this slice (node 0)
        LDI     R0, IR0                 ; IR0 = c
        LDI     R0, R1
        SUBI    2, R1                   ; R1 = c - 2
* lap 1 of nodes 1 .. N-2: c = off[j] words, all forwarded
        BLT     ag_small                ; fast path: c >= 2
        STI     IR0, *+AR0(RING_FWD_OFS)
        LDI     *AR0, R0
        RPTS    R1
        LDI     *AR0, R0
||      STI     R0, *AR2++
* write the own slice: R0 = the last word of lap 1, not stored yet
ag_fw:  WRITEOWN
* lap 2: p = s(j+1) words kept, then f = V - off[j+2] forwarded.  Its loops
* run one pass more than they read words: the first pass stores R0 = the
* last own word again at x[off[j+1] - 1], where it is already, so that no
* read precedes the RPTS, which is set up before the first word arrives.
        LDI     R3, R0
        LDI     *+AR1(2), R1            ; off[j+2]
        LDI     *AR5, R2
        SUBI    R1, R2                  ; R2 = f
        SUBI    *+AR1(1), R1
        SUBI    1, R1                   ; R1 = p - 1
        BLTD    ag_l2f                  ; p = 0
        NOP     *AR4--                  ; AR4 -> x[off[j+1] - 1]
        LDI     R2, R3
        SUBI    1, R3                   ; R3 = f - 1 (the flags of ag_l2p, ag_l2f)
        BLTD    ag_l2p                  ; f = 0
        NOP
        NOP
        NOP
ag_l2k: RPTS    R1                      ; p kept,
        LDI     *AR0, R0
||      STI     R0, *AR4++
        STI     R2, *+AR0(RING_FWD_OFS) ; then f forwarded
        RPTS    R3
        LDI     *AR0, R0
||      STI     R0, *AR4++
        STI     R0, *AR4
        RETS
ag_l2p: RPTS    R1                      ; p kept, nothing forwarded
        LDI     *AR0, R0
||      STI     R0, *AR4++
        STI     R0, *AR4
        RETS
ag_l2f: RETSLT                          ; nothing kept; f forwarded if any
        STI     R2, *+AR0(RING_FWD_OFS)
        RPTS    R3
        LDI     *AR0, R0
||      STI     R0, *AR4++
        STI     R0, *AR4
        RETS
* no lap 1 (node 0, or every slice before this one empty): write at once
ag_f0:  BRD     ag_fw+2
        STI     R3, *AR0
        STI     R2, *AR0
        LDI     R3, R0                  ; R0 = own[0] and AR2 -> it: WRITEOWN's
                                        ; store of lap 1's last word rewrites it
* node N-1: lap 1 keeps slice 0 (s0 >= 2), forwards slices 1 .. N-2, then
* writes its slice; no lap 2
ag_flast:
        CMPI    0, R1
        RETSEQ                          ; one node: nothing to do
        LDI     *+AR3(1), R1            ; s0
        SUBI3   R1, R0, IR0             ; f1 = off[N-1] - s0
        SUBI    2, R1
        BLT     ag_small                ; fast path: s0 >= 2
        LDI     *AR4++, BK              ; own[2]
        LDI     IR0, AR5
        SUBI    1, AR5                  ; f1 - 1
        CMPI    0, AR5
        BLTD    ag_fl2                  ; N = 2: nothing to forward
        LDI     *AR0, R0
        NOP
        NOP
        RPTS    R1
        LDI     *AR0, R0
||      STI     R0, *AR2++
        STI     IR0, *+AR0(RING_FWD_OFS)
        RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
        WRITEOWN
        RETS
ag_fl2: RPTS    R1
        LDI     *AR0, R0
||      STI     R0, *AR2++
        WRITEOWN
        RETS

* ---------------------------------------------------------------------------
* ag_small: the path of the other slice tables (small slices)
*
* Every slice table takes one path, with one exception below.  All counts
* are computed, the node's first own words loaded into registers and the
* code that follows lap 1 chosen from a table (by the slice's length: 0, 1,
* 2, 3, or more words) before the node's first ring access.  Lap 1's first
* read sits in the last slot of the delayed branch into that code, so from
* then on the node runs straight on:
*   lap 1 (c >= 2 words): an RPTS of LDI *ring || STI *x++, which ends with
*       the last word in R0, not yet stored;
*   own slice: its first words from registers (R1, R3, BK), and for 4 words
*       or more an RPTS of LDI *own++ || STI *ring: where a node switches
*       from reading to writing, the stream pauses for that RPTS's set-up
*       (4 cycles), and not at all for slices of 1 to 3 words; then the last
*       word of lap 1 is stored.  No instruction near the switch touches x,
*       so x in SRAM costs nothing more (the code's fetches from SRAM have
*       the bus to themselves);
*   lap 2 (slice j+1 kept, the rest forwarded): set up while the slices go
*       round the ring; its loop stores the previous segment's last word in
*       its first pass, so that no read precedes its RPTS.
* Node N-1 first keeps slice 0 (not forwarded), then forwards slices 1 ..
* N-2: the second segment is set up at the slice boundary.  The exception:
* a node before N-1 with no word before its slice's end (off[j+1] = 0)
* takes the general path (nothing to read before writing nothing).
* ---------------------------------------------------------------------------

* STUB k, cc: load the first min(s, 3) own words (k = min(s, 4): own[0] in
* R1, own[1] in R3, own[2] in BK; AR4 -> own[2]) and go on, with lap 1's
* first read in the last slot of the branch: cc = 0, 1, 2: nodes 0 .. N-2
* whose lap 1 has 0, 1, or 2 and more words, into the tail; cc = 3: node
* N-1, into its slice 0 (ag_keep).
STUB    .macro  k, cc
        .if     k >= 1
        LDI     *AR4++, R1              ; own[0]
        .endif
        .if     k >= 2
        LDI     *AR4++, R3              ; own[1]; AR4 -> own[2]
        .endif
        .if     k == 3
        LDI     *AR4, BK                ; own[2]
        .endif
        .if     cc == 3
        BRD     ag_keep
        SUBI    2, AR1                  ; s0 - 2
        LDI     AR1, R0
        NOP
        .elseif cc == 2
        BRD     ag_r:k:
        NOP
        NOP
        LDI     *AR0, R0                ; lap 1, its first word
        .elseif cc == 1
        BRD     ag_w:k:
        NOP
        NOP
        LDI     *AR0, R0                ; lap 1, its only word
        .else
        BRD     ag_w:k:
        LDI     R1, R0                  ; no lap 1: R0 = own[0], AR2 -> it (the
        NOP                             ; tail's store of lap 1's last word
        NOP                             ; writes own[0] again)
        .endif
        .endm

ag_small:
        LDI     RINGIO_PAGE, AR0
        LSH     16, AR0                 ; AR0 = RINGIO_BASE
        PUSH    DP
        LDP     ag_tabp
        LDI     *+AR0(NODE_COUNT_OFS), R1
        LDI     *+AR0(NODE_ID_OFS), R3  ; j
        LDI     @ag_tabp, AR5           ; AR5 -> the tables (tails, then stubs)
        POP     DP
        SUBI    1, R1                   ; R1 = N - 1
        BLED    ag_ret                  ; one node: nothing to do
        ADDI3   R3, AR3, AR1            ; AR1 -> off[j]
        SUBI3   R3, R1, IR0             ; IR0 = N - 1 - j: 0 on the last node
        NOP
        LDI     *AR1, R0                ; c = off[j]: the words before the slice
        LDI     *+AR1(1), R3            ; off[j+1]
        ADDI3   R0, AR2, AR4            ; AR4 -> own slice
        ADDI3   R3, AR2, IR1            ; IR1 -> x[off[j+1]]: lap 2 (ag_l2)
        SUBI3   R0, R3, AR6             ; AR6 = s, the slice's length
        SUBI    R0, R3                  ; R3 = s
        LDI     IR0, R1
        BZD     ag_last
        CMPI    4, R3
        LDIGT   4, R3                   ; k = min(s, 4)
        MPYI    3, R3
* nodes 0 .. N-2: lap 1 = c words, all forwarded
        LDI     0, R1
ag_fwd1:
        CMPI    1, R0
        LDIEQ   1, R1
        LDIGT   2, R1                   ; cc: lap 1 of 0, 1, 2 and more words
        ADDI    R1, R3
        ADDI3   R3, AR5, AR3            ; AR3 -> the stub's entry (3k + cc)
        LDI     R0, AR5
        SUBI    2, AR5                  ; AR5 = c - 2: lap 1's RPTS count
        SUBI    3, AR6                  ; AR6 = s - 3: the write loop's RPTS count
        LDI     *+AR3(10), R1           ; the stub
        BUD     R1
        STI     R0, *+AR0(RING_FWD_OFS) ; lap 1: c words, all forwarded
        NOP
        NOP
ag_st00: LDI    *+AR0(NODE_ID_OFS), R3  ; nothing before the slice's end, no slice:
        BRD     ag_general              ; the general path, with AR3 -> off again
        SUBI3   R3, AR1, AR3
        NOP
        NOP
ag_st01: STUB   0, 1
ag_st02: STUB   0, 2
ag_st10: STUB   1, 0
ag_st11: STUB   1, 1
ag_st12: STUB   1, 2
ag_st20: STUB   2, 0
ag_st21: STUB   2, 1
ag_st22: STUB   2, 2
ag_st30: STUB   3, 0
ag_st31: STUB   3, 1
ag_st32: STUB   3, 2
ag_st40: STUB   4, 0
ag_st41: STUB   4, 1
ag_st42: STUB   4, 2
ag_st03: STUB   0, 3
ag_st13: STUB   1, 3
ag_st23: STUB   2, 3
ag_st33: STUB   3, 3
ag_st43: STUB   4, 3

* node N-1: lap 1 = slice 0 kept, then slices 1 .. N-2 forwarded; no lap 2
* (R0 = c, AR6 = s, AR3 -> off, AR4 -> own slice, IR0 = 0)
ag_last:
        LDI     AR6, R3
        CMPI    4, R3
        LDIGT   4, R3                   ; k = min(s, 4)
        LDI     *+AR3(1), R1            ; s0
        BZD     ag_s0e                  ; slice 0 empty: lap 1 as on the other nodes
        SUBI3   R1, R0, R2              ; R2 = f1 = c - s0: forwarded after slice 0
        STI     IR0, *+AR0(RING_FWD_OFS) ; slice 0: kept (IR0 = 0)
        SUBI    3, AR6                  ; AR6 = s - 3
        LDI     R1, AR1                 ; AR1 = s0
        ADDI    R3, AR5                 ; AR5 -> ag_tab + k
        LDI     *AR5, AR3               ; the tail: without an RPTS (f1 = 0),
        CMPI    0, R2
        LDIGT   *+AR5(5), AR3           ;   with one (f1 >= 1)
        LDI     *+AR5(25), R1           ; the stub that loads the own words
        BUD     R1
        LDI     R2, AR5
        SUBI    1, AR5                  ; AR5 = f1 - 1: f1 passes, the first stores
        NOP                             ;   slice 0's last word
ag_s0e: ADDI    3, AR6                  ; (AR6 = s again)
        BRD     ag_fwd1
        MPYI    3, R3
        LDI     0, R1
        NOP

ag_keep:                                ; (from the stub: AR1 = s0 - 2, flags of it)
        BLTD    ag_k2                   ; s0 = 1
        NOP
        NOP
        LDI     *AR0, R0                ; slice 0, its first word
        RPTS    AR1
        LDI     *AR0, R0
||      STI     R0, *AR2++
        BUD     AR3
        STI     R2, *+AR0(RING_FWD_OFS) ; slices 1 .. N-2: forwarded
        NOP
        NOP
ag_k2:  BUD     AR3
        STI     R2, *+AR0(RING_FWD_OFS)
        NOP
        NOP
ag_ret: RETS

* The tails: ag_rK (lap 1's RPTS, then ag_wK) and ag_wK (the own slice of
* K words, 4: 4 or more), entered with lap 1's last word in R0 (not stored)
* and AR2 -> its place; then lap 2 with R0 = x[off[j+1] - 1].
ag_r0:  RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
ag_w0:  BRD     ag_l2                   ; no own slice
        STI     R0, *AR2
        NOP
        NOP
ag_r1:  RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
ag_w1:  STI     R1, *AR0                ; own[0]
        BRD     ag_l2
        STI     R0, *AR2                ; lap 1's last word
        LDI     R1, R0
        NOP
ag_r2:  RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
ag_w2:  STI     R1, *AR0
        STI     R3, *AR0
        BRD     ag_l2
        STI     R0, *AR2
        LDI     R3, R0
        NOP
ag_r3:  RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
ag_w3:  STI     R1, *AR0
        STI     R3, *AR0
        STI     BK, *AR0
        BRD     ag_l2
        STI     R0, *AR2
        LDI     BK, R0
        NOP
ag_r4:  RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR2++
ag_w4:  STI     R1, *AR0                ; own[0]
        RPTS    AR6                     ; own[1] .. own[s-2]
        LDI     *AR4++, R3
||      STI     R3, *AR0
        STI     R3, *AR0                ; own[s-1]
        STI     R0, *AR2
        LDI     R3, R0
* lap 2: p = s(j+1) words kept, then f = V - off[j+2] forwarded.  Its loops
* run one pass more than they read words: the first pass stores R0 again at
* x[off[j+1] - 1], where it already is, so that no read precedes the RPTS,
* which is set up before the first word arrives.
ag_l2:  LDI     IR0, R1
        RETSZ                           ; node N-1: no lap 2
        LDI     IR1, AR4
        ADDI3   IR0, AR1, AR3           ; AR3 -> off[N-1]
        NOP     *AR4--                  ; AR4 -> x[off[j+1] - 1]
        LDI     *+AR3(1), R2            ; V
        SUBI    *+AR1(2), R2            ; R2 = f = V - off[j+2]
        LDI     *+AR1(2), R1
        SUBI    *+AR1(1), R1
        SUBI    1, R1                   ; R1 = p - 1
        BLTD    ag_l2f                  ; p = 0
        LDI     R2, R3
        SUBI    1, R3                   ; R3 = f - 1 (the flags of ag_l2p, ag_l2f)
        NOP
        BLTD    ag_l2p                  ; f = 0
        NOP
        NOP
        NOP
        BRD     ag_l2k                  ; the fast path's loops
        NOP
        NOP
        NOP

* the general path: any slice table, segment by segment
ag_general:
        LDI     *+AR0(NODE_ID_OFS), R3
        LDI     *+AR0(NODE_COUNT_OFS), R2
        CMPI    1, R2
        RETSLE                          ; one node: nothing to do
        LDI     AR3, AR1
        ADDI    R3, AR1                 ; AR1 -> off[j]
        LDI     *+AR3(1), R0            ; s0 = off[1]
        LDI     *AR1, R1                ; off[j]
        LDI     *+AR1(1), AR6           ; off[j+1]
        SUBI    R1, AR6                 ; AR6 = sj: words to write
        SUBI    1, R2
        CMPI    R2, R3
        BEQ     gn_last
        LDI     0, AR4                  ; lap 1: nothing kept,
        LDI     R1, AR5                 ;        off[j] forwarded
        LDI     *+AR1(2), R0            ; off[j+2]
        LDI     *+AR1(1), R1
        SUBI3   R1, R0, IR0             ; lap 2: s(j+1) kept,
        LDI     AR3, AR1
        ADDI    R2, AR1
        LDI     *+AR1(1), IR1           ;   V - off[j+2] forwarded
        SUBI    R0, IR1
        BR      gn_go
gn_last:                                ; node N-1
        LDI     R0, AR4                 ; lap 1: slice 0 kept,
        SUBI3   R0, R1, AR5             ;        slices 1..N-2 forwarded
        LDI     0, IR0                  ; no lap 2
        LDI     0, IR1
gn_go:  LDI     AR4, R1                 ; lap 1, kept
        LDI     0, R2
        RECV
        LDI     AR5, R1                 ; lap 1, forwarded
        LDI     AR5, R2
        RECV
        LDI     AR6, R1                 ; own slice
        SEND
        LDI     IR0, R1                 ; lap 2, kept
        LDI     0, R2
        RECV
        LDI     IR1, R1                 ; lap 2, forwarded
        LDI     IR1, R2
        RECV
        RETS

* ---------------------------------------------------------------------------
* _ring_reduce_scatter(x AR2, off AR3)
*
* Node j, in order (node 0 has no lap 1; node N-1 no lap 2):
*   lap 1a  slice N-1 (x + off[N-1]): add and pass on; node N-1 keeps it
*   lap 1b  slices 0 .. j-2 (x[0 .. off[j-1])): add and pass on
*   inject  slice j-1 (x[off[j-1] .. off[j])): its own values
*   lap 2a  slice j (x[off[j] .. off[j+1])): add and keep: the result
*   lap 2b  slices j+1 .. N-2 (x[off[j+1] .. off[N-1])): add and pass on
*
* The fast path (its own slice, the slice it injects and slice N-1 at least
* 1 word each; laps 1b and 2b of any length; those three tested first):
* every count is computed and the code chosen before the first ring
* access; from then on the node runs straight on, each segment set up by
* its repeat alone (and an LDI to RC for an RPTB), with no branch and no
* count computed between segments.  Laps 1b and inject run on one pointer,
* 2a and 2b on another, slice N-1 on a third.  Every word still costs a
* ring read and a ring write at every node (2 cycles: the expansion bus
* serves one access per cycle, docs/machine-model.md 4), so the gain is in
* the cost per node.  Other slice tables take rs_general: the same words
* on the ring in the same order, so nodes on either path work together.
* ---------------------------------------------------------------------------

* RSEMIT p, c: c + 1 words: read a partial sum from the ring, add *p++,
* write the sum on
RSEMIT  .macro  p, c
        LDI     :c:, RC
        RPTB    e1?
        ADDF3   *AR0, *:p:++, R0
e1?:    STF     R0, *AR0
        .endm

* RSKEEP p, c: c + 1 words: read a partial sum, add *p, store it in *p++
RSKEEP  .macro  p, c
        LDI     :c:, RC
        RPTB    k1?
        ADDF3   *AR0, *:p:, R0
k1?:    STF     R0, *:p:++
        .endm

* RSINJECT p, c: c + 1 words from *p++ onto the ring (1 cycle/word); reads
* the word after them too (the caller's own slice: in x)
RSINJECT .macro p, c
        LDF     *:p:++, R0
        RPTS    :c:
        LDF     *:p:++, R0
||      STF     R0, *AR0
        .endm

* RSINJECT2 p, c: c + 2 words from *p++ onto the ring, no word read beyond
* (RSINJECT's last load is the last word, written after it)
RSINJECT2 .macro p, c
        RSINJECT :p:, :c:
        STF     R0, *AR0
        .endm

* RSINJECT1 p: one word from *p++ onto the ring
RSINJECT1 .macro p
        LDF     *:p:++, R0
        STF     R0, *AR0
        .endm

_ring_reduce_scatter:
        LDRING  AR0
        LDI     AR3, AR1
        LDI     *+AR0(NODE_COUNT_OFS), R2       ; N
        ADDI    R2, AR1                 ; AR1 -> off[N]
        LDI     *+AR0(NODE_ID_OFS), R3          ; j
        CMPI    1, R2
        RETSLE                          ; one node: nothing to do
* the tests of the fast path first, so that other tables lose little time:
* s(N-1) >= 1 (the same on every node), s(j) >= 1 and, on nodes 1 .. N-1,
* s(j-1) >= 1
        LDI     *AR1, R0
        SUBI    *-AR1(1), R0            ; R0 = s(N-1)
        BLED    rs_gen
        ADDI3   R3, AR3, AR6            ; AR6 -> off[j]
        LDI     R0, AR5                 ; AR5 = s(N-1)
        LDI     *-AR1(1), BK            ; BK = off[N-1]
        LDI     *+AR6(1), R1
        SUBI    *AR6, R1                ; s(j)
        BLED    rs_gen
        LDI     *AR6, R1                ; off[j]
        ADDI3   BK, AR2, AR4            ; AR4 -> slice N-1
        CMPI    0, R3
        BEQ     rs_f0                   ; node 0
        SUBI    *-AR6(1), R1            ; s(j-1): injected
        BLED    rs_gen
        LDI     R1, IR0
        SUBI    1, IR0                  ; IR0 = s(j-1) - 1: injected
        LDI     *+AR6(1), R1            ; off[j+1]
        LDI     BK, R0
        SUBI    R1, R0                  ; off[N-1] - off[j+1]
* nodes 1 .. N-1: the counts, then the code by node and laps
        SUBI    1, R0
        LDI     R0, BK                  ; BK = lap 2b - 1
        LDI     *AR6, R0                ; off[j]
        SUBI3   R0, R1, R1              ; s(j)
        SUBI    1, R1
        LDI     R1, IR1                 ; IR1 = s(j) - 1: kept
        ADDI3   R0, AR2, AR3            ; AR3 -> slice j
        LDI     AR5, R1
        SUBI    1, R1
        LDI     R1, AR5                 ; AR5 = s(N-1) - 1: lap 1a
        LDI     *-AR6(1), R0            ; off[j-1]
        SUBI    1, R2                   ; R2 = N - 1
        CMPI    R2, R3
        BEQD    rs_last                 ; node N-1
        SUBI    1, R0                   ; (the flags of lap 1b)
        LDI     R0, AR6                 ; AR6 = off[j-1] - 1: lap 1b
        NOP
        BLTD    rs_m0x                  ; no lap 1b
        LDI     BK, R1                  ; (the flags of lap 2b)
        NOP
        NOP
        BLT     rs_m10                  ; no lap 2b
        RSEMIT  AR4, AR5                ; lap 1a
        RSEMIT  AR2, AR6                ; lap 1b
        RSINJECT AR2, IR0               ; slice j-1
        RSKEEP  AR3, IR1                ; lap 2a: the result
        RSEMIT  AR3, BK                 ; lap 2b
        RETS
rs_m10: RSEMIT  AR4, AR5
        RSEMIT  AR2, AR6
        RSINJECT AR2, IR0
        RSKEEP  AR3, IR1
        RETS
rs_m0x: BLT     rs_m00
        RSEMIT  AR4, AR5
        RSINJECT AR2, IR0
        RSKEEP  AR3, IR1
        RSEMIT  AR3, BK
        RETS
rs_m00: RSEMIT  AR4, AR5
        RSINJECT AR2, IR0
        RSKEEP  AR3, IR1
        RETS
* node N-1: keep slice N-1, pass slices 0 .. N-3 on, inject slice N-2
rs_last:
        BLT     rs_l0                   ; no lap 1b
        RSKEEP  AR4, IR1
        RSEMIT  AR2, AR6
        RSINJECT AR2, IR0
        RETS
rs_l0:  RSKEEP  AR4, IR1
        RSINJECT AR2, IR0
        RETS
* node 0: inject slice N-1, keep slice 0, pass slices 1 .. N-2 on (R1 = off[0])
rs_f0:  LDI     *+AR6(1), R1            ; off[1] = s(0)
        SUBI3   R1, BK, R0
        SUBI    1, R0
        LDI     R0, BK                  ; BK = off[N-1] - off[1] - 1: lap 2b
        SUBI    1, R1
        LDI     R1, IR1                 ; IR1 = s(0) - 1: kept
        LDI     AR5, R1
        SUBI    2, R1
        BLTD    rs_f0i1                 ; one word injected
        LDI     R1, AR5                 ; AR5 = s(N-1) - 2
        LDI     BK, R1                  ; (the flags of lap 2b)
        NOP
        BLT     rs_f00                  ; nothing to pass on
        RSINJECT2 AR4, AR5
        RSKEEP  AR2, IR1
        RSEMIT  AR2, BK
        RETS
rs_f00: RSINJECT2 AR4, AR5
        RSKEEP  AR2, IR1
        RETS
rs_f0i1: BLT    rs_f0i10
        RSINJECT1 AR4
        RSKEEP  AR2, IR1
        RSEMIT  AR2, BK
        RETS
rs_f0i10: RSINJECT1 AR4
        RSKEEP  AR2, IR1
        RETS

rs_ret: RETS

* the general path: any slice table, segment by segment (AR2 = x, AR3 -> off)
rs_general:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R2       ; N
        LDI     *+AR0(NODE_ID_OFS), R3          ; j
        CMPI    1, R2
        RETSLE
rs_gen: LDI     AR3, AR1                ; (from the tests: R2 = N, R3 = j)
        ADDI    R2, AR1                 ; AR1 -> off[N]
        LDI     *-AR1(1), R0            ; off[N-1]
        LDI     AR2, AR4
        ADDI    R0, AR4                 ; AR4 -> slice N-1
        LDI     *AR1, AR5
        SUBI    R0, AR5                 ; AR5 = s(N-1)
        LDI     R0, BK                  ; BK = off[N-1]
        LDI     AR3, AR1
        ADDI    R3, AR1                 ; AR1 -> off[j]
        LDI     AR2, IR0                ; IR0 = x
        SUBI    1, R2                   ; R2 = N - 1
        LDI     AR4, AR2                ; AR2 -> slice N-1
        LDI     AR5, R1                 ; R1 = its length
        CMPI    0, R3
        BNE     rs_lap1
* node 0: inject slice N-1, keep slice 0, pass slices 1..N-2
        SEND
        LDI     IR0, AR2
        BR      rs_lap2
rs_lap1:                                ; lap 1a: slice N-1
        CMPI    R2, R3
        BEQ     rs_keep
        ADDEMIT
        BR      rs_1b
rs_keep:
        ADDKEEP                         ; node N-1: slice N-1 is complete
rs_1b:  LDI     IR0, AR2                ; lap 1b: x[0 .. off[j-1])
        LDI     *-AR1(1), R1
        ADDEMIT
        LDI     *AR1, R1                ; inject x[off[j-1] .. off[j])
        SUBI    *-AR1(1), R1
        SEND
        CMPI    R2, R3
        RETSEQ                          ; node N-1: no lap 2
rs_lap2:
        LDI     *+AR1(1), R1            ; lap 2a: slice j, kept
        SUBI    *AR1, R1
        ADDKEEP
        LDI     BK, R1                  ; lap 2b: x[off[j+1] .. off[N-1])
        SUBI    *+AR1(1), R1
        ADDEMIT
        RETS

* ---------------------------------------------------------------------------
* _ring_rs_mxout(e AR2, off AR3, W AR4, d AR5, x AR6, rows IR0, eta R2):
* the reduce-scatter of e (as _ring_reduce_scatter(e, off)) during the
* weight update W += eta d x^T of `rows` rows of V = off[N] columns (as
* _mxout(W, d, x, rows, V, eta)): `overlap on` (docs/compiler.md,
* "Overlapped collectives").  The results are those of the two calls, bit
* for bit: the same arithmetic on every weight, the same chain of additions
* for e.
*
* Row 0's weights go one by one beside the words the node adds and passes
* on or injects, three instructions for a word and a weight where the two
* calls take four (2 cycles a weight, 2 a word): the ring is on the
* expansion bus, W on the primary, so a ring access rides in the parallel
* slot of the update's instructions:
*     ADDF3 *ring, *e++, R2                    the passing partial sum + e
*     MPYF3 *x++, R3, R0 || STF R1, *Ww++      s x[k]; W[k-1] stored
*     ADDF3 *W++, R0, R1 || STF R2, *ring      W[k] + s x[k]; the sum on
* (an injected word: LDF *e++, R2 first).  The words the node keeps (its
* slice: read, add, store in e) go alone, 2 cycles each as in the
* reduce-scatter: with the weight's two accesses they would be four on the
* primary bus when e is in external memory.  Weight 0 is updated before the
* loops, the weights left over after them (as many as the node's slice
* less one) after them, then rows 1 .. rows-1 as in _mxout.  Each node runs
* its segments of the reduce-scatter in the order of _ring_reduce_scatter's
* fast path (on its conditions); on other tables, or a node without rows,
* the node makes the two calls (the ring sees the same words in the same
* order, so nodes on either path work together).  Changes what the two
* calls change; R4-R7 are preserved.
* ---------------------------------------------------------------------------

* FSEG k, p, c: c + 1 words of the reduce-scatter (k = 0: add and pass on,
* k = 2: inject; e at *p) beside as many weights of row 0
FSEG    .macro  k, p, c
        LDI     :c:, RC
        RPTB    f1?
        .if     k == 0
        ADDF3   *AR0, *:p:++, R2
        .else
        LDF     *:p:++, R2
        .endif
        MPYF3   *AR5++, R3, R0
||      STF     R1, *AR4++
f1?:    ADDF3   *AR3++, R0, R1
||      STF     R2, *AR0
        .endm

* FPRO: s = eta d[0] in R3, the pointers (AR1 -> slice N-1 of e, AR3 -> W
* read, AR4 -> W written, AR5 -> x), weight 0 updated into R1
FPRO    .macro
        MPYF3   R2, *AR5, R3            ; s = eta d[0]
        ADDI3   BK, AR2, AR1            ; AR1 -> slice N-1 of e
        LDI     AR4, AR3
        LDI     AR6, AR5
        MPYF3   *AR5++, R3, R0          ; s x[0]
        ADDF3   *AR3++, R0, R1          ; W[0] + s x[0]
        .endm

_ring_rs_mxout:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R0       ; N
        LDI     IR0, R1
        BLED    _ring_reduce_scatter    ; no rows: the reduce-scatter alone
        CMPI    1, R0
        NOP
        NOP
        BLE     rm_two                  ; one node: the update alone
* the fast path's conditions: s(N-1) >= 1, s(j) >= 1, s(j-1) >= 1 (j >= 1)
        LDI     *+AR0(NODE_ID_OFS), R3          ; j
        ADDI3   R0, AR3, AR1            ; AR1 -> off[N]
        NOP
        LDI     *-AR1(1), BK            ; BK = off[N-1]
        LDI     *AR1, R1
        SUBI    BK, R1
        SUBI    1, R1                   ; s(N-1) - 1
        BLTD    rm_two
        LDI     R1, IR1                 ; IR1 = s(N-1) - 1: lap 1a
        ADDI3   R3, AR3, AR1            ; AR1 -> off[j]
        NOP
        LDI     *+AR1(1), R1
        SUBI    *AR1, R1                ; s(j)
        BLED    rm_two
        CMPI    0, R3
        NOP
        NOP
        BEQ     rm_go                   ; node 0: no slice before its own
        LDI     *AR1, R1
        SUBI    *-AR1(1), R1            ; s(j-1)
        BLE     rm_two
rm_go:  SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    AR5                     ; d, x, rows, V and eta: for rows 1 ..
        PUSH    AR6
        PUSH    IR0
        LDI     IR1, R4
        ADDI    1, R4
        ADDI    BK, R4
        PUSH    R4                      ; V = off[N-1] + s(N-1)
        SAVEX   R2
        LDI     *+AR1(1), R6            ; off[j+1]
        SUBI3   R6, BK, R7
        SUBI    1, R7                   ; R7 = off[N-1] - off[j+1] - 1: lap 2b
        SUBI    *AR1, R6
        SUBI    1, R6                   ; R6 = s(j) - 1: kept
        SUBI    1, R0                   ; R0 = N - 1
        CMPI    0, R3
        BEQ     rm_0                    ; node 0
        LDI     *-AR1(1), R4            ; off[j-1]
        LDI     *AR1, R5
        SUBI    R4, R5
        SUBI    1, R5                   ; R5 = s(j-1) - 1: injected
        SUBI    1, R4                   ; R4 = off[j-1] - 1: lap 1b
        CMPI    R0, R3
        BEQ     rm_last                 ; node N-1
        CMPI    0, R4
        BLT     rm_m0x                  ; no lap 1b
        CMPI    0, R7
        BLT     rm_m10                  ; no lap 2b
        FPRO
        FSEG    0, AR1, IR1             ; lap 1a
        FSEG    0, AR2, R4              ; lap 1b
        FSEG    2, AR2, R5              ; slice j-1, injected
        RSKEEP  AR2, R6                 ; lap 2a, kept
        FSEG    0, AR2, R7              ; lap 2b
        BR      rm_tail
rm_m10: FPRO
        FSEG    0, AR1, IR1
        FSEG    0, AR2, R4
        FSEG    2, AR2, R5
        RSKEEP  AR2, R6
        BR      rm_tail
rm_m0x: CMPI    0, R7
        BLT     rm_m00
        FPRO
        FSEG    0, AR1, IR1
        FSEG    2, AR2, R5
        RSKEEP  AR2, R6
        FSEG    0, AR2, R7
        BR      rm_tail
rm_m00: FPRO
        FSEG    0, AR1, IR1
        FSEG    2, AR2, R5
        RSKEEP  AR2, R6
        BR      rm_tail
* node N-1: keeps slice N-1, passes slices 0 .. N-3 on, injects slice N-2
rm_last:
        CMPI    0, R4
        BLT     rm_l0
        FPRO
        RSKEEP  AR1, IR1
        FSEG    0, AR2, R4
        FSEG    2, AR2, R5
        BR      rm_tail
rm_l0:  FPRO
        RSKEEP  AR1, IR1
        FSEG    2, AR2, R5
        BR      rm_tail
* node 0: injects slice N-1, keeps slice 0, passes slices 1 .. N-2 on
rm_0:   CMPI    0, R7
        BLT     rm_00
        FPRO
        FSEG    2, AR1, IR1
        RSKEEP  AR2, R6
        FSEG    0, AR2, R7
        BR      rm_tail
rm_00:  FPRO
        FSEG    2, AR1, IR1
        RSKEEP  AR2, R6
* the weights of row 0 left over (s(j) - 1 of them), then rows 1 .. rows-1:
* _mxout(W + V, d + 1, x, rows - 1, V, eta)
rm_tail:
        LDI     R6, R0
        SUBI    1, R0
        BLT     rm_t1                   ; none left
        LDI     R0, RC
        RPTB    rm_t0
        MPYF3   *AR5++, R3, R0
||      STF     R1, *AR4++
rm_t0:  ADDF3   *AR3++, R0, R1
rm_t1:  STF     R1, *AR4                ; W[V-1]
        RESTX   R2                      ; eta
        POP     AR6                     ; V
        POP     R0                      ; rows
        POP     AR4                     ; x
        POP     R1                      ; d
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        LDI     AR3, AR2                ; W + V: row 1
        LDI     R1, AR3
        ADDI    1, AR3                  ; d + 1
        SUBI    1, R0
        LDI     R0, AR5                 ; rows - 1
        BR      _mxout
* the two calls: _mxout(W, d, x, rows, V, eta), then the reduce-scatter (R0 = N)
rm_two: ADDI3   R0, AR3, AR1            ; AR1 -> off[N]
        PUSH    AR2
        PUSH    AR3
        LDI     AR4, AR2                ; W
        LDI     AR5, AR3                ; d
        LDI     AR6, AR4                ; x
        LDI     IR0, AR5                ; rows
        LDI     *AR1, AR6               ; V
        CALL    _mxout
        POP     AR3
        POP     AR2
        BR      _ring_reduce_scatter

* ---------------------------------------------------------------------------
* _ring_allreduce(x AR2, off AR3): reduce-scatter, then all-gather
* ---------------------------------------------------------------------------
_ring_allreduce:
        PUSH    AR2
        PUSH    AR3
        CALL    _ring_reduce_scatter
        POP     AR3
        POP     AR2
        BR      _ring_allgather

* ---------------------------------------------------------------------------
* _ring_split(off AR2, n AR3): off[k] = k q + min(k, r), k = 0..N, where
* n = q N + r, 0 <= r < N: N + 1 words.
* ---------------------------------------------------------------------------
_ring_split:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R2       ; N
        LDI     AR3, R0                 ; n (0 <= n < 2^24)
        LDI     R2, R1
        LSH     23, R1                  ; N << 23
        RPTS    23                      ; 24 steps of restoring division:
        SUBC    R1, R0                  ; q in bits 23-0, r above
        LDI     R0, R1
        LSH     -24, R1                 ; R1 = r
        LDI     R0, R3
        LSH     8, R3
        LSH     -8, R3                  ; R3 = q
        LDI     0, R0
        STI     R0, *AR2++              ; off[0] = 0
        SUBI    1, R2
        LDI     R2, RC                  ; N passes
        RPTB    sp_end
        ADDI    R3, R0                  ; + q
        LDI     0, R2
        CMPI    0, R1
        LDIGT   1, R2                   ; + 1 for the first r slices
        ADDI    R2, R0
        SUBI    R2, R1
sp_end: STI     R0, *AR2++
        RETS

* ---------------------------------------------------------------------------
* _ring_sumf(v R2) -> R0, _ring_maxf(v R2) -> R0: the sum (in node order,
* ((v0 + v1) + v2) + ...) or the maximum of one float from every node; the
* same bits on every node.  Change only R0-R3, AR0 and the flags.
* ---------------------------------------------------------------------------
SCALAR  .macro                          ; R1 = N - 1, R3 = j; one node: return v
        LDRING  AR0
        LDF     R2, R0
        LDI     *+AR0(NODE_COUNT_OFS), R1
        SUBI    1, R1
        RETSLE
        LDI     *+AR0(NODE_ID_OFS), R3
        .endm

* SCALEND: R0 = the result of nodes 0 .. j: on to node j+1; then the total
SCALEND .macro
        STF     R0, *AR0                ; on to node j+1 (node N-1: the total, to node 0)
        PUSHF   R0
        POPF    R0                      ; R0 = the single sent: the bits all nodes get
        CMPI    R1, R3
        RETSEQ                          ; node N-1 has the result
        SUBI    1, R1
        LDI     1, R2
        CMPI    R1, R3
        LDIEQ   0, R2                   ; node N-2 does not forward it: node N-1 has it
        STI     R2, *+AR0(RING_FWD_OFS)
        LDF     *AR0, R0                ; the result, from node N-1
        RETS
        .endm

_ring_maxf:
        SCALAR
        BZ      rmx_send                ; node 0: its own value
        LDF     *AR0, R0                ; the maximum of nodes 0 .. j-1,
        CMPF    R2, R0
        LDFLT   R2, R0                  ;   and this node's
rmx_send:
        SCALEND
_ring_sumf:
        SCALAR
        BZ      rsm_send
        ADDF3   *AR0, R2, R0            ; the sum of nodes 0 .. j-1, plus v
rsm_send:
        SCALEND

        .data
ag_tabp: .word  ag_tab
ag_tab: .word   ag_w0, ag_w1, ag_w2, ag_w3, ag_w4
        .word   ag_r0, ag_r1, ag_r2, ag_r3, ag_r4
        .word   ag_st00, ag_st01, ag_st02, ag_st10, ag_st11, ag_st12, ag_st20, ag_st21
        .word   ag_st22, ag_st30, ag_st31, ag_st32, ag_st40, ag_st41, ag_st42
        .word   ag_st03, ag_st13, ag_st23, ag_st33, ag_st43

