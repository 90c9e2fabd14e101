"""Running apps under uvicorn: a pre-bound socket (clear errors, port 0), in a thread or in the foreground, on an
event loop whose accept loop backs off when the process is out of file descriptors."""

from __future__ import annotations

import asyncio
import errno
import gc
import logging
import re
import socket
import ssl
import threading
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import Any

import h11
import uvicorn
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE  # uvicorn's default too (its h11_impl imports it)
from uvicorn.protocols.http.h11_impl import H11Protocol

from a2a_lab.contract import backoff
from a2a_lab.protocol.exceptions import LabError

from . import tls
from .faults import TRANSPORT_KEY

log = logging.getLogger("a2a_lab.server")

#: How long a connection may take to send a request line and headers (uvicorn has no such limit: an idle or
#: trickling connection would hold a socket forever). Request bodies have their own limit (limits.body_seconds).
HEAD_SECONDS = 10.0
#: Where h11 sees the end of a request head (it accepts bare LF line ends).
_END_OF_HEAD = re.compile(b"\n\r?\n")


def _raw_answer(status: int, reason: str, text: str) -> bytes:
    body = text.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


class LabH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, exposing the transport to the app so faults can reset connections; with a deadline
    for request heads and a 431 (not a bare 400) for heads larger than h11 accepts."""

    head_seconds: float | None = HEAD_SECONDS
    _head_timer: asyncio.TimerHandle | None = None

    # uvicorn annotates the parameter as asyncio.Transport while asyncio's base class says BaseTransport.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        tls.on_connection(transport)  # for TLS, the handshake is done: journal it completed
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._head_timer is None and (self.cycle is None or self.cycle.response_complete):
            # Part of the next request's head (or the rest of a body nobody reads any more). A whole head has started
            # a cycle by now: the common case arms no timer.
            self._arm_head_timer()

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        cycle = getattr(self, "cycle", None)
        if cycle is not None and cycle is not before:  # a whole request head arrived: a new cycle, a new scope
            cycle.scope.setdefault("extensions", {})[TRANSPORT_KEY] = self.transport
            self._cancel_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        limit = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        pending = self.conn.trailing_data[0]
        if (
            len(pending) > limit and _END_OF_HEAD.search(pending) is None
        ):  # h11's "Receive buffer too long", not a malformed head
            self.logger.warning("a2a-lab: refused a request whose line and headers exceed %d bytes (431)", limit)
            self.transport.write(
                _raw_answer(
                    431, "Request Header Fields Too Large", f"The request line and headers exceed {limit} bytes."
                )
            )
            self.transport.close()
            return
        super().send_400_response(msg)

    def _arm_head_timer(self) -> None:
        if self.head_seconds is not None:
            self._head_timer = self.loop.call_later(self.head_seconds, self._head_timeout)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or (self.cycle is not None and not self.cycle.response_complete):
            return
        if self.conn.our_state is h11.IDLE and self.conn.trailing_data[0]:  # part of a head: say why we hang up
            self.transport.write(
                _raw_answer(
                    408,
                    "Request Timeout",
                    f"The request line and headers did not arrive within {self.head_seconds:g} s.",
                )
            )
        self.transport.close()


def protocol(head_seconds: float | None = HEAD_SECONDS) -> type[LabH11Protocol]:
    """The protocol class with another head deadline (None: none)."""
    if head_seconds == LabH11Protocol.head_seconds:
        return LabH11Protocol
    return type("LabH11Protocol", (LabH11Protocol,), {"head_seconds": head_seconds})


class LabEventLoop(asyncio.SelectorEventLoop):
    """asyncio's event loop, whose accept loop backs off when the process is out of file descriptors (backoff).

    The accept loop is asyncio's own (BaseSelectorEventLoop._accept_connection, the same in Python 3.11 to 3.13),
    except on EMFILE and its kind: asyncio 3.11 logs a traceback and schedules a retry for every pending connection
    of the backlog; here the listener stops accepting for a while (backoff.Backoff), with a warning at most every
    backoff.LOG_EVERY_S."""

    def __init__(self) -> None:
        super().__init__()
        self.accept_backoff = backoff.Backoff(log, "the server")

    def _accept_connection(
        self, protocol_factory: Any, sock: socket.socket, sslcontext: Any = None, server: Any = None, *more: Any
    ) -> None:
        backlog, timeouts = (more[0], more[1:]) if more else (100, ())
        for accepted in range(backlog):
            try:
                conn, addr = sock.accept()
                conn.setblocking(False)
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return  # nothing more to accept
            except OSError as exc:
                pause = self.accept_backoff.exhausted(exc, progress=accepted > 0)
                if pause is None:
                    raise  # the event loop logs it, as asyncio does
                self._remove_reader(sock.fileno())  # type: ignore[attr-defined]
                self.call_later(pause, self._resume_accepting, protocol_factory, sock, sslcontext, server, more)
                return
            accept = self._accept_connection2(  # type: ignore[attr-defined]
                protocol_factory, conn, {"peername": addr}, sslcontext, server, *timeouts
            )
            self.create_task(accept)

    def _resume_accepting(
        self, protocol_factory: Any, sock: socket.socket, sslcontext: Any, server: Any, more: tuple[Any, ...]
    ) -> None:
        if sock.fileno() == -1 or (server is not None and not server.is_serving()):
            return  # the server closed meanwhile
        self._add_reader(  # type: ignore[attr-defined]
            sock.fileno(), self._accept_connection, protocol_factory, sock, sslcontext, server, *more
        )


def run(coro: Coroutine[Any, Any, None]) -> None:
    """asyncio.run on a LabEventLoop."""
    with asyncio.Runner(loop_factory=LabEventLoop) as runner:
        runner.run(coro)


class PortInUse(LabError, OSError):
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
            raise PortInUse(
                f"port {port} on {host} is already in use; choose another with --port, or --port 0 for any free port"
            ) from None
        raise OSError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def origin(sock: socket.socket, scheme: str = "http") -> str:
    host, port = sock.getsockname()[:2]
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


def config(
    app: Any,
    log_level: str = "warning",
    access_log: bool = False,
    head_seconds: float | None = HEAD_SECONDS,
    ssl_context: ssl.SSLContext | None = None,
) -> uvicorn.Config:
    """uvicorn's config; with `ssl_context`, its listeners speak TLS (uvicorn itself only builds one from files)."""
    made = uvicorn.Config(
        app,
        http=protocol(head_seconds),
        log_level=log_level,
        access_log=access_log,
        lifespan="on",
        timeout_graceful_shutdown=1,
        ws="none",
    )
    if ssl_context is not None:
        made.load()
        made.ssl = ssl_context
    return made


