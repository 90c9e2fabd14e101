"""Request form: JSON-RPC envelopes, HTTP+JSON bodies, message shapes and ids (spec §4.1, §5.5, §9, §11)."""

from __future__ import annotations

import json
from typing import Any

from a2a_lab.contract.journal_record import EntryKind
from a2a_lab.harness.client_judging.checks.base import Check, check
from a2a_lab.harness.client_judging.journal_view import Call, RunView
from a2a_lab.harness.common.model import CheckResult, Level, Outcome
from a2a_lab.protocol import jsonrpc, shapes
from a2a_lab.protocol.bindings import A2A_JSON, JSON, Binding
from a2a_lab.protocol.operations import MESSAGE_SENDS
from a2a_lab.protocol.versions import Version


def _media(call: Call) -> str:
    return call.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _envelope_problem(call: Call) -> tuple[Level, str] | None:
    """What is wrong with a JSON-RPC request, at the keyword of the rule it breaks."""
    if _media(call) != JSON:
        return (
            Level.MUST,
            f"Content-Type {call.headers.get('content-type', '(none)')!r} (A2A §9.1: JSON-RPC requests use "
            "application/json)",
        )
    try:
        body = json.loads(call.body_text)
    except ValueError:
        return Level.MUST, "the body is not JSON (JSON-RPC 2.0 §4)"
    if isinstance(body, list):
        # JSON-RPC 2.0 §6: "The Client MAY send an Array filled with Request objects"; A2A says nothing of batches.
        problems = [_request_problem(item) for item in body] or [(Level.MUST, "an empty batch (JSON-RPC 2.0 §6)")]
        found = [p for p in problems if p is not None]
        if found:
            return min(found, key=lambda p: _RANK[p[0]])
        return (
            Level.INFO,
            f"a batch of {len(body)} requests (JSON-RPC 2.0 §6 MAY; A2A names no batch, and servers may refuse one)",
        )
    return _request_problem(body)


def _request_problem(body: Any) -> tuple[Level, str] | None:
    if not isinstance(body, dict):
        return Level.MUST, "the body is not a JSON-RPC Request object (JSON-RPC 2.0 §4)"
    if body.get("jsonrpc") != jsonrpc.VERSION:
        return Level.MUST, f'"jsonrpc" is {body.get("jsonrpc")!r}, not "{jsonrpc.VERSION}" (JSON-RPC 2.0 §4 MUST)'
    if not isinstance(body.get("method"), str):
        return Level.MUST, '"method" is missing (JSON-RPC 2.0 §4 REQUIRED)'
    if "params" in body and not isinstance(body["params"], (dict, list)):
        return Level.MUST, '"params" is not a Structured value (JSON-RPC 2.0 §4.2 MUST)'
    if "params" in body and not isinstance(body["params"], dict):
        return Level.MUST, '"params" is not an object (A2A §9.3: params is the request message)'
    if "id" not in body:
        # A Request without id is a Notification (§4.1): legal JSON-RPC, but the server MUST NOT answer it, and every
        # A2A operation answers with a result.
        return Level.SHOULD, '"id" is missing: a Notification (JSON-RPC 2.0 §4.1) gets no answer'
    rid = body["id"]
    if isinstance(rid, bool) or not isinstance(rid, (str, int, float, type(None))):
        return Level.MUST, f'"id" is {rid!r} (JSON-RPC 2.0 §4: MUST be a String, Number, or NULL)'
    if rid is None:
        return Level.SHOULD, '"id" is null (JSON-RPC 2.0 §4: SHOULD NOT be NULL for a request expecting a response)'
    if isinstance(rid, float) and not rid.is_integer():
        return Level.SHOULD, f'"id" is {rid!r} (JSON-RPC 2.0 §4: Numbers SHOULD NOT contain fractional parts)'
    return None


#: Severity of a finding's level: the strictest broken rule is reported.
_RANK = {Level.MUST: 0, Level.SHOULD: 1, Level.MAY: 2, Level.INFO: 3}


