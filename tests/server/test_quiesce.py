"""`BackgroundServer.quiesce`: the harness reads a scenario's journal only once the server has finished every request
it was answering. A client can have its answer (a reset, the last bytes of a body) before the server has written down
how the answer ended (`fault_outcome`); reading the journal then lost it, and a loop-mode client, quicker than a
process's exit, saw `faults/connection-reset` judged as if the task had been delivered (issue 32, found under load)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx

from a2a_lab.server.hosting import BackgroundServer


def test_quiesce_waits_for_the_requests_still_being_answered() -> None:
    release, finished = threading.Event(), threading.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})
        await asyncio.to_thread(release.wait, 10)  # the client has its answer; the server is still writing it down
        finished.set()

    with BackgroundServer(app) as server:
        assert httpx.get(server.url).text == "ok"
        assert not finished.is_set()
        assert server.quiesce(timeout=0.05) is False, "a request still runs: quiesce says so when its time is up"
        release.set()
        assert server.quiesce(timeout=5) is True
        assert finished.is_set(), "quiesce returned only once the request had ended"
        assert server.quiesce(timeout=0.05) is True, "nothing in flight: at once"
