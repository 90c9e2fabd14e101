"""Scoring: checks on a run view, a scenario's outcome, a run's summary and verdict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any

from a2a_lab.harness.client_judging import causes
from a2a_lab.harness.client_judging.checks import client_checks
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.common.model import (
    GATING,
    NONE,
    REACHED,
    REFUSED,
    REFUSED_CARD,
    CheckResult,
    Level,
    Outcome,
    ScenarioResult,
)
from a2a_lab.harness.common.outcome import Subject


def evaluate(view: RunView, only: Collection[str] | None = None) -> list[CheckResult]:
    """Every client check on the view, in report order, each miss that another explains marked with its cause
    (causes.annotate); `only`: just the checks of these ids (the proxy's)."""
    results = []
    for check in client_checks():
        if only is not None and check.id not in only:
            continue
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
                    rule=check.rule,
                    fix=check.fix,
                )
            )
    return causes.annotate(results)


def subject_of(view: RunView) -> Subject:
    """What a run shows of its scenario's subject."""
    reached = bool(view.calls)
    crash = view.crash()
    # Leaving the agent alone is correct where the scenario allows it, or where the card offers a client of known
    # generation and bindings nothing it speaks (the card's gap: INTERFACE-SELECTION passes the refusal).
    unusable = bool(view.supports) and (view.card_gap is not None or view.expected_interface() is None)
    refused = not reached and (view.expect.no_call_allowed or unusable) and crash is None and not view.client_timed_out
    if reached or refused:
        # A refusal of a readable card that offers the client nothing it speaks (its gap) is a refusal for the card's
        # generation or binding, even where the scenario allows leaving the agent alone for a reason of its own (a
        # tampered signature): the scenario's reason was not what the client judged. No card served (a 404) or one
        # no client can read (malformed) is the scenario's own reason.
        readable = view.card_served and isinstance(view.card, dict)
        gap = unusable and (readable or not view.expect.no_call_allowed)
        return Subject(reached, refused, card_refusal=refused and gap)
    if view.expect.no_call_allowed or unusable:
        missing = "the client crashed before any call: a refusal for the scenario's reason is not shown" + (
            view.ending()
        )
    else:
        missing = "the client never called the agent" + view.ending()
    return Subject(reached, refused, missing)


def gating(outcome: Outcome, strict: bool) -> bool:
    return outcome in GATING or (strict and outcome is Outcome.NON_STRICT)


def level_counts(results: list[ScenarioResult]) -> dict[str, dict[str, int]]:
    """Per level: how many judged checks passed out of how many were judged; apart, how many judged nothing
    (SKIPPED: the situation did not arise; UNIMPLEMENTED: the client did not attempt it)."""
    counts: dict[str, dict[str, int]] = {
        lvl.value: {"passed": 0, "judged": 0, "skipped": 0, "unimplemented": 0}
        for lvl in (Level.MUST, Level.SHOULD, Level.MAY)
    }
    for scenario in results:
        for c in scenario.checks:
            if c.level is Level.INFO or c.outcome is Outcome.INFORMATIONAL:
                continue
            if c.outcome is Outcome.SKIPPED:
                counts[c.level.value]["skipped"] += 1
                continue
            if c.outcome is Outcome.UNIMPLEMENTED:
                counts[c.level.value]["unimplemented"] += 1
                continue
            counts[c.level.value]["judged"] += 1
            if c.outcome is Outcome.PASS:
                counts[c.level.value]["passed"] += 1
    return counts


def subjects(results: list[ScenarioResult]) -> dict[str, Any]:
    """How many scenarios were judged on their subject (the client reached the agent, or refused where the scenario
    asks it to), how many were correct refusals of a card for another generation or binding (their subjects not
    judged: which ones), and how many showed neither."""
    refused_card = [s.id for s in results if s.subject == REFUSED_CARD]
    return {
        "judged": sum(1 for s in results if s.subject in (REACHED, REFUSED)),
        "refused_card": len(refused_card),
        "none": sum(1 for s in results if s.subject == NONE),
        "not_judged": refused_card,
    }


def summary(results: list[ScenarioResult], strict: bool) -> dict[str, Any]:
    outcomes = Counter(s.outcome.value for s in results)
    levels = level_counts(results)
    gate_failures = [s.id for s in results if gating(s.outcome, strict) and s.baseline is None]
    should = levels["SHOULD"]
    # Expected failures (the baseline) are counted as misses in `levels` but never as unexpected ones here.
    baselined = sum(1 for s in results for c in s.checks if c.baseline is not None) + sum(
        1 for s in results if s.baseline is not None
    )
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
    shown = sum(1 for s in results if s.outcome is Outcome.UNIMPLEMENTED)
    unshown = f"; {shown} scenario(s) UNIMPLEMENTED (nothing the client did there could be judged)" if shown else ""
    # The evidence floor for the whole run: a client seen doing nothing in any scenario is not conformant, whatever
    # else held (nothing failed because nothing happened).
    # (A scenario the baseline expects to fail excuses it.)
    silent = not gate_failures and bool(results) and all(s.subject == NONE for s in results)
    if silent:
        gate_failures = [s.id for s in results if s.baseline is None]
    never_started = [s for s in results if s.client is not None and s.client.start_error]
    if silent and gate_failures:
        verdict = (
            f"not conformant: the client did nothing any of the {len(results)} scenario(s) could judge (it reached "
            "the agent in none, and refused none where a correct client may)"
        )
    elif gate_failures:
        broken = [
            s
            for s in results
            if s.outcome in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR) and s.baseline is None
        ]
        if never_started and len(never_started) == len(results) and never_started[0].client is not None:
            verdict = f"not conformant: the client never started ({never_started[0].client.start_error})"
        else:
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
            + unshown
        )
    elif should["passed"] < should["judged"]:
        verdict = f"conformant: every MUST passed ({should['judged'] - should['passed']} SHOULD missed)" + unshown
    else:
        verdict = "conformant: every MUST and SHOULD passed" + unshown
    return {
        "outcomes": dict(sorted(outcomes.items())),
        "levels": levels,
        "scenarios": len(results),
        "gate": "failed" if gate_failures else "passed",
        "gate_failures": gate_failures,
        "verdict": verdict,
        "subjects": subjects(results),
    }
