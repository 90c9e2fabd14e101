"""A card's security, typed: its securitySchemes and the requirements that name them (A2A 1.0 §4.5, §8.5; 0.3 §5.5).

The one place that reads both shapes: the 1.0 oneof wrapper (`{"apiKeySecurityScheme": {"location", "name"}}`,
`securityRequirements: [{"schemes": {"<name>": {"list": [scopes]}}}]`) and the 0.3 OpenAPI object discriminated by
`type` (`{"type": "apiKey", "in", "name"}`, `security: [{"<name>": [scopes]}]`). The server enforces what it reads,
the checks judge by it, the reference client and the probe present credentials by it, and `card check` lints it.

Requirements are alternatives (a list: any one suffices) of conjunctions (one object: every scheme in it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit

from .security import V03_SCHEMES, V1_SCHEMES

#: Where a refusal for want of credentials names how to authenticate: the HTTP header (RFC 9110 §11.6.1), and the
#: trailing metadata of a gRPC call ended UNAUTHENTICATED (the same name, as §10.2 maps headers to metadata).
CHALLENGE = "www-authenticate"


class SchemeKind(StrEnum):
    """A scheme's kind, named as 0.3's `type` names it."""

    API_KEY = "apiKey"
    HTTP = "http"
    OAUTH2 = "oauth2"
    OPENID_CONNECT = "openIdConnect"
    MUTUAL_TLS = "mutualTLS"


#: The 1.0 wrapper member of each kind (V1_SCHEMES' keys), and its ProtoJSON proto-name spelling.
V1_MEMBER = {
    "apiKeySecurityScheme": SchemeKind.API_KEY,
    "httpAuthSecurityScheme": SchemeKind.HTTP,
    "oauth2SecurityScheme": SchemeKind.OAUTH2,
    "openIdConnectSecurityScheme": SchemeKind.OPENID_CONNECT,
    "mtlsSecurityScheme": SchemeKind.MUTUAL_TLS,
}
_SNAKE = {
    "api_key_security_scheme": "apiKeySecurityScheme",
    "http_auth_security_scheme": "httpAuthSecurityScheme",
    "oauth2_security_scheme": "oauth2SecurityScheme",
    "open_id_connect_security_scheme": "openIdConnectSecurityScheme",
    "mtls_security_scheme": "mtlsSecurityScheme",
}


class KeyLocation(StrEnum):
    """Where an API key travels (1.0 `location`, 0.3 `in`)."""

    HEADER = "header"
    QUERY = "query"
    COOKIE = "cookie"


class FlowKind(StrEnum):
    """OAuth 2.0 flows (1.0 OAuthFlows oneof; implicit and password are deprecated in 1.0)."""

    CLIENT_CREDENTIALS = "clientCredentials"
    AUTHORIZATION_CODE = "authorizationCode"
    DEVICE_CODE = "deviceCode"
    IMPLICIT = "implicit"
    PASSWORD = "password"


#: The URLs each flow requires (proto REQUIRED fields), and the ones it may have.
FLOW_URLS: dict[FlowKind, tuple[str, ...]] = {
    FlowKind.CLIENT_CREDENTIALS: ("tokenUrl",),
    FlowKind.AUTHORIZATION_CODE: ("authorizationUrl", "tokenUrl"),
    FlowKind.DEVICE_CODE: ("deviceAuthorizationUrl", "tokenUrl"),
    FlowKind.IMPLICIT: ("authorizationUrl",),
    FlowKind.PASSWORD: ("tokenUrl",),
}
_URL_FIELDS = ("tokenUrl", "refreshUrl", "authorizationUrl", "deviceAuthorizationUrl")
_SNAKE_FLOWS = {
    "client_credentials": FlowKind.CLIENT_CREDENTIALS,
    "authorization_code": FlowKind.AUTHORIZATION_CODE,
    "device_code": FlowKind.DEVICE_CODE,
}


@dataclass(frozen=True)
class OAuthFlow:
    kind: FlowKind
    #: The flow's URLs by their 1.0 field name (`tokenUrl`, `refreshUrl`, `authorizationUrl`, `deviceAuthorizationUrl`).
    urls: Mapping[str, str] = field(default_factory=dict)
    scopes: tuple[str, ...] = ()

    @property
    def token_url(self) -> str | None:
        return self.urls.get("tokenUrl")


@dataclass(frozen=True)
class Scheme:
    """One declared security scheme, whichever shape it came in."""

    name: str
    kind: SchemeKind
    #: apiKey: where the key goes and under which name.
    location: KeyLocation | None = None
    param: str | None = None
    #: http: the HTTP authentication scheme, lower case (`bearer`, `basic`), and the bearer format hint.
    http_scheme: str | None = None
    bearer_format: str | None = None
    #: oauth2: the flows declared; openIdConnect: the discovery URL; oauth2: RFC 8414 metadata URL.
    flows: tuple[OAuthFlow, ...] = ()
    openid_url: str | None = None
    metadata_url: str | None = None

    def flow(self, kind: FlowKind) -> OAuthFlow | None:
        return next((f for f in self.flows if f.kind is kind), None)

    @property
    def uses_tokens(self) -> bool:
        """Credentials are access tokens from a token endpoint (`Authorization: Bearer`, RFC 6750 §2.1)."""
        return self.kind in (SchemeKind.OAUTH2, SchemeKind.OPENID_CONNECT)

    @property
    def challenge_scheme(self) -> str | None:
        """The HTTP authentication scheme a 401 challenge names for it (RFC 9110 §11.6.1), lower case; None for
        schemes HTTP authentication does not name (an API key, mutual TLS)."""
        if self.kind is SchemeKind.HTTP:
            return self.http_scheme
        return "bearer" if self.uses_tokens else None

    def describe(self) -> str:
        if self.kind is SchemeKind.API_KEY:
            return f"API key {self.param!r} in the {self.location.value if self.location else '?'}"
        if self.kind is SchemeKind.HTTP:
            return f"HTTP {self.http_scheme or '?'} (Authorization: {(self.http_scheme or '?').title()} ...)"
        if self.kind is SchemeKind.OAUTH2:
            return "OAuth 2.0 (" + ", ".join(f.kind.value for f in self.flows) + ")"
        if self.kind is SchemeKind.OPENID_CONNECT:
            return f"OpenID Connect ({self.openid_url})"
        return "mutual TLS"


@dataclass(frozen=True)
class Requirement:
    """One requirement object: every scheme it names, with the scopes each needs (all of them must be met)."""

    schemes: Mapping[str, tuple[str, ...]]

    def describe(self) -> str:
        return " AND ".join(self.schemes) or "(anonymous)"


@dataclass(frozen=True)
class Problem:
    """What a card gets wrong about security: the JSON path and a sentence."""

    path: str
    message: str
    #: A risk rather than a broken rule (an http token endpoint): `card check` warns.
    warning: bool = False


@dataclass(frozen=True)
class CardSecurity:
    schemes: Mapping[str, Scheme] = field(default_factory=dict)
    #: Alternatives: any one suffices. Empty: the card requires nothing.
    requirements: tuple[Requirement, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def required(self) -> bool:
        """Every call needs credentials: some requirement is stated and none of them is empty (`{}` = anonymous)."""
        return bool(self.requirements) and all(r.schemes for r in self.requirements)

    def usable(self, requirement: Requirement) -> list[Scheme]:
        return [self.schemes[n] for n in requirement.schemes if n in self.schemes]

    def describe(self) -> str:
        """The requirements as a sentence: `API key 'X' in the header + HTTP basic (...) or OAuth 2.0 (...)`."""
        alts = [" + ".join(s.describe() for s in self.usable(r)) for r in self.requirements]
        return " or ".join(a for a in alts if a)


NO_SECURITY = CardSecurity()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _flows(value: object, path: str, problems: list[Problem]) -> tuple[OAuthFlow, ...]:
    if not isinstance(value, dict):
        problems.append(Problem(path, "flows is not an object"))
        return ()
    out = []
    for key, body in value.items():
        kind = _SNAKE_FLOWS.get(key) or (FlowKind(key) if key in FlowKind._value2member_map_ else None)
        if kind is None or not isinstance(body, dict):
            problems.append(Problem(f"{path}.{key}", f"unknown OAuth flow {key!r}"))
            continue
        urls = {f: body[f] for f in _URL_FIELDS if isinstance(body.get(f), str) and body[f]}
        urls |= {
            f: body[s]
            for f, s in (("tokenUrl", "token_url"), ("refreshUrl", "refresh_url"))
            if f not in urls and _text(body.get(s))
        }
        for needed in FLOW_URLS[kind]:
            if needed not in urls:
                problems.append(Problem(f"{path}.{key}.{needed}", f"the {kind.value} flow has no {needed}"))
        scopes = body.get("scopes")
        if not isinstance(scopes, dict):
            problems.append(Problem(f"{path}.{key}.scopes", "scopes is a required map (scope -> description)"))
        out.append(OAuthFlow(kind, urls, tuple(scopes) if isinstance(scopes, dict) else ()))
    if not out and not problems:
        problems.append(Problem(path, "flows declares no flow"))
    return tuple(out)


def _scheme(name: str, raw: object, path: str, problems: list[Problem]) -> Scheme | None:
    if not isinstance(raw, dict):
        problems.append(Problem(path, "a security scheme is an object"))
        return None
    members = [(_SNAKE.get(str(k), str(k)), v) for k, v in raw.items() if _SNAKE.get(str(k), str(k)) in V1_MEMBER]
    if members:
        if len(members) > 1:
            problems.append(Problem(path, "a 1.0 security scheme is exactly one of " + ", ".join(V1_SCHEMES)))
        member, inner = members[0]
        kind = V1_MEMBER[member]
        body = inner if isinstance(inner, dict) else {}
        where = body.get("location")
        path = f"{path}.{member}"
    elif isinstance(raw.get("type"), str) and raw["type"] in V03_SCHEMES:
        kind, body, where = SchemeKind(str(raw["type"])), raw, raw.get("in")
    else:
        problems.append(
            Problem(
                path,
                "not a security scheme: expected a 1.0 wrapper member or a 0.3 `type` "
                f"({', '.join(V1_SCHEMES)}; {', '.join(V03_SCHEMES)})",
            )
        )
        return None
    if kind is SchemeKind.API_KEY:
        places = {k.value: k for k in KeyLocation}
        location = places.get(where.lower()) if isinstance(where, str) else None
        param = _text(body.get("name"))
        if location is None:
            problems.append(Problem(path, f"an API key's location is header, query or cookie, got {where!r}"))
        if param is None:
            problems.append(Problem(path, "an API key scheme needs the `name` it travels under"))
        return Scheme(name, kind, location=location, param=param)
    if kind is SchemeKind.HTTP:
        scheme = _text(body.get("scheme"))
        if scheme is None:
            problems.append(Problem(path, "an HTTP auth scheme needs `scheme` (Bearer, Basic, ...)"))
        fmt = _text(body.get("bearerFormat") or body.get("bearer_format"))
        return Scheme(name, kind, http_scheme=scheme.lower() if scheme else None, bearer_format=fmt)
    if kind is SchemeKind.OAUTH2:
        flows = _flows(body.get("flows"), f"{path}.flows", problems)
        meta = _text(body.get("oauth2MetadataUrl") or body.get("oauth2_metadata_url"))
        return Scheme(name, kind, flows=flows, metadata_url=meta)
    if kind is SchemeKind.OPENID_CONNECT:
        url = _text(body.get("openIdConnectUrl") or body.get("open_id_connect_url"))
        if url is None:
            problems.append(Problem(path, "an OpenID Connect scheme needs openIdConnectUrl (its discovery document)"))
        return Scheme(name, kind, openid_url=url)
    return Scheme(name, kind)


def _scopes(value: object) -> tuple[str, ...] | None:
    """1.0 StringList `{"list": [...]}` or 0.3 `[...]`."""
    if isinstance(value, dict):
        value = value.get("list", [])
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return tuple(value)
    return None


def _requirements(card: Mapping[str, object], problems: list[Problem]) -> tuple[Requirement, ...]:
    v1 = card.get("securityRequirements", card.get("security_requirements"))
    raw, key = (v1, "securityRequirements") if v1 is not None else (card.get("security"), "security")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(Problem(key, "security requirements are a list of requirement objects"))
        return ()
    out = []
    for i, item in enumerate(raw):
        named = item.get("schemes") if isinstance(item, dict) and key == "securityRequirements" else item
        if not isinstance(named, dict):
            problems.append(Problem(f"{key}[{i}]", "a requirement is an object naming schemes"))
            continue
        schemes: dict[str, tuple[str, ...]] = {}
        for name, value in named.items():
            scopes = _scopes(value)
            if scopes is None:
                problems.append(Problem(f"{key}[{i}].{name}", "a requirement's scopes are a list of text"))
                scopes = ()
            schemes[str(name)] = scopes
        out.append(Requirement(schemes))
    return tuple(out)


def read(card: object) -> CardSecurity:
    """The security a card declares (1.0, 0.3 or dual shaped), with what is wrong about it; NO_SECURITY for
    anything that is not an object."""
    if not isinstance(card, Mapping):
        return NO_SECURITY
    problems: list[Problem] = []
    schemes: dict[str, Scheme] = {}
    raw = card.get("securitySchemes", card.get("security_schemes"))
    if isinstance(raw, dict):
        for name, value in raw.items():
            scheme = _scheme(str(name), value, f"securitySchemes.{name}", problems)
            if scheme is not None:
                schemes[scheme.name] = scheme
    elif raw is not None:
        problems.append(Problem("securitySchemes", "securitySchemes is a map of name -> scheme"))
    requirements = _requirements(card, problems)
    for i, req in enumerate(requirements):
        for name, scopes in req.schemes.items():
            scheme = schemes.get(name)
            if scheme is None:
                problems.append(
                    Problem(f"securityRequirements[{i}].{name}", f"names scheme {name!r}, which is not declared")
                )
            elif scopes and scheme.kind is SchemeKind.OAUTH2:
                known = {s for f in scheme.flows for s in f.scopes}
                unknown = [s for s in scopes if s not in known]
                if unknown:
                    problems.append(
                        Problem(
                            f"securityRequirements[{i}].{name}",
                            f"asks for scopes no flow declares: {', '.join(unknown)}",
                        )
                    )
    for scheme in schemes.values():
        for f in scheme.flows:
            for key, url in f.urls.items():
                if urlsplit(url).scheme.lower() != "https":
                    problems.append(
                        Problem(
                            f"securitySchemes.{scheme.name}.flows.{f.kind.value}.{key}",
                            f"{url!r} is not https: credentials and tokens would cross the network in the clear "
                            "(RFC 6749 §3.2, §10.9)",
                            warning=True,
                        )
                    )
        if scheme.openid_url and urlsplit(scheme.openid_url).scheme.lower() != "https":
            problems.append(
                Problem(f"securitySchemes.{scheme.name}", f"openIdConnectUrl {scheme.openid_url!r} is not https", True)
            )
    return CardSecurity(schemes, requirements, tuple(problems))
