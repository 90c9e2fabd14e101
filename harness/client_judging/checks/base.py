"""The check registry: named, stable checks with a level and the spec text they stand on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome


@dataclass(frozen=True)
class Check:
    id: str
    level: Level
    section: str
    title: str
    requirement: str
    #: Why the level differs from the spec's own keyword, when it does.
    grading: str
    evaluate: Callable[[RunView, Check], CheckResult]
    #: What a correct client does, in one sentence in a client author's terms: what a report leads a miss with.
    rule: str = ""
    #: How to change a client that misses it: one or two imperative sentences.
    fix: str = ""

    def result(
        self,
        outcome: Outcome,
        message: str,
        expected: str = "",
        actual: str = "",
        calls: list[Call] | None = None,
        level: Level | None = None,
    ) -> CheckResult:
        """`level`: the keyword of this finding, where the check judges rules of more than one keyword."""
        calls = calls or []
        return CheckResult(
            self.id,
            level or self.level,
            outcome,
            message,
            self.section,
            self.requirement,
            expected,
            actual,
            [c.seq for c in calls],
            calls[0].quote() if calls else "",
            rule=self.rule,
            fix=self.fix,
        )

    def passed(self, message: str, calls: list[Call] | None = None) -> CheckResult:
        return self.result(Outcome.PASS, message, calls=calls)

    def skipped(self, message: str) -> CheckResult:
        return self.result(Outcome.SKIPPED, message)

    def broken(
        self, message: str, expected: str, actual: str, calls: list[Call] | None = None, level: Level | None = None
    ) -> CheckResult:
        """The outcome a miss earns at this check's level, or at `level`: the keyword of the rule this finding breaks
        when a check judges rules of more than one keyword (a MUST and a SHOULD NOT of the same object)."""
        return self.result(MISSED[level or self.level], message, expected, actual, calls, level)


#: The outcome a miss earns at each level: FAIL only for a broken MUST.
MISSED = {
    Level.MUST: Outcome.FAIL,
    Level.SHOULD: Outcome.NON_STRICT,
    Level.MAY: Outcome.INFORMATIONAL,
    Level.INFO: Outcome.INFORMATIONAL,
}


#: The rule every check that assumes a card field follows (rendered in docs/reference/checks.md).
CARD_READING = """\
## Which card a check reads

A client is judged only on the card its protocol generation can read (`a2a_lab.protocol.cards.interfaces(card,
reader)`, the one place that knows which fields each generation reads):

- A **1.0 client** reads `supportedInterfaces` (A2A 1.0 §8.3.2, §4.4.6). On a card without that list (a 0.3 card) it
  reads the 0.3 fields, as the official SDKs map a legacy card; a dual card's 0.3 top-level fields are leftovers to it.
- A **0.3 client** reads `url`, `preferredTransport`, `additionalInterfaces` and the top-level `protocolVersion`
  (A2A 0.3 §5.5, §5.6), never `supportedInterfaces`, and the extended card only as `supportsAuthenticatedExtendedCard`.
  It SHOULD use `url` when it supports `preferredTransport`, and MAY use any supported additional interface otherwise
  (0.3 §5.6.3 rules 2-3): INTERFACE-SELECTION grades the first NON_STRICT, not FAIL.
- A client's generation is what it speaks: 0.3 when it is known to speak only 0.3, else 1.0. What it speaks is
  declared with `--client-supports`, or inferred from what it is seen to use anywhere in the run (one scenario's
  calls tell the others). A client that made no call anywhere in the run and declared nothing has no known
  generation, and either may be right: INTERFACE-SELECTION fails it only on a card a client of either generation
  must read (a dual card: `supportedInterfaces` for 1.0, `url` for 0.3), and otherwise skips with the card's gap (a
  1.0 client is not required to read a 0.3-only card, nor a 0.3 client a 1.0-only one).
- A call is judged against the interface at the URL it went to, in whichever generation's part of the card declares
  it (URL-FROM-CARD, METHOD-MATCHES-INTERFACE): the method names a client uses do not decide where its URL came from.
- A card that offers the client's generation nothing readable (a 1.0-only card, without `url`, to a 0.3 client; its
  0.3 card model cannot even parse it, 0.3 §5.5: `url` is REQUIRED) makes the client's refusal correct: the checks
  that assume the card (INTERFACE-SELECTION, SIGNATURE-VERIFIED) PASS with a message naming the card's gap, never
  FAIL. URL-FROM-CARD, TENANT, METHOD-MATCHES-INTERFACE, FALLBACK, CAPABILITIES-RESPECTED and the action checks read
  the same view.
- Versions read leniently, because no MUST is broken: an interface whose card omits the REQUIRED
  `AgentInterface.protocolVersion` (§4.4.6) is the card's fault, and a client may read it as 1.0 or as 0.3 (the lab's
  strict reading, and what INTERFACE-SELECTION expects, is 0.3, as §3.6.2 reads an absent header); a 0.3 client may
  call a pre-0.3 card's `url` (`protocolVersion: "0.2.5"`): 0.3 has no version negotiation (0.3 §3.4.2) and 0.2.x
  shares its methods.
"""

REGISTRY: dict[str, Check] = {}


def check(
    check_id: str,
    level: Level,
    section: str,
    title: str,
    requirement: str,
    grading: str = "",
    *,
    rule: str,
    fix: str,
) -> Callable[[Callable[[RunView, Check], CheckResult]], Callable[[RunView, Check], CheckResult]]:
    """Register a check. `requirement` is the lab's full statement of what it judges (the reference's); `rule` says
    the same in one sentence a client author acts on, and `fix` how to change a client that misses it."""

    def register(fn: Callable[[RunView, Check], CheckResult]) -> Callable[[RunView, Check], CheckResult]:
        if check_id in REGISTRY:
            raise ValueError(f"duplicate check id {check_id}")
        REGISTRY[check_id] = Check(check_id, level, section, title, requirement, grading, fn, rule, fix)
        return fn

    return register


def shown(value: object) -> str:
    """A value a client sent or reported, as a finding quotes it: `absent` where there was none (never `None`)."""
    return "absent" if value is None else repr(value)
