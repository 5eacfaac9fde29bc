#!/usr/bin/env python3
"""Regenerates docs/conformance.md: benchdnn's CPU batches through tessera_bench --mode=C.

Usage (from anywhere in the checkout):

    bench/driver/conformance.py [--inputs DIR] [--binary PATH] [--timeout SECONDS]
                                [--only BATCH ...]

Builds //bench:tessera_bench with -c opt (unless --binary names a driver to use) and runs
`tessera_bench --mode=C --DRIVER --batch=FILE` over every batch file of benchdnn's inputs for
the reorder and softmax drivers. The inputs are read from --inputs, else $TESSERA_BENCHDNN_INPUTS,
else ../shared/benchdnn/inputs next to the repository root; they are never copied into the
repository.

Which files run: every regular file of inputs/reorder/ and inputs/softmax/ except those whose
name says they are GPU-only (contains "gpu") or ACL-only (contains "acl"). The rule, not a list,
decides; it is printed in the page. `--only` runs the named batches alone (file names, e.g.
test_reorder_ci) and keeps the other batches' rows and reasons as the page has them: each row
names the commit its batch ran at.

Writes:
  docs/conformance.md                   per batch: problems and the count of each status, then
                                        every non-PASSED reason with how many problems it covers;
  bench/driver/conformance_floor.txt    "driver batch passed" for the batches that
                                        //bench/driver:real_batches_test gates (its floor).

Exit status: 0 when every batch finished with zero FAILED, 1 when a problem FAILED or a batch did
not finish (crash, parse error, timeout; the page says which), 2 when the inputs are missing.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

DRIVERS = ["reorder", "softmax"]
EXCLUDED_WORDS = ["gpu", "acl"]  # a file whose name contains one of these does not run
# The batches //bench/driver:real_batches_test runs; their passed counts are its floor.
GATED = [
    ("reorder", "test_reorder_smoke"), ("reorder", "test_reorder_ci"),
    ("softmax", "test_softmax_smoke"), ("softmax", "test_softmax_ci"),
]
STATUSES = ["PASSED", "FAILED", "SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS"]
HEADINGS = ["passed", "failed", "skipped", "unimplemented", "invalid_arguments"]
MAX_REASONS = 40  # per batch; the rest are summed up in one line
WIDTH = 100
FLOOR = "bench/driver/conformance_floor.txt"

# The driver's lines (bench/driver/report.cc):
#   IDX:STATUS[ (reason)][ [impl]][ perf figures][ | oneDNN ...] __REPRO: repro
#   tests:N passed:N skipped:N unimplemented:N invalid_arguments:N failed:N listed:N (T s)
#   N passed, N failed                                    (always the last line)
PROBLEM = re.compile(r"^(\d+):([A-Z_]+)(.*?) __REPRO: ")
# The reason is greedy up to the last ')' that is followed by nothing or by " [impl]": reasons
# may hold parentheses and brackets themselves; impl names hold neither.
REASON = re.compile(r"^ \((.*)\)(?: \[[^\[\]()]*\])?$")
SUMMARY = re.compile(r"^tests:(\d+) passed:(\d+) skipped:(\d+) unimplemented:(\d+) "
                     r"invalid_arguments:(\d+) failed:(\d+) listed:(\d+) ")
FINAL = re.compile(r"^(\d+) passed, (\d+) failed$")


class BatchResult:
    def __init__(self, driver, name, commit=""):
        self.driver, self.name, self.commit = driver, name, commit
        self.counts = collections.Counter()
        self.reasons = collections.Counter()  # (status, reason) -> problems
        self.problem_lines = 0
        self.problems_expected = None  # from the summary line
        self.finished = False
        self.problem = ""  # why the run is not trustworthy (crash, timeout, parse mismatch)
        self.seconds = 0.0

    @property
    def total(self):
        return sum(self.counts.values())


def parse_output(res, stdout):
    """Fills res from the driver's stdout; notes any disagreement between lines and summary."""
    lines = stdout.splitlines()
    for line in lines:
        m = PROBLEM.match(line)
        if not m:
            if (s := SUMMARY.match(line)):
                res.problems_expected = int(s.group(1))
                summary = dict(zip(["PASSED", "SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS",
                                    "FAILED"], map(int, s.groups()[1:6])))
            continue
        res.problem_lines += 1
        status, rest = m.group(2), m.group(3)
        res.counts[status] += 1
        if status == "PASSED":
            continue
        r = REASON.match(rest)
        res.reasons[(status, r.group(1) if r else rest.strip() or "(no reason given)")] += 1
    final = FINAL.match(lines[-1]) if lines else None
    res.finished = final is not None and res.problems_expected is not None
    if not res.finished:
        return
    mismatch = []
    if res.problems_expected != res.problem_lines:
        mismatch.append(f"{res.problem_lines} problem lines, summary says {res.problems_expected}")
    for st in STATUSES:
        if summary[st] != res.counts[st]:
            mismatch.append(f"{res.counts[st]} {st} lines, summary says {summary[st]}")
    if (int(final.group(1)), int(final.group(2))) != (res.counts["PASSED"], res.counts["FAILED"]):
        mismatch.append("the final line disagrees with the problem lines")
    if mismatch:
        res.problem = "output not understood: " + "; ".join(mismatch)


