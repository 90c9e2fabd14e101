"""`a2a-lab proxy` with gRPC: a card's gRPC interface passes through a port of the proxy's own (the card served names
it, in the form the card used), every call is forwarded as the bytes that came and answered as the upstream answered
(messages, status, message, trailers), journaled with the scenario server's record and judged on both sides. Real
loopback throughout: a2a-lab scenario servers upstream, the reference client (and the official a2a-sdk 1.3 client,
over gRPC) through the proxy, and the tests' own gRPC calls for a client with a defect."""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from a2a_lab import scenarios
from a2a_lab.contract.journal_record import EntryKind, SentKind
from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.harness.client_judging import environment
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.harness.proxy import capture, grpc_capture, session
from a2a_lab.harness.proxy.push import PUSH
from a2a_lab.harness.proxy.verdict import CLIENT_ID, SERVER_ID, verdict
from a2a_lab.protocol import grpcwire, protobuf
from a2a_lab.protocol.operations import Operation
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

CATALOGUE = Path(scenarios.__file__).parent
PEER_CLIENT = Path(__file__).parent.parent / "peers" / "clients" / "a2a_sdk_13.py"
CARD = "/.well-known/agent-card.json"


def _serve(path: Path) -> Iterator[tuple[str, ScenarioApp]]:
    app = ScenarioApp(load_file(path))
    with BackgroundServer(app) as server:
        yield server.url, app


@pytest.fixture(scope="module")
def conformant() -> Iterator[tuple[str, ScenarioApp]]:
    yield from _serve(CATALOGUE / "grpc" / "conformant.yaml")


def _proxy_address(state: Any) -> str:
    """The proxy's own gRPC address (the first gRPC route's)."""
    address = next(iter(state.routes.grpc.values())).proxy
    assert address is not None, "the proxy listens for the card's gRPC interface"
    return str(address)


def _streaming_request() -> bytes:
    """A SendStreamingMessage request ("hi"), as the wire carries it."""
    send = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    return protobuf.encode_request(Operation.SEND_STREAMING_MESSAGE, send)


def _grpc_agent(title: str, description: str, name: str, says: str, capabilities: str, rest: str) -> str:
    """A test scenario whose one interface is gRPC (1.0): its card, then `rest` (its task, behaviour, push)."""
    return f"""\
title: {title}
description: {description}
card:
  object:
    name: {name}
    description: {says}
    version: "1.0.0"
    supportedInterfaces:
      - {{url: "{{grpc_address}}", protocolBinding: GRPC, protocolVersion: "1.0"}}
    capabilities: {capabilities}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{{id: s, name: s, description: s, tags: [t]}}]
{rest}"""


#: A gRPC server that answers SendMessage with bytes that are no SendMessageResponse.
BROKEN = _grpc_agent(
    "broken gRPC server",
    "answers SendMessage over gRPC with bytes that are not a SendMessageResponse",
    "broken",
    "a broken gRPC agent",
    "{streaming: false}",
    """\
behaviour:
  SendMessage:
    - reply:
        raw: {body_base64: "//8=", content_type: application/grpc}
""",
)
GARBAGE = b"\xff\xff"


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ScenarioApp]]:
    path = tmp_path_factory.mktemp("broken") / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    yield from _serve(path)


def _results(state: Any) -> dict[str, ScenarioResult]:
    return {r.id: r for r in verdict(state, 0.0).results}


def _outcome(result: ScenarioResult, check_id: str) -> Outcome:
    found = result.check(check_id)
    assert found is not None, check_id
    return found.outcome


