"""A capture as a scenario file that replays it with the existing scenario mechanisms: `card.raw` (the exact card,
the origin as `{base_url}`, a gRPC interface's address as `{grpc_address}`), explicit `endpoints`, and per operation a
`raw` reply keyed by `when: {binding, version}` (`echo_id` where the answer carried the request's id; a gRPC answer
message as `body_base64`; a gRPC error as the error its ErrorInfo reason names, with the recorded status). Written only
once it loads back as a valid scenario."""

from __future__ import annotations

import base64
import re
from typing import Any

from a2a_lab.contract.placeholders import BASE_URL, GRPC_ADDRESS
from a2a_lab.harness.clients.refclient.failures import error_info_reason
from a2a_lab.harness.common.scenario_writer import RecordError, tool_version
from a2a_lab.harness.server_judging.record.capture import Capture, Recorded
from a2a_lab.protocol import cards, errors, grpcwire
from a2a_lab.protocol.bindings import Binding


def _text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{what} is not UTF-8 text; a scenario file holds text") from None


def grpc_addresses(cap: Capture) -> list[str]:
    """The addresses of the card's gRPC 1.0 interfaces, when a gRPC call was recorded: the replay's own gRPC server
    answers them all (like the recorded one)."""
    if not any(rec.grpc for rec in cap.exchanges):
        return []
    found = (grpcwire.address_of(i.url) for i in cards.interfaces(cap.card) if i.core_binding is Binding.GRPC)
    return list(dict.fromkeys(a for a in found if a is not None))


def card_text(cap: Capture, keep_origin: bool) -> str:
    text = _text(cap.card_raw, "the card")
    if keep_origin:
        return text
    text = re.sub(re.escape(cap.origin) + r"(?![\w.-])", lambda _: BASE_URL, text)  # not inside a longer host or port
    for address in grpc_addresses(cap):
        text = re.sub(r"(?<![\w.-])" + re.escape(address) + r"(?![\w.:-])", lambda _: GRPC_ADDRESS, text)
    return text


def _grpc_reply(rec: Recorded) -> dict[str, Any]:
    """A gRPC answer as a reply: the answer message's bytes, a call ended OK without one, or the error its ErrorInfo
    reason names (InternalError without one) with the recorded status, and details only where ErrorInfo came."""
    call = rec.exchange.grpc
    assert call is not None
    if call.status == grpcwire.Code.OK.value:
        if not call.raw_messages:
            return {"grpc": {"empty": True}}
        body = base64.b64encode(call.raw_messages[0]).decode("ascii")
        return {"raw": {"status": 200, "body_base64": body, "content_type": grpcwire.CONTENT_TYPE}}
    reason = error_info_reason((call.details or {}).get("details"))
    known = errors.by_name(reason) if reason else None
    error: dict[str, Any] = {"code": (known or errors.ErrorType.INTERNAL_ERROR).kind.name.removesuffix("Error")}
    if call.message:
        error["message"] = call.message
    return {"error": error, "grpc": {"status": call.status, "details": known is not None}}


def _grpc_notes(rec: Recorded) -> list[str]:
    """What a replay of this gRPC exchange cannot say as the recorded server did."""
    call = rec.exchange.grpc
    assert call is not None
    where = f"{rec.iface.label}: {rec.op.value}"
    out: list[str] = []
    if len(call.raw_messages) > 1:
        out.append(f"{where} answered {len(call.raw_messages)} messages; the replay answers the first")
    if call.status != grpcwire.Code.OK.value and call.details is not None:
        out.append(
            f"{where} ended {call.status} with a google.rpc.Status; the replay sends a2a-lab's own "
            "(the same status, message and ErrorInfo reason; other details and ErrorInfo metadata are not replayed)"
        )
    if call.details_error is not None:
        out.append(f"{where}: its grpc-status-details-bin was unreadable ({call.details_error}); not replayed")
    return out


def _summary(rec: Recorded) -> str:
    call = rec.exchange.grpc
    status = f"gRPC {call.status}" if call is not None else f"HTTP {rec.exchange.status}"
    what = ""
    if rec.answer is not None:
        task = rec.answer.task
        what = f", a {rec.answer.kind.value}" + (
            f" in {task.state.short}" if task is not None and task.state is not None else ""
        )
    return f"{rec.op.value} answered {status}{what}"


