"""The server's side of a proxied session, judged from what it answered the client with the probe's own judging
(harness/server_judging/probe/judging.py: the same functions, ids, levels and citations as `a2a-lab probe`), on the
journal's entries read as `Answered`. What stays here is what only a passive judge does: choosing the answers a check
can read from the client's traffic, and a SKIPPED saying so where the client never created the check's situation (the
probe creates it: `a2a-lab probe`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind, ResultKind, SentEvent, SentKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure, invites_fallback
from a2a_lab.harness.clients.refclient.reading import read_send_result
from a2a_lab.harness.common.model import CheckResult, Outcome
from a2a_lab.harness.proxy import grpc_side
from a2a_lab.harness.proxy.classify import targets
from a2a_lab.harness.proxy.push import Hooks
from a2a_lab.harness.proxy.sse import malformed, oversized
from a2a_lab.harness.server_judging.cardcheck import urlpolicy
from a2a_lab.harness.server_judging.cardcheck.lint import lint
from a2a_lab.harness.server_judging.probe import judging, refusals
from a2a_lab.harness.server_judging.probe.checks import card_valid
from a2a_lab.harness.server_judging.probe.definitions import (
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
from a2a_lab.harness.server_judging.probe.judging import Answered, clip, shown
from a2a_lab.protocol import shapes
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.forms import push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

_STREAMS = (Operation.SEND_STREAMING_MESSAGE, Operation.SUBSCRIBE_TO_TASK)


def _answered(entry: Entry) -> Answered:
    answered = judging.from_entry(entry)
    assert answered is not None  # `judge` passes only A2A calls
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
    """Each SendMessage answer read as the probe reads its own: a message or a task, or a refusal that is the
    server's (method not found where the card advertises it, the declared version refused, not an A2A error at all).
    Another A2A error is the client's request's doing, not judged."""
    c = SEND_MESSAGE
    sends = [
        _answered(e)
        for e in calls
        if e.operation is Operation.SEND_MESSAGE and e.response is not None and not _asks_other_version(e)
    ]
    if not sends:
        return c.skipped("the client sent no SendMessage (in the version its method is spelled in)")
    answered: list[int] = []
    for a in sends:
        label = f"#{a.seq} SendMessage ({a.form.binding.value} {a.form.version.value})"
        failure = refusals.refusal_of(a)
        if failure is not None and failure.type == "remote" and not _servers_refusal(failure):
            continue
        if failure is None:
            problems: list[str] = []
            ok, result = judging.rpc_result(a, problems)
            try:
                if ok:
                    read_send_result(result, a.form, [])
                    answered.append(a.seq)
                    continue
            except ClientFailure as unreadable:
                problems.append(unreadable.message)
            message = f"{label} answered something that is neither a message nor a task: {problems[0]}"
        else:
            message = refusals.send_refused(failure, a.form.version, label)
        result = c.broken(message, "a Message or a Task", clip(a.text, 160), [a.seq])
        result.quote = a.quote()
        return result
    if not answered:
        return c.skipped(
            f"every SendMessage ({len(sends)}) was answered with an A2A error: the client's request decides"
        )
    return c.passed(f"{len(answered)} SendMessage answered with a message or a task", answered)


def _servers_refusal(failure: ClientFailure) -> bool:
    """An A2A error that is the server's doing whatever the request: the method or the declared version refused."""
    return refusals.refuses_version(failure) or invites_fallback(failure)


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
        shaped.problems += grpc_side.message_problems(entry)
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
        problems = [p for p in [judging.stream_media_problem(a)] if p] + reading.problems + ending
        if problems:
            datas = [e for e in (entry.events or []) if e.kind is SentKind.DATA]
            if reading.cut_off is not None and problems[0] in ending:  # the event cut off is the one to see
                datas = [e for e in datas if e.unterminated]
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
        if event.unterminated:  # never dispatched to the client (nor to the probe's reader)
            ok, body = (False, None) if malformed(event) else _event_result(a, event, [])
            reading.unterminated(body if ok else None)
            continue
        if oversized(event):  # not read whole: judged as what it is, not as bytes that are not JSON
            reading.unreadable(clip(str(event.value).removeprefix("(").removesuffix(")"), 200))
            continue
        if malformed(event):
            reading.unreadable(f"not JSON: {clip(str(event.value), 80)!r}")
            continue
        problems: list[str] = []
        ok, body = _event_result(a, event, problems)
        try:
            if ok:
                reading.feed(body)
                continue
        except ClientFailure as failure:  # an event that is no StreamResponse at all (an error object, null)
            problems.append(failure.message)
        reading.unreadable(problems[0])
    return reading


