"""A catalogue of bad lines and the exact message each one gets.

Every message is ``file:line:col: error: text``; the column points at the
offending token or operand.  A file's errors are all reported, in source
order, and no object is produced.
"""
from __future__ import annotations

import pytest

from rapsim.asm.assembler import assemble_text
from rapsim.errors import Diagnostics


def messages(src: str) -> list[str]:
    with pytest.raises(Diagnostics) as e:
        assemble_text(src, "e.asm")
    return e.value.messages


# (the line, its first message after "e.asm:1:")
CATALOGUE = [
    ('        FOO R0',
     "9: error: unknown instruction 'FOO'"),
    ('        LDA R0, AR0',
     '9: error: LDA is a TMS320C4x instruction, not available on the TMS320C30'),
    # the conditional C4x families were "unknown instruction 'BZAT'"
    ('        BZAT 5',
     '9: error: BZAT is a TMS320C4x instruction, not available on the TMS320C30'),
    ('        RETINZD',
     '9: error: RETINZD is a TMS320C4x instruction, not available on the TMS320C30'),
    ('        LAJGE 5',
     '9: error: LAJGE is a TMS320C4x instruction, not available on the TMS320C30'),
    ('        LOPOWER',
     '9: error: LOPOWER is a TMS320C31/VC33 (low-power mode) instruction, not available on the TMS320C30'),
    ('        LDI 5',
     '9: error: LDI takes 2 operands, got 1'),
    ('        LDI 5, R1, R2',
     '9: error: LDI takes 2 operands, got 3'),
    ('        NOP R0, R1',
     '9: error: NOP takes 0 or 1 operands, got 2'),
    ('        ADDF AR0, R0',
     '14: error: operand 1 of ADDF must be one of R0-R7 or a direct address (@expr) or an indirect operand or a floating-point constant, not AR0'),
    ('        ADDF R0, AR1',
     '18: error: operand 2 of ADDF must be one of R0-R7, not AR1'),
    ('        LDI 100000, R0',
     '13: error: value 100000 does not fit a signed 16-bit immediate (-32768..32767)'),
    ('        AND -1, R0',
     '13: error: value -1 does not fit an unsigned 16-bit immediate (0..65535)'),
    ('        LDI *+AR0(256), R0',
     '13: error: displacement 256 out of range 0..255'),
    ('        LDI *+AR0(-1), R0',
     '13: error: displacement -1 out of range 0..255'),
    ('        ADDI3 *+AR0(2), R1, R2',
     '15: error: operand 1 of ADDI3 must be a register or an indirect operand with displacement 0 or 1, IR0 or IR1, not an indirect operand'),
    ('        LDI R8, R0',
     '13: error: R8 is a TMS320C4x register, not available on the TMS320C30'),
    ('        LDI IVTP, R0',
     '13: error: IVTP is a TMS320C4x register, not available on the TMS320C30'),
    ('        LDI *AR8, R0',
     "14: error: malformed indirect operand: expected AR0-AR7 after '*', not 'AR8'"),
    ('        LDI *R0, R0',
     "14: error: malformed indirect operand: expected AR0-AR7 after '*', not 'R0'"),
    ('        LDI *AR0(1), R0',
     '13: error: malformed indirect operand: no such addressing mode (see the indirect modes in docs/assembler.md)'),
    ('        LDI *++AR0++, R0',
     '13: error: malformed indirect operand: ARn cannot be modified both before and after'),
    ('        LDI *AR0++(R1), R0',
     '20: error: malformed indirect operand: the index must be a displacement, IR0 or IR1, not R1'),
    ('        LDI *AR0++(IR0)X, R0',
     "24: error: malformed indirect operand: unexpected 'X'"),
    ('        LDI *+AR0(IR0)B, R0',
     '13: error: malformed indirect operand: no such addressing mode (see the indirect modes in docs/assembler.md)'),
    ('        LDI nosuch, R0',
     "13: error: undefined symbol 'nosuch'"),
    ('        LDI R0+1, R1',
     '13: error: register R0 cannot be used in an expression'),
    ('        LDI 2*AR0, R1',
     '15: error: register AR0 cannot be used in an expression'),
    ('        LDI 12zz, R0',
     "13: error: bad number literal '12zz'"),
    ('        LDI 0xZZ, R0',
     "13: error: bad number literal '0xZZ'"),
    ('        LDI , R0',
     "13: error: syntax error: unexpected ',', expected an operand or expression"),
    ('        LDI 5 6, R0',
     "15: error: syntax error: unexpected number '6', expected an operator, ',' or the end of the statement"),
    ('        LDI (1+2, R0',
     "17: error: syntax error: unexpected ',', expected an operator or ')'"),
    ("        LDI 'ab', R0",
     '13: error: a character constant holds exactly one character'),
    ('        LDI ?, R0',
     "13: error: '?' may end a label only inside a macro"),
    ('        LDI 1/0, R0',
     '14: error: division by zero'),
    ('        LDI L*2, R0',
     "13: error: undefined symbol 'L'"),
    ('        LDI 1.5, R0',
     '13: error: the immediate of LDI must be an integer, not the floating-point value 1.5'),
    ('        LDF 1e10, R0',
     '13: error: 10000000000.0 is out of the range of a short floating-point immediate (about +-2**-7 .. +-2**8)'),
    ('        LDF L, R0',
     "13: error: undefined symbol 'L'"),
    ('        TRAPU 32',
     '15: error: trap number must be 0..31, got 32'),
    ('        BR 1000000h',
     '12: error: address 0x1000000 is outside the 24-bit address space'),
    ('        LDI @L+1000000h, R0',
     "14: error: undefined symbol 'L'"),
    ('        RPTS -1',
     '14: error: value -1 does not fit an unsigned 16-bit immediate (0..65535)'),
    ('        .word 1.5',
     '15: error: .word needs integers; use .float for 1.5'),
    ('        .word 1 << 40',
     '15: error: value 1099511627776 does not fit in a 32-bit word'),
    ('        .float L',
     "16: error: undefined symbol 'L'"),
    ('        .float 1e-300',
     '16: error: 1e-300 underflows the C30 single floating-point format'),
    ('        .space L',
     "16: error: symbol 'L' is not defined at this point"),
    ('        .space -3',
     '16: error: a .space size must not be negative, got -3'),
    ('        .align 3',
     '16: error: an .align boundary must be a power of 2, got 3'),
    ('        .align',
     '9: error: .align takes 1 argument, got 0'),
    ('        .text 1',
     '9: error: .text takes no arguments, got 1'),
    ('        .sect data',
     '15: error: .sect needs a section name in double quotes'),
    ('        .bss 1, 2',
     '14: error: .bss needs a symbol name here'),
    ('        .bss x',
     '9: error: .bss takes 2 to 3 arguments, got 1'),
    ('        .usect "u", 1',
     '9: error: .usect needs a label: the symbol it defines'),
    ('        .set 5',
     '9: error: .set takes 2 arguments, got 1'),
    ('        .global 5',
     '17: error: .global needs a symbol name here'),
    ('        .global AR0',
     "17: error: 'AR0' is a register name, not a symbol"),
    ('        .include "nofile.inc"',
     "18: error: cannot find include file 'nofile.inc' (searched '.')"),
    ('        .include nofile',
     '18: error: .include needs a file name in double quotes'),
    ('        .if',
     '9: error: .if takes 1 argument, got 0'),
    ('        .elseif 1',
     '9: error: .elseif without .if'),
    ('        .endif',
     '9: error: .endif without .if'),
    ('        .else',
     '9: error: .else without .if'),
    ('        .endm',
     '9: error: .endm without .macro'),
    ('        .string L',
     "17: error: undefined symbol 'L'"),
    ('        .frob',
     "9: error: unknown directive '.frob'"),
    ('1lab    NOP',
     "1: error: invalid label: a label starts with a letter or '_', not '1' (indent instructions)"),
    ('lab-x   NOP',
     "4: error: invalid character '-' in label"),
    ('AR0     NOP',
     "1: error: 'AR0' is a register name and cannot be a symbol"),
    ('R9      NOP',
     "1: error: 'R9' is a register name and cannot be a symbol"),
    ('        || NOP',
     "9: error: '||' must follow an instruction (the first of the pair)"),
    ('        ADDI R0, R1 || NOP',
     '9: error: ADDI and NOP cannot be executed in parallel (see the parallel instruction table in docs/assembler.md)'),
    ('        .def undefd',
     "14: error: 'undefd' is declared with .def but not defined"),
    ('S       .set S+1',
     "1: error: circular definition of 'S'"),
    ('        ADDF3 R0, R1, R2 || STI R3, *AR0',
     '9: error: ADDF3 and STI cannot be executed in parallel (see the parallel instruction table in docs/assembler.md)'),
    ('        MPYF3 R0, R1, R5 || ADDF3 R2, R3, R2',
     '9: error: operands of MPYF3 || ADDF3 do not fit any encoding: parallel forms take registers R0-R7 and indirect operands with displacement 0 or 1, IR0 or IR1 (multiply/add: destinations R0/R1 and R2/R3)'),
    ('        DBNZ R0, L',
     "18: error: undefined symbol 'L'"),
    ('        LDI $$, R0',
     "14: error: syntax error: unexpected '$', expected an operator, ',' or the end of the statement"),
    ('        ..bad',
     "9: error: unexpected character '.'"),
    ('        LDI AR9, R0',
     '13: error: AR9 is not a register of the TMS320C30 (R0-R7, AR0-AR7, IR0, IR1, DP, BK, SP, ST, IE, IF, IOF, RS, RE, RC)'),
    # a literal beyond a double used to become 0.0 silently, or "inf overflows"
    ('        .float 1e-400',
     "16: error: floating-point literal '1e-400' is too small (it would become 0)"),
    ('        LDF 2.5e-999, R0',
     "13: error: floating-point literal '2.5e-999' is too small (it would become 0)"),
    ('        .float 1e400',
     "16: error: floating-point literal '1e400' is too large"),
    # float arithmetic overflowing to inf gave .eval the text "inf"; an integer
    # beyond a double in .float / LDF was an internal error (OverflowError)
    ('        .eval 1e300 * 1e300, x',
     "21: error: floating-point overflow in '*'"),
    ('        .float (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63)'
     ' * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63)'
     ' * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63)',
     f"16: error: {(1 << 63) ** 17} overflows the C30 single floating-point format"),
    ('        LDF (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63)'
     ' * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63)'
     ' * (1 << 63) * (1 << 63) * (1 << 63) * (1 << 63), R0',
     f"13: error: {(1 << 63) ** 17} is out of the range of a short floating-point immediate"
     " (about +-2**-7 .. +-2**8)"),
    # was "unexpected character ':'"
    ('    loop: NOP',
     '5: error: a label must start in column 1 (this one is indented)'),
    ('\t$1:', '2: error: a label must start in column 1 (this one is indented)'),
    # names a linker description cannot write (and "" / quotes broke the disassembly)
    ('        .sect "my data"',
     "15: error: bad section name 'my data': use letters, digits, '.', '_' and '$', not starting with a digit (a linker description must be able to name it)"),
    ('b       .usect "", 4',
     "16: error: bad section name '': use letters, digits, '.', '_' and '$', not starting with a digit (a linker description must be able to name it)"),
]


