"""Presenting credentials as the card says (A2A 1.0 §4.5, §7.4; 0.3 §5.5): the card decides which scheme and where
the credential goes, the scenario hands the values (A2A_LAB_ACTION `credentials`, `token`).

- The first requirement (alternatives, in the card's order) whose every scheme this client holds credentials for
  is used; all of its schemes are presented (a conjunction).
- apiKey: the declared header, query parameter or cookie, under the declared name. http basic:
  `Authorization: Basic base64(username:password)` (RFC 7617). http bearer: the given token (RFC 6750 §2.1).
- oauth2 clientCredentials: a token from the declared tokenUrl (HTTP Basic client authentication, the scopes the
  requirement names), reused while it works; after a 401 it is refreshed (refresh_token, where the flow gave one)
  or obtained again, and the call retried once. deviceCode: the device authorization is asked for and the token
  endpoint polled (the lab approves headlessly). openIdConnect: the discovery document names the token endpoint.
- Credentials go only to the origins of the agent's interfaces; client credentials only to the token endpoint.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.protocol import cards
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.security_schemes import CardSecurity, FlowKind, KeyLocation, Requirement, Scheme, SchemeKind
from a2a_lab.protocol.versions import Version

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
#: How often a device code is polled at most (the interval the server gives is honoured, capped at 2 s).
DEVICE_POLLS = 10


def origin(url: str | httpx.URL) -> str:
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}".lower()


@dataclass
class _Token:
    access: str
    refresh: str | None = None


@dataclass
class CardAuth(httpx.Auth):
    """An httpx auth flow presenting one requirement of the card on the agent's origins."""

    security: CardSecurity
    requirement: Requirement
    credentials: Mapping[str, str]
    token: str | None
    origins: frozenset[str]
    #: Access tokens by scheme name; how many were obtained (for the result).
    tokens: dict[str, _Token] = field(default_factory=dict)
    obtained: int = 0

    # ------------------------------------------------------------------------------------------------ httpx

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if origin(request.url) not in self.origins:
            yield request  # never send the agent's credentials anywhere else
            return
        yield from self._fetch_tokens(request, refresh=False)
        self._apply(request)
        response = yield request
        if response.status_code == 401 and self._token_schemes():
            yield from self._fetch_tokens(request, refresh=True)
            retry = httpx.Request(request.method, request.url, headers=request.headers, content=request.content)
            self._strip(retry)
            self._apply(retry)
            yield retry

    # ------------------------------------------------------------------------------------------------ presenting

    def _schemes(self) -> list[Scheme]:
        return self.security.usable(self.requirement)

    def _token_schemes(self) -> list[Scheme]:
        return [s for s in self._schemes() if s.uses_tokens and self.token is None]

    def _strip(self, request: httpx.Request) -> None:
        request.headers.pop("authorization", None)

    def _apply(self, request: httpx.Request) -> None:
        cookies: list[str] = []
        for scheme in self._schemes():
            if scheme.kind is SchemeKind.API_KEY and scheme.param:
                key = self.credentials.get("apiKey", "")
                if scheme.location is KeyLocation.HEADER:
                    request.headers[scheme.param] = key
                elif scheme.location is KeyLocation.QUERY:
                    request.url = request.url.copy_merge_params({scheme.param: key})
                elif scheme.location is KeyLocation.COOKIE:
                    cookies.append(f"{scheme.param}={key}")
            elif scheme.kind is SchemeKind.HTTP and scheme.http_scheme == "basic":
                pair = f"{self.credentials.get('username', '')}:{self.credentials.get('password', '')}"
                request.headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
            elif scheme.kind is SchemeKind.HTTP or (scheme.uses_tokens and self.token is not None):
                request.headers["Authorization"] = f"Bearer {self.token}"
            elif scheme.uses_tokens and scheme.name in self.tokens:
                request.headers["Authorization"] = f"Bearer {self.tokens[scheme.name].access}"
        if cookies:
            request.headers["Cookie"] = "; ".join(cookies)

    def headers(self) -> dict[str, str] | None:
        """The requirement's credentials as plain headers, what gRPC metadata carries (§10.2); None when it needs
        what a header cannot give: a query parameter, or an access token still to be obtained."""
        schemes = self._schemes()
        if self._token_schemes() or any(s.location is KeyLocation.QUERY for s in schemes):
            return None
        request = httpx.Request("POST", "http://credentials.invalid/")
        self._apply(request)
        names = ["authorization", "cookie"] + [
            s.param.lower() for s in schemes if s.location is KeyLocation.HEADER and s.param
        ]
        return {name: request.headers[name] for name in names if name in request.headers}

    # ------------------------------------------------------------------------------------------------ tokens

    def _fetch_tokens(self, request: httpx.Request, refresh: bool) -> Generator[httpx.Request, httpx.Response, None]:
        for scheme in self._token_schemes():
            held = self.tokens.get(scheme.name)
            if held is not None and not refresh:
                continue
            scopes = self.requirement.schemes.get(scheme.name, ())
            if held is not None and held.refresh:
                url = self._token_url(scheme)
                form = {"grant_type": "refresh_token", "refresh_token": held.refresh}
                got = yield from self._token_request(url, form, basic=scheme.flow(FlowKind.DEVICE_CODE) is None)
            elif scheme.kind is SchemeKind.OPENID_CONNECT:
                metadata = yield from self._get_json(scheme.openid_url or "", "the OpenID discovery document")
                url = str(metadata.get("token_endpoint") or "")
                form = {"grant_type": "client_credentials", "scope": " ".join(dict.fromkeys(("openid", *scopes)))}
                got = yield from self._token_request(url, form, basic=True)
            elif scheme.flow(FlowKind.CLIENT_CREDENTIALS) is not None:
                flow = scheme.flow(FlowKind.CLIENT_CREDENTIALS)
                assert flow is not None
                form = {"grant_type": "client_credentials", **({"scope": " ".join(scopes)} if scopes else {})}
                got = yield from self._token_request(flow.token_url or "", form, basic=True)
            else:
                got = yield from self._device(scheme, scopes)
            self.tokens[scheme.name] = got
            self.obtained += 1

    def _token_url(self, scheme: Scheme) -> str:
        for f in scheme.flows:
            if f.urls.get("refreshUrl") or f.token_url:
                return f.urls.get("refreshUrl") or f.token_url or ""
        return ""

    def _device(self, scheme: Scheme, scopes: tuple[str, ...]) -> Generator[httpx.Request, httpx.Response, _Token]:
        flow = scheme.flow(FlowKind.DEVICE_CODE)
        if flow is None:
            raise ClientFailure("auth", f"scheme {scheme.name!r}: no flow this client can drive headlessly")
        client_id = self.credentials.get("client_id", "")
        form = {"client_id": client_id, **({"scope": " ".join(scopes)} if scopes else {})}
        url = flow.urls.get("deviceAuthorizationUrl", "")
        started = yield from self._post(url, form, None, "the device authorization")
        code, interval = str(started.get("device_code", "")), started.get("interval", 5)
        for _ in range(DEVICE_POLLS):
            poll = {"grant_type": DEVICE_GRANT, "device_code": code, "client_id": client_id}
            answer = yield from self._post(flow.token_url or "", poll, None, "the device token", ok_errors=True)
            if "access_token" in answer:
                return _Token(str(answer["access_token"]), answer.get("refresh_token"))
            if answer.get("error") not in ("authorization_pending", "slow_down"):
                raise ClientFailure("auth", f"the device token request failed: {answer.get('error')}")
            time.sleep(min(float(interval) if isinstance(interval, int | float) else 5.0, 2.0))
        raise ClientFailure("auth", f"the device code was not approved after {DEVICE_POLLS} polls")

    def _token_request(
        self, url: str, form: dict[str, str], basic: bool
    ) -> Generator[httpx.Request, httpx.Response, _Token]:
        cid, secret = self.credentials.get("client_id", ""), self.credentials.get("client_secret", "")
        if basic:
            # RFC 6749 §2.3.1: client id and secret form-encoded, then HTTP Basic.
            pair = f"{quote(cid, safe='')}:{quote(secret, safe='')}"
            auth = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            auth, form = None, {**form, "client_id": cid}
        answer = yield from self._post(url, form, auth, "the token request")
        access = answer.get("access_token")
        if not isinstance(access, str) or not access:
            raise ClientFailure("auth", f"the token endpoint {url} answered no access_token")
        refresh = answer.get("refresh_token")
        return _Token(access, refresh if isinstance(refresh, str) else None)

    def _post(
        self, url: str, form: dict[str, str], auth: str | None, what: str, ok_errors: bool = False
    ) -> Generator[httpx.Request, httpx.Response, dict[str, Any]]:
        if not url:
            raise ClientFailure("auth", f"{what}: the card gives no URL")
        headers = {"Accept": "application/json", **({"Authorization": auth} if auth else {})}
        response = yield httpx.Request("POST", url, data=form, headers=headers)
        return self._read(response, what, ok_errors)

    def _get_json(self, url: str, what: str) -> Generator[httpx.Request, httpx.Response, dict[str, Any]]:
        if not url:
            raise ClientFailure("auth", f"{what}: the card gives no URL")
        response = yield httpx.Request("GET", url, headers={"Accept": "application/json"})
        return self._read(response, what, False)

    @staticmethod
    def _read(response: httpx.Response, what: str, ok_errors: bool) -> dict[str, Any]:
        response.read()
        try:
            value = response.json()
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise ClientFailure("auth", f"{what}: HTTP {response.status_code}, not a JSON object")
        if response.status_code >= 400 and not ok_errors:
            raise ClientFailure("auth", f"{what}: HTTP {response.status_code} {value.get('error', '')}".strip())
        return value


