"""CARD-VALID, SEND-MESSAGE, RESPONSE-SHAPE and TASK-FOLLOW-UP: is the card usable, and does the advertised method
answer with a message or a task of the right shape that can be fetched again."""

from __future__ import annotations

from typing import Any

from a2a_lab.contract.journal_record import ResultKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure, invites_fallback
from a2a_lab.harness.clients.refclient.reading import read_send_result, read_task
from a2a_lab.harness.common.model import CheckResult
from a2a_lab.harness.server_judging.probe import judging, refusals
from a2a_lab.harness.server_judging.probe.context import (
    DIAGNOSIS,
    InterfaceProbe,
    describe,
    needs_credentials,
    not_judged,
)
from a2a_lab.harness.server_judging.probe.definitions import CARD_VALID, RESPONSE_SHAPE, SEND_MESSAGE, TASK_FOLLOW_UP
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

_shown = judging.shown


# ------------------------------------------------------------------------------------------ CARD-VALID


def card_valid(findings: list[dict[str, Any]], discovery_warnings: list[str], evidence: list[int]) -> CheckResult:
    """`a2a-lab card check`'s findings (and what discovery noticed) as one check."""
    c = CARD_VALID
    errors = [f"{f['path'] or '(card)'}: {f['message']}" for f in findings if f["level"] == "error"]
    warnings = [
        f"{f['path'] or '(card)'}: {f['message']}" for f in findings if f["level"] == "warning"
    ] + discovery_warnings
    expected = "a card without lint errors or warnings (`a2a-lab card check`)"
    if errors:
        return c.broken(f"{len(errors)} lint error(s): {_shown(errors)}", expected, _shown(errors + warnings), evidence)
    if warnings:
        return c.lenient(f"{len(warnings)} warning(s): {_shown(warnings)}", expected, _shown(warnings), evidence)
    infos = sum(1 for f in findings if f["level"] == "info")
    return c.passed("no lint errors or warnings" + (f" ({infos} note(s))" if infos else ""), evidence)


# ---------------------------------------------------------------------------------------- SEND-MESSAGE


def send_message(ctx: InterfaceProbe) -> CheckResult:
    c = SEND_MESSAGE
    what = describe(Operation.SEND_MESSAGE, ctx.version, ctx.transport)
    label = f"{what} ({ctx.iface.binding} {ctx.version.value} at {ctx.iface.url})"
    expected = f"a Message or a Task answering {what}"
    try:
        body = ctx.call(c.id, Operation.SEND_MESSAGE, ctx.send_params(), [])
    except ClientFailure as failure:
        if needs_credentials(failure):
            return not_judged(c, failure)
        return _send_failed(ctx, failure, label, expected)
    ctx.send_body = body
    try:
        ctx.answer = read_send_result(body, ctx.transport.form, [])
    except ClientFailure as failure:
        return c.broken(
            f"{label} answered something that is neither a message nor a task",
            expected,
            failure.message,
            ctx.evidence(c.id),
        )
    task = ctx.answer.task
    state = f" in {task.state.short}" if task is not None and task.state is not None else ""
    return c.passed(f"{what} answered a {ctx.answer.kind.value}{state}", ctx.evidence(c.id))


def _send_failed(ctx: InterfaceProbe, failure: ClientFailure, label: str, expected: str) -> CheckResult:
    message = refusals.send_refused(failure, ctx.version, label)
    if invites_fallback(failure):
        message += _diagnose(ctx)
    evidence = ctx.evidence(SEND_MESSAGE.id) + ctx.evidence(DIAGNOSIS)
    return SEND_MESSAGE.broken(message, expected, failure.message, evidence)


