"""Whether a streaming client read its stream to the end, past an event of a kind A2A does not define."""

from __future__ import annotations

import json
from typing import Any

from a2a_lab.contract.journal_record import EntryKind, ResultKind, SentKind
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView, observe
from a2a_lab.harness.common.model import CheckResult, Level
from a2a_lab.protocol import shapes
from a2a_lab.protocol.forms import Form


@check(
    "STREAM-READ-TO-END",
    Level.SHOULD,
    "A2A 1.0 §5.7 (unrecognized fields SHOULD be ignored; StreamResponse is a oneof a later version may extend), "
    "§3.1.2 (the stream ends when the task reaches a terminal state: the client learns the outcome there)",
    "The client read its stream to the end, past an event of an unknown kind",
    "A streaming client reads each stream up to its terminal event (or, at an interrupted state, the stream's end), "
    "and an event of a kind it does not know (a later version's, a2a-go#435) is skipped, not a reason to abandon "
    "the stream. Judged on streams that carry such an event: the server saw whether the client was still reading "
    "when the stream's last events went out.",
    "spec keyword SHOULD (§5.7): a miss is NON_STRICT",
    rule=(
        "A streaming client skips an event of a kind it does not know and keeps reading until the stream's terminal "
        "event."
    ),
    fix=(
        "Ignore stream events whose member (or 0.3 `kind`) you do not recognise, perhaps with a log line, and keep "
        "reading; close the stream only at a message, a terminal or interrupted state, or the stream's end."
    ),
)
def stream_read_to_end(view: RunView, c: Check) -> CheckResult:
    judged = [(call, kinds) for call in view.a2a_calls if (kinds := _unknown_kinds(call))]
    if not judged:
        return c.skipped("no stream carried an event of a kind A2A does not define")
    for call, kinds in judged:
        if _closed_by_client(call) and not _ended(call):
            return c.broken(
                f"the client closed the stream that carried an event of an unknown kind ({', '.join(kinds)}) before "
                "its terminal event",
                "read on past the unknown event to the stream's terminal event",
                f"the stream was closed by the client after {_sent(call)} event(s), before a terminal or interrupted "
                "state",
                [call],
            )
    call, kinds = judged[0]
    return c.passed(
        f"read on past an event of an unknown kind ({', '.join(kinds)}) to the end of the stream",
        [c for c, _ in judged],
    )


def _unknown_kinds(call: Call) -> list[str]:
    """The unknown kinds of the events the scenario put in this call's stream (none when it is no stream)."""
    form = call.form
    if call.entry.events is None or form is None:
        return []
    out = []
    for event in call.entry.events:
        if event.kind is not SentKind.EXTRA or event.text is None:
            continue
        kind = shapes.unknown_event_kind(_event_body(event.text, call, form), form)
        if kind is not None:
            out.append(kind)
    return out


def _event_body(text: str, call: Call, form: Form) -> Any:
    """An inserted event's StreamResponse: its JSON, out of the JSON-RPC response around it where there is one."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if call.entry.kind is EntryKind.JSONRPC and isinstance(body, dict) and "result" in body:
        return body["result"]
    return body


def _closed_by_client(call: Call) -> bool:
    """The client went away while the server still had the stream open (SSE: journaled `closed: disconnected`)."""
    response = call.entry.response
    return call.entry.disconnected or (response is not None and response.closed == "disconnected")


def _ended(call: Call) -> bool:
    """The stream carried what ends it for a client: a message, or a terminal or interrupted state."""
    return any(
        o.kind is ResultKind.MESSAGE or (o.state is not None and (o.state.terminal or o.state.interrupted))
        for o in observe(call)
    )


def _sent(call: Call) -> int:
    return sum(1 for e in call.entry.events or () if e.kind in (SentKind.DATA, SentKind.EXTRA))
