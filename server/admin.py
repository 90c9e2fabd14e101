"""The admin API of a served scenario, under `/_lab/`: journal, reset, scenario facts.

Every request passes the server's guard first (guard.AdminGuard: its token, a Host it serves, no cross-site call).

The journal is exported streamed, a few entries at a time, encoded as they are sent, with the event loop free for
other requests between writes: a big journal costs neither a copy of itself nor a pause of the server. It pages with
`?after=SEQ&limit=N` (`since` is `after`'s older name): an export says the `next` cursor (also in the
X-A2A-Lab-Journal-Next header), null when no entry follows the last one given.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from a2a_lab.contract.journal import Journal, line
from a2a_lab.contract.journal_record import Entry
from a2a_lab.protocol.cards import WELL_KNOWN_PATH
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.states import TaskState

from . import answer, http
from .guard import AdminGuard
from .state import LabState

PREFIX = "/_lab"
#: A streamed export writes about this many bytes at a time; the event loop serves other requests between writes.
EXPORT_CHUNK_BYTES = 64 * 1024
NEXT_HEADER = "X-A2A-Lab-Journal-Next"
DROPPED_HEADER = "X-A2A-Lab-Journal-Dropped"
JSONL = "application/x-ndjson"


class _BadQuery(LabError, ValueError):
    pass


def _whole(query: dict[str, str], name: str, least: int = 0) -> int | None:
    """A whole number from the query (None when absent); _BadQuery naming what is wrong with it."""
    given = query.get(name)
    if given is None:
        return None
    if not given.isdigit() or int(given) < least:
        raise _BadQuery(f"?{name} must be a whole number >= {least}, not {given[:40]!r}")
    return int(given)


async def send_journal(
    journal: Journal, scope: Scope, receive: Receive, send: Send, query: dict[str, str], jsonl: bool = False
) -> None:
    """Export the journal, streamed: JSON (`{dropped, cap, cap_bytes, bytes, next, entries}`) or JSON lines (one
    entry a line; `next` and `dropped` in headers); `?after=SEQ&limit=N` pages it, 400 for a cursor that is not one."""
    try:
        after = _whole(query, "after")
        after = _whole(query, "since") if after is None else after
        limit = _whole(query, "limit", least=1)
    except _BadQuery as exc:
        await answer.send_body(scope, receive, send, None, 400, http.dumps({"error": str(exc)}), "application/json")
        return
    entries, following = journal.page(after or 0, limit)
    head = journal.summary()
    headers = {NEXT_HEADER: "" if following is None else str(following), DROPPED_HEADER: str(head["dropped"])}
    if jsonl:
        chunks = _chunks(entries, b"", b"\n", b"\n")
    else:
        opening = http.dumps({**head, "next": following})[:-1] + b',"entries":['
        chunks = _chunks(entries, opening, b",", b"]}")
    await StreamingResponse(chunks, media_type=JSONL if jsonl else "application/json", headers=headers)(
        scope, receive, send
    )


async def _chunks(entries: list[Entry], opening: bytes, between: bytes, closing: bytes) -> AsyncIterator[bytes]:
    """`opening`, the entries' JSON `between` one another, `closing` (JSON lines: `between` is the newline, and
    `closing` ends the last line), in writes of about EXPORT_CHUNK_BYTES; each entry is encoded when its turn comes."""
    parts, size = [opening], len(opening)
    for i, entry in enumerate(entries):
        text = line(entry)
        parts.append(text if i == 0 else between + text)
        size += len(text) + len(between)
        if size >= EXPORT_CHUNK_BYTES:
            yield b"".join(parts)
            parts, size = [], 0
            await asyncio.sleep(0)  # a write need not wait for anything: let other requests in
    if entries or opening:
        parts.append(closing)
    yield b"".join(parts)


def scenario_facts(state: LabState, base_url: str) -> dict[str, Any]:
    s = state.scenario
    return {
        "id": s.id,
        "title": s.title,
        "description": s.description,
        "spec": s.spec,
        "observed": s.observed,
        "seed": s.seed,
        "timeout": s.timeout,
        "spec_revision": s.spec_revision.value,
        "message": s.client.message,
        "action": s.client.action,
        "checks": list(s.checks),
        "expect": {
            "result": s.expect.result,
            # One state, or the list a race allows (as the scenario file gives it).
            "state": [st.value for st in s.expect.states] if len(s.expect.states) > 1 else _value(s.expect.state),
            "text_contains": s.expect.text_contains,
            "text": s.expect.text,
        },
        "card_url": f"{base_url}{WELL_KNOWN_PATH}",
        "base_url": base_url,
        #: What `{alt_base_url}` reads there: the same server on another origin (cards may put an interface on it).
        "alt_base_url": state.alt_base(base_url),
        "endpoints": [
            {"path": e.path, "binding": e.binding.value, "versions": [v.value for v in e.versions]} for e in s.endpoints
        ],
    }


async def handle(
    state: LabState,
    route_path: str,
    scope: Scope,
    receive: Receive,
    send: Send,
    base_url: str,
    guard: AdminGuard,
    reset: Callable[[], None],
) -> None:
    entry = None  # the admin API is not journaled
    refusal = guard.check(scope)
    if refusal is not None:
        await refusal.send(scope, receive, send)
        return
    sub = route_path[len(PREFIX) :]
    query = http.query_of(scope)
    if sub in ("/journal", "/journal.jsonl") and scope["method"] == "GET":
        await send_journal(state.journal, scope, receive, send, query, jsonl=sub.endswith(".jsonl"))
    elif sub == "/reset" and scope["method"] == "POST":
        reset()
        await answer.send_body(scope, receive, send, entry, 200, b'{"reset":true}', "application/json")
    elif sub == "/scenario" and scope["method"] == "GET":
        await answer.send_body(
            scope, receive, send, entry, 200, http.dumps(scenario_facts(state, base_url)), "application/json"
        )
    else:
        await answer.send_body(
            scope,
            receive,
            send,
            entry,
            404,
            http.dumps(
                {
                    "error": f"no admin route {scope['method']} {route_path}",
                    "routes": [
                        "GET /_lab/journal",
                        "GET /_lab/journal.jsonl",
                        "POST /_lab/reset",
                        "GET /_lab/scenario",
                    ],
                }
            ),
            "application/json",
        )


def _value(state: TaskState | None) -> str | None:
    return state.value if state is not None else None
