"""The console view: a progress line per finished scenario, then the scorecard."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from ..model import Outcome, ScenarioResult
from .escape import console as shown
from .failure import failure_lines

#: The colour of each outcome on a terminal (ANSI SGR codes): red fails the gate, yellow is a miss that does not.
_COLOUR = {
    Outcome.PASS: "32",
    Outcome.NON_STRICT: "33",
    Outcome.FAIL: "31",
    Outcome.TIMEOUT: "31",
    Outcome.NO_CONTACT: "31",
    Outcome.ERROR: "1;31",
    Outcome.SKIPPED: "2",
    Outcome.UNIMPLEMENTED: "33",
    Outcome.INFORMATIONAL: "2",
}
#: The outcome column's width: the longest outcome name (the console spells outcomes as the reports do).
_MARK_WIDTH = max(len(o.value) for o in Outcome)


def colours(stream: TextIO) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, outcome: Outcome, colour: bool) -> str:
    return f"\033[{_COLOUR[outcome]}m{text}\033[0m" if colour else text


#: How many of its last lines a progress line quotes from a client's stderr.
STDERR_LINES = 6


def progress_line(index: int, total: int, scenario_id: str, seconds: float, note: str = "") -> str:
    width = len(str(total))
    return f"[{index:>{width}}/{total}] {scenario_id} ({seconds:.1f}s){' ' + note if note else ''}"


def stderr_tail(text: str, lines: int = STDERR_LINES) -> list[str]:
    """The last `lines` non-blank lines of a client's stderr, indented under its progress line."""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return [f"    | {line}" for line in kept]


def scorecard(
    results: list[ScenarioResult],
    summary: dict[str, Any],
    out: TextIO | None = None,
    verbose: bool = False,
    stale: list[str] | None = None,
) -> None:
    """`stale`: baseline entries that had nothing to excuse, listed before the verdict. Whatever a client, a scenario
    or a baseline said is escaped for the terminal (escape.console) before the colours go in."""
    out = (
        out if out is not None else sys.stdout
    )  # looked up per call: a default bound at import outlives redirected streams
    colour = colours(out)

    def say(*lines: str) -> None:
        for line in lines:
            print(shown(line), file=out)

    ids = {r.id: shown(r.id) for r in results}
    width = max((len(sid) for sid in ids.values()), default=8)
    say(f"\n{'SCENARIO'.ljust(width)}  {'RESULT'.ljust(_MARK_WIDTH)}  DETAIL")
    for r in results:
        bad = [c for c in r.checks if c.outcome in (Outcome.FAIL, Outcome.NON_STRICT, Outcome.ERROR) and not c.baseline]
        detail = ", ".join(f"{c.id} ({c.outcome.value})" for c in bad)
        declined = [c.id for c in r.checks if c.outcome is Outcome.UNIMPLEMENTED and c.id != "RESULT-EXPECTED"]
        if declined:
            detail = (detail + "; " if detail else "") + "not attempted: " + ", ".join(declined)
        if r.outcome in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR) and r.error:
            detail = r.error + (f"; {detail}" if detail else "")
        if r.baseline:
            detail = f"expected failure (baseline): {r.baseline}" + (f"; {detail}" if detail else "")
        mark = paint(r.outcome.value.ljust(_MARK_WIDTH), r.outcome, colour)
        print(f"{ids[r.id].ljust(width)}  {mark}  {shown(detail)}", file=out)
        if r.error and r.outcome not in (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR):
            say(f"{'':{width}}    note: {r.error}")  # e.g. a baseline entry that now passes
        if verbose or r.outcome in (Outcome.FAIL,):
            for c in bad:
                first, *rest = failure_lines(c)
                say(f"{'':{width}}    - {first}", *(f"{'':{width}}      {line}" for line in rest))
    levels = summary["levels"]
    parts = [f"{lvl} {v['passed']}/{v['judged']}" for lvl, v in levels.items() if v["judged"]]
    outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items())
    skipped = sum(v.get("skipped", 0) for v in levels.values())
    unimplemented = sum(v.get("unimplemented", 0) for v in levels.values())
    apart = f" (judged nothing: {skipped} SKIPPED, {unimplemented} UNIMPLEMENTED)" if skipped or unimplemented else ""
    say(f"\n{summary['scenarios']} scenarios: {outcomes}", f"checks passed: {', '.join(parts) or 'none judged'}{apart}")
    if stale:
        say(f"baseline: {len(stale)} entr{'y' if len(stale) == 1 else 'ies'} with nothing to excuse, remove:")
        say(*(f"  {entry}" for entry in stale))
    verdict = paint(summary["verdict"], Outcome.FAIL if summary["gate"] == "failed" else Outcome.PASS, colour)
    print(f"verdict: {verdict}", file=out)
