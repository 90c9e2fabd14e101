"""Message, part, task and event shapes in each version and binding.

a2a-lab keeps every object in its 1.0 ProtoJSON form (the normative one). This module converts that
canonical form to the 0.3 JSON-RPC form (`kind` discriminators, lowercase states) and to the 0.3 REST
form (ProtoJSON of the 0.3 proto: `content`, `TASK_STATE_CANCELLED`), and parses incoming objects of any
version into the canonical form, reporting problems with field paths.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from . import states
from .bindings import Binding
from .errors import invalid_params
from .forms import V03_HTTP_JSON, V03_JSONRPC, V1_JSONRPC, Form
from .json_types import (
    Artifact,
    JSONObject,
    JSONValue,
    Message,
    Part,
    SendMessageResponse,
    StreamResponse,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from .revisions import GENERATION
from .states import Role, TaskState
from .versions import Version

V1, V03 = Version.V1_0, Version.V0_3

PART_KINDS_V1 = ("text", "raw", "url", "data")
PART_KINDS_V03 = ("text", "file", "data")
EVENT_KINDS_V1 = ("task", "message", "statusUpdate", "artifactUpdate")
EVENT_KINDS_V03 = {
    "task": "task",
    "message": "message",
    "statusUpdate": "status-update",
    "artifactUpdate": "artifact-update",
}
_SNAKE = re.compile(r"_([a-z])")


@dataclass(frozen=True)
class Problem:
    """Something wrong with a body. `foreign` marks a spelling from another version or style
    (a server may tolerate it; a client scored against the spec may not)."""

    path: str
    message: str
    foreign: bool = False
    #: A spelling no MUST of this form forbids: a proto (snake_case) field name in 0.3 HTTP+JSON, which is ProtoJSON
    #: and whose parsers accept proto names. Reported, never a broken MUST.
    tolerated: bool = False

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class PartsLimit:
    """A reader's own bound on a message's parts (no A2A version sets one): a longer list is refused before any
    part is read. `why` says where the bound comes from, for the refusal."""

    most: int
    why: str = ""

    def problem(self, count: int) -> str:
        because = f" ({self.why})" if self.why else ""
        return f"{count:,} parts: more than the {self.most:,} accepted in one message{because}"


def camel(name: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), name)


# --------------------------------------------------------------------------------------------- output


#: A canonical object in a form's shape, as it is written: which members it has depends on the form (the 1.0 form
#: is the canonical object itself), so they are not typed.
WireObject = dict[str, Any]


def part_out(part: Part, form: Form) -> WireObject:
    version, rest = form.version, form.rest
    if version is V1:
        return cast(WireObject, part)
    meta = {"metadata": part["metadata"]} if "metadata" in part else {}
    if rest:
        if "text" in part:
            return {"text": part["text"], **meta}
        if "data" in part:
            return {"data": {"data": _as_object(part["data"])}, **meta}
        file: JSONObject = {"fileWithBytes": part["raw"]} if "raw" in part else {"fileWithUri": part.get("url", "")}
        if "mediaType" in part:
            file["mimeType"] = part["mediaType"]
        if "filename" in part:
            file["name"] = part["filename"]
        return {"file": file, **meta}
    if "text" in part:
        return {"kind": "text", "text": part["text"], **meta}
    if "data" in part:
        return {"kind": "data", "data": _as_object(part["data"]), **meta}
    file = {"bytes": part["raw"]} if "raw" in part else {"uri": part.get("url", "")}
    if "mediaType" in part:
        file["mimeType"] = part["mediaType"]
    if "filename" in part:
        file["name"] = part["filename"]
    return {"kind": "file", "file": file, **meta}


def _as_object(value: JSONValue) -> JSONObject:
    """0.3 data parts must hold an object; 1.0 allows any JSON value."""
    return value if isinstance(value, dict) else {"value": value}


def message_out(msg: Message, form: Form) -> WireObject:
    version, rest = form.version, form.rest
    if version is V1:
        return cast(WireObject, msg)
    out: WireObject = {} if rest else {"kind": "message"}
    for key, value in msg.items():
        if key == "role":
            out["role"] = states.spell_role(Role(msg["role"]), form)
        elif key == "parts":
            out[form.parts_key] = [part_out(p, form) for p in msg["parts"]]
        elif key == "referenceTaskIds" and rest:
            continue
        else:
            out[key] = value
    return out


def status_out(status: TaskStatus, form: Form) -> WireObject:
    version = form.version
    if version is V1:
        return cast(WireObject, status)
    out: WireObject = dict(status)
    out["state"] = states.spell(TaskState(status["state"]), form)
    if "message" in status:
        out["message"] = message_out(status["message"], form)
    return out


def artifact_out(artifact: Artifact, form: Form) -> WireObject:
    version = form.version
    if version is V1:
        return cast(WireObject, artifact)
    out: WireObject = dict(artifact)
    out["parts"] = [part_out(p, form) for p in artifact.get("parts", [])]
    return out


def task_out(task: Task, form: Form) -> WireObject:
    version, rest = form.version, form.rest
    if version is V1:
        return cast(WireObject, task)
    out: WireObject = {} if rest else {"kind": "task"}
    for key, value in task.items():
        if key == "status":
            out["status"] = status_out(task["status"], form)
        elif key == "artifacts":
            out["artifacts"] = [artifact_out(a, form) for a in task["artifacts"]]
        elif key == "history":
            out["history"] = [message_out(m, form) for m in task["history"]]
        elif key != GENERATION:  # a 1.1 member (revisions): no 0.3 object has it
            out[key] = value
    return out


def stream_response_out(event: StreamResponse, form: Form) -> WireObject:
    """A canonical StreamResponse (`{"task": ...}` etc.) in a version's form.

    0.3 status updates carry `final`, true at a terminal or interrupted state (notes §6).
    """
    version, rest = form.version, form.rest
    if version is V1:
        return cast(WireObject, event)
    # The one member, whatever its name (the type says which names there are; a value is not checked here).
    ((key, value),) = event.items()
    if key == "task":
        body = task_out(cast(Task, value), form)
    elif key == "message":
        body = message_out(cast(Message, value), form)
    elif key == "statusUpdate":
        status_update = cast(TaskStatusUpdateEvent, value)
        body = {k: v for k, v in status_update.items() if k != GENERATION}
        body["status"] = status_out(status_update["status"], form)
        body.setdefault("final", TaskState(status_update["status"]["state"]).stops)
    else:
        artifact_update = cast(TaskArtifactUpdateEvent, value)
        body = {k: v for k, v in artifact_update.items() if k != GENERATION}
        body["artifact"] = artifact_out(artifact_update["artifact"], form)
    if rest:
        return {key: body}
    return {"kind": EVENT_KINDS_V03[key], **body} if "kind" not in body else body


def send_result_out(result: SendMessageResponse, form: Form) -> WireObject:
    """SendMessageResponse: 1.0 and 0.3 REST wrap (`{"task": ...}`); 0.3 JSON-RPC is bare with `kind`."""
    version, rest = form.version, form.rest
    if version is V1:
        return cast(WireObject, result)
    ((key, value),) = result.items()
    converted = task_out(cast(Task, value), form) if key == "task" else message_out(cast(Message, value), form)
    return {key: converted} if rest else converted


def push_config_out(config: dict[str, Any], form: Form) -> dict[str, Any]:
    """TaskPushNotificationConfig: 1.0 is flat; 0.3 nests `pushNotificationConfig` under the task id."""
    version, rest = form.version, form.rest
    if version is V1:
        return config
    inner: dict[str, Any] = {k: v for k, v in config.items() if k not in ("taskId", "tenant")}
    if "authentication" in inner:
        auth = inner["authentication"]
        inner["authentication"] = {
            "schemes": [auth.get("scheme", "")],
            **({"credentials": auth["credentials"]} if "credentials" in auth else {}),
        }
    if rest:
        return {
            "name": f"tasks/{config.get('taskId', '')}/pushNotificationConfigs/{config.get('id', '')}",
            "pushNotificationConfig": inner,
        }
    return {"taskId": config.get("taskId", ""), "pushNotificationConfig": inner}


def inline_push_key(form: Form) -> str:
    """The SendMessageConfiguration member a webhook registered inline in a send goes in: 1.0
    `taskPushNotificationConfig`, 0.3 JSON-RPC `pushNotificationConfig`, 0.3 HTTP+JSON `pushNotification`."""
    if form.version is V1:
        return "taskPushNotificationConfig"
    return "pushNotification" if form.rest else "pushNotificationConfig"


#: That member in every form's spelling, for a reader that does not hold a sender to one form.
INLINE_PUSH_KEYS = tuple(inline_push_key(form) for form in (V1_JSONRPC, V03_JSONRPC, V03_HTTP_JSON))


def inline_push(configuration: object) -> JSONValue:
    """The webhook a SendMessageConfiguration as sent registers inline, in any form's spelling; None when none."""
    if not isinstance(configuration, dict):
        return None
    return next((configuration[key] for key in INLINE_PUSH_KEYS if configuration.get(key)), None)


