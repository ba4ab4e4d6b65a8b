"""Build script: maps the top-level folders into the ``rapsim`` namespace and
builds the simulator core.

The source tree keeps the layout the project is organised by (``asm/``,
``rapsim/``, ``firmware/``, ``compiler/``); installed, everything lives under
one import package, ``rapsim`` (``asm/`` becomes ``rapsim.asm`` and so on), so
nothing generic lands at the top of site-packages.  See docs/layout.md.

Before Cython runs, the ISA table (asm/isa.py) and the memory map
(rapsim/memmap.py) are written into rapsim/_isa_gen.h and _isa_gen.pxi for
the simulator's pre-decoder (asm/isagen.py), so that encodings are defined
once, in Python.
"""
import importlib.util
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))

PACKAGE_DIR = {
    "rapsim": "rapsim",
    "rapsim.commands": "rapsim/commands",
    "rapsim.asm": "asm",
    "rapsim.compiler": "compiler",
    "rapsim.firmware": "firmware",
}


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def generate_isa_tables():
    isa = _load("_rap_build_isa", "asm/isa.py")
    memmap = _load("_rap_build_memmap", "rapsim/memmap.py")
    isagen = _load("_rap_build_isagen", "asm/isagen.py")
    isagen.write_generated(isa, memmap, os.path.join(HERE, "rapsim"))


generate_isa_tables()

extensions = [
    Extension(
        "rapsim._sim",
        ["rapsim/_sim.pyx"],
        include_dirs=[os.path.join(HERE, "rapsim"), numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "--param=max-inline-insns-single=1200", "--param=large-function-growth=400", "--param=inline-unit-growth=200",
                            "-pthread"],
        # node groups on host threads (core/sync.pxi, schedule.pxi): POSIX threads
        extra_link_args=["-pthread"],
    )
]

setup(
    packages=list(PACKAGE_DIR),
    package_dir=PACKAGE_DIR,
    package_data={
        "rapsim.asm": ["*.lark"],
        "rapsim.firmware": ["*.asm", "*.inc", "*.cmd"],
        "rapsim.compiler": ["*.lark"],
    },
    include_package_data=True,
    ext_modules=cythonize(extensions, language_level=3,
                          include_path=[os.path.join(HERE, "rapsim")],
                          compiler_directives={"boundscheck": False, "wraparound": False}),
)
