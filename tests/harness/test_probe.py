"""`a2a-lab probe`: the reference client judging servers. Every probe check is shown passing on a server that does it
right and failing on one that does not (catalogue scenarios, a few small scenario files of our own, and one hand-written
server that ignores A2A-Version), and the official a2a-sdk server is probed as it is."""

from __future__ import annotations

import argparse
import dataclasses
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.cli import main
from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult
from a2a_lab.harness.server_judging.probe import PROBE_CHECKS, ProbeOptions, ProbeRun, probe
from a2a_lab.protocol import jsonrpc, rest, shapes
from a2a_lab.protocol.forms import V03_HTTP_JSON, V03_JSONRPC, V1_JSONRPC
from a2a_lab.protocol.versions import Version
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

FAST = ProbeOptions(
    timeout=5, sleep=lambda _: None
)  # the follow-up's polite waits are skipped: the scenarios move per GetTask
PASS, FAIL, NON_STRICT, SKIPPED = Outcome.PASS, Outcome.FAIL, Outcome.NON_STRICT, Outcome.SKIPPED
#: AUTH-ENFORCED judges only cards that require credentials.
ALL_PASS = {**{c.id: PASS for c in PROBE_CHECKS[1:]}, "AUTH-ENFORCED": SKIPPED}


def run_probe(serve: Any, scenario_id: str, **options: Any) -> ProbeRun:
    served = serve(scenario_id)
    return probe(served.url, dataclasses.replace(FAST, **options))


def by_id(run: ProbeRun) -> dict[str, ScenarioResult]:
    return {r.id: r for r in run.results}


def outcomes(result: ScenarioResult) -> dict[str, Outcome]:
    return {c.id: c.outcome for c in result.checks}


def check(run: ProbeRun, sid: str, check_id: str) -> CheckResult:
    found = by_id(run)[sid].check(check_id)
    assert found is not None
    return found


@pytest.fixture
def serve_file(tmp_path: Path) -> Iterator[Any]:
    """Serve a scenario given as data (written to YAML and loaded as a user's file is)."""
    servers: list[BackgroundServer] = []

    def _serve(name: str, data: dict[str, Any]) -> str:
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        server = BackgroundServer(ScenarioApp(load_file(path))).start()
        servers.append(server)
        return server.url

    yield _serve
    for server in servers:
        server.stop()


# ----------------------------------------------------------------------------------- the catalogue's servers


def test_conformant_passes_every_probe_check_on_all_five_interfaces(serve: Any) -> None:
    run = run_probe(serve, "spec/conformant")
    results = by_id(run)
    assert list(results) == [
        "probe/card",
        "probe/0-JSONRPC-1.0",
        "probe/1-HTTP+JSON-1.0",
        "probe/2-JSONRPC-0.3",
        "probe/3-HTTP+JSON-0.3",
        "probe/4-GRPC-1.0",
    ]
    assert outcomes(results["probe/card"]) == {
        "CARD-VALID": PASS
    }  # its dual card's 0.3 fields describe its own 0.3 interface
    for sid in ("probe/0-JSONRPC-1.0", "probe/1-HTTP+JSON-1.0", "probe/4-GRPC-1.0"):
        assert outcomes(results[sid]) == ALL_PASS, results[sid].checks
    for sid in ("probe/2-JSONRPC-0.3", "probe/3-HTTP+JSON-0.3"):  # 0.3 has no version header to negotiate
        assert outcomes(results[sid]) == {**ALL_PASS, "VERSION-NEGOTIATION": SKIPPED}, results[sid].checks
    assert all(r.outcome is PASS for r in run.results)
    assert (
        "4 event(s) (task -> statusUpdate -> artifactUpdate -> statusUpdate), closed after COMPLETED"
        in check(run, "probe/3-HTTP+JSON-0.3", "STREAMING").message
    )
    assert check(run, "probe/1-HTTP+JSON-1.0", "UNKNOWN-TASK").message.endswith(
        "HTTP 404 with ErrorInfo reason TASK_NOT_FOUND"
    )


