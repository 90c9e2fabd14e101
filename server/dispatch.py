"""The version-neutral core of the server: apply a scenario's rules and the spec's semantics to one call.

Endpoints (JSON-RPC, HTTP+JSON) parse the wire into an Invocation and render the Decision back; this module
knows neither bytes nor HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.contract.journal_record import Answer, Entry, ResultKind
from a2a_lab.contract.placeholders import fill_origins
from a2a_lab.contract.scenario import AuthScope, Reply, Returns, TaskScript
from a2a_lab.protocol import cards, jsontext, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.operations import MESSAGE_SENDS, SPECS, Operation
from a2a_lab.protocol.versions import Version

from . import auth, budgets, generations, rules, stream_edits, streams
from .auth import Verdict
from .engine import Caller, TaskRecord, message_text
from .push import config_problem
from .state import LabState


@dataclass(slots=True)
class Invocation:
    """One A2A operation a client invoked, parsed from the wire into canonical params."""

    op: Operation
    #: The version and binding the invocation came in (its answer goes out in the same form).
    form: Form
    method: str
    params: dict[str, Any]
    headers: Mapping[str, str]
    base_url: str = ""
    #: The request body's length: what the task store counts for a message, without encoding anything again.
    size: int = 0
    #: The query parameters (an API key may travel there).
    query: Mapping[str, str] = field(default_factory=dict)
    #: Whose tasks the call may see, where the scenario keeps tasks apart by user (`auth.tasks_per_user`; set by
    #: execute from the auth verdict); None: every task.
    caller: Caller | None = None

    @property
    def version(self) -> Version:
        return self.form.version

    @property
    def binding(self) -> Binding:
        return self.form.binding


@dataclass(slots=True)
class Decision:
    """The answer decided for an invocation: a value, an error or a stream of events, and its summary."""

    reply: Reply
    summary: Answer
    value: Any = None
    error: A2AError | None = None
    events: AsyncIterator[stream_edits.Edited] | None = None
    #: A refusal for want of credentials: its HTTP status (401, or 403 for a token lacking scope) and the
    #: WWW-Authenticate challenge (RFC 9110 §11.6.1) the answer carries.
    auth_status: int | None = None
    challenge: str | None = None


def _refused(reply: Reply, err: A2AError) -> Decision:
    """The refusal `err` answers with. Kept without its traceback: the traceback holds the frame that keeps this
    decision, a reference cycle only the cyclic collector frees (~33 objects for every refused call)."""
    return Decision(reply, Answer.error(err.code), error=err.with_traceback(None))


def judge_auth(state: LabState, call: Invocation, count_use: bool = True) -> Verdict | None:
    """How the call stands against the card's security (None when the scenario has no `auth`)."""
    if state.auth is None:
        return None
    return state.auth.judge(auth.Request(call.headers, call.query), count_use)


def caller_of(state: LabState, verdict: Verdict | None) -> Caller | None:
    """Whose tasks a call judged so may see: None (every task) unless the scenario keeps tasks apart by user
    (`auth.tasks_per_user`, A2A 1.0 §13.1), then the identity that authenticated it."""
    scenario_auth = state.scenario.auth
    if scenario_auth is None or not scenario_auth.tasks_per_user:
        return None
    return Caller(verdict.identity if verdict is not None else None)


def held_caller(state: LabState, call: Invocation) -> Caller | None:
    """caller_of for a call not executed yet (a GetTask generations.hold may hold): its credentials judged without
    counting a use (execute counts it)."""
    if state.scenario.auth is None or not state.scenario.auth.tasks_per_user:
        return None
    return caller_of(state, judge_auth(state, call, count_use=False))


def check_auth(state: LabState, op: Operation | None, verdict: Verdict | None) -> A2AError | None:
    scenario_auth = state.scenario.auth
    if verdict is None or scenario_auth is None or verdict.satisfied:
        return None
    if scenario_auth.scope is AuthScope.EXTENDED_CARD and op is not Operation.GET_EXTENDED_CARD:
        return None
    return A2AError(ErrorType.UNAUTHENTICATED, verdict.message)


#: What a mutual-TLS connection journals when the client presented a certificate the server verified (server/tls.py).
CLIENT_CERTIFICATE_VERIFIED = "verified"


