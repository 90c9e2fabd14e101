"""server/auth.py judges every scheme a card declares: right place, wrong place, alternatives and conjunctions,
tokens that expire by count, and the WWW-Authenticate challenge; the journal never keeps a credential."""

from __future__ import annotations

import asyncio
import base64
import json

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.journal_record import CredentialStatus
from a2a_lab.contract.scenario import Auth
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.auth import Policy, Request, TokenStore, security_of

CARD = {
    "securitySchemes": {
        "key": {"apiKeySecurityScheme": {"location": "query", "name": "api_key"}},
        "basic": {"httpAuthSecurityScheme": {"scheme": "Basic"}},
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {"clientCredentials": {"tokenUrl": "http://x/oauth/token", "scopes": {"w": "write"}}}
            }
        },
    },
    "securityRequirements": [{"schemes": {"key": {"list": []}, "oauth": {"list": ["w"]}}}, {"schemes": {"basic": {}}}],
}
CREDS = {"apiKey": "k-123", "username": "user-1", "password": "pass-word-1", "client_id": "c-1", "client_secret": "s-1"}


def policy(uses: int | None = None) -> Policy:
    return Policy(Auth(None, credentials=CREDS, token_uses=uses), security_of(CARD), TokenStore(1, "t"))


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_an_alternative_suffices_and_a_conjunction_needs_every_scheme() -> None:
    p = policy()
    assert p.judge(Request({"authorization": basic("user-1", "pass-word-1")})).satisfied
    token = p.tokens.issue("c", ("w",))
    half = p.judge(Request({}, {"api_key": "k-123"}))
    assert not half.satisfied and half.facts.schemes["key"] == "valid" and half.status is CredentialStatus.INVALID
    both = p.judge(Request({"authorization": f"Bearer {token.value}"}, {"api_key": "k-123"}))
    assert both.satisfied and both.facts.token == 1


def test_a_key_in_the_wrong_place_is_misplaced_and_said_so() -> None:
    v = policy().judge(Request({"x-api-key": "k-123"}))
    assert v.facts.schemes["key"] == "misplaced" and "header 'x-api-key'" in (v.facts.note or "")
    assert policy().judge(Request({"authorization": "Basic user-1:pass-word-1"})).facts.schemes["basic"] == "misplaced"


def test_a_token_expires_after_its_uses_and_the_challenge_says_so() -> None:
    p = policy(uses=1)
    token = p.tokens.issue("c", ("w",))
    req = Request({"authorization": f"Bearer {token.value}"}, {"api_key": "k-123"})
    assert p.judge(req).satisfied
    expired = p.judge(req)
    assert not expired.satisfied and expired.facts.schemes["oauth"] == "expired" and expired.http_status == 401
    challenge = p.challenge(expired)
    assert 'error="invalid_token"' in challenge and 'Basic realm="a2a-lab"' in challenge
    assert 'ApiKey realm="a2a-lab", in="query", name="api_key"' in challenge


def test_a_token_without_the_required_scope_is_refused_with_403() -> None:
    p = policy()
    token = p.tokens.issue("c", ())
    v = p.judge(Request({"authorization": f"Bearer {token.value}"}, {"api_key": "k-123"}))
    assert v.http_status == 403 and 'error="insufficient_scope"' in p.challenge(v)


def test_tokens_derive_from_the_seed() -> None:
    assert TokenStore(7, "s").issue("c", ()).value == TokenStore(7, "s").issue("c", ()).value
    assert TokenStore(7, "s").issue("c", ()).value != TokenStore(8, "s").issue("c", ()).value


def test_what_travelled_is_recorded_by_kind_and_place() -> None:
    p = policy()
    carried = p.carried(Request({"authorization": basic("c-1", "s-1")}, {"api_key": "k-123"}, '{"token": "k-123"}'))
    assert set(carried) == {"apiKey:query", "apiKey:body", "client_secret:header"}


@pytest.mark.parametrize("scenario", ["auth/oauth2-client-credentials", "auth/api-key-cookie"])
def test_a_refusal_carries_www_authenticate_and_the_journal_no_secret(scenario: str) -> None:
    app = ScenarioApp(Catalogue.load().scenarios[scenario])
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
    }

    async def go() -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:1") as c:
            refused = await c.post("/a2a", json=body, headers={"A2A-Version": "1.0"})
            token = await c.post(
                "/oauth/token",
                data={"grant_type": "client_credentials", "scope": "agent.write"},
                auth=("a2a-lab-client", "a2a-lab-test-client-secret"),
            )
            cookie = {"Cookie": "a2a_session=a2a-lab-test-key-cookie"}
            bearer = {"Authorization": f"Bearer {token.json().get('access_token', '')}"}
            ok = await c.post("/a2a", json=body, headers={"A2A-Version": "1.0", **cookie, **bearer})
            return [refused, token, ok]

    refused, token, ok = asyncio.run(go())
    assert refused.status_code == 401 and refused.headers["www-authenticate"]
    assert ok.status_code == 200, ok.text
    journal = json.dumps(app.state.journal.snapshot())
    for secret in ("a2a-lab-test-client-secret", "a2a-lab-test-key-cookie", token.json().get("access_token", "~")):
        assert secret not in journal
