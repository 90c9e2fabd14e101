"""The reference client against real a2a-lab servers (uvicorn on 127.0.0.1, port 0)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.journal_record import ResultKind
from a2a_lab.contract.loader import load_file
from a2a_lab.harness.clients.refclient import (
    ENV_CARD_URL,
    ENV_MESSAGE,
    ENV_RESULT,
    ClientOptions,
    Result,
    card_urls,
    render_text,
    report_to_env,
    run,
    select_interfaces,
    user_agent,
)
from a2a_lab.harness.clients.refclient.failures import ClientFailure, UsageFailure, invites_fallback
from a2a_lab.protocol import operations
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.cards import LEGACY_WELL_KNOWN_PATH, WELL_KNOWN_PATH
from a2a_lab.protocol.errors import ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import HEADER, Version
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

V1, V03 = Version.V1_0, Version.V0_3
VERSION_HEADER = HEADER.lower()
SEND_V1 = operations.method_name(Operation.SEND_MESSAGE, V1)
SEND_V03 = operations.method_name(Operation.SEND_MESSAGE, V03)
STREAM_V1 = operations.method_name(Operation.SEND_STREAMING_MESSAGE, V1)
GET_TASK_METHODS = {operations.method_name(Operation.GET_TASK, v) for v in Version}


class Recorder:
    """Stands in for time.sleep: records the polite delays instead of waiting them out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def options(**kw: Any) -> ClientOptions:
    kw.setdefault("sleep", Recorder())
    return ClientOptions(**kw)


def a2a_calls(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in journal if e["kind"] in ("jsonrpc", "rest")]


def operations_called(journal: list[dict[str, Any]]) -> list[str]:
    return [e.get("operation", "?") for e in a2a_calls(journal)]


# ----------------------------------------------------------------------------------- served YAML


@pytest.fixture
def serve_yaml(tmp_path: Path) -> Iterator[Callable[[str], tuple[ScenarioApp, str]]]:
    """Serve a scenario written in the test; returns the app (journal) and the card URL."""
    servers: list[BackgroundServer] = []

    def _serve(text: str) -> tuple[ScenarioApp, str]:
        path = tmp_path / f"scenario-{len(servers)}.yaml"
        path.write_text(text, encoding="utf-8")
        app = ScenarioApp(load_file(path, f"test/{path.stem}"))
        server = BackgroundServer(app).start()
        servers.append(server)
        return app, server.url + WELL_KNOWN_PATH

    yield _serve
    for server in servers:
        server.stop()


CARD_HEAD = """
title: refclient test
description: written by tests/harness/test_refclient.py
spec: "A2A 1.0 §5.2 (fallback), §8.2 (discovery)"
"""

TWO_INTERFACES_CARD = """
card:
  object:
    name: test agent
    description: A test agent.
    version: "1.0.0"
    supportedInterfaces:
      - {url: "{base_url}/a2a/jsonrpc", protocolBinding: JSONRPC, protocolVersion: "1.0"}
      - {url: "{base_url}/a2a/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0"}
    capabilities: {streaming: false}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: d, tags: [t]}]
"""


def with_behaviour(send_rule: str, card: str = TWO_INTERFACES_CARD) -> str:
    return CARD_HEAD + card + "behaviour:\n  SendMessage:\n" + send_rule


# ----------------------------------------------------------------------------------- spec/conformant


def test_conformant_uses_the_first_interface_and_reads_the_artifact(serve) -> None:
    served = serve("spec/conformant")
    result = run(served.card_url, "hello there", options())
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: hello there")
    assert result.interface is not None
    assert (result.interface.binding, result.interface.version) == (Binding.JSONRPC.value, V1.value)
    assert result.interface.url.endswith("/a2a/jsonrpc")
    calls = a2a_calls(served.journal)
    assert len(calls) == 1
    call = calls[0]
    assert call["rpc"]["method"] == SEND_V1
    assert call["headers"][VERSION_HEADER] == V1.value
    assert call["headers"]["content-type"] == JSON
    assert call["headers"]["user-agent"] == user_agent()
    assert user_agent().startswith("a2a-lab-refclient/") and "(+https://" in user_agent()
    assert result.warnings == []


