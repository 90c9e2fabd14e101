"""A HAR capture (HTTP Archive 1.2: browser devtools, mitmproxy, Charles) read into the proxy's journal, as if the
exchanges had passed through `a2a-lab proxy`: the card it holds decides which requests are A2A calls, each is
journaled with the same record, and the proxy's `capture.document` writes the scenario (`a2a-lab record
--from-har`). Read through the one bounded reader of user files (contract/userfile.py, kind HAR).

What a replay sends is checked entry by entry as it is read, and a capture that cannot become a scenario is refused
with the entry that makes it so (`HarError`, exit 2), before anything is rendered:

- an A2A answer's status and content type are ones the scenario server can send (contract/http_values.py, the
  scenario loader's own checks);
- its body is UTF-8 text whole in the journal (at most `BODY_KEEP_BYTES`): a scenario holds text, and a body cut
  or withheld would be left out of the replay unsaid;
- the A2A answers hold at most `MAX_ANSWER_TEXT` bytes, and their streams at most `MAX_EVENTS` events, all told:
  more can never fit in a scenario file (`userfile.SCENARIO`'s bytes and values);
- a stream's body is read once, each byte looked at once (the proxy's EventReader), and no further than the event
  past `MAX_EVENTS`;
- a URL that does not parse, text that is no UTF-8 (a lone surrogate), JSON nested past what Python reads: refused
  where they are, never a Python error.

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
from urllib.parse import SplitResult, urlsplit

from a2a_lab.contract import http_values, userfile
from a2a_lab.contract.journal import Journal
from a2a_lab.contract.journal_record import BODY_KEEP_BYTES, Entry, EntryKind, Response, SentEvent, SentKind
from a2a_lab.harness.proxy import classify
from a2a_lab.harness.proxy.app import VERSION_HEADER, CardSeen, ProxyState, record_answer, record_stream
from a2a_lab.harness.proxy.routes import CARD_PATHS, Routes, origin_of
from a2a_lab.harness.proxy.sse import EventReader
from a2a_lab.protocol import cards
from a2a_lab.protocol.bindings import EVENT_STREAM
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.versions import Version

#: The longest time to the first byte a replay waits, and the longest a stream's events are spread over: a capture
#: that says more (a paused debugger, a laptop asleep) would hold a replay's client for minutes.
MAX_WAIT_MS = 10_000.0
MAX_RECEIVE_MS = 30_000.0
#: Each stream event is written as a mapping of its `text` and `delay_ms`: five of a scenario file's values with
#: their keys, so a capture whose A2A streams hold more events than this can never be written as one.
VALUES_PER_EVENT = 5
MAX_EVENTS = userfile.SCENARIO.max_values // VALUES_PER_EVENT
#: The most text the A2A answers of a capture may hold, bodies and streams as the capture has them: a scenario
#: writes them as they came, and a scenario file is at most this large.
MAX_ANSWER_TEXT = userfile.SCENARIO.max_bytes
_SHORTEN = "remove the entry (or the exchanges past it) from the capture, and write what it showed by hand"


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


@dataclass
class _Budget:
    """What the A2A answers read so far hold, against what one scenario file can."""

    text: int = 0
    events: int = 0


def _entries(data: Any, source: str) -> list[dict[str, Any]]:
    log = data.get("log") if isinstance(data, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise HarError(f"{source}: not a HAR (no log.entries list); export the capture as HAR 1.2")
    return [e for e in entries if isinstance(e, dict)]


def _utf8(text: str, where: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise HarError(
            f"{where}: not UTF-8 text (a lone surrogate, U+{ord(text[exc.start]):04X}, at character {exc.start}); "
            "export the capture again, or remove the entry"
        ) from None


def _split(url: str, where: str) -> SplitResult:
    try:
        return urlsplit(url)
    except ValueError as exc:
        raise HarError(f"{where}.request.url: not a URL ({exc}); remove the entry from the capture") from None


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
    return _utf8(text, f"{where}.response.content.text")


def _headers(message: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    listed = message.get("headers") if isinstance(message.get("headers"), list) else []
    out = []
    for h in listed or []:
        if isinstance(h, dict) and isinstance(h.get("name"), str) and isinstance(h.get("value"), str):
            out.append((h["name"].lower().encode("latin-1", "replace"), h["value"].encode("latin-1", "replace")))
    return out


def _header(message: dict[str, Any], name: str) -> str:
    """A header's value as the capture has it (the first of that name; "" when none): text, to be checked before it
    is written (a value the server cannot send is refused, not mangled)."""
    listed = message.get("headers") if isinstance(message.get("headers"), list) else []
    for h in listed or []:
        if isinstance(h, dict) and isinstance(h.get("name"), str) and h["name"].lower() == name:
            value = h.get("value")
            return value if isinstance(value, str) else ""
    return ""


def _content_type(response: dict[str, Any], where: str) -> str:
    """The answer's content type, which the replay sends as it came: one a header can carry."""
    ctype = _header(response, "content-type")
    problem = http_values.header_value_problem(ctype)
    if problem is not None:
        raise HarError(f"{where}.response.headers content-type: {problem.what}; {problem.hint}")
    return ctype