@check(
    "JSONRPC-ENVELOPE",
    Level.MUST,
    "A2A 1.0 §9.1, §9.3; 0.3 §3.2.1, §6.11; JSON-RPC 2.0 §4, §4.1, §6",
    "Valid JSON-RPC 2.0 request",
    'JSON-RPC requests MUST be valid JSON-RPC 2.0 Request objects ("jsonrpc": "2.0", a method, params as an object) '
    "sent with Content-Type: application/json; the id SHOULD NOT be null or fractional, and a request without one is "
    "a Notification that gets no answer (NON_STRICT). A batch (JSON-RPC 2.0 §6 MAY) is recorded, not judged.",
    "each finding at its own keyword: a broken MUST FAILs; a null, fractional or missing id is NON_STRICT; a batch of "
    "valid requests is INFORMATIONAL",
    rule=(
        'A client sends each JSON-RPC call as a JSON-RPC 2.0 request (`"jsonrpc": "2.0"`, a method, '
        "object params, a string or integer id) with `Content-Type: application/json`."
    ),
    fix=(
        'Build every request as `{"jsonrpc": "2.0", "id": <string or integer>, "method": ..., "params": '
        "{...}}` and post it as `application/json`; never leave the id out or set it to null."
    ),
)
def jsonrpc_envelope(view: RunView, c: Check) -> CheckResult:
    rpc = [call for call in view.calls if call.entry.kind is EntryKind.JSONRPC]
    if not rpc:
        return c.skipped("no JSON-RPC request")
    found = [(finding, call) for call in rpc if (finding := _envelope_problem(call)) is not None]
    if found:
        (level, problem), call = min(found, key=lambda f: _RANK[f[0][0]])
        if level is Level.INFO:
            return c.result(Outcome.INFORMATIONAL, problem, calls=[call], level=level)
        return c.broken(
            "a JSON-RPC request is malformed" if level is Level.MUST else "a JSON-RPC request id the spec discourages",
            "a JSON-RPC 2.0 request object with a string or integer id, sent as application/json",
            problem,
            [call],
            level=level,
        )
    return c.passed(f"{len(rpc)} well-formed JSON-RPC requests")


@check(
    "HTTP-JSON-REQUEST",
    Level.MUST,
    "A2A 1.0 §11.1, §11.5; 0.3 §3.2.3; D5",
    "Well-formed HTTP+JSON requests",
    "HTTP+JSON request bodies are JSON sent as application/a2a+json (v1.0.1) or application/json (v1.0.0); GET and "
    "DELETE carry their parameters in the path and query, not in a body (§11.5 MUST).",
    "each finding at its keyword: a GET or DELETE with a body, or a body that is not JSON, FAILs; another Content-Type "
    "is NON_STRICT in 1.0 (§11.1: application/a2a+json SHOULD be used) and FAILs in 0.3 (§3.2.3: MUST use "
    "application/json)",
    rule=(
        "A client sends HTTP+JSON bodies as JSON with `Content-Type: application/a2a+json` (0.3: "
        "`application/json`), and GET and DELETE requests without a body."
    ),
    fix=(
        "Post JSON bodies with the content type of the interface's version, and put GET and DELETE "
        "parameters in the path and query string (`GET /tasks/{id}?historyLength=2`), never in a body."
    ),
)
def http_json_request(view: RunView, c: Check) -> CheckResult:
    rest = [call for call in view.a2a_calls if call.binding is Binding.HTTP_JSON]
    if not rest:
        return c.skipped("no HTTP+JSON request")
    for call in rest:
        verb = call.entry.method
        if verb in ("GET", "DELETE"):
            if call.body_text.strip():
                return c.broken(
                    f"{verb} with a body (§11.5: parameters MUST go in the path or query)",
                    "parameters in the path and query",
                    "a request body",
                    [call],
                )
            continue
        if call.body_text.strip():
            if _media(call) not in (JSON, A2A_JSON):
                return c.broken(
                    "a body with the wrong Content-Type",
                    "application/a2a+json or application/json",
                    call.headers.get("content-type", "(none)"),
                    [call],
                    level=Level.MUST if call.version is Version.V0_3 else Level.SHOULD,
                )
            try:
                json.loads(call.body_text)
            except ValueError:
                return c.broken("a body that is not JSON", "a JSON body", call.body_text[:80], [call])
    return c.passed(f"{len(rest)} well-formed HTTP+JSON requests")