def check_client_certificate(state: LabState, entry: Entry | None) -> A2AError | None:
    """Mutual TLS (`tls.client_certificate`): a call on a connection without a verified client certificate is
    refused as unauthenticated (the TLS layer asks for one but lets a client without one in, so it is seen)."""
    tls = state.scenario.tls
    if tls is None or not tls.client_certificate:
        return None
    if entry is not None and entry.tls is not None and entry.tls.client_certificate == CLIENT_CERTIFICATE_VERIFIED:
        return None
    return A2AError(
        ErrorType.UNAUTHENTICATED,
        "Mutual TLS required: present the client certificate the card's mtlsSecurityScheme asks for",
    )


def _require(state: LabState, capability: str, what: str) -> None:
    """§3.3.4: what the card does not declare is refused (push with its own error, the rest as unsupported)."""
    if state.capability(capability):
        return
    if capability == cards.PUSH_NOTIFICATIONS:
        raise A2AError(
            ErrorType.PUSH_NOT_SUPPORTED,
            f"Push notifications are not supported: the card does not declare capabilities.{capability}",
        )
    raise A2AError(
        ErrorType.UNSUPPORTED_OPERATION, f"{what} is not supported: the card does not declare capabilities.{capability}"
    )


def execute(state: LabState, call: Invocation, entry: Entry | None = None) -> Decision:
    """Decide the answer to an invocation. Raises nothing: errors come back in the Decision."""
    state.calls[call.op._value_] += 1  # _value_: `.value` is a property costing ~0.25 µs, on every call
    verdict = judge_auth(state, call)
    call.caller = caller_of(state, verdict)
    if entry is not None and verdict is not None:
        entry.credentials = verdict.status
        carried = entry.auth.carried if entry.auth is not None else ()
        entry.auth = verdict.facts
        entry.auth.carried = carried
    op_rules = state.scenario.rules.get(call.op)
    reply = (
        rules.choose(
            op_rules,
            rules.RequestFacts(
                call.op,
                call.version,
                call.binding,
                call.method,
                call.params,
                call.headers,
                state.calls[call.op._value_],
            ),
        )
        if op_rules
        else rules.DEFAULT_REPLY
    )
    try:
        refused = check_client_certificate(state, entry)
        if refused is not None:
            raise refused
        decision = _execute(state, call, reply, verdict)
    except A2AError as err:
        decision = _refused(reply, err)
        if err.type is ErrorType.UNAUTHENTICATED and verdict is not None and state.auth is not None:
            decision.auth_status, decision.challenge = verdict.http_status, state.auth.challenge(verdict)
    if entry is not None:
        entry.answer = decision.summary
    return decision


def _execute(state: LabState, call: Invocation, reply: Reply, verdict: Verdict | None) -> Decision:
    if reply.error is not None:
        return _refused(reply, reply.error)
    if reply.raw_status is not None:
        return Decision(reply, Answer(ResultKind.RAW, status=reply.raw_status))
    denied = check_auth(state, call.op, verdict)
    if denied:
        raise denied
    spec = SPECS[call.op]
    if spec.capability:
        _require(state, spec.capability, call.op._value_)
    if call.op in MESSAGE_SENDS:
        activated = versions.activated_extensions(dict(call.headers)) if state.required_extensions else set()
        missing = [uri for uri in state.required_extensions if uri not in activated]
        if missing:  # §3.6 / §4.6: a required extension the client did not activate
            raise A2AError(
                ErrorType.EXTENSION_SUPPORT_REQUIRED,
                f"Extension support required: activate {', '.join(missing)} "
                f"with the {versions.EXTENSIONS_HEADER} header",
                metadata={"extensions": ",".join(missing)},
            )
    if spec.streaming and state.open_streams >= state.scenario.limits.streams:
        raise A2AError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"Too many open streams on this scenario (limit {state.scenario.limits.streams}); close one first",
        )
    decision = _HANDLERS[call.op](state, call, reply)
    if decision.events is not None:
        decision.events = streams.counted(state, stream_edits.edited(decision.events, decision.reply.stream))
    return decision


