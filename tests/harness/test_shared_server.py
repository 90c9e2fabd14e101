"""The shared server: isolated runs, the admin API and its tokens, `run --server` and `score --server --run`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import credentials, json_credentials
from a2a_lab.harness.cli import presets
from a2a_lab.harness.cli.tokens import ADMIN_TOKEN_ENV
from a2a_lab.harness.client_judging import run_file, runner
from a2a_lab.harness.client_judging.remote import RemoteError, RemoteServer
from a2a_lab.harness.common.model import Outcome
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import MAX_RUNS, CatalogueApp, RunsFull

IDS = ["spec/conformant", "quirks/mixed-version-direct-message", "quirks/advertised-method-not-found"]


@dataclass
class Shared:
    url: str
    app: CatalogueApp

    @property
    def remote(self) -> RemoteServer:
        """The server as its owner sees it: with the admin token."""
        return RemoteServer(self.url, self.app.guard.token)


@pytest.fixture(scope="module")
def shared() -> Iterator[Shared]:
    cat = Catalogue.load()
    app = CatalogueApp([cat.get(i) for i in IDS])
    with BackgroundServer(app) as server:
        yield Shared(server.url, app)


def test_runs_isolate_traffic(shared: Shared) -> None:
    a, b = shared.remote.start_run(0), shared.remote.start_run(0)
    assert a.id != b.id and a.token != b.token
    card_a = a.base_url("spec/conformant") + "/.well-known/agent-card.json"
    card = httpx.get(card_a, trust_env=False).json()
    assert card["supportedInterfaces"][0]["url"].startswith(a.base_url("spec/conformant"))
    assert len(a.journal("spec/conformant")["entries"]) == 1
    assert b.journal("spec/conformant")["entries"] == []
    assert a.info()["traffic"] == {"spec/conformant": 1}


def test_same_seed_same_ids_in_every_run(shared: Shared) -> None:
    ids = []
    for _ in range(2):
        run = shared.remote.start_run(5)
        iface = run.base_url("spec/conformant") + "/a2a/jsonrpc"
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


def test_run_against_a_shared_server_scores_like_a_local_one(shared: Shared) -> None:
    cat = Catalogue.load()
    before = len(shared.app.runs)
    results, _ = runner.run_all(
        [cat.get(i) for i in IDS],
        runner.RunOptions(presets.resolve("builtin"), jobs=2),
        server=shared.remote,
    )
    assert {r.id: r.outcome for r in results} == {i: Outcome.PASS for i in IDS}
    assert all(r.journal for r in results)
    assert len(shared.app.runs) == before, "the harness ends its run once it has read the evidence"


def test_score_a_self_driven_client(shared: Shared, tmp_path: Path) -> None:
    run = shared.remote.start_run(0)
    card_url = run.base_url("quirks/mixed-version-direct-message") + "/.well-known/agent-card.json"
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
    score = [sys.executable, "-m", "a2a_lab.harness.cli", "score", "--server", shared.url]
    scoring = ["--scenario", "quirks/mixed-version-direct-message", "--json", "/dev/stdout", "--strict"]
    out = subprocess.run(
        [*score, "--run", run.id, "--run-token", run.token, *scoring], capture_output=True, text=True, timeout=60
    )
    # Polling after a message misses a SHOULD (NON_STRICT), which --strict gates on.
    assert out.returncode == 1, out.stderr
    assert "NO-POLL-AFTER-MESSAGE" in out.stdout
    run_file.write(tmp_path / "run.json", run)
    again = subprocess.run(
        [*score, "--run-file", str(tmp_path / "run.json"), *scoring], capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 1 and "NO-POLL-AFTER-MESSAGE" in again.stdout, again.stderr
    untokened = subprocess.run([*score, "--run", run.id, *scoring], capture_output=True, text=True, timeout=60)
    assert untokened.returncode == 2 and "--run-token" in untokened.stderr


# ==================================================================================== who may do what (issue 13)


def test_the_servers_admin_token_starts_runs_and_a2a_traffic_needs_none(shared: Shared) -> None:
    post = {"Content-Type": "application/json"}
    assert httpx.post(f"{shared.url}/_lab/runs", headers=post, trust_env=False).status_code == 401
    wrong = httpx.post(f"{shared.url}/_lab/runs", headers={**post, "X-A2A-Lab-Token": "r1"}, trust_env=False)
    assert wrong.status_code == 403
    with pytest.raises(RemoteError, match=r"HTTP 401.*--admin-token"):
        RemoteServer(shared.url, "").start_run(0)
    assert shared.remote.start_run(0).id
    scenarios = httpx.get(f"{shared.url}/_lab/scenarios", headers=credentials(shared.app.guard.token), trust_env=False)
    assert scenarios.status_code == 200
    card = httpx.get(f"{shared.url}/spec/conformant/.well-known/agent-card.json", trust_env=False)
    assert card.status_code == 200


def test_run_ids_are_unguessable_and_a_guess_is_404(shared: Shared) -> None:
    runs = [shared.remote.start_run(0) for _ in range(3)]
    assert len({r.id for r in runs}) == 3 and all(len(r.id) >= 22 for r in runs)  # 128 random bits each
    admin = credentials(shared.app.guard.token)
    for guess in ("r1", "r2", "1", runs[0].id[:-1]):
        r = httpx.get(
            f"{shared.url}/_lab/runs/{guess}/journal?scenario=spec/conformant", headers=admin, trust_env=False
        )
        assert r.status_code == 404 and "run ids are random" in r.json()["error"]
        r = httpx.get(f"{shared.url}/runs/{guess}/spec/conformant/.well-known/agent-card.json", trust_env=False)
        assert r.status_code == 404 and "POST /_lab/runs" in r.json()["error"]
    listing = httpx.get(f"{shared.url}/_lab/runs", headers=admin, trust_env=False)
    assert listing.status_code == 200 and listing.json()["runs"] >= 3
    assert not any(r.id in listing.text for r in runs), "the run list names no run"


def test_a_run_answers_only_to_its_own_token(shared: Shared) -> None:
    mine, theirs = shared.remote.start_run(0), shared.remote.start_run(0)
    httpx.get(mine.base_url("spec/conformant") + "/.well-known/agent-card.json", trust_env=False)
    url = f"{shared.url}/_lab/runs/{mine.id}"
    as_json = {"Content-Type": "application/json"}
    for token, status in ((theirs.token, 403), (shared.app.guard.token, 403), (None, 401)):
        headers = credentials(token) if token else {}
        assert httpx.get(url, headers=headers, trust_env=False).status_code == status
        assert httpx.get(f"{url}/journal?scenario=spec/conformant", headers=headers, trust_env=False).status_code == (
            status
        )
        reset = httpx.post(f"{url}/reset?scenario=spec/conformant", headers={**headers, **as_json}, trust_env=False)
        assert reset.status_code == status and ("this run's token" in reset.json()["error"])
        assert httpx.delete(url, headers=headers, trust_env=False).status_code == status
        # The scenario's own admin paths inside the run are the run's too.
        own = httpx.get(f"{shared.url}/runs/{mine.id}/spec/conformant/_lab/journal", headers=headers, trust_env=False)
        assert own.status_code == status
    assert len(mine.journal("spec/conformant")["entries"]) == 1, "nothing was reset"
    rebound = {**credentials(mine.token), **as_json, "Host": "evil.example"}
    assert httpx.post(f"{url}/reset?scenario=spec/conformant", headers=rebound, trust_env=False).status_code == 421
    page = {**credentials(mine.token), "Content-Type": "text/plain", "Origin": "http://evil.example"}
    assert httpx.post(f"{url}/reset?scenario=spec/conformant", headers=page, trust_env=False).status_code == 403
    assert len(mine.journal("spec/conformant")["entries"]) == 1, "nothing was reset"
    assert mine.reset("spec/conformant") == {"reset": True} and mine.journal("spec/conformant")["entries"] == []


def test_a_flood_of_new_runs_does_not_evict_a_run_in_progress() -> None:
    """Issue 13: 64 POST /_lab/runs evicted the oldest run, in progress or not. Now the flood fills the free
    places (63 x 201) and is then refused (503); the run in progress keeps its journal."""
    cat = Catalogue.load()
    app = CatalogueApp([cat.get("spec/conformant")])
    with BackgroundServer(app) as server:
        remote = RemoteServer(server.url, app.guard.token)
        victim = remote.start_run(0)
        httpx.get(victim.base_url("spec/conformant") + "/.well-known/agent-card.json", trust_env=False)
        admin = json_credentials(app.guard.token)
        with httpx.Client(base_url=server.url, headers=admin, trust_env=False) as http:
            flood = [http.post("/_lab/runs").status_code for _ in range(MAX_RUNS)]
            refused = http.post("/_lab/runs")
        assert flood == [201] * (MAX_RUNS - 1) + [503]
        assert refused.status_code == 503 and refused.headers["retry-after"] == "600"
        assert "in progress" in refused.json()["error"] and "DELETE /_lab/runs/<run>" in refused.json()["error"]
        assert len(victim.journal("spec/conformant")["entries"]) == 1
        assert victim.end() == {"run": victim.id, "deleted": True}
        with httpx.Client(base_url=server.url, headers=admin, trust_env=False) as http:
            assert http.post("/_lab/runs").status_code == 201, "the place its owner freed is taken"
        with pytest.raises(RemoteError, match=r"HTTP 410: .*has ended: its owner ended it"):
            victim.info()
        gone = httpx.get(victim.base_url("spec/conformant") + "/.well-known/agent-card.json", trust_env=False)
        assert gone.status_code == 410 and "has ended" in gone.json()["error"]


def test_only_a_run_idle_long_enough_is_evicted_and_its_owner_hears_so() -> None:
    now = [1000.0]
    cat = Catalogue.load()
    app = CatalogueApp([cat.get("spec/conformant")], max_runs=2, idle_seconds=600, clock=lambda: now[0])
    old, _ = app.start_run()
    busy, _ = app.start_run()
    now[0] += 599
    with pytest.raises(RunsFull, match=r"all 2 runs .* are in progress"):
        app.start_run()
    busy.active = 1  # a request in flight (a long stream) keeps a run in progress however long it lasts
    now[0] += 10_000
    new, evicted = app.start_run()
    assert evicted == [old] and old.id not in app.runs and busy.id in app.runs and new.id in app.runs
    assert app.missing_run(old.id) == (
        410,
        f"run {old.id!r} has ended: it was evicted after 10599 s idle to make room for a new run; "
        "POST /_lab/runs starts a new one",
    )
    with pytest.raises(RunsFull):
        app.start_run()  # `new` was just started, `busy` is answering


def test_serve_generates_and_prints_an_admin_token_when_given_none() -> None:
    env = {k: v for k, v in os.environ.items() if k != ADMIN_TOKEN_ENV}
    argv = [sys.executable, "-m", "a2a_lab.harness.cli", "serve", "spec/conformant", "--port", "0"]
    server = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        url = token = None
        for line in server.stderr:
            url = url or (re.search(r"on (http://127\.0\.0\.1:\d+)", line) or [None, None])[1]
            found = re.search(r"generated token .*: Authorization: Bearer (\S+)$", line)
            if found:
                token = found.group(1)
                break
        assert url and token and len(token) >= 43
        assert httpx.get(f"{url}/_lab/journal", trust_env=False).status_code == 401
        assert httpx.get(f"{url}/_lab/journal", headers=credentials(token), trust_env=False).status_code == 200
    finally:
        server.terminate()
        server.wait(10)


def test_unknown_scenario_is_clear(shared: Shared) -> None:
    run = shared.remote.start_run(0)
    r = httpx.get(
        f"{shared.url}/_lab/runs/{run.id}/journal", params={"scenario": "nope"}, headers=credentials(run.token)
    )
    assert r.status_code == 404 and "scenario" in r.json()["error"]
    r = httpx.get(f"{shared.url}/runs/{run.id}/no/such/.well-known/agent-card.json", trust_env=False)
    assert r.status_code == 404 and "no scenario" in r.json()["error"]
    assert json.loads(httpx.get(f"{shared.url}/", trust_env=False).text)["scenarios"][0]["card_url"].endswith(
        "agent-card.json"
    )
