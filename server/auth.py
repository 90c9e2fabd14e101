"""Enforcing the card's security: each declared scheme judged on a request, the requirements (alternatives of
conjunctions) decided, the 401/403 challenge written, and the access tokens the scenario's token endpoint issues.

What the schemes are comes from protocol/security_schemes.py (the card as the scenario serves it); what the server
accepts comes from the scenario's `auth` (section `auth` of docs/reference/scenario-format.md). A card that
declares no scheme keeps the original behaviour: `Authorization: Bearer <auth.bearer>`.

Tokens are made from the scenario's seed and a counter (the same run gives the same tokens); they expire by count,
after `auth.token_uses` A2A calls, never by wall time, so a test needs no sleep.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from http.cookies import CookieError, SimpleCookie

from a2a_lab.contract import http_values
from a2a_lab.contract.journal_record import AuthFacts, CredentialStatus
from a2a_lab.contract.scenario import Auth
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.security_schemes import CardSecurity, KeyLocation, Scheme, SchemeKind

REALM = "a2a-lab"
#: The synthetic scheme of a card that declares none (the scenario's bearer token still guards it).
LEGACY = Scheme("bearer", SchemeKind.HTTP, http_scheme="bearer")


class Status(StrEnum):
    VALID = "valid"
    INVALID = "invalid"
    ABSENT = "absent"
    MISPLACED = "misplaced"
    EXPIRED = "expired"
    INSUFFICIENT_SCOPE = "insufficient_scope"


@dataclass
class Token:
    number: int
    value: str
    client_id: str
    scopes: tuple[str, ...]
    uses: int = 0
    refresh: str | None = None


@dataclass
class TokenStore:
    """The access tokens issued in this run of the scenario, in order (number 1 first)."""

    seed: int
    scenario_id: str
    issued: list[Token] = field(default_factory=list)
    #: Device codes handed out (RFC 8628): how often each was polled, and the scopes asked with it.
    devices: dict[str, int] = field(default_factory=dict)
    device_scopes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def make(self, kind: str, n: int) -> str:
        mac = hmac.new(str(self.seed).encode(), f"{self.scenario_id}:{kind}:{n}".encode(), hashlib.sha256)
        return f"a2a-lab-{kind}-{mac.hexdigest()[:24]}"

    def issue(self, client_id: str, scopes: tuple[str, ...], refreshable: bool = False) -> Token:
        n = len(self.issued) + 1
        token = Token(n, self.make("at", n), client_id, scopes, refresh=self.make("rt", n) if refreshable else None)
        self.issued.append(token)
        return token

    def find(self, value: str) -> Token | None:
        return next((t for t in self.issued if hmac.compare_digest(t.value.encode(), value.encode())), None)

    def by_refresh(self, value: str) -> Token | None:
        return next((t for t in self.issued if t.refresh and hmac.compare_digest(t.refresh, value)), None)

    def reset(self) -> None:
        self.issued.clear()
        self.devices.clear()
        self.device_scopes.clear()


@dataclass(frozen=True)
class Request:
    """Where credentials can be in a request: headers (lower-case names), query parameters, cookies, the body."""

    headers: Mapping[str, str]
    query: Mapping[str, str] = field(default_factory=dict)
    body: str = ""

    @property
    def cookies(self) -> dict[str, str]:
        raw = self.headers.get("cookie", "")
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw)
        except CookieError:
            return {}
        return {k: m.value for k, m in jar.items()}

    def authorization(self) -> tuple[str, str]:
        """(scheme lower case, credentials) of the Authorization header; ("", "") without one."""
        scheme, _, rest = self.headers.get("authorization", "").strip().partition(" ")
        return scheme.lower(), rest.strip()

    def places(self) -> list[tuple[str, str, str]]:
        """Every (where, name, value) a credential could hide in."""
        out = [("header", k, v) for k, v in self.headers.items()]
        out += [("query", k, v) for k, v in self.query.items()]
        out += [("cookie", k, v) for k, v in self.cookies.items()]
        return out


@dataclass(frozen=True)
class Verdict:
    """How a request stands against the card's security."""

    facts: AuthFacts
    satisfied: bool
    status: CredentialStatus
    #: The answer a refused request gets: 401 (no or bad credentials) or 403 (a valid token lacking scope).
    http_status: int = 401
    message: str = ""
    #: Who authenticated the call: the credentials that met the first requirement met, in the card's order (see
    #: Policy.identity); None when none was met, or the card requires nothing. What `auth.tasks_per_user` keeps
    #: tasks apart by.
    identity: str | None = None


def security_of(card: object) -> CardSecurity:
    sec = ss.read(card)
    if not sec.schemes:
        return CardSecurity({LEGACY.name: LEGACY}, (ss.Requirement({LEGACY.name: ()}),))
    return sec


def _basic(username: str, password: str) -> str:
    return base64.b64encode(f"{username}:{password}".encode()).decode()


