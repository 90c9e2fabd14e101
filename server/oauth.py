"""The scenario's own authorization server, for cards that declare OAuth 2.0 or OpenID Connect: routes of the
scenario's server, relative to its `{base_url}` (a card may name them under `{alt_base_url}`, another origin).

    POST /oauth/token                          RFC 6749 §4.4 client credentials, §6 refresh, RFC 8628 §3.4 device code
    POST /oauth/device                         RFC 8628 §3.1 device authorization (approved at once: headless)
    GET  /.well-known/openid-configuration     OpenID Connect Discovery 1.0 §4
    GET  /oauth/jwks                           the key set that verifies the id_tokens issued (a published TEST key)

The client authenticates with HTTP Basic (client_secret_basic, RFC 6749 §2.3.1) or in the form (client_secret_post),
with the scenario's `auth.credentials` client_id and client_secret. Every request is journaled (kind `oauth`); a
token request records its grant (GrantInfo), never a secret. A device code is approved on the second poll: the
first answers `authorization_pending` (RFC 8628 §3.5), so a client that polls is seen to poll.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.journal_record import Entry, EntryKind, GrantInfo
from a2a_lab.contract.lab_api import DEVICE_PATH, DISCOVERY_PATH, JWKS_PATH, OAUTH_PATHS, TOKEN_PATH
from a2a_lab.protocol.security_schemes import FlowKind, SchemeKind

from . import answer, http, intake
from .state import LabState

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
#: What `expires_in` says; tokens really expire by count (`auth.token_uses`), which a client learns from a 401.
EXPIRES_IN = 3600
_NO_STORE = [("cache-control", "no-store"), ("pragma", "no-cache")]
#: a2a-lab TEST KEY: signs the id_tokens of OpenID Connect scenarios. Published on purpose; protects nothing.
ID_TOKEN_KEY: dict[str, str] = {
    "kty": "EC",
    "crv": "P-256",
    "kid": "a2a-lab-oidc-test-key",
    "x": "-dfJCttPDaFiTK4lHdiWCpJFwxNr2yAfaXBRP1nhvKE",
    "y": "K5LN7MB82eppwzMXQPuWOHJeuaPuDBrwkDYQKazQSc8",
    "d": "JzQ3q4jHqAxR7AZ3Mpq9tgCFodk50kw37OmyxeFpdP0",
}


def serves(state: LabState, route_path: str) -> bool:
    """Whether this path is the scenario's authorization server (only for a scenario with `auth`)."""
    return state.auth is not None and route_path in OAUTH_PATHS


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


async def handle(state: LabState, route_path: str, scope: Scope, receive: Receive, send: Send, base_url: str) -> None:
    try:
        body = await http.read_body(receive, state.scenario.limits.body_bytes, state.scenario.limits.body_seconds)
    except (http.BodyTooLarge, http.BodyTimeout):
        entry = intake.journal_request(state, scope, b"", EntryKind.OAUTH)
        problem = {"error": "invalid_request", "error_description": "the form was too large or too slow"}
        await answer.send_body(scope, receive, send, entry, 400, _json(problem), "application/json", extra=http.CLOSE)
        return
    entry = intake.journal_request(state, scope, body, EntryKind.OAUTH)

    async def reply(status: int, value: Any, extra: list[tuple[str, str]] | None = None) -> None:
        await answer.send_body(scope, receive, send, entry, status, _json(value), "application/json", extra=extra)

    if route_path == DISCOVERY_PATH:
        await reply(200, discovery(state, base_url))
        return
    if route_path == JWKS_PATH:
        from a2a_lab.protocol import signing

        await reply(200, signing.public_jwks([ID_TOKEN_KEY]))
        return
    if scope["method"] != "POST":
        await reply(405, {"error": "invalid_request", "error_description": "POST a form"}, [("allow", "POST")])
        return
    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    status, value, extra = (
        _device(state, entry, form, http.headers_of(scope))
        if route_path == DEVICE_PATH
        else _token(state, entry, form, http.headers_of(scope), base_url)
    )
    await reply(status, value, [*_NO_STORE, *extra])


