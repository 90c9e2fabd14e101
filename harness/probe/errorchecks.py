"""UNKNOWN-TASK, VERSION-NEGOTIATION and ERROR-ENVELOPE: the errors a server owes, and their form."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from a2a_lab.protocol import errors, grpcwire, jsonrpc, requests, rest
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.errors import EnvelopeProblem, ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.versions import HEADER, Version

from ..model import CheckResult, Outcome
from ..refclient.failures import ClientFailure
from ..refclient.http import snippet
from ..refclient.recording import Exchange
from .context import (
    DIAGNOSIS,
    InterfaceProbe,
    ProbeTransport,
    Seen,
    describe,
    needs_credentials,
    not_judged,
    unknown_id,
)
from .definitions import ERROR_ENVELOPE, UNKNOWN_TASK, VERSION_NEGOTIATION

if TYPE_CHECKING:
    from .grpcprobe import ProbeGrpcTransport

NOT_FOUND, VERSION = ErrorType.TASK_NOT_FOUND, ErrorType.VERSION_NOT_SUPPORTED
#: How spec v1.0.0 spelled VersionNotSupported over gRPC (UNIMPLEMENTED; v1.0.1: FAILED_PRECONDITION, notes D3).
VERSION_GRPC_V1_0_0 = errors.grpc_status(VERSION, SpecRevision.V1_0_0)


def _owed(error: ErrorType, transport: ProbeTransport | ProbeGrpcTransport) -> str:
    """How an interface spells an A2A error on the wire."""
    if transport.binding is Binding.JSONRPC:
        return f"JSON-RPC error {error.code} ({error.kind.name})"
    if transport.binding is Binding.GRPC:
        return f"gRPC {errors.grpc_status(error)} with ErrorInfo reason {error.kind.reason}"
    status = rest.http_status(error, transport.version)
    return (
        f"HTTP {status} with ErrorInfo reason {error.kind.reason}"
        if transport.version is Version.V1_0
        else f"HTTP {status}"
    )


def _is(error: ErrorType, failure: ClientFailure, transport: ProbeTransport | ProbeGrpcTransport) -> bool:
    """Whether a failure is exactly that error as the interface must spell it (code; or status and ErrorInfo reason).
    The errors the probe asks for (TaskNotFound, VersionNotSupported) answer the same HTTP status in spec revisions
    v1.0.0 and v1.0.1 (notes D3), so a server of either revision passes; over gRPC, v1.0.0's status for
    VersionNotSupported (UNIMPLEMENTED) is judged apart (NON_STRICT)."""
    d = failure.details
    if failure.type != "remote":
        return False
    if transport.binding is Binding.JSONRPC:
        return bool(d.get("code") == error.code)
    if transport.binding is Binding.GRPC:
        return bool(d.get("grpc_status") == errors.grpc_status(error) and d.get("reason") == error.kind.reason)
    if d.get("http_status") != rest.http_status(error, transport.version):
        return False
    return bool(transport.version is not Version.V1_0 or d.get("reason") == error.kind.reason)


def _said(failure: ClientFailure) -> str:
    d = failure.details
    parts = [
        f"error {d['code']}" if "code" in d and "grpc_status" not in d else "",
        f"HTTP {d['http_status']}" if "http_status" in d else "",
        f"gRPC {d['grpc_status']}" if "grpc_status" in d else "",
        f"reason {d['reason']}" if "reason" in d else "",
    ]
    return " ".join(p for p in parts if p) or failure.type


def _worst(results: list[CheckResult]) -> CheckResult:
    order = {Outcome.FAIL: 2, Outcome.NON_STRICT: 1, Outcome.PASS: 0}
    return max(results, key=lambda r: order.get(r.outcome, 0))


# --------------------------------------------------------------------------------------- UNKNOWN-TASK


def unknown_task(ctx: InterfaceProbe) -> CheckResult:
    c, t = UNKNOWN_TASK, ctx.transport
    task_id = unknown_id()
    expected = _owed(NOT_FOUND, t)
    verdicts: list[CheckResult] = []
    for op in (Operation.GET_TASK, Operation.CANCEL_TASK):
        what = describe(op, ctx.version, t)
        try:
            body = ctx.call(c.id, op, {"id": task_id}, [])
        except ClientFailure as failure:
            if needs_credentials(failure):
                return not_judged(c, failure)
            verdicts.append(_not_found_verdict(ctx, failure, what, expected))
            continue
        shown = snippet(json.dumps(body).encode())
        verdicts.append(
            c.broken(f"{what} answered a result for an id the server never issued", expected, shown, ctx.evidence(c.id))
        )
    worst = _worst(verdicts)
    if worst.outcome is Outcome.PASS:
        return c.passed(f"GetTask and CancelTask on an unknown id answer {expected}", ctx.evidence(c.id))
    return worst


def _not_found_verdict(ctx: InterfaceProbe, failure: ClientFailure, what: str, expected: str) -> CheckResult:
    c, t, d = UNKNOWN_TASK, ctx.transport, failure.details
    evidence = ctx.evidence(c.id)
    if _is(NOT_FOUND, failure, t):
        return c.passed(f"{what}: {expected}", evidence)
    method_not_found = (
        d.get("code") == ErrorType.METHOD_NOT_FOUND.code
        or (
            t.binding is Binding.HTTP_JSON
            and d.get("http_status") in (404, 405)
            and d.get("reason") is None
            and "code" not in d
        )
        or (
            t.binding is Binding.GRPC
            and d.get("grpc_status") == grpcwire.Code.UNIMPLEMENTED.value
            and not d.get("reason")
        )
    )
    if method_not_found and not (t.binding is Binding.HTTP_JSON and t.version is Version.V0_3):
        return c.broken(
            f"the card advertises {what} ({ctx.iface.binding} {ctx.version.value}) but the server answers method not "
            f"found ({_said(failure)}) instead of TaskNotFound",
            expected,
            failure.message,
            evidence,
        )
    if failure.type not in ("remote", "http"):
        return c.broken(
            f"{what} on an unknown id got no usable answer ({failure.type})", expected, failure.message, evidence
        )
    return c.broken(
        f"{what} on an unknown id answered {_said(failure)}, not TaskNotFound", expected, failure.message, evidence
    )


# -------------------------------------------------------------------------------- VERSION-NEGOTIATION


def version_negotiation(ctx: InterfaceProbe) -> CheckResult:
    c, t = VERSION_NEGOTIATION, ctx.transport
    if ctx.version is not Version.V1_0:
        return c.skipped("a 0.3 interface: 0.3 has no A2A-Version header (§3.6.1)")
    expected = _owed(VERSION, t)
    if t.binding is Binding.GRPC:
        expected += f" (spec v1.0.0: {VERSION_GRPC_V1_0_0})"
    task_id = unknown_id()
    verdicts: list[CheckResult] = []
    name, what = (grpcwire.VERSION_METADATA, "metadata") if t.binding is Binding.GRPC else (HEADER, "header")
    for value, asked in ((None, f"no {name} {what} (which means 0.3)"), ("9.9", f"{name}: 9.9")):
        with t.version_header(value):
            try:
                ctx.call(c.id, Operation.GET_TASK, {"id": task_id}, [])
            except ClientFailure as failure:
                if needs_credentials(failure):
                    return not_judged(c, failure)
                verdicts.append(_version_verdict(ctx, failure, asked, expected))
                continue
        verdicts.append(
            c.broken(
                f"a request with {asked} was served (GetTask answered a task)", expected, "a result", ctx.evidence(c.id)
            )
        )
    worst = _worst(verdicts)
    if worst.outcome is Outcome.PASS:
        return c.passed(f"no {name} and {name}: 9.9 are both refused with {_owed(VERSION, t)}", ctx.evidence(c.id))
    return worst


def _version_verdict(ctx: InterfaceProbe, failure: ClientFailure, asked: str, expected: str) -> CheckResult:
    c, t, d = VERSION_NEGOTIATION, ctx.transport, failure.details
    evidence = ctx.evidence(c.id)
    if _is(VERSION, failure, t):
        return c.passed(f"{asked}: refused", evidence)
    if (
        t.binding is Binding.GRPC
        and d.get("reason") == VERSION.kind.reason
        and d.get("grpc_status") == VERSION_GRPC_V1_0_0
    ):
        return c.lenient(
            f"a request with {asked} was refused with VersionNotSupportedError as spec v1.0.0 mapped it "
            f"(gRPC {VERSION_GRPC_V1_0_0}); v1.0.1 says {errors.grpc_status(VERSION)}",
            expected,
            failure.message,
            evidence,
        )
    if d.get("code") == NOT_FOUND.code or d.get("reason") == NOT_FOUND.kind.reason or _is(NOT_FOUND, failure, t):
        return c.broken(
            f"a request with {asked} was served as A2A {ctx.version.value} "
            "(it answered TaskNotFound for the unknown id, §3.6.2)",
            expected,
            failure.message,
            evidence,
        )
    if failure.type in ("remote", "http") or d.get("reason") == VERSION.kind.reason:
        return c.lenient(
            f"a request with {asked} was refused, but not with VersionNotSupportedError ({_said(failure)})",
            expected,
            failure.message,
            evidence,
        )
    return c.broken(f"a request with {asked} got no usable answer", expected, failure.message, evidence)


# ------------------------------------------------------------------------------------- ERROR-ENVELOPE


def error_envelope(ctx: InterfaceProbe) -> CheckResult:
    c = ERROR_ENVELOPE
    judged: list[int] = []
    must: list[str] = []
    should: list[str] = []
    for seen in ctx.seen:
        if seen.check == DIAGNOSIS:  # off the card: another version than the interface declares
            continue
        for exchange in seen.exchanges:
            if exchange.grpc is None and not exchange.url.startswith(ctx.iface.url):
                continue  # a token endpoint's answer (OAuth), not the interface's
            problems = _judge(seen, exchange)
            if problems is None:
                continue
            judged.append(exchange.seq)
            where = f"#{exchange.seq} {seen.op.value}"
            for p in problems:
                (should if p.should else must).append(f"{where}: {p.text}")
    if not judged:
        return c.skipped("no error answer was seen")
    expected = _expected_form(ctx.transport)
    if must:
        return c.broken(
            f"{len(must)} problem(s) in {len(judged)} error answer(s): {must[0]}",
            expected,
            "; ".join(dict.fromkeys(must + should)),
            judged,
        )
    if should:
        return c.lenient(
            f"{len(judged)} error answer(s) well-formed, but: {should[0]}",
            expected,
            "; ".join(dict.fromkeys(should)),
            judged,
        )
    return c.passed(f"{len(judged)} error answer(s) well-formed", judged)


def _expected_form(t: ProbeTransport | ProbeGrpcTransport) -> str:
    if t.binding is Binding.GRPC:
        return (
            f"a gRPC status with {grpcwire.STATUS_DETAILS_KEY}: a google.rpc.Status {{code: <the call's status>, "
            'message, details: [{"@type": ".../google.rpc.ErrorInfo", reason, domain}]} (§10.6)'
        )
    media = requests.content_type(t.binding, t.version)
    if t.binding is Binding.JSONRPC:
        data = ', "data": [{"@type": ...}]' if t.version is Version.V1_0 else ""
        return (
            '{"jsonrpc": "2.0", "id": <the request id or null>, '
            f'"error": {{"code": <integer>, "message": <string>{data}}}}} as {media}'
        )
    if t.version is Version.V1_0:
        return (
            '{"error": {"code": <HTTP status>, "status": <gRPC name>, "message": <string>, '
            f'"details": [{{"@type": ...}}]}}}} as {media}'
        )
    return f"a JSON object as {media}"


def _decoded(exchange: Exchange) -> tuple[bool, Any]:
    try:
        return True, json.loads(bytes(exchange.response_body).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


def _judge(seen: Seen, exchange: Exchange) -> list[EnvelopeProblem] | None:
    """The problems of one error answer, or None when the exchange is not an error answer."""
    call = exchange.grpc
    if call is not None:  # a gRPC call, unary or streamed: an error is its final status
        if call.status is None or call.status == grpcwire.Code.OK.value:
            return None
        if call.details_error is not None:
            return [EnvelopeProblem(f"{grpcwire.STATUS_DETAILS_KEY} is unreadable: {call.details_error}")]
        return grpcwire.status_problems(grpcwire.Code(call.status), call.details)
    t, status = seen.transport, exchange.status
    if status is None or exchange.streamed:
        return None
    ok, value = _decoded(exchange)
    media = exchange.media_type or "no content type"
    shown = snippet(bytes(exchange.response_body))
    if isinstance(t, ProbeTransport) and t.binding is Binding.JSONRPC:
        if not (ok and isinstance(value, dict) and "error" in value):
            if status < 400 or (ok and isinstance(value, dict) and "result" in value):
                return None  # a result (or a non-JSON 200: SEND-MESSAGE and friends judge those)
            return [EnvelopeProblem(f"HTTP {status} answer is not a JSON-RPC error object ({media}): {shown!r}")]
        problems: list[EnvelopeProblem] = [
            EnvelopeProblem(v) for v in [t.envelope_violation(seen.op, value, _request_id(exchange))] if v
        ]
        problems += jsonrpc.error_problems(value.get("error"), t.version)
        if exchange.media_type != JSON:
            problems.append(
                EnvelopeProblem(f"Content-Type {media!r}, not {JSON}", should=exchange.media_type == A2A_JSON)
            )
        return problems
    if status < 400:
        return None
    if not ok:
        return [
            EnvelopeProblem(
                f"HTTP {status} error answer is not JSON ({media}): {shown!r}", should=t.version is not Version.V1_0
            )
        ]
    problems = list(rest.status_problems(value, status, t.version))
    wanted = requests.content_type(t.binding, t.version)
    if exchange.media_type != wanted:
        json_type = exchange.media_type in (JSON, A2A_JSON)
        note = (
            " (v1.0.1 SHOULD; v1.0.0 said application/json: notes D5)"
            if wanted == A2A_JSON and exchange.media_type == JSON
            else ""
        )
        problems.append(EnvelopeProblem(f"Content-Type {media!r}, not {wanted}{note}", should=json_type))
    return problems


def _request_id(exchange: Exchange) -> Any:
    try:
        body = json.loads(exchange.request_body)
    except ValueError:
        return None
    return body.get("id") if isinstance(body, dict) else None
