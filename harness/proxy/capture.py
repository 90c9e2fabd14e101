"""What the server did in a proxied session, as a scenario file that replays it: the card as the upstream served it
(its origin as `{base_url}`), and per A2A call the answer it got, matched to its request by operation, binding,
version and call number (`when.call`), through record's writer (harness/record/scenario_file.py). Bodies come from
the journal, so credentials are already redacted by structure; `observed:` says where and when it was seen."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind, SentKind
from a2a_lab.protocol.exceptions import LabError

from ..record.scenario_file import render, tool_version, write
from .app import ProxyState
from .routes import VIA

#: The message a replay's client is asked to send when the session's first message is not known.
DEFAULT_TEXT = "Hello from a2a-lab proxy"
#: The file's first line.
HEADER = "# Seen by a2a-lab proxy; replay with: a2a-lab serve {path}"


class CaptureError(LabError):
    """Nothing replayable was seen (no card from the upstream), or the file could not be written."""


def _text(entry: Entry) -> str | None:
    """The answer as text: the body the journal kept (redacted), or a stream's events written back as SSE."""
    if entry.events is not None:
        lines = []
        for event in entry.events:
            if event.kind is SentKind.DATA:
                text = event.text if event.text is not None else str(event.value)
                lines.append("".join(f"data: {line}\n" for line in text.split("\n")) + "\n")
            elif event.kind is SentKind.COMMENT:
                lines.append(f": {event.text or ''}\n\n")
        return "".join(lines)
    body = entry.response.body if entry.response is not None else None
    if body is None or body.text is None or body.truncated:
        return None
    return body.text


def _rule(entry: Entry, call: int) -> dict[str, Any] | None:
    response, endpoint = entry.response, entry.endpoint
    text = _text(entry)
    if response is None or response.status is None or endpoint is None or entry.version is None or text is None:
        return None
    raw: dict[str, Any] = {"status": response.status, "body": text, "content_type": response.content_type or ""}
    if entry.kind is EntryKind.JSONRPC and entry.events is None and entry.rpc is not None and entry.rpc.id is not None:
        raw["echo_id"] = True
    when = {"binding": endpoint.binding.value, "version": entry.version.value, "call": call}
    return {"when": when, "reply": {"raw": raw}}


def _first_text(entries: list[Entry]) -> str:
    from ..journal_view import Call

    for entry in entries:
        message = Call(entry).message() if entry.operation is not None else None
        parts = message.get("parts") if isinstance(message, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                return str(part["text"])
    return DEFAULT_TEXT


def document(state: ProxyState) -> tuple[dict[str, Any], int]:
    """The scenario (as data) and how many answers it replays."""
    card = state.card
    if card is None:
        raise CaptureError("the upstream served no agent card in this session: there is nothing to replay")
    entries = [e for e in state.journal.records() if e.kind in (EntryKind.JSONRPC, EntryKind.REST) and e.operation]
    counts: dict[tuple[str, str, str], int] = {}
    behaviour: dict[str, list[dict[str, Any]]] = {}
    endpoints: dict[tuple[str, str], list[str]] = {}
    paced: list[dict[str, Any]] = []
    for entry in entries:
        assert entry.operation is not None and entry.endpoint is not None and entry.version is not None
        if entry.endpoint.path.startswith(VIA):
            continue  # another origin than the upstream's: a replay serves one origin
        key = (entry.operation.value, entry.endpoint.binding.value, entry.version.value)
        counts[key] = counts.get(key, 0) + 1
        rule = _rule(entry, counts[key])
        if rule is None:
            continue
        behaviour.setdefault(entry.operation.value, []).append(rule)
        versions = endpoints.setdefault((entry.endpoint.path, entry.endpoint.binding.value), [])
        if entry.version.value not in versions:
            versions.append(entry.version.value)
        if entry.events:
            paced.append(
                {"seq": entry.seq, "operation": key[0], "events_at": [round(e.t - entry.t, 4) for e in entry.events]}
            )
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    upstream = state.routes.upstream
    text = card.raw.decode("utf-8", "replace").replace(upstream, "{base_url}")
    answered = sum(len(v) for v in behaviour.values())
    doc: dict[str, Any] = {
        "title": f"Proxied: {upstream}",
        "description": (
            f"Seen by `a2a-lab proxy` between a client and {upstream} at {at}: the card as the upstream served it (its "
            "origin written as {base_url}) and, per A2A call, the answer it got, matched to its request by "
            "operation, binding, version and call number. A stream's events are replayed at once, in order (their "
            "timing is under `recorded.streams`); other operations, and calls past the ones seen, get a2a-lab's "
            "default behaviour.\n"
        ),
        "observed": {"where": upstream, "when": at[:10], "note": f"{answered} answer(s) seen through a2a-lab proxy"},
        "recorded": {"from": upstream, "at": at, "tool": tool_version(), "card_url": card.url, "streams": paced},
        "client": {"message": _first_text(entries)},
        "card": {"raw": text, "content_type": card.content_type or "application/json"},
        "endpoints": [{"path": p, "binding": b, "versions": v} for (p, b), v in endpoints.items()],
        "behaviour": behaviour,
    }
    return doc, answered


def write_scenario(state: ProxyState, path: Path, force: bool) -> int:
    doc, answered = document(state)
    try:
        write(path, render(doc, path), force, HEADER)
    except LabError as exc:
        raise CaptureError(str(exc)) from None
    return answered
