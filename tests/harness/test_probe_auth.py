"""AUTH-ENFORCED: the probe judges a server's auth claims. a2a-lab's own auth scenarios pass, with the credentials
their clients are handed and without any; a hand-written server that gets it wrong each way fails (or is NON_STRICT
where only a SHOULD is missed)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2a_lab.harness.cli import main
from a2a_lab.harness.common.model import CheckResult, Outcome
from a2a_lab.harness.server_judging.probe import ProbeOptions, probe
from a2a_lab.harness.server_judging.probe.authcheck import challenge_schemes
from a2a_lab.server.hosting import BackgroundServer

FAST = ProbeOptions(timeout=5, sleep=lambda _: None)
CHECK = "AUTH-ENFORCED"
#: The auth scenarios whose server guards every call as its card says.
GUARDED = [
    "auth/bearer-required",
    "auth/api-key-header",
    "auth/api-key-query",
    "auth/api-key-cookie",
    "auth/basic",
    "auth/alternatives",
    "auth/conjunction",
    "auth/oauth2-client-credentials",
    "auth/openid-connect",
    "auth/device-code",
    "auth/token-endpoint-other-origin",
    "auth/token-expires-mid-task",
    "auth/auth-required-in-task",
]


def judged(run: Any) -> list[CheckResult]:
    found = [r.check(CHECK) for r in run.results[1:]]
    assert found and all(c is not None for c in found)
    return [c for c in found if c is not None]


@pytest.mark.parametrize("scenario_id", GUARDED)
def test_a2a_lab_auth_scenarios_pass_with_the_credentials_their_clients_get(serve: Any, scenario_id: str) -> None:
    served = serve(scenario_id)
    action = served.app.scenario.client.action
    run = probe(served.url, dataclasses.replace(FAST, token=action.get("token"), credentials=action.get("credentials")))
    for result in run.results[1:]:
        assert [c.id for c in result.checks if c.outcome is Outcome.FAIL] == [], result.checks
        found = result.check(CHECK)
        assert found is not None and found.outcome is Outcome.PASS, found
        assert "was refused with HTTP 401 (www-authenticate: " in found.message
        assert found.message.endswith(": accepted")


def test_without_credentials_the_refusal_alone_is_judged(serve: Any) -> None:
    run = probe(serve("auth/api-key-header").url, FAST)
    for found in judged(run):
        assert found.outcome is Outcome.PASS
        assert 'ApiKey realm="a2a-lab", in="header", name="X-API-Key"' in found.message
        assert found.message.endswith(
            "the declared scheme not tried (give the probe --token, --api-key or --client-credentials)"
        )


def test_a_card_without_requirements_is_not_judged(serve: Any) -> None:
    assert {c.outcome for c in judged(probe(serve("spec/conformant").url, FAST))} == {Outcome.SKIPPED}


def test_a_card_claiming_more_than_the_server_enforces_fails(serve: Any) -> None:
    """auth/extended-card guards only GetExtendedAgentCard, while its card requires a bearer token for every call
    (the scenario tests clients; as a server it overclaims)."""
    for found in judged(probe(serve("auth/extended-card").url, FAST)):
        assert found.outcome is Outcome.FAIL
        assert "without credentials was not refused for want of them" in found.message
        assert "Task not found" in found.actual or "404" in found.actual


# ---------------------------------------------------------------------------------- a server that gets it wrong

GOOD = "the-right-token"
CHALLENGE = 'Bearer realm="hand-written"'
MODES = ("by-the-book", "open", "no-challenge", "forbidden", "wrong-challenge", "refuses-all")


@pytest.fixture
def guarded_server() -> Iterator[str]:
    """A JSON-RPC 1.0 agent whose card requires a bearer token; `/<mode>/...` decides how it treats credentials."""

    async def card(request: Request) -> JSONResponse:
        base = f"{str(request.base_url).rstrip('/')}/{request.path_params['mode']}"
        return JSONResponse(
            {
                "name": "hand-written guarded agent",
                "description": "requires a bearer token",
                "version": "1.0.0",
                "supportedInterfaces": [{"url": f"{base}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                "capabilities": {"streaming": False},
                "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
                "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "a", "name": "a", "description": "a", "tags": ["a"]}],
            }
        )

    def error(req_id: Any, code: int, message: str, reason: str) -> dict[str, Any]:
        info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "a2a-protocol.org"}
        return {"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message, "data": [info]}}

    async def rpc(request: Request) -> Response:
        mode, body = request.path_params["mode"], await request.json()
        valid = request.headers.get("authorization") == f"Bearer {GOOD}" and mode != "refuses-all"
        if mode != "open" and not valid:
            refusal = error(body["id"], -32010, "Authentication required", "UNAUTHENTICATED")
            status = 403 if mode == "forbidden" else 401
            headers = {
                "no-challenge": {},
                "wrong-challenge": {"WWW-Authenticate": 'Basic realm="hand-written"'},
            }.get(mode, {"WWW-Authenticate": CHALLENGE})
            return JSONResponse(refusal, status, headers)
        if request.headers.get("a2a-version") != "1.0":
            return JSONResponse(error(body["id"], -32009, "Version not supported", "VERSION_NOT_SUPPORTED"))
        if body.get("method") == "SendMessage":
            message = {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}
            return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {"message": message}})
        return JSONResponse(error(body["id"], -32001, "Task not found", "TASK_NOT_FOUND"))

    app = Starlette(
        routes=[
            Route("/{mode}/.well-known/agent-card.json", card),
            Route("/{mode}/a2a", rpc, methods=["POST"]),
        ]
    )
    with BackgroundServer(app) as server:
        yield server.url


def run_mode(url: str, mode: str, token: str | None = GOOD) -> CheckResult:
    [found] = judged(probe(f"{url}/{mode}/.well-known/agent-card.json", dataclasses.replace(FAST, token=token)))
    return found


def test_by_the_book_passes_and_names_the_challenge(guarded_server: str) -> None:
    found = run_mode(guarded_server, "by-the-book")
    assert found.outcome is Outcome.PASS
    assert found.message == (
        f"without credentials, GetTask was refused with HTTP 401 (www-authenticate: {CHALLENGE}); "
        "SendMessage with HTTP bearer (Authorization: Bearer ...): accepted"
    )


@pytest.mark.parametrize(
    ("mode", "outcome", "says"),
    [
        ("open", Outcome.FAIL, "GetTask without credentials was not refused for want of them"),
        ("no-challenge", Outcome.FAIL, "refused with HTTP 401 but no WWW-Authenticate header (RFC 9110 §11.6.1"),
        ("forbidden", Outcome.NON_STRICT, "HTTP 403 for a call without credentials"),
        ("wrong-challenge", Outcome.NON_STRICT, "the challenge names basic; the card declares bearer"),
        ("refuses-all", Outcome.FAIL, "the server refused the card's own scheme, presented as declared"),
    ],
)
def test_a_server_that_gets_auth_wrong(guarded_server: str, mode: str, outcome: Outcome, says: str) -> None:
    found = run_mode(guarded_server, mode)
    assert (found.outcome, says in found.message) == (outcome, True), found


def test_the_command_line_token_follows_the_card(guarded_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    target = f"{guarded_server}/by-the-book"
    assert main(["probe", target, "--token", GOOD]) == 0
    assert main(["probe", f"{guarded_server}/refuses-all", "--token", GOOD]) == 1
    assert "AUTH-ENFORCED" in capsys.readouterr().out


def test_challenge_schemes_are_read_from_a_www_authenticate_value() -> None:
    value = 'Bearer realm="a", error="invalid_token", ApiKey realm="a", in="header", name="X", Basic realm="b"'
    assert challenge_schemes(value) == ["bearer", "apikey", "basic"]
    assert challenge_schemes("Negotiate") == ["negotiate"]


def test_over_grpc_the_challenge_is_a_trailer_and_the_key_travels_as_metadata() -> None:
    pytest.importorskip("grpc", reason="the grpc extra is not installed")
    from a2a_lab.contract.loader import load_file
    from a2a_lab.server.app import ScenarioApp

    key = "a2a-lab-test-key-grpc"
    path = Path(__file__).resolve().parents[1] / "scenario_files" / "keyed-grpc.yaml"
    with BackgroundServer(ScenarioApp(load_file(path))) as server:
        run = probe(server.url, dataclasses.replace(FAST, credentials={"apiKey": key}))
    [result] = run.results[1:]
    assert [c.id for c in result.checks if c.outcome is not Outcome.PASS] == ["STREAMING"], result.checks
    found = result.check(CHECK)
    assert found is not None and found.message == (
        "without credentials, lf.a2a.v1.A2AService/GetTask was refused with gRPC UNAUTHENTICATED "
        '(www-authenticate: ApiKey realm="a2a-lab", in="header", name="X-API-Key"); '
        "SendMessage with API key 'X-API-Key' in the header: accepted"
    )
