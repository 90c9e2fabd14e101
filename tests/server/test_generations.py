"""Spec revision 1.1 (the `dev-1.1` draft, §3.2.7) over real HTTP: task generations on tasks and events, GetTask's
`currentGeneration` long-poll and `ifGenerationMatch` (TaskGenerationMismatchError: -32010, HTTP 409, ABORTED), on
JSON-RPC and HTTP+JSON; a server of revision 1.0.1 carries none of it and ignores both requests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.loader import ScenarioError

from .helpers import REST_PATH, Lab, data_events, message, message03

V1 = {"A2A-Version": "1.0"}

#: A task that time moves on: SUBMITTED, then WORKING and COMPLETED (with an artifact) `after_ms` apart.
TIMED = """\
spec_revision: "{revision}"
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  advance: {{after_ms: {after_ms}}}
  artifacts:
    - {{artifactId: a-1, parts: [{{text: "done: {{text}}"}}]}}
"""

#: A task that stops at INPUT_REQUIRED, then completes on the follow-up.
INTERRUPTED = """\
spec_revision: "1.1"
task:
  steps: [WORKING, INPUT_REQUIRED, COMPLETED]
"""


def generation(value: dict[str, Any]) -> int:
    """The generation a task or event carries: an int64, a decimal string in ProtoJSON."""
    text = value["generation"]
    assert isinstance(text, str) and text.isdigit(), value
    return int(text)


def test_a_stream_numbers_every_change_from_1(lab: Callable[..., Lab]) -> None:
    s = lab(TIMED.format(revision="1.1", after_ms=1))
    r = s.rpc("SendStreamingMessage", {"message": message("x")})
    events = [e["result"] for e in data_events(r.text)]
    assert generation(events[0]["task"]) == 1, "a task starts at generation 1"
    later = [generation(next(iter(e.values()))) for e in events[1:]]
    assert later == list(range(2, 2 + len(later))) and len(later) == 3, events  # WORKING, the artifact, COMPLETED
    got = s.rpc("GetTask", {"id": events[0]["task"]["id"]}).json()["result"]
    assert generation(got) == later[-1] and got["status"]["state"] == "TASK_STATE_COMPLETED"


def test_http_json_carries_generations_too(lab: Callable[..., Lab]) -> None:
    s = lab(TIMED.format(revision="1.1", after_ms=1))
    task = s.http.post(f"{REST_PATH}/message:send", json={"message": message()}, headers=V1).json()["task"]
    assert generation(task) == 4 and task["status"]["state"] == "TASK_STATE_COMPLETED"  # blocking: to the end


def test_a_v1_0_1_server_carries_no_generation(lab: Callable[..., Lab]) -> None:
    s = lab(TIMED.format(revision="1.0.1", after_ms=1))
    r = s.rpc("SendStreamingMessage", {"message": message("x")})
    assert all("generation" not in next(iter(e["result"].values())) for e in data_events(r.text))


@pytest.mark.parametrize("binding", ["jsonrpc", "http+json"])
def test_get_task_with_current_generation_is_held_until_the_task_moves(lab: Callable[..., Lab], binding: str) -> None:
    s = lab(TIMED.format(revision="1.1", after_ms=300))
    sent = s.rpc("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}})
    task = sent.json()["result"]["task"]
    assert generation(task) == 1 and task["status"]["state"] == "TASK_STATE_SUBMITTED"

    def get(current: int) -> dict[str, Any]:
        if binding == "jsonrpc":
            out: dict[str, Any] = s.rpc("GetTask", {"id": task["id"], "currentGeneration": current}).json()["result"]
            return out
        r = s.http.get(f"{REST_PATH}/tasks/{task['id']}", params={"currentGeneration": str(current)}, headers=V1)
        answer: dict[str, Any] = r.json()
        return answer

    started = time.monotonic()
    moved = get(1)
    assert generation(moved) == 2 and moved["status"]["state"] == "TASK_STATE_WORKING"
    assert time.monotonic() - started >= 0.2, "held until time moved the task (300 ms after it was created)"
    immediately = get(0)  # already past: answered at once, as it is
    assert generation(immediately) >= 2
    done = get(generation(moved))
    while done["status"]["state"] != "TASK_STATE_COMPLETED":
        done = get(generation(done))
    assert generation(done) == 4


def test_a_long_poll_on_a_task_that_never_moves_answers_at_the_bound(lab: Callable[..., Lab]) -> None:
    s = lab(INTERRUPTED)
    task = s.send().json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED" and generation(task) == 2
    started = time.monotonic()
    got = s.rpc("GetTask", {"id": task["id"], "currentGeneration": 2}).json()["result"]
    assert generation(got) == 2 and time.monotonic() - started >= 2.5  # generations.HOLD_S, 3 s


def test_if_generation_match_refuses_a_stale_follow_up(lab: Callable[..., Lab]) -> None:
    s = lab(INTERRUPTED)
    task = s.send().json()["result"]["task"]
    ids = {"taskId": task["id"], "contextId": task["contextId"]}
    stale = {"message": message("more", "m-2", **ids), "configuration": {"ifGenerationMatch": "1"}}
    refused = s.rpc("SendMessage", stale).json()["error"]
    assert refused["code"] == -32010 and refused["data"][0]["reason"] == "TASK_GENERATION_MISMATCH", refused
    assert refused["data"][0]["metadata"] == {"taskId": task["id"], "expectedGeneration": "1", "currentGeneration": "2"}
    rest = s.http.post(f"{REST_PATH}/message:send", json=stale, headers=V1)
    assert (rest.status_code, rest.json()["error"]["status"]) == (409, "ABORTED"), rest.text
    fresh = {"message": message("more", "m-3", **ids), "configuration": {"ifGenerationMatch": 2}}
    done = s.rpc("SendMessage", fresh).json()["result"]["task"]
    assert done["status"]["state"] == "TASK_STATE_COMPLETED" and len(done["artifacts"]) == 1
    assert generation(done) == 4, "two changes: the (default) artifact, then COMPLETED"


def test_if_generation_match_is_ignored_for_a_new_task_and_by_a_v1_0_1_server(lab: Callable[..., Lab]) -> None:
    s = lab(INTERRUPTED)
    new = s.rpc("SendMessage", {"message": message(), "configuration": {"ifGenerationMatch": 9}}).json()
    assert new["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", new
    older = lab(INTERRUPTED.replace('"1.1"', '"1.0.1"'), name="older.yaml")
    task = older.send().json()["result"]["task"]
    ids = {"taskId": task["id"], "contextId": task["contextId"]}
    follow = {"message": message("more", "m-2", **ids), "configuration": {"ifGenerationMatch": 1}}
    assert older.rpc("SendMessage", follow).json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_an_unknown_revision_is_refused_with_the_revisions_named(lab: Callable[..., Lab]) -> None:
    with pytest.raises(ScenarioError) as err:
        lab('spec_revision: "1.1-dev"\n')
    assert "spec_revision" in str(err.value) and '"1.1"' in str(err.value)


def test_a_task_that_get_task_moves_is_answered_at_once(lab: Callable[..., Lab]) -> None:
    """`advance: get_task`: the GetTask itself moves the task, so holding it would keep the task still."""
    s = lab('spec_revision: "1.1"\ntask:\n  steps: [SUBMITTED, WORKING, COMPLETED]\n  returns: first\n')
    task = s.send().json()["result"]["task"]
    started = time.monotonic()
    got = s.rpc("GetTask", {"id": task["id"], "currentGeneration": "1"}).json()["result"]
    assert got["status"]["state"] == "TASK_STATE_WORKING" and generation(got) == 2
    assert time.monotonic() - started < 2.0, "not held to the bound"


def test_a_0_3_client_of_a_1_1_server_sees_no_generation(lab: Callable[..., Lab]) -> None:
    """Generations are a 1.1 member: the 0.3 forms of tasks and events carry none."""
    s = lab(TIMED.format(revision="1.1", after_ms=1))
    r = s.rpc("message/stream", {"message": message03("x")}, version=None)
    events = [e["result"] for e in data_events(r.text)]
    assert [e["kind"] for e in events] == ["task", "status-update", "artifact-update", "status-update"], events
    assert all("generation" not in e for e in events)
    got = s.rpc("tasks/get", {"id": events[0]["id"]}, version=None).json()["result"]
    assert got["status"]["state"] == "completed" and "generation" not in got


def test_a_malformed_generation_is_refused_by_a_1_1_server_only(lab: Callable[..., Lab]) -> None:
    draft = lab(INTERRUPTED)
    task = draft.send().json()["result"]["task"]
    bad = draft.rpc("GetTask", {"id": task["id"], "currentGeneration": "soon"}).json()["error"]
    assert bad["code"] == -32602 and "currentGeneration" in bad["message"], bad
    ids = {"taskId": task["id"], "contextId": task["contextId"]}
    follow = {"message": message("more", "m-2", **ids), "configuration": {"ifGenerationMatch": -1}}
    refused = draft.rpc("SendMessage", follow).json()["error"]
    assert refused["code"] == -32602 and "ifGenerationMatch" in refused["message"], refused
    older = lab(INTERRUPTED.replace('"1.1"', '"1.0.1"'), name="older.yaml")
    other = older.send().json()["result"]["task"]
    got = older.rpc("GetTask", {"id": other["id"], "currentGeneration": "soon"}).json()
    assert got["result"]["id"] == other["id"], "an unknown member to a v1.0.1 server"
