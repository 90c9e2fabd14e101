"""The HTTP+JSON binding (spec §11; 0.3 REST under `/v1`): routes relative to the interface URL."""

from __future__ import annotations

from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.protocol import operations, params, rest, versions, wire
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.errors import A2AError, ErrorType, grpc_status_for_http
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.negotiation import negotiate
from a2a_lab.protocol.versions import Version

from . import answer, dispatch, http, intake
from .journal_record import Answer, Entry, EntryKind, RouteRef
from .scenario import Endpoint, Reply
from .state import LabState

BODY_VERBS = ("POST", "PUT", "PATCH")


def _content_type(version: Version) -> str:
    """1.0 answers application/a2a+json (§11, v1.0.1 SHOULD; clients accept both, notes §11 D5); 0.3 application/json."""
    return A2A_JSON if version is Version.V1_0 else JSON


async def _error(
    scope: Scope,
    receive: Receive,
    send: Send,
    entry: Entry,
    err: A2AError,
    version: Version,
    reply: Reply | None = None,
    status: int | None = None,
    grpc_status: str | None = None,
    extra: list[tuple[str, str]] | None = None,
) -> None:
    code, body = rest.error(err, version)
    if status is not None:
        code = status
        if "error" in body:
            body["error"]["code"] = status
            body["error"]["status"] = grpc_status or grpc_status_for_http(status)
    if reply is not None and reply.error_http_status:
        code = reply.error_http_status
    entry.answer = Answer.error(err.code)
    await answer.send_body(scope, receive, send, entry, code, http.dumps(body), _content_type(version), reply, extra)


async def handle(
    state: LabState, endpoint: Endpoint, scope: Scope, receive: Receive, send: Send, relative: str, base_url: str
) -> None:
    headers, query = http.headers_of(scope), http.query_of(scope)
    verb = scope["method"]
    default_version = endpoint.versions[0]
    entry, body, refusal = await intake.take(state, endpoint, scope, receive, EntryKind.REST)
    if refusal is not None:
        await _error(
            scope,
            receive,
            send,
            entry,
            refusal.error,
            default_version,
            status=refusal.status,
            grpc_status=refusal.grpc_status,
            extra=refusal.extra,
        )
        return
    found = operations.match_route(verb, relative, endpoint.versions)
    if found is None:
        allowed = operations.path_exists(relative, endpoint.versions)
        if allowed:
            err = A2AError(ErrorType.METHOD_NOT_FOUND, f"{verb} is not allowed on {relative}; use {', '.join(allowed)}")
            await _error(scope, receive, send, entry, err, default_version, status=405)
        else:
            entry.unmatched = True
            err = A2AError(
                ErrorType.METHOD_NOT_FOUND,
                f"a2a-lab: no HTTP+JSON route {verb} {relative} on this interface (A2A {', '.join(v.value for v in endpoint.versions)})",
            )
            await _error(scope, receive, send, entry, err, default_version)
        return
    op, op_version, path_params, tenant = found
    entry.operation, entry.version = op, op_version
    entry.route = RouteRef(verb, relative, path_params, tenant)
    requested, given = http.requested_version(headers, query)
    entry.requested_version = requested
    refused = negotiate(requested, given, op_version, endpoint.versions, f"{verb} {relative}")
    if refused is not None:
        await _error(scope, receive, send, entry, refused, op_version)
        return
    decoded: Any = {}
    if verb in BODY_VERBS and body.strip():
        if not http.is_json_type(headers.get("content-type"), (JSON, A2A_JSON)):
            err = A2AError(
                ErrorType.CONTENT_TYPE_NOT_SUPPORTED,
                f"Unsupported Content-Type {headers.get('content-type')!r}; use application/a2a+json or application/json",
            )
            await _error(scope, receive, send, entry, err, op_version)
            return
        try:
            decoded = http.decode_json(body, state.scenario.limits.json_depth)
        except A2AError as err:
            await _error(scope, receive, send, entry, err, op_version)
            return
    if tenant:
        path_params = {**path_params, "tenant": tenant}
    query_params = {k: v for k, v in query.items() if k != versions.QUERY_PARAM}
    try:
        form = Form(op_version, Binding.HTTP_JSON)
        canonical = params.read(op, form, decoded, path_params, query_params, lenient_kind=state.scenario.lenient_kind)
    except A2AError as err:
        await _error(scope, receive, send, entry, err, op_version)
        return
    call = dispatch.Invocation(op, form, f"{verb} {relative}", canonical, headers, base_url)
    decision = dispatch.execute(state, call, entry)
    reply, form = decision.reply, call.form
    if decision.error is not None:
        await _error(scope, receive, send, entry, decision.error, op_version, reply)
        return
    if reply.raw_status is not None:
        await answer.send_body(
            scope, receive, send, entry, reply.raw_status, reply.raw_body, reply.raw_content_type, reply
        )
        return
    if decision.events is not None:

        def render_event(event: dict[str, Any]) -> Any:
            return dispatch.with_unknown_fields(wire.event_out(event, form), reply.unknown_fields)

        def render_error(err: A2AError) -> tuple[Any, str | None]:
            return rest.error(err, op_version)[1], "error"

        await answer.send_stream(
            scope, receive, send, entry, state.journal, decision.events, render_event, render_error, reply
        )
        return
    value = dispatch.with_unknown_fields(wire.result_out(op, decision.value, form), reply.unknown_fields)
    await answer.send_body(scope, receive, send, entry, 200, http.dumps(value), _content_type(op_version), reply)
