"""Runs the unittest suite beside this file and, when Bazel asks for one ($XML_OUTPUT_FILE),
writes a JUnit XML report with one <testcase> per test method, so that tools/test counts them.

    python3 junit_runner.py          # exit status 0 when every test passed
"""
import os
import sys
import unittest
import xml.etree.ElementTree as ET


class RecordingResult(unittest.TextTestResult):
    """A TextTestResult that also keeps each test's outcome: None (passed), or a kind and text."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}

    def _note(self, test, kind, text):
        if self.outcomes.get(test.id()) is None:
            self.outcomes[test.id()] = (kind, text)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.setdefault(test.id(), None)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, "failure", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, "error", self._exc_info_to_string(err, test))

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is None:
            self.outcomes.setdefault(test.id(), None)
        else:
            self._note(test, "failure", self._exc_info_to_string(err, subtest))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[test.id()] = ("skipped", reason)


def write_junit(path, outcomes):
    suite = ET.Element("testsuite", name="python", tests=str(len(outcomes)))
    for test_id, outcome in sorted(outcomes.items()):
        classname, _, name = test_id.rpartition(".")
        case = ET.SubElement(suite, "testcase", classname=classname, name=name)
        if outcome is not None:
            kind, text = outcome
            element = ET.SubElement(case, kind, message=text.strip().splitlines()[-1])
            element.text = text
            if kind == "skipped":
                case.set("result", "skipped")
    root = ET.Element("testsuites")
    root.append(suite)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=RecordingResult)
    result = runner.run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        write_junit(os.environ["XML_OUTPUT_FILE"], result.outcomes)
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
