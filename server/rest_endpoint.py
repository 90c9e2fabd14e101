"""The HTTP+JSON binding (spec §11; 0.3 REST under `/v1`): routes relative to the interface URL."""

from __future__ import annotations

from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.contract import edits
from a2a_lab.contract.journal_record import Answer, EntryKind, RouteRef
from a2a_lab.contract.scenario import Endpoint, Reply
from a2a_lab.protocol import forms, operations, params, rest, versions, wire
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.errors import A2AError, ErrorType, grpc_status_for_http
from a2a_lab.protocol.negotiation import negotiate
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.versions import Version

from . import dispatch, generations, http, intake, leniency, raw_reply
from .state import LabState

BODY_VERBS = ("POST", "PUT", "PATCH")


async def _error(
    ex: intake.Exchange,
    err: A2AError,
    version: Version,
    revision: SpecRevision,
    reply: Reply | None = None,
    status: int | None = None,
    grpc_status: str | None = None,
    extra: list[tuple[str, str]] | None = None,
) -> None:
    """An error answer. 1.0: a google.rpc.Status with the status the scenario's spec revision maps the error to, as
    that revision's media type (application/a2a+json in v1.0.1, application/json in v1.0.0: notes §11 D3, D5).
    0.3: the 0.3 SDKs' body as application/json."""
    worded = ex.worded(err, Binding.HTTP_JSON, version)
    err, status = worded.error, status or worded.http_status
    code, body = rest.error(err, version, revision)
    if status is not None:
        code = status
        if "error" in body:
            body["error"]["code"] = status
            body["error"]["status"] = grpc_status or grpc_status_for_http(status)
    if reply is not None and reply.error_http_status:
        code = reply.error_http_status
    ex.entry.answer = Answer.error(err.code)
    media_type = JSON if ex.styled.json_errors else rest.media_type(version, revision)
    await ex.answer(code, http.dumps(body), ex.style.answer_type(Binding.HTTP_JSON, version, media_type), reply, extra)


async def handle(
    state: LabState, endpoint: Endpoint, scope: Scope, receive: Receive, send: Send, relative: str, base_url: str
) -> None:
    verb = scope["method"]
    default_version = endpoint.versions[0]
    revision = state.scenario.spec_revision
    ex, refusal = await intake.take(state, endpoint, scope, receive, send, EntryKind.REST)
    if refusal is not None:
        await _error(
            ex,
            refusal.error,
            default_version,
            revision,
            status=refusal.status,
            grpc_status=refusal.grpc_status,
            extra=refusal.extra,
        )
        return
    found = operations.match_route(verb, relative, endpoint.versions, state.scenario.tenants)
    if found is None:
        await _no_route(state, endpoint, ex, verb, relative)
        return
    op, op_version, path_params, tenant = found
    ex.entry.route = RouteRef(verb, relative, path_params, tenant)
    requested, given = leniency.version_asked(state.scenario, *ex.identify(op, op_version), op_version, route=True)
    refused = negotiate(requested, given, op_version, endpoint.versions, f"{verb} {relative}")
    if refused is not None:
        await _error(ex, refused, op_version, revision)
        return
    form = forms.of(op_version, Binding.HTTP_JSON)
    try:
        canonical = _read_params(state, ex, verb, op, form, path_params, tenant)
    except A2AError as err:
        await _error(ex, err, op_version, revision)
        return
    call = dispatch.Invocation(op, form, f"{verb} {relative}", canonical, ex.headers, base_url, len(ex.body), ex.query)
    if op in generations.HELD:  # no coroutine for the operations never held
        await generations.hold(state, op, canonical, caller=dispatch.held_caller(state, call))
    await _answer(state, ex, call, dispatch.execute(state, call, ex.entry))


