"""Operation parameters: every version's and binding's spelling read into one canonical form.

Canonical params use the 1.0 JSON-RPC names: `message`, `configuration` (`returnImmediately`,
`historyLength`, `taskPushNotificationConfig`, `acceptedOutputModes`), `id`, `taskId`, `historyLength`,
`contextId`, `status`, `pageSize`, `pageToken`, `includeArtifacts`, `statusTimestampAfter`, `tenant`; and the 1.1
draft's `currentGeneration` (GetTask) and `configuration.ifGenerationMatch`, kept as sent: only a server of that
revision reads them (server/generations.py), any other ignores them as the unknown members they are to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from . import shapes, states
from .errors import A2AError, ErrorType, invalid_params
from .forms import V1_JSONRPC, Form
from .operations import MESSAGE_SENDS, Operation
from .revisions import CURRENT_GENERATION, IF_GENERATION_MATCH
from .versions import Version

V1, V03 = Version.V1_0, Version.V0_3


def _digits(text: str) -> bool:
    """A whole number an int32/int64 field can hold, in ASCII digits: `str.isdigit` also accepts `²`, which
    `int()` refuses, and `int()` refuses more than 4300 digits."""
    return text.isascii() and text.isdigit() and len(text) <= 19


def _need_str(params: Mapping[str, object], key: str, where: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise invalid_params(f"{where}{key}", "required: a non-empty string")
    return value


def _opt_int(value: object, field_path: str, minimum: int | None = None, maximum: int | None = None) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and _digits(value.removeprefix("-")):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid_params(field_path, f"must be a whole number, not {value!r}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f">= {minimum}"
        raise invalid_params(field_path, f"must be {bounds}, not {value}")
    return value


def _opt_bool(value: object, field_path: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if not isinstance(value, bool):
        raise invalid_params(field_path, f"must be true or false, not {value!r}")
    return value


def _refuse_unknown(op: Operation, params: Mapping[str, object]) -> None:
    """-32602 for a member the 1.0 request message does not define, worded as a strict ProtoJSON parser words it
    (protobuf's json_format, which the a2a-sdk's servers use): the normative proto decides what is known. Needs the
    `grpc` extra (the proto types); without it nothing is refused."""
    try:
        from . import protobuf
    except ImportError:
        return
    try:
        protobuf.from_json(params, protobuf.request_class(op), strict=True)
    except protobuf.DecodeError as exc:
        raise A2AError(ErrorType.INVALID_PARAMS, str(exc)) from None


@cache
def _no_configuration(form: Form, where: str) -> dict[str, Any]:
    """The configuration of a send that has none, as `_configuration` reads `{}` (never handed out: copied)."""
    return _configuration({}, form, where)


def _configuration(given: object, form: Form, where: str) -> dict[str, Any]:
    """A send's `configuration` in canonical form (A2AError -32602 naming the member at fault)."""
    version = form.version
    if not isinstance(given, dict):
        raise invalid_params(f"{where}configuration", "must be an object")
    cfg_in = {shapes.camel(k): v for k, v in given.items()}
    cfg: dict[str, Any] = {}
    if version is V1:
        ri = _opt_bool(cfg_in.get("returnImmediately"), f"{where}configuration.returnImmediately")
        cfg["returnImmediately"] = bool(ri)
        push_raw = cfg_in.get(shapes.inline_push_key(form))
    else:
        blocking = _opt_bool(cfg_in.get("blocking"), f"{where}configuration.blocking")
        cfg["returnImmediately"] = blocking is False
        push_raw = cfg_in.get(shapes.inline_push_key(form))
        if push_raw is not None:
            push_raw = {"pushNotificationConfig": push_raw}
    hl = _opt_int(cfg_in.get("historyLength"), f"{where}configuration.historyLength", 0)
    if hl is not None:
        cfg["historyLength"] = hl
    if cfg_in.get(IF_GENERATION_MATCH) is not None and version is V1:
        cfg[IF_GENERATION_MATCH] = cfg_in[IF_GENERATION_MATCH]  # 1.1 (§3.2.2): a 1.1 server reads it
    modes = cfg_in.get("acceptedOutputModes")
    if modes is not None:
        if not isinstance(modes, list) or not all(isinstance(m, str) for m in modes):
            raise invalid_params(f"{where}configuration.acceptedOutputModes", "must be a list of media types")
        cfg["acceptedOutputModes"] = list(modes)
    if push_raw is not None:
        push, problems = shapes.parse_push_config(push_raw, form, f"{where}configuration.taskPushNotificationConfig")
        for p in problems:
            if not p.foreign:
                raise invalid_params(p.path, p.message)
        cfg["taskPushNotificationConfig"] = push
    return cfg