def test_conformant_message_ids_are_unique(serve) -> None:
    served = serve("spec/conformant")
    run(served.card_url, "one", options())
    run(served.card_url, "two", options())
    bodies = [json.loads(e["body"]["text"]) for e in a2a_calls(served.journal)]
    ids = [b["params"]["message"]["messageId"] for b in bodies]
    assert len(ids) == 2 and ids[0] != ids[1]
    assert all("contextId" not in b["params"]["message"] for b in bodies)


def test_conformant_http_json_binding(serve) -> None:
    served = serve("spec/conformant")
    result = run(served.card_url, "rest please", options(binding=Binding.HTTP_JSON))
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: rest please")
    (call,) = a2a_calls(served.journal)
    assert (call["method"], call["path"]) == ("POST", "/a2a/rest/message:send")
    assert call["headers"]["content-type"] == A2A_JSON
    assert call["headers"][VERSION_HEADER] == V1.value
    assert result.skipped and "excluded by the binding restriction" in result.skipped[0]


def test_conformant_streaming(serve) -> None:
    served = serve("spec/conformant")
    result = run(served.card_url, "stream it", options(stream=True))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text, result.streamed) == (
        "task",
        TaskState.COMPLETED,
        "echo: stream it",
        True,
    )
    (call,) = a2a_calls(served.journal)
    assert call["rpc"]["method"] == STREAM_V1
    assert call["headers"][VERSION_HEADER] == V1.value
    assert call["events"], "the server streamed events"


def test_conformant_streaming_over_http_json(serve) -> None:
    served = serve("spec/conformant")
    result = run(served.card_url, "rest stream", options(stream=True, binding=Binding.HTTP_JSON))
    assert (result.kind, result.state, result.text, result.streamed) == (
        "task",
        TaskState.COMPLETED,
        "echo: rest stream",
        True,
    )
    (call,) = a2a_calls(served.journal)
    assert (call["method"], call["path"]) == ("POST", "/a2a/rest/message:stream")


# ----------------------------------------------------------------------------------- spec/task


def test_submitted_task_is_followed_up_until_completed(serve) -> None:
    served = serve("spec/task/submitted-needs-get-task")
    sleep = Recorder()
    result = run(served.card_url, "work", options(sleep=sleep))
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "done: work")
    assert operations_called(served.journal) == [
        Operation.SEND_MESSAGE.value,
        Operation.GET_TASK.value,
        Operation.GET_TASK.value,
    ]
    assert result.follow_ups == 2
    assert sleep.delays == [0.2, 0.3]  # polite and increasing
    gets = [e for e in a2a_calls(served.journal) if e.get("operation") == Operation.GET_TASK.value]
    assert all(json.loads(e["body"]["text"])["params"]["id"] == result.task_id for e in gets)


def test_follow_up_is_bounded(serve) -> None:
    served = serve("spec/task/submitted-needs-get-task")
    result = run(served.card_url, "work", options(follow=1))
    assert (result.kind, result.state) == ("task", TaskState.WORKING)
    assert result.error is not None and result.error["type"] == "no_answer"
    assert result.exit_code == 1
    assert operations_called(served.journal).count(Operation.GET_TASK.value) == 1


def test_follow_zero_never_asks_get_task(serve) -> None:
    served = serve("spec/task/submitted-needs-get-task")
    result = run(served.card_url, "work", options(follow=0))
    assert result.state is TaskState.SUBMITTED and result.exit_code == 1
    assert result.error is not None and "--follow 0" in result.error["message"]
    assert operations_called(served.journal) == [Operation.SEND_MESSAGE.value]


def test_delays_grow_and_are_capped() -> None:
    assert ClientOptions(follow=8).delays() == [0.2, 0.3, 0.45, 0.675, 1.013, 1.519, 2.0, 2.0]


def test_stream_without_the_capability_falls_back_to_send_message(serve) -> None:
    served = serve("spec/task/submitted-needs-get-task")  # capabilities.streaming: false
    result = run(served.card_url, "work", options(stream=True))
    assert result.state is TaskState.COMPLETED and not result.streamed
    assert any("capabilities.streaming" in w for w in result.warnings)
    assert Operation.SEND_STREAMING_MESSAGE.value not in operations_called(served.journal)


