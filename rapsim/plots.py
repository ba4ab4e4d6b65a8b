"""Scaling plots of a sweep: speedup against nodes, with the linear line.

matplotlib draws them (Agg backend, no display needed); each figure is
written as PNG and SVG.
"""
from __future__ import annotations

import os
from typing import Iterable


def speedup_series(records: Iterable[dict], metric: str, label_key: str = "network",
                   nodes_key: str = "nodes") -> dict[str, list[tuple[int, float]]]:
    """For each label, (nodes, metric(nodes) / metric(fewest nodes) * fewest
    nodes) sorted by nodes: the speedup over one node, extrapolated linearly
    when the sweep does not include one node."""
    groups: dict[str, list[tuple[int, float]]] = {}
    for r in records:
        p = r["point"]
        if r.get(metric) is None:
            continue
        groups.setdefault(str(p[label_key]), []).append((int(p[nodes_key]), float(r[metric])))
    out = {}
    for label, pts in groups.items():
        pts.sort()
        n0, v0 = pts[0]
        if v0 <= 0:
            continue
        out[label] = [(n, v / v0 * n0) for n, v in pts]
    return out


def plot_speedup(records: Iterable[dict], metric: str, path_stem: str, *, title: str = "",
                 label_key: str = "network", nodes_key: str = "nodes") -> list[str]:
    """Draw speedup against nodes for every label, and the linear speedup;
    returns the files written (``path_stem``.png and .svg)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = speedup_series(records, metric, label_key, nodes_key)
    fig, ax = plt.subplots(figsize=(7, 5))
    top = 1
    for label, pts in sorted(series.items()):
        xs = [n for n, _ in pts]
        ys = [s for _, s in pts]
        top = max(top, *xs)
        ax.plot(xs, ys, marker="o", label=label)
    ax.plot([1, top], [1, top], linestyle="--", color="grey", label="linear")
    ax.set_xlabel("nodes")
    ax.set_ylabel(f"speedup ({metric} relative to the fewest nodes)")
    ax.set_title(title or f"RAP scaling: {metric}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    written = []
    os.makedirs(os.path.dirname(os.path.abspath(path_stem)), exist_ok=True)
    for ext in ("png", "svg"):
        out = f"{path_stem}.{ext}"
        tmp = out + ".tmp"
        fig.savefig(tmp, format=ext)
        os.replace(tmp, out)
        written.append(out)
    plt.close(fig)
    return written
