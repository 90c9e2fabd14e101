"""Byte budgets (issue 13, point 2): each attack of the finding, scaled down to seconds, with the figure it must stay
under. Memory is measured with tracemalloc (the server runs in a thread of this process), server CPU time with the
server thread's own clock.

The finding, for scale: 700 SendMessages of 0.95 MB grew one server by ~1.4 GB (the task cap counted tasks); 12k
requests with big headers and 64 KB bodies grew the journal to ~1.3 GB; 3,000 push configs of 100 KB on one task
took 800 MB and listing them blocked the server for 3 s; 60k empty parts cost ~12 MB and 0.8 s CPU per message;
the huge-card scenario cached an 8 MB card per Host header; exporting a big journal built it in memory (4.4 GB
peak) while other requests waited.
"""

from __future__ import annotations

import gc
import json
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.journal import Journal
from a2a_lab.contract.journal_record import BODY_KEEP_BYTES, EntryKind
from a2a_lab.contract.lab_api import credentials, json_credentials
from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.contract.scenario import MIB, Limits
from a2a_lab.server.admin import NEXT_HEADER
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.engine import TASK_OVERHEAD
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.shared import CatalogueApp

from .helpers import REST_PATH, Lab, client, message, message03, scenario_text, write_scenario

MakeLab = Callable[..., Lab]
MB = 1_000_000
V1 = {"A2A-Version": "1.0"}


