"""The one judging of a server's answers, shared by `a2a-lab probe` (which makes the calls, so it creates each
situation) and `a2a-lab proxy` (which watches a real client's calls pass, so it judges what the client created).

Both sides record what passed and turn it into `Answered`, one small typed view of a call's answer: the probe from
its Recorder's exchanges (`from_exchange`), the proxy from its journal entries (`from_entry`). The judging below
takes those (and, for a stream, its events decoded) and gives the probe's `CheckResult`s, with the same ids,
levels and sections (`definitions.py`), quoting the bytes the server sent. What only one side can do stays there:
the probe's requests (the unknown ids, the version it asks, credentials, the diagnosis), the proxy's SKIPPED where
the client never created a situation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import Entry, EntryKind, ResultKind, SentKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.http import snippet
from a2a_lab.harness.clients.refclient.reading import StreamFold, classify, read_send_result, read_task
from a2a_lab.harness.clients.refclient.recording import Exchange, GrpcCall
from a2a_lab.harness.common.model import CheckResult
from a2a_lab.harness.server_judging.probe.definitions import ERROR_ENVELOPE, RESPONSE_SHAPE
from a2a_lab.protocol import grpcwire, jsonrpc, requests, rest, shapes
from a2a_lab.protocol.bindings import A2A_JSON, EVENT_STREAM, JSON, Binding
from a2a_lab.protocol.errors import EnvelopeProblem
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.json_types import Task
from a2a_lab.protocol.jsonrpc import rpc_response_problem
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

MAX_SHOWN = 5
QUOTE_CHARS = 600
SEND_KINDS = ("message", "task")


def shown(items: list[str]) -> str:
    """The first few of a list of problems, and how many more."""
    items = list(dict.fromkeys(items))
    return "; ".join(items[:MAX_SHOWN]) + (f"; and {len(items) - MAX_SHOWN} more" if len(items) > MAX_SHOWN else "")


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


# ------------------------------------------------------------------------------------------ the view


@dataclass(frozen=True)
class Answered:
    """One A2A call and its answer, as the judges read it (whoever recorded it). `status` None: no answer;
    `grpc`: a gRPC call (its body is ProtoJSON, its error the status it ended with)."""

    seq: int
    op: Operation
    form: Form
    method: str
    path: str
    status: int | None
    media: str
    body: bytes
    request_id: Any = None
    streamed: bool = False
    grpc: GrpcCall | None = field(default=None, compare=False)

    @property
    def rpc(self) -> bool:
        return self.grpc is None and self.form.binding is Binding.JSONRPC

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def decoded(self) -> tuple[bool, Any]:
        try:
            return True, json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return False, None

    def quote(self, text: str | None = None) -> str:
        """The answer's bytes (or `text`, what was read of them), quoted for a finding."""
        said = f"gRPC {self.grpc.status}" if self.grpc is not None else f"HTTP {self.status}"
        return f"answer to #{self.seq} {self.method} {self.path}: {said}\n{clip(self.text if text is None else text)}"


def from_exchange(exchange: Exchange, op: Operation, form: Form) -> Answered:
    """The probe's side: one recorded exchange of a call it made in `form`."""
    path = exchange.grpc.path if exchange.grpc is not None else urlsplit(exchange.url).path
    return Answered(
        exchange.seq,
        op,
        form,
        exchange.method,
        path,
        exchange.status,
        exchange.media_type,
        bytes(exchange.response_body),
        _request_id(exchange.request_body),
        exchange.streamed,
        exchange.grpc,
    )


#: The journal's kinds of A2A call whose answers are judged (gRPC's through the proxy's gRPC pass-through).
JUDGED_KINDS = (EntryKind.JSONRPC, EntryKind.REST, EntryKind.GRPC)


def from_entry(entry: Entry) -> Answered | None:
    """The proxy's side: one journaled A2A call (None: not one). One still being answered has no status yet."""
    response = entry.response
    if entry.operation is None or entry.version is None or entry.endpoint is None:
        return None
    if entry.kind not in JUDGED_KINDS:
        return None
    text = (response.body.text or "") if response is not None and response.body is not None else ""
    media = ((response.content_type if response is not None else None) or "").split(";", 1)[0].strip().lower()
    request_id = entry.rpc.id if entry.rpc is not None else None
    form = Form(entry.version, entry.endpoint.binding)
    return Answered(
        entry.seq,
        entry.operation,
        form,
        entry.method,
        entry.path,
        response.status if response is not None else None,
        media,
        text.encode(),
        request_id,
        entry.events is not None,
        _grpc_call(entry) if entry.kind is EntryKind.GRPC else None,
    )