def _decoded_basic(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class Policy:
    """The scenario's auth applied to its card."""

    def __init__(self, auth: Auth, security: CardSecurity, tokens: TokenStore) -> None:
        self.auth, self.security, self.tokens = auth, security, tokens

    # --------------------------------------------------------------------------------------- one scheme

    def _api_key(self, scheme: Scheme, req: Request) -> tuple[Status, str | None]:
        key = self.auth.credentials.get("apiKey")
        name, where = scheme.param or "", scheme.location
        if key is None or where is None:
            return Status.ABSENT, None
        declared = {
            KeyLocation.HEADER: {k: v for k, v in req.headers.items() if k == name.lower()},
            KeyLocation.QUERY: {k: v for k, v in req.query.items() if k == name},
            KeyLocation.COOKIE: {k: v for k, v in req.cookies.items() if k == name},
        }[where]
        if declared:
            if any(_same(v, key) for v in declared.values()):
                return Status.VALID, None
            return Status.INVALID, None
        for place, pname, value in req.places():
            if key in value:
                return Status.MISPLACED, (
                    f"the API key came in the {place} {pname!r}; the card declares the {where.value} {name!r}"
                )
        return Status.ABSENT, None

    def _http(self, scheme: Scheme, req: Request) -> tuple[Status, str | None]:
        given_scheme, given = req.authorization()
        if scheme.http_scheme == "basic":
            user, password = self.auth.credentials.get("username"), self.auth.credentials.get("password")
            if user is None or password is None:
                return Status.ABSENT, None
            if given_scheme == "basic":
                if _same(given, _basic(user, password)):
                    return Status.VALID, None
                if given == f"{user}:{password}":
                    return Status.MISPLACED, "Basic credentials were sent as plain user:password, not base64 (RFC 7617)"
                return Status.INVALID, None
            if password in " ".join(v for _, _, v in req.places()):
                return Status.MISPLACED, "the password was sent, but not as Authorization: Basic base64(user:password)"
            return Status.ABSENT, None
        token = self.auth.bearer
        if scheme.http_scheme != "bearer" or token is None:
            return Status.ABSENT, None
        return self._bearer_value(req, lambda v: _same(v, token), token)

    def _bearer_value(self, req: Request, check: Callable[[str], bool], token: str | None) -> tuple[Status, str | None]:
        given_scheme, given = req.authorization()
        if given_scheme == "bearer" and given:
            return (Status.VALID if check(given) else Status.INVALID), None
        raw = req.headers.get("authorization", "").strip()
        if raw and check(raw):
            return Status.MISPLACED, "the token was sent without the `Bearer ` prefix (RFC 6750 §2.1)"
        for place, pname, value in req.places():
            elsewhere = place != "header" or pname != "authorization"
            if elsewhere and (
                (token and token in value) or (place == "query" and pname == "access_token" and check(value))
            ):
                return Status.MISPLACED, f"the token came in the {place} {pname!r}, not Authorization: Bearer"
        return Status.ABSENT, None

    def _access_token(self, scheme: Scheme, req: Request, needed: tuple[str, ...]) -> tuple[Status, Token | None]:
        given_scheme, given = req.authorization()
        if given_scheme != "bearer" or not given:
            for _, _, value in req.places():
                if any(t.value in value for t in self.tokens.issued):
                    return Status.MISPLACED, None
            return Status.ABSENT, None
        token = self.tokens.find(given)
        if token is None:
            return Status.INVALID, None
        limit = self.auth.token_uses
        if limit is not None and token.uses >= limit:
            return Status.EXPIRED, token
        if any(s not in token.scopes for s in needed):
            return Status.INSUFFICIENT_SCOPE, token
        return Status.VALID, token

    # --------------------------------------------------------------------------------------- the request

    def judge(self, req: Request, count_use: bool = True) -> Verdict:
        statuses: dict[str, str] = {}
        notes: list[str] = []
        used: Token | None = None
        #: The access token each token scheme was judged by.
        tokens: dict[str, Token] = {}
        needed = {n: s for r in self.security.requirements for n, s in r.schemes.items()}
        for name, scheme in self.security.schemes.items():
            note: str | None = None
            if scheme.kind is SchemeKind.API_KEY:
                status, note = self._api_key(scheme, req)
            elif scheme.kind is SchemeKind.HTTP:
                status, note = self._http(scheme, req)
            elif scheme.uses_tokens:
                status, token = self._access_token(scheme, req, needed.get(name, ()))
                used = token or used
                if token is not None:
                    tokens[name] = token
                if status is Status.MISPLACED:
                    note = "the access token did not come as Authorization: Bearer (RFC 6750 §2.1)"
            else:
                status = Status.ABSENT  # mutual TLS is the TLS layer's
            statuses[name] = status.value
            if note:
                notes.append(f"{name}: {note}")
        met = [r for r in self.security.requirements if all(statuses.get(n) == Status.VALID for n in r.schemes)]
        satisfied = bool(met) or not self.security.requirements
        if satisfied and used is not None and count_use:
            used.uses += 1
        if all(s == Status.ABSENT for s in statuses.values()):
            overall = CredentialStatus.ABSENT
        else:
            overall = CredentialStatus.VALID if satisfied else CredentialStatus.INVALID
        facts = AuthFacts(statuses, used.number if used else None, (), "; ".join(notes) or None)
        http_status = 401
        message = ""
        if not satisfied:
            if Status.INSUFFICIENT_SCOPE in statuses.values():
                http_status, message = 403, "The access token lacks a scope the card requires"
            elif Status.EXPIRED in statuses.values():
                message = "The access token has expired: obtain a new one"
            elif overall is CredentialStatus.ABSENT:
                message = "Authentication required: " + self.requirement_text()
            else:
                message = "The credentials are not valid: " + self.requirement_text()
        # a requirement of no scheme ({}: anonymous access) is met by anyone: the caller is who a named one says
        identity = next((self.identity(r, tokens) for r in met if r.schemes), None)
        return Verdict(facts, satisfied, overall, http_status, message, identity)

    def identity(self, met: ss.Requirement, tokens: Mapping[str, Token]) -> str | None:
        """Who a call that met `met` is: the credential of each of its schemes, by what it is rather than by the
        scheme's name (two schemes taking the same bearer token are one user): `bearer token`, `api key`,
        `user NAME` (HTTP Basic), `client ID` (an access token: the OAuth client it was issued to, so a refreshed
        token is the same user). Joined with ` + ` for a conjunction."""
        parts: list[str] = []
        for name in met.schemes:
            scheme = self.security.schemes.get(name)
            if scheme is None:
                continue
            if scheme.kind is SchemeKind.API_KEY:
                parts.append("api key")
            elif scheme.kind is SchemeKind.HTTP and scheme.http_scheme == "basic":
                parts.append(f"user {self.auth.credentials.get('username', '')}")
            elif scheme.kind is SchemeKind.HTTP:
                parts.append("bearer token")
            elif name in tokens:
                parts.append(f"client {tokens[name].client_id}")
        return " + ".join(sorted(dict.fromkeys(parts))) or None

    def requirement_text(self) -> str:
        alts = [
            " and ".join(self.security.schemes[n].describe() for n in r.schemes if n in self.security.schemes)
            for r in self.security.requirements
        ]
        return "send " + " or ".join(a for a in alts if a)

    def challenge(self, verdict: Verdict) -> str:
        """The WWW-Authenticate value (RFC 9110 §11.6.1): one challenge per declared scheme."""
        out = []
        for name, scheme in self.security.schemes.items():
            state = verdict.facts.schemes.get(name)
            if scheme.kind is SchemeKind.HTTP and scheme.http_scheme:
                extra = ', error="invalid_token"' if scheme.http_scheme == "bearer" and state == "invalid" else ""
                out.append(f'{scheme.http_scheme.title()} realm="{REALM}"{extra}')
            elif scheme.uses_tokens:
                error = {
                    "expired": ', error="invalid_token", error_description="The access token expired"',
                    "invalid": ', error="invalid_token"',
                    "insufficient_scope": ', error="insufficient_scope"',
                }.get(state or "", "")
                scopes = " ".join(dict.fromkeys(s for r in self.security.requirements for s in r.schemes.get(name, ())))
                out.append(f'Bearer realm="{REALM}"' + (f', scope="{scopes}"' if scopes else "") + error)
            elif scheme.kind is SchemeKind.API_KEY and scheme.location and scheme.param:
                out.append(f'ApiKey realm="{REALM}", in="{scheme.location.value}", name="{scheme.param}"')
        # sendable: the card's scheme names and scopes are the scenario's words, and may hold what no header can
        return http_values.sendable(", ".join(dict.fromkeys(out))) or f'Bearer realm="{REALM}"'

    # --------------------------------------------------------------------------------------- what travelled

    def carried(self, req: Request) -> tuple[str, ...]:
        """Which of the scenario's credentials a request carries, and where: `apiKey:query`, `access_token:header`,
        `client_secret:body` (for NO-CREDENTIAL-LEAK; the values themselves are never kept)."""
        creds = self.auth.credentials
        secrets: dict[str, list[str | None]] = {
            "apiKey": [creds.get("apiKey")],
            "password": [creds.get("password")],
            "bearer": [self.auth.bearer],
            "access_token": [*(t.value for t in self.tokens.issued)],
            "client_secret": [creds.get("client_secret")],
        }
        places = req.places()
        scheme, given = req.authorization()
        if scheme == "basic":
            decoded = _decoded_basic(given)
            if decoded:
                places.append(("header", "authorization", decoded))
        if req.body:
            places.append(("body", "", req.body))
        found: list[str] = []
        for kind, values in secrets.items():
            for value in (v for v in values if v):
                for where, _, text in places:
                    if value in text and f"{kind}:{where}" not in found:
                        found.append(f"{kind}:{where}")
        return tuple(found)
