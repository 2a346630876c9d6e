#!/usr/bin/env python3
"""Turns the RESULT lines of results/raw.log into results/raw.csv and the Markdown tables of
results/README.md (medians of the measured rounds, warm-ups dropped, and each contender's ratio to
this library with the same number of handlers): the matrix measures per N, each client's protobuf row against
its JSON row, then latency, threads with many informers, heap growth with a slow handler and the lag of fast
handlers beside slow ones. Draws PNG charts when matplotlib is importable."""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

OURS = "reactive-informer"
MEASURES = [
    ("synced_ms", "Time to synced (ms, lower is better)", False),
    ("list_objects_per_s", "List throughput: objects/s from start to synced (higher is better)", True),
    ("listed_to_handlers_ms", "Listed objects through every handler (ms, lower is better)", False),
    ("events_per_s", "Watch events/s through the cache to the handlers (higher is better)", True),
    ("watch_cpu_us_per_event", "CPU per watch event (µs of process CPU, all threads; lower is better)", False),
    ("watch_alloc_bytes_per_event", "Allocation per watch event (bytes allocated by the process; lower is better)",
     False),
    ("sync_cpu_us_per_object", "CPU per listed object during the sync (µs of process CPU, all threads; lower is "
                               "better)", False),
    ("sync_alloc_bytes_per_object", "Allocation per listed object during the sync (bytes allocated by the "
                                    "process; lower is better)", False),
    ("heap_growth_per_object", "Retained heap per cached object after GC (bytes, lower is better)", False),
    ("sync_peak_heap_mb", "Peak used heap during the initial sync (MB, lower is better)", False),
    ("threads", "Threads alive with one informer (lower is better)", False),
]

NOTES = {
    "synced_ms": "A round that had not synced after the sync deadline (`sync_timeout_s`) counts as slower than "
                 "any that did: where the median is such a round the cell reads `> deadline`, and the ratio is a "
                 "lower bound. That contender's process then ends, so it has no larger N in that run.",
    "list_objects_per_s": "N divided by the time to synced: the throughput-versus-N view of the table above.",
    "events_per_s": "The watch stream is played at full speed for N up to `WATCH_MAX_N` only (above it the corpus "
                    "is listed, not watched): at large N this measure would repeat the small-N one at the cost of "
                    "minutes.",
    "watch_cpu_us_per_event": "The process's CPU time (user and system, every thread, GC and JIT included) from the "
                              "release of the full-speed watch stream (the `events_per_s` window) until every handler "
                              "had seen its last change, divided by the stream's notifications. The machine's other "
                              "processes (the replay server) are not counted. JVM: `getProcessCpuTime`, in 10 ms "
                              "clock ticks; Go: `getrusage(RUSAGE_SELF)`.",
    "watch_alloc_bytes_per_event": "Heap bytes the process allocated over the same window, divided by the stream's "
                                   "notifications: garbage made per event, live or not. JVM: "
                                   "`getThreadAllocatedBytes` summed over the live threads at both ends, which misses "
                                   "a thread that ended within the window (`watch_threads_ended` in `raw.csv` counts "
                                   "them); Go: `/gc/heap/allocs:bytes` (the count `MemStats.TotalAlloc` reports).",
    "sync_cpu_us_per_object": "As CPU per watch event, over the sync: from the informer's start until every handler "
                              "had seen the N listed objects (the `listed_to_handlers_ms` window), divided by N. "
                              "It includes the client's start (connection, first requests): small N reads higher.",
    "sync_alloc_bytes_per_object": "As allocation per watch event, over the sync window above, divided by N "
                                   "(`sync_threads_ended` in `raw.csv`).",
    "heap_growth_per_object": "Used heap after full GC once synced minus before the client was created, divided by N "
                              "(JVM: used heap after two `System.gc()`; Go: `HeapInuse` after `runtime.GC()`). The "
                              "client's fixed cost (connection pools, buffers, classes' static state) is spread over N, "
                              "so small N reads higher; N = 100,000 is the per-object cost.",
    "sync_peak_heap_mb": "The highest used heap from the client's creation until every handler has seen the listed "
                         "objects, minus the heap before (JVM: heap in use before each collection, from the GC "
                         "notifications, and at the end; Go: bytes in heap objects, live or unswept, sampled every "
                         "2 ms). What a pod must be sized for while a client syncs; every JVM runs with the same flags "
                         "(`machine.txt`), so how far the heap grows before a collection is the same policy for all.",
}