def _send(state: LabState, call: Invocation, reply: Reply) -> Decision:
    engine, p = state.engine, call.params
    message, cfg = p["message"], p.get("configuration", {})
    streaming = call.op is Operation.SEND_STREAMING_MESSAGE
    existing = engine.check_follow_up(message, call.caller)
    if reply.message is not None:
        ctx = message.get("contextId") or (existing.task["contextId"] if existing else None)
        agent = engine.agent_message(reply.message_template, message_text(message), ctx)
        if streaming:
            return Decision(reply, Answer(ResultKind.MESSAGE, stream=True), events=streams.single({"message": agent}))
        return Decision(reply, Answer(ResultKind.MESSAGE), value={"message": agent})
    script: TaskScript = reply.task or state.scenario.task
    if existing is not None:
        rec = existing
        generations.check_match(state, rec, cfg)
        engine.add_user_message(rec, message, call.size)
        engine.continue_with(rec, script)
        if streaming:
            return Decision(
                reply, Answer.task(rec.task, stream=True), events=streams.drive(state, rec, reply.stream, resume=True)
            )
        engine.resume(rec)
        state.keep_moving(rec)
    else:
        if cfg.get("taskPushNotificationConfig"):
            _require(state, cards.PUSH_NOTIFICATIONS, "an inline push config")
            _check_push(state, cfg["taskPushNotificationConfig"])  # refuse before a task exists
        rec = engine.create(message, script, call.size, call.caller)
        if cfg.get("taskPushNotificationConfig"):
            _store_push(state, rec, cfg["taskPushNotificationConfig"], call.version)
        if streaming:
            if rec.script.advance_after_ms:
                state.keep_moving(rec)  # time moves it on by itself; the stream follows its events
            return Decision(reply, Answer.task(rec.task, stream=True), events=streams.drive(state, rec, reply.stream))
        if not cfg.get("returnImmediately") and script.returns is Returns.STOP:
            engine.run_to_stop(rec)
        state.keep_moving(rec)  # a task that time (or a webhook's following) moves on moves by itself from now on
    task = engine.snapshot(rec, _history_length(rec, cfg.get("historyLength")))
    return Decision(reply, Answer.task(task), value={"task": task})


def _history_length(rec: TaskRecord, asked: int | None) -> int | None:
    """The history an answer about this task carries: what the request asked, unless its script ignores that."""
    return None if rec.script.ignore_history_length else asked


#: Where a stored config keeps its size (private: `_` members never leave the server).
_SIZE = "_size"


def _check_push(state: LabState, config: dict[str, Any]) -> int:
    """A push config's size (as JSON), once it can be delivered (push.config_problem) and it fits a task's
    limits.push_config_bytes."""
    problem = config_problem(config)
    if problem:
        field, refusal = problem
        raise A2AError(ErrorType.INVALID_PARAMS, f"Invalid parameters: webhook {field} refused: {refusal}", field=field)
    size = len(jsontext.dumps(config))
    most = state.scenario.limits.push_config_bytes
    if size > most:
        raise budgets.too_large(
            "taskPushNotificationConfig", f"a push notification config of {size:,} bytes", "push_config_bytes", most
        )
    return size


def _store_push(state: LabState, rec: TaskRecord, config: dict[str, Any], version: Version) -> dict[str, Any]:
    """Store a task's push config (one with the same id replaced), within the task's push config budgets."""
    size = _check_push(state, config)
    stored = {k: v for k, v in config.items() if k != "tenant"}
    stored["id"] = stored.get("id") or state.engine.new_id()
    stored["taskId"] = rec.id
    stored["_version"] = version.value
    stored[_SIZE] = size
    replaced = rec.push_configs.get(stored["id"])
    freed = replaced[_SIZE] if replaced is not None else 0
    limits = state.scenario.limits
    if replaced is None and len(rec.push_configs) >= limits.push_configs_per_task:
        raise budgets.exhausted(
            f"Task {rec.id} has {len(rec.push_configs)} push notification configs already",
            "push_configs_per_task",
            limits.push_configs_per_task,
            "per task",
            rec.id,
        )
    if rec.push_bytes - freed + size > limits.push_config_bytes:
        raise budgets.exhausted(
            f"Task {rec.id}'s push notification configs would take {rec.push_bytes - freed + size:,} bytes",
            "push_config_bytes",
            limits.push_config_bytes,
            "bytes per task",
            rec.id,
        )
    rec.push_configs[stored["id"]] = stored
    rec.push_bytes += size - freed
    state.engine.resize(rec, size - freed)
    return public_config(stored)


def public_config(stored: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stored.items() if not k.startswith("_")}


def _get_task(state: LabState, call: Invocation, reply: Reply) -> Decision:
    generations.current_generation(state, call.params)  # a 1.1 server refuses a malformed one (the hold ignored it)
    rec = state.engine.lookup(call.params["id"], call.caller)
    state.engine.tick(rec, on_get=True)
    task = state.engine.snapshot(rec, _history_length(rec, call.params.get("historyLength")))
    return Decision(reply, Answer.task(task), value=task)


