#!/usr/bin/env python3
"""Measures where Tessera stands on this machine and writes it into docs/performance.md.

    bench/perf_standing.py                 # from the repository root: build, run, write the page
    bench/perf_standing.py --rounds=2 --filter='f32_nchw_nhwc' --print   # a quick look, no write

Builds //bench/reorder:reorder_bench and //bench/softmax:softmax_bench with -c opt, runs both
--rounds times, alternating which goes first, each time with --repetitions repetitions, and takes
per benchmark row the median of all repetitions of all rounds. Tessera, oneDNN and memcpy rows of
one problem run back to back inside each binary, so their ratios share the machine's state.

Writes one section per machine class into docs/performance.md, between the markers
`<!-- standing:KEY -->` and `<!-- /standing:KEY -->` (KEY from the CPU's vendor, family and
model; a new class gets a new section at the end), replacing only that machine's section. The
section states the machine, the command, the noise bound (how far one round's median of a
Tessera row strays from the median over the rounds) and one table per primitive:
  x oneDNN = oneDNN time / Tessera time (> 1: Tessera faster);
  x ATen = ATen time / Tessera time, where the bench has an ATen row (bench/aten_peer.h);
  BW = Tessera's bytes per second / the same-run memcpy's, over the same bytes;
and lists the rows where Tessera is behind the faster peer by more than the noise bound.
"""
import argparse
import collections
import csv
import io
import os
import re
import shlex
import statistics
import subprocess
import sys
import textwrap

BENCHES = {"reorder": "bench/reorder/reorder_bench", "softmax": "bench/softmax/softmax_bench"}
_SUFFIX = re.compile(r"(/min_time:[0-9.]+)?/(real_time|manual_time)$")
_AGGREGATE = re.compile(r"_(mean|median|stddev|cv)$")


def lscpu():
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    return dict(line.split(":", 1) for line in out.splitlines() if ":" in line)


def amd_core(family, model):
    """The Zen generation of an AMD family / model, as AMD's revision guides number them."""
    if family == 25:
        return "Zen 4" if 0x10 <= model <= 0x1F or 0x60 <= model <= 0xAF else "Zen 3"
    return {23: "Zen 2", 26: "Zen 5"}.get(family, "")


def machine(tessera_isa):
    """(key, title, one-line description) of this machine."""
    info = {k.strip(): v.strip() for k, v in lscpu().items()}
    vendor = info.get("Vendor ID", "unknown")
    family, model = info.get("CPU family", "?"), info.get("Model", "?")
    key = re.sub(r"[^a-z0-9]+", "-", f"{vendor} {family} {model}".lower()).strip("-")
    title = info.get("Model name", "unknown CPU")
    if vendor == "AuthenticAMD" and family.isdigit() and model.isdigit():
        title = f"{title} {amd_core(int(family), int(model))}".strip()
    title += f", {tessera_isa}"
    line = (f"{info.get('Model name', 'unknown CPU')} ({vendor}, family {family}, model {model}), "
            f"{info.get('CPU(s)', '?')} cores, L2 {info.get('L2 cache', '?')}, "
            f"L3 {info.get('L3 cache', '?')}; Tessera's kernels: {tessera_isa}")
    return key, title, line


def run_bench(binary, args):
    """{(problem, impl, threads, mode): [real_time ...]}, {same key: label}, {key: bytes/s}."""
    out = subprocess.run([binary, f"--benchmark_filter={args.filter}",
                          f"--benchmark_repetitions={args.repetitions}",
                          f"--benchmark_min_time={args.min_time}", "--benchmark_format=csv"],
                         check=True, capture_output=True, text=True).stdout
    start = out.find("name,")
    times, labels, rates = collections.defaultdict(list), {}, collections.defaultdict(list)
    if start < 0:
        return times, labels, rates
    for row in csv.DictReader(io.StringIO(out[start:])):
        name = row.get("name", "")
        if not name or _AGGREGATE.search(name) or row.get("error_occurred") == "true":
            continue
        parts = _SUFFIX.sub("", name).split("/")
        if len(parts) != 4 or not parts[2].startswith("threads:"):
            continue
        key = (parts[0], parts[1], int(parts[2][len("threads:"):]), parts[3])
        times[key].append(float(row["real_time"]))
        if row.get("bytes_per_second"):
            rates[key].append(float(row["bytes_per_second"]))
        if row.get("label"):
            labels[key] = row["label"]
    return times, labels, rates


def measure(root, args):
    """Per primitive: {key: [median of each round]}, labels, {key: [bytes/s]}."""
    results = {}
    for r in range(args.rounds):
        order = list(BENCHES.items())
        for prim, path in order if r % 2 == 0 else order[::-1]:
            print(f"round {r + 1}/{args.rounds}: {prim}", file=sys.stderr, flush=True)
            binary = os.path.join(root, "bazel-out", "k8-opt", "bin", path)
            times, labels, rates = run_bench(binary, args)
            rounds, all_labels, all_rates = results.setdefault(
                prim, (collections.defaultdict(list), {}, collections.defaultdict(list)))
            for key, v in times.items():
                rounds[key].append(statistics.median(v))
            all_labels.update(labels)
            for key, v in rates.items():
                all_rates[key].extend(v)
    return results


