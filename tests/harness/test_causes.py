"""Causes before symptoms (harness/client_judging/causes.py): one table orders and annotates; the verdict never
moves."""

from __future__ import annotations

from a2a_lab.harness.client_judging import causes
from a2a_lab.harness.client_judging.checks import client_checks
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.harness.common.outcome import scenario_outcome


def _result(check_id: str, outcome: Outcome, level: Level = Level.MUST) -> CheckResult:
    return CheckResult(check_id, level, outcome, f"{check_id} said so")


def test_every_check_has_one_stage_and_every_cause_comes_before_its_symptom() -> None:
    staged = [c for stage in causes.STAGES for c in stage.checks]
    assert sorted(staged) == sorted(c.id for c in client_checks())  # each exactly once
    for symptom, explained_by in causes.SYMPTOMS.items():
        assert symptom in causes.RANK
        for cause in explained_by:
            assert causes.rank(cause) < causes.rank(symptom), (cause, symptom)


def test_a_symptom_names_its_earliest_missed_cause_and_keeps_its_outcome_and_level() -> None:
    checks = [
        _result("RESULT-EXPECTED", Outcome.FAIL),
        _result("METHOD-MATCHES-INTERFACE", Outcome.FAIL),
        _result("INTERFACE-SELECTION", Outcome.NON_STRICT, Level.SHOULD),
        _result("CARD-DISCOVERY", Outcome.PASS),
    ]
    annotated = causes.annotate(checks)
    by_id = {c.id: c for c in annotated}
    assert by_id["RESULT-EXPECTED"].follows_from == "INTERFACE-SELECTION"
    assert (by_id["RESULT-EXPECTED"].outcome, by_id["RESULT-EXPECTED"].level) == (Outcome.FAIL, Level.MUST)
    assert by_id["INTERFACE-SELECTION"].follows_from is None  # CARD-DISCOVERY passed: nothing explains it
    assert [c.id for c in causes.cause_first(annotated)] == [
        "CARD-DISCOVERY",
        "INTERFACE-SELECTION",
        "METHOD-MATCHES-INTERFACE",
        "RESULT-EXPECTED",
    ]
    # The verdict is the same with or without the annotation: the gate never moves.
    assert scenario_outcome(annotated, False, True, None) is scenario_outcome(checks, False, True, None)


def test_a_harness_error_explains_nothing_and_a_passing_check_follows_from_nothing() -> None:
    annotated = causes.annotate(
        [_result("VERSION-HEADER", Outcome.ERROR), _result("VERSION-MATCHES-METHOD", Outcome.FAIL)]
    )
    assert [c.follows_from for c in annotated] == [None, None]
    annotated = causes.annotate(
        [_result("VERSION-HEADER", Outcome.FAIL), _result("VERSION-MATCHES-METHOD", Outcome.PASS)]
    )
    assert [c.follows_from for c in annotated] == [None, None]


def test_a_check_the_table_does_not_know_keeps_its_place_after_the_known_ones() -> None:
    checks = [_result("SEND-MESSAGE", Outcome.FAIL), _result("CARD-VALID", Outcome.FAIL)]
    assert causes.cause_first(checks) == checks
    assert causes.annotate(checks) == checks
