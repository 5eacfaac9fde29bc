#!/usr/bin/env python3
"""Turns a Google Benchmark CSV of reorder_bench or softmax_bench into one Markdown ratio table.

Reads the medians (run the bench with --benchmark_repetitions=N and
--benchmark_report_aggregates_only=true --benchmark_format=csv) and prints, per problem, thread
count and cache mode: Tessera's implementation and time, oneDNN's time, the same-run memcpy time,
"vs oneDNN" (oneDNN time / Tessera time: > 1 means Tessera is faster), "vs memcpy BW" (Tessera
bytes/s / memcpy bytes/s, from the benches' own byte counters) and, where the softmax bench has
an "exp" row, oneDNN / exp (the largest "vs oneDNN" a kernel built on that exp could reach).

  bench/bench_table.py /tmp/reorder_cold.csv > /tmp/reorder_cold.md
"""
import collections
import csv
import sys


def read_medians(path):
    """{(problem, impl, threads, mode): row} for the *_median rows of a CSV file."""
    rows = {}
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith(("name,", '"'))]
    for row in csv.DictReader(lines):
        name = row["name"]
        if not name.endswith("_median"):
            continue
        parts = name[: -len("_median")].split("/")
        # problem/impl/threads:N/mode[/real_time|/manual_time]
        if len(parts) < 4 or not parts[2].startswith("threads:"):
            continue
        rows[(parts[0], parts[1], parts[2][len("threads:"):], parts[3])] = row
    return rows


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rows = read_medians(argv[1])
    problems = collections.OrderedDict()
    for problem, _, threads, mode in rows:
        problems[(problem, threads, mode)] = None
    has_exp = any(impl == "exp" for _, impl, _, _ in rows)
    header = ["problem", "threads", "cache", "Tessera impl", "Tessera µs", "oneDNN µs",
              "memcpy µs", "vs oneDNN", "vs memcpy BW"] + (["oneDNN / exp"] if has_exp else [])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for problem, threads, mode in problems:
        get = lambda impl: rows.get((problem, impl, threads, mode))
        tessera, onednn, memcpy, exp = get("tessera"), get("onednn"), get("memcpy"), get("exp")
        if tessera is None:
            continue
        t = float(tessera["real_time"])
        cells = [problem, threads, mode, tessera["label"], f"{t:.1f}"]
        cells.append(f"{float(onednn['real_time']):.1f}" if onednn else "—")
        cells.append(f"{float(memcpy['real_time']):.1f}" if memcpy else "—")
        cells.append(f"{float(onednn['real_time']) / t:.2f}x" if onednn else "—")
        if memcpy and tessera["bytes_per_second"] and memcpy["bytes_per_second"]:
            bw = float(tessera["bytes_per_second"]) / float(memcpy["bytes_per_second"])
            cells.append(f"{bw:.2f}")
        else:
            cells.append("—")
        if has_exp:
            cells.append(f"{float(onednn['real_time']) / float(exp['real_time']):.2f}"
                         if exp and onednn else "—")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv)
