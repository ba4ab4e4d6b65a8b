"""Scaling plots of a sweep: speedup against nodes, with the linear line.

matplotlib draws them (Agg backend, no display needed), both axes in powers
of two so that machine sizes from 1 to 64 nodes spread evenly and the linear
speedup is the diagonal; each figure is written as PNG and SVG.
"""
from __future__ import annotations

import os
import re
from typing import Iterable, Sequence


def _value(record: dict, key: str):
    """``key`` of a record's point, else of the record itself."""
    p = record.get("point") or {}
    return p[key] if key in p else record.get(key)


def speedup_series(records: Iterable[dict], metric: str, label_key: str = "network",
                   nodes_key: str = "nodes") -> dict[str, list[tuple[int, float]]]:
    """For each label, (nodes, metric(nodes) / metric(fewest nodes) * fewest
    nodes) sorted by nodes: the speedup over one node, extrapolated linearly
    when the sweep does not include one node.  Labels and node counts are
    taken from each record's point, else from the record; records without
    the metric (a point that failed) are left out."""
    groups: dict[str, list[tuple[int, float]]] = {}
    for r in records:
        if r.get(metric) is None or _value(r, nodes_key) is None:
            continue
        groups.setdefault(str(_value(r, label_key)), []).append(
            (int(_value(r, nodes_key)), float(r[metric])))
    out = {}
    for label, pts in groups.items():
        pts.sort()
        n0, v0 = pts[0]
        if v0 <= 0:
            continue
        out[label] = [(n, v / v0 * n0) for n, v in pts]
    return out


def plot_speedup(records: Iterable[dict], metric: str | Sequence[str], path_stem: str, *,
                 title: str = "", label_key: str = "network",
                 nodes_key: str = "nodes") -> list[str]:
    """Draw speedup against nodes for every label, and the linear speedup,
    one panel per metric (``metric``: one name or several); returns the
    files written (``path_stem``.png and .svg)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    records = list(records)
    metrics = [metric] if isinstance(metric, str) else list(metric)
    series = {m: speedup_series(records, m, label_key, nodes_key) for m in metrics}
    labels = sorted({lab for s in series.values() for lab in s}, key=_natural)
    colours = plt.get_cmap("tab20" if len(labels) > 10 else "tab10")
    fig, axes = plt.subplots(1, len(metrics), figsize=(7 * len(metrics), 5.5), squeeze=False)
    for ax, m in zip(axes[0], metrics):
        ticks: set[int] = set()
        for i, label in enumerate(labels):
            pts = series[m].get(label)
            if not pts:
                continue
            xs = [n for n, _ in pts]
            ys = [v for _, v in pts]
            ticks.update(xs)
            ax.plot(xs, ys, marker="o", markersize=4, label=label, color=colours(i % colours.N))
        lo, hi = (min(ticks), max(ticks)) if ticks else (1, 2)
        ax.plot([lo, hi], [lo, hi], linestyle="--", color="grey", label="linear")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(sorted(ticks) or [1, 2])
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xlabel("nodes")
        ax.set_ylabel(f"speedup ({m} relative to the fewest nodes)")
        ax.set_title(m.upper() if len(metrics) > 1 else (title or f"RAP scaling: {m}"))
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize="small")
    if len(metrics) > 1 and title:
        fig.suptitle(title)
    fig.tight_layout()
    written = []
    os.makedirs(os.path.dirname(os.path.abspath(path_stem)), exist_ok=True)
    for ext in ("png", "svg"):
        out = f"{path_stem}.{ext}"
        tmp = out + ".tmp"
        fig.savefig(tmp, format=ext, dpi=110 if ext == "png" else None)
        os.replace(tmp, out)
        written.append(out)
    plt.close(fig)
    return written


def _natural(label: str):
    """Sort key: 'square 256' before 'square 1024'."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label)]