# --------------------------------------------------------------------------------------------- input


def _normalise_keys(obj: Mapping[str, JSONValue], path: str, problems: list[Problem], form: Form) -> JSONObject:
    """ProtoJSON parsers accept proto (snake_case) names. A 1.0 client MUST send camelCase (§5.5) and the 0.3 JSON-RPC
    schema names only camelCase members; 0.3 HTTP+JSON is plain ProtoJSON, so there a proto name is tolerated."""
    if "_" not in "".join(obj):  # the common case, found in C: no proto name to fix
        return dict(obj)
    out: JSONObject = {}
    tolerated = form.version is V03 and form.rest
    for key, value in obj.items():
        if "_" in key:
            fixed = camel(key)
            problems.append(
                Problem(
                    f"{path}.{key}", f"field names must be camelCase ({fixed!r})", foreign=True, tolerated=tolerated
                )
            )
            out[fixed] = value
        else:
            out[key] = value
    return out


def _b64_ok(text: str) -> bool:
    try:
        base64.b64decode(
            text + "=" * (-len(text) % 4), altchars=b"-_" if ("-" in text or "_" in text) else None, validate=True
        )
        return True
    except (binascii.Error, ValueError):
        return False


def parse_part(
    raw: object, form: Form, path: str, problems: list[Problem], lenient_kind: bool = False
) -> JSONObject | None:
    """A part in canonical form (as given where it breaks a rule: `problems` says how), None when it has no form."""
    version, rest = form.version, form.rest
    if version is V1 and type(raw) is dict and len(raw) == 1 and type(raw.get("text")) is str:
        return {"text": raw["text"]}  # a plain 1.0 text part (most are): what the rules below make of it, at once
    if not isinstance(raw, dict):
        problems.append(Problem(path, "a part must be an object"))
        return None
    part = _normalise_keys(raw, path, problems, form)
    meta = {k: part[k] for k in ("metadata",) if k in part}
    if version is V1:
        out = _part_v1(part, path, problems)
    elif rest:
        out = _part_v03_rest(part, meta, path, problems)
    else:
        return _part_v03_jsonrpc(part, meta, path, problems, lenient_kind)
    if out is not None:
        _check_part_values(out, path, problems)
    return out


