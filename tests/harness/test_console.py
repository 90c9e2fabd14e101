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

from a2a_lab.harness.client_judging import scoring
from a2a_lab.harness.common.model import CheckResult, Level, Outcome, ScenarioResult
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


def test_the_default_layout_shows_each_rule_and_fix_once_however_many_scenarios_missed_it() -> None:
    """The 276-line problem: three findings in each of nine scenarios printed every requirement nine times. Now each
    check's rule and fix are said once; the long requirement is -v's."""
    text = card(runs.nine_with_the_same_three_findings())
    for said in (
        runs.VERSION_HEADER_RULE,
        runs.VERSION_HEADER_FIX,
        runs.MESSAGE_ID_RULE,
        runs.MESSAGE_ID_FIX,
        runs.NO_POLL_RULE,
        runs.NO_POLL_FIX,
    ):
        assert text.count(said) == 1, (said, text)
    for requirement in (runs.VERSION_HEADER_REQUIREMENT, runs.MESSAGE_ID_REQUIREMENT, runs.NO_POLL_REQUIREMENT):
        assert requirement[:60] not in text
    for check_id in ("VERSION-HEADER", "MESSAGE-ID-UNIQUE", "NO-POLL-AFTER-MESSAGE"):
        [head] = [line for line in text.splitlines() if line.startswith(f"- {check_id} ")]
        assert head.endswith(" in 9 scenarios"), head
    # One quoted request per check, the first scenario's; each scenario still has its line, naming its misses.
    assert text.count('"method": "SendMessage"') == 2 and text.count('"method": "GetTask"') == 1
    assert "first, in spec/conformant: a 1.0 call without A2A-Version" in text
    assert text.count("    more: a2a-lab scenarios show spec/conformant\n") == 3
    assert "quirks/gzip-compressed-answers +4 more" in text
    for sid in runs.NINE:
        assert re.search(rf"^{re.escape(sid)}\s+FAIL\s+VERSION-HEADER \(FAIL\), MESSAGE-ID-UNIQUE \(FAIL\)", text, re.M)
    # -v is everything per scenario: each requirement nine times, as before, under the rule.
    verbose = card(runs.nine_with_the_same_three_findings(), verbose=True)
    assert verbose.count(runs.VERSION_HEADER_REQUIREMENT[:60]) == len(runs.NINE)
    assert verbose.count(runs.VERSION_HEADER_FIX) == len(runs.NINE)


def test_the_new_layout_is_a_quarter_of_the_old_one_for_nine_scenarios_with_the_same_three_findings() -> None:
    """The old layout printed 258 lines for this run (BEFORE, recorded from it); the new one prints 66: the
    summary (6), the three findings once (15 each: rule, spec, scenarios, evidence, fix, more), the table (10 with its
    header), the verdict, blank lines."""
    before = BEFORE.read_text(encoding="utf-8").splitlines()
    after = card(runs.nine_with_the_same_three_findings()).splitlines()
    assert (len(before), len(after)) == (258, 66)
    # Nothing the old one said is lost: each finding, its evidence and each scenario's line are there, and the
    # requirements under -v.
    verbose = card(runs.nine_with_the_same_three_findings(), verbose=True)
    for line in before:
        said = line.strip().removeprefix("- ")
        if said.startswith(("expected:", "actual:", "request #", "POST ", "{")):
            assert any(said in x for x in after), said
        if said.startswith("requirement:"):
            assert said in verbose, said


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
    assert text.startswith("\n1 server judged (its card and 1 interface): FAIL 1, PASS 1\n") and "\nINTERFACE " in text
    assert "- VERSION-HEADER [MUST] FAIL in 1 interface\n    rule: " in text
    assert "scenarios show" not in text  # a probed interface is no catalogue scenario
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


def test_a_scenario_lists_its_misses_cause_first_and_a_symptom_names_its_cause() -> None:
    """quirks/card-redirected's RESULT-EXPECTED comes before VERSION-HEADER in its checks; every view lists the cause
    first, and each finding leads with its rule and ends with the fix and where the scenario's story is told."""
    text = card(runs.small_run(), verbose=True)
    block = text[text.index("\nquirks/card-redirected ") : text.index("\nquirks/mixed-version-direct-message ")]
    assert "VERSION-HEADER (FAIL), RESULT-EXPECTED (FAIL, follows from VERSION-HEADER)" in block
    findings = [line.strip() for line in block.splitlines()[2:]]
    assert findings[0] == "- VERSION-HEADER [MUST] FAIL: a 1.0 call without A2A-Version"
    symptom = findings.index("- RESULT-EXPECTED [MUST] FAIL: " + runs.result_expected().message)
    assert findings[symptom + 1] == "follows from VERSION-HEADER: fix that first, this miss may go with it"
    order = [next(i for i, line in enumerate(findings) if line.startswith(label)) for label in LABELS]
    assert order == sorted(order), findings
    assert findings[symptom - 1] == "more: a2a-lab scenarios show quirks/card-redirected"


