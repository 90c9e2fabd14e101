"""The console view: a progress line per finished scenario, then the scorecard.

The scorecard's layouts (`scorecard`):

- default: the summary (outcomes overall and per group, checks passed per level, what the baseline excused); each
  missed check once, causes before symptoms (the cause it follows from, its rule, spec section, the scenarios it missed
  in, the first one's evidence, the fix, the command that tells that scenario's story); what the baseline excused; a
  line per scenario (its outcome, the checks that missed, causes first, the baseline's excuses, its error); the stale
  baseline entries; the verdict, last.
- verbose: the summary; the missed checks a line each; per scenario, every finding in full, causes first (with the
  full requirement; the excused ones too); the stale entries; the verdict.
- quiet: the stale baseline entries and the verdict alone.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from a2a_lab.harness.client_judging.causes import cause_first
from a2a_lab.harness.common.escape import console as shown
from a2a_lab.harness.common.model import MISSES, REFUSED_CARD, Outcome, ScenarioResult
from a2a_lab.harness.reports import rollup
from a2a_lab.harness.reports.failure import failure_lines, more_command

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
#: Scenario outcomes that say why the scenario could not be judged (its error is the detail).
_BROKEN = (Outcome.TIMEOUT, Outcome.NO_CONTACT, Outcome.ERROR)


def colours(stream: TextIO) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, outcome: Outcome, colour: bool) -> str:
    return f"\033[{_COLOUR[outcome]}m{text}\033[0m" if colour else text


def painter(colour: bool) -> rollup.Paint:
    return (lambda text, outcome: paint(text, outcome, True)) if colour else rollup.plain


#: How many of its last lines a progress line quotes from a client's stderr.
STDERR_LINES = 6


def progress_line(
    index: int,
    total: int,
    scenario_id: str,
    seconds: float,
    note: str = "",
    outcome: Outcome | None = None,
    *,
    colour: bool = False,
) -> str:
    """`[1/9] PASS           quirks/advertised-method-not-found (0.6s)`; without `outcome` (not scored yet) the
    outcome column is left out. The id and the note are escaped here (escape.console); `colour` paints the outcome,
    so print the line as it is (escaping it again would show the colour codes)."""
    width = len(str(total))
    mark = (
        "" if outcome is None else paint(outcome.value, outcome, colour) + " " * (_MARK_WIDTH - len(outcome.value) + 2)
    )
    said = f" {shown(note)}" if note else ""
    return f"[{index:>{width}}/{total}] {mark}{shown(scenario_id)} ({seconds:.1f}s){said}"


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
    *,
    quiet: bool = False,
    what: str | None = None,
) -> None:
    """Print the scorecard (the layouts: the module's docstring). `stale`: baseline entries that had nothing to
    excuse, listed before the verdict. `what` names a result (default `interface` for a probe's, else `scenario`).
    `verbose` wins over `quiet`. Whatever a client, a scenario or a baseline said is escaped for the terminal
    (escape.console) before the colours go in."""
    out = (
        out if out is not None else sys.stdout
    )  # looked up per call: a default bound at import outlives redirected streams
    print("\n".join(scorecard_lines(results, summary, colours(out), verbose, stale, quiet, what)), file=out)


def scorecard_lines(
    results: list[ScenarioResult],
    summary: dict[str, Any],
    colour: bool = False,
    verbose: bool = False,
    stale: list[str] | None = None,
    quiet: bool = False,
    what: str | None = None,
) -> list[str]:
    """The scorecard's lines, escaped and (with `colour`) painted."""
    what = what or _what(results)
    coloured = painter(colour)
    lines: list[str] = []
    if verbose or not quiet:
        lines += ["", *rollup.summary_lines(results, summary, what, coloured)]
        missed = rollup.missed(results)
        if missed:
            many = len(missed) > 1
            lines += [
                "",
                f"{rollup.counted(rollup.checks_missed(missed), 'check')} missed"
                + (", causes first" if many else "")
                + ("" if verbose else (_EACH_ONCE if many else _ONCE).format(what)),
            ]
            lines += rollup.rollup_lines(missed, what, coloured, evidence=not verbose)
        excused = rollup.excused_lines(results, what, coloured)
        if excused and not verbose:
            lines += ["", "excused by the baseline:", *excused]
        lines += ["", *table_lines(results, what, coloured, verbose)]
        lines.append("")
    if stale:
        lines.append(f"baseline: {rollup.counted(len(stale), 'entry')} with nothing to excuse, remove:")
        lines += [f"  {shown(entry)}" for entry in stale]
    verdict = paint(shown(summary["verdict"]), Outcome.FAIL if summary["gate"] == "failed" else Outcome.PASS, colour)
    lines.append(f"verdict: {verdict}")
    return lines


def _what(results: list[ScenarioResult]) -> str:
    """What one result is: a probed server's interface, a proxied pair's side, else a scenario."""
    groups = {r.group for r in results}
    return "interface" if groups == {rollup.PROBE} else "side" if groups == {rollup.PROXY} else "scenario"


_EACH_ONCE = " (each once, with the evidence of the first {0} it missed in; -v: every {0}'s)"
_ONCE = " (with the evidence of the first {0} it missed in; -v: every {0}'s)"


def table_lines(results: list[ScenarioResult], what: str, coloured: rollup.Paint, verbose: bool) -> list[str]:
    """A line per scenario: its id, outcome and detail; with `verbose`, each finding in full under it."""
    ids = {r.id: shown(r.id) for r in results}
    width = max((len(sid) for sid in [*ids.values(), what]), default=8)
    lines = [f"{what.upper().ljust(width)}  {'RESULT'.ljust(_MARK_WIDTH)}  DETAIL"]
    pad = " " * width
    for r in results:
        said = shown(detail(r))
        gap = " " * (_MARK_WIDTH - len(r.outcome.value) + 2) + said if said else ""
        lines.append(f"{ids[r.id].ljust(width)}  {coloured(r.outcome.value, r.outcome)}{gap}")
        if r.error and r.outcome not in _BROKEN:
            lines.append(f"{pad}    note: {shown(r.error)}")  # e.g. a baseline entry that now passes
        if verbose:
            for c in cause_first(r.checks):
                if c.outcome in MISSES:
                    first, *rest = (shown(line) for line in failure_lines(c, more_command(r.id, r.group), verbose=True))
                    lines += [f"{pad}    - {first}", *(f"{pad}      {line}" for line in rest)]
    return lines


def detail(r: ScenarioResult) -> str:
    """A scenario's line: why it could not be judged, what the baseline excused, the checks that missed (causes
    first, a symptom naming its cause), what the client did not attempt."""
    parts = []
    if r.baseline:
        parts.append(f"expected failure (baseline): {r.baseline}")
    if r.outcome in _BROKEN and r.error:
        parts.append(r.error)
    bad = [
        f"{c.id} ({c.outcome.value}{f', follows from {c.follows_from}' if c.follows_from else ''})"
        for c in cause_first(r.checks)
        if c.outcome in MISSES and not c.baseline
    ]
    if bad:
        parts.append(", ".join(bad))
    if r.subject == REFUSED_CARD:
        parts.append("refused a card that offers this client nothing it speaks: right, its subject not judged")
    reasons: dict[str, list[str]] = {}
    for c in r.checks:
        if c.baseline:
            reasons.setdefault(c.baseline, []).append(f"{c.id} ({c.outcome.value})")
    others = []
    for reason, checks in reasons.items():
        if reason == r.baseline:
            parts[0] += f", excusing {', '.join(checks)}"
        else:
            others.append(f"{', '.join(checks)} — {reason}")
    if others:
        parts.append("excused by baseline: " + "; ".join(others))
    declined = [c.id for c in r.checks if c.outcome is Outcome.UNIMPLEMENTED and c.id != "RESULT-EXPECTED"]
    if declined:
        parts.append("not attempted: " + ", ".join(declined))
    return "; ".join(parts)
