"""A scenario's gRPC server: grpc.aio on the serving event loop (the task engine and journal are the HTTP app's),
behind a relay whose port the card names (`{grpc_address}`), started when first needed and stopped with the app.

Needs the `grpc` extra; `available()` says why not when it is missing, and nothing else here is imported then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from a2a_lab.contract.scenario import Endpoint
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.bindings import Binding

from .state import LabState


def available() -> str | None:
    """None when gRPC can be served here, else why not (and how to fix it)."""
    return grpcwire.missing()


class GrpcHost:
    """The gRPC server of one served scenario (its HTTP app's state, its gRPC endpoint)."""

    def __init__(self, state: Callable[[], LabState], endpoint: Endpoint, base_url: Callable[[], str]) -> None:
        self._state = state
        self.endpoint = endpoint
        self._base_url = base_url
        self.address: str | None = None
        self._server: Any = None
        self._relay: Any = None
        self._lock = asyncio.Lock()

    async def start(self, host: str) -> str:
        """Listen on `host` (the HTTP server's own address) at a free port; the `host:port` clients dial."""
        async with self._lock:
            if self.address is not None:
                return self.address
            import grpc

            from .grpc_endpoint import GrpcService
            from .grpc_relay import Relay

            server = grpc.aio.server(options=(("grpc.so_reuseport", 0),))
            relay = Relay(host, 0)
            server.add_generic_rpc_handlers((GrpcService(self._state, self.endpoint, self._base_url, relay.reset),))
            bracketed = f"[{host}]" if ":" in host else host
            try:
                relay.target_port = server.add_insecure_port(f"{bracketed}:0")
                await server.start()
                port = await relay.start()
            except BaseException:
                await server.stop(0)  # nothing half-started stays behind; the caller may try again
                raise
            self._server, self._relay = server, relay
            self.address = f"{bracketed}:{port}"
            return self.address

    async def stop(self) -> None:
        async with self._lock:
            if self._relay is not None:
                await self._relay.close()
            if self._server is not None:
                await self._server.stop(0)
            self._server = self._relay = None
            self.address = None


def grpc_endpoint(endpoints: tuple[Endpoint, ...]) -> Endpoint | None:
    """The scenario's gRPC endpoint, if it serves one."""
    return next((e for e in endpoints if e.binding is Binding.GRPC), None)