# ----------------------------------------------------------------------------------- quirks


def test_mixed_version_card_direct_message_needs_no_get_task(serve) -> None:
    served = serve("quirks/mixed-version-direct-message")
    result = run(served.card_url, "help", options())
    assert result.exit_code == 0
    assert result.kind == "message" and result.state is None
    assert "peerlace understands" in result.text
    assert operations_called(served.journal) == [Operation.SEND_MESSAGE.value]
    assert a2a_calls(served.journal)[0]["headers"][VERSION_HEADER] == V1.value
    assert any("mixed-version" in w for w in result.warnings)


def test_advertised_method_not_found_is_an_error_without_retry(serve) -> None:
    served = serve("quirks/advertised-method-not-found")
    result = run(served.card_url, "hello", options())
    assert result.kind == "error" and result.exit_code == 1
    assert result.error is not None and result.error["code"] == ErrorType.METHOD_NOT_FOUND.code
    assert "Method not found" in result.error["message"]
    assert operations_called(served.journal) == [Operation.SEND_MESSAGE.value]


def test_patch_version_card_uses_json_rpc_0_3(serve) -> None:
    served = serve("quirks/patch-version-binding-mix")
    result = run(served.card_url, "list", options())
    assert result.exit_code == 0
    assert (result.kind, result.text) == ("message", "The commons lists 42 agents.")
    (call,) = a2a_calls(served.journal)
    assert call["rpc"]["method"] == SEND_V03
    assert VERSION_HEADER not in call["headers"]
    sent = json.loads(call["body"]["text"])["params"]["message"]
    assert sent["kind"] == "message" and sent["role"] == "user" and sent["parts"] == [{"kind": "text", "text": "list"}]
    assert any("'0.3.0'" in w and "Major.Minor" in w for w in result.warnings)


def test_v03_completed_task_reads_artifacts_without_polling(serve) -> None:
    served = serve("quirks/v03-completed-task-artifacts")
    result = run(served.card_url, "Validate", options())
    assert result.exit_code == 0
    assert (result.kind, result.state) == ("task", TaskState.COMPLETED)
    assert "score 100/100" in result.text
    calls = a2a_calls(served.journal)
    assert [c["rpc"]["method"] for c in calls] == [SEND_V03]
    assert not GET_TASK_METHODS & {c["rpc"]["method"] for c in calls}
    assert result.warnings == []


# ----------------------------------------------------------------------------------- fallback


def test_falls_back_to_the_next_interface_once(serve_yaml) -> None:
    app, card_url = serve_yaml(with_behaviour("    - {when: {binding: JSONRPC}, reply: {error: MethodNotFound}}\n"))
    result = run(card_url, "fall back", options())
    assert result.exit_code == 0, result.to_json()
    assert (result.kind, result.state, result.text) == ("task", TaskState.COMPLETED, "echo: fall back")
    assert result.interface is not None and result.interface.binding == Binding.HTTP_JSON.value
    calls = a2a_calls(app.state.journal.snapshot()["entries"])
    assert [(c["kind"], c.get("operation")) for c in calls] == [
        ("jsonrpc", Operation.SEND_MESSAGE.value),
        ("rest", Operation.SEND_MESSAGE.value),
    ]
    assert calls[1]["path"] == "/a2a/rest/message:send"
    rpc_id = json.loads(calls[0]["body"]["text"])["params"]["message"]["messageId"]
    rest_id = json.loads(calls[1]["body"]["text"])["message"]["messageId"]
    assert rpc_id != rest_id  # a new messageId per request body
    assert len(result.attempts) == 1 and result.attempts[0]["code"] == ErrorType.METHOD_NOT_FOUND.code
    assert any("falling back" in w for w in result.warnings)


def test_every_interface_fails_each_tried_once(serve_yaml) -> None:
    app, card_url = serve_yaml(with_behaviour("    - {reply: {error: VersionNotSupported}}\n"))
    result = run(card_url, "nobody home", options())
    assert result.kind == "error" and result.exit_code == 1
    assert result.error is not None and result.error["code"] == ErrorType.VERSION_NOT_SUPPORTED.code
    calls = a2a_calls(app.state.journal.snapshot()["entries"])
    assert [c["kind"] for c in calls] == ["jsonrpc", "rest"]