def _grpc_call(entry: Entry) -> GrpcCall:
    """A journaled gRPC call as the probe records one: the status it ended with, and its google.rpc.Status (the
    journal keeps it as a unary error's body, or a stream's error event) as `details` when the trailer carried one."""
    response = entry.response
    status: Any = None
    if entry.events:
        status = next((e.value for e in reversed(entry.events) if e.kind is SentKind.ERROR), None)
    elif response is not None and response.grpc_status not in (None, grpcwire.Code.OK.value):
        try:
            status = json.loads((response.body.text or "") if response.body is not None else "")
        except ValueError:
            status = None
    said = status if isinstance(status, dict) else {}
    unreadable = said.get("unreadable")
    return GrpcCall(
        entry.path,
        entry.events is not None,
        response.grpc_status if response is not None else None,
        str(said.get("message", "")),
        said if "details" in said else None,
        str(unreadable) if unreadable is not None else None,
    )


def _request_id(body: bytes) -> Any:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value.get("id") if isinstance(value, dict) else None


# ------------------------------------------------------------------------------------- ERROR-ENVELOPE


def error_problems(a: Answered) -> list[EnvelopeProblem] | None:
    """The problems of one error answer, or None when the answer is not an error answer."""
    call = a.grpc
    if call is not None:  # a gRPC call, unary or streamed: an error is its final status
        if call.status is None or call.status == grpcwire.Code.OK.value:
            return None
        if call.status not in grpcwire.Code.__members__:
            return [EnvelopeProblem(f"the call ended with {call.status}, which is no gRPC status")]
        if call.details_error is not None:
            return [EnvelopeProblem(f"{grpcwire.STATUS_DETAILS_KEY} is unreadable: {call.details_error}")]
        return grpcwire.status_problems(grpcwire.Code(call.status), call.details)
    if a.status is None or a.streamed:
        return None
    ok, value = a.decoded()
    media = a.media or "no content type"
    said = snippet(a.body)
    if a.rpc:
        if not (ok and isinstance(value, dict) and "error" in value):
            if a.status < 400 or (ok and isinstance(value, dict) and "result" in value):
                return None  # a result (or a non-JSON 200: SEND-MESSAGE and friends judge those)
            return [EnvelopeProblem(f"HTTP {a.status} answer is not a JSON-RPC error object ({media}): {said!r}")]
        # an error answer may carry id null: the server could not read the request's id (JSON-RPC 2.0 §5)
        wrong = rpc_response_problem(value, None if value.get("id") is None else a.request_id)
        problems = [EnvelopeProblem(f"not a valid JSON-RPC 2.0 response: {wrong}")] if wrong else []
        problems += jsonrpc.error_problems(value.get("error"), a.form.version)
        if a.media != JSON:
            problems.append(EnvelopeProblem(f"Content-Type {media!r}, not {JSON}", should=a.media == A2A_JSON))
        return problems
    if a.status < 400:
        return None
    if not ok:
        return [
            EnvelopeProblem(
                f"HTTP {a.status} error answer is not JSON ({media}): {said!r}",
                should=a.form.version is not Version.V1_0,
            )
        ]
    problems = list(rest.status_problems(value, a.status, a.form.version))
    wanted = requests.content_type(a.form.binding, a.form.version)
    if a.media != wanted:
        note = (
            " (v1.0.1 SHOULD; v1.0.0 said application/json: notes D5)" if wanted == A2A_JSON and a.media == JSON else ""
        )
        problems.append(
            EnvelopeProblem(f"Content-Type {media!r}, not {wanted}{note}", should=a.media in (JSON, A2A_JSON))
        )
    return problems


def expected_error_form(form: Form, grpc: bool) -> str:
    """An error answer as the interface must spell it."""
    if grpc:
        return (
            f"a gRPC status with {grpcwire.STATUS_DETAILS_KEY}: a google.rpc.Status {{code: <the call's status>, "
            'message, details: [{"@type": ".../google.rpc.ErrorInfo", reason, domain}]} (§10.6)'
        )
    media = requests.content_type(form.binding, form.version)
    if form.binding is Binding.JSONRPC:
        data = ', "data": [{"@type": ...}]' if form.version is Version.V1_0 else ""
        return (
            '{"jsonrpc": "2.0", "id": <the request id or null>, '
            f'"error": {{"code": <integer>, "message": <string>{data}}}}} as {media}'
        )
    if form.version is Version.V1_0:
        return (
            '{"error": {"code": <HTTP status>, "status": <gRPC name>, "message": <string>, '
            f'"details": [{{"@type": ...}}]}}}} as {media}'
        )
    return f"a JSON object as {media}"


