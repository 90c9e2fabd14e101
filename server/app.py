"""The ASGI application of one scenario, and of the whole catalogue under path prefixes."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from a2a_lab.contract.journal_record import BodyTimeout, EntryKind
from a2a_lab.contract.scenario import Endpoint, Scenario
from a2a_lab.protocol import jsonrpc, rest
from a2a_lab.protocol.bindings import JSON, Binding
from a2a_lab.protocol.cards import LEGACY_WELL_KNOWN_PATH, WELL_KNOWN_PATH
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.versions import Version

from . import admin, answer, card_endpoint, grpc_host, http, intake, jsonrpc_endpoint, oauth, rest_endpoint
from .grpc_host import GrpcHost
from .guard import AdminGuard
from .push import PushSender
from .state import LabState

log = logging.getLogger("a2a_lab.server")


_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_")


@lru_cache(maxsize=256)  # a server hears a handful of Host values
def _usable_host(host: str) -> bool:
    return 0 < len(host) <= 255 and set(host) <= _HOST_CHARS


def base_url_of(scope: Scope) -> str:
    """The origin the client used (so cards name the host it can reach), plus the scenario's prefix."""
    host = http.headers_of(scope).get("host")
    if not host or not _usable_host(host):
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"[{server[0]}]:{server[1]}" if ":" in str(server[0]) else f"{server[0]}:{server[1]}"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"


