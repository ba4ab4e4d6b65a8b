"""Cycle-exact ring timing: hand-analysed programs against the ring rules of
docs/machine-model.md section 5.

Every expected number below is derived in the comments from the timing
conventions listed in ringprogs.py (13-cycle prologue, 16-cycle exit, one
cycle per ordinary instruction, 4 per branch or RPTS, ...) and the ring
rules M[k] = max(W[k] + h, R[k-1] + 1), W[k] >= M[k-1] - 1, R[k] >= M[k].
"""
from __future__ import annotations

import pytest

from ringprogs import (EXIT_CYCLES, PROLOGUE, PROLOGUE_CYCLES, RAM1, cycles, program, receive,
                       run, words)

P = PROLOGUE_CYCLES     # 13: node 0 falls through, the others reach recv
E = EXIT_CYCLES         # 16: from the exit label to the node's stop
B = 4                   # a standard branch


def crossings(nodes: int, upto: int | None = None) -> list[int]:
    """Links k -> k+1 (k < upto; all links if upto is None) that cross
    between boards of 4 nodes (none on a single board)."""
    if nodes <= 4:
        return []
    links = range(nodes) if upto is None else range(upto)
    return [k for k in links if k // 4 != ((k + 1) % nodes) // 4]


# --------------------------------------------------------------------------
# A token passed once round the ring
# --------------------------------------------------------------------------
# node 0:  [13,14) LDI 42,R1;  [14,15) STI R1,@0  -> W0 = 14
#          [15, ...) LDI @0,R1 waits for the token (ring read)
# node k:  [13, ...) LDI @0,R1 reads at R_k; ADDI at R_k+1; STI at R_k+2 = W_k
# With hop h_k on link k -> k+1:
#   R_1 = W_0 + h_0 = 15, R_k = W_{k-1} + h_{k-1} = R_{k-1} + 2 + h_{k-1}
#   so with h = 1 everywhere R_k = 3k + 12 (k >= 1) and node 0 reads at
#   R_0 = W_{N-1} + h_{N-1} = 3N + 12.
#   Every board-crossing hop before a node adds h - 1.
# After the read: node 0: B exit + exit = R_0 + 1 + 4 + 16 = 3N + 33.
#   node k: STI ends at R_k + 3, then B + exit: R_k + 3 + 4 + 16 = 3k + 35.
# Ring-read stalls: node 0 issues its read at 15: 3N - 3; node k at 13: 3k - 1.
TOKEN = program(PROLOGUE + """
        LDI     42, R1
        STI     R1, @0          ; send the token
        LDI     @0, R1          ; wait for it to come back
        B       exit
recv:   LDI     @0, R1
        ADDI    1, R1
        STI     R1, @0
        B       exit
""")


def token_reads(nodes: int, hop: int) -> list[int]:
    cross = set(crossings(nodes))
    h = [hop if k in cross else 1 for k in range(nodes)]
    r = [0] * nodes
    w_prev = 14                                  # W_0
    for k in range(1, nodes):
        r[k] = w_prev + h[k - 1]
        w_prev = r[k] + 2
    r[0] = w_prev + h[nodes - 1]
    return r


@pytest.mark.parametrize("nodes", [2, 4, 16, 64])
def test_token_round_trip(nodes):
    sim, res = run(TOKEN, nodes)
    assert res.event == "done", res.messages
    # closed forms of the derivation above
    assert cycles(sim) == [3 * nodes + 33] + [3 * k + 35 for k in range(1, nodes)]
    assert sim.counters(0)["stalls"]["ring_read"] == 3 * nodes - 3
    for k in range(1, nodes):
        assert sim.counters(k)["stalls"]["ring_read"] == 3 * k - 1
        assert sim.counters(k)["ring"] == {"sent": 1, "received": 1, "forwarded": 0}
    assert sim.reg("R1", 0) == 42 + nodes - 1
    assert res.cycles == 3 * nodes + 33
    m = sim.machine_counters()
    assert m["ring_words"] == nodes
    assert m["ring_utilisation"] == pytest.approx(nodes / (nodes * (3 * nodes + 33)))


@pytest.mark.parametrize("nodes,hop", [(8, 3), (6, 4), (64, 2), (4, 5), (2, 7), (5, 3)])
def test_board_hop_lengthens_only_board_crossings(nodes, hop):
    sim, res = run(TOKEN, nodes, board_hop_cycles=hop)
    assert res.event == "done", res.messages
    r = token_reads(nodes, hop)
    extra = (hop - 1) * len(crossings(nodes))
    # node 0 reads after every crossing: 3N + 12 + (h - 1) * crossings
    assert r[0] == 3 * nodes + 12 + extra
    assert cycles(sim)[0] == r[0] + 1 + B + E
    for k in range(1, nodes):
        # node k is delayed by the crossings on links 0 -> 1 .. k-1 -> k
        assert r[k] == 3 * k + 12 + (hop - 1) * len(crossings(nodes, k))
        assert cycles(sim)[k] == r[k] + 3 + B + E
    if nodes <= 4:      # one board: the ring closes on the board, nothing changes
        assert cycles(sim) == [3 * nodes + 33] + [3 * k + 35 for k in range(1, nodes)]


def test_board_hop_crossings_are_the_board_boundaries():
    assert crossings(8) == [3, 7]
    assert crossings(6) == [3, 5]
    assert crossings(64) == [4 * b + 3 for b in range(16)]
    assert crossings(4) == [] and crossings(2) == []


# --------------------------------------------------------------------------
# Broadcast of K words from node 0 by read-and-forward (RING_FWD)
# --------------------------------------------------------------------------
# node 0 (from 13):
#   [13,14) LDI AR1,AR0   [14,15) OR 0x9800,AR0    AR0 -> src (RAM0), AR group ready at 17
#   [17,18) LDI *AR0++,R1                          prime R1 = src[0]
#   [18,22) RPTS K-2
#   22 + i  LDI *AR0++,R1 || STI R1,*AR1           writes src[i], i = 0..K-2 (1 cycle each:
#                                                  RAM0 read, expansion write, no fetch)
#   21 + K  STI R1,*AR1                            writes src[K-1]
#   so W_i = 22 + i; then B exit + exit: final 22 + K + 4 + 16 = 42 + K.
# node n >= 1 (from 13):
#   [13,15) AR0 -> RAM1 - 1     [15,16) LDI K,R3   [16,17) CMPI R2,R0
#   [17,18) LDIEQ 0,R3 (the last node does not forward)   [18,19) STI R3,@2 (RING_FWD)
#   [19,23) RPTS K-1
#   iteration i: LDI *AR1,R1 || STI R1,*AR0++ issues at 23 + i at the earliest,
#   reads word i at R^n_i and (n < N-1) forwards it in the same access.
#   Node 1: M_i = max(W_i + 1, R_{i-1} + 1) = 23 + i = its issue cycle, so
#   R^1_i = 23 + i, and by induction R^n_i = 22 + n + i: one word per node per
#   cycle, every node one cycle behind its upstream neighbour.  Forwarding
#   never waits (downstream empties each latch the cycle after it fills).
#   Ring-read stall of node n: its first read issues at 23, happens at 22 + n.
#   After the last read (ends 23 + n + K - 1): STI 1, B 4, exit 16:
#   final 43 + n + K.  The machine takes 42 + N + K cycles.
def broadcast_program(k: int) -> str:
    src = ", ".join(str(0x1000 + 7 * i) for i in range(k))
    return program(PROLOGUE + f"""
        LDI     AR1, AR0
        OR      09800h, AR0
        LDI     *AR0++, R1
        RPTS    {k - 2}
        LDI     *AR0++, R1
     || STI     R1, *AR1
        STI     R1, *AR1
        B       exit
recv:   LDI     AR1, AR0
        OR      09BFFh, AR0
        LDI     {k}, R3
        CMPI    R2, R0
        LDIEQ   0, R3
        STI     R3, @2
{receive(k)}        .sect   ".ram0"
src:    .word   {src}
        .text
""")


@pytest.mark.parametrize("nodes", [2, 4, 16, 64])
@pytest.mark.parametrize("k", [2, 5, 40])
def test_broadcast_one_word_per_node_per_cycle(nodes, k):
    sim, res = run(broadcast_program(k), nodes)
    assert res.event == "done", res.messages
    assert cycles(sim) == [42 + k] + [43 + n + k for n in range(1, nodes)]
    assert res.cycles == 42 + nodes + k
    data = [0x1000 + 7 * i for i in range(k)]
    assert sim.counters(0)["ring"] == {"sent": k, "received": 0, "forwarded": 0}
    assert sim.counters(0)["stalls"]["ring_write"] == 0
    for n in range(1, nodes):
        c = sim.counters(n)
        assert words(sim, RAM1, k, n) == data
        assert c["stalls"]["ring_read"] == n - 1
        assert c["stalls"]["ring_write"] == 0
        assert c["ring"] == {"sent": 0, "received": k,
                             "forwarded": k if n < nodes - 1 else 0}
    assert sim.machine_counters()["ring_words"] == k * (nodes - 1)


def test_broadcast_total_cycles_are_linear_in_k_and_n():
    # slope 1 in K (one word per cycle) and 1 in N (one hop per cycle)
    t = {(n, k): run(broadcast_program(k), n)[1].cycles for n in (4, 8) for k in (3, 10)}
    assert t[4, 10] - t[4, 3] == 7 and t[8, 10] - t[8, 3] == 7
    assert t[8, 3] - t[4, 3] == 4


# Board hops in the broadcast.  N = 8 (two boards): link 3 -> 4 crosses (7 -> 0
# also crosses, but node 7 does not forward).
#  h = 2: a word holds node 3's output latch until it enters node 4's input
#    latch, M = W + 2, so W_i >= M_{i-1} - 1 = W_{i-1} + 1: the stream keeps
#    one word per cycle, nodes 4..7 get every word one cycle later:
#    final 43 + n + K + 1 for n >= 4, unchanged for n <= 3.
#  h = 3: W_i >= W_{i-1} + 2 on link 3 -> 4: node 3 reads-and-forwards word i
#    at R^3_i = 25 + 2i (R^3_0 = 22 + 3 as before; each later word waits for
#    the latch: 2 cycles apart).  Upstream nodes can keep that pace, so node 3
#    always has the word (checked: M^3_i = R^3_{i-1} + 1 <= R^3_i).
#    Node n >= 4 reads word i at R^3_i + 3 + (n - 4) = 24 + n + 2i.
#    Finals: node 3: R^3_{K-1} + 1 + 1 + 4 + 16 = 45 + 2K;
#            node n >= 4: 24 + n + 2(K - 1) + 22 = 44 + n + 2K.
@pytest.mark.parametrize("k", [2, 6, 25])
def test_broadcast_across_a_board_hop(k):
    sim, res = run(broadcast_program(k), 8, board_hop_cycles=2)
    assert res.event == "done", res.messages
    assert cycles(sim)[1:] == [43 + n + k + (1 if n >= 4 else 0) for n in range(1, 8)]
    sim, res = run(broadcast_program(k), 8, board_hop_cycles=3)
    assert res.event == "done", res.messages
    c = cycles(sim)
    assert c[3] == 45 + 2 * k
    assert c[4:] == [44 + n + 2 * k for n in range(4, 8)]
    data = [0x1000 + 7 * i for i in range(k)]
    for n in range(1, 8):
        assert words(sim, RAM1, k, n) == data


# --------------------------------------------------------------------------
# Back-pressure
# --------------------------------------------------------------------------
# Node 0 writes K words as in the broadcast (unimpeded: W_i = 22 + i).
# Node 1 (from 13): [13,15) AR0 -> RAM1 - 1;  [15,19) RPTS D-1;  [19,19+D) NOP;
#   [19+D, 23+D) RPTS K-1; then reads word i at R_i >= r + i, r = 23 + D.
# Link 0 -> 1:  M_0 = 23.  W_1 = 23 >= M_0 - 1.  M_1 = max(24, R_0 + 1).
#   W_2 >= M_1 - 1 = max(23, R_0) with R_0 = r (the word is there since 23):
#   W_2 = max(24, r) = 24 + max(0, D - 1): the writer stalls max(0, D - 1).
#   M_2 = max(W_2 + 1, R_1 + 1), R_1 = max(r + 1, M_1) = r + 1, so M_2 = r + 2
#   and W_3 >= max(W_2 + 1, M_2 - 1) = r + 1 = W_2 + 1 (for D >= 1): no
#   further stall; by induction R_i = r + i, W_i = W_2 + i - 2 for i >= 2.
# Finals: node 0 writes its last word at W_{K-1} = 24 + max(0, D-1) + K - 3,
#   then B + exit: W_{K-1} + 1 + 20.  Node 1: r + K + 1 + 20 = 44 + D + K.
def back_pressure_program(k: int, d: int) -> str:
    src = ", ".join(str(100 + i) for i in range(k))
    return program(PROLOGUE + f"""
        LDI     AR1, AR0
        OR      09800h, AR0
        LDI     *AR0++, R1
        RPTS    {k - 2}
        LDI     *AR0++, R1
     || STI     R1, *AR1
        STI     R1, *AR1
        B       exit
recv:   LDI     AR1, AR0
        OR      09BFFh, AR0
        RPTS    {d - 1}
        NOP
{receive(k)}        .sect   ".ram0"
src:    .word   {src}
        .text
""")


@pytest.mark.parametrize("k,d", [(3, 1), (3, 2), (3, 10), (4, 10), (12, 37), (12, 1)])
def test_back_pressure_stalls_the_writer_two_words_ahead(k, d):
    sim, res = run(back_pressure_program(k, d), 2)
    assert res.event == "done", res.messages
    stall = max(0, d - 1)
    w_last = 24 + stall + k - 3
    assert sim.counters(0)["stalls"]["ring_write"] == stall
    assert sim.counters(0)["stalls"]["ring_read"] == 0
    assert cycles(sim) == [w_last + 21, 44 + d + k]
    assert sim.counters(1)["stalls"]["ring_read"] == 0
    assert words(sim, RAM1, k, 1) == [100 + i for i in range(k)]


# A reader that takes one word every 3 cycles: RPTB over LDI *AR1 / STI /
# NOP.  Node 1 from 13: [13,15) AR0 -> RAM1, [15,19) 4 NOPs, [19,20) LDI
# K-1,RC, [20,24) RPTB: its reads come at R_i = r + 3i, r = 24, while the
# writer is ahead (M_i = max(W_i + 1, R_{i-1} + 1) <= r + 3i below).
# The writer: W_0 = 22, W_1 = 23, W_i = max(W_{i-1} + 1, M_{i-1} - 1) with
# M_{i-1} = max(W_{i-1} + 1, R_{i-2} + 1): W_2 = max(24, R_0) = 24;
# M_2 = max(25, R_1 + 1) = 28, W_3 = 27 = R_1; in general W_i = R_{i-2} =
# r + 3(i - 2) for i >= 3 (and then M_i = R_{i-1} + 1 <= R_i as assumed).
# Ring-write stall: 2 cycles for each of the words 3..K-1: 2K - 6.
SLOW_READER = """
        LDI     AR1, AR0
        OR      09800h, AR0
        LDI     *AR0++, R1
        RPTS    {km2}
        LDI     *AR0++, R1
     || STI     R1, *AR1
        STI     R1, *AR1
        B       exit
recv:   LDI     AR1, AR0
        OR      09C00h, AR0
        NOP
        NOP
        NOP
        NOP
        LDI     {km1}, RC
        RPTB    slow
        LDI     *AR1, R1
        STI     R1, *AR0++
slow:   NOP
        B       exit
        .sect   ".ram0"
src:    .word   {src}
        .text
"""


@pytest.mark.parametrize("k", [3, 4, 9])
def test_back_pressure_against_a_slow_reader(k):
    src = ", ".join(str(200 + i) for i in range(k))
    sim, res = run(program(PROLOGUE + SLOW_READER.format(km2=k - 2, km1=k - 1, src=src)), 2)
    assert res.event == "done", res.messages
    # reader from 13: [13,15) AR0 -> RAM1, [15,19) 4 NOPs, [19,20) LDI K-1,RC,
    # [20,24) RPTB: r = 24; reads at 24 + 3i, the last block ends at
    # 24 + 3K; B + exit: final 44 + 3K
    r = 24
    assert cycles(sim)[1] == r + 3 * k + B + E
    assert sim.counters(1)["stalls"]["ring_read"] == 0
    assert sim.counters(0)["stalls"]["ring_write"] == 2 * k - 6
    w_last = r + 3 * (k - 3)
    assert cycles(sim)[0] == w_last + 1 + B + E
    assert words(sim, RAM1, k, 1) == [200 + i for i in range(k)]


# --------------------------------------------------------------------------
# RING_STAT in each state
# --------------------------------------------------------------------------
# N = 2.  Node 0 samples RING_STAT once a cycle with
#   RPTS S-1 || LDI *AR2,R1 || STI R1,*AR0++  (AR2 -> RING_STAT)
# and keeps the samples in RAM1 (sample j of a run at RAM1 + offset + j).
# node 0 (from 13): [13,15) AR0 -> RAM1 - 1; [15,17) AR2 -> RING_STAT
#   (AR group ready at 19); [17,19) NOP NOP; [19,23) RPTS 7;
#   phase A: samples at 23..30; [31,32) STI (last sample);
#   [32,33) LDI *AR1,R3 reads node 1's first word Y0;
#   [33,34) STI R3,*AR1 -> X0: W = 33, M = 34 (node 1 does not read yet);
#   [34,35) STI R3,*AR1 -> X1: W = 34 >= M_0 - 1: both latches of link 0 -> 1
#   are now full; [35,39) RPTS 11; phase B: samples at 39..50; [51,52) STI;
#   [52,53) LDI *AR1,R3 reads Y1; B exit.
# node 1 (from 13): [13,14) LDI 7,R1; [14,18) RPTS Da-1; [18,18+Da) NOPs;
#   STI R1,*AR1 -> Y0 at W_a = 18 + Da; RPTS Db-1 (4), Db NOPs;
#   STI -> Y1 at W_b = W_a + 5 + Db; RPTS Dc-1 (4), Dc NOPs;
#   LDI *AR1,R2 reads X0 at R = W_b + 5 + Dc (X0 is there since 34);
#   LDI *AR1,R2 reads X1.
# Expected: bit 0 at t  <=>  t >= W + 1 of the word in node 0's input latch;
#   bit 1 at t  <=>  node 0 could write at t: always in phase A (empty
#   output), in phase B only once node 1 has read X0 (a write at t needs
#   M_X1 - 1 = max(W_X1, R_X0) <= t): from t = R.
STAT = """
        LDI     AR1, AR0
        OR      09BFFh, AR0
        LDI     AR1, AR2
        ADDI    1, AR2
        NOP
        NOP
        RPTS    7
        LDI     *AR2, R1
     || STI     R1, *AR0++
        STI     R1, *AR0
        LDI     *AR1, R3
        STI     R3, *AR1
        STI     R3, *AR1
        RPTS    11
        LDI     *AR2, R1
     || STI     R1, *AR0++
        STI     R1, *AR0
        LDI     *AR1, R3
        B       exit
recv:   LDI     7, R1
        RPTS    {da1}
        NOP
        STI     R1, *AR1
        RPTS    {db1}
        NOP
        STI     R1, *AR1
        RPTS    {dc1}
        NOP
        LDI     *AR1, R2
        LDI     *AR1, R2
        B       exit
"""


def test_ring_stat_bits_in_each_state():
    da, db, dc = 8, 11, 1
    w_a = 18 + da                   # 26: Y0 readable from 27 (phase A sample 4)
    w_b = w_a + 1 + 4 + db          # 42: Y1 readable from 43 (phase B sample 4)
    r_x0 = w_b + 1 + 4 + dc         # 48: output latch usable from 48 (sample 9)
    src = program(PROLOGUE + STAT.format(da1=da - 1, db1=db - 1, dc1=dc - 1))
    sim, res = run(src, 2)
    assert res.event == "done", res.messages
    samples = words(sim, RAM1, 8 + 12, 0)
    a, b = samples[:8], samples[8:]
    # phase A (cycles 23..30): output free (bit 1); Y0 readable from W_a + 1
    assert a == [2 | (1 if 23 + j >= w_a + 1 else 0) for j in range(8)]
    # phase B (cycles 39..50): both latches of link 0 -> 1 full until node 1
    # reads X0 at r_x0 (a write at t needs R <= t: bit 1 from t = r_x0);
    # Y1 readable from W_b + 1
    assert b == [(1 if 39 + j >= w_b + 1 else 0) | (2 if 39 + j >= r_x0 else 0) for j in range(12)]
    # every combination was seen
    assert {0, 1, 2, 3} <= set(samples)
    assert sim.reg("R3", 0) == 7 and sim.reg("R2", 1) == 7


def test_ring_stat_with_a_word_still_in_a_long_hop():
    # h = 3 on the board-crossing links 3 -> 4 and 7 -> 0 of an 8-node machine.
    # Every node: [0,4) AR1 -> RING_DATA, AR2 -> RING_STAT (AR group ready
    # at 6); [4,6) NOP NOP; [6,7) STI R1,*AR1 (W = 6); RING_STAT into R4, R5,
    # R6 at cycles 7, 8, 9.  Nobody reads.
    # Output side: a second write could go at max(t, M - 1), M = W + h:
    #   h = 1: from 6 on, bit 1 set at 7, 8, 9;
    #   h = 3: the word holds the output latch until M - 1 = 8: bit 1 clear
    #   at 7, set at 8 and 9.
    # Input side: the upstream word is readable from W + h: 7 (bit 0 at 7, 8,
    # 9) or, behind a crossing, 9 (bit 0 only at 9).
    src = program("""
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1
        LDI     AR1, AR2
        ADDI    1, AR2
        NOP
        NOP
        STI     R1, *AR1
        LDI     *AR2, R4
        LDI     *AR2, R5
        LDI     *AR2, R6
        B       exit
""")
    sim, res = run(src, 8, board_hop_cycles=3)
    assert res.event == "done", res.messages
    for n in range(8):
        h_in = 3 if n in (4, 0) else 1
        h_out = 3 if n in (3, 7) else 1
        got = [sim.reg(r, n) for r in ("R4", "R5", "R6")]
        want = [(1 if t >= 6 + h_in else 0) | (2 if t >= 6 + h_out - 1 else 0) for t in (7, 8, 9)]
        assert got == want, n
    sim, res = run(src, 8)          # h = 1 everywhere: 3, 3, 3
    assert [[sim.reg(r, n) for r in ("R4", "R5", "R6")] for n in range(8)] == [[3, 3, 3]] * 8


def test_ring_fwd_counts_down_and_reads_back():
    src = program(PROLOGUE + """
        LDI     5, R1
        STI     R1, @0
        STI     R1, @0
        STI     R1, @0
        LDI     @0, R1          ; node 1's first forwarded word comes back
        LDI     @0, R1
        B       exit
recv:   LDI     5, R3
        STI     R3, @2          ; forward the next 5 words
        LDI     @2, R4          ; 5
        LDI     @0, R1          ; read-and-forward
        LDI     @0, R1
        LDI     @2, R5          ; 3
        LDI     @0, R1
        LDI     @2, R6          ; 2
        B       exit
""")
    sim, res = run(src, 2)
    assert res.event == "done", res.messages
    assert [sim.reg(r, 1) for r in ("R4", "R5", "R6")] == [5, 3, 2]
    assert sim.counters(1)["ring"] == {"sent": 0, "received": 3, "forwarded": 3}
    assert sim.counters(0)["ring"] == {"sent": 3, "received": 2, "forwarded": 0}


# --------------------------------------------------------------------------
# A full ring shifting at once (every latch full, every node reads and
# forwards in one access)
# --------------------------------------------------------------------------
# every node:
#   [0,5) AR1 -> RING_DATA, AR0 -> RAM1 - 1 (AR group ready at 7);
#   [5,6) LDI @3,R1 (NODE_ID k); [6,7) LDI R1,R2;
#   [7,8) STI R1,*AR1 (W0 = 7, M0 = 8); [8,9) STI R1,*AR1 (W1 = 8): both
#   latches of every link are now full, and stay full;
#   [9,10) MPYI 3,R2; [10,11) LDI K,R3; [11,12) STI R3,@2 (RING_FWD = K);
#   [12,16) RPTS R2; [16, 17 + 3k) NOP x (3k + 1); [17+3k, 21+3k) RPTS K-1;
#   then K times LDI *AR1,R1 || STI R1,*AR0++: read-and-forward, first
#   issued at a_k = 21 + 3k.
# Node k's forward needs room in its output latch: W >= M - 1 = R_{k+1} (its
# downstream neighbour's read), and its read is the same access: R_k >=
# R_{k+1} all round the ring, so every node acts at the same cycle
# T_0 = max_k a_k = 21 + 3(N - 1) (the words themselves are there since 8),
# then at T_0 + i for word i (each word is readable one cycle after it moved).
# Node k waits T_0 - a_k = 3(N - 1 - k) cycles for its output latch (ring
# write stall), never for data.  Final: T_0 + K (loop) + 1 (STI) + 4 (B) + 16.
# Data: the link out of node m carries m, m, then what m read, so node k
# reads word j = (k - 1 - j // 2) mod N.
def rotation_program(k: int) -> str:
    return program(f"""
        .global start
        .text
start:  LDI     0x80, AR1
        LSH     16, AR1
        LDP     0x800000
        LDI     AR1, AR0
        OR      09BFFh, AR0
        LDI     @3, R1
        LDI     R1, R2
        STI     R1, *AR1
        STI     R1, *AR1
        MPYI    3, R2
        LDI     {k}, R3
        STI     R3, @2
        RPTS    R2
        NOP
{receive(k)}""")


@pytest.mark.parametrize("nodes", [1, 2, 4, 64])
@pytest.mark.parametrize("k", [1, 3, 20])
def test_full_ring_shifts_one_word_per_cycle(nodes, k):
    sim, res = run(rotation_program(k), nodes)
    assert res.event == "done", res.messages
    t0 = 21 + 3 * (nodes - 1)
    assert cycles(sim) == [t0 + k + 21] * nodes
    for n in range(nodes):
        c = sim.counters(n)
        assert c["stalls"]["ring_write"] == 3 * (nodes - 1 - n)
        assert c["stalls"]["ring_read"] == 0
        assert c["ring"] == {"sent": 2, "received": k, "forwarded": k}
        assert words(sim, RAM1, k, n) == [(n - 1 - j // 2) % nodes for j in range(k)]
