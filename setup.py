"""Build script: maps the top-level folders into the ``rapsim`` namespace.

The source tree keeps the layout the project is organised by (``asm/``,
``rapsim/``, ``firmware/``, ``compiler/``); installed, everything lives under
one import package, ``rapsim`` (``asm/`` becomes ``rapsim.asm`` and so on), so
nothing generic lands at the top of site-packages.  See docs/layout.md.
"""
from setuptools import setup

PACKAGE_DIR = {
    "rapsim": "rapsim",
    "rapsim.asm": "asm",
    "rapsim.compiler": "compiler",
    "rapsim.firmware": "firmware",
}

setup(
    packages=list(PACKAGE_DIR),
    package_dir=PACKAGE_DIR,
    package_data={
        "rapsim.asm": ["*.lark"],
        "rapsim.firmware": ["*.asm", "*.inc", "*.cmd"],
        "rapsim.compiler": ["*.lark"],
    },
    include_package_data=True,
)
