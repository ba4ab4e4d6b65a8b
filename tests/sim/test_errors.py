"""A node that goes wrong stops the machine with a message naming the node,
the PC, the instruction and (when the image has a line table) the source
file and line (docs/machine-model.md sections 2 and 3)."""
from __future__ import annotations

import re

import pytest

from rapsim.config import MachineConfig
from rapsim.machine import Simulator
from rapsim.toolchain import build_files


@pytest.fixture
def tmp_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)         # the line table then says prog.asm
    return tmp_path


def run_file(tmp_path, src: str, *, nodes: int = 1, max_cycles: int = 10_000):
    (tmp_path / "prog.asm").write_text("        .global start\n" + src)
    sim = Simulator(MachineConfig(nodes=nodes))
    sim.load(build_files("prog.asm"))
    return sim, sim.run(max_cycles=max_cycles)


def line_of(src: str, marker: str) -> int:
    """Line number (in the file run_file writes) of the line containing marker."""
    lines = ("        .global start\n" + src).splitlines()
    return next(i for i, ln in enumerate(lines, 1) if marker in ln)


def test_illegal_opcode(tmp_path):
    src = """
start:  NOP
        NOP
        .word 0xFFFFFFFF        ; bad
"""
    sim, res = run_file(tmp_path, src)
    assert res.event == "error" and res.node == 0 and not res.ok
    (msg,) = res.messages
    ln = line_of(src, "; bad")
    assert msg.startswith(f"node 0: illegal instruction at PC 0x000042 (prog.asm:{ln}): FFFFFFFF")
    assert sim.counters(0)["instructions"] == 2       # the NOPs ran, nothing after


def test_fetch_from_unmapped_memory_names_the_instruction_that_led_there(tmp_path):
    src = """
start:  NOP
        BR   0x808000           ; jump
"""
    _, res = run_file(tmp_path, src)
    assert res.event == "error"
    (msg,) = res.messages
    ln = line_of(src, "; jump")
    assert msg.startswith("node 0: instruction fetch from an unmapped address at PC 0x808000")
    assert f"the last instruction executed was at PC 0x000041 (prog.asm:{ln})" in msg
    assert "BR 0x808000" in msg


def test_falling_off_the_end_of_sram(tmp_path):
    # 0x3FFFF is the last SRAM word (zero: ABSF R0,R0); the next fetch is at
    # 0x40000, past the end of the 256 K-word SRAM.
    src = """
start:  BR   0x3FFFF
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert msg.startswith("node 0: instruction fetch from an unmapped address at PC 0x040000")
    assert "last instruction executed was at PC 0x03FFFF" in msg


def test_read_of_unmapped_memory(tmp_path):
    src = """
start:  LDP  0x808000           ; the C30 peripherals: not modelled
        LDI  @0x8010, R0        ; read
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    ln = line_of(src, "; read")
    assert msg == (f"node 0: data read from an unmapped address at PC 0x000041 (prog.asm:{ln}): "
                   "08208010  LDI @0x8010,R0 (address 0x808010)")


def test_write_of_unmapped_memory(tmp_path):
    src = """
start:  LDI  0x30, AR0
        LSH  16, AR0            ; AR0 = 0x300000, between SRAM and DRAM
        NOP
        STI  R1, *+AR0(2)       ; write
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    ln = line_of(src, "; write")
    assert re.fullmatch(
        rf"node 0: data write to an unmapped or read-only address at PC 0x000043 \(prog\.asm:{ln}\): "
        r"[0-9A-F]{8}  STI R1,\*\+AR0\(2\) \(address 0x300002, which is unmapped\)", msg), msg


def test_stack_push_to_unmapped_memory(tmp_path):
    src = """
start:  LDI  0x30, SP
        LSH  16, SP
        NOP
        PUSH R0                 ; push
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert f"PC 0x000043 (prog.asm:{line_of(src, '; push')}): " in msg
    assert "PUSH R0 (address 0x300001, which is unmapped)" in msg


@pytest.mark.parametrize("sp, op", [(0x7FFFFF, "PUSH R0"), (0x800004, "CALL start"),
                                     (0x800001, "PUSH R0")])
def test_stack_overflow_into_the_ring_registers(tmp_path, sp, op):
    # a stack growing out of DRAM: the stack cannot use the ring registers
    # (the report used to say that no register exists at RING_DATA)
    src = f"""
start:  LDI  0x{sp >> 16:X}, SP
        LSH  16, SP
        OR   0x{sp & 0xFFFF:X}, SP
        NOP
        {op}                    ; over
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert msg.startswith("node 0: data write to an unmapped or read-only address at PC 0x000044")
    assert msg.endswith(f"(address 0x{sp + 1:06X}, a ring register: the stack cannot be there)")


@pytest.mark.parametrize("offset, name", [(1, "RING_STAT"), (3, "NODE_ID"), (4, "NODE_COUNT")])
def test_write_to_a_read_only_ring_register(tmp_path, offset, name):
    src = f"""
