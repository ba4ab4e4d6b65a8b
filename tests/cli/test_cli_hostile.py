"""Issue 18 through the ``rap`` command: archives with hostile member
names, '--' after options, out-of-range --dump ranges."""
from __future__ import annotations

import pytest

from clirun import rap_main
from rapsim.asm.archive import MAGIC


def _member(name: bytes, body: bytes) -> bytes:
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
            + str(len(body)).encode().ljust(10) + b"`\n" + body)


@pytest.mark.parametrize("op", ["t", "x", "tv"])
def test_rap_ar_reports_them(tmp_path, monkeypatch, capsys, op):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "l.a").write_bytes(MAGIC + _member("\u0661\0/".encode("utf-8"), b"xx"))
    assert rap_main(["ar", op, "l.a"], monkeypatch) == 1
    err = capsys.readouterr().err
    assert err.startswith("rap ar: error: l.a: corrupt member header at byte 8: member name")
    assert list(tmp_path.iterdir()) == [tmp_path / "l.a"]


def test_rap_ar_refuses_an_undecodable_file_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    from rapsim.asm.assembler import assemble_text
    from rapsim.asm.objfile import object_bytes
    name = b"o\xff.obj".decode("utf-8", "surrogateescape")
    (tmp_path / name).write_bytes(object_bytes(assemble_text("        NOP\n").obj))
    assert rap_main(["ar", "rc", "l.a", name], monkeypatch) == 1
    assert "is not valid UTF-8" in capsys.readouterr().err


# -- '--' ends the options wherever it stands ----------------------------------

import sys  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "sim"))
from hostprog import ARGV, BUF, WRITE, program, string  # noqa: E402
from clirun import image  # noqa: E402


def _echo_argv1(path) -> str:
    return image(path, program([(ARGV, [1, BUF, 100]), (WRITE, [1, BUF, 2]),
                                (WRITE, [1, "nl", 1])], 0, string("nl", "\n")))


