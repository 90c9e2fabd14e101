"""Required extensions (§3.6, §4.6) and capability validation (§3.3.4) on spec/tck-sut-no-capabilities."""

from __future__ import annotations

EXT = "urn:a2a:tck:required-extension"
MSG = {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


def test_a_required_extension_must_be_activated(serve) -> None:
    s = serve("spec/tck-sut-no-capabilities")
    refused = s.rpc("/a2a/jsonrpc", "SendMessage", MSG).json()["error"]
    assert refused["code"] == -32008 and EXT in refused["message"]
    assert refused["data"][0]["reason"] == "EXTENSION_SUPPORT_REQUIRED"
    rest = s.http.post("/a2a/rest/message:send", json=MSG, headers={"A2A-Version": "1.0"})
    assert rest.status_code == 400 and rest.json()["error"]["details"][0]["reason"] == "EXTENSION_SUPPORT_REQUIRED"
    ok = s.http.post(
        "/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": MSG},
        headers={"A2A-Version": "1.0", "A2A-Extensions": f"urn:other, {EXT}"},
    ).json()
    assert ok["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    legacy = s.http.post(
        "/a2a/jsonrpc",
        json={"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": MSG},
        headers={"A2A-Version": "1.0", "X-A2A-Extensions": EXT},
    ).json()
    assert "result" in legacy


def test_undeclared_capabilities_are_refused(serve) -> None:
    s = serve("spec/tck-sut-no-capabilities")
    assert s.rpc("/a2a/jsonrpc", "SendStreamingMessage", MSG).json()["error"]["code"] == -32004
    assert (
        s.rpc(
            "/a2a/jsonrpc", "CreateTaskPushNotificationConfig", {"taskId": "t", "url": "http://127.0.0.1:9/x"}
        ).json()["error"]["code"]
        == -32003
    )
    assert s.rpc("/a2a/jsonrpc", "GetExtendedAgentCard", {}).json()["error"]["code"] == -32004
