"""The result model every report is made from."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Level(str, Enum):
    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"
    INFO = "INFO"


class Outcome(str, Enum):
    PASS = "PASS"
    NON_STRICT = "NON_STRICT"  # a SHOULD missed
    FAIL = "FAIL"  # a MUST broken
    INFORMATIONAL = "INFORMATIONAL"  # recorded, never judged
    UNIMPLEMENTED = "UNIMPLEMENTED"  # an optional capability the client did not attempt
    SKIPPED = "SKIPPED"  # the situation the check judges did not arise
    TIMEOUT = "TIMEOUT"  # scenario: the client did not finish in time
    NO_CONTACT = "NO_CONTACT"  # scenario: the client never reached the server
    ERROR = "ERROR"  # scenario: a harness fault


#: What a run showed of a scenario's subject (ScenarioResult.subject): the client reached the agent; it refused where
#: the scenario asks it to (the refusal is the subject); it correctly refused a card that offers its generation or
#: bindings nothing (right, but the subject was not judged: counted apart); neither.
REACHED, REFUSED, REFUSED_CARD, NONE = "reached", "refused", "refused-card", "none"

#: How bad an outcome is, for picking a scenario's outcome from its checks.
SEVERITY = {
    Outcome.ERROR: 7,
    Outcome.TIMEOUT: 6,
    Outcome.NO_CONTACT: 5,
    Outcome.FAIL: 4,
    Outcome.NON_STRICT: 3,
    Outcome.PASS: 2,
    Outcome.UNIMPLEMENTED: 1,
    Outcome.INFORMATIONAL: 0,
    Outcome.SKIPPED: 0,
}
GATING = frozenset({Outcome.FAIL, Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR})
#: A check's misses: the outcomes a report shows with requirement, expected / actual and the quoted request.
MISSES = frozenset({Outcome.FAIL, Outcome.NON_STRICT, Outcome.ERROR})


@dataclass
class CheckResult:
    id: str
    level: Level
    outcome: Outcome
    message: str
    section: str = ""
    requirement: str = ""
    expected: str = ""
    actual: str = ""
    #: Journal sequence numbers of the requests that show it.
    evidence: list[int] = field(default_factory=list)
    #: The offending request, quoted from the journal.
    quote: str = ""
    baseline: str | None = None
    #: What a correct client does, in one sentence (the check's rule), and how to change one that misses it.
    rule: str = ""
    fix: str = ""
    #: The id of the check whose miss in the same scenario explains this one (harness.causes), else None. A symptom
    #: keeps its own outcome and level: this only orders and annotates it.
    follows_from: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["level"], out["outcome"] = self.level.value, self.outcome.value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        fields = {
            k: data[k]
            for k in (
                "id",
                "message",
                "section",
                "requirement",
                "expected",
                "actual",
                "evidence",
                "quote",
                "baseline",
                "rule",
                "fix",
                "follows_from",
            )
            if k in data
        }
        return cls(level=Level(data["level"]), outcome=Outcome(data["outcome"]), **fields)


@dataclass
class ClientRun:
    command: list[str]
    exit_code: int | None
    duration: float
    timed_out: bool
    stdout_tail: str = ""
    stderr_tail: str = ""
    result: dict[str, Any] | None = None
    result_error: str | None = None
    start_error: str | None = None


@dataclass
class ScenarioResult:
    id: str
    title: str
    group: str
    outcome: Outcome
    checks: list[CheckResult]
    client: ClientRun | None
    seed: int
    duration: float
    harness_cost: float = 0.0
    journal: list[dict[str, Any]] = field(default_factory=list)
    journal_dropped: int = 0
    error: str | None = None
    #: The baseline's reason when the scenario's own outcome (a TIMEOUT, a NO_CONTACT) is an expected failure.
    baseline: str | None = None
    #: What the run showed of the scenario's subject (outcome.Subject): "reached" (the client called the agent),
    #: "refused" (it left the agent alone where a correct client may), "none" (neither); None when not known.
    subject: str | None = None

    def check(self, check_id: str) -> CheckResult | None:
        return next((c for c in self.checks if c.id == check_id), None)

    def to_json(self, with_journal: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "group": self.group,
            "outcome": self.outcome.value,
            "seed": self.seed,
            "duration": round(self.duration, 3),
            "harness_cost": round(self.harness_cost, 4),
            "error": self.error,
            "checks": [c.to_json() for c in self.checks],
            "client": asdict(self.client) if self.client else None,
            "journal_dropped": self.journal_dropped,
            "baseline": self.baseline,
            "subject": self.subject,
        }
        if with_journal:
            out["journal"] = self.journal
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScenarioResult:
        client = data.get("client")
        return cls(
            data["id"],
            data.get("title", ""),
            data.get("group", data["id"].split("/")[0]),
            Outcome(data["outcome"]),
            [CheckResult.from_json(c) for c in data.get("checks", [])],
            ClientRun(**client) if client else None,
            int(data.get("seed", 0)),
            float(data.get("duration", 0.0)),
            float(data.get("harness_cost", 0.0)),
            data.get("journal", []),
            int(data.get("journal_dropped", 0)),
            data.get("error"),
            data.get("baseline"),
            data.get("subject"),
        )