@pytest.mark.parametrize(("scenario_id", "streaming"), [("spec/v1.0.0-server", SKIPPED), ("spec/tck-sut", PASS)])
def test_a_v1_0_0_server_is_not_failed_for_following_v1_0_0(serve: Any, scenario_id: str, streaming: Outcome) -> None:
    """Spec revision v1.0.0 answered HTTP+JSON as application/json (notes D5) and mapped some errors to other
    statuses (D3): the probe passes its errors (TaskNotFound 404 and VersionNotSupported 400 in both revisions) and
    names the media type as v1.0.1's SHOULD, NON_STRICT. JSON-RPC is the same in both revisions. Over gRPC, v1.0.0
    refused an unsupported version with UNIMPLEMENTED where v1.0.1 says FAILED_PRECONDITION: NON_STRICT, named."""
    run = run_probe(serve, scenario_id)
    results = by_id(run)
    rest_id = next(sid for sid in results if "HTTP+JSON-1.0" in sid)
    expected = {**ALL_PASS, "STREAMING": streaming}
    assert outcomes(results[rest_id]) == {**expected, "ERROR-ENVELOPE": NON_STRICT}, results[rest_id].checks
    envelope = check(run, rest_id, "ERROR-ENVELOPE")
    assert envelope.message.endswith(
        "Content-Type 'application/json', not application/a2a+json (v1.0.1 SHOULD; v1.0.0 said application/json: "
        "notes D5)"
    )
    for sid, result in results.items():
        if "GRPC" in sid:
            assert outcomes(result) == {**expected, "VERSION-NEGOTIATION": NON_STRICT}, result.checks
            assert "as spec v1.0.0 mapped it (gRPC UNIMPLEMENTED)" in check(run, sid, "VERSION-NEGOTIATION").message
        elif sid not in ("probe/card", rest_id):
            assert outcomes(result) == expected, result.checks  # JSON-RPC
    assert all(r.outcome is not FAIL for r in run.results)


def test_advertised_method_not_found_fails_send_message_naming_32601(serve: Any) -> None:
    run = run_probe(serve, "quirks/advertised-method-not-found")
    result = by_id(run)["probe/0-JSONRPC-1.0"]
    assert outcomes(result) == {
        "SEND-MESSAGE": FAIL,
        "RESPONSE-SHAPE": SKIPPED,
        "TASK-FOLLOW-UP": SKIPPED,
        "UNKNOWN-TASK": PASS,
        "STREAMING": SKIPPED,
        "VERSION-NEGOTIATION": PASS,
        "AUTH-ENFORCED": SKIPPED,
        "ERROR-ENVELOPE": PASS,
    }
    send = check(run, "probe/0-JSONRPC-1.0", "SEND-MESSAGE")
    assert send.message.startswith("the card advertises SendMessage (JSONRPC 1.0 at ")
    assert send.message.endswith(
        "but the server answers method not found (-32601)"
    )  # no other version answers there either
    assert "-32601" in send.actual and send.requirement and send.section.startswith("A2A 1.0 §3.1.1")


def test_mixed_version_direct_message(serve: Any) -> None:
    run = run_probe(serve, "quirks/mixed-version-direct-message")
    card = check(run, "probe/card", "CARD-VALID")
    assert card.outcome is NON_STRICT  # a warning, not a FAIL (field note S1)
    assert card.message == (
        "1 warning(s): protocolVersion: top-level protocolVersion '0.3.0' differs from the interfaces' versions"
        " (0.3, 1.0)"
    )
    for sid, method in (("probe/0-JSONRPC-1.0", "SendMessage"), ("probe/1-JSONRPC-0.3", "message/send")):
        send, follow = check(run, sid, "SEND-MESSAGE"), check(run, sid, "TASK-FOLLOW-UP")
        assert (send.outcome, send.message) == (PASS, f"{method} answered a message")
        assert follow.outcome is SKIPPED and "answered a message" in follow.message
        assert check(run, sid, "RESPONSE-SHAPE").outcome is PASS
    assert not [c for r in run.results for c in r.checks if c.outcome is FAIL]


