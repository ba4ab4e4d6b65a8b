"""rap as: outputs, options, listing, --hex and error reporting."""
from __future__ import annotations

import subprocess
import sys

import pytest

from clirun import rap_main
from rapsim.asm.objfile import read_object

SRC = """\
* a small program
        .global start
start:  LDI     5, R1
loop    SUBI    1, R1
        BNZ     loop
        .data
tbl     .word   start, 2
"""


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.asm").write_text(SRC)
    return tmp_path


def rap_as(args, monkeypatch, capsys):
    rc = rap_main(["as", *args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.out, cap.err


def test_object_default_name(here, monkeypatch, capsys):
    assert rap_as(["p.asm"], monkeypatch, capsys) == (0, "", "")
    o = read_object("p.obj")
    assert [s.name for s in o.sections] == [".text", ".data"]
    assert o.source == "p.asm" and o.files == ["p.asm"]


def test_output_option(here, monkeypatch, capsys):
    assert rap_as(["p.asm", "-o", "out.obj"], monkeypatch, capsys)[0] == 0
    assert (here / "out.obj").exists() and not (here / "p.obj").exists()


def test_hex_prints_sections_and_writes_no_object(here, monkeypatch, capsys):
    rc, out, _ = rap_as(["p.asm", "--hex"], monkeypatch, capsys)
    assert rc == 0
    assert out.splitlines() == ["08610005", "18610001", "6A06FFFE", "00000000", "00000002"]
    assert not (here / "p.obj").exists()
    rc, out2, _ = rap_as(["p.asm", "--hex", "-o", "x.obj"], monkeypatch, capsys)
    assert out2 == out and (here / "x.obj").exists()


def test_hex_skips_bss(here, monkeypatch, capsys):
    (here / "b.asm").write_text("        .bss buf, 100\n        NOP\n")
    assert rap_as(["b.asm", "--hex"], monkeypatch, capsys)[1] == "0C800000\n"


def test_listing(here, monkeypatch, capsys):
    assert rap_as(["p.asm", "-l"], monkeypatch, capsys)[0] == 0
    lst = (here / "p.lst").read_text().splitlines()
    assert lst[0].startswith("RAP TMS320C30 assembler") and lst[0].endswith("p.asm")
    body = lst[2:]
    assert body[0] == "     1                  * a small program"
    assert body[2] == "     3 000000 08610005  start:  LDI     5, R1"
    assert body[4] == "     5 000002 6A06FFFE          BNZ     loop"
    assert body[6] == "     7 000000 00000000' tbl     .word   start, 2"
    assert body[7] == "       000001 00000002"
    assert (here / "p.obj").exists()


def test_listing_named_and_before_the_file(here, monkeypatch, capsys):
    assert rap_as(["p.asm", "-l", "out.lst"], monkeypatch, capsys)[0] == 0
    assert (here / "out.lst").exists()
    assert rap_as(["-l", "p.asm"], monkeypatch, capsys)[0] == 0
    assert (here / "p.lst").exists()


def test_listing_of_macros_includes_and_skipped_lines(here, monkeypatch, capsys):
    (here / "i.inc").write_text("K       .set 3\n")
    (here / "m.asm").write_text('        .include "i.inc"\nm       .macro\n        NOP\n        .endm\n'
                                "        m\n        .if 0\n        NOP\n        .endif\n")
    assert rap_as(["m.asm", "-l"], monkeypatch, capsys)[0] == 0
    lst = (here / "m.lst").read_text().splitlines()[2:]
    assert lst[1] == "A    1                  K       .set 3"
    assert lst[6] == "+    3 000000 0C800000          NOP"
    assert lst[8] == "     7                          NOP"


def test_defines_and_include_dirs(here, monkeypatch, capsys):
    (here / "inc").mkdir()
    (here / "inc" / "k.inc").write_text("K       .set 7\n")
    (here / "d.asm").write_text('        .include "k.inc"\n        .word K, V, F\n')
    rc, out, _ = rap_as(["d.asm", "-I", "inc", "-D", "V=0x10", "-D", "F", "--hex"], monkeypatch, capsys)
    assert rc == 0 and out.split() == ["00000007", "00000010", "00000001"]


def test_bad_define(here, monkeypatch, capsys):
    rc, _, err = rap_as(["p.asm", "-D", "X=abc"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: -D X=abc: 'abc' is not a number\n"
    # names as the assembler spells them: not Python's identifiers
    rc, _, err = rap_as(["p.asm", "-D", "\u00e9=1"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: -D \u00e9=1: '\u00e9' is not a valid symbol name\n"
    assert rap_as(["p.asm", "-D", "a$b=2"], monkeypatch, capsys)[0] == 0


def test_errors_all_reported_exit_1_no_object(here, monkeypatch, capsys):
    (here / "bad.asm").write_text("        FOO\n        LDI 1, R0\n        LDI x, R0\n")
    rc, out, err = rap_as(["bad.asm"], monkeypatch, capsys)
    assert rc == 1 and out == ""
    assert err.splitlines() == ["bad.asm:1:9: error: unknown instruction 'FOO'",
                                "bad.asm:3:13: error: undefined symbol 'x'"]
    assert not (here / "bad.obj").exists()


def test_warnings_exit_0(here, monkeypatch, capsys):
    (here / "w.asm").write_text("        ADDI3 *AR1++, *AR1++, R0\n")
    rc, _, err = rap_as(["w.asm"], monkeypatch, capsys)
    assert rc == 0 and err.startswith("w.asm:1:23: warning: two operands update AR1")
    assert (here / "w.obj").exists()


def test_missing_input(here, monkeypatch, capsys):
    rc, _, err = rap_as(["nope.asm"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: cannot read nope.asm: No such file or directory\n"
    rc, _, err = rap_as([], monkeypatch, capsys)
    assert rc == 1 and err.startswith("rap as: error: no input file")


def test_rap_command_in_a_subprocess(here):
    r = subprocess.run([sys.executable, "-m", "rapsim", "as", "p.asm", "--hex"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "08610005"


def test_bytes_that_are_not_utf8(here, monkeypatch, capsys):
    # A Latin-1 byte in a comment is harmless (and kept in the listing); anywhere
    # else it is an error naming the byte, never a silent U+FFFD word.
    (here / "c.asm").write_bytes(b"        .word 1 ; caf\xe9\n* \xff\n")
    assert rap_as(["c.asm", "-l"], monkeypatch, capsys)[0] == 0
    assert b"caf\xe9" in (here / "c.lst").read_bytes()
    (here / "u.asm").write_bytes(b'        .string "caf\xe9"\n        .word \'\xe9\'\n'
                                 b"\xe9x:    NOP\n        NO\xe9P\n")
    rc, _, err = rap_as(["u.asm"], monkeypatch, capsys)
    msg = "error: invalid UTF-8 byte 0xE9 (source files are read as UTF-8)"
    assert rc == 1 and err.splitlines() == [f"u.asm:1:21: {msg}", f"u.asm:2:16: {msg}",
                                            f"u.asm:3:1: {msg}", f"u.asm:4:11: {msg}"]
    assert not (here / "u.obj").exists()


def test_outputs_all_or_none(here, monkeypatch, capsys):
    (here / "d").mkdir()
    rc, _, err = rap_as(["p.asm", "-l", "d"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: cannot write d: Is a directory\n"
    rc, _, err = rap_as(["p.asm", "-o", "nodir/p.obj"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: cannot write nodir/p.obj: No such file or directory\n"
    rc, _, err = rap_as(["p.asm", "-l", "p.asm"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: p.asm: refusing to overwrite the source file\n"
    assert sorted(p.name for p in here.iterdir()) == ["d", "p.asm"]
    assert (here / "p.asm").read_text() == SRC


def test_byte_order_mark_is_skipped(here, monkeypatch, capsys):
    (here / "b.asm").write_bytes(b"\xef\xbb\xbfstart:  NOP\n")
    assert rap_as(["b.asm", "--hex"], monkeypatch, capsys) == (0, "0C800000\n", "")
    # so is the Ctrl-Z that ends DOS-era files ("unexpected character '\x1a'")
    (here / "z.asm").write_bytes(b"start:  NOP\r\n\x1a")
    assert rap_as(["z.asm", "--hex"], monkeypatch, capsys) == (0, "0C800000\n", "")


def test_binary_input_is_one_clear_error(here, monkeypatch, capsys):
    assert rap_as(["p.asm"], monkeypatch, capsys)[0] == 0
    rc, _, err = rap_as(["p.obj", "-o", "q.obj"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: cannot read p.obj: not a text file (it holds NUL bytes)\n"
    (here / "i.asm").write_text('        .include "p.obj"\n')
    rc, _, err = rap_as(["i.asm"], monkeypatch, capsys)
    assert rc == 1 and err == ("i.asm:1:18: error: cannot read include file 'p.obj': "
                               "not a text file (it holds NUL bytes)\n")
    (here / "w.asm").write_bytes("        NOP\n".encode("utf-16"))
    rc, _, err = rap_as(["w.asm"], monkeypatch, capsys)
    assert rc == 1 and err == "rap as: error: cannot read w.asm: a UTF-16 text file; save it as UTF-8\n"


GNU_SRC = """\
* written for the GNU tic4x assembler: 2-operand 3-operand forms, F names
        .global start
start:  ADDI3   *AR1++, R2
        ASH3    R1, R2
        PUSHF   F0
        MPYF3   *AR0, *AR1, F0
||      ADDF3   F2, F3
"""


def test_gnu_tic4x_source_assembles_to_the_full_forms(here, monkeypatch, capsys):
    (here / "g.asm").write_text(GNU_SRC)
    full = ("        .global start\nstart:  ADDI3 *AR1++, R2, R2\n        ASH3 R1, R2, R2\n"
            "        PUSHF R0\n        MPYF3 *AR0, *AR1, R0\n||      ADDF3 R2, R3, R3\n")
    (here / "f.asm").write_text(full)
    assert rap_as(["g.asm"], monkeypatch, capsys)[0] == 0
    assert rap_as(["f.asm"], monkeypatch, capsys)[0] == 0
    g, f = read_object("g.obj"), read_object("f.obj")
    assert list(g.sections[0].data) == list(f.sections[0].data)


def test_ldp_page_number_is_an_error_with_file_and_line(here, monkeypatch, capsys):
    (here / "l.asm").write_text('        .include "rap.inc"\n        LDP     RINGIO_PAGE\n')
    from rapsim import firmware
    rc, _, err = rap_as(["l.asm", "-I", str(firmware.path())], monkeypatch, capsys)
    assert rc != 0
    assert "l.asm:2:" in err and "LDP takes an address, not a page number" in err
    assert "LDP RINGIO_BASE" in err or "0x800000" in err
