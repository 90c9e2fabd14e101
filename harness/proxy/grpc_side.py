"""The server's gRPC answers judged like its HTTP ones (server_side.py): what is wrong with a gRPC error (its status
and google.rpc.Status, protocol/grpcwire.py's `status_problems`), whether a call was answered "no such method", and a
unary answer of more than one message (grpc_record.py journals it)."""

from __future__ import annotations

from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind
from a2a_lab.protocol import grpcwire
from a2a_lab.protocol.errors import EnvelopeProblem

#: What the journal says (`response.fault`) of a unary call the upstream answered with more than one message (all of
#: them passed on; the first is journaled).
EXTRA_MESSAGES = "the upstream answered a unary call with {count} messages (a unary RPC answers exactly one)"


def _status(entry: Entry) -> str | None:
    return entry.response.grpc_status if entry.kind is EntryKind.GRPC and entry.response is not None else None


def message_problems(entry: Entry) -> list[str]:
    """A unary call answered with more than one message (gRPC: a unary response carries exactly one)."""
    fault = entry.response.fault if _status(entry) is not None and entry.response is not None else None
    prefix = EXTRA_MESSAGES.split("{", 1)[0]
    return [fault] if fault is not None and fault.startswith(prefix) else []


def unimplemented(entry: Entry) -> bool:
    """The call ended UNIMPLEMENTED (gRPC's "method not found")."""
    return _status(entry) == grpcwire.Code.UNIMPLEMENTED.value


def error_problems(entry: Entry, status: Any) -> list[EnvelopeProblem] | None:
    """What is wrong with a gRPC call's error answer (`status`: the google.rpc.Status the journal kept, as
    ProtoJSON); None when the call did not end with an error."""
    name = _status(entry)
    if name is None or name == grpcwire.Code.OK.value:
        return None
    if name not in grpcwire.Code.__members__:
        return [EnvelopeProblem(f"the call ended with {name}, which is no gRPC status")]
    details = status if isinstance(status, dict) and "details" in status else None
    return grpcwire.status_problems(grpcwire.Code(name), details)