def discovery(state: LabState, base_url: str) -> dict[str, Any]:
    """OpenID Connect Discovery 1.0 §3 metadata for the scenario's issuer."""
    scopes = sorted({"openid", *_declared_scopes(state)})
    return {
        "issuer": base_url,
        "token_endpoint": base_url + TOKEN_PATH,
        "device_authorization_endpoint": base_url + DEVICE_PATH,
        "jwks_uri": base_url + JWKS_PATH,
        "grant_types_supported": ["client_credentials", "refresh_token", DEVICE_GRANT],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "scopes_supported": scopes,
        "response_types_supported": ["token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
    }


def _declared_scopes(state: LabState) -> set[str]:
    assert state.auth is not None
    sec = state.auth.security
    return {s for scheme in sec.schemes.values() for f in scheme.flows for s in f.scopes} | {
        s for r in sec.requirements for n, scopes in r.schemes.items() for s in scopes
    }


def _client(state: LabState, form: dict[str, str], headers: dict[str, str]) -> tuple[str, bool, str]:
    """(how the client authenticated: basic, post or none; whether it is the scenario's client; its id)."""
    assert state.auth is not None
    creds = state.auth.auth.credentials
    want_id, want_secret = creds.get("client_id", ""), creds.get("client_secret", "")
    scheme, _, value = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return "basic", False, ""
        cid, _, secret = decoded.partition(":")
        cid, secret = unquote_plus(cid), unquote_plus(secret)  # RFC 6749 §2.3.1: form-encoded, then Basic
        ok = hmac.compare_digest(cid, want_id) and hmac.compare_digest(secret.encode(), want_secret.encode())
        return "basic", ok, cid
    if "client_secret" in form:
        cid, secret = form.get("client_id", ""), form["client_secret"]
        ok = hmac.compare_digest(cid, want_id) and hmac.compare_digest(secret.encode(), want_secret.encode())
        return "post", ok, cid
    return "none", False, form.get("client_id", "")


def _oauth_error(code: str, text: str, status: int = 400) -> tuple[int, dict[str, Any], list[tuple[str, str]]]:
    extra = [("www-authenticate", 'Basic realm="a2a-lab token endpoint"')] if status == 401 else []
    return status, {"error": code, "error_description": text}, extra


def _token(
    state: LabState, entry: Entry, form: dict[str, str], headers: dict[str, str], base_url: str
) -> tuple[int, dict[str, Any], list[tuple[str, str]]]:
    assert state.auth is not None
    grant = form.get("grant_type", "")
    how, valid, client_id = _client(state, form, headers)
    asked = tuple(form.get("scope", "").split())
    entry.grant = GrantInfo(grant, how, valid, asked)
    refreshable = False
    if grant == "refresh_token":
        old = state.auth.tokens.by_refresh(form.get("refresh_token", ""))
        if old is None:
            entry.grant.error = "invalid_grant"
            return _oauth_error("invalid_grant", "unknown refresh_token")
        asked, refreshable = asked or old.scopes, True
    elif grant == DEVICE_GRANT:
        code = form.get("device_code", "")
        polls = state.auth.tokens.devices.get(code)
        if polls is None:
            entry.grant.error = "invalid_grant"
            return _oauth_error("invalid_grant", "unknown device_code")
        state.auth.tokens.devices[code] = polls + 1
        if polls == 0:
            entry.grant.error = "authorization_pending"
            return _oauth_error("authorization_pending", "the user has not approved yet; poll again")
        asked, refreshable = state.auth.tokens.device_scopes.get(code, asked), True
        valid = valid or client_id == state.auth.auth.credentials.get("client_id")  # a public client (RFC 8628)
    elif grant != "client_credentials":
        entry.grant.error = "unsupported_grant_type"
        return _oauth_error("unsupported_grant_type", f"grant_type {grant!r}: this server issues client_credentials")
    if not valid:
        entry.grant.error = "invalid_client"
        return _oauth_error("invalid_client", "client authentication failed", 401)
    entry.grant.scopes = asked
    unknown = [s for s in asked if s not in _declared_scopes(state) and s != "openid"]
    if unknown:
        entry.grant.error = "invalid_scope"
        return _oauth_error("invalid_scope", f"scopes the card does not declare: {' '.join(unknown)}")
    token = state.auth.tokens.issue(client_id, asked, refreshable)
    entry.grant.issued = token.number
    out: dict[str, Any] = {
        "access_token": token.value,
        "token_type": "Bearer",
        "expires_in": EXPIRES_IN,
        "scope": " ".join(asked),
    }
    if token.refresh:
        out["refresh_token"] = token.refresh
    if "openid" in asked or any(s.kind is SchemeKind.OPENID_CONNECT for s in state.auth.security.schemes.values()):
        out["id_token"] = _id_token(base_url, client_id, token.number)
    return 200, out, []


def _device(
    state: LabState, entry: Entry, form: dict[str, str], headers: dict[str, str]
) -> tuple[int, dict[str, Any], list[tuple[str, str]]]:
    """RFC 8628 §3.2: a device code; the user's approval is simulated (pending once, then granted)."""
    assert state.auth is not None
    has_flow = any(s.flow(FlowKind.DEVICE_CODE) for s in state.auth.security.schemes.values())
    client_id = form.get("client_id") or _client(state, form, headers)[2]
    asked = tuple(form.get("scope", "").split())
    entry.grant = GrantInfo(
        "device_authorization", "none", client_id == state.auth.auth.credentials.get("client_id"), asked
    )
    if not has_flow:
        entry.grant.error = "unsupported_grant_type"
        return _oauth_error("unsupported_grant_type", "the card declares no deviceCode flow")
    if not entry.grant.client_valid:
        entry.grant.error = "invalid_client"
        return _oauth_error("invalid_client", "unknown client_id", 401)
    n = len(state.auth.tokens.devices) + 1
    code = state.auth.tokens.make("dc", n)
    state.auth.tokens.devices[code] = 0
    state.auth.tokens.device_scopes[code] = asked
    return (
        200,
        {
            "device_code": code,
            "user_code": f"LAB-{n:04d}",
            "verification_uri": "https://a2a-lab.invalid/device",
            "expires_in": 600,
            "interval": 0,
        },
        [],
    )


def _id_token(issuer: str, client_id: str, number: int) -> str:
    """An OpenID Connect id_token (ES256, the JWKS's key); times are fixed (tokens expire by count here)."""
    from joserfc import jwt

    from a2a_lab.protocol import signing

    claims = {"iss": issuer, "sub": client_id, "aud": client_id, "iat": 0, "exp": 2**31 - 1, "jti": str(number)}
    return jwt.encode({"alg": "ES256", "kid": ID_TOKEN_KEY["kid"]}, claims, signing.import_key(ID_TOKEN_KEY))
