"""JUnit XML: one testsuite per scenario group, one testcase per scenario x check (a SKIPPED check, whose
situation never arose, only when asked: it is noise in every CI view)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from a2a_lab.harness.common import escape
from a2a_lab.harness.common.model import REACHED, REFUSED, REFUSED_CARD, Outcome
from a2a_lab.harness.reports.failure import more_command

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
        _subjects(suite, scenarios)
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
                text = failure_text(check, more_command(scenario["id"], scenario["group"]))
                message = said(check)
                if check.get("baseline"):
                    ET.SubElement(case, "skipped", message=f"expected failure: {check['baseline']}")
                    counts["skipped"] += 1
                elif outcome == Outcome.FAIL.value or (strict and outcome == Outcome.NON_STRICT.value):
                    ET.SubElement(case, "failure", type=outcome, message=message).text = text
                    counts["failures"] += 1
                elif outcome == Outcome.NON_STRICT.value:
                    ET.SubElement(case, "skipped", message=f"{outcome}: {message}").text = text
                    counts["skipped"] += 1
                elif outcome in _SKIPPING:
                    ET.SubElement(case, "skipped", message=f"{outcome}: {check['message']}")
                    counts["skipped"] += 1
                elif outcome == Outcome.ERROR.value:
                    ET.SubElement(case, "error", type=outcome, message=check["message"])
                    counts["errors"] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
    return _escaped(root)


def _subjects(suite: ET.Element, scenarios: list[dict[str, Any]]) -> None:
    """The group's scenarios judged on their subject, apart from correct refusals of a card for another generation or
    binding (their subjects not judged), as the suite's properties; none where there were no such refusals."""
    refused = [s["id"] for s in scenarios if s.get("subject") == REFUSED_CARD]
    if not refused:
        return
    judged = sum(1 for s in scenarios if s.get("subject") in (REACHED, REFUSED))
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("judged on their subject", str(judged)),
        ("correct refusals of a card for another generation or binding", str(len(refused))),
        ("subjects not judged", ", ".join(refused)),
    ):
        ET.SubElement(properties, "property", name=name, value=value)


def said(check: dict[str, Any]) -> str:
    """A miss's one line (a CI view shows it first): its message, the cause it follows from, its fix."""
    follows = f" (follows from {check['follows_from']}: fix that first)" if check.get("follows_from") else ""
    head = f"{check['message']}{follows}"
    return f"{head.rstrip('.')}. Fix: {check['fix']}" if check.get("fix") else head


def failure_text(check: dict[str, Any], more: str | None) -> str:
    """A miss in full, as the console gives it: the cause, the rule, the spec section, what the client did, the fix,
    the full requirement and where the scenario's story is told (a report written before rules were kept has none)."""
    lines = [f"follows from {check['follows_from']}: fix that first"] if check.get("follows_from") else []
    lines += [f"rule: {check['rule']}"] if check.get("rule") else []
    lines += [f"spec: {check['section']}"] if check.get("section") else []
    lines += [f"expected: {check.get('expected', '')}", f"actual: {check.get('actual', '')}"]
    lines += [check["quote"]] if check.get("quote") else []
    lines += [f"fix: {check['fix']}"] if check.get("fix") else []
    lines += [f"requirement: {check['requirement']}"] if check.get("requirement") else []
    lines += [f"more: {more}"] if more else []
    return "\n".join(lines)


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
