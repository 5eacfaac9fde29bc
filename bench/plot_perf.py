#!/usr/bin/env python3
"""Turns a tessera_bench --perf-csv file into a chart (gnuplot, pngcairo).

    tools/demo --perf-csv=$PWD/perf.csv           # or tessera_bench --mode=P --compare=onednn ...
    bench/plot_perf.py perf.csv docs/perf_demo.png

Top panel: speedup over oneDNN (oneDNN's median time / Tessera's, per call) on a log axis, one bar
per problem from the 1x line (up: Tessera faster, down: slower), each labelled with its value; a
problem oneDNN did not run is marked "oneDNN not run" (no bar). Bottom panel: GB/s of Tessera,
oneDNN and a same-run memcpy of the same bytes (all three move the bytes Tessera's kernel moves);
per-call problems (under 256 KiB moved) are not bandwidth-bound, so they are shown as their times in
microseconds instead of bars. The title names the machine (CPU model, ISA), the thread count and the
cache mode, from the "# key: value" header lines tessera_bench writes at the top of the CSV.
Rows without Tessera timings (skipped, not timed) are listed and left out.
"""
import csv
import os
import subprocess
import sys
import tempfile

TINY_BYTES = 256 * 1024  # below this a problem measures per-call cost, not bandwidth


def amd_core(family, model):
    """The Zen generation of an AMD family / model (as bench/perf_standing.py names them)."""
    if family == 25:
        return "Zen 4" if 0x10 <= model <= 0x1F or 0x60 <= model <= 0xAF else "Zen 3"
    return {23: "Zen 2", 26: "Zen 5"}.get(family, "")


def read(path):
    """(header dict, rows) of a tessera_bench perf CSV."""
    header, lines = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("# ") and ":" in line:
                key, value = line[2:].split(":", 1)
                header[key.strip()] = value.strip()
            elif line.strip():
                lines.append(line)
    return header, list(csv.DictReader(lines))


def machine(header):
    cpu = header.get("cpu", "unknown CPU")
    parts = header.get("cpu_id", "").split()  # "AuthenticAMD family 25 model 17"
    if len(parts) == 5 and parts[0] == "AuthenticAMD" and parts[2].isdigit() and parts[4].isdigit():
        core = amd_core(int(parts[2]), int(parts[4]))
        if core and core not in cpu:
            cpu = f"{cpu} ({core})"
    return cpu


def label(row):
    return row["name"] or f'{row["driver"]} {row["dims"]}'


def fnum(text):
    return float(text) if text else None


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    header, rows = read(argv[1])
    points, left_out = [], []
    for row in rows:
        ms = fnum(row["median_ms"])
        if ms is None or ms <= 0:
            left_out.append(label(row))
            continue
        theirs = fnum(row["onednn_ms"])
        ratio = theirs / ms if theirs else None
        gbps = fnum(row["gbps"]) or 0
        frac = fnum(row["copy_frac"]) or 0
        moved = int(row["ibytes"] or 0) + int(row["obytes"] or 0)
        points.append({
            "label": label(row), "ratio": ratio, "tiny": moved < TINY_BYTES,
            "ours": gbps, "peer": gbps * ms / theirs if theirs else None,
            "copy": gbps / frac if frac > 0 else None,
            "us": ms * 1e3, "peer_us": theirs * 1e3 if theirs else None})
    if left_out:
        print("no Tessera timings (left out): " + ", ".join(left_out))
    if not points:
        print("nothing to plot")
        return 1

    def nan(v):
        return "NaN" if v is None else f"{v:.6g}"

    ratios = [p["ratio"] for p in points if p["ratio"]]
    lo = min(ratios + [1.0]) / 1.6
    hi = max(ratios + [1.0]) * 1.6
    bw_max = max([p[k] for p in points if not p["tiny"] for k in ("ours", "peer", "copy") if p[k]] + [1])
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.dat")
        with open(data, "w") as f:
            for i, p in enumerate(points):
                r = p["ratio"]
                faster = r is not None and r >= 1
                ratio_label = f"{r:.2f}x" if r else ""
                label_y = (r * 1.12 if faster else r / 1.12) if r else 1
                not_run = "" if r else "oneDNN not run"
                tiny = p["tiny"]
                tiny_text = ""
                if tiny:
                    tiny_text = f"per call: Tessera {p['us']:.3g} \u00b5s"
                    tiny_text += f", oneDNN {p['peer_us']:.3g} \u00b5s" if p["peer_us"] else ", oneDNN not run"
                f.write("\t".join([
                    str(i), p["label"], nan(r), ratio_label, nan(label_y), "1" if faster else "2",
                    not_run, nan(None if tiny else p["ours"]), nan(None if tiny else p["peer"]),
                    nan(None if tiny else p["copy"]), tiny_text]) + "\n")
        threads = header.get("threads", "?")
        title = (f"tessera_bench: Tessera {header.get('tessera', '?')} vs oneDNN {header.get('onednn', '?')}"
                 f" - {machine(header)}, ISA {header.get('isa', '?')}, {threads} threads"
                 f" (both libraries and memcpy), cold cache: {header.get('cold_cache', '?')}")
        n = len(points)
        script = f"""set terminal pngcairo size {max(1100, 75 * n)},1000 font 'DejaVu Sans,10' noenhanced
set output '{os.path.abspath(argv[2])}'
set datafile separator "\\t"
set datafile missing "NaN"
set multiplot layout 2,1 title '{title}' font 'DejaVu Sans,11'
set xrange [-0.6:{n - 0.4}]
set xtics rotate by -30 nomirror
set grid ytics lc rgb '#dddddd'
set style fill solid 0.85 border -1
set key top left
set title 'Speedup over oneDNN (its median time per call / Tessera''s); log axis, above 1x Tessera is faster'
set logscale y
set yrange [{lo:.4g}:{hi:.4g}]
set ylabel 'speedup (x)'
set linetype 1 lc rgb '#2e8b57'
set linetype 2 lc rgb '#c0392b'
plot '{data}' using 1:(1):($1-0.3):($1+0.3):(1):3:6:xtic(2) with boxxyerror lc variable notitle, \\
     '' using 1:5:4 with labels font ',9' notitle, \\
     '' using 1:(1):7 with labels rotate by 90 left offset 0,0.5 font ',9' tc rgb '#555555' notitle, \\
     1 with lines dt 2 lw 1.5 lc rgb 'black' title '1x: as fast as oneDNN'
unset logscale y
set yrange [0:{bw_max * 1.15:.4g}]
set ylabel 'GB/s (bytes read + written)'
set title 'Bandwidth: Tessera, oneDNN and a same-run memcpy of the same bytes; per-call problems in microseconds'
plot '{data}' using ($1-0.27):8:(0.26):xtic(2) with boxes lc rgb '#1f5fa8' title 'Tessera', \\
     '' using 1:9:(0.26) with boxes lc rgb '#e08a1e' title 'oneDNN', \\
     '' using ($1+0.27):10:(0.26) with boxes lc rgb '#9a9a9a' title 'memcpy', \\
     '' using 1:({bw_max * 0.04:.4g}):11 with labels rotate by 90 left font ',9' notitle
unset multiplot
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
