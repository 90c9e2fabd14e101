"""Server-sent events read from a server under test within bounds: one event's bytes (a line or an event's data that
never ends is cut, not buffered), the stream's bytes, and a deadline checked on every chunk that arrives (so events
with no data, comments and a trickle of single bytes all end with the stream's time)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: One event (its lines, its data) at most; a stream's bytes at most.
EVENT_BYTES = 4 * 1024 * 1024
STREAM_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Event:
    event: str
    data: str


class _Parser:
    """The SSE line grammar (WHATWG: `data`, `event`; comments and other fields ignored), fed bytes."""

    def __init__(self) -> None:
        self.pending = bytearray()
        self.data: list[bytes] = []
        self.data_bytes = 0
        self.event = ""

    def feed(self, chunk: bytes) -> list[Event] | None:
        """The events `chunk` completes; None when an event grows past EVENT_BYTES."""
        self.pending += chunk
        out: list[Event] = []
        while True:
            cut = _line_end(self.pending)
            if cut is None:
                break
            end, after = cut
            line = bytes(self.pending[:end])
            del self.pending[:after]
            event = self._line(line)
            if event is not None:
                out.append(event)
        if len(self.pending) + self.data_bytes > EVENT_BYTES:
            return None
        return out

    def _line(self, line: bytes) -> Event | None:
        if not line:
            if not self.data and not self.event:
                return None
            event = Event(self.event, b"\n".join(self.data).decode("utf-8", "replace"))
            self.data, self.data_bytes, self.event = [], 0, ""
            return event
        if line.startswith(b":"):
            return None
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self.data.append(value)
            self.data_bytes += len(value) + 1
        elif name == b"event":
            self.event = value.decode("utf-8", "replace")
        return None


def _line_end(buffer: bytearray) -> tuple[int, int] | None:
    """Where the first line of `buffer` ends and the next starts (CRLF, LF or CR); None while it may go on (a CR at
    the very end may be the first half of a CRLF)."""
    lf, cr = buffer.find(b"\n"), buffer.find(b"\r")
    if cr < 0 or (0 <= lf < cr):
        return None if lf < 0 else (lf, lf + 1)
    if cr + 1 == len(buffer):
        return None
    return (cr, cr + 2) if buffer[cr + 1] == 0x0A else (cr, cr + 1)


class Reader:
    """The events of one stream; `problem` says why it stopped early ("" when the stream ended by itself)."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.problem = ""

    def events(self, chunks: Iterable[bytes]) -> Iterator[Event]:
        """The events in `chunks`, stopping past EVENT_BYTES (one event), STREAM_BYTES (all) or the deadline (a
        time.monotonic() value, checked whenever a chunk arrives)."""
        parser, total = _Parser(), 0
        for chunk in chunks:
            total += len(chunk)
            if total > STREAM_BYTES:
                self.problem = f"more than {STREAM_BYTES} bytes of stream"
                return
            found = parser.feed(chunk)
            if found is None:
                self.problem = f"an event of more than {EVENT_BYTES} bytes"
                return
            yield from found
            if time.monotonic() > self.deadline:
                self.problem = "the stream did not end in time"
                return
