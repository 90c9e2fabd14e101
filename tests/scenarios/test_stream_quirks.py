"""The trackers' stream quirks (issue 29), built with the structured stream options: each cites its report, answers
as its description says over real HTTP, a correct client (the action client: JSON-RPC 1.0 and 0.3, HTTP+JSON 1.0)
passes it, and a client of the tests' own with the reported defect misses the named check."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.clients.refclient import ClientOptions, run
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.states import TaskState

from . import action_runs
from .action_runs import Case, case, message, message03, rpc_json, sse_events

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json", "Accept": "text/event-stream"}
V03 = {"Content-Type": "application/json", "Accept": "text/event-stream"}

#: Each quirk: the defect it exists for, and the check that defect misses.
MISSES = {
    "quirks/stream-last-event-unterminated": action_runs.Miss(
        case("quirks/stream-last-event-unterminated", "--discard-unterminated", "--no-follow-up"),
        "RESULT-EXPECTED",
        says="another state",
    ),
    "quirks/rest-stream-last-event-unterminated": action_runs.Miss(
        case("quirks/rest-stream-last-event-unterminated", "--discard-unterminated", "--no-follow-up"),
        "RESULT-EXPECTED",
        says="another state",
    ),
    "quirks/rest-stream-as-json-array": action_runs.Miss(
        case("quirks/rest-stream-as-json-array", "--sse-only"), "RESULT-EXPECTED", says="another state"
    ),
    "quirks/v03-stream-401-json": action_runs.Miss(
        case("quirks/v03-stream-401-json", "--sse-only"), "RESULT-EXPECTED", says="kind: error"
    ),
    "quirks/v03-stream-status-before-task": action_runs.Miss(
        case("quirks/v03-stream-status-before-task", "--task-once"), "RESULT-EXPECTED", says="kind: task"
    ),
    "quirks/v03-stream-as-ndjson": action_runs.Miss(
        case("quirks/v03-stream-as-ndjson", "--sse-only"), "RESULT-EXPECTED", says="another state"
    ),
    "quirks/rest-stream-error-without-event": action_runs.Miss(
        case("quirks/rest-stream-error-without-event", "--ignore-stream-errors", "--no-follow-up"),
        "RESULT-EXPECTED",
        says="another state",
    ),
    "quirks/rest-stream-error-before-any-event": action_runs.Miss(
        case("quirks/rest-stream-error-before-any-event", "--ignore-stream-errors"),
        "RESULT-EXPECTED",
        says="kind: error",
    ),
    "quirks/v03-stream-open-after-input-required": action_runs.Miss(
        case("quirks/v03-stream-open-after-input-required", "--ignore-final", timeout=4.0),
        "RESULT-EXPECTED",
        Outcome.UNIMPLEMENTED,
        scenario=None,
    ),
}
CORRECT = {sid: case(sid) for sid in MISSES}
#: Also correct: WHATWG SSE's reading (the event cut off by EOF is dropped), then GetTask for the end.
WHATWG = [case(sid, "--discard-unterminated") for sid in MISSES if sid.endswith("last-event-unterminated")]


@pytest.fixture(scope="module")
def runs(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    return action_runs.run_cases(catalogue, [*CORRECT.values(), *WHATWG, *(m.case for m in MISSES.values())])


def test_each_quirk_cites_its_report(catalogue: Catalogue) -> None:
    for sid, miss in MISSES.items():
        scenario = catalogue.get(sid)
        assert scenario.observed and "#" in str(scenario.observed.get("where")), f"{sid}: cite repo#number"
        assert scenario.expect.stated and miss.check in scenario.checks, sid
        raw = [r for rules in scenario.rules.values() for r in rules if r.reply.raw_status is not None]
        assert raw == [], f"{sid}: built with structured options"


@pytest.mark.parametrize("sid", sorted(MISSES))
def test_a_correct_client_passes(sid: str, runs: dict[Case, ScenarioResult]) -> None:
    action_runs.assert_passes(runs[CORRECT[sid]])


@pytest.mark.parametrize("whatwg", WHATWG, ids=str)
def test_dropping_the_cut_off_event_and_asking_get_task_passes(whatwg: Case, runs: dict[Case, ScenarioResult]) -> None:
    result = runs[whatwg]
    action_runs.assert_passes(result)
    assert "GetTask" in [e.get("operation") for e in result.journal], "it learnt the end from GetTask"


@pytest.mark.parametrize("sid", sorted(MISSES))
def test_the_defect_misses_the_named_check(sid: str, runs: dict[Case, ScenarioResult]) -> None:
    action_runs.assert_misses(MISSES[sid], runs[MISSES[sid].case])


# ------------------------------------------------------------------------------------ served as described


def test_last_event_has_no_blank_line(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/stream-last-event-unterminated")
    body = served.http.post("/a2a", content=rpc_json("SendStreamingMessage", {"message": message()}), headers=V1)
    last = body.content.rsplit(b"data: ", 1)[1]
    assert b"TASK_STATE_COMPLETED" in last and last.endswith(b"\r\n") and not last.endswith(b"\r\n\r\n")
    rest = serve("quirks/rest-stream-last-event-unterminated")
    got = rest.http.post("/a2a/rest/message:stream", json={"message": message()}, headers=V1).content
    assert not got.endswith(b"\r\n\r\n") and b"TASK_STATE_COMPLETED" in got.rsplit(b"data: ", 1)[1]


def test_json_array_stream(serve: Callable[[str], Any]) -> None:
    got = serve("quirks/rest-stream-as-json-array").http.post(
        "/a2a/rest/message:stream", json={"message": message()}, headers=V1
    )
    assert got.status_code == 200 and got.headers["content-type"] == "application/json"
    events = got.json()
    assert "task" in events[0] and events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_401_json_for_a_stream(serve: Callable[[str], Any]) -> None:
    got = serve("quirks/v03-stream-401-json").http.post(
        "/a2a", content=rpc_json("message/stream", {"message": message03()}), headers=V03
    )
    assert got.status_code == 401 and got.headers["content-type"].startswith("application/json")
    assert got.json()["error"]["message"] == "Missing or invalid API key"


def test_status_updates_then_a_task(serve: Callable[[str], Any]) -> None:
    got = serve("quirks/v03-stream-status-before-task").http.post(
        "/a2a", content=rpc_json("message/stream", {"message": message03()}), headers=V03
    )
    kinds = [e.data["result"]["kind"] for e in sse_events(got.text.splitlines()) if e.data is not None]
    assert kinds == ["status-update", "status-update", "task", "artifact-update", "status-update"]
    events = [e.data["result"] for e in sse_events(got.text.splitlines()) if e.data is not None]
    assert events[2]["id"] == events[0]["taskId"] and events[2]["contextId"] == events[0]["contextId"]


def test_rest_stream_errors(serve: Callable[[str], Any]) -> None:
    mid = serve("quirks/rest-stream-error-without-event").http.post(
        "/a2a/rest/message:stream", json={"message": message()}, headers=V1
    )
    events = list(sse_events(mid.text.splitlines()))
    assert [e.event for e in events] == [None, None, None] and list(events[-1].data) == ["error"]
    assert events[-1].data["error"]["status"] == "INVALID_ARGUMENT" and "details" not in events[-1].data["error"]
    early = serve("quirks/rest-stream-error-before-any-event").http.post(
        "/a2a/rest/message:stream", json={"message": message()}, headers=V1
    )
    assert early.status_code == 200 and early.headers["content-type"].startswith("text/event-stream")
    (only,) = sse_events(early.text.splitlines())
    assert only.event == "error" and only.data["error"]["status"] == "NOT_FOUND"


def test_the_stream_stays_open_after_final(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/v03-stream-open-after-input-required")
    lines: list[str] = []
    body = rpc_json("message/stream", {"message": message03()})
    with (
        httpx.Client(base_url=served.url, timeout=httpx.Timeout(5, read=1.0), trust_env=False) as http,
        pytest.raises(httpx.ReadTimeout),
        http.stream("POST", "/a2a", content=body, headers=V03) as r,
    ):
        lines.extend(line for line in r.iter_lines() if line.startswith("data:"))
    last = json.loads(lines[-1][5:])["result"]
    assert (last["status"]["state"], last["final"]) == ("input-required", True)


def test_the_reference_client_reports_the_servers_error_not_an_unknown_event(serve: Callable[[str], Any]) -> None:
    """a2a-go#318's defect, in a2a-lab's own client until issue 29: the bare error event was read as an event of an
    unknown kind, and the server's error was lost from what the client said."""
    served = serve("quirks/rest-stream-error-without-event")
    result = run(served.card_url, "x", ClientOptions(stream=True, sleep=lambda _: None))
    assert (result.kind, result.state) == ("task", TaskState.FAILED), "followed up: the task failed"
    said = " ".join(result.warnings)
    assert "sent an error: message.parts[0] is not a part this agent takes" in said, said
    assert "neither task nor message" not in said
