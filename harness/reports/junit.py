"""JUnit XML: one testsuite per scenario group, one testcase per scenario x check (a SKIPPED check, whose
situation never arose, only when asked: it is noise in every CI view)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..model import Outcome
from . import escape

_SKIPPING = {Outcome.SKIPPED.value, Outcome.UNIMPLEMENTED.value, Outcome.INFORMATIONAL.value}
_ERRORING = {Outcome.TIMEOUT.value, Outcome.NO_CONTACT.value, Outcome.ERROR.value}


def build(report: dict[str, Any], strict: bool = False, skipped: bool = False) -> ET.Element:
    """From the JSON report, so merged reports convert the same way. `skipped`: list SKIPPED checks too."""
    root = ET.Element("testsuites", name=f"a2a-lab: {report.get('client', '')}".strip())
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for scenario in report["scenarios"]:
        groups[scenario["group"]].append(scenario)
    for group, scenarios in sorted(groups.items()):
        suite = ET.SubElement(root, "testsuite", name=group)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for scenario in scenarios:
            if scenario["outcome"] in _ERRORING:
                case = ET.SubElement(
                    suite, "testcase", classname=scenario["id"], name="(scenario)", time=f"{scenario['duration']:.3f}"
                )
                client = scenario.get("client") or {}
                counts["tests"] += 1
                if scenario.get("baseline"):  # the baseline's "*": an expected failure
                    ET.SubElement(case, "skipped", message=f"expected {scenario['outcome']}: {scenario['baseline']}")
                    counts["skipped"] += 1
                else:
                    err = ET.SubElement(
                        case, "error", type=scenario["outcome"], message=scenario.get("error") or scenario["outcome"]
                    )
                    err.text = (
                        f"exit code: {client.get('exit_code')}\n--- stderr (tail) ---\n{client.get('stderr_tail', '')}"
                    )
                    counts["errors"] += 1
            for check in scenario["checks"]:
                if check["outcome"] == Outcome.SKIPPED.value and not skipped and not check.get("baseline"):
                    continue
                case = ET.SubElement(
                    suite, "testcase", classname=scenario["id"], name=f"{check['id']} [{check['level']}]"
                )
                counts["tests"] += 1
                outcome = check["outcome"]
                text = (
                    f"requirement: {check['requirement']}\nexpected: {check['expected']}\n"
                    f"actual: {check['actual']}\n{check['quote']}"
                )
                if check.get("baseline"):
                    ET.SubElement(case, "skipped", message=f"expected failure: {check['baseline']}")
                    counts["skipped"] += 1
                elif outcome == Outcome.FAIL.value or (strict and outcome == Outcome.NON_STRICT.value):
                    ET.SubElement(case, "failure", type=outcome, message=check["message"]).text = text
                    counts["failures"] += 1
                elif outcome in _SKIPPING or outcome == Outcome.NON_STRICT.value:
                    ET.SubElement(case, "skipped", message=f"{outcome}: {check['message']}")
                    counts["skipped"] += 1
                elif outcome == Outcome.ERROR.value:
                    ET.SubElement(case, "error", type=outcome, message=check["message"])
                    counts["errors"] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
    return _escaped(root)


def _escaped(root: ET.Element) -> ET.Element:
    """Every text and attribute of the tree as XML 1.0 may hold it (escape.xml): a client's stderr, a check's quote
    or a scenario's id can hold any character, and one control character makes the whole file unreadable."""
    for element in root.iter():
        if element.text:
            element.text = escape.xml(element.text)
        for key, value in element.attrib.items():
            element.set(key, escape.xml(value))
    return root


def write(path: Path, report: dict[str, Any], strict: bool = False, skipped: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tree = ET.ElementTree(build(report, strict, skipped))
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)
