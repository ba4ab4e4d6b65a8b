"""Assemble, link and run from Python in one call (the CLI's steps as functions).

>>> image = build_text('''
...         .global start
... start:  LDI 5, R0
...         B $
... ''')
>>> sim, result = run_text(source, nodes=4, max_cycles=10_000)

Used by the tests, the examples and the network compiler.
"""
from __future__ import annotations

import os
from typing import Iterable

from rapsim.asm.assembler import assemble_file, assemble_text
from rapsim.asm.linker import InputFile, link_files, load_input
from rapsim.asm.linkscript import parse_script
from rapsim.asm.objfile import Image, ObjectFile
from rapsim.config import MachineConfig
from rapsim.memmap import MemoryConfig


def link_objects(objects: Iterable[tuple[str, ObjectFile]], *, libraries: Iterable[str] = (),
                 script: str | None = None, entry: str | None = None,
                 memory: MemoryConfig | None = None) -> Image:
    """Link in-memory objects (name, object) and archive/object files."""
    files = [InputFile(name, [(name, obj)]) for name, obj in objects]
    files += [load_input(os.fspath(p)) for p in libraries]
    ls = parse_script(script, "<script>") if script else None
    kw = {"config": memory} if memory is not None else {}
    return link_files(files, script=ls, entry=entry, **kw).image


def build_text(*sources: str, include_dirs: Iterable[str] = (), defines=None,
               libraries: Iterable[str] = (), script: str | None = None,
               entry: str | None = None, memory: MemoryConfig | None = None) -> Image:
    """Assemble source texts (each a separate file) and link them."""
    objs = []
    for i, src in enumerate(sources):
        name = f"<source{i}>.asm" if len(sources) > 1 else "<source>.asm"
        objs.append((name.replace(".asm", ".obj"),
                     assemble_text(src, name, list(include_dirs), defines).obj))
    return link_objects(objs, libraries=libraries, script=script, entry=entry, memory=memory)


def build_files(*paths: str, include_dirs: Iterable[str] = (), defines=None,
                libraries: Iterable[str] = (), script: str | None = None,
                entry: str | None = None, memory: MemoryConfig | None = None) -> Image:
    """Assemble source files and link them."""
    objs = [(os.path.splitext(os.fspath(p))[0] + ".obj",
             assemble_file(os.fspath(p), list(include_dirs), defines).obj) for p in paths]
    return link_objects(objs, libraries=libraries, script=script, entry=entry, memory=memory)


def run_image(image: Image, *, nodes: int = 1, config: MachineConfig | None = None,
              max_cycles: int | None = 10_000_000, root: str = ".", argv: Iterable[str] = (),
              output=None, **run_kw):
    """Load an image on a new simulator and run it; returns (simulator, result)."""
    from rapsim.machine import Simulator
    cfg = config or MachineConfig(nodes=nodes)
    sim = Simulator(cfg, root=root, argv=list(argv), output=output)
    sim.load(image)
    return sim, sim.run(max_cycles=max_cycles, **run_kw)


def run_text(*sources: str, nodes: int = 1, config: MachineConfig | None = None,
             max_cycles: int | None = 10_000_000, build_kw: dict | None = None, **kw):
    """Assemble, link and run source texts; returns (simulator, result)."""
    memory = config.memory if config is not None else None
    image = build_text(*sources, memory=memory, **(build_kw or {}))
    return run_image(image, nodes=nodes, config=config, max_cycles=max_cycles, **kw)
