"""The firmware as a library: its include file, its generated tables, its
build helpers, and linking it from the shell with `rap as` / `rap ld`."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from rapsim import firmware, memmap
from rapsim.asm.archive import read_archive
from rapsim.daemon import SERVICE_NUMBERS
from rapsim import daemon
from rapsim.firmware import tables

SET = re.compile(r"^(\w+)\s+\.set\s+(\S+)", re.M)


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def _inc() -> dict[str, int]:
    text = open(firmware.path("rap.inc")).read()
    return {m.group(1): int(m.group(2), 0) for m in SET.finditer(text)}


def test_include_matches_the_simulator():
    inc = _inc()
    for name in ("RING_DATA", "RING_STAT", "RING_FWD", "NODE_ID", "NODE_COUNT", "HOST_CALL",
                 "DRAM_BASE", "RAM0_BASE", "RAM1_BASE"):
        assert inc[name] == getattr(memmap, name), name
    assert inc["RINGIO_BASE"] == memmap.RINGIO_BASE
    assert inc["RINGIO_PAGE"] << 16 == memmap.RINGIO_BASE
    assert inc["ONCHIP_WORDS"] == memmap.ONCHIP_BLOCK_SIZE
    for name in ("RING_DATA", "RING_STAT", "RING_FWD", "NODE_ID", "NODE_COUNT", "HOST_CALL"):
        assert memmap.RINGIO_BASE + inc[name + "_OFS"] == inc[name]
    for service, number in SERVICE_NUMBERS.items():
        assert inc["SYS_" + service] == number
    assert inc["RQ_WORDS"] == daemon.BLOCK_WORDS
    for flag in ("O_RDONLY", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC", "O_APPEND"):
        assert inc[flag] == getattr(daemon, flag), flag


def test_peripheral_names_match_the_memory_map():
    inc = _inc()
    for addr, name in memmap.PERIPH_REGISTERS.items():
        assert inc[name] == addr, name
    assert inc["PERIPH_BASE"] == memmap.PERIPH_BASE == inc["PERIPH_PAGE"] << 16 | 0x8000
    for name in ("DMA_GCR", "DMA_SRC", "DMA_DST", "DMA_CNT"):
        assert memmap.PERIPH_BASE + inc[name + "_OFS"] == inc[name]
    for k in (0, 1):
        for reg in ("GCR", "CNT", "PRD"):
            assert memmap.PERIPH_BASE + inc[f"TIMER{k}_OFS"] + inc[f"TIM_{reg}_OFS"] \
                == inc[f"TIMER{k}_{reg}"]
    # IF bits in the simulator's order, vectors at 1 + bit (guide 7.6.2)
    from rapsim._sim import INTERRUPT_NAMES
    for bit, name in enumerate(INTERRUPT_NAMES):
        assert inc["INT_" + name] == 1 << bit and inc["VEC_" + name] == bit + 1, name


def test_status_bits_match_the_simulator():
    inc = _inc()
    state = open(os.path.join(REPO, "rapsim", "core", "state.pxi")).read()
    for name in ("C", "V", "Z", "N", "UF", "LV", "LUF", "OVM", "RM", "CF", "CE", "CC", "GIE"):
        m = re.search(rf"ST_{name} = (0x[0-9A-Fa-f]+)", state)
        assert m and int(m.group(1), 16) == inc["ST_" + name], name


def test_activation_tables_are_generated():
    """activate.asm carries exactly the text firmware/tables.py generates."""
    text = open(firmware.path("activate.asm")).read()
    assert tables.data_section() in text


def test_objects_and_library(tmp_path):
    objs = dict(firmware.objects())
    assert set(objs) == {"crt0.obj", "syscalls.obj", "vector.obj", "activate.obj",
                         "matrix.obj", "sparse.obj", "binary.obj", "ring.obj", "subring.obj",
                         "dma.obj", "plasticity.obj", "overlap.obj", "dmaring.obj", "rotation.obj",
                         "columns.obj"}
    lib = firmware.build_library(tmp_path)
    members = [m.name for m in read_archive(lib)]
    assert members == ["syscalls.obj", "vector.obj", "activate.obj", "matrix.obj", "sparse.obj",
                       "binary.obj", "ring.obj", "subring.obj", "dma.obj", "plasticity.obj",
                       "overlap.obj", "dmaring.obj", "rotation.obj", "columns.obj"]
    assert (tmp_path / "crt0.obj").is_file()
    stamp = os.path.getmtime(lib)
    assert firmware.build_library(tmp_path) == lib          # cached: not rewritten
    assert os.path.getmtime(lib) == stamp
    inputs = firmware.link_inputs(tmp_path)
    assert inputs == [str(tmp_path / "crt0.obj"), str(lib)]
    # the default cache lives outside the package
    default = firmware.build_library()
    assert os.fspath(firmware.path()) not in os.fspath(default)
    assert firmware.digest() in os.fspath(default)


def test_every_documented_routine_is_global():
    """The routines docs/firmware.md lists are defined globals of the library."""
    defined = set()
    for _, obj in firmware.objects():
        defined |= {s.name for s in obj.symbols if s.binding == "global" and s.section}
    doc = open(os.path.join(REPO, "docs", "firmware.md")).read()
    named = set(re.findall(r"`(_[a-z][a-z0-9_]+)\(", doc)) - {"_main"}     # _main: the user's
    assert named, "no routine found in docs/firmware.md"
    assert named <= defined, sorted(named - defined)


def test_link_from_the_shell(tmp_path):
    """rap as -I <firmware>, rap ld crt0.obj prog.obj librap.a, rap run."""
    rap = os.path.join(os.path.dirname(sys.executable), "rap")
    # run from tmp_path: in the repository root "python -m" would find the
    # source folder rapsim/ before the installed package
    out = subprocess.run([sys.executable, "-m", "rapsim.firmware", str(tmp_path)], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout.split()
    inc = subprocess.run([sys.executable, "-m", "rapsim.firmware", "--include"], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout.strip()
    assert inc == firmware.include_dir()
    prog = tmp_path / "prog.asm"
    prog.write_text('''        .include "rap.inc"
        .global _main, _print_int
_main:  LDI     42, AR2
        CALL    _print_int
        LDI     7, R0
        RETS
''')
    subprocess.run([rap, "as", "-I", inc, str(prog), "-o", str(tmp_path / "prog.obj")], check=True)
    subprocess.run([rap, "ld", out[0], str(tmp_path / "prog.obj"), out[1], "-o",
                    str(tmp_path / "prog.out")], check=True)
    r = subprocess.run([rap, "run", str(tmp_path / "prog.out")], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.stdout == "42"
    assert r.returncode == 7


@pytest.mark.parametrize("name", ["crt0.asm", "syscalls.asm", "vector.asm", "activate.asm",
                                  "matrix.asm", "sparse.asm", "ring.asm", "rap.inc"])
def test_sources_are_package_data(name):
    assert firmware.path(name).is_file()


def test_ringio_page_names_read_every_node_id():
    """rap.inc's natural uses give each node its own id: LDP RINGIO_BASE then
    @NODE_ID_OFS, and LDRING (LDI RINGIO_PAGE / LSH 16) then *+ARn; the
    misuse LDP RINGIO_PAGE (page 0) does not assemble."""
    from rapsim.config import MachineConfig
    from rapsim.errors import Diagnostics
    from rapsim.machine import Simulator
    from rapsim.toolchain import build_text
    src = ('        .include "rap.inc"\n        .global start\n'
           'start:  LDP     RINGIO_BASE\n        LDI     @NODE_ID_OFS, R0\n'
           '        LDRING  AR1\n        NOP\n        LDI     *+AR1(NODE_ID_OFS), R1\n'
           # exit(0) through a host call, so that every node runs to its end
           '        LDP     blockp\n        LDI     @blockp, AR0\n        LDI     SYS_EXIT, R2\n'
           '        STI     R2, *+AR0(RQ_SERVICE)\n        LDI     0, R2\n'
           '        STI     R2, *+AR0(RQ_ARG0)\n        LDP     HOST_CALL\n'
           '        STI     AR0, @HOST_CALL_OFS\n'
           '        B       $\n        .data\nblockp: .word   block\n'
           '        .bss    block, RQ_WORDS\n')
    sim = Simulator(MachineConfig(nodes=4))
    sim.load(build_text(src, include_dirs=[firmware.path()]))
    res = sim.run(max_cycles=100_000)
    assert res.event == "done", res.messages
    assert [(sim.reg("R0", n), sim.reg("R1", n), sim.reg("DP", n)) for n in range(4)] == \
        [(n, n, 0x80) for n in range(4)]
    with pytest.raises(Diagnostics) as e:
        build_text(src.replace("LDP     RINGIO_BASE", "LDP     RINGIO_PAGE"),
                   include_dirs=[firmware.path()])
    assert "LDP takes an address, not a page number" in str(e.value)
