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
