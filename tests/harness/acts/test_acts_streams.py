"""The runner's own streams (harness/acts/streams.py): ACTS's runner requirements `concurrent_streams` and
`stream_disconnect`, carried out against real a2a-lab servers on loopback, each a scenario of the test's own. A server
that gives every stream on a task the same events, and lets a stream go on when another closes, passes; one whose
subscribers get fewer events, or whose stream stops while the task goes on, fails (a single stream, all the runner
opened before, passed both); one whose task ends before a second stream can join is not judged (`error`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.acts import document, streams
from a2a_lab.harness.cli import main
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

HEAD = {"acts_version": "1.0", "spec_version": "1.0"}
CARD: dict[str, Any] = {
    "name": "streams under test",
    "description": "Streams a task to whoever follows it.",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "{base_url}/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "{base_url}/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": "{grpc_address}", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
    ],
    "capabilities": {"streaming": True, "pushNotifications": False},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "S", "description": "streams", "tags": ["t"]}],
}
#: A task time moves a step each 500 ms: long enough for the runner's streams to join it, even at load 8.
PACED: dict[str, Any] = {
    "steps": ["SUBMITTED", "WORKING", {"state": "COMPLETED", "artifacts": [{"artifactId": "a", "text": "out"}]}],
    "advance": {"after_ms": 500},
}


def scenario(task: dict[str, Any], behaviour: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "title": "streams",
        "description": "A task streamed to several streams.",
        "spec": "A2A 1.0 §3.5.2",
        "seed": 5,
        "card": {"object": CARD},
        "task": task,
        **({"behaviour": behaviour} if behaviour else {}),
    }


@pytest.fixture
def serve_doc(tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], str]]:
    """Serve a scenario written by the test; its base URL."""
    started: list[BackgroundServer] = []

    def _serve(data: dict[str, Any]) -> str:
        path = tmp_path / f"scenario{len(started)}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        server = BackgroundServer(ScenarioApp(load_file(path))).start()
        started.append(server)
        return server.url

    yield _serve
    for server in started:
        server.stop()


def streaming_test(test_id: str, **extra: Any) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "parts": [{"text": "stream it"}]}
    return {
        "id": test_id,
        "name": test_id,
        "level": "should",
        "steps": [
            {
                "id": "stream",
                "operation": "send_streaming_message",
                "params": {"message": message},
                "expect_stream": {"min_count": 2},
            }
        ],
        **extra,
    }


def resubscribe_test(test_id: str, **extra: Any) -> dict[str, Any]:
    message = {"role": "ROLE_USER", "parts": [{"text": "start"}]}
    return {
        "id": test_id,
        "name": test_id,
        "level": "should",
        "steps": [
            {
                "id": "start",
                "operation": "send_message",
                "params": {"message": message, "configuration": {"returnImmediately": True}},
                "capture": {"taskId": "task.id"},
            },
            {
                "id": "subscribe",
                "operation": "subscribe_to_task",
                "params": {"id": "{{start.taskId}}"},
                "expect_stream": {"min_count": 1},
            },
        ],
        **extra,
    }


#: The draft's own spelling (STREAM-MULTI-001, STREAM-RESUB-001): runner-special tests tagged, nothing declared.
TAGGED = {"tags": ["streaming", "concurrent", "runner-special"]}
DECLARED = {"runner_requirements": ["concurrent_streams"]}
RESUB_TAGGED = {"tags": ["streaming", "resubscribe", "runner-special"]}


def run(tmp_path: Path, url: str, tests: list[dict[str, Any]], *extra: str) -> dict[str, dict[str, dict[str, Any]]]:
    """`acts run` in process: per binding, each test's result."""
    path = tmp_path / "streams.acts.yaml"
    path.write_text(yaml.safe_dump({**HEAD, "suites": [{"id": "s", "name": "S", "tests": tests}]}, sort_keys=False))
    out = tmp_path / "acts.json"
    main(["acts", "run", str(path), "--server", url, "--json", str(out), "-q", "--timeout", "20", *extra])
    reports: dict[str, dict[str, dict[str, Any]]] = {}
    for report_path in tmp_path.glob("acts*.json"):
        report = json.loads(report_path.read_text())
        reports[report["transport"]] = {t["id"]: t for s in report["suites"] for t in s["tests"]}
    return reports


def failure(result: dict[str, Any]) -> str:
    return str((result.get("failure") or {}).get("message", ""))


def test_a_server_that_gives_every_stream_the_same_events_passes_on_every_binding(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str]
) -> None:
    url = serve_doc(scenario(PACED))
    tests = [streaming_test("MULTI-TAGGED", **TAGGED), streaming_test("MULTI-DECLARED", **DECLARED)]
    tests.append(resubscribe_test("RESUB", **RESUB_TAGGED))
    reports = run(tmp_path, url, tests)
    assert set(reports) == {"jsonrpc", "rest", "grpc"}
    for transport, got in reports.items():
        assert {k: (v["result"], failure(v)) for k, v in got.items()} == dict.fromkeys(got, ("pass", "")), transport


