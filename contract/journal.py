"""The request journal: what every request carried and what it got, bounded in memory.

Entries are typed records (journal_record.Entry) built cheaply on the request path; bytes are decoded only when read.
The journal keeps at most `cap` entries and about `cap_bytes` bytes: each entry's size is estimated from lengths at
hand (the kept body, the headers, the kept answer, each stream event's text), never by encoding it; the oldest
entries are dropped first, and counted (`dropped`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from itertools import chain, islice
from typing import Any

from a2a_lab.protocol import jsontext

from .journal_record import BODY_KEEP_BYTES, Entry, EntryKind, TlsInfo
from .redaction import DEFAULT, Redaction

__all__ = ["BODY_KEEP_BYTES", "Journal"]


#: What an entry keeps besides the bytes of its body, headers and answer: the record, its answer, times and ids
#: (measured with tracemalloc: ~3.4 KB for a small JSON-RPC call, of which ~0.9 KB its bodies).
ENTRY_OVERHEAD = 2048
#: What one stream event keeps besides its text (the record, its time).
EVENT_OVERHEAD = 128
#: A journal's byte budget unless told otherwise (the scenario's limits.journal_bytes).
CAP_BYTES = 64 * 1024 * 1024


def header_bytes(raw_headers: Sequence[tuple[bytes, bytes]]) -> int:
    """The bytes of the headers' names and values (on every request: summed in C, no Python loop)."""
    return sum(map(len, chain.from_iterable(raw_headers)))


class Journal:
    def __init__(self, cap: int = 10_000, redaction: Redaction = DEFAULT, cap_bytes: int = CAP_BYTES) -> None:
        self.cap = cap
        self.cap_bytes = cap_bytes
        #: How the scenario's credentials are hidden in every entry (its card's securitySchemes included).
        self.redaction = redaction
        self.entries: deque[Entry] = deque()
        self.dropped = 0
        #: The estimated bytes of the entries kept (the sum of their `size`).
        self.bytes = 0
        self._seq = 0
        self._t0 = time.monotonic()
        self._changed = threading.Condition()
        #: Threads in wait_for: a change wakes them (and costs a lock and a notify) only when there are some.
        self._waiting = 0
        self._meter = self._grew  # one bound method for every entry, not one per entry

    def touch(self) -> None:
        """Wake anyone waiting in wait_for (the journal changed). A waiter counts itself, under the lock, before it
        reads the journal: a change made before this count is read is one the waiter sees when it reads."""
        if self._waiting:
            with self._changed:
                self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float = 10.0) -> bool:
        """Block (another thread than the server's) until predicate(exported entries) holds; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            self._waiting += 1
            try:
                while not predicate(self.snapshot()["entries"]):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._changed.wait(left)
            finally:
                self._waiting -= 1
        return True

    def reset(self) -> None:
        for entry in self.entries:
            entry.meter = None  # an answer still being sent no longer counts here
        self.entries.clear()
        self.dropped = 0
        self.bytes = 0
        self._seq = 0
        self._t0 = time.monotonic()

    def offset(self) -> float:
        return round(time.monotonic() - self._t0, 4)

    def open(
        self,
        method: str,
        path: str,
        query: str,
        raw_headers: Sequence[tuple[bytes, bytes]],
        body: bytes,
        kind: EntryKind,
    ) -> Entry:
        """Record a request as it arrives, before it is answered (so a stalled answer is still seen)."""
        self._seq += 1
        entry = Entry.opened(self._seq, self.offset(), kind, method, path, query, raw_headers, body, self.redaction)
        # A body past BODY_KEEP_BYTES is kept as its cut, redacted text (raw_body is then empty): count what is kept.
        kept_text = entry.parsed_body.text if entry.parsed_body is not None else None
        entry.size = ENTRY_OVERHEAD + len(entry.raw_body) + len(kept_text or "") + header_bytes(raw_headers)
        entry.meter = self._meter
        if len(self.entries) >= self.cap:
            self._drop_oldest()
        self.entries.append(entry)
        self.bytes += entry.size
        if self.bytes > self.cap_bytes:
            self._trim()
        self.touch()
        return entry

    def open_tls(self, tls: TlsInfo) -> Entry:
        """Record a TLS connection as its ClientHello arrives (server/tls.py marks it completed after the handshake)."""
        entry = self.open("", "", "", (), b"", EntryKind.TLS)
        entry.tls = tls
        return entry

    def _grew(self, entry: Entry, kept: int) -> None:
        self.bytes += kept
        if self.bytes > self.cap_bytes:
            self._trim()

    def _trim(self) -> None:
        """Drop the oldest entries until the journal is within its bytes (the newest stays, whatever its size)."""
        while self.bytes > self.cap_bytes and len(self.entries) > 1:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        oldest = self.entries.popleft()
        oldest.meter = None
        self.bytes -= oldest.size
        self.dropped += 1

    def records(self, since: int = 0) -> list[Entry]:
        return [e for e in list(self.entries) if e.seq > since]

    def page(self, after: int = 0, limit: int | None = None) -> tuple[list[Entry], int | None]:
        """The entries after seq `after`, at most `limit` of them (None: all), and the cursor of the next page: the
        last seq given when more entries follow it now, else None. Without a copy of the rest of the journal."""
        if not self.entries:
            return [], None
        start = max(0, after + 1 - self.entries[0].seq)  # seqs are consecutive: one per open()
        stop = None if limit is None else start + limit
        entries = [e for e in islice(self.entries, start, stop) if e.seq > after]
        more = stop is not None and stop < len(self.entries)
        return entries, (entries[-1].seq if more and entries else None)

    def summary(self) -> dict[str, Any]:
        """What bounds the journal and what it dropped: the head of every export."""
        return {"dropped": self.dropped, "cap": self.cap, "cap_bytes": self.cap_bytes, "bytes": self.bytes}

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        return {**self.summary(), "entries": [e.to_json() for e in self.records(since)]}

    def jsonl(self) -> str:
        return "".join(line(e).decode() + "\n" for e in list(self.entries))


def line(entry: Entry) -> bytes:
    """An entry's documented JSON, compact UTF-8: a line of `journal.jsonl`, an item of `/_lab/journal`."""
    return jsontext.dumps(entry.to_json())
