"""`a2a-lab acts run` bounded like the rest (issue 45, items 3, 8, 9 and 17): hostile ACTS files and a hostile server
under test of the tests' own, each attack at a size that is memory-safe here and that today's bounds stop early.

- templating: nested `{{var}}` references refused at load past their bounds, and held at run time (captures, the
  environment) by characters and references; a variable that refers to itself is called a cycle;
- waits: `repeat` and `delay_ms` capped at load, a per-test and a per-run deadline, `matches` under a time bound;
- streams and bodies: an event that never ends, events with no data that would outlast `timeout_ms`, a body that
  trickles;
- secrets: `{{env.NAME}}` sent as a credential header shows as `<redacted>` in every report.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.harness.acts import assertions as A
from a2a_lab.harness.acts import document, regex_guard
from a2a_lab.harness.cli import main

from .test_acts import NOT_FOUND, run, send, suite, write

# ------------------------------------------------------------------------------------------------ templating


def nested(levels: int, repeats: int) -> dict[str, str]:
    """v0 = "x", v1 = "{{v0}}" x repeats, ... : 'repeats ** levels' characters once expanded."""
    out = {"v0": "x"}
    for i in range(1, levels + 1):
        out[f"v{i}"] = f"{{{{v{i - 1}}}}}" * repeats
    return out


def test_nested_variables_past_the_bounds_are_refused_when_the_file_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4 levels of 200: 1.6e9 characters once expanded (the reported 4.9 KB file that reached 3.9 GB)
    path = write(tmp_path, suite(NOT_FOUND, variables=nested(4, 200)))
    assert path.stat().st_size < 8000
    with pytest.raises(document.ActsError, match=r"variables\.v3: expands to \d+ characters"):
        document.load(path)
    assert main(["acts", "run", str(path), "--server", "http://127.0.0.1:9"]) == 2
    assert "variables.v3" in capsys.readouterr().err
    # many references that expand to nothing are bounded too (the 894-byte file that took 45 s of CPU)
    empty = {"v0": "", **{f"v{i}": f"{{{{v{i - 1}}}}}" * 12 for i in range(1, 8)}}
    with pytest.raises(document.ActsError, match="references"):
        document.load(write(tmp_path, suite(NOT_FOUND, variables=empty)))
    deep = {"v0": "x", **{f"v{i}": f"{{{{v{i - 1}}}}}" for i in range(1, 10)}}
    with pytest.raises(document.ActsError, match="nests variables 9 levels deep"):
        document.load(write(tmp_path, suite(NOT_FOUND, variables=deep)))
    fine = nested(3, 20)  # 8,000 characters: read and run as before
    assert document.load(write(tmp_path, suite(NOT_FOUND, variables=fine))).tests


def test_a_variable_that_refers_to_itself_is_called_a_cycle(tmp_path: Path) -> None:
    with pytest.raises(document.ActsError, match=r"variables\.a: refers to itself \(a -> b -> a\): a cycle"):
        document.load(write(tmp_path, suite(NOT_FOUND, variables={"a": "x{{b}}", "b": "{{a}}"})))
    scope = A.Scope({"a": "{{a}}"}, {})
    with pytest.raises(A.Unresolved, match=r"refers to itself \(a -> a\): a cycle"):
        scope.resolve("{{a}}")


def test_references_resolved_at_run_time_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTS_TEST_BIG", "y" * 64 * 1024)
    scope = A.Scope({}, {})
    assert len(scope.resolve("{{env.ACTS_TEST_BIG}}" * 8)) == 8 * 64 * 1024  # 512 KiB: within the bound
    with pytest.raises(A.Unresolved, match="passes 1048576 characters"):
        scope.resolve("{{ env.ACTS_TEST_BIG }}" * 200)  # 12.8 MB: not built
    # variables handed to a scope directly (not through the reader): references that expand to nothing, bounded
    empty = {"v0": "", **{f"v{i}": f"{{{{v{i - 1}}}}}" * 30 for i in range(1, 5)}}
    begun = time.monotonic()
    with pytest.raises(A.Unresolved, match="references"):
        A.Scope(empty, {}).resolve("{{v4}}")  # 810,000 references
    assert time.monotonic() - begun < 5


# ------------------------------------------------------------------------------------------------ waits


def test_repeats_and_waits_past_their_caps_are_refused_when_the_file_is_read(tmp_path: Path) -> None:
    poll = {"id": "p", "operation": "get_task", "params": {"id": "x"}}
    for step, where in (
        ({**poll, "repeat": {"until": "status.state == X", "max_attempts": 10**12}}, "repeat.max_attempts"),
        ({**poll, "repeat": {"until": "status.state == X", "delay_ms": 10**12}}, "repeat.delay_ms"),
        ({**poll, "delay_ms": 10**12}, "steps[0].delay_ms"),
        (
            {
                "id": "s",
                "operation": "send_streaming_message",
                "params": send("x"),
                "expect_stream": {"timeout_ms": 10**9},
            },
            "expect_stream.timeout_ms",
        ),
    ):
        data = suite({"id": "T-1", "name": "t", "level": "must", "steps": [step]})
        with pytest.raises(document.ActsError, match=r"more than this runner allows") as caught:
            document.load(write(tmp_path, data))
        assert where in str(caught.value) and "--test-deadline" in str(caught.value)


def test_a_catastrophic_regular_expression_fails_its_assertion_within_the_time_bound() -> None:
    begun = time.monotonic()
    miss = A.check({"matches": "(a+)+$"}, "a" * 25 + "!")  # plain `re`: some 6 s here, doubling with each `a`
    assert miss is not None and "ran past" in miss.expected
    assert time.monotonic() - begun < 4 * regex_guard.SEARCH_SECONDS + 2
    assert A.check({"matches": "^a+!$"}, "a" * 25 + "!") is None  # the next search starts a new worker
    assert A.check({"matches": "^b"}, "abc") is not None


def test_a_test_past_its_deadline_fails_and_the_run_deadline_ends_the_rest(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    poll = {
        "id": "SLOW-1",
        "name": "polls for a state that never comes",
        "level": "must",
        "requires_behaviors": ["tck-complete-task"],
        "steps": [
            {
                "id": "send",
                "operation": "send_message",
                "params": send("tck-complete-task x"),
                "capture": {"t": "task.id"},
            },
            {
                "id": "poll",
                "operation": "get_task",
                "params": {"id": "{{send.t}}"},
                "repeat": {"until": "status.state == TASK_STATE_REJECTED", "max_attempts": 1000, "delay_ms": 200},
            },
        ],
    }
    begun = time.monotonic()
    code, reports = run(tmp_path, served.url, suite(poll), "--binding", "jsonrpc", "--test-deadline", "1.5")
    assert time.monotonic() - begun < 30  # 1000 attempts 200 ms apart: 200 s without the deadline
    failure = {t["id"]: t for s in reports["jsonrpc"]["suites"] for t in s["tests"]}["SLOW-1"]["failure"]
    assert code == 1 and "would pass the test's deadline (1.5 s, --test-deadline)" in failure["message"]
    second = {**poll, "id": "SLOW-2"}
    code, reports = run(
        tmp_path, served.url, suite(poll, second, NOT_FOUND), "--binding", "jsonrpc", "--run-deadline", "1.5"
    )
    got = {t["id"]: t for s in reports["jsonrpc"]["suites"] for t in s["tests"]}
    assert "--run-deadline" in got["SLOW-1"]["failure"]["message"]
    assert [got[k]["result"] for k in ("SLOW-2", "CORE-ERR-001")] == ["error", "error"]
    assert "not run: the run's deadline" in got["SLOW-2"]["failure"]["message"] and code == 3


# ------------------------------------------------------------------------------------------------ a hostile server


class Hostile(socketserver.ThreadingTCPServer):
    """A server under test of the tests' own on loopback: a 1.0 JSON-RPC card, and an answer to every POST that
    `answer` writes on the socket (it counts what it sent, and stops when the client goes away)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, answer: Callable[[socket.socket, Hostile], None]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.sent = 0
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def card(self) -> bytes:
        return json.dumps(
            {
                "name": "hostile",
                "description": "a server under test that misbehaves",
                "version": "1.0.0",
                "supportedInterfaces": [
                    {"url": self.url + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
                ],
                "capabilities": {"streaming": True},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["s"]}],
            }
        ).encode()

    def send(self, sock: socket.socket, data: bytes) -> bool:
        try:
            sock.sendall(data)
        except OSError:
            return False
        self.sent += len(data)
        return True