def _part_v1(part: JSONObject, path: str, problems: list[Problem]) -> JSONObject | None:
    """A 1.0 part (one of text, raw, url, data; its filename, mediaType and metadata), None without exactly one;
    0.3 members (`kind`, `file`, `mimeType`) are foreign spellings."""
    if "kind" in part:
        problems.append(
            Problem(f"{path}.kind", "`kind` is a 0.3 field; 1.0 parts are discriminated by member name", foreign=True)
        )
    present = [k for k in PART_KINDS_V1 if k in part]
    if len(present) != 1:
        problems.append(
            Problem(
                path,
                f"a 1.0 part needs exactly one of {', '.join(PART_KINDS_V1)} (found {', '.join(present) or 'none'})",
            )
        )
        return None
    (kind,) = present
    out: JSONObject = {kind: part[kind]}
    for extra in ("filename", "mediaType", "metadata"):
        if extra in part:
            out[extra] = part[extra]
    for legacy in ("file", "mimeType"):
        if legacy in part:
            problems.append(
                Problem(
                    f"{path}.{legacy}",
                    f"`{legacy}` is a 0.3 field (1.0 uses raw/url, mediaType, filename)",
                    foreign=True,
                )
            )
    return out


def _part_v03_rest(part: JSONObject, meta: JSONObject, path: str, problems: list[Problem]) -> JSONObject | None:
    """A 0.3 HTTP+JSON part (the oneof text / file / data of the 0.3 proto) in canonical form, None without exactly
    one of them."""
    present = [k for k in PART_KINDS_V03 if k in part]
    if len(present) != 1:
        problems.append(
            Problem(
                path,
                f"a 0.3 REST part needs exactly one of text, file, data (found {', '.join(present) or 'none'})",
            )
        )
        return None
    (kind,) = present
    out: JSONObject
    if kind == "text":
        out = {"text": part["text"]}
    elif kind == "data":
        inner = part["data"]
        out = {"data": inner.get("data", inner) if isinstance(inner, dict) else inner}
    else:
        f = part["file"] if isinstance(part["file"], dict) else {}
        out = {"raw": f["fileWithBytes"]} if "fileWithBytes" in f else {"url": f.get("fileWithUri", "")}
        if "mimeType" in f:
            out["mediaType"] = f["mimeType"]
        if "name" in f:
            out["filename"] = f["name"]
    out.update(meta)
    return out


