"""Spec revision 1.1 (the `dev-1.1` draft, §3.2.7) in the catalogue: spec/v1.1-generations-to-1.0-client (task
generations served to a 1.0 client), spec/v1.1-long-poll (GetTask held on `currentGeneration`) and
spec/generations-unknown (a v1.0.1 server: no generations, which a client must not use). The reference client
passes all three, long-polling where the agent gave a generation; the tests' fake client passes where plain polling
is enough; its defects fail the named checks, and pass the same scenario served at the other revision (so it is the
revision they trip on)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue, builtin_root
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.revisions import SpecRevision

from .catalogue_runs import (
    BOTH_1_0,
    BOTH_ARGS,
    REST,
    REST_ARGS,
    Miss,
    Run,
    assert_misses,
    assert_passes,
    defect,
    explain,
    run,
    run_cases,
)

TO_1_0 = "spec/v1.1-generations-to-1.0-client"
LONG_POLL = "spec/v1.1-long-poll"
UNKNOWN = "spec/generations-unknown"
MATCH = "spec/v1.1-if-generation-match"


def test_the_scenarios_follow_their_revision(catalogue: Catalogue) -> None:
    assert catalogue.get(TO_1_0).spec_revision is SpecRevision.V1_1
    assert catalogue.get(LONG_POLL).spec_revision is SpecRevision.V1_1
    assert catalogue.get(MATCH).spec_revision is SpecRevision.V1_1
    assert catalogue.get(UNKNOWN).spec_revision is SpecRevision.V1_0_1


def test_the_reference_client_passes_them_and_long_polls_where_it_may(catalogue: Catalogue) -> None:
    results, _ = runner.run_all(
        [catalogue.get(sid) for sid in (TO_1_0, LONG_POLL, UNKNOWN, MATCH)],
        runner.RunOptions(presets.resolve("builtin"), jobs=3),
    )
    by_id = {r.id: r for r in results}
    for result in results:
        assert result.outcome is Outcome.PASS, explain(result)
    for sid in (TO_1_0, LONG_POLL):
        polled = by_id[sid].check("GENERATION-LONG-POLL")
        assert polled is not None and polled.outcome is Outcome.PASS, explain(by_id[sid], polled)
        gets = [e for e in by_id[sid].journal if e.get("operation") == "GetTask"]
        assert gets and all('"currentGeneration"' in e["body"]["text"] for e in gets), gets
    sends = [e["body"]["text"] for e in by_id[MATCH].journal if e.get("operation") == "SendMessage"]
    assert len(sends) == 2 and '"ifGenerationMatch":"3"' in sends[1], "the follow-up names generation 3"
    unused = by_id[UNKNOWN].check("GENERATION-UNKNOWN-NOT-USED")
    assert unused is not None and unused.outcome is Outcome.SKIPPED, explain(by_id[UNKNOWN], unused)
    gets = [e for e in by_id[UNKNOWN].journal if e.get("operation") == "GetTask"]
    assert gets and not any("currentGeneration" in e["body"]["text"] for e in gets), "no long-poll without a generation"


CORRECT = [
    run(TO_1_0, *BOTH_ARGS, supports=BOTH_1_0),
    run(TO_1_0, *REST_ARGS, supports=REST),
    run(UNKNOWN, *BOTH_ARGS, supports=BOTH_1_0),
    run(MATCH, *BOTH_ARGS, supports=BOTH_1_0),
    # A stale precondition (a task moved since it was read), refused, re-read with GetTask, answered again.
    defect(MATCH, "stale-generation", *BOTH_ARGS, supports=BOTH_1_0),
]
BLIND = defect(MATCH, "stale-generation", "--defect", "mismatch-blind-retry", *BOTH_ARGS, supports=BOTH_1_0)
#: Plain polling on the long-poll scenario: not a miss, but not what the scenario exists for.
PLAIN = run(LONG_POLL, *BOTH_ARGS, supports=BOTH_1_0)

MISSES = [
    Miss(defect(TO_1_0, "reject-unknown-fields", *BOTH_ARGS, supports=BOTH_1_0), "RESULT-EXPECTED", says="kind: task"),
    Miss(defect(UNKNOWN, "assume-generations", *BOTH_ARGS, supports=BOTH_1_0), "GENERATION-UNKNOWN-NOT-USED"),
    # The follow-up names generation 2 of a task at 3, and is sent again as it was: refused twice with -32010, the
    # task never completes for it, and it never re-read the task.
    Miss(BLIND, "GENERATION-MISMATCH-REFETCH", Outcome.NON_STRICT, says="without re-reading"),
    Miss(BLIND, "RESULT-EXPECTED", says="kind: task"),
    Miss(
        defect(LONG_POLL, "generation-ahead", *BOTH_ARGS, supports=BOTH_1_0),
        "GENERATION-LONG-POLL",
        Outcome.INFORMATIONAL,
        says="above every generation",
    ),
]


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT, PLAIN, *(m.run for m in MISSES)])


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    assert_passes(results[case])
    if "stale-generation" in case.args:
        check = results[case].check("GENERATION-MISMATCH-REFETCH")
        assert check is not None and check.outcome is Outcome.PASS, explain(results[case], check)
        sends = [e for e in results[case].journal if e.get("operation") == "SendMessage"]
        assert [e["answer"]["result_kind"] for e in sends] == ["task", "error", "task"], sends


def test_plain_polling_is_unimplemented_on_the_long_poll_check(results: dict[Run, ScenarioResult]) -> None:
    """A MAY: plain polling is no miss, and the scenario passes on the result the client reads."""
    result = results[PLAIN]
    check = result.check("GENERATION-LONG-POLL")
    assert check is not None and check.outcome is Outcome.UNIMPLEMENTED, explain(result, check)
    assert "none with currentGeneration" in check.message
    assert_passes(result)


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_fails_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


#: The defects that trip on the revision, and the revision each passes at.
TWINS = {MISSES[0].run: ('spec_revision: "1.1"', 'spec_revision: "1.0.1"'), MISSES[1].run: ('"1.0.1"', '"1.1"')}


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    """The scenarios of the first two misses served at the other revision."""
    root = tmp_path_factory.mktemp("twins")
    for r, (was, now) in TWINS.items():
        target = root / f"{r.scenario}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(builtin_root() / f"{r.scenario}.yaml", target)
        text = target.read_text(encoding="utf-8")
        assert was in text
        target.write_text(text.replace(was, now), encoding="utf-8")
    loaded = Catalogue.load(Path(root))
    assert not loaded.broken
    assert {s.id: s.spec_revision for s in loaded.scenarios.values()} == {
        TO_1_0: SpecRevision.V1_0_1,
        UNKNOWN: SpecRevision.V1_1,
    }
    return loaded


def test_the_defects_trip_on_the_revision_only(twins: Catalogue) -> None:
    """A strict 1.0 reader passes the same server at v1.0.1 (no generation to refuse); a client that long-polls
    from generation 1 passes a 1.1 server (which gave the task generation 1 first)."""
    twin_results = run_cases(twins, list(TWINS))
    for r in TWINS:
        assert_passes(twin_results[r])
    used = twin_results[MISSES[1].run].check("GENERATION-UNKNOWN-NOT-USED")
    assert used is not None and used.outcome is Outcome.PASS, explain(twin_results[MISSES[1].run], used)
