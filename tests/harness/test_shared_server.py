"""The shared server: isolated runs, the admin API and its token, `run --server` and `score --server --run`."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from a2a_lab.harness import presets, runner
from a2a_lab.harness.model import Outcome
from a2a_lab.harness.remote import RemoteError, RemoteServer
from a2a_lab.server.catalogue import Catalogue
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp

IDS = ["spec/conformant", "quirks/mixed-version-direct-message", "quirks/advertised-method-not-found"]


@pytest.fixture(scope="module")
def shared() -> object:
    cat = Catalogue.load()
    with BackgroundServer(CatalogueApp([cat.get(i) for i in IDS])) as server:
        yield server


def test_runs_isolate_traffic(shared) -> None:
    remote = RemoteServer(shared.url)
    a, b = remote.start_run(0)["run"], remote.start_run(0)["run"]
    assert a != b
    card_a = remote.base_url(a, "spec/conformant") + "/.well-known/agent-card.json"
    card = httpx.get(card_a, trust_env=False).json()
    assert card["supportedInterfaces"][0]["url"].startswith(remote.base_url(a, "spec/conformant"))
    assert len(remote.journal(a, "spec/conformant")["entries"]) == 1
    assert remote.journal(b, "spec/conformant")["entries"] == []
    assert remote.run_info(a)["traffic"] == {"spec/conformant": 1}


def test_same_seed_same_ids_in_every_run(shared) -> None:
    remote = RemoteServer(shared.url)
    ids = []
    for _ in range(2):
        run = remote.start_run(5)["run"]
        iface = remote.base_url(run, "spec/conformant") + "/a2a/jsonrpc"
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}},
        }
        ids.append(
            httpx.post(iface, json=body, headers={"A2A-Version": "1.0"}, trust_env=False).json()["result"]["task"]["id"]
        )
    assert ids[0] == ids[1]


def test_run_against_a_shared_server_scores_like_a_local_one(shared) -> None:
    cat = Catalogue.load()
    results, _ = runner.run_all(
        [cat.get(i) for i in IDS],
        runner.RunOptions(presets.resolve("builtin"), jobs=2),
        server=RemoteServer(shared.url),
    )
    assert {r.id: r.outcome for r in results} == {i: Outcome.PASS for i in IDS}
    assert all(r.journal for r in results)


def test_score_a_self_driven_client(shared) -> None:
    remote = RemoteServer(shared.url)
    run = remote.start_run(0)["run"]
    card_url = remote.base_url(run, "quirks/mixed-version-direct-message") + "/.well-known/agent-card.json"
    iface = httpx.get(card_url, trust_env=False).json()["supportedInterfaces"][0]["url"]
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
    }
    httpx.post(iface, json=body, headers={"A2A-Version": "1.0"}, trust_env=False)
    httpx.post(
        iface,
        json={"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "nope"}},
        headers={"A2A-Version": "1.0"},
        trust_env=False,
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "a2a_lab.harness.cli",
            "score",
            "--server",
            shared.url,
            "--run",
            run,
            "--scenario",
            "quirks/mixed-version-direct-message",
            "--json",
            "/dev/stdout",
            "--strict",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Polling after a message misses a SHOULD (NON_STRICT), which --strict gates on.
    assert out.returncode == 1, out.stderr
    assert "NO-POLL-AFTER-MESSAGE" in out.stdout


def test_admin_token_guards_the_admin_api() -> None:
    cat = Catalogue.load()
    with BackgroundServer(CatalogueApp([cat.get("spec/conformant")], admin_token="s3cret")) as server:
        assert httpx.post(f"{server.url}/_lab/runs", trust_env=False).status_code == 403
        with pytest.raises(RemoteError, match="admin-token"):
            RemoteServer(server.url).start_run(0)
        assert RemoteServer(server.url, "s3cret").start_run(0)["run"]
        assert (
            httpx.get(
                f"{server.url}/_lab/scenarios", headers={"X-A2A-Lab-Token": "s3cret"}, trust_env=False
            ).status_code
            == 200
        )
        # A2A traffic itself needs no token.
        assert (
            httpx.get(f"{server.url}/spec/conformant/.well-known/agent-card.json", trust_env=False).status_code == 200
        )


def test_serve_refuses_a_public_address_without_a_token() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, "A2A_LAB_ADMIN_TOKEN": ""},
    )
    assert out.returncode == 2 and "--admin-token" in out.stderr


def test_unknown_run_and_scenario_are_clear(shared) -> None:
    r = httpx.get(f"{shared.url}/runs/r999/spec/conformant/.well-known/agent-card.json", trust_env=False)
    assert r.status_code == 404 and "POST /_lab/runs" in r.json()["error"]
    run = RemoteServer(shared.url).start_run(0)["run"]
    r = httpx.get(f"{shared.url}/_lab/runs/{run}/journal", params={"scenario": "nope"}, trust_env=False)
    assert r.status_code == 404 and "scenario" in r.json()["error"]
    assert json.loads(httpx.get(f"{shared.url}/", trust_env=False).text)["scenarios"][0]["card_url"].endswith(
        "agent-card.json"
    )
