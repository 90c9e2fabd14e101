"""Who may use the admin API (`/_lab/...`): a caller holding a secret, at a Host the server serves, never a web page.

Every server has an admin token (given, or drawn from `secrets`), and every admin request must pass, in order:

1. `Host` names this server: an IP address, `localhost` (or `*.localhost`), or a name it was told it serves
   (`--allowed-host`). A page that rebinds its own DNS name to 127.0.0.1 sends its own name and is refused (421).
2. No cross-site request: an `Origin` other than the server's own, or `Sec-Fetch-Site: cross-site|same-site`, is
   refused (403), and no answer carries a CORS header, so no preflight is ever granted.
3. A POST says `Content-Type: application/json`, which a web page cannot send without that preflight (415):
   `text/plain`, form types or no type at all are what a page can send blind.
4. The token, as `Authorization: Bearer TOKEN` or `X-A2A-Lab-Token: TOKEN`, compared in constant time: none is
   401, a wrong one 403.

A2A endpoints and the card are not guarded: the client under test needs no secret.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.lab_api import TOKEN_HEADER

from . import answer, http

#: Bytes of randomness in a generated admin or run token (256 bits).
TOKEN_BYTES = 32
#: The methods a web page can send without a CORS preflight, with a body: only POST among the admin API's.
_BODY_METHODS = frozenset({"POST"})
#: Where the holder of a server's admin token finds it (a server the harness starts hands its token to nobody).
SERVE_HINT = "`a2a-lab serve` takes it with --admin-token, or prints the one it generated at start-up"


def new_token() -> str:
    return cli_safe_token(TOKEN_BYTES)


def cli_safe_token(nbytes: int) -> str:
    """A random URL-safe token that never begins with `-`: users pass tokens and run ids on command lines
    (`--run-token T`, `--run ID`), where one beginning with `-` reads as an option (1 draw in 64 would)."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if not token.startswith("-"):
            return token


@dataclass(frozen=True)
class Refusal:
    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()

    async def send(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = http.dumps({"error": f"a2a-lab admin API: {self.message}"})
        await answer.send_body(
            scope, receive, send, None, self.status, body, "application/json", extra=list(self.headers)
        )


def host_name(host: str) -> str:
    """The name part of a Host header value, lowercased: `[::1]:80` -> `::1`, `Lab:8000` -> `lab`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class AdminGuard:
    """The admin API's checks for one server: its token, and the names (beyond IP addresses and localhost) its
    admin API answers to."""

    token: str = field(default_factory=new_token, repr=False)
    hosts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, token: str | None = None, hosts: Iterable[str] = ()) -> AdminGuard:
        """A guard with `token` (None: a fresh random one) and extra host names."""
        return cls(token or new_token(), frozenset(h.strip().lower().rstrip(".") for h in hosts if h.strip()))

    def serves(self, name: str) -> bool:
        return _is_ip(name) or name == "localhost" or name.endswith(".localhost") or name in self.hosts

    def site(self, scope: Scope) -> Refusal | None:
        """Checks 1-3: a Host this server serves, no cross-site request, a JSON POST."""
        headers = http.headers_of(scope)
        host = headers.get("host", "")
        if not host.strip():
            return Refusal(400, "the request has no Host header; send the host and port you connected to")
        if not self.serves(host_name(host)):
            return Refusal(
                421,
                f"Host {host!r} is not a name this server serves: its admin API answers IP addresses, localhost and "
                "the names given with `a2a-lab serve --allowed-host NAME` (a guard against DNS rebinding)",
            )
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host}".lower()
        fetch_site = headers.get("sec-fetch-site", "").lower()
        if (origin is not None and origin.strip().lower() != own) or fetch_site in ("cross-site", "same-site"):
            return Refusal(
                403,
                f"a cross-site request (Origin {origin or 'of another site'}) is refused: the admin API is for "
                "programs, not web pages, and grants no CORS",
            )
        if scope["method"] in _BODY_METHODS and not http.is_json_type(
            headers.get("content-type", ""), ("application/json",)
        ):
            return Refusal(
                415,
                f"an admin {scope['method']} must be sent as Content-Type: application/json "
                f"(got {headers.get('content-type') or 'none'}); a body may be empty",
            )
        return None

    def holder(
        self, scope: Scope, token: str | None = None, what: str = "the admin token", where: str = SERVE_HINT
    ) -> Refusal | None:
        """Check 4: the caller presents `token` (default: this server's); `where` says where to find it."""
        given = presented(scope)
        if given is None:
            return Refusal(
                401,
                f"{what} is required: send Authorization: Bearer TOKEN (or {TOKEN_HEADER}: TOKEN); {where}",
                (("www-authenticate", 'Bearer realm="a2a-lab admin"'),),
            )
        expected = self.token if token is None else token
        if not hmac.compare_digest(given.encode(), expected.encode()):
            return Refusal(403, f"the token presented is not {what}")
        return None

    def check(self, scope: Scope) -> Refusal | None:
        """Every check, against this server's own token."""
        return self.site(scope) or self.holder(scope)


def presented(scope: Scope) -> str | None:
    """The token a request presents (X-A2A-Lab-Token, else an Authorization Bearer credential), or None."""
    headers = http.headers_of(scope)
    given = headers.get(TOKEN_HEADER.lower())
    if given is None:
        scheme, _, value = headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() != "bearer":
            return None
        given = value
    given = given.strip()
    return given or None
