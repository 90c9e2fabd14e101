"""What the server did in a proxied session, as a scenario file that replays it: the card as the upstream served it
(its origin as `{base_url}`), and per A2A call the answer it got, matched to its request by operation, binding,
version and call number (`when.call`), through record's writer (harness/server_judging/record/scenario_file.py). Bodies
come from the journal, so credentials are already redacted by structure; `observed:` says where and when it was seen."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind, SentKind
from a2a_lab.harness.common.scenario_writer import render, tool_version, write
from a2a_lab.harness.proxy import grpc_capture
from a2a_lab.harness.proxy.app import ProxyState
from a2a_lab.harness.proxy.routes import VIA
from a2a_lab.harness.proxy.sse import malformed, oversized
from a2a_lab.protocol.exceptions import LabError

#: The message a replay's client is asked to send when the session's first message is not known.
DEFAULT_TEXT = "Hello from a2a-lab proxy"
#: The file's first line.
HEADER = "# Seen by a2a-lab proxy; replay with: a2a-lab serve {path}"


class CaptureError(LabError):
    """Nothing replayable was seen (no card from the upstream), or the file could not be written."""


def _body(entry: Entry) -> str | None:
    """The answer's body as the journal kept it (redacted), or None when it was not kept whole."""
    body = entry.response.body if entry.response is not None else None
    if body is None or body.text is None or body.truncated:
        return None
    return body.text


#: Said in the description of a scenario written from a stream whose last event EOF cut off before its blank line.
CUT_NOT_REPLAYED = (
    " The last event of the stream of journal entry #{seq} ({op}) came without its closing blank line (the stream "
    "ended inside it, so no SSE client dispatched it); a raw event stream ends every event, so the replay sends it "
    "whole and does not reproduce that."
)

#: Said in the description of a scenario written from a stream with an event larger than the proxy reads.
OVERSIZED_NOT_REPLAYED = (
    " An event of the stream of journal entry #{seq} ({op}) was larger than the proxy reads of one, and journaled as "
    "its size and first bytes: the replay sends that sentence in its place."
)

#: Stands for the request's JSON-RPC id in a recorded stream event until it is written as `{request_id}`.
_ID_MARK = "\u0000a2a-lab-request-id\u0000"


def _stream_events(entry: Entry) -> list[dict[str, Any]]:
    """A stream's events as `reply.raw.events`, each after the delay it came after (its pacing replayed), the
    JSON-RPC id of each event written as `{request_id}` so that a replay answers any client's request id."""
    events: list[dict[str, Any]] = []
    delay = entry.response.delay_ms if entry.response is not None else None
    previous = entry.t + (delay or 0) / 1000  # the reply's own delay (a HAR's time to the first byte) comes first
    for event in entry.events or []:
        if event.kind not in (SentKind.DATA, SentKind.ERROR, SentKind.EXTRA):
            continue  # comments (keep-alives) and the drop are not events a replay sends
        if event.text is not None or malformed(event):  # bytes that were not JSON are replayed as they came
            text = event.text if event.text is not None else str(event.value)
        else:
            text = json.dumps(event.value, separators=(",", ":"))
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if entry.kind is EntryKind.JSONRPC and isinstance(data, dict) and "id" in data:
            marked = json.dumps({**data, "id": _ID_MARK}, separators=(",", ":"))
            text = marked.replace(json.dumps(_ID_MARK), "{request_id}")
        out: dict[str, Any] = {"text": text, "delay_ms": max(0, round((event.t - previous) * 1000))}
        if event.event is not None:
            out["event"] = event.event
        events.append(out)
        previous = event.t
    return events


def _rule(entry: Entry, call: int) -> dict[str, Any] | None:
    response, endpoint = entry.response, entry.endpoint
    if response is None or response.status is None or endpoint is None or entry.version is None:
        return None
    when = {"binding": endpoint.binding.value, "version": entry.version.value, "call": call}
    if entry.kind is EntryKind.GRPC and any(e.kind is SentKind.DATA for e in entry.events or []):
        replied, _ = grpc_capture.stream_reply(entry, _stream_events(entry))
        return {"when": when, "reply": replied} if replied is not None else None
    if entry.kind is EntryKind.GRPC:
        body = entry.response.body if entry.response is not None else None
        kept = body.text if body is not None and not body.truncated else None
        replied = grpc_capture.reply(entry, kept)
        return {"when": when, "reply": replied} if replied is not None else None
    raw: dict[str, Any] = {"status": response.status, "content_type": response.content_type or ""}
    if entry.events is not None:
        raw["events"] = _stream_events(entry)
        raw["fill"] = entry.kind is EntryKind.JSONRPC
    else:
        text = _body(entry)
        if text is None:
            return None
        raw["body"] = text
        if entry.kind is EntryKind.JSONRPC and entry.rpc is not None and entry.rpc.id is not None:
            raw["echo_id"] = True
    reply: dict[str, Any] = {"raw": raw}
    if response.delay_ms:
        reply["delay_ms"] = round(response.delay_ms)
    return {"when": when, "reply": reply}