class PromptServer(uvicorn.Server):
    """uvicorn's server, whose main loop ends as soon as `stop_soon` is called from another thread, instead of at its
    next 100 ms tick (a server per scenario paid up to a tick, 145 ms median with the rest, for every stop)."""

    TICK_S = 0.1

    def __init__(
        self,
        config: uvicorn.Config,
        plain: list[socket.socket] | None = None,
        on_started: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(config)
        #: Called once the server listens: by then uvicorn handles SIGINT and SIGTERM (`serve` captures them before
        #: `startup`), so a Ctrl-C right after what it prints stops the server instead of being lost.
        self.on_started = on_started
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Set once the server listens, or once it has given up starting (`started` tells which).
        self.ready = threading.Event()
        #: Listeners that speak plain HTTP although the config's speak TLS (a scenario's `{http_base_url}`).
        self.plain = plain or []

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
            if self.started:
                loop = asyncio.get_running_loop()
                for sock in self.plain:
                    self.servers.append(
                        await loop.create_server(self._protocol, sock=sock, ssl=None, backlog=self.config.backlog)
                    )
                if self.on_started is not None:
                    self.on_started()
        finally:
            self.ready.set()

    def _protocol(self, _loop: asyncio.AbstractEventLoop | None = None) -> asyncio.Protocol:
        """A connection's protocol, made as uvicorn's startup makes it."""
        made: asyncio.Protocol = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state, _loop=_loop
        )
        return made

    async def main_loop(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        while not self.should_exit:
            try:
                await asyncio.wait_for(self._wake.wait(), self.TICK_S)
            except TimeoutError:
                pass
            counter = (counter + 1) % 864000
            if self.should_exit or await self.on_tick(counter):  # on_tick keeps the Date header and limits current
                return

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown, but for its fixed 100 ms pause after asking connections to close: the pause ends as
        soon as they have (polled every 5 ms), and most of a scenario's connections are idle keep-alives that close at
        once. What follows (waiting for answers still being sent, then the lifespan shutdown) is uvicorn's own."""
        if not hasattr(self, "_wait_tasks_to_complete"):  # a uvicorn before 0.30's shutdown: its own, as it is
            await super().shutdown(sockets)
            return
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        loop = asyncio.get_running_loop()
        settle = loop.time() + self.TICK_S
        while self.server_state.connections and loop.time() < settle:
            await asyncio.sleep(0.005)
        try:
            await asyncio.wait_for(self._wait_tasks_to_complete(), timeout=self.config.timeout_graceful_shutdown)
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def requests_done(self, timeout: float) -> bool:
        """Wait until no request is being answered (uvicorn's request tasks have all ended: an answer being sent, or a
        fault being delivered, has been written down in the journal), at most `timeout` seconds; False when some still
        runs then (a stream its client left open)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while any(not task.done() for task in self.server_state.tasks):
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.002)
        return True

    def stop_soon(self) -> None:
        self.should_exit = True
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:
                pass  # the loop has closed: nothing left to wake


#: How long the harness waits for a server's requests in flight to end before it reads the journal: a request still
#: running then is a stream its client left open, journaled as far as it went.
QUIESCE_S = 0.5


class BackgroundServer:
    """A real uvicorn server on loopback in a thread: `with BackgroundServer(app) as srv: srv.url`."""

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        head_seconds: float | None = HEAD_SECONDS,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.app = app
        self.sock = bind(host, port)
        self.url = origin(self.sock, "https" if ssl_context is not None else "http")
        #: With TLS, a second listener of the same app that speaks plain HTTP (what `{http_base_url}` names).
        self.plain_sock = bind(host, 0) if ssl_context is not None else None
        self.plain_url = origin(self.plain_sock) if self.plain_sock is not None else self.url
        plain = [self.plain_sock] if self.plain_sock is not None else []
        self.server = PromptServer(config(app, head_seconds=head_seconds, ssl_context=ssl_context), plain)
        self._thread = threading.Thread(target=self._run, name=f"a2a-lab {self.url}", daemon=True)

    def _run(self) -> None:
        try:
            run(self.server.serve(sockets=[self.sock]))
        except SystemExit:
            pass  # uvicorn's word for "could not start" (it has logged why): start() raises
        finally:
            self.server.ready.set()  # whatever ended the thread (a failed start exits it), start() stops waiting

    def start(self) -> BackgroundServer:
        """Start serving; return once the server listens (not at the next poll: a server per scenario paid ~10 ms)."""
        self._thread.start()
        self.server.ready.wait()
        if not self.server.started:
            self._thread.join(10)
            raise RuntimeError("a2a-lab server failed to start")
        return self

    def stop(self) -> None:
        self.server.stop_soon()
        self._thread.join(10)
        if self._thread.is_alive():
            # Still shutting down (a busy machine, a stream being cancelled): its shutdown closes the listeners. Closing
            # them here would free their descriptors under a live event loop, and the next file this process opens
            # would take their number while the loop still thinks it listens there.
            return
        self.sock.close()
        if self.plain_sock is not None:
            self.plain_sock.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The serving event loop (None before it runs): where other servers sharing the app's state are hosted."""
        return self.server._loop

    def quiesce(self, timeout: float = QUIESCE_S) -> bool:
        """From another thread: wait until the server answers no request (see PromptServer.requests_done), so that
        what it journaled is complete: the harness's client may have its answer (a reset, a stalled answer it gave up
        on) before the server has finished writing down how it ended. False when requests still ran at `timeout`."""
        loop = self.server._loop
        if loop is None or loop.is_closed() or not self._thread.is_alive():
            return True
        try:
            return asyncio.run_coroutine_threadsafe(self.server.requests_done(timeout), loop).result(timeout + 1)
        except (RuntimeError, TimeoutError):  # concurrent.futures.TimeoutError is TimeoutError since 3.11
            return False

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: A serving process runs a full collection after this many middle-generation collections (CPython's default: 10),
#: and, as always, only once a quarter more objects have survived since the last one.
FULL_COLLECTION_AFTER = 100


def settle_collector() -> None:
    """Tune the cyclic garbage collector of a process that is about to serve (not of one that hosts servers in a
    thread among other work: the harness and the tests keep CPython's defaults).

    The journal and the task store are long-lived by design (10 000 entries and 10 000 tasks: ~170 000 objects when
    full), and every full collection walks all of them and everything start-up built: under load CPython's defaults
    run one every few seconds, each a stop of 30-100 ms for every request in flight (the p99 tail measured in
    benchmarks/README.md). So what start-up built is frozen out of every later collection, and full collections
    come ten times less often. Young collections are unchanged, so short-lived cycles go as soon as before."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)


def bind_all(hosts: list[str], port: int) -> list[socket.socket]:
    """Listeners on every one of `hosts`, on one port (with port 0, the one the first listener was given)."""
    socks: list[socket.socket] = []
    try:
        for host in hosts:
            socks.append(bind(host, socks[0].getsockname()[1] if socks else port))
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks


def serve_forever(
    app: Any,
    host: str | list[str],
    port: int,
    log_level: str = "info",
    on_ready: Callable[[str], None] | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> None:
    """Serve in the foreground until interrupted: `a2a-lab serve`, the bench; this process does nothing else. With
    `ssl_context`, over TLS, and in plain HTTP on another port too (an app's `hosted(server)` learns which). Several
    hosts: one listener on each, on one port (`on_ready` hears of the first)."""
    hosts = [host] if isinstance(host, str) else host
    socks = bind_all(hosts, port)
    plain = [bind(hosts[0], 0)] if ssl_context is not None else []
    hosted = getattr(app, "hosted", None)
    if plain and hosted is not None:
        hosted(SimpleNamespace(plain_sock=plain[0]))
    settle_collector()
    where = origin(socks[0], "https" if ssl_context is not None else "http")
    started = (lambda: on_ready(where)) if on_ready is not None else None
    # `on_ready` (the banner a user, or a script, waits for before pressing Ctrl-C) runs once the server listens with
    # uvicorn's signal handlers in place; printed before them, a SIGINT right after it was lost and served on.
    server = PromptServer(config(app, log_level, access_log=False, ssl_context=ssl_context), plain, started)
    try:
        run(server.serve(sockets=socks))
    finally:
        for listener in (*socks, *plain):
            listener.close()
