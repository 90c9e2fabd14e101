"""How every scoring command ends (`run`, `score`, `probe`): the scorecard, the report files, the gate's exit code."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from a2a_lab.harness.client_judging import scoring
from a2a_lab.harness.client_judging.baseline import Baseline
from a2a_lab.harness.common.exit_codes import Exit
from a2a_lab.harness.common.messages import say
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.harness.reports import console, json_report
from a2a_lab.harness.reports.files import ReportFiles
from a2a_lab.protocol.cards import Support


def gate_exit(summary: dict[str, Any]) -> Exit:
    """A scoring summary's gate as an exit code: FAILED when it failed."""
    return Exit.FAILED if summary["gate"] == "failed" else Exit.OK


def conclude(
    results: list[ScenarioResult],
    supported: set[Support],
    meta: dict[str, Any],
    files: ReportFiles,
    strict: bool = False,
    verbose: bool = False,
    checks: Iterable[Any] | None = None,
    baseline: Baseline | None = None,
    quiet: bool = False,
) -> Exit:
    """Print the scorecard, write the report files, and return the exit code: HARNESS when a scenario ended in
    ERROR, else the gate's. `checks`: the checks the results come from, when they are not the client checks.
    `baseline`: the one the results were scored with (its stale entries are listed, and recorded in the report).
    `quiet`: the scorecard is the verdict alone (and stale baseline entries); the report files are the same."""
    summary = scoring.summary(results, strict)
    stale = [f"{sid} {cid} (now {now})" for sid, cid, now in baseline.stale] if baseline else []
    # `--json -`: stdout carries the JSON report, so the scorecard goes to stderr with the progress lines.
    console.scorecard(
        results, summary, sys.stderr if files.to_stdout else None, verbose=verbose, stale=stale, quiet=quiet
    )
    meta = {**meta, "strict": strict, "supports": sorted(f"{b.value}@{v.value}" for b, v in supported)}
    if baseline:
        meta["baseline"] = {
            "file": baseline.source,
            "stale": [{"scenario": sid, "check": cid, "now": now} for sid, cid, now in baseline.stale],
        }
    report = json_report.build(results, summary, meta, checks=checks)
    try:
        files.write(report, results, strict)
    except OSError as exc:  # checked before the run (outputs.unwritable); the disk may still fill up
        say(f"cannot write the reports: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}")
        return Exit.USAGE
    if any(r.outcome == Outcome.ERROR for r in results):
        return Exit.HARNESS
    return gate_exit(summary)