def read(
    op: Operation,
    form: Form,
    params: object,
    path_params: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    lenient_kind: bool = False,
    max_parts: shapes.PartsLimit | None = None,
    refuse_unknown: bool = False,
) -> dict[str, Any]:
    """Canonical params for an operation, or A2AError(-32602) naming the field at fault (a message with more parts
    than `max_parts` among them; with `refuse_unknown`, a 1.0 member the request's proto message does not define)."""
    version, rest = form.version, form.rest
    where = "" if rest else "params."
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise invalid_params("params" if not rest else "body", "must be an object")
    if refuse_unknown and version is V1:
        _refuse_unknown(op, params)
    merged = _merged(params, path_params, query)
    out: dict[str, Any] = {}
    if isinstance(merged.get("tenant"), str) and merged["tenant"]:
        out["tenant"] = merged["tenant"]
    if op in MESSAGE_SENDS:
        return _message_send(merged, out, form, where, lenient_kind, max_parts)
    if op in (Operation.GET_TASK, Operation.CANCEL_TASK, Operation.SUBSCRIBE_TO_TASK):
        return _task_ref(op, merged, out, form, where)
    if op is Operation.LIST_TASKS:
        return _list_tasks(merged, out, where)
    if op is Operation.CREATE_PUSH_CONFIG:
        return _new_push_config(merged, form, where)
    if op in (Operation.GET_PUSH_CONFIG, Operation.DELETE_PUSH_CONFIG, Operation.LIST_PUSH_CONFIGS):
        return _push_config_ref(op, merged, out, form, where)
    if op is Operation.GET_EXTENDED_CARD:
        return out
    raise A2AError(ErrorType.METHOD_NOT_FOUND)  # pragma: no cover - every operation is handled above


def _merged(params: dict[str, Any], path_params: dict[str, str] | None, query: dict[str, str] | None) -> dict[str, Any]:
    """The body's, the query's and the path's params as one mapping, in camelCase: ProtoJSON parsers accept the proto
    (snake_case) field names too; a server reads both (clients are judged apart). The path wins over the body (notes
    §3.5), the body over the query. To be read, never written: it is `params` itself when there is nothing to merge or
    rename."""
    if not query and not path_params and "_" not in "".join(params):
        return params  # nothing to merge or rename (a JSON-RPC call's params, most often)
    merged: dict[str, Any] = {}
    for key, value in params.items():
        merged.setdefault(shapes.camel(key) if "_" in key else key, value)
    for key, value in (query or {}).items():
        merged.setdefault(shapes.camel(key), value)
    for key, value in (path_params or {}).items():
        merged[key] = value  # the path wins over the body (notes §3.5)
    return merged


def _message_send(
    merged: dict[str, Any],
    out: dict[str, Any],
    form: Form,
    where: str,
    lenient_kind: bool,
    max_parts: shapes.PartsLimit | None,
) -> dict[str, Any]:
    """SendMessage's and SendStreamingMessage's params: the message, its configuration and metadata, into `out`."""
    raw_msg = merged.get("message", merged.get("request") if form.version is V03 and form.rest else None)
    if raw_msg is None:
        raise invalid_params(f"{where}message", "required: the message to send")
    out["message"] = shapes.parse_message_or_raise(raw_msg, form, f"{where}message", lenient_kind, max_parts)
    cfg_in = merged.get("configuration")
    # most sends carry no configuration: what the reader makes of none, made once per form (a copy each time)
    out["configuration"] = (
        dict(_no_configuration(form, where)) if cfg_in is None else _configuration(cfg_in, form, where)
    )
    if isinstance(merged.get("metadata"), dict):
        out["metadata"] = merged["metadata"]
    return out


