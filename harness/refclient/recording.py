"""A recording httpx transport: every request the client sends and the exact bytes of every answer it reads.

    recorder = Recorder()
    http = make_client(options, recorder)      # then use the client as usual
    recorder.exchanges[-1].response_body       # the bytes of the last answer, as read so far

Answers are recorded as they are read (a stream's bytes grow while it is consumed). The client asks for
`Accept-Encoding: identity`, so what is recorded is what the server meant, not a compressed form of it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx

from a2a_lab.protocol.bindings import EVENT_STREAM

IDENTITY = {"Accept-Encoding": "identity"}


@dataclass
class Exchange:
    """One request and what came back (status None: no answer, see `error`)."""

    seq: int
    t: float
    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: bytearray = field(default_factory=bytearray)
    error: str | None = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.response_headers if k.lower() == name.lower()), None)

    @property
    def media_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()

    @property
    def streamed(self) -> bool:
        return bool(self.media_type == EVENT_STREAM)


class _Tee(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, exchange: Exchange) -> None:
        self.inner, self.exchange = inner, exchange

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.exchange.response_body.extend(chunk)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class Recorder(httpx.BaseTransport):
    """Wraps a real transport (loopback and beyond: whatever the client is pointed at) and records exchanges."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.exchanges: list[Exchange] = []
        self._t0 = time.monotonic()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = Exchange(
            len(self.exchanges) + 1,
            round(time.monotonic() - self._t0, 4),
            request.method,
            str(request.url),
            list(request.headers.multi_items()),
            request.read(),
        )
        self.exchanges.append(exchange)
        try:
            response = self.inner.handle_request(request)
        except httpx.HTTPError as exc:
            exchange.error = f"{type(exc).__name__}: {exc}"
            raise
        exchange.status = response.status_code
        exchange.response_headers = list(response.headers.multi_items())
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(response.stream, exchange),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        self.inner.close()

    def since(self, mark: int) -> list[Exchange]:
        return self.exchanges[mark:]
