"""One proxy session in this process: the state primed with the upstream's card, the app hosted on a loopback port
(uvicorn in a thread, as every a2a-lab server is), and the card rewritten for the proxy's own URL once it is known.
`a2a-lab proxy`, the interop matrix and the tests all open one this way."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from a2a_lab.contract.journal import Journal
from a2a_lab.protocol import grpcwire
from a2a_lab.server.hosting import BackgroundServer

from .app import CardSeen, ProxyApp, ProxyState
from .routes import CARD_PATHS, Routes, origin_of

#: The journal's bound in entries unless told (its bytes are the server journal's default, 64 MiB).
ENTRIES = 10_000


def prime(state: ProxyState) -> str:
    """Fetch the upstream's card once at start (so calls are known before the client fetches it); says what came."""
    for path in CARD_PATHS:
        url = state.routes.upstream_url(path, "")
        try:
            verify: ssl.SSLContext | bool = ssl.create_default_context(cafile=state.ca_file) if state.ca_file else True
            got = httpx.get(url, timeout=state.timeout, headers={"accept-encoding": "identity"}, verify=verify)
        except httpx.HTTPError as exc:
            return f"the upstream did not answer ({type(exc).__name__}: {exc}); the proxy serves anyway and says so"
        headers = list(got.headers.multi_items())
        seen = CardSeen(url, got.status_code, got.content, got.headers.get("content-type", ""), headers)
        try:
            seen.card = got.json()
        except ValueError:
            seen.card = None
        state.last_fetch = seen
        if got.status_code == 200 and isinstance(seen.card, dict):
            state.saw_card(seen)
            return f"the upstream's card: {url}"
    status = state.last_fetch.status if state.last_fetch is not None else "?"
    return f"the upstream serves no A2A card (HTTP {status}); the proxy serves anyway and says so"


@contextmanager
def hosted(
    upstream: str,
    host: str = "127.0.0.1",
    port: int = 0,
    entries: int = ENTRIES,
    timeout: float = 10.0,
    ca_file: str | None = None,
    grpc_tls: bool = False,
) -> Iterator[tuple[ProxyState, str, str]]:
    """A proxy in front of `upstream` until the block ends: its state, its URL, and what the start found.
    `grpc_tls`: dial a gRPC interface whose url names no scheme (`host:port`) over TLS."""
    origin = origin_of(upstream)
    routes = Routes(origin, origin, grpc_tls=grpc_tls)
    state = ProxyState(routes, Journal(cap=entries), timeout=timeout, ca_file=ca_file)
    said = prime(state)
    with BackgroundServer(ProxyApp(state), host, port) as server:
        state.routes.proxy = server.url
        state.settle = server.quiesce
        loop = server.loop
        if grpcwire.missing() is None and loop is not None:  # gRPC calls pass on the serving loop (the journal's)
            from .grpc_pass import Gate

            state.grpc = Gate(state.journal, ca_file, state.hooks)
            asyncio.run_coroutine_threadsafe(state.grpc.ensure(state.routes, state.routes.proxy_host), loop).result(10)
        try:
            if state.card is not None:
                state.saw_card(state.card)  # rewritten for the proxy's own URL (and gRPC ports), now known
            yield state, server.url, said
        finally:
            if state.grpc is not None and loop is not None:
                asyncio.run_coroutine_threadsafe(state.grpc.stop(), loop).result(10)