def _check_part_values(out: JSONObject, path: str, problems: list[Problem]) -> None:
    """The values of a ProtoJSON part (1.0, 0.3 HTTP+JSON) read into canonical form: text and url strings, raw bytes
    as base64 text."""
    if "text" in out and not isinstance(out["text"], str):
        problems.append(Problem(f"{path}.text", "must be a string"))
    if "raw" in out and not (isinstance(out["raw"], str) and _b64_ok(out["raw"])):
        problems.append(Problem(f"{path}.raw", "must be base64 text"))
    if "url" in out and not isinstance(out["url"], str):
        problems.append(Problem(f"{path}.url", "must be a string"))


def _part_v03_jsonrpc(
    part: JSONObject, meta: JSONObject, path: str, problems: list[Problem], lenient_kind: bool
) -> JSONObject | None:
    """A 0.3 JSON-RPC part, discriminated by `kind` (text, file or data; with `lenient_kind`, a part without one is
    read by the member it has), in canonical form; None when it has no form."""
    declared = part.get("kind")
    if declared is None:
        guessed = [k for k in PART_KINDS_V03 if k in part]
        if not lenient_kind or len(guessed) != 1:
            problems.append(Problem(f"{path}.kind", "a 0.3 part needs `kind` (text, file or data)"))
            if len(guessed) != 1:
                return None
        declared = guessed[0]
    if declared not in PART_KINDS_V03:
        problems.append(Problem(f"{path}.kind", f"unknown part kind {declared!r} (text, file or data)"))
        return None
    kind = declared
    if kind not in part:
        problems.append(Problem(f"{path}.{kind}", f"a {kind} part needs `{kind}`"))
        return None
    if kind == "text":
        if not isinstance(part["text"], str):
            problems.append(Problem(f"{path}.text", "must be a string"))
        return {"text": part["text"], **meta}
    if kind == "data":
        if not isinstance(part["data"], dict):
            problems.append(Problem(f"{path}.data", "a 0.3 data part holds an object"))
        return {"data": part["data"], **meta}
    file = part["file"]
    if not isinstance(file, dict) or ("bytes" in file) == ("uri" in file):
        problems.append(Problem(f"{path}.file", "a 0.3 file needs exactly one of bytes, uri"))
        return None
    out: JSONObject = {"raw": file["bytes"]} if "bytes" in file else {"url": file["uri"]}
    if "mimeType" in file:
        out["mediaType"] = file["mimeType"]
    if "name" in file:
        out["filename"] = file["name"]
    return {**out, **meta}