def test_patch_version_binding_mix(serve: Any) -> None:
    run = run_probe(serve, "quirks/patch-version-binding-mix")
    card = check(run, "probe/card", "CARD-VALID")
    assert card.outcome is NON_STRICT
    assert "supportedInterfaces[0].protocolVersion: '0.3.0' carries a patch number" in card.message
    results = by_id(run)
    assert list(results) == ["probe/card", "probe/0-JSONRPC-0.3", "probe/1-HTTP+JSON-1.0"]  # "0.3.0" is read as 0.3
    assert outcomes(results["probe/0-JSONRPC-0.3"]) == {
        **ALL_PASS,
        "TASK-FOLLOW-UP": SKIPPED,
        "STREAMING": SKIPPED,
        "VERSION-NEGOTIATION": SKIPPED,
    }
    assert check(run, "probe/0-JSONRPC-0.3", "SEND-MESSAGE").message == "message/send answered a message"


def test_v03_completed_task_artifacts(serve: Any) -> None:
    run = run_probe(serve, "quirks/v03-completed-task-artifacts")
    assert outcomes(by_id(run)["probe/card"]) == {"CARD-VALID": PASS}  # "0.3.0" is the 0.3 schema's own spelling
    sid = "probe/0-JSONRPC-0.3"
    assert list(by_id(run)) == ["probe/card", sid]
    assert check(run, sid, "SEND-MESSAGE").message == "message/send answered a task in COMPLETED"
    shape = check(run, sid, "RESPONSE-SHAPE")
    assert (shape.outcome, shape.message) == (PASS, "a task in the 0.3 JSON-RPC form, and 1 GetTask answer(s)")
    assert check(run, sid, "TASK-FOLLOW-UP").message.endswith(": COMPLETED -> COMPLETED")


def test_submitted_needs_get_task_shows_the_task_moving_on(serve: Any) -> None:
    run = run_probe(serve, "spec/task/submitted-needs-get-task")
    for sid, what in (("probe/0-JSONRPC-1.0", "GetTask"), ("probe/1-HTTP+JSON-1.0", "GET /tasks/{id}")):
        follow = check(run, sid, "TASK-FOLLOW-UP")
        assert follow.outcome is PASS
        assert follow.message.startswith(f"{what} returned task ") and follow.message.endswith(
            ": SUBMITTED -> WORKING -> COMPLETED"
        )
        assert check(run, sid, "RESPONSE-SHAPE").message.endswith("and 2 GetTask answer(s)")
        assert len(follow.evidence) == 2


def test_card_claims_1_0_while_the_wire_speaks_0_3(serve: Any) -> None:
    run = run_probe(serve, "errors/card-1.0-wire-0.3")
    sid = "probe/0-JSONRPC-1.0"
    send = check(run, sid, "SEND-MESSAGE")
    assert send.outcome is FAIL
    assert send.message.endswith(
        "but the server answers method not found (-32601); the same URL answers the A2A 0.3 message/send "
        "with a task: the card claims 1.0, the wire speaks 0.3"
    )
    unknown = check(run, sid, "UNKNOWN-TASK")
    assert (
        unknown.outcome is FAIL
        and "the server answers method not found (error -32601) instead of TaskNotFound" in unknown.message
    )
    version = check(run, sid, "VERSION-NEGOTIATION")
    assert (
        version.outcome is NON_STRICT
        and "refused, but not with VersionNotSupportedError (error -32601)" in version.message
    )
    assert by_id(run)[sid].outcome is FAIL


@pytest.mark.parametrize(
    ("scenario_id", "sid", "check_id", "outcome", "says"),
    [
        (
            "errors/task-not-found-on-get-task",
            "probe/0-JSONRPC-1.0",
            "TASK-FOLLOW-UP",
            FAIL,
            "which SendMessage just returned, failed",
        ),
        (
            "streaming/no-terminal-event",
            "probe/0-JSONRPC-1.0",
            "STREAMING",
            FAIL,
            "the stream closed at WORKING, before a terminal state",
        ),
        (
            "streaming/status-first",
            "probe/1-HTTP+JSON-1.0",
            "STREAMING",
            FAIL,
            "the first event of a task stream should be the task",
        ),
        (
            "streaming/duplicate-events",
            "probe/0-JSONRPC-1.0",
            "STREAMING",
            FAIL,
            "1 event(s) after the stream's end (statusUpdate)",
        ),
        ("errors/result-and-error", "probe/0-JSONRPC-1.0", "ERROR-ENVELOPE", FAIL, "both `result` and `error`"),
        (
            "errors/html-500-page",
            "probe/0-JSONRPC-1.0",
            "ERROR-ENVELOPE",
            FAIL,
            "HTTP 500 answer is not a JSON-RPC error object (text/html)",
        ),
        (
            "discovery/nonsense-version-first",
            "probe/card",
            "CARD-VALID",
            FAIL,
            "supportedInterfaces[0].protocolVersion: 'banana' is not a protocol version",
        ),
    ],
)
def test_servers_that_break_a_check_fail_it(
    serve: Any, scenario_id: str, sid: str, check_id: str, outcome: Outcome, says: str
) -> None:
    found = check(run_probe(serve, scenario_id), sid, check_id)
    assert found.outcome is outcome and says in found.message, found
    assert found.expected and found.actual and found.requirement