class KeptBatch:
    """A batch not re-run by --only: its row cells and reason lines as the page has them."""

    def __init__(self, driver, name, cells, section):
        self.driver, self.name, self.cells, self.section = driver, name, cells, section
        self.problem = ""


def kept_batches(page):
    """{(driver, name): KeptBatch} from a page this script wrote (rows with a commit column)."""
    rows, sections, current = {}, {}, None
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 4 + len(HEADINGS) and cells[0] in DRIVERS:
            rows[(cells[0], cells[1].replace(" (see below)", ""))] = cells[2:]
        elif line.startswith("### "):
            driver, _, name = line[4:].partition("/")
            current = sections.setdefault((driver, name), [])
        elif line.startswith("## "):
            current = None
        elif current is not None:
            current.append(line)
    return {k: KeptBatch(k[0], k[1], cells, sections.get(k, ["No reasons recorded.", ""]))
            for k, cells in rows.items()}


def run_batch(binary, driver, path, timeout, cwd, commit):
    res = BatchResult(driver, os.path.basename(path), commit)
    cmd = [binary, "--mode=C", f"--{driver}", f"--batch={path}"]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
        stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout or ""
        if isinstance(stdout, bytes):
            stdout = stdout.decode(errors="replace")
        stderr, rc = "", None
    res.seconds = time.monotonic() - start
    parse_output(res, stdout)
    last_err = stderr.strip().splitlines()[-1][:200] if stderr.strip() else ""
    if rc is None:
        res.finished = False
        res.problem = f"timed out after {timeout} s ({res.problem_lines} problems reported)"
    elif rc < 0:
        res.finished = False
        res.problem = f"killed by signal {-rc} after {res.problem_lines} problems"
    elif not res.finished:
        res.problem = f"exit status {rc} without the final 'N passed, N failed' line"
    elif rc != (1 if res.counts["FAILED"] else 0):
        res.problem = f"exit status {rc} with {res.counts['FAILED']} FAILED"
    if res.problem and last_err:
        res.problem += f"; stderr: {last_err}"
    return res


def discover(inputs):
    """(driver, path) of every batch the rule includes, and the names it excludes."""
    included, excluded = [], []
    for driver in DRIVERS:
        folder = os.path.join(inputs, driver)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            if any(w in name.lower() for w in EXCLUDED_WORDS):
                excluded.append(f"{driver}/{name}")
            else:
                included.append((driver, path))
    return included, excluded


