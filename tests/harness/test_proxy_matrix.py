"""The interop matrix (`python -m a2a_lab.harness.proxy.matrix`): real clients (the reference client, the official
a2a-sdk 1.3 client as its users write one) through the proxy to real servers (the official a2a-sdk 1.3 server, and
a2a-lab's persona of it), one table client x server with each cell's findings attributed to a side. A client with a
known defect (the fake client's `no-header`) shows where its finding lands: on the client's side."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_lab import scenarios
from a2a_lab.contract.loader import load_file
from a2a_lab.harness.common.model import Outcome
from a2a_lab.harness.proxy.matrix import cell, gating, table
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from tests.harness.client_launch import FAKE_CLIENT

from ..personas.sdk13 import sdk13_server

PEER_CLIENT = Path(__file__).parent.parent / "peers" / "clients" / "a2a_sdk_13.py"
CLIENTS = {
    "a2a-lab client": [sys.executable, "-m", "a2a_lab.harness.cli", "client"],
    "a2a-sdk 1.3 client": [sys.executable, str(PEER_CLIENT)],
}


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    persona = load_file(Path(scenarios.__file__).parent / "personas" / "a2a-sdk-python-1.3.yaml")
    with sdk13_server(compat=False) as official, BackgroundServer(ScenarioApp(persona)) as lab:
        yield {"a2a-sdk 1.3 server": official.base_url, "a2a-lab persona a2a-sdk-python-1.3": lab.url}


def test_real_clients_through_the_proxy_to_real_servers(servers: dict[str, str]) -> None:
    cells = [cell(c, argv, s, url) for c, argv in CLIENTS.items() for s, url in servers.items()]
    print(table(cells))
    assert len(cells) == 4 and all(c.exit_code == 0 for c in cells), [(c.client, c.server, c.exit_code) for c in cells]
    for c in cells:  # every pair talked A2A through the proxy, and each side was judged from it
        assert c.client_outcome in (Outcome.PASS, Outcome.NON_STRICT, Outcome.FAIL), c
        assert c.server_outcome in (Outcome.PASS, Outcome.NON_STRICT, Outcome.FAIL), c
    shown = table(cells).splitlines()
    assert shown[0] == "| client \\ server | " + " | ".join(servers) + " |"
    assert [row.split(" | ")[0] for row in shown[2:4]] == [f"| {name}" for name in CLIENTS]


def test_a_defective_clients_finding_is_attributed_to_the_client(servers: dict[str, str]) -> None:
    name, url = next(iter(servers.items()))
    found = cell("fake no-header", [sys.executable, str(FAKE_CLIENT), "--defect", "no-header"], name, url)
    assert "C:VERSION-HEADER" in found.findings and not [f for f in found.findings if f.startswith("S:")]
    assert found.client_outcome is Outcome.FAIL and gating([found])
