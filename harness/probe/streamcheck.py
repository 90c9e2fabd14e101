"""STREAMING: when the card declares streaming, one SendStreamingMessage read to the end the server gives it."""

from __future__ import annotations

from a2a_lab.contract.journal_record import ResultKind
from a2a_lab.protocol import cards, shapes
from a2a_lab.protocol.operations import Operation

from ..model import CheckResult
from ..refclient.failures import ClientFailure
from ..refclient.reading import StreamFold, classify
from .context import InterfaceProbe, describe, needs_credentials, not_judged
from .definitions import STREAMING

MAX_SHOWN = 5


def streaming(ctx: InterfaceProbe) -> CheckResult:
    c, form = STREAMING, ctx.transport.form
    if not cards.capability(ctx.card, cards.STREAMING):
        return c.skipped("the card does not declare capabilities.streaming")
    what = describe(Operation.SEND_STREAMING_MESSAGE, ctx.version, ctx.transport)
    expected = (
        f"{'a gRPC server stream' if ctx.grpc else 'a text/event-stream'}: a task (or one message) first, events in "
        "the interface's form, closed after a terminal state"
    )
    fold = StreamFold(form)
    problems: list[str] = []
    kinds: list[str] = []
    done_at: int | None = None
    after: list[str] = []
    try:
        for body in ctx.stream(c.id, Operation.SEND_STREAMING_MESSAGE, ctx.send_params(), problems):
            kind = shapes.stream_event_kind(body, form) or "?"
            kinds.append(kind)
            if done_at is not None:
                after.append(kind)
                continue
            fold.apply(body, problems)
            if kind != "?":
                _, inner, _ = classify(body, form, shapes.EVENT_KINDS_V1, "", [])
                problems += [str(p) for p in shapes.kind_problems(inner, kind, form, f"event[{fold.events}]")]
            if fold.done:
                done_at = fold.events
    except ClientFailure as failure:
        if needs_credentials(failure):
            return not_judged(c, failure)
        if done_at is not None and failure.type == "transport":
            return c.broken(
                f"{what}: the stream stayed open after it ended ({_state(fold)})",
                expected,
                failure.message,
                ctx.evidence(c.id),
            )
        return c.broken(
            f"{what} failed after {len(kinds)} event(s): {failure.message}",
            expected,
            failure.message,
            ctx.evidence(c.id),
        )
    trail = " -> ".join(kinds) or "no event"
    if fold.answer is None:
        return c.broken(f"{what}: the stream closed without any event", expected, "an empty stream", ctx.evidence(c.id))
    if done_at is None:
        return c.broken(
            f"{what}: the stream closed at {_state(fold)}, before a terminal state", expected, trail, ctx.evidence(c.id)
        )
    snapshot = (
        after == ["task"] and fold.answer.kind is ResultKind.TASK
    )  # "MAY optionally resend a final Task snapshot" (§11.7)
    if after and not snapshot:
        problems.append(f"{len(after)} event(s) after the stream's end ({', '.join(after)})")
    if problems:
        shown = "; ".join(dict.fromkeys(problems[:MAX_SHOWN]))
        return c.broken(f"{what}: {problems[0]}", expected, f"{trail}: {shown}", ctx.evidence(c.id))
    return c.passed(f"{what}: {len(kinds)} event(s) ({trail}), closed after {_state(fold)}", ctx.evidence(c.id))


def _state(fold: StreamFold) -> str:
    answer = fold.answer
    if answer is None:
        return "no event"
    if answer.kind is ResultKind.MESSAGE:
        return "the message"
    task = answer.task
    return task.state.short if task is not None and task.state is not None else "an unknown state"
