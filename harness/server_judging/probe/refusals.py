"""The errors a server owes, judged the same for `a2a-lab probe` and `a2a-lab proxy`: an error answer read as the
reference client reads one (a `ClientFailure`, the record the probe's transport raises; `refusal_of` makes it from
an `Answered` the proxy saw), whether it is exactly an A2A error as the interface must spell it, and the verdicts
that stand on that (VERSION-NEGOTIATION's, SEND-MESSAGE's wording)."""

from __future__ import annotations

from typing import Any

from a2a_lab.harness.clients.refclient.failures import (
    ClientFailure,
    error_info_reason,
    http_error_fields,
    invites_fallback,
    remote_error,
)
from a2a_lab.harness.clients.refclient.http import snippet
from a2a_lab.harness.common.model import CheckResult, Outcome
from a2a_lab.harness.server_judging.probe.definitions import VERSION_NEGOTIATION
from a2a_lab.harness.server_judging.probe.judging import Answered
from a2a_lab.protocol import errors, grpcwire, rest
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.versions import Version


def refusal_of(a: Answered) -> ClientFailure | None:
    """An error answer read as the reference client reads one (a `ClientFailure`: `remote` for an A2A error, with its
    code, HTTP status and ErrorInfo reason; `http` for another HTTP error; `invalid_response` for a JSON-RPC answer
    that is neither), or None when the answer is a result. (The probe gets the same record from its transport.)"""
    context: dict[str, Any] = {"binding": a.form.binding.value, "version": a.form.version.value}
    call = a.grpc
    if call is not None:  # a gRPC call's error is the status it ended with, its reason in the google.rpc.Status
        if call.status is None or call.status == grpcwire.Code.OK.value:
            return None
        reason = error_info_reason((call.details or {}).get("details"))
        said = f"gRPC {call.status}: {call.message}" + (f" ({reason})" if reason else "")
        return remote_error(said, grpc_status=call.status, reason=reason, **context)
    ok, value = a.decoded()
    if a.rpc:
        err = value.get("error") if ok and isinstance(value, dict) else None
        if isinstance(err, dict):
            code = err.get("code")
            code = code if isinstance(code, int) and not isinstance(code, bool) else None
            message = err.get("message") if isinstance(err.get("message"), str) else "(no message)"
            return remote_error(
                f"JSON-RPC error {code}: {message}",
                code=code,
                http_status=a.status if a.status != 200 else None,
                reason=error_info_reason(err.get("data")),
                **context,
            )
        if ok and isinstance(value, dict) and "result" in value and a.status is not None and a.status < 400:
            return None
        return ClientFailure(
            "http" if a.status is not None and a.status >= 400 else "invalid_response",
            f"HTTP {a.status} ({a.media or 'no content type'}): {snippet(a.body)!r}",
            {"http_status": a.status, **context},
        )
    if a.status is None or a.status < 400:
        return None
    read = http_error_fields(value) if ok else None
    if read is None:
        said = f"HTTP {a.status} ({a.media or 'no content type'}): {snippet(a.body)!r}"
        return ClientFailure("http", said, {"http_status": a.status, **context})
    message, reason, code = read
    said = f"HTTP {a.status}: {message}" + (f" ({reason})" if reason else "")
    return remote_error(said, http_status=a.status, reason=reason, code=code, **context)


#: How spec v1.0.0 spelled VersionNotSupported over gRPC (UNIMPLEMENTED; v1.0.1: FAILED_PRECONDITION, notes D3).
VERSION_GRPC_V1_0_0 = errors.grpc_status(ErrorType.VERSION_NOT_SUPPORTED, SpecRevision.V1_0_0)


def owed(error: ErrorType, form: Form) -> str:
    """How an interface spells an A2A error on the wire."""
    if form.binding is Binding.JSONRPC:
        return f"JSON-RPC error {error.code} ({error.kind.name})"
    if form.binding is Binding.GRPC:
        return f"gRPC {errors.grpc_status(error)} with ErrorInfo reason {error.kind.reason}"
    status = rest.http_status(error, form.version)
    return (
        f"HTTP {status} with ErrorInfo reason {error.kind.reason}" if form.version is Version.V1_0 else f"HTTP {status}"
    )