def test_interfaces_a2a_lab_does_not_speak_are_skipped(serve: Any) -> None:
    result = by_id(run_probe(serve, "discovery/nonsense-version-first"))["probe/0-JSONRPC-banana"]
    assert result.outcome is SKIPPED and {c.outcome for c in result.checks} == {SKIPPED}
    assert "a2a-lab does not speak JSONRPC banana" in result.checks[0].message


def test_an_agent_that_requires_credentials_is_not_judged_without_them(serve: Any) -> None:
    served = serve("auth/bearer-required")
    run = probe(served.url, FAST)
    for sid in ("probe/0-JSONRPC-1.0", "probe/1-HTTP+JSON-1.0"):
        for check_id in ("SEND-MESSAGE", "UNKNOWN-TASK"):
            found = check(run, sid, check_id)
            assert (found.outcome, found.message) == (
                SKIPPED,
                "not judged: the server requires credentials (HTTP 401); give the probe a token (--token)",
            )
    assert served.app.scenario.auth is not None
    with_token = probe(served.url, dataclasses.replace(FAST, token=served.app.scenario.auth.bearer))
    for sid in ("probe/0-JSONRPC-1.0", "probe/1-HTTP+JSON-1.0"):
        assert outcomes(by_id(with_token)[sid]) == {**ALL_PASS, "STREAMING": SKIPPED, "AUTH-ENFORCED": PASS}
    sent = [e for e in served.journal if e.get("operation") == "SendMessage"]
    assert sent[-1]["headers"]["authorization"] == "Bearer <redacted>"


@pytest.mark.parametrize(
    ("scenario", "given"),
    [
        ("auth/api-key-query", {"apiKey": "a2a-lab-test-key-query"}),
        (
            "auth/oauth2-client-credentials",
            {"client_id": "a2a-lab-client", "client_secret": "a2a-lab-test-client-secret"},
        ),
    ],
)
def test_the_probe_presents_the_scheme_the_card_declares(serve: Any, scenario: str, given: dict[str, str]) -> None:
    served = serve(scenario)
    without = probe(served.url, FAST)
    assert check(without, "probe/0-JSONRPC-1.0", "SEND-MESSAGE").outcome is SKIPPED
    run = probe(served.url, dataclasses.replace(FAST, credentials=given))
    assert check(run, "probe/0-JSONRPC-1.0", "SEND-MESSAGE").outcome is Outcome.PASS
    sent = [e for e in served.journal if e.get("operation") == "SendMessage"]
    assert sent and all(e.get("credentials") == "valid" for e in sent[-2:])


def test_the_probe_refuses_malformed_credentials() -> None:
    from a2a_lab.harness.cli.probe import credentials_of

    with pytest.raises(ValueError, match="NAME=VALUE"):
        credentials_of(argparse.Namespace(api_key="novalue", client_credentials=None))
    assert credentials_of(argparse.Namespace(api_key="X-API-Key=k", client_credentials="id:s:x")) == {
        "apiKey": "k",
        "client_id": "id",
        "client_secret": "s:x",
    }


