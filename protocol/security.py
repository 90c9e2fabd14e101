"""Where credentials travel (spec §4.5, §7.4, §13; 0.3 §5.5): the names that carry them, and the ones a card's
securitySchemes declare. The one place that knows these facts; contract/redaction.py applies them.

Names are compared normalised (`credential_name`): lower case, letters and digits only, so `X-Api-Key`,
`x_api_key` and `xApiKey` are one name, and a JSON member is compared after its escapes are decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: Headers whose value starts with an authentication scheme (RFC 9110 §11.6.2, §11.7.2): the scheme is kept.
AUTHORIZATION_HEADERS = frozenset({"authorization", "proxy-authorization"})
#: HTTP authentication schemes (IANA registry, plus `DPoP` and the A2A examples' `Bearer`), lower case.
AUTH_SCHEMES = frozenset(
    {"basic", "bearer", "digest", "dpop", "hoba", "mutual", "negotiate", "ntlm", "scram-sha-1", "scram-sha-256"}
)
#: Names (normalised) that carry a credential wherever they appear: a header, a JSON member (push config `token`,
#: `authentication.credentials`), a query or form parameter, a cookie.
CREDENTIAL_NAMES = frozenset(
    {
        "authorization",
        "proxyauthorization",
        "cookie",
        "setcookie",
        "credential",
        "credentials",
        "password",
        "passwd",
        "pass",
        "pwd",
        "passphrase",
        "secret",
        "token",
        "apikey",
        "session",
        "sessionid",
    }
)
#: A name ending in one of these carries a credential too: `X-Auth-Token`, `X-A2A-Notification-Token`,
#: `x-goog-api-key`, `clientSecret`, `refresh_token`, `Ocp-Apim-Subscription-Key`.
CREDENTIAL_SUFFIXES = (
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "credential",
    "credentials",
    "authorization",
    "cookie",
    "sessionid",
    "privatekey",
    "accesskey",
    "secretkey",
    "subscriptionkey",
    "functionskey",
)
#: A2A names that end like a credential but are none: ListTasks' pagination cursors (§3.1.4).
NOT_CREDENTIALS = frozenset({"pagetoken", "nextpagetoken"})
#: Query parameters that carry credentials in URLs (signed URLs, OAuth redirects), too generic a name to hide
#: elsewhere (a JSON `key` or `signature` member is no secret; a card's JWS `signature` is public).
URL_CREDENTIAL_PARAMS = frozenset({"key", "sig", "signature", "xamzsignature", "code", "auth", "jwt"})

_ALL_NAMES = CREDENTIAL_NAMES | set(CREDENTIAL_SUFFIXES)
#: Every credential name contains one of these (the names that contain no other): a quick test that text holds none.
CREDENTIAL_STEMS = tuple(sorted(n for n in _ALL_NAMES if not any(m != n and m in n for m in _ALL_NAMES)))

_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def normalised(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower())


def credential_name(name: str) -> bool:
    """Whether a header, JSON member or parameter of this name carries a credential."""
    n = normalised(name)
    return n in CREDENTIAL_NAMES or (n.endswith(CREDENTIAL_SUFFIXES) and n not in NOT_CREDENTIALS)


def credential_param(name: str) -> bool:
    """Whether a URL query (or fragment) parameter of this name carries a credential."""
    return credential_name(name) or normalised(name) in URL_CREDENTIAL_PARAMS


@dataclass(frozen=True)
class DeclaredCredentials:
    """What a card's securitySchemes say credentials travel in: apiKey header, query and cookie names (as
    declared), and the HTTP authentication schemes (lower case)."""

    headers: frozenset[str] = frozenset()
    query: frozenset[str] = frozenset()
    cookies: frozenset[str] = frozenset()
    schemes: frozenset[str] = frozenset()


NOTHING_DECLARED = DeclaredCredentials()

#: 1.0 `SecurityScheme` is a oneof wrapper (§4.5): its member names, and the fields each requires.
V1_SCHEMES: dict[str, tuple[str, ...]] = {
    "apiKeySecurityScheme": ("location", "name"),
    "httpAuthSecurityScheme": ("scheme",),
    "oauth2SecurityScheme": ("flows",),
    "openIdConnectSecurityScheme": ("openIdConnectUrl",),
    "mtlsSecurityScheme": (),
}
#: 0.3 `SecurityScheme` is an OpenAPI object discriminated by `type` (0.3 §5.5): the types, and their required fields.
V03_SCHEMES: dict[str, tuple[str, ...]] = {
    "apiKey": ("in", "name"),
    "http": ("scheme",),
    "oauth2": ("flows",),
    "openIdConnect": ("openIdConnectUrl",),
    "mutualTLS": (),
}
#: The 1.0 wrappers of an API key and of HTTP authentication (ProtoJSON readers accept the proto field names too).
_API_KEY = ("apiKeySecurityScheme", "api_key_security_scheme")
_HTTP_AUTH = ("httpAuthSecurityScheme", "http_auth_security_scheme")


def declared_credentials(cards: Iterable[object]) -> DeclaredCredentials:
    """The credential names the securitySchemes of these cards (1.0, 0.3 or dual shaped) declare."""
    found: dict[str, set[str]] = {"header": set(), "query": set(), "cookie": set()}
    http_schemes: set[str] = set()
    for card in cards:
        schemes = card.get("securitySchemes") if isinstance(card, dict) else None
        for scheme in schemes.values() if isinstance(schemes, dict) else ():
            if not isinstance(scheme, dict):
                continue
            api_keys = [scheme[k] for k in _API_KEY if isinstance(scheme.get(k), dict)]
            located = [(k.get("location"), k.get("name")) for k in api_keys]
            if scheme.get("type") == "apiKey":  # 0.3
                located.append((scheme.get("in"), scheme.get("name")))
            for where, name in located:
                if isinstance(where, str) and isinstance(name, str) and name and where.lower() in found:
                    found[where.lower()].add(name)
            http = [scheme[k] for k in _HTTP_AUTH if isinstance(scheme.get(k), dict)]
            if scheme.get("type") == "http":  # 0.3
                http.append(scheme)
            http_schemes |= {h["scheme"].lower() for h in http if isinstance(h.get("scheme"), str) and h["scheme"]}
    return DeclaredCredentials(
        frozenset(n.lower() for n in found["header"]),
        frozenset(found["query"]),
        frozenset(found["cookie"]),
        frozenset(http_schemes),
    )
