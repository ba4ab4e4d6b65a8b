"""rap ld: files in, image and map out, errors as messages with exit 1."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clirun import rap_main
from rapsim.asm.archive import Member, archive_bytes
from rapsim.asm.objfile import object_bytes, read_image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "asm"))
from miniasm import assemble  # noqa: E402

MAIN = "        .global _c_int00, f\n_c_int00: CALL f\n        .bss buf, 8\n"
F = "        .global f\nf:      RETSU\n"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("main.obj").write_bytes(object_bytes(assemble(MAIN, "main.asm")))
    Path("f.obj").write_bytes(object_bytes(assemble(F, "f.asm")))
    Path("libf.a").write_bytes(archive_bytes([Member("f.obj", Path("f.obj").read_bytes())]))
    return tmp_path


def run(args, monkeypatch, capsys):
    rc = rap_main(["ld", *args], monkeypatch)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.err


def test_link_with_map(files, monkeypatch, capsys):
    rc, err = run(["main.obj", "libf.a", "-o", "p.out", "-m", "p.map"], monkeypatch, capsys)
    assert rc == 0, err
    img = read_image("p.out")
    assert img.entry == 0x40 and img.symbols["f"] == 0x41
    text = Path("p.map").read_text()
    for needle in ["entry point: 0x000040 (_c_int00)", "SRAM ", ".text            0x000040",
                   "libf.a(f.obj)", "0x000041  global  f", "__bss_end"]:
        assert needle in text, needle


def test_script_and_entry_options(files, monkeypatch, capsys):
    Path("t.cmd").write_text("SECTIONS {\n  .text > RAM0\n}\n")
    rc, err = run(["main.obj", "f.obj", "-o", "p.out", "-T", "t.cmd", "-e", "f"], monkeypatch, capsys)
    assert rc == 0, err
    img = read_image("p.out")
    assert img.entry == 0x809801
    assert img.words()[0][1].tolist() == [0x809801]          # reset vector


def test_sram_words_option(files, monkeypatch, capsys):
    Path("big.obj").write_bytes(object_bytes(assemble("        .bss big, 70000\n")))
    assert run(["big.obj", "-o", "p.out"], monkeypatch, capsys)[0] == 0
    rc, err = run(["big.obj", "-o", "p.out", "--sram-words", "0x10000"], monkeypatch, capsys)
    assert rc == 1 and "rap ld: error: memory region SRAM overflows by 4528 words" in err
    rc, err = run(["big.obj", "-o", "p.out", "--sram-words", "3"], monkeypatch, capsys)
    assert rc == 1 and "--sram-words" in err


@pytest.mark.parametrize("args,message", [
    (["main.obj"], "rap ld: error: undefined symbol f, referenced by main.obj"),
    (["main.obj", "f.obj", "f.obj"], "rap ld: error: symbol f is defined in both f.obj and f.obj"),
    (["main.obj", "nothere.obj"], "rap ld: error: nothere.obj: no such file"),
    (["main.obj", "junk.obj"], "rap ld: error: junk.obj: not a RAP object or archive"),
    (["main.obj", "f.obj", "-T", "bad.cmd"], "bad.cmd:2:11: error: unexpected '}'"),
    (["main.obj", "f.obj", "-T", "none.cmd"], "rap ld: error: none.cmd: cannot read"),
    (["main.obj", "f.obj", "-e", "nope"], "rap ld: error: entry symbol nope is not defined"),
])
def test_errors(files, monkeypatch, capsys, args, message):
    Path("junk.obj").write_text("hello there")
    Path("bad.cmd").write_text("SECTIONS {\n  .text > }\n")
    rc, err = run([*args, "-o", "p.out"], monkeypatch, capsys)
    assert rc == 1
    assert message in err
    assert not Path("p.out").exists()


def test_image_input_rejected(files, monkeypatch, capsys):
    assert run(["main.obj", "f.obj", "-o", "p.out"], monkeypatch, capsys)[0] == 0
    rc, err = run(["p.out", "-o", "q.out"], monkeypatch, capsys)
    assert rc == 1 and "p.out: is an executable image" in err


def test_unwritable_map_leaves_no_image(files, monkeypatch, capsys):
    Path("d").mkdir()
    rc, err = run(["main.obj", "f.obj", "-o", "p.out", "-m", "d"], monkeypatch, capsys)
    assert rc == 1 and err == "rap ld: error: cannot write d: Is a directory\n"
    rc, err = run(["main.obj", "f.obj", "-o", "nodir/p.out"], monkeypatch, capsys)
    assert rc == 1 and err == "rap ld: error: cannot write nodir/p.out: No such file or directory\n"
    rc, err = run(["main.obj", "f.obj", "-o", "p.out", "-m", "p.out"], monkeypatch, capsys)
    assert rc == 1 and err == "rap ld: error: cannot write p.out: named for two outputs\n"
    assert sorted(p.name for p in Path().iterdir()) == ["d", "f.obj", "libf.a", "main.obj"]


def test_description_with_byte_order_mark_and_bad_number_option(files, monkeypatch, capsys):
    Path("t.cmd").write_bytes(b"\xef\xbb\xbfSECTIONS { .text > RAM0 }\n")
    assert run(["main.obj", "f.obj", "-o", "p.out", "-T", "t.cmd"], monkeypatch, capsys) == (0, "")
    assert read_image("p.out").entry == 0x809800
    with pytest.raises(SystemExit) as e:                 # argparse's usage error
        run(["main.obj", "-o", "p.out", "--sram-words", "1k"], monkeypatch, capsys)
    assert e.value.code == 2
    assert "argument --sram-words: invalid number value: '1k'" in capsys.readouterr().err


@pytest.mark.parametrize("entry,message", [
    ("-5", "entry point -5 is outside the 24-bit address space"),       # was a traceback
    ("0x1000000", "entry point 0x1000000 is outside the 24-bit address space"),  # was accepted
    ("X", "entry symbol X (-0x5) is outside the 24-bit address space")])
def test_entry_outside_the_address_space(files, monkeypatch, capsys, entry, message):
    Path("x.obj").write_bytes(object_bytes(assemble("        .global X\nX       .set -5\n")))
    rc, err = run(["main.obj", "f.obj", "x.obj", "-o", "p.out", "-e", entry], monkeypatch, capsys)
    assert rc == 1 and err == f"rap ld: error: {message}\n"
    assert not Path("p.out").exists()


def test_output_never_overwrites_an_input(files, monkeypatch, capsys):
    before = Path("f.obj").read_bytes()
    rc, err = run(["main.obj", "f.obj", "-o", "./f.obj"], monkeypatch, capsys)
    assert rc == 1 and err == "rap ld: error: ./f.obj: refusing to overwrite the input file f.obj\n"
    rc, err = run(["main.obj", "f.obj", "-o", "p.out", "-m", "f.obj"], monkeypatch, capsys)
    assert rc == 1 and Path("f.obj").read_bytes() == before and not Path("p.out").exists()


def test_entry_naming_a_local_of_two_objects(files, monkeypatch, capsys):
    # was "entry symbol loop is not defined"
    for n in "ab":
        Path(f"{n}.obj").write_bytes(object_bytes(assemble("loop:   NOP\n", f"{n}.asm")))
    rc, err = run(["a.obj", "b.obj", "-o", "p.out", "-e", "loop"], monkeypatch, capsys)
    assert rc == 1 and err == ("rap ld: error: entry symbol loop is ambiguous: a local symbol "
                               "of a.obj, b.obj (make one of them .global)\n")