def test_the_probe_transcript_hides_the_credentials_its_card_declares() -> None:
    from a2a_lab.harness.clients.refclient.recording import Exchange
    from a2a_lab.harness.server_judging.probe.runner import journal

    card = {"securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "X-Agent-Ident"}}}}
    sent = Exchange(
        1,
        0.1,
        "POST",
        "http://agent.example/a2a?api_key=s3cret&x=1",
        [("X-Agent-Ident", "s3cret"), ("Authorization", "Bearer s3cret")],
        b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"metadata":{"cred\\u0065ntials":"s3cret"}}}',
        200,
        [("content-type", "application/json")],
        bytearray(b'{"jsonrpc":"2.0","id":1,"result":{"token":"s3cret"}}'),
    )
    [entry] = journal([sent], [], card)
    assert "s3cret" not in json.dumps(entry)
    assert entry["headers"]["x-agent-ident"] == "<redacted>" and entry["query"] == "api_key=<redacted>&x=1"
    assert entry["url"] == "http://agent.example/a2a?api_key=<redacted>&x=1"
    [plain] = journal([sent], [])
    assert plain["headers"]["x-agent-ident"] == "s3cret", "only the card names it a credential"


def test_binding_restricts_the_probe(serve: Any) -> None:
    from a2a_lab.protocol.bindings import Binding

    run = run_probe(serve, "spec/conformant", binding=Binding.HTTP_JSON)
    assert list(by_id(run)) == ["probe/card", "probe/1-HTTP+JSON-1.0", "probe/3-HTTP+JSON-0.3"]


# ------------------------------------------------------------------------------- servers of our own making

CARD = {
    "name": "shape agent",
    "description": "answers in some form",
    "version": "1.0.0",
    "supportedInterfaces": [{"url": "{base_url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": False},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "a", "name": "a", "description": "a", "tags": ["a"]}],
}


def answering(body: dict[str, Any]) -> dict[str, Any]:
    """A scenario whose 1.0 SendMessage answers these exact bytes (the client's id echoed)."""
    return {
        "title": "a 1.0 interface answering a given body",
        "description": "RESPONSE-SHAPE's failing server.",
        "spec": "A2A 1.0 §9.4.1",
        "card": {"object": CARD},
        "behaviour": {"SendMessage": [{"reply": {"raw": {"status": 200, "echo_id": True, "body": json.dumps(body)}}}]},
    }


@pytest.mark.parametrize(
    ("name", "result", "says"),
    [
        (
            "v03-form",
            {"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": "completed"}},
            "the SendMessage result is in the 0.3 JSON-RPC form, not the 1.0 JSON-RPC form its interface declares",
        ),
        (
            "kind-in-1.0",
            {"task": {"kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}},
            "result.task.kind: the 1.0 form has no `kind`",
        ),
        (
            "lowercase-state",
            {"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "completed"}}},
            "result.task.status.state: 'completed' is not the 1.0 JSON-RPC spelling ('TASK_STATE_COMPLETED')",
        ),
    ],
)
def test_response_shape_fails_on_another_form(serve_file: Any, name: str, result: dict[str, Any], says: str) -> None:
    url = serve_file(name, answering({"jsonrpc": "2.0", "id": 0, "result": result}))
    run = probe(url, FAST)
    assert check(run, "probe/0-JSONRPC-1.0", "SEND-MESSAGE").outcome is PASS  # readable, in some form
    shape = check(run, "probe/0-JSONRPC-1.0", "RESPONSE-SHAPE")
    assert shape.outcome is FAIL and says in shape.message, shape
    assert (
        shape.expected == "a SendMessage result shaped like "
        '{"task": {"id": "…", "contextId": "…", "status": {"state": "TASK_STATE_COMPLETED"}}}'
    )


def test_response_shape_expects_a_bare_task_of_get_task(serve_file: Any) -> None:
    """GetTask answers a Task, bare in every form (§3.1.3; the 1.0 proto's GetTask returns Task): a server that wraps it
    as SendMessage's result is wrong, and the finding shows the bare shape it expected."""
    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}
    done = {**task, "status": {"state": "TASK_STATE_COMPLETED"}}
    data = answering({"jsonrpc": "2.0", "id": 0, "result": {"task": task}})
    data["behaviour"]["GetTask"] = [
        {
            "reply": {
                "raw": {
                    "status": 200,
                    "echo_id": True,
                    "body": json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"task": done}}),
                }
            }
        }
    ]
    run = probe(serve_file("wrapped-get-task", data), FAST)
    shape = check(run, "probe/0-JSONRPC-1.0", "RESPONSE-SHAPE")
    assert shape.outcome is FAIL, shape
    assert shape.expected == (
        'a GetTask result shaped like {"id": "…", "contextId": "…", "status": {"state": "TASK_STATE_COMPLETED"}}'
    )
    # a server's miss says what a correct server does and how to fix it, as a client's does
    assert shape.rule.startswith("A server writes its SendMessage and GetTask answers") and "proto" in shape.fix