def _event_result(a: Answered, event: SentEvent, problems: list[str]) -> tuple[bool, Any]:
    """A stream event read as the probe reads one of its own: a JSON-RPC response's result (`judging.rpc_result`)."""
    return judging.rpc_result(dataclasses.replace(a, body=json.dumps(event.data).encode()), problems)


def _asks_other_version(entry: Entry) -> bool:
    """A 1.0 call that asked no version (which means 0.3) or another: VERSION-NEGOTIATION's case, not the method's."""
    return (
        entry.version is Version.V1_0
        and entry.requested_version is not None
        and entry.requested_version != Version.V1_0.value
    )


def version_negotiation(calls: list[Entry]) -> CheckResult:
    """Passive: each 1.0 call that asked no version (which means 0.3) or one a2a-lab does not know, judged as the
    probe judges its own such calls (VersionNotSupportedError as the interface spells it, §3.6.2)."""
    c = VERSION_NEGOTIATION
    asked = [_answered(e) for e in calls if _asks_other_version(e) and e.response is not None]
    if not asked:
        return c.skipped("the client sent no 1.0 call that asked for another version (it is the probe's case)")
    verdicts: list[CheckResult] = []
    for a in asked:
        entry = next(e for e in calls if e.seq == a.seq)
        said = f"A2A-Version {entry.requested_version!r}" if entry.requested_version else "no A2A-Version (0.3)"
        expected = refusals.version_expected(a.form)
        failure = refusals.refusal_of(a)
        if failure is None:
            verdict = c.broken(f"#{a.seq}: a 1.0 call asking {said} was served", expected, "a result", [a.seq])
        else:
            verdict = refusals.version_verdict(failure, f"{said} (#{a.seq})", expected, a.form, [a.seq])
        if verdict.outcome is not Outcome.PASS:
            verdict.quote = a.quote()
        verdicts.append(verdict)
    worst = refusals.worst(verdicts)
    if worst.outcome is not Outcome.PASS:
        return worst
    return c.passed(f"{len(asked)} call(s) asking another version were refused", [a.seq for a in asked])


def error_envelope(calls: list[Entry]) -> CheckResult:
    """Every error answer the client got (a refusal of the proxy's own, not the server's, left out)."""
    return judging.error_envelope([_answered(e) for e in calls if e.response is not None and not e.response.refused])


def not_passive(check: ProbeCheck) -> Callable[[], CheckResult]:
    return lambda: check.skipped(
        "not judged from the client's traffic: it needs a request a client would not send (`a2a-lab probe` asks it)"
    )


def _on_card(entry: Entry, declared: dict[tuple[str, Binding], Version | None]) -> bool:
    """Whether a call speaks the version its interface declares. A call in another version is off the card (a
    client's fallback, or a probe's diagnosis): a refusal of it is no fault, and its error answer owes that
    version's form nothing (the probe leaves its diagnosis out the same way); what the server chose to serve is
    still judged in the form it was asked in."""
    assert entry.endpoint is not None
    version = declared.get((entry.endpoint.path, entry.endpoint.binding))
    return version is None or version is entry.version


def judge(entries: list[Entry], card: Any) -> list[CheckResult]:
    """Every interface check of the probe, on the A2A calls the client made (in the probe's report order)."""
    declared = {(t.base or "/", t.binding): t.declared for t in targets(card)} if isinstance(card, dict) else {}
    calls = [e for e in entries if judging.from_entry(e) is not None]
    on_card = [e for e in calls if _on_card(e, declared)]
    return [
        send_message(on_card, card),
        response_shape(calls),
        task_follow_up(calls),
        not_passive(UNKNOWN_TASK)(),
        streaming(calls, card),
        version_negotiation(calls),
        not_passive(AUTH_ENFORCED)(),
        error_envelope(on_card),
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
