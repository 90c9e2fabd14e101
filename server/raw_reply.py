"""Raw replies that use the request: `{request_id}`, `{task_id}` and `{context_id}` filled in from it
(`reply.raw.fill`), and raw event streams, sent event by event after each one's delay (`reply.raw.events`).

The JSON-RPC and HTTP+JSON endpoints answer a raw reply through here; the bytes are otherwise the scenario's own.
"""

from __future__ import annotations

import asyncio
from typing import Any

from a2a_lab.contract.journal_record import Response, SentEvent, SentKind
from a2a_lab.contract.scenario import RawEvent, Reply
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.bindings import NDJSON

from .intake import Exchange
from .state import LabState
from .stream_edits import CONTEXT_ID, REQUEST_ID, TASK_ID


def is_ndjson(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() == NDJSON


def request_values(req_id: Any, params: dict[str, Any]) -> dict[str, str]:
    """What a raw reply's placeholders stand for: the JSON-RPC id (as JSON; `null` on HTTP+JSON), the task the
    request names (a message's `taskId`, a task operation's `id`) and the message's `contextId` (empty when none)."""
    given = params.get("message")
    message: dict[str, Any] = given if isinstance(given, dict) else {}
    task = message.get("taskId") or params.get("id") or ""
    return {
        REQUEST_ID: jsontext.dumps(req_id).decode(),
        TASK_ID: str(task),
        CONTEXT_ID: str(message.get("contextId") or ""),
    }


def filled(text: str, values: dict[str, str]) -> str:
    """`text` with each placeholder written as the request's value for it."""
    for name, value in values.items():
        text = text.replace(name, value)
    return text


def body(reply: Reply, values: dict[str, str]) -> bytes:
    """The raw body, placeholders filled in when the reply asks for it."""
    if not reply.raw_fill:
        return reply.raw_body
    return filled(reply.raw_body.decode("utf-8", "surrogateescape"), values).encode("utf-8", "surrogateescape")


def _event_bytes(event: RawEvent, text: str, sep: str, ndjson: bool) -> bytes:
    """SSE: an `event:` line when named, a `data:` line per line of text, a blank line; NDJSON: text, newline."""
    if ndjson:
        return (text + "\n").encode()
    lines = ([f"event: {event.event}"] if event.event is not None else []) + [f"data: {t}" for t in text.split("\n")]
    return ("".join(line + sep for line in lines) + sep).encode()


async def send_events(state: LabState, ex: Exchange, reply: Reply, values: dict[str, str]) -> None:
    """A raw event stream: the status and headers, then each event after its delay, journaled as it goes out."""
    assert reply.raw_status is not None
    response = ex.entry.response = Response(reply.raw_status, reply.raw_content_type, stream=True)
    sent: list[SentEvent] = []
    ex.entry.events = sent
    headers = [(b"content-type", reply.raw_content_type.encode("latin-1")), (b"cache-control", b"no-store")]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in [*reply.headers, *ex.style.headers]]
    ndjson = is_ndjson(reply.raw_content_type)
    closed = "disconnected"
    try:
        if reply.delay_ms:
            await asyncio.sleep(reply.delay_ms / 1000)
        await ex.send({"type": "http.response.start", "status": reply.raw_status, "headers": headers})
        for event in reply.raw_events:
            if event.delay_ms:
                await asyncio.sleep(event.delay_ms / 1000)
            text = filled(event.text, values) if reply.raw_fill else event.text
            sent.append(SentEvent(state.journal.offset(), SentKind.EXTRA, text, event=event.event))
            ex.entry.grow(len(text))
            chunk = _event_bytes(event, text, ex.style.sse_separator, ndjson)
            await ex.send({"type": "http.response.body", "body": chunk, "more_body": True})
        await ex.send({"type": "http.response.body", "body": b"", "more_body": False})
        closed = "complete"
    except OSError:
        ex.entry.disconnected = True
    finally:
        response.closed = closed
