"""The JSON-RPC binding (spec §9; 0.3 §7): one POST endpoint, methods of every version it serves."""

from __future__ import annotations

from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.contract import edits
from a2a_lab.contract.journal_record import Answer, EntryKind, RpcRef
from a2a_lab.contract.scenario import Endpoint, Envelope, EnvelopeId, Reply
from a2a_lab.contract.style import MediaKey
from a2a_lab.protocol import forms, jsonrpc, jsontext, operations, params, wire
from a2a_lab.protocol.bindings import EVENT_STREAM, JSON, Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.negotiation import negotiate
from a2a_lab.protocol.versions import Version

from . import answer, dispatch, generations, http, intake, leniency, raw_reply
from .state import LabState
from .stream_edits import REQUEST_ID, Extra

WRONG_ID_PREFIX = "a2a-lab-wrong-id-"


def _with_envelope(body: dict[str, Any], env: Envelope, req_id: Any) -> dict[str, Any]:
    if env.id is EnvelopeId.ECHO and not env.both and not env.neither:  # every answer and event: the common case
        return body
    if env.id is EnvelopeId.WRONG:
        body["id"] = f"{WRONG_ID_PREFIX}{req_id}"
    elif env.id is EnvelopeId.NULL:
        body["id"] = None
    elif env.id is EnvelopeId.OMIT:
        body.pop("id", None)
    if env.both:
        body.setdefault("result", None)
        body.setdefault(
            "error", {"code": ErrorType.INTERNAL_ERROR.code, "message": "a2a-lab: both result and error (injected)"}
        )
    if env.neither:
        body.pop("result", None)
        body.pop("error", None)
    return body


async def _error(
    ex: intake.Exchange,
    req_id: Any,
    err: A2AError,
    version: Version,
    reply: Reply | None = None,
    status: int = 200,
    extra: list[tuple[str, str]] | None = None,
) -> None:
    worded = ex.worded(err, Binding.JSONRPC, version)
    err, status = worded.error, worded.http_status or status
    body = jsonrpc.error(req_id, err, version)
    if reply is not None:
        body = _with_envelope(body, reply.envelope, req_id)
    ex.entry.answer = Answer.error(err.code)
    status = reply.error_http_status or status if reply else status
    if worded.sse:  # the refusal as a stream of one error event (error_messages[].sse)
        sep = ex.style.sse_separator.encode()
        event = b"event: error" + sep + b"data: " + http.dumps(body) + sep + sep
        media = ex.style.media_type(MediaKey.EVENT_STREAM, EVENT_STREAM)
        # the headers sse-starlette gives a stream, then the style's
        stream = {"cache-control": "no-store", "x-accel-buffering": "no", **ex.style.stream_headers()}
        headers = [*(extra or []), *stream.items()]
        headers = [*(h for h in headers if h[0] != "content-type"), *ex.style.headers]  # a stream has no ETag
        await answer.send_body(ex.scope, ex.receive, ex.send, ex.entry, status, event, media, reply, headers)
        return
    media = ex.style.answer_type(Binding.JSONRPC, version, JSON)
    await ex.answer(status, http.dumps(body), media, reply, extra)