def document(cap: Capture, keep_origin: bool, text: str) -> dict[str, Any]:
    name = cap.card.get("name") if isinstance(cap.card.get("name"), str) else "an agent"
    endpoints: dict[tuple[str, str], list[str]] = {}
    behaviour: dict[str, list[dict[str, Any]]] = {}
    lines: dict[str, list[str]] = {}
    grpc_notes: list[str] = []
    for rec in cap.exchanges:
        iface = rec.iface
        versions = endpoints.setdefault((rec.path, iface.binding), [])
        if iface.version not in versions:
            versions.append(iface.version)
        if rec.grpc:
            reply = _grpc_reply(rec)
            grpc_notes += _grpc_notes(rec)
        else:
            raw: dict[str, Any] = {
                "status": rec.exchange.status,
                "body": _text(rec.body, f"the {rec.op.value} answer of {iface.label}"),
                "content_type": rec.exchange.header("content-type") or "",
            }
            if rec.echoes_id:
                raw["echo_id"] = True
            reply = {"raw": raw}
        behaviour.setdefault(rec.op.value, []).append(
            {"when": {"binding": iface.binding, "version": iface.version}, "reply": reply}
        )
        lines.setdefault(f"{iface.binding} {iface.version} at {rec.path}", []).append(_summary(rec))
    card: dict[str, Any] = {
        "raw": card_text(cap, keep_origin),
        "content_type": cap.content_type,
        "cache_control": cap.cache_control or "",
        "etag": cap.etag,
    }
    if keep_origin:
        card["substitute_raw"] = False
    listed = (
        "\n".join(f"- {where}: {'; '.join(said)}" for where, said in lines.items())
        or "- (no interface a2a-lab speaks on this origin)"
    )
    notes = "".join(f"\n- {note}" for note in [*cap.notes, *grpc_notes])
    description = _description(cap, keep_origin, listed, notes)
    return {
        "title": f"Recorded: {name} ({cap.origin})",
        "description": description,
        "recorded": {
            "from": cap.target,
            "at": cap.at,
            "card_sha256": cap.card_sha256,
            "tool": tool_version(),
            "card_url": cap.card_url,
            "exchanges": [_recorded(r) for r in cap.exchanges],
        },
        "client": {"message": text},
        "card": card,
        "endpoints": [
            {"path": path, "binding": binding, "versions": versions} for (path, binding), versions in endpoints.items()
        ],
        "behaviour": behaviour,
    }


def _recorded(rec: Recorded) -> dict[str, Any]:
    """One exchange as `recorded.exchanges` lists it; a gRPC one with its address, status and answer as ProtoJSON."""
    out: dict[str, Any] = {
        "operation": rec.op.value,
        "binding": rec.iface.binding,
        "version": rec.iface.version,
        "path": rec.path,
        "request_id": rec.request_id,
        "status": rec.exchange.status,
    }
    call = rec.exchange.grpc
    if call is not None:
        out["address"] = rec.exchange.url
        out["grpc_status"] = call.status
        if call.status == grpcwire.Code.OK.value:
            out["answer"] = call.messages[0] if call.messages else None
        else:
            out["answer"] = call.details or {"code": grpcwire.Code(str(call.status)).number, "message": call.message}
    return out


def _description(cap: Capture, keep_origin: bool, listed: str, notes: str) -> str:
    """The recorded file's description: where and when, what is replayed and how, the exchanges, what is not."""
    addresses = grpc_addresses(cap)
    grpc_said = (
        " gRPC answers are replayed on the scenario's own gRPC server"
        + (f" (the card's {', '.join(addresses)} written as {GRPC_ADDRESS})" if addresses and not keep_origin else "")
        + ": an answer message byte for byte (`body_base64`; its ProtoJSON is under `recorded.exchanges`), an error as "
        "its status, message and ErrorInfo reason. Response metadata (headers and trailers other than the status) is "
        "not recorded."
        if any(rec.grpc for rec in cap.exchanges)
        else ""
    )
    return (
        f"Recorded by `a2a-lab record` from {cap.target} at {cap.at}: the card exactly as served"
        + (
            " (untouched: its URLs still name the recorded server)"
            if keep_origin
            else f" (its origin {cap.origin} written as {BASE_URL})"
        )
        + ", and per interface a2a-lab speaks one SendMessage exchange (plus the GetTask follow-up of a returned "
        "task), replayed byte for byte; JSON-RPC answers echo the client's request id." + grpc_said + " Every "
        "SendMessage (GetTask) on an interface gets the recorded answer; other operations get a2a-lab's default "
        "behaviour.\n\n"
        f"Exchanges:\n{listed}" + (f"\n\nNot recorded:{notes}" if notes else "") + "\n"
    )
