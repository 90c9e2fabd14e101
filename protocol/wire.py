"""Results and stream events in each wire form, both ways: `result_out` / `event_out` put a canonical (1.0
ProtoJSON) value into a form's shape (what the server sends); `result_in` / `event_in` read a form's result or
event back into canonical terms (what the harness and the reference client read). Both directions live here, next
to each other, so the server, the harness and the client spell every form the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from . import shapes, states
from .forms import Form
from .json_types import StreamResponse, Task
from .operations import Operation
from .shapes import WireObject
from .versions import Version

# ------------------------------------------------------------------------------------- canonical -> wire


def result_out(op: Operation, value: Any, form: Form) -> Any:
    """A canonical result of an operation in a form's shape.

    `value` is the server's result as it holds it, untyped (its type depends on `op`); it is taken for the canonical
    type shapes writes (a SendMessageResponse, a Task)."""
    version = form.version
    if op is Operation.SEND_MESSAGE:
        return shapes.send_result_out(value, form)
    if op in (Operation.GET_TASK, Operation.CANCEL_TASK):
        return shapes.task_out(cast(Task, value), form) if isinstance(value, dict) and "status" in value else value
    if op is Operation.LIST_TASKS:
        return {**value, "tasks": [shapes.task_out(t, form) for t in value["tasks"]]}
    if op in (Operation.CREATE_PUSH_CONFIG, Operation.GET_PUSH_CONFIG):
        return shapes.push_config_out(value, form)
    if op is Operation.LIST_PUSH_CONFIGS:
        configs = [shapes.push_config_out(c, form) for c in value["configs"]]
        if form.discriminated:
            return configs
        return {**value, "configs": configs}
    if op is Operation.DELETE_PUSH_CONFIG:
        return None if version is Version.V0_3 else {}
    return value


def event_out(event: Mapping[str, Any], form: Form) -> WireObject:
    """A canonical StreamResponse (`{"task": ...}` etc.), as the server holds it (untyped), in a form's shape."""
    return shapes.stream_response_out(cast(StreamResponse, event), form)


# ------------------------------------------------------------------------------------- wire -> canonical
# Lenient on purpose: what a body says is read as far as it can be (another version's spelling, a missing
# field); judging whether it was spelled right is the job of shapes' parsers and the checks.


def event_member(body: object, form: Form) -> tuple[str | None, object]:
    """Which StreamResponse member (`task`, `message`, `statusUpdate`, `artifactUpdate`) a result or event
    carries in a form, and that member's object as spelled (None, None when it carries none)."""
    kind = shapes.stream_event_kind(body, form)
    if kind is None or not isinstance(body, dict):  # a kind is only ever found in an object
        return None, None
    return kind, body if form.discriminated else body[kind]


def part_in(part: object, form: Form) -> object:
    if form.version is Version.V1_0 or not isinstance(part, dict):
        return part
    read = shapes.parse_part(part, form, "", [], lenient_kind=True)
    return read if read is not None else part


def message_in(msg: object, form: Form) -> object:
    if form.version is Version.V1_0 or not isinstance(msg, dict):
        return msg
    out = {k: v for k, v in msg.items() if k not in ("kind", "parts", "content")}
    role = states.parse_role(msg.get("role"), form)
    if role is not None:
        out["role"] = role.value
    parts = msg.get(form.parts_key)
    if parts is not None:
        out["parts"] = [part_in(p, form) for p in parts] if isinstance(parts, list) else parts
    return out


def status_in(status: object, form: Form) -> object:
    if form.version is Version.V1_0 or not isinstance(status, dict):
        return status
    out = dict(status)
    state = states.parse(status.get("state"))
    if state is not None:
        out["state"] = state.value
    if "message" in status:
        out["message"] = message_in(status["message"], form)
    return out


def artifact_in(artifact: object, form: Form) -> object:
    if form.version is Version.V1_0 or not isinstance(artifact, dict):
        return artifact
    parts = artifact.get("parts")
    return {**artifact, "parts": [part_in(p, form) for p in parts]} if isinstance(parts, list) else artifact


def task_in(task: object, form: Form) -> object:
    if form.version is Version.V1_0 or not isinstance(task, dict):
        return task
    out = {k: v for k, v in task.items() if k != "kind"}
    if "status" in task:
        out["status"] = status_in(task["status"], form)
    if isinstance(task.get("artifacts"), list):
        out["artifacts"] = [artifact_in(a, form) for a in task["artifacts"]]
    if isinstance(task.get("history"), list):
        out["history"] = [message_in(m, form) for m in task["history"]]
    return out


def event_in(body: object, form: Form) -> dict[str, Any] | None:
    """A stream event (or a SendMessage result) in a form, as a canonical StreamResponse; None when it is none."""
    kind, inner = event_member(body, form)
    if kind is None or not isinstance(inner, dict):
        return None
    if kind == "task":
        return {"task": task_in(inner, form)}
    if kind == "message":
        return {"message": message_in(inner, form)}
    body_in = {k: v for k, v in inner.items() if k != "kind"} if form.discriminated else dict(inner)
    if kind == "statusUpdate":
        body_in["status"] = status_in(inner.get("status"), form)
    else:
        body_in["artifact"] = artifact_in(inner.get("artifact"), form)
    return {kind: body_in}


def result_in(op: Operation | None, value: object, form: Form) -> dict[str, Any] | None:
    """What an operation's result in a form says about a message or a task, as a canonical StreamResponse
    (`{"task": ...}` or `{"message": ...}`; for a stream, any event); None when it says nothing of either.

    The inverse of result_out for SendMessage, GetTask and CancelTask (whose bare task is read as one even
    without its 0.3 `kind`), and of event_out for every other operation's events."""
    if not isinstance(value, dict):
        return None
    if op in (Operation.GET_TASK, Operation.CANCEL_TASK):
        if not form.discriminated:
            return {"task": task_in(value, form)}
        if "kind" not in value:
            value = {**value, "kind": "task"}
    return event_in(value, form)
