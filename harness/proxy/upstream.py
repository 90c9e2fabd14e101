"""The proxy's HTTP/1.1 client to the upstream: keep-alive connections per origin (plain or TLS), each request
written and its answer read with h11 (the parser uvicorn and httpx use), the body handed on chunk by chunk as it
comes. A third of the CPU time httpx's transport spends per request (benchmarks/README.md, "The proxy"): a proxy
does none of a client's work (cookies, redirects, auth, content decoding), so it pays for none of it."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

from a2a_lab.harness.proxy import limits
from a2a_lab.protocol.exceptions import LabError

#: Idle connections kept per origin.
KEEP = 16
READ_BYTES = 64 * 1024


class UpstreamError(LabError):
    """The upstream could not be reached, or broke off its answer: says which, and why."""


class Busy(LabError):
    """The proxy holds all the bytes it may for the requests it answers (limits.InFlight): says so."""


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    h11: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    #: Reused from the pool (it may have been closed by the upstream meanwhile: a request on it is retried once).
    reused: bool = False

    def close(self) -> None:
        self.writer.close()


class Headers:
    """An answer's headers as they came, with the few lookups the proxy makes (names compared lower-case)."""

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw

    def multi_items(self) -> list[tuple[str, str]]:
        return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in self.raw]

    def get(self, name: str, default: str = "") -> str:
        key = name.lower().encode("latin-1")
        return next((v.decode("latin-1") for k, v in self.raw if k.lower() == key), default)

    def __contains__(self, name: str) -> bool:
        key = name.lower().encode("latin-1")
        return any(k.lower() == key for k, _ in self.raw)


class Answer:
    """The upstream's answer: status and headers at once, the body as it comes (`aiter_raw`, or `aread`)."""

    def __init__(self, pool: Pool, origin: str, conn: Connection, status: int, headers: Headers) -> None:
        self.pool, self.origin, self.conn = pool, origin, conn
        self.status_code, self.headers = status, headers
        self._done = False

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body as it comes: what one read of the connection brought, together (a burst of stream events the
        upstream wrote while the proxy was busy is handed on at once, as it would reach a direct client)."""
        conn = self.conn
        pending: list[bytes] = []
        while not self._done:
            try:
                event = conn.h11.next_event()
            except h11.RemoteProtocolError as exc:  # e.g. closed before the end of a body of known length
                self._done = True
                if pending:
                    yield b"".join(pending)
                raise UpstreamError(f"the upstream broke off its answer: {exc}") from None
            if event is h11.NEED_DATA:
                if pending:
                    yield b"".join(pending)
                    pending.clear()
                conn.h11.receive_data(await self.pool.read(conn))  # b"": the upstream closed the connection
                continue
            if isinstance(event, h11.Data):
                pending.append(bytes(event.data))
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                self._done = True
        if pending:
            yield b"".join(pending)

    async def aread(self, limit: int, share: limits.Share | None = None) -> tuple[bytes, bool]:
        """The body as it came (never decoded), whole (True), or its first chunks once past `limit` bytes (False:
        `aiter_raw` gives the rest); each chunk held in `share` (Busy when the budget is spent)."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in self.aiter_raw():
            if share is not None and not share.take(len(chunk)):
                raise Busy(share.budget.refusal())
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                return b"".join(chunks), False
        return b"".join(chunks), True

    async def aclose(self) -> None:
        self.pool.release(self.origin, self.conn, complete=self._done)


