"""What makes a fuzz case a failure, with no expectation written for it: the ordinary checks (every case carries
`expect.survives`, so CLIENT-SURVIVES judges crashes and RESULT-MATCHES judges the client's own account against what
was served) and the scenario's own outcome (a TIMEOUT: the client hung past the case's timeout)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult

#: Scenario outcomes that are failures of the client whatever its checks say: it hung. (NO_CONTACT is not one: a
#: client may refuse a card it cannot use, e.g. one listing only a binding it does not speak.)
CLIENT_OUTCOMES = (Outcome.TIMEOUT,)


@dataclass(frozen=True)
class Failure:
    """How one case failed: the check (or scenario outcome) and, for a crash, what crashed, so that shrinking keeps
    to the same failure and a second, different one is a finding of its own."""

    check: str
    detail: str
    #: What the check said, for the finding's file and the console.
    message: str

    @property
    def signature(self) -> str:
        return f"{self.check} {self.detail}".strip()


def _crash_kind(stderr: str) -> str:
    """The exception's type from a stack trace's last line (`KeyError: 'x'` -> `KeyError`), digits left out."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    head = re.split(r"[:\s]", lines[-1], maxsplit=1)[0]
    return re.sub(r"\d+", "N", head)[:60]


def failure(result: ScenarioResult) -> Failure | None:
    """The case's failure (None: it passed every oracle). A harness fault (ERROR) is none of the client's."""
    if result.outcome in CLIENT_OUTCOMES:
        return Failure(result.outcome.value, "", result.error or f"the scenario ended {result.outcome.value}")
    failed: list[CheckResult] = [c for c in result.checks if c.outcome is Outcome.FAIL]
    if not failed:
        return None
    first = failed[0]
    detail = _crash_kind(result.client.stderr_tail) if first.id == "CLIENT-SURVIVES" and result.client else ""
    return Failure(first.id, detail, f"{first.message}: {first.actual}" if first.actual else first.message)
