"""Program control against the TMS320C3x User's Guide (SPRU031) chapter 7 and
the instruction pages of chapter 13: conditions (table 13-12, G 13-30/31),
branches, delayed branches, DBcond, calls and returns, traps, repeats,
interrupts, IDLE, and the errors the model raises for what the guide forbids.
"""
from __future__ import annotations

import itertools

import pytest

import c3xref as R
from c3xref import C, LUF, LV, N, UF, V, Z
from rapsim.asm import isa
from simkit import STACK, Kernel, run, run_result

GIE = 1 << 13
RM = 1 << 8
FLAG_BITS = (C, V, Z, N, UF, LV, LUF)
ALL_FLAG_SETS = [sum(bits) for r in range(len(FLAG_BITS) + 1)
                 for bits in itertools.combinations(FLAG_BITS, r)]      # all 128


def test_the_condition_table_has_20_codes_with_the_guide_aliases():
    # G 13-28: 20 codes, 00000-10100 without 01011
    assert sorted(c.code for c in isa.CONDITIONS) == [c for c in range(21) if c != 11]
    names = {n for c in isa.CONDITIONS for n in (c.name, *c.aliases)}
    assert names == set(R.CONDITIONS)


@pytest.mark.parametrize("cond", sorted(R.CONDITIONS))
def test_bcond_every_condition_and_flag_combination(cond):
    # B<cond> over all 128 combinations of C V Z N UF LV LUF, against table 13-12
    k = Kernel(f"        B{cond} yes\n        LDI 1, AR7\n        SWI\n"
               "yes:    LDI 2, AR7\n        SWI\n")
    for st in ALL_FLAG_SETS:
        sim = k({"ST": st})
        assert sim.reg("AR7") == (2 if R.CONDITIONS[cond](st) else 1), f"B{cond} with ST={st:#x}"
        assert sim.reg("ST") == st                  # branches change no flags


@pytest.mark.parametrize("cond", ["LO", "HI", "GE", "ZUF", "NLUF", "NV"])
def test_other_conditional_instructions_use_the_same_table(cond):
    # LDIcond, CALLcond, RETScond, DBcond share the condition field (13-30)
    k = Kernel(f"        LDI{cond} 5, AR6\n"
               f"        CALL{cond} sub\n"
               f"        DB{cond} AR0, db\n"
               "        SWI\n"
               "db:     LDI 9, AR4\n        SWI\n"
               f"sub:    LDI 7, AR5\n        RETS{cond}\n        LDI 8, AR5\n        RETSU\n")
    for st in ALL_FLAG_SETS[::5]:
        sim = k({"ST": st, "SP": STACK, "AR0": 10})
        t = R.CONDITIONS[cond](st)
        assert sim.reg("AR6") == (5 if t else 0)
        assert sim.reg("AR5") == (7 if t else 0)     # RETScond returned at once if true
        assert sim.reg("AR4") == (9 if t else 0)
        assert sim.reg("SP") == STACK


# ---------------------------------------------------------------------------
# Branches [13-79 Bcond, 13-81 BcondD, 13-84 BRD]
# ---------------------------------------------------------------------------

def test_b_br_and_register_branches():
    body = ("        BR one\n        SWI\n"
            "one:    LDI 1, AR0\n        B two\n        SWI\n"
            "two:    LDI 2, AR1\n        LDI three, AR2\n        BU AR2\n        SWI\n"
            "three:  LDI 3, AR3\n        SWI\n")
    sim = run(body)
    assert [sim.reg(f"AR{i}") for i in range(4)][0:2] == [1, 2] and sim.reg("AR3") == 3


def test_delayed_branch_runs_three_slots_first():
    # 13-81: the next three instructions execute, then the branch takes effect
    body = ("        BD target\n        LDI 1, AR0\n        LDI 2, AR1\n        LDI 3, AR2\n"
            "        LDI 4, AR3\n        SWI\n"
            "target: SWI\n")
    sim = run(body)
    assert [sim.reg(f"AR{i}") for i in range(4)] == [1, 2, 3, 0]


def test_delayed_branch_condition_is_decided_before_the_slots():
    # 13-81: the slots do not affect the condition.  BZD with Z = 0; a slot
    # sets Z -- still not taken; and the other way round.
    body = ("        BZD target\n        LDI 0, R0\n        NOP\n        NOP\n"
            "        LDI 1, AR0\n        SWI\n"
            "target: LDI 2, AR0\n        SWI\n")
    assert run(body, regs={"ST": 0}).reg("AR0") == 1
    body2 = body.replace("LDI 0, R0", "LDI 5, R0")
    assert run(body2, regs={"ST": Z}).reg("AR0") == 2