class Pool:
    def __init__(self, ca_file: str | None = None, timeout: float = 300.0) -> None:
        self.timeout = timeout
        self._idle: dict[str, list[Connection]] = {}
        self._tls: ssl.SSLContext | None = None
        self._ca_file = ca_file

    def tls(self) -> ssl.SSLContext:
        """How an https upstream is verified: the system's trust store, or only the CA file given (--ca-file)."""
        if self._tls is None:
            self._tls = ssl.create_default_context(cafile=self._ca_file)
        return self._tls

    async def read(self, conn: Connection) -> bytes:
        try:
            async with asyncio.timeout(self.timeout):  # not wait_for: that wraps every read in a task of its own
                return await conn.reader.read(READ_BYTES)
        except TimeoutError:
            raise UpstreamError(f"the upstream said nothing for {self.timeout:g} s") from None
        except OSError as exc:
            raise UpstreamError(f"the connection to the upstream broke: {exc}") from None

    async def _connect(self, origin: str) -> Connection:
        parts = urlsplit(origin)
        https = parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        try:
            opened = asyncio.open_connection(parts.hostname, port, ssl=self.tls() if https else None)
            reader, writer = await asyncio.wait_for(opened, self.timeout)
        except TimeoutError:
            raise UpstreamError(f"{origin} did not accept a connection within {self.timeout:g} s") from None
        except OSError as exc:
            raise UpstreamError(f"{origin} refused or could not be reached: {exc}") from None
        return Connection(reader, writer)

    def _take(self, origin: str) -> Connection | None:
        idle = self._idle.get(origin)
        while idle:
            conn = idle.pop()
            if not conn.reader.at_eof():
                conn.reused = True
                return conn
            conn.close()
        return None

    def release(self, origin: str, conn: Connection, complete: bool) -> None:
        """Back to the pool when the exchange ended cleanly on a connection both sides keep; else closed."""
        state = conn.h11
        if complete and state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            idle = self._idle.setdefault(origin, [])
            if len(idle) < KEEP:
                conn.reused = False
                idle.append(conn)
                return
        conn.close()

    async def request(self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes) -> Answer:
        """The upstream's answer, its head within `timeout` seconds of asking whatever came before it (silence,
        informational heads, a head byte by byte); its body as it comes."""
        try:
            async with asyncio.timeout(self.timeout):
                return await self._request(method, url, headers, body)
        except TimeoutError:
            raise UpstreamError(f"the upstream did not start its answer within {self.timeout:g} s") from None

    async def _request(self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes) -> Answer:
        parts = urlsplit(url)
        try:
            parts.port  # noqa: B018 - read for its check: a port that is no number raises
        except ValueError as exc:
            raise UpstreamError(f"{url!r} is not a URL the proxy can reach: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UpstreamError(f"{url!r} is not an http(s) URL with a host: the proxy forwards to no other")
        origin = f"{parts.scheme}://{parts.netloc}"
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [(b"host", parts.netloc.encode("latin-1")), *headers]
        if body or method not in ("GET", "HEAD", "DELETE", "OPTIONS"):
            head.append((b"content-length", str(len(body)).encode()))
        for attempt in range(2):
            conn = self._take(origin) or await self._connect(origin)
            try:
                return await self._exchange(origin, conn, method, target, head, body)
            except UpstreamError:
                conn.close()
                if not conn.reused or attempt:
                    raise  # a fresh connection failed: say so; a kept one the upstream closed: once more
            except BaseException:  # the deadline, or the client went away: the connection is in no known state
                conn.close()
                raise
        raise AssertionError("unreachable")

    async def _exchange(
        self, origin: str, conn: Connection, method: str, target: str, head: list[tuple[bytes, bytes]], body: bytes
    ) -> Answer:
        state = conn.h11
        try:
            data = [state.send(h11.Request(method=method, target=target, headers=head)) or b""]
            if body:  # the body as it is (h11 would copy it into one string with its framing)
                data += state.send_with_data_passthrough(h11.Data(data=body)) or []
            data.append(state.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError as exc:
            raise UpstreamError(f"the request cannot be forwarded as HTTP/1.1: {exc}") from None
        try:
            conn.writer.writelines(data)
            await conn.writer.drain()
        except OSError as exc:
            raise UpstreamError(f"the connection to the upstream broke: {exc}") from None
        informational = 0
        while True:
            try:
                event = state.next_event()
            except h11.RemoteProtocolError as exc:
                raise UpstreamError(f"the upstream's answer is not HTTP/1.1: {exc}") from None
            if event is h11.NEED_DATA:
                received = await self.read(conn)
                if not received:
                    raise UpstreamError("the upstream closed the connection without an answer")
                state.receive_data(received)
                continue
            if isinstance(event, h11.Response):
                return Answer(self, origin, conn, event.status_code, Headers(list(event.headers)))
            if isinstance(event, h11.ConnectionClosed):
                raise UpstreamError("the upstream closed the connection without an answer")
            # h11.InformationalResponse (1xx): not forwarded (ASGI has no way to send one); wait for the answer
            informational += 1
            if informational > limits.MAX_INFORMATIONAL:
                raise UpstreamError(
                    f"the upstream sent more than {limits.MAX_INFORMATIONAL} informational (1xx) heads and no answer"
                )

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()
