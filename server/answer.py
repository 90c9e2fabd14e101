"""Sending answers: plain bodies (with delays, extra headers and faults) and SSE streams, journaled."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from a2a_lab.contract import edits
from a2a_lab.contract.journal import EVENT_OVERHEAD, Journal
from a2a_lab.contract.journal_record import Entry, Response, SentEvent, SentKind
from a2a_lab.contract.redaction import DEFAULT
from a2a_lab.contract.scenario import CardPath, Limits, Reply, StreamFraming, not_found_body
from a2a_lab.contract.style import Style
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.bindings import EVENT_STREAM, JSON, NDJSON
from a2a_lab.protocol.errors import A2AError

from . import faults, http
from .engine import Event
from .stream_edits import Edited, Extra, Reshaped
from .streams import Comment, Drop, StreamError

#: The comment a stream closed for idleness ends with (then the reason).
IDLE_COMMENT = "a2a-lab: closing this stream"


async def send_body(
    scope: Scope,
    receive: Receive,
    send: Send,
    entry: Entry | None,
    status: int,
    body: bytes,
    content_type: str,
    reply: Reply | None = None,
    extra: list[tuple[str, str]] | None = None,
) -> None:
    headers = [(b"content-type", content_type.encode("latin-1")), (b"content-length", str(len(body)).encode())]
    if extra:
        headers += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in extra]
    if reply is not None and reply.headers:
        headers += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in reply.headers]
    response = Response.sent(status, content_type, body, entry.redaction if entry is not None else DEFAULT)
    if entry is not None:
        entry.response = response
        entry.grow(len(response.raw_body or b""))
    if reply is not None and reply.delay_ms:
        response.delay_ms = reply.delay_ms
        await asyncio.sleep(reply.delay_ms / 1000)
    fault = reply.fault if reply is not None else None
    if fault is None:  # the answer as it is, here (faults.deliver sends the faulty ones)
        try:
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        except (ConnectionError, OSError):
            if entry is not None:
                entry.disconnected = True
            raise
        return
    response.fault = fault.kind
    began = time.monotonic()
    try:
        outcome = await faults.deliver(scope, receive, send, status, headers, body, fault)
    except (ConnectionError, OSError):
        if entry is not None:
            entry.disconnected = True
        raise
    if outcome != "sent":
        response.fault_outcome = outcome
    if outcome == "stalled":
        response.held_ms = round((time.monotonic() - began) * 1000, 1)


async def send_page(
    scope: Scope, receive: Receive, send: Send, entry: Entry | None, page: CardPath, style: Style
) -> None:
    """A framework's own page (`not_found`) for a request nothing routes: `{method}` and `{path}` in its body are the
    request's; it carries the page's headers and the style's."""
    body = not_found_body(page, scope["method"], scope["path"])
    extra = [*page.headers, *style.headers]
    await send_body(scope, receive, send, entry, page.status, body, page.content_type, None, extra)


