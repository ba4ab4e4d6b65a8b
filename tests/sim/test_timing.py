"""Cycle counts of the timing model (docs/machine-model.md section 4).

Every test runs a small hand-analysed program and compares the simulator's
counters with a count derived, in the comment next to it, from the rules of
docs/machine-model.md (guide sections in brackets):

* R1 [7.1.3, 13]  base cycles: 1; standard branches (B, BR, Bcond taken or
  not, DBcond, CALL, RETScond, RETIcond, RPTS, RPTB) 4; CALLcond and
  TRAPcond 5; delayed branches 1.  Cycles beyond 1 are *branch* stalls.
* R2 [8.2.3]  memory occupancy: the primary bus (SRAM, DRAM) and the
  expansion bus (ring registers) serve one access per cycle, an access with
  w wait states holds its bus 1 + w cycles; each on-chip block serves two
  accesses per cycle.  The accesses are the program fetch (not when the cache
  serves it or RPTS repeats it) and the data reads and writes.  An
  instruction takes max(base, occupancy); the cycles beyond the base are
  *memory wait* (wait states first) and *bus conflict* stalls.
* R3 [8.2.2]  register conflicts: a write of AR0-7/IR0/IR1/BK, DP or SP in the
  execute phase delays the next instruction that uses the group for
  addressing by 2 cycles, the one after by 1; ARn updates of indirect
  addressing and SP updates of push/pop do not conflict.
* R4 [4.3]  cache: two 32-word segments, LRU, one word filled per miss, for
  fetches from SRAM/DRAM only; ST.CE (bit 11) enables, ST.CF (bit 10)
  freezes, writing ST.CC (bit 12) clears.

Programs end with SWI (1 instruction, base 1).  Registers that only set up
addresses are written from Python before the run, so that they cost nothing.
Every run also checks cycles == instructions + all stall cycles.
"""
from __future__ import annotations

import pytest

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.memmap import DRAM_BASE, RAM0_BASE, RAM1_BASE, MemoryConfig
from rapsim.toolchain import build_text

SRAM_DATA = 0x2000          # free SRAM (programs sit at 0x40..)
STACK = 0x1000
DRAM_DATA = DRAM_BASE + 0x100
RAM0 = RAM0_BASE
RAM1 = RAM1_BASE
ST_CF, ST_CE, ST_CC = 0x400, 0x800, 0x1000

HEAD = "        .global start\n"


def run_prog(src: str, *, regs: dict | None = None, mem: dict | None = None,
             config: MachineConfig | None = None, expect: str = "break"):
    cfg = config or MachineConfig()
    sim = Simulator(cfg)
    sim.load(build_text(HEAD + src, memory=cfg.memory))
    for name, value in (regs or {}).items():
        sim.set_reg(name, value)
    for addr, words in (mem or {}).items():
        sim.write(addr, words)
    res = sim.run(max_cycles=1_000_000)
    assert res.event == expect, res.messages
    c = sim.counters(0)
    assert c["cycles"] == c["instructions"] + sum(c["stalls"].values())
    return sim, c


def stalls(c: dict) -> dict:
    """The non-zero stall counters."""
    return {k: v for k, v in c["stalls"].items() if v}


def nonzero(d: dict) -> dict:
    return {k: v for k, v in d.items() if v}


# ---------------------------------------------------------------------------
# 1 cycle per instruction


def test_register_instructions_from_sram_take_one_cycle():
    # Each instruction: base 1, one access (its fetch) on the primary bus ->
    # occupancy 1 -> 1 cycle.  5 instructions + SWI = 6 cycles, no stalls.
    _, c = run_prog("""
start:  LDI  1, R0
        ADDI R0, R1
        MPYI 3, R1
        LDF  1.5, R2
        ADDF R2, R3
        SWI
""")
    assert c["instructions"] == 6
    assert c["cycles"] == 6
    assert stalls(c) == {}
    assert nonzero(c["fetches"]) == {"SRAM": 6}


@pytest.mark.parametrize("data, code_sect, region", [
    (SRAM_DATA, ".ram0", "SRAM"),       # fetch from block 0, data on the primary bus
    (RAM1, ".ram0", "RAM1"),            # fetch from block 0, data from block 1
    (RAM0 + 0x200, ".ram1", "RAM0"),    # fetch from block 1, data from block 0
])
def test_code_in_onchip_ram_runs_one_cycle_per_instruction(data, code_sect, region):
    # Code in an on-chip block: the fetch uses that block, the data access
    # another bus or block, so no bus or block sees more than it serves in
    # one cycle: every instruction takes 1 cycle.  4 loads/stores + SWI = 5.
    _, c = run_prog(f"""
        .sect "{code_sect}"
start:  LDI  *AR0, R0
        STI  R0, *+AR0(1)
        LDF  *+AR0(2), R1
        STF  R1, *+AR0(3)
        SWI
""", regs={"AR0": data})
    assert c["cycles"] == 5
    assert stalls(c) == {}
    assert c["reads"][region] == 2 and c["writes"][region] == 2


