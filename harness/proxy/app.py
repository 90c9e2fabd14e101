"""The proxy as an ASGI app: every request forwarded to the upstream as it came (its path as it came, still
percent-encoded; the card and the extended card with their interface URLs rewritten to pass through the proxy),
every answer forwarded as it comes (a stream chunk by chunk, with its timing), and both journaled in the server's
journal record (`Journal`, bounded). What it holds is bounded (limits.py: bodies, cards, events, bytes in flight,
requests at once), and it never forwards to itself (loops.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.contract.journal import Journal
from a2a_lab.contract.journal_record import (
    BODY_KEEP_BYTES,
    Entry,
    EntryKind,
    PushInfo,
    Response,
    SentEvent,
    SentKind,
)
from a2a_lab.contract.redaction import Redaction
from a2a_lab.harness.proxy import classify, limits
from a2a_lab.harness.proxy.limits import MAX_BODY, MAX_CARD, InFlight, Share
from a2a_lab.harness.proxy.loops import Own
from a2a_lab.harness.proxy.push import CONFIG_OPS, PUSH, Hooks, webhook_configs
from a2a_lab.harness.proxy.routes import CARD_PATHS, Routes
from a2a_lab.harness.proxy.sse import EventReader, reader_for
from a2a_lab.harness.proxy.upstream import Answer, Busy, Pool, UpstreamError
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import HEADER

#: The most stream events one entry journals (the rest are forwarded, and counted).
MAX_EVENTS = 10_000
#: Headers of one hop only (RFC 9110 §7.6.1), never forwarded; content-length is the framing of the bytes sent.
HOP = frozenset(
    {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host"}
    | {"content-length", "proxy-authenticate", "proxy-authorization"}
)
_HOP_BYTES = frozenset(name.encode("latin-1") for name in HOP)
#: Marks what the proxy itself answers (an upstream that did not answer), never what the upstream said.
PROXY_HEADER = "x-a2a-lab-proxy"


@dataclass
class CardSeen:
    """The upstream's card as it last came (bytes and decoded), and where from."""

    url: str
    status: int
    raw: bytes
    content_type: str
    headers: list[tuple[str, str]]
    card: Any = None
    #: The card as the proxy serves it (interface URLs rewritten), decoded, and its HTTP(S) interfaces.
    served: Any = None
    targets: list[classify.Target] = field(default_factory=list)


@dataclass
class ProxyState:
    routes: Routes
    journal: Journal
    card: CardSeen | None = None
    #: The last answer to a card fetch (the client's, or the proxy's own at start), whatever it was.
    last_fetch: CardSeen | None = None
    timeout: float = 60.0
    #: The webhooks clients registered, handed to the upstream as the proxy's own `/_push/<n>`.
    hooks: Hooks = field(default_factory=Hooks)
    #: The CA an https upstream's certificate is verified against (None: the system's trust store).
    ca_file: str | None = None
    #: The gRPC pass-through (grpc_pass.Gate) when this Python speaks gRPC, else None (gRPC is then not proxied).
    grpc: Any = None
    #: Waits (briefly) until the proxy is answering no request, so that a verdict reads finished exchanges: a client
    #: has the end of a stream before the proxy has journaled it (BackgroundServer.quiesce, set where it is hosted).
    settle: Callable[[], object] | None = None
    #: The addresses the proxy listens on and its pseudonym in Via: it never forwards to itself.
    own: Own = field(default_factory=Own)
    #: The bytes held for the requests being answered, all together.
    budget: InFlight = field(default_factory=InFlight)
    #: What went wrong at start or at the end that the verdict should say (a port that could not open, a stop past
    #: its deadline).
    notes: list[str] = field(default_factory=list)

    @property
    def served_card(self) -> Any:
        """The card as the proxy serves it (interface URLs rewritten), decoded; None before one came."""
        return self.card.served if self.card is not None else None

    def saw_card(self, card: CardSeen) -> None:
        """A card came from the upstream: learn its routes, serve it rewritten, redact its declared credentials."""
        self.routes.learn(card.card)
        card.served = json.loads(self.routes.rewrite(card.raw.decode("utf-8")))
        card.targets = classify.targets(card.served)
        self.card = card
        self.journal.redaction = Redaction.for_cards(card.card)


def _forwarded(raw: list[tuple[bytes, bytes]], own: Own) -> list[tuple[bytes, bytes]]:
    """The request's headers for the upstream: none of one hop's, `Accept-Encoding: identity`, and the proxy's Via."""
    return [*((k, b"identity" if k == b"accept-encoding" else v) for k, v in raw if k not in _HOP_BYTES), own.via]


