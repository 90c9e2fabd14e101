"""The server's side of a proxied session, judged from what it answered the client with the probe's own judging
(harness/probe/judging.py: the same functions, ids, levels and citations as `a2a-lab probe`), on the journal's
entries read as `Answered`. What stays here is what only a passive judge does: choosing the answers a check can
read from the client's traffic, and a SKIPPED saying so where the client never created the check's situation (the
probe creates it: `a2a-lab probe`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind, ResultKind, SentKind
from a2a_lab.protocol import shapes
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.forms import push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from ..cardcheck import urlpolicy
from ..cardcheck.lint import lint
from ..model import CheckResult
from ..probe import judging
from ..probe.checks import card_valid
from ..probe.definitions import (
    AUTH_ENFORCED,
    CARD_VALID,
    PUSH_DELIVERY,
    RESPONSE_SHAPE,
    SEND_MESSAGE,
    STREAMING,
    TASK_FOLLOW_UP,
    UNKNOWN_TASK,
    VERSION_NEGOTIATION,
    ProbeCheck,
)
from ..probe.judging import Answered, clip, shown
from .push import Hooks
from .sse import malformed

_STREAMS = (Operation.SEND_STREAMING_MESSAGE, Operation.SUBSCRIBE_TO_TASK)


def _answered(entry: Entry) -> Answered:
    answered = judging.from_entry(entry)
    assert answered is not None  # `judge` passes only answered A2A calls
    return answered


def _found(result: CheckResult, entry: Entry, text: str | None = None) -> CheckResult:
    """A finding quoting the bytes the server answered."""
    result.quote = _answered(entry).quote(text)
    return result


def card_check(card: Any, raw: bytes | None, status: int | None, url: str, seqs: list[int]) -> CheckResult:
    """CARD-VALID on the card the upstream served (its own URLs), or what came instead of a card."""
    if card is None:
        said = f"HTTP {status}" if status is not None else "no answer"
        text = (raw or b"")[:600].decode("utf-8", "replace")
        result = CARD_VALID.broken(f"no agent card at {url} ({said})", "a JSON agent card", text or said, seqs)
        result.quote = text
        return result
    return card_valid([f.to_json() for f in lint(card, urlpolicy.default_for(url)[0])], [], seqs)


def send_message(calls: list[Entry], card: Any) -> CheckResult:
    c = SEND_MESSAGE
    sends = [e for e in calls if e.operation is Operation.SEND_MESSAGE]
    if not sends:
        return c.skipped("the client sent no SendMessage")
    for entry in sends:
        answer, text = entry.answer, _answered(entry).text
        where = f"#{entry.seq} SendMessage ({entry.endpoint.binding.value if entry.endpoint else '?'})"
        not_found = answer is not None and (
            answer.code == ErrorType.METHOD_NOT_FOUND.code
            or (answer.kind is ResultKind.ERROR and answer.status in (404, 405) and "reason" not in text)
        )
        if not_found:
            message = f"{where}: the card advertises the interface, but the server answers method not found"
        elif answer is None or answer.kind is ResultKind.RAW:
            message = f"{where} answered neither a message nor a task"
        else:
            continue
        return _found(c.broken(message, "a Message or a Task", clip(text, 160), [entry.seq]), entry)
    answered = [e for e in sends if e.answer is not None and e.answer.kind in (ResultKind.TASK, ResultKind.MESSAGE)]
    if not answered:
        return c.skipped(
            f"every SendMessage ({len(sends)}) was answered with an A2A error: the client's request decides"
        )
    return c.passed(f"{len(answered)} SendMessage answered with a message or a task", [e.seq for e in answered])


def response_shape(calls: list[Entry]) -> CheckResult:
    """Each SendMessage and GetTask result the client got (not a stream's), read as the probe reads its own."""
    judged: list[judging.Shaped] = []
    for entry in calls:
        if entry.operation not in (Operation.SEND_MESSAGE, Operation.GET_TASK) or entry.events:
            continue
        if entry.answer is None or entry.answer.kind not in (ResultKind.TASK, ResultKind.MESSAGE, ResultKind.RAW):
            continue
        a = _answered(entry)
        problems: list[str] = []
        ok, result = judging.rpc_result(a, problems)
        shaped = judging.shape_of(result, a.op, a.form, "GetTask result", a) if ok else judging.Shaped(a, "?", problems)
        shaped.problems = [f"#{a.seq}: {p}" for p in shaped.problems]
        judged.append(shaped)
    if not judged:
        return RESPONSE_SHAPE.skipped("no SendMessage or GetTask result was answered")
    first = next((s for s in judged if s.problems), judged[0]).answered
    assert first is not None
    return judging.response_shape(judged, first.form, [s.answered.seq for s in judged if s.answered is not None])


def task_follow_up(calls: list[Entry]) -> CheckResult:
    """Passive: a GetTask answer is the task asked for, and a task seen terminal stays so."""
    c = TASK_FOLLOW_UP
    terminal: dict[str, TaskState] = {}
    judged: list[int] = []
    for entry in calls:
        answer = entry.answer
        if answer is None or answer.kind is not ResultKind.TASK or answer.task_id is None:
            continue
        if entry.operation is Operation.GET_TASK:
            judged.append(entry.seq)
            asked = _asked_id(entry) or answer.task_id
            wrong = judging.follow_up_problem(asked, terminal.get(asked), answer.task_id, answer.state)
            if wrong is not None:
                return _found(c.broken(*wrong, [entry.seq]), entry)
        if answer.state is not None and answer.state.terminal:
            terminal.setdefault(answer.task_id, answer.state)
    if not judged:
        return c.skipped("the client fetched no task (GetTask)")
    return c.passed(f"{len(judged)} GetTask answer(s): the task asked for, terminal states kept", judged)


def _asked_id(entry: Entry) -> str | None:
    if entry.route is not None:
        return entry.route.params.get("id")
    try:
        value = json.loads(entry.body_text)
    except ValueError:
        return None
    params = value.get("params") if isinstance(value, dict) else None
    asked = params.get("id") if isinstance(params, dict) else None
    if isinstance(asked, str) and asked.startswith("tasks/"):
        asked = asked.removeprefix("tasks/")
    return asked if isinstance(asked, str) else None


def streaming(calls: list[Entry], card: Any) -> CheckResult:
    c = STREAMING
    streams = [e for e in calls if e.operation in _STREAMS and e.events is not None]
    if not streams:
        return c.skipped("the client opened no stream")
    for entry in streams:
        a = _answered(entry)
        reading = _read_stream(entry, a)
        ending = reading.ending_problems()
        if reading.done_at is None and (entry.disconnected or entry.operation is Operation.SUBSCRIBE_TO_TASK):
            ending = []  # the client left (or only listened in): the server was not asked for the end
        problems = reading.problems + ending
        if problems:
            datas = [e for e in (entry.events or []) if e.kind is SentKind.DATA]
            text = "\n".join(e.text or str(e.value) for e in datas[:5])
            return _found(
                c.broken(
                    f"#{entry.seq}: {problems[0]}",
                    "a well-formed stream that ends",
                    f"{reading.trail}: {shown(problems)}",
                    [entry.seq],
                ),
                entry,
                text,
            )
    return c.passed(f"{len(streams)} stream(s) well-formed", [e.seq for e in streams])


def _read_stream(entry: Entry, a: Answered) -> judging.StreamReading:
    """A stream's `data:` events read in order as the probe reads its own (a JSON-RPC response's result each)."""
    reading = judging.StreamReading(a.form)
    for event in entry.events or []:
        if event.kind is not SentKind.DATA:
            continue
        if malformed(event):
            reading.unreadable(f"not JSON: {clip(str(event.value), 80)!r}")
            continue
        problems: list[str] = []
        ok, body = judging.rpc_result(dataclasses.replace(a, body=json.dumps(event.data).encode()), problems)
        if ok:
            reading.feed(body)
        else:
            reading.unreadable(problems[0])
    return reading


def version_negotiation(calls: list[Entry]) -> CheckResult:
    """Passive: a 1.0 call that asked no version (which means 0.3) or one a2a-lab does not know, and was served."""
    c = VERSION_NEGOTIATION
    asked = [
        e
        for e in calls
        if e.version is Version.V1_0 and e.requested_version is not None and e.requested_version != Version.V1_0.value
    ]
    if not asked:
        return c.skipped("the client sent no 1.0 call that asked for another version (it is the probe's case)")
    for entry in asked:
        answer = entry.answer
        if answer is not None and answer.kind is not ResultKind.ERROR:
            return _found(
                c.broken(
                    f"#{entry.seq}: a 1.0 call asking A2A-Version {entry.requested_version!r} was served",
                    "VersionNotSupportedError",
                    f"a {answer.kind.value}",
                    [entry.seq],
                ),
                entry,
            )
    return c.passed(f"{len(asked)} call(s) asking another version were refused", [e.seq for e in asked])


def error_envelope(calls: list[Entry]) -> CheckResult:
    """Every error answer the client got (a refusal of the proxy's own, not the server's, left out)."""
    return judging.error_envelope(
        [_answered(e) for e in calls if e.response is not None and not e.response.refused and e.events is None]
    )


def not_passive(check: ProbeCheck) -> Callable[[], CheckResult]:
    return lambda: check.skipped(
        "not judged from the client's traffic: it needs a request a client would not send (`a2a-lab probe` asks it)"
    )


def judge(entries: list[Entry], card: Any) -> list[CheckResult]:
    """Every interface check of the probe, on the A2A calls the client made (in the probe's report order)."""
    calls = [e for e in entries if judging.from_entry(e) is not None]
    return [
        send_message(calls, card),
        response_shape(calls),
        task_follow_up(calls),
        not_passive(UNKNOWN_TASK)(),
        streaming(calls, card),
        version_negotiation(calls),
        not_passive(AUTH_ENFORCED)(),
        error_envelope(calls),
    ]


def _registered_task(entry: Entry) -> str | None:
    """The task a webhook registration is for: a config's `taskId` (0.3: `taskId` too; HTTP+JSON: the path's), or the
    task a send with an inline config answered with."""
    if entry.operation is not Operation.CREATE_PUSH_CONFIG:
        return entry.answer.task_id if entry.answer is not None else None
    if entry.route is not None and (entry.route.params.get("taskId") or entry.route.params.get("id")):
        return entry.route.params.get("taskId") or entry.route.params.get("id")
    try:
        value = json.loads(entry.body_text)
    except ValueError:
        return None
    params = value.get("params") if entry.kind is EntryKind.JSONRPC and isinstance(value, dict) else value
    task = params.get("taskId") if isinstance(params, dict) else None
    return task if isinstance(task, str) and task else None


def _notification_problems(entry: Entry, registrations: list[Entry], hooks: Hooks) -> tuple[list[str], list[str]]:
    """What is wrong with one notification: MUSTs missed, and SHOULDs missed."""
    must: list[str] = []
    should: list[str] = []
    where = f"#{entry.seq} notification to {entry.path}"
    if entry.method != "POST":
        must.append(f"{where}: sent as {entry.method}, not POST")
    versions = {e.version for e in registrations if e.version is not None}
    version = versions.pop() if len(versions) == 1 else Version.V1_0
    form = push_form(version)
    try:
        body = json.loads(entry.body_text)
    except ValueError:
        must.append(f"{where}: the body is not JSON: {clip(entry.body_text, 80)!r}")
        body = None
    if body is not None:
        kind = shapes.stream_event_kind(body, form)
        if kind is None:
            must.append(
                f"{where}: the body is not one StreamResponse in the {form.label} form "
                f"(exactly one of task, message, statusUpdate, artifactUpdate): {clip(entry.body_text, 120)}"
            )
        else:
            named = shapes.event_task_id(body, form)
            tasks = {t for t in (_registered_task(e) for e in registrations) if t is not None}
            if tasks and named not in tasks:
                must.append(f"{where}: it names task {named!r}, not the one its webhook was registered for")
    delivered = hooks.delivered.get(entry.seq)
    if delivered is not None and delivered.authorization is False:
        must.append(f"{where}: it does not carry the Authorization its config's `authentication` asked for (§13.2)")
    if delivered is not None and delivered.token is False:
        should.append(f"{where}: it does not carry its config's token in X-A2A-Notification-Token")
    return must, should


def push_delivery(entries: list[Entry], hooks: Hooks) -> CheckResult:
    """Each notification that passed: a POST of one StreamResponse about the registered task, with its credentials."""
    c = PUSH_DELIVERY
    pushes = [e for e in entries if e.kind is EntryKind.PUSH and e.seq in hooks.delivered]
    if not pushes:
        return c.skipped("no push notification passed through the proxy")
    by_seq = {e.seq: e for e in entries}
    must: list[str] = []
    should: list[str] = []
    first: Entry | None = None
    for entry in pushes:
        index = hooks.delivered[entry.seq].index
        registrations = [by_seq[h.seq] for h in hooks.configs.get(index, []) if h.seq in by_seq]
        missed, lax = _notification_problems(entry, registrations, hooks)
        if (missed or lax) and first is None:
            first = entry
        must += missed
        should += lax
    seqs = [e.seq for e in pushes]
    if first is not None:
        quoted = f"notification #{first.seq} POST {first.path}\n{clip(first.body_text)}"
        result = (c.broken if must else c.lenient)(
            f"{len(must + should)} problem(s) in {len(pushes)} notification(s): {(must + should)[0]}",
            "a POST of one StreamResponse about the registered task, with the config's credentials",
            shown(must + should),
            seqs,
        )
        result.quote = quoted
        return result
    return c.passed(
        f"{len(pushes)} notification(s): each one StreamResponse about its registered task, with its credentials", seqs
    )