@check(
    "BODY-SHAPE",
    Level.MUST,
    "A2A 1.0 §4.1, §5.5 (ProtoJSON: camelCase, enum names, no `kind`); 0.3 §6 (kind discriminators)",
    "Message shape matches the version",
    "A message has the shape of the version it is sent in: 1.0 uses ROLE_USER and parts discriminated by member name "
    '(text/raw/url/data) with no `kind`; 0.3 uses role "user" and `kind` on the message and on every part.',
    rule=(
        "A client shapes a message for the version it sends it in: 1.0 `ROLE_USER` and parts keyed by "
        "`text`, `raw`, `url` or `data` without `kind`; 0.3 role `user` and `kind` on the message and "
        "each part."
    ),
    fix=(
        'Serialise messages for the interface\'s version: 1.0 as ProtoJSON (`{"role": "ROLE_USER", '
        '"parts": [{"text": ...}]}`), 0.3 with `kind` discriminators (`{"kind": "message", "role": '
        '"user", "parts": [{"kind": "text", ...}]}`).'
    ),
)
def body_shape(view: RunView, c: Check) -> CheckResult:
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS and call.version is not None]
    if not sends:
        return c.skipped("no message was sent")
    tolerated = 0
    for call in sends:
        form = call.form
        assert form is not None and call.version is not None  # sends were chosen with a version
        _, found = shapes.parse_message(call.message(), form, "message")
        problems = [p for p in found if not p.tolerated]
        tolerated += len(found) - len(problems)
        if problems:
            listed = "; ".join(str(p) for p in problems[:4])
            return c.broken(
                f"the message is not valid A2A {call.version.value}",
                f"an A2A {call.version.value} message",
                listed,
                [call],
            )
    also = (
        f"; {tolerated} proto (snake_case) field name(s) in 0.3 HTTP+JSON, which ProtoJSON accepts" if tolerated else ""
    )
    return c.passed(f"{len(sends)} message(s) shaped for their version{also}")


def _sent_message(call: Call) -> Any:
    """The message a send carried, canonical where it parses: a retry resends it under a new JSON-RPC id (or on another
    interface, in another version's shape), and that is still the same message."""
    message = call.message()
    if call.form is None:
        return message
    canonical, _ = shapes.parse_message(message, call.form, "message", lenient_kind=True)
    return canonical if canonical is not None else message


@check(
    "MESSAGE-ID-UNIQUE",
    Level.MUST,
    "A2A 1.0 §5.7, §4.1.1 Message.messageId (REQUIRED, created by the sender); proto Message.message_id",
    "Unique messageId",
    "Every message carries a messageId the client created, and a client does not reuse one for a different message.",
    "each finding at its keyword: a missing messageId FAILs (§5.7: REQUIRED fields MUST be present); reusing one for "
    "a different message is NON_STRICT (the proto states one id per message without a keyword)",
    rule=("A client gives every message a `messageId` of its own making, and a new one for each new message."),
    fix=(
        "Generate a fresh `messageId` (a UUID) for every message you send; reuse one only to resend the "
        "very same message."
    ),
)
def message_id_unique(view: RunView, c: Check) -> CheckResult:
    sends = [call for call in view.a2a_calls if call.operation in MESSAGE_SENDS]
    if not sends:
        return c.skipped("no message was sent")
    seen: dict[str, Call] = {}
    for call in sends:
        message = call.message()
        mid = (message.get("messageId") or message.get("message_id")) if isinstance(message, dict) else None
        if not isinstance(mid, str) or not mid:
            return c.broken("a message without messageId", "a non-empty messageId", repr(mid), [call])
        if mid in seen and _sent_message(seen[mid]) != _sent_message(call):
            # The proto says the creator makes one per message, without a keyword: a reuse breaks no MUST.
            return c.broken(
                "a messageId was reused for a different message",
                "a new messageId per message",
                f"{mid!r} twice",
                [seen[mid], call],
                level=Level.SHOULD,
            )
        seen[mid] = call
    return c.passed(f"{len(seen)} distinct messageId(s)")