@contextmanager
def traced() -> Iterator[Callable[[], tuple[int, int]]]:
    """tracemalloc over the block: a function giving (bytes still held, peak bytes) since the block began."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]

    def held() -> tuple[int, int]:
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        return current - base, peak - base

    try:
        yield held
    finally:
        tracemalloc.stop()


def server_cpu(lab: Lab) -> Callable[[], float]:
    """The CPU seconds the lab's server thread has used (a clock that other threads' work does not move)."""
    [thread] = [t for t in threading.enumerate() if t.name == f"a2a-lab {lab.url}"]
    assert thread.ident is not None
    clock = time.pthread_getcpuclockid(thread.ident)
    return lambda: time.clock_gettime(clock)


def rpc_error(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json()["error"])


#: The `limits:` keys of this issue's budgets.
BUDGETS = [
    "journal_bytes",
    "task_bytes",
    "push_configs_per_task",
    "push_config_bytes",
    "parts_per_message",
    "card_cache_bytes",
]


def test_the_defaults_are_the_documented_ones() -> None:
    limits = Limits()
    assert (limits.journal_bytes, limits.task_bytes, limits.card_cache_bytes) == (64 * MIB, 64 * MIB, 16 * MIB)
    assert (limits.push_configs_per_task, limits.push_config_bytes, limits.parts_per_message) == (100, MIB, 1000)
    doc = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "scenario-format.md").read_text(
        encoding="utf-8"
    )
    guide = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "write-a-quirk.md").read_text(encoding="utf-8")
    for key in BUDGETS:
        [row] = [line for line in doc.splitlines() if line.startswith(f"| `{key}` |")]
        assert f"default {getattr(limits, key)}" in row, row
        assert f"{key}: {getattr(limits, key)}" in guide, f"write-a-quirk.md's limits line gives {key}'s default"


@pytest.mark.parametrize("key", BUDGETS)
@pytest.mark.parametrize("value", ["0", "lots", "1.5"])
def test_a_budget_is_a_whole_number_of_at_least_one(lab: MakeLab, key: str, value: str) -> None:
    with pytest.raises(ScenarioError, match=rf"limits\.{key}"):
        lab(f"limits: {{{key}: {value}}}\n")


# ==================================================================================== the task store


def test_big_messages_keep_the_task_store_within_task_bytes(lab: MakeLab) -> None:
    """60 SendMessages of 250 KB (15 MB): unbounded, the tasks keep ~30 MB (each its message and the echo of it)."""
    s = lab("limits: {task_bytes: 3000000, journal_bytes: 1000000}\n")
    engine = s.app.state.engine
    ids = []
    with traced() as held:
        for i in range(60):
            answer = s.rpc("SendMessage", {"message": message("x" * 250_000, message_id=f"m{i}")})
            ids.append(answer.json()["result"]["task"]["id"])
        retained, _ = held()
    assert engine.bytes <= 3_000_000 and engine.evicted >= 54, (engine.bytes, engine.evicted)
    assert retained < 6 * MB, f"{retained / MB:.1f} MB held (unbounded: ~30 MB)"
    assert rpc_error(s.rpc("GetTask", {"id": ids[0]}))["code"] == -32001, "the oldest is forgotten"
    assert s.rpc("GetTask", {"id": ids[-1]}).json()["result"]["id"] == ids[-1], "the newest is kept"


def test_the_task_estimate_follows_what_a_task_keeps(lab: MakeLab) -> None:
    """A task is counted as its request body, its text once per `{text}` echo, and TASK_OVERHEAD: within a
    factor of what tracemalloc sees it keep."""
    s = lab("task: {artifacts: [{name: a, parts: [{text: '{text} and {text}'}]}]}\n")
    s.send("warm up")
    before = s.app.state.engine.bytes
    with traced() as held:
        for i in range(10):
            s.rpc("SendMessage", {"message": message("y" * 100_000, message_id=f"m{i}")})
        s.app.state.journal.reset()  # what the journal keeps is its own budget's
        retained, _ = held()
    counted = s.app.state.engine.bytes - before
    assert counted >= 10 * (TASK_OVERHEAD + 300_000), "the message once, the two echoes"
    assert 0.6 < retained / counted < 1.5, (retained, counted)


@pytest.mark.parametrize("binding", ["jsonrpc", "rest"])
def test_a_message_too_large_for_the_task_store_is_refused(lab: MakeLab, binding: str) -> None:
    s = lab("limits: {task_bytes: 50000}\n")
    big = {"message": message("z" * 30_000)}  # kept twice (the message, its echo): ~62 KB
    if binding == "jsonrpc":
        err = rpc_error(s.rpc("SendMessage", big))
        assert err["code"] == -32602, err
        text = err["message"]
    else:
        r = s.http.post(f"{REST_PATH}/message:send", json=big, headers=V1)
        assert r.status_code == 400 and r.json()["error"]["status"] == "INVALID_ARGUMENT", r.text
        text = r.json()["error"]["message"]
    assert "limits.task_bytes is 50,000 bytes" in text and "raise it in the scenario's `limits:`" in text
    assert s.app.state.engine.tasks == {}, "refused before a task exists"
    assert s.send("small").json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_follow_up_that_would_overflow_its_task_is_refused(lab: MakeLab) -> None:
    s = lab("limits: {task_bytes: 60000}\ntask: {steps: [INPUT_REQUIRED, INPUT_REQUIRED, INPUT_REQUIRED, COMPLETED]}\n")
    task = s.send("start").json()["result"]["task"]
    follow = message("w" * 40_000, message_id="m-2", taskId=task["id"], contextId=task["contextId"])
    assert s.rpc("SendMessage", {"message": follow}).json()["result"]["task"]["id"] == task["id"]
    again = {**follow, "messageId": "m-3"}
    err = rpc_error(s.rpc("SendMessage", {"message": again}))
    assert err["code"] == -32602 and f"task {task['id']} would keep" in err["message"], err
    assert "limits.task_bytes" in err["message"]


# ==================================================================================== the journal


def test_big_requests_keep_the_journal_within_journal_bytes(lab: MakeLab) -> None:
    """200 requests with 12 KB of headers and 64 KB bodies (15 MB): unbounded, the journal keeps all of it."""
    s = lab("limits: {journal_bytes: 2000000}\n")
    headers = {"X-Big": "h" * 12_000}
    with traced() as held:
        for _ in range(200):
            assert s.http.post("/nowhere", content=b"b" * BODY_KEEP_BYTES, headers=headers).status_code == 404
        retained, _ = held()
    journal = s.app.state.journal
    assert journal.bytes <= 2_000_000 and journal.dropped >= 170, (journal.bytes, journal.dropped)
    assert retained < 4 * MB, f"{retained / MB:.1f} MB held (unbounded: ~16 MB)"
    exported = s.http.get("/_lab/journal", headers=s.admin).json()
    assert exported["dropped"] == journal.dropped and exported["cap_bytes"] == 2_000_000
    assert exported["bytes"] <= 2_000_000 and len(exported["entries"]) == len(journal.entries)
    assert exported["entries"][-1]["seq"] == 200, "the newest are the ones kept"


def test_the_journal_estimate_follows_what_entries_keep() -> None:
    journal = Journal()
    with traced() as held:
        for _ in range(200):  # each its own bytes, as requests are
            journal.open("POST", "/a", "", [(b"x-h", b"v" * 5_000)], b"q" * 30_000, EntryKind.JSONRPC)
        retained, _ = held()
    assert 0.7 < retained / journal.bytes < 1.3, (retained, journal.bytes)


def test_an_answer_and_stream_events_count_against_the_journal() -> None:
    journal = Journal(cap_bytes=100_000)
    first = journal.open("POST", "/1", "", [], b"", EntryKind.JSONRPC)
    second = journal.open("POST", "/2", "", [], b"", EntryKind.JSONRPC)
    second.grow(60_000)  # a streamed answer, say
    assert journal.bytes == first.size + second.size and journal.dropped == 0
    second.grow(40_000)
    assert [e.seq for e in journal.entries] == [2] and journal.dropped == 1, "the oldest went"
    assert journal.bytes == second.size, "the newest stays, whatever its size"
    first.grow(1_000_000)
    assert journal.bytes == second.size, "a dropped entry no longer counts"


def test_a_streamed_answer_is_counted_as_it_is_sent(lab: MakeLab) -> None:
    s = lab()
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message("s" * 50_000)}}
    r = s.http.post("/rpc", json=body, headers=V1)
    assert r.status_code == 200 and "s" * 50_000 in r.text
    [entry] = s.app.state.journal.entries
    sent = sum(len(e.text or "") for e in entry.events or [])
    assert sent > 50_000 and entry.size >= sent + len(entry.raw_body), (entry.size, sent)


# ==================================================================================== push configs


def _config(task_id: str, i: int, token_bytes: int) -> dict[str, Any]:
    return {"taskId": task_id, "id": f"c{i}", "url": f"http://127.0.0.1:9/{i}", "token": "t" * token_bytes}


def test_push_configs_of_one_task_stay_within_push_config_bytes(lab: MakeLab) -> None:
    """100 configs of 100 KB on one task (10 MB): ten fit the default 1 MiB, the rest are refused; listing them is
    one answer of ~1 MB, quick (the finding: 800 MB kept, a 300 MB list blocking the server for 3 s)."""
    s = lab("limits: {journal_bytes: 500000}\n")
    task = s.send("hook me").json()["result"]["task"]["id"]
    codes = []
    with traced() as held:
        for i in range(100):
            answer = s.rpc("CreateTaskPushNotificationConfig", _config(task, i, 100_000)).json()
            codes.append(answer.get("error", {}).get("code", 0))
        retained, _ = held()
    assert codes[:10] == [0] * 10 and set(codes[10:]) == {-32004}, codes
    assert retained < 3 * MB, f"{retained / MB:.1f} MB held (unbounded: ~10 MB of configs)"
    refused = rpc_error(s.rpc("CreateTaskPushNotificationConfig", _config(task, 10, 100_000)))
    assert "limits.push_config_bytes is 1,048,576 bytes per task" in refused["message"], refused
    assert refused["data"][0]["reason"] == "UNSUPPORTED_OPERATION" and refused["data"][0]["metadata"]["taskId"] == task
    began = time.monotonic()
    listed = s.rpc("ListTaskPushNotificationConfigs", {"taskId": task})
    assert time.monotonic() - began < 1.0
    assert len(listed.json()["result"]["configs"]) == 10 and len(listed.content) < 1.1 * MB
    # Deleting one makes room for another.
    assert s.rpc("DeleteTaskPushNotificationConfig", {"taskId": task, "id": "c0"}).status_code == 200
    assert "result" in s.rpc("CreateTaskPushNotificationConfig", _config(task, 99, 100_000)).json()


def test_push_configs_per_task_is_a_count(lab: MakeLab) -> None:
    s = lab("limits: {push_configs_per_task: 3}\n")
    task = s.send("hook me").json()["result"]["task"]["id"]
    for i in range(3):
        assert "result" in s.rpc("CreateTaskPushNotificationConfig", _config(task, i, 10)).json()
    assert "result" in s.rpc("CreateTaskPushNotificationConfig", _config(task, 1, 20)).json(), "a replacement fits"
    err = rpc_error(s.rpc("CreateTaskPushNotificationConfig", _config(task, 3, 10)))
    assert err["code"] == -32004 and "limits.push_configs_per_task is 3 per task" in err["message"], err
    other = s.send("another").json()["result"]["task"]["id"]
    assert "result" in s.rpc("CreateTaskPushNotificationConfig", _config(other, 0, 10)).json(), "per task"


def test_push_config_refusals_over_http_json_are_google_rpc_statuses(lab: MakeLab) -> None:
    s = lab("limits: {push_configs_per_task: 1, push_config_bytes: 5000}\n")
    task = s.send("hook me").json()["result"]["task"]["id"]
    path = f"{REST_PATH}/tasks/{task}/pushNotificationConfigs"
    created = s.http.post(path, json={"url": "http://127.0.0.1:9/a", "id": "a"}, headers=V1)
    assert created.status_code == 200, created.text
    full = s.http.post(path, json={"url": "http://127.0.0.1:9/b", "id": "b"}, headers=V1)
    error = full.json()["error"]
    assert full.status_code == 400 and error["status"] == "FAILED_PRECONDITION", full.text
    assert "limits.push_configs_per_task" in error["message"]
    assert error["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
    huge = s.http.post(path, json={"url": "http://127.0.0.1:9/c", "token": "t" * 6000}, headers=V1)
    assert huge.status_code == 400 and huge.json()["error"]["status"] == "INVALID_ARGUMENT", huge.text
    assert "limits.push_config_bytes is 5,000 bytes" in huge.json()["error"]["message"]


def test_an_inline_push_config_too_large_is_refused_before_the_task_exists(lab: MakeLab) -> None:
    s = lab("limits: {push_config_bytes: 5000}\n")
    config = {"url": "http://127.0.0.1:9/a", "token": "t" * 6000}
    params = {"message": message("hi"), "configuration": {"taskPushNotificationConfig": config}}
    err = rpc_error(s.rpc("SendMessage", params))
    assert err["code"] == -32602 and "limits.push_config_bytes" in err["message"], err
    assert s.app.state.engine.tasks == {}


# ==================================================================================== parts per message

SIXTY_THOUSAND_PARTS = b",".join([b'{"text":""}'] * 60_000)


def _parts_body(parts: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
        b'{"messageId":"m","role":"ROLE_USER","parts":[' + parts + b"]}}}"
    )


def test_sixty_thousand_parts_are_refused_cheaply(lab: MakeLab) -> None:
    """The finding's body (60k empty parts, 720 KB) took ~0.3 s of server CPU here (0.8 s in the finding) and each
    such task kept ~12 MB; refused before the parts are read, it takes a third of that and keeps nothing."""
    s = lab()
    body, headers = _parts_body(SIXTY_THOUSAND_PARTS), {**V1, "content-type": "application/json"}
    with traced() as held:
        for _ in range(3):
            err = rpc_error(s.http.post("/rpc", content=body, headers=headers))
            assert err["code"] == -32602 and "params.message.parts: 60,000 parts" in err["message"], err
            assert "limits.parts_per_message" in err["message"]
        retained, _ = held()
    assert retained < 1 * MB, f"{retained / MB:.1f} MB held (unbounded: ~36 MB)"
    assert s.app.state.engine.tasks == {}
    cpu = server_cpu(s)
    spent = []
    for _ in range(6):  # without tracemalloc, which slows every allocation; the least of six, as load varies
        began = cpu()
        assert rpc_error(s.http.post("/rpc", content=body, headers=headers))["code"] == -32602
        spent.append(cpu() - began)
    assert min(spent) < 0.25, f"server CPU {min(spent):.3f} s a message (unbounded: ~0.3 s here)"


@pytest.mark.parametrize("form", ["HTTP+JSON 1.0", "JSON-RPC 0.3"])
def test_parts_per_message_in_other_forms(lab: MakeLab, form: str) -> None:
    s = lab("limits: {parts_per_message: 2}\n")
    if form == "HTTP+JSON 1.0":
        three = message("a", parts=[{"text": "a"}] * 3)
        r = s.http.post(f"{REST_PATH}/message:send", json={"message": three}, headers=V1)
        assert r.status_code == 400 and r.json()["error"]["status"] == "INVALID_ARGUMENT", r.text
        text = r.json()["error"]["message"]
    else:
        three = message03("a", parts=[{"kind": "text", "text": "a"}] * 3)
        text = rpc_error(s.rpc("message/send", {"message": three}, version="0.3"))["message"]
    assert "message.parts: 3 parts: more than the 2 accepted" in text and "limits.parts_per_message" in text
    exactly = s.rpc("SendMessage", {"message": message("ok", parts=[{"text": "a"}, {"text": "b"}])}).json()
    assert "result" in exactly, "the limit itself is accepted"


# ==================================================================================== cards


def test_one_huge_card_per_host_stays_within_card_cache_bytes(catalogue: Catalogue) -> None:
    """The huge-card scenario (8 MB) asked for under 12 Host names: unbounded, 12 cards (96 MB) were kept; within
    the default 16 MiB, the two most recent."""
    app = ScenarioApp(catalogue.get("discovery/huge-card"))
    with BackgroundServer(app) as server, client(server.url) as http, traced() as held:
        for i in range(12):
            r = http.get("/.well-known/agent-card.json", headers={"Host": f"host-{i}.test:80"})
            assert r.status_code == 200 and len(r.content) == 8_000_000
            assert f"http://host-{i}.test:80/agents/huge/rpc" in r.text[:2000]
            del r  # 16 MB of this test's own (the bytes and their text)
        retained, _ = held()
    assert app.state.cached_card_bytes == 16_000_000, "two 8 MB cards fit 16 MiB"
    assert retained < 20 * MB, f"{retained / MB:.1f} MB held (unbounded: ~96 MB)"


def _padded(tmp_path: Path, cache_bytes: int) -> Lab:
    """A lab whose card is padded to 100 000 bytes, with `card_cache_bytes` as given."""
    text = scenario_text(f"limits: {{card_cache_bytes: {cache_bytes}}}\n").replace(
        "card:\n", "card:\n  pad_to: 100000\n", 1
    )
    path = write_scenario(tmp_path, text, f"padded-{cache_bytes}.yaml")
    return Lab(load_file(path, f"test/{path.stem}"))


def test_the_card_cache_keeps_the_most_recent_within_its_bytes(tmp_path: Path) -> None:
    s = _padded(tmp_path, 250_000)
    try:
        for host in ("a.test", "b.test", "c.test", "a.test"):
            served = s.http.get("/.well-known/agent-card.json", headers={"Host": host})
            assert len(served.content) == 100_000 and f"http://{host}/rpc" in served.text
        assert s.app.state.cached_cards == ["http://c.test", "http://a.test"], "b was served least recently"
        assert s.app.state.cached_card_bytes == 200_000
    finally:
        s.close()


def test_a_card_larger_than_the_cache_is_rendered_for_every_request(tmp_path: Path) -> None:
    s = _padded(tmp_path, 50_000)
    try:
        for host in ("a.test", "a.test"):
            served = s.http.get("/.well-known/agent-card.json", headers={"Host": host})
            assert len(served.content) == 100_000 and f"http://{host}/rpc" in served.text
        assert s.app.state.cached_cards == [] and s.app.state.cached_card_bytes == 0
    finally:
        s.close()


# ==================================================================================== the journal export


def _filled(lab: MakeLab, entries: int) -> Lab:
    """A lab whose journal holds `entries` requests of 65 KB each (one body object shared: the test's own memory
    stays small), exported as ~75 KB of JSON each."""
    s = lab("limits: {journal_bytes: 200000000}\n")
    body = json.dumps({"text": "y" * 65_000}).encode()
    headers = [(b"x-big", b"h" * 8_000)]
    for _ in range(entries):
        s.app.state.journal.open("POST", "/x", "", headers, body, EntryKind.UNMATCHED)
    return s


def test_exporting_a_big_journal_neither_copies_it_nor_holds_up_other_requests(lab: MakeLab) -> None:
    """900 entries (66 MB of JSON). Built in memory, the export peaked at ~400 MB and a card request waited ~2.9 s
    for it; streamed, the card comes at once and the export's memory is a few of its entries."""
    s = _filled(lab, 900)
    with client(s.url) as other, traced() as held:
        began = time.monotonic()
        with s.http.stream("GET", "/_lab/journal", headers=s.admin) as export:
            assert export.status_code == 200 and export.headers[NEXT_HEADER] == ""
            chunks = export.iter_bytes()
            first = next(chunks)
            assert first.startswith(b'{"dropped":0,"cap":10000,"cap_bytes":200000000,"bytes":')
            card_began = time.monotonic()
            assert other.get("/.well-known/agent-card.json").status_code == 200
            card_wait = time.monotonic() - card_began
            size = len(first) + sum(len(chunk) for chunk in chunks)
        elapsed = time.monotonic() - began
        _, peak = held()
    assert card_wait < 1.0, f"the card waited {card_wait:.2f} s behind the export (built in memory: ~2.9 s)"
    assert size > 60 * MB and peak < 16 * MB, f"{size / MB:.0f} MB exported, peak {peak / MB:.1f} MB (was ~400 MB)"
    assert elapsed < 30, elapsed


