"""`a2a-lab probe` over gRPC: every probe check judged on a gRPC interface, passing on a2a-lab's conformant gRPC
server and failing on servers that break it (small scenario files, and a hand-written gRPC server with the mistakes
real servers make), and the official a2a-sdk 1.3.0 gRPC server probed as it is."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult
from a2a_lab.harness.server_judging.probe import PROBE_CHECKS, ProbeOptions, ProbeRun, probe
from a2a_lab.protocol import grpcwire, protobuf
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ERROR_DOMAIN, ERROR_INFO_TYPE
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

FAST = ProbeOptions(timeout=5, sleep=lambda _: None)
PASS, FAIL, NON_STRICT, SKIPPED = Outcome.PASS, Outcome.FAIL, Outcome.NON_STRICT, Outcome.SKIPPED
#: AUTH-ENFORCED judges only cards that require credentials.
ALL_PASS = {**{c.id: PASS for c in PROBE_CHECKS[1:]}, "AUTH-ENFORCED": SKIPPED}
GRPC_ID = "probe/0-GRPC-1.0"


def by_id(run: ProbeRun) -> dict[str, ScenarioResult]:
    return {r.id: r for r in run.results}


def outcomes(result: ScenarioResult) -> dict[str, Outcome]:
    return {c.id: c.outcome for c in result.checks}


def check(run: ProbeRun, check_id: str, sid: str = GRPC_ID) -> CheckResult:
    return next(c for c in by_id(run)[sid].checks if c.id == check_id)


def grpc_card(streaming: bool = True, url: str = "{grpc_address}", **extra: Any) -> dict[str, Any]:
    return {
        "name": "grpc probe agent",
        "description": "a gRPC agent",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "a", "name": "a", "description": "a", "tags": ["a"]}],
        **extra,
    }


def scenario(behaviour: dict[str, Any] | None = None, **card: Any) -> dict[str, Any]:
    return {
        "title": "a gRPC agent for the probe",
        "description": "written by tests/harness/test_probe_grpc.py",
        "spec": "A2A 1.0 §10",
        "card": {"object": grpc_card(**card)},
        "task": {"steps": ["SUBMITTED", "WORKING", "COMPLETED"]},
        **({"behaviour": behaviour} if behaviour else {}),
    }


@pytest.fixture
def serve_file(tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], str]]:
    servers: list[BackgroundServer] = []

    def _serve(data: dict[str, Any]) -> str:
        path = tmp_path / f"s{len(servers)}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        server = BackgroundServer(ScenarioApp(load_file(path))).start()
        servers.append(server)
        return server.url

    yield _serve
    for server in servers:
        server.stop()


# ------------------------------------------------------------------------------------------- a2a-lab's own


def test_the_conformant_grpc_server_passes_every_check(serve: Any) -> None:
    served = serve("grpc/conformant")
    run = probe(served.url, FAST)
    assert list(by_id(run)) == ["probe/card", GRPC_ID]
    assert outcomes(by_id(run)["probe/card"]) == {"CARD-VALID": PASS}
    assert outcomes(by_id(run)[GRPC_ID]) == ALL_PASS
    assert run.probed == {(Binding.GRPC, Version.V1_0)}
    assert check(run, "UNKNOWN-TASK").message == (
        "GetTask and CancelTask on an unknown id answer gRPC NOT_FOUND with ErrorInfo reason TASK_NOT_FOUND"
    )
    assert check(run, "VERSION-NEGOTIATION").message.startswith("no a2a-version and a2a-version: 9.9 are both refused")
    assert check(run, "SEND-MESSAGE").message == "lf.a2a.v1.A2AService/SendMessage answered a task in COMPLETED"
    # The transcript: gRPC entries as the server journals them (method path, address, metadata, ProtoJSON, status).
    entries = by_id(run)[GRPC_ID].journal
    assert {e["kind"] for e in entries} == {"grpc"}
    statuses = [(e["probe"], e["response"]["grpc_status"]) for e in entries]
    assert ("VERSION-NEGOTIATION", "FAILED_PRECONDITION") in statuses and ("UNKNOWN-TASK", "NOT_FOUND") in statuses
    stream = next(e for e in entries if e["operation"] == "SendStreamingMessage")
    kinds = [next(iter(ev["data"])) for ev in stream["events"]]
    assert stream["response"]["stream"] and kinds[0] == "task" and kinds[-1] == "statusUpdate"
    versions = [e["headers"].get("a2a-version") for e in entries if e["probe"] == "VERSION-NEGOTIATION"]
    assert versions == [None, "9.9"]
    # The server saw the same calls.
    seen = [e for e in served.journal if e["kind"] == "grpc"]
    assert len(seen) == len(entries) and seen[0]["headers"]["a2a-version"] == "1.0"


def test_advertised_but_unimplemented_fails_send_message(serve_file: Any) -> None:
    rule = [{"when": {"binding": "GRPC"}, "reply": {"grpc": {"status": "UNIMPLEMENTED"}}}]
    run = probe(serve_file(scenario({"SendMessage": rule})), FAST)
    found = check(run, "SEND-MESSAGE")
    assert found.outcome is FAIL
    assert "answers method not found (gRPC UNIMPLEMENTED)" in found.message
    assert check(run, "ERROR-ENVELOPE").outcome is NON_STRICT  # UNIMPLEMENTED without google.rpc.Status details


def test_an_answer_that_is_no_message_nor_task_fails_send_message(serve_file: Any) -> None:
    run = probe(serve_file(scenario({"SendMessage": [{"reply": {"raw": {"status": 200, "body": ""}}}]})), FAST)
    found = check(run, "SEND-MESSAGE")
    assert found.outcome is FAIL and "neither a message nor a task" in found.message


def test_a_task_without_status_fails_response_shape(serve_file: Any) -> None:
    body = protobuf.encode_response(Operation.SEND_MESSAGE, {"task": {"id": "abc"}}).decode("ascii")
    run = probe(serve_file(scenario({"SendMessage": [{"reply": {"raw": {"status": 200, "body": body}}}]})), FAST)
    found = check(run, "RESPONSE-SHAPE")
    assert found.outcome is FAIL and "a task needs a status" in found.message


def test_a_stream_without_its_terminal_state_fails_streaming(serve_file: Any) -> None:
    rule = [{"reply": {"stream": {"omit_terminal": True}}}]
    run = probe(serve_file(scenario({"SendStreamingMessage": rule})), FAST)
    found = check(run, "STREAMING")
    assert found.outcome is FAIL and "before a terminal state" in found.message
    assert found.expected.startswith("a gRPC server stream")
    assert check(run, "STREAMING").outcome is FAIL and check(run, "SEND-MESSAGE").outcome is PASS


def test_a_grpc_agent_that_requires_credentials_is_not_judged_without_them(serve_file: Any) -> None:
    data = scenario()
    data["auth"] = {"bearer": "s3cret", "scope": "all"}
    url = serve_file(data)
    found = check(probe(url, FAST), "SEND-MESSAGE")
    assert found.outcome is SKIPPED and "(gRPC UNAUTHENTICATED)" in found.message
    assert outcomes(by_id(probe(url, dataclasses.replace(FAST, token="s3cret")))[GRPC_ID]) == ALL_PASS


def test_grpc_is_skipped_without_the_extra(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve("grpc/conformant")
    monkeypatch.setattr(grpcwire, "missing", lambda: grpcwire.MISSING)
    result = by_id(probe(served.url, FAST))[GRPC_ID]
    assert result.outcome is SKIPPED and "grpc extra" in result.checks[0].message
    assert not [e for e in served.journal if e["kind"] == "grpc"]


def test_a_url_mistake_is_dialed_and_named_by_card_valid(serve_file: Any) -> None:
    run = probe(serve_file(scenario(url="grpc://{grpc_address}/a2a")), FAST)
    assert outcomes(by_id(run)[GRPC_ID]) == ALL_PASS
    card = check(run, "CARD-VALID", "probe/card")
    assert card.outcome is NON_STRICT  # a lenient client dials it, a strict one does not: a warning
    assert "supportedInterfaces[0].url" in card.message and "it has a scheme and a path" in card.message


def test_binding_restricts_the_probe_to_grpc(serve: Any) -> None:
    run = probe(serve("grpc/conformant").url, dataclasses.replace(FAST, binding=Binding.JSONRPC))
    assert list(by_id(run)) == ["probe/card"]


# ------------------------------------------------------------------------------------------- hand-written servers


def status_trailer(code: grpc.StatusCode, text: str, reason: str | None, status_code: int | None = None) -> bytes:
    details = [{"@type": ERROR_INFO_TYPE, "reason": reason, "domain": ERROR_DOMAIN}] if reason else []
    number = status_code if status_code is not None else code.value[0]
    return protobuf.status_bytes(number, text, details)


class Mistakes(grpc.GenericRpcHandler):
    """A gRPC A2A server with one mistake real servers make (`mode`):

    - v100: refuses a missing or unknown a2a-version as spec v1.0.0 said (UNIMPLEMENTED, reason VERSION_NOT_SUPPORTED);
    - bare: its errors carry no google.rpc.Status (no grpc-status-details-bin);
    - mismatch: the google.rpc.Status code differs from the call's status;
    - garbage: grpc-status-details-bin is not a google.rpc.Status;
    - unimplemented: GetTask and CancelTask are not implemented (UNIMPLEMENTED).
    Otherwise it answers SendMessage with a message, and TaskNotFound for every task.
    """

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        op = grpcwire.operation_of(details.method)
        metadata = dict(details.invocation_metadata or ())

        def answer(request: bytes, context: grpc.ServicerContext) -> bytes:
            if self.mode == "v100" and metadata.get(grpcwire.VERSION_METADATA) != "1.0":
                return self.fail(
                    context, grpc.StatusCode.UNIMPLEMENTED, "version not supported", "VERSION_NOT_SUPPORTED"
                )
            if op is Operation.SEND_MESSAGE:
                message = {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}
                return protobuf.encode_response(op, {"message": message})
            if self.mode == "unimplemented":
                context.abort(grpc.StatusCode.UNIMPLEMENTED, "no such method")
            return self.fail(context, grpc.StatusCode.NOT_FOUND, "task not found", "TASK_NOT_FOUND")

        return grpc.unary_unary_rpc_method_handler(answer)

    def fail(self, context: grpc.ServicerContext, code: grpc.StatusCode, text: str, reason: str) -> bytes:
        if self.mode == "mismatch":
            context.set_trailing_metadata(((grpcwire.STATUS_DETAILS_KEY, status_trailer(code, text, reason, 13)),))
        elif self.mode == "garbage":
            context.set_trailing_metadata(((grpcwire.STATUS_DETAILS_KEY, b"\xff\xfe not a status"),))
        elif self.mode != "bare":
            context.set_trailing_metadata(((grpcwire.STATUS_DETAILS_KEY, status_trailer(code, text, reason)),))
        context.abort(code, text)
        raise AssertionError("abort raises")


@pytest.fixture
def mistaken() -> Iterator[Callable[[str], str]]:
    """Start a hand-written gRPC server in a given mode, its card on uvicorn; returns the card's origin."""
    stops: list[Callable[[], object]] = []

    def _start(mode: str) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        server.add_generic_rpc_handlers((Mistakes(mode),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        card = grpc_card(streaming=False, url=f"127.0.0.1:{port}")

        async def serve_card(request: Request) -> JSONResponse:
            return JSONResponse(card)

        http = BackgroundServer(Starlette(routes=[Route("/.well-known/agent-card.json", serve_card)])).start()
        stops.append(http.stop)
        stops.append(lambda: server.stop(0).wait())
        return http.url

    yield _start
    for stop in stops:
        stop()


def test_version_refused_as_v1_0_0_said_is_non_strict(mistaken: Any) -> None:
    run = probe(mistaken("v100"), FAST)
    found = check(run, "VERSION-NEGOTIATION")
    assert found.outcome is NON_STRICT
    assert "as spec v1.0.0 mapped it (gRPC UNIMPLEMENTED); v1.0.1 says FAILED_PRECONDITION" in found.message
    assert "spec v1.0.0: UNIMPLEMENTED" in found.expected
    assert check(run, "UNKNOWN-TASK").outcome is PASS and check(run, "ERROR-ENVELOPE").outcome is PASS


def test_errors_without_status_details(mistaken: Any) -> None:
    run = probe(mistaken("bare"), FAST)
    unknown = check(run, "UNKNOWN-TASK")
    assert unknown.outcome is FAIL and "answered gRPC NOT_FOUND, not TaskNotFound" in unknown.message
    envelope = check(run, "ERROR-ENVELOPE")
    assert envelope.outcome is NON_STRICT and "without grpc-status-details-bin" in envelope.message


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("mismatch", "the google.rpc.Status code 13 (INTERNAL) differs from the call's status 5 (NOT_FOUND)"),
        ("garbage", "grpc-status-details-bin is unreadable"),
    ],
)
def test_malformed_status_details_fail_error_envelope(mistaken: Any, mode: str, says: str) -> None:
    found = check(probe(mistaken(mode), FAST), "ERROR-ENVELOPE")
    assert found.outcome is FAIL and says in found.message, found


