"""Issue 13 point 5: the inputs that used to crash a2a-lab, each answered with a clear error and a figure.

Push URLs with a port out of range or not a number (accepted, then the delivery worker died: "Task exception was
never retrieved"); a run seed of 1e999 (a bare 500); scenario files with unquoted dates, `!!binary`, `!!set`,
100 000 levels of nesting (raw tracebacks), an alias bomb (start-up at 2.7 GB) and 100 MB (44 s). The accept loops'
EMFILE back-off is in test_accept_backoff.py; the client's result file in tests/harness (RESULT-MATCHES proofs)."""

from __future__ import annotations

import json
import os
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract import userfile
from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.lab_api import json_credentials
from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp

from .helpers import REST_PATH, Lab, client, message, scenario_text, write_scenario

MakeLab = Callable[..., Lab]
V1 = {"A2A-Version": "1.0"}
#: The line of whatever a test appends to the test scenario (scenario_text).
APPENDED = f"line {scenario_text().count(chr(10)) + 1},"

# ==================================================================================== push configs


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/hook", "http://127.0.0.1:abc/hook", "http://[::1]:0/hook"])
def test_a_webhook_url_with_a_bad_port_is_refused_when_the_config_is_created(lab: MakeLab, url: str) -> None:
    s = lab()
    inline = s.rpc("SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": {"url": url}}})
    error = inline.json()["error"]
    assert error["code"] == -32602 and "not a number from 1 to 65535" in error["message"]
    assert error["data"][0]["fieldViolations"][0]["field"] == "url"
    assert s.app.state.engine.tasks == {}, "refused before a task exists"
    task = s.rpc("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}}).json()
    task_id = task["result"]["task"]["id"]
    created = s.http.post(f"{REST_PATH}/tasks/{task_id}/pushNotificationConfigs", json={"url": url}, headers=V1)
    assert created.status_code == 400 and created.json()["error"]["details"][0]["fieldViolations"][0]["field"] == "url"
    assert [e for e in s.journal if e["kind"] == "push"] == [], "nothing was ever delivered"


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"token": "caf\u00e9"}, "token"),
        ({"authentication": {"scheme": "Bearer", "credentials": "line\nbreak"}}, "authentication.credentials"),
    ],
)
def test_a_config_whose_credentials_cannot_be_a_header_is_refused(
    lab: MakeLab, config: dict[str, Any], field: str
) -> None:
    s = lab()
    push = {"url": "http://127.0.0.1:9/hook", **config}
    answer = s.rpc("SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": push}})
    error = answer.json()["error"]
    assert error["code"] == -32602 and "visible ASCII" in error["message"]
    assert error["data"][0]["fieldViolations"][0]["field"] == field


def test_the_delivery_worker_survives_a_delivery_httpx_cannot_even_start(lab: MakeLab) -> None:
    """A stored config that slipped past the checks (placed here by hand): httpx raises UnicodeEncodeError, which is
    no httpx.HTTPError. Both events are journaled as failed deliveries: the worker outlived the first."""
    s = lab("task: {advance: {get_task: 1, follow_ms: 60000}}\n")
    sent = s.rpc("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}}).json()
    task_id = sent["result"]["task"]["id"]
    rec = s.app.state.engine.lookup(task_id)
    rec.push_configs["bad"] = {"id": "bad", "taskId": task_id, "url": "http://127.0.0.1:9/hook", "token": "caf\u00e9"}
    for _ in range(2):
        assert s.rpc("GetTask", {"id": task_id}).json()["result"]["id"] == task_id  # each moves it: one event each

    def delivered(entries: list[dict[str, Any]]) -> bool:
        return len([e for e in entries if e["kind"] == "push" and "response" in e]) >= 3

    assert s.app.state.journal.wait_for(delivered)
    failures = [e["response"].get("failed", "") for e in s.journal if e["kind"] == "push"]
    assert len(failures) == 3 and all(f.startswith("UnicodeEncodeError") for f in failures), failures


# ==================================================================================== the shared server's seed


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'{"seed": 1e999}', "too large"),
        (b'{"seed": 1.5}', "got 1.5"),
        (b'{"seed": "3"}', 'got "3"'),
        (b'{"seed": true}', "got true"),
        (b'{"seed": 9223372036854775808}', "got 9223372036854775808"),
        (b'{"seed": ' + b"9" * 5000 + b"}", "4300 digits"),
        (b"[1]", "optional JSON"),
        (b"\xff", "utf-8"),
    ],
    ids=["1e999", "fraction", "text", "boolean", "2**63", "5000-digits", "not-an-object", "not-utf-8"],
)
def test_a_run_seed_that_is_not_a_64_bit_integer_gets_400_and_a_reason(
    catalogue: Catalogue, body: bytes, says: str
) -> None:
    app = CatalogueApp([catalogue.get("spec/conformant")])
    admin = json_credentials(app.guard.token)
    with BackgroundServer(app) as server, client(server.url) as http:
        refused = http.post("/_lab/runs", content=body, headers=admin)
        assert refused.status_code == 400 and says in refused.json()["error"], refused.text
        assert 'the body is optional JSON: {"seed": N}, N a whole number' in refused.json()["error"]
        edge = http.post("/_lab/runs", json={"seed": -(2**63)}, headers=admin)
        assert edge.status_code == 201 and edge.json()["seed"] == -(2**63)


