"""The reference client over gRPC, against real a2a-lab servers (uvicorn and grpc.aio on 127.0.0.1, port 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.clients.refclient import ClientOptions, run, select_interfaces
from a2a_lab.harness.clients.refclient.failures import ClientFailure, invites_fallback
from a2a_lab.harness.clients.refclient.grpc_transport import GrpcTransport
from a2a_lab.harness.clients.refclient.recording import Recorder
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import WELL_KNOWN_PATH, Interface
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

GRPC_IFACE = '{url: "{grpc_address}", protocolBinding: GRPC, protocolVersion: "1.0"}'
JSONRPC_IFACE = '{url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0"}'


def scenario(*interfaces: str, streaming: bool = False, extra: str = "") -> str:
    listed = "\n".join(f"      - {i}" for i in interfaces)
    return f"""
title: refclient gRPC test
description: written by tests/harness/test_refclient_grpc.py
spec: "A2A 1.0 §10"
card:
  object:
    name: grpc test agent
    description: A test agent.
    version: "1.0.0"
    supportedInterfaces:
{listed}
    capabilities: {{streaming: {str(streaming).lower()}}}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{{id: s, name: s, description: d, tags: [t]}}]
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  artifacts:
    - {{artifactId: result, name: result, parts: [{{text: "echo: {{text}}"}}]}}
{extra}
"""


class Served:
    def __init__(self, app: ScenarioApp, server: BackgroundServer) -> None:
        self.app = app
        self.card_url = server.url + WELL_KNOWN_PATH

    @property
    def grpc_calls(self) -> list[dict[str, Any]]:
        return [e for e in self.app.state.journal.snapshot()["entries"] if e["kind"] == "grpc"]

    @property
    def a2a_calls(self) -> list[dict[str, Any]]:
        return [e for e in self.app.state.journal.snapshot()["entries"] if e["kind"] in ("grpc", "jsonrpc", "rest")]


@pytest.fixture
def serve_yaml(tmp_path: Path) -> Iterator[Callable[[str], Served]]:
    servers: list[BackgroundServer] = []

    def _serve(text: str) -> Served:
        path = tmp_path / f"scenario-{len(servers)}.yaml"
        path.write_text(text, encoding="utf-8")
        app = ScenarioApp(load_file(path, f"test/{path.stem}"))
        server = BackgroundServer(app).start()
        servers.append(server)
        return Served(app, server)

    yield _serve
    for server in servers:
        server.stop()


def options(**kw: Any) -> ClientOptions:
    kw.setdefault("sleep", lambda _: None)
    return ClientOptions(**kw)


# ----------------------------------------------------------------------------------------------- conversations


def test_grpc_only_card_is_spoken_over_grpc(serve) -> None:
    served = serve("grpc/conformant")
    result = run(served.card_url, "hi", options())
    assert result.error is None, result.error
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: hi")
    assert result.interface is not None and result.interface.binding == "GRPC"
    (call,) = [e for e in served.journal if e["kind"] == "grpc"]
    assert call["path"] == "/lf.a2a.v1.A2AService/SendMessage" and call["response"]["grpc_status"] == "OK"
    assert call["headers"]["a2a-version"] == "1.0"
    assert "a2a-lab-refclient/" in call["headers"]["user-agent"]
    sent = json.loads(call["body"]["text"])
    assert sent["message"]["parts"] == [{"text": "hi"}] and sent["message"]["role"] == "ROLE_USER"
    assert not result.notices


def test_streams_over_grpc(serve) -> None:
    served = serve("grpc/conformant")
    result = run(served.card_url, "hi", options(stream=True))
    assert result.error is None and result.streamed and result.state is TaskState.COMPLETED
    (call,) = [e for e in served.journal if e["kind"] == "grpc"]
    assert call["operation"] == "SendStreamingMessage" and len(call["events"]) >= 2


def test_registers_its_webhook_inline_over_grpc(serve) -> None:
    served = serve("grpc/conformant")
    result = run(served.card_url, "hi", options(webhook=True))
    assert result.error is None and result.state is TaskState.COMPLETED
    assert result.webhook is not None and result.webhook["notifications"] >= 1
    sent = json.loads(next(e for e in served.journal if e["kind"] == "grpc")["body"]["text"])
    assert sent["configuration"]["returnImmediately"] is True
    assert sent["configuration"]["taskPushNotificationConfig"]["url"] == result.webhook["url"]


def test_resubscribes_over_grpc_after_a_dropped_stream(serve_yaml) -> None:
    served = serve_yaml(
        scenario(
            GRPC_IFACE,
            streaming=True,
            extra="behaviour:\n  SendStreamingMessage:\n    - reply: {stream: {drop_after: 1}}\n",
        )
    )
    result = run(served.card_url, "hi", options(stream=True, resubscribe=True))
    assert result.error is None, result.error
    assert result.resubscribed and result.state is TaskState.COMPLETED
    assert [e["operation"] for e in served.grpc_calls][:2] == ["SendStreamingMessage", "SubscribeToTask"]


def test_a_resubscription_that_reached_no_server_is_tried_once_more_when_the_channel_is_back(serve_yaml) -> None:
    """The stream breaks, and so does the connection the first SubscribeToTask goes out on (a reset): a gRPC channel
    then fails calls at once while it reconnects. The client waits for the channel and subscribes again, rather than
    giving up on the subscription for GetTask (which made the test above fail now and then under load)."""
    served = serve_yaml(
        scenario(
            GRPC_IFACE,
            streaming=True,
            extra="behaviour:\n  SendStreamingMessage:\n    - reply: {stream: {drop_after: 1}}\n"
            "  SubscribeToTask:\n    - when: {call: 1}\n      reply: {fault: reset}\n",
        )
    )
    result = run(served.card_url, "hi", options(stream=True, resubscribe=True))
    assert result.error is None, result.error
    assert result.resubscribed and result.state is TaskState.COMPLETED
    ops = [e["operation"] for e in served.grpc_calls]
    if any("reached no server" in w for w in result.warnings):
        assert ops[:3] == ["SendStreamingMessage", "SubscribeToTask", "SubscribeToTask"], (ops, result.warnings)
    else:
        # Under load the reset can come after the subscription's stream was set up: then it is a stream that broke
        # off, not a call that reached no server, and the client follows up with GetTask, as for any broken stream.
        assert ops[:3] == ["SendStreamingMessage", "SubscribeToTask", "GetTask"], (ops, result.warnings)
        assert any("broke off" in w and "GetTask" in w for w in result.warnings), result.warnings


def test_bearer_token_travels_as_metadata(serve_yaml) -> None:
    served = serve_yaml(scenario(GRPC_IFACE, extra="auth: {bearer: s3cret, scope: all}"))
    ok = run(served.card_url, "hi", options(token="s3cret"))
    assert ok.error is None and ok.state is TaskState.COMPLETED
    refused = run(served.card_url, "hi", options())
    assert refused.error is not None and refused.error["type"] == "remote"
    assert refused.error["grpc_status"] == "UNAUTHENTICATED"
    first, second = served.grpc_calls
    assert "authorization" in first["headers"] and "s3cret" not in first["headers"]["authorization"]  # redacted
    assert "authorization" not in second["headers"]


UNIMPLEMENTED_ON_GRPC = """
behaviour:
  SendMessage:
    - when: {binding: GRPC}
      reply: {grpc: {status: UNIMPLEMENTED}}
