"""The proxy's gRPC pass-through: per gRPC address of the upstream's card, a grpc.aio server on a loopback port of
the proxy's own, on the serving event loop (the journal's), whose one generic handler forwards every call as the
bytes that came (nothing is decoded on the path but a webhook registration: grpc_push.py) over a grpc.aio channel to
the upstream (insecure, or TLS with the proxy's CA file), and hands back what the upstream said: initial metadata,
each message as it comes, the trailing metadata (`grpc-status-details-bin` included), the status and its message.
Each call is journaled (grpc_record.py).

Every method is served as one message in, a stream out: the same HTTP/2 frames as a unary call, so a unary answer
with no message, or more than one, passes as it came (and is judged). The call's deadline goes on to the upstream.
What the proxy answers itself (the upstream could not be reached) carries the trailer `x-a2a-lab-proxy: own-answer`.

Needs the grpc extra: import this module only once grpcwire.missing() is None.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import grpc

from a2a_lab.contract.journal import Journal
from a2a_lab.harness.proxy import grpc_push
from a2a_lab.harness.proxy.grpc_record import CallRecord
from a2a_lab.harness.proxy.loops import Own
from a2a_lab.harness.proxy.push import Hooks
from a2a_lab.harness.proxy.routes import GrpcRoute, Routes

#: Metadata the gRPC library writes itself on each hop (besides HTTP/2 pseudo-headers and the reserved `grpc-*`
#: keys): not forwarded.
HOP_METADATA = frozenset({"user-agent", "te", "content-type", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding"})
#: Marks what the proxy answers itself (as the HTTP side's header: app.PROXY_HEADER).
OWN_ANSWER = ("x-a2a-lab-proxy", "own-answer")
#: The largest message either side may send through the proxy (gRPC's default is 4 MiB; the proxy's HTTP side
#: forwards bodies up to 16 MiB).
MAX_MESSAGE = 16 * 1024 * 1024
_OPTIONS = (("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE))


def _forwarded(metadata: Sequence[tuple[str, str | bytes]]) -> list[tuple[str, str | bytes]]:
    return [(k, v) for k, v in metadata if not k.startswith((":", "grpc-")) and k.lower() not in HOP_METADATA]


class Listener:
    """The proxy's gRPC port for one upstream address."""

    def __init__(self, journal: Journal, route: GrpcRoute, ca_file: str | None, hooks: Hooks, routes: Routes) -> None:
        self.journal, self.route = journal, route
        #: The webhooks clients registered (shared with the HTTP side), and the proxy's routes (its URL for them).
        self.hooks, self.routes = hooks, routes
        self.address = ""
        target = f"dns:///{route.upstream}"  # a TCP host:port, whatever it looks like (never `unix:` and its kind)
        if route.tls:
            roots = Path(ca_file).read_bytes() if ca_file else None
            self.channel = grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(roots), _OPTIONS)
        else:
            self.channel = grpc.aio.insecure_channel(target, _OPTIONS)
        self.server = grpc.aio.server(options=(("grpc.so_reuseport", 0), *_OPTIONS))
        self.server.add_generic_rpc_handlers((_Handler(self),))

    async def start(self, host: str) -> tuple[str, int]:
        bracketed = f"[{host}]" if ":" in host else host
        port = self.server.add_insecure_port(f"{bracketed}:0")
        if not port:
            raise OSError(f"could not listen on {bracketed}")
        await self.server.start()
        self.address = f"{bracketed}:{port}"
        return self.address, port

    async def stop(self) -> None:
        await self.server.stop(0)
        await self.channel.close()


class _Handler(grpc.GenericRpcHandler):
    def __init__(self, listener: Listener) -> None:
        self.listener = listener

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[bytes, bytes]:
        return grpc.unary_stream_rpc_method_handler(
            functools.partial(_pass, self.listener, handler_call_details.method)
        )


