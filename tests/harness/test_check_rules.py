"""Every check says what a correct client does (its rule) and how to fix a client that misses it (issue 42)."""

from __future__ import annotations

import re

import pytest

from a2a_lab.harness.cli.checks import as_markdown
from a2a_lab.harness.client_judging.checks import client_checks
from a2a_lab.harness.reports.json_report import check_json
from a2a_lab.harness.server_judging.probe.definitions import LIVE_CHECKS, PROBE_CHECKS

#: A rule is one sentence a reader takes in at once.
RULE_MAX = 220
FIX_MAX = 260
#: The start of a second sentence: a full stop, a space, a capital (`e.g.`, `0.3` and `Major.Minor` are no stop).
SECOND_SENTENCE = re.compile(r"[.;!?] [A-Z]")


@pytest.mark.parametrize("check", [*client_checks(), *PROBE_CHECKS, *LIVE_CHECKS], ids=lambda c: c.id)
def test_every_check_has_a_one_sentence_rule_and_a_fix(check: object) -> None:
    """The client checks and the checks that judge a server (probe, proxy) alike."""
    rule, fix = check.rule, check.fix  # type: ignore[attr-defined]
    assert rule and rule.endswith(".") and len(rule) <= RULE_MAX, rule
    assert not SECOND_SENTENCE.search(rule.replace("e.g. ", "")), f"one sentence: {rule}"
    assert rule[0].isupper() and rule != check.requirement  # type: ignore[attr-defined]
    assert fix and fix.endswith(".") and len(fix) <= FIX_MAX, fix
    assert len(SECOND_SENTENCE.findall(fix)) <= 1, f"one or two sentences: {fix}"


def test_a_check_judging_several_keywords_states_a_rule_for_each() -> None:
    """INTERFACE-SELECTION judges a 1.0 client's MUST, a 0.3 client's SHOULD and the SHOULD of ignoring unknown
    members: its one sentence covers each."""
    rule = next(c for c in client_checks() if c.id == "INTERFACE-SELECTION").rule
    assert "1.0 client reads `supportedInterfaces`" in rule and "0.3 client" in rule and "does not know" in rule


def test_the_catalogue_lists_rule_and_fix_in_markdown_and_json() -> None:
    text = as_markdown()
    assert text.startswith("| check | level | what a correct client does | fix | spec | what it requires |")
    for check in client_checks():
        assert check.rule in text and check.fix in text and check.section in text
        data = check_json(check)
        assert (data["rule"], data["fix"], data["requirement"]) == (check.rule, check.fix, check.requirement)
