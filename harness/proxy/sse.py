"""Reading a stream as it passes, chunk by chunk, into the journal's `SentEvent`s (the bytes themselves are
forwarded untouched elsewhere): an SSE stream (`EventReader`) or an NDJSON one (`LineReader`, one line one event), so
both are journaled alike, event by event with its time. A `data:` (or a line) that is not JSON is kept as the text
that came (`value`), to be judged."""

from __future__ import annotations

from collections.abc import Callable

from a2a_lab.contract.journal_record import SentEvent, SentKind
from a2a_lab.harness.proxy import limits
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.bindings import EVENT_STREAM, NDJSON

#: How the journal writes an event larger than the proxy reads (`oversized`): its size and first bytes, not JSON.
OVERSIZED = "(a2a-lab proxy: an event of "


class EventReader:
    """Feed it the stream's bytes; it calls `emit` with each complete event, timed by `clock`.

    Each byte is looked at once: the search for an event's end goes on where it stopped, and only the event being
    read is kept. One event is read up to `limits.MAX_EVENT` bytes (and while the `share` of the proxy's budget
    holds it): a larger one is journaled as its size and first bytes (`OVERSIZED`), the rest of it passed over."""

    #: What ends an event (after CRLF is read as LF).
    END = b"\n\n"

    def __init__(
        self, emit: Callable[[SentEvent], None], clock: Callable[[], float], share: limits.Share | None = None
    ) -> None:
        self.emit, self.clock, self.share = emit, clock, share
        self.limit = limits.MAX_EVENT
        self._buffer = bytearray()
        #: A CR that ended a chunk (its LF may start the next).
        self._cr = b""
        #: An oversized event being passed over: its size so far, its first bytes, and the bytes that may start
        #: its END; None while reading an event.
        self._skipped: int | None = None
        self._head = b""
        self._tail = b""
        self._why = ""

    def _normal(self, chunk: bytes) -> bytes:
        """The chunk with CRLF read as LF (a CR at its end waits for the next chunk)."""
        data = self._cr + chunk
        self._cr = b""
        if data.endswith(b"\r"):
            data, self._cr = data[:-1], b"\r"
        return data.replace(b"\r\n", b"\n")

    def feed(self, chunk: bytes) -> None:
        data = self._normal(chunk)
        if self._skipped is not None:
            data = self._pass_over(data)
            if self._skipped is not None:
                return
        searched = max(len(self._buffer) - len(self.END) + 1, 0)  # what came before holds no END
        self._buffer += data
        self._split(searched)

    def _split(self, searched: int) -> None:
        buffer, end, start = self._buffer, self.END, 0
        while True:
            found = buffer.find(end, max(searched, start))
            if found < 0:
                break
            if found - start > self.limit:
                self._why = self._past()
                self._oversized(found - start, bytes(buffer[start : min(found, start + limits.QUOTE_BYTES)]))
            else:
                self._event(bytes(buffer[start:found]).decode("utf-8", "replace"))
            start = found + len(end)
        if start:
            del buffer[:start]
        held = len(buffer) <= self.limit and (self.share is None or self.share.hold(len(buffer)))
        if not held:
            self._why = self._past() if len(buffer) > self.limit else "while the proxy held all it may for requests"
            self._skipped, self._head = len(buffer), bytes(buffer[: limits.QUOTE_BYTES])
            self._tail = bytes(buffer[len(buffer) - len(end) + 1 :])
            buffer.clear()
            if self.share is not None:
                self.share.hold(0)

    def _pass_over(self, data: bytes) -> bytes:
        """Pass over the oversized event's bytes up to its END; what follows it (b"" when it goes on)."""
        assert self._skipped is not None
        seen = self._tail + data
        found = seen.find(self.END)
        if found < 0:
            self._skipped += len(data)
            self._tail = seen[len(seen) - len(self.END) + 1 :]
            return b""
        self._oversized(self._skipped + found - len(self._tail), self._head)
        self._skipped, self._head, self._tail = None, b"", b""
        return seen[found + len(self.END) :]

    def _past(self) -> str:
        return f"more than the {self.limit} bytes the proxy reads of one"

    def _oversized(self, size: int, head: bytes, unterminated: bool = False) -> None:
        text = head.decode("utf-8", "replace")
        said = f"{size} bytes, not read: {self._why}; its first bytes: {text!r})"
        self.emit(SentEvent(self.clock(), SentKind.DATA, value=OVERSIZED + said, unterminated=unterminated))

    def close(self) -> None:
        """The stream ended: a last block without its blank line is journaled as what came, marked `unterminated`,
        since no SSE client dispatches it (at end of file pending data is discarded: WHATWG HTML §9.2.6)."""
        if self._skipped is not None:
            self._oversized(self._skipped, self._head, unterminated=True)
        else:
            self._buffer += self._cr
            if self._buffer.strip():
                self._event(bytes(self._buffer).decode("utf-8", "replace"), unterminated=True)
        self._buffer.clear()
        self._skipped, self._cr = None, b""
        if self.share is not None:
            self.share.hold(0)

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

    END = b"\n"

    def _normal(self, chunk: bytes) -> bytes:
        return chunk

    def _oversized(self, size: int, head: bytes, unterminated: bool = False) -> None:
        super()._oversized(size, head)

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


def oversized(event: SentEvent) -> bool:
    """An event larger than the proxy reads of one: journaled as its size and first bytes."""
    return malformed(event) and str(event.value).startswith(OVERSIZED)
