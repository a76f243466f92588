"""Benchmark reports: Markdown tables, PNG plots, and sections of docs/benchmarks.md."""

from __future__ import annotations

import csv
import os
import re
from collections import defaultdict

from tabulate import tabulate


def table(headers: list[str], rows: list[list], right: int = 1) -> str:
    """A Markdown (pipe) table of already formatted cells: the first `right`
    columns left-aligned (labels), the others right-aligned (numbers)."""
    align = ["left"] * right + ["right"] * (len(headers) - right)
    return tabulate(rows, headers, tablefmt="pipe", colalign=align, disable_numparse=True)


def markdown_table(results: list[dict], ratio_target: str | None = None) -> str:
    """One row per case, one column per system/target, milliseconds; with
    `ratio_target`, a last column with swingdb's speed-up over DuckDB for that target."""
    columns = []
    for r in results:
        key = (r["system"], r["target"])
        if key not in columns:
            columns.append(key)
    by_case = defaultdict(dict)
    for r in results:
        by_case[r["case"]][(r["system"], r["target"])] = r["seconds"]
    ratio_head = [f"DuckDB / swingdb ({ratio_target})"] if ratio_target else []
    rows = []
    for case, cells in by_case.items():
        row = [case] + [f"{1e3 * cells[c]:.2f}" if c in cells else "" for c in columns]
        if ratio_target:
            ours, theirs = cells.get(("swingdb", ratio_target)), cells.get(("DuckDB", ratio_target))
            row.append(f"{theirs / ours:.1f}x" if ours and theirs else "")
        rows.append(row)
    return table(["case"] + [f"{s} {t}" for s, t in columns] + ratio_head, rows) + "\n\n(milliseconds)\n"


def bar_plot(results: list[dict], path: str, title: str) -> None:
    """Grouped horizontal bars, log-scale time axis, one group per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(os.path.dirname(path), exist_ok=True)
    cases = list(dict.fromkeys(r["case"] for r in results))
    series = list(dict.fromkeys((r["system"], r["target"]) for r in results))
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.32 * len(cases) * len(series) / 2))
    height = 0.8 / len(series)
    cmap = plt.get_cmap("tab20")
    for i, key in enumerate(series):
        xs, ys = [], []
        for j, case in enumerate(cases):
            for r in results:
                if r["case"] == case and (r["system"], r["target"]) == key:
                    xs.append(1e3 * r["seconds"])
                    ys.append(j + i * height)
        ax.barh(ys, xs, height=height, label=f"{key[0]} → {key[1]}", color=cmap(i % 20))
    ax.set_xscale("log")
    ax.set_yticks([j + 0.4 - height / 2 for j in range(len(cases))])
    ax.set_yticklabels(cases)
    ax.invert_yaxis()
    ax.set_xlabel("milliseconds (log scale, lower is better)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replace_section(doc: str, name: str, text: str) -> None:
    """Writes `text` between `<!-- name -->` markers in `doc` (appending them the first time)."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    content = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
    block = f"{start}\n{text.rstrip()}\n{end}"
    if start in content:
        content = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, content, flags=re.S)
    else:
        content = content.rstrip() + "\n\n" + block + "\n"
    with open(doc, "w") as fh:
        fh.write(content)


def save(results: list[dict], out_dir: str, docs_img: str, name: str, title: str) -> str:
    """Writes the raw results as `out_dir/name.csv` and their plot as
    `docs_img/name.png`; returns the plot's path relative to docs/."""
    with open(os.path.join(out_dir, f"{name}.csv"), "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(results[0]))
        writer.writeheader()
        writer.writerows(results)
    bar_plot(results, os.path.join(docs_img, f"{name}.png"), title=title)
    return f"img/{name}.png"


def size_table(results: list[dict]) -> str:
    """One row per operation and data size, one column per system (milliseconds,
    the fastest in bold), and swingdb's time relative to the fastest other system."""
    systems = list(dict.fromkeys(r["system"] for r in results))
    cells = defaultdict(dict)
    for r in results:
        cells[(r["operation"], r["size"])][r["system"]] = r["seconds"] if r["status"] == "ok" else None
    lines = []
    for (operation, size), by_system in cells.items():
        done = {s: t for s, t in by_system.items() if t is not None}
        best = min(done.values()) if done else None
        row = []
        for s in systems:
            if s not in by_system:
                row.append("")
            elif by_system[s] is None:
                row.append("timeout")
            else:
                text = f"{1e3 * by_system[s]:.1f}"
                row.append(f"**{text}**" if by_system[s] == best else text)
        others = [t for s, t in done.items() if s != "swingdb"]
        ratio = f"{done['swingdb'] / min(others):.2f}" if "swingdb" in done and others else ""
        lines.append([operation, size] + row + [ratio])
    headers = ["operation", "size"] + systems + ["swingdb / fastest other"]
    return table(headers, lines, right=2) + "\n\n(milliseconds, median; below 1.00 in the last column means swingdb was fastest)\n"


def panel_plot(results: list[dict], path: str, title: str) -> str:
    """Seed 000's Figure 5 layout: one panel per configuration, data size on a
    log x axis, response time on a log y axis, one line per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(os.path.dirname(path), exist_ok=True)
    operations = list(dict.fromkeys(r["operation"] for r in results))
    systems = list(dict.fromkeys(r["system"] for r in results))
    cols = 3
    rows = -(-len(operations) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    markers = "osD^vP*X"
    for ax, op in zip(axes.flat, operations):
        for i, system in enumerate(systems):
            points = sorted((r["mb"], r["seconds"]) for r in results
                            if r["operation"] == op and r["system"] == system and r["status"] == "ok")
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker=markers[i % len(markers)], label=system)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(op, fontsize=10)
        ax.set_xlabel("data size (MB)", fontsize=8)
        ax.set_ylabel("seconds", fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(operations):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower right", fontsize=9)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