def _diagnose(ctx: InterfaceProbe) -> str:
    """One SendMessage in each other version at the same URL: what does the wire really speak? (Not for gRPC:
    a2a-lab speaks it in 1.0 only.)"""
    if ctx.grpc:
        return ""
    for other in Version:
        if other is ctx.version:
            continue
        transport = ctx.other(other)
        try:
            answer = read_send_result(
                ctx.call(DIAGNOSIS, Operation.SEND_MESSAGE, ctx.send_params(), [], transport), transport.form, []
            )
        except ClientFailure:
            continue
        return (
            f"; the same URL answers the A2A {other.value} {describe(Operation.SEND_MESSAGE, other, transport)} "
            f"with a {answer.kind.value}: "
            f"the card claims {ctx.version.value}, the wire speaks {other.value}"
        )
    return ""


# -------------------------------------------------------------------------------------- RESPONSE-SHAPE


def response_shape(ctx: InterfaceProbe) -> CheckResult:
    """The SendMessage result and the follow-up's GetTask answers, judged as the proxy judges a client's."""
    form = ctx.transport.form
    if ctx.answer is None:
        return RESPONSE_SHAPE.skipped("SendMessage gave no message or task to judge")
    sends, gets = ctx.answered(SEND_MESSAGE.id), ctx.answered(TASK_FOLLOW_UP.id)
    judged = [judging.shape_of(ctx.send_body, Operation.SEND_MESSAGE, form, "", sends[-1] if sends else None)]
    for i, body in enumerate(ctx.get_bodies):
        judged.append(judging.shape_of(body, Operation.GET_TASK, form, f"GetTask answer #{i + 1}", _nth(gets, i)))
    return judging.response_shape(judged, form, ctx.evidence(SEND_MESSAGE.id) + ctx.evidence(TASK_FOLLOW_UP.id))


def _nth(answers: list[judging.Answered], i: int) -> judging.Answered | None:
    return answers[i] if i < len(answers) else None


# -------------------------------------------------------------------------------------- TASK-FOLLOW-UP


def task_follow_up(ctx: InterfaceProbe) -> CheckResult:
    c, form = TASK_FOLLOW_UP, ctx.transport.form
    if ctx.answer is None:
        return c.skipped("SendMessage gave no task to fetch")
    if ctx.answer.kind is ResultKind.MESSAGE or ctx.answer.task is None:
        return c.skipped(
            "SendMessage answered a message: there is no task to fetch (a message is the whole answer, §3.1.1)"
        )
    first = ctx.answer.task
    if not first.id:
        return c.broken(
            "the task SendMessage returned has no id", "a task with an id", "no id", ctx.evidence(SEND_MESSAGE.id)
        )
    what = describe(Operation.GET_TASK, ctx.version, ctx.transport)
    trail = [first.state.short if first.state else repr(first.raw_state)]
    delays = ctx.options.delays()
    for attempt in range(max(ctx.options.follow, 1)):
        if attempt:
            ctx.options.sleep(delays[attempt - 1])
        try:
            body = ctx.call(c.id, Operation.GET_TASK, {"id": first.id}, [])
            ctx.get_bodies.append(body)
            view = read_task(body, form, "GetTask result", [])
        except ClientFailure as failure:
            if needs_credentials(failure):
                return not_judged(c, failure)
            return c.broken(
                f"{what} for task {first.id}, which SendMessage just returned, failed: {failure.message}",
                f"task {first.id}",
                failure.message,
                ctx.evidence(c.id),
            )
        wrong = judging.follow_up_problem(first.id, first.state, view.id, view.state, view.raw_state)
        if wrong is not None:
            message, expected, actual = wrong
            result = c.broken(message.replace("GetTask", what, 1), expected, actual, ctx.evidence(c.id))
            answered = ctx.answered(c.id)
            if answered:
                result.quote = answered[-1].quote()
            return result
        trail.append(view.state.short if view.state else repr(view.raw_state))
        if view.stops:
            break
    states = " -> ".join(trail)
    note = "" if view.stops else f" (still not finished after {len(trail) - 1} {what} calls; not judged)"
    return c.passed(f"{what} returned task {first.id}: {states}{note}", ctx.evidence(c.id))
