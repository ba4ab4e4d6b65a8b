"""``rap ar``: create, list and extract archives (libraries) of RAP objects."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from rapsim.errors import RapError

HELP = "create, list and extract archives of RAP objects"
DESCRIPTION = """\
Archives are standard Unix 'ar' files holding RAP objects (docs/object-format.md).

  rap ar r[c][v] LIB.a OBJ...   add objects, replacing members of the same name
                                (c: create LIB.a silently if it does not exist)
  rap ar t[v] LIB.a             list the members (v: with their sizes)
  rap ar x[v] LIB.a [MEMBER...] extract members (all by default) into the
                                current directory
  rap ar d[v] LIB.a MEMBER...   delete members

Members are named by the file's base name.  Every file added must be a RAP
object; written archives are deterministic (dates and owners are 0).
"""


def add_arguments(p) -> None:
    p.add_argument("key", metavar="OPERATION", help="r, t, x or d, with modifiers c and v (e.g. rc)")
    p.add_argument("archive", metavar="LIB.a")
    p.add_argument("files", nargs="*", metavar="FILE")


def _parse_key(key: str) -> tuple[str, set[str]]:
    key = key.lstrip("-")
    ops = [c for c in key if c in "rtxd"]
    mods = set(key) - set("rtxd")
    if len(ops) != 1 or mods - set("cvsuD"):
        raise RapError(f"bad operation {key!r}: give one of r, t, x, d, optionally with c and v "
                       "(see 'rap ar --help')")
    return ops[0], mods


def run(args) -> int:
    from rapsim.asm.archive import Member, check_member_name, read_archive, write_archive
    from rapsim.asm.objfile import ObjectFormatError, parse_object, read_bytes, write_atomic

    op, mods = _parse_key(args.key)
    verbose = "v" in mods
    path = args.archive
    try:
        if op == "r":
            members = read_archive(path) if Path(path).exists() else None
            if members is None:
                if "c" not in mods:
                    print(f"rap ar: creating {path}", file=sys.stderr)
                members = []
            if not args.files:
                raise RapError("no objects to add")
            for f in args.files:
                data = read_bytes(f)
                parse_object(data, f)                # a RAP object, or an error naming it
                name = Path(f).name
                why = check_member_name(name)
                if why:
                    raise RapError(f"{f}: cannot be stored: {why}")
                old = next((m for m in members if m.name == name), None)
                if old:
                    old.data = data
                else:
                    members.append(Member(name, data))
                if verbose:
                    print(f"{'r' if old else 'a'} - {name}")
            write_archive(path, members)
            return 0
        members = read_archive(path)
        names = {m.name for m in members}
        missing = [f for f in args.files if f not in names]
        if missing:
            raise RapError(f"{path}: no member named {', '.join(missing)}")
        if op == "t":
            for m in members:
                print(f"{len(m.data):>8} {m.name}" if verbose else m.name)
        elif op == "x":
            for m in members:
                if not args.files or m.name in args.files:
                    if os.sep in m.name or m.name in ("", ".", ".."):
                        raise RapError(f"{path}: refusing to extract member {m.name!r}")
                    write_atomic(m.name, m.data)       # never a half-written member
                    if verbose:
                        print(f"x - {m.name}")
        else:
            if not args.files:
                raise RapError("name the members to delete")
            write_archive(path, [m for m in members if m.name not in args.files])
            if verbose:
                for f in args.files:
                    print(f"d - {f}")
    except ObjectFormatError as e:
        raise RapError(str(e)) from None
    except OSError as e:
        raise RapError(f"{e.filename}: {e.strerror}") from None
    return 0