def test_other_errors_do_not_fall_back(serve_yaml) -> None:
    app, card_url = serve_yaml(with_behaviour("    - {when: {binding: JSONRPC}, reply: {error: InternalError}}\n"))
    result = run(card_url, "x", options())
    assert result.error is not None and result.error["code"] == ErrorType.INTERNAL_ERROR.code and result.exit_code == 1
    assert [c["kind"] for c in a2a_calls(app.state.journal.snapshot()["entries"])] == ["jsonrpc"]


def test_interrupted_task_is_an_answer(serve_yaml) -> None:
    rule = "    - reply: {task: {steps: [WORKING, {state: INPUT_REQUIRED, message: 'Which city?'}], artifacts: []}}\n"
    app, card_url = serve_yaml(with_behaviour(rule))
    result = run(card_url, "weather", options())
    assert (result.kind, result.state, result.interrupted) == ("task", TaskState.INPUT_REQUIRED, True)
    assert result.text == "Which city?" and result.exit_code == 0
    assert "waits for the user" in render_text(result)
    assert operations_called(app.state.journal.snapshot()["entries"]) == [Operation.SEND_MESSAGE.value]


def test_failed_task_is_an_answer(serve_yaml) -> None:
    _app, card_url = serve_yaml(
        with_behaviour("    - reply: {task: {steps: [{state: FAILED, message: 'no luck'}], artifacts: []}}\n")
    )
    result = run(card_url, "try", options())
    assert (result.kind, result.state, result.text, result.exit_code) == ("task", TaskState.FAILED, "no luck", 0)


# ----------------------------------------------------------------------------------- other wire forms

V03_CARD = """
card:
  object:
    protocolVersion: "0.3.0"
    name: old agent
    description: A 0.3 agent with JSON-RPC and REST.
    url: "{base_url}/a2a"
    preferredTransport: JSONRPC
    version: "1"
    additionalInterfaces:
      - {url: "{base_url}/a2a", transport: JSONRPC}
      - {url: "{base_url}/rest", transport: HTTP+JSON}
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: d, tags: [t]}]
"""

TENANT_CARD = """
card:
  object:
    name: tenant agent
    description: Interfaces with a tenant.
    version: "1"
    supportedInterfaces:
      - {url: "{base_url}/a2a", protocolBinding: JSONRPC, protocolVersion: "1.0", tenant: acme}
      - {url: "{base_url}/rest", protocolBinding: HTTP+JSON, protocolVersion: "1.0", tenant: acme}
    capabilities: {streaming: true}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{id: s, name: s, description: d, tags: [t]}]
"""
SLOW_TASK = "task: {steps: [SUBMITTED, WORKING, COMPLETED], returns: first, advance: get_task}\n"


def journal_of(app: ScenarioApp) -> list[dict[str, Any]]:
    return app.state.journal.snapshot()["entries"]


def test_v03_json_rpc_stream_ends_at_final(serve_yaml) -> None:
    app, card_url = serve_yaml(CARD_HEAD + V03_CARD)
    result = run(card_url, "old stream", options(stream=True))
    assert (result.kind, result.state, result.text, result.streamed) == (
        "task",
        TaskState.COMPLETED,
        "echo: old stream",
        True,
    )
    (call,) = a2a_calls(journal_of(app))
    assert call["rpc"]["method"] == operations.method_name(Operation.SEND_STREAMING_MESSAGE, V03)
    assert VERSION_HEADER not in call["headers"]
    assert result.warnings == []


def test_v03_rest_send_and_get_task(serve_yaml) -> None:
    app, card_url = serve_yaml(CARD_HEAD + V03_CARD + SLOW_TASK)
    result = run(card_url, "old rest", options(binding=Binding.HTTP_JSON))
    assert (result.kind, result.state, result.text, result.follow_ups) == (
        "task",
        TaskState.COMPLETED,
        "echo: old rest",
        2,
    )
    calls = a2a_calls(journal_of(app))
    assert [(c["method"], c["path"]) for c in calls] == [
        ("POST", "/rest/v1/message:send"),
        ("GET", f"/rest/v1/tasks/{result.task_id}"),
        ("GET", f"/rest/v1/tasks/{result.task_id}"),
    ]
    assert all(c["headers"]["content-type"] == JSON for c in calls[:1]) and all(
        VERSION_HEADER not in c["headers"] for c in calls
    )
    assert json.loads(calls[0]["body"]["text"])["message"]["content"] == [{"text": "old rest"}]