@pytest.fixture
def version_blind_server() -> Iterator[str]:
    """A JSON-RPC 1.0 server that ignores A2A-Version: every GetTask is served (TaskNotFound for unknown ids)."""

    async def card(request: Request) -> JSONResponse:
        base = str(request.base_url).rstrip("/")
        return JSONResponse(
            {
                **CARD,
                "supportedInterfaces": [{"url": f"{base}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            }
        )

    async def rpc(request: Request) -> JSONResponse:
        body = await request.json()
        if body.get("method") == "SendMessage":
            message = {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}
            return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {"message": message}})
        error = {
            "code": -32001,
            "message": "Task not found",
            "data": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                }
            ],
        }
        return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "error": error})

    app = Starlette(routes=[Route("/.well-known/agent-card.json", card), Route("/a2a", rpc, methods=["POST"])])
    with BackgroundServer(app) as server:
        yield server.url


def test_version_negotiation_fails_when_the_header_is_ignored(version_blind_server: str) -> None:
    run = probe(version_blind_server, FAST)
    version = check(run, "probe/0-JSONRPC-1.0", "VERSION-NEGOTIATION")
    assert version.outcome is FAIL
    assert version.message == (
        "a request with no A2A-Version header (which means 0.3) was served as A2A 1.0"
        " (it answered TaskNotFound for the unknown id, §3.6.2)"
    )
    assert version.expected == "JSON-RPC error -32009 (VersionNotSupportedError)"
    assert check(run, "probe/0-JSONRPC-1.0", "UNKNOWN-TASK").outcome is PASS


# ------------------------------------------------------------------------------ a server nobody here wrote


def test_the_official_a2a_sdk_server(a2a_sdk_server: str) -> None:
    """a2a-sdk 1.3.0 does almost everything by the book. What it does not, the probe names: its HTTP+JSON error answers
    are application/json while its successes are application/a2a+json (v1.0.1 SHOULD: NON_STRICT)."""
    run = probe(a2a_sdk_server, FAST)
    results = by_id(run)
    assert list(results) == ["probe/card", "probe/0-JSONRPC-1.0", "probe/1-HTTP+JSON-1.0", "probe/2-JSONRPC-0.3"]
    assert outcomes(results["probe/card"]) == {"CARD-VALID": PASS}  # a dual card (0.3 fields for its 0.3 interface)
    assert outcomes(results["probe/0-JSONRPC-1.0"]) == ALL_PASS
    assert outcomes(results["probe/1-HTTP+JSON-1.0"]) == {**ALL_PASS, "ERROR-ENVELOPE": NON_STRICT}
    assert outcomes(results["probe/2-JSONRPC-0.3"]) == {**ALL_PASS, "VERSION-NEGOTIATION": SKIPPED}
    envelope = check(run, "probe/1-HTTP+JSON-1.0", "ERROR-ENVELOPE")
    assert envelope.message.startswith("4 error answer(s) well-formed, but: ")
    assert envelope.message.endswith(
        "Content-Type 'application/json', not application/a2a+json (v1.0.1 SHOULD; v1.0.0 said application/json: "
        "notes D5)"
    )
    assert check(run, "probe/2-JSONRPC-0.3", "SEND-MESSAGE").message == "message/send answered a task in COMPLETED"
    assert check(run, "probe/2-JSONRPC-0.3", "STREAMING").message.endswith("closed after COMPLETED")


# ------------------------------------------------------------------------------- the command and reports