start:  LDP  0x800000
        STI  R0, @{offset}          ; write
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    ln = line_of(src, "; write")
    assert msg == (f"node 0: data write to an unmapped or read-only address at PC 0x000041 "
                   f"(prog.asm:{ln}): 1520000{offset}  STI R0,@0x000{offset} "
                   f"(address 0x80000{offset}: {name} is read-only)")


def test_access_to_a_missing_ring_register(tmp_path):
    src = """
start:  LDP  0x800000
        LDI  @0x10, R0          ; read
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert msg.startswith("node 0: data read from an unmapped address at PC 0x000041")
    assert "(address 0x800010, where no register exists" in msg


def test_error_names_the_failing_node(tmp_path):
    # Only node 2 reads the unmapped peripheral space; the others loop.
    src = """
start:  LDP  0x800000
        LDI  @3, R0             ; NODE_ID
        CMPI 2, R0
        BNZ  $
        LDI  @0x8040, R1        ; bad: 0x808040, serial port 0 (not modelled)
"""
    _, res = run_file(tmp_path, src, nodes=4)
    assert res.event == "error" and res.node == 2
    assert res.messages[0].startswith("node 2: data read from an unmapped address at PC 0x000044 "
                                      f"(prog.asm:{line_of(src, '; bad')})")


def test_runaway_program_hits_the_cycle_limit(tmp_path):
    src = """
start:  NOP
loop:   ADDI 1, R0
        B    loop               ; spin
"""
    sim, res = run_file(tmp_path, src, max_cycles=1000)
    assert res.event == "limit" and not res.ok
    head, *nodes = res.messages
    assert head.startswith("cycle limit of 1000 reached before the program finished")
    assert "--max-cycles" in head
    (state,) = nodes
    # the node stopped at the first instruction boundary at or after cycle 1000
    c = sim.counters(0)
    assert 1000 <= c["cycles"] < 1000 + 4
    pc = sim.core.get_pc(0)
    ln = {0x41: line_of(src, "ADDI"), 0x42: line_of(src, "; spin")}[pc]
    assert f"node 0: " in state and f"PC 0x{pc:06X} (prog.asm:{ln})" in state
    assert ("ADDI 1,R0" if pc == 0x41 else "BU ") in state


def test_branch_in_delay_slot(tmp_path):
    src = """
start:  BRD  l
        NOP
        B    l                  ; slot
        NOP
l:      SWI
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert msg.startswith("node 0: branch, call, return, trap, repeat or IDLE in the delay slots "
                          f"of a delayed branch at PC 0x000042 (prog.asm:{line_of(src, '; slot')})")


def test_rpts_of_a_branch(tmp_path):
    src = """
start:  RPTS 3
        B    start              ; repeated
"""
    _, res = run_file(tmp_path, src)
    (msg,) = res.messages
    assert msg.startswith("node 0: RPTS cannot repeat a branch")
    assert f"PC 0x000041 (prog.asm:{line_of(src, '; repeated')})" in msg


def test_stop_without_line_table_still_names_pc_and_instruction():
    # Code written straight into memory (no image line table).
    sim = Simulator(MachineConfig())
    sim.write(0x100, [0x0C800000, 0xFFFFFFFF])     # NOP, illegal
    sim.reset(0x100)
    res = sim.run(max_cycles=100)
    assert res.messages == ["node 0: illegal instruction at PC 0x000101: FFFFFFFF  .word (illegal)"]


def test_registers_as_numpy_arrays():
    import numpy as np
    from rapsim.machine import Simulator
    sim = Simulator()
    vals = np.array([0.0, 1.5, -2.0, 3.25, 1e-3, -7.0, 100.0, 0.5])
    sim.set_extended_values(vals)
    got = sim.extended_values()
    assert got.dtype == np.float64 and np.allclose(got, vals, rtol=2 ** -30)
    assert sim.extended_registers()[1] == 0x0040000000       # 1.5: exponent 0, fraction .1
    w = sim.register_words()
    assert w.dtype == np.uint32 and w.shape == (28,)
    w[8:10] = [0x123456, 0x654321]
    sim.set_register_words(w)
    assert sim.reg("AR0") == 0x123456 and sim.reg("AR1") == 0x654321
    assert sim.regf("R1") == 1.5                              # exponents kept
