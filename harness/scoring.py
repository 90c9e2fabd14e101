"""Scoring: checks on a run view, a scenario's outcome, a run's summary and verdict."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .checks import client_checks
from .journal_view import RunView
from .model import GATING, SEVERITY, CheckResult, Level, Outcome, ScenarioResult


def evaluate(view: RunView) -> list[CheckResult]:
    results = []
    for check in client_checks():
        try:
            results.append(check.evaluate(view, check))
        except Exception as exc:
            results.append(
                CheckResult(
                    check.id,
                    check.level,
                    Outcome.ERROR,
                    f"harness error in check: {type(exc).__name__}: {exc}",
                    check.section,
                )
            )
    return results


def scenario_outcome(checks: list[CheckResult], timed_out: bool, contacted: bool, error: str | None) -> Outcome:
    if error:
        return Outcome.ERROR
    if timed_out:
        return Outcome.TIMEOUT
    if not contacted:
        return Outcome.NO_CONTACT
    judged = [c.outcome for c in checks if c.baseline is None]
    worst = max(judged, key=lambda o: SEVERITY[o], default=Outcome.PASS)
    return worst if SEVERITY[worst] >= SEVERITY[Outcome.PASS] else Outcome.PASS


def gating(outcome: Outcome, strict: bool) -> bool:
    return outcome in GATING or (strict and outcome is Outcome.NON_STRICT)


def level_counts(results: list[ScenarioResult]) -> dict[str, dict[str, int]]:
    """Per level: how many judged checks passed out of how many were judged."""
    counts: dict[str, dict[str, int]] = {
        lvl.value: {"passed": 0, "judged": 0} for lvl in (Level.MUST, Level.SHOULD, Level.MAY)
    }
    for scenario in results:
        for c in scenario.checks:
            if c.level is Level.INFO or c.outcome in (Outcome.SKIPPED, Outcome.UNIMPLEMENTED, Outcome.INFORMATIONAL):
                continue
            counts[c.level.value]["judged"] += 1
            if c.outcome is Outcome.PASS:
                counts[c.level.value]["passed"] += 1
    return counts


def summary(results: list[ScenarioResult], strict: bool) -> dict[str, Any]:
    outcomes = Counter(s.outcome.value for s in results)
    levels = level_counts(results)
    gate_failures = [s.id for s in results if gating(s.outcome, strict)]
    should = levels["SHOULD"]
    # Expected failures (the baseline) are counted as misses in `levels` but never as unexpected ones here.
    baselined = sum(1 for s in results for c in s.checks if c.baseline is not None)
    unjudged = (Outcome.PASS, Outcome.SKIPPED, Outcome.UNIMPLEMENTED, Outcome.INFORMATIONAL)
    must_failed = sum(
        1
        for s in results
        for c in s.checks
        if c.level is Level.MUST and c.outcome not in unjudged and c.baseline is None
    )
    should_missed = sum(
        1
        for s in results
        for c in s.checks
        if c.level is Level.SHOULD and c.outcome is Outcome.NON_STRICT and c.baseline is None
    )
    expected = f"; {baselined} expected failure(s) from the baseline" if baselined else ""
    if gate_failures:
        broken = [s for s in results if s.outcome in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR)]
        verdict = (
            f"not conformant: {must_failed} MUST check(s) failed"
            + (f", {len(broken)} scenario(s) did not complete" if broken else "")
            + expected
        )
    elif baselined:
        verdict = (
            "gate passed: no MUST failed"
            + (f" ({should_missed} SHOULD missed)" if should_missed else "")
            + " beyond the baseline"
            + expected
        )
    elif should["passed"] < should["judged"]:
        verdict = f"conformant: every MUST passed ({should['judged'] - should['passed']} SHOULD missed)"
    else:
        verdict = "conformant: every MUST and SHOULD passed"
    return {
        "outcomes": dict(sorted(outcomes.items())),
        "levels": levels,
        "scenarios": len(results),
        "gate": "failed" if gate_failures else "passed",
        "gate_failures": gate_failures,
        "verdict": verdict,
    }
