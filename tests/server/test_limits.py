"""Limits with clear answers, over real HTTP on loopback: a body that never finishes arriving (408), request heads that
are too large (431) or never finish (408, or the connection closed), notifications past the per-task cap (journaled),
and the journal cap seen through the admin API. After each, the server answers the next request."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from a2a_lab.contract.lab_api import json_credentials
from a2a_lab.contract.scenario import Limits
from a2a_lab.server import http as lab_http
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

from .helpers import REST_PATH, RPC_PATH, Lab, Receiver, client, message, sse_events

MakeLab = Callable[..., Lab]
#: Only a safety net for a broken server: every wait below ends on the server's own answer or close.
SOCKET_TIMEOUT_S = 10.0
SHORT = 0.5


# ==================================================================================== raw HTTP


def connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=SOCKET_TIMEOUT_S)


def read_to_close(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset after its answer counts as a close)."""
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def parse(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def post_head(path: str, length: int, content_type: str = "application/json") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: lab\r\nA2A-Version: 1.0\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def trickle(sock: socket.socket, stop: threading.Event) -> threading.Thread:
    """The slowloris: one byte of body every 50 ms, until the server hangs up (or the test ends)."""

    def run() -> None:
        while not stop.is_set():
            try:
                sock.sendall(b" ")
            except OSError:
                return
            stop.wait(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


# ==================================================================================== a slow body: 408


def test_the_body_deadline_defaults_to_ten_seconds(lab: MakeLab) -> None:
    assert Limits().body_seconds == lab_http.BODY_SECONDS == 10.0
    assert lab().scenario.limits.body_seconds == 10.0


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "unmatched"])
@pytest.mark.parametrize("style", ["stops", "trickles"])
def test_a_body_that_does_not_arrive_in_time_gets_408_and_the_server_goes_on(
    lab: MakeLab, binding: str, style: str
) -> None:
    s = lab(f"limits: {{body_seconds: {SHORT}}}\n")
    path = {"jsonrpc": RPC_PATH, "rest": f"{REST_PATH}/message:send", "unmatched": "/nowhere"}[binding]
    stop = threading.Event()
    with connect(s.url) as sock:
        began = time.monotonic()
        sock.sendall(post_head(path, 100_000) + b'{"jsonrpc"')
        sender = trickle(sock, stop) if style == "trickles" else None
        raw = read_to_close(sock)  # the server answers, then closes: nothing of ours needs to time out
        elapsed = time.monotonic() - began
        stop.set()
        if sender is not None:
            sender.join(SOCKET_TIMEOUT_S)
    status, headers, body = parse(raw)
    assert status == 408 and headers["connection"] == "close", raw[:300]
    assert SHORT <= elapsed < SHORT + 3.0, elapsed
    answer = json.loads(body)
    if binding == "jsonrpc":
        assert answer["id"] is None and answer["error"]["code"] == -32600
        text = answer["error"]["message"]
    else:
        assert answer["error"]["code"] == 408 and answer["error"]["status"] == "DEADLINE_EXCEEDED"
        text = answer["error"]["message"]
    assert "did not arrive within 0.5 s" in text and "limits.body_seconds" in text
    [entry] = s.journal
    assert entry["path"] == path and entry["response"]["status"] == 408
    assert entry["body_timeout"]["seconds"] == SHORT and entry["body_timeout"]["received"] >= 10
    assert entry["body"]["text"].startswith('{"jsonrpc"')  # what did arrive is kept
    # The next request is served as usual.
    assert s.send().json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message()}, headers={"A2A-Version": "1.0"})
    assert rest.status_code == 200 and rest.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_body_within_the_deadline_is_served(lab: MakeLab) -> None:
    """The deadline is for the whole body, not a cap on slow-but-finished requests that beat it."""
    s = lab("limits: {body_seconds: 5}\n")
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}}).encode()
    with connect(s.url) as sock:
        sock.sendall(post_head(RPC_PATH, len(body)) + body[:20])
        sock.sendall(body[20:])
        sock.shutdown(socket.SHUT_WR)
        status, _, answer = parse(read_to_close(sock))
    assert status == 200 and json.loads(answer)["result"]["task"]


def test_body_seconds_is_validated(lab: MakeLab) -> None:
    from a2a_lab.contract.loader import ScenarioError

    with pytest.raises(ScenarioError, match=r"limits\.body_seconds"):
        lab("limits: {body_seconds: 0}\n")


# ==================================================================================== request heads


@pytest.mark.parametrize("shape", ["one-huge-header", "many-headers"])
def test_a_huge_request_head_gets_431_and_the_server_goes_on(lab: MakeLab, shape: str) -> None:
    s = lab()
    extra = (
        b"X-Big: " + b"a" * (1 << 20) + b"\r\n"
        if shape == "one-huge-header"
        else b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 64) for i in range(5000))
    )
    with connect(s.url) as sock:
        try:
            sock.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: lab\r\n" + extra + b"\r\n")
        except OSError:
            pass  # the server may hang up before it has read everything; its answer is already on its way
        status, headers, body = parse(read_to_close(sock))
    assert status == 431 and headers["connection"] == "close"
    assert body == b"The request line and headers exceed 16384 bytes."
    assert s.journal == []  # refused before any route saw it
    assert s.http.get("/.well-known/agent-card.json").status_code == 200


