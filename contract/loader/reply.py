"""Replies: a message, a task, an error, a fault, or raw bytes (with their events and headers), and gRPC codes."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from a2a_lab.protocol.bindings import EVENT_STREAM
from a2a_lab.protocol.grpcwire import Code

from ..scenario import (
    Envelope,
    EnvelopeId,
    Fault,
    GrpcReply,
    RawEvent,
    Reply,
    TaskScript,
)
from ..suggest import nearest
from .changes import read_edits
from .limits import ANSWER_BYTES_WHY
from .reader import Reader
from .stream import read_stream
from .tables import MAX_ANSWER_BYTES
from .task import read_parts, read_task_script


def read_headers(r: Reader, value: Any, path: str) -> tuple[tuple[str, str], ...]:
    """Extra response headers: names and values the server can send."""
    return r.headers(value, path)


def _fault(r: Reader, value: Any, path: str) -> Fault:
    f = {"kind": value} if isinstance(value, str) else r.mapping(value, path, "reply.fault")
    return Fault(
        r.choice(f.get("kind"), f"{path}.kind", "reply.fault.kind", "stall, reset, truncate or drip", "fault"),
        r.integer(f.get("after_bytes", 0), f"{path}.after_bytes", 0, MAX_ANSWER_BYTES, ANSWER_BYTES_WHY),
        r.integer(f.get("chunk_bytes", 8), f"{path}.chunk_bytes", 1, MAX_ANSWER_BYTES, ANSWER_BYTES_WHY),
        r.integer(f.get("interval_ms", 200), f"{path}.interval_ms"),
    )


def _raw_body(r: Reader, raw: dict[str, Any], path: str) -> bytes:
    """`body` (text, sent as UTF-8) or `body_base64` (bytes that are not text: a recorded gRPC answer message)."""
    if "body" in raw and "body_base64" in raw:
        raise r.fail(path, "give `body` (text) or `body_base64` (bytes), not both")
    if "body_base64" not in raw:
        return r.string(raw.get("body", ""), f"{path}.body").encode()
    text = r.string(raw["body_base64"], f"{path}.body_base64")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise r.fail(f"{path}.body_base64", "not base64", "e.g. CgNhYmM=") from None


def _raw(r: Reader, value: Any, path: str) -> dict[str, Any]:
    raw = r.mapping(value, path, "reply.raw")
    events = _raw_events(r, raw, path)
    body = _raw_body(r, raw, path)
    return {
        "raw_status": r.status(raw.get("status", 200), f"{path}.status", has_body=bool(body) or bool(events)),
        "raw_body": body,
        "raw_events": events,
        "raw_fill": r.boolean(raw.get("fill", False), f"{path}.fill"),
        "raw_content_type": r.header_value(
            raw.get("content_type", EVENT_STREAM if events else "application/json"), f"{path}.content_type"
        ),
        "raw_echo_id": r.boolean(raw.get("echo_id", False), f"{path}.echo_id"),
        "raw_byte_exact": _byte_exact(r, raw, path),
    }


def _raw_events(r: Reader, raw: dict[str, Any], path: str) -> tuple[RawEvent, ...]:
    """`reply.raw.events`: an event stream written event by event, instead of one `body`."""
    if "events" not in raw:
        return ()
    if "body" in raw or "body_base64" in raw:
        raise r.fail(path, "give `events` (an event stream) or a body, not both")
    items = raw["events"]
    if not isinstance(items, list) or not items:
        raise r.fail(f"{path}.events", "expected a non-empty list of events", "e.g. [{text: hello, delay_ms: 100}]")
    out = []
    for i, item in enumerate(items):
        where = f"{path}.events[{i}]"
        e = r.mapping(item, where, "reply.raw.events[]")
        if ("json" in e) == ("text" in e):
            raise r.fail(where, "an event needs exactly one of text (the exact data) or json", "e.g. {json: {}}")
        text = r.string(e["text"], f"{where}.text") if "text" in e else json.dumps(e["json"], separators=(",", ":"))
        name = r.string(e["event"], f"{where}.event") if "event" in e else None
        if name is not None and (not name or "\n" in name or "\r" in name):
            raise r.fail(f"{where}.event", "an SSE event name is one non-empty line", "e.g. error")
        if name is not None and str(raw.get("content_type", "")).split(";")[0].strip() == "application/x-ndjson":
            raise r.fail(f"{where}.event", "NDJSON events have no names", "leave `event` out")
        out.append(RawEvent(text, name, r.integer(e.get("delay_ms", 0), f"{where}.delay_ms")))
    return tuple(out)


def _byte_exact(r: Reader, raw: dict[str, Any], path: str) -> str | None:
    """`reply.raw.byte_exact`: why these bytes themselves are the quirk (a sentence, not a flag)."""
    if "byte_exact" not in raw:
        return None
    why = r.string(raw["byte_exact"], f"{path}.byte_exact").strip()
    if not why:
        raise r.fail(
            f"{path}.byte_exact",
            "say why the bytes themselves are the quirk",
            'e.g. "the gateway\'s own HTML page, byte for byte"',
        )
    return why


_REPLY_KINDS = ("message", "task", "error", "raw")


def read_reply(r: Reader, value: Any, path: str, base_task: TaskScript) -> Reply:
    spec = r.mapping(value, path, "reply")
    kinds = [k for k in _REPLY_KINDS if k in spec]
    if len(kinds) > 1:
        raise r.fail(path, f"a reply has at most one of {', '.join(_REPLY_KINDS)} (found {', '.join(kinds)})")
    kw: dict[str, Any] = {}
    if "message" in spec:
        m = spec["message"]
        kw["message"] = read_parts(
            r,
            r.mapping(m, f"{path}.message", "reply.message").get("parts") if isinstance(m, dict) else m,
            f"{path}.message",
        )
    if "task" in spec:
        kw["task"] = read_task_script(r, spec["task"] or {}, f"{path}.task", base_task)
    if "error" in spec:
        kw["error"], e = r.error(spec["error"], f"{path}.error", "reply.error")
        if "http_status" in e:
            kw["error_http_status"] = r.status(e["http_status"], f"{path}.error.http_status", has_body=True)
    if "raw" in spec:
        kw.update(_raw(r, spec["raw"], f"{path}.raw"))
    if "headers" in spec:
        kw["headers"] = read_headers(r, spec["headers"], f"{path}.headers")
    if "http_status" in spec:
        kw["http_status"] = r.status(spec["http_status"], f"{path}.http_status", has_body=True)
    if "delay_ms" in spec:
        kw["delay_ms"] = r.integer(spec["delay_ms"], f"{path}.delay_ms")
    if "fault" in spec:
        kw["fault"] = _fault(r, spec["fault"], f"{path}.fault")
    if "envelope" in spec:
        e = r.mapping(spec["envelope"], f"{path}.envelope", "reply.envelope")
        kw["envelope"] = Envelope(
            r.choice(e["id"], f"{path}.envelope.id", "reply.envelope.id", "echo, wrong, null or omit")
            if "id" in e
            else EnvelopeId.ECHO,
            r.boolean(e.get("both", False), f"{path}.envelope.both"),
            r.boolean(e.get("neither", False), f"{path}.envelope.neither"),
        )
    if "stream" in spec:
        kw["stream"] = read_stream(r, spec["stream"], f"{path}.stream")
    if "unknown_fields" in spec:
        u = r.mapping(spec["unknown_fields"], f"{path}.unknown_fields")
        if not u:
            raise r.fail(
                f"{path}.unknown_fields",
                "expected at least one field",
                'e.g. {futureField: "ignore me", x-vendor-trace: 42}',
            )
        kw["unknown_fields"] = tuple((str(k), v) for k, v in u.items())
    if "edit" in spec:
        kw["edits"] = read_edits(r, spec["edit"], f"{path}.edit")
    if "grpc" in spec:
        g = r.mapping(spec["grpc"], f"{path}.grpc", "reply.grpc")
        kw["grpc"] = GrpcReply(
            _grpc_code(r, g["status"], f"{path}.grpc.status") if "status" in g else None,
            r.boolean(g.get("details", True), f"{path}.grpc.details"),
            r.boolean(g.get("empty", False), f"{path}.grpc.empty"),
        )
    return Reply(**kw)


def _grpc_code(r: Reader, value: Any, path: str) -> Code:
    """A canonical gRPC status name (not in CHOICES: seventeen names a file picks one of, documented as a list)."""
    text = r.string(value, path)
    try:
        return Code(text.upper())
    except ValueError:
        near = nearest(text, [c.value for c in Code])
        raise r.fail(
            path, f"unknown gRPC status {text!r}", f"did you mean {near}?" if near else "e.g. UNIMPLEMENTED"
        ) from None
