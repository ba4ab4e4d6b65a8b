"""The RAP's hand-written runtime: assembly sources shipped as package data."""
from importlib import resources


def path(name: str = "") :
    """Filesystem path of a firmware file (or of the folder)."""
    root = resources.files(__name__)
    return root / name if name else root
