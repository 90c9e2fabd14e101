"""ACTS results as reports: the ACTS JSON report (§13, one per binding run, with §12.7's conformance summary), and the
same results as a2a-lab's result model (one scenario per test and binding, one check named by the test id), so the
console scorecard, the JSON, JUnit and HTML reports, the baseline and the exit codes are a2a-lab's own.
"""

from __future__ import annotations

import platform
from collections import Counter
from dataclasses import asdict
from datetime import datetime
from importlib import metadata
from typing import Any

from a2a_lab.harness.acts.document import ACTS_SPEC, LEVELS, Test
from a2a_lab.harness.acts.runner import SKIP_KINDS, BindingRun, TestResult
from a2a_lab.harness.common.model import REACHED, CheckResult, Level, Outcome, ScenarioResult
from a2a_lab.harness.server_judging.probe.definitions import ProbeCheck

_LEVEL = {"must": Level.MUST, "should": Level.SHOULD, "may": Level.MAY}
_MISS = {"must": Outcome.FAIL, "should": Outcome.NON_STRICT, "may": Outcome.INFORMATIONAL}


def lab_version() -> str:
    try:
        return metadata.version("a2a-lab")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout without installing
        return "0"


def counts(results: list[TestResult]) -> dict[str, int]:
    """§13.2 level-summary counts."""
    out = {"total": len(results), "passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    key = {"pass": "passed", "fail": "failed", "skip": "skipped", "error": "errors"}
    for result in results:
        out[key[result.result]] += 1
    return out


def summary_lines(results: list[TestResult]) -> list[str]:
    """§12.7's conformance summary: `MUST:   45/47 passed (2 skipped)` per level."""
    lines = []
    for level in LEVELS:
        c = counts([r for r in results if r.test.level == level])
        extra = [
            f"{c[k]} {word}"
            for k, word in (("failed", "failed"), ("errors", "error(s)"), ("skipped", "skipped"))
            if c[k]
        ]
        lines.append(
            f"{level.upper() + ':':8}{c['passed']}/{c['total']} passed" + (f" ({', '.join(extra)})" if extra else "")
        )
    return lines


def skip_line(results: list[TestResult]) -> str:
    """The skips of a run by kind (runner.SKIP_KINDS), MUST level first: the line to compare with other runners."""
    parts = []
    for level in LEVELS:
        skipped = [r for r in results if r.test.level == level and r.result == "skip" and not r.unimplemented]
        kinds = Counter(r.skip_kind or "runner" for r in skipped)
        said = ", ".join(f"{kinds[k]} {k}" for k in SKIP_KINDS if kinds[k])
        parts.append(f"{level.upper()} {len(skipped)}" + (f" ({said})" if said else ""))
    return "skipped: " + "; ".join(parts)


def conformant(results: list[TestResult]) -> bool:
    """§12.7: conformant iff every must-level test that ran passed."""
    return all(r.result in ("pass", "skip") for r in results if r.test.level == "must")


def acts_report(run: BindingRun, spec_version: str, generated: datetime, sdk: dict[str, str]) -> dict[str, Any]:
    """The §13 report of one binding run."""
    by_level = {level: counts([r for r in run.results if r.test.level == level]) for level in LEVELS}
    suites: dict[str, dict[str, Any]] = {}
    for result in run.results:
        suite = suites.setdefault(result.test.suite, {"id": result.test.suite, "name": result.test.suite, "tests": []})
        suite["tests"].append(_test_json(result))
    return {
        "acts_version": ACTS_SPEC,
        "spec_version": spec_version,
        "generated_at": generated.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sdk": sdk,
        "transport": run.transport,
        "environment": {
            "runner": f"a2a-lab {lab_version()}",
            "runtime": f"python {platform.python_version()}",
            "os": platform.system().lower(),
            "url": run.url,
        },
        "summary": {
            **counts(run.results),
            "duration_ms": run.duration_ms,
            "by_level": by_level,
            "skipped_by_category": {
                level: {
                    kind: sum(1 for r in run.results if r.test.level == level and r.skip_kind == kind)
                    for kind in SKIP_KINDS
                }
                for level in LEVELS
            },
        },
        "suites": list(suites.values()),
    }


def _test_json(result: TestResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": result.test.id,
        "name": result.test.name,
        "level": result.test.level,
        "result": result.result,
        "duration_ms": result.duration_ms,
    }
    if result.skip_reason:
        out["skip_reason"] = result.skip_reason
    if result.skip_kind:
        out["skip_category"] = result.skip_kind
    if result.failure is not None:
        out["failure"] = {k: v for k, v in asdict(result.failure).items() if v}
    if result.steps:
        out["steps"] = [
            {"id": s.id, "result": s.result, "duration_ms": s.duration_ms}
            | ({"failure": {k: v for k, v in asdict(s.failure).items() if v}} if s.failure else {})
            for s in result.steps
        ]
    return out


def report_name(sdk: str, transport: str, generated: datetime) -> str:
    """§13.5: acts-report-{sdk}-{transport}-{timestamp}.json."""
    safe = "".join(ch if ch.isalnum() or ch in "-._" else "-" for ch in sdk) or "sut"
    return f"acts-report-{safe}-{transport}-{generated.strftime('%Y%m%dT%H%M%SZ')}.json"


# ------------------------------------------------------------------------------------------------ a2a-lab's model


def check_of(test: Test) -> ProbeCheck:
    """An ACTS test as a check definition the reports list (id, level, section, requirement)."""
    section = test.spec_ref or test.doc_spec_ref or "ACTS " + ACTS_SPEC
    return ProbeCheck(test.id, _LEVEL[test.level], section, test.name, test.description or test.name)


def scenario_results(runs: list[BindingRun]) -> list[ScenarioResult]:
    """One ScenarioResult per test and binding (`acts/<transport>/<test id>`), its one check the test's verdict."""
    out = []
    for run in runs:
        for result in run.results:
            check = _check(result)
            out.append(
                ScenarioResult(
                    id=f"acts/{run.name}/{result.test.id}",
                    title=result.test.name,
                    group=f"acts/{run.name}",
                    outcome=check.outcome,
                    checks=[check],
                    client=None,
                    seed=0,
                    duration=result.duration_ms / 1000,
                    error=result.failure.message if result.result == "error" and result.failure else None,
                    subject=REACHED if result.result != "skip" or result.unimplemented else None,
                )
            )
    return out


def _check(result: TestResult) -> CheckResult:
    test, failure = result.test, result.failure
    definition = check_of(test)
    if result.result == "pass":
        steps = ", ".join(s.id for s in result.steps)
        return definition.result(Outcome.PASS, f"{test.name}: every step held ({steps})")
    if result.unimplemented:
        return definition.result(Outcome.UNIMPLEMENTED, result.skip_reason)
    if result.result == "skip":
        return definition.result(Outcome.SKIPPED, result.skip_reason)
    assert failure is not None
    outcome = Outcome.ERROR if result.result == "error" else _MISS[test.level]
    check = definition.result(outcome, failure.message, failure.expected, failure.actual)
    check.quote = result.quote
    return check
