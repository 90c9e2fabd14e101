"""Taking a request in, for every endpoint that reads a body: the body read within the scenario's limits
(size and time), the request journaled as it arrived, and the endpoint it reached noted."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import Receive, Scope

from a2a_lab.protocol.errors import A2AError, ErrorType

from . import http
from .journal_record import BodyTimeout, EndpointRef, Entry, EntryKind
from .scenario import Endpoint
from .state import LabState


@dataclass(slots=True)
class Refusal:
    """A request refused before it was read whole: the error, its HTTP status, and what else to say."""

    error: A2AError
    status: int
    #: Extra response headers (a timed-out body closes the connection: the rest may still be on its way).
    extra: list[tuple[str, str]] | None = None
    #: The google.rpc status an HTTP+JSON error names, where the HTTP status alone does not say it.
    grpc_status: str | None = None


def journal_request(state: LabState, scope: Scope, body: bytes, kind: EntryKind) -> Entry:
    """Journal a request as it arrived (before it is answered, so a stalled answer is still seen)."""
    query = scope.get("query_string", b"").decode("latin-1")
    return state.journal.open(scope["method"], scope["path"], query, scope["headers"], body, kind)


async def take(
    state: LabState, endpoint: Endpoint, scope: Scope, receive: Receive, kind: EntryKind
) -> tuple[Entry, bytes, Refusal | None]:
    """Read and journal a request to an A2A endpoint: its entry, its body, and a Refusal when the body was too
    large or too slow to arrive."""
    limits = state.scenario.limits
    try:
        body = await http.read_body(receive, limits.body_bytes, limits.body_seconds)
    except http.BodyTooLarge:
        entry = journal_request(state, scope, b"", kind)
        entry.body_too_large = True
        return (
            entry,
            b"",
            Refusal(A2AError(ErrorType.INVALID_REQUEST, f"Request body larger than {limits.body_bytes} bytes"), 413),
        )
    except http.BodyTimeout as exc:
        entry = journal_request(state, scope, exc.received, kind)
        entry.body_timeout = BodyTimeout(exc.seconds, len(exc.received))
        err = A2AError(ErrorType.INVALID_REQUEST, http.timeout_message(exc))
        return entry, exc.received, Refusal(err, 408, http.CLOSE, "DEADLINE_EXCEEDED")
    entry = journal_request(state, scope, body, kind)
    entry.endpoint = EndpointRef(endpoint.path, endpoint.binding)
    return entry, body, None
