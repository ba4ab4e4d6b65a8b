"""Figures of docs/plan.md, from the cost model (rapsim.compiler.plan).

    python docs/plan/make.py table RESULTS.json    # predicted vs simulated over a rap bench sweep
    python docs/plan/make.py girau [--no-sim]      # docs/plan/girau.png (and girau.json)

``table`` reads a ``rap bench`` results file (any mapping), predicts every
measured point and prints a markdown table, the share of points within
10 %, and for every (network, nodes) with several mappings whether the
mapping ranked first is within 5 % of the fastest simulated.  ``girau``
draws, for MLPs of n units per layer and L weight layers, the predicted
cycles per training pattern of the row mapping, the checkerboard and the
pattern partition (data) against nodes, with simulated points on them.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _point(r):
    return json.loads(r["point"]) if isinstance(r["point"], str) else r["point"]


def table(path: str) -> None:
    from rapsim.commands.bench import FAMILIES, point_config
    from rapsim.compiler.mapping import resolve
    from rapsim.compiler.plan import predict
    from rapsim.compiler.train import measurement_network
    recs = json.load(open(path)) if path.endswith(".json") else None
    if recs is None:
        raise SystemExit("table: give a .json results file")
    rows, within, total = [], 0, 0
    groups: dict = {}
    for r in recs:
        if r.get("error"):
            continue
        pt = _point(r)
        mapping, batch = pt.get("mapping", "rows"), int(pt.get("batch", 1))
        config = point_config(pt)
        net = measurement_network(FAMILIES[pt["family"]].network(int(pt["size"])))
        p = predict(net, resolve(net, config.nodes, mapping, batch), config.memory)
        st, sf = r["train_cycles_per_pattern"], r["eval_cycles_per_pattern"]
        et, ef = p.train_cycles / st - 1, p.forward_cycles / sf - 1
        total += 2
        within += (abs(et) <= 0.10) + (abs(ef) <= 0.10)
        label = FAMILIES[pt["family"]].label(int(pt["size"]))
        rows.append((pt["family"], int(pt["size"]), mapping, config.nodes, label,
                     p.train_cycles, st, et, p.forward_cycles, sf, ef))
        groups.setdefault((label, config.nodes), []).append((mapping, p.train_cycles, st))
    rows.sort()
    print("| network | mapping | nodes | train predicted | train simulated | error "
          "| forward predicted | forward simulated | error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for _, _, m, n, label, pt_, st, et, pf, sf, ef in rows:
        print(f"| {label} | {m} | {n} | {pt_:,.0f} | {st:,.0f} | {100 * et:+.1f} % "
              f"| {pf:,.0f} | {sf:,.0f} | {100 * ef:+.1f} % |")
    print(f"\n{within} of {total} figures ({100 * within / total:.1f} %) within 10 % "
          f"({len(rows)} points, training and forward each)")
    bad, checked = [], 0
    for (label, n), ms in sorted(groups.items()):
        if len(ms) < 2:
            continue
        checked += 1
        first = min(ms, key=lambda m: m[1])
        fastest = min(ms, key=lambda m: m[2])
        if first[2] > 1.05 * fastest[2]:
            bad.append(f"{label} on {n}: ranked {first[0]} first ({first[2]:,.0f} simulated), "
                       f"fastest simulated {fastest[0]} ({fastest[2]:,.0f})")
    print(f"\nranking: on {checked - len(bad)} of {checked} (network, nodes) the mapping ranked "
          f"first is within 5 % of the fastest simulated")
    for b in bad:
        print(f"- {b}")


def _mlp(n: int, L: int):
    from rapsim.compiler.parser import parse_text
    layers = "\n".join(f"layer l{i}: {'input' if i == 0 else 'sigmoid'} {n}"
                       + ("" if i == 0 else " bias") for i in range(L + 1))
    connects = "\n".join(f"connect l{i} -> l{i + 1} full" for i in range(L))
    hidden = " ".join(f"hidden l{i}" for i in range(1, L))
    text = (f"{layers}\n{connects}\nnet mlp {{ input l0 {hidden} output l{L} }}\n"
            f"train {{ rate 0.01 epochs 1 error mse }}\n")
    return parse_text(text, f"mlp-{n}x{L}.net")


NODES = (1, 2, 4, 8, 9, 16, 25, 32, 36, 49, 64)
MAPPINGS = ("rows", "checkerboard", "data")
CASES = ((64, 2), (64, 4), (256, 2), (256, 4))
SIMULATED = {(64, 2): (4, 16, 64), (64, 4): (4, 16, 64), (256, 2): (4, 16, 64)}


def girau(simulate: bool) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rapsim.compiler.mapping import resolve
    from rapsim.compiler.plan import measure_point, predict
    from rapsim.config import MachineConfig
    out = {}
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    colours = {"rows": "C0", "checkerboard": "C1", "data": "C2"}
    for ax, (n, L) in zip(axes.ravel(), CASES):
        net = _mlp(n, L)
        case = out.setdefault(f"{n}x{L}", {"model": {}, "simulated": {}, "best": {}})
        for m in MAPPINGS:
            xs, ys = [], []
            for N in NODES:
                try:
                    p = predict(net, resolve(net, N, m))
                except Exception as e:          # does not fit: no point
                    print(f"{n}x{L} {m} {N}: {e}", file=sys.stderr)
                    continue
                xs.append(N)
                ys.append(p.train_cycles)
            case["model"][m] = dict(zip(map(str, xs), ys))
            ax.plot(xs, ys, "-", color=colours[m], label=f"{m} (model)")
            if simulate:
                sx, sy = [], []
                for N in SIMULATED.get((n, L), ()):
                    t, _ = measure_point(net, MachineConfig(nodes=N), m)
                    sx.append(N)
                    sy.append(t)
                case["simulated"][m] = dict(zip(map(str, sx), sy))
                ax.plot(sx, sy, "o", color=colours[m], mfc="none",
                        label=f"{m} (simulated)")
        for N in NODES:
            best = min((case["model"][m].get(str(N), float("inf")), m) for m in MAPPINGS)
            case["best"][str(N)] = best[1]
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"MLP {'-'.join([str(n)] * (L + 1))} ({L} weight layers)")
        ax.set_xlabel("nodes")
        ax.set_ylabel("cycles per training pattern")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("rows, checkerboard and pattern partition on the RAP (rap plan's model; "
                 "circles: simulated)")
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "girau.png"), dpi=90)
    with open(os.path.join(HERE, "girau.json"), "w") as f:
        json.dump(out, f, indent=1)
    for case, d in out.items():
        print(case, "best by nodes:", d["best"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("table")
    t.add_argument("results")
    g = sub.add_parser("girau")
    g.add_argument("--no-sim", action="store_true")
    a = ap.parse_args()
    if a.what == "table":
        table(a.results)
    else:
        girau(not a.no_sim)


if __name__ == "__main__":
    main()