@pytest.mark.parametrize("argv", [
    ["IMG", "--nodes", "2", "--", "-a", "b"],        # options, then '--': was refused
    ["--nodes", "2", "IMG", "--", "-a", "b"],
    ["IMG", "--", "-a", "b", "--nodes", "3"],        # after '--' everything is the program's
    ["IMG", "--nodes", "2", "--", "-a", "--", "b"],
])
def test_double_dash_after_options(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    img = _echo_argv1(tmp_path / "p.out")
    rc = rap_main(["run", *[img if a == "IMG" else a for a in argv]], monkeypatch)
    out = capsys.readouterr().out
    assert rc == 0
    assert out.replace("[0] ", "").replace("[1] ", "").splitlines()[0] == "-a"


def test_double_dash_still_separates_file_names_of_other_commands(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-n.asm").write_text("        NOP\n")
    assert rap_main(["as", "-o", "n.obj", "--", "-n.asm"], monkeypatch) == 0


@pytest.mark.parametrize("spec, message", [
    ("0:99999999999", "count '99999999999' of '0:99999999999' is out of range: 0..16777216"),
    ("0xFFFFFF:2", "count '2' of '0xFFFFFF:2' is out of range: 0..1"),
    ("-1:1", "address '-1' of '-1:1' is not a 24-bit address"),
])
def test_dump_ranges_are_checked_at_the_boundary(tmp_path, monkeypatch, capsys, spec, message):
    monkeypatch.chdir(tmp_path)
    img = _echo_argv1(tmp_path / "p.out")
    with pytest.raises(SystemExit) as e:
        rap_main(["run", img, f"--dump={spec}"], monkeypatch)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("opt", [["--hostcall-cycles", "9223372036854775807"],
                                 ["--hostcall-cycles", "-1"],
                                 ["--board-hop-cycles", "99999999999999999999999"]])
def test_cycle_costs_beyond_the_range_are_refused(tmp_path, monkeypatch, capsys, opt):
    monkeypatch.chdir(tmp_path)
    img = _echo_argv1(tmp_path / "p.out")
    assert rap_main(["run", img, *opt, "--nodes", "2"], monkeypatch) == 1
    err = capsys.readouterr().err
    assert "0..1099511627776" in err or "1..1099511627776" in err


# -- counts of measured patterns are bounded before anything is allocated -------

XOR = str(__import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "xor.net")


@pytest.mark.parametrize("argv,message", [
    (["prof", XOR, "--patterns", "99999999999"], "--patterns: at most 1048576, not 99999999999"),
    (["bench", "--quick", "--patterns", "99999999999"],
     "--warmup and --patterns: at most 1048576 patterns in all, not 100000000000"),
    (["bench", "--quick", "--warmup", "1048576"],
     "--warmup and --patterns: at most 1048576 patterns in all"),
])
def test_measured_pattern_counts(tmp_path, monkeypatch, capsys, argv, message):
    """Before: a MemoryError (internal error) allocating terabytes of random
    patterns (prof), or every point FAILED with exit status 3 (bench)."""
    monkeypatch.chdir(tmp_path)
    assert rap_main(argv, monkeypatch) == 1
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err
    assert not (tmp_path / "rap-bench.json").exists()


def test_random_patterns_refuse_terabytes():
    from rapsim.compiler.parser import parse_file
    from rapsim.compiler.train import random_patterns
    from rapsim.errors import RapError
    with pytest.raises(RapError, match="99999999999 random patterns of 3 values need "
                                       "2399999999976 bytes"):
        random_patterns(parse_file(XOR), 99999999999)


XOR_PAT = str(__import__("pathlib").Path(XOR).with_suffix(".pat"))


@pytest.mark.parametrize("argv", [
    ["train", XOR, "--data", XOR_PAT, "--resume", "{fifo}"],
    ["train", XOR, "--data", XOR_PAT, "--load", "/dev/zero"],
    ["infer", XOR, "--weights", "/dev/zero", "--data", XOR_PAT],
    ["infer", XOR, "--weights", "{fifo}", "--data", XOR_PAT],
    ["infer", XOR, "--weights", "{ok}", "--data", "{fifo}"],
    ["infer", XOR, "--weights", "{ok}", "--data", "/dev/zero"],
    ["cc", XOR, "-o", "x.out", "--params", "{fifo}"],
])
def test_devices_and_fifos_as_training_files(tmp_path, monkeypatch, capsys, argv):
    """Before: rap infer --data FIFO blocked for ever, --data /dev/zero read
    until memory ran out, and checkpoints were opened the same way."""
    import os
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "p.npz")
    assert rap_main(["train", XOR, "--data", XOR_PAT, "--epochs", "1", "--quiet",
                     "--save", "ok.npz"], monkeypatch) == 0
    capsys.readouterr()
    argv = [a.format(fifo=tmp_path / "p.npz", ok=tmp_path / "ok.npz") for a in argv]
    assert rap_main(argv, monkeypatch) == 1
    err = capsys.readouterr().err
    assert "cannot read: not a regular file (a device, a FIFO or a socket)" in err


# -- found by the long fuzz campaign ---------------------------------------------


@pytest.mark.parametrize("opt", ["--trace-from", "--trace-to"])
def test_trace_cycle_bounds_beyond_64_bits(tmp_path, monkeypatch, capsys, opt):
    """Before: OverflowError (internal error) handing the bound to the core."""
    monkeypatch.chdir(tmp_path)
    from rapsim.asm.objfile import write_image
    from rapsim.toolchain import build_text
    write_image(build_text("        .global start\nstart:  SWI\n"), tmp_path / "s.out")
    with pytest.raises(SystemExit) as e:
        rap_main(["run", "s.out", "--trace", "t.txt", opt, "9" * 40], monkeypatch)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {opt}: at most 4.61e+18" in err and "internal error" not in err


def test_infer_an_input_file_without_records(tmp_path, monkeypatch, capsys):
    """Before: a text file of comments only ended in a reshape ValueError
    (internal error); now, like an empty .npy, it is run with no records."""
    monkeypatch.chdir(tmp_path)
    assert rap_main(["train", XOR, "--data", XOR_PAT, "--epochs", "1", "--quiet",
                     "--save", "ok.npz"], monkeypatch) == 0
    (tmp_path / "e.txt").write_text("#1 1\n")
    assert rap_main(["infer", XOR, "--weights", "ok.npz", "--data", "e.txt", "--out", "o.npy"],
                    monkeypatch) == 0
    import numpy as np
    assert np.load(tmp_path / "o.npy").shape == (0, 1)
    assert "internal error" not in capsys.readouterr().err