# ==================================================================================== scenario files


def _load(folder: Path, text: str) -> tuple[ScenarioError, float]:
    path = write_scenario(folder, scenario_text() + text)
    began = time.monotonic()
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    return caught.value, time.monotonic() - began


def test_an_unquoted_date_stays_the_text_it_is_written_as(tmp_path: Path) -> None:
    """It used to load as a datetime.date, which the card (JSON) could not carry: a traceback at start-up."""
    text = (
        scenario_text().replace('version: "1.0.0"', "version: 2024-05-01") + "observed: {when: 2025-03-01 10:00:00}\n"
    )
    scenario = load_file(write_scenario(tmp_path, text))
    assert scenario.observed == {"when": "2025-03-01 10:00:00"}
    with BackgroundServer(ScenarioApp(scenario)) as server, client(server.url) as http:
        assert http.get("/.well-known/agent-card.json").json()["version"] == "2024-05-01"


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("extended_card: {logo: !!binary aGVsbG8=}\n", "!!binary"),
        ("checks: !!set {RESULT-EXPECTED}\n", "!!set"),
        ("extended_card: {at: !!timestamp 2024-05-01}\n", "!!timestamp"),
        ("extended_card: {x: !!python/name:os.system ''}\n", "!!python/name:os.system"),
        ("extended_card: {x: !mine 1}\n", "!mine"),
    ],
)
def test_a_tag_beyond_json_is_refused_with_its_line(tmp_path: Path, text: str, tag: str) -> None:
    error, _ = _load(tmp_path, text)
    assert error.field_path.startswith(APPENDED) and error.problem == f"the tag {tag} is not allowed", error
    assert "text, numbers, true/false, null, lists and mappings" in error.hint


