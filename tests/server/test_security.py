"""Security: push deliveries call loopback (or the allow-list) only and follow no redirect; webhook credentials
never reach a journal or a report; scenario files are data (no YAML object tags, no way out of the catalogue);
the admin token is compared in constant time."""

from __future__ import annotations

import hmac
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.harness import cli
from a2a_lab.harness.client_judging import runner
from a2a_lab.server import guard
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.push import TIMEOUT_S

from .helpers import Lab, Receiver, message, scenario_text, write_scenario

MakeLab = Callable[..., Lab]
#: Non-routable: if anything ever tried it, the delivery would hang until TIMEOUT_S and be journaled as failed.
ELSEWHERE = "http://10.255.255.1/x"


# ==================================================================================== push: no redirects, loopback only


def test_push_follows_no_redirect_not_even_to_loopback(lab: MakeLab, receiver: Callable[..., Receiver]) -> None:
    hook = receiver(302, {"away": ELSEWHERE, "home": "/trap"})
    s = lab()
    began = time.monotonic()
    tasks = set()
    for name in ("away", "home"):
        config = {"url": hook.url(name), "authentication": {"scheme": "Bearer", "credentials": "redirect-secret"}}
        answer = s.rpc(
            "SendMessage",
            {"message": message(name, message_id=name), "configuration": {"taskPushNotificationConfig": config}},
        ).json()
        tasks.add(answer["result"]["task"]["id"])
    assert s.app.state.journal.wait_for(
        lambda entries: sum(1 for e in entries if e["kind"] == "push" and "response" in e) >= 6
    )
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert {e["push"]["task_id"] for e in pushes} == tasks
    assert [e["response"] for e in pushes] == [{"status": 302}] * 6, "each delivery ends at the 302"
    assert sorted(hook.paths()) == ["away"] * 3 + ["home"] * 3, "no second request, not even to the loopback /trap"
    assert not any(ELSEWHERE in json.dumps(e) for e in s.journal)
    assert time.monotonic() - began < TIMEOUT_S, "nothing waited on 10.255.255.1"


def test_push_to_another_host_is_stored_but_never_sent(lab: MakeLab) -> None:
    s = lab()
    answer = s.rpc(
        "SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": {"url": ELSEWHERE}}}
    ).json()
    task = answer["result"]["task"]
    stored = s.rpc("ListTaskPushNotificationConfigs", {"taskId": task["id"]}).json()["result"]
    assert [c["url"] for c in stored["configs"]] == [ELSEWHERE]
    assert s.app.state.journal.wait_for(
        lambda entries: sum(1 for e in entries if e["kind"] == "push" and "response" in e) >= 3
    )
    refused = [e["response"] for e in s.journal if e["kind"] == "push"]
    assert len(refused) == 3 and all(set(r) == {"refused"} and "neither loopback" in r["refused"] for r in refused)


# ============================================================================= credentials never in journals or reports


