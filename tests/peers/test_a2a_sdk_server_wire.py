"""Cross-check a2a-lab's wire format against the official a2a-sdk 1.3.0 *server*.

The same requests go to a real a2a-sdk server (DefaultRequestHandler + its Starlette routes, with a
tiny echo executor) and to a2a-lab's spec/conformant, both under uvicorn on loopback port 0. After the
values that must differ (generated ids, timestamps) are checked and replaced by placeholders, the two
answers must be identical. Differences we accept are named where they are allowed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..personas.fidelity import JSONRPC, REST, V10, Peer
from ..personas.sdk13 import sdk13_server

HEADERS = {"A2A-Version": "1.0"}
TEXT = "cross-check me"
RFC3339_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
GENERATED_IDS = ("id", "contextId", "taskId")
SDK = "a2a-sdk 1.3.0"  # the real server's peer name


@pytest.fixture
def sdk_server() -> Iterator[Peer]:
    with sdk13_server(compat=False) as peer:
        yield peer


@pytest.fixture
def lab_server(serve) -> Peer:
    served = serve("spec/conformant")
    return Peer("a2a-lab", served.url, {(JSONRPC, V10): "/a2a/jsonrpc", (REST, V10): "/a2a/rest"})


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10, trust_env=False) as client:
        yield client


def send_params(message_id: str) -> dict[str, Any]:
    return {"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": TEXT}]}, "configuration": {}}


def rpc(http: httpx.Client, peer: Peer, method: str, params: dict[str, Any], req_id: str) -> dict[str, Any]:
    response = http.post(
        peer.url(JSONRPC, V10),
        json={"jsonrpc": "2.0", "id": req_id, "method": method, "params": params},
        headers=HEADERS,
    )
    assert response.status_code == 200, (peer.name, response.text)
    assert response.headers["content-type"].split(";")[0] == "application/json", peer.name
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == req_id, (peer.name, body)
    return body


def normalise(value: Any, ids: dict[str, str]) -> Any:
    """Generated ids become <id1>, <id2>… in order of appearance (so equal ids stay equal); timestamps become <ts>.

    Checks each on the way: ids are non-empty strings, timestamps RFC 3339 in UTC with a `Z`.
    """
    if isinstance(value, list):
        return [normalise(v, ids) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in GENERATED_IDS and not isinstance(item, (dict, list)):
            assert isinstance(item, str) and item, f"{key} must be a non-empty string, got {item!r}"
            out[key] = ids.setdefault(item, f"<id{len(ids) + 1}>")
        elif key == "timestamp":
            assert isinstance(item, str) and RFC3339_Z.match(item), f"timestamp {item!r}"
            out[key] = "<ts>"
        else:
            out[key] = normalise(item, ids)
    return out


def expected_completed_task(message_id: str) -> dict[str, Any]:
    return {
        "id": "<id1>",
        "contextId": "<id2>",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "<ts>"},
        "artifacts": [{"artifactId": "result", "name": "result", "parts": [{"text": f"echo: {TEXT}"}]}],
        "history": [
            {
                "messageId": message_id,
                "contextId": "<id2>",
                "taskId": "<id1>",
                "role": "ROLE_USER",
                "parts": [{"text": TEXT}],
            }
        ],
    }


def sse_data(response: httpx.Response) -> list[Any]:
    """The JSON of each `data:` field, in order (comments and blank lines skipped)."""
    events, data = [], []
    for line in response.iter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip(" "))
        elif line == "" and data:
            events.append(json.loads("\n".join(data)))
            data = []
    if data:
        events.append(json.loads("\n".join(data)))
    return events


# --------------------------------------------------------------------------- JSON-RPC 1.0


def test_jsonrpc_send_message_and_get_task_match_the_sdk_server(
    sdk_server: Peer, lab_server: Peer, http: httpx.Client
) -> None:
    answers = {}
    for peer in (sdk_server, lab_server):
        sent = rpc(http, peer, "SendMessage", send_params("wire-1"), "req-send")
        assert list(sent["result"]) == ["task"], peer.name  # the oneof wrapper
        task = sent["result"]["task"]
        got = rpc(http, peer, "GetTask", {"id": task["id"]}, "req-get")
        ids: dict[str, str] = {}
        answers[peer.name] = (normalise(sent["result"], ids), normalise(got["result"], ids))

    assert answers["a2a-lab"] == answers[SDK]
    sent_result, got_result = answers[SDK]
    assert sent_result == {"task": expected_completed_task("wire-1")}
    assert got_result == expected_completed_task("wire-1")  # GetTask: the task unwrapped, same ids


def test_jsonrpc_streaming_events_match_the_sdk_server(sdk_server: Peer, lab_server: Peer, http: httpx.Client) -> None:
    streams = {}
    for peer in (sdk_server, lab_server):
        request = {
            "jsonrpc": "2.0",
            "id": "req-stream",
            "method": "SendStreamingMessage",
            "params": send_params("wire-2"),
        }
        with http.stream(
            "POST", peer.url(JSONRPC, V10), json=request, headers={**HEADERS, "Accept": "text/event-stream"}
        ) as response:
            assert response.status_code == 200, peer.name
            assert response.headers["content-type"].split(";")[0] == "text/event-stream", peer.name
            events = sse_data(response)
        assert all(e["jsonrpc"] == "2.0" and e["id"] == "req-stream" for e in events), peer.name
        ids: dict[str, str] = {}
        streams[peer.name] = [normalise(e["result"], ids) for e in events]

    assert streams["a2a-lab"] == streams[SDK]
    kinds = [next(iter(e)) for e in streams[SDK]]
    assert kinds == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    assert [e["statusUpdate"]["status"]["state"] for e in streams[SDK] if "statusUpdate" in e] == [
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]
    assert streams[SDK][2]["artifactUpdate"]["artifact"]["parts"] == [{"text": f"echo: {TEXT}"}]
    assert "final" not in streams[SDK][3]["statusUpdate"]  # 1.0 has no `final` flag


def test_jsonrpc_task_not_found_error_matches_the_sdk_server(
    sdk_server: Peer, lab_server: Peer, http: httpx.Client
) -> None:
    errors = {}
    for peer in (sdk_server, lab_server):
        body = rpc(http, peer, "GetTask", {"id": "no-such-task"}, "req-missing")
        assert "result" not in body, peer.name
        error = body["error"]
        assert isinstance(error["message"], str) and error["message"].startswith("Task not found"), (peer.name, error)
        # Messages and ErrorInfo metadata may differ (a2a-lab names the id); code and ErrorInfo identity may not.
        errors[peer.name] = (error["code"], [{k: d[k] for k in ("@type", "reason", "domain")} for d in error["data"]])

    assert errors["a2a-lab"] == errors[SDK]
    assert errors[SDK] == (
        -32001,
        [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
            }
        ],
    )


# --------------------------------------------------------------------------- HTTP+JSON 1.0


def test_rest_send_message_and_get_task_match_the_sdk_server(
    sdk_server: Peer, lab_server: Peer, http: httpx.Client
) -> None:
    answers = {}
    for peer in (sdk_server, lab_server):
        sent = http.post(peer.url(REST, V10, "/message:send"), json=send_params("wire-3"), headers=HEADERS)
        assert (sent.status_code, sent.headers["content-type"].split(";")[0]) == (200, "application/a2a+json"), (
            peer.name,
            sent.text,
        )
        task_id = sent.json()["task"]["id"]
        got = http.get(peer.url(REST, V10, f"/tasks/{task_id}"), headers=HEADERS)
        assert (got.status_code, got.headers["content-type"].split(";")[0]) == (200, "application/a2a+json"), (
            peer.name,
            got.text,
        )
        ids: dict[str, str] = {}
        answers[peer.name] = (normalise(sent.json(), ids), normalise(got.json(), ids))

    assert answers["a2a-lab"] == answers[SDK]
    assert answers[SDK] == ({"task": expected_completed_task("wire-3")}, expected_completed_task("wire-3"))


def test_rest_task_not_found_matches_the_sdk_server(sdk_server: Peer, lab_server: Peer, http: httpx.Client) -> None:
    errors = {}
    for peer in (sdk_server, lab_server):
        response = http.get(peer.url(REST, V10, "/tasks/no-such-task"), headers=HEADERS)
        # Content types differ and both are JSON: the SDK answers errors as application/json, a2a-lab as
        # application/a2a+json.
        assert response.headers["content-type"].split(";")[0] in ("application/json", "application/a2a+json"), peer.name
        error = response.json()["error"]
        errors[peer.name] = (
            response.status_code,
            error["code"],
            error["status"],
            [{k: d[k] for k in ("@type", "reason", "domain")} for d in error["details"]],
        )

    assert errors["a2a-lab"] == errors[SDK]
    assert errors[SDK] == (
        404,
        404,
        "NOT_FOUND",
        [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
            }
        ],
    )