def test_unimplemented_get_task_fails_unknown_task(mistaken: Any) -> None:
    found = check(probe(mistaken("unimplemented"), FAST), "UNKNOWN-TASK")
    assert found.outcome is FAIL and "answers method not found (gRPC UNIMPLEMENTED)" in found.message


# ------------------------------------------------------------------------------------------- the official SDK


def test_the_official_a2a_sdk_grpc_server(a2a_sdk_grpc_server: str) -> None:
    """a2a-sdk 1.3.0's GrpcHandler answers, streams and spells its errors by the book (NOT_FOUND with a
    google.rpc.Status carrying ErrorInfo TASK_NOT_FOUND), but it never reads the a2a-version metadata: a call without
    it, or with 9.9, is served as 1.0 (its JSON-RPC routes, the same DefaultRequestHandler, refuse both with -32009)."""
    run = probe(a2a_sdk_grpc_server, FAST)
    results = by_id(run)
    assert list(results) == ["probe/card", GRPC_ID, "probe/1-JSONRPC-1.0"]
    assert outcomes(results["probe/card"]) == {"CARD-VALID": PASS}
    assert outcomes(results[GRPC_ID]) == {**ALL_PASS, "VERSION-NEGOTIATION": FAIL}
    assert outcomes(results["probe/1-JSONRPC-1.0"]) == ALL_PASS
    version = check(run, "VERSION-NEGOTIATION")
    assert version.message == (
        "a request with no a2a-version metadata (which means 0.3) was served as A2A 1.0 "
        "(it answered TaskNotFound for the unknown id, §3.6.2)"
    )
    assert check(run, "STREAMING").message.endswith("closed after COMPLETED")
    sent = json.loads(next(e for e in results[GRPC_ID].journal if e["probe"] == "SEND-MESSAGE")["body"]["text"])
    assert sent["message"]["role"] == "ROLE_USER"
