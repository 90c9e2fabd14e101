"""`a2a-lab record`: capture a live server into a scenario file, serve the file, record the replay again, and get the
same card bytes (origin aside) and the same answers (JSON-RPC ids echoed, task ids as recorded). Plus the general
`raw: {echo_id: true}` reply option it relies on, and the refusals (no overwrite without --force, nothing written on
failure)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.protocol.jsonrpc import replace_id
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer


@pytest.fixture
def serve_path() -> Iterator[Any]:
    """Serve a scenario file from anywhere (as `a2a-lab serve FILE.yaml` does) on loopback port 0."""
    servers: list[BackgroundServer] = []

    def _serve(path: Path) -> str:
        server = BackgroundServer(ScenarioApp(load_file(path))).start()
        servers.append(server)
        return server.url

    yield _serve
    for server in servers:
        server.stop()


def record(url: str, out: Path, *extra: str) -> dict[str, Any]:
    assert main(["record", url, "--out", str(out), "--text", "record me", *extra]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"# Recorded by a2a-lab record; replay with: a2a-lab serve {out}\n")
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    return data


def replies(data: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [
        (op, rule["when"]["binding"], rule["when"]["version"], rule["reply"]["raw"])
        for op, rules in data["behaviour"].items()
        for rule in rules
    ]


def assert_same_recording(first: dict[str, Any], second: dict[str, Any]) -> None:
    """The replay's recording: the same card text, the same answers byte for byte except the JSON-RPC id, which is the
    second recorder's own request id (echoed), and the same task ids (the GetTask asked for the recorded one)."""
    assert second["card"]["raw"] == first["card"]["raw"] and "{base_url}" in first["card"]["raw"]
    assert second["card"]["content_type"] == first["card"]["content_type"]
    assert second["endpoints"] == first["endpoints"]
    ids = {(e["operation"], e["binding"], e["version"]): e["request_id"] for e in second["recorded"]["exchanges"]}
    pairs = list(zip(replies(first), replies(second), strict=True))
    assert pairs
    for (op, binding, version, a), (op2, binding2, version2, b) in pairs:
        assert (op, binding, version) == (op2, binding2, version2)
        assert (a["status"], a["content_type"], a.get("echo_id")) == (b["status"], b["content_type"], b.get("echo_id"))
        if binding == "GRPC":  # the answer message's bytes (tests/harness/test_record_grpc.py)
            assert b["body_base64"] == a["body_base64"]
        elif binding == "JSONRPC":
            assert (
                a["echo_id"] is True and json.loads(b["body"])["id"] == ids[(op, binding, version)]
            )  # the replay echoed it
            assert (
                b["body"] == replace_id(a["body"].encode(), ids[(op, binding, version)]).decode()
            )  # and nothing else changed
        else:
            assert b["body"] == a["body"]
    gets = [(e["binding"], e["version"]) for e in second["recorded"]["exchanges"] if e["operation"] == "GetTask"]
    assert gets == [(e["binding"], e["version"]) for e in first["recorded"]["exchanges"] if e["operation"] == "GetTask"]