def test_tenant_is_copied_into_every_request(serve_yaml) -> None:
    app, card_url = serve_yaml(CARD_HEAD + TENANT_CARD + SLOW_TASK)
    result = run(card_url, "t", options())
    assert result.state is TaskState.COMPLETED
    bodies = [json.loads(c["body"]["text"]) for c in a2a_calls(journal_of(app))]
    assert len(bodies) == 3 and all(b["params"]["tenant"] == "acme" for b in bodies)
    app, card_url = serve_yaml(CARD_HEAD + TENANT_CARD + SLOW_TASK)
    result = run(card_url, "t", options(binding=Binding.HTTP_JSON))
    assert result.state is TaskState.COMPLETED
    paths = [c["path"] for c in a2a_calls(journal_of(app))]
    assert paths == [
        "/rest/acme/message:send",
        f"/rest/acme/tasks/{result.task_id}",
        f"/rest/acme/tasks/{result.task_id}",
    ]


@pytest.mark.parametrize(
    ("stream_rule", "warning"),
    [
        ("{omit_terminal: true}", "the stream closed at WORKING"),
        ("{error_after: 1}", "the stream broke off"),
    ],
    ids=["no-terminal-event", "error-mid-stream"],
)
def test_a_stream_that_stops_early_is_followed_up(serve_yaml, stream_rule: str, warning: str) -> None:
    behaviour = f"behaviour:\n  SendStreamingMessage:\n    - reply: {{stream: {stream_rule}}}\n"
    app, card_url = serve_yaml(CARD_HEAD + TENANT_CARD + behaviour)
    result = run(card_url, "s", options(stream=True))
    assert (result.state, result.text, result.exit_code) == (TaskState.COMPLETED, "echo: s", 0)
    assert any(warning in w for w in result.warnings), result.warnings
    assert Operation.GET_TASK.value in operations_called(journal_of(app))


@pytest.mark.parametrize("binding", [Binding.HTTP_JSON, Binding.JSONRPC])
def test_an_event_of_an_unknown_kind_is_skipped_and_the_stream_read_on(serve_yaml, binding: Binding) -> None:
    """a2a-go#435: an event of a kind a later version may add, between valid ones. The client skips it with a warning
    and reads on to the terminal event; GetTask cannot help here (it answers TaskNotFound)."""
    behaviour = (
        "behaviour:\n"
        "  SendStreamingMessage:\n"
        "    - reply: {stream: {events: [{at: 2, insert: {json: {futureEvent: {taskId: '{task_id}'}}}}]}}\n"
        "  GetTask:\n"
        "    - reply: {error: TaskNotFound}\n"
    )
    app, card_url = serve_yaml(CARD_HEAD + TENANT_CARD + behaviour)
    result = run(card_url, "s", options(stream=True, binding=binding))
    assert (result.state, result.text, result.exit_code) == (TaskState.COMPLETED, "echo: s", 0), result.warnings
    assert any("of a kind this client does not know (futureEvent): skipped" in w for w in result.warnings)
    assert Operation.GET_TASK.value not in operations_called(journal_of(app))


def test_a_stream_that_starts_without_the_task_is_read_with_a_warning(serve_yaml) -> None:
    behaviour = "behaviour:\n  SendStreamingMessage:\n    - reply: {stream: {first_event: status}}\n"
    _, card_url = serve_yaml(CARD_HEAD + TENANT_CARD + behaviour)
    result = run(card_url, "s", options(stream=True))
    assert (result.state, result.text) == (TaskState.COMPLETED, "echo: s")
    assert any("first event" in w for w in result.warnings)


