"""The `stream:` section: the events a streaming answer sends, their edits and extra events, and their framing."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol import errors

from ..scenario import (
    AT_ALL,
    AT_END,
    STREAM_ERROR_MESSAGE,
    EventEdit,
    ExtraEvent,
    StreamFraming,
    StreamScript,
)
from ..suggest import did_you_mean
from .changes import read_edits
from .reader import Reader


def read_stream(r: Reader, value: Any, path: str) -> StreamScript:
    s = r.mapping(value, path, "reply.stream")
    kw: dict[str, Any] = {}
    if "first_event" in s:
        kw["first_event"] = r.choice(
            s["first_event"],
            f"{path}.first_event",
            "reply.stream.first_event",
            "task (per spec) or status (a stream whose first event is not a task)",
        )
    if "framing" in s:
        kw["framing"] = r.choice(
            s["framing"],
            f"{path}.framing",
            "reply.stream.framing",
            "sse (per spec), sse-multiline (each event over several data: lines), ndjson or json-array (not SSE)",
        )
    if "comments" in s:
        kw["comments"] = r.strings(s["comments"], f"{path}.comments", "comment texts")
    if "error" in s:
        err, e = r.error(s["error"], f"{path}.error", "reply.stream.error")
        kw["error"] = (
            err
            if err.message is not None
            else errors.A2AError(err.type, STREAM_ERROR_MESSAGE, code_override=err.code_override)
        )
        kw.update(_stream_error_form(r, e, f"{path}.error"))
    if "events" in s:
        kw["events"] = _event_edits(r, s["events"], f"{path}.events")
    for key in (
        "omit_terminal",
        "duplicate_events",
        "close_at_interrupted",
        "final_snapshot",
        "bare_events",
        "unterminated",
        "hold_open",
    ):
        if key in s:
            kw[key] = r.boolean(s[key], f"{path}.{key}")
    for key, minimum in (("interval_ms", 0), ("ping_ms", 1), ("error_after", 0), ("drop_after", 1)):
        if key in s:
            kw[key] = r.integer(s[key], f"{path}.{key}", minimum)
    script = StreamScript(**kw)
    _check_stream_framing(r, script, path)
    return script


def _stream_error_form(r: Reader, e: dict[str, Any], path: str) -> dict[str, bool]:
    """`reply.stream.error`'s `event` (an `event: error` line) and `details` (HTTP+JSON: the Status's details)."""
    return {
        "error_event": r.boolean(e.get("event", True), f"{path}.event"),
        "error_details": r.boolean(e.get("details", True), f"{path}.details"),
    }


_EDIT_ACTIONS = ("insert", "replace", "drop")
_AT_HINT = f"a whole number >= 1 (the Nth event the stream sends), {AT_END} (after the last) or {AT_ALL} (every event)"


def _event_edits(r: Reader, value: Any, path: str) -> tuple[EventEdit, ...]:
    """`reply.stream.events`: per-event edits of a generated stream."""
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of event edits", "e.g. [{at: 2, insert: {json: {}}}]")
    return tuple(_event_edit(r, item, f"{path}[{i}]") for i, item in enumerate(value))


def _event_edit(r: Reader, value: Any, path: str) -> EventEdit:
    e = r.mapping(value, path, "reply.stream.events[]")
    if "at" not in e:
        raise r.fail(f"{path}.at", "required: which event this edit is at", _AT_HINT)
    at = e["at"]
    if isinstance(at, str):
        if at not in (AT_END, AT_ALL):
            raise r.fail(f"{path}.at", f"unknown position {at!r}", did_you_mean(at, [AT_END, AT_ALL], _AT_HINT))
    else:
        at = r.integer(at, f"{path}.at", 1)
    actions = [k for k in _EDIT_ACTIONS if k in e]
    if len(actions) > 1:
        raise r.fail(path, f"an edit does one of {', '.join(_EDIT_ACTIONS)} (found {', '.join(actions)})")
    if not actions and "delay_ms" not in e and "edit" not in e:
        raise r.fail(
            path, "an edit needs delay_ms, edit or one of insert, replace, drop", "e.g. {at: 2, delay_ms: 500}"
        )
    if "edit" in e and (at == AT_END or (actions and actions[0] != "insert")):
        raise r.fail(f"{path}.edit", "edits change the generated event at `at`, which is not sent here", "drop `edit`")
    if at == AT_END and actions and actions[0] != "insert":
        raise r.fail(f"{path}.{actions[0]}", "there is no event at `end` to replace or drop", "use insert")
    drop = r.boolean(e["drop"], f"{path}.drop") if "drop" in e else False
    if "drop" in e and not drop:
        raise r.fail(f"{path}.drop", "`drop: false` edits nothing", "leave it out, or write drop: true")
    return EventEdit(
        at,
        r.integer(e.get("delay_ms", 0), f"{path}.delay_ms"),
        _extra_event(r, e["insert"], f"{path}.insert") if "insert" in e else None,
        _extra_event(r, e["replace"], f"{path}.replace") if "replace" in e else None,
        drop,
        read_edits(r, e["edit"], f"{path}.edit") if "edit" in e else (),
    )


def _extra_event(r: Reader, value: Any, path: str) -> ExtraEvent:
    x = r.mapping(value, path, "reply.stream.event")
    if ("json" in x) == ("text" in x):
        raise r.fail(
            path, "an event needs exactly one of json (sent as written) or text (the exact data)", "e.g. {json: {}}"
        )
    name = r.string(x["event"], f"{path}.event") if "event" in x else None
    if name is not None and (not name or "\n" in name or "\r" in name):
        raise r.fail(f"{path}.event", "an SSE event name is one non-empty line", "e.g. error")
    return ExtraEvent(
        x.get("json"),
        r.string(x["text"], f"{path}.text") if "text" in x else None,
        name,
        r.boolean(x.get("bare", False), f"{path}.bare"),
    )


def _check_stream_framing(r: Reader, script: StreamScript, path: str) -> None:
    """What NDJSON and a JSON array (one body, sent when the stream ends; no event names) cannot carry."""
    if script.framing not in (StreamFraming.NDJSON, StreamFraming.JSON_ARRAY):
        return
    if script.hold_open:
        raise r.fail(f"{path}.hold_open", f"a {script.framing} stream is sent as one body when it ends", "use sse")
    for i, edit in enumerate(script.events):
        extra = edit.insert or edit.replace
        if extra is not None and extra.event is not None:
            raise r.fail(f"{path}.events[{i}]", f"{script.framing} has no event names", "leave `event` out, or use sse")
