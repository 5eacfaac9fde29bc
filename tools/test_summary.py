#!/usr/bin/env python3
"""Prints 'N passed, N failed' for one `bazel test` run, counting gtest cases.

    bazel test //... --build_event_json_file=bep.json
    python3 tools/test_summary.py bep.json [more_bep.json ...]

Reads the build-event file(s) of the run: every test target's test.xml (fresh or cached) is parsed
and each <testcase> counts once; skipped cases are not counted, but each is named on a line of its
own with its reason (an AVX-512 case on an AVX2 machine, say), so that a skip is never silent. A
test target that did not build, or that failed without writing any case (crash, timeout),
counts as one failure, so a red run can never print "0 failed"; each failed case or target is
named on a FAILED line just above the count, so the tail of a log says what broke. Exits 1 when
anything failed.
"""
import json
import sys
import urllib.parse
import xml.etree.ElementTree as ET


def summarize(path):
    test_targets, overall, built, xml_files = set(), {}, {}, {}
    with open(path) as f:
        for line in f:
            event = json.loads(line)
            ident = event.get("id", {})
            if "targetConfigured" in ident:
                kind = event.get("configured", {}).get("targetKind", "")
                if kind.endswith("_test rule"):
                    test_targets.add(ident["targetConfigured"]["label"])
            elif "targetCompleted" in ident:
                built[ident["targetCompleted"]["label"]] = event.get("completed", {}).get("success", False)
            elif "testSummary" in ident:
                overall[ident["testSummary"]["label"]] = event["testSummary"]["overallStatus"]
            elif "testResult" in ident:
                label = ident["testResult"]["label"]
                for out in event.get("testResult", {}).get("testActionOutput", []):
                    if out["name"] == "test.xml":
                        xml_files.setdefault(label, []).append(urllib.parse.urlparse(out["uri"]).path)
    passed = failed = 0
    skipped, failures = [], []
    for label in sorted(test_targets):
        cases_passed = cases_failed = 0
        for xml in xml_files.get(label, []):
            try:
                root = ET.parse(xml).getroot()
            except (OSError, ET.ParseError):
                continue
            for case in root.iter("testcase"):
                if case.get("result") == "skipped" or case.get("status") == "notrun":
                    reason = case.find("skipped")
                    why = reason.get("message", "") if reason is not None else "not run"
                    skipped.append("%s.%s (%s): %s" % (
                        case.get("classname"), case.get("name"), label,
                        why.splitlines()[-1] if why else "no reason given"))
                    continue
                if case.find("failure") is not None or case.find("error") is not None:
                    cases_failed += 1
                    failures.append("%s.%s (%s)" % (case.get("classname"), case.get("name"), label))
                else:
                    cases_passed += 1
        status = overall.get(label)
        target_ok = status in ("PASSED", "FLAKY")
        if status is None and not built.get(label, False):
            failures.append("%s: not built" % label)
            cases_failed = max(cases_failed, 1)
        elif status is not None and not target_ok and cases_failed == 0:
            failures.append("%s: %s, no failed case recorded" % (label, status))
            cases_failed = 1
        passed += cases_passed
        failed += cases_failed
    return passed, failed, skipped, failures


def main(paths):
    passed = failed = 0
    skipped = set()  # a case skipped in several runs (plain, ASan) is named once
    failures = []
    for p in paths:
        run_passed, run_failed, run_skipped, run_failures = summarize(p)
        passed += run_passed
        failed += run_failed
        skipped.update(run_skipped)
        failures.extend("%s in %s" % (f, p) for f in run_failures)
    for line in sorted(skipped):
        print("SKIPPED: " + line)
    for line in failures:
        print("FAILED: " + line)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
