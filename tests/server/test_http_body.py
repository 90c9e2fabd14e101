"""read_body: a body that is there already is read without a timer; one that is awaited keeps its deadline, and a
cancellation from outside still cancels."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from a2a_lab.server import http


def _messages(*chunks: bytes, wait: asyncio.Event | None = None) -> Callable[[], Awaitable[dict[str, Any]]]:
    pending = list(chunks)

    async def receive() -> dict[str, Any]:
        if wait is not None:
            await wait.wait()
        body = pending.pop(0)
        return {"type": "http.request", "body": body, "more_body": bool(pending)}

    return receive


def test_a_body_that_is_there_is_read_at_once() -> None:
    assert asyncio.run(http.read_body(_messages(b'{"a":', b"1}"), 100)) == b'{"a":1}'


def test_a_body_that_is_awaited_is_read_when_it_comes() -> None:
    async def scenario() -> bytes:
        arrived = asyncio.Event()
        reading = asyncio.ensure_future(http.read_body(_messages(b"ab", b"cd", wait=arrived), 100))
        await asyncio.sleep(0)
        assert not reading.done()
        arrived.set()
        return await reading

    assert asyncio.run(scenario()) == b"abcd"


def test_a_body_that_never_comes_times_out_with_what_came() -> None:
    never = asyncio.Event()
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls > 1:
            await never.wait()
        return {"type": "http.request", "body": b"part", "more_body": True}

    with pytest.raises(http.BodyTimeout) as caught:
        asyncio.run(http.read_body(receive, 100, seconds=0.05))
    assert caught.value.received == b"part"


def test_a_cancellation_from_outside_is_not_a_timeout() -> None:
    async def scenario() -> None:
        reading = asyncio.ensure_future(http.read_body(_messages(b"x", wait=asyncio.Event()), 100))
        await asyncio.sleep(0)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading

    asyncio.run(scenario())


def test_too_large_and_disconnect_are_reported() -> None:
    with pytest.raises(http.BodyTooLarge):
        asyncio.run(http.read_body(_messages(b"x" * 10, b"y" * 10), 15))

    async def gone() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    with pytest.raises(ConnectionResetError):
        asyncio.run(http.read_body(gone, 100))
