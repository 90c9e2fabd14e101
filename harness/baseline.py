"""Expected failures: a YAML (or JSON) map of scenario id -> check id (or `*` for the whole scenario) -> reason.

A check id excuses that check's FAIL or NON_STRICT in that scenario. `*` excuses the whole scenario: its TIMEOUT or
NO_CONTACT and every failing check in it (never an ERROR, a harness fault). An entry with nothing to excuse in a run
that ran its scenario is stale, and listed so it can be removed. Unknown scenario and check ids are refused, with the
nearest known id."""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .model import Outcome, ScenarioResult
from .scoring import gating

#: The check id of an entry for the whole scenario.
WHOLE = "*"
#: Scenario outcomes `*` excuses (ERROR is the harness's fault, never expected).
EXCUSABLE = frozenset({Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.FAIL, Outcome.NON_STRICT})


class BaselineError(ValueError):
    pass


@dataclass
class Baseline:
    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    source: str = "baseline"
    #: Entries that had nothing to excuse, as (scenario id, check id or `*`, what happened instead), as runs show them.
    stale: list[tuple[str, str, str]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Baseline:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except OSError as exc:
            raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise BaselineError(f"{path}: not valid YAML/JSON: {exc}") from None
        if not isinstance(data, dict):
            raise BaselineError(f"{path}: expected a mapping of scenario id -> {{check id: reason}}")
        entries: dict[str, dict[str, str]] = {}
        for sid, checks in data.items():
            if not isinstance(checks, dict) or not all(isinstance(v, str) for v in checks.values()):
                raise BaselineError(f"{path}: {sid}: expected a mapping of check id (or '*') -> reason text")
            entries[str(sid)] = {str(k): v for k, v in checks.items()}
        return cls(entries, str(path))

    def validate(self, scenario_ids: Collection[str], check_ids: Collection[str]) -> None:
        """Refuse ids that name nothing (a misspelling would otherwise excuse nothing, silently)."""
        for sid, checks in self.entries.items():
            if sid not in scenario_ids:
                raise BaselineError(f"{self.source}: unknown scenario {sid!r}; {_nearest(sid, scenario_ids)}")
            for cid in checks:
                if cid != WHOLE and cid not in check_ids:
                    raise BaselineError(
                        f"{self.source}: {sid}: unknown check {cid!r}; {_nearest(cid, check_ids)} "
                        f"(or '{WHOLE}' for the whole scenario)"
                    )

    def apply_checks(self, result: ScenarioResult, strict: bool) -> list[str]:
        """Mark the expected check failures of a scored scenario, before its outcome is taken (an excused check does
        not make the outcome); returns notes for check entries with nothing to excuse."""
        notes: list[str] = []
        expected = self.entries.get(result.id, {})
        whole = expected.get(WHOLE)
        for check in result.checks:
            reason = expected.get(check.id)
            failed = gating(check.outcome, strict) or check.outcome is Outcome.NON_STRICT
            if reason is not None and failed:
                check.baseline = reason
            elif reason is not None:
                notes.append(self._stale(result.id, check.id, reason, check.outcome.value))
            elif whole is not None and check.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
                check.baseline = whole
        return notes

    def apply_scenario(self, result: ScenarioResult, excused_checks: bool) -> list[str]:
        """After the outcome is taken: `*` excuses a TIMEOUT or NO_CONTACT; returns a note when `*` had nothing to
        excuse (`excused_checks`: it excused none of the scenario's checks either)."""
        reason = self.entries.get(result.id, {}).get(WHOLE)
        if reason is None:
            return []
        if result.outcome in EXCUSABLE:
            result.baseline = reason
            return []
        if excused_checks:
            return []
        return [self._stale(result.id, WHOLE, reason, result.outcome.value)]

    def _stale(self, sid: str, cid: str, reason: str, now: str) -> str:
        self.stale.append((sid, cid, now))
        what = "the whole scenario" if cid == WHOLE else "it"
        return (
            f"{sid} {cid}: listed as an expected failure ({reason}) but {what} now {now}; remove it from the baseline"
        )


def _nearest(name: str, known: Collection[str]) -> str:
    near = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
    return f"did you mean {', '.join(near)}?" if near else "no known id is close"
