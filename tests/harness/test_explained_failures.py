"""Issue 42: every failing check says why and how to fix it, in every report, and causes come before symptoms. One
run of a client that posts to the card's leftover `url` instead of its first supported interface, then each surface."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.common.model import CheckResult, Level, Outcome, ScenarioResult
from a2a_lab.harness.reports import html_scenario
from a2a_lab.harness.reports.spec_links import SPEC_PAGE, section_url

FAKE = Path(__file__).parent / "clients" / "fake_client.py"
RULE = "A 1.0 client reads `supportedInterfaces` and sends to the first interface"
FIX = "Pick the interface from `supportedInterfaces` in card order, not from the top-level `url`"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("explained")
    client = f"{sys.executable} {FAKE} --defect ignore-interfaces"
    argv = [sys.executable, "-m", "a2a_lab.harness.cli", "run", "--client", client, "--scenario", "discovery/*"]
    argv += ["-j", "2", "--json", str(out / "r.json"), "--junit", str(out / "j.xml"), "--html", str(out / "h")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    return {"code": done.returncode, "out": done.stdout, "dir": out}


def test_the_console_leads_with_the_rule_and_ends_with_the_fix_and_the_story(run: dict[str, Any]) -> None:
    assert run["code"] == 1  # the gate is unchanged
    out = run["out"]
    head = out.index("- INTERFACE-SELECTION [MUST] FAIL in ")
    block = out[head : out.index("\n- ", head + 1)]
    assert "    rule: " + RULE[:60] in block and "    spec: A2A 1.0 §8.3.2" in block
    assert block.index("rule:") < block.index("spec:") < block.index("expected:") < block.index("fix:")
    assert "    fix: " + FIX[:60] in block and "    more: a2a-lab scenarios show discovery/" in block
    # The symptom comes after its cause, and says so.
    assert out.index("- METHOD-MATCHES-INTERFACE [MUST] FAIL") < out.index("- RESULT-EXPECTED [MUST] FAIL")
    assert "follows from METHOD-MATCHES-INTERFACE in its one scenario: fix that first" in out
    assert "RESULT-EXPECTED (FAIL, follows from METHOD-MATCHES-INTERFACE)" in out


def test_the_json_report_carries_rule_fix_cause_and_story_and_reads_back(run: dict[str, Any]) -> None:
    report = json.loads((run["dir"] / "r.json").read_text(encoding="utf-8"))
    scenario = next(s for s in report["scenarios"] if s["id"] == "discovery/v02-card")
    assert scenario["more"] == "a2a-lab scenarios show discovery/v02-card"
    checks = {c["id"]: c for c in scenario["checks"]}
    assert checks["RESULT-EXPECTED"]["follows_from"] == "METHOD-MATCHES-INTERFACE"
    assert checks["RESULT-EXPECTED"]["outcome"] == "FAIL" and checks["METHOD-MATCHES-INTERFACE"]["follows_from"] is None
    assert checks["INTERFACE-SELECTION"]["rule"].startswith(RULE) and checks["INTERFACE-SELECTION"]["fix"]
    assert next(c for c in report["checks"] if c["id"] == "INTERFACE-SELECTION")["fix"].startswith(FIX)
    again = ScenarioResult.from_json(scenario)
    assert again.check("RESULT-EXPECTED").follows_from == "METHOD-MATCHES-INTERFACE"  # type: ignore[union-attr]
    assert [c.to_json() for c in again.checks] == [c for c in scenario["checks"]]


def test_a_report_written_before_rules_were_kept_still_reads() -> None:
    old = {"id": "X", "level": "MUST", "outcome": "FAIL", "message": "m", "section": "s", "requirement": "r"}
    check = CheckResult.from_json(old)
    assert (check.rule, check.fix, check.follows_from) == ("", "", None)
    assert CheckResult.from_json(check.to_json()) == check


def test_junit_failures_carry_the_rule_and_the_fix(run: dict[str, Any]) -> None:
    root = ET.parse(run["dir"] / "j.xml").getroot()
    case = next(
        c
        for c in root.iter("testcase")
        if c.get("classname") == "discovery/v02-card" and "RESULT-EXPECTED" in c.get("name", "")
    )
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    assert "(follows from METHOD-MATCHES-INTERFACE: fix that first). Fix: " in failure.get("message", "")
    assert "\nrule: A client reaches the conclusion" in failure.text and "\nfix: " in failure.text
    assert failure.text.endswith("more: a2a-lab scenarios show discovery/v02-card")


def test_html_links_the_spec_section_and_shows_rule_fix_cause_and_story(run: dict[str, Any]) -> None:
    page = (run["dir"] / "h" / "index.html").read_text(encoding="utf-8")
    assert f'<a href="{SPEC_PAGE}#832-client-protocol-selection">§8.3.2</a>' in page
    assert "<b>rule:</b> A 1.0 client reads <code>supportedInterfaces</code>" in page
    assert "<b>fix:</b> Pick the interface from <code>supportedInterfaces</code>" in page
    assert 'follows from <a href="#check-METHOD-MATCHES-INTERFACE">' in page
    assert "the whole story: <code>a2a-lab scenarios show discovery/v02-card</code>" in page


def test_spec_sections_link_to_their_anchor_on_the_a2a_site_and_fall_back_to_the_page() -> None:
    assert section_url("§8.3.2") == SPEC_PAGE + "#832-client-protocol-selection"
    assert section_url("3.6") == SPEC_PAGE + "#36-versioning"
    assert section_url("§11") == SPEC_PAGE + "#11-httpjsonrest-protocol-binding"
    assert section_url("§99.9") == SPEC_PAGE
    links = html_scenario.section_links("A2A 1.0 §8.2, §5.6.3 (0.3); §5.3 method map; 0.3 §7.9; RFC 9110 §4.3.4")
    assert f'<a href="{SPEC_PAGE}#82-discovery-mechanisms">§8.2</a>' in links
    assert '<a href="https://github.com/a2aproject/A2A/blob/v0.3.0/docs/specification.md">§5.6.3</a> (0.3)' in links
    assert f'<a href="{SPEC_PAGE}#53-method-mapping-reference">§5.3</a> method map' in links  # reads on in 1.0
    assert '<a href="https://github.com/a2aproject/A2A/blob/v0.3.0/docs/specification.md">0.3 §7.9</a>' in links
    assert links.endswith("; RFC 9110 §4.3.4")
    hostile = html_scenario.section_links('A2A 1.0 §8.2 <script>"')
    assert "<script>" not in hostile and "&lt;script&gt;&quot;" in hostile


def test_a_harness_error_gets_no_fix_for_the_client() -> None:
    check = CheckResult("TENANT", Level.MUST, Outcome.ERROR, "harness error", rule="r.", fix="Do x.")
    assert "fix" not in html_scenario.check_detail(check.to_json(), 0, "s")
