"""A failure of a2a-lab's own while it answers: before the answer began, the client gets a JSON-RPC internal error
(-32603) saying so; after, the connection ends (a second answer cannot start). Under uvicorn the server says whether
the answer began; under any other ASGI server a2a-lab watches its sends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.loader import load_file
from a2a_lab.server import dispatch, intake, jsonrpc_endpoint
from a2a_lab.server.app import ScenarioApp

from .helpers import Lab, asgi_post, message, scenario_text, write_scenario

STREAM = """
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
"""


def broken_execute(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a bug in a2a-lab")


def test_a_failure_before_the_answer_is_an_internal_error_under_uvicorn(
    lab: Callable[..., Lab], monkeypatch: pytest.MonkeyPatch
) -> None:
    served = lab()
    monkeypatch.setattr(dispatch, "execute", broken_execute)
    answer = served.send()
    assert answer.status_code == 200
    error = answer.json()["error"]
    assert error["code"] == -32603
    assert "a2a-lab internal error (RuntimeError)" in error["message"]


def test_a_failure_after_the_answer_began_ends_the_connection_under_uvicorn(
    lab: Callable[..., Lab], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the client sees: the stream cut, never an answer after it. (Whether a2a-lab reads uvicorn's "answer
    began" right is proven by the test before this one and, for a second head, by the plain-caller test below:
    uvicorn itself refuses a second head, so this one cannot tell.)"""
    served = lab(STREAM)
    real_render = jsonrpc_endpoint._with_envelope
    calls = [0]

    def fails_at_second_event(body: dict[str, Any], *rest: Any) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("a bug in a2a-lab, mid-stream")
        return real_render(body, *rest)

    monkeypatch.setattr(jsonrpc_endpoint, "_with_envelope", fails_at_second_event)
    with pytest.raises(httpx.HTTPError):  # the stream ends without its last chunk: never a second answer
        served.rpc("SendStreamingMessage", {"message": message()}).read()
    assert calls[0] == 2


def test_a_failure_before_the_answer_is_an_internal_error_under_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = ScenarioApp(load_file(write_scenario(tmp_path, scenario_text())))
    monkeypatch.setattr(dispatch, "execute", broken_execute)
    request = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}}
    sent = asyncio.run(asgi_post(app, request))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert json.loads(sent[1]["body"])["error"]["code"] == -32603


def test_a_failure_after_the_answer_began_sends_nothing_more_under_any_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = ScenarioApp(load_file(write_scenario(tmp_path, scenario_text())))

    async def fails_after_the_head(self: intake.Exchange, status: int, *rest: Any, **kw: Any) -> None:
        await self.send({"type": "http.response.start", "status": status, "headers": []})
        raise RuntimeError("a bug in a2a-lab, after the head")

    monkeypatch.setattr(intake.Exchange, "answer", fails_after_the_head)
    request = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}}
    sent = asyncio.run(asgi_post(app, request))
    assert [m["type"] for m in sent] == ["http.response.start"]  # no second head