# a contender's protobuf row is named after its JSON row with this suffix (client-go-protobuf)
PROTOBUF = "-protobuf"
ENCODING_MEASURES = [
    ("synced_ms", "time to synced (ms)"),
    ("events_per_s", "watch events/s"),
    ("watch_cpu_us_per_event", "CPU per watch event (µs)"),
    ("watch_alloc_bytes_per_event", "allocation per watch event (B)"),
    ("sync_cpu_us_per_object", "CPU per listed object (µs)"),
    ("sync_alloc_bytes_per_object", "allocation per listed object (B)"),
    ("heap_growth_per_object", "retained heap per object (B)"),
    ("sync_peak_heap_mb", "peak heap during the sync (MB)"),
]

TIMED_OUT = float("inf")
# the measures a timed-out round counts in: a time that exceeds the deadline, a throughput below N/deadline
TIMEOUT_VALUES = {"synced_ms": TIMED_OUT, "listed_to_handlers_ms": TIMED_OUT, "list_objects_per_s": 0.0}


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


# mode -> (title, note, [(field, column title, ratio?)])
SIDE_TABLES = {
    "latency": ("Latency from the server's write to the handler (ms, lower is better)",
                "One handler; the server paces the watch at `lat_rate` events/s and stamps each write (system "
                "clock, epoch µs); the handler stamps each notification with the same clock; matched by "
                "resourceVersion; each process runs one warm-up stream first, and the first second of the "
                "measured stream is discarded. p99.9 and max are medians too; "
                "every run's values are in `raw.csv`. A contender that cannot sustain the rate queues, and its "
                "latency grows with the stream: compare with its events/s above. The ceiling decodes only. "
                "A `-zgc` row is the same JVM contender with generational ZGC on a JDK 21+ (`machine.txt` names "
                "it and its flags) instead of the default G1 flags; its ratio is to ours on G1.",
                [("lat_p50_ms", "p50", True), ("lat_p99_ms", "p99", True), ("lat_p999_ms", "p99.9", False),
                 ("lat_max_ms", "max", False), ("lat_samples", "samples", False)]),
    "threads": ("Threads alive with many informers (lower is better)",
                "`informers` pod informers, one per namespace (the server answers empty lists and only bookmarks), "
                "each with one handler, counted 2 s after all are synced. JVM: live threads; Go: OS threads "
                "(goroutines alongside). The official client's factory keeps one informer per type, so it gets "
                "one factory per namespace.",
                [("informers", "informers", False), ("threads_informers", "threads", True),
                 ("goroutines_informers", "goroutines", False)]),
    "slow": ("Heap growth with one handler 100× slower than the event rate (MB, lower is better)",
             "One handler taking `slow_handler_ms` per notification while the server paces `slow_rate` events/s "
             "for `slow_seconds`; used heap after full GC (Go: HeapInuse after GC) when the stream starts and "
             "when it ends; the samples in between are in `raw.csv` and the chart. All contenders run at "
             "the same time (one run), beside the threads and matrix phases: the CPU column is what each took "
             "from them over the stream. This library is measured with its default subscriber options "
             "(`BufferPolicy.COALESCE`: at most one pending notification per object key, so its memory is bounded "
             "by the number of objects) and, as `reactive-informer-unbounded`, with `BufferPolicy.UNBOUNDED`, "
             "the peers' behaviour (every notification queued).",
             [("policy", "policy", None), ("slow_heap_start_mb", "heap at start", False),
              ("slow_heap_end_mb", "heap at end", False), ("slow_heap_growth_mb", "growth", True),
              ("slow_handled", "handled", False), ("slow_cpu_s", "CPU s over the stream", False)]),
    "isolation": ("Fast handlers beside slow ones: lag from the server's write (ms, lower is better)",
                  "One pod informer with 8 fast handlers (they only stamp each notification), one that spends "
                  "`iso_cpu_ms` of CPU per notification (a busy loop) and one that sleeps `iso_sleep_ms` (this "
                  "library: `notifications()` for each, `SubscriberOptions.defaults().blocking()` for the sleeping "
                  "one, the handler's work done synchronously in `subscribe`); after a sync the server paces "
                  "`iso_rate` changes/s for `iso_seconds`. Each client runs the handlers as its API does: fabric8 "
                  "one after another on one executor, the official client a thread per handler, client-go a "
                  "goroutine per handler. A change's lag, per handler, is the time from the server's write until "
                  "the handler's first call with that object at that version or later (a client that merges a "
                  "key's pending changes delivers the older one within the newer); p50, p99 and max are over every "
                  "fast handler's changes. The measure ends once every fast handler has seen the last change, or "
                  "`ISO_GRACE_S` after the stream: a change a handler had not seen by then counts with the time "
                  "until that end, a lower bound (`unseen`: how many, over the 8 fast handlers; where it is not 0 "
                  "the percentiles it reaches are lower bounds too). The slow handlers' p50 is measured the same "
                  "way; `handled` is how many calls each completed. The first second of the stream is discarded.",
                  [("iso_fast_p50_ms", "fast p50", True), ("iso_fast_p99_ms", "fast p99", True),
                   ("iso_fast_max_ms", "fast max", True), ("iso_fast_unseen", "fast unseen", False),
                   ("iso_cpu_p50_ms", "CPU handler p50", False), ("iso_cpu_handled", "CPU handler handled", False),
                   ("iso_sleep_p50_ms", "sleeping handler p50", False),
                   ("iso_sleep_handled", "sleeping handler handled", False)]),
}