def test_streamed_message(serve_yaml) -> None:
    app, card_url = serve_yaml(
        CARD_HEAD + TENANT_CARD + "behaviour:\n  SendStreamingMessage:\n    - reply: {message: hi there}\n"
    )
    result = run(card_url, "s", options(stream=True, binding=Binding.HTTP_JSON))
    assert (result.kind, result.text, result.streamed) == ("message", "hi there", True)
    assert operations_called(journal_of(app)) == [Operation.SEND_STREAMING_MESSAGE.value]


# ----------------------------------------------------------------------------------- misbehaving servers


@pytest.mark.parametrize(
    ("rule", "kind", "words"),
    [
        (
            "{raw: {status: 500, body: '<html><body>Internal Server Error</body></html>', content_type: text/html}}",
            "http",
            ["HTTP 500", "text/html", "<html>"],
        ),
        (
            "{raw: {status: 200, body: 'this is not json', content_type: application/json}}",
            "invalid_response",
            ["not JSON"],
        ),
        ("{envelope: {id: wrong}}", "invalid_response", ["does not match the request id"]),
        ("{envelope: {both: true}}", "invalid_response", ["both result and error"]),
        ("{envelope: {neither: true}}", "invalid_response", ["neither result nor error"]),
        ("{fault: {kind: truncate, after_bytes: 20}}", "transport", ["SendMessage", "(broke off|reset)"]),
        ("{fault: reset}", "transport", ["SendMessage", "(broke off|reset)"]),
    ],
    ids=["html-500", "not-json", "wrong-id", "both", "neither", "truncated", "reset"],
)
def test_misbehaviour_is_reported_clearly(serve_yaml, rule: str, kind: str, words: list[str]) -> None:
    app, card_url = serve_yaml(with_behaviour(f"    - reply: {rule}\n"))
    result = run(card_url, "x", options())
    assert result.kind == "error" and result.exit_code == 1
    assert result.error is not None and result.error["type"] == kind, result.error
    for word in words:
        assert re.search(word, result.error["message"]), (word, result.error["message"])
    assert "Traceback" not in json.dumps(result.to_json())
    assert [c["kind"] for c in a2a_calls(app.state.journal.snapshot()["entries"])] == ["jsonrpc"]


def test_read_timeout_is_reported(serve_yaml) -> None:
    _, card_url = serve_yaml(with_behaviour("    - reply: {fault: stall}\n"))
    result = run(card_url, "x", options(read_timeout=0.3))
    assert result.error is not None and result.error["type"] == "transport"
    assert "no answer within 0.3 s" in result.error["message"]


def test_connection_refused_is_reported() -> None:
    server = BackgroundServer(lambda scope, receive, send: None)  # bind a port, then free it unused
    url = server.url
    server.sock.close()
    result = run(url, "x", options(connect_timeout=2))
    assert result.error is not None and result.error["type"] == "discovery"
    assert "could not connect" in result.error["message"]


# ----------------------------------------------------------------------------------- discovery


def test_base_url_and_legacy_card_on_404(serve_yaml) -> None:
    card = TWO_INTERFACES_CARD.replace("card:\n  object:", "card:\n  well_known: missing\n  legacy: serve\n  object:")
    app, card_url = serve_yaml(CARD_HEAD + card)
    base = card_url[: -len(WELL_KNOWN_PATH)]
    result = run(base, "legacy", options())
    assert result.exit_code == 0 and result.card_url == base + LEGACY_WELL_KNOWN_PATH
    assert any("legacy" in w for w in result.warnings)
    paths = [e["path"] for e in app.state.journal.snapshot()["entries"] if e["kind"] == "card"]
    assert paths == [WELL_KNOWN_PATH, LEGACY_WELL_KNOWN_PATH]


def test_no_legacy_fallback_on_other_statuses(serve_yaml) -> None:
    card = TWO_INTERFACES_CARD.replace(
        "card:\n  object:",
        "card:\n  well_known: {status: 500, body: oops, content_type: text/plain}\n  legacy: serve\n  object:",
    )
    app, card_url = serve_yaml(CARD_HEAD + card)
    result = run(card_url, "x", options())
    assert result.error is not None and result.error["type"] == "discovery" and "HTTP 500" in result.error["message"]
    assert [e["path"] for e in app.state.journal.snapshot()["entries"]] == [WELL_KNOWN_PATH]