def parse_message(
    raw: object, form: Form, path: str = "message", lenient_kind: bool = False, max_parts: PartsLimit | None = None
) -> tuple[Message | None, list[Problem]]:
    """An incoming message in canonical form, and every problem found on the way (parts beyond `max_parts`: one
    problem, and none of them read)."""
    version, rest = form.version, form.rest
    problems: list[Problem] = []
    if not isinstance(raw, dict):
        return None, [Problem(path, "must be an object")]
    msg = _normalise_keys(raw, path, problems, form)
    out: JSONObject = {}
    if version is V03 and not rest:
        if msg.get("kind") != "message" and not (lenient_kind and "kind" not in msg):
            problems.append(
                Problem(
                    f"{path}.kind",
                    'a 0.3 message needs "kind": "message"'
                    if "kind" not in msg
                    else f'kind must be "message", not {msg["kind"]!r}',
                )
            )
    elif "kind" in msg and version is V1:
        problems.append(
            Problem(f"{path}.kind", "`kind` is a 0.3 field; 1.0 has no discriminator on Message", foreign=True)
        )
    mid = msg.get("messageId")
    if not isinstance(mid, str) or not mid:
        problems.append(Problem(f"{path}.messageId", "required: a non-empty string the sender creates"))
    else:
        out["messageId"] = mid
    role = states.parse_role(msg.get("role"), form)
    if role is None:
        expected = " or ".join(states.spell_role(r, form) for r in Role)
        given = msg.get("role")
        hint = ""
        for other in Version:
            if other is not version and states.parse_role(given, Form(other, Binding.JSONRPC)) is not None:
                hint = f" ({given!r} is the {other.value} spelling)"
        problems.append(
            Problem(
                f"{path}.role",
                f"required: {expected}{hint}" if given is None else f"must be {expected}, not {given!r}{hint}",
            )
        )
    else:
        out["role"] = role._value_
    parts_key = form.parts_key
    parts_raw = msg.get(parts_key)
    if parts_raw is None and version is V03 and rest and "parts" in msg:
        parts_raw, parts_key = msg["parts"], "parts"
    if not isinstance(parts_raw, list) or not parts_raw:
        problems.append(Problem(f"{path}.{parts_key}", "required: a non-empty list of parts"))
    elif max_parts is not None and len(parts_raw) > max_parts.most:
        problems.append(Problem(f"{path}.{parts_key}", max_parts.problem(len(parts_raw))))
    else:
        parts = [
            parse_part(p, form, f"{path}.{parts_key}[{i}]", problems, lenient_kind) for i, p in enumerate(parts_raw)
        ]
        out["parts"] = [p for p in parts if p is not None]
    for key in ("contextId", "taskId"):
        if key in msg:
            if not isinstance(msg[key], str):
                problems.append(Problem(f"{path}.{key}", "must be a string"))
            elif msg[key]:
                out[key] = msg[key]
    for key in ("metadata", "extensions", "referenceTaskIds"):
        if key in msg:
            out[key] = msg[key]
    if "metadata" in out and not isinstance(out["metadata"], dict):
        problems.append(Problem(f"{path}.metadata", "must be an object"))
    if problems and any(not p.foreign for p in problems):
        return None, problems
    return cast(Message, out), problems  # its members checked above (extensions, referenceTaskIds as given)


def parse_message_or_raise(
    raw: object, form: Form, path: str = "message", lenient_kind: bool = False, max_parts: PartsLimit | None = None
) -> Message:
    msg, problems = parse_message(raw, form, path, lenient_kind, max_parts)
    for problem in problems:
        if not problem.foreign:
            raise invalid_params(problem.path, problem.message)
    assert msg is not None
    return msg


