"""A HAR capture (HTTP Archive 1.2: browser devtools, mitmproxy, Charles) read into the proxy's journal, as if the
exchanges had passed through `a2a-lab proxy`: the card it holds decides which requests are A2A calls, each is
journaled with the same record, and `capture.document` writes the scenario (`a2a-lab record --from-har`). Read
through the one bounded reader of user files (contract/userfile.py, kind HAR).

Pacing: what a HAR records of time is used so a replayed answer is paced like the captured one. An entry's
`startedDateTime` places it in the session, `timings.wait` (the time to the first byte) becomes its answer's delay,
and `timings.receive` (the time to read the whole body) is spread over a stream's events evenly: HAR keeps no time
per event. Absurd values are capped (MAX_WAIT_MS, MAX_RECEIVE_MS) and `Pacing.note` says what was capped."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract import userfile
from a2a_lab.contract.journal import Journal
from a2a_lab.contract.journal_record import Entry, EntryKind, SentEvent, SentKind
from a2a_lab.protocol.bindings import EVENT_STREAM
from a2a_lab.protocol.exceptions import LabError

from . import classify
from .app import VERSION_HEADER, CardSeen, ProxyState, record_answer, record_stream
from .routes import CARD_PATHS, Routes, origin_of
from .sse import EventReader

#: The longest time to the first byte a replay waits, and the longest a stream's events are spread over: a capture
#: that says more (a paused debugger, a laptop asleep) would hold a replay's client for minutes.
MAX_WAIT_MS = 10_000.0
MAX_RECEIVE_MS = 30_000.0


class HarError(LabError):
    """A HAR that cannot be read, or holds no agent card or no A2A exchange: says where, and how to fix it."""


@dataclass
class Pacing:
    """What the capture's timings gave the replay: how many answers were paced, and what was capped."""

    paced: int = 0
    streams: int = 0
    capped: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        """For the scenario's `observed:` note: where the pacing comes from, and its limits."""
        if not self.paced:
            return "the HAR recorded no timings: answers are replayed at once"
        said = f"each answer delayed by its HAR timings.wait (time to the first byte), {self.paced} answer(s)"
        if self.streams:
            said += (
                f"; HAR gives no per-event times, so each stream's timings.receive is spread evenly over its events "
                f"({self.streams} stream(s))"
            )
        if self.capped:
            shown = "; ".join(self.capped[:3]) + (f"; and {len(self.capped) - 3} more" if len(self.capped) > 3 else "")
            said += f"; capped at {MAX_WAIT_MS:.0f} ms (wait) and {MAX_RECEIVE_MS:.0f} ms (receive): {shown}"
        return said


@dataclass
class HarSession:
    """A capture read as a proxy session: its state (card and journal) and how its answers are paced."""

    state: ProxyState
    pacing: Pacing