def test_fetch_and_data_share_the_primary_bus_without_cache():
    # Code in SRAM, cache off, data in SRAM: each load/store makes two
    # primary-bus accesses (fetch + data) -> 2 cycles, 1 bus-conflict stall.
    # 2 loads + 2 stores = 8 cycles, SWI 1 -> 9 cycles, 4 bus-conflict stalls.
    _, c = run_prog("""
start:  LDI  *AR0, R0
        STI  R0, *+AR0(1)
        LDF  *+AR0(2), R1
        STF  R1, *+AR0(3)
        SWI
""", regs={"AR0": SRAM_DATA})
    assert c["cycles"] == 9
    assert stalls(c) == {"bus_conflict": 4}


def test_cache_makes_sram_loads_single_cycle():
    # A loop in SRAM reading SRAM: LDI ST (fetched before CE is set, 1 cycle),
    # LDI RC (1, cache miss), RPTB (4, miss), then 10 passes of a 2-load block.
    # Pass 1: both fetches miss -> fetch + data on the primary bus -> 2 cycles
    # each; passes 2-10: fetches hit -> only the data access -> 1 cycle each.
    # SWI: miss, fetch only -> 1.  Total 1+1+4 + 2*2 + 9*2 + 1 = 29.
    # Misses: LDI RC, RPTB, 2 loop words, SWI = 5; hits: 9 * 2 = 18.
    sim, c = run_prog(f"""
start:  LDI  {ST_CE}, ST
        LDI  9, RC
        RPTB e
        LDI  *AR0, R0
e:      LDI  *+AR0(1), R1
        SWI
""", regs={"AR0": SRAM_DATA})
    assert c["cache"] == {"hits": 18, "misses": 5}
    assert c["cycles"] == 29
    assert stalls(c) == {"branch": 3, "bus_conflict": 2}
    # without the cache: every one of the 20 loads takes 2 cycles:
    # 1 + 1 + 4 + 20*2 + 1 = 47
    sim, c = run_prog("""
start:  LDI  0, ST
        LDI  9, RC
        RPTB e
        LDI  *AR0, R0
e:      LDI  *+AR0(1), R1
        SWI
""", regs={"AR0": SRAM_DATA})
    assert c["cache"] == {"hits": 0, "misses": 0}
    assert c["cycles"] == 47


# ---------------------------------------------------------------------------
# wait states and bus conflicts


@pytest.mark.parametrize("wait", [0, 2, 5])
def test_dram_data_wait_states(wait):
    # Code in RAM0 (fetch off the external buses).  LDI from DRAM: one access
    # holding the primary bus 1 + w cycles -> 1 + w cycles, w memory-wait
    # stalls; the same for the store.  + SWI (1).
    cfg = MachineConfig(memory=MemoryConfig(dram_wait=wait))
    _, c = run_prog("""
        .sect ".ram0"
start:  LDI  *AR0, R0
        STI  R0, *+AR0(1)
        SWI
""", regs={"AR0": DRAM_DATA}, config=cfg)
    assert c["cycles"] == 2 * (1 + wait) + 1
    assert c["stalls"]["memory_wait"] == 2 * wait
    assert c["stalls"]["bus_conflict"] == 0
    assert c["reads"]["DRAM"] == 1 and c["writes"]["DRAM"] == 1


def test_default_dram_wait_is_two():
    # Default configuration: DRAM 2 wait states.  Code fetched from DRAM with
    # the cache off: each fetch holds the primary bus 3 cycles -> NOP, NOP,
    # SWI = 9 cycles, 6 memory-wait stalls.
    _, c = run_prog("""
        .sect ".dram"
start:  NOP
        NOP
        SWI
""")
    assert c["cycles"] == 9
    assert stalls(c) == {"memory_wait": 6}
    assert nonzero(c["fetches"]) == {"DRAM": 3}


def test_sram_code_with_dram_data():
    # Fetch from SRAM (1) + DRAM read (1 + 2) on the primary bus -> 4 cycles:
    # 2 memory wait + 1 bus conflict.  + SWI 1 = 5.
    _, c = run_prog("""
start:  LDI  *AR0, R0
        SWI
""", regs={"AR0": DRAM_DATA})
    assert c["cycles"] == 5
    assert stalls(c) == {"memory_wait": 2, "bus_conflict": 1}


