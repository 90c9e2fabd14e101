"""Causes before symptoms: the one place that knows which check's miss explains another's in the same scenario, and
the order in which a client's mistakes happen.

A client that posts to the top-level `url` instead of its first supported interface misses INTERFACE-SELECTION; its
RESULT-EXPECTED miss in the same scenario is what that mistake led to, not a second mistake. Reports list a scenario's
misses in stage order (the order a client meets the rules: discovery, interface selection, URL, tenant, version,
method, body, auth, answers and errors, follow-up, actions, result), so a cause comes before its symptoms, and a
symptom names its cause (CheckResult.follows_from). A symptom keeps its own outcome and level: the verdict and the
gate never change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from a2a_lab.harness.common.model import CheckResult, Outcome


@dataclass(frozen=True)
class Stage:
    """A step of an exchange, and the checks that judge it, in the order a client meets them."""

    name: str
    checks: tuple[str, ...]


STAGES: tuple[Stage, ...] = (
    Stage("discovery", ("TLS-VERIFIED", "CARD-DISCOVERY", "SIGNATURE-VERIFIED")),
    Stage("interface selection", ("INTERFACE-SELECTION", "NO-TLS-DOWNGRADE")),
    Stage("URL", ("URL-FROM-CARD",)),
    Stage("tenant", ("TENANT",)),
    Stage("version", ("VERSION-HEADER", "VERSION-MATCHES-METHOD")),
    Stage("method", ("METHOD-MATCHES-INTERFACE", "CAPABILITIES-RESPECTED")),
    Stage(
        "envelope and body",
        ("JSONRPC-ENVELOPE", "HTTP-JSON-REQUEST", "BODY-SHAPE", "MESSAGE-ID-UNIQUE", "CONTEXT-ID-INVENTED"),
    ),
    Stage(
        "auth",
        (
            "CLIENT-CERTIFICATE",
            "AUTH-SCHEME-HONOURED",
            "TOKEN-LIFECYCLE",
            "AUTH-PRESENTED",
            "NO-CREDENTIAL-LEAK",
            "EXTENDED-CARD",
        ),
    ),
    Stage(
        "answers and errors",
        ("INVALID-ANSWER-IGNORED", "CLIENT-SURVIVES", "STREAM-READ-TO-END", "NO-RETRY-LOOP", "FALLBACK", "GIVES-UP"),
    ),
    Stage(
        "follow-up",
        (
            "NO-POLL-AFTER-MESSAGE",
            "INTERRUPTED-HANDLED",
            "POLL-BOUNDED",
            "FOLLOW-UP-TO-END",
            "STREAMING-USED",
            "RESUBSCRIBE",
            "GENERATION-UNKNOWN-NOT-USED",
            "GENERATION-LONG-POLL",
            "GENERATION-MISMATCH-REFETCH",
        ),
    ),
    Stage("actions", ("MULTI-TURN", "NEW-TASK", "CANCEL-TASK", "PUSH-CONFIG-MANAGED", "PUSH-RECEIVER")),
    Stage("result", ("RESULT-MATCHES", "RESULT-EXPECTED", "CLIENT-INFO")),
)

#: Where the call went and how it was spelt: a miss here means the agent never saw the request a correct client sends.
#: Judged from the requests alone (the proxy judges them on a live pair too).
WIRE = (
    "CARD-DISCOVERY",
    "INTERFACE-SELECTION",
    "URL-FROM-CARD",
    "TENANT",
    "VERSION-HEADER",
    "VERSION-MATCHES-METHOD",
    "METHOD-MATCHES-INTERFACE",
    "JSONRPC-ENVELOPE",
    "HTTP-JSON-REQUEST",
    "BODY-SHAPE",
)
#: Credentials a call needed and did not carry as the card asks.
_AUTH = ("CLIENT-CERTIFICATE", "AUTH-SCHEME-HONOURED", "TOKEN-LIFECYCLE", "AUTH-PRESENTED")
#: What a client concludes changes with any miss that changes what it was answered or what it made of the answer;
#: the misses that leave the answer as it was (a reused messageId, an invented contextId, a poll too many, a leaked
#: credential, a retry) explain no conclusion.
_CONCLUSION = (
    "TLS-VERIFIED",
    "SIGNATURE-VERIFIED",
    "NO-TLS-DOWNGRADE",
    *WIRE,
    "CAPABILITIES-RESPECTED",
    *_AUTH,
    "EXTENDED-CARD",
    "INVALID-ANSWER-IGNORED",
    "STREAM-READ-TO-END",
    "FALLBACK",
    "GIVES-UP",
    "INTERRUPTED-HANDLED",
    "FOLLOW-UP-TO-END",
    "MULTI-TURN",
    "NEW-TASK",
    "CANCEL-TASK",
    "CLIENT-SURVIVES",
)

#: Each symptom and the checks whose miss in the same scenario explains it. The earliest of them (in stage order)
#: that missed is named; every cause comes before its symptom in STAGES (a test holds it).
SYMPTOMS: dict[str, tuple[str, ...]] = {
    # Without the card there is no interface to choose, no URL, tenant or version to copy.
    "INTERFACE-SELECTION": ("CARD-DISCOVERY",),
    # The last interface of the card is the plain-http one a wrong choice lands on.
    "NO-TLS-DOWNGRADE": ("INTERFACE-SELECTION",),
    "URL-FROM-CARD": ("CARD-DISCOVERY",),
    "TENANT": ("CARD-DISCOVERY",),
    # A missing or wrong header makes every 1.0 method one sent under another version.
    "VERSION-MATCHES-METHOD": ("CARD-DISCOVERY", "VERSION-HEADER"),
    "METHOD-MATCHES-INTERFACE": ("CARD-DISCOVERY",),
    # Credentials sent with a call to the wrong origin went where the call went.
    "NO-CREDENTIAL-LEAK": ("CARD-DISCOVERY", "URL-FROM-CARD"),
    "AUTH-PRESENTED": ("CLIENT-CERTIFICATE", "AUTH-SCHEME-HONOURED", "TOKEN-LIFECYCLE"),
    "EXTENDED-CARD": ("CAPABILITIES-RESPECTED", *_AUTH),
    # A client that kept polling past INPUT_REQUIRED took the pause for work still going on.
    "POLL-BOUNDED": ("INTERRUPTED-HANDLED",),
    # A follow-up sent where, or as, the agent cannot take it follows nothing.
    "FOLLOW-UP-TO-END": (*WIRE, *_AUTH, "GIVES-UP", "CLIENT-SURVIVES", "STREAM-READ-TO-END"),
    "MULTI-TURN": (*WIRE, *_AUTH),
    "NEW-TASK": (*WIRE, *_AUTH),
    "CANCEL-TASK": (*WIRE, *_AUTH),
    "PUSH-CONFIG-MANAGED": (*WIRE, "CAPABILITIES-RESPECTED", *_AUTH),
    "RESULT-MATCHES": _CONCLUSION,
    "RESULT-EXPECTED": (*_CONCLUSION, "RESULT-MATCHES"),
}

#: A check's misses that explain or are explained: a harness ERROR is neither.
_MISSED = frozenset({Outcome.FAIL, Outcome.NON_STRICT})

#: Each check's place in the exchange.
RANK: dict[str, int] = {check_id: i for i, check_id in enumerate(c for stage in STAGES for c in stage.checks)}


def rank(check_id: str) -> int:
    """Where a check stands in STAGES; a check the table does not know (a probe's) after every one it knows."""
    return RANK.get(check_id, len(RANK))


def cause_of(symptom: str, missed: Iterable[str]) -> str | None:
    """The check that explains `symptom`'s miss, among those that `missed` in the same scenario (the earliest)."""
    found = set(missed) & set(SYMPTOMS.get(symptom, ()))
    return min(found, key=rank) if found else None


def annotate(checks: Sequence[CheckResult]) -> list[CheckResult]:
    """The checks of one scenario, each miss that follows from another marked with its cause (`follows_from`)."""
    missed = [c.id for c in checks if c.outcome in _MISSED]
    return [replace(c, follows_from=cause_of(c.id, missed)) if c.outcome in _MISSED else c for c in checks]


def cause_first(checks: Iterable[CheckResult]) -> list[CheckResult]:
    """Checks in the order the exchange meets them (STAGES), so that a cause comes before its symptoms; the checks
    the table does not know keep their order, after the ones it knows."""
    return sorted(checks, key=lambda c: rank(c.id))
