"""A gRPC call seen through the proxy as a reply of the scenario `--out` writes (capture.py), the way `a2a-lab record`
writes one (harness/server_judging/record/scenario_file.py): an answer message as `raw.body_base64` (re-encoded from the
journal's ProtoJSON, whose credentials are redacted: the same message, not necessarily the same bytes), a call ended OK
without one as `grpc.empty`, an error as the error its ErrorInfo reason names with the status it ended with. A gRPC
stream is written as `raw.events`, each message's ProtoJSON after the delay it came after (the replay's gRPC endpoint
encodes each as a StreamResponse), and the google.rpc.Status it ended with, if not OK, as a last event named `error`;
one the replay could not reproduce (a message that did not decode, a status it cannot write as it came, a client that
left before the end) is left out, and the file says why."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from a2a_lab.contract.journal_record import Entry, SentEvent, SentKind
from a2a_lab.contract.placeholders import GRPC_ADDRESS
from a2a_lab.contract.scenario import GRPC_STATUS_EVENT
from a2a_lab.harness.clients.refclient.failures import error_info_reason
from a2a_lab.harness.proxy.app import MAX_EVENTS
from a2a_lab.protocol import errors, grpcwire

#: Why a gRPC stream seen through the proxy is not in the scenario written (said in its description and docs).
STREAM_NOT_REPLAYED = (
    "a gRPC stream ({op}, journal entry #{seq}) is not replayed: {why}, so a replay answers it with a2a-lab's "
    "default behaviour"
)
#: Why (each is said in the description of the scenario written).
NOT_DECODED = "a message of it did not decode as a StreamResponse, and its bytes were not kept"
ENDED_IN_ERROR = "it ended with {status} and a google.rpc.Status a replay cannot send as it came ({why})"
NO_MESSAGE = "it ended OK without a message, and a scenario's raw event stream has at least one"
CLIENT_LEFT = "the client left before it ended, so how it ended was never seen"
TOO_LONG = "it had more messages than the journal keeps of a stream ({count})"


def stream_reply(entry: Entry, events: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The reply replaying a gRPC stream's messages (`events`: as capture writes a stream's, each with its delay) as
    `raw.events` (each message's ProtoJSON, re-encoded by the replay), or None and why it cannot."""
    response, seen = entry.response, entry.events or []
    if response is None or entry.disconnected or response.grpc_status is None:
        return None, CLIENT_LEFT
    if not any(e.kind is SentKind.DATA for e in seen) and response.grpc_status == grpcwire.Code.OK.value:
        return None, NO_MESSAGE
    if any(e.kind is SentKind.DATA and e.text is None for e in seen):
        return None, NOT_DECODED
    if len(seen) >= MAX_EVENTS:
        return None, TOO_LONG.format(count=MAX_EVENTS)
    if response.grpc_status != grpcwire.Code.OK.value:
        why = _end_problem(response.grpc_status, seen[-1] if seen else None)
        if why:
            return None, ENDED_IN_ERROR.format(status=response.grpc_status, why=why)
        events = [*events[:-1], {**events[-1], "event": GRPC_STATUS_EVENT}]  # the status that ended it, after its delay
    raw = {"content_type": grpcwire.CONTENT_TYPE, "events": events}
    return {"raw": raw}, ""


def _end_problem(status: str, last: SentEvent | None) -> str:
    """Why the google.rpc.Status a stream ended with (its last event) cannot be replayed as it came ("" when it can)."""
    value = last.value if last is not None and last.kind is SentKind.ERROR else None
    if not isinstance(value, dict):
        return "no status was journaled"
    if "unreadable" in value:
        return "its grpc-status-details-bin did not decode"
    if status not in grpcwire.Code.__members__ or value.get("code") != grpcwire.Code(status).number:
        return f"its grpc-status-details-bin says code {value.get('code')}, not the call's status"
    from a2a_lab.protocol import protobuf

    details = value.get("details", [])
    if not isinstance(details, list) or not all(isinstance(d, dict) and protobuf.packable(d) for d in details):
        return "a detail of a type a2a-lab does not write"
    return ""


def card_text(text: str, addresses: list[str]) -> str:
    """The card's text with each gRPC address the proxy passed written as `{grpc_address}` (the replay's own)."""
    for address in addresses:
        text = re.sub(r"(?<![\w.-])" + re.escape(address) + r"(?![\w.:-])", lambda _: GRPC_ADDRESS, text)
    return text


def reply(entry: Entry, body: str | None) -> dict[str, Any] | None:
    """The reply replaying a unary gRPC call's answer (`body`: its text as journaled), or None when none can."""
    response, op = entry.response, entry.operation
    if response is None or op is None:
        return None
    if entry.events is not None and (entry.events or response.grpc_status == grpcwire.Code.OK.value):
        return None  # a stream: only one that ended in an error before any message is replayed here, as that error
    if response.grpc_status == grpcwire.Code.OK.value:
        if not body:
            return {"grpc": {"empty": True}}
        from a2a_lab.protocol import protobuf

        try:
            data = protobuf.encode_response(op, json.loads(body))
        except (ValueError, protobuf.DecodeError):
            return None  # an answer that did not decode: its bytes were not kept
        encoded = base64.b64encode(data).decode("ascii")
        return {"raw": {"status": 200, "body_base64": encoded, "content_type": grpcwire.CONTENT_TYPE}}
    if response.grpc_status not in grpcwire.Code.__members__:
        return None
    try:
        status = json.loads(body or "")
    except ValueError:
        status = {}
    status = status if isinstance(status, dict) else {}
    reason = error_info_reason(status.get("details"))
    known = errors.by_name(reason) if reason else None
    error: dict[str, Any] = {"code": (known or errors.ErrorType.INTERNAL_ERROR).kind.name.removesuffix("Error")}
    if isinstance(status.get("message"), str) and status["message"]:
        error["message"] = status["message"]
    return {"error": error, "grpc": {"status": response.grpc_status, "details": known is not None}}


def said(routes: dict[str, Any], left_out: list[str]) -> str:
    """What the scenario's description says of gRPC: how its answers are replayed, and what was left out."""
    if not routes:
        return ""
    text = (
        " gRPC answers are replayed on the scenario's own gRPC server (the card's gRPC address written as "
        f"{GRPC_ADDRESS}): an answer message re-encoded from its ProtoJSON (`body_base64`), a stream's messages as "
        "`raw.events` (each message's ProtoJSON, after the delay it came after; an error ending it as an `error` "
        "event), an error as its status, message "
        "and ErrorInfo reason; response metadata other than the status is not replayed."
    )
    return text + "".join(f" Left out: {line}." for line in left_out)
