"""The check registry: named, stable checks with a level and the spec text they stand on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..journal_view import Call, RunView
from ..model import CheckResult, Level, Outcome


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


REGISTRY: dict[str, Check] = {}


def check(
    check_id: str, level: Level, section: str, title: str, requirement: str, grading: str = ""
) -> Callable[[Callable[[RunView, Check], CheckResult]], Callable[[RunView, Check], CheckResult]]:
    def register(fn: Callable[[RunView, Check], CheckResult]) -> Callable[[RunView, Check], CheckResult]:
        if check_id in REGISTRY:
            raise ValueError(f"duplicate check id {check_id}")
        REGISTRY[check_id] = Check(check_id, level, section, title, requirement, grading, fn)
        return fn

    return register
