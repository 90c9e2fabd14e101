"""What can go wrong, as exceptions the client turns into a clear `error` in its result (never a traceback)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ERROR_INFO_TYPE, ErrorType, by_code, by_name
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

#: JSON-RPC codes after which the next declared interface is tried (§5.2 SHOULD implement fallback).
_FALLBACK_CODES = frozenset({ErrorType.METHOD_NOT_FOUND.code, ErrorType.VERSION_NOT_SUPPORTED.code})
_FALLBACK_REASONS = frozenset({ErrorType.VERSION_NOT_SUPPORTED.kind.reason})
_FALLBACK_HTTP = frozenset({404, 405})
#: gRPC's own "no such method" (a server that does not implement the RPC); with an ErrorInfo reason it is an A2A error.
_FALLBACK_GRPC = "UNIMPLEMENTED"


@dataclass
class ClientFailure(LabError):
    """`type` is a stable word for machines (discovery, selection, transport, http, invalid_response,
    remote, no_answer, signature); `message` is a sentence for people."""

    type: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.message)

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, **self.details}


class UsageFailure(ClientFailure):
    """The caller asked for something impossible (a bad URL, a bad option): exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__("usage", message)


def call_context(op: Operation, binding: Binding, version: Version, url: str) -> dict[str, Any]:
    """What a failure of a call names, whatever its binding: the operation, binding, version and interface url."""
    return {"operation": op.value, "binding": binding.value, "version": version.value, "url": url}


def remote_error(
    message: str,
    *,
    code: int | None = None,
    http_status: int | None = None,
    reason: str | None = None,
    grpc_status: str | None = None,
    data: Any = None,
    **details: Any,
) -> ClientFailure:
    """The server answered with an error (JSON-RPC error object, an HTTP+JSON error status, or a gRPC status)."""
    info: dict[str, Any] = {
        k: v
        for k, v in (("code", code), ("http_status", http_status), ("grpc_status", grpc_status), ("reason", reason))
        if v is not None
    }
    named = by_name(reason) if reason is not None else None
    known = named if named is not None and named.code == code else by_code(code) if code is not None else None
    if known is not None:
        info["name"] = known.kind.name
    if data is not None:
        info["data"] = data
    return ClientFailure("remote", message, {**info, **details})


def error_info_reason(details: Any) -> str | None:
    """The ErrorInfo reason in a google.rpc details list (JSON-RPC `data` or HTTP `error.details`)."""
    if isinstance(details, list):
        for item in details:
            reason = item.get("reason") if isinstance(item, dict) and item.get("@type") == ERROR_INFO_TYPE else None
            if isinstance(reason, str):
                return reason
    return None


def http_error_fields(value: Any) -> tuple[str, str | None, int | None] | None:
    """An HTTP+JSON error body (`{"error": {...}}`, or the object itself) read as the client reads one: its message,
    its ErrorInfo reason, and its A2A error code (a negative `code`, else the one the reason names, §11.6); None
    when it is no error object with a message."""
    body = value.get("error") if isinstance(value, dict) and isinstance(value.get("error"), dict) else value
    if not (isinstance(body, dict) and isinstance(body.get("message"), str)):
        return None
    reason = error_info_reason(body.get("details"))
    code = value.get("code") if isinstance(value.get("code"), int) and value.get("code", 0) < 0 else None
    known = by_name(reason) if reason else None
    if code is None and known is not None:
        code = known.code
    return body["message"], reason, code


def invites_fallback(failure: ClientFailure) -> bool:
    """Whether the next declared interface is worth a try: this one does not speak the method or version
    (JSON-RPC -32601/-32009, ErrorInfo VERSION_NOT_SUPPORTED, HTTP+JSON 404/405, or gRPC UNIMPLEMENTED without an
    A2A reason)."""
    d = failure.details
    if failure.type == "remote" and (d.get("code") in _FALLBACK_CODES or d.get("reason") in _FALLBACK_REASONS):
        return True
    if d.get("binding") == Binding.GRPC.value:
        return failure.type == "remote" and d.get("grpc_status") == _FALLBACK_GRPC and d.get("reason") is None
    return (
        failure.type in ("remote", "http")
        and d.get("binding") == Binding.HTTP_JSON.value
        and d.get("http_status") in _FALLBACK_HTTP
        and d.get("reason") != ErrorType.TASK_NOT_FOUND.kind.reason
    )
