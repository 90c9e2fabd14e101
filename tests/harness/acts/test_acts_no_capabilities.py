"""`spec/acts-sut-no-capabilities` (issue 46): the ACTS SUT whose card declares neither streaming nor push
notifications, served for real (uvicorn and gRPC on loopback, port 0) and run by `a2a-lab acts run` on every binding.
The draft's tests with a capability-absent precondition (CORE-CAP-001, CORE-CAP-002, PUSH-CFG-004) run on it and skip
on `spec/acts-sut`; it refuses streaming with UnsupportedOperationError and push configs with
PushNotificationNotSupportedError (A2A 1.0 §3.3.4), and serves §11.2's behaviours through SendMessage. The tests'
own suites below have the draft's shapes; the draft itself is never needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .test_acts import results, run, send, suite

VARIANT = "spec/acts-sut-no-capabilities"
NO_PUSH = {"capabilities": {"pushNotifications": False}}
NO_STREAMING = {"capabilities": {"streaming": False}}
CREATE: dict[str, Any] = {
    "id": "create",
    "operation": "send_message",
    "params": send("tck-complete-task for push"),
    "capture": {"taskId": "task.id"},
    "expect": {"status": 200, "body": {"task": {"id": {"type": "string"}}}},
}


def set_config(error: str) -> dict[str, Any]:
    return {
        "id": "set-config",
        "operation": "set_push_notification_config",
        "params": {"taskId": "{{create.taskId}}", "pushNotificationConfig": {"url": "https://example.com/hook"}},
        "expect_error": {"code": error},
    }


#: Push config on a card without push notifications: the A2A 1.0 error (§3.1.7, §3.3.4).
PUSH_REFUSED: dict[str, Any] = {
    "id": "CAP-PUSH",
    "name": "push config refused",
    "level": "must",
    "preconditions": NO_PUSH,
    "requires_behaviors": ["tck-complete-task"],
    "steps": [CREATE, set_config("PushNotificationNotSupportedError")],
}
#: Streaming and subscribing on a card without streaming (§3.1.2, §3.1.6).
STREAM_REFUSED: dict[str, Any] = {
    "id": "CAP-STREAM",
    "name": "streaming refused",
    "level": "should",
    "preconditions": NO_STREAMING,
    "requires_behaviors": ["tck-complete-task"],
    "steps": [
        {
            "id": "stream",
            "operation": "send_streaming_message",
            "params": send("tck-complete-task streaming unsupported"),
            "expect_error": {"code": "UnsupportedOperationError"},
        },
        {**CREATE, "params": send("tck-long-running then subscribe", configuration={"returnImmediately": True})},
        {
            "id": "subscribe",
            "operation": "subscribe_to_task",
            "params": {"id": "{{create.taskId}}"},
            "expect_error": {"code": "UnsupportedOperationError"},
        },
    ],
}
#: §11.2's behaviours still answer SendMessage (a direct message; a rejected task; a streaming prefix, unstreamed).
BEHAVIOURS: dict[str, Any] = {
    "id": "CAP-BEHAVIOURS",
    "name": "behaviours through SendMessage",
    "level": "must",
    "steps": [
        {
            "id": "message",
            "operation": "send_message",
            "params": send("tck-message-response hi"),
            "expect": {"body": {"message": {"role": "ROLE_AGENT"}}},
        },
        {
            "id": "reject",
            "operation": "send_message",
            "params": send("tck-reject-task no"),
            "expect": {"body": {"task": {"status": {"state": "TASK_STATE_REJECTED"}}}},
        },
        {
            "id": "chunked",
            "operation": "send_message",
            "params": send("tck-stream-chunked here"),
            "expect": {"body": {"task": {"status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": {"count": 1}}}},
        },
    ],
}


def test_the_capability_absent_tests_run_and_pass_on_every_binding(tmp_path: Path, serve: Any) -> None:
    served = serve(VARIANT)
    card = served.http.get(served.url + "/.well-known/agent-card.json").json()
    assert card["capabilities"] == {"streaming": False, "pushNotifications": False}
    code, reports = run(tmp_path, served.url, suite(PUSH_REFUSED, STREAM_REFUSED, BEHAVIOURS))
    assert set(reports) == {"jsonrpc", "rest", "grpc"}
    for transport, report in reports.items():
        got = results(report)
        assert {k: (v["result"], v.get("failure")) for k, v in got.items()} == dict.fromkeys(got, ("pass", None)), (
            transport
        )
    assert code == 0


def test_on_acts_sut_the_same_tests_skip_by_their_precondition(tmp_path: Path, serve: Any) -> None:
    """The reason for the variant: the card of spec/acts-sut declares both, so these tests never run there."""
    served = serve("spec/acts-sut")
    _, reports = run(tmp_path, served.url, suite(PUSH_REFUSED, STREAM_REFUSED), "--binding", "jsonrpc")
    got = results(reports["jsonrpc"])
    assert {k: (v["result"], v.get("skip_category")) for k, v in got.items()} == {
        "CAP-PUSH": ("skip", "precondition"),
        "CAP-STREAM": ("skip", "precondition"),
    }


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "grpc"])
def test_the_drafts_push_expectation_fails_on_the_a2a_error(tmp_path: Path, serve: Any, binding: str) -> None:
    """The draft's CORE-CAP-001 and PUSH-CFG-004 want UnsupportedOperationError for a push config on this card; the
    variant answers PushNotificationNotSupportedError (-32003), as A2A 1.0 §3.1.7 says, and the test fails on it."""
    served = serve(VARIANT)
    drafts = {**PUSH_REFUSED, "id": "CORE-CAP-001", "steps": [CREATE, set_config("UnsupportedOperationError")]}
    code, reports = run(tmp_path, served.url, suite(drafts), "--binding", binding)
    failure = results(reports[binding])["CORE-CAP-001"]["failure"]
    assert code == 1
    assert failure["step_id"] == "set-config" and failure["actual"] == "PushNotificationNotSupportedError"
    assert "-32003" in failure["message"], json.dumps(failure)
