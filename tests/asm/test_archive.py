"""Archives: the ar format, long names, compatibility with Unix ar, rap ar."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from miniasm import assemble
from rapsim.asm.archive import MAGIC, Member, archive_bytes, member_objects, parse_archive
from rapsim.asm.objfile import ObjectFormatError, object_bytes

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from clirun import rap_main  # noqa: E402


def objbytes(name: str) -> bytes:
    return object_bytes(assemble(f"        .global {name}\n{name}: RETSU\n", name + ".asm"))


def test_round_trip_with_long_names_and_odd_sizes():
    ms = [Member("a.obj", objbytes("a")), Member("a_very_long_member_name.obj", b"odd"),
          Member("another_quite_long_name.obj", b"xy")]
    data = archive_bytes(ms)
    assert data.startswith(MAGIC) and len(data) % 2 == 0
    assert parse_archive(data) == ms
    assert b"//              " in data and b"/0 " in data


@pytest.mark.skipif(shutil.which("ar") is None, reason="no Unix ar")
def test_unix_ar_reads_and_writes_our_archives(tmp_path):
    names = ["short.obj", "a_member_with_a_long_name.obj"]
    p = tmp_path / "lib.a"
    p.write_bytes(archive_bytes([Member(n, objbytes("s" + str(i))) for i, n in enumerate(names)]))
    out = subprocess.run(["ar", "t", str(p)], capture_output=True, text=True, check=True).stdout
    assert out.split() == names
    for i, n in enumerate(names):
        (tmp_path / n).write_bytes(objbytes("u" + str(i)))
    q = tmp_path / "unix.a"
    subprocess.run(["ar", "rc", str(q)] + names, cwd=tmp_path, check=True)
    assert [n for n, _ in member_objects(q)] == [f"{q}({n})" for n in names]


def test_corrupt_archives():
    good = archive_bytes([Member("a.obj", objbytes("a"))])
    with pytest.raises(ObjectFormatError, match="runs past the end"):
        parse_archive(good[:-10], "l.a")
    with pytest.raises(ObjectFormatError, match="corrupt member header"):
        parse_archive(good[:8] + b"x" * 60, "l.a")
    with pytest.raises(ObjectFormatError, match=r"l.a\(b.txt\): .*bad magic"):
        member_objects("l.a", archive_bytes([Member("b.txt", b"hello, world")]))


def test_rap_ar_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("a.obj").write_bytes(objbytes("a"))
    Path("b.obj").write_bytes(objbytes("b"))
    Path("junk.obj").write_bytes(b"not an object")
    assert rap_main(["ar", "rc", "lib.a", "a.obj", "b.obj"], monkeypatch) == 0
    assert rap_main(["ar", "t", "lib.a"], monkeypatch) == 0
    assert capsys.readouterr().out.split() == ["a.obj", "b.obj"]
    assert rap_main(["ar", "rv", "lib.a", "a.obj"], monkeypatch) == 0      # replace
    assert capsys.readouterr().out.strip() == "r - a.obj"
    assert rap_main(["ar", "rc", "lib.a", "junk.obj"], monkeypatch) == 1
    assert "junk.obj: not a RAP object" in capsys.readouterr().err
    Path("a.obj").unlink()
    assert rap_main(["ar", "x", "lib.a", "a.obj"], monkeypatch) == 0
    assert Path("a.obj").read_bytes() == objbytes("a")
    assert rap_main(["ar", "d", "lib.a", "b.obj"], monkeypatch) == 0
    assert rap_main(["ar", "tv", "lib.a"], monkeypatch) == 0
    assert capsys.readouterr().out.split()[1:] == ["a.obj"]
    assert rap_main(["ar", "x", "lib.a", "zzz.obj"], monkeypatch) == 1
    assert "no member named zzz.obj" in capsys.readouterr().err
    assert rap_main(["ar", "q", "lib.a"], monkeypatch) == 1
    assert rap_main(["ar", "t", "missing.a"], monkeypatch) == 1
    assert "missing.a: cannot read" in capsys.readouterr().err
