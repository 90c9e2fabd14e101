"""The streaming/ scenarios: each behaves as its description says over real HTTP (SSE read with httpx streams), a
correct client passes it, and a defective one misses the check the scenario names."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .action_runs import (
    Case,
    Miss,
    SseEvent,
    assert_misses,
    assert_passes,
    case,
    group_ids,
    kinds,
    message,
    message03,
    results,
    rpc_json,
    run_cases,
    sse_events,
)

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json", "Accept": "text/event-stream"}
V03 = {"Content-Type": "application/json", "Accept": "text/event-stream"}

OURS = [
    "streaming/v1-stream",
    "streaming/v03-stream",
    "streaming/no-terminal-event",
    "streaming/closed-at-input-required",
    "streaming/status-first",
    "streaming/duplicate-events",
    "streaming/comments-and-pings",
    "streaming/error-mid-stream",
    "streaming/not-advertised",
    "streaming/resubscribe-after-drop",
]
#: The correct client acts on A2A_LAB_ACTION (stream, resubscribe) with its defaults.
CORRECT = {sid: case(sid) for sid in OURS}
#: Correct as well: after a dropped stream, resume by polling GetTask instead of SubscribeToTask.
POLL_TO_RESUME = case("streaming/resubscribe-after-drop", "--poll-to-resume")
MISSES = [
    Miss(
        case("streaming/v1-stream", "--ignore-action"),
        "STREAMING-USED",
        Outcome.UNIMPLEMENTED,
        Outcome.PASS,
        "did not stream",
    ),
    Miss(case("streaming/v03-stream", "--v1-events-only"), "RESULT-MATCHES", says="another task state"),
    Miss(case("streaming/v03-stream", "--ignore-action"), "STREAMING-USED", Outcome.UNIMPLEMENTED, Outcome.PASS),
    Miss(case("streaming/no-terminal-event", "--no-follow-up"), "RESULT-EXPECTED", says="COMPLETED"),
    Miss(
        case("streaming/no-terminal-event", "--no-follow-up"),
        "FOLLOW-UP-TO-END",
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "nothing for task",
    ),
    Miss(
        case("streaming/closed-at-input-required", "--interrupted-as-failure"),
        "INTERRUPTED-HANDLED",
        Outcome.NON_STRICT,
        Outcome.FAIL,
        "FAILED",
    ),
    Miss(
        case("streaming/closed-at-input-required", "--interrupted-as-failure"), "RESULT-EXPECTED", says="INPUT_REQUIRED"
    ),
    Miss(case("streaming/status-first", "--strict-stream"), "RESULT-EXPECTED", says="kind: task"),
    Miss(case("streaming/duplicate-events", "--strict-stream"), "RESULT-EXPECTED", says="kind: task"),
    Miss(case("streaming/comments-and-pings", "--naive-sse"), "RESULT-EXPECTED", says="kind: task"),
    Miss(
        case("streaming/error-mid-stream", "--ignore-stream-errors", "--no-follow-up"), "RESULT-EXPECTED", says="FAILED"
    ),
    Miss(
        case("streaming/not-advertised", "--stream-anyway"),
        "CAPABILITIES-RESPECTED",
        Outcome.NON_STRICT,
        None,
        "capabilities.streaming",
    ),
    # Reporting the broken stream as an error is an honest conclusion; not resuming is UNIMPLEMENTED (the handshake's
    # promise for an action key, docs/reference/handshake.md), and FOLLOW-UP-TO-END does not count the same miss again.
    # The scenario is UNIMPLEMENTED too: the stream it used (STREAMING-USED, a MAY) does not stand for the recovery
    # the scenario exists for, which no MUST or SHOULD check could judge.
    Miss(
        case("streaming/resubscribe-after-drop", "--no-resume"),
        "RESUBSCRIBE",
        Outcome.UNIMPLEMENTED,
        Outcome.UNIMPLEMENTED,
        "did not resume",
    ),
]


@pytest.fixture(scope="module")
def outcomes(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT.values(), POLL_TO_RESUME, *(m.case for m in MISSES)])


def test_every_streaming_scenario_is_covered(catalogue: Catalogue) -> None:
    assert set(OURS) <= group_ids(catalogue, "streaming")
    assert {m.case.scenario for m in MISSES} == set(OURS)
    for sid in OURS:
        s = catalogue.get(sid)
        assert s.checks and (s.spec or s.observed) and s.expect.stated, sid
        assert s.client.action.get("stream") is True, sid


@pytest.mark.parametrize("scenario", OURS)
def test_a_correct_client_passes(scenario: str, outcomes: dict[Case, ScenarioResult]) -> None:
    assert_passes(outcomes[CORRECT[scenario]])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_a_defective_client_misses_the_named_check(
    miss: Miss, outcomes: dict[Case, ScenarioResult], catalogue: Catalogue
) -> None:
    assert miss.check in catalogue.get(miss.case.scenario).checks, "the scenario names the check it exercises"
    assert_misses(miss, outcomes[miss.case])


def test_the_correct_client_streamed_where_allowed_and_only_there(outcomes: dict[Case, ScenarioResult]) -> None:
    for sid in OURS:
        result = outcomes[CORRECT[sid]]
        streamed = any(e.get("operation") == "SendStreamingMessage" for e in result.journal)
        assert streamed is (sid != "streaming/not-advertised"), sid
        used = result.check("STREAMING-USED")
        assert used is not None and used.outcome is (
            Outcome.SKIPPED if sid == "streaming/not-advertised" else Outcome.PASS
        ), sid


def test_the_correct_client_followed_up_the_unfinished_stream(outcomes: dict[Case, ScenarioResult]) -> None:
    ops = [e.get("operation") for e in outcomes[CORRECT["streaming/no-terminal-event"]].journal if e.get("operation")]
    assert ops[0] == "SendStreamingMessage" and ops[1:] and set(ops[1:]) <= {"GetTask", "SubscribeToTask"}
    interrupted = [
        e.get("operation")
        for e in outcomes[CORRECT["streaming/closed-at-input-required"]].journal
        if e.get("operation")
    ]
    assert interrupted == ["SendStreamingMessage"], "nothing to poll at an interrupted state"


def test_resuming_after_the_drop(outcomes: dict[Case, ScenarioResult]) -> None:
    subscribed = outcomes[CORRECT["streaming/resubscribe-after-drop"]]
    checked = subscribed.check("RESUBSCRIBE")
    assert checked is not None and checked.message == "resumed with SubscribeToTask"
    polled = outcomes[POLL_TO_RESUME]
    assert_passes(polled)
    checked = polled.check("RESUBSCRIBE")
    assert checked is not None and checked.message == "resumed with GetTask"


# ==================================================================================== behaviour over real HTTP


def stream(
    served: Any,
    method: str = "SendStreamingMessage",
    params: dict[str, Any] | None = None,
    headers: dict[str, str] = V1,
    req_id: Any = 1,
) -> list[SseEvent]:
    """A whole SSE stream, read as it arrives."""
    params = params if params is not None else {"message": message("go")}
    with served.http.stream("POST", "/a2a", content=rpc_json(method, params, req_id), headers=headers) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), r.read()
        return list(sse_events(r.iter_lines()))


def get_task(served: Any, task_id: str) -> dict[str, Any]:
    return served.http.post(
        "/a2a",
        content=rpc_json("GetTask", {"id": task_id}),
        headers={"A2A-Version": "1.0", "Content-Type": "application/json"},
    ).json()["result"]


def test_v1_stream_task_first_then_updates_then_close(serve: Callable) -> None:
    s = serve("streaming/v1-stream")
    events = stream(s, req_id="s-1")
    assert all(e.data["jsonrpc"] == "2.0" and e.data["id"] == "s-1" for e in events)
    values = results(events)
    assert kinds(values) == ["task", "status:WORKING", "artifactUpdate", "status:COMPLETED"]
    assert values[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert values[2]["artifactUpdate"]["artifact"]["parts"] == [{"text": "streamed: go"}]
    assert all("final" not in str(v) for v in values), "1.0 has no final flag: the close is the end"
    assert s.journal[-1]["response"]["closed"] == "complete"


def test_v03_stream_kind_events_and_final(serve: Callable) -> None:
    s = serve("streaming/v03-stream")
    values = results(stream(s, "message/stream", {"message": message03("old")}, headers=V03))
    assert [v["kind"] for v in values] == ["task", "status-update", "artifact-update", "status-update"]
    assert [(v["status"]["state"], v["final"]) for v in values if v["kind"] == "status-update"] == [
        ("working", False),
        ("completed", True),
    ]
    assert values[2]["artifact"]["parts"] == [{"kind": "text", "text": "streamed (0.3): old"}]
    refused = s.http.post("/a2a", content=rpc_json("SendStreamingMessage", {"message": message()}), headers=V1).json()
    assert refused["error"]["code"] == -32601, "a 0.3-only agent does not know the 1.0 method"


def test_no_terminal_event_but_the_task_completed(serve: Callable) -> None:
    s = serve("streaming/no-terminal-event")
    values = results(stream(s))
    assert kinds(values) == ["task", "status:WORKING", "artifactUpdate"]
    assert get_task(s, values[0]["task"]["id"])["status"]["state"] == "TASK_STATE_COMPLETED"


def test_stream_closes_at_input_required_with_the_question(serve: Callable) -> None:
    s = serve("streaming/closed-at-input-required")
    values = results(stream(s))
    assert kinds(values) == ["task", "status:WORKING", "status:INPUT_REQUIRED"]
    assert values[-1]["statusUpdate"]["status"]["message"]["parts"] == [
        {"text": "Which city should the forecast be for?"}
    ]
    task = get_task(s, values[0]["task"]["id"])
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", "an interrupted task waits for the user"


def test_first_event_is_a_status_update_carrying_the_task_id(serve: Callable) -> None:
    s = serve("streaming/status-first")
    values = results(stream(s))
    assert kinds(values) == ["status:SUBMITTED", "status:WORKING", "artifactUpdate", "status:COMPLETED"]
    task_id = values[0]["statusUpdate"]["taskId"]
    assert task_id and all(next(iter(v.values()))["taskId"] == task_id for v in values)


def test_every_event_twice(serve: Callable) -> None:
    s = serve("streaming/duplicate-events")
    values = results(stream(s))
    assert kinds(values) == [
        "task",
        "task",
        "status:WORKING",
        "status:WORKING",
        "artifactUpdate",
        "artifactUpdate",
        "status:COMPLETED",
        "status:COMPLETED",
    ]
    assert all(values[i] == values[i + 1] for i in range(0, len(values), 2))


def test_comments_and_pings_between_events(serve: Callable) -> None:
    s = serve("streaming/comments-and-pings")
    events = stream(s)
    comments = [c for e in events for c in e.comments]
    assert comments[:2] == ["a2a-lab stream opened", "events follow"] and events[0].data is None, (
        "comments open the stream"
    )
    pings = [c for c in comments if c.startswith("ping")]
    assert len(pings) >= 2, "keep-alive pings every 100 ms while the events come 250 ms apart"
    assert kinds(results(events)) == ["task", "status:WORKING", "artifactUpdate", "status:COMPLETED"]


def test_error_event_mid_stream_and_the_task_fails(serve: Callable) -> None:
    s = serve("streaming/error-mid-stream")
    events = stream(s, req_id=9)
    values = results(events)
    assert kinds(values) == ["task", "status:WORKING", "error"]
    assert values[-1]["id"] == 9 and values[-1]["error"]["code"] == -32603
    task = get_task(s, values[0]["task"]["id"])
    assert task["status"]["state"] == "TASK_STATE_FAILED" and task["status"]["message"]["parts"] == [
        {"text": "The agent crashed while working."}
    ]


def test_streaming_not_advertised_is_refused(serve: Callable) -> None:
    s = serve("streaming/not-advertised")
    assert s.http.get("/.well-known/agent-card.json").json()["capabilities"]["streaming"] is False
    refused = s.http.post("/a2a", content=rpc_json("SendStreamingMessage", {"message": message()}), headers=V1)
    assert refused.headers["content-type"].startswith("application/json") and refused.json()["error"]["code"] == -32004
    answer = s.http.post("/a2a", content=rpc_json("SendMessage", {"message": message("x")}), headers=V1).json()[
        "result"
    ]["task"]
    assert answer["status"]["state"] == "TASK_STATE_COMPLETED"


def test_stream_drops_mid_task_and_subscribe_picks_it_up(serve: Callable) -> None:
    s = serve("streaming/resubscribe-after-drop")
    lines: list[str] = []
    with (
        pytest.raises(httpx.TransportError),
        s.http.stream(
            "POST", "/a2a", content=rpc_json("SendStreamingMessage", {"message": message("again")}), headers=V1
        ) as r,
    ):
        for line in r.iter_lines():
            lines.append(line)
    before = results(sse_events(lines))
    assert kinds(before) == ["task", "status:WORKING"], "two events, then a reset"
    task_id = before[0]["task"]["id"]
    assert s.journal[-1]["events"][-1] == {"t": s.journal[-1]["events"][-1]["t"], "dropped": True}
    after = results(stream(s, "SubscribeToTask", {"id": task_id}))
    assert after[0]["task"]["id"] == task_id and after[0]["task"]["status"]["state"] == "TASK_STATE_WORKING", (
        "a snapshot first"
    )
    assert kinds(after)[1:] == ["artifactUpdate", "status:COMPLETED"]
    assert after[1]["artifactUpdate"]["artifact"]["parts"] == [{"text": "recovered: again"}]


def test_the_dropped_task_goes_on_by_itself(serve: Callable) -> None:
    """Nobody watches the task after the drop, and it still completes: time moves it (advance.after_ms)."""
    s = serve("streaming/resubscribe-after-drop")
    engine = s.app.state.engine
    forward = engine.on_event
    completed = threading.Event()

    def watch(rec: Any, event: dict[str, Any]) -> None:
        if forward is not None:
            forward(rec, event)
        if event.get("statusUpdate", {}).get("status", {}).get("state") == "TASK_STATE_COMPLETED":
            completed.set()

    engine.on_event = watch
    with (
        pytest.raises(httpx.TransportError),
        s.http.stream(
            "POST", "/a2a", content=rpc_json("SendStreamingMessage", {"message": message()}), headers=V1
        ) as r,
    ):
        for _ in r.iter_lines():
            pass
    assert completed.wait(5), "the task never completed after its stream dropped"
    (rec,) = engine.tasks.values()
    assert rec.state.value == "TASK_STATE_COMPLETED"
