"""The JSON report: `{"summary": ..., "scenarios": [{"id", "outcome", "checks": [...], "journal": [...]}]}`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..checks import catalogue
from ..model import ScenarioResult

FORMAT_VERSION = 1


def build(results: list[ScenarioResult], summary: dict[str, Any], meta: dict[str, Any], with_journal: bool = True) -> dict[str, Any]:
    return {
        "format": FORMAT_VERSION,
        "tool": "a2a-lab",
        **meta,
        "summary": {**summary["outcomes"], "levels": summary["levels"], "gate": summary["gate"], "verdict": summary["verdict"],
                    "scenarios": summary["scenarios"]},
        "checks": [{"id": c.id, "level": c.level.value, "section": c.section, "title": c.title, "requirement": c.requirement, "grading": c.grading}
                   for c in catalogue()],
        "scenarios": [r.to_json(with_journal) for r in results],
    }


def write(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