def parse_push_config(raw: object, form: Form, path: str) -> tuple[TaskPushNotificationConfig | None, list[Problem]]:
    """A push config in canonical (1.0, flat) form from any version's shape."""
    version = form.version
    problems: list[Problem] = []
    if not isinstance(raw, dict):
        return None, [Problem(path, "must be an object")]
    cfg = _normalise_keys(raw, path, problems, form)
    if version is V03:
        inner_path = f"{path}.pushNotificationConfig"
        inner = cfg.get("pushNotificationConfig", cfg.get("config", cfg))
        if not isinstance(inner, dict):
            return None, [Problem(inner_path, "must be an object")]
        inner = _normalise_keys(inner, inner_path, problems, form)
        out: JSONObject = {k: inner[k] for k in ("id", "url", "token") if k in inner}
        where = {"id": inner_path, "token": inner_path, "taskId": path, "authentication": inner_path}
        auth = inner.get("authentication")
        if auth is not None:
            out["authentication"] = _v03_authentication(auth, f"{inner_path}.authentication", problems)
        if "taskId" in cfg:
            out["taskId"] = cfg["taskId"]
    else:
        out = {k: cfg[k] for k in ("id", "taskId", "url", "token", "authentication", "tenant") if k in cfg}
        where = {"id": path, "token": path, "taskId": path, "tenant": path, "authentication": path}
        auth = out.get("authentication")
        if auth is not None and (
            not isinstance(auth, dict) or not isinstance(auth.get("scheme"), str) or not auth.get("scheme")
        ):
            problems.append(
                Problem(f"{path}.authentication.scheme", "required when authentication is given (e.g. Bearer)")
            )
    for key, parent in where.items():
        if key in out and key != "authentication" and not isinstance(out[key], str):
            problems.append(Problem(f"{parent}.{key}", "must be a string"))
    auth = out.get("authentication")
    if isinstance(auth, dict) and "credentials" in auth and not isinstance(auth["credentials"], str):
        problems.append(Problem(f"{where['authentication']}.authentication.credentials", "must be a string"))
    url = out.get("url")
    if not isinstance(url, str) or not url:
        problems.append(Problem(f"{path}.url", "required: the webhook URL"))
    if any(not p.foreign for p in problems):
        return None, problems
    return cast(TaskPushNotificationConfig, out), problems  # its members checked above


def _v03_authentication(auth: object, path: str, problems: list[Problem]) -> JSONObject:
    """0.3 `{schemes: [..], credentials}` as the 1.0 `{scheme, credentials}` (the first scheme)."""
    if not isinstance(auth, dict):
        problems.append(Problem(path, "must be an object"))
        return {}
    schemes = auth.get("schemes", [])
    if not isinstance(schemes, list) or not all(isinstance(s, str) for s in schemes):
        problems.append(Problem(f"{path}.schemes", 'must be a list of scheme names (e.g. ["Bearer"])'))
        schemes = []
    return {
        "scheme": schemes[0] if schemes else "",
        **({"credentials": auth["credentials"]} if "credentials" in auth else {}),
    }


def stream_event_kind(body: object, form: Form) -> str | None:
    """Which StreamResponse member an event body carries (`task`, `message`, `statusUpdate`, `artifactUpdate`)."""
    version, rest = form.version, form.rest
    if not isinstance(body, dict):
        return None
    if version is V03 and not rest:
        kind = body.get("kind")
        for canonical, spelled in EVENT_KINDS_V03.items():
            if spelled == kind:
                return canonical
        return None
    present = [k for k in EVENT_KINDS_V1 if k in body]
    return present[0] if len(present) == 1 else None


def unknown_event_kind(body: object, form: Form) -> str | None:
    """The kind an event body names where it is a kind this protocol does not define (a later version's event), or
    None: a 0.3 JSON-RPC object whose `kind` is another string, or a member-named object (StreamResponse's oneof)
    none of whose members is an event kind, named by its members. A body that is no object, or names no kind at all
    in a discriminated form, is malformed, not unknown."""
    if not isinstance(body, dict) or not body:
        return None
    if form.discriminated:
        kind = body.get("kind")
        return kind if isinstance(kind, str) and kind not in EVENT_KINDS_V03.values() else None
    return None if any(k in body for k in EVENT_KINDS_V1) else ", ".join(sorted(body))