"""


def test_unimplemented_despite_the_card_falls_back_to_the_next_interface(serve_yaml) -> None:
    served = serve_yaml(
        scenario(
            GRPC_IFACE,
            JSONRPC_IFACE,
            extra=UNIMPLEMENTED_ON_GRPC,
        )
    )
    result = run(served.card_url, "hi", options())
    assert result.error is None and result.state is TaskState.COMPLETED
    assert result.interface is not None and result.interface.binding == "JSONRPC"
    (attempt,) = result.attempts
    assert attempt["grpc_status"] == "UNIMPLEMENTED" and "reason" not in attempt
    assert [e["kind"] for e in served.a2a_calls] == ["grpc", "jsonrpc"]


def test_fallback_rules_for_grpc() -> None:
    grpc = Binding.GRPC.value
    assert invites_fallback(ClientFailure("remote", "x", {"binding": grpc, "grpc_status": "UNIMPLEMENTED"}))
    # v1.0.0 spelled VersionNotSupported as UNIMPLEMENTED: the reason says which, and that invites the next one too.
    v100 = {"binding": grpc, "grpc_status": "UNIMPLEMENTED", "reason": "VERSION_NOT_SUPPORTED", "code": -32009}
    assert invites_fallback(ClientFailure("remote", "x", v100))
    unsupported = {"binding": grpc, "grpc_status": "UNIMPLEMENTED", "reason": "UNSUPPORTED_OPERATION"}
    assert not invites_fallback(ClientFailure("remote", "x", unsupported))
    assert not invites_fallback(ClientFailure("remote", "x", {"binding": grpc, "grpc_status": "NOT_FOUND"}))
    assert not invites_fallback(ClientFailure("transport", "x", {"binding": grpc, "grpc_status": "UNAVAILABLE"}))


# ----------------------------------------------------------------------------------------------- the transport


def transport_for(served: Served, **kw: Any) -> tuple[GrpcTransport, Recorder]:
    result = run(served.card_url, "warm up", options())  # fetches the card: the gRPC server is up from then on
    assert result.interface is not None
    recorder = Recorder()
    return GrpcTransport(result.interface, options(**kw), recorder), recorder


def test_errors_are_read_from_the_status_details(serve_yaml) -> None:
    transport, recorder = transport_for(serve_yaml(scenario(GRPC_IFACE)))
    with pytest.raises(ClientFailure) as caught:
        transport.call(Operation.GET_TASK, {"id": "no-such-task"}, [])
    transport.close()
    d = caught.value.details
    assert caught.value.type == "remote"
    assert (d["grpc_status"], d["reason"], d["code"]) == ("NOT_FOUND", "TASK_NOT_FOUND", ErrorType.TASK_NOT_FOUND.code)
    (exchange,) = recorder.exchanges
    assert exchange.grpc is not None and exchange.grpc.status == "NOT_FOUND"
    assert exchange.grpc.details is not None and exchange.grpc.details["code"] == grpcwire.Code.NOT_FOUND.number


def test_an_error_without_details_is_still_an_error_without_a_reason(serve_yaml) -> None:
    rules = "behaviour:\n  GetTask:\n    - reply: {error: {code: TaskNotFound}, grpc: {details: false}}\n"
    transport, recorder = transport_for(serve_yaml(scenario(GRPC_IFACE, extra=rules)))
    with pytest.raises(ClientFailure) as caught:
        transport.call(Operation.GET_TASK, {"id": "t"}, [])
    transport.close()
    assert caught.value.details["grpc_status"] == "NOT_FOUND" and "reason" not in caught.value.details
    assert recorder.exchanges[0].grpc is not None and recorder.exchanges[0].grpc.details is None


def test_an_ok_call_without_a_message_is_an_invalid_answer(serve_yaml) -> None:
    rules = "behaviour:\n  SendMessage:\n    - reply: {grpc: {empty: true}}\n"
    result = run(serve_yaml(scenario(GRPC_IFACE, extra=rules)).card_url, "hi", options())
    assert result.error is not None and result.error["type"] == "invalid_response"
    assert "ended OK with no message" in result.error["message"]


def test_a_stalled_answer_hits_the_deadline(serve_yaml) -> None:
    rules = "behaviour:\n  SendMessage:\n    - reply: {fault: stall}\n"
    result = run(
        serve_yaml(scenario(GRPC_IFACE, extra=rules)).card_url, "hi", options(read_timeout=0.3, connect_timeout=0.2)
    )
    assert result.error is not None and result.error["type"] == "transport"
    assert result.error["grpc_status"] == "DEADLINE_EXCEEDED" and "no answer within" in result.error["message"]


def test_a_stalled_stream_is_hung_up_after_the_read_timeout(serve_yaml) -> None:
    rules = "behaviour:\n  SendStreamingMessage:\n    - reply: {fault: stall}\n"
    served = serve_yaml(scenario(GRPC_IFACE, streaming=True, extra=rules))
    result = run(served.card_url, "hi", options(stream=True, read_timeout=0.3))
    assert result.error is not None and result.error["type"] == "transport"
    assert "no stream message within 0.3 s" in result.error["message"]


def test_a_grpc_url_on_an_http_server_is_a_transport_failure(serve) -> None:
    served = serve("spec/conformant")
    iface = Interface(served.url.removeprefix("http://"), "GRPC", "1.0")
    transport = GrpcTransport(iface, options())
    with pytest.raises(ClientFailure) as caught:
        transport.call(Operation.SEND_MESSAGE, {"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}}, [])
    transport.close()
    assert caught.value.type == "transport" and "could not connect" in caught.value.message


# ----------------------------------------------------------------------------------------------- selection


def card(*interfaces: dict[str, Any]) -> dict[str, Any]:
    return {"name": "n", "supportedInterfaces": list(interfaces)}


def test_grpc_is_chosen_in_card_order() -> None:
    sel = select_interfaces(
        card(
            {"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        )
    )
    assert [i.binding for i in sel.candidates] == ["GRPC", "JSONRPC"] and not sel.notices
    rpc_first = select_interfaces(
        card(
            {"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        )
    )
    assert [i.binding for i in rpc_first.candidates] == ["JSONRPC", "GRPC"]
    only_grpc = select_interfaces(
        card({"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}), Binding.GRPC
    )
    assert only_grpc.candidates == []


def test_a_grpc_url_mistake_is_dialed_and_noticed() -> None:
    sel = select_interfaces(
        card(
            {"url": "grpc://h:1/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "grpc://h/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        )
    )
    assert [i.url for i in sel.candidates] == ["grpc://h:1/a2a"]
    (notice,) = sel.notices
    assert "a scheme and a path" in notice and "dialing h:1" in notice and "§5.6" in notice
    assert any("no host:port to dial" in w for w in sel.warnings) and notice in sel.warnings


def test_the_v1_0_1_example_form_is_dialed_at_port_443() -> None:
    """Spec revision v1.0.1's proto example wrote a gRPC url as `https://grpc.example.com/a2a`; v1.0.2 says
    host:port. A client reads both: the https URL means the host at 443."""
    sel = select_interfaces(card({"url": "https://h/a2a", "protocolBinding": "GRPC", "protocolVersion": "1.0"}))
    assert [i.url for i in sel.candidates] == ["https://h/a2a"]
    (notice,) = sel.notices
    assert "dialing h:443" in notice


def test_without_the_grpc_extra_grpc_is_not_spoken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grpcwire, "missing", lambda: grpcwire.MISSING)
    sel = select_interfaces(
        card(
            {"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "h:2", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        )
    )
    assert [i.binding for i in sel.candidates] == ["JSONRPC"]
    (notice,) = sel.notices
    assert "2 GRPC interface(s), treated as unsupported" in notice and "grpc extra" in notice
    assert all("grpc extra" in s for s in sel.skipped)


# ----------------------------------------------------------------------------------------------- command line


def cli(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """`a2a-lab client ...` in a fresh Python; `prelude` runs first (e.g. hiding grpc)."""
    code = prelude + "import sys; from a2a_lab.harness.cli import main; sys.exit(main(['client', *sys.argv[1:]]))"
    base = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, env=base, check=False
    )


def test_cli_says_a_url_mistake_on_stderr(serve_yaml) -> None:
    served = serve_yaml(scenario('{url: "grpc://{grpc_address}/a2a", protocolBinding: GRPC, protocolVersion: "1.0"}'))
    proc = cli(served.card_url, "hi", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["interface"]["binding"] == "GRPC"
    (line,) = [x for x in proc.stderr.splitlines() if "§5.6" in x]
    assert "grpc://" in line and "dialing 127.0.0.1:" in line


def test_cli_without_grpc_says_so_once(serve_yaml) -> None:
    served = serve_yaml(scenario(GRPC_IFACE, GRPC_IFACE.replace("{grpc_address}", "h:9"), JSONRPC_IFACE))
    proc = cli(served.card_url, "hi", "--json", prelude="import sys; sys.modules['grpc'] = None; ")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["interface"]["binding"] == "JSONRPC"
    assert proc.stderr.count("treated as unsupported") == 1 and "pip install 'a2a-lab[grpc]'" in proc.stderr
    assert [e["kind"] for e in served.a2a_calls] == ["jsonrpc"]


def test_cli_grpc_binding_flag(serve_yaml) -> None:
    served = serve_yaml(scenario(JSONRPC_IFACE, GRPC_IFACE))
    proc = cli(served.card_url, "hi", "--json", "--binding", "grpc")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["interface"]["binding"] == "GRPC"
