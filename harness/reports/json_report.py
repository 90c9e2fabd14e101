"""The JSON report: `{"summary": ..., "scenarios": [{"id", "outcome", "checks": [...], "journal": [...]}]}`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from a2a_lab.harness.client_judging.checks import client_checks
from a2a_lab.harness.common.model import ScenarioResult
from a2a_lab.harness.reports.failure import more_command

FORMAT_VERSION = 1


def build(
    results: list[ScenarioResult],
    summary: dict[str, Any],
    meta: dict[str, Any],
    with_journal: bool = True,
    checks: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """`checks`: the checks the results come from (anything with id, level, section, title, requirement,
    grading, and optionally rule and fix); the client checks by default, the probe's for `a2a-lab probe`. Each
    scenario says where its whole story is told (`more`: `a2a-lab scenarios show ID`, None for a probe's interface
    or a proxied pair's side)."""
    return {
        "format": FORMAT_VERSION,
        "tool": "a2a-lab",
        **meta,
        "summary": {
            **summary["outcomes"],
            "levels": summary["levels"],
            "gate": summary["gate"],
            "verdict": summary["verdict"],
            "scenarios": summary["scenarios"],
            **({"subjects": summary["subjects"]} if "subjects" in summary else {}),
        },
        "checks": [check_json(c) for c in (client_checks() if checks is None else checks)],
        "scenarios": [{**r.to_json(with_journal), "more": more_command(r.id, r.group)} for r in results],
    }


def check_json(check: Any) -> dict[str, Any]:
    """A check as the reports and `a2a-lab checks --json` list it (a client check or a probe check)."""
    return {
        "id": check.id,
        "level": check.level.value,
        "section": check.section,
        "title": check.title,
        "requirement": check.requirement,
        "grading": check.grading,
        "rule": getattr(check, "rule", ""),
        "fix": getattr(check, "fix", ""),
    }


def write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
