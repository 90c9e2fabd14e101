"""The card's security schemes as a client honours them: the right credential in the declared place and format,
no credential where the scheme does not cover, and access tokens obtained, reused and renewed as OAuth intends.

The server judges each request against the card (server/auth.py) and journals what it found (`auth`: per scheme
valid / invalid / absent / misplaced / expired / insufficient_scope, which credentials travelled and where; `grant`
for a token request), never the credentials themselves; these checks read those findings.
"""

from __future__ import annotations

import itertools
from collections import Counter
from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import CredentialStatus, Entry, EntryKind
from a2a_lab.contract.lab_api import DEVICE_PATH, TOKEN_PATH
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import cards
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

#: A2A_LAB_ACTION keys that hand the client credentials.
_GIVEN = ("credentials", "token")


def _given(view: RunView) -> bool:
    return any(k in view.action for k in _GIVEN)


def _judged(view: RunView) -> list[Call]:
    return [c for c in view.a2a_calls if c.entry.auth is not None and c.entry.auth.schemes]


@check(
    "AUTH-SCHEME-HONOURED",
    Level.MUST,
    "A2A 1.0 §4.5 (SecurityScheme: APIKeySecurityScheme location and name, HTTPAuthSecurityScheme scheme), §7.4, "
    "§8.5 (securityRequirements: alternatives of conjunctions); RFC 7617, RFC 6750 §2.1",
    "Credentials as the declared scheme says",
    "Given credentials for an agent whose card declares securitySchemes, the client presents them as a requirement "
    "of the card states: an API key under the declared name in the declared place (header, query or cookie), HTTP "
    "Basic as base64(username:password), a bearer or access token as `Authorization: Bearer`, every scheme of the "
    "requirement object it meets.",
    rule=(
        "A client presents credentials as the card's security scheme declares: an API key under its name "
        "in its place, Basic as base64(user:password), a token as `Authorization: Bearer`."
    ),
    fix=(
        "Build each credential from `securitySchemes` (an API key's `location` and `name`, an HTTP "
        "scheme's `scheme`), and meet every scheme of the requirement you satisfy."
    ),
)
def scheme_honoured(view: RunView, c: Check) -> CheckResult:
    if not _given(view):
        return c.skipped("the scenario hands the client no credentials")
    judged = _judged(view)
    if not judged:
        return c.skipped("no call the server checks credentials on")
    misplaced = [
        call for call in judged if "misplaced" in (call.entry.auth.schemes.values() if call.entry.auth else ())
    ]
    if misplaced:
        note = misplaced[0].entry.auth.note if misplaced[0].entry.auth else None
        return c.broken(
            "a credential went in another place or format than the card's scheme declares",
            "the credential where the scheme says (" + _describe(view) + ")",
            note or "misplaced",
            misplaced,
        )
    satisfied = [call for call in judged if call.entry.credentials is CredentialStatus.VALID]
    if not satisfied:
        if all(call.entry.credentials is CredentialStatus.ABSENT for call in judged):
            return c.result(Outcome.UNIMPLEMENTED, "the client presented no credentials")
        shown = judged[0].entry.auth.schemes if judged[0].entry.auth else {}
        return c.broken(
            "no call met a requirement of the card",
            _describe(view),
            ", ".join(f"{k}: {v}" for k, v in shown.items()),
            judged[:1],
        )
    partial = [
        call
        for call in judged
        if call.entry.credentials is CredentialStatus.INVALID
        and call.entry.auth is not None
        and not {"expired"} & set(call.entry.auth.schemes.values())
        and "valid" in call.entry.auth.schemes.values()
    ]
    if partial and partial[0].entry.auth is not None:
        return c.broken(
            "a call met only part of a requirement (a requirement object needs every scheme it names)",
            _describe(view),
            ", ".join(f"{k}: {v}" for k, v in partial[0].entry.auth.schemes.items()),
            partial,
        )
    return c.passed(f"{len(satisfied)} call(s) met a requirement of the card ({_describe(view)})", satisfied[:1])


def _describe(view: RunView) -> str:
    return ss.read(view.card).describe() or "Authorization: Bearer <token>"


#: What `auth.carried` calls the agent's own credentials (a client secret belongs to the token endpoint).
_AGENT_CREDENTIALS = ("apiKey", "password", "bearer", "access_token")


