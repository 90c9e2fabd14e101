"""How a missed check reads in text (the console's scorecard, the pytest plugin's assertion message): the one-line
finding, then the requirement it breaks, expected / actual, and the request it quotes from the journal."""

from __future__ import annotations

import textwrap

from ..model import CheckResult

#: A quoted request's lines are cut here (the JSON report and the HTML report keep them whole).
QUOTE_LINE_MAX = 300
QUOTE_LINES_MAX = 20
WIDTH = 100


def failure_lines(check: CheckResult) -> list[str]:
    """The check's finding and its evidence, unindented; the caller indents."""
    lines = [f"{check.id} [{check.level.value}] {check.outcome.value}: {check.message}"]
    lines += requirement_lines(check)
    lines += evidence_lines(check)
    if check.baseline:
        lines.append(f"  expected failure (baseline): {check.baseline}")
    return lines


def requirement_lines(check: CheckResult) -> list[str]:
    """The requirement the check judges, wrapped, indented by two ([] when it has none)."""
    if not check.requirement:
        return []
    return textwrap.wrap(
        check.requirement, WIDTH, initial_indent="  requirement: ", subsequent_indent="               "
    )


def evidence_lines(check: CheckResult) -> list[str]:
    """What this finding saw: expected / actual and the request it quotes, indented by two."""
    lines = []
    if check.expected or check.actual:
        lines += [f"  expected: {check.expected}", f"  actual:   {check.actual}"]
    if check.quote:
        seqs = ", ".join(f"#{n}" for n in check.evidence)
        lines.append(f"  request {seqs}:" if seqs else "  request:")
        quoted = check.quote.split("\n")
        for line in quoted[:QUOTE_LINES_MAX]:
            lines.append("    " + (line if len(line) <= QUOTE_LINE_MAX else line[: QUOTE_LINE_MAX - 3] + "..."))
        if len(quoted) > QUOTE_LINES_MAX:
            lines.append(f"    ... {len(quoted) - QUOTE_LINES_MAX} more lines (see the JSON or HTML report)")
    return lines
