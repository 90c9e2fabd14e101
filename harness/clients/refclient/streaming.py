"""Reading one SSE stream (SendStreamingMessage or SubscribeToTask) into an answer, noting how it ended."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.handshake import ResultKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.reading import Answer, StreamFold
from a2a_lab.harness.clients.refclient.transport import A2ATransport
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState


@dataclass
class StreamEnd:
    """What a stream gave: the folded answer, and the failure that broke it after a task was known (if any)."""

    answer: Answer
    broken: ClientFailure | None = None

    @property
    def stopped(self) -> bool:
        """A message, or a task in a terminal or interrupted state: nothing more to wait for."""
        task = self.answer.task
        return self.answer.kind is ResultKind.MESSAGE or (task is not None and task.stops)


def consume(
    transport: A2ATransport,
    op: Operation,
    params: dict[str, Any],
    warnings: list[str],
    resumed_from: TaskState | None = None,
) -> StreamEnd:
    """Read events until a message, a stop state or a 0.3 `final`, or until the stream ends or breaks.

    A stream that breaks before any task id is known raises (there is nothing to follow up); one that
    breaks later returns the task so far with the failure in `broken`. A stream that answers a message to
    an interrupted task (`resumed_from`) may open with a snapshot still in that state: that is not the end.
    """
    fold = StreamFold(transport.form)
    events = transport.stream(op, params, warnings)
    broken: ClientFailure | None = None
    try:
        for body in events:
            fold.apply(body, warnings)
            if fold.done and fold.events == 1 and resumed_from is not None and _still(fold, resumed_from):
                fold.done = False
                continue
            if fold.done:
                break
    except ClientFailure as failure:
        if fold.answer is None or fold.answer.task is None or fold.answer.task.id is None:
            raise
        broken = failure
    finally:
        events.close()
    if fold.answer is None:
        raise ClientFailure(
            "invalid_response",
            f"the stream from {transport.iface.url} closed without any event",
            {"operation": op.value, "binding": transport.binding.value},
        )
    end = StreamEnd(fold.answer, broken)
    if broken is None and not fold.done and not end.stopped:
        task = fold.answer.task
        state = task.state.short if task and task.state else "an unknown state"
        warnings.append(f"the stream closed at {state}, before a terminal or interrupted state ({op.value})")
    return end


def _still(fold: StreamFold, state: TaskState) -> bool:
    task = fold.answer.task if fold.answer is not None else None
    return task is not None and task.state is state
