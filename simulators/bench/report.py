"""The bench's report: one line per scenario with its first difference, and JUnit XML for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path

from simulators.bench.runner import ScenarioResult

MARKS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "xfail": "XFAIL", "xpass": "XPASS"}


def text_report(results: Sequence[ScenarioResult]) -> str:
    lines = []
    for result in results:
        line = f"{MARKS[result.status]:<5} {result.name} ({result.seconds:.1f} s)"
        if result.status in ("failed", "error"):
            line += f"\n      first difference: {result.first_difference}"
        elif result.status == "xfail":
            line += f"\n      expected to fail: {result.expected_fail}"
            if result.first_difference:
                line += f"\n      first difference: {result.first_difference}"
        elif result.status == "xpass":
            line += f"\n      marked expected_fail ({result.expected_fail}) but passed: remove the mark"
        lines.append(line)
    counts = {status: sum(1 for r in results if r.status == status) for status in MARKS}
    summary = ", ".join(f"{count} {status}" for status, count in counts.items() if count)
    total = sum(result.seconds for result in results)
    lines.append(f"{len(results)} scenario(s): {summary or 'none'} in {total:.1f} s of scenario time")
    return "\n".join(lines)


def junit_xml(results: Sequence[ScenarioResult], *, suite: str = "table-bench") -> str:
    """JUnit XML: a testcase per scenario; a failure's message is its first difference."""
    root = ElementTree.Element("testsuites")
    failures = sum(1 for r in results if r.status in ("failed", "xpass"))
    errors = sum(1 for r in results if r.status == "error")
    skipped = sum(1 for r in results if r.status == "xfail")
    element = ElementTree.SubElement(root, "testsuite", name=suite, tests=str(len(results)), failures=str(failures),
                                     errors=str(errors), skipped=str(skipped),
                                     time=f"{sum(r.seconds for r in results):.3f}")
    for result in results:
        case = ElementTree.SubElement(element, "testcase", classname=suite, name=result.name,
                                      file=result.path, time=f"{result.seconds:.3f}")
        details = "\n".join(str(difference) for difference in result.differences)
        cites = "cites: " + "; ".join(result.cites)
        if result.status == "failed":
            failure = ElementTree.SubElement(case, "failure", message=result.first_difference or "")
            failure.text = f"{details}\n{cites}"
        elif result.status == "error":
            error = ElementTree.SubElement(case, "error", message=result.first_difference or "")
            error.text = cites
        elif result.status == "xpass":
            ElementTree.SubElement(case, "failure",
                                   message=f"expected to fail ({result.expected_fail}) but passed")
        elif result.status == "xfail":
            skipped_element = ElementTree.SubElement(case, "skipped",
                                                     message=f"expected failure: {result.expected_fail}")
            skipped_element.text = details
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(results: Sequence[ScenarioResult], path: str | Path) -> None:
    Path(path).write_text(junit_xml(results), encoding="utf-8")