def _grpc_url(card: dict[str, Any]) -> str:
    return next(str(i["url"]) for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")


def _raw_call(address: str, op: Operation, request: bytes, metadata: tuple[tuple[str, str | bytes], ...]) -> Any:
    """One call as bytes (no decoding), as the tests' own client: (status, details, trailers, messages)."""
    with grpc.insecure_channel(address) as channel:
        rpc: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(grpcwire.method_path(op))
        call: Any = rpc(request, metadata=metadata, timeout=10)
        messages: list[bytes] = []
        try:
            messages.extend(call)
        except grpc.RpcError:
            pass
        return call.code().name, call.details(), tuple(call.trailing_metadata() or ()), messages


def test_a_grpc_pair_passes_both_sides_through_the_proxys_own_port(conformant: tuple[str, ScenarioApp]) -> None:
    upstream, _ = conformant
    with session.hosted(upstream) as (state, url, _):
        served = httpx.get(f"{url}{CARD}").json()
        direct = httpx.get(f"{upstream}{CARD}").json()
        assert main(["client", f"{url}{CARD}"]) == 0
        assert main(["client", "--stream", f"{url}{CARD}"]) == 0
    upstream_address = _grpc_url(direct)
    proxied = _grpc_url(served)
    assert proxied == state.routes.grpc[upstream_address].proxy != upstream_address
    assert grpcwire.split_address(proxied) is not None  # host:port stays host:port
    assert served == {**direct, "supportedInterfaces": [{**direct["supportedInterfaces"][0], "url": proxied}]}
    assert state.routes.not_proxied == []
    calls = [e for e in state.journal.records() if e.kind is EntryKind.GRPC]
    assert [e.operation for e in calls] == [Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE]
    unary, stream = calls
    assert unary.url == proxied and unary.headers[grpcwire.VERSION_METADATA] == "1.0"
    assert unary.response is not None and unary.response.grpc_status == "OK" and '"messageId"' in unary.body_text
    assert unary.response.body is not None and (unary.response.body.text or "").startswith('{"task":')
    assert unary.answer is not None and unary.answer.state is not None and unary.answer.state.terminal
    assert stream.events and all(e.kind is SentKind.DATA for e in stream.events)
    assert [e.t for e in stream.events] == sorted(e.t for e in stream.events)  # each with the time it passed
    results = _results(state)
    assert results[CLIENT_ID].outcome is Outcome.PASS and results[SERVER_ID].outcome is Outcome.PASS
    for check in ("SEND-MESSAGE", "RESPONSE-SHAPE", "STREAMING"):
        assert _outcome(results[SERVER_ID], check) is Outcome.PASS
    assert _outcome(results[CLIENT_ID], "VERSION-HEADER") is Outcome.PASS


def test_status_trailers_and_metadata_pass_as_they_came(conformant: tuple[str, ScenarioApp]) -> None:
    upstream, app = conformant
    request = protobuf.encode_request(Operation.GET_TASK, {"id": "no-such-task"})
    metadata = (("a2a-version", "1.0"), ("authorization", "Bearer s3cret"), ("x-trace-bin", b"\x00\x01\x02"))
    with session.hosted(upstream) as (state, _, _):
        route = next(iter(state.routes.grpc.values()))
        assert route.proxy is not None
        direct = _raw_call(route.upstream, Operation.GET_TASK, request, metadata)
        passed = _raw_call(route.proxy, Operation.GET_TASK, request, metadata)
    assert direct[0] == "NOT_FOUND" and any(k == grpcwire.STATUS_DETAILS_KEY for k, _ in direct[2])
    assert passed == direct  # status, its message and the trailers (google.rpc.Status bytes included), unchanged
    seen = app.state.journal.records()[-1]  # what the upstream got from the proxy: the client's metadata
    assert seen.headers["x-trace-bin"] == "AAEC" and seen.headers[grpcwire.VERSION_METADATA] == "1.0"
    entry = state.journal.records()[-1]
    assert entry.kind is EntryKind.GRPC and entry.answer is not None and entry.answer.code == -32001
    assert "s3cret" not in str(entry.to_json())  # credentials redacted, as the server's journal does
    assert _outcome(_results(state)[SERVER_ID], "ERROR-ENVELOPE") is Outcome.PASS


def test_a_grpc_client_without_version_metadata_or_with_a_malformed_message_fails_its_side(
    conformant: tuple[str, ScenarioApp],
) -> None:
    upstream, _ = conformant
    send = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    request = protobuf.encode_request(Operation.SEND_MESSAGE, send)
    with session.hosted(upstream) as (state, url, _):
        main(["client", f"{url}{CARD}"])  # a correct call first: the defect is the tests' own client's
        address = _proxy_address(state)
        unversioned = _raw_call(address, Operation.SEND_MESSAGE, request, ())
        garbled = _raw_call(address, Operation.SEND_MESSAGE, GARBAGE, (("a2a-version", "1.0"),))
    assert unversioned[0] != "OK" and garbled[0] == "INVALID_ARGUMENT"  # the upstream's answers, forwarded
    calls = [e for e in state.journal.records() if e.kind is EntryKind.GRPC]
    assert len(calls) == 3 and calls[2].body.withheld is not None  # the bytes that came, journaled (not UTF-8)
    client = _results(state)[CLIENT_ID]
    assert client.outcome is Outcome.FAIL
    assert _outcome(client, "VERSION-HEADER") is Outcome.FAIL
    assert _outcome(client, "BODY-SHAPE") is Outcome.FAIL


def test_a_defective_grpc_server_fails_its_side_and_its_bytes_pass_as_they_came(
    broken: tuple[str, ScenarioApp],
) -> None:
    upstream, _ = broken
    request = protobuf.encode_request(
        Operation.SEND_MESSAGE, {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    )
    with session.hosted(upstream) as (state, url, _):
        assert main(["client", f"{url}{CARD}"]) != 0  # the reference client cannot read it either
        address = _proxy_address(state)
        passed = _raw_call(address, Operation.SEND_MESSAGE, request, (("a2a-version", "1.0"),))
    assert passed[0] == "OK" and passed[3] == [GARBAGE]
    results = _results(state)
    assert _outcome(results[SERVER_ID], "RESPONSE-SHAPE") is Outcome.FAIL
    assert results[SERVER_ID].outcome is Outcome.FAIL and results[CLIENT_ID].outcome is Outcome.PASS


def test_a_grpc_method_the_card_advertises_answered_unimplemented_fails_send_message() -> None:
    for upstream, _ in _serve(CATALOGUE / "grpc" / "unimplemented-despite-card.yaml"):
        with session.hosted(upstream) as (state, url, _):
            assert main(["client", f"{url}{CARD}"]) == 0  # it falls back to JSON-RPC, through the proxy too
    results = _results(state)
    assert _outcome(results[SERVER_ID], "SEND-MESSAGE") is Outcome.FAIL
    assert [e.kind for e in state.journal.records() if e.operation] == [EntryKind.GRPC, EntryKind.JSONRPC]
    assert results[CLIENT_ID].outcome is Outcome.PASS


@pytest.fixture
def unused_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_grpc_upstream_that_is_down_is_said_per_call(tmp_path: Path, unused_port: int) -> None:
    path = tmp_path / "down.yaml"
    path.write_text(BROKEN.replace("{grpc_address}", f"127.0.0.1:{unused_port}"), encoding="utf-8")
    for upstream, _ in _serve(path):
        with session.hosted(upstream) as (state, _, _):
            address = _proxy_address(state)
            code, details, trailers, _ = _raw_call(address, Operation.GET_TASK, b"", (("a2a-version", "1.0"),))
    assert code == "UNAVAILABLE" and f"127.0.0.1:{unused_port}" in details and details.startswith("a2a-lab proxy")
    assert ("x-a2a-lab-proxy", "own-answer") in trailers
    entry = state.journal.records()[-1]
    assert entry.response is not None and entry.response.refused  # the proxy's own answer, not judged as the server's
    assert _outcome(_results(state)[SERVER_ID], "ERROR-ENVELOPE") is Outcome.SKIPPED


#: An upstream that itself answers UNAVAILABLE with no trailers: not to be taken for the proxy's own answer.
UNAVAILABLE = BROKEN.replace(
    '        raw: {body_base64: "//8=", content_type: application/grpc}',
    "        error: {code: InternalError, message: overloaded}\n        grpc: {status: UNAVAILABLE, details: false}",
)


def test_an_upstreams_own_unavailable_passes_as_it_came(tmp_path: Path) -> None:
    path = tmp_path / "unavailable.yaml"
    path.write_text(UNAVAILABLE, encoding="utf-8")
    request = protobuf.encode_request(
        Operation.SEND_MESSAGE, {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    )
    for upstream, _ in _serve(path):
        with session.hosted(upstream) as (state, _, _):
            route = next(iter(state.routes.grpc.values()))
            assert route.proxy is not None
            direct = _raw_call(route.upstream, Operation.SEND_MESSAGE, request, (("a2a-version", "1.0"),))
            passed = _raw_call(route.proxy, Operation.SEND_MESSAGE, request, (("a2a-version", "1.0"),))
    assert direct[:2] == ("UNAVAILABLE", "overloaded") and passed == direct
    entry = state.journal.records()[-1]
    assert entry.response is not None and not entry.response.refused  # the server's answer, judged as such
    assert _outcome(_results(state)[SERVER_ID], "ERROR-ENVELOPE") is Outcome.NON_STRICT  # no ErrorInfo: a SHOULD


def test_out_replays_unary_grpc_answers(tmp_path: Path) -> None:
    for upstream, _ in _serve(CATALOGUE / "quirks" / "grpc-failed-precondition-error-info.yaml"):
        with session.hosted(upstream) as (state, url, _):
            assert main(["client", "--follow-up", "again", f"{url}{CARD}"]) == 1
    out = tmp_path / "seen.yaml"
    assert capture.write_scenario(state, out, force=False) == 2
    text = out.read_text(encoding="utf-8")
    assert "body_base64" in text and "FAILED_PRECONDITION" in text and "{grpc_address}" in text
    for replay, _ in _serve(out):  # the client's failure, without the real server
        result = subprocess.run(
            [sys.executable, "-m", "a2a_lab.harness.cli", "client", "--follow-up", "again", f"{replay}{CARD}"],
            capture_output=True,
            text=True,
            timeout=60,
            env=environment.inherited(os.environ),
            check=False,
        )
        assert result.returncode == 1 and "FAILED_PRECONDITION" in result.stdout + result.stderr
        assert "UNSUPPORTED_OPERATION" in result.stdout + result.stderr


def test_the_official_sdk_grpc_client_through_the_proxy(conformant: tuple[str, ScenarioApp]) -> None:
    pytest.importorskip("a2a.client")
    upstream, _ = conformant
    with session.hosted(upstream) as (state, url, _):
        ran = subprocess.run(
            [sys.executable, str(PEER_CLIENT), "--mode", "grpc", f"{url}{CARD}"],
            capture_output=True,
            text=True,
            timeout=60,
            env=environment.inherited(os.environ),
            check=False,
        )
    assert ran.returncode == 0, ran.stderr[-2000:]
    calls = [e for e in state.journal.records() if e.kind is EntryKind.GRPC]
    assert calls and calls[0].operation in (Operation.SEND_MESSAGE, Operation.SEND_STREAMING_MESSAGE)
    results = _results(state)
    assert results[SERVER_ID].outcome is Outcome.PASS
    assert results[CLIENT_ID].outcome in (Outcome.PASS, Outcome.NON_STRICT), [
        (c.id, c.outcome, c.message) for c in results[CLIENT_ID].checks if c.outcome is not Outcome.PASS
    ]


def test_without_grpc_a_grpc_interface_is_named_as_not_proxied(
    conformant: tuple[str, ScenarioApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grpcwire, "missing", lambda: grpcwire.MISSING)
    upstream, _ = conformant
    with session.hosted(upstream) as (state, url, _):
        served = _grpc_url(httpx.get(f"{url}{CARD}").json())
    assert state.grpc is None and state.routes.grpc == {}
    assert served == _grpc_url(httpx.get(f"{upstream}{CARD}").json())  # left as it is
    assert len(state.routes.not_proxied) == 1
    assert state.routes.not_proxied[0].endswith(f"at {served!r}: not proxied ({grpcwire.MISSING})")


@pytest.mark.parametrize(
    ("url", "served", "tls"),
    [
        ("127.0.0.1:5000", "127.0.0.1:7000", None),
        ("[::1]:5000", "127.0.0.1:7000", None),
        ("grpc://h:5000/a2a", "grpc://127.0.0.1:7000/a2a", False),
        ("grpcs://h:5000", "grpc://127.0.0.1:7000", True),
        ("https://grpc.example.com/a2a", "http://127.0.0.1:7000/a2a", True),
        ("dns:///h:5000", "dns:///127.0.0.1:7000", None),
    ],
)
def test_a_grpc_url_is_written_for_the_proxy_in_the_form_the_card_used(url: str, served: str, tls: bool | None) -> None:
    assert grpcwire.with_address(url, "127.0.0.1:7000") == served
    assert grpcwire.address_of(served) == "127.0.0.1:7000"
    assert grpcwire.tls_of(url) is tls


class _Canned(grpc.GenericRpcHandler):
    """A TLS gRPC upstream of the tests' own: every call answered with one message."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[bytes, bytes]:
        return grpc.unary_unary_rpc_method_handler(lambda _request, _context: self.answer)


def test_a_tls_grpc_upstream_is_dialed_over_tls_and_verified_with_the_ca_file(tmp_path: Path) -> None:
    from concurrent import futures

    from a2a_lab.contract.scenario import ServerCertificate
    from a2a_lab.server import tls

    pki = tls.pki()
    chain, key = pki.leaves[ServerCertificate.VALID]
    answer = protobuf.encode_response(Operation.SEND_MESSAGE, {"message": {"messageId": "a", "role": "ROLE_AGENT"}})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[_Canned(answer)])
    port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(key.read_bytes(), chain.read_bytes())]))
    server.start()
    try:
        path = tmp_path / "tls.yaml"
        path.write_text(BROKEN.replace('"{grpc_address}"', f'"grpcs://127.0.0.1:{port}"'), encoding="utf-8")
        for upstream, _ in _serve(path):
            calls = {}
            for ca_file in (str(pki.ca_file), None):
                with session.hosted(upstream, ca_file=ca_file) as (_, url, _):
                    served = _grpc_url(httpx.get(f"{url}{CARD}").json())
                    address = grpcwire.address_of(served)
                    assert address is not None and served == f"grpc://{address}"  # the proxy's port is plaintext
                    calls[ca_file] = _raw_call(address, Operation.SEND_MESSAGE, b"", (("a2a-version", "1.0"),))
    finally:
        server.stop(0)
    assert calls[str(pki.ca_file)][0] == "OK" and calls[str(pki.ca_file)][3] == [answer]
    refused = calls[None]  # the system's trust store does not know the lab's CA: the proxy says it could not connect
    assert refused[0] == "UNAVAILABLE" and ("x-a2a-lab-proxy", "own-answer") in refused[2]


def test_a_large_grpc_answer_passes_whole_and_is_journaled_cut(conformant: tuple[str, ScenarioApp]) -> None:
    text = "x" * 100_000
    send = {"message": {"messageId": "big", "role": "ROLE_USER", "parts": [{"text": text}]}}
    request = protobuf.encode_request(Operation.SEND_MESSAGE, send)
    upstream, _ = conformant
    with session.hosted(upstream) as (state, _, _):
        address = _proxy_address(state)
        code, _, _, messages = _raw_call(address, Operation.SEND_MESSAGE, request, (("a2a-version", "1.0"),))
    assert (
        code == "OK"
        and len(messages) == 1
        and f"echo: {text}" in str(protobuf.decode_response(Operation.SEND_MESSAGE, messages[0]))
    )
    entry = state.journal.records()[-1]
    body = entry.response.body if entry.response is not None else None
    assert body is not None and body.truncated and body.size > len(text)  # bounded like an HTTP body
    assert entry.answer is not None and entry.answer.kind.value == "task"  # read from the whole message


def test_a_grpc_interface_first_seen_in_a_card_the_client_fetches_gets_its_port_then(
    conformant: tuple[str, ScenarioApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "prime", lambda _state: "the upstream did not answer (as if it were down at start)")
    upstream, _ = conformant
    with session.hosted(upstream) as (state, url, _):
        assert state.routes.grpc == {}  # no card yet
        assert main(["client", f"{url}{CARD}"]) == 0  # its card fetch starts the gRPC port before the card is served
    (route,) = state.routes.grpc.values()
    assert route.proxy is not None
    assert [e.url for e in state.journal.records() if e.kind is EntryKind.GRPC] == [route.proxy]
    assert _results(state)[CLIENT_ID].outcome is Outcome.PASS


#: A gRPC stream whose events come 5 s apart: a client that leaves after the first one.
SLOW = _grpc_agent(
    "slow gRPC stream",
    "streams a task's events five seconds apart",
    "slow",
    "a slow gRPC agent",
    "{streaming: true}",
    """\
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
behaviour:
  SendStreamingMessage:
    - reply: {stream: {interval_ms: 5000}}
""",
)


def test_a_client_that_leaves_a_grpc_stream_stops_it_and_is_not_judged_as_a_server_error(tmp_path: Path) -> None:
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW, encoding="utf-8")
    request = _streaming_request()
    for upstream, _ in _serve(path):
        with session.hosted(upstream) as (state, _, _):
            address = _proxy_address(state)
            with grpc.insecure_channel(address) as channel:
                method = grpcwire.method_path(Operation.SEND_STREAMING_MESSAGE)
                rpc: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(method)
                call: Any = rpc(request, metadata=(("a2a-version", "1.0"),), timeout=30)
                next(call)  # the first event, then the client hangs up
                call.cancel()
            assert state.journal.wait_for(lambda entries: any(e.get("disconnected") for e in entries))
    entry = next(e for e in state.journal.records() if e.kind is EntryKind.GRPC)
    assert entry.disconnected and entry.events is not None and len(entry.events) == 1
    assert entry.response is not None and entry.response.grpc_status is None  # no status was given
    server = _results(state)[SERVER_ID]
    assert _outcome(server, "ERROR-ENVELOPE") is Outcome.SKIPPED and _outcome(server, "STREAMING") is Outcome.PASS
    doc, answered = capture.document(state)  # how the stream ended was never seen: not replayed, and said why
    assert answered == 0 and grpc_capture.CLIENT_LEFT in doc["description"]
    assert "gRPC stream (SendStreamingMessage, journal entry #" in doc["description"]
    assert doc["endpoints"] == [{"path": grpcwire.ENDPOINT_PATH, "binding": "GRPC", "versions": ["1.0"]}]


def test_a_ca_file_that_is_not_there_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.pem"
    assert main(["proxy", "--upstream", "http://127.0.0.1:9", "--ca-file", str(missing)]) == 2
    assert f"--ca-file {str(missing)!r} is not a file" in capsys.readouterr().err


class _Twice(grpc.GenericRpcHandler):
    """A gRPC upstream of the tests' own that answers a unary call with the same message twice."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[bytes, bytes]:
        return grpc.unary_stream_rpc_method_handler(lambda _request, _context: iter([self.answer, self.answer]))


def test_a_unary_answer_of_two_messages_passes_as_it_came_and_fails_response_shape(tmp_path: Path) -> None:
    from concurrent import futures

    task = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}
    answer = protobuf.encode_response(Operation.SEND_MESSAGE, {"task": task})
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[_Twice(answer)])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    request = protobuf.encode_request(
        Operation.SEND_MESSAGE, {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    )
    try:
        path = tmp_path / "twice.yaml"
        path.write_text(BROKEN.replace("{grpc_address}", f"127.0.0.1:{port}"), encoding="utf-8")
        for upstream, _ in _serve(path):
            with session.hosted(upstream) as (state, _, _):
                address = _proxy_address(state)
                passed = _raw_call(address, Operation.SEND_MESSAGE, request, (("a2a-version", "1.0"),))
    finally:
        server.stop(0)
    assert passed[0] == "OK" and passed[3] == [answer, answer]  # both passed on, as they came
    shape = _results(state)[SERVER_ID].check("RESPONSE-SHAPE")
    assert shape is not None and shape.outcome is Outcome.FAIL and "2 messages" in shape.message


def test_a_call_to_no_1_0_method_passes_and_is_journaled_unmatched(conformant: tuple[str, ScenarioApp]) -> None:
    upstream, _ = conformant
    with session.hosted(upstream) as (state, _, _):
        address = _proxy_address(state)
        with grpc.insecure_channel(address) as channel:  # the 0.3 service's path
            rpc: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                f"/{grpcwire.SERVICE_V03}/SendMessage"
            )
            with pytest.raises(grpc.RpcError) as raised:
                rpc(b"\x0a\x00", metadata=(("a2a-version", "0.3"),), timeout=10)
    assert isinstance(raised.value, grpc.Call) and raised.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert "is no method of" in str(raised.value.details())  # the upstream's own words, passed on
    entry = state.journal.records()[-1]
    assert entry.kind is EntryKind.GRPC and entry.unmatched and entry.operation is None
    assert entry.path == f"/{grpcwire.SERVICE_V03}/SendMessage"


def _push_session(upstream: str) -> tuple[Any, int, dict[str, ScenarioResult]]:
    """The reference client registers a webhook over gRPC through the proxy (and reads its configs back):
    the proxy's state, the client's exit code and the verdict."""
    with session.hosted(upstream) as (state, url, _):
        code = main(["client", "--webhook", "--push-configs", f"{url}{CARD}", "push me"])
        results = _results(state)
    return state, code, results


def test_a_webhook_registered_over_grpc_passes_its_notifications_through_the_proxy(
    conformant: tuple[str, ScenarioApp],
) -> None:
    upstream, _ = conformant
    state, code, results = _push_session(upstream)
    entries = state.journal.records()
    pushes = [e for e in entries if e.kind is EntryKind.PUSH]
    client_url = state.hooks.urls[0]
    assert code == 0 and len(pushes) >= 2 and all(e.path == client_url for e in pushes)
    registered = next(e for e in entries if e.operation is Operation.CREATE_PUSH_CONFIG)
    assert registered.kind is EntryKind.GRPC and client_url in registered.body_text  # as the client sent it
    assert "/_push/" not in registered.body_text
    push = results[SERVER_ID].check("PUSH-DELIVERY")
    assert push is not None and push.outcome is Outcome.PASS and set(push.evidence) == {e.seq for e in pushes}
    task_id = str(json.loads(registered.body_text)["taskId"])
    ask = protobuf.encode_request(Operation.LIST_PUSH_CONFIGS, {"taskId": task_id})
    v1 = (("a2a-version", "1.0"),)
    with session.hosted(upstream) as (_, url, _):  # a new proxy: a new client's hooks, the same upstream
        served = httpx.get(f"{url}{CARD}").json()
        create = {"taskId": task_id, "url": "http://127.0.0.1:9/hook"}
        _raw_call(
            _grpc_url(served),
            Operation.CREATE_PUSH_CONFIG,
            protobuf.encode_request(Operation.CREATE_PUSH_CONFIG, create),
            (("a2a-version", "1.0"),),
        )
        status, _, _, listed = _raw_call(_grpc_url(served), Operation.LIST_PUSH_CONFIGS, ask, v1)
        direct = _raw_call(_grpc_url(httpx.get(f"{upstream}{CARD}").json()), Operation.LIST_PUSH_CONFIGS, ask, v1)
    seen = [c["url"] for c in protobuf.decode_response(Operation.LIST_PUSH_CONFIGS, listed[0])["configs"]]
    held = [c["url"] for c in protobuf.decode_response(Operation.LIST_PUSH_CONFIGS, direct[3][0])["configs"]]
    assert status == "OK" and "http://127.0.0.1:9/hook" in seen and all(PUSH not in u for u in seen)  # its own URL
    assert f"{url}{PUSH}0" in held  # the upstream holds the proxy's path for it


#: A gRPC push agent that notifies about another task right before the client's task completes.
FOREIGN_PUSH = _grpc_agent(
    "foreign push over gRPC",
    "a gRPC agent whose push notifications include one about a task the client never started",
    "foreign push",
    "notifies about somebody else's task",
    "{streaming: false, pushNotifications: true}",
    """\
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  advance: {after_ms: 300}
push:
  foreign_task: true
""",
)


def test_a_wrong_notification_after_a_grpc_registration_fails_push_delivery(tmp_path: Path) -> None:
    path = tmp_path / "foreign.yaml"
    path.write_text(FOREIGN_PUSH, encoding="utf-8")
    for upstream, _ in _serve(path):
        state, _, results = _push_session(upstream)
    push = results[SERVER_ID].check("PUSH-DELIVERY")
    assert push is not None and push.outcome is Outcome.FAIL, push
    assert "not the one its webhook was registered for" in push.message and "§" in push.section
    assert "-not-yours" in push.quote and any(e.kind is EntryKind.PUSH for e in state.journal.records())


#: A gRPC agent whose stream is paced: 250 ms between its events.
PACED = _grpc_agent(
    "paced gRPC stream",
    "streams over gRPC, 250 ms between events",
    "paced",
    "a paced gRPC agent",
    "{streaming: true}",
    """\
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  artifacts:
    - {artifactId: result, name: result, parts: [{text: "echo: {text}"}]}
behaviour:
  SendStreamingMessage:
    - reply: {stream: {interval_ms: 250}}
""",
)


def _timed_stream(address: str, request: bytes) -> list[tuple[float, dict[str, Any]]]:
    """A SendStreamingMessage call as the tests' own client: each message decoded, with when it came (seconds
    after the call began)."""
    import time

    with grpc.insecure_channel(address) as channel:
        method = grpcwire.method_path(Operation.SEND_STREAMING_MESSAGE)
        rpc: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(method)
        began = time.monotonic()
        call: Any = rpc(request, metadata=(("a2a-version", "1.0"),), timeout=30)
        decode = functools.partial(protobuf.decode_response, Operation.SEND_STREAMING_MESSAGE)
        out = [(time.monotonic() - began, decode(m)) for m in call]
        assert call.code() is grpc.StatusCode.OK
        return out


def test_out_writes_a_grpc_stream_that_a_replay_sends_message_for_message_with_its_pacing(tmp_path: Path) -> None:
    path = tmp_path / "paced.yaml"
    path.write_text(PACED, encoding="utf-8")
    request = _streaming_request()
    for upstream, _ in _serve(path):
        with session.hosted(upstream) as (state, _, _):
            address = _proxy_address(state)
            seen = _timed_stream(address, request)
    out = tmp_path / "seen.yaml"
    assert capture.write_scenario(state, out, force=False) == 1
    doc, _ = capture.document(state)
    assert "Left out" not in doc["description"] and "raw.events" in doc["description"]
    for replay, _ in _serve(out):  # what `a2a-lab serve seen.yaml` serves
        replayed = _timed_stream(_grpc_url(httpx.get(f"{replay}{CARD}").json()), request)
        assert main(["client", "--stream", f"{replay}{CARD}", "hi"]) == 0  # the reference client reads it too
    assert len(seen) >= 3 and [m for _, m in replayed] == [m for _, m in seen]  # the same messages, in order
    delays = [e["delay_ms"] for e in doc["behaviour"]["SendStreamingMessage"][0]["reply"]["raw"]["events"]]
    assert len(delays) == len(seen) and sum(d >= 200 for d in delays) >= 2, delays  # written as they came
    assert replayed[-1][0] >= sum(delays) / 1000, (replayed, delays)  # replayed so: paced as the upstream paced it


_NONE = "no status was journaled"


@pytest.mark.parametrize(
    ("status", "texts", "left", "why"),
    [
        ("OK", ['{"task":{"id":"t"}}'], False, ""),
        ("OK", [], False, grpc_capture.NO_MESSAGE),
        ("OK", [None], False, grpc_capture.NOT_DECODED),
        ("INTERNAL", ['{"task":{"id":"t"}}'], False, grpc_capture.ENDED_IN_ERROR.format(status="INTERNAL", why=_NONE)),
        (None, ['{"task":{"id":"t"}}'], True, grpc_capture.CLIENT_LEFT),
    ],
)
def test_a_grpc_stream_is_written_only_when_a_replay_sends_the_same(
    status: str | None, texts: list[str | None], left: bool, why: str
) -> None:
    from a2a_lab.contract.journal import Journal
    from a2a_lab.contract.journal_record import Response, SentEvent

    entry = Journal().open("POST", grpcwire.method_path(Operation.SEND_STREAMING_MESSAGE), "", [], b"", EntryKind.GRPC)
    entry.response = Response(200, grpcwire.CONTENT_TYPE, grpc_status=status)
    entry.events = [SentEvent(0.1, SentKind.DATA, text=t, value=None if t else "undecoded") for t in texts]
    entry.disconnected = left
    reply, said = grpc_capture.stream_reply(entry, [{"text": t, "delay_ms": 0} for t in texts])
    assert said == why and (reply is not None) == (why == "")


#: A gRPC agent whose stream breaks off with an error (and its ErrorInfo) after two events.
BREAKS = PACED.replace(
    "reply: {stream: {interval_ms: 250}}", "reply: {stream: {error_after: 2, error: TaskNotFoundError}}"
)


def test_out_replays_a_grpc_stream_that_ended_in_an_error_with_its_status_and_details(tmp_path: Path) -> None:
    path = tmp_path / "breaks.yaml"
    path.write_text(BREAKS, encoding="utf-8")
    request = _streaming_request()
    metadata = (("a2a-version", "1.0"),)
    for upstream, _ in _serve(path):
        with session.hosted(upstream) as (state, _, _):
            address = _proxy_address(state)
            seen = _raw_call(address, Operation.SEND_STREAMING_MESSAGE, request, metadata)
    out = tmp_path / "seen.yaml"
    assert capture.write_scenario(state, out, force=False) == 1
    for replay, _ in _serve(out):
        replayed = _raw_call(
            _grpc_url(httpx.get(f"{replay}{CARD}").json()), Operation.SEND_STREAMING_MESSAGE, request, metadata
        )
    status, details, trailers, messages = seen
    assert status == "NOT_FOUND" and len(messages) == 2  # two events, then the error
    assert replayed[0] == status and replayed[1] == details and replayed[3] == messages  # the same, in order
    key = grpcwire.STATUS_DETAILS_KEY
    assert dict(replayed[2])[key] == dict(trailers)[key]  # its google.rpc.Status (the ErrorInfo) as it came


_INFO = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}


@pytest.mark.parametrize(
    ("status", "why"),
    [
        ({"code": 5, "message": "gone", "details": [_INFO]}, ""),
        ({"code": 13, "message": "gone"}, "its grpc-status-details-bin says code 13, not the call's status"),
        ({"code": 5, "details": [{"@type": "x.Unknown", "value": "00"}]}, "a detail of a type a2a-lab does not write"),
        ({"code": 5, "message": "", "unreadable": "bad"}, "its grpc-status-details-bin did not decode"),
    ],
)
def test_a_grpc_streams_end_status_is_written_only_as_it_came(status: dict[str, Any], why: str) -> None:
    from a2a_lab.contract.journal import Journal
    from a2a_lab.contract.journal_record import Response, SentEvent

    entry = Journal().open("POST", grpcwire.method_path(Operation.SEND_STREAMING_MESSAGE), "", [], b"", EntryKind.GRPC)
    entry.response = Response(200, grpcwire.CONTENT_TYPE, grpc_status="NOT_FOUND")
    entry.events = [
        SentEvent(0.1, SentKind.DATA, text='{"task":{"id":"t"}}'),
        SentEvent(0.2, SentKind.ERROR, value=status),
    ]
    written = [{"text": '{"task":{"id":"t"}}', "delay_ms": 0}, {"text": json.dumps(status), "delay_ms": 100}]
    reply, said = grpc_capture.stream_reply(entry, written)
    if why:
        assert reply is None and said == grpc_capture.ENDED_IN_ERROR.format(status="NOT_FOUND", why=why)
    else:
        assert reply is not None and reply["raw"]["events"][-1] == {**written[-1], "event": "error"}


def test_a_webhook_registered_inline_in_a_grpc_send_is_handed_over_as_the_proxys_path() -> None:
    from a2a_lab.harness.proxy import grpc_push
    from a2a_lab.harness.proxy.push import Hooks

    hooks = Hooks()
    config = {"url": "http://client/hook", "token": "tok", "authentication": {"scheme": "Bearer", "credentials": "c"}}
    message = {"messageId": "m", "parts": [{"text": "http://client/hook"}]}
    send: dict[str, Any] = {"message": message, "configuration": {"taskPushNotificationConfig": config}}
    request = protobuf.encode_request(Operation.SEND_MESSAGE, send)
    sent = grpc_push.register(hooks, Operation.SEND_MESSAGE, request, "http://proxy:1", 7)
    upstream = protobuf.decode_request(Operation.SEND_MESSAGE, sent)
    assert upstream["configuration"]["taskPushNotificationConfig"]["url"] == f"http://proxy:1{PUSH}0"
    assert upstream["message"]["parts"][0]["text"] == "http://client/hook"  # only the webhook's url field changes
    assert hooks.urls == ["http://client/hook"] and hooks.configs[0][0].authorization == "Bearer c"
    assert grpc_push.register(hooks, Operation.GET_TASK, b"\x0a\x01t", "http://proxy:1", 8) == b"\x0a\x01t"