def error_envelope(answers: list[Answered]) -> CheckResult:
    """ERROR-ENVELOPE: every error answer among `answers` in the form its interface owes (§5.4, §9.5, §10.6, §11.6)."""
    c = ERROR_ENVELOPE
    judged: list[Answered] = []
    must: list[str] = []
    should: list[str] = []
    for a in answers:
        problems = error_problems(a)
        if problems is None:
            continue
        judged.append(a)
        for p in problems:
            (should if p.should else must).append(f"#{a.seq} {a.op.value}: {p.text}")
    if not judged:
        return c.skipped("no error answer was seen")
    seqs = [a.seq for a in judged]
    first = judged[0]
    expected = expected_error_form(first.form, first.grpc is not None)
    if must:
        result = c.broken(
            f"{len(must)} problem(s) in {len(judged)} error answer(s): {must[0]}", expected, shown(must + should), seqs
        )
    elif should:
        result = c.lenient(
            f"{len(judged)} error answer(s) well-formed, but: {should[0]}", expected, shown(should), seqs
        )
    else:
        return c.passed(f"{len(judged)} error answer(s) well-formed", seqs)
    offending = next((a for a in judged if any(p.startswith(f"#{a.seq} ") for p in must + should)), first)
    result.quote = offending.quote()
    return result


# -------------------------------------------------------------------------------------- RESPONSE-SHAPE


@dataclass
class Shaped:
    """One SendMessage or GetTask result read against its form: the problems found, the kind it is."""

    answered: Answered | None
    kind: str
    problems: list[str]


def _kind_problems(inner: Any, kind: str, form: Form, path: str, already: list[str]) -> list[str]:
    problems = [str(p) for p in shapes.kind_problems(inner, kind, form, path)]
    return [p for p in problems if not any(p.split(":", 1)[0] in seen for seen in already)]


def shape_of(result: Any, op: Operation, form: Form, where: str, answered: Answered | None = None) -> Shaped:
    """A decoded SendMessage result (a message or a task) or GetTask result (a task), read in `form`."""
    problems: list[str] = []
    if op is Operation.SEND_MESSAGE:
        try:
            kind, inner, used = classify(result, form, SEND_KINDS, "the SendMessage result", [])
            read_send_result(result, form, problems)
        except ClientFailure as failure:
            return Shaped(answered, "?", [failure.message])
        if used == form:
            problems += _kind_problems(inner, kind, form, f"result.{kind}", problems)
        return Shaped(answered, kind, problems)
    try:
        read_task(result, form, where, problems)
    except ClientFailure as failure:
        problems.append(failure.message)
    return Shaped(answered, "task", problems + _kind_problems(result, "task", form, where, problems))


def example(form: Form, op: Operation = Operation.SEND_MESSAGE) -> str:
    """What a SendMessage result (a task, wrapped where the form wraps it) or a GetTask result (a bare Task, in every
    form) looks like in a form, as protocol.shapes writes it."""
    task: Task = {"id": "…", "contextId": "…", "status": {"state": TaskState.COMPLETED.value}}
    shaped = shapes.task_out(task, form) if op is Operation.GET_TASK else shapes.send_result_out({"task": task}, form)
    return json.dumps(shaped, ensure_ascii=False)


def rpc_result(a: Answered, problems: list[str]) -> tuple[bool, Any]:
    """The decoded result of an answer (a JSON-RPC response's `result`); (False, None) with the problem noted when
    the answer is not JSON or not a JSON-RPC 2.0 response to the request."""
    ok, value = a.decoded()
    if not ok:
        problems.append(f"the answer is not JSON: {clip(a.text, 80)!r}")
        return False, None
    if not a.rpc:
        return True, value
    wrong = rpc_response_problem(value, a.request_id)
    if wrong is not None:
        problems.append(f"not a JSON-RPC 2.0 response to the request: {wrong}")
        return False, None
    return True, value.get("result")


def response_shape(judged: list[Shaped], form: Form, evidence: list[int]) -> CheckResult:
    """RESPONSE-SHAPE: each SendMessage and GetTask result in its interface's version and binding form (§5.5)."""
    c = RESPONSE_SHAPE
    problems = [p for s in judged for p in s.problems]
    if problems:
        first = next(s for s in judged if s.problems)
        what = f"a {first.answered.op.value} result" if first.answered is not None else "a result"
        op = first.answered.op if first.answered is not None else Operation.SEND_MESSAGE
        result = c.broken(
            f"the answer is not in the {form.label} form: {problems[0]}",
            f"{what} shaped like {example(form, op)}",
            shown(problems),
            evidence,
        )
        if first.answered is not None:
            result.quote = first.answered.quote()
        return result
    sends = [s for s in judged if s.answered is None or s.answered.op is Operation.SEND_MESSAGE]
    gets = len(judged) - len(sends)
    kinds = " and ".join(dict.fromkeys(s.kind for s in sends))
    if not sends:
        return c.passed(f"{gets} GetTask answer(s) in the {form.label} form", evidence)
    what = f"a {kinds}" if len(sends) == 1 else f"{len(sends)} SendMessage results ({kinds})"
    also = f", and {gets} GetTask answer(s)" if gets else ""
    return c.passed(f"{what} in the {form.label} form{also}", evidence)