async def _pass(
    listener: Listener, method: str, request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]
) -> AsyncIterator[bytes]:
    """One call: forwarded as it came, answered as the upstream answers, journaled all along."""
    metadata = list(context.invocation_metadata() or ())
    record = CallRecord(listener.journal, method, metadata, request, listener.address)
    proxy, hooks = listener.routes.proxy, listener.hooks
    forwarded = grpc_push.register(hooks, record.op, request, proxy, record.entry.seq)  # the journal keeps `request`
    remaining = context.time_remaining()
    timeout = remaining if remaining is not None and remaining < 1e9 else None
    rpc: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = listener.channel.unary_stream(method)
    call: Any = rpc(forwarded, metadata=_forwarded(metadata), timeout=timeout)
    own = False
    try:
        try:
            initial = await call.initial_metadata()
            if initial:
                await context.send_initial_metadata(tuple(initial))
            async for message in call:
                record.message(message)
                yield grpc_push.restore(hooks, record.op, message, proxy)
            code, details, trailing = await call.code(), await call.details(), await call.trailing_metadata()
        except grpc.aio.AioRpcError as err:
            code, details, trailing = err.code(), err.details() or "", err.trailing_metadata() or ()
            own = code is grpc.StatusCode.UNAVAILABLE and not err.initial_metadata() and not trailing
            # an UNAVAILABLE the upstream sent itself leaves the channel connected; one made up locally does not
            own = own and listener.channel.get_state() is not grpc.ChannelConnectivity.READY
    except (asyncio.CancelledError, GeneratorExit):  # the client went away: stop reading the upstream for it
        call.cancel()
        record.left()
        listener.journal.touch()
        raise
    trailers = tuple(trailing)
    if own:  # no answer came: say so as the proxy's own, naming the upstream
        details = f"a2a-lab proxy: the upstream {listener.route.upstream} did not answer: {details}"
        trailers = (OWN_ANSWER,)
    record.ended(code.name, details, trailers)
    if own and record.entry.response is not None:  # the proxy's own answer: not the server's, not judged as one
        record.entry.response.refused = details
    listener.journal.touch()
    if trailers:
        context.set_trailing_metadata(trailers)
    if code is not grpc.StatusCode.OK:
        await context.abort(code, details)


class Gate:
    """The proxy's gRPC listeners, one per upstream gRPC address (at most limits.MAX_GRPC_PORTS: routes.py), started
    on the serving loop as cards name them; never one for an address that is the proxy's own."""

    def __init__(self, journal: Journal, ca_file: str | None, hooks: Hooks, own: Own | None = None) -> None:
        self.journal, self.ca_file, self.hooks = journal, ca_file, hooks
        self.own = own or Own()
        self.listeners: list[Listener] = []

    async def ensure(self, routes: Routes, host: str) -> None:
        """Listen for every gRPC route without a port yet (its `proxy` address is then set); a route that cannot be
        served is named as not proxied, once (`refused`)."""
        for route in list(routes.grpc.values()):
            if route.proxy is not None or route.refused is not None:
                continue
            if await self.own.names(f"//{route.upstream}"):
                route.refused = "the proxy's own address"
            else:
                listener = None
                try:
                    listener = Listener(self.journal, route, self.ca_file, self.hooks, routes)
                    route.proxy, port = await listener.start(host)
                except Exception as exc:  # out of ports or descriptors: said, and served without
                    route.proxy, route.refused = None, f"no port could be opened for it: {type(exc).__name__}: {exc}"
                    if listener is not None:
                        with contextlib.suppress(Exception):
                            await listener.stop()
                else:
                    self.own.listen(host, port)
                    self.listeners.append(listener)
            if route.refused is not None:
                urls = [u for u, a in routes.grpc_urls.items() if a == route.upstream]
                routes.not_proxied_line(
                    f"gRPC address {route.upstream} ({', '.join(urls)}): not proxied ({route.refused})"
                )

    async def stop(self) -> None:
        for listener in self.listeners:
            await listener.stop()
        self.listeners.clear()
