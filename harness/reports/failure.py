"""How a missed check reads in text (the console's scorecard, the pytest plugin's assertion message): the one-line
finding, the cause it follows from, the rule a correct client follows, the spec section, what the client did
(expected / actual and the request it quotes from the journal), how to fix it, and where the scenario's whole story
is told (`a2a-lab scenarios show ID`).

Every function returns lines as the finding gives them: the caller escapes them (escape.console) and indents."""

from __future__ import annotations

import textwrap

from a2a_lab.harness.common.model import CheckResult, Outcome

#: A quoted request's lines are cut here (the JSON report and the HTML report keep them whole).
QUOTE_LINE_MAX = 300
QUOTE_LINES_MAX = 20
WIDTH = 100
#: Result groups that are no catalogue scenario (`a2a-lab scenarios show` knows nothing of them): a probed server's
#: interfaces, a proxied pair's sides, fuzz cases.
_NOT_SCENARIOS = frozenset({"probe", "proxy", "fuzz"})


def more_command(scenario_id: str, group: str) -> str | None:
    """The command that tells a scenario's whole story (what it serves, what a correct client does and why), or None
    for a result that is not of a catalogue scenario."""
    return None if group in _NOT_SCENARIOS else f"a2a-lab scenarios show {scenario_id}"


def headline(check: CheckResult) -> str:
    """`ID [LEVEL] OUTCOME: message`."""
    return f"{check.id} [{check.level.value}] {check.outcome.value}: {check.message}"


def follows_line(check: CheckResult) -> list[str]:
    """`follows from CAUSE` for a miss another miss of the same scenario explains ([] otherwise)."""
    if not check.follows_from:
        return []
    return [f"  follows from {check.follows_from}: fix that first, this miss may go with it"]


def failure_lines(check: CheckResult, more: str | None = None, verbose: bool = False) -> list[str]:
    """The check's finding and its evidence, unindented (the caller indents): the headline, the cause it follows
    from, the rule, the full requirement (`verbose`), the spec section, what the client did, the fix, and `more`
    (the command that tells the scenario's story)."""
    lines = [headline(check), *follows_line(check), *rule_lines(check)]
    if verbose:
        lines += requirement_lines(check)
    lines += spec_lines(check)
    lines += evidence_lines(check)
    lines += fix_lines(check)
    if more:
        lines.append(f"  more: {more}")
    if check.baseline:
        lines.append(f"  expected failure (baseline): {check.baseline}")
    return lines


def _wrapped(label: str, text: str) -> list[str]:
    head = f"  {label}: "
    return textwrap.wrap(text, WIDTH, initial_indent=head, subsequent_indent=" " * len(head)) if text else []


def rule_lines(check: CheckResult) -> list[str]:
    """What a correct client does, wrapped, indented by two ([] when the check has no rule)."""
    return _wrapped("rule", check.rule)


def fix_lines(check: CheckResult) -> list[str]:
    """How to change the client, wrapped, indented by two ([] when the check gives no fix, or when the miss is the
    harness's own ERROR: nothing about the client to fix)."""
    return [] if check.outcome is Outcome.ERROR else _wrapped("fix", check.fix)


def requirement_lines(check: CheckResult) -> list[str]:
    """The requirement the check judges, in full, wrapped, indented by two ([] when it has none)."""
    return _wrapped("requirement", check.requirement)


def spec_lines(check: CheckResult) -> list[str]:
    return [f"  spec: {check.section}"] if check.section else []


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
