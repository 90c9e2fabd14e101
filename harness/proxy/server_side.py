"""The server's side of a proxied session, judged from what it answered the client: the probe's checks (same ids,
levels and citations, harness/probe/definitions.py), read passively. A check whose situation the client never
created is SKIPPED, saying so (the probe creates it: `a2a-lab probe`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind, ResultKind, SentKind
from a2a_lab.protocol import jsonrpc, rest, shapes
from a2a_lab.protocol.bindings import A2A_JSON, JSON
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.forms import Form, push_form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from ..cardcheck import urlpolicy
from ..cardcheck.lint import lint
from ..journal_view import rpc_response_problem
from ..model import CheckResult
from ..probe.checks import card_valid
from ..probe.definitions import (
    AUTH_ENFORCED,
    CARD_VALID,
    ERROR_ENVELOPE,
    PUSH_DELIVERY,
    RESPONSE_SHAPE,
    SEND_MESSAGE,
    STREAMING,
    TASK_FOLLOW_UP,
    UNKNOWN_TASK,
    VERSION_NEGOTIATION,
    ProbeCheck,
)
from ..refclient.failures import ClientFailure
from ..refclient.reading import StreamFold, classify, read_send_result, read_task
from . import grpc_side
from .push import Hooks
from .sse import malformed

MAX_SHOWN = 5
_STREAMS = (Operation.SEND_STREAMING_MESSAGE, Operation.SUBSCRIBE_TO_TASK)
#: The calls whose answers are judged: every binding's (gRPC's through the proxy's gRPC pass-through).
_JUDGED = (EntryKind.JSONRPC, EntryKind.REST, EntryKind.GRPC)


def _form(entry: Entry) -> Form | None:
    if entry.version is None or entry.endpoint is None:
        return None
    return Form(entry.version, entry.endpoint.binding)


def _rpc(entry: Entry) -> bool:
    return entry.kind is EntryKind.JSONRPC


def _body(entry: Entry) -> tuple[bool, Any, str]:
    """The answer body decoded (ok, value) and its text, redacted as the journal shows it."""
    response = entry.response
    text = (response.body.text or "") if response is not None and response.body is not None else ""
    try:
        return True, json.loads(text), text
    except ValueError:
        return False, None, text


def _quote(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _found(result: CheckResult, entry: Entry, text: str) -> CheckResult:
    """A finding quoting the bytes the server answered."""
    status = entry.response.status if entry.response is not None else None
    result.quote = f"answer to #{entry.seq} {entry.method} {entry.path}: HTTP {status}\n{_quote(text)}"
    return result


def _shown(items: list[str]) -> str:
    return "; ".join(items[:MAX_SHOWN]) + (f"; and {len(items) - MAX_SHOWN} more" if len(items) > MAX_SHOWN else "")


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
    sends = [e for e in calls if e.operation is Operation.SEND_MESSAGE and e.response is not None]
    if not sends:
        return c.skipped("the client sent no SendMessage")
    for entry in sends:
        answer = entry.answer
        text = _body(entry)[2]
        where = f"#{entry.seq} SendMessage ({entry.endpoint.binding.value if entry.endpoint else '?'})"
        not_found = answer is not None and (
            answer.code == ErrorType.METHOD_NOT_FOUND.code
            or (answer.kind is ResultKind.ERROR and answer.status in (404, 405) and "reason" not in text)
            or (grpc_side.unimplemented(entry) and "reason" not in text)
        )
        if not_found:
            return _found(
                c.broken(
                    f"{where}: the card advertises the interface, but the server answers method not found",
                    "a Message or a Task",
                    _quote(text, 160),
                    [entry.seq],
                ),
                entry,
                text,
            )
        if answer is None or answer.kind is ResultKind.RAW:
            return _found(
                c.broken(
                    f"{where} answered neither a message nor a task",
                    "a Message or a Task",
                    _quote(text, 160),
                    [entry.seq],
                ),
                entry,
                text,
            )
    answered = [e for e in sends if e.answer is not None and e.answer.kind in (ResultKind.TASK, ResultKind.MESSAGE)]
    if not answered:
        return c.skipped(
            f"every SendMessage ({len(sends)}) was answered with an A2A error: the client's request decides"
        )
    return c.passed(f"{len(answered)} SendMessage answered with a message or a task", [e.seq for e in answered])


def _result_of(entry: Entry, value: Any, problems: list[str]) -> Any:
    if not _rpc(entry):
        return value
    request_id = entry.rpc.id if entry.rpc is not None else None
    wrong = rpc_response_problem(value, request_id)
    if wrong is not None:
        problems.append(f"#{entry.seq}: not a JSON-RPC 2.0 response to the request: {wrong}")
        return None
    return value.get("result")


def response_shape(calls: list[Entry]) -> CheckResult:
    c = RESPONSE_SHAPE
    problems: list[str] = []
    judged: list[Entry] = []
    for entry in calls:
        form = _form(entry)
        if form is None or entry.operation not in (Operation.SEND_MESSAGE, Operation.GET_TASK) or entry.events:
            continue
        if entry.answer is None or entry.answer.kind not in (ResultKind.TASK, ResultKind.MESSAGE, ResultKind.RAW):
            continue
        ok, value, text = _body(entry)
        judged.append(entry)
        if not ok:
            problems.append(f"#{entry.seq}: the answer is not JSON: {_quote(text, 80)!r}")
            continue
        found: list[str] = []
        result = _result_of(entry, value, found)
        if not found:
            try:
                if entry.operation is Operation.SEND_MESSAGE:
                    kind, inner, used = classify(result, form, ("message", "task"), "the SendMessage result", found)
                    read_send_result(result, form, found)
                    if used == form:
                        found += [str(p) for p in shapes.kind_problems(inner, kind, form, f"result.{kind}")]
                else:
                    read_task(result, form, "GetTask result", found)
                    found += [str(p) for p in shapes.kind_problems(result, "task", form, "GetTask result")]
            except ClientFailure as failure:
                found.append(failure.message)
        found += grpc_side.message_problems(entry)
        problems += [f"#{entry.seq}: {p}" for p in dict.fromkeys(found)]
    if not judged:
        return c.skipped("no SendMessage or GetTask result was answered")
    if problems:
        first = next(e for e in judged if problems[0].startswith(f"#{e.seq}:"))
        form = _form(first)
        return _found(
            c.broken(
                f"an answer is not in the {form.label if form else ''} form: {problems[0]}",
                "results in the interface's version and binding form",
                _shown(problems),
                [e.seq for e in judged],
            ),
            first,
            _body(first)[2],
        )
    return c.passed(f"{len(judged)} SendMessage/GetTask result(s) in their interface's form", [e.seq for e in judged])


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
            asked = _asked_id(entry)
            if asked is not None and asked != answer.task_id:
                text = _body(entry)[2]
                return _found(
                    c.broken(
                        "GetTask answered another task than the one asked for",
                        repr(asked),
                        repr(answer.task_id),
                        [entry.seq],
                    ),
                    entry,
                    text,
                )
            ended = terminal.get(answer.task_id)
            if ended is not None and answer.state is not ended:
                return _found(
                    c.broken(
                        f"terminal task {answer.task_id} changed state (a terminal task never changes, §8)",
                        ended.short,
                        answer.state.short if answer.state else "no state",
                        [entry.seq],
                    ),
                    entry,
                    _body(entry)[2],
                )
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
        form = _form(entry)
        assert form is not None
        fold = StreamFold(form)
        problems: list[str] = []
        kinds: list[str] = []
        done_at: int | None = None
        for event in entry.events or []:
            if event.kind is not SentKind.DATA:
                continue
            if malformed(event):
                problems.append(f"event {len(kinds) + 1} is not JSON: {_quote(str(event.value), 80)!r}")
                kinds.append("?")
                continue
            body = _result_of(entry, event.data, problems)
            kind = shapes.stream_event_kind(body, form) or "?"
            kinds.append(kind)
            if done_at is not None:
                continue
            fold.apply(body, problems)
            if fold.done:
                done_at = len(kinds)
        after = kinds[done_at:] if done_at is not None else []
        snapshot = after == ["task"]
        if after and not snapshot:
            problems.append(f"{len(after)} event(s) after the stream's end ({', '.join(after)})")
        trail = " -> ".join(kinds) or "no event"
        ended_early = done_at is None and not entry.disconnected and entry.operation is Operation.SEND_STREAMING_MESSAGE
        if ended_early and not _stopped(fold):
            problems.append(f"the stream closed before a terminal state ({trail})")
        if problems:
            text = "\n".join(e.text or str(e.value) for e in (entry.events or [])[:5] if e.kind is SentKind.DATA)
            return _found(
                c.broken(
                    f"#{entry.seq}: {problems[0]}",
                    "a well-formed stream that ends",
                    f"{trail}: {_shown(problems)}",
                    [entry.seq],
                ),
                entry,
                text,
            )
    return c.passed(f"{len(streams)} stream(s) well-formed", [e.seq for e in streams])


def _stopped(fold: StreamFold) -> bool:
    task = fold.answer.task if fold.answer is not None else None
    return task is not None and task.stops


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
        refused = answer is not None and (
            answer.code == ErrorType.VERSION_NOT_SUPPORTED.code
            or (answer.kind is ResultKind.ERROR and str(ErrorType.VERSION_NOT_SUPPORTED.kind.reason) in _body(entry)[2])
        )
        if not refused and answer is not None and answer.kind is not ResultKind.ERROR:
            return _found(
                c.broken(
                    f"#{entry.seq}: a 1.0 call asking A2A-Version {entry.requested_version!r} was served",
                    "VersionNotSupportedError",
                    f"a {answer.kind.value}",
                    [entry.seq],
                ),
                entry,
                _body(entry)[2],
            )
    return c.passed(f"{len(asked)} call(s) asking another version were refused", [e.seq for e in asked])


def error_envelope(calls: list[Entry]) -> CheckResult:
    c = ERROR_ENVELOPE
    must: list[str] = []
    should: list[str] = []
    judged: list[Entry] = []
    for entry in calls:
        form = _form(entry)
        status = entry.response.status if entry.response is not None else None
        if (
            form is None
            or status is None
            or entry.events is not None
            or entry.response is None
            or entry.response.refused
        ):
            continue
        ok, value, text = _body(entry)
        media = (entry.response.content_type or "").split(";", 1)[0].strip().lower()
        if entry.kind is EntryKind.GRPC:
            found = grpc_side.error_problems(entry, value if ok else None)
            judged += [entry] if found is not None else []
            for p in found or []:
                (should if p.should else must).append(f"#{entry.seq}: {p.text}")
            continue
        if _rpc(entry):
            if not (ok and isinstance(value, dict) and "error" in value):
                if status < 400 or (ok and isinstance(value, dict) and "result" in value):
                    continue
                judged.append(entry)
                must.append(f"#{entry.seq}: HTTP {status} answer is not a JSON-RPC error object: {_quote(text, 80)!r}")
                continue
            judged.append(entry)
            for p in jsonrpc.error_problems(value.get("error"), form.version):
                (should if p.should else must).append(f"#{entry.seq}: {p.text}")
            if media != JSON:
                (should if media == A2A_JSON else must).append(f"#{entry.seq}: Content-Type {media!r}, not {JSON}")
            continue
        if status < 400:
            continue
        judged.append(entry)
        if not ok:
            (must if form.version is Version.V1_0 else should).append(
                f"#{entry.seq}: HTTP {status} error answer is not JSON"
            )
            continue
        for p in rest.status_problems(value, status, form.version):
            (should if p.should else must).append(f"#{entry.seq}: {p.text}")
    if not judged:
        return c.skipped("no error answer was seen")
    first = judged[0]
    if must:
        return _found(
            c.broken(
                f"{len(must)} problem(s) in {len(judged)} error answer(s): {must[0]}",
                "well-formed error answers",
                _shown(must + should),
                [e.seq for e in judged],
            ),
            first,
            _body(first)[2],
        )
    if should:
        return _found(
            c.lenient(
                f"{len(judged)} error answer(s) well-formed, but: {should[0]}",
                "well-formed error answers",
                _shown(should),
                [e.seq for e in judged],
            ),
            first,
            _body(first)[2],
        )
    return c.passed(f"{len(judged)} error answer(s) well-formed", [e.seq for e in judged])


def not_passive(check: ProbeCheck) -> Callable[[], CheckResult]:
    return lambda: check.skipped(
        "not judged from the client's traffic: it needs a request a client would not send (`a2a-lab probe` asks it)"
    )


def judge(entries: list[Entry], card: Any) -> list[CheckResult]:
    """Every interface check of the probe, on the A2A calls the client made (in the probe's report order)."""
    calls = [e for e in entries if e.kind in _JUDGED and e.operation is not None]
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
    params = value.get("params") if _rpc(entry) and isinstance(value, dict) else value
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
        must.append(f"{where}: the body is not JSON: {_quote(entry.body_text, 80)!r}")
        body = None
    if body is not None:
        kind = shapes.stream_event_kind(body, form)
        if kind is None:
            must.append(
                f"{where}: the body is not one StreamResponse in the {form.label} form "
                f"(exactly one of task, message, statusUpdate, artifactUpdate): {_quote(entry.body_text, 120)}"
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
        quoted = f"notification #{first.seq} POST {first.path}\n{_quote(first.body_text)}"
        result = (c.broken if must else c.lenient)(
            f"{len(must + should)} problem(s) in {len(pushes)} notification(s): {(must + should)[0]}",
            "a POST of one StreamResponse about the registered task, with the config's credentials",
            _shown(must + should),
            seqs,
        )
        result.quote = quoted
        return result
    return c.passed(
        f"{len(pushes)} notification(s): each one StreamResponse about its registered task, with its credentials", seqs
    )
