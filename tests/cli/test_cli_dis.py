"""rap dis: objects, images and hex words."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clirun import rap_main
from rapsim.asm.objfile import object_bytes

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "asm"))
from miniasm import assemble  # noqa: E402

SRC = "        .global main, puts\nmain:   CALL puts\nback:   BR back\n        .data\n        .word main\n"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def dis(args, monkeypatch, capsys):
    rc = rap_main(["dis", *args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.out, cap.err


def test_object(here, monkeypatch, capsys):
    Path("a.obj").write_bytes(object_bytes(assemble(SRC)))
    rc, out, _ = dis(["a.obj"], monkeypatch, capsys)
    assert rc == 0
    assert "CALL    puts" in out and "BR      0x000000" not in out
    assert ".word   main" in out and "        .data" in out


def test_image_and_output_file(here, monkeypatch, capsys):
    Path("a.obj").write_bytes(object_bytes(assemble(SRC)))
    Path("p.obj").write_bytes(object_bytes(assemble("        .global puts\nputs: RETSU\n")))
    assert rap_main(["ld", "a.obj", "p.obj", "-o", "a.out"], monkeypatch) == 0
    rc, out, _ = dis(["a.out", "-o", "a.s"], monkeypatch, capsys)
    assert rc == 0 and out == ""
    text = Path("a.s").read_text()
    assert "CALL    puts" in text and "BR      back" in text and '.sect   ".reset"' in text
    assert ";     .text            : > 0x000040" in text


def test_hex_words(here, monkeypatch, capsys):
    Path("w.hex").write_text("08600010\n0x18600001\n\n6A06FFFE ; loop\n00000000\nFFFFFFFF\n")
    rc, out, _ = dis(["w.hex", "--base", "0x40"], monkeypatch, capsys)
    assert rc == 0
    assert "LDI     16,R0" in out and "BNE     L000041" in out and ".word   0xFFFFFFFF" in out
    assert "; 000044  FFFFFFFF" in out


def test_forced_hex_and_errors(here, monkeypatch, capsys):
    Path("w.txt").write_text("12345678\n")
    Path("bad.txt").write_text("hello\n")
    assert dis(["--hex", "w.txt"], monkeypatch, capsys)[0] == 0
    rc, _, err = dis(["bad.txt"], monkeypatch, capsys)
    assert rc == 1 and "not a RAP object, image or hex word file" in err
    rc, _, err = dis(["--hex", "bad.txt"], monkeypatch, capsys)
    assert rc == 1 and "bad.txt:1: not an 8-digit hex word" in err
    rc, _, err = dis(["missing.obj"], monkeypatch, capsys)
    assert rc == 1 and "missing.obj: cannot read" in err
    Path("x.obj").write_bytes(b"RAPO\x01\x00\x00\x00\xff\x00\x00\x00{")
    rc, _, err = dis(["x.obj"], monkeypatch, capsys)
    assert rc == 1 and "x.obj: truncated header" in err


def _aligns(path):
    from rapsim.asm.objfile import parse_object, read_bytes
    return {s.name: (s.align, s.size) for s in parse_object(read_bytes(path), path).sections}


def test_object_section_alignment_survives_round_trip(here, monkeypatch, capsys):
    Path("a.asm").write_text('        .bss    buf, 5, 8\n        .bss    more, 3\n'
                             'cbuf    .usect  ".coef", 4, 16\n        .data\n        .align  4\n'
                             '        .word   1\n        .text\n        NOP\n')
    assert rap_main(["as", "a.asm"], monkeypatch) == 0
    rc, out, _ = dis(["a.obj", "-o", "b.asm"], monkeypatch, capsys)
    assert rc == 0
    assert rap_main(["as", "b.asm"], monkeypatch) == 0
    assert _aligns("b.obj") == _aligns("a.obj")
    assert _aligns("a.obj")[".coef"] == (16, 4) and _aligns("a.obj")[".data"] == (4, 1)


def test_byte_order_mark_and_bad_base(here, monkeypatch, capsys):
    Path("w.hex").write_bytes(b"\xef\xbb\xbf08600010\r\n")
    rc, out, _ = dis(["w.hex"], monkeypatch, capsys)
    assert rc == 0 and "LDI     16,R0" in out
    assert dis(["w.hex", "--base", "0xFFFFFF"], monkeypatch, capsys)[0] == 0
    Path("w2.hex").write_text("08600010\n08600010\n")
    rc, _, err = dis(["w2.hex", "--base", "0xFFFFFF"], monkeypatch, capsys)   # was accepted
    assert rc == 1 and err == ("rap dis: error: w2.hex: 2 words at 0xffffff run past "
                               "the end of the 24-bit address space\n")
    with pytest.raises(SystemExit) as e:                 # argparse's usage error
        dis(["w.hex", "--base", "zz"], monkeypatch, capsys)
    assert e.value.code == 2
    assert "argument --base: invalid number value: 'zz'" in capsys.readouterr().err


def test_symbols_beyond_their_section_survive_round_trip(here, monkeypatch, capsys):
    # X and Y were dropped: the re-assembled object imported X instead of exporting it
    Path("a.asm").write_text("        .global X, Y\nlab:    NOP\nX       .set lab+100\n"
                             "Y       .set lab-1\n        .bss b,2\nZ       .set b+10\n")
    assert rap_main(["as", "a.asm"], monkeypatch) == 0
    assert dis(["a.obj", "-o", "b.asm"], monkeypatch, capsys)[0] == 0
    assert rap_main(["as", "b.asm"], monkeypatch) == 0
    from rapsim.asm.objfile import read_object
    syms = [sorted((s.name, s.section, s.value, s.binding) for s in read_object(f).symbols)
            for f in ("a.obj", "b.obj")]
    assert syms[0] == syms[1] and ("X", ".text", 100, "global") in syms[0]


def test_output_never_overwrites_the_input(here, monkeypatch, capsys):
    Path("a.obj").write_bytes(object_bytes(assemble(SRC)))
    rc, _, err = dis(["a.obj", "-o", "a.obj"], monkeypatch, capsys)
    assert rc == 1 and err == "rap dis: error: a.obj: refusing to overwrite the input file\n"
    assert Path("a.obj").read_bytes() == object_bytes(assemble(SRC))


def test_hex_line_addresses_give_the_base_and_must_be_consecutive(here, monkeypatch, capsys):
    # addresses were ignored: a gap silently moved every later word (and branch target)
    Path("a.hex").write_text("000040: 08600010\n000041: 6A00FFFE\n")
    rc, out, _ = dis(["a.hex"], monkeypatch, capsys)
    assert rc == 0 and "BU      L000040                 ; 000041  6A00FFFE" in out
    assert dis(["a.hex", "--base", "0x40"], monkeypatch, capsys)[0] == 0
    rc, _, err = dis(["a.hex", "--base", "0"], monkeypatch, capsys)
    assert rc == 1 and err == ("rap dis: error: a.hex:1: address 0x000040 of the first word "
                               "is not --base 0x000000\n")
    Path("g.hex").write_text("000040: 08600010\n000080: 6A00FFFE\n")
    rc, _, err = dis(["g.hex"], monkeypatch, capsys)
    assert rc == 1 and err == ("rap dis: error: g.hex:2: address 0x000080 is not the next one, "
                               "0x000041 (the words must be consecutive)\n")