async def send_stream(
    scope: Scope,
    receive: Receive,
    send: Send,
    entry: Entry,
    journal: Journal,
    items: AsyncIterator[Edited],
    render: Callable[[Event], Any],
    render_error: Callable[[A2AError], tuple[Any, str | None]],
    reply: Reply,
    limits: Limits,
    style: Style,
    python_json: bool = False,
    render_extra: Callable[[Extra], str] | None = None,
) -> None:
    """An SSE stream (sse-starlette). Each `data:` line is recorded in the journal as it is sent. `python_json`: each
    event's JSON as Python's json.dumps writes it by default (`, ` and `: ` separators, non-ASCII escaped), as
    servers built on the standard library send theirs.

    A stream that has nothing to send for limits.stream_idle_seconds is closed (journaled `closed: idle`), after a
    comment saying why: an idle subscriber holds one of limits.streams only that long. Keep-alive comments go out
    every limits.stream_ping_seconds (or the reply's `stream.ping_ms`), so a client waiting for a slow task's next
    event sees its connection alive. Events the scenario writes itself (`Extra`) go out as `render_extra` writes them;
    with `stream.unterminated` each event's closing blank line is sent only when something follows it, so the last
    one has none before EOF."""
    extra_text = render_extra or default_extra_text
    if reply.stream.framing in (StreamFraming.NDJSON, StreamFraming.JSON_ARRAY):
        await _send_ndjson(scope, receive, send, entry, items, render, render_error, reply, extra_text)
        return
    indent = 2 if reply.stream.framing is StreamFraming.SSE_MULTILINE else None
    text_of: Callable[[Any], str] = (
        (lambda value: json.dumps(value)) if python_json else (lambda value: _text(value, indent))
    )
    events: list[SentEvent] = []
    journaled = entry.response = Response(200, EVENT_STREAM, stream=True)
    entry.events = events
    sep = style.sse_separator
    stream = _SseStream(
        scope=scope,
        entry=entry,
        journal=journal,
        journaled=journaled,
        events=events,
        items=items,
        render=render,
        render_error=render_error,
        extra_text=extra_text,
        text_of=text_of,
        python_json=python_json,
        delay_ms=reply.delay_ms,
        idle=limits.stream_idle_seconds,
        sep=sep,
        framed=_Unterminated(sep) if reply.stream.unterminated else None,
    )
    ping = reply.stream.ping_ms / 1000 if reply.stream.ping_ms else limits.stream_ping_seconds
    headers = {**style.stream_headers(), **{k: v for k, v in reply.headers}}
    response = EventSourceResponse(stream.generate(), ping=ping, headers=headers or None, sep=sep)
    await response(scope, receive, send)


@dataclass
class _SseStream:
    """One SSE stream as send_stream sends it: the items it takes, how each is written, and the journal entry each
    event sent is recorded in (`events`, and how the stream closed in `journaled`)."""

    scope: Scope
    entry: Entry
    journal: Journal
    journaled: Response
    events: list[SentEvent]
    items: AsyncIterator[Edited]
    render: Callable[[Event], Any]
    render_error: Callable[[A2AError], tuple[Any, str | None]]
    extra_text: Callable[[Extra], str]
    text_of: Callable[[Any], str]
    python_json: bool
    delay_ms: int
    idle: float
    sep: str
    framed: _Unterminated | None

    def out(self, event: ServerSentEvent) -> ServerSentEvent | bytes:
        """An event as it goes out: as it is, or framed as `stream.unterminated` frames it."""
        return self.framed.frame(event) if self.framed is not None else event

    async def generate(self) -> AsyncIterator[ServerSentEvent | bytes]:
        """The events as sent, each journaled as it goes; at the end, the items' own cleanup is run and the journal
        says how the stream closed (complete, idle, dropped or disconnected)."""
        closed = "disconnected"
        try:
            if self.delay_ms:
                await asyncio.sleep(self.delay_ms / 1000)
            while True:
                try:  # only the wait for an item is timed (never a write to the client), and only if it waits
                    item = await http.await_by(anext(self.items), None, self.idle)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    closed = "idle"
                    text = f"{IDLE_COMMENT} after {self.idle:g} s without an event (limits.stream_idle_seconds)"
                    yield self.out(self._comment(text))
                    return
                if type(item) is dict:  # one of the task's events (the common case)
                    # the text sent, not live objects that change later
                    yield self.out(self._data(SentKind.DATA, self.text_of(self.render(item))))
                    continue
                if isinstance(item, Drop):
                    self.events.append(SentEvent(self.journal.offset(), SentKind.DROPPED))
                    closed = "dropped"
                    faults.abort_connection(self.scope)
                    return
                yield self.out(self._scenario_item(item))
                if isinstance(item, StreamError):
                    break
            closed = "complete"
        finally:
            self.journaled.closed = closed
            closer = getattr(self.items, "aclose", None)
            if closer is not None:
                await closer()  # run the stream's own cleanup now, not at garbage collection

    def _scenario_item(self, item: Event | Comment | Extra | Reshaped | StreamError) -> ServerSentEvent:
        """What the scenario adds to the task's events (a comment, an event of its own, an edited event, an error
        event), journaled: the event to send."""
        if isinstance(item, Comment):
            return self._comment(item.text)
        if isinstance(item, Extra):
            return self._data(SentKind.EXTRA, self.extra_text(item), item.event)
        if isinstance(item, Reshaped):  # a generated event, edited as sent: journaled as sent
            return self._data(SentKind.DATA, self.text_of(edits.apply(self.render(item.event), item.edits)))
        if isinstance(item, StreamError):
            data, name = self.render_error(item.error)
            self.events.append(SentEvent(self.journal.offset(), SentKind.ERROR, value=data, event=name))
            text = json.dumps(data) if self.python_json else jsontext.dumps(data).decode()
            return ServerSentEvent(data=text, event=name, sep=self.sep)
        return self._data(SentKind.DATA, self.text_of(self.render(item)))

    def _comment(self, text: str) -> ServerSentEvent:
        """A comment, journaled."""
        self.events.append(SentEvent(self.journal.offset(), SentKind.COMMENT, text))
        return ServerSentEvent(comment=text, sep=self.sep)

    def _data(self, kind: SentKind, text: str, event: str | None = None) -> ServerSentEvent:
        """An event's `data:` (named `event`, if given), journaled and counted in the entry's size."""
        self.events.append(SentEvent(self.journal.offset(), kind, text, event=event))
        self.entry.grow(EVENT_OVERHEAD + len(text))
        return ServerSentEvent(data=text, event=event, sep=self.sep)