def test_sram_wait_states_are_configurable():
    # sram_wait = 1: every SRAM fetch holds the bus 2 cycles.  NOP, SWI from
    # SRAM -> 2 + 2 = 4 cycles, all memory wait beyond the 2 instructions.
    cfg = MachineConfig(memory=MemoryConfig(sram_wait=1))
    _, c = run_prog("""
start:  NOP
        SWI
""", config=cfg)
    assert c["cycles"] == 4
    assert stalls(c) == {"memory_wait": 2}


@pytest.mark.parametrize("a0, a1, cycles, kind", [
    # code in RAM1; two data reads of one instruction:
    (SRAM_DATA, SRAM_DATA + 8, 2, {"bus_conflict": 1}),   # both primary: 2 accesses -> 2
    (SRAM_DATA, DRAM_DATA, 4, {"memory_wait": 2, "bus_conflict": 1}),  # 1 + (1+2) -> 4
    (DRAM_DATA, DRAM_DATA + 8, 6, {"memory_wait": 4, "bus_conflict": 1}),  # 3 + 3 -> 6
    (SRAM_DATA, RAM0, 1, {}),                             # different buses -> 1
    (RAM0, RAM0 + 8, 1, {}),                              # one block, 2 accesses -> 1
])
def test_two_data_accesses_of_one_instruction(a0, a1, cycles, kind):
    # ADDI3 *AR0, *AR1, R0: two reads; + SWI (1 cycle, fetched from RAM1).
    _, c = run_prog("""
        .sect ".ram1"
start:  ADDI3 *AR0, *AR1, R0
        SWI
""", regs={"AR0": a0, "AR1": a1})
    assert c["cycles"] == cycles + 1
    assert stalls(c) == kind


def test_parallel_stores_on_one_external_bus():
    # STF || STF to SRAM from RAM0 code: two writes on the primary bus -> 2.
    _, c = run_prog("""
        .sect ".ram0"
start:  STF  R0, *AR0
     || STF  R1, *AR1
        SWI
""", regs={"AR0": SRAM_DATA, "AR1": SRAM_DATA + 1})
    assert c["cycles"] == 2 + 1
    assert stalls(c) == {"bus_conflict": 1}
    assert c["writes"]["SRAM"] == 2


def test_expansion_bus_is_separate_from_the_primary_bus():
    # LDI @NODE_ID from SRAM code: fetch on the primary bus, read on the
    # expansion bus -> 1 cycle.  The DP load before it is 2 instructions away
    # (LDP, NOP, LDI: distance 2 -> 1 register-conflict stall, rule R3).
    # LDP 1 + NOP 1 + (1 stall + 1) + SWI 1 = 5.
    sim, c = run_prog("""
start:  LDP  0x800000
        NOP
        LDI  @3, R0
        SWI
""")
    assert c["cycles"] == 5
    assert stalls(c) == {"register_conflict": 1}
    assert c["reads"]["RINGIO"] == 1


@pytest.mark.parametrize("code_sect, cycles", [
    (".ram0", 2),   # fetch + 2 reads on block 0: 3 accesses -> ceil(3/2) = 2
    (".ram1", 1),   # fetch on block 1, 2 reads on block 0 -> 1
    (".text", 1),   # fetch on the primary bus, 2 reads on block 0 -> 1
])
def test_three_accesses_to_one_onchip_block(code_sect, cycles):
    # MPYF3 *AR0, *AR1, R0 with both operands in RAM0.  + SWI (1 cycle).
    _, c = run_prog(f"""
        .sect "{code_sect}"
start:  MPYF3 *AR0, *AR1, R0
        SWI
""", regs={"AR0": RAM0 + 0x100, "AR1": RAM0 + 0x200})
    assert c["cycles"] == cycles + 1
    assert c["stalls"]["bus_conflict"] == cycles - 1
    assert c["reads"]["RAM0"] == 2


def test_occupancy_beyond_the_base_of_a_call():
    # CALL from SRAM with the stack in DRAM (wait 6): occupancy = fetch 1 +
    # push (1 + 6) = 8 > base 4 -> 8 cycles: 3 branch stalls (base), then the
    # 4 cycles beyond the base are memory wait (wait states first, 6 >= 4).
    # RETSU (SP still in DRAM): fetch 1 + pop 7 = 8 -> 8 cycles, same split.
    # SWI 1.  Total 17.
    cfg = MachineConfig(memory=MemoryConfig(dram_wait=6))
    _, c = run_prog("""
start:  CALL f
        SWI
f:      RETSU
""", regs={"SP": DRAM_DATA}, config=cfg)
    assert c["cycles"] == 8 + 8 + 1
    assert stalls(c) == {"branch": 6, "memory_wait": 8}


