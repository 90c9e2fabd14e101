"""Reading an event stream as it passes, chunk by chunk, into the journal's `SentEvent`s (the bytes themselves are
forwarded untouched elsewhere). A `data:` that is not JSON is kept as the text that came (`value`), to be judged."""

from __future__ import annotations

import json
from collections.abc import Callable

from a2a_lab.contract.journal_record import SentEvent, SentKind


class EventReader:
    """Feed it the stream's bytes; it calls `emit` with each complete event, timed by `clock`."""

    def __init__(self, emit: Callable[[SentEvent], None], clock: Callable[[], float]) -> None:
        self.emit, self.clock = emit, clock
        self._buffer = b""

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        while b"\n\n" in self._buffer:
            block, self._buffer = self._buffer.split(b"\n\n", 1)
            self._event(block.decode("utf-8", "replace"))

    def close(self) -> None:
        """The stream ended: an unterminated last block is still an event (judged as what came)."""
        if self._buffer.strip():
            self._event(self._buffer.decode("utf-8", "replace"))
        self._buffer = b""

    def _event(self, block: str) -> None:
        data: list[str] = []
        name: str | None = None
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
            elif field == "" and line.startswith(":"):
                self.emit(SentEvent(self.clock(), SentKind.COMMENT, text=value))
        if not data:
            return
        text = "\n".join(data)
        try:
            json.loads(text)
        except ValueError:
            self.emit(SentEvent(self.clock(), SentKind.DATA, value=text, event=name))
            return
        self.emit(SentEvent(self.clock(), SentKind.DATA, text=text, event=name))


def malformed(event: SentEvent) -> bool:
    """A `data:` event whose text is not JSON (kept as it came)."""
    return event.kind is SentKind.DATA and event.text is None and isinstance(event.value, str)
