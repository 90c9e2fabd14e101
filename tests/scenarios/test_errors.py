"""The error scenarios (scenarios/errors/): each answers as it describes over real HTTP, a correct client passes
it (reporting the error, or falling back), and the defect it exists to catch fails the named check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

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
    group_ids,
    run,
    run_cases,
)

V1_MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
V03_MESSAGE = {
    "message": {"kind": "message", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}
}


def body_of(resp: Any) -> dict[str, Any]:
    data = resp.json()
    assert isinstance(data, dict), data
    return data


def error_code(resp: Any) -> int:
    data = body_of(resp)
    assert "error" in data and "result" not in data, data
    return int(data["error"]["code"])


# ------------------------------------------------------------------------------------ served as described


def test_method_not_found_with_fallback(serve: Callable[[str], Any]) -> None:
    served = serve("errors/method-not-found-with-fallback")
    assert error_code(served.rpc("/a2a", "SendMessage", V1_MESSAGE)) == -32601
    rest = served.http.post("/a2a/rest/message:send", json=V1_MESSAGE, headers={"A2A-Version": "1.0"})
    assert rest.status_code == 200 and rest.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_version_not_supported_with_fallback(serve: Callable[[str], Any]) -> None:
    served = serve("errors/version-not-supported-with-fallback")
    first = body_of(served.rpc("/a2a/v1", "SendMessage", V1_MESSAGE))
    assert first["error"]["code"] == -32009 and first["error"]["data"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    task = body_of(served.rpc("/a2a/v03", "message/send", V03_MESSAGE, version=None))["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"


def test_task_not_found_on_get_task(serve: Callable[[str], Any]) -> None:
    served = serve("errors/task-not-found-on-get-task")
    task = body_of(served.rpc("/a2a", "SendMessage", V1_MESSAGE))["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    got = body_of(served.rpc("/a2a", "GetTask", {"id": task["id"]}))
    assert got["error"]["code"] == -32001 and got["id"] == 1


@pytest.mark.parametrize(
    ("scenario", "code", "says"),
    [
        ("errors/content-type-not-supported", -32005, "application/pdf"),
        ("errors/internal-error", -32603, "Internal error"),
    ],
)
def test_scripted_errors(serve: Callable[[str], Any], scenario: str, code: int, says: str) -> None:
    served = serve(scenario)
    for _ in range(2):  # every time, not only the first
        data = body_of(served.rpc("/a2a", "SendMessage", V1_MESSAGE))
        assert data["error"]["code"] == code and says in data["error"]["message"]


@pytest.mark.parametrize(
    ("scenario", "status", "marker"),
    [
        ("errors/html-500-page", 500, "500 Internal Server Error"),
        ("errors/proxy-502", 502, "nginx/1.24.0"),
    ],
)
def test_html_error_pages(serve: Callable[[str], Any], scenario: str, status: int, marker: str) -> None:
    served = serve(scenario)
    resp = served.rpc("/a2a", "SendMessage", V1_MESSAGE)
    assert resp.status_code == status and resp.headers["content-type"].startswith("text/html") and marker in resp.text
    with pytest.raises(ValueError):
        json.loads(resp.text)


def test_non_json_body(serve: Callable[[str], Any]) -> None:
    served = serve("errors/non-json-body")
    resp = served.rpc("/a2a", "SendMessage", V1_MESSAGE)
    assert (
        resp.status_code == 200
        and resp.headers["content-type"] == "application/json"
        and resp.text.startswith("<html>")
    )


def test_card_1_0_wire_0_3(serve: Callable[[str], Any]) -> None:
    served = serve("errors/card-1.0-wire-0.3")
    assert served.http.get("/.well-known/agent-card.json").json()["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    data = body_of(served.rpc("/a2a", "SendMessage", V1_MESSAGE))
    assert data["error"]["code"] == -32601 and "serves A2A 0.3" in data["error"]["message"]
    assert body_of(served.rpc("/a2a", "message/send", V03_MESSAGE, version=None))["result"]["kind"] == "task"


def test_card_0_3_wire_1_0(serve: Callable[[str], Any]) -> None:
    served = serve("errors/card-0.3-wire-1.0")
    card = served.http.get("/.well-known/agent-card.json").json()
    assert (
        card["protocolVersion"] == "0.3.0" and card["url"] == served.url + "/a2a" and "supportedInterfaces" not in card
    )
    data = body_of(served.rpc("/a2a", "message/send", V03_MESSAGE, version=None))
    assert data["error"]["code"] == -32601 and "serves A2A 1.0" in data["error"]["message"]
    assert "task" in body_of(served.rpc("/a2a", "SendMessage", V1_MESSAGE))["result"]


def test_broken_envelopes(serve: Callable[[str], Any]) -> None:
    wrong = body_of(serve("errors/wrong-response-id").rpc("/a2a", "SendMessage", V1_MESSAGE, req_id=7))
    assert wrong["id"] == "a2a-lab-wrong-id-7" and "task" in wrong["result"]
    both = body_of(serve("errors/result-and-error").rpc("/a2a", "SendMessage", V1_MESSAGE, req_id=7))
    assert both["id"] == 7 and "task" in both["result"] and both["error"]["code"] == -32603
    neither = body_of(serve("errors/neither-result-nor-error").rpc("/a2a", "SendMessage", V1_MESSAGE, req_id=7))
    assert neither == {"jsonrpc": "2.0", "id": 7}


def test_message_to_terminal_task(serve: Callable[[str], Any], catalogue: Catalogue) -> None:
    assert catalogue.get("errors/message-to-terminal-task").client.action == {"follow_up": "And the day after?"}
    served = serve("errors/message-to-terminal-task")
    task = body_of(served.rpc("/a2a", "SendMessage", V1_MESSAGE))["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    follow = {
        "message": {**V1_MESSAGE["message"], "messageId": "m-2", "taskId": task["id"], "contextId": task["contextId"]}
    }
    data = body_of(served.rpc("/a2a", "SendMessage", follow))
    assert data["error"]["code"] == -32004 and data["error"]["data"][0]["reason"] == "UNSUPPORTED_OPERATION"


# ------------------------------------------------------------------------------------ a correct client passes

CORRECT = [
    run("errors/method-not-found-with-fallback", *BOTH_ARGS, supports=BOTH_1_0),  # falls back to HTTP+JSON
    run("errors/method-not-found-with-fallback"),  # a JSON-RPC-only client has nowhere to go
    run("errors/version-not-supported-with-fallback"),  # falls back to 0.3
    run("errors/task-not-found-on-get-task"),
    run("errors/content-type-not-supported"),
    run("errors/internal-error"),
    run("errors/internal-error", "--retries", "2"),  # a bounded retry of a transient-looking error is fine
    run("errors/html-500-page"),
    run("errors/proxy-502"),
    run("errors/card-1.0-wire-0.3"),
    run("errors/card-0.3-wire-1.0"),
    run("errors/wrong-response-id"),
    run("errors/result-and-error"),
    run("errors/neither-result-nor-error"),
    run("errors/non-json-body"),
    run("errors/message-to-terminal-task"),
    run("errors/v1.0.0-content-type-415", *REST_ARGS, supports=REST),
    run("errors/v1.0.0-invalid-agent-response-502", *REST_ARGS, supports=REST),
]

MISSES = [
    Miss(
        defect("errors/method-not-found-with-fallback", "no-fallback", *BOTH_ARGS, supports=BOTH_1_0),
        "FALLBACK",
        Outcome.NON_STRICT,
        "no other interface tried",
    ),
    Miss(
        defect("errors/method-not-found-with-fallback", "retry-loop", *BOTH_ARGS, supports=BOTH_1_0),
        "NO-RETRY-LOOP",
        says="5 repeats",
    ),
    Miss(
        defect("errors/version-not-supported-with-fallback", "no-fallback"),
        "FALLBACK",
        Outcome.NON_STRICT,
        "JSONRPC 0.3",
    ),
    Miss(defect("errors/version-not-supported-with-fallback", "retry-loop"), "NO-RETRY-LOOP", says="5 repeats"),
    Miss(defect("errors/task-not-found-on-get-task", "stale-task-on-error"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/task-not-found-on-get-task", "get-task-loop"), "POLL-BOUNDED", Outcome.NON_STRICT, "50 calls"),
    Miss(defect("errors/content-type-not-supported", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/content-type-not-supported", "assume-success"), "RESULT-MATCHES", says="never gave"),
    Miss(defect("errors/internal-error", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/html-500-page", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/proxy-502", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/card-1.0-wire-0.3", "guess-other-version"), "METHOD-MATCHES-INTERFACE", says="message/send"),
    Miss(defect("errors/card-1.0-wire-0.3", "guess-other-version"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/card-1.0-wire-0.3", "retry-loop"), "NO-RETRY-LOOP", says="5 repeats"),
    Miss(defect("errors/card-0.3-wire-1.0", "guess-other-version"), "METHOD-MATCHES-INTERFACE", says="SendMessage"),
    Miss(
        defect("errors/card-0.3-wire-1.0", "v1-method-on-v03"), "METHOD-MATCHES-INTERFACE", says="SendMessage (A2A 1.0)"
    ),
    Miss(defect("errors/wrong-response-id", "lax-response"), "RESULT-EXPECTED", says="kind: error"),
    # Taking the wrong id's task, it follows the task up (the valid GetTask answers then agree with its result).
    Miss(defect("errors/wrong-response-id", "lax-response"), "INVALID-ANSWER-IGNORED", says="only an invalid answer"),
    Miss(defect("errors/result-and-error", "lax-response"), "INVALID-ANSWER-IGNORED", says="both `result`"),
    Miss(defect("errors/result-and-error", "lax-response"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/neither-result-nor-error", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/non-json-body", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(
        defect("errors/message-to-terminal-task", "follow-up-new-task"), "MULTI-TURN", Outcome.NON_STRICT, "no taskId"
    ),
    Miss(defect("errors/message-to-terminal-task", "follow-up-new-task"), "RESULT-EXPECTED", says="kind: error"),
    Miss(defect("errors/message-to-terminal-task", "assume-success"), "RESULT-EXPECTED", says="kind: error"),
    Miss(
        defect("errors/v1.0.0-content-type-415", "assume-success", *REST_ARGS, supports=REST),
        "RESULT-EXPECTED",
        says="kind: error",
    ),
    # Taking v1.0.0's 502 for a gateway's, the client repeats GetTask at once: 51 calls for one task.
    Miss(
        defect("errors/v1.0.0-invalid-agent-response-502", "gateway-retry", *REST_ARGS, supports=REST),
        "POLL-BOUNDED",
        Outcome.NON_STRICT,
        "51 calls",
    ),
    Miss(
        defect("errors/v1.0.0-invalid-agent-response-502", "stale-task-on-error", *REST_ARGS, supports=REST),
        "RESULT-EXPECTED",
        says="kind: error",
    ),
]


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT, *(m.run for m in MISSES)])


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    assert_passes(results[case])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_fails_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


def test_fallback_really_fell_back(results: dict[Run, ScenarioResult]) -> None:
    both = results[run("errors/method-not-found-with-fallback", *BOTH_ARGS, supports=BOTH_1_0)]
    assert [e["endpoint"]["binding"] for e in both.journal if e.get("operation") == "SendMessage"] == [
        "JSONRPC",
        "HTTP+JSON",
    ]
    checked = both.check("FALLBACK")
    assert checked is not None and checked.outcome is Outcome.PASS
    version = results[run("errors/version-not-supported-with-fallback")]
    assert [e.get("version") for e in version.journal if e.get("operation") == "SendMessage"] == ["1.0", "0.3"]


def test_the_reported_error_is_the_one_that_ended_the_exchange(results: dict[Run, ScenarioResult]) -> None:
    """RESULT-MATCHES takes an error report as right when the last call gave no message or task, even after a task was
    seen."""
    for scenario in ("errors/task-not-found-on-get-task", "errors/message-to-terminal-task", "errors/result-and-error"):
        check = results[run(scenario)].check("RESULT-MATCHES")
        assert check is not None and check.outcome is Outcome.PASS, check


def test_every_errors_scenario_is_proven(catalogue: Catalogue) -> None:
    assert {r.scenario for r in CORRECT} == group_ids(catalogue, "errors")
    for sid in group_ids(catalogue, "errors"):
        scenario = catalogue.get(sid)
        assert scenario.checks and (scenario.spec or scenario.observed), sid
