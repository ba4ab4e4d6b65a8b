"""The RAP's hand-written runtime: assembly sources shipped as package data.

The sources (``*.asm``) and the include file ``rap.inc`` live in this
package's folder; :func:`path` locates them.  The helpers below assemble
them so that tests, examples and the network compiler can link the firmware
without shell commands::

    from rapsim import firmware
    inputs = firmware.link_inputs()          # [crt0.obj, librap.a]
    image = build_text(src, include_dirs=[firmware.include_dir()],
                       libraries=inputs)

or from the shell (``python -m rapsim.firmware DIR`` writes the same files)::

    rap as -I $(python -m rapsim.firmware --include) prog.asm -o prog.obj
    rap ld $(python -m rapsim.firmware /tmp/fw) prog.obj -o prog.out

Build products are cached by the hash of the sources and of the assembler
(``<tmp>/rap-firmware-<hash>/``), written atomically, and never put in the
package folder.  See docs/firmware.md.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from importlib import resources
from pathlib import Path

#: The library members, in archive order (crt0 is linked as an object).
LIBRARY_SOURCES = ("syscalls.asm", "vector.asm", "activate.asm", "matrix.asm", "sparse.asm",
                   "binary.asm", "ring.asm", "subring.asm", "dma.asm", "plasticity.asm",
                   "overlap.asm", "dmaring.asm", "rotation.asm", "columns.asm")
#: The start-up routine: an object of its own, since nothing references
#: _c_int00 (the linker makes it the entry point).
CRT0 = "crt0.asm"
LIBRARY_NAME = "librap.a"

_memo: dict[str, list] = {}


def path(name: str = "") :
    """Filesystem path of a firmware file (or of the folder)."""
    root = resources.files(__name__)
    return root / name if name else root


def include_dir() -> str:
    """The folder to pass as ``-I`` / ``include_dirs`` for ``rap.inc``."""
    return os.fspath(path())


def sources() -> list[Path]:
    """Every assembly source of the firmware (crt0 first)."""
    return [Path(os.fspath(path(n))) for n in (CRT0,) + LIBRARY_SOURCES]


def digest() -> str:
    """A hash of the firmware sources, the include file and the assembler:
    the cache key of the build products."""
    h = hashlib.sha256()
    files = sources() + [Path(os.fspath(path("rap.inc")))]
    from rapsim import asm as _asm
    asm_dir = Path(os.path.dirname(_asm.__file__))
    files += sorted(asm_dir.glob("*.py")) + sorted(asm_dir.glob("*.lark"))
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def objects() -> list[tuple[str, object]]:
    """The assembled firmware as (name, ObjectFile) pairs, crt0 first
    (assembled once per process and source version)."""
    key = digest()
    if key not in _memo:
        from rapsim.asm.assembler import assemble_file
        inc = [include_dir()]
        _memo.clear()
        _memo[key] = [(Path(p).stem + ".obj", assemble_file(os.fspath(p), inc).obj)
                      for p in sources()]
    return list(_memo[key])


def _cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"rap-firmware-{digest()}"


def build_library(dest_dir: str | os.PathLike | None = None) -> Path:
    """Write ``librap.a`` (every routine but crt0) and ``crt0.obj`` into
    ``dest_dir`` (default: the cache folder) if they are not there yet;
    returns the archive's path (``crt0.obj`` is beside it)."""
    from rapsim.asm.archive import Member, archive_bytes
    from rapsim.asm.objfile import object_bytes
    d = Path(dest_dir) if dest_dir is not None else _cache_dir()
    lib, crt0 = d / LIBRARY_NAME, d / "crt0.obj"
    stamp = d / ".digest"
    key = digest()
    if lib.is_file() and crt0.is_file() and stamp.is_file() and stamp.read_text() == key:
        return lib
    d.mkdir(parents=True, exist_ok=True)
    objs = objects()
    write_atomic(crt0, object_bytes(objs[0][1]))
    write_atomic(lib, archive_bytes([Member(n, object_bytes(o)) for n, o in objs[1:]]))
    write_atomic(stamp, key.encode())
    return lib


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a uniquely named temporary file renamed over ``path``
    (several processes may build the same cache folder at once)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def link_inputs(dest_dir: str | os.PathLike | None = None) -> list[str]:
    """The files to link with a program: ``[crt0.obj, librap.a]``."""
    lib = build_library(dest_dir)
    return [os.fspath(lib.parent / "crt0.obj"), os.fspath(lib)]