class _Handler(socketserver.BaseRequestHandler):
    server: Hostile

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(30)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            if not chunk:
                return
            head += chunk
        top, _, rest = head.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in top.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
        )
        while len(rest) < length:
            rest += sock.recv(65536)
        if top.startswith(b"GET"):
            body = self.server.card()
            sock.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
                + f"content-length: {len(body)}\r\n\r\n".encode()
                + body
            )
            return
        self.server.answer(sock, self.server)


@pytest.fixture
def hostile() -> Iterator[Callable[[Callable[[socket.socket, Hostile], None]], Hostile]]:
    started: list[Hostile] = []

    def start(answer: Callable[[socket.socket, Hostile], None]) -> Hostile:
        server = Hostile(answer)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
STREAM_STEP = {"id": "s", "operation": "send_streaming_message", "params": send("x"), "expect_stream": {"min_count": 1}}


def endless_event(sock: socket.socket, server: Hostile) -> None:
    """One event whose data never ends (here: 48 MiB, then the server gives up)."""
    if server.send(sock, SSE_HEAD + b"data: "):
        piece = b"a" * 65536
        while server.sent < 48 * 1024 * 1024 and server.send(sock, piece):
            pass


def empty_events(sock: socket.socket, server: Hostile) -> None:
    """Events with no data, five a second, for 20 s at most."""
    if server.send(sock, SSE_HEAD):
        ends = time.monotonic() + 20
        while time.monotonic() < ends and server.send(sock, b"data:\n\n:ping\n\n"):
            time.sleep(0.2)


