"""Reacting to errors (spec §5.2 fallback, §3.6 VersionNotSupported): no blind retries, fallback across interfaces."""

from __future__ import annotations

from a2a_lab.protocol.errors import ErrorType

from ..journal_view import Call, RunView
from ..model import CheckResult, Level
from .base import Check, check

#: Errors that say "this interface does not do that": retrying the same call cannot help.
_DEAD_END = {ErrorType.METHOD_NOT_FOUND.code, ErrorType.VERSION_NOT_SUPPORTED.code}
#: Repeats of a dead-end call tolerated before it counts as a loop.
MAX_REPEATS = 1


def _key(call: Call) -> tuple[object, ...]:
    return (call.endpoint_path, call.binding, call.operation, call.version)


def _dead_ends(view: RunView) -> list[Call]:
    return [c for c in view.a2a_calls if c.error_code in _DEAD_END]


@check(
    "NO-RETRY-LOOP",
    Level.MUST,
    "A2A 1.0 §5.4 (MethodNotFound, VersionNotSupported are not transient); 0.3 §11.2.2 (MUST properly handle all A2A "
    "error codes)",
    "No blind retry after method not found",
    f"After -32601 (method not found) or -32009 (version not supported) the same call to the same interface cannot "
    f"succeed; "
    f"a client may repeat it at most {MAX_REPEATS} time(s), never in a loop.",
    'graded MUST by 0.3 §11.2.2 ("MUST properly handle all A2A error codes"): a retry loop against a dead end '
    "never ends and floods the agent",
)
def no_retry_loop(view: RunView, c: Check) -> CheckResult:
    dead = _dead_ends(view)
    if not dead:
        return c.skipped("no method-not-found or version-not-supported answer")
    first = dead[0]
    repeats = [call for call in view.a2a_calls if call.seq > first.seq and _key(call) == _key(first)]
    if len(repeats) > MAX_REPEATS:
        return c.broken(
            "the client retried a call that had answered method-not-found / version-not-supported",
            f"at most {MAX_REPEATS} repeat(s)",
            f"{len(repeats)} repeats of {first.rpc_method or first.entry.path}",
            [first, *repeats],
        )
    return c.passed("no retry loop after the error")


@check(
    "FALLBACK",
    Level.SHOULD,
    "A2A 1.0 §5.2 (C20), §3.6; 0.3 §5.6.3",
    "Falls back to another declared interface",
    "Clients SHOULD implement fallback across the protocols the card declares: when an interface answers "
    "method-not-found or version-not-supported, try the next declared interface.",
)
def fallback(view: RunView, c: Check) -> CheckResult:
    dead = _dead_ends(view)
    if not dead:
        return c.skipped("no method-not-found or version-not-supported answer")
    first = dead[0]
    alternatives = [
        i
        for i in view.interfaces
        if i.core_binding is not None
        and i.known_version is not None
        and view.interface_path(i) is not None
        and not (
            view.interface_path(i) == first.endpoint_path
            and i.core_binding is first.binding
            and i.accepts(first.version)
        )
    ]
    if not alternatives:
        return c.skipped("the card declares no other interface to fall back to")
    # A client can only fall back to what it speaks (declared, or seen anywhere in the run).
    alternatives = [i for i in alternatives if (i.core_binding, i.known_version) in view.supports]
    if not alternatives:
        return c.skipped("the card's other interfaces use bindings or versions this client is not known to support")
    moved = [call for call in view.a2a_calls if call.seq > first.seq and _key(call) != _key(first)]
    if not moved:
        return c.broken(
            "the client gave up without trying the other declared interface(s)",
            f"a call to {alternatives[0].label}",
            "no other interface tried",
            [first],
        )
    return c.passed(f"fell back from {first.rpc_method or first.entry.path} to another interface", moved[:1])
