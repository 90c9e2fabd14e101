"""Regenerate the screenshots of docs/how-to/ui.md: `python docs/ui/shoot.py` (Debian's chromium and Playwright's
Python package, as the tests use them). It starts `a2a-lab ui` in this process on a free loopback port, goes
through each page as the how-to does, and writes docs/ui/card.png, talk.png, live.png and report.png."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from a2a_lab.harness.ui.app import build
from a2a_lab.harness.ui.guard import UiGuard
from a2a_lab.harness.ui.lab import Lab
from a2a_lab.harness.ui.state import UiState
from a2a_lab.server.hosting import BackgroundServer

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
#: A client with one defect (A2A-Version 0.3 on 1.0 calls), for the live page to catch.
CLIENT = [sys.executable, str(ROOT / "tests" / "harness" / "clients" / "fake_client.py"), "--defect", "wrong-header"]
MIXED_CARD = {
    "name": "Travel agent",
    "description": "A 1.0 card with a 0.3 leftover",
    "version": "1.0.0",
    "protocolVersion": "0.3.0",
    "supportedInterfaces": [
        {"url": "http://10.0.0.7:8080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {"streaming": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "trips", "name": "Trips", "description": "Plans trips", "tags": ["travel"]}],
}
WIDTH, HEIGHT = 1280, 1500


def shot(page: Any, name: str, at: str | None = None) -> None:
    """The page from `at` (an element) or its top, as docs/ui/NAME.png."""
    top = 0
    if at is not None:
        top = int(page.locator(at).first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")) - 80
    height = min(HEIGHT, int(page.evaluate("document.documentElement.scrollHeight")) - top)
    page.screenshot(
        path=str(HERE / f"{name}.png"), full_page=True, clip={"x": 0, "y": top, "width": WIDTH, "height": height}
    )
    print(f"wrote docs/ui/{name}.png")


def main() -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed (apt-get install chromium)")
    guard = UiGuard.of()
    state = UiState(guard, Lab(), Path(tempfile.mkdtemp(prefix="a2a-lab-shots-")))
    with BackgroundServer(build(state)) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(guard.url(server.url, "/card"))
        page.get_by_label("Paste an agent card").fill(json.dumps(MIXED_CARD, indent=1))
        page.get_by_label("URL policy").select_option("strict")
        page.get_by_role("button", name="Check the pasted card").click()
        shot(page, "card", "#findings")

        page.goto(f"{server.url}/talk")
        page.get_by_label("or a scenario of a2a-lab's catalogue").select_option("quirks/advertised-method-not-found")
        page.get_by_role("button", name="Connect").click()
        page.get_by_role("button", name="Send").click()
        page.locator("#verdict").get_by_text("the card advertises").first.wait_for()
        shot(page, "talk")

        page.goto(f"{server.url}/live")
        page.get_by_label("contains", exact=True).fill("conformant")
        shot(page, "catalogue")
        page.get_by_label("spec/conformant", exact=True).check()
        page.get_by_role("button", name="Start serving them").click()
        card = page.locator("code.url").first.inner_text()
        subprocess.run([*CLIENT, card], capture_output=True, timeout=120, check=False)
        page.locator("#results").get_by_text("VERSION-MATCHES-METHOD").first.wait_for()
        page.get_by_role("button", name="Finish: score the run and write the reports").click()
        page.locator("#scorecard").wait_for()
        shot(page, "live")

        page.get_by_role("link", name="Open the report").click()
        page.locator("#summary").wait_for()
        shot(page, "report")
        browser.close()
    state.close()


if __name__ == "__main__":
    main()
