"""Reading a stream as it passes, chunk by chunk, into the journal's `SentEvent`s (the bytes themselves are
forwarded untouched elsewhere): an SSE stream (`EventReader`) or an NDJSON one (`LineReader`, one line one event), so
both are journaled alike, event by event with its time. A `data:` (or a line) that is not JSON is kept as the text
that came (`value`), to be judged."""

from __future__ import annotations

from collections.abc import Callable

from a2a_lab.contract.journal_record import SentEvent, SentKind
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.bindings import EVENT_STREAM, NDJSON


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
        """The stream ended: a last block without its blank line is journaled as what came, marked `unterminated`,
        since no SSE client dispatches it (at end of file pending data is discarded: WHATWG HTML §9.2.6)."""
        if self._buffer.strip():
            self._event(self._buffer.decode("utf-8", "replace"), unterminated=True)
        self._buffer = b""

    def _event(self, block: str, unterminated: bool = False) -> None:
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
        if data:
            _data(self.emit, self.clock(), "\n".join(data), name, unterminated)


class LineReader(EventReader):
    """NDJSON (`application/x-ndjson`): each line is one event; blank lines carry none. A last line without its
    newline is an event like the others, not marked `unterminated`: NDJSON readers keep it (httpx's `iter_lines` /
    `aiter_lines` yield it at the end of the body, as do line readers generally), so its client did receive it."""

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self._event(line.decode("utf-8", "replace"))

    def _event(self, block: str, unterminated: bool = False) -> None:  # `unterminated` ignored: see the class
        text = block.removesuffix("\r")
        if text.strip():
            _data(self.emit, self.clock(), text, None, False)


def _data(emit: Callable[[SentEvent], None], t: float, text: str, name: str | None, unterminated: bool) -> None:
    """A data event: its JSON text, or (not JSON) the text that came, kept as `value` to be judged."""
    try:
        jsontext.loads(text.encode("utf-8"))
    except (ValueError, RecursionError):
        emit(SentEvent(t, SentKind.DATA, value=text, event=name, unterminated=unterminated))
        return
    emit(SentEvent(t, SentKind.DATA, text=text, event=name, unterminated=unterminated))


#: The readers of the stream media types the proxy journals event by event.
READERS: dict[str, type[EventReader]] = {EVENT_STREAM: EventReader, NDJSON: LineReader}


def reader_for(content_type: str) -> type[EventReader] | None:
    """The reader for an answer's media type, or None when it is not a stream."""
    return READERS.get(content_type.split(";", 1)[0].strip().lower())


def malformed(event: SentEvent) -> bool:
    """A `data:` event whose text is not JSON (kept as it came)."""
    return event.kind is SentKind.DATA and event.text is None and isinstance(event.value, str)