def event_task_id(body: object, form: Form) -> str | None:
    """The task an event or result body is about: a task's `id`, an update's or a message's `taskId`."""
    version, rest = form.version, form.rest
    kind = stream_event_kind(body, form)
    inner = body if (version is V03 and not rest) else body.get(kind or "", {}) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return None
    value = inner.get("id") if kind == "task" else inner.get("taskId")
    return value if isinstance(value, str) and value else None


def event_state(body: dict[str, Any], form: Form) -> TaskState | None:
    """The task state an event or result body reports, if any."""
    version, rest = form.version, form.rest
    kind = stream_event_kind(body, form)
    inner = body if (version is V03 and not rest) else body.get(kind or "", {})
    if kind == "task" or kind == "statusUpdate":
        status = inner.get("status") if isinstance(inner, dict) else None
        return states.parse(status.get("state")) if isinstance(status, dict) else None
    return None


# ------------------------------------------------------------------------------- `kind` discriminators

DISCRIMINATOR = "kind"


def _discriminated(form: Form) -> bool:
    """Only the 0.3 JSON-RPC form names the kind of its objects (T03); 1.0 and 0.3 HTTP+JSON are ProtoJSON (§5.5)."""
    version, rest = form.version, form.rest
    return version is V03 and not rest


def kind_problems(obj: object, what: str, form: Form, path: str) -> list[Problem]:
    """Where the form needs `kind` and where it must have none, in an object someone sent and what it holds.

    `what` is the object's canonical kind: `task`, `message`, `statusUpdate`, `artifactUpdate` or `part`. The 0.3
    JSON-RPC form names the kind of every task, message, event and part; the other forms name none (1.0
    discriminates by member name, notes §10.2).
    """
    problems: list[Problem] = []
    _check_kind(obj, what, form, path, problems)
    return problems


def _check_kind(obj: object, what: str, form: Form, path: str, problems: list[Problem]) -> None:
    version = form.version
    if not isinstance(obj, dict):
        return
    given = obj.get(DISCRIMINATOR)
    if _discriminated(form):
        if what == "part":
            wanted = next((k for k in PART_KINDS_V03 if k in obj), None)
            if given not in PART_KINDS_V03 or (wanted is not None and given != wanted):
                problems.append(
                    Problem(
                        f"{path}.kind",
                        f"a 0.3 part names its kind ({wanted or ' / '.join(PART_KINDS_V03)}), found {given!r}",
                    )
                )
        else:
            wanted = EVENT_KINDS_V03[what]
            if given != wanted:
                problems.append(Problem(f"{path}.kind", f'a 0.3 {what} needs "kind": "{wanted}", found {given!r}'))
    elif DISCRIMINATOR in obj:
        spelled = "1.0" if version is V1 else "0.3 HTTP+JSON"
        problems.append(
            Problem(
                f"{path}.kind",
                f"the {spelled} form has no `kind` (objects are discriminated by member name)",
                foreign=True,
            )
        )
    parts_key = form.parts_key
    children: list[tuple[Any, str, str]] = []
    status = obj.get("status")
    status = status if isinstance(status, dict) else {}
    if what == "task":
        children.append((status.get("message"), "message", f"{path}.status.message"))
        children += [(m, "message", f"{path}.history[{i}]") for i, m in enumerate(_list(obj.get("history")))]
        for i, artifact in enumerate(_list(obj.get("artifacts"))):
            parts = artifact.get("parts") if isinstance(artifact, dict) else None
            children += [(p, "part", f"{path}.artifacts[{i}].parts[{j}]") for j, p in enumerate(_list(parts))]
    elif what == "message":
        children += [(p, "part", f"{path}.{parts_key}[{i}]") for i, p in enumerate(_list(obj.get(parts_key)))]
    elif what == "statusUpdate":
        children.append((status.get("message"), "message", f"{path}.status.message"))
    elif what == "artifactUpdate":
        artifact = obj.get("artifact")
        parts = artifact.get("parts") if isinstance(artifact, dict) else None
        children += [(p, "part", f"{path}.artifact.parts[{i}]") for i, p in enumerate(_list(parts))]
    for child, kind, where in children:
        _check_kind(child, kind, form, where, problems)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