def _list_tasks(state: LabState, call: Invocation, reply: Reply) -> Decision:
    p = call.params
    tasks, total = state.engine.list(
        p.get("contextId"),
        p.get("status"),
        p["pageSize"],
        p["offset"],
        p.get("historyLength"),
        p["includeArtifacts"],
        p.get("statusTimestampAfter"),
        call.caller,
    )
    end = p["offset"] + len(tasks)
    value = {
        "tasks": tasks,
        "nextPageToken": str(end) if end < total else "",
        "pageSize": p["pageSize"],
        "totalSize": total,
    }
    return Decision(reply, Answer(ResultKind.LIST, count=len(tasks)), value=value)


def _cancel(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["id"], call.caller)
    state.engine.tick(rec)
    state.engine.cancel(rec)
    task = state.engine.snapshot(rec)
    return Decision(reply, Answer.task(task), value=task)


def _subscribe(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["id"], call.caller)
    state.engine.tick(rec)
    if rec.state.terminal:
        raise A2AError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"Task {rec.id} is {rec.state.short}: a terminal task cannot be subscribed to",
            metadata={"taskId": rec.id},
        )
    return Decision(reply, Answer.task(rec.task, stream=True), events=streams.subscribe(state, rec, reply.stream))


def _create_push(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["taskId"], call.caller)
    value = _store_push(state, rec, call.params, call.version)
    state.keep_moving(rec)  # a webhook follows the task now: it moves at the scenario's pace
    return Decision(reply, Answer(ResultKind.PUSH_CONFIG), value=value)


def _get_push(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["taskId"], call.caller)
    cid = call.params.get("id")
    if cid is None and rec.push_configs:
        cid = next(iter(rec.push_configs))
    config = rec.push_configs.get(cid or "")
    if config is None:
        raise A2AError(
            ErrorType.TASK_NOT_FOUND,
            f"No push notification config {cid!r} for task {rec.id}",
            metadata={"taskId": rec.id},
        )
    return Decision(reply, Answer(ResultKind.PUSH_CONFIG), value=public_config(config))


def _list_push(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["taskId"], call.caller)
    return Decision(
        reply,
        Answer(ResultKind.PUSH_CONFIGS),
        value={"configs": [public_config(c) for c in rec.push_configs.values()], "nextPageToken": ""},
    )


def _delete_push(state: LabState, call: Invocation, reply: Reply) -> Decision:
    rec = state.engine.lookup(call.params["taskId"], call.caller)
    removed = rec.push_configs.pop(call.params["id"], None)  # idempotent (§3.1.10)
    if removed is not None:
        rec.push_bytes -= removed[_SIZE]
        state.engine.resize(rec, -removed[_SIZE])
    return Decision(reply, Answer(ResultKind.EMPTY), value={})


def _extended_card(state: LabState, call: Invocation, reply: Reply) -> Decision:
    card = state.scenario.extended_card
    if card is None:
        raise A2AError(ErrorType.EXTENDED_CARD_NOT_CONFIGURED)
    return Decision(
        reply,
        Answer(ResultKind.CARD),
        value=fill_origins(card, call.base_url, state.grpc_address, alt_base_url=state.alt_base(call.base_url)),
    )


_HANDLERS = {
    Operation.SEND_MESSAGE: _send,
    Operation.SEND_STREAMING_MESSAGE: _send,
    Operation.GET_TASK: _get_task,
    Operation.LIST_TASKS: _list_tasks,
    Operation.CANCEL_TASK: _cancel,
    Operation.SUBSCRIBE_TO_TASK: _subscribe,
    Operation.CREATE_PUSH_CONFIG: _create_push,
    Operation.GET_PUSH_CONFIG: _get_push,
    Operation.LIST_PUSH_CONFIGS: _list_push,
    Operation.DELETE_PUSH_CONFIG: _delete_push,
    Operation.GET_EXTENDED_CARD: _extended_card,
}


#: Members whose values are the agent's or the user's own data: unknown fields are never added inside them.
_OPAQUE_MEMBERS = frozenset({"data", "metadata"})


def with_unknown_fields(value: Any, fields: tuple[tuple[str, Any], ...]) -> Any:
    """A copy of a wire value with `fields` added to every JSON object in it (a field it already has is kept)."""
    if not fields:
        return value
    if isinstance(value, list):
        return [with_unknown_fields(v, fields) for v in value]
    if isinstance(value, dict):
        out = {k: v if k in _OPAQUE_MEMBERS else with_unknown_fields(v, fields) for k, v in value.items()}
        for name, extra in fields:
            out.setdefault(name, extra)
        return out
    return value
