"""Reports of a run: counter tables and JSON, register and memory dumps."""
from __future__ import annotations

import sys

from rapsim.fileio import write_file


def stats_dict(sim, result) -> dict:
    """Every counter of every node, and the machine's totals."""
    m = sim.machine_counters()
    return {
        "event": result.event,
        "exit_status": result.exit_status,
        "nodes": m["nodes"],
        "machine": {k: v for k, v in m.items() if k != "nodes"},
        "clock_hz": sim.config.clock_hz,
        "host_seconds": result.host_seconds,
        "simulated_instructions_per_second": (m["instructions"] / result.host_seconds
                                              if result.host_seconds else 0.0),
    }


def stats_table(sim, result, file=sys.stderr) -> None:
    """Print the counters as a table (one row per node)."""
    from rich.console import Console
    from rich.table import Table
    m = sim.machine_counters()
    t = Table(title=f"rap run: {result.event}, {m['cycles']} cycles "
                    f"({m['seconds'] * 1e3:.3f} ms at {sim.config.clock_hz / 1e6:g} MHz)")
    causes = list(m["nodes"][0]["stalls"]) if m["nodes"] else []
    for col in ["node", "cycles", "instr", "CPI", *[c.replace("_", " ") for c in causes],
                "ring sent", "ring recv", "ring fwd"]:
        t.add_column(col, justify="right")
    for i, c in enumerate(m["nodes"]):
        cpi = c["cycles"] / c["instructions"] if c["instructions"] else 0.0
        t.add_row(str(i), str(c["cycles"]), str(c["instructions"]), f"{cpi:.2f}",
                  *[str(c["stalls"][k]) for k in causes],
                  str(c["ring"]["sent"]), str(c["ring"]["received"]), str(c["ring"]["forwarded"]))
    Console(file=file, width=200).print(t)
    acc = Table(title="memory accesses (fetch / read / write)")
    acc.add_column("node", justify="right")
    regions = list(m["nodes"][0]["reads"]) if m["nodes"] else []
    for r in regions:
        acc.add_column(r, justify="right")
    acc.add_column("cache hit/miss", justify="right")
    for i, c in enumerate(m["nodes"]):
        acc.add_row(str(i), *[f"{c['fetches'][r]}/{c['reads'][r]}/{c['writes'][r]}" for r in regions],
                    f"{c['cache']['hits']}/{c['cache']['misses']}")
    Console(file=file, width=200).print(acc)
    print(f"ring utilisation {m['ring_utilisation']:.4f}; {m['instructions']} instructions in "
          f"{result.host_seconds:.3f} s host time", file=file)


def register_dump(sim) -> dict:
    """Final registers: for one node a dict of registers, for several
    ``{"nodes": [dict, ...]}``.  R0-R7 are {"hex", "value", "int"}."""
    if sim.nodes == 1:
        return sim.registers(0)
    return {"nodes": [sim.registers(n) for n in range(sim.nodes)]}


def dump_memory(sim, addr: int, count: int, path: str | None) -> None:
    """Memory words as 8-digit hex, one per line, node after node."""
    lines = []
    for n in range(sim.nodes):
        if not sim.core.mapped(n, addr, count):
            raise ValueError("the range is not plain memory of the node")
        lines += [f"{int(w):08X}" for w in sim.read(addr, count, n)]
    text = "\n".join(lines) + ("\n" if lines else "")
    if path is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        write_file(path, text)