@pytest.mark.parametrize(
    ("card", "words"),
    [
        ("card:\n  raw: '<html>not a card</html>'\n  content_type: text/html\n", ["not JSON", "text/html"]),
        ("card:\n  raw: '[1, 2, 3]'\n", ["not an object", "list"]),
        (
            TWO_INTERFACES_CARD.replace("card:\n  object:", "card:\n  pad_to: 70000\n  object:"),
            ["more than the limit of 65536 bytes"],
        ),
    ],
    ids=["html", "array", "oversize"],
)
def test_bad_cards_are_reported(serve_yaml, card: str, words: list[str]) -> None:
    app, card_url = serve_yaml(CARD_HEAD + card)
    result = run(card_url, "x", options())
    assert result.kind == "error" and result.exit_code == 1
    assert result.error is not None and result.error["type"] == "discovery"
    for word in words:
        assert word in result.error["message"]
    assert not a2a_calls(app.state.journal.snapshot()["entries"])


def test_card_without_a_spoken_interface(serve_yaml) -> None:
    card = (
        TWO_INTERFACES_CARD.replace("protocolBinding: JSONRPC", "protocolBinding: GRPC")
        .replace("protocolBinding: HTTP+JSON", "protocolBinding: GRPC")
        .replace('protocolVersion: "1.0"', 'protocolVersion: "0.3"')
    )
    _, card_url = serve_yaml(CARD_HEAD + card)
    result = run(card_url, "x", options())
    assert result.error is not None and result.error["type"] == "selection"
    assert "GRPC 0.3" in result.error["message"] and "GRPC 1.0" in result.error["message"]  # declared; spoken


def test_card_size_limit_holds_without_content_length() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, stream=httpx.ByteStream(b'{"name": "' + b"x" * 100 + b'"}'), headers={"content-type": JSON}
        )

    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        result = run("http://agent.test", "x", options(card_size_limit=64), http=http)
    assert result.error is not None and result.error["type"] == "discovery"
    assert "larger than the limit of 64 bytes" in result.error["message"]


def test_card_urls() -> None:
    assert card_urls("http://h:1") == ("http://h:1" + WELL_KNOWN_PATH, "http://h:1" + LEGACY_WELL_KNOWN_PATH)
    assert card_urls("http://h:1/scn/x/") == (
        "http://h:1/scn/x" + WELL_KNOWN_PATH,
        "http://h:1/scn/x" + LEGACY_WELL_KNOWN_PATH,
    )
    assert card_urls("http://h:1" + WELL_KNOWN_PATH) == (
        "http://h:1" + WELL_KNOWN_PATH,
        "http://h:1" + LEGACY_WELL_KNOWN_PATH,
    )
    assert card_urls("https://h/cards/agent.json") == ("https://h/cards/agent.json", None)
    with pytest.raises(UsageFailure):
        card_urls("ftp://h/card.json")


def test_bad_url_is_a_usage_error() -> None:
    result = run("not a url", "x", options())
    assert result.exit_code == 2 and result.error is not None and result.error["type"] == "usage"


# ----------------------------------------------------------------------------------- selection (offline)


def card_with(*interfaces: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "name": "n",
        "description": "d",
        "version": "1",
        "capabilities": {},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [],
        "supportedInterfaces": list(interfaces),
        **top,
    }


