"""The response scenarios (scenarios/responses/): each answers as it describes over real HTTP, a correct client
passes it, and the defect it exists to catch fails the named check."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .catalogue_runs import REST, REST_ARGS, Miss, Run, assert_misses, assert_passes, defect, group_ids, run, run_cases


def message(text: str = "hi", mid: str = "m-1", **ids: str) -> dict[str, Any]:
    return {"message": {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": text}], **ids}}


def result_of(resp: Any) -> Any:
    assert resp.status_code == 200, resp.text[:300]
    body = resp.json()
    assert "result" in body, body
    return body["result"]


def state(task: dict[str, Any]) -> str:
    return str(task["status"]["state"])


def status_text(task: dict[str, Any]) -> str:
    return " ".join(p.get("text", "") for p in task["status"]["message"]["parts"])


# ------------------------------------------------------------------------------------ served as described


def test_direct_message(serve: Callable[[str], Any]) -> None:
    served = serve("responses/direct-message")
    result = result_of(served.rpc("/a2a", "SendMessage", message()))
    assert set(result) == {"message"} and result["message"]["role"] == "ROLE_AGENT"
    parts = result["message"]["parts"]
    assert "Western European Time" in parts[0]["text"] and parts[1] == {"data": {"zone": "Europe/Lisbon"}}
    rest = served.http.post("/a2a/rest/message:send", json=message(), headers={"A2A-Version": "1.0"})
    assert set(rest.json()) == {"message"}


def test_every_part_kind_in_both_versions(serve: Callable[[str], Any]) -> None:
    served = serve("responses/completed-task-every-part-kind")
    task = result_of(served.rpc("/a2a", "SendMessage", message()))["task"]
    assert state(task) == "TASK_STATE_COMPLETED"
    parts = [p for a in task["artifacts"] for p in a["parts"]]
    assert [next(k for k in ("text", "raw", "url", "data") if k in p) for p in parts] == ["text", "data", "raw", "url"]
    raw = next(p for p in parts if "raw" in p)
    assert (
        base64.b64decode(raw["raw"]).startswith(b"quarter,revenue")
        and raw["mediaType"] == "text/csv"
        and raw["filename"] == "q3.csv"
    )
    url = next(p for p in parts if "url" in p)
    assert url["url"].endswith("/q3.pdf") and url["mediaType"] == "application/pdf" and url["filename"] == "q3.pdf"
    # The same parts in 0.3 form: kind text / data / file (bytes or uri, mimeType, name).
    v03 = result_of(
        served.rpc(
            "/a2a",
            "message/send",
            {
                "message": {
                    "kind": "message",
                    "messageId": "m-2",
                    "role": "user",
                    "parts": [{"kind": "text", "text": "hi"}],
                }
            },
            version=None,
        )
    )
    kinds = [p["kind"] for a in v03["artifacts"] for p in a["parts"]]
    files = [p["file"] for a in v03["artifacts"] for p in a["parts"] if p["kind"] == "file"]
    assert v03["status"]["state"] == "completed" and kinds == ["text", "data", "file", "file"]
    assert files[0]["bytes"] == raw["raw"] and files[0]["mimeType"] == "text/csv" and files[0]["name"] == "q3.csv"
    assert files[1]["uri"] == url["url"] and files[1]["mimeType"] == "application/pdf"


def test_working_for_a_long_time(serve: Callable[[str], Any]) -> None:
    served = serve("responses/working-for-a-long-time")
    task = result_of(served.rpc("/a2a", "SendMessage", message()))["task"]
    assert state(task) == "TASK_STATE_WORKING"
    for _ in range(40):  # more than any bounded client polls
        assert state(result_of(served.rpc("/a2a", "GetTask", {"id": task["id"]}))) == "TASK_STATE_WORKING"


@pytest.mark.parametrize(
    ("scenario", "interrupted", "says"),
    [
        ("responses/input-required", "TASK_STATE_INPUT_REQUIRED", "Which city"),
        ("responses/auth-required", "TASK_STATE_AUTH_REQUIRED", "Sign in"),
    ],
)
def test_interrupted_states_wait_for_input(
    serve: Callable[[str], Any], scenario: str, interrupted: str, says: str
) -> None:
    served = serve(scenario)
    task = result_of(served.rpc("/a2a", "SendMessage", message()))["task"]
    assert state(task) == interrupted and says in status_text(task)
    # Interrupted: GetTask does not move it on; only input does.
    assert state(result_of(served.rpc("/a2a", "GetTask", {"id": task["id"]}))) == interrupted


def test_multi_turn_follow_up(serve: Callable[[str], Any], catalogue: Catalogue) -> None:
    assert catalogue.get("responses/multi-turn-follow-up").client.action == {"follow_up": "Paris"}
    served = serve("responses/multi-turn-follow-up")
    task = result_of(served.rpc("/a2a", "SendMessage", message("weather tomorrow?")))["task"]
    assert state(task) == "TASK_STATE_INPUT_REQUIRED" and status_text(task) == "Which city?"
    # A wrong contextId or an unknown task is refused; a new message without taskId starts over.
    assert (
        served.rpc("/a2a", "SendMessage", message("Paris", "m-2", taskId=task["id"], contextId="other")).json()[
            "error"
        ]["code"]
        == -32602
    )
    assert (
        served.rpc("/a2a", "SendMessage", message("Paris", "m-3", taskId="no-such-task")).json()["error"]["code"]
        == -32001
    )
    fresh = result_of(served.rpc("/a2a", "SendMessage", message("Paris", "m-4")))["task"]
    assert fresh["id"] != task["id"] and state(fresh) == "TASK_STATE_INPUT_REQUIRED"
    done = result_of(
        served.rpc("/a2a", "SendMessage", message("Paris", "m-5", taskId=task["id"], contextId=task["contextId"]))
    )["task"]
    assert done["id"] == task["id"] and state(done) == "TASK_STATE_COMPLETED"
    assert "sunny" in done["artifacts"][0]["parts"][0]["text"]
    assert [m["role"] for m in done["history"]][-2:] == ["ROLE_AGENT", "ROLE_USER"]


@pytest.mark.parametrize(
    ("scenario", "terminal", "says"),
    [
        ("responses/rejected", "TASK_STATE_REJECTED", "English and French"),
        ("responses/failed-with-message", "TASK_STATE_FAILED", "timed out"),
    ],
)
def test_terminal_failures_are_tasks(serve: Callable[[str], Any], scenario: str, terminal: str, says: str) -> None:
    served = serve(scenario)
    task = result_of(served.rpc("/a2a", "SendMessage", message()))["task"]
    assert state(task) == terminal and says in status_text(task) and "artifacts" not in task
    assert state(result_of(served.rpc("/a2a", "GetTask", {"id": task["id"]}))) == terminal


# ------------------------------------------------------------------------------------ a correct client passes

CORRECT = [
    run("responses/direct-message"),
    run("responses/direct-message", *REST_ARGS, supports=REST),
    run("responses/completed-task-every-part-kind"),
    run("responses/completed-task-every-part-kind", *REST_ARGS, supports=REST),
    run("responses/working-for-a-long-time"),
    run("responses/input-required"),
    run("responses/multi-turn-follow-up"),
    run("responses/multi-turn-follow-up", *REST_ARGS, supports=REST),
    run("responses/auth-required"),
    run("responses/rejected"),
    run("responses/failed-with-message"),
    run("responses/completed-answer-in-status-message"),  # its miss: tests/harness/test_field_quirks.py
]

MISSES = [
    Miss(
        defect("responses/direct-message", "poll-after-message"), "NO-POLL-AFTER-MESSAGE", Outcome.NON_STRICT, "GetTask"
    ),
    Miss(defect("responses/completed-task-every-part-kind", "text-only-parts"), "RESULT-EXPECTED", says="kind: task"),
    Miss(
        defect("responses/completed-task-every-part-kind", "get-task-loop"),
        "POLL-BOUNDED",
        Outcome.NON_STRICT,
        "after it",
    ),
    Miss(defect("responses/working-for-a-long-time", "get-task-loop"), "POLL-BOUNDED", Outcome.NON_STRICT, "50 calls"),
    Miss(
        defect("responses/working-for-a-long-time", "no-follow-up"),
        "FOLLOW-UP-TO-END",
        Outcome.NON_STRICT,
        "nothing for task",
    ),
    Miss(defect("responses/working-for-a-long-time", "wrong-result"), "RESULT-EXPECTED", says="WORKING"),
    Miss(
        defect("responses/input-required", "interrupted-as-failure"),
        "INTERRUPTED-HANDLED",
        Outcome.NON_STRICT,
        "'failed'",
    ),
    Miss(defect("responses/input-required", "interrupted-as-failure"), "RESULT-EXPECTED", says="INPUT_REQUIRED"),
    Miss(defect("responses/multi-turn-follow-up", "follow-up-new-task"), "MULTI-TURN", Outcome.NON_STRICT, "no taskId"),
    Miss(defect("responses/multi-turn-follow-up", "follow-up-new-task"), "RESULT-EXPECTED", says="COMPLETED"),
    Miss(
        defect("responses/multi-turn-follow-up", "follow-up-wrong-context"),
        "MULTI-TURN",
        says="fake-client-own-context",
    ),
    Miss(
        defect("responses/multi-turn-follow-up", "follow-up-unknown-task", *REST_ARGS, supports=REST),
        "MULTI-TURN",
        says="never created",
    ),
    Miss(
        defect("responses/auth-required", "interrupted-as-failure"),
        "INTERRUPTED-HANDLED",
        Outcome.NON_STRICT,
        "AUTH_REQUIRED",
    ),
    Miss(defect("responses/auth-required", "interrupted-as-failure"), "RESULT-EXPECTED", says="AUTH_REQUIRED"),
    Miss(defect("responses/rejected", "get-task-loop"), "POLL-BOUNDED", Outcome.NON_STRICT, "after it"),
    Miss(defect("responses/rejected", "failed-as-error"), "RESULT-EXPECTED", says="kind: task"),
    Miss(defect("responses/failed-with-message", "failed-as-error"), "RESULT-EXPECTED", says="kind: task"),
    Miss(defect("responses/failed-with-message", "failed-as-error"), "RESULT-MATCHES", says="kind: task"),
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


def test_a_long_working_task_is_given_up_boundedly(results: dict[Run, ScenarioResult]) -> None:
    result = results[run("responses/working-for-a-long-time")]
    gets = [e for e in result.journal if e.get("operation") == "GetTask"]
    assert 1 <= len(gets) <= 30
    assert result.client and result.client.result and result.client.result["state"] == "TASK_STATE_WORKING"


def test_the_follow_up_continued_the_task(results: dict[Run, ScenarioResult]) -> None:
    for case in (
        run("responses/multi-turn-follow-up"),
        run("responses/multi-turn-follow-up", *REST_ARGS, supports=REST),
    ):
        sends = [e for e in results[case].journal if e.get("operation") == "SendMessage"]
        assert len(sends) == 2 and [s["answer"]["state"] for s in sends] == [
            "TASK_STATE_INPUT_REQUIRED",
            "TASK_STATE_COMPLETED",
        ]
        assert sends[0]["answer"]["task_id"] == sends[1]["answer"]["task_id"]


def test_every_responses_scenario_is_proven(catalogue: Catalogue) -> None:
    assert {r.scenario for r in CORRECT} == group_ids(catalogue, "responses")
    for sid in group_ids(catalogue, "responses"):
        scenario = catalogue.get(sid)
        assert scenario.checks and (scenario.spec or scenario.observed) and scenario.expect.stated, sid
