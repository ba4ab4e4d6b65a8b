"""Linker descriptions: the grammar and its error messages."""
from __future__ import annotations

import pytest

from rapsim.asm.linkscript import number, parse_script
from rapsim.errors import Diagnostics


def test_full_description():
    s = parse_script("""
/* regions */
MEMORY {
  VEC (RX) : origin = 0x0, length = 0x40      // reset and traps
  SRAM     : o = 40h, l = 64K,
  ram0     : ORG = 8427520 LEN = 0x400        ; decimal origin
}
SECTIONS {
  .vectors : > 0x0
  .text > SRAM
  .data : {} > ram0
  .bss : { .bss .cbss* } > SRAM, align(16)
  .const : load = SRAM align = 4
}
# entry
ENTRY(_c_int00)
""", "t.cmd")
    assert [(r.name, r.origin, r.length) for r in s.regions] == [
        ("VEC", 0, 0x40), ("SRAM", 0x40, 0x10000), ("ram0", 0x809800, 0x400)]
    rules = {r.name: r for r in s.sections}
    assert rules[".vectors"].address == 0 and rules[".vectors"].region is None
    assert rules[".data"].inputs is None and rules[".data"].region == "ram0"
    assert rules[".bss"].inputs == [".bss", ".cbss*"] and rules[".bss"].align == 16
    assert rules[".const"].region == "SRAM" and rules[".const"].align == 4
    assert s.entry == "_c_int00" and rules[".text"].pos == "t.cmd:10:3"


def test_numbers():
    assert [number(t) for t in ("0x1F", "1Fh", "31", "4K", "0FFh")] == [31, 31, 31, 4096, 255]


@pytest.mark.parametrize("text,message", [
    ("SECTIONS { .text > }", "t.cmd:1:20: error: unexpected '}'; expected a name, a number"),
    ("MEMORY { A : origin = 1 }", "t.cmd:1:25: error: unexpected '}'"),
    ("FOO", "t.cmd:1:1: error: unexpected 'FOO'"),
    ("SECTIONS { .t > A align(3) }", "t.cmd:1:19: error: align(3) is not a power of 2"),
    # was accepted, then "memory region A overflows by 1099511365728 words"
    ("SECTIONS { .t > A align(0x10000000000) }",
     "t.cmd:1:19: error: align(1099511627776) is larger than the 24-bit address space"),
    ("MEMORY { A : o = 0, l = 1  A : o = 2, l = 1 }", "t.cmd:1:28: error: memory region A is defined twice"),
    ("MEMORY { A : o = 0, l = 0 }", "memory region A has length 0"),
    ("SECTIONS { .t > A .t > A }", "t.cmd:1:19: error: output section .t appears twice"),
    ("SECTIONS { .t > A > 0x10 }", "t.cmd:1:12: error: .t is given both a region and an address"),
    ("ENTRY(a)\nENTRY(b)", "t.cmd:2:1: error: ENTRY given twice"),
    ("MEMORY { A : o = 0, l = 1 }\nMEMORY { B : o = 4, l = 1 }", "t.cmd:2:1: error: a second MEMORY block"),
    ("/* never closed", "t.cmd:1:1: error: unexpected"),
])
def test_errors_have_positions(text, message):
    with pytest.raises(Diagnostics) as e:
        parse_script(text, "t.cmd")
    assert message in str(e.value)
