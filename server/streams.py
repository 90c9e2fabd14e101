"""Event streams for SendStreamingMessage and SubscribeToTask, with the scenario's deviations.

Yields canonical events plus two markers the endpoints render: `Comment` (an SSE comment line) and
`StreamError` (an error event, after which the stream closes).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from a2a_lab.contract.scenario import FirstEvent, StreamScript
from a2a_lab.protocol.errors import A2AError
from a2a_lab.protocol.states import by_value

from .engine import Event, TaskRecord

if TYPE_CHECKING:
    from .state import LabState


@dataclass(frozen=True)
class Comment:
    text: str


@dataclass(frozen=True)
class StreamError:
    error: A2AError


@dataclass(frozen=True)
class Drop:
    """Reset the connection here (the task itself goes on)."""


Item = Event | Comment | StreamError | Drop
_T = TypeVar("_T")


def _is_terminal_status(event: Event) -> bool:
    update = event.get("statusUpdate")
    if not update:
        return False
    return by_value(update["status"]["state"]).terminal


def _stops_here(rec: TaskRecord, script: StreamScript) -> bool:
    state = rec.state
    return state.terminal or (state.interrupted and script.close_at_interrupted)


class _Emitter:
    """Applies duplicate / error-after / omit-terminal to the events of one stream."""

    def __init__(self, script: StreamScript) -> None:
        self.script, self.count, self.done = script, 0, False
        #: Nothing to apply (the common case): every event goes out once, as it is.
        self.plain = not (
            script.duplicate_events
            or script.omit_terminal
            or script.error_after is not None
            or script.drop_after is not None
        )

    def out(self, event: Event) -> list[Item]:
        if self.plain:
            self.count += 1
            return [event]
        if self.done:
            return []
        if self.script.error_after == 0:  # "before any event": the error instead of the first one
            self.done = True
            return [StreamError(self.script.error)]
        if self.script.omit_terminal and _is_terminal_status(event):
            self.done = True
            return []
        items: list[Item] = [event, event] if self.script.duplicate_events else [event]
        self.count += 1
        if self.script.error_after is not None and self.count >= self.script.error_after:
            self.done = True
            items.append(StreamError(self.script.error))
        elif self.script.drop_after is not None and self.count >= self.script.drop_after:
            self.done = True
            items.append(Drop())
        return items


async def counted(state: LabState, items: AsyncIterator[_T]) -> AsyncIterator[_T]:
    """Count a stream as open from its first step to its end, however it ends."""
    state.open_streams += 1
    try:
        async for item in items:
            yield item
    finally:
        state.open_streams -= 1


async def single(event: Event) -> AsyncIterator[Item]:
    yield event


def _first(rec: TaskRecord, script: StreamScript, snapshot: dict[str, Any]) -> Event:
    if script.first_event is FirstEvent.STATUS:
        return {"statusUpdate": {"taskId": rec.id, "contextId": rec.task["contextId"], "status": rec.task["status"]}}
    return {"task": snapshot}


async def drive(state: LabState, rec: TaskRecord, script: StreamScript, resume: bool = False) -> AsyncIterator[Item]:
    """Stream a task this call created (or resumed): first a snapshot, then each step until a stop.

    A task that time moves on (`advance: {after_ms}`) moves by itself (see LabState.keep_moving); its stream
    follows its events as a subscriber does, so a dropped or closed stream never holds the task back."""
    engine, emit = state.engine, _Emitter(script)
    timed = rec.script.advance_after_ms is not None
    queue: asyncio.Queue[Event | None] | None = None
    if timed:
        queue = asyncio.Queue()
        rec.listeners.append(queue)
    try:
        for text in script.comments:
            yield Comment(text)
        for item in emit.out(_first(rec, script, engine.snapshot(rec))):
            yield item
        if queue is not None:
            if resume and not emit.done and not rec.at_last_step and not rec.state.terminal:
                engine.step(rec)  # the user's input moves an interrupted task on at once; time does the rest
                state.keep_moving(rec)
            async for item in _follow(state, rec, script, emit, queue, stopped=False, hold=False):
                yield item
        else:
            first_round = resume
            while not emit.done:
                if rec.at_last_step or (not first_round and _stops_here(rec, script)) or rec.state.terminal:
                    break
                first_round = False
                if script.interval_ms:
                    await asyncio.sleep(script.interval_ms / 1000)
                for event in engine.step(rec):
                    for item in emit.out(event):
                        yield item
        if script.final_snapshot and not emit.done:
            yield {"task": engine.snapshot(rec)}
    finally:
        if queue is not None:
            rec.listeners.remove(queue)


async def _follow(
    state: LabState,
    rec: TaskRecord,
    script: StreamScript,
    emit: _Emitter,
    queue: asyncio.Queue[Event | None],
    stopped: bool,
    hold: bool = True,
) -> AsyncIterator[Item]:
    """A task's events as they happen (time moves it: a tick when a step is due), until a stop or the emitter is done.
    `hold`: stay open on a task that nothing will move any more (a subscriber waits for a cancel); else close."""
    engine = state.engine
    stopped = stopped or (_stops_here(rec, script) and queue.empty())
    while not emit.done and not stopped:
        wait = engine.next_move_in(rec) if queue.empty() else None
        if wait is None and queue.empty() and not hold:
            break
        try:
            event = await asyncio.wait_for(queue.get(), timeout=wait) if wait is not None else await queue.get()
        except TimeoutError:
            engine.tick(rec)
            continue
        if event is None:
            break
        for item in emit.out(event):
            yield item
        update = event.get("statusUpdate")
        if update:
            state_now = by_value(update["status"]["state"])
            stopped = state_now.terminal or (state_now.interrupted and script.close_at_interrupted)


async def subscribe(state: LabState, rec: TaskRecord, script: StreamScript) -> AsyncIterator[Item]:
    """SubscribeToTask: a snapshot first (§3.1.6), then the task's events as they happen, until a stop."""
    engine, emit = state.engine, _Emitter(script)
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    rec.listeners.append(queue)
    try:
        for text in script.comments:
            yield Comment(text)
        for item in emit.out({"task": engine.snapshot(rec)}):
            yield item
        # §3.1.6: a subscription ends when the task becomes terminal; it outlives an interrupted state, so a
        # subscriber sees the answer to INPUT_REQUIRED through to the end.
        until_terminal = replace(script, close_at_interrupted=False)
        async for item in _follow(state, rec, until_terminal, emit, queue, stopped=rec.state.terminal, hold=True):
            yield item
    finally:
        rec.listeners.remove(queue)
