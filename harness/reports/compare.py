"""What changed between two JSON reports of the same client (`--compare PREVIOUS.json`), and what a run says about
its baseline: the facts the HTML report's "Changes" section shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile
from a2a_lab.harness.common.model import MISSES, SEVERITY, Outcome


@dataclass(frozen=True)
class Change:
    scenario: str
    #: None for the scenario itself, else the check id.
    check: str | None
    before: str | None  # None: not in the previous report
    after: str | None  # None: not in this report

    @property
    def worse(self) -> bool:
        return _severity(self.after) > _severity(self.before)


@dataclass
class Diff:
    previous: str  # what it is compared with (a file name and when it ran)
    worse: list[Change] = field(default_factory=list)
    better: list[Change] = field(default_factory=list)


#: How bad an outcome is when two runs are compared. The aggregation order (SEVERITY) ranks PASS above UNIMPLEMENTED
#: (one judged check makes a scenario PASS); between runs, a PASS that became UNIMPLEMENTED (or SKIPPED) is evidence
#: lost, so it counts as worse, and the other way as better.
_CHANGE_RANK = {**SEVERITY, Outcome.PASS: 0, Outcome.INFORMATIONAL: 1, Outcome.SKIPPED: 1, Outcome.UNIMPLEMENTED: 2}


def _severity(outcome: str | None) -> int:
    return _CHANGE_RANK[Outcome(outcome)] if outcome else -1


def load_previous(path: Path) -> list[dict[str, Any]]:
    """The reports in a JSON report file: one report, or the `{"reports": [...]}` of `report merge --json`. Read by
    the bounded reader of user files (userfile.REPORT); raises ValueError (a userfile.Refused among them)."""
    data = userfile.load_json(path, userfile.REPORT)
    reports = data.get("reports", [data]) if isinstance(data, dict) else None
    if not isinstance(reports, list) or not all(isinstance(r, dict) and "scenarios" in r for r in reports):
        raise ValueError(f"{path}: not an a2a-lab JSON report (no `scenarios` list)")
    return reports


def pick(report: dict[str, Any], previous: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The previous report of the same client (its name or command), or the only one there is."""
    for key in ("name", "client"):
        same = [p for p in previous if report.get(key) and p.get(key) == report.get(key)]
        if same:
            return same[0]
    return previous[0] if len(previous) == 1 else None


def diff(report: dict[str, Any], previous: dict[str, Any], label: str) -> Diff:
    """Scenario outcomes that changed, and checks that became or stopped being misses."""
    out = Diff(f"{label} (started {previous.get('started') or 'unknown'})")
    before = {s["id"]: s for s in previous["scenarios"]}
    after = {s["id"]: s for s in report["scenarios"]}
    for sid in sorted(before.keys() | after.keys()):
        old, new = before.get(sid), after.get(sid)
        changes = []
        if (old and old["outcome"]) != (new and new["outcome"]):
            changes.append(Change(sid, None, old and old["outcome"], new and new["outcome"]))
        if old and new:
            old_checks = {c["id"]: c["outcome"] for c in old["checks"]}
            for check in new["checks"]:
                was = old_checks.get(check["id"])
                if was != check["outcome"] and (was in MISSES or check["outcome"] in MISSES):
                    changes.append(Change(sid, check["id"], was, check["outcome"]))
        for change in changes:
            (out.worse if change.worse else out.better).append(change)
    return out


def baseline_entries(report: dict[str, Any]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(scenario, check, reason) of every miss the baseline expected, and the notes on entries that now pass."""
    expected = [
        (s["id"], c["id"], c["baseline"]) for s in report["scenarios"] for c in s["checks"] if c.get("baseline")
    ]
    stale = [
        note
        for s in report["scenarios"]
        for note in (s.get("error") or "").split("; ")
        if "remove it from the baseline" in note
    ]
    return expected, stale
