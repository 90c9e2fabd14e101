"""Who may use `a2a-lab ui`: the person who started it, in a browser on this machine (or where `--host` says).

Every request passes, in order, before any page sees it (an ASGI middleware around the whole app):

1. `Host` names this server: an IP address, `localhost`, or a name given with `--allowed-host` (the admin API's
   rule, server/guard.py's `AdminGuard.serves`): a page that rebinds its own DNS name to 127.0.0.1 is refused (421).
2. No cross-site request: an `Origin` other than the app's own (or `null`), or `Sec-Fetch-Site: cross-site` or
   `same-site`, is refused (403); no answer carries a CORS header.
3. The launch token: the URL `a2a-lab ui` prints carries it (`?token=...`, drawn by `secrets` at each start, as
   Jupyter does); that first request sets it as a cookie (HttpOnly, SameSite=Strict) and is redirected to the same
   URL without it, and every later request presents the cookie. None or a wrong one is refused (403), compared in
   constant time.

Every answer says `Content-Security-Policy` (scripts and everything else from this origin only, no frames),
`X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin` (no-referrer would make a browser send
`Origin: null` with the pages' own forms).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

from a2a_lab.server.guard import AdminGuard, cli_safe_token, host_name

#: Bytes of randomness in the launch token (256 bits).
TOKEN_BYTES = 32
#: The query parameter that carries the token in the printed URL.
TOKEN_PARAM = "token"
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)


def new_token() -> str:
    """A fresh launch token (URL-safe, never beginning with `-`)."""
    return cli_safe_token(TOKEN_BYTES)


@dataclass(frozen=True)
class UiGuard:
    """The launch token, and the host names beyond IPs and localhost."""

    token: str = field(default_factory=new_token, repr=False)
    hosts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, hosts: Iterable[str] = (), token: str | None = None) -> UiGuard:
        return cls(token or new_token(), frozenset(h.strip().lower().rstrip(".") for h in hosts if h.strip()))

    @property
    def cookie(self) -> str:
        """The cookie's name: one per launch (from a hash of its token), so two `a2a-lab ui` on one host, whose
        cookies share the host whatever their ports, keep their own."""
        return "a2a-lab-ui-" + hashlib.sha256(self.token.encode()).hexdigest()[:12]

    def url(self, origin: str, path: str = "/") -> str:
        """The URL to print: `origin` + `path` with the token."""
        return f"{origin}{path}?{urlencode({TOKEN_PARAM: self.token})}"

    def matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def serves(self, host: str) -> bool:
        return AdminGuard(self.token, self.hosts).serves(host_name(host))


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _cookie(headers: dict[str, str], name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no token
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


async def _refuse(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (
        "<!doctype html><meta charset=utf-8><title>a2a-lab ui: refused</title>"
        f"<h1>Refused ({status})</h1><p>{message}</p>"
    ).encode()
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Guarded:
    """The app behind the guard's checks; every answer with the security headers."""

    def __init__(self, app: ASGIApp, guard: UiGuard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        if not host.strip() or not self.guard.serves(host):
            await _refuse(
                send,
                421,
                "This Host is not a name a2a-lab ui serves: it answers IP addresses, localhost and the names given "
                "with --allowed-host (a guard against DNS rebinding).",
            )
            return
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host}".lower()
        site = headers.get("sec-fetch-site", "").lower()
        if (origin is not None and origin.strip().lower() != own) or site in ("cross-site", "same-site"):
            await _refuse(send, 403, "A request from another site is refused: a2a-lab ui answers its own pages only.")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True))
        given = query.get(TOKEN_PARAM)
        if given is not None:
            await self._enter(scope, send, given, query)
            return
        if not self.guard.matches(_cookie(headers, self.guard.cookie)):
            await _refuse(
                send,
                403,
                "This page needs the token of this launch: open the URL that <code>a2a-lab ui</code> printed when it "
                "started (it ends in <code>?token=...</code>).",
            )
            return
        await self.app(scope, receive, _secured(send))

    async def _enter(self, scope: Scope, send: Send, given: str, query: dict[str, str]) -> None:
        """The printed URL: with the right token, set the cookie and redirect to the same page without it."""
        if not self.guard.matches(given):
            await _refuse(send, 403, "The token in this URL is not this launch's: open the URL a2a-lab ui printed.")
            return
        rest = urlencode({k: v for k, v in query.items() if k != TOKEN_PARAM})
        location = scope.get("path", "/") + (f"?{rest}" if rest else "")
        cookie = f"{self.guard.cookie}={self.guard.token}; HttpOnly; SameSite=Strict; Path=/"
        body = b""
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode("latin-1", "replace")),
                    (b"set-cookie", cookie.encode()),
                    (b"content-length", b"0"),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _secured(send: Send) -> Send:
    """`send` with the security headers added to the answer's head."""

    async def wrapped(message: dict) -> None:  # type: ignore[type-arg]
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return wrapped  # type: ignore[return-value]
