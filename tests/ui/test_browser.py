"""Each page's main flow and its errors in a real browser (Debian's chromium through Playwright), by label and by
keyboard where a user would use them; live updates arrive without a reload. One browser for the session."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import DEADLINE_MS, Ui, fake_client
from .test_same_verdicts import MIXED_CARD

pytestmark = pytest.mark.usefixtures("browser")


def _alert(page: Any) -> str:
    return str(page.get_by_role("alert").inner_text())


def test_the_card_page_checks_a_pasted_card_by_keyboard(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/card")
    page.get_by_label("Paste an agent card").fill(json.dumps(MIXED_CARD))
    page.get_by_label("URL policy").select_option("strict")
    page.get_by_label("Paste an agent card").focus()
    for _ in range(3):  # the URL field, the policy, the button
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Check the pasted card"
    page.keyboard.press("Enter")
    findings = page.locator("#findings")
    findings.wait_for()
    text = findings.inner_text()
    assert "differs from the interfaces' versions" in text
    assert "an IP literal (10.0.0.7)" in text and "port 8080, not 443" in text
    assert "POST http://10.0.0.7:8080/a2a" in text.replace("\n", " ").replace("\t", " ").replace("  ", " ")


def test_the_card_page_says_what_is_wrong_with_a_card(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/card")
    page.get_by_label("Paste an agent card").fill('{"name": ')
    page.get_by_role("button", name="Check the pasted card").click()
    assert "not valid JSON" in _alert(page)
    assert page.get_by_label("Paste an agent card").input_value() == '{"name": '  # nothing lost
    page.get_by_label("Paste an agent card").fill("")
    page.get_by_role("button", name="Check the pasted card").click()
    assert "paste a card" in _alert(page)


def test_the_card_check_works_without_javascript(browser: Any, ui: Ui) -> None:
    context = browser.new_context(java_script_enabled=False)
    context.set_default_timeout(DEADLINE_MS)
    try:
        page = context.new_page()
        page.goto(ui.url.replace("/?", "/card?"))
        page.get_by_label("Paste an agent card").fill(json.dumps(MIXED_CARD))
        page.get_by_role("button", name="Check the pasted card").click()
        assert "differs from the interfaces' versions" in page.locator("#findings").inner_text()
    finally:
        context.close()


def test_the_probe_judges_a_live_server_when_asked(page: Any, ui: Ui, serve: Any) -> None:
    served = serve("quirks/advertised-method-not-found")
    page.goto(f"{ui.origin}/card")
    page.get_by_label("or give the card's URL").fill(served.url)
    page.get_by_role("button", name="Fetch the URL and check it").click()
    page.locator("#findings").wait_for()
    assert page.get_by_label("The agent (its origin or card URL)").input_value() == served.url
    page.get_by_role("button", name="Probe it").click()
    probe = page.locator("#probe")
    probe.wait_for()
    assert "method not found" in probe.inner_text()


def test_talking_to_a_served_quirk_shows_the_finding(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/talk")
    page.get_by_label("or a scenario of a2a-lab's catalogue").select_option("quirks/advertised-method-not-found")
    page.get_by_role("button", name="Connect").click()
    page.get_by_label("Message", exact=True).fill("Hello there")
    page.get_by_role("button", name="Send").click()
    verdict = page.locator("#verdict")
    verdict.get_by_text("the card advertises").first.wait_for()
    assert "SEND-MESSAGE" in verdict.inner_text()
    assert "SendMessage" in page.locator("#exchanges svg").text_content()


def test_talk_says_when_there_is_nobody_to_talk_to(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/talk")
    page.get_by_role("button", name="Connect").click()
    assert "give the agent's http:// or https:// URL" in _alert(page)


def test_a_live_run_shows_the_clients_failure_as_it_happens(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/live")
    page.get_by_label("group", exact=True).select_option("quirks")
    assert not page.locator('tr[data-group="spec"]').first.is_visible()
    page.get_by_label("group", exact=True).select_option("")
    page.get_by_label("contains", exact=True).fill("spec/conformant")
    page.get_by_label("spec/conformant", exact=True).check()
    page.get_by_role("button", name="Start serving them").click()
    card = page.locator("code.url").first.inner_text()
    assert card.endswith("/spec/conformant/.well-known/agent-card.json")
    page.evaluate("window.stayed = true")  # gone if the page reloads
    subprocess.run(fake_client(card, "wrong-header"), capture_output=True, timeout=120, check=False)
    results = page.locator("#results")
    results.get_by_text("VERSION-MATCHES-METHOD").first.wait_for()
    assert page.evaluate("window.stayed") is True
    assert "FAIL" in results.inner_text()
    page.get_by_role("button", name=re.compile("^Finish")).click()
    assert "Scorecard" in page.locator("#scorecard").inner_text()


def test_a_live_run_needs_a_scenario(page: Any, ui: Ui) -> None:
    page.goto(f"{ui.origin}/live")
    page.get_by_role("button", name="Start serving them").click()
    assert "choose at least one scenario" in _alert(page)


def test_watching_a_real_pair_judges_both_sides_live(page: Any, ui: Ui, serve: Any) -> None:
    served = serve("spec/conformant")
    page.goto(f"{ui.origin}/live")
    page.get_by_label("The server (its origin or card URL)").fill(served.url)
    page.get_by_role("button", name="Start the proxy").click()
    card = page.locator("#proxy-card").inner_text()
    subprocess.run(fake_client(card), capture_output=True, timeout=120, check=False)
    # A locator waits in Playwright's own world: the page's CSP (no eval) does not apply to it, as it does to
    # wait_for_function's string, which the page evaluates.
    page.locator("#exchanges svg", has_text="SendMessage").first.wait_for(timeout=60_000)
    verdict = page.locator("#verdict").inner_text()
    assert "SEND-MESSAGE" in verdict and "CARD-DISCOVERY" in verdict


def test_opening_a_report_and_a_broken_one(page: Any, ui: Ui, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "run", "--scenario", "spec/conformant", "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    page.goto(f"{ui.origin}/report")
    page.get_by_label("A JSON report").set_input_files(str(report))
    page.get_by_role("button", name="Open it").click()
    summary = page.locator("#summary")
    summary.wait_for()
    assert "spec/conformant" in page.locator("main").inner_text()
    broken = tmp_path / "broken.json"
    broken.write_text('{"scenarios": [', encoding="utf-8")
    page.goto(f"{ui.origin}/report")
    page.get_by_label("A JSON report").set_input_files(str(broken))
    page.get_by_role("button", name="Open it").click()
    assert "broken.json: line 1, column 16: not valid JSON" in _alert(page)


def test_without_the_token_the_browser_is_refused(browser: Any, ui: Ui) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        answer = page.goto(f"{ui.origin}/card")
        assert answer is not None and answer.status == 403
        assert "token" in page.inner_text("body")
    finally:
        context.close()
