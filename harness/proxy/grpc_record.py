"""A gRPC call passing through the proxy, journaled with the record the scenario server writes for one
(server/grpc_endpoint.py): kind `grpc`, the method path, the metadata as headers, the request message as ProtoJSON,
the answer message (or each streamed message with its time) as ProtoJSON, the status by name and, for an error, the
google.rpc.Status. A message that does not decode is journaled as the bytes that came (and judged), never dropped.

Needs protobuf and the A2A proto types (the grpc extra): imported by grpc_pass only.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from a2a_lab.contract.journal import EVENT_OVERHEAD, Journal
from a2a_lab.contract.journal_record import (
    BODY_KEEP_BYTES,
    Answer,
    Body,
    EndpointRef,
    EntryKind,
    Response,
    ResultKind,
    SentEvent,
    SentKind,
)
from a2a_lab.harness.clients.refclient.failures import error_info_reason
from a2a_lab.harness.proxy import classify
from a2a_lab.harness.proxy.app import MAX_EVENTS
from a2a_lab.harness.proxy.grpc_side import EXTRA_MESSAGES
from a2a_lab.protocol import errors, grpcwire, jsontext, protobuf, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.json_types import JSONObject
from a2a_lab.protocol.versions import Version

#: How much of a message that does not decode an event keeps (base64 of its first bytes).
SHOWN_BYTES = 256


def _undecoded(data: bytes, exc: Exception) -> str:
    shown = base64.b64encode(data[:SHOWN_BYTES]).decode("ascii")
    return f"{exc} (base64 of {'its first ' if len(data) > SHOWN_BYTES else ''}bytes: {shown})"


class CallRecord:
    """One call's journal entry, filled as the call passes: the request at once, each message as it comes, the
    status at the end."""

    def __init__(
        self,
        journal: Journal,
        method: str,
        metadata: Sequence[tuple[str, str | bytes]],
        request: bytes,
        address: str,
    ) -> None:
        self.journal = journal
        self.op = grpcwire.operation_of(method)
        self.streaming = self.op is not None and protobuf.streaming(self.op)
        body = request
        if self.op is not None:
            try:
                body = jsontext.dumps(protobuf.decode_request(self.op, request))
            except protobuf.DecodeError:
                pass  # journaled as the bytes that came; the client checks judge them
        entry = journal.open("POST", method, "", grpcwire.metadata_headers(metadata), body, EntryKind.GRPC)
        entry.endpoint = EndpointRef(grpcwire.ENDPOINT_PATH, Binding.GRPC)
        entry.url = address  # the address the call reached: what the card as served names
        if self.op is None:
            entry.unmatched = True
        else:
            entry.operation, entry.version = self.op, Version.V1_0
            given = next((str(v) for k, v in metadata if k.lower() == grpcwire.VERSION_METADATA), None)
            entry.requested_version = versions.requested(given)
        self.entry = entry
        self.messages = 0
        self._texts: list[str] = []
        #: A unary answer's (first) message as journaled: its ProtoJSON, or the bytes that came.
        self._first = b""

    def _response(self) -> Response:
        if self.entry.response is None:
            self.entry.response = Response(200, grpcwire.CONTENT_TYPE, redaction=self.entry.redaction)
        return self.entry.response

    def message(self, data: bytes) -> None:
        """A message of the upstream's answer, as it passed."""
        self.messages += 1
        response = self._response()
        text: str | None = None
        problem: str | None = None
        if self.op is not None:
            try:
                text = jsontext.dumps(protobuf.decode_response(self.op, data)).decode("utf-8")
            except protobuf.DecodeError as exc:
                problem = _undecoded(data, exc)
        if self.streaming:
            response.stream = True
            events = self.entry.events if self.entry.events is not None else []
            self.entry.events = events
            if len(events) >= MAX_EVENTS:  # forwarded all the same; the journal keeps the first ones
                return
            t = self.journal.offset()
            events.append(
                SentEvent(t, SentKind.DATA, text=text)
                if text is not None
                else SentEvent(t, SentKind.DATA, value=problem)
            )
            self.entry.grow(EVENT_OVERHEAD + len(text or problem or ""))
            if text is not None:
                self._texts.append(text)
            return
        if self.messages == 1:  # a unary answer's message; a second one is counted, and judged by the client
            kept = text.encode("utf-8") if text is not None else data
            self._first = kept
            if len(kept) > BODY_KEEP_BYTES:  # as Response.sent keeps a large body: redacted and cut at once
                response.parsed_body = Body.of(kept, self.entry.redaction)
                self.entry.grow(BODY_KEEP_BYTES)
                return
            response.raw_body = kept
            self.entry.grow(len(kept))

    def left(self) -> None:
        """The client went away before the call ended: what passed until then is its answer; no status was given
        (the upstream's call is cancelled), so none is judged as the server's."""
        response = self._response()
        self.entry.disconnected = True
        response.closed = "disconnected"
        if self.streaming and self.entry.events is not None:
            self.entry.answer = classify.answer_of(self.entry, 200, b"", list(self._texts))

    def ended(self, code: str, details: str, trailing: Sequence[tuple[str, str | bytes]]) -> None:
        """The call ended: its status (by name), its message and trailing metadata as the upstream sent them."""
        response = self._response()
        response.grpc_status = code
        if self.streaming:
            response.closed = "complete"
        if code != grpcwire.Code.OK.value:
            status = self._status(code, details, trailing)
            reason = error_info_reason(status.get("details"))
            known = errors.by_name(reason) if reason else None
            self.entry.answer = Answer.error(known.code) if known is not None else Answer(ResultKind.ERROR)
            if self.entry.events:
                self.entry.events.append(SentEvent(self.journal.offset(), SentKind.ERROR, value=status))
            else:
                body = jsontext.dumps(status)
                response.raw_body = body
                self.entry.grow(len(body))
            return
        if self.streaming:
            if self.entry.events is None:
                self.entry.events = []
            self.entry.answer = classify.answer_of(self.entry, 200, b"", list(self._texts))
            return
        self.entry.answer = classify.answer_of(self.entry, 200, self._first, None)
        if self.messages > 1 and self.op is not None:  # (a method the 1.0 service lacks may stream: not known)
            response.fault = EXTRA_MESSAGES.format(count=self.messages)

    @staticmethod
    def _status(code: str, details: str, trailing: Sequence[tuple[str, str | bytes]]) -> JSONObject:
        """The google.rpc.Status of an error as ProtoJSON: the `grpc-status-details-bin` trailer's when one came
        (even when it disagrees with the call's status: that is judged), else the call's status and message."""
        raw = next((v for k, v in trailing if k == grpcwire.STATUS_DETAILS_KEY), None)
        if isinstance(raw, bytes):
            try:
                return protobuf.status_json(raw)
            except protobuf.DecodeError as exc:
                return {"code": grpcwire.Code(code).number, "message": details, "unreadable": str(exc)}
        number = grpcwire.Code(code).number if code in grpcwire.Code.__members__ else 2
        return {"code": number, "message": details}