def test_a_malformed_head_still_gets_uvicorns_400(lab: MakeLab) -> None:
    """Only a head that is too large is a 431; a broken one is h11's 400, as before."""
    s = lab()
    for garbage in (b"NOT HTTP AT ALL\r\n\r\n", b"GET / HTTP/1.1\r\nBad Header\r\n\r\n"):
        with connect(s.url) as sock:
            sock.sendall(garbage)
            status, _, body = parse(read_to_close(sock))
        assert status == 400 and body == b"Invalid HTTP request received."
    assert s.http.get("/.well-known/agent-card.json").status_code == 200


SLOW_ANSWER = """
    behaviour:
      SendMessage:
        - when: {text_contains: slow}
          reply: {delay_ms: 1000}
"""


@pytest.fixture
def quick_heads(lab: MakeLab) -> Iterator[BackgroundServer]:
    """A server whose connections must send a whole request head within 0.5 s."""
    app = ScenarioApp(lab(SLOW_ANSWER).scenario)
    with BackgroundServer(app, head_seconds=SHORT) as server:
        yield server


@pytest.mark.parametrize(
    "sent, answered",
    [(b"", b""), (b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: lab\r\n", b"HTTP/1.1 408 ")],
    ids=["silent", "half-a-head"],
)
def test_a_request_head_that_does_not_arrive_in_time_closes_the_connection(
    quick_heads: BackgroundServer, sent: bytes, answered: bytes
) -> None:
    began = time.monotonic()  # before connecting: the server's clock starts when it accepts the connection
    with connect(quick_heads.url) as sock:
        sock.sendall(sent)
        raw = read_to_close(sock)
        elapsed = time.monotonic() - began
    if answered:
        assert raw.startswith(answered) and raw.endswith(b"did not arrive within 0.5 s."), raw
    else:
        assert raw == b""  # a connection that never spoke is simply closed
    assert SHORT <= elapsed < SHORT + 3.0, elapsed
    with client(quick_heads.url) as http:
        assert http.get("/.well-known/agent-card.json").status_code == 200


def test_the_head_deadline_leaves_answers_that_take_longer_alone(quick_heads: BackgroundServer) -> None:
    """The deadline covers the request head only: an answer that takes 1 s (twice the deadline) still comes."""
    with client(quick_heads.url) as http:
        began = time.monotonic()
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("slow")}}
        r = http.post(RPC_PATH, json=body, headers={"A2A-Version": "1.0"})
        assert r.status_code == 200 and r.json()["result"]["task"] and time.monotonic() - began >= 1.0
        assert http.get("/.well-known/agent-card.json").status_code == 200  # and the connection is reused


# ==================================================================================== push deliveries per task


def _settled(task_ids: set[str], deliveries: int) -> Callable[[list[dict[str, Any]]], bool]:
    """The journal shows `deliveries` answered push deliveries for these tasks."""
    return lambda entries: (
        sum(1 for e in entries if e["kind"] == "push" and "response" in e and e["push"]["task_id"] in task_ids)
        >= deliveries
    )


def test_push_deliveries_per_task_are_capped_and_the_rest_is_counted_in_the_journal(
    lab: MakeLab, receiver: Callable[..., Receiver]
) -> None:
    hook = receiver()
    s = lab("limits: {push_deliveries_per_task: 2}\n")
    tasks = []
    for i in range(2):  # the cap is per task: each gets its own two
        config = {"url": hook.url("hook"), "authentication": {"scheme": "Bearer", "credentials": "cap-secret"}}
        answer = s.rpc(
            "SendMessage",
            {
                "message": message(f"task {i}", message_id=f"m-{i}"),
                "configuration": {"taskPushNotificationConfig": config},
            },
        ).json()
        tasks.append(answer["result"]["task"]["id"])
    assert s.app.state.journal.wait_for(_settled(set(tasks), 4))
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert len(pushes) == 4 and all(e["response"]["status"] == 204 for e in pushes)
    assert len(hook.paths()) == 4, "the webhook was called exactly as often as the journal says"
    # Each task had three events (WORKING, the artifact, COMPLETED): the third was dropped, and the journal says so.
    capped = [e for e in s.journal if e["kind"] == "push-limit"]
    assert [e["push"] for e in capped] == [{"task_id": t, "limit": 2, "dropped": 1} for t in tasks]
    assert all("limits.push_deliveries_per_task (2) reached" in e["response"]["refused"] for e in capped)
    # Visible to whoever reads the journal over HTTP (the harness, `a2a-lab run --server`).
    remote = s.http.get("/_lab/journal", headers=s.admin).json()["entries"]
    assert [e["push"]["dropped"] for e in remote if e["kind"] == "push-limit"] == [1, 1]
    assert "cap-secret" not in json.dumps(remote)