def _card(entries: list[dict[str, Any]], source: str) -> tuple[int, CardSeen]:
    for i, item in enumerate(entries):
        where = f"{source}: log.entries[{i}]"
        request, response = item.get("request") or {}, item.get("response") or {}
        url = request.get("url") if isinstance(request, dict) else None
        if not isinstance(url, str) or not isinstance(response, dict) or response.get("status") != 200:
            continue
        if _split(url, where).path not in CARD_PATHS:
            continue
        raw = _content(response, where)
        try:
            card = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        if isinstance(card, dict):
            _card_urls(card, where)
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in _headers(response)]
            return i, CardSeen(url, 200, raw, _content_type(response, where), headers, card)
    raise HarError(
        f"{source}: no agent card in the capture (a 200 JSON answer at {' or '.join(CARD_PATHS)}); "
        "capture the client's card fetch too (reload with the recorder on before the client starts)"
    )


def _card_urls(card: dict[str, Any], where: str) -> None:
    """Every interface URL of the card parses (they decide which requests are A2A calls)."""
    for reader in Version:
        for iface in cards.interfaces(card, reader):
            try:
                urlsplit(iface.url)
            except ValueError as exc:
                raise HarError(
                    f"{where}: the card's interface url {iface.url[:80]!a} is not a URL ({exc}); a replay "
                    "serves the card's interfaces: fix the url in the capture"
                ) from None


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
    pacing, budget = Pacing(), _Budget()
    began = _started(entries[0]) if entries else None
    for i, item in enumerate(entries):
        where = f"{source}: log.entries[{i}]"
        try:
            journaled = _journal(state, item, where, budget)
        except RecursionError:
            raise HarError(f"{where}: JSON nested too deeply to read; remove the entry from the capture") from None
        calls += journaled is not None and journaled.operation is not None
        if journaled is not None:
            _pace(journaled, item, began, pacing, f"log.entries[{i}]")
    if not calls:
        raise HarError(
            f"{source}: the capture holds no A2A exchange with {origin} (no request to an interface its card declares)"
        )
    if state.journal.dropped:
        raise HarError(
            f"{source}: the capture holds more exchanges with {origin} than a journal keeps ({entries_cap} entries, "
            f"{state.journal.cap_bytes} bytes): export only the session to be replayed"
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
        shown = f"{value:.0f}" if value < 1e15 else f"{float(min(value, 1e308)):.3g}"  # an int past floats: no crash
        capped.append(f"{where}.timings.{name} {shown} ms")
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


def _journal(state: ProxyState, item: dict[str, Any], where: str, budget: _Budget) -> Entry | None:
    """An exchange with the card's origin, journaled (None for any other); an A2A call's answer checked and kept
    whole, any other's status alone (it is not replayed)."""
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict) or not isinstance(request.get("url"), str):
        return None
    url = request["url"]
    parts = _split(url, where)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in (state.routes.upstream, *state.routes.others):
        return None
    post = request.get("postData") if isinstance(request.get("postData"), dict) else {}
    text = (post or {}).get("text")
    body = _utf8(text if isinstance(text, str) else "", f"{where}.request.postData.text")
    kind = EntryKind.CARD if parts.path in CARD_PATHS else EntryKind.UNMATCHED
    method = request.get("method")
    entry = state.journal.open(
        method if isinstance(method, str) else "GET", parts.path, parts.query, _headers(request), body, kind
    )
    if kind is EntryKind.UNMATCHED:
        version = next((v.decode("latin-1") for k, v in _headers(request) if k == VERSION_HEADER), None)
        classify.identify(entry, state.card.targets if state.card else [], origin, body, version)
    said = response.get("status")
    if entry.operation is None:  # not replayed: what it answered is not read
        entry.response = Response(said if isinstance(said, int) and not isinstance(said, bool) else None)
        return entry
    _answer(state, entry, response, where, budget)
    return entry


