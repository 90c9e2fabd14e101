"""JSON-RPC 2.0 envelopes (spec §9; JSON-RPC 2.0)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .errors import A2AError, EnvelopeProblem, ErrorType, by_code, detail_problems, error_info
from .versions import Version

#: The `jsonrpc` member every request and response carries (JSON-RPC 2.0 §4, §5).
VERSION = "2.0"

_MISSING = object()


#: A JSON-RPC request id: a string, a number or null (JSON-RPC 2.0 §4).
RequestId = str | int | float | None


class Request(NamedTuple):
    """A request as parse_request found it (a named tuple: one per request, made cheaply)."""

    id: RequestId
    method: str
    params: Any
    has_id: bool = True


def parse_request(body: object) -> Request:
    """Validate a decoded JSON-RPC request object; raises A2AError (-32600) naming what is wrong."""
    if not isinstance(body, dict):
        if isinstance(body, list):
            raise A2AError(ErrorType.INVALID_REQUEST, "Batch requests are not supported")
        raise A2AError(ErrorType.INVALID_REQUEST, "The request must be a JSON object")
    if body.get("jsonrpc") != VERSION:
        raise A2AError(ErrorType.INVALID_REQUEST, f'Invalid request: "jsonrpc" must be "{VERSION}"', field="jsonrpc")
    req_id = body.get("id", _MISSING)
    if (
        req_id is not _MISSING
        and req_id is not None
        and (isinstance(req_id, bool) or not isinstance(req_id, (str, int, float)))
    ):
        raise A2AError(
            ErrorType.INVALID_REQUEST, 'Invalid request: "id" must be a string, a number or null', field="id"
        )
    method = body.get("method")
    if not isinstance(method, str) or not method:
        raise A2AError(
            ErrorType.INVALID_REQUEST, 'Invalid request: "method" must be a non-empty string', field="method"
        )
    params = body.get("params", _MISSING)
    if params is not _MISSING and not isinstance(params, (dict, list)):
        raise A2AError(ErrorType.INVALID_REQUEST, 'Invalid request: "params" must be an object', field="params")
    request_id = req_id if isinstance(req_id, (str, int, float)) else None  # checked above: absent, null or these
    return Request(request_id, method, {} if params is _MISSING else params, req_id is not _MISSING)


def request_id_of(body: object) -> RequestId:
    """The id to echo in an error answer: the request's when it is usable, else null."""
    if isinstance(body, dict):
        rid = body.get("id")
        if rid is None or (isinstance(rid, (str, int, float)) and not isinstance(rid, bool)):
            return rid
    return None


def result(req_id: RequestId, value: object) -> dict[str, object]:
    return {"jsonrpc": VERSION, "id": req_id, "result": value}


def error(req_id: RequestId, err: A2AError, version: Version) -> dict[str, Any]:
    """An error answer. 1.0 carries google.rpc details in `data` (§9.5); 0.3 data is free-form."""
    body: dict[str, object] = {"code": err.code, "message": err.text}
    details = err.details()
    if details:
        if version is Version.V1_0:
            body["data"] = details
        elif err.field:
            body["data"] = {"field": err.field}
    return {"jsonrpc": VERSION, "id": req_id, "error": body}


def envelope(method: str, params: object, req_id: RequestId) -> dict[str, object]:
    return {"jsonrpc": VERSION, "id": req_id, "method": method, "params": params}


def error_problems(err: object, version: Version) -> list[EnvelopeProblem]:
    """What is wrong with the `error` member of a JSON-RPC answer someone sent (JSON-RPC 2.0 §5.1; A2A 1.0 §9.5).

    `code` is an integer and `message` a string; in 1.0, `data` is a list of objects naming their `@type`, and an
    A2A error (-32001...) SHOULD carry an ErrorInfo (v1.0.1; v1.0.0 said MUST: notes D4). 0.3 `data` is free-form.
    """
    if not isinstance(err, dict):
        return [EnvelopeProblem(f"error must be an object, not {type(err).__name__}")]
    out: list[EnvelopeProblem] = []
    code = err.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        out.append(EnvelopeProblem(f"error.code must be an integer, not {code!r}"))
    if not isinstance(err.get("message"), str):
        out.append(EnvelopeProblem(f"error.message must be a string, not {err.get('message')!r}"))
    if version is not Version.V1_0:
        return out
    if "data" in err:
        out.extend(detail_problems(err["data"], "error.data"))
    known = by_code(code) if isinstance(code, int) and not isinstance(code, bool) else None
    if known is not None and known.kind.reason and error_info(err.get("data")) is None:
        out.append(
            EnvelopeProblem(
                f"error.data carries no google.rpc.ErrorInfo for {known.kind.name} (reason {known.kind.reason})",
                should=True,
            )
        )
    return out


def replace_id(raw: bytes, req_id: RequestId) -> bytes:
    """The same answer bytes with the value of the top-level `id` member replaced by `req_id` (JSON).

    Everything else stays byte for byte (formatting, member order, escapes). Bytes that are not a JSON object,
    or an object without a top-level `id`, are returned unchanged.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw
    span = _top_level_member(text, "id")
    if span is None:
        return raw
    start, end = span
    return (text[:start] + json.dumps(req_id) + text[end:]).encode("utf-8")


_WHITESPACE = " \t\n\r"


def _top_level_member(text: str, name: str) -> tuple[int, int] | None:
    """The character span of the value of member `name` of the JSON object `text`, or None."""
    decoder = json.JSONDecoder()
    i = len(text) - len(text.lstrip(_WHITESPACE))
    if not text.startswith("{", i):
        return None
    i += 1
    found: tuple[int, int] | None = None
    try:
        while True:
            while i < len(text) and text[i] in _WHITESPACE:
                i += 1
            if text.startswith("}", i):
                return found
            if not text.startswith('"', i):
                return None
            # json's own (C) string scanner: the exact JSON string rules, fast.
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # not in typeshed
            while i < len(text) and text[i] in _WHITESPACE:
                i += 1
            if not text.startswith(":", i):
                return None
            i += 1
            while i < len(text) and text[i] in _WHITESPACE:
                i += 1
            _, end = decoder.raw_decode(text, i)
            if key == name:
                found = (i, end)  # the last one wins, as in json.loads
            i = end
            while i < len(text) and text[i] in _WHITESPACE:
                i += 1
            if text.startswith(",", i):
                i += 1
            elif not text.startswith("}", i):
                return None
    except ValueError:
        return None


def rpc_response_problem(body: Any, request_id: Any) -> str | None:
    """Why a body is no JSON-RPC 2.0 response to this request ("jsonrpc": "2.0", the request's id, exactly one of
    `result` and `error`), or None when it is one."""
    if not isinstance(body, dict):
        return "not a JSON object"
    if ("result" in body) == ("error" in body):
        return "both `result` and `error`" if "result" in body else "neither `result` nor `error`"
    if body.get("jsonrpc") != VERSION:
        return f"jsonrpc {body.get('jsonrpc')!r}"
    if "id" not in body or body["id"] != request_id or type(body["id"]) is not type(request_id):
        return f"id {body.get('id')!r}, the request's was {request_id!r}"
    return None
