"""`a2a-lab record` over gRPC: a server's gRPC exchanges captured into a scenario file whose own gRPC server replays
them (answer messages byte for byte, errors by status and ErrorInfo reason), with what cannot be recorded said in the
file; recorded again from the replay, the answers are the same."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.harness.clients.refclient import ClientOptions, run
from a2a_lab.protocol import grpcwire, protobuf
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

GRPC = {"url": "{grpc_address}", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
JSONRPC = {"url": "{base_url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}


def scenario(interfaces: list[dict[str, Any]], behaviour: dict[str, Any] | None = None) -> dict[str, Any]:
    card = {
        "name": "recorded agent",
        "description": "a gRPC agent to record",
        "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "a", "name": "a", "description": "a", "tags": ["a"]}],
    }
    data: dict[str, Any] = {
        "title": "to record",
        "description": "written by tests/harness/test_record_grpc.py",
        "spec": "A2A 1.0 §10",
        "card": {"object": card},
        "task": {"steps": ["SUBMITTED", "COMPLETED"], "artifacts": [{"text": "echo: {text}"}]},
    }
    if behaviour:
        data["behaviour"] = behaviour
    return data


@pytest.fixture
def serve_path() -> Iterator[Callable[[Path], str]]:
    servers: list[BackgroundServer] = []

    def _serve(path: Path) -> str:
        server = BackgroundServer(ScenarioApp(load_file(path))).start()
        servers.append(server)
        return server.url

    yield _serve
    for server in servers:
        server.stop()


@pytest.fixture
def serve_data(tmp_path: Path, serve_path: Callable[[Path], str]) -> Callable[[dict[str, Any]], str]:
    def _serve(data: dict[str, Any]) -> str:
        path = tmp_path / f"source-{len(list(tmp_path.glob('source-*')))}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return serve_path(path)

    return _serve


def record(url: str, out: Path) -> dict[str, Any]:
    assert main(["record", url, "--out", str(out), "--text", "record me"]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def rules(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(op, r["when"]["binding"]): r["reply"] for op, listed in data["behaviour"].items() for r in listed}


def test_record_grpc_conformant_replay_it_and_record_it_again(serve: Any, serve_path: Any, tmp_path: Path) -> None:
    first = record(serve("grpc/conformant").url, tmp_path / "grpc.yaml")
    assert first["endpoints"] == [{"path": "/lf.a2a.v1.A2AService", "binding": "GRPC", "versions": ["1.0"]}]
    assert '"url":"{grpc_address}"' in first["card"]["raw"]
    replies = rules(first)
    assert set(replies) == {("SendMessage", "GRPC"), ("GetTask", "GRPC")}
    sent = replies[("SendMessage", "GRPC")]["raw"]
    answer = protobuf.decode_response(Operation.SEND_MESSAGE, base64.b64decode(sent["body_base64"]))
    exchanges = first["recorded"]["exchanges"]
    assert exchanges[0]["answer"] == answer and exchanges[0]["grpc_status"] == "OK"
    assert answer["task"]["artifacts"][0]["parts"] == [{"text": "echo: record me"}]
    assert "gRPC answers are replayed on the scenario's own gRPC server" in first["description"]
    assert "Response metadata (headers and trailers other than the status) is not recorded" in first["description"]

    replay = serve_path(tmp_path / "grpc.yaml")
    result = run(replay, "anything", ClientOptions(sleep=lambda _: None))
    assert result.error is None and result.interface is not None and result.interface.binding == "GRPC"
    assert (result.state, result.text, result.task_id) == (TaskState.COMPLETED, "echo: record me", answer["task"]["id"])
    second = record(replay, tmp_path / "again.yaml")
    assert second["card"]["raw"] == first["card"]["raw"] and rules(second) == replies


def test_grpc_errors_are_recorded_as_status_and_reason(serve_data: Any, serve_path: Any, tmp_path: Path) -> None:
    behaviour = {
        "SendMessage": [{"reply": {"error": {"code": "UnsupportedOperation", "message": "not today"}}}],
    }
    first = record(serve_data(scenario([GRPC], behaviour)), tmp_path / "err.yaml")
    assert rules(first)[("SendMessage", "GRPC")] == {
        "error": {"code": "UnsupportedOperation", "message": "not today"},
        "grpc": {"status": "FAILED_PRECONDITION", "details": True},
    }
    assert first["recorded"]["exchanges"][0]["answer"]["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
    assert "the replay sends a2a-lab's own" in first["description"]  # the recorded google.rpc.Status is not replayed
    second = record(serve_path(tmp_path / "err.yaml"), tmp_path / "again.yaml")
    assert rules(second) == rules(first)


def test_an_error_without_details_is_recorded_without(serve_data: Any, serve_path: Any, tmp_path: Path) -> None:
    behaviour = {"SendMessage": [{"reply": {"error": "TaskNotFound", "grpc": {"status": "ABORTED", "details": False}}}]}
    first = record(serve_data(scenario([GRPC], behaviour)), tmp_path / "bare.yaml")
    assert rules(first)[("SendMessage", "GRPC")] == {
        "error": {"code": "Internal", "message": "Task not found"},  # no ErrorInfo: which A2A error is unknown
        "grpc": {"status": "ABORTED", "details": False},
    }
    second = record(serve_path(tmp_path / "bare.yaml"), tmp_path / "again.yaml")
    assert rules(second) == rules(first)


def test_a_mixed_card_records_both_bindings(serve_data: Any, serve_path: Any, tmp_path: Path) -> None:
    first = record(serve_data(scenario([JSONRPC, GRPC])), tmp_path / "mixed.yaml")
    assert [e["binding"] for e in first["endpoints"]] == ["JSONRPC", "GRPC"]
    assert set(rules(first)) == {(op, b) for op in ("SendMessage", "GetTask") for b in ("JSONRPC", "GRPC")}
    second = record(serve_path(tmp_path / "mixed.yaml"), tmp_path / "again.yaml")
    assert set(rules(second)) == set(rules(first))
    grpc_first, grpc_second = (rules(d)[("GetTask", "GRPC")] for d in (first, second))
    assert grpc_first == grpc_second


def test_without_the_grpc_extra_the_file_says_what_was_not_recorded(
    serve_data: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = serve_data(scenario([JSONRPC, GRPC]))
    monkeypatch.setattr(grpcwire, "missing", lambda: grpcwire.MISSING)
    data = record(url, tmp_path / "nogrpc.yaml")
    assert {b for _, b in rules(data)} == {"JSONRPC"}
    assert "Not recorded:" in data["description"] and "GRPC 1.0" in data["description"]
    assert "grpc extra" in data["description"]


def test_record_the_official_a2a_sdk_grpc_server(a2a_sdk_grpc_server: str, serve_path: Any, tmp_path: Path) -> None:
    first = record(a2a_sdk_grpc_server, tmp_path / "sdk.yaml")
    assert {(e["path"], e["binding"]) for e in first["endpoints"]} == {
        ("/lf.a2a.v1.A2AService", "GRPC"),
        ("/", "JSONRPC"),
    }
    sent = first["recorded"]["exchanges"][0]
    assert (sent["binding"], sent["grpc_status"]) == ("GRPC", "OK")
    assert sent["answer"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    replay = serve_path(tmp_path / "sdk.yaml")
    result = run(replay, "x", ClientOptions(sleep=lambda _: None))
    assert result.error is None and result.text == "echo: record me"
    assert result.interface is not None and result.interface.binding == "GRPC"
