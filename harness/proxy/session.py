"""One proxy session in this process: the state primed with the upstream's card, the app hosted on a loopback port
(uvicorn in a thread, as every a2a-lab server is), and the card rewritten for the proxy's own URL once it is known.
`a2a-lab proxy`, the interop matrix and the tests all open one this way."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from a2a_lab.contract.journal import Journal
from a2a_lab.harness.proxy import limits
from a2a_lab.harness.proxy.app import ProxyApp, ProxyState, read_card
from a2a_lab.harness.proxy.limits import ENTRIES
from a2a_lab.harness.proxy.routes import CARD_PATHS, Routes, origin_of
from a2a_lab.harness.proxy.upstream import Pool, UpstreamError
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.server.hosting import BackgroundServer

#: How long the gRPC ports may take to open at start.
GRPC_START_S = 10.0

T = TypeVar("T")


class SelfUpstream(LabError):
    """The upstream is the proxy itself: every request would come back to it (a refusal of the input, exit 2)."""


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code (on a thread of its own when this one runs a loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def prime(state: ProxyState) -> str:
    """Fetch the upstream's card once at start (so calls are known before the client fetches it), within --timeout
    in all, read as the proxy reads any card (never unpacked, at most limits.MAX_CARD); says what came."""
    return _run(_prime(state))


async def _prime(state: ProxyState) -> str:
    pool = Pool(state.ca_file, state.timeout)
    try:
        async with asyncio.timeout(state.timeout):
            for path in CARD_PATHS:
                url = state.routes.upstream_url(path, "")
                try:
                    seen, problem = await read_card(pool, url, state.own)
                except UpstreamError as exc:
                    return f"the upstream did not answer ({exc}); the proxy serves anyway and says so"
                state.last_fetch = seen
                if problem is not None:
                    return f"{problem}; the proxy serves anyway and says so"
                if seen.status == 200 and isinstance(seen.card, dict):
                    state.saw_card(seen)
                    return f"the upstream's card: {url}"
    except TimeoutError:
        return (
            f"the upstream's card did not come whole within --timeout ({state.timeout:g} s); the proxy serves anyway "
            "and says so"
        )
    finally:
        await pool.aclose()
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
    `grpc_tls`: dial a gRPC interface whose url names no scheme (`host:port`) over TLS. Raises SelfUpstream when
    `upstream` is the proxy's own address. Its end takes at most limits.SHUTDOWN_S (a port that did not close in
    time is noted in `state.notes`), so the verdict is read whatever happened."""
    origin = origin_of(upstream)
    routes = Routes(origin, origin, grpc_tls=grpc_tls)
    state = ProxyState(routes, Journal(cap=entries), timeout=timeout, ca_file=ca_file)
    server = BackgroundServer(ProxyApp(state), host, port)  # bound (not serving yet): its address is known
    try:
        state.routes.proxy = server.url
        state.routes.own = state.own
        state.own.listen(*server.sock.getsockname()[:2])
        if _run(state.own.names(origin)):
            raise SelfUpstream(
                f"--upstream {upstream} is the proxy's own address ({server.url}): every request would come back to "
                "it; give the server's URL, or another --port"
            )
        said = prime(state)
    except BaseException:
        server.sock.close()
        raise
    with server:
        state.settle = server.quiesce
        loop = server.loop
        if grpcwire.missing() is None and loop is not None:  # gRPC calls pass on the serving loop (the journal's)
            from a2a_lab.harness.proxy.grpc_pass import Gate

            state.grpc = Gate(state.journal, ca_file, state.hooks, state.own)
            _on(loop, state.grpc.ensure(state.routes, state.routes.proxy_host), GRPC_START_S, state, "open")
        try:
            if state.card is not None:
                state.saw_card(state.card)  # rewritten for the gRPC ports, now known
            yield state, server.url, said
        finally:
            if state.grpc is not None and loop is not None:
                _on(loop, state.grpc.stop(), limits.GRPC_STOP_S, state, "close")


def _on(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None], seconds: float, state: Any, verb: str
) -> None:
    """Run `coro` on the serving loop, waiting at most `seconds`; a failure or a delay is noted, never raised."""
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        future.result(seconds)
    except TimeoutError:  # left to end when the loop can (it ends with the loop at the latest)
        state.notes.append(f"the proxy's gRPC ports did not {verb} within {seconds:g} s (the serving loop was busy)")
    except Exception as exc:  # said, and the session goes on: the verdict is what matters
        state.notes.append(f"the proxy's gRPC ports could not {verb}: {type(exc).__name__}: {exc}")