# ---------------------------------------------------------------------------
# branches, calls, repeats (rule R1)


@pytest.mark.parametrize("body, cycles, executed, branch_stalls", [
    # (program between start and SWI, its cycles, instructions, branch stalls)
    ("        B    l\n        NOP\nl:\n", 4, 1, 3),                  # B taken: 4
    ("        BR   l\n        NOP\nl:\n", 4, 1, 3),                  # BR: 4
    ("        LDI  0, R0\n        BZ   l\n        NOP\nl:\n", 1 + 4, 2, 3),    # Bcond taken: 4
    ("        LDI  1, R0\n        BZ   l\n        NOP\nl:\n", 1 + 4 + 1, 3, 3),  # not taken: 4
    # delayed: 1 cycle, the 3 slots execute (1 each), then the target
    ("        BRD  l\n        NOP\n        NOP\n        NOP\n        NOP\nl:\n", 1 + 3, 4, 0),
    ("        LDI  1, R0\n        BZD  l\n        NOP\n        NOP\n        NOP\n"
     "        NOP\nl:\n", 1 + 1 + 3 + 1, 6, 0),                        # BcondD not taken
    ("        LDI  0, R0\n        BZD  l\n        NOP\n        NOP\n        NOP\n"
     "        NOP\nl:\n", 1 + 1 + 3, 5, 0),                            # BcondD taken
])
def test_branch_cycles(body, cycles, executed, branch_stalls):
    _, c = run_prog("start:\n" + body + "        SWI\n")
    assert c["instructions"] == executed + 1
    assert c["cycles"] == cycles + 1
    assert stalls(c) == ({"branch": branch_stalls} if branch_stalls else {})


def test_dbcond_costs_four_cycles_each_time():
    # AR1 = 2: DBU runs 3 times (2->1 branch, 1->0 branch, 0->-1 falls
    # through), 4 cycles each, taken or not.  The LDI to AR1 is 3 instructions
    # before the first DBU (no conflict).  1 + 2 + 3*4 + SWI 1 = 16.
    _, c = run_prog("""
start:  LDI  2, AR1
        NOP
        NOP
l:      DBU  AR1, l
        SWI
""")
    assert c["cycles"] == 16
    assert stalls(c) == {"branch": 9}


def test_delayed_dbcond_costs_one_cycle():
    # DBUD runs 3 times (1 cycle) with 3 NOP slots each (3 cycles): 3*4 = 12,
    # + LDI, 2 NOPs, SWI = 16 cycles, 16 instructions, no stall.
    _, c = run_prog("""
start:  LDI  2, AR1
        NOP
        NOP
l:      DBUD AR1, l
        NOP
        NOP
        NOP
        SWI
""")
    assert c["cycles"] == 16 and c["instructions"] == 16
    assert stalls(c) == {}


def test_call_and_return_cost_four():
    # SP is set from Python (no conflict).  CALL 4 + RETSU 4 + SWI 1 = 9.
    # Stack accesses (push, pop) ride within the 4 base cycles.
    _, c = run_prog("""
start:  CALL f
        SWI
f:      RETSU
""", regs={"SP": STACK})
    assert c["cycles"] == 9
    assert stalls(c) == {"branch": 6}
    assert c["writes"]["SRAM"] == 1 and c["reads"]["SRAM"] == 1


def test_conditional_call_costs_five_taken_or_not():
    # R0 = 0 (Z set by LDI): CALLZ taken 5, RETSU 4, CALLNZ not taken 5,
    # SWI 1; + LDI 1.  Total 16; branch stalls 4 + 3 + 4.
    _, c = run_prog("""
start:  LDI  0, R0
        CALLZ f
        CALLNZ f
        SWI
f:      RETSU
""", regs={"SP": STACK})
    assert c["cycles"] == 1 + 5 + 4 + 5 + 1
    assert stalls(c) == {"branch": 11}
    assert c["writes"]["SRAM"] == 1          # only the taken call pushes


def test_conditional_return_costs_four_taken_or_not():
    # CALL 4; RETSNZ with Z set (R0 = 0 loaded before the call) not taken 4;
    # RETSU 4; SWI 1; LDI 1.  Total 14.
    _, c = run_prog("""
start:  LDI  0, R0
        CALL f
        SWI
f:      RETSNZ
        RETSU
""", regs={"SP": STACK})
    assert c["cycles"] == 1 + 4 + 4 + 4 + 1
    assert stalls(c) == {"branch": 9}