def _first_text(entries: list[Entry]) -> str:
    from a2a_lab.harness.client_judging.journal_view import Call

    for entry in entries:
        message = Call(entry).message() if entry.operation is not None else None
        parts = message.get("parts") if isinstance(message, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                return str(part["text"])
    return DEFAULT_TEXT


def document(state: ProxyState, pacing: str = "") -> tuple[dict[str, Any], int]:
    """The scenario (as data) and how many answers it replays; `pacing` says where the replay's pacing comes from
    when it is not the session's own (a HAR's timings)."""
    card = state.card
    if card is None:
        raise CaptureError("the upstream served no agent card in this session: there is nothing to replay")
    kinds = (EntryKind.JSONRPC, EntryKind.REST, EntryKind.GRPC)
    entries = [e for e in state.journal.records() if e.kind in kinds and e.operation]
    left_out: list[str] = []
    counts: dict[tuple[str, str, str], int] = {}
    behaviour: dict[str, list[dict[str, Any]]] = {}
    endpoints: dict[tuple[str, str], list[str]] = {}
    paced: list[dict[str, Any]] = []
    cut: list[str] = []
    for entry in entries:
        assert entry.operation is not None and entry.endpoint is not None and entry.version is not None
        if entry.endpoint.path.startswith(VIA):
            continue  # another origin than the upstream's: a replay serves one origin
        key = (entry.operation.value, entry.endpoint.binding.value, entry.version.value)
        counts[key] = counts.get(key, 0) + 1
        rule = _rule(entry, counts[key])
        if rule is None:
            if entry.kind is EntryKind.GRPC and entry.events is not None:  # the replay still serves gRPC
                why = grpc_capture.stream_reply(entry, [])[1]
                left_out.append(grpc_capture.STREAM_NOT_REPLAYED.format(op=key[0], seq=entry.seq, why=why))
                endpoints.setdefault((entry.endpoint.path, entry.endpoint.binding.value), [entry.version.value])
            continue
        behaviour.setdefault(entry.operation.value, []).append(rule)
        versions = endpoints.setdefault((entry.endpoint.path, entry.endpoint.binding.value), [])
        if entry.version.value not in versions:
            versions.append(entry.version.value)
        if any(e.unterminated for e in entry.events or []):
            cut.append(CUT_NOT_REPLAYED.format(seq=entry.seq, op=key[0]))
        if any(oversized(e) for e in entry.events or []):
            cut.append(OVERSIZED_NOT_REPLAYED.format(seq=entry.seq, op=key[0]))
        if entry.events:
            paced.append(
                {"seq": entry.seq, "operation": key[0], "events_at": [round(e.t - entry.t, 4) for e in entry.events]}
            )
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    upstream = state.routes.upstream
    text = card.raw.decode("utf-8", "replace").replace(upstream, "{base_url}")
    grpc_seen = state.routes.grpc if any(e.kind is EntryKind.GRPC for e in entries) else {}
    text = grpc_capture.card_text(text, list(grpc_seen))
    answered = sum(len(v) for v in behaviour.values())
    doc: dict[str, Any] = {
        "title": f"Proxied: {upstream}",
        "description": (
            f"Seen by `a2a-lab proxy` between a client and {upstream} at {at}: the card as the upstream served it (its "
            "origin written as {base_url}) and, per A2A call, the answer it got, matched to its request by "
            "operation, binding, version and call number. A stream's events are replayed one by one with the "
            "delays they came with (and the request's JSON-RPC id); other operations, and calls past the ones seen, "
            "get a2a-lab's default behaviour." + grpc_capture.said(grpc_seen, left_out) + "".join(cut) + "\n"
        ),
        "observed": {
            "where": upstream,
            "when": at[:10],
            "note": f"{answered} answer(s) seen through a2a-lab proxy" + (f"; {pacing}" if pacing else ""),
        },
        "recorded": {"from": upstream, "at": at, "tool": tool_version(), "card_url": card.url, "streams": paced},
        "client": {"message": _first_text(entries)},
        "card": {"raw": text, "content_type": card.content_type or "application/json"},
        "endpoints": [{"path": p, "binding": b, "versions": v} for (p, b), v in endpoints.items()],
        "behaviour": behaviour,
    }
    return doc, answered


def write_scenario(state: ProxyState, path: Path, force: bool, pacing: str = "") -> int:
    doc, answered = document(state, pacing)
    try:
        write(path, render(doc, path), force, HEADER)
    except LabError as exc:
        raise CaptureError(str(exc)) from None
    return answered