def test_the_export_pages_with_after_and_limit(lab: MakeLab) -> None:
    s = lab("limits: {journal_entries: 5}\n")
    for i in range(7):
        s.http.get("/.well-known/agent-card.json", params={"n": i})
    full = s.http.get("/_lab/journal", headers=s.admin).json()
    assert full["dropped"] == 2 and full["next"] is None and [e["seq"] for e in full["entries"]] == [3, 4, 5, 6, 7]
    page = s.http.get("/_lab/journal", params={"limit": 2}, headers=s.admin)
    assert [e["seq"] for e in page.json()["entries"]] == [3, 4] and page.json()["next"] == 4
    assert page.headers[NEXT_HEADER] == "4"
    page = s.http.get("/_lab/journal", params={"after": 4, "limit": 2}, headers=s.admin).json()
    assert [e["seq"] for e in page["entries"]] == [5, 6] and page["next"] == 6
    last = s.http.get("/_lab/journal", params={"after": 6, "limit": 2}, headers=s.admin).json()
    assert [e["seq"] for e in last["entries"]] == [7] and last["next"] is None
    assert s.http.get("/_lab/journal", params={"since": 6}, headers=s.admin).json()["entries"][0]["seq"] == 7
    assert s.http.get("/_lab/journal", params={"after": 7}, headers=s.admin).json()["entries"] == []
    lines = s.http.get("/_lab/journal.jsonl", params={"after": 3, "limit": 3}, headers=s.admin)
    assert lines.headers["content-type"] == "application/x-ndjson" and lines.headers[NEXT_HEADER] == "6"
    assert [json.loads(x)["seq"] for x in lines.text.splitlines()] == [4, 5, 6] and lines.text.endswith("\n")
    assert lines.headers["x-a2a-lab-journal-dropped"] == "2"
    for bad in ({"after": "-1"}, {"limit": "0"}, {"limit": "many"}):
        refused = s.http.get("/_lab/journal", params=bad, headers=s.admin)
        assert refused.status_code == 400 and "must be a whole number" in refused.json()["error"], bad