def test_trap_costs_five_and_reti_four():
    # TRAPU 2 jumps through word 0x22: 5 cycles (push + vector read within
    # the base); RETIU 4; SWI 1.  Total 10.
    sim = Simulator(MachineConfig())
    sim.load(build_text(HEAD + """
start:  TRAPU 2
        SWI
h:      RETIU
"""))
    sim.write(0x22, [sim.image.symbols["h"]])
    sim.set_reg("SP", STACK)
    res = sim.run(max_cycles=1000)
    assert res.event == "break"
    c = sim.counters(0)
    assert c["cycles"] == 5 + 4 + 1
    assert stalls(c) == {"branch": 4 + 3}
    assert c["reads"]["SRAM"] == 2 and c["writes"]["SRAM"] == 1   # vector + pop, push


@pytest.mark.parametrize("n", [0, 9, 99])
def test_rpts_costs_four_once_and_fetches_once(n):
    # RPTS n: 4 cycles, then the NOP executes n+1 times at 1 cycle each,
    # fetched once.  + SWI 1.
    _, c = run_prog(f"""
start:  RPTS {n}
        NOP
        SWI
""")
    assert c["cycles"] == 4 + (n + 1) + 1
    assert c["instructions"] == 1 + (n + 1) + 1
    assert c["fetches"]["SRAM"] == 3
    assert stalls(c) == {"branch": 3}


@pytest.mark.parametrize("rc", [0, 4, 49])
def test_rptb_costs_four_once(rc):
    # LDI RC 1; RPTB 4; the 3-instruction block runs rc+1 times at 1 cycle
    # per instruction (no per-iteration overhead); SWI 1.
    _, c = run_prog(f"""
start:  LDI  {rc}, RC
        RPTB e
        NOP
        ADDI 1, R0
e:      NOP
        SWI
""")
    assert c["cycles"] == 1 + 4 + 3 * (rc + 1) + 1
    assert stalls(c) == {"branch": 3}


# ---------------------------------------------------------------------------
# register conflicts (rule R3)


@pytest.mark.parametrize("distance, stall", [(1, 2), (2, 1), (3, 0), (4, 0)])
@pytest.mark.parametrize("writer", ["LDI  0x2000, AR0", "LDI  1, IR0", "LDI  8, BK",
                                    "ADDI 0, AR5", "LDI  *AR2, AR7"])
def test_ar_group_write_then_indirect_use(writer, distance, stall):
    # The writer (1 cycle, or 2 when it reads SRAM from SRAM code), distance-1
    # NOPs, then LDI *AR0 (2 cycles: fetch + SRAM read).  Any write to the
    # group (AR0-7, IR0, IR1, BK) delays the user: 2 at distance 1, 1 at 2.
    w_cycles = 2 if "*AR2" in writer else 1
    nops = "        NOP\n" * (distance - 1)
    _, c = run_prog(f"""
start:  {writer}
{nops}        LDI  *AR0, R0
        SWI
""", regs={"AR0": SRAM_DATA, "AR2": SRAM_DATA + 4})
    assert c["cycles"] == w_cycles + (distance - 1) + stall + 2 + 1
    assert c["stalls"]["register_conflict"] == stall


def test_conflict_with_multicycle_instruction_in_between():
    # LDI to AR0, then LDI *AR1 (2 cycles: SRAM fetch + read; it uses the AR
    # group at distance 1 -> 2 stalls), then LDI *AR0 at distance 2: its
    # decode waits until 2 cycles after the writer ends, already past -> 0.
    # 1 + (2 + 2) + 2 + SWI 1 = 8.
    _, c = run_prog("""
start:  LDI  0x2000, AR0
        LDI  *AR1, R1
        LDI  *AR0, R0
        SWI
""", regs={"AR1": SRAM_DATA})
    assert c["cycles"] == 8
    assert c["stalls"]["register_conflict"] == 2


def test_dp_write_then_direct_use():
    # LDP then LDI @x: 2 stalls; LDP, NOP, LDI @x: 1.  The direct read of SRAM
    # from SRAM code takes 2 cycles.
    _, c = run_prog("""
start:  LDP  0
        LDI  @0x2000, R0
        SWI
""")
    assert c["cycles"] == 1 + 2 + 2 + 1
    assert c["stalls"]["register_conflict"] == 2
    _, c = run_prog("""
start:  LDI  0, DP
        NOP
        LDI  @0x2000, R0
        SWI
""")
    assert c["cycles"] == 1 + 1 + 1 + 2 + 1
    assert c["stalls"]["register_conflict"] == 1


