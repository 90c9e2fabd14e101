"""A recording httpx transport: every request the client sends and the exact bytes of every answer it reads.

    recorder = Recorder()
    http = make_client(options, recorder)      # then use the client as usual
    recorder.exchanges[-1].response_body       # the bytes of the last answer, as read so far

Answers are recorded as they are read (a stream's bytes grow while it is consumed). The client asks for
`Accept-Encoding: identity`, so what is recorded is what the server meant, not a compressed form of it.

gRPC calls (grpc_transport) are recorded in the same list, as exchanges with a `grpc` part: the method path, the
answer messages and how the call ended, as ProtoJSON (the form a2a-lab's journal shows gRPC in).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from a2a_lab.protocol.bindings import EVENT_STREAM

IDENTITY = {"Accept-Encoding": "identity"}


@dataclass
class GrpcCall:
    """The gRPC side of an exchange: which method, the answer messages, and the status the call ended with."""

    path: str
    stream: bool
    #: The status name the call ended with (`OK`, `NOT_FOUND`, ...); None until it ended.
    status: str | None = None
    #: grpc-message.
    message: str = ""
    #: The google.rpc.Status of `grpc-status-details-bin` as ProtoJSON; None when the trailer was not sent.
    details: dict[str, Any] | None = None
    #: Why the trailer could not be read, when it was sent but is not a google.rpc.Status.
    details_error: str | None = None
    #: The answer messages as ProtoJSON, in order, and as the bytes that came (what a recording replays).
    messages: list[Any] = field(default_factory=list)
    raw_messages: list[bytes] = field(default_factory=list)


@dataclass
class Exchange:
    """One request and what came back (status None: no answer, see `error`). A gRPC call has `grpc`: its `url` is
    the address dialed, its bodies are ProtoJSON, and `status` is 200 once the server ended the call."""

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
    grpc: GrpcCall | None = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.response_headers if k.lower() == name.lower()), None)

    @property
    def media_type(self) -> str:
        return (self.header("content-type") or "").split(";", 1)[0].strip().lower()

    @property
    def streamed(self) -> bool:
        if self.grpc is not None:
            return self.grpc.stream
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

    def open(
        self, method: str, url: str, headers: list[tuple[str, str]], body: bytes, grpc: GrpcCall | None = None
    ) -> Exchange:
        """A request about to be sent, numbered in the order of all requests (HTTP and gRPC)."""
        exchange = Exchange(
            len(self.exchanges) + 1, round(time.monotonic() - self._t0, 4), method, url, headers, body, grpc=grpc
        )
        self.exchanges.append(exchange)
        return exchange

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        exchange = self.open(request.method, str(request.url), list(request.headers.multi_items()), request.read())
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
