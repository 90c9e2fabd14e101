"""The report files a scoring command was asked for (`--json`, `--junit`, `--html`, `--report-dir`), written from
one report."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import ScenarioResult
from ..outputs import STDOUT, file_problem, first_problem, folder_problem
from . import html, json_report, junit


@dataclass(frozen=True)
class ReportFiles:
    json: Path | None = None
    junit: Path | None = None
    html: Path | None = None
    #: Every format plus each scenario's journal as JSONL.
    folder: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ReportFiles:
        """From the options command_line.add_report_files added (a command without --report-dir has no folder)."""
        return cls(args.json, args.junit, args.html, getattr(args, "report_dir", None))

    @property
    def to_stdout(self) -> bool:
        """`--json -`: the JSON report goes to stdout (and everything for people to stderr)."""
        return self.json is not None and str(self.json) == STDOUT

    def problem(self) -> str | None:
        """Why one of these cannot be written (checked before a run starts), or None."""
        return first_problem(
            file_problem(self.json, "--json"),
            file_problem(self.junit, "--junit"),
            folder_problem(self.html, "--html"),
            folder_problem(self.folder, "--report-dir"),
        )

    def write(self, report: dict[str, Any], results: list[ScenarioResult], strict: bool) -> None:
        if self.to_stdout:
            json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif self.json:
            json_report.write(self.json, report)
        if self.junit:
            junit.write(self.junit, report, strict)
        if self.folder:
            write_dir(self.folder, report, results, strict)
        if self.html:
            html.write(self.html, [report])


def write_dir(folder: Path, report: dict[str, Any], results: list[ScenarioResult], strict: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    json_report.write(folder / "report.json", report)
    junit.write(folder / "junit.xml", report, strict)
    html.write(folder, [report])
    for r in results:
        path = folder / "journals" / f"{r.id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in r.journal), encoding="utf-8")