def _holds(scheme: Scheme, credentials: Mapping[str, str], token: str | None) -> bool:
    if scheme.kind is SchemeKind.API_KEY:
        return "apiKey" in credentials and scheme.location is not None and scheme.param is not None
    if scheme.kind is SchemeKind.HTTP:
        if scheme.http_scheme == "basic":
            return "username" in credentials and "password" in credentials
        return token is not None
    if scheme.uses_tokens:
        if token is not None:
            return True
        if scheme.flow(FlowKind.DEVICE_CODE) is not None:
            return "client_id" in credentials
        secret = "client_id" in credentials and "client_secret" in credentials
        return secret and (
            scheme.kind is SchemeKind.OPENID_CONNECT or scheme.flow(FlowKind.CLIENT_CREDENTIALS) is not None
        )
    return False


def card_auth(card: Any, credentials: Mapping[str, str], token: str | None) -> tuple[CardAuth | None, list[str]]:
    """The auth flow for this card and these credentials (None: present only the plain token, if any), and notes."""
    security = ss.read(card)
    if not security.schemes or not (credentials or token):
        return None, []
    for requirement in security.requirements or tuple(Requirement({n: ()}) for n in security.schemes):
        schemes = security.usable(requirement)
        if schemes and len(schemes) == len(requirement.schemes) and all(_holds(s, credentials, token) for s in schemes):
            declared = [*cards.interfaces(card, Version.V1_0), *cards.interfaces(card, Version.V0_3)]
            origins = frozenset(origin(i.url) for i in declared if i.url)
            return CardAuth(security, requirement, credentials, token, origins), [
                f"presenting {requirement.describe()} ({', '.join(s.describe() for s in schemes)})"
            ]
    return None, ["no security requirement of the card can be met with the credentials given"]