def route_path_of(scope: Scope) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class ScenarioApp:
    """Serves one scenario: its card, its endpoints, its admin API. Unknown paths answer loudly."""

    def __init__(
        self,
        scenario: Scenario,
        guard: AdminGuard | None = None,
        seed: int = 0,
        *,
        other_origin: str | None = None,
        push_allow: tuple[str, ...] = (),
    ) -> None:
        self.scenario = scenario
        self.state = LabState.build(scenario, seed)
        #: Where client and server are different hosts (`a2a-lab serve`): the server's other name, more push hosts.
        self.state.other_origin, self.state.push_allow_extra = other_origin, push_allow
        self.push = PushSender(self.state)
        self.state.engine.on_event = self.push.on_event
        #: Who may use /_lab/ (default: holders of a fresh random token, which only this object knows).
        self.guard = guard or AdminGuard.of()
        self._jsonrpc = {e.path: e for e in scenario.endpoints if e.binding is Binding.JSONRPC}
        self._rest = sorted(
            (e for e in scenario.endpoints if e.binding is Binding.HTTP_JSON), key=lambda e: len(e.path), reverse=True
        )
        #: The scenario's gRPC server (started on the first request, beside the HTTP server), if it serves gRPC and
        #: this Python can; `grpc_unavailable` says why not where it cannot.
        self.grpc: GrpcHost | None = None
        self.grpc_unavailable: str | None = None
        self._base_url = ""
        served = grpc_host.grpc_endpoint(scenario.endpoints)
        if served is not None:
            self.grpc_unavailable = grpc_host.available()
            if self.grpc_unavailable is None:
                self.grpc = GrpcHost(lambda: self.state, served, lambda: self._base_url)
        #: HTTP requests go through Starlette's GZipMiddleware where the scenario compresses its answers (as a server
        #: with the middleware mounted does: bodies of at least gzip_min_bytes, when Accept-Encoding names gzip).
        self._http: ASGIApp = (
            self._serve_http
            if scenario.gzip_min_bytes is None
            else GZipMiddleware(self._serve_http, minimum_size=scenario.gzip_min_bytes)
        )

    def hosted(self, server: Any) -> None:
        """Served by `server` (a hosting.BackgroundServer): a TLS server's plain-HTTP listener is `{http_base_url}`."""
        plain = getattr(server, "plain_sock", None)
        if plain is not None:
            self.state.http_port = plain.getsockname()[1]

    def reset(self) -> None:
        self.state.reset()
        self.state.engine.on_event = self.push.on_event

    async def close(self) -> None:
        """Stop what serving started: push deliveries, the gRPC server."""
        await self.push.close()
        if self.grpc is not None:
            await self.grpc.stop()

    async def start_grpc(self, host: str) -> str | None:
        """Start the scenario's gRPC server on `host` (the HTTP server's own address) unless it runs; its address."""
        if self.grpc is None:
            return None
        if self.grpc.address is None:
            try:
                self.state.serve_grpc_at(await self.grpc.start(host))
            except (
                OSError,
                RuntimeError,
            ) as exc:  # out of descriptors, no port: HTTP goes on, the next request retries
                log.warning("a2a-lab: the scenario's gRPC server did not start (%s); the next request retries", exc)
                return None
        return self.grpc.address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        await self._http(scope, receive, send)

    async def _serve_http(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Whether an answer began, for a failure's: uvicorn's send says so itself (its cycle's `response_started`,
        # read only on a failure); any other server's send is wrapped to see it (a coroutine more on every send).
        cycle = getattr(send, "__self__", None)
        tracked: list[bool] | None = None if hasattr(cycle, "response_started") else [False]
        if tracked is not None:
            inner = send

            async def tracking_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    tracked[0] = True
                await inner(message)

            send = tracking_send
        try:
            await self._route(scope, receive, send)
        except (ConnectionError, OSError):
            pass  # the client went away or a fault closed the connection
        except Exception as exc:
            log.exception("a2a-lab: unexpected failure while answering %s %s", scope.get("method"), scope.get("path"))
            started = tracked[0] if tracked is not None else bool(getattr(cycle, "response_started", True))
            if not started:
                err = A2AError(
                    ErrorType.INTERNAL_ERROR,
                    f"a2a-lab internal error ({type(exc).__name__}); please report it with the journal",
                )
                within = self._within(scope)
                found = self.endpoint_for(route_path_of(within)) if within is not None else None
                if found is not None and found[1] is not None:  # an HTTP+JSON route: a google.rpc.Status body
                    version, revision = found[0].versions[0], self.scenario.spec_revision
                    status, body = rest.error(err, version, revision)
                    media = rest.media_type(version, revision)
                    await answer.send_body(scope, receive, send, None, status, http.dumps(body), media)
                else:
                    await answer.send_body(
                        scope, receive, send, None, 200, http.dumps(jsonrpc.error(None, err, Version.V1_0)), JSON
                    )

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def endpoint_for(self, route_path: str) -> tuple[Endpoint, str | None] | None:
        """The endpoint a path belongs to, and for HTTP+JSON the path relative to it."""
        exact = self._jsonrpc.get(route_path) or self._jsonrpc.get(route_path.rstrip("/") or "/")
        if exact is not None:
            return exact, None
        for endpoint in self._rest:
            prefix = "" if endpoint.path == "/" else endpoint.path
            if route_path.startswith(prefix + "/"):
                return endpoint, route_path[len(prefix) :]
        return None

    def _within(self, scope: Scope) -> Scope | None:
        """The request as the scenario's own: under its `base_path`, rooted there (None: outside the prefix)."""
        prefix = self.scenario.base_path
        if not prefix:
            return scope
        route_path = route_path_of(scope)
        if route_path != prefix and not route_path.startswith(prefix + "/"):
            return None
        return {**scope, "root_path": scope.get("root_path", "") + prefix}

    async def _outside(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request outside the scenario's `base_path`: the origin's card path answers `card.origin_root` (journaled
        as a card fetch), the admin API answers as ever, anything else as a path nothing serves."""
        route_path = route_path_of(scope)
        if route_path == WELL_KNOWN_PATH:
            served_at = self.scenario.served_at(base_url_of(scope))
            origin_root = self.scenario.card.origin_root
            await card_endpoint.handle(self.state, route_path, scope, receive, send, served_at, origin_root)
        elif route_path == admin.PREFIX or route_path.startswith(admin.PREFIX + "/"):
            served_at = self.scenario.served_at(base_url_of(scope))
            await admin.handle(self.state, route_path, scope, receive, send, served_at, self.guard, self.reset)
        else:
            await self._unmatched(scope, receive, send, route_path)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        within = self._within(scope)
        if within is None:
            await self._outside(scope, receive, send)
            return
        scope = within
        route_path = route_path_of(scope)
        base_url = base_url_of(scope)
        self._base_url = base_url
        if self.grpc is not None and self.grpc.address is None:
            await self.start_grpc(str((scope.get("server") or ("127.0.0.1", 0))[0]))
        if route_path in (WELL_KNOWN_PATH, LEGACY_WELL_KNOWN_PATH):
            await card_endpoint.handle(self.state, route_path, scope, receive, send, base_url)
            return
        if oauth.serves(self.state, route_path):
            await oauth.handle(self.state, route_path, scope, receive, send, base_url)
            return
        if route_path == admin.PREFIX or route_path.startswith(admin.PREFIX + "/"):
            await admin.handle(self.state, route_path, scope, receive, send, base_url, self.guard, self.reset)
            return
        found = self.endpoint_for(route_path)
        if found is None:
            await self._unmatched(scope, receive, send, route_path)
            return
        endpoint, relative = found
        if relative is None:
            await jsonrpc_endpoint.handle(self.state, endpoint, scope, receive, send, base_url)
        else:
            await rest_endpoint.handle(self.state, endpoint, scope, receive, send, relative, base_url)

    async def _unmatched(self, scope: Scope, receive: Receive, send: Send, route_path: str) -> None:
        body, late = b"", None
        try:
            body = await http.read_body(
                receive, self.state.scenario.limits.body_bytes, self.state.scenario.limits.body_seconds
            )
        except http.BodyTooLarge:
            pass
        except http.BodyTimeout as exc:
            body, late = exc.received, exc
        entry = intake.journal_request(self.state, scope, body, EntryKind.UNMATCHED)
        entry.unmatched = True
        if late is not None:
            entry.body_timeout = BodyTimeout(late.seconds, len(late.received))
            status = {"error": {"code": 408, "status": "DEADLINE_EXCEEDED", "message": http.timeout_message(late)}}
            await answer.send_body(
                scope, receive, send, entry, 408, http.dumps(status), "application/json", extra=http.CLOSE
            )
            return
        page = self.scenario.not_found
        if page is not None:
            await answer.send_page(scope, receive, send, entry, page, self.scenario.style)
            return
        served = [
            f"{e.binding.value} {', '.join(v.value for v in e.versions)} at {e.path}" for e in self.scenario.endpoints
        ]
        payload: dict[str, Any] = {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": f"a2a-lab: nothing is served at {scope['method']} {route_path} "
                f"in scenario {self.scenario.id}",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "A2A_LAB_UNMATCHED",
                        "domain": "a2a-lab",
                        "metadata": {"served": "; ".join(served) or "nothing but the card"},
                    }
                ],
            }
        }
        await answer.send_body(scope, receive, send, entry, 404, http.dumps(payload), "application/json")