@pytest.mark.parametrize("user, user_cycles", [
    ("PUSH R0", 2),     # fetch + stack write on the primary bus
    ("CALL f", 4),
    ("POP  R0", 2),
])
def test_sp_write_then_stack_use(user, user_cycles):
    # LDI to SP then a stack operation at distance 1: 2 stalls.  f: SWI.
    _, c = run_prog(f"""
start:  LDI  0x1000, SP
        {user}
        SWI
f:      SWI
""")
    assert c["stalls"]["register_conflict"] == 2
    assert c["cycles"] == 1 + 2 + user_cycles + 1


def test_no_conflict_from_addressing_updates():
    # *AR0++ updates AR0 in decode: the next *AR0 does not wait; PUSH and POP
    # update SP in decode: back-to-back stack operations do not wait.  Every
    # instruction is 2 cycles (SRAM fetch + SRAM data) except SWI.
    _, c = run_prog("""
start:  LDI  *AR0++, R0
        LDI  *AR0, R1
        PUSH R0
        POP  R2
        PUSH R1
        SWI
""", regs={"AR0": SRAM_DATA, "SP": STACK})
    assert c["stalls"]["register_conflict"] == 0
    assert c["cycles"] == 5 * 2 + 1


def test_no_conflict_across_groups_or_for_other_registers():
    # A write of R0 or of AR0 does not delay a direct access (DP group), a
    # write of DP does not delay an indirect one, a write of SP does not delay
    # indirect or direct accesses.
    _, c = run_prog("""
start:  LDI  5, R0
        LDI  *AR1, R1
        LDI  0x2000, AR0
        LDI  @0x2000, R2
        LDP  0
        LDI  *AR1, R3
        LDI  0x1000, SP
        LDI  *AR1, R4
        SWI
""", regs={"AR1": SRAM_DATA})
    assert c["stalls"]["register_conflict"] == 0
    assert c["cycles"] == 4 * 1 + 4 * 2 + 1


def test_dbcond_waits_for_its_register():
    # DBcond uses ARn for address arithmetic: LDI 0, AR1 then DBU AR1 at
    # distance 1 -> 2 stalls; DBU falls through (AR1 -> -1): 4 cycles.
    _, c = run_prog("""
start:  LDI  0, AR1
l:      DBU  AR1, l
        SWI
""")
    assert c["cycles"] == 1 + 2 + 4 + 1
    assert c["stalls"]["register_conflict"] == 2


# ---------------------------------------------------------------------------
# instruction cache (rule R4)


def test_cache_not_used_when_disabled():
    _, c = run_prog("""
start:  NOP
        NOP
        SWI
""")
    assert c["cache"] == {"hits": 0, "misses": 0}


def test_cache_only_serves_external_fetches():
    # Code in RAM0 with CE set: on-chip fetches never consult the cache.
    _, c = run_prog(f"""
        .sect ".ram0"
start:  LDI  {ST_CE}, ST
        LDI  4, RC
        RPTB e
e:      NOP
        SWI
""")
    assert c["cache"] == {"hits": 0, "misses": 0}


def _segments_program(nseg: int, passes: int) -> str:
    # BR to the first of nseg 32-word-aligned segments, each holding one
    # branch to the next; the last holds a DBU back to the first.
    lines = [f"start:  LDI  {ST_CE}, ST", f"        LDI  {passes - 1}, AR1", "        BR   s0"]
    for i in range(nseg):
        lines.append("        .align 32")
        if i < nseg - 1:
            lines.append(f"s{i}:     BR   s{i + 1}")
        else:
            lines.append(f"s{i}:     DBU  AR1, s0")
    lines.append("        SWI")
    return "\n".join(lines) + "\n"


def test_cache_lru_keeps_two_segments():
    # Two segments visited in turn, 5 passes: LDI AR1 and BR s0 miss (segment
    # of 0x40), s0 and s1 miss on pass 1 (they replace the LRU segment), hit on
    # passes 2-5; SWI (next word of s1's segment, never fetched) misses.
    # Misses 2 + 2 + 1 = 5, hits 2 * 4 = 8.
    # Cycles: LDI ST 1, LDI AR1 1, BR 4, 5 * (BR 4 + DBU 4), SWI 1 = 47.
    _, c = run_prog(_segments_program(2, 5))
    assert c["cache"] == {"hits": 8, "misses": 5}
    assert c["cycles"] == 47


def test_cache_lru_thrashes_on_three_segments():
    # Three segments in turn with two cache segments and LRU replacement:
    # each fetch finds its segment evicted -> every fetch after CE misses:
    # LDI AR1, BR s0, 5 * 3 loop words, SWI = 18 misses, no hit.
    _, c = run_prog(_segments_program(3, 5))
    assert c["cache"] == {"hits": 0, "misses": 18}