#: A finding's lines in order: headline, rule, full requirement (-v), spec, what the client did, fix, more.
LABELS = ("- VERSION-HEADER", "rule:", "requirement:", "spec:", "expected:", "request #3:", "fix:", "more:")


def test_the_run_wide_roll_up_puts_causes_before_symptoms_whatever_their_level() -> None:
    """A NON_STRICT cause (FALLBACK) before the FAIL it explains, with how many of the symptom's scenarios it
    explains; the verdict is the one the outcomes give."""
    fallback = CheckResult("FALLBACK", Level.SHOULD, Outcome.NON_STRICT, "no fallback")
    symptom = CheckResult("RESULT-EXPECTED", Level.MUST, Outcome.FAIL, "wrong conclusion", follows_from="FALLBACK")
    alone = CheckResult("RESULT-EXPECTED", Level.MUST, Outcome.FAIL, "wrong conclusion")
    results = [
        runs.scenario("errors/a", Outcome.FAIL, [symptom, fallback]),
        runs.scenario("errors/b", Outcome.FAIL, [alone]),
    ]
    text = card(results)
    assert text.index("- FALLBACK [SHOULD] NON_STRICT in 1 scenario") < text.index("- RESULT-EXPECTED [MUST] FAIL")
    assert "    follows from FALLBACK in 1 of its 2 scenarios: fix that first\n" in text
    assert "2 checks missed, causes first" in text
    assert text.endswith("verdict: not conformant: 2 MUST check(s) failed\n")


def test_one_level_per_finding_everywhere() -> None:
    """A check that judges a MUST and a SHOULD rolls up once per level: no `[SHOULD] FAIL/NON_STRICT` header over a
    `[MUST] FAIL` finding."""
    must = CheckResult("INTERFACE-SELECTION", Level.MUST, Outcome.FAIL, "the wrong interface")
    should = CheckResult("INTERFACE-SELECTION", Level.SHOULD, Outcome.NON_STRICT, "refused unknown fields")
    results = [
        runs.scenario("discovery/a", Outcome.NON_STRICT, [should]),
        runs.scenario("discovery/b", Outcome.FAIL, [must]),
    ]
    for verbose in (False, True):
        heads = [line for line in card(results, verbose=verbose).splitlines() if line.startswith("- INTERFACE")]
        assert heads[:2] == [
            "- INTERFACE-SELECTION [SHOULD] NON_STRICT in 1 scenario" + (": discovery/a" if verbose else ""),
            "- INTERFACE-SELECTION [MUST] FAIL in 1 scenario" + (": discovery/b" if verbose else ""),
        ] or heads[:2] == [
            "- INTERFACE-SELECTION [MUST] FAIL in 1 scenario" + (": discovery/b" if verbose else ""),
            "- INTERFACE-SELECTION [SHOULD] NON_STRICT in 1 scenario" + (": discovery/a" if verbose else ""),
        ], heads
    assert "1 check missed" in card(results)


def test_a_proxy_speaks_of_one_pair_and_its_sides() -> None:
    results = [
        ScenarioResult("proxy/client", "the client", "proxy", Outcome.FAIL, [runs.version_header()], None, 0, 1.0),
        ScenarioResult("proxy/server", "the server", "proxy", Outcome.PASS, [], None, 0, 1.0),
    ]
    text = card(results)
    assert text.startswith("\n1 client-server pair judged: client FAIL, server PASS\n"), text
    assert "\nSIDE " in text and "- VERSION-HEADER [MUST] FAIL in 1 side\n" in text
    assert "scenarios" not in text and "scenarios show" not in text


def test_a_progress_line_whose_outcome_the_whole_run_changed_is_shown_again_with_the_final_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A progress line is scored with what the run had shown of the client so far; where the whole run changes a
    scenario's outcome (a later scenario shows another binding the client speaks), its line is printed again with the
    final outcome, so that the last word on stderr is the scorecard's. Not where the supports were declared."""
    from a2a_lab.harness.cli.running import Progress
    from a2a_lab.harness.client_judging.runner import RunOptions
    from a2a_lab.protocol.bindings import Binding
    from a2a_lab.protocol.versions import Version

    def result(sid: str, outcome: Outcome) -> ScenarioResult:
        return ScenarioResult(sid, "t", sid.split("/")[0], outcome, [], None, 0, 0.3)

    progress = Progress(opts=RunOptions(client="c"))
    progress.shown = {"a/changed": (1, 2, 0.4, Outcome.PASS), "a/same": (2, 2, 0.5, Outcome.PASS)}
    supports = {(Binding.HTTP_JSON, Version.V1_0), (Binding.JSONRPC, Version.V1_0)}
    progress.revise([result("a/changed", Outcome.FAIL), result("a/same", Outcome.PASS)], supports)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "[1/2] FAIL           a/changed (0.4s) revised, was PASS: the whole run showed the client speaks "
        "http+json@1.0, jsonrpc@1.0"
    ]
    declared = Progress(opts=RunOptions(client="c", supports=[(Binding.JSONRPC, Version.V1_0)]))
    declared.shown = dict(progress.shown)
    declared.revise([result("a/changed", Outcome.FAIL)], supports)
    assert capsys.readouterr().err == ""
