"""``rap run``: run an executable image on a simulated RAP."""
from __future__ import annotations

import argparse
import json
import sys

from rapsim.commands import runtools
from rapsim.errors import RapError

HELP = "run an image on a simulated RAP (1-64 nodes)"
DESCRIPTION = """\
Run an executable image (from 'rap ld') on a simulated RAP: the same image on
every node (SPMD), node output forwarded to this terminal, exit status of the
program (the first non-zero status of a node, else 0).

Exit status: the program's own (0-255) when every node exits; 1 for bad input
(missing or corrupt image, bad option); 3 when the simulated machine stops
otherwise (a node error such as an illegal instruction or an unmapped address,
a deadlock on the ring, IDLE with nothing to wake it, a breakpoint, or the
cycle limit); 130 when interrupted (Ctrl-C).  Reports name the node, the PC
and the instruction.
"""

EXIT_MACHINE_STOPPED = 3
#: arguments after '--' anywhere on the command line go to the program (rapsim.cli)
PROGRAM_ARGS = True
MAX_COUNT = 1 << 62         # the largest cycle count the simulator takes (rapsim.machine.NO_LIMIT)


def _int(text: str) -> int:
    text = text.strip().lower()
    try:
        if text.endswith("h") and len(text) > 1:
            return int(text[:-1], 16)
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _whole(text: str) -> int:
    """A whole number: an integer (0x.., ..h) or an integral float such as 1e9."""
    try:
        return _int(text)
    except argparse.ArgumentTypeError:
        try:
            f = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not f.is_integer():
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        return int(f)


def _positive(text: str) -> int:
    """A positive count: an integer (0x.., ..h) or an integral float such as 1e9."""
    v = _whole(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text!r}")
    if v > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"at most {MAX_COUNT:.3g}, not {text!r}")
    return v


def _threads(text: str) -> int:
    """--threads N: 1..MAX_THREADS host threads."""
    from rapsim.machine import MAX_THREADS
    v = _whole(text)
    if not 1 <= v <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_THREADS} host threads, not {text!r}")
    return v


def add_threads_argument(g, default_text: str) -> None:
    """--threads N (rap run, rap train, rap bench)."""
    g.add_argument("--threads", type=_threads, metavar="N",
                   help="host threads one simulated machine is split over (contiguous groups "
                        f"of nodes; results never depend on it; {default_text})")


def threads_of(args) -> int:
    """--threads, or the host cores this process may use (rap run, rap train);
    1 for a command without the option (rap prof, rap dbg)."""
    from rapsim import _sim
    from rapsim.machine import default_threads
    if not hasattr(args, "threads"):
        return 1
    if not _sim.HOST_THREADS:
        if args.threads is not None and args.threads > 1:
            print("rap: note: this build of the simulator has no host threads (no POSIX "
                  "threads when it was compiled): --threads ignored, one thread",
                  file=sys.stderr)
        return 1
    return default_threads() if args.threads is None else args.threads


def _dump_spec(text: str) -> tuple[int, int, str | None]:
    parts = text.split(":", 2)
    if len(parts) < 2:
        raise argparse.ArgumentTypeError(f"--dump takes ADDR:COUNT[:FILE], not {text!r}")
    addr, count = _int(parts[0]), _int(parts[1])
    if not 0 <= addr < 1 << 24:
        raise argparse.ArgumentTypeError(f"address {parts[0]!r} of {text!r} is not a 24-bit address "
                                         "(0..0xFFFFFF)")
    if not 0 <= count <= (1 << 24) - addr:
        raise argparse.ArgumentTypeError(f"count {parts[1]!r} of {text!r} is out of range: 0..{(1 << 24) - addr} "
                                         "words fit between the address and the end of the address space")
    return addr, count, (parts[2] if len(parts) == 3 and parts[2] else None)


def add_machine_arguments(p: argparse.ArgumentParser, sizes: bool = True) -> None:
    """Options that configure the simulated machine (shared with other commands);
    ``sizes``: with --boards and --nodes."""
    g = p.add_argument_group("machine")
    if sizes:
        size = g.add_mutually_exclusive_group()
        size.add_argument("--boards", type=int, metavar="B", help="boards of 4 nodes (1-16)")
        size.add_argument("--nodes", type=int, metavar="N", help="nodes (1-64; default 1)")
    g.add_argument("--sram-words", type=_int, metavar="N",
                   help="SRAM words per node (default 262144 = 1 MB; 65536 for the 256 KB board)")
    g.add_argument("--dram-words", type=_int, metavar="N", help="DRAM words per node (default 4194304)")
    g.add_argument("--sram-wait", type=int, metavar="W", help="SRAM wait states (default 0)")
    g.add_argument("--dram-wait", type=int, metavar="W", help="DRAM wait states (default 2)")
    g.add_argument("--onchip-wait", type=int, metavar="W", help="on-chip RAM wait states (default 0)")
    g.add_argument("--clock-mhz", type=float, metavar="F", help="instruction rate in MHz (default 16)")
    g.add_argument("--hostcall-cycles", type=int, metavar="C",
                   help="simulated cycles one host call costs (default 1600 = 100 us)")
    g.add_argument("--board-hop-cycles", type=int, metavar="C",
                   help="cycles of a ring hop between boards (default 1, as on a board)")