def test_webhook_credentials_never_reach_a_journal_or_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    apps: list[ScenarioApp] = []

    class Recording(ScenarioApp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            apps.append(self)

    monkeypatch.setattr(runner, "ScenarioApp", Recording)
    reports = tmp_path / "reports"
    code = cli.main(
        [
            "run",
            "--scenario",
            "push/webhook-with-credentials",
            "--client",
            "builtin",
            "--report-dir",
            str(reports),
            "--json",
            str(tmp_path / "run.json"),
            "--junit",
            str(tmp_path / "junit.xml"),
        ]
    )
    console = capsys.readouterr()
    assert code == 0, console.err
    # The secrets the reference client chose, read back from the server that was sent them.
    [app] = apps
    [task] = app.state.engine.tasks.values()
    [config] = task.push_configs.values()
    secrets = [config["authentication"]["credentials"], config["token"]]
    assert all(isinstance(x, str) and len(x) >= 16 for x in secrets)
    sent = [value for entry in app.state.journal.entries for _, value in entry.raw_headers]
    assert all(any(secret.encode() in value for value in sent) for secret in secrets), (
        "the search below looks for what was really sent"
    )
    report = json.loads((reports / "report.json").read_text(encoding="utf-8"))
    [result] = report["scenarios"]
    checks = {c["id"]: c["outcome"] for c in result["checks"]}
    assert checks["PUSH-RECEIVER"] == "PASS", "the webhook really was called with those credentials"
    written = [p for p in [*reports.rglob("*"), tmp_path / "run.json", tmp_path / "junit.xml"] if p.is_file()]
    assert {p.name for p in written} >= {
        "report.json",
        "junit.xml",
        "index.html",
        "webhook-with-credentials.jsonl",
        "run.json",
    }
    for path in written:
        data = path.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, f"a webhook credential is in {path}"
    for secret in secrets:
        assert secret not in console.out and secret not in console.err
        assert secret not in app.state.journal.jsonl()
    assert "Bearer <redacted>" in (reports / "journals" / "push" / "webhook-with-credentials.jsonl").read_text(
        encoding="utf-8"
    )


# ==================================================================================== scenario files are data


@pytest.mark.parametrize(
    "tag", ["!!python/object/apply:os.system", "!!python/object/new:os.system", "!!python/name:os.system"]
)
def test_a_yaml_object_tag_is_refused_and_runs_nothing(tmp_path: Path, tag: str) -> None:
    marker = tmp_path / "pwned"
    text = scenario_text().replace("title: a test scenario", f'title: {tag} ["touch {marker}"]')
    path = write_scenario(tmp_path, text)
    with pytest.raises(ScenarioError, match=f"the tag {re.escape(tag)} is not allowed") as caught:
        load_file(path)
    assert caught.value.source == str(path) and "line 1" in caught.value.field_path
    assert not marker.exists(), "loading a scenario ran code"
    broken = Catalogue.load(tmp_path)
    assert broken.scenarios == {} and set(broken.broken) == {"scenario"}
    assert not marker.exists()


@pytest.mark.parametrize(
    "ref",
    [
        "../x",
        "../../etc/passwd",
        "/etc/passwd",
        "spec/../../pyproject",
        "..",
        "spec/conformant/../../x",
        "spec/%2e%2e/x",
    ],
)
def test_a_scenario_id_cannot_leave_the_catalogue(catalogue: Catalogue, ref: str) -> None:
    """Nothing in a scenario names a file (cards, keys and bodies are inline; `load_file` is the only read), so the one
    way out would be the id: ids are keys of the catalogue's own listing, never paths joined to its root."""
    with pytest.raises(KeyError, match="unknown scenario"):
        catalogue.get(ref)


# ==================================================================================== the admin token


def test_the_admin_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    lab = guard.AdminGuard.of("s3cret")
    remote = {"type": "http", "method": "GET", "client": ("203.0.113.9", 5555)}
    assert lab.holder({**remote, "headers": [(b"x-a2a-lab-token", b"s3cret")]}) is None
    assert lab.holder({**remote, "headers": [(b"authorization", b"Bearer s3cret")]}) is None
    assert lab.holder({**remote, "headers": [(b"authorization", b"Bearer s3creT")]}) == guard.Refusal(
        403, "the token presented is not the admin token"
    )
    refused = lab.holder({**remote, "headers": []})
    assert refused is not None and refused.status == 401
    wrong = lab.holder({**remote, "headers": [(b"x-a2a-lab-token", "sécret".encode())]})  # non-ASCII: no TypeError
    assert wrong is not None and wrong.status == 403
    assert compared == [
        (b"s3cret", b"s3cret"),
        (b"s3cret", b"s3cret"),
        (b"s3creT", b"s3cret"),
        ("sécret".encode().decode("latin-1").encode(), b"s3cret"),
    ], "a missing token is refused before any comparison; every other one is compared in constant time"


def test_every_server_draws_its_own_random_admin_token(catalogue: Catalogue) -> None:
    """Nobody can know the admin token of a server the harness starts: 256 random bits per server."""
    tokens = {ScenarioApp(catalogue.get("spec/conformant")).guard.token for _ in range(20)}
    assert len(tokens) == 20 and all(len(t) >= 43 for t in tokens)