def _task_ref(op: Operation, merged: dict[str, Any], out: dict[str, Any], form: Form, where: str) -> dict[str, Any]:
    """GetTask's, CancelTask's and SubscribeToTask's params: the task's id and the history length, into `out`."""
    version = form.version
    if version is V03 and form.rest and "name" in merged and "id" not in merged:
        merged = {**merged, "id": str(merged["name"]).removeprefix("tasks/")}  # a copy: may be the caller's
    out["id"] = _need_str(merged, "id", where)
    hl = _opt_int(merged.get("historyLength"), f"{where}historyLength", 0)
    if hl is not None:
        out["historyLength"] = hl
    if merged.get(CURRENT_GENERATION) is not None and op is Operation.GET_TASK and version is V1:
        out[CURRENT_GENERATION] = merged[CURRENT_GENERATION]  # 1.1 (§3.2.7): a 1.1 server reads it
    return out


def _list_tasks(merged: dict[str, Any], out: dict[str, Any], where: str) -> dict[str, Any]:
    """ListTasks' params: the filters, the page (its size and the offset its token names), into `out`."""
    if "contextId" in merged:
        out["contextId"] = str(merged["contextId"])
    if merged.get("status") not in (None, ""):
        state = states.parse_strict(merged["status"], V1_JSONRPC)
        if state is None:
            raise invalid_params(f"{where}status", f"unknown task state {merged['status']!r} (e.g. TASK_STATE_WORKING)")
        out["status"] = state
    out["pageSize"] = _opt_int(merged.get("pageSize"), f"{where}pageSize", 1, 100) or 50
    token = merged.get("pageToken") or ""
    if not isinstance(token, str) or (token and not _digits(token)):
        raise invalid_params(f"{where}pageToken", "is not a page token this server issued")
    out["offset"] = int(token or 0)
    hl = _opt_int(merged.get("historyLength"), f"{where}historyLength", 0)
    if hl is not None:
        out["historyLength"] = hl
    out["includeArtifacts"] = bool(_opt_bool(merged.get("includeArtifacts"), f"{where}includeArtifacts"))
    after = merged.get("statusTimestampAfter")
    if after is not None and not isinstance(after, str):
        raise invalid_params(f"{where}statusTimestampAfter", "must be an ISO-8601 timestamp")
    out["statusTimestampAfter"] = after
    return out


def _new_push_config(merged: dict[str, Any], form: Form, where: str) -> dict[str, Any]:
    """CreateTaskPushNotificationConfig's params: the config itself, in canonical (flat) form."""
    push_cfg, problems = shapes.parse_push_config(merged, form, "params" if not form.rest else "body")
    for p in problems:
        if not p.foreign:
            raise invalid_params(p.path, p.message)
    assert push_cfg is not None
    if not push_cfg.get("taskId"):
        raise invalid_params(f"{where}taskId", "required: the task the config is for")
    return dict(push_cfg)


def _push_config_ref(
    op: Operation, merged: dict[str, Any], out: dict[str, Any], form: Form, where: str
) -> dict[str, Any]:
    """Get-, Delete- and ListTaskPushNotificationConfig's params: the task's id (`taskId`) and, but for List, the
    config's (`id`), into `out`; 0.3 JSON-RPC names them `id` and `pushNotificationConfigId` (optional in a Get)."""
    if form.version is V03 and not form.rest:
        out["taskId"] = _need_str(merged, "id", where)
        if op is not Operation.LIST_PUSH_CONFIGS:
            cid = merged.get("pushNotificationConfigId")
            if op is Operation.DELETE_PUSH_CONFIG or cid is not None:
                out["id"] = _need_str(merged, "pushNotificationConfigId", where)
        return out
    out["taskId"] = _need_str(merged, "taskId", where)
    if op is not Operation.LIST_PUSH_CONFIGS:
        out["id"] = _need_str(merged, "id", where)
    return out
