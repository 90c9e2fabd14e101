"""`a2a-lab ui` for the tests: the real app (guard, pages, shared server, proxies) on a real uvicorn on 127.0.0.1,
port 0; an httpx client that entered with the printed URL; one chromium for the whole session (Debian's, driven by
Playwright's Python package with `executable_path`: nothing is downloaded), skipped with the reason where missing."""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.harness.ui.app import build
from a2a_lab.harness.ui.guard import UiGuard
from a2a_lab.harness.ui.lab import Lab
from a2a_lab.harness.ui.state import UiState
from a2a_lab.server.hosting import BackgroundServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or ""
FAKE_CLIENT = Path(__file__).resolve().parent.parent / "harness" / "clients" / "fake_client.py"
#: What the browser tests wait for at most (a condition, polled; never a fixed sleep): margins for a loaded machine.
DEADLINE_MS = 60_000


@dataclass
class Ui:
    """One launch of the UI: its origin, the URL it would print, its state, its guard."""

    origin: str
    url: str
    state: UiState
    guard: UiGuard

    def client(self) -> httpx.Client:
        """An httpx client that entered through the printed URL (it holds the cookie)."""
        http = httpx.Client(base_url=self.origin, timeout=120, trust_env=False, follow_redirects=False)
        entered = http.get(self.url)
        assert entered.status_code == 303, entered.text
        return http

    def post(self, http: httpx.Client, path: str, **kw: Any) -> httpx.Response:
        """A POST as the page's own form sends it (its Origin is the app's)."""
        headers = {"Origin": self.origin, **kw.pop("headers", {})}
        return http.post(path, headers=headers, **kw)


def launch(tmp: Path) -> Iterator[Ui]:
    guard = UiGuard.of()
    state = UiState(guard, Lab(), tmp / "ui-reports")
    with BackgroundServer(build(state)) as server:
        try:
            yield Ui(server.url, guard.url(server.url), state, guard)
        finally:
            state.close()


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ui]:
    yield from launch(tmp_path_factory.mktemp("ui"))


@pytest.fixture
def http(ui: Ui) -> Iterator[httpx.Client]:
    client = ui.client()
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium through Playwright's sync API, for one test module: while sync_playwright is open, its event loop
    counts as running in this thread, and any later test's asyncio.run in the same worker fails ("cannot be called
    from a running event loop"), so it must close with the module that opened it."""
    if not CHROMIUM:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, ui: Ui) -> Iterator[Any]:
    """A fresh browser context that entered through the printed URL."""
    context = browser.new_context()
    context.set_default_timeout(DEADLINE_MS)
    tab = context.new_page()
    tab.goto(ui.url)
    try:
        yield tab
    finally:
        context.close()


def fake_client(card_url: str, *defects: str) -> list[str]:
    """The tests' own independent A2A client (tests/harness/clients/fake_client.py), as a user would start it."""
    return [sys.executable, str(FAKE_CLIENT), *(a for d in defects for a in ("--defect", d)), card_url]


def wait_for(condition: Callable[[], Any], seconds: float = 60.0, what: str = "the condition") -> Any:
    """Poll `condition` until it is truthy (its value), failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds:g} s waiting for {what}")
        time.sleep(0.05)


CARD_URL = re.compile(r"http://[^\s<\"']+/\.well-known/agent-card\.json")