async def _no_route(state: LabState, endpoint: Endpoint, ex: intake.Exchange, verb: str, relative: str) -> None:
    """The answer to a request no route of the interface matches: the scenario's `not_found` page, else 405 for a
    path served with another method, else 404 (the request journaled as unmatched but for the 405)."""
    default_version = endpoint.versions[0]
    revision = state.scenario.spec_revision
    allowed = operations.path_exists(relative, endpoint.versions)
    page = state.scenario.not_found
    if page is not None:  # the framework's own page, for an unknown route and a wrong method alike
        await ex.not_found(page)
        ex.entry.unmatched = not allowed
    elif allowed:
        err = A2AError(ErrorType.METHOD_NOT_FOUND, f"{verb} is not allowed on {relative}; use {', '.join(allowed)}")
        await _error(ex, err, default_version, revision, status=405)
    else:
        ex.entry.unmatched = True
        served = ", ".join(v.value for v in endpoint.versions)
        err = A2AError(
            ErrorType.METHOD_NOT_FOUND,
            f"a2a-lab: no HTTP+JSON route {verb} {relative} on this interface (A2A {served})",
        )
        await _error(ex, err, default_version, revision)


def _read_params(
    state: LabState,
    ex: intake.Exchange,
    verb: str,
    op: operations.Operation,
    form: forms.Form,
    path_params: dict[str, str],
    tenant: str | None,
) -> dict[str, Any]:
    """The operation's params in canonical form, from the JSON body (for a verb that has one), the path (the tenant
    with it) and the query; A2AError for a body of another media type, JSON it cannot read, or params at fault."""
    decoded: Any = {}
    if verb in BODY_VERBS and ex.body.strip():
        if not leniency.content_type_ok(state.scenario, ex.headers.get("content-type"), (JSON, A2A_JSON)):
            raise A2AError(
                ErrorType.CONTENT_TYPE_NOT_SUPPORTED,
                f"Unsupported Content-Type {ex.headers.get('content-type')!r}; "
                "use application/a2a+json or application/json",
            )
        decoded = http.decode_json(ex.body, state.scenario.limits.json_depth)
    if tenant:
        path_params = {**path_params, "tenant": tenant}
    query_params = {k: v for k, v in ex.query.items() if k != versions.QUERY_PARAM}
    return params.read(
        op,
        form,
        decoded,
        path_params,
        query_params,
        lenient_kind=state.scenario.lenient_kind,
        max_parts=state.parts_limit,
        refuse_unknown=state.scenario.refuse_unknown_fields,
    )


async def _answer(state: LabState, ex: intake.Exchange, call: dispatch.Invocation, decision: dispatch.Decision) -> None:
    """What the operation decided, sent: its error, the scenario's raw reply, an event stream, or the result."""
    op, form = call.op, call.form
    op_version, revision = form.version, state.scenario.spec_revision
    reply = decision.reply
    if decision.error is not None:
        challenge = [("www-authenticate", decision.challenge)] if decision.challenge else None
        await _error(ex, decision.error, op_version, revision, reply, decision.auth_status, extra=challenge)
        return
    if reply.raw_status is not None:
        values = raw_reply.request_values(None, call.params)
        if reply.raw_events:
            await raw_reply.send_events(state, ex, reply, values)
            return
        await ex.answer(reply.raw_status, raw_reply.body(reply, values), reply.raw_content_type, reply)
        return
    if decision.events is not None:

        def render_event(event: dict[str, Any]) -> Any:
            return dispatch.with_unknown_fields(wire.event_out(event, form), reply.unknown_fields)

        def render_error(err: A2AError) -> tuple[Any, str | None]:
            body = rest.error(ex.worded(err, Binding.HTTP_JSON, op_version).error, op_version, revision)[1]
            if not reply.stream.error_details and isinstance(body.get("error"), dict):
                body["error"].pop("details", None)  # a server that sends the Status without them
            return body, "error" if reply.stream.error_event else None

        await ex.stream(state, decision.events, render_event, render_error, reply)
        return
    value = edits.apply(
        dispatch.with_unknown_fields(wire.result_out(op, decision.value, form), reply.unknown_fields), reply.edits
    )
    media = ex.style.answer_type(Binding.HTTP_JSON, op_version, rest.media_type(op_version, revision))
    await ex.answer(reply.http_status or 200, http.dumps(value), media, reply)