def test_brd_and_register_delayed_branch():
    body = ("        BRD target\n        LDI 1, AR0\n        LDI 2, AR1\n        LDI 3, AR2\n        SWI\n"
            "target: LDI back, AR3\n        BUD AR3\n        LDI 4, AR4\n        NOP\n        NOP\n        SWI\n"
            "back:   LDI 5, AR5\n        SWI\n")
    sim = run(body)
    assert [sim.reg(f"AR{i}") for i in (0, 1, 2, 4, 5)] == [1, 2, 3, 4, 5]


# ---------------------------------------------------------------------------
# DBcond [13-95, 13-97]
# ---------------------------------------------------------------------------

def test_db_loops_until_the_counter_goes_negative():
    # AR0 - 1 each pass; branch while the condition holds and AR0 >= 0:
    # AR0 = 3 gives 4 passes and leaves AR0 = -1 (24 bits)
    body = ("loop:   ADDI 1, R0\n        DBU AR0, loop\n        SWI\n")
    sim = run(body.replace("loop:   ADDI", "        LDI 0, R0\nloop:   ADDI"), regs={"AR0": 3})
    assert sim.reg("R0") == 4 and sim.reg("AR0") == 0x00FFFFFF


def test_db_decrements_24_bits_and_keeps_the_upper_byte():
    sim = run("        DBU AR0, away\n        SWI\naway:   LDI 1, AR7\n        SWI\n",
              regs={"AR0": 0x55000000})
    # 0x000000 - 1 = 0xFFFFFF: negative in 24 bits -> not taken
    assert sim.reg("AR0") == 0x55FFFFFF and sim.reg("AR7") == 0
    sim = run("        DBU AR0, away\n        SWI\naway:   LDI 1, AR7\n        SWI\n",
              regs={"AR0": 0xAA800000})
    # 0x800000 - 1 = 0x7FFFFF >= 0 in 24 bits -> taken
    assert sim.reg("AR0") == 0xAA7FFFFF and sim.reg("AR7") == 1


def test_db_condition_false_still_decrements():
    sim = run("        DBZ AR1, away\n        SWI\naway:   LDI 1, AR7\n        SWI\n",
              regs={"AR1": 5, "ST": 0})
    assert sim.reg("AR1") == 4 and sim.reg("AR7") == 0


def test_dbd_has_three_slots():
    body = ("        LDI 0, R0\n"
            "loop:   DBUD AR0, loop\n        ADDI 1, R0\n        NOP\n        NOP\n        SWI\n")
    sim = run(body, regs={"AR0": 2})
    assert sim.reg("R0") == 3 and sim.reg("AR0") == 0x00FFFFFF


# ---------------------------------------------------------------------------
# CALL, CALLcond, RETScond, RETIcond [13-85, 13-86, 7.2]
# ---------------------------------------------------------------------------

def test_call_pushes_the_return_address_and_rets_pops_it():
    body = ("        CALL sub\nret1:   LDI 1, AR1\n        SWI\n"
            "sub:    LDI SP, AR0\n        LDI *AR0, AR2\n        RETS\n")
    sim = run(body, regs={"SP": STACK})
    assert sim.reg("AR0") == STACK + 1            # *++SP
    assert sim.reg("AR2") == 0x41                 # return address: CALL at 0x40
    assert sim.reg("SP") == STACK and sim.reg("AR1") == 1


def test_callcond_register_and_not_taken():
    body = ("        LDI sub, AR3\n        CALLNZ AR3\n        CALLZ sub\n        SWI\n"
            "sub:    ADDI 1, AR4\n        RETSU\n")
    sim = run(body, regs={"SP": STACK, "ST": 0})
    assert sim.reg("AR4") == 1 and sim.reg("SP") == STACK


def test_reti_pops_and_sets_gie():
    body = ("        LDI back, AR0\n        PUSH AR0\n        RETIU\n        SWI\n"
            "back:   SWI\n")
    sim = run(body, regs={"SP": STACK, "ST": 0})
    assert sim.reg("ST") & GIE and sim.reg("SP") == STACK
    sim = run(body.replace("RETIU", "RETINZ"), regs={"SP": STACK, "ST": Z})
    assert not sim.reg("ST") & GIE and sim.reg("SP") == STACK + 1     # not taken


