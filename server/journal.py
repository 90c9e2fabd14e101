"""The request journal: what every request carried and what it got, bounded in memory.

Entries are typed records (journal_record.Entry) built cheaply on the request path; bytes are decoded only when read.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from .journal_record import BODY_KEEP_BYTES, Entry, EntryKind
from .redaction import DEFAULT, Redaction

__all__ = ["BODY_KEEP_BYTES", "Journal"]


class Journal:
    def __init__(self, cap: int = 10_000, redaction: Redaction = DEFAULT) -> None:
        self.cap = cap
        #: How the scenario's credentials are hidden in every entry (its card's securitySchemes included).
        self.redaction = redaction
        self.entries: deque[Entry] = deque()
        self.dropped = 0
        self._seq = 0
        self._t0 = time.monotonic()
        self._changed = threading.Condition()

    def touch(self) -> None:
        """Wake anyone waiting in wait_for (the journal changed)."""
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float = 10.0) -> bool:
        """Block (another thread than the server's) until predicate(exported entries) holds; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self.snapshot()["entries"]):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def reset(self) -> None:
        self.entries.clear()
        self.dropped = 0
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
        if len(self.entries) >= self.cap:
            self.entries.popleft()
            self.dropped += 1
        self.entries.append(entry)
        self.touch()
        return entry

    def records(self, since: int = 0) -> list[Entry]:
        return [e for e in list(self.entries) if e.seq > since]

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        return {
            "dropped": self.dropped,
            "cap": self.cap,
            "entries": [e.to_json() for e in self.records(since)],
        }

    def jsonl(self) -> str:
        return "".join(json.dumps(e.to_json(), separators=(",", ":")) + "\n" for e in list(self.entries))
