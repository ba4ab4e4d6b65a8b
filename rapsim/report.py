"""Reports of a run: counter tables and JSON, register and memory dumps."""
from __future__ import annotations

import sys

from rapsim.fileio import write_file


def _node_status(sim, n: int, c: dict) -> str:
    if c["status"] == "exited":
        return f"exit {sim.core.exit_status(n)}"
    return c["status"]


def stats_dict(sim, result) -> dict:
    """Every counter of every node (with its index, board, status and exit
    status), and the machine's totals."""
    m = sim.machine_counters()
    nodes = []
    for n, c in enumerate(m["nodes"]):
        d = {"node": n, "board": sim.config.board_of(n), **c}
        d["exit_status"] = sim.core.exit_status(n) if c["status"] == "exited" else None
        nodes.append(d)
    return {
        "event": result.event,
        "exit_status": result.exit_status,
        "nodes": nodes,
        "machine": {k: v for k, v in m.items() if k != "nodes"} | {"nodes": sim.nodes,
                                                                   "boards": sim.config.boards},
        "clock_hz": sim.config.clock_hz,
        "host_seconds": result.host_seconds,
        "simulated_instructions_per_second": (m["instructions"] / result.host_seconds
                                              if result.host_seconds else 0.0),
    }


def stats_table(sim, result, file=sys.stderr) -> None:
    """Print the counters as tables: one row per node (its status: "exit N"
    or why it stopped), and for several nodes a last row "all" with the
    machine's cycles (the longest node) and the sums of everything else."""
    from rich.console import Console
    from rich.table import Table
    m = sim.machine_counters()
    per = m["nodes"]
    several = len(per) > 1
    size = f"{sim.nodes} nodes on {sim.config.boards} board{'s' if sim.config.boards > 1 else ''}" \
        if several else "1 node"
    t = Table(title=f"rap run: {result.event}, {m['cycles']} cycles "
                    f"({m['seconds'] * 1e3:.3f} ms at {sim.config.clock_hz / 1e6:g} MHz), {size}")
    causes = list(per[0]["stalls"]) if per else []
    t.add_column("node", justify="right")
    t.add_column("status", justify="left")
    for col in ["cycles", "instr", "CPI", *[c.replace("_", " ") for c in causes],
                "ring sent", "ring recv", "ring fwd"]:
        t.add_column(col, justify="right")

    def row(label, status, cycles, c):
        cpi = cycles / c["instructions"] if c["instructions"] else 0.0
        return (label, status, str(cycles), str(c["instructions"]), f"{cpi:.2f}",
                *[str(c["stalls"][k]) for k in causes],
                str(c["ring"]["sent"]), str(c["ring"]["received"]), str(c["ring"]["forwarded"]))

    for i, c in enumerate(per):
        t.add_row(*row(str(i), _node_status(sim, i, c), c["cycles"], c), end_section=several and i == len(per) - 1)
    if several:
        total = {"instructions": m["instructions"],
                 "stalls": {k: sum(c["stalls"][k] for c in per) for k in causes},
                 "ring": {k: sum(c["ring"][k] for c in per) for k in ("sent", "received", "forwarded")}}
        # CPI of the "all" row: node-cycles per instruction
        all_row = list(row("all", "", m["cycles"], total))
        node_cycles = sum(c["cycles"] for c in per)
        all_row[4] = f"{node_cycles / m['instructions']:.2f}" if m["instructions"] else "0.00"
        t.add_row(*all_row)
    Console(file=file, width=220).print(t)
    acc = Table(title="memory accesses (fetch / read / write)")
    acc.add_column("node", justify="right")
    regions = list(per[0]["reads"]) if per else []
    for r in regions:
        acc.add_column(r, justify="right")
    acc.add_column("cache hit/miss", justify="right")
    for i, c in enumerate(per):
        acc.add_row(str(i), *[f"{c['fetches'][r]}/{c['reads'][r]}/{c['writes'][r]}" for r in regions],
                    f"{c['cache']['hits']}/{c['cache']['misses']}", end_section=several and i == len(per) - 1)
    if several:
        acc.add_row("all", *[f"{sum(c['fetches'][r] for c in per)}/{sum(c['reads'][r] for c in per)}/"
                             f"{sum(c['writes'][r] for c in per)}" for r in regions],
                    f"{sum(c['cache']['hits'] for c in per)}/{sum(c['cache']['misses'] for c in per)}")
    Console(file=file, width=220).print(acc)
    _periph_table(per, several, file)
    print(f"ring: {m['ring_words']} words moved, utilisation {m['ring_utilisation']:.4f} "
          f"(words / (links x cycles)); {m['instructions']} instructions in "
          f"{result.host_seconds:.3f} s host time", file=file)


_PERIPH_COLUMNS = (("dma_words", "DMA words"), ("cpu_lost_to_dma", "CPU lost to DMA"),
                   ("dma_lost_to_cpu", "DMA lost to CPU"), ("dma_ring_wait", "DMA ring wait"),
                   ("idle_cycles", "IDLE cycles"))


def _periph_table(per: list, several: bool, file) -> None:
    """The on-chip peripherals' counters, printed only when a node used them
    (DMA words, the cycles CPU and DMA lost to each other, IDLE, interrupts
    taken per source)."""
    from rich.console import Console
    from rich.table import Table
    used = [c["periph"] for c in per]
    if not any(p[k] for p in used for k, _ in _PERIPH_COLUMNS) \
            and not any(p["interrupts"].values() for p in used):
        return
    sources = [s for s in used[0]["interrupts"] if any(p["interrupts"][s] for p in used)]
    t = Table(title="on-chip peripherals (cycles; interrupts taken per source)")
    t.add_column("node", justify="right")
    for _, title in _PERIPH_COLUMNS:
        t.add_column(title, justify="right")
    for s in sources:
        t.add_column(s, justify="right")
    for i, p in enumerate(used):
        t.add_row(str(i), *[str(p[k]) for k, _ in _PERIPH_COLUMNS],
                  *[str(p["interrupts"][s]) for s in sources], end_section=several and i == len(used) - 1)
    if several:
        t.add_row("all", *[str(sum(p[k] for p in used)) for k, _ in _PERIPH_COLUMNS],
                  *[str(sum(p["interrupts"][s] for p in used)) for s in sources])
    Console(file=file, width=220).print(t)


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