# -------------------------------------------------------------------------------------- TASK-FOLLOW-UP


def follow_up_problem(
    asked: str, was: TaskState | None, got_id: str | None, got: TaskState | None, raw_state: Any = None
) -> tuple[str, str, str] | None:
    """What is wrong with a GetTask answer for task `asked` last seen in state `was` (message, expected, actual):
    another task than the one asked for, or a terminal task that changed state (§4.1.3); None when nothing is."""
    if got_id != asked:
        return "GetTask answered another task than the one asked for", f"id {asked!r}", f"id {got_id!r}"
    if was is not None and was.terminal and got is not was:
        shown_state = got.short if got is not None else repr(raw_state) if raw_state is not None else "no state"
        return f"terminal task {asked} changed state (a terminal task never changes, §4.1.3)", was.short, shown_state
    return None


# ---------------------------------------------------------------------------------------- STREAMING


def stream_media_problem(a: Answered) -> str | None:
    """A stream over HTTP answered as something else than Server-Sent Events (§9.4.2, §11.7; the reference client,
    so the probe, refuses such a stream before reading it)."""
    if a.grpc is not None or not a.media or a.media == EVENT_STREAM:
        return None
    return f"the stream was answered as {a.media}, not {EVENT_STREAM}"


@dataclass
class StreamReading:
    """A stream's events read in order, as both sides judge them: folded into an answer (a message, or a task and
    its updates), each event checked against the interface's form, and what came after the end noted."""

    form: Form
    fold: StreamFold = field(init=False)
    problems: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    done_at: int | None = None
    after: list[str] = field(default_factory=list)
    #: The kind of a last event the stream ended inside (no closing blank line): not read, as no client reads it.
    cut_off: str | None = None

    def __post_init__(self) -> None:
        self.fold = StreamFold(self.form)

    def feed(self, body: Any) -> None:
        """One event's body (a JSON-RPC response's `result`, or the event itself)."""
        kind = shapes.stream_event_kind(body, self.form) or "?"
        self.kinds.append(kind)
        if self.done_at is not None:
            self.after.append(kind)
            return
        self.fold.apply(body, self.problems)
        if kind != "?":
            _, inner, _ = classify(body, self.form, shapes.EVENT_KINDS_V1, "", [])
            self.problems += [
                str(p) for p in shapes.kind_problems(inner, kind, self.form, f"event[{self.fold.events}]")
            ]
        if self.fold.done:
            self.done_at = len(self.kinds)

    def unterminated(self, body: Any) -> None:
        """The last event, which the stream ended inside, before its closing blank line: an SSE client never
        dispatches it (WHATWG HTML §9.2.6), so it is not read; only kept to say why the stream ends where it does."""
        self.cut_off = (shapes.stream_event_kind(body, self.form) if body is not None else None) or "?"

    def unreadable(self, problem: str) -> None:
        """An event that could not be read at all (not JSON, not a JSON-RPC response)."""
        self.kinds.append("?")
        self.problems.append(f"event {len(self.kinds)}: {problem}")

    @property
    def trail(self) -> str:
        return " -> ".join(self.kinds) or "no event"

    @property
    def state(self) -> str:
        answer = self.fold.answer
        if answer is None:
            return "no event"
        if answer.kind is ResultKind.MESSAGE:
            return "the message"
        task = answer.task
        return task.state.short if task is not None and task.state is not None else "an unknown state"

    def ending_problems(self) -> list[str]:
        """The problems of a stream that ended: a terminal state reached, nothing after it but a final task snapshot
        ("MAY optionally resend a final Task snapshot", §11.7)."""
        if self.fold.answer is None:
            return ["the stream closed without any event" + self._cut_off()]
        if self.done_at is None:
            return [f"the stream closed at {self.state}, before a terminal state" + self._cut_off()]
        snapshot = self.after == ["task"] and self.fold.answer.kind is ResultKind.TASK
        if self.after and not snapshot:
            return [f"{len(self.after)} event(s) after the stream's end ({', '.join(self.after)})"]
        return []

    def _cut_off(self) -> str:
        if self.cut_off is None:
            return ""
        kind = "an event that is no StreamResponse" if self.cut_off == "?" else f"a {self.cut_off}"
        return (
            f" (its last event, {kind}, lacked the blank line that ends an SSE event, so it was never dispatched:"
            " at end of file an SSE client discards the event pending, WHATWG HTML §9.2.6)"
        )
