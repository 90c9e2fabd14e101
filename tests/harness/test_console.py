"""The console report's layouts, compared exactly with golden files (tests/harness/golden/console/*.txt).

The runs are built by hand (tests/harness/console_results.py: no server, no clock, fixed durations), so a golden file
changes only when the layout does. Changing one is a decision: look at the new output, then rewrite the files with

    A2A_LAB_UPDATE_GOLDEN=1 pytest tests/harness/test_console.py

and commit them with the change that moved them (the diff is the review). Without the variable a difference fails,
showing the expected and the actual text.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from a2a_lab.harness import scoring
from a2a_lab.harness.model import CheckResult, Level, Outcome, ScenarioResult
from a2a_lab.harness.reports import console, rollup
from tests.harness import console_results as runs

GOLDEN = Path(__file__).resolve().parent / "golden" / "console"
UPDATE = os.environ.get("A2A_LAB_UPDATE_GOLDEN") == "1"
#: The old layout's output for the nine-scenario run, as the scorecard printed it before issue 33 (never rewritten).
BEFORE = GOLDEN / "before-issue-33-nine-scenarios.txt"


def card(
    results: list[ScenarioResult], verbose: bool = False, quiet: bool = False, stale: list[str] | None = None
) -> str:
    out = io.StringIO()
    console.scorecard(results, scoring.summary(results, False), out, verbose=verbose, stale=stale, quiet=quiet)
    return out.getvalue()


def matches_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with A2A_LAB_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs (A2A_LAB_UPDATE_GOLDEN=1 rewrites it)"


LAYOUTS: dict[str, Callable[[], str]] = {
    "default.txt": lambda: card(runs.small_run()),
    "verbose.txt": lambda: card(runs.small_run(), verbose=True),
    "quiet.txt": lambda: card(runs.baseline_run(), quiet=True, stale=runs.BASELINE_STALE),
    "with-baseline.txt": lambda: card(runs.baseline_run(), stale=runs.BASELINE_STALE),
    "after-issue-33-nine-scenarios.txt": lambda: card(runs.nine_with_the_same_three_findings()),
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_each_layout_matches_its_golden_file(name: str) -> None:
    matches_golden(name, LAYOUTS[name]())


def test_progress_lines_match_their_golden_file() -> None:
    lines = [
        console.progress_line(1, 9, "quirks/advertised-method-not-found", 0.6, outcome=Outcome.PASS),
        console.progress_line(2, 9, "quirks/card-redirected", 1.25, outcome=Outcome.FAIL),
        console.progress_line(3, 9, "faults/never-answers", 30.0, "timed out", outcome=Outcome.TIMEOUT),
        console.progress_line(10, 12, "spec/conformant", 1.0, "exit 1 before any request reached the server"),
        console.progress_line(4, 9, "faults/never-answers", 2.0, outcome=Outcome.UNIMPLEMENTED),
    ]
    matches_golden("progress.txt", "\n".join(lines) + "\n")


def test_a_progress_line_is_coloured_only_when_asked_and_only_its_outcome() -> None:
    plain = console.progress_line(1, 9, "quirks/x", 0.6, outcome=Outcome.FAIL)
    painted = console.progress_line(1, 9, "quirks/x", 0.6, outcome=Outcome.FAIL, colour=True)
    assert "\033[" not in plain and plain.startswith("[1/9] FAIL ")
    assert painted == plain.replace("FAIL", "\033[31mFAIL\033[0m")
    # What a scenario file or the run said is escaped in the line itself: the colour is its only control.
    hostile = console.progress_line(2, 9, "x/\x1b[2J", 1.0, "exit 1: \x07", Outcome.PASS, colour=True)
    assert hostile == "[2/9] \033[32mPASS\033[0m" + " " * 11 + r"x/\x1b[2J (1.0s) exit 1: \x07"
    # Today's call (no outcome) reads as it did.
    assert console.progress_line(1, 9, "quirks/x", 0.6) == "[1/9] quirks/x (0.6s)"


def test_the_default_layout_shows_each_requirement_once_however_many_scenarios_missed_it() -> None:
    """The 276-line problem: three findings in each of nine scenarios printed every requirement nine times."""
    text = card(runs.nine_with_the_same_three_findings())
    for requirement in (runs.VERSION_HEADER_REQUIREMENT, runs.MESSAGE_ID_REQUIREMENT, runs.NO_POLL_REQUIREMENT):
        start = requirement[:60]  # the first wrapped line holds at least this much
        assert text.count(start) == 1, (start, text)
    for check_id in ("VERSION-HEADER", "MESSAGE-ID-UNIQUE", "NO-POLL-AFTER-MESSAGE"):
        [head] = [line for line in text.splitlines() if line.startswith(f"- {check_id} ")]
        assert head.endswith(" in 9 scenarios"), head
    # One quoted request per check, the first scenario's; each scenario still has its line, naming its misses.
    assert text.count('"method": "SendMessage"') == 2 and text.count('"method": "GetTask"') == 1
    assert "first, in spec/conformant: a 1.0 call without A2A-Version" in text
    assert "quirks/gzip-compressed-answers +4 more" in text
    for sid in runs.NINE:
        assert re.search(rf"^{re.escape(sid)}\s+FAIL\s+VERSION-HEADER \(FAIL\), MESSAGE-ID-UNIQUE \(FAIL\)", text, re.M)
    # -v is everything per scenario: each requirement nine times, as before.
    assert card(runs.nine_with_the_same_three_findings(), verbose=True).count(
        runs.VERSION_HEADER_REQUIREMENT[:60]
    ) == len(runs.NINE)


def test_the_new_layout_is_a_quarter_of_the_old_one_for_nine_scenarios_with_the_same_three_findings() -> None:
    """The old layout printed 258 lines for this run (BEFORE, recorded from it); the new one prints 63: the
    summary (6), the three findings once (14 each), the table (10 with its header), the verdict, blank lines."""
    before = BEFORE.read_text(encoding="utf-8").splitlines()
    after = card(runs.nine_with_the_same_three_findings()).splitlines()
    assert (len(before), len(after)) == (258, 63)
    # Nothing the old one said is lost: each finding, its requirement, evidence and each scenario's line are there.
    for line in before:
        said = line.strip().removeprefix("- ")
        if said.startswith(("requirement:", "expected:", "actual:", "request #", "POST ", "{")):
            assert any(said in x for x in after), said


def test_verbose_shows_every_finding_under_its_scenario() -> None:
    text = card(runs.small_run(), verbose=True)
    block = text[text.index("\nquirks/card-redirected ") :]
    assert block.splitlines()[2].strip() == "- VERSION-HEADER [MUST] FAIL: a 1.0 call without A2A-Version"
    assert "request #3:" in block
    # A NON_STRICT scenario's finding in full too (the default layout gave its ids only, before this issue).
    block = text[text.index("\nquirks/mixed-version-direct-message ") :]
    assert "- NO-POLL-AFTER-MESSAGE [SHOULD] NON_STRICT: GetTask after a Message answer" in block


def test_quiet_is_the_verdict_and_the_stale_entries_alone() -> None:
    results = runs.baseline_run()
    summary = scoring.summary(results, False)
    assert card(results, quiet=True, stale=runs.BASELINE_STALE).splitlines() == [
        "baseline: 1 entry with nothing to excuse, remove:",
        "  spec/conformant CARD-DISCOVERY (now PASS)",
        f"verdict: {summary['verdict']}",
    ]
    assert card(runs.small_run(), quiet=True).splitlines() == [
        f"verdict: {scoring.summary(runs.small_run(), False)['verdict']}"
    ]
    # -v wins over quiet.
    assert card(results, quiet=True, verbose=True) == card(results, verbose=True)


def test_every_layout_ends_with_the_verdict_exactly_as_scoring_says_it() -> None:
    for results in (runs.small_run(), runs.baseline_run(), runs.nine_with_the_same_three_findings(), []):
        verdict = f"verdict: {scoring.summary(results, False)['verdict']}"
        for mode in ({}, {"verbose": True}, {"quiet": True}):
            assert card(results, **mode).splitlines()[-1] == verdict  # type: ignore[arg-type]


def test_the_baseline_says_what_it_excused_where_it_applies() -> None:
    text = card(runs.baseline_run(), stale=runs.BASELINE_STALE)
    [line] = [x for x in text.splitlines() if x.startswith("faults/never-answers ")]
    assert re.search(r"UNIMPLEMENTED\s+excused by baseline: RESULT-MATCHES \(FAIL\), GIVES-UP \(FAIL\)", line), line
    assert line.endswith("— known hang, tracked in #31; FOLLOW-UP-TO-END (NON_STRICT) — issue 40"), line
    # The roll-up counts them apart from the misses, and lists each.
    assert "excused by the baseline: 3 checks (FAIL 2, NON_STRICT 1) and 1 scenario (TIMEOUT 1)" in text
    assert "- RESULT-MATCHES [MUST] FAIL in faults/never-answers — known hang, tracked in #31" in text
    assert "- faults/slow-stream TIMEOUT (the whole scenario) — streams are not read yet (#52)" in text
    assert "1 check missed" in text and "- RESULT-MATCHES [MUST] FAIL in 1" not in text
    # A scenario the baseline excuses as a whole keeps saying so; a stale entry is noted on its line and listed.
    assert "expected failure (baseline): streams are not read yet (#52); the client did not finish in 10 s" in text
    assert "note: spec/conformant CARD-DISCOVERY: listed as an expected failure (fixed in 2.0) but it now PASS" in text
    assert "baseline: 1 entry with nothing to excuse, remove:\n  spec/conformant CARD-DISCOVERY (now PASS)\n" in text


def test_a_whole_scenario_excuse_names_the_checks_it_covers_once() -> None:
    reason = "known hang (#31)"
    check = CheckResult("GIVES-UP", Level.SHOULD, Outcome.NON_STRICT, "waited", baseline=reason)
    result = runs.scenario("faults/never-answers", Outcome.TIMEOUT, [check], "did not finish", baseline=reason)
    assert console.detail(result) == (
        "expected failure (baseline): known hang (#31), excusing GIVES-UP (NON_STRICT); did not finish"
    )


def test_the_scenarios_a_check_missed_in_are_named_up_to_five() -> None:
    assert rollup.names(["a", "b", "c"]) == "a, b, c"
    assert rollup.names([str(i) for i in range(7)]) == "0, 1, 2, 3, 4 +2 more"
    mixed = [
        runs.scenario("quirks/a", Outcome.FAIL, [runs.version_header()]),
        runs.scenario("quirks/b", Outcome.NON_STRICT, [runs.version_header(Outcome.NON_STRICT)]),
    ]
    [rolled] = rollup.missed(mixed)
    lines = rollup.rollup_lines([rolled])
    assert lines[0] == "- VERSION-HEADER [MUST] FAIL/NON_STRICT in 2 scenarios"
    assert "    scenarios: quirks/a (FAIL), quirks/b (NON_STRICT)" in lines


def test_a_probe_speaks_of_interfaces() -> None:
    results = [
        ScenarioResult("probe/card", "the card", "probe", Outcome.PASS, [], None, 0, 0.1),
        ScenarioResult(
            "probe/0-JSONRPC-1.0", "JSON-RPC 1.0", "probe", Outcome.FAIL, [runs.version_header()], None, 0, 0.2
        ),
    ]
    text = card(results)
    assert text.startswith("\n2 interfaces: FAIL 1, PASS 1\n") and "\nINTERFACE " in text
    assert "- VERSION-HEADER [MUST] FAIL in 1 interface\n    requirement: " in text
    assert "\n  probe " not in text  # a single group has no per-group lines


def test_text_from_a_client_reaches_the_terminal_escaped_even_in_colour() -> None:
    """A hostile message, quote, id, error and reason: with colour on, the only escape sequences are the outcome
    colours."""
    hostile = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
    check = CheckResult(
        "VERSION-HEADER", Level.MUST, Outcome.FAIL, hostile, hostile, hostile, hostile, hostile, [2], hostile
    )
    excused = CheckResult("GIVES-UP", Level.SHOULD, Outcome.NON_STRICT, hostile, baseline=hostile)
    results = [
        runs.scenario(f"quirks/{hostile}", Outcome.FAIL, [check, excused], error=hostile),
        runs.scenario(f"{hostile}/x", Outcome.TIMEOUT, [], error=hostile, baseline=hostile),
    ]
    summary = {**scoring.summary(results, False), "verdict": hostile}
    for verbose in (False, True):
        text = "\n".join(console.scorecard_lines(results, summary, True, verbose, [hostile]))
        assert r"\x1b]0;pwned\x07" in text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f](?!\[[\d;]*m)", text), repr(text)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_scorecard_keeps_the_gate_s_call_and_colours_only_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    results = runs.small_run()
    out = Tty()
    console.scorecard(results, scoring.summary(results, False), out, verbose=False, stale=[])  # gate.conclude's call
    assert "\033[31mFAIL" in out.getvalue() and "\033[" not in card(results)
    assert re.sub(r"\033\[[\d;]*m", "", out.getvalue()) == card(results)