def test_record_conformant_serve_it_and_record_it_again(serve: Any, serve_path: Any, tmp_path: Path) -> None:
    served = serve("spec/conformant")
    first = record(served.url, tmp_path / "conformant.yaml")
    card_bytes = served.http.get("/.well-known/agent-card.json").content
    assert first["recorded"]["card_sha256"] == hashlib.sha256(card_bytes).hexdigest()
    grpc_address = json.loads(card_bytes)["supportedInterfaces"][4]["url"]  # its gRPC interface: host:port
    assert first["card"]["raw"] == card_bytes.decode().replace(served.url, "{base_url}").replace(
        grpc_address, "{grpc_address}"
    )
    assert (
        first["recorded"]["from"] == served.url
        and first["recorded"]["tool"].startswith("a2a-lab ")
        and first["recorded"]["at"].endswith("Z")
    )
    assert first["endpoints"] == [
        {"path": "/a2a/jsonrpc", "binding": "JSONRPC", "versions": ["1.0", "0.3"]},
        {"path": "/a2a/rest", "binding": "HTTP+JSON", "versions": ["1.0", "0.3"]},
        {"path": "/lf.a2a.v1.A2AService", "binding": "GRPC", "versions": ["1.0"]},
    ]
    assert [(op, b, v) for op, b, v, _ in replies(first)] == [
        ("SendMessage", "JSONRPC", "1.0"),
        ("SendMessage", "HTTP+JSON", "1.0"),
        ("SendMessage", "JSONRPC", "0.3"),
        ("SendMessage", "HTTP+JSON", "0.3"),
        ("SendMessage", "GRPC", "1.0"),
        ("GetTask", "JSONRPC", "1.0"),
        ("GetTask", "HTTP+JSON", "1.0"),
        ("GetTask", "JSONRPC", "0.3"),
        ("GetTask", "HTTP+JSON", "0.3"),
        ("GetTask", "GRPC", "1.0"),
    ]
    assert first["client"] == {"message": "record me"} and "spec" not in first and "observed" not in first

    replay = serve_path(tmp_path / "conformant.yaml")
    second = record(replay, tmp_path / "again.yaml")
    assert_same_recording(first, second)
    task = json.loads(replies(first)[0][3]["body"])["result"]["task"]
    assert json.loads(replies(second)[0][3]["body"])["result"]["task"]["id"] == task["id"]  # the task id as recorded
    assert task["artifacts"][0]["parts"] == [{"text": "echo: record me"}]


def test_record_mixed_version_direct_message(serve: Any, serve_path: Any, tmp_path: Path) -> None:
    first = record(serve("quirks/mixed-version-direct-message").url, tmp_path / "mixed.yaml")
    assert [(op, b, v) for op, b, v, _ in replies(first)] == [
        ("SendMessage", "JSONRPC", "1.0"),
        ("SendMessage", "JSONRPC", "0.3"),
    ]  # messages: no GetTask
    assert json.loads(replies(first)[1][3]["body"])["result"]["kind"] == "message"
    second = record(serve_path(tmp_path / "mixed.yaml"), tmp_path / "again.yaml")
    assert_same_recording(first, second)


def test_record_the_official_a2a_sdk_server(a2a_sdk_server: str, serve_path: Any, tmp_path: Path) -> None:
    first = record(a2a_sdk_server, tmp_path / "sdk.yaml")
    assert first["endpoints"] == [
        {"path": "/", "binding": "JSONRPC", "versions": ["1.0", "0.3"]},
        {"path": "/rest", "binding": "HTTP+JSON", "versions": ["1.0"]},
    ]
    assert json.loads(first["card"]["raw"])["url"] == "{base_url}/"  # its dual card, origin replaced
    raw = {(op, b, v): r for op, b, v, r in replies(first)}
    assert set(raw) == {
        (op, b, v)
        for op in ("SendMessage", "GetTask")
        for b, v in (("JSONRPC", "1.0"), ("HTTP+JSON", "1.0"), ("JSONRPC", "0.3"))
    }
    assert raw[("SendMessage", "HTTP+JSON", "1.0")]["content_type"] == "application/a2a+json"
    assert json.loads(raw[("SendMessage", "JSONRPC", "0.3")]["body"])["result"]["status"]["state"] == "completed"
    second = record(serve_path(tmp_path / "sdk.yaml"), tmp_path / "again.yaml")
    assert_same_recording(first, second)


def test_keep_origin_leaves_the_card_untouched(serve: Any, serve_path: Any, tmp_path: Path) -> None:
    served = serve("quirks/advertised-method-not-found")
    data = record(served.url, tmp_path / "kept.yaml", "--keep-origin")
    card_bytes = served.http.get("/.well-known/agent-card.json").content
    assert data["card"]["raw"] == card_bytes.decode() and data["card"]["substitute_raw"] is False
    assert (
        replies(data)[0][3]["status"] == 200 and json.loads(replies(data)[0][3]["body"])["error"]["code"] == -32601
    )  # errors are recorded too
    replay = serve_path(tmp_path / "kept.yaml")
    assert httpx.get(f"{replay}/.well-known/agent-card.json").content == card_bytes


