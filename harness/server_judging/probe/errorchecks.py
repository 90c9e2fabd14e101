"""UNKNOWN-TASK, VERSION-NEGOTIATION and ERROR-ENVELOPE: the errors a server owes, and their form."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.http import snippet
from a2a_lab.harness.common.model import CheckResult, Outcome
from a2a_lab.harness.server_judging.probe import judging, refusals
from a2a_lab.harness.server_judging.probe.context import (
    InterfaceProbe,
    describe,
    needs_credentials,
    not_judged,
    unknown_id,
)
from a2a_lab.harness.server_judging.probe.definitions import UNKNOWN_TASK, VERSION_NEGOTIATION
from a2a_lab.harness.server_judging.probe.transports import ProbeTransport
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import HEADER, Version

if TYPE_CHECKING:
    from a2a_lab.harness.server_judging.probe.grpcprobe import ProbeGrpcTransport

NOT_FOUND, VERSION = ErrorType.TASK_NOT_FOUND, ErrorType.VERSION_NOT_SUPPORTED
_owed, _said, _worst = refusals.owed, refusals.said, refusals.worst


def _is(error: ErrorType, failure: ClientFailure, transport: ProbeTransport | ProbeGrpcTransport) -> bool:
    return refusals.is_error(error, failure, transport.form)


# --------------------------------------------------------------------------------------- UNKNOWN-TASK


def unknown_task(ctx: InterfaceProbe) -> CheckResult:
    c, t = UNKNOWN_TASK, ctx.transport
    task_id = unknown_id()
    expected = _owed(NOT_FOUND, t.form)
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
    expected = refusals.version_expected(t.form)
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
        return c.passed(f"no {name} and {name}: 9.9 are both refused with {_owed(VERSION, t.form)}", ctx.evidence(c.id))
    return worst


def _version_verdict(ctx: InterfaceProbe, failure: ClientFailure, asked: str, expected: str) -> CheckResult:
    return refusals.version_verdict(failure, asked, expected, ctx.transport.form, ctx.evidence(VERSION_NEGOTIATION.id))


# ------------------------------------------------------------------------------------- ERROR-ENVELOPE


def error_envelope(ctx: InterfaceProbe) -> CheckResult:
    """Every error answer the probe's calls got on this interface (the diagnosis's, off the card, left out)."""
    return judging.error_envelope(ctx.answered())
