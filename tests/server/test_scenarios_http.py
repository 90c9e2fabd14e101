"""The catalogue scenarios over real HTTP (uvicorn on loopback, port 0) with httpx."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.guard import AdminGuard
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp

from .helpers import client, data_events, message, message03

RPC = "/a2a/jsonrpc"
REST = "/a2a/rest"
V1 = {"A2A-Version": "1.0"}
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


def result(response: httpx.Response, req_id: Any = 1) -> Any:
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == req_id and "error" not in body, body
    return body["result"]


def rpc_error(response: httpx.Response, code: int, req_id: Any = 1) -> dict[str, Any]:
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == req_id and "result" not in body, body
    assert body["error"]["code"] == code and isinstance(body["error"]["message"], str), body
    return body["error"]


def reason(error: dict[str, Any]) -> str:
    (info,) = [d for d in error["data"] if d["@type"] == ERROR_INFO]
    assert info["domain"] == "a2a-protocol.org"
    return info["reason"]


def status_error(response: httpx.Response, http_status: int, grpc_status: str) -> dict[str, Any]:
    assert response.status_code == http_status, response.text
    error = response.json()["error"]
    assert error["code"] == http_status and error["status"] == grpc_status and isinstance(error["message"], str)
    return error


def send(served: Any, text: str = "hi", **params: Any) -> dict[str, Any]:
    """SendMessage (1.0 JSON-RPC) and the task it answers."""
    return result(served.rpc(RPC, "SendMessage", {"message": message(text), **params}))["task"]


Serve = Callable[[str], Any]


# ==================================================================================== spec/conformant: the card


def test_card_with_etag_and_cache_control(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.get(s.card_url)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert "max-age=" in r.headers["cache-control"]
    etag = r.headers["etag"]
    card = r.json()
    grpc_address = s.app.state.grpc_address  # started by the card request: its own loopback port
    assert grpc_address.startswith("127.0.0.1:") or s.app.grpc_unavailable
    assert [i["url"] for i in card["supportedInterfaces"]] == [
        f"{s.url}{RPC}",
        f"{s.url}{REST}",
        f"{s.url}{RPC}",
        f"{s.url}{REST}",
        grpc_address,
    ]
    assert card["supportedInterfaces"][0] == {
        "url": f"{s.url}{RPC}",
        "protocolBinding": "JSONRPC",
        "protocolVersion": "1.0",
    }
    assert card["url"] == f"{s.url}{RPC}" and card["protocolVersion"] == "0.3"  # the dual card's 0.3 view
    assert card["capabilities"] == {"streaming": True, "pushNotifications": True}
    again = s.http.get(s.card_url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert "max-age=" in again.headers["cache-control"]
    stale = s.http.get(s.card_url, headers={"If-None-Match": 'W/"something-else"'})
    assert stale.status_code == 200 and stale.json() == card


def test_card_paths_and_verbs(serve: Serve) -> None:
    s = serve("spec/conformant")
    assert s.http.get("/.well-known/agent.json").status_code == 404  # the pre-0.3 path is not served by default
    assert s.http.post(s.card_url).status_code == 405
    head = s.http.head(s.card_url)
    assert head.status_code == 200 and head.content == b""
    kinds = [e["kind"] for e in s.journal]
    assert kinds == ["card", "card", "card"]


# ==================================================================================== spec/conformant: SendMessage


def test_send_message_v1_jsonrpc(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s, "ping", configuration={"acceptedOutputModes": ["text/plain"]})
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and task["status"]["timestamp"].endswith("Z")
    assert task["artifacts"] == [{"artifactId": "result", "name": "result", "parts": [{"text": "echo: ping"}]}]
    assert task["history"][0]["role"] == "ROLE_USER" and task["history"][0]["taskId"] == task["id"]
    assert task["contextId"] and "kind" not in task
    (entry,) = s.journal
    assert entry["operation"] == "SendMessage" and entry["version"] == "1.0" and entry["requested_version"] == "1.0"
    assert entry["answer"]["state"] == "TASK_STATE_COMPLETED" and entry["rpc"] == {"method": "SendMessage", "id": 1}


def test_send_message_keeps_the_client_context(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = result(s.rpc(RPC, "SendMessage", {"message": message("a", contextId="ctx-mine")}))["task"]
    assert task["contextId"] == "ctx-mine"


def test_send_message_history_length_zero(serve: Serve) -> None:
    s = serve("spec/conformant")
    assert "history" not in send(s, configuration={"historyLength": 0})


def test_send_message_return_immediately(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s, configuration={"returnImmediately": True})
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED" and "artifacts" not in task


def test_v03_message_send_without_header(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = result(s.rpc(RPC, "message/send", {"message": message03("old")}, version=None))
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"] == [{"kind": "text", "text": "echo: old"}]
    assert task["history"][0]["kind"] == "message" and task["history"][0]["role"] == "user"
    (entry,) = s.journal
    assert entry["version"] == "0.3" and entry["requested_version"] == "0.3"


def test_v03_message_send_with_a_0_3_header(serve: Serve) -> None:
    s = serve("spec/conformant")
    assert result(s.rpc(RPC, "message/send", {"message": message03()}, version="0.3"))["status"]["state"] == "completed"


@pytest.mark.parametrize(
    "content_type", ["application/a2a+json", "application/json", "application/json; charset=utf-8"]
)
def test_http_json_v1_send(serve: Serve, content_type: str) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        f"{REST}/message:send",
        content=json.dumps({"message": message("rest")}),
        headers={**V1, "content-type": content_type},
    )
    assert r.status_code == 200 and r.headers["content-type"] == "application/a2a+json"
    body = r.json()
    assert set(body) == {"task"} and body["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert body["task"]["artifacts"][0]["parts"] == [{"text": "echo: rest"}]


def test_http_json_v1_refuses_other_content_types(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        f"{REST}/message:send", content=json.dumps({"message": message()}), headers={**V1, "content-type": "text/plain"}
    )
    error = status_error(r, 400, "INVALID_ARGUMENT")
    assert error["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"


def test_http_json_v03_send_under_v1(serve: Serve) -> None:
    s = serve("spec/conformant")
    body = {"message": {"messageId": "m-1", "role": "ROLE_USER", "content": [{"text": "legacy rest"}]}}
    r = s.http.post(f"{REST}/v1/message:send", json=body)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    task = r.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and "kind" not in task
    assert task["history"][0]["content"] == [{"text": "legacy rest"}] and "parts" not in task["history"][0]
    assert task["artifacts"][0]["parts"] == [{"text": "echo: legacy rest"}]
    assert s.journal[-1]["version"] == "0.3" and s.journal[-1]["route"]["path"] == "/v1/message:send"


def test_http_json_v03_cancel_spells_cancelled(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s, configuration={"returnImmediately": True})
    r = s.http.post(f"{REST}/v1/tasks/{task['id']}:cancel", json={})
    assert r.status_code == 200 and r.json()["status"]["state"] == "TASK_STATE_CANCELLED"
    again = s.http.post(f"{REST}/v1/tasks/{task['id']}:cancel", json={})
    assert again.status_code == 409 and isinstance(again.json()["message"], str)  # 0.3 SDK status and body


# ==================================================================================== spec/conformant: tasks


def test_get_task_jsonrpc_and_rest(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s)
    got = result(s.rpc(RPC, "GetTask", {"id": task["id"]}))
    assert got == task
    assert "history" not in result(s.rpc(RPC, "GetTask", {"id": task["id"], "historyLength": 0}))
    r = s.http.get(f"{REST}/tasks/{task['id']}", headers=V1, params={"historyLength": 1})
    assert r.status_code == 200 and r.headers["content-type"] == "application/a2a+json" and r.json()["id"] == task["id"]
    assert len(r.json()["history"]) == 1
    r03 = result(s.rpc(RPC, "tasks/get", {"id": task["id"]}, version=None))
    assert r03["kind"] == "task" and r03["status"]["state"] == "completed"


def test_get_task_with_a_tenant_prefix(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s)
    r = s.http.get(f"{REST}/acme/tasks/{task['id']}", headers=V1)
    assert r.status_code == 200 and r.json()["id"] == task["id"]
    assert s.journal[-1]["route"]["tenant"] == "acme"


def test_get_task_unknown_id(serve: Serve) -> None:
    s = serve("spec/conformant")
    error = rpc_error(s.rpc(RPC, "GetTask", {"id": "no-such-task"}), -32001)
    assert reason(error) == "TASK_NOT_FOUND" and error["data"][0]["metadata"] == {"taskId": "no-such-task"}
    r = s.http.get(f"{REST}/tasks/no-such-task", headers=V1)
    assert status_error(r, 404, "NOT_FOUND")["details"][0]["reason"] == "TASK_NOT_FOUND"
    legacy = rpc_error(s.rpc(RPC, "tasks/get", {"id": "no-such-task"}, version=None), -32001)
    assert "data" not in legacy or not isinstance(legacy["data"], list)  # 0.3 has no google.rpc details


def test_list_tasks_pages_and_artifacts(serve: Serve) -> None:
    s = serve("spec/conformant")
    made = [send(s, f"t{i}")["id"] for i in range(3)]
    first = result(s.rpc(RPC, "ListTasks", {"pageSize": 2}))
    assert first["pageSize"] == 2 and first["totalSize"] == 3 and len(first["tasks"]) == 2
    assert first["nextPageToken"] != ""
    assert all("artifacts" not in t for t in first["tasks"]), "artifacts are omitted unless includeArtifacts"
    second = result(s.rpc(RPC, "ListTasks", {"pageSize": 2, "pageToken": first["nextPageToken"]}))
    assert len(second["tasks"]) == 1 and second["nextPageToken"] == ""  # present and empty on the last page
    assert {t["id"] for t in first["tasks"] + second["tasks"]} == set(made)
    stamps = [t["status"]["timestamp"] for t in first["tasks"] + second["tasks"]]
    assert stamps == sorted(stamps, reverse=True)
    with_art = result(s.rpc(RPC, "ListTasks", {"includeArtifacts": True}))
    assert with_art["nextPageToken"] == "" and all(
        t["artifacts"][0]["parts"][0]["text"].startswith("echo: t") for t in with_art["tasks"]
    )
    r = s.http.get(
        f"{REST}/tasks",
        headers=V1,
        params={"pageSize": 1, "includeArtifacts": "true", "status": "TASK_STATE_COMPLETED"},
    )
    assert (
        r.status_code == 200
        and len(r.json()["tasks"]) == 1
        and r.json()["tasks"][0]["artifacts"]
        and r.json()["nextPageToken"] == "1"
    )


def test_list_tasks_filters_and_validation(serve: Serve) -> None:
    s = serve("spec/conformant")
    send(s, configuration={"returnImmediately": True})
    send(s)
    working = result(s.rpc(RPC, "ListTasks", {"status": "TASK_STATE_SUBMITTED"}))
    assert working["totalSize"] == 1 and working["tasks"][0]["status"]["state"] == "TASK_STATE_SUBMITTED"
    error = rpc_error(s.rpc(RPC, "ListTasks", {"pageSize": 1000}), -32602)
    assert "params.pageSize" in error["message"]
    r = s.http.get(f"{REST}/tasks", headers=V1, params={"status": "working"})
    assert status_error(r, 400, "INVALID_ARGUMENT")["message"].count("status")


def test_cancel_rules(serve: Serve) -> None:
    s = serve("spec/conformant")
    running = send(s, configuration={"returnImmediately": True})
    canceled = result(s.rpc(RPC, "CancelTask", {"id": running["id"]}))
    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
    assert result(s.rpc(RPC, "GetTask", {"id": running["id"]}))["status"]["state"] == "TASK_STATE_CANCELED"
    done = send(s)
    error = rpc_error(s.rpc(RPC, "CancelTask", {"id": done["id"]}), -32002)
    assert reason(error) == "TASK_NOT_CANCELABLE"
    r = s.http.post(f"{REST}/tasks/{done['id']}:cancel", headers=V1, json={})
    assert status_error(r, 400, "FAILED_PRECONDITION")["details"][0]["reason"] == "TASK_NOT_CANCELABLE"
    assert result(s.rpc(RPC, "GetTask", {"id": done["id"]}))["status"]["state"] == "TASK_STATE_COMPLETED"
    rpc_error(s.rpc(RPC, "CancelTask", {"id": "ghost"}), -32001)


def test_subscribe_to_a_terminal_task(serve: Serve) -> None:
    s = serve("spec/conformant")
    done = send(s)
    error = rpc_error(s.rpc(RPC, "SubscribeToTask", {"id": done["id"]}), -32004)
    assert reason(error) == "UNSUPPORTED_OPERATION"
    r = s.http.post(f"{REST}/tasks/{done['id']}:subscribe", headers=V1)
    assert status_error(r, 400, "FAILED_PRECONDITION")["details"][0]["reason"] == "UNSUPPORTED_OPERATION"


def test_message_to_a_terminal_task(serve: Serve) -> None:
    s = serve("spec/conformant")
    done = send(s)
    r = s.rpc(RPC, "SendMessage", {"message": message("again", taskId=done["id"])})
    assert reason(rpc_error(r, -32004)) == "UNSUPPORTED_OPERATION"
    rpc_error(s.rpc(RPC, "SendMessage", {"message": message("x", taskId="ghost")}), -32001)


def test_subscribe_to_a_running_task_follows_it_to_the_end(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s, "live", configuration={"returnImmediately": True})
    body = {"jsonrpc": "2.0", "id": "sub", "method": "SubscribeToTask", "params": {"id": task["id"]}}
    with client(s.url) as other, s.http.stream("POST", RPC, json=body, headers=V1) as stream:
        assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        first = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
        assert first["id"] == "sub" and first["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
        # Each GetTask moves the task one step; the subscriber sees the events live.
        for _ in range(2):
            assert (
                other.post(
                    RPC, json={"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task["id"]}}, headers=V1
                ).status_code
                == 200
            )
        rest = [
            json.loads(line[5:])["result"] for line in lines if line.startswith("data:")
        ]  # ends when the server closes
    assert [next(iter(e)) for e in rest] == ["statusUpdate", "artifactUpdate", "statusUpdate"]
    assert rest[0]["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
    assert rest[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert rest[1]["artifactUpdate"]["artifact"]["parts"] == [{"text": "echo: live"}]


# ==================================================================================== spec/conformant: push configs


def test_push_configs_v1(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s)
    cfg = {
        "taskId": task["id"],
        "id": "cfg-1",
        "url": "http://127.0.0.1:9/hook",
        "token": "tok",
        "authentication": {"scheme": "Bearer", "credentials": "secret"},
    }
    created = result(s.rpc(RPC, "CreateTaskPushNotificationConfig", cfg))
    assert created == cfg
    generated = result(
        s.rpc(RPC, "CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": "http://localhost:9/other"})
    )
    assert generated["id"] and generated["id"] != "cfg-1" and generated["taskId"] == task["id"]
    assert result(s.rpc(RPC, "GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"})) == cfg
    listed = result(s.rpc(RPC, "ListTaskPushNotificationConfigs", {"taskId": task["id"]}))
    assert [c["id"] for c in listed["configs"]] == ["cfg-1", generated["id"]] and listed["nextPageToken"] == ""
    assert result(s.rpc(RPC, "DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"})) == {}
    assert (
        result(s.rpc(RPC, "DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"})) == {}
    )  # idempotent
    assert (
        reason(rpc_error(s.rpc(RPC, "GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"}), -32001))
        == "TASK_NOT_FOUND"
    )
    assert [
        c["id"] for c in result(s.rpc(RPC, "ListTaskPushNotificationConfigs", {"taskId": task["id"]}))["configs"]
    ] == [generated["id"]]
    rpc_error(s.rpc(RPC, "ListTaskPushNotificationConfigs", {"taskId": "ghost"}), -32001)


def test_push_configs_v1_over_rest(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = send(s)
    base = f"{REST}/tasks/{task['id']}/pushNotificationConfigs"
    r = s.http.post(base, headers=V1, json={"id": "c", "url": "http://127.0.0.1:9/h"})
    assert r.status_code == 200 and r.json() == {"id": "c", "url": "http://127.0.0.1:9/h", "taskId": task["id"]}
    assert s.http.get(f"{base}/c", headers=V1).json()["url"] == "http://127.0.0.1:9/h"
    assert [c["id"] for c in s.http.get(base, headers=V1).json()["configs"]] == ["c"]
    assert s.http.delete(f"{base}/c", headers=V1).json() == {}
    assert s.http.get(f"{base}/c", headers=V1).status_code == 404


def test_push_configs_v03(serve: Serve) -> None:
    s = serve("spec/conformant")
    task = result(s.rpc(RPC, "message/send", {"message": message03()}, version=None))
    inner = {"id": "p03", "url": "http://127.0.0.1:9/h", "authentication": {"schemes": ["Bearer"], "credentials": "z"}}
    created = result(
        s.rpc(
            RPC,
            "tasks/pushNotificationConfig/set",
            {"taskId": task["id"], "pushNotificationConfig": inner},
            version=None,
        )
    )
    assert created == {"taskId": task["id"], "pushNotificationConfig": inner}
    got = result(
        s.rpc(
            RPC, "tasks/pushNotificationConfig/get", {"id": task["id"], "pushNotificationConfigId": "p03"}, version=None
        )
    )
    assert got == created
    listed = result(s.rpc(RPC, "tasks/pushNotificationConfig/list", {"id": task["id"]}, version=None))
    assert listed == [created]  # a bare array in 0.3
    assert (
        result(
            s.rpc(
                RPC,
                "tasks/pushNotificationConfig/delete",
                {"id": task["id"], "pushNotificationConfigId": "p03"},
                version=None,
            )
        )
        is None
    )
    assert result(s.rpc(RPC, "tasks/pushNotificationConfig/list", {"id": task["id"]}, version=None)) == []


def test_push_config_to_a_non_loopback_url_is_kept_but_never_called(serve: Serve) -> None:
    """SSRF (§13.2): the config is stored (CRUD works as the spec says), but nothing is delivered to that host."""
    s = serve("spec/conformant")
    task = send(s)
    stored = result(
        s.rpc(RPC, "CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": "http://10.1.2.3/hook"})
    )
    assert stored["url"] == "http://10.1.2.3/hook"
    assert [
        c["url"] for c in result(s.rpc(RPC, "ListTaskPushNotificationConfigs", {"taskId": task["id"]}))["configs"]
    ] == ["http://10.1.2.3/hook"]
    assert not [e for e in s.journal if e["kind"] == "push" and "status" in e.get("response", {})]


# ==================================================================================== spec/conformant: streaming


def test_stream_v1_jsonrpc(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        RPC,
        json={"jsonrpc": "2.0", "id": "s-1", "method": "SendStreamingMessage", "params": {"message": message("flow")}},
        headers=V1,
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = data_events(r.text)
    assert all(e["jsonrpc"] == "2.0" and e["id"] == "s-1" and "error" not in e for e in events)
    results = [e["result"] for e in events]
    kinds = [next(iter(x)) for x in results]
    assert kinds == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    task_id = results[0]["task"]["id"]
    assert results[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert [x["statusUpdate"]["status"]["state"] for x in results if "statusUpdate" in x] == [
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]
    assert all(x[k]["taskId"] == task_id for x, k in zip(results[1:], kinds[1:], strict=True))
    assert all(
        "final" not in x["statusUpdate"] and "kind" not in x["statusUpdate"] for x in results if "statusUpdate" in x
    )
    assert results[2]["artifactUpdate"]["artifact"]["parts"] == [{"text": "echo: flow"}]
    assert s.journal[-1]["response"]["closed"] == "complete"
    assert result(s.rpc(RPC, "GetTask", {"id": task_id}))["status"]["state"] == "TASK_STATE_COMPLETED"


def test_stream_v1_rest(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(f"{REST}/message:stream", json={"message": message("rs")}, headers=V1)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = data_events(r.text)
    assert [next(iter(e)) for e in events] == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    assert all(len(e) == 1 and "jsonrpc" not in e for e in events)  # bare StreamResponse objects
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_stream_v03_jsonrpc_has_final(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        RPC, json={"jsonrpc": "2.0", "id": 5, "method": "message/stream", "params": {"message": message03("old")}}
    )
    events = [e["result"] for e in data_events(r.text)]
    assert [e["kind"] for e in events] == ["task", "status-update", "artifact-update", "status-update"]
    assert events[0]["status"]["state"] == "submitted"
    updates = [e for e in events if e["kind"] == "status-update"]
    assert [(u["status"]["state"], u["final"]) for u in updates] == [("working", False), ("completed", True)]
    assert events[2]["artifact"]["parts"] == [{"kind": "text", "text": "echo: old"}]


def test_stream_v03_rest(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        f"{REST}/v1/message:stream",
        json={"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}]}},
    )
    events = data_events(r.text)
    assert [next(iter(e)) for e in events] == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    assert (
        events[-1]["statusUpdate"]["final"] is True
        and events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    )


# ==================================================================================== spec/conformant: versions


def test_v1_method_without_a_version_header(serve: Serve) -> None:
    s = serve("spec/conformant")
    error = rpc_error(s.rpc(RPC, "SendMessage", {"message": message()}, version=None), -32009)
    assert reason(error) == "VERSION_NOT_SUPPORTED" and "A2A-Version" in error["message"]
    r = s.http.post(f"{REST}/message:send", json={"message": message()})
    assert status_error(r, 400, "FAILED_PRECONDITION")["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    assert s.app.state.engine.tasks == {}, "a refused call creates nothing"


@pytest.mark.parametrize("version", ["2.0", "1.1", "0.2", "latest", "1"])
def test_unsupported_versions(serve: Serve, version: str) -> None:
    s = serve("spec/conformant")
    assert (
        reason(rpc_error(s.rpc(RPC, "SendMessage", {"message": message()}, version=version), -32009))
        == "VERSION_NOT_SUPPORTED"
    )


def test_patch_version_header_is_accepted(serve: Serve) -> None:
    s = serve("spec/conformant")
    assert (
        result(s.rpc(RPC, "SendMessage", {"message": message()}, version="1.0.1"))["task"]["status"]["state"]
        == "TASK_STATE_COMPLETED"
    )
    assert s.journal[-1]["requested_version"] == "1.0"


def test_version_as_a_query_parameter(serve: Serve) -> None:
    s = serve("spec/conformant")
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}}
    assert result(s.http.post(RPC, params={"A2A-Version": "1.0"}, json=body))["task"]
    task = s.app.state.engine.tasks
    (task_id,) = task
    r = s.http.get(f"{REST}/tasks/{task_id}", params={"A2A-Version": "1.0"})
    assert r.status_code == 200 and r.json()["id"] == task_id


def test_v03_method_under_a_v1_header(serve: Serve) -> None:
    s = serve("spec/conformant")
    rpc_error(s.rpc(RPC, "message/send", {"message": message03()}, version="1.0"), -32601)


# ==================================================================================== spec/conformant: bad requests


def test_malformed_json(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(RPC, content=b'{"jsonrpc": "2.0", "id": 4,', headers={**V1, "content-type": "application/json"})
    assert r.status_code == 200
    rpc_error(r, -32700, req_id=None)


@pytest.mark.parametrize(
    ("body", "req_id"),
    [
        ({"jsonrpc": "1.0", "id": 3, "method": "SendMessage"}, 3),
        ({"id": 3, "method": "SendMessage"}, 3),
        ({"jsonrpc": "2.0", "id": 3}, 3),
        ({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": "x"}, 3),
        ({"jsonrpc": "2.0", "id": {"no": 1}, "method": "SendMessage"}, None),
        ({"jsonrpc": "2.0", "method": "SendMessage", "params": {}}, None),  # a notification: A2A needs an id
        ([{"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}], None),  # batch
        ("SendMessage", None),
    ],
)
def test_invalid_envelopes(serve: Serve, body: Any, req_id: Any) -> None:
    s = serve("spec/conformant")
    rpc_error(s.http.post(RPC, json=body, headers=V1), -32600, req_id=req_id)


def test_unknown_method(serve: Serve) -> None:
    s = serve("spec/conformant")
    error = rpc_error(s.rpc(RPC, "SendMesage", {}, req_id="x"), -32601, req_id="x")
    assert "SendMesage" in error["message"]


def test_bad_params_name_the_field(serve: Serve) -> None:
    s = serve("spec/conformant")
    bad = {**message(), "role": "user"}
    error = rpc_error(s.rpc(RPC, "SendMessage", {"message": bad}), -32602)
    assert "params.message.role" in error["message"]
    violation = next(d for d in error["data"] if d["@type"] == "type.googleapis.com/google.rpc.BadRequest")
    assert violation["fieldViolations"][0]["field"] == "params.message.role"
    r = s.http.post(f"{REST}/message:send", json={"message": bad}, headers=V1)
    assert "message.role" in status_error(r, 400, "INVALID_ARGUMENT")["message"]


def test_wrong_content_type_and_verb_on_jsonrpc(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        RPC,
        content=b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
        headers={**V1, "content-type": "text/plain"},
    )
    assert r.status_code == 200 and rpc_error(r, -32005, req_id=None)
    r = s.http.get(RPC, headers=V1)
    assert r.status_code == 405 and rpc_error(r, -32600, req_id=None)


def test_body_over_the_limit(serve: Serve) -> None:
    s = serve("spec/conformant")
    limit = s.app.scenario.limits.body_bytes
    big = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("x" * limit)}}
    r = s.http.post(RPC, json=big, headers=V1)
    assert r.status_code == 413 and rpc_error(r, -32600, req_id=None)
    r = s.http.post(f"{REST}/message:send", json={"message": message("x" * limit)}, headers=V1)
    assert r.status_code == 413 and r.json()["error"]["code"] == 413
    assert [e.get("body_too_large") for e in s.journal] == [True, True]
    assert s.app.state.engine.tasks == {}


def test_rest_wrong_verb_and_unknown_route(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.put(f"{REST}/tasks/x", headers=V1)
    error = status_error(r, 405, "UNIMPLEMENTED")
    assert "GET" in error["message"]
    r = s.http.get(f"{REST}/no/such/route", headers=V1)
    status_error(r, 404, "NOT_FOUND")
    assert s.journal[-1]["unmatched"] is True


def test_unknown_path_is_404_and_marked_unmatched(serve: Serve) -> None:
    s = serve("spec/conformant")
    r = s.http.post("/somewhere/else", json={"a": 1}, headers={"Authorization": "Bearer abc"})
    error = status_error(r, 404, "NOT_FOUND")
    assert error["details"][0]["reason"] == "A2A_LAB_UNMATCHED"
    assert "/a2a/jsonrpc" in error["details"][0]["metadata"]["served"]
    (entry,) = s.journal
    assert entry["unmatched"] is True and entry["kind"] == "unmatched" and entry["path"] == "/somewhere/else"
    assert entry["method"] == "POST" and json.loads(entry["body"]["text"]) == {"a": 1}
    assert entry["response"]["status"] == 404


def test_journal_records_requests_and_redacts_secrets(serve: Serve) -> None:
    s = serve("spec/conformant")
    secret = "s3cr3t-t0ken"
    s.http.post(
        RPC,
        params={"x": "1"},
        json={"jsonrpc": "2.0", "id": 9, "method": "SendMessage", "params": {"message": message("j")}},
        headers={**V1, "Authorization": f"Bearer {secret}", "X-API-Key": secret, "X-Custom": "kept"},
    )
    (entry,) = s.journal
    assert entry["method"] == "POST" and entry["path"] == RPC and entry["query"] == "x=1" and entry["kind"] == "jsonrpc"
    headers = entry["headers"]
    assert headers["authorization"] == "Bearer <redacted>" and headers["x-api-key"] == "<redacted>"
    assert headers["a2a-version"] == "1.0" and headers["x-custom"] == "kept"
    assert json.loads(entry["body"]["text"])["params"]["message"]["parts"] == [{"text": "j"}]
    assert entry["response"]["status"] == 200 and json.loads(entry["response"]["body"]["text"])["id"] == 9
    assert secret not in json.dumps(s.journal)
    assert secret not in s.app.state.journal.jsonl()


def test_admin_journal_over_http(serve: Serve) -> None:
    s = serve("spec/conformant")
    send(s)
    r = s.http.get("/_lab/journal", headers=s.admin)
    assert r.status_code == 200 and [e["operation"] for e in r.json()["entries"]] == ["SendMessage"]
    assert s.http.get("/_lab/scenario", headers=s.admin).json()["id"] == "spec/conformant"
    assert s.http.post("/_lab/reset", headers=s.admin_post).json() == {"reset": True}
    assert s.app.state.engine.tasks == {} and s.journal == []


# =================================================================================== spec/task/submitted-needs-get-task


def test_submitted_then_get_task_finishes_it(serve: Serve) -> None:
    s = serve("spec/task/submitted-needs-get-task")
    task = result(s.rpc("/a2a", "SendMessage", {"message": message("job")}))["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED" and "artifacts" not in task
    seen = [result(s.rpc("/a2a", "GetTask", {"id": task["id"]})) for _ in range(4)]
    assert [t["status"]["state"] for t in seen] == [
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_COMPLETED",
    ]
    assert "artifacts" not in seen[0]
    assert seen[1]["artifacts"] == [{"artifactId": "result", "name": "result", "parts": [{"text": "done: job"}]}]
    assert seen[3] == seen[1], "a terminal task never changes"


def test_submitted_scenario_over_rest_and_capabilities(serve: Serve) -> None:
    s = serve("spec/task/submitted-needs-get-task")
    r = s.http.post("/a2a/rest/message:send", json={"message": message()}, headers=V1)
    assert r.status_code == 200 and r.json()["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    task_id = r.json()["task"]["id"]
    assert s.http.get(f"/a2a/rest/tasks/{task_id}", headers=V1).json()["status"]["state"] == "TASK_STATE_WORKING"
    # streaming and push are not on its card
    assert (
        reason(rpc_error(s.rpc("/a2a", "SendStreamingMessage", {"message": message()}), -32004))
        == "UNSUPPORTED_OPERATION"
    )
    error = rpc_error(
        s.rpc("/a2a", "CreateTaskPushNotificationConfig", {"taskId": task_id, "url": "http://127.0.0.1:9/"}), -32003
    )
    assert reason(error) == "PUSH_NOTIFICATION_NOT_SUPPORTED"
    rpc_error(s.rpc("/a2a", "message/send", {"message": message03()}, version=None), -32601)  # a 1.0-only interface


# ==================================================================================== quirks


def test_mixed_version_direct_message(serve: Serve) -> None:
    s = serve("quirks/mixed-version-direct-message")
    card = s.http.get(s.card_url).json()
    assert card["protocolVersion"] == "0.3.0"
    assert card["supportedInterfaces"][0] == {
        "url": f"{s.url}/a2a",
        "protocolBinding": "JSONRPC",
        "protocolVersion": "1.0",
    }
    answer = result(s.rpc("/a2a", "SendMessage", {"message": message("help")}))
    assert set(answer) == {"message"}
    msg = answer["message"]
    assert msg["role"] == "ROLE_AGENT" and msg["parts"] == [
        {"text": "peerlace understands: search <term>, stats, help."}
    ]
    assert msg["messageId"] and msg["contextId"] and "taskId" not in msg
    legacy = result(s.rpc("/a2a", "message/send", {"message": message03("help")}, version=None))
    assert legacy["kind"] == "message" and legacy["role"] == "agent"
    assert legacy["parts"] == [{"kind": "text", "text": "peerlace understands: search <term>, stats, help."}]
    assert s.app.state.engine.tasks == {}, "a direct message creates no task"


def test_advertised_method_not_found(serve: Serve) -> None:
    s = serve("quirks/advertised-method-not-found")
    card = s.http.get(s.card_url).json()
    assert card["supportedInterfaces"] == [
        {"url": f"{s.url}/api/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    for _ in range(2):
        error = rpc_error(s.rpc("/api/a2a", "SendMessage", {"message": message()}), -32601)
        assert error["message"] == "Method not found"
    assert s.app.state.engine.tasks == {}


def test_patch_version_binding_mix(serve: Serve) -> None:
    s = serve("quirks/patch-version-binding-mix")
    card = s.http.get(s.card_url).json()
    assert [i["protocolVersion"] for i in card["supportedInterfaces"]] == ["0.3.0", "1.0"]
    no_kind = {k: v for k, v in message03("list").items() if k != "kind"}
    legacy = result(s.rpc("/a2a/jsonrpc", "message/send", {"message": no_kind}, version=None))
    assert (
        legacy["kind"] == "message"
        and legacy["role"] == "agent"
        and legacy["parts"][0]["text"] == "The commons lists 42 agents."
    )
    assert result(s.rpc("/a2a/jsonrpc", "message/send", {"message": message03()}, version=None))["kind"] == "message"
    r = s.http.post("/a2a/rest/message:send", json={"message": message("list")}, headers=V1)
    assert r.status_code == 200 and r.json()["message"]["role"] == "ROLE_AGENT"
    rpc_error(s.rpc("/a2a/jsonrpc", "SendMessage", {"message": message()}), -32601)  # JSON-RPC here is 0.3 only


def test_v03_completed_task_artifacts(serve: Serve) -> None:
    s = serve("quirks/v03-completed-task-artifacts")
    card = s.http.get(s.card_url).json()
    assert card["url"] == f"{s.url}/a2a" and card["protocolVersion"] == "0.3.0" and "supportedInterfaces" not in card
    task = result(s.rpc("/a2a", "message/send", {"message": message03("https://example.com/llms.txt")}, version=None))
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    (artifact,) = task["artifacts"]
    assert artifact["artifactId"] == "report"
    assert artifact["parts"] == [
        {"kind": "text", "text": "llms.txt is valid: score 100/100"},
        {"kind": "data", "data": {"ok": True, "score": 100, "issues": []}},
    ]
    again = result(s.rpc("/a2a", "tasks/get", {"id": task["id"]}, version=None))
    assert again["status"]["state"] == "completed" and again["artifacts"] == task["artifacts"]
    rpc_error(
        s.rpc("/a2a", "message/stream", {"message": message03()}, version=None), -32004
    )  # streaming: false on its card


# ==================================================================================== hostile JSON (regressions)


def test_nesting_deeper_than_the_limit(serve: Serve) -> None:
    s = serve("spec/conformant")
    depth = s.app.scenario.limits.json_depth
    nested: Any = "x"
    for _ in range(depth):
        nested = [nested]
    r = s.http.post(
        RPC, json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": nested}}, headers=V1
    )
    assert "nested deeper" in rpc_error(r, -32600, req_id=None)["message"]
    r = s.http.post(RPC, content=b"[" * 10000 + b"]" * 10000, headers={**V1, "content-type": "application/json"})
    rpc_error(r, -32600, req_id=None)


@pytest.mark.parametrize("raw_id", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_non_finite_numbers_are_parse_errors(serve: Serve, raw_id: bytes) -> None:
    s = serve("spec/conformant")
    r = s.http.post(
        RPC,
        content=b'{"jsonrpc":"2.0","id":' + raw_id + b',"method":"GetTask","params":{"id":"x"}}',
        headers={**V1, "content-type": "application/json"},
    )
    json.loads(r.text, parse_constant=lambda c: pytest.fail(f"the answer holds {c}"))
    rpc_error(r, -32700, req_id=None)


def test_lone_surrogates_are_echoed_escaped(serve: Serve) -> None:
    s = serve("spec/conformant")
    body = (
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"SendMessage","params":'
        b'{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a\\udc00"}]}}}'
    )
    r = s.http.post(RPC, content=body, headers={**V1, "content-type": "application/json"})
    assert r.status_code == 200 and r.content.isascii()
    task = result(r, req_id="\ud800")["task"]
    assert task["artifacts"][0]["parts"] == [{"text": "echo: a\udc00"}]
    assert s.http.get("/_lab/journal", headers=s.admin).status_code == 200  # the journal can still be exported


# =================================================================================== the whole catalogue under prefixes


def test_catalogue_app_serves_every_scenario_under_its_id(catalogue: Catalogue) -> None:
    with (
        BackgroundServer(CatalogueApp([catalogue.get(i) for i in catalogue.ids()])) as server,
        client(server.url) as http,
    ):
        listing = http.get("/").json()["scenarios"]
        assert [x["id"] for x in listing] == catalogue.ids()
        card = http.get("/spec/conformant/.well-known/agent-card.json").json()
        assert card["supportedInterfaces"][0]["url"] == f"{server.url}/spec/conformant{RPC}"
        r = http.post(
            f"/spec/conformant{RPC}",
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("cat")}},
            headers=V1,
        )
        assert result(r)["task"]["artifacts"][0]["parts"] == [{"text": "echo: cat"}]
        r = http.post(
            "/quirks/advertised-method-not-found/api/a2a",
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}},
            headers=V1,
        )
        rpc_error(r, -32601)
        missing = http.get("/no/such/scenario")
        assert missing.status_code == 404 and "no scenario" in missing.json()["error"]


def test_admin_api_with_a_token(catalogue: Catalogue) -> None:
    with (
        BackgroundServer(ScenarioApp(catalogue.get("spec/conformant"), AdminGuard.of("adm1n"))) as server,
        client(server.url) as http,
    ):
        assert http.get("/_lab/journal").status_code == 401
        assert http.get("/_lab/journal", headers={"Authorization": "Bearer wrong"}).status_code == 403
        assert http.get("/_lab/journal", headers={"Authorization": "Bearer adm1n"}).status_code == 200
        assert http.get("/_lab/journal", headers={"Authorization": "bearer adm1n"}).status_code == 200
        assert http.get("/_lab/scenario", headers={"X-A2A-Lab-Token": "adm1n"}).json()["id"] == "spec/conformant"
        assert http.post("/_lab/reset", headers={"Content-Type": "application/json"}).status_code == 401
        assert http.get("/_lab/nope", headers={"X-A2A-Lab-Token": "adm1n"}).status_code == 404
