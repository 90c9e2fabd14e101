"""Taking a request in, for the A2A endpoints (JSON-RPC and HTTP+JSON): the body read within the scenario's limits
(size and time), the request journaled as it arrived, the endpoint it reached noted, and the answer sent back
through the same entry."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.journal_record import AuthFacts, BodyTimeout, EndpointRef, Entry, EntryKind
from a2a_lab.contract.scenario import CardPath, Endpoint, Reply
from a2a_lab.contract.style import Style
from a2a_lab.contract.wording import Asked, ErrorWording, Worded, word
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

from . import answer, auth, http, tls
from .answer import send_page
from .engine import Event
from .state import LabState
from .stream_edits import Edited, Extra


@dataclass(slots=True)
class Refusal:
    """A request refused before it was read whole: the error, its HTTP status, and what else to say."""

    error: A2AError
    status: int
    #: Extra response headers (a timed-out body closes the connection: the rest may still be on its way).
    extra: list[tuple[str, str]] | None = None
    #: The google.rpc status an HTTP+JSON error names, where the HTTP status alone does not say it.
    grpc_status: str | None = None


@dataclass(slots=True)
class Exchange:
    """One request to an A2A endpoint being answered: the ASGI triple, its journal entry, and what it carried."""

    scope: Scope
    receive: Receive
    send: Send
    entry: Entry
    body: bytes
    headers: dict[str, str]
    query: dict[str, str]
    #: How the scenario words errors as a framework does (`error_messages`; contract/wording.py).
    error_messages: tuple[ErrorWording, ...] = ()
    #: How the scenario writes its answers (`style`; see `styled` for this request's JSON).
    style: Style = dataclasses.field(default_factory=Style)

    @property
    def styled(self) -> Style:
        """The style of this request's JSON: its interface's (`style.interfaces`) once the operation is known."""
        endpoint, version = self.entry.endpoint, self.entry.version
        if endpoint is None or version is None or not self.style.interfaces:
            return self.style
        return self.style.of(f"{endpoint.binding._value_} {version._value_}")  # _value_: no property call

    def worded(self, err: A2AError, binding: Binding, version: Version) -> Worded:
        """The error as the scenario words it (contract/wording.py): where the request came, what it asked for."""
        if not self.error_messages and self.style.error_metadata:
            return Worded(err)
        route = self.entry.route
        method = self.entry.rpc.method if self.entry.rpc is not None else ""
        asked = Asked(
            self.entry.operation,
            binding,
            version,
            http.requested_version(self.headers, self.query)[0],
            str(method) if route is None else f"{route.verb} {route.path}",
            self.headers.get("content-type", ""),
        )
        return word(self.error_messages, err, asked, self.style.error_metadata)

    async def not_found(self, page: CardPath) -> None:
        """The scenario's page for a request nothing routes (`not_found`)."""
        self.entry.unmatched = True
        await send_page(self.scope, self.receive, self.send, self.entry, page, self.style)

    def identify(self, op: Operation, version: Version) -> tuple[str, bool]:
        """Journal the operation a request was found to be; the version the client asked for (header or query)
        and whether it said one at all, for negotiation."""
        self.entry.operation, self.entry.version = op, version
        requested, given = http.requested_version(self.headers, self.query)
        self.entry.requested_version = requested
        return requested, given

    async def answer(
        self,
        status: int,
        body: bytes,
        content_type: str,
        reply: Reply | None = None,
        extra: list[tuple[str, str]] | None = None,
    ) -> None:
        if reply is None or reply.raw_status is None:  # raw replies go out byte for byte
            body = self.styled.apply_body(body)
        styled_headers = self.style.answer_headers(body)
        extra = [*extra, *styled_headers] if extra else styled_headers
        await answer.send_body(
            self.scope, self.receive, self.send, self.entry, status, body, content_type, reply, extra
        )

    def _styled_error(
        self, render_error: Callable[[A2AError], tuple[Any, str | None]]
    ) -> Callable[[A2AError], tuple[Any, str | None]]:
        def styled(err: A2AError) -> tuple[Any, str | None]:
            data, name = render_error(err)
            return self.styled.apply(data), name

        return styled

    async def stream(
        self,
        state: LabState,
        items: AsyncIterator[Edited],
        render: Callable[[Event], Any],
        render_error: Callable[[A2AError], tuple[Any, str | None]],
        reply: Reply,
        render_extra: Callable[[Extra], str] | None = None,
    ) -> None:
        styled = self.styled  # the interface's, known by now: once per stream, not per event
        await answer.send_stream(
            self.scope,
            self.receive,
            self.send,
            self.entry,
            state.journal,
            items,
            render if styled.plain else lambda event: styled.apply(render(event)),
            self._styled_error(render_error),
            reply,
            state.scenario.limits,
            self.style,
            styled.python_json_events,
            render_extra,
        )


def journal_request(state: LabState, scope: Scope, body: bytes, kind: EntryKind) -> Entry:
    """Journal a request as it arrived (before it is answered, so a stalled answer is still seen)."""
    query = scope.get("query_string", b"").decode("latin-1")
    entry = state.journal.open(scope["method"], scope["path"], query, scope["headers"], body, kind)
    if scope.get("scheme") == "https":
        entry.tls = tls.request_info(scope)
    if state.auth is not None:
        request = auth.Request(http.headers_of(scope), http.query_of(scope), body.decode("utf-8", "replace"))
        entry.auth = AuthFacts(carried=state.auth.carried(request))
    return entry


async def take(
    state: LabState, endpoint: Endpoint, scope: Scope, receive: Receive, send: Send, kind: EntryKind
) -> tuple[Exchange, Refusal | None]:
    """Read and journal a request to an A2A endpoint: the exchange, and a Refusal when its body was too large or
    too slow to arrive."""
    limits = state.scenario.limits
    refusal: Refusal | None = None
    try:
        body = await http.read_body(receive, limits.body_bytes, limits.body_seconds)
        entry = journal_request(state, scope, body, kind)
        entry.endpoint = EndpointRef(endpoint.path, endpoint.binding)
    except http.BodyTooLarge:
        body = b""
        entry = journal_request(state, scope, body, kind)
        entry.body_too_large = True
        err = A2AError(ErrorType.INVALID_REQUEST, f"Request body larger than {limits.body_bytes} bytes")
        refusal = Refusal(err, 413)
    except http.BodyTimeout as exc:
        body = exc.received
        entry = journal_request(state, scope, body, kind)
        entry.body_timeout = BodyTimeout(exc.seconds, len(exc.received))
        err = A2AError(ErrorType.INVALID_REQUEST, http.timeout_message(exc))
        refusal = Refusal(err, 408, http.CLOSE, "DEADLINE_EXCEEDED")
    scenario = state.scenario
    headers, query = http.headers_of(scope), http.query_of(scope)
    exchange = Exchange(scope, receive, send, entry, body, headers, query, scenario.error_messages, scenario.style)
    return exchange, refusal