def timeline_figure(doc: dict, path: str, title: str = "") -> None:
    """Draw a trace-event timeline (rapsim.timeline) as an image (PNG, or
    SVG by the file's extension): a row per node with its routine slices
    (one colour per routine, labelled where there is room), ring waits
    hatched in red, host calls in grey and the on-chip peripherals' waits
    (IDLE dotted, DMA waits hatched in orange) over them, and the ring
    utilisation counter below (with the DMA words per cycle when a DMA
    channel moved any).  Time axis in cycles."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    us = 1e6 / doc["otherData"]["clock_hz"]
    lo, hi = doc["otherData"]["cycles"]
    nodes = doc["otherData"]["nodes"]
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    waits = ("ring", "host", "IDLE", "DMA wait")
    routines = sorted({e["name"] for e in xs if not e["name"].startswith(waits)})
    cmap = plt.get_cmap("tab20")
    colour = {r: cmap(i % 20) for i, r in enumerate(routines)}
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(13, 1.0 + 0.55 * nodes + 1.6), sharex=True,
                                  gridspec_kw={"height_ratios": [nodes, 2.2]})
    depth: dict[tuple[int, float], int] = {}
    for e in sorted(xs, key=lambda e: (e["tid"], e["ts"], -e["dur"])):
        n, a, d = e["tid"], e["ts"] / us, e["dur"] / us
        name = e["name"]
        if name.startswith("ring"):
            ax.broken_barh([(a, d)], (n - 0.42, 0.84), facecolor="none", edgecolor="red",
                           hatch="////", linewidth=0.4)
        elif name.startswith("host"):
            ax.broken_barh([(a, d)], (n - 0.42, 0.84), facecolor="0.6")
        elif name == "IDLE":
            ax.broken_barh([(a, d)], (n - 0.42, 0.84), facecolor="0.9", edgecolor="0.4",
                           hatch="..", linewidth=0.4)
        elif name == "DMA wait":
            ax.broken_barh([(a, d)], (n - 0.42, 0.84), facecolor="none", edgecolor="tab:orange",
                           hatch="\\\\", linewidth=0.4)
        else:
            ax.broken_barh([(a, d)], (n - 0.35, 0.7), facecolor=colour[name],
                           edgecolor="white", linewidth=0.3)
            if d > (hi - lo) / 25 and name != "_main":
                ax.text(a + d / 2, n, name.lstrip("_"), ha="center", va="center", fontsize=6,
                        clip_on=True)
    ax.set_yticks(range(nodes), [f"node {n}" for n in range(nodes)])
    ax.set_ylim(nodes - 0.5, -0.5)
    ax.set_xlim(lo, hi)
    handles = [Patch(facecolor=colour[r], label=r) for r in routines if r != "_main"]
    handles.append(Patch(facecolor="none", edgecolor="red", hatch="////", label="ring wait"))
    ax.legend(handles=handles, fontsize=6, ncol=min(len(handles), 8), loc="upper center",
              bbox_to_anchor=(0.5, -0.02 - 0.6 / max(nodes, 1)), frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    cs = sorted((e["ts"] / us, e["args"]["utilisation"]) for e in doc["traceEvents"]
                if e["ph"] == "C" and e["name"] == "ring utilisation")
    if cs:
        ax2.step([c for c, _ in cs], [100 * u for _, u in cs], where="post", color="tab:blue",
                 label="ring use %")
    ds = sorted((e["ts"] / us, e["args"]["words per cycle"]) for e in doc["traceEvents"]
                if e["ph"] == "C" and e["name"] == "DMA words")
    if ds:
        ax2.step([c for c, _ in ds], [100 * u for _, u in ds], where="post", color="tab:orange",
                 label="DMA words per 100 cycles")
        ax2.legend(fontsize=6, loc="upper right", frameon=False)
    ax2.set_ylabel("ring use %", fontsize=8)
    ax2.set_xlabel("cycle")
    ax2.set_ylim(0, 105)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