def test_a_hundred_thousand_levels_of_nesting_are_refused_in_seconds(tmp_path: Path) -> None:
    error, took = _load(tmp_path, "extended_card: {deep: " + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert (
        error.problem == f"nested more than {userfile.SCENARIO.max_depth} levels deep"
        and error.field_path.startswith(APPENDED)
    )
    assert took < 3.0, took  # 0.4 s here; the refusal comes at level 101, whatever follows


def test_nesting_within_the_limit_is_served(tmp_path: Path) -> None:
    depth = userfile.SCENARIO.max_depth - 10  # the scenario's own levels (extended_card, deep) come on top
    text = scenario_text() + "extended_card: {deep: " + "[" * depth + "]" * depth + "}\n"
    assert load_file(write_scenario(tmp_path, text)).extended_card is not None


def _billion_laughs() -> str:
    """Nine levels of nine aliases each: 9**9 (387 million) strings once expanded, in 700 bytes."""
    lines = ["  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    return "extended_card:\n" + "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_at_once_and_in_little_memory(tmp_path: Path) -> None:
    """It used to load (PyYAML shares aliased values), then start-up walked it: 2.7 GB. Now the alias that takes the
    expanded size past MAX_NODES is refused: in under a second and 20 MB of allocations."""
    tracemalloc.start()
    try:
        error, took = _load(tmp_path, _billion_laughs())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (
        error.problem.startswith(f"more than {userfile.SCENARIO.max_values} values, each alias counted")
        and "*l" in error.problem
    )
    assert error.field_path.startswith(f"line {scenario_text().count(chr(10)) + 6},"), "at l4, the first alias too many"
    assert took < 1.0 and peak < 20 * 1024 * 1024, (took, peak)


def test_a_value_that_holds_an_alias_of_itself_is_refused(tmp_path: Path) -> None:
    error, _ = _load(tmp_path, "extended_card: &me {again: *me}\n")
    assert error.problem == "the alias *me is inside the value &me names (a cycle)"


def test_aliases_within_the_budget_are_expanded(tmp_path: Path) -> None:
    text = "extended_card:\n  a: &skill {id: s, name: s}\n  b: [*skill, *skill]\n"
    scenario = load_file(write_scenario(tmp_path, scenario_text() + text))
    assert scenario.extended_card == {"a": {"id": "s", "name": "s"}, "b": [{"id": "s", "name": "s"}] * 2}


def test_a_hundred_megabyte_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """It used to take 44 s. The size is checked first: the refusal takes no time (the file is sparse here)."""
    path = tmp_path / "huge.yaml"
    with path.open("wb") as fh:
        fh.truncate(100 * 1024 * 1024)
    began = time.monotonic()
    with pytest.raises(ScenarioError) as caught:
        load_file(path)
    took = time.monotonic() - began
    assert (
        caught.value.problem
        == f"the file is {100 * 1024 * 1024} bytes; a2a-lab reads at most {userfile.SCENARIO.max_bytes}"
    )
    assert took < 0.1, took


def test_a_file_of_many_small_values_is_refused_in_seconds(tmp_path: Path) -> None:
    """Under the size limit, 500 000 values would take PyYAML some 20 s: the value budget stops it at 20 000 (0.8 s
    here)."""
    error, took = _load(tmp_path, "extended_card: {x: [" + "1," * 500_000 + "1]}\n")
    assert error.problem.startswith(f"more than {userfile.SCENARIO.max_values} values") and took < 4.0, (error, took)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("seed: " + "1" * 200 + "\n", "a whole number of 200 characters (at most 100)"),
        ("timeout: .inf\n", "expected a positive number, got inf"),
        ("limits: {body_seconds: .nan}\n", "expected a positive number, got nan"),
    ],
    ids=["200-digits", "inf", "nan"],
)
def test_numbers_no_json_or_clock_can_use_are_refused(tmp_path: Path, text: str, problem: str) -> None:
    error, _ = _load(tmp_path, text)
    assert error.problem == problem


def test_what_is_not_a_regular_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    folder = tmp_path / "dir.yaml"
    folder.mkdir()
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # reading it would block for ever: no writer
    for path in (folder, fifo):
        with pytest.raises(ScenarioError, match="not a regular file"):
            load_file(path)


def test_a_catalogue_with_every_attack_still_loads_the_good_files(tmp_path: Path) -> None:
    write_scenario(tmp_path, scenario_text(), "good.yaml")
    write_scenario(tmp_path, scenario_text() + _billion_laughs(), "bomb.yaml")
    write_scenario(tmp_path, scenario_text() + "checks: !!set {a}\n", "set.yaml")
    write_scenario(tmp_path, scenario_text() + "extended_card: " + "[" * 5000 + "]" * 5000 + "\n", "deep.yaml")
    cat = Catalogue.load(tmp_path)
    assert cat.ids() == ["good"] and sorted(cat.broken) == ["bomb", "deep", "set"]
    assert all(json.dumps(str(e)) for e in cat.broken.values())


# ==================================================================================== hosting


def test_a_server_whose_app_fails_to_start_raises_at_once() -> None:
    """BackgroundServer.start waits for the server to be ready, not polling: when the app's start-up fails (uvicorn
    exits its thread), start() raises instead of waiting for a readiness that never comes."""

    async def refusing(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        assert scope["type"] == "lifespan"
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "refused by the test"})

    outcome: list[BaseException | None] = []

    def start() -> None:
        server = BackgroundServer(refusing)
        try:
            server.start()
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)
            server.stop()
        finally:
            server.sock.close()

    thread = threading.Thread(target=start, daemon=True)
    thread.start()
    thread.join(10)
    assert outcome and isinstance(outcome[0], RuntimeError), outcome or "start() still waiting after 10 s"


def test_a_started_server_answers_at_once_and_stops() -> None:
    served = BackgroundServer(ScenarioApp(Catalogue.load().get("responses/direct-message"))).start()
    try:
        assert served.server.started
        with client(served.url) as http:
            assert http.get("/.well-known/agent-card.json").status_code == 200
    finally:
        served.stop()
    assert not served._thread.is_alive()