def _leaks(view: RunView) -> list[tuple[Entry, str]]:
    """(entry, what leaked where) for every request that carried a credential where its scheme does not cover."""
    out: list[tuple[Entry, str]] = []
    # The card's schemes cover the agent: the origins its HTTP interfaces declare (gRPC calls are judged by address).
    # Read by either generation: a 0.3 client that cannot read a 1.0-only card still knows the agent's origins.
    interfaces = [i for reader in Version for i in cards.interfaces(view.card, reader)]
    hosts = {urlsplit(i.url).netloc for i in interfaces if i.core_binding is not Binding.GRPC and i.url}
    for entry in view.entries:
        carried = entry.auth.carried if entry.auth is not None else ()
        if not carried:
            continue
        kinds = {item.split(":", 1)[0] for item in carried}
        if entry.kind is EntryKind.CARD:
            # The agent's own origin is the party the credential is for (RFC 6750 §5.3 "unintended parties"): a
            # card fetched there with the client's default headers discloses nothing; any other origin does.
            host = entry.headers.get("host")
            if not hosts or host not in hosts:
                out.append(
                    (
                        entry,
                        f"the card fetch from {host} carried {', '.join(carried)}: no interface of the card is on "
                        "that origin, so its schemes do not cover it",
                    )
                )
        elif entry.kind is EntryKind.OAUTH:
            token_endpoint = entry.path.endswith((TOKEN_PATH, DEVICE_PATH))
            agents = sorted(kinds - ({"client_secret"} if token_endpoint else set()))
            if agents:
                out.append((entry, f"{entry.path} (the authorization server) received {', '.join(agents)}"))
        elif entry.kind.is_call:
            wrong = [item for item in carried if item.startswith("client_secret:") or item.endswith(":body")]
            if wrong:
                out.append((entry, f"an A2A request carried {', '.join(wrong)} (to the agent, or in what it forwards)"))
            host = entry.headers.get("host")
            agents = [item for item in carried if item.split(":", 1)[0] in _AGENT_CREDENTIALS]
            if agents and hosts and entry.kind is not EntryKind.GRPC and host not in hosts:
                out.append(
                    (
                        entry,
                        f"an A2A request to {host} carried {', '.join(agents)}: no interface of the card is on that "
                        f"origin ({', '.join(sorted(hosts))}), so its schemes do not cover it",
                    )
                )
    return out


@check(
    "NO-CREDENTIAL-LEAK",
    Level.MUST,
    "A2A 1.0 §7.4, §13.1 (credentials for the agent they are for); RFC 6749 §10.3, RFC 6750 §5.2 (token disclosure)",
    "Credentials only where the scheme covers",
    "The client sends each credential only where its scheme covers it: the agent's credentials (API key, password, "
    "bearer or access token) on its A2A calls to the origins of the card's interfaces, never to another origin (the "
    "card's own, when the interfaces live elsewhere, on a call or on the card fetch), the token endpoint, or inside a "
    "message or a push notification config (which the agent forwards to a webhook); a client secret only to the "
    "token endpoint.",
    rule=(
        "A client sends the agent's credentials only on A2A calls to the origins of the card's "
        "interfaces, and a client secret only to the token endpoint."
    ),
    fix=(
        "Attach credentials per request and origin, not to a whole HTTP session: keep them off the card "
        "fetch from another origin, the token endpoint, messages and push configs."
    ),
)
def no_credential_leak(view: RunView, c: Check) -> CheckResult:
    if not any(e.auth is not None for e in view.entries):
        return c.skipped("the scenario has no credentials to leak")
    leaks = _leaks(view)
    if leaks:
        _entry, what = leaks[0]
        return c.broken(
            what,
            "credentials only where their scheme covers",
            f"{len(leaks)} request(s) carried a credential elsewhere",
            [Call(e) for e, _ in leaks],
        )
    carried = sum(1 for e in view.entries if e.auth is not None and e.auth.carried)
    return c.passed(f"{carried} request(s) carried credentials, each where its scheme covers")


def _token_schemes(view: RunView) -> list[ss.Scheme]:
    return [s for s in ss.read(view.card).schemes.values() if s.uses_tokens]