def test_cache_fills_one_word_per_miss():
    # A straight run of 8 NOPs in one segment, then a loop back over them once
    # more: the first pass misses 8 times (one word filled per miss, no line
    # fill), the second hits 8 times.
    _, c = run_prog(f"""
start:  LDI  {ST_CE}, ST
        LDI  1, RC
        RPTB e
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
e:      NOP
        SWI
""")
    # misses: LDI RC, RPTB, 8 NOPs, SWI = 11; hits: 8
    assert c["cache"] == {"hits": 8, "misses": 11}


def test_cache_freeze_stops_filling():
    # CE and CF from the start: nothing is ever filled, so every fetch after
    # LDI ST misses: LDI RC, RPTB, 10 * 2 loop words, SWI = 23 misses.
    _, c = run_prog(f"""
start:  LDI  {ST_CE | ST_CF}, ST
        LDI  9, RC
        RPTB e
        NOP
e:      NOP
        SWI
""")
    assert c["cache"] == {"hits": 0, "misses": 23}


FREEZE = f"""
start:  LDI  {ST_CE}, ST     ; A+0 (fetched before CE: no lookup)
        CALL f               ; A+1
        OR   {{x}}, ST        ; A+2
        CALL f               ; A+3
        CALL g               ; A+4
        CALL f               ; A+5
        SWI                  ; A+6
        .align 32
f:      NOP                  ; F+0
        RETSU                ; F+1
        .align 32
g:      NOP                  ; G+0
        RETSU                ; G+1
"""


def test_cache_freeze_keeps_the_contents():
    # Segments A (start), F (f) and G (g); cache slots empty, slot 1 LRU.
    # Before the OR executes: A+1 miss (slot 1 <- A), F+0 miss (slot 0 <- F),
    # F+1 miss (fill), A+2 miss (fill): 4 misses.
    # Frozen (x = CF): A+3 miss, F+0/F+1 hit, A+4 miss, G+0/G+1 miss (no
    # replacement), A+5 miss, F+0/F+1 hit (F kept), SWI miss:
    #   hits 4, misses 4 + 6 = 10.
    _, c = run_prog(FREEZE.format(x=ST_CF), regs={"SP": RAM1})
    assert c["cache"] == {"hits": 4, "misses": 10}
    # Not frozen (x = 0): A+3 miss, F hits 2, A+4 miss, G replaces the LRU
    # segment F (2 misses), A+5 miss, F replaces G (2 misses), SWI miss:
    #   hits 2, misses 4 + 8 = 12.
    _, c = run_prog(FREEZE.format(x=0), regs={"SP": RAM1})
    assert c["cache"] == {"hits": 2, "misses": 12}


def test_cache_clear():
    # Writing CC (with CE) inside the loop invalidates the cache every pass:
    # all 24 fetches after LDI ST miss (LDI RC, RPTB, 10 * 2, LDI R5, SWI).
    sim, c = run_prog(f"""
start:  LDI  {ST_CE}, ST
        LDI  9, RC
        RPTB e
        NOP
e:      OR   {ST_CC}, ST
        LDI  ST, R5
        SWI
""")
    assert c["cache"] == {"hits": 0, "misses": 24}
    assert sim.reg("R5") & ST_CC == 0          # CC reads as 0
    assert sim.reg("ST") & ST_CE


# ---------------------------------------------------------------------------
# counters


def test_counters_attribute_every_access_and_stall():
    # Code in SRAM, SP in RAM1, data in RAM0, SRAM and DRAM:
    #   LDI *AR0 (RAM0)       fetch SRAM, read RAM0           1
    #   STI R0, *AR1 (SRAM)   fetch + write SRAM              2 (1 bus conflict)
    #   LDI *AR2 (DRAM)       fetch + read DRAM (1+2)         4 (2 wait, 1 conflict)
    #   PUSH R0               fetch SRAM, write RAM1          1
    #   POP R1                fetch SRAM, read RAM1           1
    #   LDI @NODE_COUNT...    via DP set from Python: fetch SRAM, read RINGIO 1
    #   BR l                  4 (3 branch)
    #   l: SWI                1
    sim, c = run_prog("""
start:  LDI  *AR0, R0
        STI  R0, *AR1
        LDI  *AR2, R2
        PUSH R0
        POP  R1
        LDI  @4, R3
        BR   l
l:      SWI
""", regs={"AR0": RAM0, "AR1": SRAM_DATA, "AR2": DRAM_DATA, "SP": RAM1 + 0x10,
           "DP": 0x80})
    assert c["instructions"] == 8
    assert c["cycles"] == 1 + 2 + 4 + 1 + 1 + 1 + 4 + 1
    assert c["stalls"] == {"branch": 3, "register_conflict": 0, "memory_wait": 2,
                           "bus_conflict": 2, "ring_read": 0, "ring_write": 0, "host_call": 0}
    assert c["fetches"] == {"SRAM": 8, "DRAM": 0, "RAM0": 0, "RAM1": 0, "RINGIO": 0}
    assert c["reads"] == {"SRAM": 0, "DRAM": 1, "RAM0": 1, "RAM1": 1, "RINGIO": 1}
    assert c["writes"] == {"SRAM": 1, "DRAM": 0, "RAM0": 0, "RAM1": 1, "RINGIO": 0}
    assert sim.reg("R3") == 1                  # NODE_COUNT


