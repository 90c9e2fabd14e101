"""Building wire requests: the inverse of `params.read`.

Given an operation, a version, a binding and canonical (1.0-shaped) params, produce what goes on the
wire: a JSON-RPC method name and params object, an HTTP+JSON verb, path (relative to the interface
URL), query and body, or a gRPC method path and request message (as ProtoJSON). Pure functions, no I/O.

Canonical params use the names `params.read` produces, except that ListTasks takes `pageToken` (the
token a server issued) rather than a2a-lab's internal offset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import quote

from . import grpcwire, shapes, states
from .bindings import A2A_JSON, JSON, Binding
from .exceptions import LabError
from .forms import Form
from .json_types import Message
from .operations import MESSAGE_SENDS, SPECS, Operation
from .revisions import CURRENT_GENERATION
from .versions import HEADER, Version

V1, V03 = Version.V1_0, Version.V0_3
_BODY_VERBS = frozenset({"POST", "PUT", "PATCH"})
#: ListTasks query parameters (§11.5), in the order they are written.
_LIST_QUERY = (
    "contextId",
    "status",
    "pageSize",
    "pageToken",
    "historyLength",
    "statusTimestampAfter",
    "includeArtifacts",
)


class UnsupportedRequest(LabError, ValueError):
    """The operation does not exist in that version or binding, or required params are missing."""


@dataclass(frozen=True)
class RpcRequest:
    """A JSON-RPC call: POSTed to the interface URL inside a 2.0 envelope."""

    method: str
    params: dict[str, object]


@dataclass(frozen=True)
class RestRequest:
    """An HTTP+JSON call. `path` is relative to the interface URL and already URL-encoded."""

    verb: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, object] | None = None


@dataclass(frozen=True)
class GrpcRequest:
    """A gRPC call (§10): the method path (`/lf.a2a.v1.A2AService/SendMessage`) and the request message as ProtoJSON,
    which is the 1.0 JSON-RPC params object (the RPCs take the same messages, §5)."""

    path: str
    message: dict[str, object]


#: What `build` makes (the JSON bindings); gRPC calls are made by `grpc_request`.
WireRequest = RpcRequest | RestRequest


# ------------------------------------------------------------------------------------ service params


def content_type(binding: Binding, version: Version) -> str:
    """Request Content-Type: JSON-RPC is always application/json; 1.0 HTTP+JSON uses application/a2a+json."""
    if binding is Binding.HTTP_JSON and version is V1:
        return A2A_JSON
    return JSON


def version_headers(version: Version) -> dict[str, str]:
    """The A2A-Version header a client sends: Major.Minor for 1.0; none for 0.3 (genuine 0.3 clients send none)."""
    return {HEADER: version.value} if version is V1 else {}


#: The HTTP authentication scheme a2a-lab's clients present and register for webhooks (IANA name).
BEARER = "Bearer"
AUTHORIZATION = "Authorization"
#: The header a push notification carries its config's `token` in (0.3 §9.5; 1.0 does not define it, servers still
#: send it).
NOTIFICATION_TOKEN_HEADER = "X-A2A-Notification-Token"


def bearer(credentials: str) -> str:
    """The `Authorization` value for a bearer credential."""
    return f"{BEARER} {credentials}"


def auth_headers(token: str | None) -> dict[str, str]:
    """`Authorization: Bearer <token>` when a token is given (§7.4; the card's securitySchemes say which)."""
    return {AUTHORIZATION: bearer(token)} if token else {}


# ----------------------------------------------------------------------------------- canonical params


def push_config(
    url: str, credentials: str | None = None, token: str | None = None, scheme: str = BEARER
) -> dict[str, object]:
    """A canonical (1.0, flat) TaskPushNotificationConfig for a webhook, taskId left empty (set inline in SendMessage).

    `build` turns it into 0.3's `pushNotificationConfig` with `authentication.schemes` where the version needs it.
    """
    config: dict[str, object] = {"url": url}
    if token:
        config["token"] = token
    if credentials is not None:
        config["authentication"] = {"scheme": scheme, "credentials": credentials}
    return config


def send_configuration(
    return_immediately: bool = False,
    push: Mapping[str, object] | None = None,
    accepted_output_modes: Sequence[str] | None = None,
) -> dict[str, object]:
    """A canonical SendMessageConfiguration: blocking unless `return_immediately` (0.3: `blocking`), with an
    inline webhook (1.0 `taskPushNotificationConfig`, 0.3 `pushNotificationConfig`) when one is given, and the
    media types the client accepts (`acceptedOutputModes`, the same name in both versions) when given."""
    cfg: dict[str, object] = {"returnImmediately": return_immediately}
    if accepted_output_modes is not None:
        cfg["acceptedOutputModes"] = list(accepted_output_modes)
    if push is not None:
        cfg["taskPushNotificationConfig"] = dict(push)
    return cfg


# ------------------------------------------------------------------------------------------- build


def build(op: Operation, version: Version, binding: Binding, params: Mapping[str, object]) -> WireRequest:
    if binding is Binding.JSONRPC:
        return jsonrpc_request(op, version, params)
    if binding is Binding.HTTP_JSON:
        return rest_request(op, version, params)
    raise UnsupportedRequest(
        f"build makes JSON-RPC and HTTP+JSON requests, not {binding.value} (gRPC calls: grpc_request)"
    )


def jsonrpc_request(op: Operation, version: Version, params: Mapping[str, object]) -> RpcRequest:
    method = SPECS[op].jsonrpc.get(version)
    if method is None:
        raise UnsupportedRequest(f"{op.value} has no JSON-RPC method in A2A {version.value}")
    body = _body(op, Form(version, Binding.JSONRPC), params)
    tenant = params.get("tenant")
    if version is V1 and isinstance(tenant, str) and tenant:  # tenants are a 1.0 concept
        body["tenant"] = tenant
    return RpcRequest(method, body)


def grpc_request(op: Operation, version: Version, params: Mapping[str, object]) -> GrpcRequest:
    if version is not V1:
        raise UnsupportedRequest(f"a2a-lab speaks gRPC in A2A 1.0 ({grpcwire.SERVICE}), not {version.value}")
    return GrpcRequest(grpcwire.method_path(op), jsonrpc_request(op, version, params).params)


def rest_request(op: Operation, version: Version, params: Mapping[str, object]) -> RestRequest:
    routes = SPECS[op].rest.get(version)
    if not routes:
        raise UnsupportedRequest(f"{op.value} has no HTTP+JSON route in A2A {version.value}")
    route = routes[0]  # the first route is the one clients send (e.g. POST for subscribe, notes §11 D1)
    values = {name: _required(params, name, op) for name in route.regex.groupindex}
    path = route.path(**{name: quote(value, safe="") for name, value in values.items()})
    tenant = params.get("tenant")
    if version is V1 and isinstance(tenant, str) and tenant:
        path = f"/{quote(tenant, safe='')}{path}"
    query = _query(op, version, params)
    body: dict[str, object] | None = None
    if route.verb in _BODY_VERBS:
        body = _rest_body(op, version, params)
    return RestRequest(route.verb, path, query, body)


# ------------------------------------------------------------------------------------------ helpers


def _required(params: Mapping[str, object], key: str, op: Operation) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise UnsupportedRequest(f"{op.value} needs `{key}` (a non-empty string)")
    return value


def _message(params: Mapping[str, object], form: Form, op: Operation) -> dict[str, object]:
    message = params.get("message")
    if not isinstance(message, dict):
        raise UnsupportedRequest(f"{op.value} needs `message` (a canonical 1.0 Message)")
    return shapes.message_out(cast(Message, message), form)  # the caller's canonical message, as it says


def _push_inner(config: object, form: Form) -> dict[str, object]:
    """A canonical push config as 0.3's inner PushNotificationConfig (`form` is a 0.3 one)."""
    canonical = dict(cast("Mapping[str, object]", config))  # a TaskPushNotificationConfig (push_config makes them)
    inner: dict[str, object] = shapes.push_config_out(canonical, form)["pushNotificationConfig"]
    return inner


def _configuration(cfg: Mapping[str, object], form: Form) -> dict[str, object]:
    if form.version is V1:
        return dict(cfg)
    out: dict[str, object] = {}
    for key, value in cfg.items():
        if key == "returnImmediately":
            out["blocking"] = not bool(value)
        elif key == "taskPushNotificationConfig":
            out[shapes.inline_push_key(form)] = _push_inner(value, form)
        else:
            out[key] = value
    return out


def _send_body(params: Mapping[str, object], form: Form, op: Operation) -> dict[str, object]:
    body: dict[str, object] = {"message": _message(params, form, op)}
    cfg = params.get("configuration")
    if isinstance(cfg, Mapping) and cfg:
        body["configuration"] = _configuration(cfg, form)
    if isinstance(params.get("metadata"), dict):
        body["metadata"] = params["metadata"]
    return body


def _pick(params: Mapping[str, object], keys: tuple[str, ...]) -> dict[str, object]:
    return {k: _wire_value(params[k]) for k in keys if params.get(k) is not None}


def _wire_value(value: object) -> object:
    return value.value if isinstance(value, states.TaskState) else value


def _body(op: Operation, form: Form, params: Mapping[str, object]) -> dict[str, object]:
    """The JSON-RPC params object (without tenant) in the version's form."""
    version = form.version
    if op in MESSAGE_SENDS:
        return _send_body(params, form, op)
    if op is Operation.GET_TASK:
        return {"id": _required(params, "id", op), **_pick(params, ("historyLength", CURRENT_GENERATION))}
    if op is Operation.CANCEL_TASK:
        return {"id": _required(params, "id", op), **_pick(params, ("metadata",))}
    if op is Operation.SUBSCRIBE_TO_TASK:
        return {"id": _required(params, "id", op)}
    if op is Operation.LIST_TASKS:
        return _pick(params, _LIST_QUERY)
    if op is Operation.CREATE_PUSH_CONFIG:
        _required(params, "taskId", op)
        _required(params, "url", op)
        config = {k: v for k, v in params.items() if k != "tenant"}
        return config if version is V1 else shapes.push_config_out(config, form)
    if op in (Operation.GET_PUSH_CONFIG, Operation.DELETE_PUSH_CONFIG):
        task_id, config_id = _required(params, "taskId", op), _required(params, "id", op)
        return (
            {"taskId": task_id, "id": config_id}
            if version is V1
            else {"id": task_id, "pushNotificationConfigId": config_id}
        )
    if op is Operation.LIST_PUSH_CONFIGS:
        task_id = _required(params, "taskId", op)
        if version is V1:
            return {"taskId": task_id, **_pick(params, ("pageSize", "pageToken"))}
        return {"id": task_id}
    if op is Operation.GET_EXTENDED_CARD:
        return {}
    raise UnsupportedRequest(f"no request builder for {op.value}")  # pragma: no cover - every operation is handled


def _rest_body(op: Operation, version: Version, params: Mapping[str, object]) -> dict[str, object]:
    """A POST body: what is not in the path (§3.5: google.api.http transcoding with body `*`)."""
    if op in MESSAGE_SENDS:
        return _send_body(params, Form(version, Binding.HTTP_JSON), op)
    if op is Operation.CANCEL_TASK:
        return _pick(params, ("metadata",))  # `{}`, never null (notes §3.5)
    if op is Operation.CREATE_PUSH_CONFIG:
        return _body(op, Form(version, Binding.HTTP_JSON), params)
    return {}


def _query_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_wire_value(value))


def _query(op: Operation, version: Version, params: Mapping[str, object]) -> dict[str, str]:
    """GET query parameters: camelCase, booleans as true/false, enums by name (§11.5)."""
    if op is Operation.GET_TASK:
        keys: tuple[str, ...] = ("historyLength", CURRENT_GENERATION)
    elif op is Operation.LIST_TASKS:
        keys = _LIST_QUERY
    elif op is Operation.LIST_PUSH_CONFIGS and version is V1:
        keys = ("pageSize", "pageToken")
    else:
        return {}
    return {k: _query_text(params[k]) for k in keys if params.get(k) is not None}
