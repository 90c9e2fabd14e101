"""`spec_revision`: a server of spec revision v1.0.0 or v1.0.1, over real HTTP (uvicorn on loopback, port 0).

v1.0.0 answers HTTP+JSON (and push notifications) as application/json and maps TaskNotCancelable,
ContentTypeNotSupported and InvalidAgentResponse to 409, 415 and 502; v1.0.1 answers application/a2a+json and 400,
400, 500 (notes D3, D5). JSON-RPC is the same in both."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from a2a_lab.contract.loader import ScenarioError

from .helpers import REST_PATH, Lab, Receiver, data_events, message

V1 = {"A2A-Version": "1.0"}

#: Every GetTask answers InvalidAgentResponse; a message with "blocking" completes (the default task).
BODY = """\
spec_revision: "{revision}"
behaviour:
  GetTask:
    - reply: {{error: InvalidAgentResponse}}
"""


@dataclass(frozen=True)
class Revision:
    name: str
    media_type: str
    not_cancelable: int
    content_type_not_supported: int
    invalid_agent_response: int


V1_0_0 = Revision("1.0.0", "application/json", 409, 415, 502)
V1_0_1 = Revision("1.0.1", "application/a2a+json", 400, 400, 500)


def rest_error(r: httpx.Response, status: int, media_type: str, reason: str, grpc: str) -> dict[str, Any]:
    assert (r.status_code, r.headers["content-type"]) == (status, media_type), r.text
    error: dict[str, Any] = r.json()["error"]
    assert error["code"] == status and error["status"] == grpc and error["details"][0]["reason"] == reason
    return error


@pytest.mark.parametrize("rev", [V1_0_0, V1_0_1], ids=lambda r: r.name)
def test_http_json_answers_as_the_revision_says(lab: Callable[..., Lab], rev: Revision) -> None:
    s = lab(BODY.format(revision=rev.name))
    sent = s.http.post(f"{REST_PATH}/message:send", json={"message": message("done")}, headers=V1)
    assert (sent.status_code, sent.headers["content-type"]) == (200, rev.media_type)
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    cancel = s.http.post(f"{REST_PATH}/tasks/{task['id']}:cancel", json={}, headers=V1)
    rest_error(cancel, rev.not_cancelable, rev.media_type, "TASK_NOT_CANCELABLE", "FAILED_PRECONDITION")
    plain = s.http.post(f"{REST_PATH}/message:send", content=b"{}", headers={**V1, "content-type": "text/plain"})
    rest_error(plain, rev.content_type_not_supported, rev.media_type, "CONTENT_TYPE_NOT_SUPPORTED", "INVALID_ARGUMENT")
    got = s.http.get(f"{REST_PATH}/tasks/{task['id']}", headers=V1)
    rest_error(got, rev.invalid_agent_response, rev.media_type, "INVALID_AGENT_RESPONSE", "INTERNAL")
    unsupported = s.http.post(f"{REST_PATH}/tasks/{task['id']}:subscribe", headers=V1)
    grpc = "UNIMPLEMENTED" if rev is V1_0_0 else "FAILED_PRECONDITION"  # the body names the revision's gRPC status
    rest_error(unsupported, 400, rev.media_type, "UNSUPPORTED_OPERATION", grpc)


@pytest.mark.parametrize("rev", [V1_0_0, V1_0_1], ids=lambda r: r.name)
def test_json_rpc_is_the_same_in_both(lab: Callable[..., Lab], rev: Revision) -> None:
    s = lab(BODY.format(revision=rev.name))
    sent = s.send("done")
    assert (sent.status_code, sent.headers["content-type"]) == (200, "application/json")
    task = sent.json()["result"]["task"]
    cancel = s.rpc("CancelTask", {"id": task["id"]})
    assert (cancel.status_code, cancel.headers["content-type"]) == (200, "application/json")
    assert cancel.json()["error"]["code"] == -32002
    assert s.rpc("GetTask", {"id": task["id"]}).json()["error"]["code"] == -32006


@pytest.mark.parametrize("rev", [V1_0_0, V1_0_1], ids=lambda r: r.name)
def test_push_notifications_use_the_revision_s_media_type(
    lab: Callable[..., Lab], receiver: Callable[..., Receiver], rev: Revision
) -> None:
    hook = receiver()
    s = lab(f'spec_revision: "{rev.name}"\n')
    config = {"url": hook.url("hook")}
    s.rpc("SendMessage", {"message": message("pushed"), "configuration": {"taskPushNotificationConfig": config}})
    deliveries = hook.wait(3)
    assert {headers["content-type"] for _, headers, _ in deliveries} == {rev.media_type}


def test_a_stream_error_event_names_the_revision_s_status(lab: Callable[..., Lab]) -> None:
    s = lab(
        'spec_revision: "1.0.0"\n'
        "behaviour: {SendStreamingMessage: {reply: {stream: {error_after: 1, error: UnsupportedOperation}}}}\n"
    )
    r = s.http.post(f"{REST_PATH}/message:stream", json={"message": message("go")}, headers=V1)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    error = data_events(r.text)[-1]["error"]
    assert (error["code"], error["status"]) == (400, "UNIMPLEMENTED")


def test_an_unknown_revision_is_refused_with_a_hint(lab: Callable[..., Lab]) -> None:
    with pytest.raises(
        ScenarioError,
        match=r"spec_revision: unknown spec revision 1\.0[\s\S]*\"1\.0\.0\", \"1\.0\.1\", \"1\.0\.2\" or \"1\.1\"",
    ):
        lab("spec_revision: 1.0\n")