def machine_config(args):
    from rapsim.config import MachineConfig
    from rapsim.memmap import MemoryConfig
    mem = {}
    for opt, key in (("sram_words", "sram_words"), ("dram_words", "dram_words"),
                     ("sram_wait", "sram_wait"), ("dram_wait", "dram_wait"),
                     ("onchip_wait", "onchip_wait")):
        v = getattr(args, opt, None)
        if v is not None:
            mem[key] = v
    kw = {}
    if getattr(args, "clock_mhz", None) is not None:
        kw["clock_hz"] = args.clock_mhz * 1e6
    if getattr(args, "hostcall_cycles", None) is not None:
        kw["hostcall_cycles"] = args.hostcall_cycles
    if getattr(args, "board_hop_cycles", None) is not None:
        kw["board_hop_cycles"] = args.board_hop_cycles
    try:
        memory = MemoryConfig(**mem)
        if getattr(args, "boards", None) is not None:
            return MachineConfig.from_boards(args.boards, memory=memory, **kw)
        return MachineConfig(nodes=1 if args.nodes is None else args.nodes, memory=memory, **kw)
    except ValueError as e:
        raise RapError(str(e)) from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("image", help="executable image (.out) from 'rap ld'")
    p.add_argument("args", nargs="*", metavar="-- ARGS",
                   help="arguments passed to the program (argv[1..]; argv[0] is the image name)")
    p.add_argument("--max-cycles", type=_positive, default=1_000_000_000, metavar="N",
                   help="stop with an error when a node reaches N cycles (default 1e9)")
    p.add_argument("--root", default=".", metavar="DIR",
                   help="directory the host daemon confines the program's files to (default .)")
    p.add_argument("--stats", action="store_true", help="print a table of the counters")
    p.add_argument("--stats-json", metavar="FILE", help="write every counter as JSON")
    p.add_argument("--dump-regs", metavar="FILE", help="write the final registers as JSON")
    p.add_argument("--dump", action="append", type=_dump_spec, default=[], metavar="ADDR:COUNT[:FILE]",
                   help="write COUNT memory words from ADDR as hex at the end (stdout without FILE); "
                        "repeatable")
    p.add_argument("--output-dir", metavar="DIR",
                   help="write each node's stdout/stderr to DIR/node<N>.out and .err instead of "
                        "the terminal")
    add_machine_arguments(p)
    add_threads_argument(p, "default: the cores available")
    runtools.add_arguments(p)


def read_image_file(path: str):
    """The image in ``path`` (RapError naming the problem otherwise)."""
    from rapsim.asm.objfile import ObjectFormatError, read_image
    try:
        return read_image(path)
    except ObjectFormatError as e:
        raise RapError(str(e)) from None


def loaded_simulator(config, path: str, image, args, output, stdin):
    """A Simulator with ``image`` (read from ``path``) loaded, its program
    given ``args.args`` and the files under ``args.root``; bad input as
    RapError.  (rap run, rap prof, rap dbg.)"""
    from rapsim.machine import Simulator
    try:
        sim = Simulator(config, root=args.root, argv=[path, *args.args], output=output,
                        stdin=stdin, threads=threads_of(args))
    except FileNotFoundError as e:
        raise RapError(str(e)) from None
    try:
        sim.load(image)
    except ValueError as e:
        raise RapError(f"{path}: {e}") from None
    return sim


def run(args) -> int:
    from rapsim.output import NodeOutput
    from rapsim.report import dump_memory, register_dump, stats_dict, stats_table
    from rapsim.fileio import check_writable, write_file

    config = machine_config(args)
    outputs = runtools.Outputs(args)
    image = read_image_file(args.image)
    # result files and dump ranges are checked before the run, not after it
    for path in (args.stats_json, args.dump_regs, *(f for _, _, f in args.dump),
                 *outputs.paths()):
        if path:
            check_writable(path)
    # (no standard input at all when rap run is started with it closed)
    stdin = sys.stdin.buffer if sys.stdin is not None and not sys.stdin.isatty() else None
    out = None          # created once every input has been checked (--output-dir makes a folder)
    sim = loaded_simulator(config, args.image, image, args,
                           lambda node, fd, data: out.write(node, fd, data), stdin)
    for addr, count, _ in args.dump:
        if not sim.core.mapped(0, addr, count):
            raise RapError(f"--dump 0x{addr:06X}:{count}: the range is not plain memory of the node")
    outputs.attach(sim)
    out = NodeOutput(config.nodes, args.output_dir)
    result = None
    try:
        result = sim.run(max_cycles=args.max_cycles)
    finally:
        out.close()
        sim.daemon.close_all()
        outputs.finish(sim, result)
    for m in result.messages:
        print(f"rap run: {m}" if not m.startswith("  ") else m, file=sys.stderr)
    if args.stats:
        stats_table(sim, result, file=sys.stderr)
    if args.stats_json:
        write_file(args.stats_json, json.dumps(stats_dict(sim, result), indent=2) + "\n")
    if args.dump_regs:
        write_file(args.dump_regs, json.dumps(register_dump(sim), indent=2) + "\n")
    for addr, count, path in args.dump:
        try:
            dump_memory(sim, addr, count, path)
        except ValueError as e:
            raise RapError(f"--dump 0x{addr:06X}:{count}: {e}") from None
    if not result.ok:
        return EXIT_MACHINE_STOPPED
    return result.exit_status & 0xFF
