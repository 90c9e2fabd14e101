"""Shared fixtures: real uvicorn servers on loopback (port 0) for catalogue scenarios."""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import credentials, json_credentials
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

#: One TLS context for every test client: building one per client reloads the CA bundle (slow); loopback is plain
#: HTTP anyway.
_SSL = ssl.create_default_context()


#: The longest test files, longest first (measured under `-n 2` on 2 cores, wall seconds loaded): with `-n 2 --dist
#: loadfile --no-loadscope-reorder` (pyproject) each goes whole to one worker in this order, so the two halves of the
#: real-client pins (about 7 minutes each on 2 cores, measured in `.ci/run`) start at once, one per worker, the next
#: longest follow as a worker frees, and the many short files fill in after them (longest processing time first): no
#: long file is left to run alone at the end. Without --no-loadscope-reorder xdist would start the files with the
#: most tests first and the pins last. tests/test_compose.py comes a few files after
#: tests/test_catalogue_reference_client.py, whose whole-catalogue run it shares (tests/shared_runs.py) and would
#: otherwise wait for.
SLOWEST_FILES = (
    "tests/peers/test_scorecard_pins.py",  # 700
    "tests/peers/test_scorecard_pins_sdk13.py",  # 670
    "tests/test_catalogue_reference_client.py",  # 300-400
    "tests/harness/test_paths.py",  # 150
    "tests/harness/test_fuzz.py",  # 90-100
    "tests/harness/test_cli_usage.py",  # 80-100
    "tests/test_compose.py",  # 130-150
    "tests/harness/test_cli_run.py",  # 90
    "tests/harness/test_hostile_inputs.py",  # 60
    "tests/harness/test_evidence.py",  # 50
    "tests/scenarios/test_grpc.py",  # 50
    "tests/test_readme_examples.py",  # 40
    "tests/harness/test_checks.py",  # 40
    "tests/server/test_follow_up_styles.py",  # 35
    "tests/harness/test_shared_server.py",  # 35
)


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