async def handle(
    state: LabState, endpoint: Endpoint, scope: Scope, receive: Receive, send: Send, base_url: str
) -> None:
    default_version = endpoint.versions[0]
    ex, refusal = await intake.take(state, endpoint, scope, receive, send, EntryKind.JSONRPC)
    if refusal is not None:
        await _error(ex, None, refusal.error, default_version, status=refusal.status, extra=refusal.extra)
        return
    page = state.scenario.not_found
    if scope["method"] != "POST" and page is not None:
        await ex.not_found(page)
        return
    if scope["method"] != "POST":
        problem = A2AError(ErrorType.INVALID_REQUEST, f"JSON-RPC requests are POSTed; got {scope['method']}")
        await _error(ex, None, problem, default_version, status=405)
        return
    if not leniency.content_type_ok(state.scenario, ex.headers.get("content-type"), (JSON,)):
        problem = A2AError(
            ErrorType.CONTENT_TYPE_NOT_SUPPORTED,
            f"Unsupported Content-Type {ex.headers.get('content-type')!r}; JSON-RPC requests use application/json",
        )
        await _error(ex, None, problem, default_version)
        return
    try:
        decoded = http.decode_json(ex.body, state.scenario.limits.json_depth)
    except A2AError as err:
        await _error(ex, None, err, default_version)
        return
    try:
        request = jsonrpc.parse_request(decoded)
    except A2AError as err:
        await _error(ex, jsonrpc.request_id_of(decoded), err, default_version)
        return
    ex.entry.rpc = RpcRef(request.method, request.id)
    if not request.has_id and not state.scenario.answer_notifications:
        problem = A2AError(
            ErrorType.INVALID_REQUEST, "A2A requests need an `id` (notifications get no answer to read)", field="id"
        )
        await _error(ex, None, problem, default_version)
        return
    found = operations.by_method(request.method)
    if found is None:
        problem = A2AError(ErrorType.METHOD_NOT_FOUND, f"Method not found: {request.method}")
        await _error(ex, request.id, problem, default_version)
        return
    op, op_version = found
    requested, given = leniency.version_asked(state.scenario, *ex.identify(op, op_version), op_version)
    if op_version not in endpoint.versions:
        served = ", ".join(v.value for v in endpoint.versions)
        problem = A2AError(
            ErrorType.METHOD_NOT_FOUND, f"Method not found: {request.method} (this interface serves A2A {served})"
        )
        await _error(ex, request.id, problem, default_version)
        return
    refused = negotiate(requested, given, op_version, endpoint.versions, request.method)
    if refused is not None:
        await _error(ex, request.id, refused, op_version)
        return
    form = forms.of(op_version, Binding.JSONRPC)
    try:
        canonical = params.read(
            op,
            form,
            request.params,
            lenient_kind=state.scenario.lenient_kind,
            max_parts=state.parts_limit,
            refuse_unknown=state.scenario.refuse_unknown_fields,
        )
    except A2AError as err:
        await _error(ex, request.id, err, op_version)
        return
    call = dispatch.Invocation(op, form, request.method, canonical, ex.headers, base_url, len(ex.body), ex.query)
    if op in generations.HELD:  # no coroutine for the operations never held
        await generations.hold(state, op, canonical, caller=dispatch.held_caller(state, call))
    await render(state, ex, call, dispatch.execute(state, call, ex.entry), request.id)


async def render(
    state: LabState, ex: intake.Exchange, call: dispatch.Invocation, decision: dispatch.Decision, req_id: Any
) -> None:
    reply, version, form = decision.reply, call.version, call.form
    if decision.error is not None:
        status = 401 if decision.error.type is ErrorType.UNAUTHENTICATED else 200
        challenge = [("www-authenticate", decision.challenge)] if decision.challenge else None
        await _error(ex, req_id, decision.error, version, reply, decision.auth_status or status, challenge)
        return
    if reply.raw_status is not None:
        # bytes exact, but for the request's id where the scenario echoes it (or fills it in)
        values = raw_reply.request_values(req_id, call.params)
        if reply.raw_events:
            await raw_reply.send_events(state, ex, reply, values)
            return
        raw = raw_reply.body(reply, values)
        raw = jsonrpc.replace_id(raw, req_id) if reply.raw_echo_id else raw
        await ex.answer(reply.raw_status, raw, reply.raw_content_type, reply)
        return
    if decision.events is not None:

        def render_event(event: dict[str, Any]) -> Any:
            value = dispatch.with_unknown_fields(wire.event_out(event, form), reply.unknown_fields)
            if reply.stream.bare_events:
                return value  # the StreamResponse alone, as the HTTP+JSON binding sends it
            return _with_envelope(jsonrpc.result(req_id, value), reply.envelope, req_id)

        def render_error(err: A2AError) -> tuple[Any, str | None]:
            return jsonrpc.error(req_id, ex.worded(err, Binding.JSONRPC, version).error, version), None

        def render_extra(extra: Extra) -> str:
            """An event the scenario wrote: its text (`{request_id}`: this request's id), or its JSON as the result of
            a JSON-RPC response to this request (alone when `bare`)."""
            if extra.text is not None:
                return extra.text.replace(REQUEST_ID, jsontext.dumps(req_id).decode())
            if extra.bare or reply.stream.bare_events:
                return jsontext.dumps(extra.json).decode()
            return jsontext.dumps(_with_envelope(jsonrpc.result(req_id, extra.json), reply.envelope, req_id)).decode()

        await ex.stream(state, decision.events, render_event, render_error, reply, render_extra)
        return
    value = dispatch.with_unknown_fields(wire.result_out(call.op, decision.value, form), reply.unknown_fields)
    body = edits.apply(_with_envelope(jsonrpc.result(req_id, value), reply.envelope, req_id), reply.edits)
    await ex.answer(
        reply.http_status or 200, http.dumps(body), ex.style.answer_type(Binding.JSONRPC, version, JSON), reply
    )
