#!/usr/bin/env python3
"""Turns the RESULT lines of results/raw.log into results/raw.csv and the Markdown table
results/README.md (medians of the measured rounds, warm-ups dropped, and each contender's ratio to
this library with the same number of handlers). Draws PNG charts when matplotlib is importable."""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

OURS = "reactive-informer"
MEASURES = [
    ("synced_ms", "Time to synced (ms, lower is better)", False),
    ("listed_to_handlers_ms", "Listed objects through every handler (ms, lower is better)", False),
    ("events_per_s", "Watch events/s through the cache to the handlers (higher is better)", True),
    ("heap_bytes_per_object", "Retained heap per cached object after GC (bytes, lower is better)", False),
    ("heap_growth_per_object", "Heap growth per cached object from before the client to synced, after GC (bytes)", False),
    ("threads", "Threads alive with one informer (lower is better)", False),
]

NOTES = {
    "heap_bytes_per_object": "*Not yet trustworthy*: measured as used heap after full GC with the cache minus after "
                             "closing the client; a client that keeps its cache reachable after close (or frees the "
                             "previous round's late) shows a value near zero or negative; the next table measures from the other end.",
    "heap_growth_per_object": "Used heap after full GC at synced minus before the client was created; JVM contenders only.",
}


def parse(out):
    rows = []
    for line in (out / "raw.log").read_text().splitlines():
        if not line.startswith("RESULT "):
            continue
        row = dict(kv.split("=", 1) for kv in line.split()[1:])
        rows.append(row)
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(out / "raw.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    return rows


def medians(rows):
    by = defaultdict(list)
    for r in rows:
        if r.get("warmup") == "true":
            continue
        for m, _, _ in MEASURES:
            if m in r:
                by[(m, r["contender"], int(r["subscribers"]), int(r["n"]))].append(float(r[m]))
    return {k: (statistics.median(v), len(v)) for k, v in by.items()}


def fmt(v):
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def table(med, rows):
    sizes = sorted({int(r["n"]) for r in rows})
    lines = []
    for m, title, higher in MEASURES:
        series = sorted({(c, s) for (mm, c, s, _) in med if mm == m}, key=lambda cs: (cs[0] != OURS, cs))
        if not series:
            continue
        lines += [f"### {title}", ""] + ([NOTES[m], ""] if m in NOTES else []) + [ "| contender | handlers | " + " | ".join(f"N={n:,}" for n in sizes) + " |",
                  "|---|---:|" + "---:|" * len(sizes)]
        for c, s in series:
            cells = []
            for n in sizes:
                v = med.get((m, c, s, n))
                if v is None:
                    cells.append("–")
                    continue
                ours = med.get((m, OURS, s, n)) or med.get((m, OURS, 1, n))
                ratio = ""
                if c != OURS and ours and ours[0] > 0 and v[0] > 0:
                    ratio = f" ({v[0] / ours[0]:.2f}× ours)"
                cells.append(fmt(v[0]) + ratio)
            lines.append(f"| {c} | {s} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def charts(med, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    made = []
    for m, title, _ in MEASURES:
        series = sorted({(c, s) for (mm, c, s, _) in med if mm == m})
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for c, s in series:
            pts = sorted((n, v[0]) for (mm, cc, ss, n), v in med.items() if mm == m and cc == c and ss == s)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{c} ×{s}")
        ax.set_xscale("log")
        ax.set_xlabel("objects listed (N)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        name = f"{m}.png"
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        made.append(name)
    return made


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    rows = parse(out)
    med = medians(rows)
    machine = (out / "machine.txt").read_text() if (out / "machine.txt").exists() else ""
    made = charts(med, out)
    text = ["# Side-by-side results", ""]
    if "mode: smoke" in machine:
        text += ["**Smoke run**: small N, one run, taken on a shared and loaded machine. It shows the harness "
                 "works; it is not a result to quote.", ""]
    text += ["Medians of the measured rounds (warm-up rounds dropped; all rounds are in `raw.csv`). "
             "Ratios are the contender's value divided by this library's with the same number of handlers.", "",
             "```", machine.strip(), "```", "", table(med, rows)]
    text += [f"![{n}]({n})" for n in made]
    (out / "README.md").write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