def medians(rows):
    """(measure, contender, handlers, n) -> (median, rounds, deadline in s or None)."""
    by = defaultdict(list)
    deadline = {}
    for r in rows:
        if r.get("warmup") == "true" or r.get("mode", "matrix") != "matrix":
            continue
        key = (r["contender"], int(r["subscribers"]), int(r["n"]))
        if "sync_timeout_s" in r:
            deadline[key] = float(r["sync_timeout_s"])
            for m, v in TIMEOUT_VALUES.items():
                by[(m,) + key].append(v)
            continue
        if "synced_ms" in r:
            r = dict(r, list_objects_per_s=int(r["n"]) / (float(r["synced_ms"]) / 1000))
        for m, _, _ in MEASURES:
            if m in r:
                by[(m,) + key].append(float(r[m]))
    return {k: (statistics.median(v), len(v), deadline.get(k[1:])) for k, v in by.items()}


def fmt(v):
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def latency_rates(rows):
    """The latency phase's stream rates, slowest first (the row below every contender's capacity leads)."""
    return sorted({float(r["lat_rate"]) for r in rows if r.get("mode") == "latency" and "lat_rate" in r})


def side_medians(rows, mode, rate=None):
    """(field, contender, handlers) -> median over the measured rounds of one side mode (latency: at one rate)."""
    by = defaultdict(list)
    for r in rows:
        if r.get("mode") != mode or r.get("warmup") == "true":
            continue
        if rate is not None and float(r.get("lat_rate", -1)) != rate:
            continue
        for field, _, _ in SIDE_TABLES[mode][2]:
            if field in r:
                try:
                    by[(field, r["contender"], int(r["subscribers"]))].append(float(r[field]))
                except ValueError:
                    by[(field, r["contender"], int(r["subscribers"]))].append(r[field])
    return {k: (statistics.median(v) if isinstance(v[0], float) else v[0], len(v)) for k, v in by.items()}


def side_tables(rows):
    lines = []
    for mode, (title, note, fields) in SIDE_TABLES.items():
        if mode == "latency":
            for rate in latency_rates(rows):
                lines += side_table(rows, mode, f"{title[:title.index(' (')]} at {rate:,.0f} events/s"
                                                f"{title[title.index(' ('):]}", note, fields, rate)
        else:
            lines += side_table(rows, mode, title, note, fields)
    return "\n".join(lines)


