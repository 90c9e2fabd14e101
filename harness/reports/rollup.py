"""The text every scored run is summed up in (the console's scorecard, `probe`'s, the pytest plugin's): the summary
(outcomes overall and per group, checks passed per level, what the baseline excused) and the roll-up of missed
checks, each check once with the scenarios it missed in and the evidence of the first, as the HTML report's
per-check view groups them.

Every function returns lines ready to print: whatever a client, a scenario or a baseline said is escaped for the
terminal (escape.console) before `paint` colours an outcome, so a colour code is the only control that gets out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from a2a_lab.harness.client_judging.causes import rank
from a2a_lab.harness.common.escape import console as shown
from a2a_lab.harness.common.model import MISSES, SEVERITY, CheckResult, Level, Outcome, ScenarioResult
from a2a_lab.harness.reports.failure import WIDTH, evidence_lines, fix_lines, more_command, rule_lines, spec_lines

#: Colours an outcome's name (text already escaped) for where it is shown; `plain` leaves it.
Paint = Callable[[str, Outcome], str]
#: How many scenario ids a roll-up names before `+K more`.
NAMED = 5
#: Outcomes worst first, the order the counts are given in.
WORST_FIRST = sorted(Outcome, key=lambda o: -SEVERITY[o])
_LEVELS = {level: i for i, level in enumerate(Level)}


def plain(text: str, outcome: Outcome) -> str:
    return text


def counted(n: int, what: str) -> str:
    """`1 scenario`, `2 scenarios`, `1 entry`, `3 entries`."""
    if n == 1:
        return f"1 {what}"
    return f"{n} {what[:-1]}ies" if what.endswith("y") else f"{n} {what}s"


def outcome_counts(outcomes: Iterable[Outcome], paint: Paint = plain) -> str:
    """`FAIL 2, NON_STRICT 1, PASS 3`: worst first."""
    counts = Counter(outcomes)
    return ", ".join(f"{paint(o.value, o)} {counts[o]}" for o in WORST_FIRST if counts[o]) or "none"


@dataclass
class Rolled:
    """One check at one level over a run: the scenarios where it missed (or was excused), in run order. A check that
    judges rules of several keywords rolls up once per level, so each entry has one."""

    check_id: str
    #: (scenario id, that scenario's result of the check), the first first.
    where: list[tuple[str, CheckResult]] = field(default_factory=list)
    #: The command that tells the first scenario's story (failure.more_command), if it is a catalogue scenario.
    more: str | None = None

    @property
    def causes(self) -> Counter[str]:
        """In how many of its scenarios each cause explains this miss (CheckResult.follows_from)."""
        return Counter(c.follows_from for _, c in self.where if c.follows_from)

    @property
    def first(self) -> CheckResult:
        return self.where[0][1]

    @property
    def outcomes(self) -> list[Outcome]:
        """The outcomes it had, worst first."""
        return [o for o in WORST_FIRST if any(c.outcome is o for _, c in self.where)]


def missed(results: Sequence[ScenarioResult]) -> list[Rolled]:
    """Each check that missed (FAIL, NON_STRICT, ERROR) somewhere and was not excused, once per level: causes before
    symptoms (the order the exchange meets them, causes.STAGES), then the strongest level, then the most widespread,
    then as the run met them."""
    return _roll(results, lambda c: c.outcome in MISSES and not c.baseline, lambda c: f"{c.id}\n{c.level.value}")


def excused(results: Sequence[ScenarioResult]) -> list[Rolled]:
    """Each check the baseline excused somewhere, once per level and reason."""
    return _roll(results, lambda c: bool(c.baseline), lambda c: f"{c.id}\n{c.level.value}\n{c.baseline}")


def _roll(
    results: Sequence[ScenarioResult], keep: Callable[[CheckResult], bool], key: Callable[[CheckResult], str]
) -> list[Rolled]:
    rolled: dict[str, Rolled] = {}
    for r in results:
        for c in r.checks:
            if keep(c):
                rolled.setdefault(key(c), Rolled(c.id, more=more_command(r.id, r.group))).where.append((r.id, c))
    order = list(rolled.values())
    return sorted(order, key=lambda x: (rank(x.check_id), _LEVELS[x.first.level], -len(x.where), order.index(x)))


def checks_missed(rolled: Sequence[Rolled]) -> int:
    """How many checks the roll-up names (a check missed at two levels is one check)."""
    return len({r.check_id for r in rolled})


def follows_text(r: Rolled, what: str = "scenario") -> str:
    """`follows from INTERFACE-SELECTION in 5 of its 6 scenarios`, the most frequent cause first ("" when no cause
    explains it anywhere)."""
    causes = r.causes.most_common()
    if not causes:
        return ""
    total = len(r.where)
    (cause, n), *others = causes
    share = (
        f"its one {what}"
        if total == 1
        else f"all {total} of its {what}s"
        if n == total
        else f"{n} of its {total} {what}s"
    )
    return f"follows from {cause} in {share}" + "".join(f", from {c} in {k}" for c, k in others)


def names(ids: Sequence[str], limit: int = NAMED) -> str:
    """Ids as a list: all of them, or the first `limit` and `+K more`."""
    if len(ids) <= limit:
        return ", ".join(ids)
    return ", ".join(ids[:limit]) + f" +{len(ids) - limit} more"


def wrapped(label: str, items: Sequence[str], indent: int, hang: int | None = None) -> list[str]:
    """`label` then the items, comma-separated, packed into lines of WIDTH; continuation lines indented by `hang`
    (default: under the first item). An item is never split (`+4 more` is one)."""
    lines, line = [], " " * indent + label
    below = " " * (indent + len(label) if hang is None else hang)
    for i, item in enumerate(items):
        follows = items[i + 1] if i < len(items) - 1 else None
        piece = item + ("," if follows is not None and not follows.startswith("+") else "")
        if line.strip() != label.strip() and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = below + piece
        else:
            line += ("" if line.endswith(label) else " ") + piece
    lines.append(line)
    return lines


def _listed(ids: Sequence[str], limit: int = NAMED) -> list[str]:
    """The items `names` joins: the first `limit` ids, then `+K more`."""
    return list(ids) if len(ids) <= limit else [*ids[:limit], f"+{len(ids) - limit} more"]


#: The result groups that judge one party, not a catalogue of scenarios: a probed server (its card and each interface
#: a result) and a proxied pair (each side a result).
PROBE, PROXY = "probe", "proxy"


def judged_line(results: Sequence[ScenarioResult], what: str = "scenario", paint: Paint = plain) -> str:
    """What was judged and how it went: `20 scenarios: FAIL 8, PASS 12`; a probe's `1 server judged (its card and 5
    interfaces): PASS 6`; a proxy's `1 client-server pair judged: client FAIL, server PASS`."""
    groups = {r.group for r in results}
    if groups == {PROBE}:
        interfaces = counted(sum(1 for r in results if r.id != f"{PROBE}/card"), "interface")
        return f"1 server judged (its card and {interfaces}): {outcome_counts((r.outcome for r in results), paint)}"
    if groups == {PROXY}:
        sides = ", ".join(
            f"{shown(r.id.removeprefix(PROXY + '/'))} {paint(r.outcome.value, r.outcome)}" for r in results
        )
        return f"1 client-server pair judged: {sides}"
    return f"{counted(len(results), what)}: {outcome_counts((r.outcome for r in results), paint)}"


def subject_lines(subjects: dict[str, Any] | None, what: str = "scenario") -> list[str]:
    """Scenarios judged on their subject, apart from correct refusals of a card for another generation or binding
    (right, but their subjects were not judged): [] where there were none of those."""
    if not subjects or not subjects.get("refused_card"):
        return []
    return [
        f"judged on their subject: {subjects['judged']} {what}(s); correct refusals of a card for another generation "
        f"or binding: {subjects['refused_card']} (their subjects not judged: -v or the JSON report lists them)"
    ]


def summary_lines(
    results: Sequence[ScenarioResult], summary: dict[str, Any], what: str = "scenario", paint: Paint = plain
) -> list[str]:
    """Outcomes overall and per group (when the run has more than one), checks passed per level with what judged
    nothing apart, and what the baseline excused."""
    lines = [judged_line(results, what, paint)]
    groups = sorted({r.group for r in results})
    if len(groups) > 1:
        width = max(len(shown(g)) for g in groups)
        for g in groups:
            of = [r.outcome for r in results if r.group == g]
            lines.append(f"  {shown(g).ljust(width)}  {outcome_counts(of, paint)}")
    lines += subject_lines(summary.get("subjects"), what)
    levels = summary["levels"]
    parts = [f"{lvl} {v['passed']}/{v['judged']}" for lvl, v in levels.items() if v["judged"]]
    unjudged = [
        f"{n} {name}"
        for name, n in (
            ("SKIPPED", sum(v.get("skipped", 0) for v in levels.values())),
            ("UNIMPLEMENTED", sum(v.get("unimplemented", 0) for v in levels.values())),
        )
        if n
    ]
    apart = f" (judged nothing: {', '.join(unjudged)})" if unjudged else ""
    lines.append(f"checks passed: {', '.join(parts) or 'none judged'}{apart}")
    checks = [c for r in results for c in r.checks if c.baseline]
    whole = [r for r in results if r.baseline]
    if checks or whole:
        said = []
        if checks:
            said.append(f"{counted(len(checks), 'check')} ({outcome_counts((c.outcome for c in checks), paint)})")
        if whole:
            said.append(f"{counted(len(whole), what)} ({outcome_counts((r.outcome for r in whole), paint)})")
        lines.append(f"excused by the baseline: {' and '.join(said)}; not counted against the gate")
    return lines


def rollup_lines(
    rolled: Sequence[Rolled], what: str = "scenario", paint: Paint = plain, evidence: bool = True
) -> list[str]:
    """Each missed check once per level, causes first: `- ID [LEVEL] OUTCOME in N scenarios`, the cause it follows
    from and in how many of them, the rule, the spec section, the scenarios (the first NAMED and `+K more`), the first
    scenario's finding with what the client did (expected / actual, the quoted request), the fix, and the command that
    tells that scenario's story. `evidence=False`: the first line, the cause and the scenarios only."""
    lines: list[str] = []
    for r in rolled:
        first_id, first = r.where[0]
        mixed = len(r.outcomes) > 1
        marks = "/".join(paint(o.value, o) for o in r.outcomes)
        ids = [shown(sid) + (f" ({c.outcome.value})" if mixed else "") for sid, c in r.where]
        head = f"- {shown(r.check_id)} [{first.level.value}] {marks} in {counted(len(ids), what)}"
        follows = follows_text(r, what)
        if not evidence:
            lines += wrapped(head + ": ", _listed(ids), 0, hang=4)
            lines += [f"    {shown(follows)}"] if follows else []
            continue
        lines.append(head)
        lines += [f"    {shown(follows)}: fix that first"] if follows else []
        lines += ["  " + shown(line) for line in rule_lines(first) + spec_lines(first)]
        lines += wrapped(f"{what}{'s' if len(ids) > 1 else ''}: ", _listed(ids), 4)
        lines.append(f"    first, in {shown(first_id)}: {shown(first.message)}")
        lines += ["    " + shown(line) for line in evidence_lines(first)]
        lines += ["  " + shown(line) for line in fix_lines(first)]
        if r.more:
            lines.append(f"    more: {shown(r.more)}")
    return lines


def excused_lines(results: Sequence[ScenarioResult], what: str = "scenario", paint: Paint = plain) -> list[str]:
    """What the baseline excused, a line per check and reason, then a line per scenario excused as a whole."""
    lines: list[str] = []
    for r in excused(results):
        ids = [shown(sid) for sid, _ in r.where]
        marks = "/".join(paint(o.value, o) for o in r.outcomes)
        where = ids[0] if len(ids) == 1 else f"{len(ids)} {what}s: {names(ids)}"
        lines.append(
            f"- {shown(r.check_id)} [{r.first.level.value}] {marks} in {where} — {shown(r.first.baseline or '')}"
        )
    for s in results:
        if s.baseline:
            mark = paint(s.outcome.value, s.outcome)
            lines.append(f"- {shown(s.id)} {mark} (the whole {what}) — {shown(s.baseline)}")
    return lines
