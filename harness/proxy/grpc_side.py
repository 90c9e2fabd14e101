"""What only the proxy's journal says of a gRPC answer: a unary call answered with more than one message
(grpc_record.py journals it). A gRPC call's status and google.rpc.Status are judged with the probe's own judging
(harness/server_judging/probe/judging.py reads the journaled call as the probe records one)."""

from __future__ import annotations

from a2a_lab.contract.journal_record import Entry, EntryKind

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