def trickle(sock: socket.socket, server: Hostile) -> None:
    """A JSON answer whose 1,000 bytes come one every 0.5 s (for 20 s at most)."""
    if server.send(sock, b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"):
        ends = time.monotonic() + 20
        while time.monotonic() < ends and server.send(sock, b" "):
            time.sleep(0.5)


def one(tmp_path: Path, url: str, step: dict[str, Any], *extra: str) -> tuple[dict[str, Any], float]:
    """One must-level test of one step against `url` over JSON-RPC: its ACTS result, and how long the run took."""
    begun = time.monotonic()
    code, reports = run(
        tmp_path,
        url,
        suite({"id": "H-1", "name": "h", "level": "must", "steps": [step]}),
        "--binding",
        "jsonrpc",
        *extra,
    )
    result = reports["jsonrpc"]["suites"][0]["tests"][0]
    assert code == 1 and result["result"] == "fail", result
    return result, time.monotonic() - begun


def test_an_event_that_never_ends_is_cut_at_its_bound(tmp_path: Path, hostile: Any) -> None:
    server = hostile(endless_event)
    result, _ = one(tmp_path, server.url, STREAM_STEP)
    assert "an event of more than 4194304 bytes" in result["failure"]["message"]
    assert server.sent < 24 * 1024 * 1024  # the runner went away long before the server gave up


def test_events_without_data_do_not_outlast_the_steps_timeout(tmp_path: Path, hostile: Any) -> None:
    server = hostile(empty_events)
    step = {**STREAM_STEP, "expect_stream": {"min_count": 1, "timeout_ms": 1000}}
    result, took = one(tmp_path, server.url, step)
    assert "did not end in time" in result["failure"]["message"] and took < 12


def test_a_body_that_trickles_is_cut_at_the_answer_timeout(tmp_path: Path, hostile: Any) -> None:
    server = hostile(trickle)
    step = {"id": "g", "operation": "get_task", "params": {"id": "x"}}
    result, took = one(tmp_path, server.url, step, "--timeout", "2")
    assert "did not arrive within 2 s" in result["failure"]["message"] and took < 12


# ------------------------------------------------------------------------------------------------ secrets


SECRET = "s3cr3t-Value-0f-The-Test"


def test_a_secret_from_the_environment_is_redacted_in_every_report(
    tmp_path: Path, serve: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ACTS_TEST_SECRET", SECRET)
    served = serve("spec/acts-sut")
    raw = {
        "id": "SEC-1",
        "name": "sends a key, expects it back",
        "level": "must",
        "transport": ["jsonrpc"],
        "steps": [
            {
                "id": "r",
                "raw": {
                    "method": "POST",
                    "path": "/",
                    "headers": {"Content-Type": "application/json", "X-API-Key": "{{env.ACTS_TEST_SECRET}}"},
                    "body": {"jsonrpc": "2.0", "id": "{{env.ACTS_TEST_SECRET}}", "method": "GetTask", "params": {}},
                },
                "expect": {"body": {"note": "{{env.ACTS_TEST_SECRET}}"}},
            }
        ],
    }
    path = write(tmp_path, suite(raw))
    files = {"acts": tmp_path / "acts.json", "lab": tmp_path / "lab.json", "junit": tmp_path / "junit.xml"}
    reports = ["--json", str(files["acts"]), "--report-json", str(files["lab"]), "--junit", str(files["junit"])]
    html = ["--html", str(tmp_path / "html")]
    code = main(["acts", "run", str(path), "--server", served.url, "--binding", "jsonrpc", "-v", *reports, *html])
    said = capsys.readouterr()
    assert code == 1
    texts = {name: p.read_text() for name, p in files.items()}
    texts["html"] = (tmp_path / "html" / "index.html").read_text()
    texts["console"] = said.out + said.err
    for name, text in texts.items():
        assert SECRET not in text, name
    quote = json.loads(texts["lab"])["scenarios"][0]["checks"][0]["quote"]
    assert "x-api-key: <redacted>" in quote.lower()
    assert "<redacted>" in texts["acts"]  # the failure's expected value


# ---------------------------------------------------------------------------------- the runner's webhook (issue 46)


PUSHED: dict[str, Any] = {
    "id": "SEC-PUSH-001",
    "name": "push delivery carries the config's credentials",
    "level": "must",
    "preconditions": {"capabilities": {"pushNotifications": True}},
    "requires_behaviors": ["tck-long-running"],
    "steps": [
        {
            "id": "create",
            "operation": "send_message",
            "params": send("tck-long-running start", configuration={"returnImmediately": True}),
            "capture": {"taskId": "task.id"},
        },
        {
            "id": "set-config",
            "operation": "set_push_notification_config",
            "params": {
                "taskId": "{{create.taskId}}",
                "pushNotificationConfig": {
                    "url": "{{webhookUrl}}",
                    "authentication": {"scheme": "Bearer", "credentials": "test-token"},
                },
            },
            "expect": {"body": {"id": {"type": "string"}}},
        },
    ],
}


def test_the_runner_gives_each_test_a_webhook_and_judges_its_deliveries(tmp_path: Path, serve: Any) -> None:
    served = serve("spec/acts-sut")
    code, reports = run(tmp_path, served.url, suite(PUSHED), "--binding", "jsonrpc")
    result = reports["jsonrpc"]["suites"][0]["tests"][0]
    assert code == 0 and result["result"] == "pass", result
    requires = {**NOT_FOUND, "id": "R-1", "runner_requirements": ["webhook_endpoint", "header_inspection"]}
    code, reports = run(tmp_path, served.url, suite(requires), "--binding", "jsonrpc")
    reason = reports["jsonrpc"]["suites"][0]["tests"][0]["skip_reason"]
    assert "header_inspection" in reason and "webhook_endpoint" not in reason.partition("(")[0]


def test_a_delivery_without_the_configs_credentials_or_not_a_stream_response_fails() -> None:
    from a2a_lab.harness.acts.webhook import Delivery, judge_deliveries

    config = [{"url": "u", "authentication": {"scheme": "Bearer", "credentials": "test-token"}}]
    good = Delivery("/acts/1", {"authorization": "Bearer test-token"}, {"statusUpdate": {"taskId": "t"}})
    assert judge_deliveries([good], config, 1.0) is None
    assert judge_deliveries([], config, 1.0) is not None
    bare = Delivery("/acts/1", {}, {"statusUpdate": {}})
    miss = judge_deliveries([good, bare], config, 1.0)
    assert miss is not None and "delivery 1 does not carry the config's credentials" in miss.message
    wrong = Delivery("/acts/1", {"authorization": "Bearer other"}, {"statusUpdate": {}})
    assert judge_deliveries([wrong], config, 1.0) is not None
    assert "test-token" not in str(judge_deliveries([wrong], config, 1.0))
    miss = judge_deliveries([Delivery("/acts/1", {}, {"kind": "task"})], [{"url": "u"}], 1.0)
    assert miss is not None and "not a StreamResponse" in miss.message