def noise_bound(results):
    """The 90th percentile, over Tessera rows, of the largest |round median / median - 1|."""
    spreads = []
    for rounds, _, _ in results.values():
        for (_, impl, _, _), medians in rounds.items():
            if impl == "tessera" and len(medians) > 1:
                mid = statistics.median(medians)
                spreads.append(max(abs(m / mid - 1) for m in medians))
    if not spreads:
        return None
    spreads.sort()
    return spreads[int(0.9 * (len(spreads) - 1))]


def table(rounds, labels, rates, noise):
    """One Markdown table: a row per (problem, threads), the cache modes side by side; then the
    rows where the faster peer's time is below Tessera's by more than `noise`, and the kernels."""
    modes = sorted({mode for (_, _, _, mode) in rounds}, key=lambda m: (m != "cold", m))
    rows = sorted({(p, t) for (p, impl, t, _) in rounds if impl == "tessera"},
                  key=lambda pt: (list(k[0] for k in rounds).index(pt[0]), pt[1]))
    head = ["problem", "thr"]
    for m in modes:
        head += [f"{m} µs", "x oneDNN", "x ATen", "BW"]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|" + "---:|---:|---:|---:|" * len(modes)]
    kernels, behind = {}, []
    for problem, threads in rows:
        cells = [problem, str(threads)]
        for m in modes:
            med = {}
            for impl in ("tessera", "onednn", "aten", "memcpy"):
                if (problem, impl, threads, m) in rounds:
                    med[impl] = statistics.median(rounds[(problem, impl, threads, m)])
            t = med.get("tessera")
            cells.append(f"{t:.1f}" if t else "—")
            for peer in ("onednn", "aten"):
                cells.append(f"{med[peer] / t:.2f}" if t and peer in med else "—")
            peers = [med[p] for p in ("onednn", "aten") if p in med]
            if t and peers and min(peers) / t < 1 - (noise or 0):
                behind.append(f"{problem} {threads} thr {m} ({min(peers) / t:.2f})")
            ours, copy = rates.get((problem, "tessera", threads, m)), rates.get(
                (problem, "memcpy", threads, m))
            cells.append(f"{statistics.median(ours) / statistics.median(copy):.2f}"
                         if ours and copy else "—")
            label = labels.get((problem, "tessera", threads, m))
            if label:
                kernels[problem] = label
        lines.append("| " + " | ".join(cells) + " |")
    by_kernel = collections.defaultdict(list)
    for problem, label in kernels.items():
        by_kernel[label].append(problem)
    lines.append("")
    bound = f"{100 * noise:.0f} %" if noise is not None else "0 % (one round)"
    lines += textwrap.wrap(
        f"Behind the faster peer by more than the noise bound ({bound}): " +
        (", ".join(behind) if behind else "none") + ".", width=100)
    lines.append("")
    lines.append("Tessera's kernels:")
    for label, problems in sorted(by_kernel.items()):
        text = f"- `{label}`: " + ", ".join(f"`{p}`" for p in problems)
        lines += textwrap.wrap(text, width=100, subsequent_indent="  ", break_on_hyphens=False)
    return lines


def section(key, title, line, command, args, results):
    noise = noise_bound(results)
    noise_note = (f"Noise bound: 90 % of Tessera's rows had every round's median within "
                  f"{100 * noise:.0f} % of the median over the {args.rounds} rounds."
                  if noise is not None else "Noise bound: not measured (one round).")
    out = [f"<!-- standing:{key} -->", f"### {title}", ""]
    out += textwrap.wrap(f"Machine: {line}.", width=100) + [""]
    out += ["```sh", command, "```", ""] + textwrap.wrap(noise_note, width=100) + [""]
    for prim in BENCHES:
        if prim in results:
            out += [f"#### {prim}", ""] + table(*results[prim], noise) + [""]
    out.append(f"<!-- /standing:{key} -->")
    return "\n".join(out)


def write_section(path, key, text):
    page = open(path).read()
    begin, end = f"<!-- standing:{key} -->", f"<!-- /standing:{key} -->"
    if begin in page and end in page:
        page = page[: page.index(begin)] + text + page[page.index(end) + len(end):]
    else:
        page = page.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(page)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", default="0.1")
    parser.add_argument("--filter", default=".", help="--benchmark_filter for both benches")
    parser.add_argument("--print", action="store_true", help="print the section, do not write")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["bazel", "build", "-c", "opt", "//bench/reorder:reorder_bench",
                    "//bench/softmax:softmax_bench"], cwd=root, check=True)
    results = measure(root, args)
    if not any(r[0] for r in results.values()):
        sys.exit(f"no benchmark matched --filter={args.filter}")
    isas = {label.split(":")[1] for _, labels, _ in results.values() for label in labels.values()
            if label.startswith("xsimd:")}
    key, title, line = machine(", ".join(sorted(isas)) or "none vectorised")
    flags = " ".join(shlex.quote(a) for a in sys.argv[1:] if a != "--print")
    command = f"bench/perf_standing.py {flags}".rstrip()
    text = section(key, title, line, command, args, results)
    if args.print:
        print(text)
    else:
        write_section(os.path.join(root, "docs", "performance.md"), key, text)
        print(f"docs/performance.md: section {key} written", file=sys.stderr)


if __name__ == "__main__":
    main()