# ---------------------------------------------------------------------------
# the dot product


DOT = """
start:  RPTS {n}
        MPYF3 *AR0++, *AR1++, R0
     || ADDF3 R0, R2, R2
        ADDF R0, R2
        SWI
"""


def _dot(a_addr: int, b_addr: int, n: int, config: MachineConfig | None = None,
         sect: str = ".text"):
    cfg = config or MachineConfig()
    sim = Simulator(cfg)
    sim.load(build_text(HEAD + f'        .sect "{sect}"\n' + DOT.format(n=n - 1),
                        memory=cfg.memory))
    a = [1.0 + (i % 7) for i in range(n)]
    b = [float(i % 5) - 2.0 for i in range(n)]
    sim.write_floats(a_addr, a)
    sim.write_floats(b_addr, b)
    sim.set_reg("AR0", a_addr)
    sim.set_reg("AR1", b_addr)
    sim.set_regf("R0", 0.0)
    sim.set_regf("R2", 0.0)
    res = sim.run(max_cycles=1_000_000)
    assert res.event == "break", res.messages
    assert sim.regf("R2") == sum(x * y for x, y in zip(a, b))
    c = sim.counters(0)
    assert c["cycles"] == c["instructions"] + sum(c["stalls"].values())
    return c


@pytest.mark.parametrize("a, b, per_step", [
    (RAM0, SRAM_DATA, 1),          # on-chip + primary bus: 1 access each
    (SRAM_DATA, RAM0, 1),
    (RAM0, RAM0 + 0x200, 1),       # one block, two accesses
    (RAM0, RAM1, 1),
    (SRAM_DATA, SRAM_DATA + 0x400, 2),   # two accesses on the primary bus
    (DRAM_DATA, RAM0, 3),          # one DRAM access: 1 + 2 wait states
    (DRAM_DATA, SRAM_DATA, 4),     # DRAM (3) + SRAM (1) on the primary bus
])
def test_dot_product_cycles_per_step(a, b, per_step):
    # Each extra step of the repeated MPYF3||ADDF3 costs exactly its data
    # occupancy (no fetch, no repeat overhead): compare n = 100 and n = 200.
    c100 = _dot(a, b, 100)
    c200 = _dot(a, b, 200)
    assert c200["cycles"] - c100["cycles"] == 100 * per_step
    assert c200["instructions"] - c100["instructions"] == 100


def test_dot_product_total_one_vector_on_chip():
    # Code in SRAM, a in RAM0, b in SRAM, n = 100:
    #   RPTS 99: 4 cycles.
    #   step 1: fetch (SRAM) + read b (SRAM) on the primary bus -> 2.
    #   steps 2-100: read a (RAM0) + read b (SRAM) -> 1 each = 99.
    #   ADDF 1, SWI 1.   Total 107, fetched words 4 (RPTS, MPYF, ADDF, SWI).
    c = _dot(RAM0, SRAM_DATA, 100)
    assert c["cycles"] == 4 + 2 + 99 + 1 + 1
    assert c["fetches"]["SRAM"] == 4
    assert c["reads"] == {"SRAM": 100, "DRAM": 0, "RAM0": 100, "RAM1": 0, "RINGIO": 0}
    assert stalls(c) == {"branch": 3, "bus_conflict": 1}
    # with the code in RAM1 the first step has no conflict either: 106
    c = _dot(RAM0, SRAM_DATA, 100, sect=".ram1")
    assert c["cycles"] == 4 + 100 + 1 + 1


def test_dot_product_total_both_in_sram():
    # RPTS 4; step 1: fetch + 2 reads on the primary bus = 3; steps 2-100:
    # 2 each = 198; ADDF 1; SWI 1.  Total 207.
    c = _dot(SRAM_DATA, SRAM_DATA + 0x400, 100)
    assert c["cycles"] == 4 + 3 + 198 + 1 + 1