@check(
    "TOKEN-LIFECYCLE",
    Level.MUST,
    "A2A 1.0 §4.5 (OAuthFlows: tokenUrl, scopes), §7.4, §8.5 (scopes in a requirement); RFC 6749 §4.4, §6; "
    "RFC 6750 §3.1 (invalid_token)",
    "Access tokens obtained, reused and renewed",
    "For an OAuth 2.0 or OpenID Connect scheme, the client obtains a token from the declared endpoint with the scopes "
    "the requirement names, reuses it while it is valid, and after a 401 (invalid_token) refreshes it or obtains a "
    "new one and goes on; it does not fetch a token for every request.",
    "per finding: a token from another endpoint or without the required scopes FAILs (MUST); a token fetched while "
    "the previous one still worked is NON_STRICT (RFC 6749 says how to reuse, not that one must); not recovering "
    "after a 401 FAILs",
    rule=(
        "A client gets its OAuth token from the declared token endpoint with the scopes the requirement "
        "names, reuses it while valid and renews it after a 401."
    ),
    fix=(
        "Request the token at the flow's `tokenUrl` with the requirement's scopes, cache it until it "
        "expires or a 401 `invalid_token` comes back, then refresh or fetch a new one and retry."
    ),
)
def token_lifecycle(view: RunView, c: Check) -> CheckResult:
    schemes = _token_schemes(view)
    if not schemes or "credentials" not in view.action:
        return c.skipped("the card declares no OAuth 2.0 or OpenID Connect scheme the client holds credentials for")
    grants = [e for e in view.entries if e.kind is EntryKind.OAUTH and e.grant is not None]
    issued = [e for e in grants if e.grant is not None and e.grant.issued is not None]
    if not issued:
        if not grants:
            return c.result(Outcome.UNIMPLEMENTED, "the client asked the token endpoint for no token")
        denied = grants[-1].grant
        return c.broken(
            "the token endpoint refused every token request",
            "a token issued",
            f"{denied.error if denied else '?'} ({denied.grant_type if denied else '?'})",
            [Call(grants[-1])],
        )
    declared = {(urlsplit(f.token_url).path) for s in schemes for f in s.flows if f.token_url} | {TOKEN_PATH}
    elsewhere = [e for e in issued if not any(e.path.endswith(p) for p in declared)]
    if elsewhere:
        return c.broken("a token came from another endpoint than the card declares", str(declared), elsewhere[0].path)
    sec = ss.read(view.card)
    needed = {
        s for r in sec.requirements for n, scopes in r.schemes.items() if n in {x.name for x in schemes} for s in scopes
    }
    first = issued[0].grant
    assert first is not None
    missing = sorted(s for s in needed if s not in first.scopes and s != "openid")
    if missing:
        return c.broken(
            "the token was asked for without the scopes the card's requirement names",
            f"scope {' '.join(sorted(needed))}",
            f"scope {' '.join(first.scopes) or '(none)'}",
            [Call(issued[0])],
        )
    calls = _judged(view)
    refused = [
        call for call in calls if call.entry.auth and {"expired", "invalid"} & set(call.entry.auth.schemes.values())
    ]
    if refused:
        last = refused[-1]
        recovered = any(e.seq > last.seq for e in issued) and any(
            call.seq > last.seq and call.entry.credentials is CredentialStatus.VALID for call in calls
        )
        if not recovered:
            return c.broken(
                "after a 401 for an expired or invalid token the client did not obtain a new one and go on",
                "a new token, then the call again",
                "no recovery",
                [last],
            )
    early = [
        grant
        for prev, grant in itertools.pairwise(issued)
        if not any(
            prev.seq < call.seq < grant.seq and call.entry.credentials is not CredentialStatus.VALID for call in calls
        )
    ]
    if early:
        return c.broken(
            "the client fetched a new token while the one it had still worked (a token per request)",
            "one token, reused until the server refuses it",
            f"{len(issued)} tokens for {len(_judged(view))} call(s)",
            [Call(e) for e in early],
            level=Level.SHOULD,
        )
    uses = Counter(call.entry.auth.token for call in _judged(view) if call.entry.auth and call.entry.auth.token)
    return c.passed(
        f"{len(issued)} token(s) obtained with scope {' '.join(first.scopes) or '(default)'}; "
        + ", ".join(f"token {n} used {k} time(s)" for n, k in sorted(uses.items()))
    )
