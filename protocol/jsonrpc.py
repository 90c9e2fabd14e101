"""JSON-RPC 2.0 envelopes (spec §9; JSON-RPC 2.0)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import A2AError, ErrorType
from .versions import Version

_MISSING = object()


@dataclass(frozen=True)
class Request:
    id: Any
    method: str
    params: Any
    has_id: bool = True


def parse_request(body: Any) -> Request:
    """Validate a decoded JSON-RPC request object; raises A2AError (-32600) naming what is wrong."""
    if isinstance(body, list):
        raise A2AError(ErrorType.INVALID_REQUEST, "Batch requests are not supported")
    if not isinstance(body, dict):
        raise A2AError(ErrorType.INVALID_REQUEST, "The request must be a JSON object")
    if body.get("jsonrpc") != "2.0":
        raise A2AError(ErrorType.INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', field="jsonrpc")
    req_id = body.get("id", _MISSING)
    if req_id is not _MISSING and req_id is not None and (isinstance(req_id, bool) or not isinstance(req_id, (str, int, float))):
        raise A2AError(ErrorType.INVALID_REQUEST, 'Invalid request: "id" must be a string, a number or null', field="id")
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise A2AError(ErrorType.INVALID_REQUEST, 'Invalid request: "method" must be a non-empty string', field="method")
    params = body.get("params", _MISSING)
    if params is not _MISSING and not isinstance(params, (dict, list)):
        raise A2AError(ErrorType.INVALID_REQUEST, 'Invalid request: "params" must be an object', field="params")
    return Request(None if req_id is _MISSING else req_id, method, {} if params is _MISSING else params, req_id is not _MISSING)


def request_id_of(body: Any) -> Any:
    """The id to echo in an error answer: the request's when it is usable, else null."""
    if isinstance(body, dict):
        rid = body.get("id")
        if rid is None or (isinstance(rid, (str, int, float)) and not isinstance(rid, bool)):
            return rid
    return None


def result(req_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "result": value}


def error(req_id: Any, err: A2AError, version: Version) -> dict[str, Any]:
    """An error answer. 1.0 carries google.rpc details in `data` (§9.5); 0.3 data is free-form."""
    body: dict[str, Any] = {"code": err.code, "message": err.text}
    details = err.details()
    if details:
        if version is Version.V1_0:
            body["data"] = details
        elif err.field:
            body["data"] = {"field": err.field}
    return {"jsonrpc": "2.0", "id": req_id, "error": body}


def envelope(method: str, params: Any, req_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "method": method, "params": params}
