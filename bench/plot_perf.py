#!/usr/bin/env python3
"""Turns a tessera_bench perf CSV into a bar chart (gnuplot): Tessera, oneDNN and memcpy GB/s per problem.

    bazel run -c opt //bench:tessera_bench -- --mode=P --compare=onednn \\
        --perf-csv=$PWD/perf.csv --batch=$PWD/bench/inputs/demo
    bench/plot_perf.py perf.csv docs/perf_demo.png

All three bars of a problem move the same bytes: oneDNN's GB/s is Tessera's scaled by the time
ratio, memcpy's is Tessera's divided by copy_frac. Rows without Tessera figures are listed and left
out (their GB/s cannot be derived from the CSV columns).
"""
import csv
import os
import re
import subprocess
import sys
import tempfile


def label(problem):
    m = re.search(r'_n"([^"]*)"', problem)
    return m.group(1) if m else problem.split(" ")[-1]


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    names, ours, peer, copy, left_out = [], [], [], [], []
    with open(argv[1]) as f:
        for row in csv.DictReader(f):
            if not row["gbps"]:
                left_out.append(label(row["problem"]))
                continue
            g = float(row["gbps"])
            names.append(label(row["problem"]))
            ours.append(g)
            peer.append(g * float(row["median_ms"]) / float(row["onednn_ms"]) if row["onednn_ms"] else 0)
            frac = float(row["copy_frac"]) if row["copy_frac"] else 0
            copy.append(g / frac if frac > 0 else 0)
    if left_out:
        print("no Tessera figures (left out): " + ", ".join(left_out))
    if not names:
        print("nothing to plot")
        return 1
    # gnuplot (Debian's gnuplot-nox): a clustered histogram, one cluster per problem.
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.dat")
        with open(data, "w") as f:
            for n, a, b, c in zip(names, ours, peer, copy):
                f.write(f'"{n}" {a:.4f} {b:.4f} {c:.4f}\n')
        script = f"""set terminal pngcairo size {max(900, 70 * len(names))},500 noenhanced
set output '{os.path.abspath(argv[2])}'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.9 border -1
set ylabel 'GB/s'
set title 'tessera_bench: bandwidth per problem (same run)'
set xtics rotate by -45
set key top right
plot '{data}' using 2:xtic(1) title 'Tessera', '' using 3 title 'oneDNN 2.6.3', '' using 4 title 'memcpy (same bytes)'
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
