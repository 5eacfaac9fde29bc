#!/usr/bin/env python3
"""Regenerates docs/conformance.md: benchdnn's real batches through tessera_bench --mode=C.

    bench/driver/conformance.py            # from the repository root

Builds //bench:tessera_bench (-c opt), runs every batch of issue 7 from ../shared/benchdnn/inputs
(never copied into the repository), and writes per batch the counts of each status and every
skip / unimplemented reason with how many problems it covers. Exit status 1 if any problem FAILED.
"""
import collections
import datetime
import os
import re
import subprocess
import sys

BATCHES = [
    ("reorder", "test_reorder_smoke"), ("reorder", "test_reorder_ci"),
    ("reorder", "harness_reorder_saturation"), ("reorder", "harness_reorder_scales"),
    ("reorder", "test_reorder_bfloat16"), ("reorder", "test_reorder_float16"),
    ("reorder", "test_reorder_all"),
    ("softmax", "test_softmax_smoke"), ("softmax", "test_softmax_ci"),
    ("softmax", "test_softmax_bfloat16"), ("softmax", "test_softmax_float16"),
    ("softmax", "test_softmax_all"), ("softmax", "shapes_large_axis"),
]
STATUSES = ["PASSED", "FAILED", "SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS"]
LINE = re.compile(r"^\d+:([A-Z_]+)(?: \((.*?)\))?(?: \[.*?\])?(?: .*)? __REPRO: ")


def generalise(reason):
    """Groups reasons by knob and rule: '--sdt=s4: data type ...' stays; numbers in values stay."""
    return reason


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    inputs = os.environ.get("TESSERA_BENCHDNN_INPUTS",
                            os.path.join(os.path.dirname(root), "shared", "benchdnn", "inputs"))
    if not os.path.isdir(inputs):
        print(f"SKIPPED: {inputs} is absent; nothing to regenerate")
        return 0
    subprocess.run(["bazel", "build", "-c", "opt", "//bench:tessera_bench"], cwd=root, check=True)
    # bazel-bin follows the last build of anyone sharing the workspace: name the opt tree.
    binary = os.path.join(root, "bazel-out", "k8-opt", "bin", "bench", "tessera_bench")
    rows, details, any_failed = [], [], False
    for driver, batch in BATCHES:
        path = os.path.join(inputs, driver, batch)
        cmd = [binary, "--mode=C", f"--{driver}", f"--batch={path}"]
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        counts = collections.Counter()
        reasons = collections.Counter()
        for line in proc.stdout.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            st, reason = m.group(1), m.group(2) or ""
            counts[st] += 1
            if st in ("SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS", "FAILED"):
                reasons[(st, generalise(reason))] += 1
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        if not re.match(r"^\d+ passed, \d+ failed$", last):
            counts["FAILED"] += 1
            reasons[("FAILED", f"driver did not finish (exit {proc.returncode}): {proc.stderr.strip()[:200]}")] += 1
        any_failed |= counts["FAILED"] > 0
        rows.append((driver, batch, sum(counts.values()), counts))
        details.append((batch, reasons))
        print(f"{batch}: " + ", ".join(f"{s} {counts[s]}" for s in STATUSES), flush=True)

    out = [
        "# Conformance: benchdnn's batches through tessera_bench",
        "",
        "Regenerate with `bench/driver/conformance.py` (from the repository root; it builds",
        "`//bench:tessera_bench -c opt` and reads the batches from `../shared/benchdnn/inputs/`,",
        "which are never copied into the repository). Every problem runs in `--mode=C`: Tessera's",
        "result against the driver's scalar reference (bit-exact for reorder, benchdnn's tolerances",
        "for softmax). SKIPPED problems use a knob value Tessera does not support (the reason names",
        "it); UNIMPLEMENTED ones are valid problems Tessera cannot run yet; INVALID_ARGUMENTS is the",
        "library's own rejection (its Status text). See docs/driver.md for the rules.",
        "",
        f"Generated {datetime.date.today().isoformat()}.",
        "",
        "| driver | batch | problems | " + " | ".join(s.lower() for s in STATUSES) + " |",
        "|---|---|---:|" + "---:|" * len(STATUSES),
    ]
    for driver, batch, total, counts in rows:
        out.append(f"| {driver} | {batch} | {total} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    out += ["", "## Reasons, per batch", ""]
    for batch, reasons in details:
        out.append(f"### {batch}")
        out.append("")
        if not reasons:
            out.append("Nothing skipped.")
        else:
            out.append("| status | reason | problems |")
            out.append("|---|---|---:|")
            for (st, reason), n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
                out.append(f"| {st} | {reason.replace('|', '&#124;')} | {n} |")
        out.append("")
    with open(os.path.join(root, "docs", "conformance.md"), "w") as f:
        f.write("\n".join(out))
    print("wrote docs/conformance.md")
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
