"""Shared fixtures: real uvicorn servers on loopback (port 0) for catalogue scenarios."""

from __future__ import annotations

import compileall
import ssl
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import credentials, json_credentials
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

#: One TLS context for every test client: building one per client reloads the CA bundle (slow); loopback is plain
#: HTTP anyway.
_SSL = ssl.create_default_context()


#: The longest test files, longest first: the sum of each file's test times, in seconds, in a full `pytest` run on 2
#: cores (`-n 3`) on a fresh clone, 2026-12-06, at commit 37753b0, nothing else running (pytest 591 s;
#: benchmarks/README.md has the dated figures). With `-n 3 --dist loadfile --no-loadscope-reorder` (pyproject) each
#: file goes whole to one worker in this order: the two halves of the real-client pins and the reference client's
#: whole-catalogue runs start first, one per worker, the next longest follow as a worker frees, and the many short
#: files fill in after them, so that no long file is left to run alone at the end. Without --no-loadscope-reorder
#: xdist would start the files with the most tests first and the pins last. tests/test_compose.py comes files after
#: tests/test_catalogue_reference_client.py, whose whole-catalogue run it shares (tests/shared_runs.py) and would
#: otherwise wait for.
SLOWEST_FILES = (
    "tests/peers/test_scorecard_pins.py",  # 184: a2a-handler through its fork server, then six clients two at a time
    "tests/test_catalogue_reference_client.py",  # 142
    "tests/peers/test_scorecard_pins_sdk13.py",  # 123: the other half, beside it (see SDK13_MODES there)
    "tests/test_readme_examples.py",  # 85
    "tests/harness/test_paths.py",  # 83
    "tests/harness/test_fuzz.py",  # 72
    "tests/harness/test_cli_examples.py",  # 58
    "tests/harness/test_cli_usage.py",  # 54
    "tests/test_compose.py",  # 50
    "tests/harness/test_evidence.py",  # 47
    "tests/scenarios/test_grpc.py",  # 41
    "tests/server/test_follow_up_styles.py",  # 37
    "tests/test_action.py",  # 32
    "tests/harness/test_html_report.py",  # 30
    "tests/harness/test_refclient_actions.py",  # 26
    "tests/ui/test_browser.py",  # 25
    "tests/harness/acts/test_acts_streams.py",  # 22
    "tests/scenarios/test_push_deployed.py",  # 22
    "tests/server/test_fuzz.py",  # 22
    "tests/harness/test_hostile_clients.py",  # 20
)


#: The repository: its source folders (pyproject's package-dir) and tests/ are compiled once per session.
ROOT = Path(__file__).resolve().parent.parent


def source_folders() -> list[Path]:
    """a2a-lab's source folders as pyproject.toml maps them to packages (protocol, contract, ...), and tests/."""
    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"]
    return [ROOT / folder for folder in dirs.values()] + [ROOT / "tests"]


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project's modules to byte-code once, in the main process before any xdist worker starts: where
    PYTHONDONTWRITEBYTECODE is set (the build machine sets it), every a2a-lab command, reference client and driver
    the suite starts (well over a thousand processes) would compile each a2a-lab module it imports from source again,
    about 0.4 s of CPU each time. Python writes the same files on a first import wherever writing byte-code is on;
    up-to-date ones are left as they are, and a folder that cannot be written is skipped quietly."""
    if hasattr(config, "workerinput"):  # an xdist worker: the main process compiled already
        return
    for folder in source_folders():
        compileall.compile_dir(folder, quiet=2, workers=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return SLOWEST_FILES.index(path) if path in SLOWEST_FILES else len(SLOWEST_FILES)

    items.sort(key=rank)  # stable: the order within a file, and of the other files, is kept


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return Catalogue.load()


class Served:
    """A scenario served for one test: its URL, its app (state and journal), and an httpx client."""

    def __init__(self, app: ScenarioApp, server: BackgroundServer) -> None:
        self.app, self.server = app, server
        self.url = server.url
        self.card_url = f"{server.url}/.well-known/agent-card.json"
        self.http = httpx.Client(base_url=server.url, timeout=10, trust_env=False, verify=_SSL)
        #: The headers of an admin GET and an admin POST (`/_lab/...`).
        self.admin = credentials(app.guard.token)
        self.admin_post = json_credentials(app.guard.token)

    @property
    def journal(self) -> list[dict]:
        return self.app.state.journal.snapshot()["entries"]

    def rpc(
        self, path: str, method: str, params: dict | None = None, version: str | None = "1.0", req_id: object = 1
    ) -> httpx.Response:
        headers = {"A2A-Version": version} if version else {}
        return self.http.post(
            path, json={"jsonrpc": "2.0", "id": req_id, "method": method, "params": params or {}}, headers=headers
        )


@pytest.fixture
def serve(catalogue: Catalogue) -> Iterator[Callable[[str], Served]]:
    started: list[Served] = []

    def _serve(scenario_id: str) -> Served:
        app = ScenarioApp(catalogue.get(scenario_id))
        server = BackgroundServer(app).start()
        served = Served(app, server)
        started.append(served)
        return served

    yield _serve
    for served in started:
        served.http.close()
        served.server.stop()