def _entries(data: Any, source: str) -> list[dict[str, Any]]:
    log = data.get("log") if isinstance(data, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise HarError(f"{source}: not a HAR (no log.entries list); export the capture as HAR 1.2")
    return [e for e in entries if isinstance(e, dict)]


def _content(response: dict[str, Any], where: str) -> bytes:
    content = response.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    if not isinstance(text, str):
        return b""
    if isinstance(content, dict) and content.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise HarError(f"{where}.response.content.text: encoding base64, but it is not base64") from None
    return text.encode("utf-8")


def _headers(message: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    listed = message.get("headers") if isinstance(message.get("headers"), list) else []
    out = []
    for h in listed or []:
        if isinstance(h, dict) and isinstance(h.get("name"), str) and isinstance(h.get("value"), str):
            out.append((h["name"].lower().encode("latin-1", "replace"), h["value"].encode("latin-1", "replace")))
    return out


def _header(message: dict[str, Any], name: str) -> str:
    return next((v.decode("latin-1") for k, v in _headers(message) if k == name.encode()), "")


def _card(entries: list[dict[str, Any]], source: str) -> tuple[int, CardSeen]:
    for i, item in enumerate(entries):
        request, response = item.get("request") or {}, item.get("response") or {}
        url = request.get("url") if isinstance(request, dict) else None
        if not isinstance(url, str) or urlsplit(url).path not in CARD_PATHS or not isinstance(response, dict):
            continue
        raw = _content(response, f"{source}: log.entries[{i}]")
        try:
            card = json.loads(raw)
        except ValueError:
            continue
        if response.get("status") == 200 and isinstance(card, dict):
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in _headers(response)]
            return i, CardSeen(url, 200, raw, _header(response, "content-type"), headers, card)
    raise HarError(
        f"{source}: no agent card in the capture (a 200 JSON answer at {' or '.join(CARD_PATHS)}); "
        "capture the client's card fetch too (reload with the recorder on before the client starts)"
    )


def read(path: Path, entries_cap: int = 10_000) -> HarSession:
    """The capture as a proxy session: its card, every exchange with the card's origin journaled, paced."""
    source = str(path)
    try:
        data = userfile.load_json(path, userfile.HAR)
    except userfile.Refused as exc:
        raise HarError(str(exc)) from None
    entries = _entries(data, source)
    _, card = _card(entries, source)
    origin = origin_of(card.url)
    state = ProxyState(Routes(origin, origin), Journal(cap=entries_cap))
    state.saw_card(card)
    state.last_fetch = card
    calls = 0
    pacing = Pacing()
    began = _started(entries[0]) if entries else None
    for i, item in enumerate(entries):
        where = f"{source}: log.entries[{i}]"
        journaled = _journal(state, item, where)
        calls += journaled is not None and journaled.operation is not None
        if journaled is not None:
            _pace(journaled, item, began, pacing, f"log.entries[{i}]")
    if not calls:
        raise HarError(
            f"{source}: the capture holds no A2A exchange with {origin} (no request to an interface its card declares)"
        )
    return HarSession(state, pacing)


def _started(item: dict[str, Any]) -> datetime | None:
    """An entry's `startedDateTime` (ISO 8601), or None when it has none that reads."""
    said = item.get("startedDateTime")
    try:
        return datetime.fromisoformat(said) if isinstance(said, str) else None
    except ValueError:
        return None


def _timing(timings: Any, name: str, cap: float, where: str, capped: list[str]) -> float:
    """One of an entry's timings in milliseconds: 0 where HAR says -1 (not applicable) or nothing that reads, at most
    `cap` (noted in `capped`)."""
    value = timings.get(name) if isinstance(timings, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value <= 0:
        return 0.0
    if value > cap:
        capped.append(f"{where}.timings.{name} {value:.0f} ms")
        return cap
    return float(value)


def _pace(entry: Entry, item: dict[str, Any], began: datetime | None, pacing: Pacing, where: str) -> None:
    """An entry placed at its start in the session, its answer delayed by `wait`, a stream's events spread over
    `receive` (the first with the first byte, the last when the body was read)."""
    started = _started(item)
    if began is not None and started is not None:
        try:
            entry.t = max(0.0, round((started - began).total_seconds(), 4))
        except TypeError:  # one timestamp with a zone, the other without
            pass
    timings = item.get("timings")
    wait = _timing(timings, "wait", MAX_WAIT_MS, where, pacing.capped)
    receive = _timing(timings, "receive", MAX_RECEIVE_MS, where, pacing.capped)
    response = entry.response
    if response is None or entry.operation is None or not (wait or receive):
        return
    pacing.paced += 1
    response.delay_ms = round(wait)
    events = [e for e in entry.events or [] if e.kind is not SentKind.COMMENT]
    if not events:
        return
    pacing.streams += 1
    first = entry.t + wait / 1000
    step = receive / 1000 / (len(events) - 1) if len(events) > 1 else 0.0
    for i, event in enumerate(events):
        event.t = round(first + i * step, 4)


def _journal(state: ProxyState, item: dict[str, Any], where: str) -> Entry | None:
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict) or not isinstance(request.get("url"), str):
        return None
    url = request["url"]
    parts = urlsplit(url)
    if origin_of(url) not in (state.routes.upstream, *state.routes.others):
        return None
    post = request.get("postData") if isinstance(request.get("postData"), dict) else {}
    body = str((post or {}).get("text") or "").encode("utf-8")
    kind = EntryKind.CARD if parts.path in CARD_PATHS else EntryKind.UNMATCHED
    entry = state.journal.open(
        str(request.get("method", "GET")), parts.path, parts.query, _headers(request), body, kind
    )
    if kind is EntryKind.UNMATCHED:
        version = next((v.decode("latin-1") for k, v in _headers(request) if k == VERSION_HEADER), None)
        classify.identify(entry, state.card.targets if state.card else [], origin_of(url), body, version)
    said = response.get("status")
    status = said if isinstance(said, int) else 0
    ctype = _header(response, "content-type")
    content = _content(response, where)
    if ctype.split(";", 1)[0].strip().lower() == EVENT_STREAM:
        events: list[SentEvent] = []
        reader = EventReader(events.append, lambda: entry.t)
        reader.feed(content)
        reader.close()
        entry.events = events
        record_stream(entry, status, ctype, events)
    else:
        record_answer(entry, status, ctype, content, state.journal.redaction)
    return entry