# ---------------------------------------------------------------------------
# TRAPcond [13-243]
# ---------------------------------------------------------------------------

TRAP_BODY = ("        LDI handler, R0\n        STI R0, @25h\n"        # trap 5's vector at 0x20 + 5
             "        TRAP{c} 5\n        LDI 1, AR1\n        SWI\n"
             "handler: LDI ST, AR2\n        LDI SP, AR3\n        RETIU\n")


def test_trap_vectors_through_0x20_plus_n_and_clears_gie():
    sim = run(TRAP_BODY.format(c="U"), regs={"SP": STACK, "ST": GIE})
    assert not sim.reg("AR2") & GIE               # GIE cleared in the handler
    assert sim.reg("AR3") == STACK + 1
    assert sim.read(STACK + 1, 1)[0] == 0x43      # the address after TRAP (at 0x42)
    assert sim.reg("AR1") == 1 and sim.reg("ST") & GIE    # RETI set GIE again


def test_trap_not_taken_restores_gie():
    for gie in (0, GIE):
        sim = run(TRAP_BODY.format(c="Z"), regs={"SP": STACK, "ST": gie})
        assert sim.reg("AR2") == 0 and sim.reg("ST") & GIE == gie and sim.reg("SP") == STACK


# ---------------------------------------------------------------------------
# RPTS and RPTB [G 7.2]
# ---------------------------------------------------------------------------

def test_rpts_executes_the_next_instruction_count_plus_one_times():
    sim = run("        RPTS 4\n        ADDI 1, R0\n        LDI ST, AR0\n        SWI\n")
    assert sim.reg("R0") == 5
    # after the repeat: RS = RE = the repeated instruction, RM cleared; RC
    # counted down past 0 (model choice following the repeat engine of 7.2)
    assert sim.reg("RS") == 0x41 and sim.reg("RE") == 0x41
    assert not sim.reg("AR0") & RM
    assert sim.reg("RC") == 0xFFFFFFFF


def test_rpts_count_from_a_register_and_memory():
    sim = run("        RPTS AR1\n        ADDI 2, R0\n        RPTS *AR2\n        ADDI 1, R1\n        SWI\n",
              regs={"AR1": 9, "AR2": 0x2000}, mem={0x2000: [0]})
    assert sim.reg("R0") == 20 and sim.reg("R1") == 1


def test_rpts_repeats_a_parallel_instruction():
    # a dot product: RPTS n-1 || MPYF3 *AR0++, *AR1++, R0 || ADDF3 R0, R2, R2
    x = [1.0, 2.0, 3.0, 4.0]
    y = [0.5, -1.0, 2.0, 0.25]
    from rapsim.asm.floatfmt import to_single
    body = ("        LDF 0.0, R2\n        LDF 0.0, R0\n        RPTS 3\n"
            "        MPYF3 *AR0++, *AR1++, R0\n||      ADDF3 R0, R2, R2\n"
            "        ADDF R0, R2\n        SWI\n")
    sim = run(body, regs={"AR0": 0x2000, "AR1": 0x2100},
              mem={0x2000: [int(w) for w in to_single(x)], 0x2100: [int(w) for w in to_single(y)]})
    assert sim.regf("R2") == sum(a * b for a, b in zip(x, y))
    assert sim.reg("AR0") == 0x2004


def test_rptb_block_runs_rc_plus_one_times():
    body = ("        LDI 2, RC\n        RPTB end\n        ADDI 1, R0\nend:    ADDI 10, R1\n"
            "        LDI ST, AR0\n        SWI\n")
    sim = run(body)
    assert sim.reg("R0") == 3 and sim.reg("R1") == 30
    assert sim.reg("RS") == 0x42 and sim.reg("RE") == 0x43
    assert not sim.reg("AR0") & RM and sim.reg("RC") == 0xFFFFFFFF


def test_rptb_block_ending_in_a_branch():
    # MODEL CHOICE (the guide's RPTB page could not be checked): a block whose
    # last instruction is a branch repeats when the branch is not taken and is
    # left when it is taken.
    body = ("        LDI 9, RC\n        RPTB end\n        ADDI 1, R0\n        CMPI 4, R0\n"
            "end:    BEQ out\n        LDI 1, AR1\n        SWI\n"
            "out:    LDI 2, AR1\n        SWI\n")
    sim = run(body)
    assert sim.reg("R0") == 4 and sim.reg("AR1") == 2


