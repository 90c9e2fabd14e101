"""STREAMING: when the card declares streaming, one SendStreamingMessage read to the end the server gives it (the
events judged as the proxy judges a client's streams: judging.StreamReading)."""

from __future__ import annotations

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.common.model import CheckResult
from a2a_lab.harness.server_judging.probe import judging
from a2a_lab.harness.server_judging.probe.context import InterfaceProbe, describe, needs_credentials, not_judged
from a2a_lab.harness.server_judging.probe.definitions import STREAMING
from a2a_lab.protocol import cards
from a2a_lab.protocol.operations import Operation


def streaming(ctx: InterfaceProbe) -> CheckResult:
    c = STREAMING
    if not cards.capability(ctx.card, cards.STREAMING):
        return c.skipped("the card does not declare capabilities.streaming")
    what = describe(Operation.SEND_STREAMING_MESSAGE, ctx.version, ctx.transport)
    expected = (
        f"{'a gRPC server stream' if ctx.grpc else 'a text/event-stream'}: a task (or one message) first, events in "
        "the interface's form, closed after a terminal state"
    )
    reading = judging.StreamReading(ctx.transport.form)
    try:
        for body in ctx.stream(c.id, Operation.SEND_STREAMING_MESSAGE, ctx.send_params(), reading.problems):
            reading.feed(body)
    except ClientFailure as failure:
        if needs_credentials(failure):
            return not_judged(c, failure)
        if reading.done_at is not None and failure.type == "transport":
            return _quoted(
                ctx,
                c.broken(
                    f"{what}: the stream stayed open after it ended ({reading.state})",
                    expected,
                    failure.message,
                    ctx.evidence(c.id),
                ),
            )
        return _quoted(
            ctx,
            c.broken(
                f"{what} failed after {len(reading.kinds)} event(s): {failure.message}",
                expected,
                failure.message,
                ctx.evidence(c.id),
            ),
        )
    ending = reading.ending_problems()
    if reading.fold.answer is None or reading.done_at is None:
        actual = "an empty stream" if reading.fold.answer is None else reading.trail
        return _quoted(ctx, c.broken(f"{what}: {ending[0]}", expected, actual, ctx.evidence(c.id)))
    problems = reading.problems + ending
    if problems:
        shown = judging.shown(problems)
        return _quoted(
            ctx, c.broken(f"{what}: {problems[0]}", expected, f"{reading.trail}: {shown}", ctx.evidence(c.id))
        )
    return c.passed(
        f"{what}: {len(reading.kinds)} event(s) ({reading.trail}), closed after {reading.state}", ctx.evidence(c.id)
    )


def _quoted(ctx: InterfaceProbe, result: CheckResult) -> CheckResult:
    """A finding quoting the stream's bytes as the server sent them (as far as they were read)."""
    answered = ctx.answered(STREAMING.id)
    if answered:
        result.quote = answered[-1].quote()
    return result
