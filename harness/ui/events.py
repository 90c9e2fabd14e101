"""Live updates: server-sent events (sse-starlette) that carry, whenever what a page shows has changed, the new HTML of
each of its live regions (`{element id: html}`, rendered and escaped on the server); the page's script puts each in
place. A page without the script shows the same regions as of its loading (reload for more)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Hashable
from typing import Any, Protocol

from sse_starlette.sse import EventSourceResponse

#: How often a live page's source is asked whether it changed (a journal's length and size: cheap).
POLL_S = 0.25


class Live(Protocol):
    """Whatever a live page shows: a proxied pair, a run of the shared server."""

    @property
    def done(self) -> bool: ...

    def signature(self) -> Hashable: ...


def stream(live: Live, regions: Callable[[], dict[str, str]]) -> EventSourceResponse:
    """An event `update` with the regions each time `live.signature()` changes, and `done` once it is done."""

    async def events() -> AsyncIterator[dict[str, Any]]:
        last: Any = object()
        while True:
            try:
                now = await asyncio.to_thread(live.signature)
            except Exception as exc:  # the source went away (a run ended elsewhere): say so, and stop
                yield {"event": "gone", "data": f"{type(exc).__name__}: {exc}"}
                return
            if now != last:
                last = now
                yield {"event": "update", "data": json.dumps(await asyncio.to_thread(regions))}
            if live.done:
                yield {"event": "done", "data": ""}
                return
            await asyncio.sleep(POLL_S)

    return EventSourceResponse(events(), ping=15)