@pytest.mark.parametrize("line,message", CATALOGUE, ids=[c[0].strip() for c in CATALOGUE])
def test_bad_line(line, message):
    assert messages(line + "\n")[0] == "e.asm:1:" + message


def test_every_error_of_a_file_is_reported_in_order():
    src = ("        LDI nosuch, R0\n        .word 1/0\ndup     NOP\ndup     NOP\n"
           "        ADDI 100000, R0\n        .space later\nlater   NOP\n        FOO\n")
    assert messages(src) == [
        "e.asm:1:13: error: undefined symbol 'nosuch'",
        "e.asm:2:16: error: division by zero",
        "e.asm:4:1: error: duplicate definition of 'dup' (first defined at e.asm:3)",
        "e.asm:5:14: error: value 100000 does not fit a signed 16-bit immediate (-32768..32767)",
        "e.asm:6:16: error: symbol 'later' is not defined at this point",
        "e.asm:8:9: error: unknown instruction 'FOO'",
    ]


def test_errors_in_the_second_line_of_a_parallel_pair():
    src = "        LDF *AR0, R0\n        || STF R2, *+AR1(5)\n"
    assert messages(src) == [
        "e.asm:1:9: error: operands of LDF || STF do not fit any encoding: parallel forms take "
        "registers R0-R7 and indirect operands with displacement 0 or 1, IR0 or IR1 "
        "(multiply/add: destinations R0/R1 and R2/R3)"]
    assert messages("        LDF *AR0, R0\n        || STF R2, *+AR1(bad)\n") == [
        "e.asm:2:26: error: undefined symbol 'bad'"]


def test_warnings_do_not_stop_but_are_listed_with_errors():
    src = "        ADDI3 *AR0++, *AR0++, R0\n        FOO\n"
    assert messages(src) == [
        "e.asm:1:23: warning: two operands update AR0; the processor keeps only one of the updates",
        "e.asm:2:9: error: unknown instruction 'FOO'"]


def test_deeply_nested_expression_is_an_error_not_a_crash():
    src = "        .word " + "-" * 3000 + "x\n"
    assert messages(src)[0].startswith("e.asm:1:")
