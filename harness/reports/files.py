"""The report files a scoring command was asked for (`--json`, `--junit`, `--html`, `--report-dir`), written from
one report. The command line builds them from its options (cli.options.report_files) and checks them before a run
(cli.outputs.unwritable, for every output option of the command)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2a_lab.harness.common.model import ScenarioResult

#: The path that means standard output (`--json -`).
STDOUT = "-"


@dataclass(frozen=True)
class ReportFiles:
    json: Path | None = None
    junit: Path | None = None
    html: Path | None = None
    #: Every format plus each scenario's journal as JSONL.
    folder: Path | None = None
    #: List SKIPPED checks in the JUnit XML too.
    junit_skipped: bool = False
    #: The reports of an earlier run (`--compare`), for the HTML report's changes.
    previous: list[dict[str, Any]] | None = None

    @property
    def to_stdout(self) -> bool:
        """`--json -`: the JSON report goes to stdout (and everything for people to stderr)."""
        return self.json is not None and str(self.json) == STDOUT

    def write(self, report: dict[str, Any], results: list[ScenarioResult], strict: bool) -> None:
        from a2a_lab.harness.reports import html, json_report, junit  # here: the options that name files load none

        if self.to_stdout:
            json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
            sys.stdout.write("\n")
            sys.stdout.flush()
        elif self.json:
            json_report.write(self.json, report)
        if self.junit:
            junit.write(self.junit, report, strict, self.junit_skipped)
        if self.folder:
            write_dir(self.folder, report, results, strict, self.junit_skipped, self.previous)
        if self.html:
            html.write(self.html, [report], self.previous)


def write_dir(
    folder: Path,
    report: dict[str, Any],
    results: list[ScenarioResult],
    strict: bool,
    junit_skipped: bool = False,
    previous: list[dict[str, Any]] | None = None,
) -> None:
    from a2a_lab.harness.reports import html, json_report, junit

    folder.mkdir(parents=True, exist_ok=True)
    json_report.write(folder / "report.json", report)
    junit.write(folder / "junit.xml", report, strict, junit_skipped)
    html.write(folder, [report], previous)
    for r in results:
        path = folder / "journals" / f"{r.id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in r.journal), encoding="utf-8")
