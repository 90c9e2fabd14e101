"""Servers of spec revision v1.0.0 (notes D3, D5), which clients must still read: spec/v1.0.0-server,
errors/v1.0.0-*, and the TCK's system under test (the TCK tests v1.0.0). Each answers as it describes over real HTTP;
the reference client and a correct fake client pass them; the defects they exist for fail the named check, and pass
the same scenario served as v1.0.1 (so it is the revision they trip on)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue, builtin_root
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.revisions import SpecRevision

from .catalogue_runs import REST, REST_ARGS, Miss, Run, assert_misses, assert_passes, defect, explain, run, run_cases

V1 = {"A2A-Version": "1.0"}
MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
SERVER = "spec/v1.0.0-server"
CT_415 = "errors/v1.0.0-content-type-415"
IAR_502 = "errors/v1.0.0-invalid-agent-response-502"
TCK = ("spec/tck-sut", "spec/tck-sut-no-capabilities")
OURS = (SERVER, CT_415, IAR_502)


def status_error(resp: Any, status: int, reason: str) -> dict[str, Any]:
    assert (resp.status_code, resp.headers["content-type"]) == (status, "application/json"), resp.text
    error: dict[str, Any] = resp.json()["error"]
    assert error["code"] == status and error["details"][0]["reason"] == reason
    return error


# ------------------------------------------------------------------------------------ served as described


def test_the_scenarios_follow_v1_0_0(catalogue: Catalogue) -> None:
    for sid in (*OURS, *TCK):
        assert catalogue.get(sid).spec_revision is SpecRevision.V1_0_0, sid
        assert "v1.0.0" in catalogue.get(sid).description, f"{sid}: its description says which revision it follows"
    assert catalogue.get("spec/conformant").spec_revision is SpecRevision.V1_0_1, "the default"


def test_v1_0_0_server(serve: Callable[[str], Any]) -> None:
    s = serve(SERVER)
    sent = s.http.post("/a2a/rest/message:send", json=MESSAGE, headers=V1)
    assert (sent.status_code, sent.headers["content-type"]) == (200, "application/json")
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    states = [s.http.get(f"/a2a/rest/tasks/{task['id']}", headers=V1) for _ in range(2)]
    assert {r.headers["content-type"] for r in states} == {"application/json"}
    done = states[-1].json()
    assert done["status"]["state"] == "TASK_STATE_COMPLETED" and done["artifacts"][0]["parts"] == [
        {"text": "filed: hi"}
    ]
    status_error(s.http.post(f"/a2a/rest/tasks/{task['id']}:cancel", json={}, headers=V1), 409, "TASK_NOT_CANCELABLE")
    plain = s.http.post("/a2a/rest/message:send", content=b"{}", headers={**V1, "content-type": "text/plain"})
    status_error(plain, 415, "CONTENT_TYPE_NOT_SUPPORTED")


def test_content_type_415(serve: Callable[[str], Any]) -> None:
    s = serve(CT_415)
    for _ in range(2):
        sent = s.http.post("/a2a/rest/message:send", json=MESSAGE, headers=V1)
        assert "application/pdf" in status_error(sent, 415, "CONTENT_TYPE_NOT_SUPPORTED")["message"]


def test_invalid_agent_response_502(serve: Callable[[str], Any]) -> None:
    s = serve(IAR_502)
    task = s.http.post("/a2a/rest/message:send", json=MESSAGE, headers=V1).json()["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    got = s.http.get(f"/a2a/rest/tasks/{task['id']}", headers=V1)
    assert status_error(got, 502, "INVALID_AGENT_RESPONSE")["status"] == "INTERNAL"


@pytest.mark.parametrize("sid", TCK)
def test_the_tck_sut_answers_http_json_as_v1_0_0(serve: Callable[[str], Any], sid: str) -> None:
    s = serve(sid)
    plain = s.http.post("/a2a/rest/message:send", content=b"{}", headers={**V1, "content-type": "text/plain"})
    status_error(plain, 415, "CONTENT_TYPE_NOT_SUPPORTED")  # HTTP_JSON-STATUS-001
    missing = s.http.get("/a2a/rest/tasks/no-such-task", headers=V1)
    status_error(missing, 404, "TASK_NOT_FOUND")  # HTTP_JSON-ERR-001
    rpc = s.rpc("/a2a/jsonrpc", "GetTask", {"id": "no-such-task"})
    assert rpc.headers["content-type"] == "application/json" and rpc.json()["error"]["code"] == -32001


def test_the_tck_sut_answers_application_json(serve: Callable[[str], Any]) -> None:
    s = serve("spec/tck-sut")
    sent = s.http.post("/a2a/rest/message:send", json=MESSAGE, headers=V1)  # HTTP_JSON-SVC-001
    assert (sent.status_code, sent.headers["content-type"]) == (200, "application/json")
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    status_error(s.http.post(f"/a2a/rest/tasks/{task['id']}:cancel", json={}, headers=V1), 409, "TASK_NOT_CANCELABLE")


# ------------------------------------------------------------------------------------ clients


def test_the_reference_client_passes_them(catalogue: Catalogue) -> None:
    results, _ = runner.run_all(
        [catalogue.get(sid) for sid in (*OURS, *TCK)], runner.RunOptions(presets.resolve("builtin"), jobs=2)
    )
    for result in results:
        assert result.outcome is Outcome.PASS, explain(result)
    by_id = {r.id: r for r in results}
    followed = by_id[SERVER].check("FOLLOW-UP-TO-END")
    assert followed is not None and followed.outcome is Outcome.PASS, explain(by_id[SERVER], followed)
    assert [e["response"]["status"] for e in by_id[IAR_502].journal if e.get("operation") == "GetTask"] == [502]


CORRECT = [run(SERVER, *REST_ARGS, supports=REST), run(SERVER, *REST_ARGS, "--no-result", supports=REST)]

MISSES = [
    # Refusing application/json, the client never reads the SUBMITTED task, so never follows it up.
    Miss(defect(SERVER, "a2a-json-only", *REST_ARGS, supports=REST), "RESULT-EXPECTED", says="kind: 'error'"),
    Miss(
        defect(SERVER, "a2a-json-only", *REST_ARGS, "--no-result", supports=REST),
        "FOLLOW-UP-TO-END",
        Outcome.NON_STRICT,
    ),
]

#: The defects the v1.0.0 scenarios exist for, which a v1.0.1 server does not trip.
REVISION_DEFECTS = [
    defect(SERVER, "a2a-json-only", *REST_ARGS, supports=REST),
    defect(IAR_502, "gateway-retry", *REST_ARGS, supports=REST),
]


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT, *(m.run for m in MISSES)])


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    result = results[case]
    if "--no-result" in case.args:
        assert result.outcome in (Outcome.PASS, Outcome.UNIMPLEMENTED), explain(result)
        check = result.check("FOLLOW-UP-TO-END")
        assert check is not None and check.outcome is Outcome.PASS, explain(result, check)
    else:
        assert_passes(result)


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_fails_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


@pytest.fixture(scope="module")
def v1_0_1_twins(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    """The same scenarios, served as spec revision v1.0.1."""
    root = tmp_path_factory.mktemp("twins")
    for r in REVISION_DEFECTS:
        target = root / f"{r.scenario}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(builtin_root() / f"{r.scenario}.yaml", target)
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace('spec_revision: "1.0.0"', 'spec_revision: "1.0.1"'), encoding="utf-8")
    twins = Catalogue.load(Path(root))
    assert not twins.broken and {s.spec_revision for s in twins.scenarios.values()} == {SpecRevision.V1_0_1}
    return twins


def test_the_defects_trip_on_the_revision_only(v1_0_1_twins: Catalogue) -> None:
    """Served as v1.0.1 (application/a2a+json, InvalidAgentResponse as 500), the same clients pass."""
    twin_results = run_cases(v1_0_1_twins, REVISION_DEFECTS)
    for r in REVISION_DEFECTS:
        assert_passes(twin_results[r])
