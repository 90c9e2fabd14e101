"""The request journal: what every request carried and what it got, bounded in memory.

Entries are plain dicts built cheaply on the request path; bytes are decoded only when read.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

#: Headers whose values never reach a journal, a log or a report.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "x-a2a-notification-token",
        "x-a2a-lab-token",
    }
)
#: A journal keeps at most this much of each body (the size is recorded), so its memory stays bounded.
BODY_KEEP_BYTES = 64 * 1024


def redact(name: str, value: str) -> str:
    if name.lower() not in SECRET_HEADERS:
        return value
    scheme, sep, _ = value.partition(" ")
    return f"{scheme} <redacted>" if sep and name.lower() in ("authorization", "proxy-authorization") else "<redacted>"


def redact_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        value = redact(key, value)
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


#: JSON members whose values are credentials (push config `token`, `authentication.credentials`).
SECRET_FIELDS = frozenset({"credentials", "token"})


def _redact_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: ("<redacted>" if k in SECRET_FIELDS and isinstance(v, str) else _redact_json(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact_json(v) for v in value]
    return value


def redact_body(text: str) -> str:
    """A JSON body with its credentials replaced; other text unchanged. Cheap when there is nothing to hide."""
    if not any(f'"{name}"' in text for name in SECRET_FIELDS):
        return text
    try:
        return json.dumps(_redact_json(json.loads(text)), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return text


def _text(data: bytes) -> dict[str, Any]:
    kept = data[:BODY_KEEP_BYTES]
    out: dict[str, Any] = {"size": len(data)}
    if len(data) > BODY_KEEP_BYTES:
        out["truncated"] = True
    try:
        out["text"] = redact_body(kept.decode("utf-8"))
    except UnicodeDecodeError:
        out["base64"] = base64.b64encode(kept).decode("ascii")
    return out


class Journal:
    def __init__(self, cap: int = 10_000) -> None:
        self.cap = cap
        self.entries: deque[dict[str, Any]] = deque()
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
        self, method: str, path: str, query: str, raw_headers: list[tuple[bytes, bytes]], body: bytes, kind: str
    ) -> dict[str, Any]:
        """Record a request as it arrives, before it is answered (so a stalled answer is still seen)."""
        self._seq += 1
        entry: dict[str, Any] = {
            "seq": self._seq,
            "t": self.offset(),
            "kind": kind,
            "method": method,
            "path": path,
            "query": query,
            "_headers": raw_headers,
            "_body": body[:BODY_KEEP_BYTES],
        }
        if len(body) > BODY_KEEP_BYTES:
            entry["body_size"] = len(body)
        if len(self.entries) >= self.cap:
            self.entries.popleft()
            self.dropped += 1
        self.entries.append(entry)
        self.touch()
        return entry

    @staticmethod
    def export(entry: dict[str, Any]) -> dict[str, Any]:
        """An entry as JSON-ready data: headers redacted, bodies decoded."""
        out = {k: v for k, v in entry.items() if not k.startswith("_")}
        out["headers"] = redact_headers(
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in entry.get("_headers", [])
        )
        out["body"] = _text(entry.get("_body", b""))
        if "body_size" in out:
            out["body"].update(size=out.pop("body_size"), truncated=True)
        response = out.get("response")
        if response and "_body" in response:
            response = {k: v for k, v in response.items() if k != "_body"}
            response["body"] = _text(entry["response"]["_body"])
            if "body_size" in response:
                response["body"].update(size=response.pop("body_size"), truncated=True)
            out["response"] = response
        if entry.get("events"):
            out["events"] = [
                {**{k: v for k, v in ev.items() if k != "_data"}, "data": json.loads(ev["_data"])}
                if "_data" in ev
                else ev
                for ev in entry["events"]
            ]
        return out

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        return {
            "dropped": self.dropped,
            "cap": self.cap,
            "entries": [self.export(e) for e in list(self.entries) if e["seq"] > since],
        }

    def jsonl(self) -> str:
        return "".join(json.dumps(self.export(e), separators=(",", ":")) + "\n" for e in list(self.entries))
