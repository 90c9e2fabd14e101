"""The reference client and task generations (spec revision 1.1, the `dev-1.1` draft, §3.2.7), against real
a2a-lab servers: it long-polls GetTask and guards a follow-up with `ifGenerationMatch` only where the agent gave the
task a generation, and after a TaskGenerationMismatchError it re-reads the task before it answers again."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.loader import load_file
from a2a_lab.harness.clients.refclient import ClientOptions, run
from a2a_lab.protocol.cards import WELL_KNOWN_PATH
from a2a_lab.protocol.states import TaskState
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

#: The task asks a question; the first follow-up is refused as if another client's message had moved the task.
SCENARIO = """
title: refclient generations test
description: written by tests/harness/test_refclient_generations.py
spec: "A2A 1.1 §3.2.7, §11.6 (dev-1.1 draft)"
spec_revision: "{revision}"
card:
  object:
    name: test agent
    description: A test agent.
    version: "1.0.0"
    supportedInterfaces:
      - {{url: "{{base_url}}/a2a/{path}", protocolBinding: {binding}, protocolVersion: "1.0"}}
    capabilities: {{streaming: false}}
    defaultInputModes: [text/plain]
    defaultOutputModes: [text/plain]
    skills: [{{id: s, name: s, description: d, tags: [t]}}]
task:
  steps: [WORKING, {{state: INPUT_REQUIRED, message: "Which one?"}}, COMPLETED]
behaviour:
  SendMessage:
    - when: {{call: 2}}
      reply: {{error: TaskGenerationMismatch}}
"""


@pytest.fixture
def serve_yaml(tmp_path: Path) -> Iterator[Callable[..., tuple[ScenarioApp, str]]]:
    servers: list[BackgroundServer] = []

    def _serve(revision: str, binding: str = "JSONRPC") -> tuple[ScenarioApp, str]:
        path = tmp_path / f"scenario-{len(servers)}.yaml"
        rest = binding == "HTTP+JSON"
        text = SCENARIO.format(revision=revision, binding=binding, path="rest" if rest else "jsonrpc")
        path.write_text(text, encoding="utf-8")
        app = ScenarioApp(load_file(path, f"test/{path.stem}"))
        server = BackgroundServer(app).start()
        servers.append(server)
        return app, server.url + WELL_KNOWN_PATH

    yield _serve
    for server in servers:
        server.stop()


def _calls(app: ScenarioApp) -> list[tuple[str, dict[str, Any], str]]:
    """(operation, request JSON, query) of each A2A call."""
    out = []
    for e in app.state.journal.snapshot()["entries"]:
        if e.get("operation"):
            text = e["body"]["text"]
            out.append((e["operation"], json.loads(text) if text else {}, e.get("query", "")))
    return out


def _config(body: dict[str, Any]) -> dict[str, Any]:
    params = body.get("params", body)
    config: dict[str, Any] = params.get("configuration", {})
    return config


@pytest.mark.parametrize("binding", ["JSONRPC", "HTTP+JSON"])
def test_a_refused_precondition_is_re_read_then_answered(serve_yaml: Callable[..., Any], binding: str) -> None:
    app, card_url = serve_yaml("1.1", binding)
    result = run(card_url, "pick one", ClientOptions(follow_up="the blue one", sleep=lambda _: None))
    assert result.exit_code == 0 and result.state is TaskState.COMPLETED, result.to_json()
    calls = _calls(app)
    assert [op for op, _, _ in calls] == ["SendMessage", "SendMessage", "GetTask", "SendMessage"]
    first, refused, _, again = (body for _, body, _ in calls)
    assert "ifGenerationMatch" not in _config(first), "a message that starts a task names no generation"
    assert _config(refused)["ifGenerationMatch"] == "2" == _config(again)["ifGenerationMatch"]
    assert any("the task moved before the follow-up" in w for w in result.warnings), result.warnings


def test_no_generation_no_precondition(serve_yaml: Callable[..., Any]) -> None:
    """A v1.0.1 agent gives no generation: the follow-up names none, and the (scripted) refusal stands."""
    app, card_url = serve_yaml("1.0.1")
    result = run(card_url, "pick one", ClientOptions(follow_up="the blue one", sleep=lambda _: None))
    calls = _calls(app)
    assert [op for op, _, _ in calls] == ["SendMessage", "SendMessage"]
    assert all("ifGenerationMatch" not in _config(body) for _, body, _ in calls)
    assert result.error is not None and "follow-up" in result.error["message"], result.to_json()