def test_rpts_of_a_branch_is_an_error_naming_node_pc_and_instruction():
    sim, res = run_result("        RPTS 2\n        BR 40h\n        SWI\n")
    assert res.event == "error"
    text = res.messages[0]
    assert "node 0" in text and "0x000041" in text and "BR" in text and "RPTS" in text


def test_branch_in_a_delay_slot_is_an_error():
    sim, res = run_result("        BD 40h\n        NOP\n        B 40h\n        NOP\n        SWI\n")
    assert res.event == "error"
    text = res.messages[0]
    assert "node 0" in text and "0x000042" in text and "delay slot" in text and " B" in text


# ---------------------------------------------------------------------------
# Interrupts through IF / IE / GIE [G 7.6]
# ---------------------------------------------------------------------------

INT_BODY = ("        LDI isr, R0\n        STI R0, @1\n"               # INT0's vector is word 1
            "        LDI 1, IE\n        OR 2000h, ST\n"               # enable INT0, set GIE
            "        LDI 1, IF\n"                                     # raise INT0 by software
            "after:  LDI 7, AR1\n        SWI\n"
            "isr:    LDI ST, AR2\n        LDI IF, AR3\n        LDI *AR0, AR4\n        ADDI 1, AR5\n"
            "        RETIU\n")


def test_software_interrupt_is_taken_and_returns_with_reti():
    sim = run(INT_BODY.replace("LDI *AR0, AR4", "LDI SP, AR0\n        LDI *AR0, AR4"),
              regs={"SP": STACK})
    assert sim.reg("AR5") == 1                    # the ISR ran once
    assert not sim.reg("AR2") & GIE               # GIE cleared on entry
    assert sim.reg("AR3") == 0                    # the IF bit was cleared when taken
    assert sim.reg("AR4") == 0x45                 # pushed: the instruction after LDI 1, IF
    assert sim.reg("AR1") == 7 and sim.reg("ST") & GIE and sim.reg("SP") == STACK


def test_interrupt_waits_for_gie_and_ie():
    body = INT_BODY.replace("OR 2000h, ST", "NOP")      # GIE never set
    sim = run(body, regs={"SP": STACK})
    assert sim.reg("AR5") == 0 and sim.reg("IF") == 1
    body = INT_BODY.replace("LDI 1, IE", "LDI 2, IE")   # INT0 not enabled
    sim = run(body, regs={"SP": STACK})
    assert sim.reg("AR5") == 0 and sim.reg("IF") == 1


def test_interrupt_priority_lowest_bit_first():
    body = ("        LDI isr0, R0\n        STI R0, @1\n        LDI isr1, R0\n        STI R0, @2\n"
            "        LDI 3, IE\n        OR 2000h, ST\n        LDI 3, IF\n        NOP\n        SWI\n"
            "isr0:   LDI AR7, AR0\n        ADDI 1, AR7\n        RETIU\n"
            "isr1:   LDI AR7, AR1\n        ADDI 1, AR7\n        RETIU\n")
    sim = run(body, regs={"SP": STACK, "AR7": 10})
    assert sim.reg("AR0") == 10 and sim.reg("AR1") == 11     # INT0 before INT1


def test_idle_with_no_wakeup_is_reported():
    sim, res = run_result("        IDLE\n        SWI\n")
    assert res.event == "idle"
    assert "IDLE" in res.messages[0] and "node 0" in res.messages[0]
    assert sim.reg("ST") & GIE                    # IDLE sets GIE


def test_idle_with_a_pending_interrupt_takes_it():
    body = ("        LDI isr, R0\n        STI R0, @1\n        LDI 1, IE\n        LDI 1, IF\n"
            "        IDLE\n        LDI 3, AR1\n        SWI\n"
            "isr:    LDI 5, AR2\n        RETIU\n")
    sim = run(body, regs={"SP": STACK})
    assert sim.reg("AR2") == 5 and sim.reg("AR1") == 3


def test_swi_is_a_breakpoint():
    sim, res = run_result("        LDI 1, AR0\n        SWI\n        LDI 2, AR0\n        SWI\n")
    assert res.event == "break" and sim.reg("AR0") == 1
    sim.core.resume(0)                            # the host lets it continue
    res = sim.run(max_cycles=1000)
    assert res.event == "break" and sim.reg("AR0") == 2
