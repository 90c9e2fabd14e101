"""Reading what an agent answered, in any version's form, into canonical (1.0-shaped) views.

Lenient on purpose: a careful client reports what it understood and warns about what it had to
forgive (another version's spelling, a missing field), rather than failing on the first oddity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from a2a_lab.contract.handshake import ResultKind
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.protocol import revisions, shapes, states, wire
from a2a_lab.protocol.forms import JSONRPC_FORMS, Form
from a2a_lab.protocol.states import TaskState

MAX_PROBLEMS = 5


@dataclass
class TaskView:
    id: str | None = None
    context_id: str | None = None
    state: TaskState | None = None
    raw_state: Any = None
    status_message: dict[str, Any] | None = None
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    #: The task's generation as the agent last gave it (spec 1.1 §3.2.7); 0: the agent gave none (it does not
    #: implement generations, and the client must not use them).
    generation: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stops(self) -> bool:
        return self.state is not None and self.state.stops

    def text(self) -> str:
        parts = [p for a in self.artifacts for p in a.get("parts", [])]
        text = parts_text(parts)
        if not text and self.status_message:
            text = parts_text(self.status_message.get("parts", []))
        return text


@dataclass
class Answer:
    kind: ResultKind  # MESSAGE or TASK
    message: dict[str, Any] | None = None
    task: TaskView | None = None


def parts_text(parts: list[dict[str, Any]]) -> str:
    return "\n".join(p["text"] for p in parts if isinstance(p.get("text"), str))


def _note(warnings: list[str], what: str, problems: list[shapes.Problem]) -> None:
    for problem in problems[:MAX_PROBLEMS]:
        warnings.append(f"{what}: {problem}")
    if len(problems) > MAX_PROBLEMS:
        warnings.append(f"{what}: {len(problems) - MAX_PROBLEMS} more problems")


def read_parts(raw: Any, form: Form, path: str, warnings: list[str]) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        warnings.append(f"{path}: expected a list of parts")
        return []
    problems: list[shapes.Problem] = []
    parts = [shapes.parse_part(p, form, f"{path}[{i}]", problems, lenient_kind=True) for i, p in enumerate(raw)]
    _note(warnings, "answer", problems)
    return [p for p in parts if p is not None]


def read_message(raw: Any, form: Form, path: str, warnings: list[str]) -> dict[str, Any]:
    msg, problems = shapes.parse_message(raw, form, path, lenient_kind=True)
    _note(warnings, "answer", problems)
    if msg is not None:
        return dict(msg)
    if not isinstance(raw, dict):
        return {"parts": []}
    out: dict[str, Any] = {k: raw[k] for k in ("messageId", "contextId", "taskId") if isinstance(raw.get(k), str)}
    out["parts"] = read_parts(raw.get(form.parts_key, []), form, f"{path}.{form.parts_key}", [])
    return out


def read_task(raw: Any, form: Form, path: str, warnings: list[str]) -> TaskView:
    if not isinstance(raw, dict):
        raise ClientFailure("invalid_response", f"{path}: a task must be an object, got {type(raw).__name__}")
    view = TaskView(
        id=raw.get("id") if isinstance(raw.get("id"), str) else None,
        context_id=raw.get("contextId") if isinstance(raw.get("contextId"), str) else None,
    )
    view.generation = revisions.read_generation(raw.get(revisions.GENERATION))
    if view.id is None:
        warnings.append(f"{path}.id: a task needs an id")
    status = raw.get("status")
    if isinstance(status, dict):
        apply_status(view, status, form, f"{path}.status", warnings)
    else:
        warnings.append(f"{path}.status: a task needs a status")
    artifacts = raw.get("artifacts", [])
    if isinstance(artifacts, list):
        for i, artifact in enumerate(artifacts):
            add_artifact(view, artifact, form, f"{path}.artifacts[{i}]", warnings, append=False)
    history = raw.get("history")
    view.history = [m for m in history if isinstance(m, dict)] if isinstance(history, list) else []
    return view


def apply_status(view: TaskView, status: dict[str, Any], form: Form, path: str, warnings: list[str]) -> None:
    raw_state = status.get("state")
    view.raw_state = raw_state
    view.state = states.parse(raw_state)
    if view.state is None:
        warnings.append(f"{path}.state: unknown task state {raw_state!r}")
    elif states.parse_strict(raw_state, form) is None:
        expected = states.spell(view.state, form)
        warnings.append(f"{path}.state: {raw_state!r} is not the {form.label} spelling ({expected!r})")
    if "message" in status and status["message"] is not None:
        view.status_message = read_message(status["message"], form, f"{path}.message", warnings)
    else:
        view.status_message = None


def add_artifact(view: TaskView, raw: Any, form: Form, path: str, warnings: list[str], append: bool) -> None:
    if not isinstance(raw, dict):
        warnings.append(f"{path}: an artifact must be an object")
        return
    artifact = {k: raw[k] for k in ("artifactId", "name", "description") if k in raw}
    artifact["parts"] = read_parts(raw.get("parts", []), form, f"{path}.parts", warnings)
    for i, existing in enumerate(view.artifacts):
        if "artifactId" in artifact and existing.get("artifactId") == artifact["artifactId"]:
            if append:
                existing["parts"].extend(artifact["parts"])
            else:
                view.artifacts[i] = artifact
            return
    view.artifacts.append(artifact)


def classify(body: Any, form: Form, kinds: tuple[str, ...], what: str, warnings: list[str]) -> tuple[str, Any, Form]:
    """Which member (`task`, `message`, ...) a result or event carries, its object, and the form it used.

    A body in another version's form is read anyway, with a warning; an unreadable one is a failure.
    """
    for candidate in (form, *(f for f in JSONRPC_FORMS if f != form)):
        kind, inner = wire.event_member(body, candidate)
        if kind is not None and kind in kinds:
            if candidate != form:
                warnings.append(
                    f"{what} is in the {candidate.label} form, not the {form.label} form its interface declares"
                )
            return kind, inner, candidate
    shown = ", ".join(sorted(body)) if isinstance(body, dict) else type(body).__name__
    raise ClientFailure(
        "invalid_response", f"{what} is neither {' nor '.join(kinds)} in the {form.label} form (got {shown})"
    )


def read_send_result(body: Any, form: Form, warnings: list[str]) -> Answer:
    kind, inner, used = classify(body, form, ("message", "task"), "the SendMessage result", warnings)
    if kind == "message":
        return Answer(ResultKind.MESSAGE, message=read_message(inner, used, "result.message", warnings))
    return Answer(ResultKind.TASK, task=read_task(inner, used, "result.task", warnings))


@dataclass
class StreamFold:
    """Folds stream events into an answer. `done` once a message, a stop state or a 0.3 `final` is seen."""

    form: Form
    answer: Answer | None = None
    events: int = 0
    done: bool = False

    def apply(self, body: Any, warnings: list[str]) -> None:
        self.events += 1
        unknown = shapes.unknown_event_kind(body, self.form)
        if unknown is not None and not any(shapes.stream_event_kind(body, f) for f in (self.form, *JSONRPC_FORMS)):
            # Forward compatible: an event of a kind a later version may add is skipped, the stream read on (§5.7:
            # unrecognized fields SHOULD be ignored; StreamResponse is a oneof a later version may extend).
            warnings.append(f"stream event #{self.events} is of a kind this client does not know ({unknown}): skipped")
            return
        kind, inner, used = classify(body, self.form, shapes.EVENT_KINDS_V1, f"stream event #{self.events}", warnings)
        where = f"event[{self.events}]"
        if kind == "message":
            if self.answer is not None:
                warnings.append(
                    f"{where}: a message arrived in a task stream; a stream carries one message or one task"
                )
            self.answer = Answer(ResultKind.MESSAGE, message=read_message(inner, used, f"{where}.message", warnings))
            self.done = True
            return
        if self.answer is not None and self.answer.kind is ResultKind.MESSAGE:
            warnings.append(f"{where}: events after a message; a message stream has exactly one event")
            self.done = True
            return
        if kind == "task":
            self.answer = Answer(ResultKind.TASK, task=read_task(inner, used, f"{where}.task", warnings))
        else:
            task = self._task(inner, where, warnings)
            if isinstance(inner, dict) and revisions.read_generation(inner.get(revisions.GENERATION)):
                task.generation = revisions.read_generation(inner.get(revisions.GENERATION))
            if kind == "statusUpdate":
                status = inner.get("status") if isinstance(inner, dict) else None
                if isinstance(status, dict):
                    apply_status(task, status, used, f"{where}.status", warnings)
                if isinstance(inner, dict) and inner.get("final") is True:
                    self.done = True
            elif isinstance(inner, dict):
                add_artifact(
                    task, inner.get("artifact"), used, f"{where}.artifact", warnings, append=inner.get("append") is True
                )
        assert self.answer is not None and self.answer.task is not None
        if self.answer.task.stops:
            self.done = True

    def _task(self, inner: Any, where: str, warnings: list[str]) -> TaskView:
        if self.answer is None:
            warnings.append(f"{where}: the first event of a task stream should be the task (§3.1.2)")
            ids = inner if isinstance(inner, dict) else {}
            self.answer = Answer(ResultKind.TASK, task=TaskView(id=ids.get("taskId"), context_id=ids.get("contextId")))
        assert self.answer.task is not None
        return self.answer.task


def parsed_answer(answer: Answer) -> dict[str, Any]:
    """An answer as the client parsed it, in the canonical ProtoJSON form (a SendMessageResponse)."""
    if answer.kind is ResultKind.MESSAGE:
        return {"message": dict(answer.message or {})}
    task = answer.task or TaskView()
    status: dict[str, Any] = {}
    if task.state is not None:
        status["state"] = task.state.value
    if task.status_message is not None:
        status["message"] = task.status_message
    out: dict[str, Any] = {"id": task.id, "contextId": task.context_id, "status": status}
    if task.artifacts:
        out["artifacts"] = task.artifacts
    if task.history:
        out["history"] = task.history
    return {"task": {k: v for k, v in out.items() if v is not None}}


def parsed_error(failure: dict[str, Any]) -> dict[str, Any] | None:
    """An A2A error the client read (a JSON-RPC code), as `{"error": {"code", "message"}}`; None for other failures."""
    code = failure.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    return {"error": {"code": code, "message": failure.get("message", "")}}