# ==================================================================================== journal cap


def test_the_journal_cap_drops_the_oldest_and_says_how_many(lab: MakeLab) -> None:
    s = lab("limits: {journal_entries: 3}\n")
    for i in range(5):
        assert s.http.get("/.well-known/agent-card.json", params={"n": i}).status_code == 200
    snapshot = s.http.get("/_lab/journal", headers=s.admin).json()
    assert snapshot["cap"] == 3 and snapshot["dropped"] == 2
    assert [e["query"] for e in snapshot["entries"]] == ["n=2", "n=3", "n=4"]


# ==================================================================================== the shared server's admin API


def test_the_shared_server_refuses_an_oversized_admin_body_with_413(catalogue: Any) -> None:
    from a2a_lab.server.shared import CatalogueApp

    app = CatalogueApp([catalogue.get("spec/conformant")])
    admin = json_credentials(app.guard.token)
    with BackgroundServer(app) as server, client(server.url) as http:
        r = http.post("/_lab/runs", content=b"{" + b" " * (64 * 1024) + b"}", headers=admin)
        assert r.status_code == 413 and "64 KiB" in r.json()["error"]
        assert http.post("/_lab/runs", json={"seed": 3}, headers=admin).json()["seed"] == 3


# ==================================================================================== idle streams

#: limits.stream_idle_seconds in the idle-stream test: far longer than opening 33 streams on loopback takes.
IDLE_S = 2.0


def test_idle_subscribers_hold_stream_slots_only_until_the_idle_timeout(lab: MakeLab) -> None:
    """Issue 13: 32 idle SubscribeToTask connections held every stream slot of a scenario for as long as their sockets
    stayed open (no idle timeout; pings every 600 s). Now a stream with no event for limits.stream_idle_seconds is
    closed, with a comment saying why, and journaled as such: the 33rd stream is refused only until then."""
    s = lab(f"task: {{advance: never}}\nlimits: {{stream_idle_seconds: {IDLE_S}}}\n")
    slots = Limits().streams
    assert slots == 32
    sent = s.rpc("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}}).json()
    task_id = sent["result"]["task"]["id"]
    subscribe = {"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask", "params": {"id": task_id}}
    with contextlib.ExitStack() as held:
        idle = []
        for _ in range(slots):
            stream = held.enter_context(s.http.stream("POST", RPC_PATH, json=subscribe, headers={"A2A-Version": "1.0"}))
            lines = stream.iter_lines()  # kept: a dropped line iterator closes the stream
            assert next(lines).startswith("data:"), "the task snapshot: the subscription is open"
            idle.append(lines)
        refused = s.rpc("SubscribeToTask", {"id": task_id}).json()["error"]
        began = time.monotonic()
        assert refused["code"] == -32004 and f"limit {slots}" in refused["message"], "every slot is held"
        endings = [[line for line in lines if line][-1] for lines in idle]  # each ends by itself
        freed_after = time.monotonic() - began
    assert all(f"after {IDLE_S:g} s without an event (limits.stream_idle_seconds)" in e for e in endings), endings[0]
    assert freed_after < IDLE_S + 1.0, f"the idle streams closed {freed_after:.2f} s after the refusal"
    served = sse_events(s.rpc("SubscribeToTask", {"id": task_id}).text)  # a new stream, which idles out in turn
    assert served[0].data["result"]["task"]["id"] == task_id
    closed = [e["response"].get("closed") for e in s.journal if e.get("operation") == "SubscribeToTask"]
    assert closed == ["idle"] * slots + [None, "idle"], "journaled: 32 idle, 1 refused (no stream), 1 idle"


@pytest.mark.parametrize("ping_s", [0.2, 5.0], ids=["pings-keep-it-alive", "without-pings-it-times-out"])
def test_pings_keep_a_client_with_a_short_read_timeout_alive_between_slow_events(lab: MakeLab, ping_s: float) -> None:
    """A task that moves every second, a client that gives up after 0.5 s without a byte: keep-alive comments every
    limits.stream_ping_seconds carry it to the end (and without them it gives up: the pings are what it needed)."""
    s = lab(f"task: {{advance: {{after_ms: 1000}}}}\nlimits: {{stream_ping_seconds: {ping_s}}}\n", timeout=0.5)
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message()}}
    lines: list[str] = []
    try:
        with s.http.stream("POST", RPC_PATH, json=body, headers={"A2A-Version": "1.0"}) as stream:
            lines.extend(stream.iter_lines())
    except httpx.ReadTimeout:
        lines.append("(read timeout)")
    events = [json.loads(line[5:])["result"] for line in lines if line.startswith("data:")]
    if ping_s < 0.5:
        assert lines[-1] != "(read timeout)" and sum(line.startswith(": ping") for line in lines) >= 5, lines
        assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    else:
        assert lines[-1] == "(read timeout)" and len(events) == 1, "the snapshot, then nothing for a second"
