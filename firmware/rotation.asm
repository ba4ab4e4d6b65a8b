* rotation.asm -- the all-gather and the reduce-scatter as rotations of a
* full ring (docs/firmware.md section 10, "Rotations").
*
*   _ring_allgather_rot(x, off, plan)  the words of _ring_allgather(x, off)
*   _ring_rs_rot(x, off, plan)     the sums of _ring_reduce_scatter(x, off),
*                                  bit for bit (the same additions in the
*                                  same order)
*
* plan is the table rapsim.firmware.rotation.allgather_plan(off) (rs_plan)
* makes from the slice table off, identical on every node; its layout is
* given there.  off itself is not read: it names the slices (the cost model,
* rap plan, reads V and the largest slice from it).  In phase k (k = 0 .. longest slice - 1) every node writes
* one word -- word k of its own slice (all-gather) or its part of word k of
* slice j-1 (reduce-scatter), a pad word where that slice is shorter --
* and reads N - 1: the words of nodes j-1, j-2, .. j+1, in that order.
* The ring then holds N words and every node reads one and writes one on,
* so it moves as a rotation, one hop a cycle (the all-gather forwards with
* RING_FWD, N - 2 words a phase: its write is the read) or a hop every two
* cycles (the reduce-scatter adds its part to every word and writes the sum
* on: a ring read and a ring write, SPRU031 9.2, one expansion-bus access a
* cycle).  The word of slice s starts at node s+1 and ends at node s, as in
* the chain, so every sum is added in the chain's order.
*
* Phases cost about N (2N) cycles and a set-up per segment, with no term
* per node: V + c V/N in all where the chain costs V + 6.5 N + 80 (2 V +
* c' V/N against 2 V + 13 N + 85): the cheaper one where slices are small
* (firmware/costs.py has both; the compiler chooses).

        .include "rap.inc"

        .global _ring_allgather_rot, _ring_rs_rot

* ENTER (IR0 = NODE_ID, AR2 = x, AR4 = plan): save R4-R7, R7 -> a word on
* the stack (where pads are stored), AR5 -> the node's record past its
* group count, AR3 = groups - 1, AR4 = x; the flags: groups == 0.
ENTER   .macro
        SAVEX   R4
        SAVEX   R5
        SAVEX   R6
        SAVEX   R7
        PUSH    R0
        LDI     SP, R7
        LDI     *+AR4(IR0), R1
        ADDI3   R1, AR4, AR5
        LDI     *AR5++, R1
        LDI     R1, AR3
        SUBI    1, AR3
        LDI     AR2, AR4
        .endm

* LEAVE: ENTER's stack undone, and return
LEAVE   .macro
        POP     R0
        RESTX   R7
        RESTX   R6
        RESTX   R5
        RESTX   R4
        RETS
        .endm

* --- the fast path of an even table (plan[N] = s: every slice s words, N >= 4)
* One address register, AR1, walks a phase's places with the strides
* IR0 = s (from node m's word to node m-1's: *AR1--(IR0), *--AR1(IR0)) and
* IR1 = (N-1) s (from node 0's to node N-1's: the wrap, *AR1++(IR1),
* *++AR1(IR1)), and comes back to the next phase's first place through its
* own last access (*++AR1(1)): no address register is written in a phase
* (no register conflict, SPRU031 "pipeline conflicts") and no plan is read.
* A phase is then the node's word, one RPTS (RPTB) a segment and the
* segment between them read by one instruction; the next phase's word is
* loaded and written in the delay slots of the DBD (SPRU031 3.7) that
* repeats the phases, the last phase unrolled (no read past x, no RING_FWD
* left armed).  A node's segments: all-gather, node j reads the words of
* nodes j-1 .. 0 (j, AR4 = j-1) and N-1 .. j+1 (N-1-j: one, then AR5 =
* N-3-j); reduce-scatter, slices j-2 .. 0 (AR4 = j-2) and N-1 .. j+1 (one,
* then AR5 = N-3-j), then its own.  Nodes 0, N-2 and N-1 (and 1 for the
* reduce-scatter) miss a segment: a variant each, chosen once.

* TOFAST target (IR1 = N, R2 = j): to target, the fast path, when plan[N]
* is a stride s, with R1 = s and AR3 = s - 2 (set in the delay slots);
* else on to the plan's path with IR0 = j
TOFAST  .macro  target
        LDI     *+AR4(IR1), R1
        BNZD    target
        LDI     R1, R0
        SUBI    2, R0
        LDI     R0, AR3
        LDI     R2, IR0
        .endm

* AGPH s1, s2: a phase's reads after the node's word, the segments present
* (s1: nodes j-1 .. 0; s2: 0 none, 1 node N-1 only, 2 N-1 .. j+1)
AGPH    .macro  s1, s2
        .if s1
        RPTS    AR4
        LDI     *AR0, R0
||      STI     R0, *AR1--(IR0)
        .endif
        .if s2
        LDI     *AR0, R0
||      STI     R0, *AR1++(IR1)
        .endif
        .if s2 == 2
        RPTS    AR5
        LDI     *AR0, R0
||      STI     R0, *AR1--(IR0)
        .endif
        .endm

* STLAST op, wrap: the phase's last word (all-gather: op = STI) or its
* complete sum (reduce-scatter: STF) stored; AR1 -> the node's word of the
* phase (wrap: past the wrap, to x[(N-1)s + k]: the all-gather's node N-1,
* the reduce-scatter's node 0)
STLAST  .macro  op, wrap
        .if wrap
        op      R0, *AR1++(IR1)
        .else
        op      R0, *AR1--(IR0)
        .endif
        .endm

* AGVAR s1, s2, wrap: the phases of one variant (R0 = the node's word 0,
* AR3 = phases - 2, R1 = phases)
AGVAR   .macro  s1, s2, wrap
        CMPI    1, R1
        BEQ     last?
loop?:  STI     R0, *AR0
        AGPH    s1, s2
        DBD     AR3, loop?
        STLAST  STI, wrap
        STI     R3, *+AR0(RING_FWD_OFS)
        LDI     *++AR1(1), R0           ; the node's next word
last?:  STI     R0, *AR0
        AGPH    s1, s2
        STLAST  STI, wrap
        RETS
        .endm

* RSSEG cnt: a segment, RC = cnt (words - 1): add the node's part to every
* word read and write the sum on (as ring.asm's ADDEMIT)
RSSEG   .macro  cnt
        LDI     cnt, RC
        RPTB    e?
        ADDF3   *AR0, *--AR1(IR0), R0
e?:     STF     R0, *AR0
        .endm

* RSPH s1, x, s2, fl: a phase's reads after the node's word (s1: slices
* j-2 .. 0; x: slice N-1; s2: N-2 .. j+1; fl: the node's own slice is
* N-1, past the wrap), the last sum left in R0
RSPH    .macro  s1, x, s2, fl
        .if s1
        RSSEG   AR4
        .endif
        .if x
        ADDF3   *AR0, *++AR1(IR1), R0
        STF     R0, *AR0
        .endif
        .if s2
        RSSEG   AR5
        .endif
        .if fl
        ADDF3   *AR0, *++AR1(IR1), R0
        .else
        ADDF3   *AR0, *--AR1(IR0), R0
        .endif
        .endm

* RSVAR s1, x, s2, fl, fs: the phases of one variant (the node's word 0
* already on the ring, AR3 = phases - 2, R1 = phases)
RSVAR   .macro  s1, x, s2, fl, fs
        CMPI    1, R1
        BEQ     last?
loop?:  RSPH    s1, x, s2, fl
        DBD     AR3, loop?
        STLAST  STF, fs
        LDF     *++AR1(1), R0           ; the node's part of the next word
        STF     R0, *AR0
last?:  RSPH    s1, x, s2, fl
        STLAST  STF, fs
        RETS
        .endm

        .text
* ---------------------------------------------------------------------------
* _ring_allgather_rot(x AR2, off AR3, plan AR4)
*
* A read word is stored one pass later (LDI *ring, R0 || STI R0, *AR1--(IR0):
* the store takes R0 before the load): R0 is the word not yet stored and
* AR1 its place.  A segment's first word is read by one instruction that
* stores the pending word, then AR1 is set to its place, and an RPTS reads
* the rest.  The first pad of a run is read the same way and left pending
* at a word on the stack, the others are read into R1.  A
* phase starts with the node's own word pending at its own place, or x[k]
* at x[k] when it has none: stored again with the value it has
* (docs/firmware.md 4).  The next segment's three words are loaded in the
* delay slots of the DBD that repeats the segment loop (SPRU031 3.7: a
* delayed branch runs the three instructions after it), so a segment of two
* words or more costs its RPTS set-up and about five cycles more, with no
* branch taken.
* ---------------------------------------------------------------------------
_ring_allgather_rot:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R3
        LDI     *+AR0(NODE_ID_OFS), R2  ; j
        LDI     R3, IR1
        SUBI    2, R3                   ; R3 = N - 2: the words forwarded a phase
        RETSLT                          ; one node: nothing to gather
        TOFAST  agu                     ; the fast path of an even table (below)
        ENTER
        BZ      agr_end
agr_grp:
        LDI     *AR5++, R2              ; phases of the group
        LDI     *AR5++, IR1             ; off[j], or 0: x[k] (no own word)
        LDI     *AR5++, R5
        LDI     AR5, BK                 ; the group's segments
        LDI     R5, R4
        ADDI    R5, R4
        ADDI    R5, R4
        ADDI    AR5, R4                 ; R4 -> the next group
        SUBI    1, R5                   ; segments - 1
        LDI     R5, AR6
agr_ph: STI     R3, *+AR0(RING_FWD_OFS)
        ADDI3   IR1, AR4, AR1
        LDI     *+AR4(IR1), R0          ; own word k pending at its place
        STI     R0, *AR0                ; the node's word (or a pad) on the ring
        LDI     *AR5++, R6              ; the first segment: place,
        LDI     *AR5++, R1              ;   words - 2 (flags: < 0 special),
        LDI     *AR5++, IR0             ;   stride
agr_seg:
        BLTD    agr_one
        LDI     *AR0, R0                ; the segment's first word;
||      STI     R0, *AR1                ;   the pending one stored
        ADDI3   R6, AR4, AR1            ; its place
        NOP
        RPTS    R1
        LDI     *AR0, R0
||      STI     R0, *AR1--(IR0)
agr_next:
        DBD     AR6, agr_seg
        LDI     *AR5++, R6
        LDI     *AR5++, R1
        LDI     *AR5++, IR0
agr_phend:
        STI     R0, *AR1                ; the phase's last word
        SUBI    1, R2
        BNZD    agr_ph
        ADDI    1, AR4
        LDI     BK, AR5
        LDI     R5, AR6
        DBD     AR3, agr_grp
        LDI     R4, AR5
        NOP
        NOP
agr_end:
        LEAVE
* one word (-1), or pads (-1 - c): the first one, read as a segment's first
* word, is pending at the word on the stack, and so are the others
agr_one:
        CMPI    -1, R1
        BEQD    agr_next
        NEGI    R1, R1
        SUBI    3, R1                   ; pads - 2
        NOP
        LDI     R7, AR1
        CMPI    0, R1
        BLT     agr_next
        RPTS    R1
        LDI     *AR0, R1                ; pads: read (and forwarded), not kept
        BR      agr_next

* the fast path of an even table (below the macros): R1 = s, R2 = j,
* R3 = N - 2, AR2 = x, AR3 = s - 2
agu:    LDI     R1, IR0                 ; the stride s
        MPYI3   R1, R2, R0
        ADDI3   R0, AR2, AR1            ; -> the node's word 0, x[j s]
        LDI     R3, R0
        ADDI    1, R0
        MPYI    R1, R0
        LDI     R0, IR1                 ; (N - 1) s: node 0's word to node N-1's
        LDI     R2, R0
        SUBI    1, R0
        LDI     R0, AR4                 ; j - 1
        SUBI3   R2, R3, R0
        SUBI    1, R0
        LDI     R0, AR5                 ; N - 3 - j
        STI     R3, *+AR0(RING_FWD_OFS)
        LDI     *AR1, R0                ; the node's word 0
        CMPI    0, R2
        BZ      agu_z
        CMPI    R3, R2
        BEQ     agu_y
        BGT     agu_l
        AGVAR   1, 2, 0                 ; nodes 1 .. N-3
agu_z:  AGVAR   0, 2, 0                 ; node 0
agu_y:  AGVAR   1, 1, 0                 ; node N-2
agu_l:  AGVAR   1, 0, 1                 ; node N-1

* ---------------------------------------------------------------------------
* _ring_rs_rot(x AR2, off AR3, plan AR4)
*
* Each word read is added to the node's part and written on in a 2-
* instruction RPTB (ADDF3 *ring, *AR1--(IR0), R0 ; STF R0, *ring), as the
* chain does (ring.asm ADDEMIT); pads are read and written on (the parallel
* store writes the previous pad: any word).  The last word of a phase is the
* node's own slice's: the sum is complete and kept (a pad goes to a word on
* the stack).  As in the all-gather, the next segment is loaded in the delay
* slots of the loop's DBD.
* ---------------------------------------------------------------------------
_ring_rs_rot:
        LDRING  AR0
        LDI     *+AR0(NODE_COUNT_OFS), R3
        LDI     *+AR0(NODE_ID_OFS), R2  ; j
        LDI     R3, IR1
        CMPI    2, R3
        RETSLT                          ; one node: the sum is its own
        TOFAST  rsu                     ; the fast path of an even table (below)
        ENTER
        LDI     *AR5++, IR1             ; off[j]
        BZ      rsr_end
rsr_grp:
        LDI     *AR5++, R2              ; phases of the group
        LDI     *AR5++, R4              ; off[j-1], or 0: x[k] as a pad
        LDI     *AR5++, R3              ; final: 1 kept, 0 a pad
        LDI     *AR5++, R5
        LDI     AR5, BK                 ; the group's segments
        LDI     R5, R0
        ADDI    R5, R0
        ADDI    R5, R0
        ADDI    AR5, R0
        PUSH    R0                      ; -> the next group
        SUBI    1, R5                   ; segments - 1
        LDI     R5, AR6
rsr_ph: ADDI3   R4, AR4, AR1
        LDF     *AR1, R0                ; the node's part of word k of slice j-1
        STF     R0, *AR0                ;   starts its sum (or a pad)
        CMPI    0, AR6
        BLT     rsr_fin                 ; two nodes: no word to pass on
        LDI     *AR5++, R6              ; the first segment: place,
        LDI     *AR5++, IR0             ;   stride,
        LDI     *AR5++, R1              ;   words (flags: <= 0 pads)
rsr_seg:
        BLED    rsr_pads
        ADDI3   R6, AR4, AR1            ; the segment's first place
        SUBI    1, R1
        LDI     R1, RC
        RPTB    rsr_add
        ADDF3   *AR0, *AR1--(IR0), R0
rsr_add:
        STF     R0, *AR0
        DBD     AR6, rsr_seg
        LDI     *AR5++, R6
        LDI     *AR5++, IR0
        LDI     *AR5++, R1
rsr_fin:
        CMPI    0, R3
        ADDI3   IR1, AR4, AR1
        LDIZ    R7, AR1                 ; a pad: to the word on the stack
        ADDF3   *AR0, *AR1, R0          ; the last addition: slice j's word k
        STF     R0, *AR1
        SUBI    1, R2
        BNZD    rsr_ph
        ADDI    1, AR4
        LDI     BK, AR5
        LDI     R5, AR6
        POP     AR5
        DB      AR3, rsr_grp
rsr_end:
        LEAVE
rsr_pads:
        NEGI    R1, R1
        SUBI    2, R1                   ; pads - 1
        RPTS    R1
        LDI     *AR0, R1                ; pads passed on (the store takes
||      STI     R1, *AR0                ;   the previous one: any word)
        DBD     AR6, rsr_seg
        LDI     *AR5++, R6
        LDI     *AR5++, IR0
        LDI     *AR5++, R1
        BR      rsr_fin

* ---------------------------------------------------------------------------
* The reduce-scatter's fast path (plan[N] = s): R1 = s, R2 = j, AR2 = x,
* AR3 = s - 2, R3 = N.  Only scratch registers (docs/firmware.md 4): nothing
* saved (likewise the all-gather's, agu above).
* ---------------------------------------------------------------------------
rsu:    LDI     R1, IR0                 ; the stride s
        LDI     R3, R0
        SUBI    1, R0
        LDI     R0, AR6                 ; N - 1
        MPYI    R1, R0
        LDI     R0, IR1                 ; (N - 1) s: slice 0's word to slice N-1's
        LDI     R3, R0
        SUBI    3, R0
        LDI     R0, AR4                 ; N - 3 (nodes 0 and N-1: one segment)
        SUBI    R2, R0
        LDI     R0, AR5                 ; N - 3 - j
        LDI     R2, R0
        SUBI    1, R0               ; the slice the node starts: j - 1,
        LDILT   AR6, R0                 ;   N - 1 for node 0
        MPYI    R1, R0
        ADDI3   R0, AR2, AR1            ; -> its word 0
        SUBI    2, R3                   ; N - 2
        LDF     *AR1, R0                ; the node's part of it starts the sum
        STF     R0, *AR0
        CMPI    1, R2
        BLT     rsu_z
        BEQ     rsu_1
        LDI     R2, R0
        SUBI    2, R0
        LDI     R0, AR4                 ; j - 2
        CMPI    R3, R2
        BEQ     rsu_y
        BGT     rsu_l
        RSVAR   1, 1, 1, 0, 0           ; nodes 2 .. N-3
rsu_z:  RSVAR   1, 0, 0, 0, 1           ; node 0: slices N-2 .. 1, then 0
rsu_1:  RSVAR   0, 1, 1, 0, 0           ; node 1: slice 0 is its word
rsu_y:  RSVAR   1, 1, 0, 0, 0           ; node N-2
rsu_l:  RSVAR   1, 0, 0, 1, 0           ; node N-1