def test_command_writes_the_harness_reports_and_exits_0_without_fail(
    serve: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served = serve("spec/conformant")
    code = main(
        [
            "probe",
            served.url,
            "--json",
            str(tmp_path / "r.json"),
            "--junit",
            str(tmp_path / "j.xml"),
            "--html",
            str(tmp_path / "html"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "probe/0-JSONRPC-1.0" in out and "verdict: conformant: every MUST and SHOULD passed" in out
    assert "\n1 server judged (its card and 5 interfaces): PASS 6\n" in out  # one server, not "6 scenarios"
    report = json.loads((tmp_path / "r.json").read_text())
    assert "seed" not in report  # a probe uses no seed, so its reports name none
    assert "seed " not in (tmp_path / "html" / "index.html").read_text()
    assert all(s["more"] is None for s in report["scenarios"])  # an interface is no catalogue scenario
    assert [c["id"] for c in report["checks"]] == [c.id for c in PROBE_CHECKS]  # the probe's checks, not the client's
    assert report["summary"]["gate"] == "passed" and report["probe"]["policy"] == "lenient"
    scenario = next(s for s in report["scenarios"] if s["id"] == "probe/0-JSONRPC-1.0")
    assert scenario["group"] == "probe" and {"rpc", "probe", "response"} <= set(scenario["journal"][0])
    suites = ET.parse(tmp_path / "j.xml").getroot()
    assert [(s.get("name"), s.get("failures")) for s in suites] == [("probe", "0")]
    assert "probe/3-HTTP+JSON-0.3" in (tmp_path / "html" / "index.html").read_text()


def test_command_exit_codes(serve: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", serve("quirks/advertised-method-not-found").url]) == 1
    assert main(["probe", serve("discovery/no-card").url]) == 2
    assert "nothing to probe: no agent card" in capsys.readouterr().err
    assert main(["probe", "not a url"]) == 2

    def broken(*_: Any, **__: Any) -> ProbeRun:
        raise RuntimeError("boom")

    monkeypatch.setattr("a2a_lab.harness.server_judging.probe.runner.probe", broken)  # what cmd_probe runs
    assert main(["probe", "http://127.0.0.1:9/"]) == 3


# ------------------------------------------------------------------------------- the protocol validators


def test_error_envelope_validators() -> None:
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "TASK_NOT_FOUND",
        "domain": "a2a-protocol.org",
    }
    assert jsonrpc.error_problems({"code": -32001, "message": "Task not found", "data": [info]}, Version.V1_0) == []
    missing = jsonrpc.error_problems({"code": -32001, "message": "Task not found"}, Version.V1_0)
    assert [(p.text, p.should) for p in missing] == [
        ("error.data carries no google.rpc.ErrorInfo for TaskNotFoundError (reason TASK_NOT_FOUND)", True)
    ]
    assert (
        jsonrpc.error_problems({"code": -32601, "message": "Method not found"}, Version.V1_0) == []
    )  # not an A2A error
    assert (
        jsonrpc.error_problems({"code": -32001, "message": "x", "data": None}, Version.V0_3) == []
    )  # 0.3 data is free-form
    assert {p.text for p in jsonrpc.error_problems({"code": "1", "data": {"x": 1}}, Version.V1_0)} >= {
        "error.code must be an integer, not '1'",
        "error.message must be a string, not None",
        "error.data must be a list of objects with @type, not dict",
    }
    good = {"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found", "details": [info]}}
    assert rest.status_problems(good, 404, Version.V1_0) == []
    assert [p.text for p in rest.status_problems(good, 400, Version.V1_0)] == [
        "error.code 404 differs from the HTTP status 400"
    ]
    assert rest.status_problems({"message": "nope"}, 404, Version.V1_0)[0].text.startswith(
        "not a google.rpc.Status body"
    )
    assert rest.status_problems({"message": "nope"}, 404, Version.V0_3) == []


def test_kind_problems_know_each_form() -> None:
    v03 = {
        "kind": "task",
        "id": "t",
        "status": {"state": "completed", "message": {"kind": "message", "parts": [{"text": "x"}]}},
    }
    assert [str(p) for p in shapes.kind_problems(v03, "task", V03_JSONRPC, "r")] == [
        "r.status.message.parts[0].kind: a 0.3 part names its kind (text), found None"
    ]
    assert (
        shapes.kind_problems(v03, "task", V03_HTTP_JSON, "r")[0].path == "r.kind"
    )  # 0.3 HTTP+JSON is ProtoJSON: no kind
    v1 = {"id": "t", "artifacts": [{"parts": [{"kind": "text", "text": "x"}]}]}
    assert [p.path for p in shapes.kind_problems(v1, "task", V1_JSONRPC, "r")] == ["r.artifacts[0].parts[0].kind"]
