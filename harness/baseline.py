"""Expected failures: a YAML (or JSON) map of scenario id -> check id (or `*` for the scenario) -> reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .model import Outcome, ScenarioResult
from .scoring import gating


class BaselineError(ValueError):
    pass


@dataclass
class Baseline:
    entries: dict[str, dict[str, str]] = field(default_factory=dict)

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
        return cls(entries)

    def apply(self, result: ScenarioResult, strict: bool) -> list[str]:
        """Mark expected failures on a result; returns notes for entries that now pass."""
        notes: list[str] = []
        expected = self.entries.get(result.id, {})
        for check in result.checks:
            reason = expected.get(check.id)
            if reason is None:
                continue
            if gating(check.outcome, strict) or check.outcome is Outcome.NON_STRICT:
                check.baseline = reason
            else:
                notes.append(
                    f"{result.id} {check.id}: listed as an expected failure ({reason}) but it now "
                    f"{check.outcome.value}; remove it from the baseline"
                )
        if "*" in expected and result.outcome in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR):
            result.error = (result.error or "") + f" [expected: {expected['*']}]"
        return notes
