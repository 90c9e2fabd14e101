"""The JSON report: `{"summary": ..., "scenarios": [{"id", "outcome", "checks": [...], "journal": [...]}]}`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..checks import catalogue
from ..model import ScenarioResult

FORMAT_VERSION = 1


def build(
    results: list[ScenarioResult],
    summary: dict[str, Any],
    meta: dict[str, Any],
    with_journal: bool = True,
    checks: Iterable[Any] | None = None,
) -> dict[str, Any]:
    """`checks`: the catalogue the results come from (anything with id, level, section, title, requirement,
    grading); the client checks by default, the probe's for `a2a-lab probe`."""
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
        },
        "checks": [
            {
                "id": c.id,
                "level": c.level.value,
                "section": c.section,
                "title": c.title,
                "requirement": c.requirement,
                "grading": c.grading,
            }
            for c in (catalogue() if checks is None else checks)
        ],
        "scenarios": [r.to_json(with_journal) for r in results],
    }


def write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
