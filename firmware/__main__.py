"""``python -m rapsim.firmware [DIR]``: assemble the firmware into DIR (default:
the cache folder) and print the files to link, ``crt0.obj librap.a``;
``python -m rapsim.firmware --include`` prints the folder of ``rap.inc``."""
import sys

from . import include_dir, link_inputs


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if argv[:1] == ["--include"]:
        print(include_dir())
        return 0
    print(" ".join(link_inputs(argv[0] if argv else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
