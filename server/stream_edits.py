"""Per-event edits of a generated stream (`reply.stream.events`): insert, replace, drop or delay the Nth event, insert
after the last, and stay open after it (`reply.stream.hold_open`).

`edited` wraps the items `streams.drive` / `streams.subscribe` / `streams.single` yield. It counts the events they
generate (after `duplicate_events`, `omit_terminal` and the rest have had their say), and yields `Extra` items for the
events the scenario writes itself: the senders put them on the wire in their framing (server/answer.py) and journal
them as `extra`. A stream that an error or a drop ended gets nothing more.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.edits import Edit
from a2a_lab.contract.placeholders import fill
from a2a_lab.contract.scenario import AT_END, EventEdit, ExtraEvent, StreamScript

from .streams import Drop, Item, StreamError

TASK_ID = "{task_id}"
CONTEXT_ID = "{context_id}"
#: In an inserted event's `text`: the request's JSON-RPC id, as JSON (filled in by the JSON-RPC endpoint).
REQUEST_ID = "{request_id}"
#: What a gRPC stream's journal says where an inserted or replacing event would go (it has no proto frame).
NOT_SENT_ON_GRPC = "a2a-lab: an event the scenario wrote is not sent on gRPC (proto frames only)"
#: What a gRPC stream's journal says where an event's `edit` would apply (a proto frame has no JSON to edit).
NOT_EDITED_ON_GRPC = "a2a-lab: an event's edits are not applied on gRPC (proto frames only): sent as generated"


@dataclass(frozen=True)
class Reshaped:
    """A generated event that goes out with structured edits applied to it as sent (`events[].edit`)."""

    event: dict[str, Any]
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Extra:
    """An event the scenario wrote, with the stream's task and context ids filled in."""

    json: Any
    text: str | None
    event: str | None
    bare: bool


#: What an edited stream yields: the stream's items and the scenario's own events.
Edited = Item | Extra | Reshaped


def edited(items: AsyncIterator[Edited], script: StreamScript) -> AsyncIterator[Edited]:
    """The stream with the script's edits applied (the same iterator when it has none)."""
    if not script.events and not script.hold_open:
        return items
    return _edit(items, script)


def _learn(ids: dict[str, str], event: dict[str, Any]) -> None:
    """The task and context ids the stream is about, from the first event that names them."""
    for key, value in event.items():
        if not isinstance(value, dict):
            continue
        task = value.get("id") if key == "task" else value.get("taskId")
        if task and not ids[TASK_ID]:
            ids[TASK_ID] = str(task)
        if value.get("contextId") and not ids[CONTEXT_ID]:
            ids[CONTEXT_ID] = str(value["contextId"])


def _extra(spec: ExtraEvent, ids: dict[str, str]) -> Extra:
    value, text = spec.json, spec.text
    for name, replacement in ids.items():
        value = fill(value, name, replacement)
        text = text.replace(name, replacement) if text is not None else None
    return Extra(value, text, spec.event, spec.bare)


async def _at(edits: list[EventEdit], ids: dict[str, str]) -> AsyncIterator[Extra]:
    """What goes before an event (or the end): each edit's delay, then its insert."""
    for edit in edits:
        if edit.delay_ms:
            await asyncio.sleep(edit.delay_ms / 1000)
        if edit.insert is not None:
            yield _extra(edit.insert, ids)


async def _edit(items: AsyncIterator[Edited], script: StreamScript) -> AsyncIterator[Edited]:
    ids = {TASK_ID: "", CONTEXT_ID: ""}
    count, ended = 0, False
    try:
        async for item in items:
            if not isinstance(item, dict):  # a comment, an error, a drop (or an event already written)
                ended = ended or isinstance(item, (StreamError, Drop))
                yield item
                continue
            count += 1
            _learn(ids, item)
            here = [edit for edit in script.events if edit.applies(count)]
            async for extra in _at(here, ids):
                yield extra
            replaced = [edit.replace for edit in here if edit.replace is not None]
            for spec in replaced:
                yield _extra(spec, ids)
            if not replaced and not any(edit.drop for edit in here):
                reshape = tuple(change for edit in here for change in edit.edit)
                yield Reshaped(item, reshape) if reshape else item
        if ended:
            return
        async for extra in _at([edit for edit in script.events if edit.at == AT_END], ids):
            yield extra
        if script.hold_open:
            await asyncio.Event().wait()  # until the client goes (or the sender's idle limit closes the stream)
    finally:
        closer = getattr(items, "aclose", None)
        if closer is not None:
            await closer()