def test_refuses_to_overwrite_and_writes_nothing_on_failure(
    serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "deep" / "x.yaml"
    assert main(["record", serve("discovery/no-card").url, "--out", str(out)]) == 2  # no card: unusable input
    assert not out.parent.exists()
    slow = serve("faults/never-answers").url
    assert main(["record", slow, "--out", str(out), "--timeout", "0.3"]) == 1  # an interface never answers
    assert not out.parent.exists() and "nothing written" in capsys.readouterr().err
    out.parent.mkdir()
    out.write_text("mine\n")
    url = serve("spec/task/submitted-needs-get-task").url
    assert main(["record", url, "--out", str(out)]) == 2
    assert out.read_text() == "mine\n" and "give --force" in capsys.readouterr().err
    assert main(["record", url, "--out", str(out), "--force"]) == 0
    assert yaml.safe_load(out.read_text())["recorded"]["from"] == url
    assert [p.name for p in out.parent.iterdir()] == ["x.yaml"]  # no temporary file left behind


# ------------------------------------------------------------------------------ raw: {echo_id: true}


def test_replace_id_rewrites_only_the_top_level_id() -> None:
    body = b'{ "jsonrpc" : "2.0", "result": {"id": "task-1"},\n "id" : "recorded-7" }'
    assert replace_id(body, 42) == b'{ "jsonrpc" : "2.0", "result": {"id": "task-1"},\n "id" : 42 }'
    assert replace_id(b'{"id":null,"error":{}}', "x") == b'{"id":"x","error":{}}'
    for untouched in (b'{"result": {"id": 1}}', b"[1]", b"<html>", b'{"id": 1'):
        assert replace_id(untouched, 9) == untouched


def test_echo_id_is_a_general_raw_reply_option(tmp_path: Path, serve_path: Any) -> None:
    body = (
        '{"jsonrpc": "2.0",  "id": "from-elsewhere", '
        '"result": {"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}}'
    )
    card = {
        "name": "echo",
        "description": "d",
        "version": "1",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
        "supportedInterfaces": [
            {"url": "{base_url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "{base_url}/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ],
    }
    raw = {"status": 200, "body": body, "content_type": "application/json"}
    path = tmp_path / "echo.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "title": "echo ids",
                "description": "d",
                "spec": "JSON-RPC 2.0 §5",
                "card": {"object": card},
                "behaviour": {
                    "SendMessage": [
                        {"when": {"binding": "JSONRPC"}, "reply": {"raw": {**raw, "echo_id": True}}},
                        {"reply": {"raw": {**raw, "echo_id": True}}},
                    ],
                    "GetTask": [{"reply": {"raw": raw}}],
                },
            }
        )
    )
    url = serve_path(path)
    params = {"message": {"messageId": "q", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    headers = {"A2A-Version": "1.0"}
    for req_id in ("abc", 7):
        got = httpx.post(
            f"{url}/a2a",
            json={"jsonrpc": "2.0", "id": req_id, "method": "SendMessage", "params": params},
            headers=headers,
        )
        assert got.content == replace_id(body.encode(), req_id) and got.json()["id"] == req_id
    plain = httpx.post(
        f"{url}/a2a", json={"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": "t"}}, headers=headers
    )
    assert plain.content == body.encode()  # without echo_id the bytes are exact
    rest = httpx.post(f"{url}/rest/message:send", json=params, headers=headers)
    assert rest.content == body.encode()  # HTTP+JSON answers have no JSON-RPC id: echo_id changes nothing there
    bad = tmp_path / "bad.yaml"
    bad.write_text(path.read_text().replace("echo_id: true", "echo_id: yes please", 1))
    with pytest.raises(Exception, match=r"raw\.echo_id: expected true or false"):
        load_file(bad)