def _answer(state: ProxyState, entry: Entry, response: dict[str, Any], where: str, budget: _Budget) -> None:
    """An A2A call's answer, as the replay will send it: checked, within the budget, journaled whole."""
    content = _content(response, where)
    status = response.get("status")
    problem = http_values.status_problem(status, has_body=bool(content))
    if problem is not None:
        raise HarError(f"{where}.response.status: {problem.what}; {problem.hint} (or remove the entry)")
    assert isinstance(status, int)
    ctype = _content_type(response, where)
    budget.text += len(content)
    if budget.text > MAX_ANSWER_TEXT:
        raise HarError(
            f"{where}: the A2A answers up to this entry hold {budget.text} bytes, more than a scenario file may "
            f"({MAX_ANSWER_TEXT}); {_SHORTEN}"
        )
    if ctype.split(";", 1)[0].strip().lower() == EVENT_STREAM:
        events = _events(entry, content, where, budget)
        if any(event.kind is SentKind.DATA for event in events):
            entry.events = events
            record_stream(entry, status, ctype, events)
            return
        # no event in it (empty, comments only, or no SSE at all): replayed as the bytes that came, a body
    record_answer(entry, status, ctype, content, state.journal.redaction)
    kept = entry.response.body if entry.response is not None else None
    if content and (kept is None or kept.text is None):
        raise HarError(f"{where}.response.content: the answer is not UTF-8 text, and a scenario holds text; {_SHORTEN}")
    if kept is not None and kept.truncated:
        raise HarError(
            f"{where}.response.content: the answer is {len(content)} bytes, and a replay is written from the journal, "
            f"which keeps {BODY_KEEP_BYTES} bytes of a body; {_SHORTEN}"
        )


def _events(entry: Entry, content: bytes, where: str, budget: _Budget) -> list[SentEvent]:
    """A stream's events, refused past the events a scenario can hold (as soon as one more comes)."""
    events: list[SentEvent] = []

    def emit(event: SentEvent) -> None:
        if event.kind is SentKind.DATA:
            budget.events += 1
            if budget.events > MAX_EVENTS:
                raise HarError(
                    f"{where}: the A2A streams up to this entry hold more than {MAX_EVENTS} events, more than a "
                    f"scenario file can (each event is {VALUES_PER_EVENT} of its {userfile.SCENARIO.max_values} "
                    f"values); {_SHORTEN}"
                )
        events.append(event)

    # Read in one piece: the reader looks at each byte once. No event is past what it reads of one (limits.MAX_EVENT),
    # since the answers' text is within MAX_ANSWER_TEXT, a quarter of it.
    reader = EventReader(emit, lambda: entry.t)
    reader.feed(content)
    reader.close()
    return events