def test_selection_keeps_card_order_and_skips_what_it_does_not_speak() -> None:
    card = card_with(
        {"url": "h:1", "protocolBinding": "GRPC", "protocolVersion": "0.3"},
        {"url": "http://h/r", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        {"url": "http://h/x", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"},
        {"url": "http://h/j", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "http://h/j", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    )
    sel = select_interfaces(card)
    assert [(i.url, i.binding, i.version) for i in sel.candidates] == [
        ("http://h/r", "HTTP+JSON", "1.0"),
        ("http://h/j", "JSONRPC", "0.3"),
    ]
    assert len(sel.skipped) == 2 and all("not spoken" in s for s in sel.skipped)
    only_rpc = select_interfaces(card, Binding.JSONRPC)
    assert [i.url for i in only_rpc.candidates] == ["http://h/j"]


def test_selection_copies_the_tenant() -> None:
    card = card_with({"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": "acme"})
    (iface,) = select_interfaces(card).candidates
    assert iface.tenant == "acme"


def test_selection_warns_but_never_gives_up() -> None:
    card = card_with(
        {"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.1"},
        {"url": "http://h/b", "protocolBinding": "JSONRPC"},
        protocolVersion="0.3.0",
    )
    sel = select_interfaces(card)
    assert [i.version for i in sel.candidates] == ["1.0", "0.3"]
    assert any("mixed-version" in w for w in sel.warnings)
    assert any("'1.0.1'" in w for w in sel.warnings)
    assert any("no protocolVersion" in w for w in sel.warnings)


def test_fallback_rules() -> None:
    assert invites_fallback(
        ClientFailure("remote", "x", {"code": ErrorType.METHOD_NOT_FOUND.code, "binding": "JSONRPC"})
    )
    assert invites_fallback(
        ClientFailure("remote", "x", {"code": ErrorType.VERSION_NOT_SUPPORTED.code, "binding": "JSONRPC"})
    )
    assert invites_fallback(
        ClientFailure("remote", "x", {"http_status": 400, "reason": "VERSION_NOT_SUPPORTED", "binding": "HTTP+JSON"})
    )
    assert invites_fallback(ClientFailure("http", "x", {"http_status": 405, "binding": "HTTP+JSON"}))
    assert not invites_fallback(ClientFailure("http", "x", {"http_status": 404, "binding": "JSONRPC"}))
    assert not invites_fallback(
        ClientFailure("remote", "x", {"code": ErrorType.INTERNAL_ERROR.code, "binding": "JSONRPC"})
    )
    assert not invites_fallback(ClientFailure("transport", "x", {"binding": "HTTP+JSON"}))


# ----------------------------------------------------------------------------------- reporting and CLI


def test_report_to_env_writes_the_result(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    result = Result(kind=ResultKind.TASK, state=TaskState.COMPLETED, text="ok")
    assert report_to_env(result, {ENV_RESULT: str(target)}) == target
    data = json.loads(target.read_text())
    assert (data["kind"], data["state"], data["text"]) == ("task", "TASK_STATE_COMPLETED", "ok")
    assert report_to_env(result, {}) is None


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("A2A_LAB_")}
    return subprocess.run(
        [sys.executable, "-m", "a2a_lab.harness.cli", "client", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **(env or {})},
        check=False,
    )


def test_cli_json_and_result_file(serve, tmp_path: Path) -> None:
    served = serve("spec/conformant")
    result_path = tmp_path / "result.json"
    proc = cli(served.card_url, "hi", "--json", env={ENV_RESULT: str(result_path)})
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert (printed["kind"], printed["state"], printed["text"]) == ("task", "TASK_STATE_COMPLETED", "echo: hi")
    assert printed["interface"] == {"url": served.url + "/a2a/jsonrpc", "binding": "JSONRPC", "version": "1.0"}
    assert json.loads(result_path.read_text()) == printed
    assert "Traceback" not in proc.stderr


def test_cli_reads_card_url_and_text_from_the_environment(serve) -> None:
    served = serve("quirks/mixed-version-direct-message")
    proc = cli(env={ENV_CARD_URL: served.card_url, ENV_MESSAGE: "help"})
    assert proc.returncode == 0, proc.stderr
    assert "answer:    a message" in proc.stdout and "peerlace understands" in proc.stdout
    sent = json.loads(a2a_calls(served.journal)[0]["body"]["text"])["params"]["message"]["parts"]
    assert sent == [{"text": "help"}]


def test_cli_exit_1_when_the_server_misbehaves(serve) -> None:
    served = serve("quirks/advertised-method-not-found")
    proc = cli(served.card_url, "hello", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["kind"] == "error"
    assert operations_called(served.journal) == [Operation.SEND_MESSAGE.value]


def test_cli_usage_errors_exit_2() -> None:
    assert cli().returncode == 2
    assert cli("http://127.0.0.1:1", "--follow", "-1").returncode == 2
    assert cli("http://127.0.0.1:1", "--binding", "soap").returncode == 2
    proc = cli("mailto:someone")
    assert proc.returncode == 2 and "not an http(s) URL" in proc.stdout
