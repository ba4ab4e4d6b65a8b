"""The measured tables of docs/bench.md, as Markdown, from the results files
of the sweeps that section "The runs" of docs/bench.md lists:

    python benchmarks/report_tables.py [docs/bench/sweep.csv] [docs/bench/profile.json]

Nothing here is typed in by hand: every number is read from a results file
of ``rap bench``; re-running the sweeps and this script refreshes the docs.
"""
from __future__ import annotations


from rapsim.commands.bench import PUBLISHED
from rapsim.sweep import load_results


def _key(r):
    p = r["point"]
    return p["family"], p["size"], p["nodes"]


def matrix(recs: list[dict], metric: str) -> str:
    """Networks x nodes: metric (percent of peak)."""
    nodes = sorted({r["point"]["nodes"] for r in recs})
    nets = []
    for r in sorted(recs, key=_key):
        if r["network"] not in nets:
            nets.append(r["network"])
    by = {(r["network"], r["point"]["nodes"]): r for r in recs}
    head = f"| {metric.upper()} (% of peak) | " + " | ".join(f"{n}" for n in nodes) + " |"
    out = [head, "|---|" + "---:|" * len(nodes)]
    for net in nets:
        cells = []
        for n in nodes:
            r = by.get((net, n))
            if r is None:
                cells.append("")
            elif r.get("error") is not None:
                cells.append("does not fit" if r.get("error_kind") == "lowering" else "failed")
            else:
                cells.append(f"{r[metric]:.1f} ({r[metric + '_percent_of_peak']:.0f})")
        out.append(f"| {net} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def efficiency(recs: list[dict], metric: str, network: str, nodes: int) -> float | None:
    by = {(r["network"], r["point"]["nodes"]): r for r in recs if r.get("error") is None}
    one, n = by.get((network, 1)), by.get((network, nodes))
    if one is None or n is None:
        return None
    return n[metric] / (nodes * one[metric])


def breakdown(r: dict, phase: str) -> str:
    """Cycles of a pattern per node: MAC, routines, stalls."""
    prof = r.get(f"{phase}_profile") or {}
    cyc = r[f"{phase}_cycles_per_pattern"]
    parts = [f"{name} {v:.0f} ({v / cyc:.0%})" for name, v in list(prof.items())[:7]
             if v / cyc >= 0.02]
    stalls = {c: r[f"{phase}_stall_{c}"] for c in
              ("ring_read", "ring_write", "bus_conflict", "branch", "register_conflict")}
    st = ", ".join(f"{c.replace('_', ' ')} {v:.0f} ({v / cyc:.0%})" for c, v in stalls.items()
                   if v / cyc >= 0.01)
    mac = r[f"{phase}_mac_cycles"]
    return (f"{cyc:.0f} cycles/pattern/node, {mac:.0f} MAC ({mac / cyc:.0%}); "
            f"by routine: {', '.join(parts)}; stalls: {st or 'under 1 %'}; "
            f"ring busy {r[f'{phase}_ring_utilisation']:.1%}")


def main(sweep_file: str, profile_file: str) -> None:
    sweep = load_results(sweep_file)
    prof = load_results(profile_file)
    ok = [r for r in sweep if r.get("error") is None]
    print("## Published figures beside the simulated ones\n")
    print("| figure | RAP | network | simulated |")
    print("|---|---|---|---|")
    for n in (20, 40):
        for metric in ("mcps", "mcups"):
            for r in sorted((r for r in ok if r["point"]["nodes"] == n), key=_key):
                print(f"| {n} nodes, {metric.upper()} | {PUBLISHED[n][metric]} | {r['network']} | "
                      f"{r[metric]:.1f} ({r[metric + '_percent_of_peak']:.0f} % of peak) |")
    print()
    print("## Efficiency against one node (MCUPS, MCPS), 64 nodes\n")
    for net in sorted({r["network"] for r in ok}):
        e_u, e_p = efficiency(ok, "mcups", net, 64), efficiency(ok, "mcps", net, 64)
        if e_u is not None:
            print(f"- {net}: MCUPS {e_u:.0%}, MCPS {e_p:.0%} of linear")
    print()
    print("## Sustained percent of peak, by family, over the sweep\n")
    for fam in ("speech", "square"):
        for metric in ("mcps", "mcups"):
            v = [r[metric + "_percent_of_peak"] for r in ok if r["point"]["family"] == fam]
            print(f"- {fam} {metric.upper()}: {min(v):.0f}-{max(v):.0f} %")
    interest = [r for r in ok if r["point"]["family"] == "speech" and r["point"]["size"] >= 256
                and 4 <= r["point"]["nodes"] <= 40]
    for metric in ("mcps", "mcups"):
        v = [r[metric + "_percent_of_peak"] for r in interest]
        print(f"- speech MLPs with 256-2048 hidden units on 4-40 nodes, {metric.upper()}: "
              f"{min(v):.0f}-{max(v):.0f} %")
    print()
    print("## Matrices\n")
    print(matrix(sweep, "mcps"))
    print()
    print(matrix(sweep, "mcups"))
    print()
    print("## Counters of every point (per node and pattern: cycles, MAC share, stalls)\n")
    for r in sorted(ok, key=_key):
        cells = []
        for phase, what in (("eval", "forward"), ("train", "training")):
            cyc = r[f"{phase}_cycles_per_pattern"]
            share = {c: r[f"{phase}_{c}"] / cyc for c in
                     ("mac_cycles", "stall_ring_read", "stall_bus_conflict", "stall_memory_wait")}
            cells.append(f"{what} {cyc:.0f} cycles, MAC {share['mac_cycles']:.0%}, ring read "
                         f"{share['stall_ring_read']:.0%}, bus conflict "
                         f"{share['stall_bus_conflict']:.0%}, memory wait "
                         f"{share['stall_memory_wait']:.0%}")
        print(f"- {r['network']}, {r['point']['nodes']} nodes, weights in {r['weights_in']}: "
              + "; ".join(cells))
    print()
    print("## Where the cycles go (profiled points)\n")
    for r in sorted(prof, key=_key):
        if r.get("error") is not None:
            continue
        for phase, what in (("eval", "forward"), ("train", "training")):
            print(f"- {r['network']}, {r['point']['nodes']} nodes, {what}: {breakdown(r, phase)}")


if __name__ == "__main__":
    from benchargs import existing_file, parser
    p = parser(__doc__)
    p.add_argument("sweep", nargs="?", type=existing_file, default="docs/bench/sweep.csv",
                   help="the default sweep's results (default docs/bench/sweep.csv)")
    p.add_argument("profile", nargs="?", type=existing_file, default="docs/bench/profile.json",
                   help="the profiled sweep's results (default docs/bench/profile.json)")
    a = p.parse_args()
    main(a.sweep, a.profile)
