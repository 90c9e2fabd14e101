"""A gRPC call seen through the proxy as a reply of the scenario `--out` writes (capture.py), the way `a2a-lab record`
writes one (harness/record/scenario_file.py): an answer message as `raw.body_base64` (re-encoded from the journal's
ProtoJSON, whose credentials are redacted: the same message, not necessarily the same bytes), a call ended OK without
one as `grpc.empty`, an error as the error its ErrorInfo reason names with the status it ended with. A gRPC stream
has no replayable form (a scenario's raw event stream is HTTP only): it is left out, and the file says so."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from a2a_lab.contract.journal_record import Entry
from a2a_lab.contract.placeholders import GRPC_ADDRESS
from a2a_lab.protocol import errors, grpcwire

from ..refclient.failures import error_info_reason

#: Why a gRPC stream seen through the proxy is not in the scenario written (said in its description and docs).
STREAM_NOT_REPLAYED = (
    "a gRPC stream ({op}, journal entry #{seq}) is not replayed: a scenario's raw event stream is HTTP only, so a "
    "replay answers it with a2a-lab's default behaviour"
)


def card_text(text: str, addresses: list[str]) -> str:
    """The card's text with each gRPC address the proxy passed written as `{grpc_address}` (the replay's own)."""
    for address in addresses:
        text = re.sub(r"(?<![\w.-])" + re.escape(address) + r"(?![\w.:-])", lambda _: GRPC_ADDRESS, text)
    return text


def reply(entry: Entry, body: str | None) -> dict[str, Any] | None:
    """The reply replaying a unary gRPC call's answer (`body`: its text as journaled), or None when none can."""
    response, op = entry.response, entry.operation
    if response is None or op is None or entry.events is not None:
        return None
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
        f"{GRPC_ADDRESS}): an answer message re-encoded from its ProtoJSON (`body_base64`), an error as its status, "
        "message and ErrorInfo reason; response metadata other than the status is not replayed."
    )
    return text + "".join(f" Left out: {line}." for line in left_out)
