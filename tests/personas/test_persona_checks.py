"""The personas' `checks:`: a correct client passes each persona, and a client with the defect each persona
catches misses the named check there (the fake client of tests/harness/clients, through the real harness)."""

from __future__ import annotations

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import ScenarioResult

from ..scenarios import catalogue_runs
from ..scenarios.catalogue_runs import Miss, Run, assert_misses, assert_passes, defect, run

PERSONAS = ("personas/a2a-sdk-python-1.3", "personas/a2a-sdk-python-0.3", "personas/a2a-js-1.3")
CORRECT = [run(sid) for sid in PERSONAS] + [run("personas/a2a-sdk-python-0.3", "--generation", "0.3")]
MISSES = [
    # a 1.0 call without A2A-Version is read as 0.3 and refused with -32009, as the SDK server does
    Miss(defect("personas/a2a-sdk-python-1.3", "no-header"), "VERSION-HEADER"),
    # a 1.0 call without A2A-Version goes to the JS SDK's 0.3 layer, which knows no SendMessage (-32601)
    Miss(defect("personas/a2a-js-1.3", "no-header"), "VERSION-HEADER"),
    # the genuine 0.3 server knows no SendMessage (-32601)
    Miss(defect("personas/a2a-sdk-python-0.3", "v1-method-on-v03"), "METHOD-MATCHES-INTERFACE"),
]


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return catalogue_runs.run_cases(catalogue, [*CORRECT, *(m.run for m in MISSES)])


def test_each_persona_names_the_checks_its_defect_misses(catalogue: Catalogue) -> None:
    for miss in MISSES:
        assert miss.check in catalogue.get(miss.run.scenario).checks, miss


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    assert_passes(results[case])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_misses_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])
