#!/usr/bin/env python3
"""Regenerates the catalogues of docs/errors.md from what the tests print.

    bazel build //reliability:errors_test //bench:tessera_bench
    TESSERA_PRINT_ERRORS=1 bazel-bin/reliability/errors_test > /tmp/errors.txt
    TESSERA_PRINT_ERRORS=1 reliability/driver_errors_test.sh bazel-bin/bench/tessera_bench \
        > /tmp/driver.txt
    reliability/print_error_table.py /tmp/errors.txt /tmp/driver.txt docs/errors.md

errors.txt lines are "id<TAB>status" (the errors_test cases); driver.txt lines "ROW<TAB>args<TAB>
output". The text between "<!-- BEGIN library tables -->" and "<!-- END library tables -->" (and
the same for "driver table") is replaced; the rest of the page is left as written. Rows keep the
order of the test's cases; a section per id prefix, in SECTIONS order. Each section is a text
block, an id (or a command line) and under it the message exactly as printed, indented: messages
are quoted verbatim, however long, and a block keeps them readable without wrapping them.
"""
import re
import sys

SECTIONS = [  # (id prefixes, heading)
    (["desc"], "Descriptor (`core/memory_desc`)"),
    (["data_type"], "Data types (`core/data_type`)"),
    (["tag"], "Format tags (`formats/tag`)"),
    (["layout"], "Layouts (`formats/layout`, `make_layout`)"),
    (["algebra"], "Layout algebra (`formats/algebra`)"),
    (["md_string"], "String forms (`formats/md_string`)"),
    (["reorder"], "Reorder (`primitives/reorder`)"),
    (["softmax"], "Softmax (`primitives/softmax`)"),
    (["threads", "cache"], "Runtime (`primitives/runtime`: threads, primitive cache)"),
    (["isa"], "ISA cap (`simd/isa`)"),
]


def text_block(entries):
    """A fenced text block: each (head, message) pair as the head, then the message indented."""
    out = ["```text"]
    for head, message in entries:
        out += [head, f"    {message}"]
    return out + ["```"]


def library_tables(lines):
    rows = []
    for line in lines:
        m = re.match(r"^([a-z_0-9]+\.[a-z_0-9]+)\t(.*)$", line)
        if m:
            rows.append((m.group(1), m.group(2)))
    ids = [r[0] for r in rows]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        sys.exit(f"duplicate ids: {sorted(dupes)}")
    out = []
    used = set()
    for prefixes, heading in SECTIONS:
        section = [r for r in rows if r[0].split(".")[0] in prefixes]
        if not section:
            continue
        used.update(r[0] for r in section)
        out += ["", f"### {heading}", ""] + text_block(section)
    left = [i for i in ids if i not in used]
    if left:
        sys.exit(f"ids without a section: {left}")
    return out + [""], len(rows)


def driver_table(lines):
    entries = []
    for line in lines:
        f = line.split("\t")
        if len(f) == 3 and f[0] == "ROW":
            entries.append((f"$ tessera_bench {f[1]}", f[2]))
    return [""] + text_block(entries) + [""], len(entries)


def replace_block(page, name, body):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in page or end not in page:
        sys.exit(f"docs page lacks the markers {begin} ... {end}")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n".join(body) + end + tail


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    errors_txt, driver_txt, page_path = sys.argv[1:]
    lib, n_lib = library_tables(open(errors_txt).read().splitlines())
    drv, n_drv = driver_table(open(driver_txt).read().splitlines())
    page = open(page_path).read()
    page = replace_block(page, "library tables", lib)
    page = replace_block(page, "driver table", drv)
    open(page_path, "w").write(page)
    print(f"{page_path}: {n_lib} library rows, {n_drv} driver rows")


if __name__ == "__main__":
    main()
