"""Verdicts from the wire alone (issue 12 point 3): most real clients write no A2A_LAB_RESULT.

A scenario exists to catch a client defect. Where the defect shows in the requests a client sends, a client with
that defect and no result file must miss a named check (WIRE). Where it cannot show (the defect is a conclusion the
client draws and keeps to itself), the scenario must say so in its description, and a wire-only client, defective or
not, gets UNIMPLEMENTED: never PASS (SELF_REPORT_ONLY). Every catalogue scenario whose purpose checks would otherwise
all be self-reported (RESULT-EXPECTED, RESULT-MATCHES) is in one of the two tables.
"""

from __future__ import annotations

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Support
from a2a_lab.protocol.versions import Version

from .catalogue_runs import REST, REST_ARGS, Miss, Run, assert_misses, defect, explain, run_cases

#: The checks that only a client's own A2A_LAB_RESULT can satisfy.
SELF_REPORTED = {"RESULT-EXPECTED", "RESULT-MATCHES"}
NO_RESULT = "--no-result"

#: Scenario -> the wire-only defective client and the check that catches it on the wire.
WIRE = {
    "errors/wrong-response-id": Miss(
        defect("errors/wrong-response-id", "lax-response", NO_RESULT), "INVALID-ANSWER-IGNORED"
    ),
    "errors/result-and-error": Miss(
        defect("errors/result-and-error", "lax-response", NO_RESULT), "INVALID-ANSWER-IGNORED"
    ),
    "faults/never-answers": Miss(
        defect("faults/never-answers", "no-timeout", NO_RESULT), "GIVES-UP", Outcome.NON_STRICT, "still waiting"
    ),
    "discovery/unknown-fields": Miss(
        defect("discovery/unknown-fields", "reject-unknown-fields", NO_RESULT),
        "INTERFACE-SELECTION",
        Outcome.NON_STRICT,
        "SHOULD be ignored",
    ),
}

#: Scenario -> the defect it exists for, which no request shows: a wire-only client is not judged there.
SELF_REPORT_ONLY = {
    "errors/neither-result-nor-error": "assume-success",
    "errors/non-json-body": "assume-success",
    "errors/html-500-page": "assume-success",
    "errors/proxy-502": "assume-success",
    "errors/internal-error": "assume-success",
    "errors/content-type-not-supported": "assume-success",
    "errors/v1.0.0-content-type-415": "assume-success",
    "faults/truncated-body": "assume-success",
    "faults/connection-reset": "assume-success",
    "faults/latency": "impatient",
    "faults/slow-drip": "impatient",
    "grpc/status-details-missing": "assume-success",
    "grpc/trailers-only": "assume-success",
    "quirks/stream-as-ndjson": "assume-success",
    "quirks/stream-events-without-jsonrpc-envelope": "assume-success",
    "quirks/stream-error-as-plain-json": "assume-success",
    "quirks/accepted-output-modes-required": "assume-success",
    "quirks/v03-result-under-v1-method": "assume-success",
    "quirks/history-length-ignored": "history-reply",
    "quirks/task-failed-without-message": "failure-as-empty-success",
    "quirks/task-canceled-without-message": "failure-as-empty-success",
    "quirks/task-rejected-without-message": "failure-as-empty-success",
    "responses/completed-answer-in-status-message": "artifacts-only",
}

#: Time limit per run: above the fake client's 5 s read timeout, short for the client that hangs.
TIMEOUT_S = 8.0


#: Scenarios whose card offers HTTP+JSON only: the fake client speaks it there.
REST_ONLY = {"errors/v1.0.0-content-type-415"}
#: Scenarios whose card offers gRPC only: the fake client speaks it there.
GRPC_ONLY_IDS = {"grpc/status-details-missing", "grpc/trailers-only"}
GRPC_ONLY: tuple[Support, ...] = ((Binding.GRPC, Version.V1_0),)


def _wire_only(sid: str, *args: str) -> Run:
    """A run of the fake client (with these arguments) that writes no A2A_LAB_RESULT."""
    if sid in REST_ONLY:
        return Run(sid, (*args, NO_RESULT, *REST_ARGS), REST)
    if sid in GRPC_ONLY_IDS:
        return Run(sid, (*args, NO_RESULT, "--binding", "grpc"), GRPC_ONLY)
    return Run(sid, (*args, NO_RESULT))


def _runs() -> list[Run]:
    wire_only = [m.run for m in WIRE.values()]
    wire_only += [_wire_only(sid, "--defect", name) for sid, name in SELF_REPORT_ONLY.items()]
    correct = [_wire_only(sid) for sid in [*WIRE, *SELF_REPORT_ONLY]]
    return wire_only + correct


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, _runs(), timeout=TIMEOUT_S)


def test_every_self_reported_scenario_is_classified(catalogue: Catalogue) -> None:
    """A scenario judged only by self-report checks is either caught on the wire or says it cannot be."""
    unclassified = sorted(
        sid
        for sid in catalogue.ids()
        if catalogue.get(sid).checks
        and set(catalogue.get(sid).checks) <= SELF_REPORTED
        and sid not in WIRE
        and sid not in SELF_REPORT_ONLY
    )
    assert not unclassified, (
        f"add these to WIRE (a wire-only defective client misses a check) or SELF_REPORT_ONLY: {unclassified}"
    )
    for sid, miss in WIRE.items():
        assert miss.check in catalogue.get(sid).checks, f"{sid}: list {miss.check} in its checks"


@pytest.mark.parametrize("sid", sorted(WIRE))
def test_a_wire_only_defective_client_fails(sid: str, results: dict[Run, ScenarioResult]) -> None:
    miss = WIRE[sid]
    assert_misses(miss, results[miss.run])


@pytest.mark.parametrize("sid", sorted(SELF_REPORT_ONLY))
def test_where_the_wire_cannot_tell_nothing_passes(
    sid: str, catalogue: Catalogue, results: dict[Run, ScenarioResult]
) -> None:
    assert "A2A_LAB_RESULT" in catalogue.get(sid).description, f"{sid}: its description must say it needs self-report"
    for r in (_wire_only(sid, "--defect", SELF_REPORT_ONLY[sid]), _wire_only(sid)):
        result = results[r]
        assert result.outcome is Outcome.UNIMPLEMENTED, explain(result)
        expected = result.check("RESULT-EXPECTED")
        assert expected is not None and expected.outcome is Outcome.UNIMPLEMENTED, explain(result, expected)


@pytest.mark.parametrize("sid", sorted(WIRE))
def test_a_wire_only_correct_client_is_never_failed(sid: str, results: dict[Run, ScenarioResult]) -> None:
    """Without a result file a correct client is not judged on its conclusion, and nothing on the wire fails it."""
    result = results[_wire_only(sid)]
    assert result.outcome in (Outcome.PASS, Outcome.UNIMPLEMENTED), explain(result)
