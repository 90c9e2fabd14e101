"""The console view: a progress line per finished scenario, then the scorecard."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from ..model import Outcome, ScenarioResult
from .failure import failure_lines

_MARK = {
    Outcome.PASS: "PASS",
    Outcome.NON_STRICT: "WARN",
    Outcome.FAIL: "FAIL",
    Outcome.TIMEOUT: "TIME",
    Outcome.NO_CONTACT: "NONE",
    Outcome.ERROR: "ERR!",
    Outcome.SKIPPED: "SKIP",
    Outcome.UNIMPLEMENTED: "UNIM",
    Outcome.INFORMATIONAL: "INFO",
}


def progress_line(index: int, total: int, scenario_id: str, seconds: float, note: str = "") -> str:
    width = len(str(total))
    return f"[{index:>{width}}/{total}] {scenario_id} ({seconds:.1f}s){' ' + note if note else ''}"


def scorecard(
    results: list[ScenarioResult], summary: dict[str, Any], out: TextIO | None = None, verbose: bool = False
) -> None:
    out = (
        out if out is not None else sys.stdout
    )  # looked up per call: a default bound at import outlives redirected streams
    width = max((len(r.id) for r in results), default=8)
    print(f"\n{'SCENARIO'.ljust(width)}  RESULT  DETAIL", file=out)
    for r in results:
        bad = [c for c in r.checks if c.outcome in (Outcome.FAIL, Outcome.NON_STRICT, Outcome.ERROR) and not c.baseline]
        detail = ", ".join(f"{c.id} ({c.outcome.value})" for c in bad)
        declined = [c.id for c in r.checks if c.outcome is Outcome.UNIMPLEMENTED and c.id != "RESULT-EXPECTED"]
        if declined:
            detail = (detail + "; " if detail else "") + "not attempted: " + ", ".join(declined)
        if r.outcome in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR):
            detail = (r.error or r.outcome.value) + (f"; {detail}" if detail else "")
        print(f"{r.id.ljust(width)}  {_MARK[r.outcome]:<6}  {detail}", file=out)
        if r.error and r.outcome not in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR):
            print(f"{'':{width}}    note: {r.error}", file=out)  # e.g. a baseline entry that now passes
        if verbose or r.outcome in (Outcome.FAIL,):
            for c in bad:
                first, *rest = failure_lines(c)
                print(f"{'':{width}}    - {first}", file=out)
                for line in rest:
                    print(f"{'':{width}}      {line}", file=out)
    levels = summary["levels"]
    parts = [f"{lvl} {v['passed']}/{v['judged']}" for lvl, v in levels.items() if v["judged"]]
    outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items())
    print(f"\n{summary['scenarios']} scenarios: {outcomes}", file=out)
    print(f"checks passed: {', '.join(parts) or 'none judged'}", file=out)
    print(f"verdict: {summary['verdict']}", file=out)
