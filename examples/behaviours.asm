* Behaviour routines for examples/behaviours.net (CLONES' hooks,
* docs/network-language.md "behaviour"; docs/plan.md prices them).  Each
* follows the firmware's calling convention (docs/firmware.md section 4:
* R4-R7, AR7, DP and SP kept) and gets AR2 = the epoch, AR3 = the pattern's
* row, AR4 = the hook layer's own activations, AR5 = the node's own units
* of it (0 and 0 without a layer).  DP is the program's .data page, which
* holds this file's .data too.

        .global _watch, _note_pattern, _count_epochs, epochs_seen, h_sum
        .global patterns_seen, last_row, bias_seen
        .global n_bias_y

        .text
* _watch (after_forward h): h_sum = the sum of the node's own activations
* of h (a statistic the host may read back), one RPTB pass a unit;
* accepts 0 units.
_watch: LDF     0.0, R0
        LDI     AR5, R1
        SUBI    1, R1
        BLT     wt_end                  ; no units on this node
        LDI     R1, RC
        RPTB    wt_add
wt_add: ADDF    *AR4++, R0
wt_end: STF     R0, @h_sum
        RETS

* _note_pattern (after_backward): patterns_seen += 1, last_row = the
* pattern's row, bias_seen = output y's first bias (read from the
* program's own buffer n_bias_y)
_note_pattern:
        LDI     @patterns_seen, R0
        ADDI    1, R0
        STI     R0, @patterns_seen
        STI     AR3, @last_row
        LDI     @k_bias, AR0
        LDF     *AR0, R0
        STF     R0, @bias_seen
        RETS

* _count_epochs (after_epoch): epochs_seen += 1
_count_epochs:
        LDI     @epochs_seen, R0
        ADDI    1, R0
        STI     R0, @epochs_seen
        RETS

        .data
epochs_seen: .word 0
patterns_seen: .word 0
last_row: .word  0
bias_seen: .word 0
h_sum:  .word   0
k_bias: .word   n_bias_y