def side_table(rows, mode, title, note, fields, rate=None):
    lines = []
    med = side_medians(rows, mode, rate)
    contenders = sorted({(c, s) for (_, c, s) in med}, key=lambda cs: (not cs[0].startswith(OURS), cs))
    if not contenders:
        return []
    shown = [f for f in fields if any(k[0] == f[0] for k in med)]
    lines += [f"### {title}", "", note, "",
              "| contender | runs | " + " | ".join(t for _, t, _ in shown) + " |",
              "|---|---:|" + "---:|" * len(shown)]
    for c, s in contenders:
        runs = max(v[1] for k, v in med.items() if k[1] == c and k[2] == s)
        cells = []
        for field, _, ratio in shown:
            v = med.get((field, c, s))
            if v is None:
                cells.append("–")
                continue
            if ratio is None:
                cells.append(str(v[0]))
                continue
            ours = med.get((field, OURS, s))
            # counts (samples, unseen, handled) read as integers
            text = f"{v[0]:,.0f}" if float(v[0]).is_integer() else fmt(v[0])
            if ratio and c != OURS and ours and ours[0] > 0 and v[0] > 0:
                text += f" ({v[0] / ours[0]:.2f}× ours)"
            cells.append(text)
        lines.append(f"| {c} | {runs} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def cell(m, v, ours):
    """A matrix cell: the median and its ratio to ours; a timed-out median reads as a bound."""
    median, _, deadline = v
    if median in (TIMED_OUT, 0.0) and deadline is not None and m in TIMEOUT_VALUES:
        bound = deadline * 1000 if median == TIMED_OUT else None
        if bound is None:
            return "not synced"
        text = f"> {fmt(bound)} (not synced)"
        if ours and 0 < ours[0] < TIMED_OUT:
            text += f" (> {bound / ours[0]:.1f}× ours)"
        return text
    text = fmt(median)
    if ours and 0 < ours[0] < TIMED_OUT and median > 0:
        text += f" ({median / ours[0]:.2f}× ours)"
    return text


def table(med, rows):
    sizes = sorted({int(r["n"]) for r in rows if r.get("mode", "matrix") == "matrix" and r.get("warmup") != "true"})
    lines = []
    for m, title, higher in MEASURES:
        series = sorted({(c, s) for (mm, c, s, _) in med if mm == m}, key=lambda cs: (not cs[0].startswith(OURS), cs))
        if not series:
            continue
        lines += [f"### {title}", ""] + ([NOTES[m], ""] if m in NOTES else []) + [
                  "| contender | handlers | " + " | ".join(f"N={n:,}" for n in sizes) + " |",
                  "|---|---:|" + "---:|" * len(sizes)]
        for c, s in series:
            cells = []
            for n in sizes:
                v = med.get((m, c, s, n))
                if v is None:
                    cells.append("–")
                    continue
                ours = None if c == OURS else med.get((m, OURS, s, n))
                cells.append(cell(m, v, ours))
            lines.append(f"| {c} | {s} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def encoding_table(med, rows):
    """Each contender with a protobuf row beside its JSON row (one handler): JSON, protobuf and their ratio per N."""
    sizes = sorted({int(r["n"]) for r in rows if r.get("mode", "matrix") == "matrix" and r.get("warmup") != "true"})
    contenders = {c for (_, c, s, _) in med if s == 1}
    pairs = sorted((c for c in contenders if c + PROTOBUF in contenders), key=lambda c: (not c.startswith(OURS), c))
    if not pairs:
        return ""
    lines = ["### Protobuf against JSON, client by client", "",
             "The same client, corpus and rounds, its lists and watches served as `application/vnd.kubernetes.protobuf` "
             "(the protobuf corpus is the JSON one encoded by Go's `k8s.io/apimachinery`, as kube-apiserver encodes it) "
             "or as JSON: JSON → protobuf (protobuf / JSON), medians with one handler. A round that did not sync reads "
             "`not synced`.", "",
             "| contender | measure | " + " | ".join(f"N={n:,}" for n in sizes) + " |",
             "|---|---|" + "---:|" * len(sizes)]
    for c in pairs:
        for m, title in ENCODING_MEASURES:
            cells = []
            for n in sizes:
                json_v, proto_v = med.get((m, c, 1, n)), med.get((m, c + PROTOBUF, 1, n))
                if json_v is None or proto_v is None:
                    cells.append("–")
                elif not all(0 < v[0] < TIMED_OUT for v in (json_v, proto_v)):
                    cells.append("not synced")
                else:
                    cells.append(f"{fmt(json_v[0])} → {fmt(proto_v[0])} ({proto_v[0] / json_v[0]:.2f}×)")
            if any(cell != "–" for cell in cells):
                lines.append(f"| {c} | {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines + [""])


def charts(med, rows, out):
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
            pts = sorted((n, v[0]) for (mm, cc, ss, n), v in med.items()
                         if mm == m and cc == c and ss == s and 0 < v[0] < TIMED_OUT)
            if not pts:
                continue
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
    made += side_charts(plt, rows, out)
    return made


def side_charts(plt, rows, out):
    made = []
    rates = latency_rates(rows)
    if rates:
        fig, axes = plt.subplots(1, len(rates), figsize=(7 * len(rates), 5), squeeze=False)
        pcts = [("lat_p50_ms", "p50"), ("lat_p99_ms", "p99"), ("lat_p999_ms", "p99.9")]
        width = 0.8 / len(pcts)
        for ax, rate in zip(axes[0], rates):
            lat = side_medians(rows, "latency", rate)
            contenders = sorted({c for (_, c, _) in lat}, key=lambda c: (c != OURS, c))
            for j, (field, label) in enumerate(pcts):
                ax.bar([i + j * width for i in range(len(contenders))],
                       [max(lat.get((field, c, 1), (0, 0))[0], 1e-3) for c in contenders], width, label=label)
            ax.set_xticks([i + width for i in range(len(contenders))])
            ax.set_xticklabels(contenders, fontsize=8)
            ax.set_yscale("log")
            ax.set_ylabel("ms from server write to handler")
            ax.set_title(f"Latency percentiles at {rate:,.0f} events/s (lower is better)", fontsize=10)
            ax.grid(True, axis="y", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "latency_percentiles.png", dpi=110)
        plt.close(fig)
        made.append("latency_percentiles.png")
    slow = [r for r in rows if r.get("mode") == "slow" and "slow_heap_samples_mb" in r]
    if slow:
        fig, ax = plt.subplots(figsize=(8, 5))
        for r in sorted(slow, key=lambda r: (r["contender"] != OURS, r["contender"])):
            pts = [p.split(":") for p in r["slow_heap_samples_mb"].split(",")]
            ax.plot([float(t) for t, _ in pts], [float(v) for _, v in pts], marker="o",
                    label=f"{r['contender']} ({r.get('policy', '?')})")
        ax.set_xlabel("seconds since the stream started")
        ax.set_ylabel("used heap after GC (MB)")
        ax.set_title(f"Heap with a {slow[0].get('slow_handler_ms', '?')} ms handler at {slow[0].get('slow_rate', '?')} events/s")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "slow_handler_heap.png", dpi=110)
        plt.close(fig)
        made.append("slow_handler_heap.png")
    iso = side_medians(rows, "isolation")
    contenders = sorted({c for (_, c, _) in iso}, key=lambda c: (c != OURS, c))
    if contenders:
        first = next(r for r in rows if r.get("mode") == "isolation")
        fig, ax = plt.subplots(figsize=(9, 5))
        bars = [("iso_fast_p50_ms", "fast p50"), ("iso_fast_p99_ms", "fast p99"), ("iso_fast_max_ms", "fast max"),
                ("iso_cpu_p50_ms", f"{first.get('iso_cpu_ms', '?')} ms CPU handler p50"),
                ("iso_sleep_p50_ms", f"{first.get('iso_sleep_ms', '?')} ms sleeping handler p50")]
        width = 0.8 / len(bars)
        for j, (field, label) in enumerate(bars):
            ax.bar([i + j * width for i in range(len(contenders))],
                   [max(iso.get((field, c, 1), (0, 0))[0], 1e-3) for c in contenders], width, label=label)
        ax.axhline(50, color="grey", linestyle="--", linewidth=1)
        ax.text(-0.4, 50, "50 ms", color="grey", fontsize=8, va="bottom", ha="left")
        ax.set_xticks([i + 2 * width for i in range(len(contenders))])
        ax.set_xticklabels(contenders, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("ms from server write to handler")
        ax.set_title(f"Lag of {first.get('iso_fast_handlers', '?')} fast handlers beside slow ones at "
                     f"{float(first.get('iso_rate', 0)):,.0f} changes/s (lower is better)", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "isolation_lag.png", dpi=110)
        plt.close(fig)
        made.append("isolation_lag.png")
    return made


# WorkQueueThroughputBenchmark's methods, as contenders
WORKQUEUE_CONTENDERS = {
    "reactiveInline": (OURS, "`process(workers, work)`, the work synchronous: it runs on the thread that hands "
                             "the item over"),
    "reactiveOnWorkerThreads": (f"{OURS} (hop)", "the same, the work hopping to `Schedulers.parallel()` per item"),
    "official": ("official-java", "`DefaultRateLimitingQueue`, `workers` threads looping on its blocking `get()`"),
}


def workqueue_table(out):
    """The work queue phase: JMH's CSV (score with its 99.9% error, and the gc profiler's bytes per item)."""
    path = out / "workqueue_jmh.csv"
    if not path.exists():
        return ""
    score, alloc = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            method = r["Benchmark"].split("WorkQueueThroughputBenchmark.", 1)[-1].replace("·", "")
            key = (method.split(":")[0], int(r["Param: workers"]))
            value = (float(r["Score"]), float(r["Score Error (99.9%)"] or "nan"))
            if method.endswith(":gc.alloc.rate.norm"):
                alloc[key] = value
            elif ":" not in method:
                score[key] = value
    lines = ["### Work queue: items/s and bytes allocated per item (JMH)", "",
             "`WorkQueueThroughputBenchmark`: per invocation the producer adds 10,000 distinct keys and `workers` "
             "consumers take each one, count it and mark it done. Items/s ± JMH's 99.9% error over 5 measured "
             "iterations (one fork, so read the error: with 4 workers the threads share 2 cores with the producer); "
             "bytes per item from the gc profiler. "
             + "; ".join(f"`{name}`: {how}" for name, how in WORKQUEUE_CONTENDERS.values()) + ".", "",
             "| contender | workers | items/s | bytes per item |", "|---|---:|---:|---:|"]
    for method, (name, _) in WORKQUEUE_CONTENDERS.items():
        for workers in sorted({w for (m, w) in score if m == method}):
            ops, err = score[(method, workers)]
            ours = score.get(("reactiveInline", workers))
            text = f"{ops:,.0f} ± {err:,.0f}"
            if method != "reactiveInline" and ours:
                text += f" ({ops / ours[0]:.2f}× ours)"
            b = alloc.get((method, workers))
            lines.append(f"| {name} | {workers} | {text} | {b[0]:,.1f} |" if b else f"| {name} | {workers} | {text} | – |")
    return "\n".join(lines + [""])


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    rows = parse(out)
    med = medians(rows)
    machine = (out / "machine.txt").read_text() if (out / "machine.txt").exists() else ""
    made = charts(med, rows, out)
    text = ["# Side-by-side results", ""]
    if "mode: smoke" in machine:
        text += ["**Smoke run**: small N, one run, taken on a shared and loaded machine. It shows the harness "
                 "works; it is not a result to quote.", ""]
    text += ["Medians of the measured rounds (warm-up rounds dropped; all rounds are in `raw.csv`). "
             "Ratios are the contender's value divided by this library's with the same number of handlers.", "",
             "```", machine.strip(), "```", "", table(med, rows), encoding_table(med, rows), side_tables(rows),
             workqueue_table(out)]
    text += [f"![{n}]({n})" for n in made]
    (out / "README.md").write_text("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