async def _read(receive: Any, share: Share) -> tuple[bytes, tuple[int, str] | None]:
    """The request's body; or what the proxy answers instead (413: larger than MAX_BODY; 503: the budget is spent)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ConnectionResetError("client disconnected while sending the body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return b"", (413, f"the request body is larger than {MAX_BODY} bytes")
        if not share.take(len(chunk)):
            return b"", (503, share.budget.refusal())
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _raw_path(scope: Any) -> str | None:
    """The request's path as it came (still percent-encoded), when the server says it and it is a path."""
    raw = scope.get("raw_path")
    if not isinstance(raw, bytes):
        return None
    text = raw.decode("latin-1")
    return text if text.startswith("/") else None


class ProxyApp:
    def __init__(self, state: ProxyState) -> None:
        self.state = state
        self.pool = Pool(state.ca_file, state.timeout)
        #: The requests being answered.
        self.active = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self.pool.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if self.active >= limits.MAX_EXCHANGES:
            await self._busy(scope, send)
            return
        self.active += 1
        share = self.state.budget.share()
        try:
            await self._exchange(scope, receive, send, share)
        finally:
            self.active -= 1
            share.release()

    async def _busy(self, scope: Any, send: Any) -> None:
        """One request more than the proxy answers at once: 503, saying so (its body not read), and journaled."""
        query = scope.get("query_string", b"").decode("latin-1")
        entry = self.state.journal.open(
            scope["method"], scope["path"], query, scope["headers"], b"", EntryKind.UNMATCHED
        )
        said = f"the proxy is answering {limits.MAX_EXCHANGES} requests, the most it answers at once; try again later"
        await _own(send, entry, 503, f"a2a-lab proxy: {said}")
        self.state.journal.touch()

    async def _exchange(self, scope: Any, receive: Any, send: Any, share: Share) -> None:
        state, path = self.state, scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        try:
            body, refused = await _read(receive, share)
        except ConnectionResetError:
            return
        hook = state.hooks.target(path) if path.startswith(PUSH) else None
        kind = EntryKind.CARD if path in CARD_PATHS else EntryKind.PUSH if hook else EntryKind.UNMATCHED
        entry = state.journal.open(scope["method"], hook or path, query, scope["headers"], body, kind)
        if hook is not None:
            entry.push = PushInfo(None)
            state.hooks.deliver(entry.seq, path, scope["headers"])
        if kind is EntryKind.UNMATCHED and state.served_card is not None:
            targets = state.card.targets if state.card else []
            classify.identify(entry, targets, state.routes.proxy, body, _header(scope["headers"], VERSION_HEADER))
        if refused is not None:
            entry.body_too_large = refused[0] == 413
            await _own(send, entry, refused[0], f"a2a-lab proxy: {refused[1]}")
            return
        url = (
            hook + (f"?{query}" if query else "") if hook else state.routes.upstream_url(path, query, _raw_path(scope))
        )
        looped = state.own.looped(scope["headers"])
        if looped is None and await state.own.names(url):
            looped = f"{url} is the proxy's own address: it does not forward to itself (a webhook or an interface "
            looped += "that names the proxy?)"
        if looped is not None:
            await _own(send, entry, 508, f"a2a-lab proxy: {looped}; not forwarded")
            return
        configs = webhook_configs(entry.operation, body, entry.kind is EntryKind.JSONRPC)
        if configs:  # the journal keeps what the client sent; the upstream gets the proxy's path for its webhook
            body = state.hooks.register(body, configs, state.routes.proxy, entry.seq)
        forward = asyncio.ensure_future(self._forward(entry, url, scope, body, send, share))
        gone = asyncio.ensure_future(_disconnect(receive))
        await asyncio.wait((forward, gone), return_when=asyncio.FIRST_COMPLETED)
        if not forward.done():  # the client went away: stop reading the upstream for it (a stream may never end)
            entry.disconnected = True
            forward.cancel()
        gone.cancel()
        await asyncio.gather(forward, gone, return_exceptions=True)
        state.journal.touch()  # the exchange is journaled whole: wake whoever waits on the journal

    async def _forward(self, entry: Entry, url: str, scope: Any, body: bytes, send: Any, share: Share) -> None:
        headers = _forwarded(scope["headers"], self.state.own)
        try:
            upstream = await self.pool.request(scope["method"], url, headers, body)
        except UpstreamError as exc:
            entry.response = Response(fault=f"upstream did not answer: {exc}")
            await _own(send, entry, 502, f"a2a-lab proxy: the upstream {url} did not answer: {exc}")
            return
        try:
            await self._answer(entry, url, upstream, send, share)
        finally:
            await upstream.aclose()

    async def _answer(self, entry: Entry, url: str, upstream: Answer, send: Any, share: Share) -> None:
        headers = [(k, v) for k, v in upstream.headers.multi_items() if k.lower() not in HOP]
        ctype = upstream.headers.get("content-type", "")
        rewrite = entry.kind is EntryKind.CARD or entry.operation is Operation.GET_EXTENDED_CARD
        rewrite = rewrite or (entry.operation in CONFIG_OPS and bool(self.state.hooks.urls))
        reader = reader_for(ctype)
        if reader is not None:  # SSE or NDJSON: journaled event by event, as it comes
            await self._stream(entry, upstream, headers, send, reader, share)
            return
        head = b""
        if rewrite:
            try:
                head, whole = await upstream.aread(MAX_CARD, share)
            except Busy as exc:
                await _own(send, entry, 503, f"a2a-lab proxy: {exc}")
                return
            except UpstreamError as exc:
                entry.response = Response(fault=f"upstream broke off its answer: {exc}")
                await _own(send, entry, 502, f"a2a-lab proxy: the upstream {url} broke off its answer: {exc}")
                return
            if not whole:  # no card is this large: forwarded as it comes, unrewritten, and judged
                await self._pass(entry, upstream, headers, ctype, send, head)
                return
            raw = head
            await self._grpc_ready(raw)
            sent = self._rewritten(entry, url, upstream, raw)
            headers.append(("content-length", str(len(sent))))
            await _send_all(send, upstream.status_code, headers, sent, entry)
            self._journal(entry, upstream.status_code, ctype, raw)
            return
        await self._pass(entry, upstream, headers, ctype, send, head)

    async def _pass(
        self, entry: Entry, upstream: Answer, headers: list[tuple[str, str]], ctype: str, send: Any, head: bytes
    ) -> None:
        """Forward a body as it comes (`head`: what was read of it already), keeping the journal's share of it."""
        if "content-length" in upstream.headers:
            headers.append(("content-length", upstream.headers.get("content-length")))
        kept = bytearray(head[: BODY_KEEP_BYTES + 1])
        await send({"type": "http.response.start", "status": upstream.status_code, "headers": _raw(headers)})
        try:
            if head:
                await send({"type": "http.response.body", "body": head, "more_body": True})
            async for chunk in upstream.aiter_raw():
                if len(kept) <= BODY_KEEP_BYTES:
                    kept += chunk
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            entry.disconnected = True
        except UpstreamError as exc:  # the client gets the answer cut where the upstream cut it
            self._journal(entry, upstream.status_code, ctype, bytes(kept))
            assert entry.response is not None
            entry.response.fault = f"upstream broke off its answer: {exc}"
            return
        self._journal(entry, upstream.status_code, ctype, bytes(kept))

    async def _grpc_ready(self, raw: bytes) -> None:
        """A card (or extended card) that names a gRPC address not seen yet: the proxy listens for it first, so that
        the card it serves names the proxy's port."""
        gate = self.state.grpc
        if gate is None:
            return
        try:
            card = json.loads(raw)
        except (ValueError, RecursionError):  # not a card (nested past what Python's reader follows included)
            return
        if isinstance(card, dict):
            self.state.routes.learn(card)
            await gate.ensure(self.state.routes, self.state.routes.proxy_host)

    def _rewritten(self, entry: Entry, url: str, upstream: Answer, raw: bytes) -> bytes:
        ctype = upstream.headers.get("content-type", "")
        seen = CardSeen(url, upstream.status_code, raw, ctype, list(upstream.headers.multi_items()))
        try:
            text = raw.decode("utf-8")
            seen.card = json.loads(text)
        except (ValueError, RecursionError):
            text = None
        if entry.kind is EntryKind.CARD:
            self.state.last_fetch = seen
            if upstream.status_code == 200 and isinstance(seen.card, dict):
                self.state.saw_card(seen)
        if text is None:
            return raw  # not a card: forwarded as it came, and judged
        if entry.operation in CONFIG_OPS:
            return self.state.hooks.restore(text, self.state.routes.proxy).encode("utf-8")
        return self.state.routes.rewrite(text).encode("utf-8")

    async def _stream(
        self,
        entry: Entry,
        upstream: Answer,
        headers: list[tuple[str, str]],
        send: Any,
        kind: type[EventReader],
        share: Share,
    ) -> None:
        events: list[SentEvent] = []
        entry.events = events
        over = [0]

        def emit(event: SentEvent) -> None:
            if len(events) >= MAX_EVENTS:
                over[0] += 1
                return
            events.append(event)
            entry.grow(128 + len(event.text or "") + len(str(event.value or "")))

        reader = kind(emit, self.state.journal.offset, share)
        await send({"type": "http.response.start", "status": upstream.status_code, "headers": _raw(headers)})
        try:
            async for chunk in upstream.aiter_raw():
                reader.feed(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            entry.disconnected = True
        except UpstreamError as exc:
            entry.response = Response(fault=f"upstream stream broke: {exc}")
        finally:  # also when the client went away (cancelled): what was seen is journaled
            reader.close()
            record_stream(entry, upstream.status_code, upstream.headers.get("content-type", ""), events)

    def _journal(self, entry: Entry, status: int, ctype: str, body: bytes) -> None:
        record_answer(entry, status, ctype, body, self.state.journal.redaction)


async def read_card(pool: Pool, url: str, own: Own) -> tuple[CardSeen, str | None]:
    """The upstream's card as the start-up fetches it, read as a card fetched through the proxy is: `identity` asked,
    the bytes read as they come (never decoded), at most MAX_CARD. With why it was not read, if it was not: larger
    than that, or compressed all the same (a compressed card is never unpacked: its size would be unbounded)."""
    headers = [(b"accept", b"application/json"), (b"accept-encoding", b"identity"), own.via]
    answer = await pool.request("GET", url, headers, b"")
    try:
        raw, whole = await answer.aread(MAX_CARD)
    finally:
        await answer.aclose()
    ctype = answer.headers.get("content-type", "")
    seen = CardSeen(url, answer.status_code, raw, ctype, answer.headers.multi_items())
    encoding = answer.headers.get("content-encoding", "").strip().lower()
    if not whole or encoding not in ("", "identity"):
        seen.raw = raw[:_QUOTED]
        if not whole:
            return (
                seen,
                f"the upstream's card at {url} is larger than {limits.size(MAX_CARD)}, the most the proxy reads",
            )
        return seen, (
            f"the upstream's card at {url} came with Content-Encoding: {encoding} although the proxy asked for "
            "identity: not unpacked (the proxy reads a card as it came)"
        )
    try:
        seen.card = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        seen.card = None
    return seen, None


#: What is kept of a card that was not read (CARD-VALID quotes its start).
_QUOTED = 4096


def record_answer(entry: Entry, status: int, ctype: str, body: bytes, redaction: Redaction) -> None:
    """Journal a whole (not streamed) answer on its request's entry, as the scenario server does."""
    entry.response = Response.sent(status, ctype, body, redaction)
    entry.grow(min(len(body), BODY_KEEP_BYTES))
    entry.answer = classify.answer_of(entry, status, body, None)
    if entry.kind is EntryKind.CARD:
        entry.card_path = entry.path


def record_stream(entry: Entry, status: int, ctype: str, events: list[SentEvent]) -> None:
    """Journal a streamed answer's head and what its events said (the events are on the entry already)."""
    response = entry.response or Response()
    response.status, response.content_type, response.stream = status, ctype, True
    entry.response = response
    # what the client was told: not an SSE event the stream ended inside (no client dispatches it)
    texts = [
        e.text if e.text is not None else str(e.value) for e in events if e.kind is SentKind.DATA and not e.unterminated
    ]
    entry.answer = classify.answer_of(entry, status, b"", texts)


#: The A2A-Version header's name as it arrives (ASGI headers are lower-case bytes).
VERSION_HEADER = HEADER.lower().encode("latin-1")


def _header(raw: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in raw if k == name), None)


async def _disconnect(receive: Any) -> None:
    """Returns once the client has gone away (the request's body was read whole before)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _raw(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def _send_all(send: Any, status: int, headers: list[tuple[str, str]], body: bytes, entry: Entry) -> None:
    try:
        await send({"type": "http.response.start", "status": status, "headers": _raw(headers)})
        await send({"type": "http.response.body", "body": body})
    except OSError:
        entry.disconnected = True


async def _own(send: Any, entry: Entry, status: int, text: str) -> None:
    """What the proxy answers itself (the upstream did not): plain text, marked as the proxy's own."""
    body = text.encode("utf-8")
    headers = [("content-type", "text/plain; charset=utf-8"), (PROXY_HEADER, "own-answer")]
    headers.append(("content-length", str(len(body))))
    await _send_all(send, status, headers, body, entry)
    entry.response = entry.response or Response()
    entry.response.status = status
    entry.response.refused = text
