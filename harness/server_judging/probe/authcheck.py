"""AUTH-ENFORCED: does the server hold to the security its card declares? A call without credentials is refused
for want of them (401 with a challenge; gRPC UNAUTHENTICATED), and the declared scheme, presented as the card says,
is accepted."""

from __future__ import annotations

import re
from typing import Any

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.recording import Exchange
from a2a_lab.harness.common.model import CheckResult
from a2a_lab.harness.server_judging.probe.context import (
    AUTH_GRPC_STATUSES,
    InterfaceProbe,
    describe,
    needs_credentials,
    unknown_id,
)
from a2a_lab.harness.server_judging.probe.definitions import AUTH_ENFORCED, SEND_MESSAGE
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.errors import AUTH_HTTP_STATUSES
from a2a_lab.protocol.operations import Operation

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
#: An auth-scheme opens each challenge: a token at the start or after a comma that is not an auth-param's name.
_SCHEME = re.compile(rf"(?:^|,)\s*({_TOKEN})(?!\s*=)(?=\s|,|$)")


def challenge_schemes(value: str) -> list[str]:
    """The auth-schemes a WWW-Authenticate value names, lower case (RFC 9110 §11.6.1; approximate for values whose
    quoted strings hold commas)."""
    return [m.group(1).lower() for m in _SCHEME.finditer(value)]


def _refused(exchange: Exchange) -> bool:
    if exchange.grpc is not None:
        return exchange.grpc.status in AUTH_GRPC_STATUSES
    return exchange.status in AUTH_HTTP_STATUSES


def _last(ctx: InterfaceProbe, check: str) -> Exchange | None:
    made = [e for s in ctx.seen if s.check == check for e in s.exchanges]
    return made[-1] if made else None


def auth_enforced(ctx: InterfaceProbe) -> CheckResult:
    c = AUTH_ENFORCED
    security = ss.read(ctx.card)
    if not security.required:
        return c.skipped("the card requires no credentials (no securityRequirements, or an anonymous `{}` among them)")
    wants = security.describe()
    what = describe(Operation.GET_TASK, ctx.version, ctx.transport)
    expected = "gRPC UNAUTHENTICATED" if ctx.grpc else "HTTP 401 with a WWW-Authenticate challenge"
    refusal = _call_without_credentials(ctx)
    evidence = ctx.evidence(c.id)
    if refusal is None:
        return c.broken(
            f"{what} without credentials was served, although the card requires {wants}", expected, "served", evidence
        )
    if not needs_credentials(refusal):
        if refusal.type != "remote":
            return c.skipped(f"not judged: the call without credentials failed: {refusal.message}")
        return c.broken(
            f"{what} without credentials was not refused for want of them (the card requires {wants}): "
            f"{refusal.message}",
            expected,
            refusal.message,
            evidence,
        )
    return _judge_refusal(ctx, refusal, security, what, expected, evidence)


def _call_without_credentials(ctx: InterfaceProbe) -> ClientFailure | None:
    """GetTask of an unknown task, called without credentials: how it failed, None when it was served."""
    anonymous = ctx.anonymous()
    try:
        ctx.call(AUTH_ENFORCED.id, Operation.GET_TASK, {"id": unknown_id()}, [], anonymous)
    except ClientFailure as failure:
        return failure
    finally:
        anonymous.close()
    return None


def _judge_refusal(
    ctx: InterfaceProbe,
    refusal: ClientFailure,
    security: ss.CardSecurity,
    what: str,
    expected: str,
    evidence: list[int],
) -> CheckResult:
    """A call without credentials refused for want of them: how it was refused (a 401 without a challenge, a 403, a
    gRPC status other than UNAUTHENTICATED, a challenge naming no scheme the card declares), and whether the card's
    own scheme, presented as declared, was accepted."""
    c = AUTH_ENFORCED
    d = refusal.details
    said = f"gRPC {d['grpc_status']}" if "grpc_status" in d else f"HTTP {d['http_status']}"
    exchange = _last(ctx, c.id)
    challenge = exchange.header(ss.CHALLENGE) if exchange is not None else None
    if not ctx.grpc and d["http_status"] == 401 and not challenge:
        return c.broken(
            f"{what} without credentials was refused with HTTP 401 but no WWW-Authenticate header "
            "(RFC 9110 §11.6.1: a 401 carries at least one challenge, naming how to authenticate)",
            expected,
            "HTTP 401 without WWW-Authenticate",
            evidence,
        )
    problems = _refusal_problems(ctx, d, said, security, challenge)
    message = f"without credentials, {what} was refused with {said}" + (
        f" ({ss.CHALLENGE}: {challenge})" if challenge else (" (no www-authenticate trailer)" if ctx.grpc else "")
    )
    if ctx.presenting:
        sent = _last(ctx, SEND_MESSAGE.id)
        if sent is not None and _refused(sent):
            status = f"gRPC {sent.grpc.status}" if sent.grpc is not None else f"HTTP {sent.status}"
            return c.broken(
                f"the server refused the card's own scheme, presented as declared: {ctx.presenting} ({status}; "
                "unless the credentials given are wrong, the server does not honour its card)",
                f"SendMessage with {ctx.presenting} accepted",
                status,
                [*evidence, sent.seq],
            )
        message += f"; SendMessage with {ctx.presenting}: accepted"
    else:
        message += "; the declared scheme not tried (give the probe --token, --api-key or --client-credentials)"
    if problems:
        return c.lenient(f"{message}; but {problems[0]}", expected, "; ".join(problems), evidence)
    return c.passed(message, evidence)


def _refusal_problems(
    ctx: InterfaceProbe, d: dict[str, Any], said: str, security: ss.CardSecurity, challenge: str | None
) -> list[str]:
    """What is lenient in a refusal for want of credentials: a gRPC status other than UNAUTHENTICATED, an HTTP 403,
    a challenge that names none of the schemes the card declares."""
    problems: list[str] = []
    if ctx.grpc:
        if d["grpc_status"] != grpcwire.Code.UNAUTHENTICATED.value:
            problems.append(
                f"{said} says the caller is known but not allowed; a caller without credentials is UNAUTHENTICATED"
            )
    elif d["http_status"] == 403:
        problems.append(
            "HTTP 403 for a call without credentials: 403 says credentials would not help (RFC 9110 §15.5.4); "
            "missing ones are 401 with a challenge (§15.5.2)"
        )
    declared = {s.challenge_scheme for s in security.schemes.values() if s.challenge_scheme}
    named = challenge_schemes(challenge) if challenge else []
    if named and declared and not declared & set(named):
        problems.append(
            f"the challenge names {', '.join(named)}; the card declares {', '.join(sorted(declared))} "
            "(a client cannot tell which credentials to send)"
        )
    return problems