def build(root):
    """Builds the opt driver and returns a private copy (others may rebuild it meanwhile)."""
    subprocess.run(["bazel", "build", "-c", "opt", "//bench:tessera_bench"], cwd=root, check=True)
    bin_dir = subprocess.run(["bazel", "info", "-c", "opt", "bazel-bin"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.strip()
    copy = os.path.join(tempfile.mkdtemp(prefix="conformance."), "tessera_bench")
    shutil.copy2(os.path.join(bin_dir, "bench", "tessera_bench"), copy)
    return copy


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()


def escape(text):
    """Markdown-inert text: backslash-escapes what could start emphasis, code, links or HTML."""
    text = re.sub(r"([\\`*\[\]<>|])", r"\\\1", text)
    # '_' inside a word (per_tensor, zp_comp) is literal in GitHub's Markdown; elsewhere escape.
    return re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)


def bullet(text):
    return textwrap.wrap(text, WIDTH, initial_indent="- ", subsequent_indent="  ",
                         break_on_hyphens=False, break_long_words=True)


def wrap(text):
    return textwrap.wrap(text, WIDTH, break_on_hyphens=False)


def render(results, excluded):
    out = ["# Conformance: benchdnn's batches through tessera_bench", ""]
    out += wrap(
        "Regenerate with `bench/driver/conformance.py` (from the repository root). It builds "
        "`//bench:tessera_bench` with `-c opt`, runs each batch with `tessera_bench --mode=C "
        "--DRIVER --batch=FILE` and rewrites this page and `bench/driver/conformance_floor.txt` "
        "(the passed counts below which `//bench/driver:real_batches_test` fails). The batches "
        "are read from `../shared/benchdnn/inputs/` (or `$TESSERA_BENCHDNN_INPUTS`) and are "
        "never copied into the repository.")
    out.append("")
    out += wrap(
        "Each row names the tessera commit its batch ran at (`--only BATCH ...` re-runs some "
        "batches and keeps the other rows); `+N` after it counts tracked files that differed "
        "from that commit.")
    out.append("")
    out += wrap(
        "Included: every file of `inputs/reorder/` and `inputs/softmax/` (harness\\_\\*, "
        "test\\_\\*, shapes\\_\\*, set\\_\\*, option\\_set\\_\\*), each run as `--batch=FILE`. "
        "Excluded, by name only: files whose name contains `gpu` (GPU-only) or `acl` "
        "(Arm Compute Library only). Excluded by that rule: "
        + ", ".join(f"`{e}`" for e in excluded) + ".")
    out.append("")
    out += wrap(
        "Every problem runs in `--mode=C`: Tessera's result against the driver's scalar "
        "reference (bit-exact for reorder, benchdnn's tolerances for softmax). SKIPPED problems "
        "use a knob value Tessera does not support (the reason names it) or need more memory "
        "than the driver's guard allows (half of the machine's RAM); UNIMPLEMENTED ones are "
        "valid problems Tessera cannot run yet; INVALID_ARGUMENTS is the library's own "
        "rejection (its Status text). See docs/driver.md for the rules.")
    out.append("")
    out.append("| driver | batch | problems | " + " | ".join(HEADINGS) + " | commit |")
    out.append("|---|---|---:|" + "---:|" * len(HEADINGS) + "---|")
    for r in results:
        if isinstance(r, KeptBatch):
            out.append(f"| {r.driver} | {r.name} | " + " | ".join(r.cells) + " |")
            continue
        name = r.name if r.finished and not r.problem else f"{r.name} (see below)"
        out.append(f"| {r.driver} | {name} | {r.total} | "
                   + " | ".join(str(r.counts[s]) for s in STATUSES) + f" | {r.commit} |")
    out.append("")
    trouble = [r for r in results if r.problem]
    if trouble:
        out += ["## Batches that did not run cleanly", ""]
        for r in trouble:
            out += bullet(escape(f"{r.driver}/{r.name}: {r.problem}"))
        out.append("")
    out += ["## Reasons, per batch", ""]
    out += wrap("Each non-PASSED reason with the number of problems it covers, most first. "
                "The reason is the driver's text.")
    out.append("")
    for r in results:
        out += [f"### {r.driver}/{r.name}"]
        if isinstance(r, KeptBatch):
            out += r.section
            continue
        out.append("")
        if not r.reasons:
            out += ["Every problem PASSED." if r.total else "No problems.", ""]
            continue
        ranked = sorted(r.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        for (st, reason), n in ranked[:MAX_REASONS]:
            out += bullet(f"{n} {st}: " + escape(reason))
        if len(ranked) > MAX_REASONS:
            rest = ranked[MAX_REASONS:]
            out += bullet(f"{len(rest)} more reasons covering {sum(n for _, n in rest)} problems")
        out.append("")
    return "\n".join(out)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_inputs = os.path.join(os.path.dirname(root), "shared", "benchdnn", "inputs")
    ap.add_argument("--inputs", default=os.environ.get("TESSERA_BENCHDNN_INPUTS", default_inputs))
    ap.add_argument("--binary", help="an opt tessera_bench to use instead of building one")
    ap.add_argument("--timeout", type=float, default=3600, help="per batch, in seconds")
    ap.add_argument("--only", nargs="+", metavar="BATCH",
                    help="run these batches only (file names); keep the page's other rows")
    args = ap.parse_args()

    if not all(os.path.isdir(os.path.join(args.inputs, d)) for d in DRIVERS):
        print(f"conformance.py: benchdnn's inputs are missing: {args.inputs}/{{reorder,softmax}}",
              file=sys.stderr)
        return 2
    batches, excluded = discover(args.inputs)
    binary = os.path.abspath(args.binary) if args.binary else build(root)
    commit = git(root, "rev-parse", "--short", "HEAD")
    page_path = os.path.join(root, "docs", "conformance.md")
    kept = kept_batches(open(page_path).read()) if args.only else {}
    if args.only:
        unknown = set(args.only) - {os.path.basename(p) for _, p in batches}
        if unknown:
            print(f"conformance.py: no such batch: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
    # Tracked files that differ from the commit and may be in the binary (not Markdown, not the
    # floor this script writes).
    # (git() strips the output, so the first line may have lost its leading status space.)
    dirty = [line.split(None, 1)[1] for line in git(
        root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)*.md",
        ":(exclude)" + FLOOR).splitlines()]

    if dirty:
        commit += f" +{len(dirty)}"
    results = []
    for driver, path in batches:
        name = os.path.basename(path)
        if args.only and name not in args.only:
            if (driver, name) not in kept:
                print(f"conformance.py: {driver}/{name} has no row to keep: run it too",
                      file=sys.stderr)
                return 2
            results.append(kept[(driver, name)])
            continue
        r = run_batch(binary, driver, path, args.timeout, root, commit)
        results.append(r)
        print(f"{driver}/{r.name}: {r.total} problems, "
              + ", ".join(f"{h} {r.counts[s]}" for s, h in zip(STATUSES, HEADINGS))
              + f" ({r.seconds:.1f} s)" + (f" -- {r.problem}" if r.problem else ""), flush=True)

    with open(page_path, "w") as f:
        f.write(render(results, excluded) + "\n")
    by_name = {(r.driver, r.name): r for r in results}
    old_floor = {}
    for line in open(os.path.join(root, FLOOR)):
        if not line.startswith("#") and line.split():
            driver, name, passed = line.split()
            old_floor[(driver, name)] = passed
    floor = ["# The passed counts of the batches //bench/driver:real_batches_test runs: it fails",
             "# when a batch passes fewer. Written by bench/driver/conformance.py.",
             "# driver batch passed"]
    for driver, name in GATED:
        r = by_name.get((driver, name))
        if isinstance(r, KeptBatch):
            floor.append(f"{driver} {name} {old_floor[(driver, name)]}")
            continue
        if r is None or not r.finished or r.problem:
            print(f"conformance.py: gated batch {driver}/{name} did not run cleanly; "
                  "conformance_floor.txt not written", file=sys.stderr)
            return 1
        floor.append(f"{driver} {name} {r.counts['PASSED']}")
    with open(os.path.join(root, FLOOR), "w") as f:
        f.write("\n".join(floor) + "\n")
    print("wrote docs/conformance.md and bench/driver/conformance_floor.txt")
    bad = [r for r in results if r.problem or (isinstance(r, BatchResult) and r.counts["FAILED"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
