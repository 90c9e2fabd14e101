"""Running apps under uvicorn: a pre-bound socket (clear errors, port 0), in a thread or in the foreground."""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .faults import TRANSPORT_KEY


class LabH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, exposing the transport to the app so faults can reset connections."""

    def handle_events(self) -> None:
        super().handle_events()
        cycle = getattr(self, "cycle", None)
        if cycle is not None:
            cycle.scope.setdefault("extensions", {})[TRANSPORT_KEY] = self.transport


class PortInUse(OSError):
    pass


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP (not 0) so that asyncio sets TCP_NODELAY on accepted connections; without it every
    # answer (headers and body are two writes) waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {host} is already in use; choose another with --port, or --port 0 for any free port") from None
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def origin(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def config(app: Any, log_level: str = "warning", access_log: bool = False) -> uvicorn.Config:
    return uvicorn.Config(app, http=LabH11Protocol, log_level=log_level, access_log=access_log, lifespan="on", timeout_graceful_shutdown=1, ws="none")


class BackgroundServer:
    """A real uvicorn server on loopback in a thread: `with BackgroundServer(app) as srv: srv.url`."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.sock = bind(host, port)
        self.url = origin(self.sock)
        self.server = uvicorn.Server(config(app))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._run, name=f"a2a-lab {self.url}", daemon=True)

    def _run(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.sock]))

    def start(self) -> BackgroundServer:
        self._thread.start()
        while not self.server.started:
            if not self._thread.is_alive():
                raise RuntimeError("a2a-lab server failed to start")
            self._thread.join(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(10)
        self.sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_forever(app: Any, host: str, port: int, log_level: str = "info", on_ready: Callable[[str], None] | None = None) -> None:
    sock = bind(host, port)
    if on_ready is not None:
        on_ready(origin(sock))
    server = uvicorn.Server(config(app, log_level, access_log=False))
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        sock.close()