@pytest.mark.parametrize(
    ("deviation", "said"),
    [
        # Every SubscribeToTask leaves out the terminal status: fewer events, and a stream cut short.
        ({"omit_terminal": True}, "the second stream (SubscribeToTask) ended at no state"),
        # Every SubscribeToTask sends each event twice: more events, not the same ones.
        ({"duplicate_events": True}, "the second stream (SubscribeToTask) did not get the same events"),
    ],
)
def test_a_subscriber_that_gets_other_events_fails_where_one_stream_passed(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str], deviation: dict[str, Any], said: str
) -> None:
    url = serve_doc(scenario(PACED, {"SubscribeToTask": {"reply": {"stream": deviation}}}))
    reports = run(tmp_path, url, [streaming_test("MULTI", **TAGGED), streaming_test("PLAIN")], "--binding", "rest")
    got = reports["rest"]
    assert got["PLAIN"]["result"] == "pass"  # the step's own stream alone, all the runner opened before
    assert got["MULTI"]["result"] == "fail"
    assert said in failure(got["MULTI"])


def test_a_stream_that_stops_while_the_task_goes_on_fails(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str]
) -> None:
    # The step's own stream is reset after two events (the task goes on): what a server that ends every stream on
    # a task when one of them closes shows the runner. min_count 2 alone still holds.
    url = serve_doc(scenario(PACED, {"SendStreamingMessage": {"reply": {"stream": {"drop_after": 2}}}}))
    reports = run(tmp_path, url, [streaming_test("MULTI", **TAGGED), streaming_test("PLAIN")], "--binding", "jsonrpc")
    got = reports["jsonrpc"]
    assert got["PLAIN"]["result"] == "pass"
    assert got["MULTI"]["result"] == "fail"
    assert "the step's stream broke off" in failure(got["MULTI"])
    assert "after the third stream (SubscribeToTask, hung up after its first event) was closed" in failure(got["MULTI"])


def test_a_task_that_ends_before_a_second_stream_can_join_is_not_judged(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str]
) -> None:
    url = serve_doc(scenario({"steps": ["SUBMITTED", "WORKING", "COMPLETED"]}))
    reports = run(tmp_path, url, [streaming_test("MULTI", **TAGGED)], "--binding", "rest")
    got = reports["rest"]["MULTI"]
    assert got["result"] == "error"
    assert "not judged" in failure(got) and "had ended before the runner could open it" in failure(got)


@pytest.mark.parametrize(
    ("deviation", "said"),
    [
        ({"error": "TaskNotFound"}, "the stream subscribed again after the hang-up was refused with TaskNotFoundError"),
        ({"stream": {"omit_terminal": True}}, "the stream subscribed again after the hang-up ended at no state"),
    ],
)
def test_a_resubscription_refused_or_cut_short_fails(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str], deviation: dict[str, Any], said: str
) -> None:
    # PLAIN's SubscribeToTask is the server's first, RESUB's the second (hung up) and the third: from the third on,
    # the server deviates.
    url = serve_doc(scenario(PACED, {"SubscribeToTask": {"when": {"calls": {"from": 3}}, "reply": deviation}}))
    got = run(
        tmp_path, url, [resubscribe_test("PLAIN"), resubscribe_test("RESUB", **RESUB_TAGGED)], "--binding", "rest"
    )
    assert got["rest"]["PLAIN"]["result"] == "pass"
    assert got["rest"]["RESUB"]["result"] == "fail"
    assert said in failure(got["rest"]["RESUB"])


def test_requirements_read_from_the_tags_and_one_not_provided_is_a_runner_skip(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str]
) -> None:
    tests = [
        streaming_test("TAGGED", **TAGGED),
        streaming_test("CONCURRENT-TAG-ONLY", tags=["concurrent"]),
        streaming_test("HEADERS", runner_requirements=["header_inspection"]),
    ]
    read = {t.id: t for s in document.load(_write(tmp_path, tests)).suites for t in s.tests}
    assert streams.requirements(read["TAGGED"]) == ("concurrent_streams",)
    assert streams.requirements(read["CONCURRENT-TAG-ONLY"]) == ()
    assert streams.applies(read["TAGGED"], "send_streaming_message") == "concurrent_streams"
    assert streams.applies(read["TAGGED"], "send_message") == ""
    url = serve_doc(scenario(PACED))
    got = run(tmp_path, url, tests, "--binding", "rest")["rest"]
    assert got["HEADERS"]["result"] == "skip" and got["HEADERS"]["skip_category"] == "runner"
    assert "header_inspection: a2a-lab does not provide it yet" in got["HEADERS"]["skip_reason"]
    assert got["TAGGED"]["result"] == "pass" and got["CONCURRENT-TAG-ONLY"]["result"] == "pass"


def _write(tmp_path: Path, tests: list[dict[str, Any]]) -> Path:
    path = tmp_path / "read.acts.yaml"
    path.write_text(yaml.safe_dump({**HEAD, "suites": [{"id": "s", "name": "S", "tests": tests}]}, sort_keys=False))
    return path


def test_a_second_stream_refused_as_for_an_ended_task_while_it_goes_on_fails(
    tmp_path: Path, serve_doc: Callable[[dict[str, Any]], str]
) -> None:
    # UnsupportedOperationError is A2A's answer for a terminal task; GetTask shows this one still going.
    url = serve_doc(scenario(PACED, {"SubscribeToTask": {"reply": {"error": "UnsupportedOperation"}}}))
    got = run(tmp_path, url, [streaming_test("MULTI", **TAGGED)], "--binding", "rest")["rest"]["MULTI"]
    assert got["result"] == "fail"
    assert "refused with UnsupportedOperationError" in failure(got)
    assert "GetTask then showed the task at TASK_STATE_" in failure(got)