def test_an_empty_journal_exports_as_before(lab: MakeLab) -> None:
    s = lab()
    assert s.http.get("/_lab/journal", headers=s.admin).json() == {
        "dropped": 0,
        "cap": 10_000,
        "cap_bytes": 64 * MIB,
        "bytes": 0,
        "next": None,
        "entries": [],
    }
    assert s.http.get("/_lab/journal.jsonl", headers=s.admin).content == b""


def test_a_shared_server_run_pages_its_journal_too(catalogue: Catalogue) -> None:
    app = CatalogueApp([catalogue.get("spec/conformant")])
    with BackgroundServer(app) as server, client(server.url) as http:
        started = http.post("/_lab/runs", json={}, headers=json_credentials(app.guard.token)).json()
        base = f"/runs/{started['run']}/spec/conformant"
        for i in range(3):
            assert http.get(f"{base}/.well-known/agent-card.json", params={"n": i}).status_code == 200
        run = credentials(started["token"])
        url = f"/_lab/runs/{started['run']}/journal"
        page = http.get(url, params={"scenario": "spec/conformant", "limit": 2}, headers=run).json()
        assert [e["query"] for e in page["entries"]] == ["n=0", "n=1"] and page["next"] == 2
        rest = http.get(url, params={"scenario": "spec/conformant", "after": 2}, headers=run).json()
        assert [e["query"] for e in rest["entries"]] == ["n=2"] and rest["next"] is None
