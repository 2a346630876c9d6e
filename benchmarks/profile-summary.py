#!/usr/bin/env python3
"""Summarizes a profile.sh directory: the flight recording's CPU samples per thread and per method (on top of
the stack: where the CPU is spent; anywhere in it: what the time is spent for), the machine's CPU load while the
process ran, JIT compilations, and the GC pauses of gc.log."""
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

TOP = 25


def events(recording, names):
    text = subprocess.run(["jfr", "print", "--json", "--events", ",".join(names), str(recording)],
                          check=True, capture_output=True, text=True).stdout
    return json.loads(text)["recording"]["events"]


def frame_name(frame):
    method = frame["method"]
    return f'{method["type"]["name"].replace("/", ".")}.{method["name"]}'


def thread_group(name):
    """Pool threads by pool: parallel-1 and parallel-2 are one line."""
    return re.sub(r"[-#]?\d+$", "-N", name or "?")


def main():
    out = Path(sys.argv[1])
    evs = events(out / "recording.jfr", ["jdk.ExecutionSample", "jdk.CPULoad", "jdk.Compilation"])
    samples = [e["values"] for e in evs if e["type"] == "jdk.ExecutionSample"]
    lines = [f"{len(samples)} CPU samples (Java code running; JFR's profile settings sample every 10 ms per thread)", ""]

    threads = Counter(thread_group((s.get("sampledThread") or {}).get("javaName")) for s in samples)
    lines += ["samples per thread:"] + [f"  {n:6d} {n * 100 / len(samples):5.1f}%  {t}" for t, n in threads.most_common(12)]

    top, anywhere = Counter(), Counter()
    for s in samples:
        frames = (s.get("stackTrace") or {}).get("frames") or []
        if frames:
            top[frame_name(frames[0])] += 1
        for name in {frame_name(f) for f in frames}:
            anywhere[name] += 1
    lines += ["", f"top {TOP} methods on top of the stack (self):"]
    lines += [f"  {n:6d} {n * 100 / len(samples):5.1f}%  {m}" for m, n in top.most_common(TOP)]
    lines += ["", "where the top 8 are called from (their callers' 3 frames, most frequent first):"]
    for method, n in top.most_common(8):
        callers = Counter()
        for s in samples:
            frames = (s.get("stackTrace") or {}).get("frames") or []
            if frames and frame_name(frames[0]) == method:
                callers[" < ".join(frame_name(f) for f in frames[1:4])] += 1
        lines.append(f"  {method}:")
        lines += [f"    {c:5d}  {chain}" for chain, c in callers.most_common(3)]
    lines += ["", f"top {TOP} methods of this library anywhere in the stack (inclusive):"]
    ours = [(m, n) for m, n in anywhere.most_common() if m.startswith("io.reactiveinformer.")
            and ".benchmarks." not in m and "$$Lambda" not in m][:TOP]
    lines += [f"  {n:6d} {n * 100 / len(samples):5.1f}%  {m}" for m, n in ours]

    load = [e["values"] for e in evs if e["type"] == "jdk.CPULoad"]
    if load:
        machine = [v["machineTotal"] for v in load]
        process = [v["jvmUser"] + v["jvmSystem"] for v in load]
        lines += ["", f"CPU load per second over {len(load)} s (share of all cores): this JVM mean "
                      f"{sum(process) / len(process):.0%}, machine mean {sum(machine) / len(machine):.0%}, "
                      f"seconds with the machine above 90%: {sum(m > 0.9 for m in machine)}"]

    compilations = [e["values"] for e in evs if e["type"] == "jdk.Compilation"]
    if compilations:
        def ms(v):
            d = v["duration"]
            return float(d[2:-1]) * 1000 if d.startswith("PT") and d.endswith("S") else 0.0
        total = sum(ms(v) for v in compilations)
        lines += [f"JIT compilations over the profile settings' 100 ms threshold: {len(compilations)}, "
                  f"{total:,.0f} ms in all (wall time of the compiler threads)"]

    pauses = []
    for line in (out / "gc.log").read_text().splitlines():
        m = re.match(r"\[(\d+\.\d+)s\].*GC\(\d+\) (Pause .*?) \d+M->.* (\d+\.\d+)ms$", line)
        if m:
            pauses.append((float(m.group(1)), m.group(2).strip(), float(m.group(3))))
    if pauses:
        lines += ["", f"GC pauses: {len(pauses)}, {sum(p[2] for p in pauses):,.1f} ms in all, longest "
                      f"{max(p[2] for p in pauses):.1f} ms; each (uptime s, kind, ms):"]
        lines += [f"  {t:8.3f}  {kind:28s} {d:7.2f}" for t, kind, d in pauses]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