class _Unterminated:
    """SSE framing that sends each event's closing blank line only when something follows (`stream.unterminated`):
    the same bytes as ever, but the last event ends at EOF without one."""

    def __init__(self, sep: str) -> None:
        self.sep, self.pending = sep.encode(), b""

    def frame(self, event: ServerSentEvent) -> bytes:
        encoded = event.encode()
        if encoded.endswith(self.sep):
            encoded = encoded[: -len(self.sep)]
        data, self.pending = self.pending + encoded, self.sep
        return data


def default_extra_text(extra: Extra) -> str:
    """An inserted event's data: its exact text, or its JSON (compact) as written."""
    return extra.text if extra.text is not None else jsontext.dumps(extra.json).decode()


def _text(value: Any, indent: int | None) -> str:
    """An event's JSON text: compact, or pretty-printed over several lines (sent as several `data:` lines)."""
    return jsontext.dumps(value).decode() if indent is None else json.dumps(value, indent=indent, ensure_ascii=False)


async def _send_ndjson(
    scope: Scope,
    receive: Receive,
    send: Send,
    entry: Entry,
    items: AsyncIterator[Edited],
    render: Callable[[Event], Any],
    render_error: Callable[[A2AError], tuple[Any, str | None]],
    reply: Reply,
    extra_text: Callable[[Extra], str],
) -> None:
    """The stream's events as newline-delimited JSON instead of SSE (a quirk): one JSON text per line (`json-array`:
    one JSON array of them, as application/json), sent as one body once the stream ends (comments have no such form;
    a drop or error ends the lines; an event the scenario writes is its line; `unterminated`: no newline after the
    last line)."""
    lines: list[bytes] = []
    try:
        async for item in items:
            if isinstance(item, Comment):
                continue
            if isinstance(item, Extra):
                lines.append(extra_text(item).encode())
                continue
            if isinstance(item, Reshaped):
                lines.append(jsontext.dumps(edits.apply(render(item.event), item.edits)))
                continue
            if isinstance(item, Drop):
                break
            if isinstance(item, StreamError):
                lines.append(jsontext.dumps(render_error(item.error)[0]))
                break
            lines.append(jsontext.dumps(render(item)))
    finally:
        closer = getattr(items, "aclose", None)
        if closer is not None:
            await closer()
    if reply.stream.framing is StreamFraming.JSON_ARRAY:  # the events as one JSON array, a plain JSON answer
        await send_body(scope, receive, send, entry, 200, b"[" + b",".join(lines) + b"]", JSON, reply)
        return
    body = b"".join(line + b"\n" for line in lines)
    if reply.stream.unterminated:
        body = body.removesuffix(b"\n")
    await send_body(scope, receive, send, entry, 200, body, NDJSON, reply)
