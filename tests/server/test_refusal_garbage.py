"""A refused call leaves nothing for the cyclic garbage collector: everything it made is freed as soon as it is
answered (a serving process answers thousands of refusals a second; garbage cycles are freed only by collections)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.loader import load_file
from a2a_lab.server.app import ScenarioApp

from .helpers import asgi_post, body_of, message, scenario_text, write_scenario


async def call(app: ScenarioApp, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC call through the app's ASGI interface, in this thread (no server, no socket)."""
    answer: dict[str, Any] = body_of(
        await asgi_post(app, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    )
    return answer


@pytest.fixture
def collector_off() -> Iterator[None]:
    """The collector off and emptied, so that gc.collect() afterwards counts only the cycles the test left."""
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def cycles_left(app: ScenarioApp, method: str, params: dict[str, Any], calls: int) -> tuple[int, dict[str, Any]]:
    async def run() -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for _ in range(calls):
            answer = await call(app, method, params)
        return answer

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(call(app, "SendMessage", {"message": message()}))  # first-call set-up out of the count
        gc.collect()
        answer = loop.run_until_complete(run())
    finally:
        loop.close()
    return gc.collect(), answer


@pytest.mark.usefixtures("collector_off")
@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        # the refusal a call's execution raises (dispatch): it left ~33 objects a call (frames, the exchange, the
        # invocation, ...) before the decision dropped the error's traceback
        ("GetTask", {"id": "no-such-task"}, -32001),
        ("SendMessage", {"message": {"role": "ROLE_USER"}}, -32602),  # refused while reading the params
        ("NoSuchMethod", {}, -32601),  # refused before them
    ],
)
def test_a_refused_call_leaves_no_garbage_cycles(
    tmp_path: Path, method: str, params: dict[str, Any], code: int
) -> None:
    app = ScenarioApp(load_file(write_scenario(tmp_path, scenario_text())))
    left, answer = cycles_left(app, method, params, calls=20)
    assert answer["error"]["code"] == code
    assert left == 0


@pytest.mark.usefixtures("collector_off")
def test_an_answered_call_leaves_no_garbage_cycles(tmp_path: Path) -> None:
    app = ScenarioApp(load_file(write_scenario(tmp_path, scenario_text())))
    left, answer = cycles_left(app, "SendMessage", {"message": message()}, calls=20)
    assert "result" in answer
    assert left == 0