def is_error(error: ErrorType, failure: ClientFailure, form: Form) -> bool:
    """Whether a failure is exactly that error as the interface must spell it (code; or status and ErrorInfo reason).
    The errors the probe asks for (TaskNotFound, VersionNotSupported) answer the same HTTP status in spec revisions
    v1.0.0 and v1.0.1 (notes D3), so a server of either revision passes; over gRPC, v1.0.0's status for
    VersionNotSupported (UNIMPLEMENTED) is judged apart (NON_STRICT)."""
    d = failure.details
    if failure.type != "remote":
        return False
    if form.binding is Binding.JSONRPC:
        return bool(d.get("code") == error.code)
    if form.binding is Binding.GRPC:
        return bool(d.get("grpc_status") == errors.grpc_status(error) and d.get("reason") == error.kind.reason)
    if d.get("http_status") != rest.http_status(error, form.version):
        return False
    return bool(form.version is not Version.V1_0 or d.get("reason") == error.kind.reason)


def said(failure: ClientFailure) -> str:
    """What an error answer said, in a few words (its code, status and reason)."""
    d = failure.details
    parts = [
        f"error {d['code']}" if "code" in d and "grpc_status" not in d else "",
        f"HTTP {d['http_status']}" if "http_status" in d else "",
        f"gRPC {d['grpc_status']}" if "grpc_status" in d else "",
        f"reason {d['reason']}" if "reason" in d else "",
    ]
    return " ".join(p for p in parts if p) or failure.type


def worst(results: list[CheckResult]) -> CheckResult:
    order = {Outcome.FAIL: 2, Outcome.NON_STRICT: 1, Outcome.PASS: 0}
    return max(results, key=lambda r: order.get(r.outcome, 0))


def version_expected(form: Form) -> str:
    """The refusal a 1.0 interface owes a request in a version it does not serve."""
    expected = owed(ErrorType.VERSION_NOT_SUPPORTED, form)
    return expected + (f" (spec v1.0.0: {VERSION_GRPC_V1_0_0})" if form.binding is Binding.GRPC else "")


def version_verdict(failure: ClientFailure, asked: str, expected: str, form: Form, evidence: list[int]) -> CheckResult:
    """VERSION-NEGOTIATION on one refused request that asked for a version the interface does not serve (`asked`
    says how): VersionNotSupportedError as the interface spells it passes (§3.6.2); TaskNotFound says the request
    was served anyway; another refusal is lenient."""
    c, d, version = VERSION_NEGOTIATION, failure.details, ErrorType.VERSION_NOT_SUPPORTED
    not_found = ErrorType.TASK_NOT_FOUND
    if is_error(version, failure, form):
        return c.passed(f"{asked}: refused", evidence)
    if (
        form.binding is Binding.GRPC
        and d.get("reason") == version.kind.reason
        and d.get("grpc_status") == VERSION_GRPC_V1_0_0
    ):
        return c.lenient(
            f"a request with {asked} was refused with VersionNotSupportedError as spec v1.0.0 mapped it "
            f"(gRPC {VERSION_GRPC_V1_0_0}); v1.0.1 says {errors.grpc_status(version)}",
            expected,
            failure.message,
            evidence,
        )
    if (
        d.get("code") == not_found.code
        or d.get("reason") == not_found.kind.reason
        or is_error(not_found, failure, form)
    ):
        return c.broken(
            f"a request with {asked} was served as A2A {form.version.value} "
            "(it answered TaskNotFound for the unknown id, §3.6.2)",
            expected,
            failure.message,
            evidence,
        )
    if failure.type in ("remote", "http") or d.get("reason") == version.kind.reason:
        return c.lenient(
            f"a request with {asked} was refused, but not with VersionNotSupportedError ({said(failure)})",
            expected,
            failure.message,
            evidence,
        )
    return c.broken(f"a request with {asked} got no usable answer", expected, failure.message, evidence)


def refuses_version(failure: ClientFailure) -> bool:
    """The answer is VersionNotSupportedError, however spelled (its code, or its ErrorInfo reason)."""
    d = failure.details
    return bool(
        d.get("code") == ErrorType.VERSION_NOT_SUPPORTED.code
        or d.get("reason") == ErrorType.VERSION_NOT_SUPPORTED.kind.reason
    )


def send_refused(failure: ClientFailure, version: Version, label: str) -> str:
    """What a failed SendMessage on an interface the card advertises (`label`) says: the declared version refused,
    the method not found there, or how else it failed."""
    d = failure.details
    if refuses_version(failure):
        return (
            f"the card declares A2A {version.value} for {label}, "
            "but the server refuses that version (VersionNotSupportedError)"
        )
    if invites_fallback(failure):
        not_found = ErrorType.METHOD_NOT_FOUND.code
        shown = (
            f"gRPC {d['grpc_status']}"
            if "grpc_status" in d
            else str(not_found)
            if d.get("code") == not_found
            else f"HTTP {d.get('http_status')}"
        )
        return f"the card advertises {label} but the server answers method not found ({shown})"
    return f"{label} failed: {failure.message}"
