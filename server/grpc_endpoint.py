"""The gRPC binding (spec §10): `lf.a2a.v1.A2AService`, its calls parsed into the same Invocation as the JSON
bindings, answered through the same dispatch, journaled like any other call.

Every method is served by one generic handler, so calls to methods the service does not define (a 0.3 client's
`a2a.v1.A2AService`, a typo) are journaled too, and every answer is bytes this module chose: a scenario can end a
call with another status, without the google.rpc.Status details, or OK with no message at all.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from a2a_lab.contract.journal import EVENT_OVERHEAD
from a2a_lab.contract.journal_record import (
    Answer,
    AuthFacts,
    EndpointRef,
    Entry,
    EntryKind,
    Response,
    SentEvent,
    SentKind,
)
from a2a_lab.contract.scenario import GRPC_STATUS_EVENT, Endpoint, FaultKind, Reply
from a2a_lab.protocol import errors, grpcwire, jsontext, params, protobuf, security_schemes, versions, wire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.errors import A2AError, ErrorType
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.negotiation import negotiate
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

from . import auth, dispatch, faults, raw_reply
from .answer import IDLE_COMMENT
from .state import LabState
from .stream_edits import NOT_EDITED_ON_GRPC, NOT_SENT_ON_GRPC, Extra, Reshaped
from .streams import Comment, Drop, StreamError

FORM = Form(Version.V1_0, Binding.GRPC)

#: What a unary gRPC call answered by a scenario's raw event stream ends with (a unary method answers one message).
RAW_EVENTS_ON_GRPC = (
    "a2a-lab: this rule answers a raw event stream (reply.raw.events), which a unary gRPC method cannot carry"
)
#: What a gRPC stream ends with at a raw event that is no StreamResponse in ProtoJSON (it has no proto frame).
RAW_EVENT_NOT_PROTO = (
    "a2a-lab: reply.raw.events[{index}] is not a StreamResponse in ProtoJSON (nor, named `error`, a google.rpc.Status)"
    ", so gRPC cannot send it: {why}"
)


def _metadata(context: grpc.aio.ServicerContext[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    """The call's metadata as journaled headers (binary `-bin` values base64, as they travel)."""
    return grpcwire.metadata_headers(context.invocation_metadata() or ())


class GrpcService(grpc.GenericRpcHandler):
    """Answers every call on the scenario's gRPC server (one per scenario, see grpc_host)."""

    def __init__(
        self,
        state: Callable[[], LabState],
        endpoint: Endpoint,
        base_url: Callable[[], str],
        reset: Callable[[str], Awaitable[bool]],
    ) -> None:
        self._state = state
        self.endpoint = endpoint
        self._base_url = base_url
        #: Reset the client connection a call (by its peer) came in on: the relay's (see grpc_relay).
        self._reset = reset

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler[bytes, bytes]:
        method: str = handler_call_details.method

        async def handle(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
            async for out in Call(self, method, request, context).run():
                yield out

        # One message in, a stream out: the same frames as a unary answer when one message is sent, and no other
        # kind of handler can end a call OK without a message.
        return grpc.unary_stream_rpc_method_handler(handle)


class Call:
    """One gRPC call being answered."""

    def __init__(
        self, service: GrpcService, method: str, request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]
    ) -> None:
        self.service = service
        self.state = service._state()
        self.method = method
        self.request = request
        self.context = context
        self.op: Operation | None = grpcwire.operation_of(method)
        self.entry: Entry
        self.metadata = _metadata(context)
        self.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in self.metadata}

    def _open(self, body: bytes) -> Entry:
        entry = self.state.journal.open("POST", self.method, "", self.metadata, body, EntryKind.GRPC)
        entry.endpoint = EndpointRef(self.service.endpoint.path, Binding.GRPC)
        entry.url = self.state.grpc_address  # the address the call reached (what a card's gRPC url names)
        if self.state.auth is not None:  # metadata are the HTTP bindings' headers (§10.2): the same credentials
            request = auth.Request(self.headers, {}, body.decode("utf-8", "replace"))
            entry.auth = AuthFacts(carried=self.state.auth.carried(request))
        return entry

    async def run(self) -> AsyncIterator[bytes]:
        op = self.op
        if op is None:
            self.entry = self._open(self.request)
            self.entry.unmatched = True
            defined = ", ".join(o.value for o in Operation)
            await self._abort(
                grpcwire.Code.UNIMPLEMENTED,
                f"a2a-lab: {self.method} is no method of {grpcwire.SERVICE} (A2A 1.0 defines {defined})",
                [],
            )
            return
        try:
            decoded = protobuf.decode_request(op, self.request)
        except protobuf.DecodeError as exc:
            self.entry = self._open(self.request)
            self.entry.operation, self.entry.version = op, Version.V1_0
            await self._error(A2AError(ErrorType.INVALID_REQUEST, str(exc)))
            return
        self.entry = self._open(protobuf_json(decoded))
        self.entry.operation, self.entry.version = op, Version.V1_0
        given = self.headers.get(grpcwire.VERSION_METADATA)
        requested = versions.requested(given)
        self.entry.requested_version = requested
        refused = negotiate(
            requested, bool(given and given.strip()), Version.V1_0, self.service.endpoint.versions, op.value
        )
        if refused is not None:
            await self._error(refused)
            return
        try:
            canonical = params.read(
                op, FORM, decoded, lenient_kind=self.state.scenario.lenient_kind, max_parts=self.state.parts_limit
            )
        except A2AError as err:
            await self._error(err)
            return
        call = dispatch.Invocation(
            op, FORM, op.value, canonical, self.headers, self.service._base_url(), len(self.request)
        )
        decision = dispatch.execute(self.state, call, self.entry)
        reply = decision.reply
        if reply.delay_ms:
            self._response().delay_ms = reply.delay_ms
            await asyncio.sleep(reply.delay_ms / 1000)
        if decision.error is not None:
            await self._error(decision.error, reply, challenge=decision.challenge, denied=decision.auth_status == 403)
            return
        if reply.raw_status is not None and reply.raw_events and protobuf.streaming(op):
            async for out in self._raw_stream(reply, raw_reply.request_values(None, decoded)):
                yield out
            return
        if reply.raw_status is not None and reply.raw_events:  # a unary method answers one message
            await self._abort(grpcwire.Code.UNIMPLEMENTED, RAW_EVENTS_ON_GRPC, [], reply)
            return
        if reply.raw_status is not None:  # bytes exactly as the scenario gives them, as the answer message
            async for out in self._unary(reply.raw_body, None, reply):
                yield out
            return
        if decision.events is not None:
            async for out in self._stream(decision.events, reply):
                yield out
            return
        value = wire.result_out(op, decision.value, FORM)
        async for out in self._unary(protobuf.encode_response(op, value), value, reply):
            yield out

    # ------------------------------------------------------------------------------------------------ answers

    def _response(self) -> Response:
        if self.entry.response is None:
            self.entry.response = Response(200, grpcwire.CONTENT_TYPE, redaction=self.entry.redaction)
        return self.entry.response

    async def _fault(self, reply: Reply) -> bool:
        """Apply the reply's fault before the answer; True when the call is over (stalled, reset)."""
        fault = reply.fault
        if fault is None:
            return False
        response = self._response()
        response.fault = fault.kind
        if fault.kind is FaultKind.STALL:
            response.fault_outcome = "stalled"
            began = time.monotonic()
            try:
                await asyncio.sleep(faults.STALL_LIMIT_S)  # the call is cancelled when the client gives up
            finally:
                response.held_ms = round((time.monotonic() - began) * 1000, 1)
            return True
        if fault.kind in (FaultKind.RESET, FaultKind.TRUNCATE):
            response.fault_outcome = "reset" if await self.service._reset(self.context.peer()) else "not reset"
            self.entry.disconnected = True
            return True
        response.fault_outcome = "dripped"  # a slow answer: the time a drip of its bytes would take
        await asyncio.sleep(fault.interval_ms / 1000 * max(1, len(self.request) // max(1, fault.chunk_bytes)))
        return False

    async def _unary(self, data: bytes, value: Any, reply: Reply) -> AsyncIterator[bytes]:
        response = self._response()
        response.grpc_status = grpcwire.Code.OK.value
        if value is not None:
            text = protobuf_json(value)
            response.parsed_body = None
            response.raw_body = text
            self.entry.grow(len(text))
        if await self._fault(reply):
            return
        if reply.grpc.empty:
            response.raw_body = b""
            return
        if reply.grpc.status is not None and reply.grpc.status is not grpcwire.Code.OK:
            await self._abort(reply.grpc.status, "a2a-lab: status set by the scenario", [], reply)
            return
        yield data

    async def _stream(self, items: AsyncIterator[Any], reply: Reply) -> AsyncIterator[bytes]:
        response = self._response()
        response.stream = True
        events: list[SentEvent] = []
        self.entry.events = events
        journal = self.state.journal
        idle = self.state.scenario.limits.stream_idle_seconds
        closed = "disconnected"
        try:
            if await self._fault(reply):
                return
            while True:
                try:
                    async with asyncio.timeout(idle):
                        item = await anext(items)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    closed = "idle"
                    why = f"{IDLE_COMMENT} after {idle:g} s without an event (limits.stream_idle_seconds)"
                    events.append(SentEvent(journal.offset(), SentKind.COMMENT, why))
                    break
                if isinstance(item, Comment):
                    continue  # gRPC has no comments; HTTP/2 keeps the connection alive
                if isinstance(item, Extra):  # JSON the scenario wrote has no proto frame: journaled, not sent
                    events.append(SentEvent(journal.offset(), SentKind.COMMENT, NOT_SENT_ON_GRPC))
                    continue
                if isinstance(item, Reshaped):  # a proto frame has no JSON to edit: the event goes out as generated
                    events.append(SentEvent(journal.offset(), SentKind.COMMENT, NOT_EDITED_ON_GRPC))
                    item = item.event
                if isinstance(item, Drop):
                    events.append(SentEvent(journal.offset(), SentKind.DROPPED))
                    closed = "dropped"
                    await self.service._reset(self.context.peer())
                    return
                if isinstance(item, StreamError):
                    closed = "complete"
                    await self._error(item.error, reply, in_stream=True)
                    return
                value = wire.event_out(item, FORM)
                text = protobuf_json(value)
                events.append(SentEvent(journal.offset(), SentKind.DATA, text.decode()))
                self.entry.grow(EVENT_OVERHEAD + len(text))
                yield protobuf.encode(value, protobuf.response_class(Operation.SEND_STREAMING_MESSAGE))
            closed = "complete"
            response.grpc_status = grpcwire.Code.OK.value
        finally:
            response.closed = closed
            closer = getattr(items, "aclose", None)
            if closer is not None:
                await closer()

    async def _raw_stream(self, reply: Reply, values: dict[str, str]) -> AsyncIterator[bytes]:
        """`reply.raw.events` on a streaming method: each event's text (placeholders filled with `fill`) is one
        StreamResponse in ProtoJSON, sent as its message after its delay; an event named `error` is a
        google.rpc.Status in ProtoJSON, which ends the call with its code, message and details. An event that is
        neither ends the call UNIMPLEMENTED, naming it."""
        response = self._response()
        response.stream = True
        events: list[SentEvent] = []
        self.entry.events = events
        response.closed = "disconnected"
        if await self._fault(reply):
            return
        cls = protobuf.response_class(Operation.SEND_STREAMING_MESSAGE)
        for index, event in enumerate(reply.raw_events):
            if event.delay_ms:
                await asyncio.sleep(event.delay_ms / 1000)
            text = raw_reply.filled(event.text, values) if reply.raw_fill else event.text
            response.closed = "complete"
            if event.event == GRPC_STATUS_EVENT:  # the call's end, with a status
                status = _status_of(text)
                if status is None:
                    why = f"{text[:80]!r} is no google.rpc.Status with a code other than OK"
                    await self._abort(
                        grpcwire.Code.UNIMPLEMENTED, RAW_EVENT_NOT_PROTO.format(index=index, why=why), [], reply, True
                    )
                    return
                await self._abort(*status, reply, in_stream=True)
                return
            try:
                data = protobuf.encode(json.loads(text), cls, strict=True)
            except (ValueError, protobuf.DecodeError) as exc:
                why = RAW_EVENT_NOT_PROTO.format(index=index, why=exc)
                await self._abort(grpcwire.Code.UNIMPLEMENTED, why, [], reply, in_stream=True)
                return
            response.closed = "disconnected"
            sent = protobuf_json(protobuf.decode(data, cls))
            events.append(SentEvent(self.state.journal.offset(), SentKind.DATA, sent.decode()))
            self.entry.grow(EVENT_OVERHEAD + len(sent))
            yield data
        response.closed = "complete"
        response.grpc_status = grpcwire.Code.OK.value

    async def _error(
        self,
        err: A2AError,
        reply: Reply | None = None,
        in_stream: bool = False,
        challenge: str | None = None,
        denied: bool = False,
    ) -> None:
        """`challenge`: a refusal for want of credentials carries it as the `www-authenticate` trailer (HTTP's
        WWW-Authenticate, RFC 9110 §11.6.1); `denied`: valid credentials lacking scope (HTTP 403) end the call
        PERMISSION_DENIED rather than UNAUTHENTICATED (§3.3.2)."""
        self.entry.answer = Answer.error(err.code)
        code = grpcwire.Code(errors.grpc_status(err.type, self.state.scenario.spec_revision))
        if denied:
            code = grpcwire.Code.PERMISSION_DENIED
        if reply is not None and reply.grpc.status is not None:
            code = reply.grpc.status
        details = err.details() if reply is None or reply.grpc.details else []
        if reply is not None and not in_stream and await self._fault(reply):
            return
        trailers = ((security_schemes.CHALLENGE, challenge),) if challenge else ()
        await self._abort(code, err.text, details, reply, in_stream, trailers)

    async def _abort(
        self,
        code: grpcwire.Code,
        text: str,
        details: list[dict[str, Any]],
        reply: Reply | None = None,
        in_stream: bool = False,
        trailers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        response = self._response()
        response.grpc_status = code.value
        status: dict[str, Any] = {"code": code.number, "message": text}
        metadata: tuple[tuple[str, str | bytes], ...] = trailers
        if details:
            status["details"] = details
            metadata += ((grpcwire.STATUS_DETAILS_KEY, protobuf.status_bytes(code.number, text, details)),)
        if metadata:
            self.context.set_trailing_metadata(metadata)
        if in_stream and self.entry.events is not None:
            self.entry.events.append(SentEvent(self.state.journal.offset(), SentKind.ERROR, value=status))
        else:
            body = protobuf_json(status)
            response.raw_body = body
            self.entry.grow(len(body))
        await self.context.abort(grpc.StatusCode[code.value], text)


def _status_of(text: str) -> tuple[grpcwire.Code, str, list[dict[str, Any]]] | None:
    """A raw `error` event's google.rpc.Status (ProtoJSON): its code, message and details; None when it is none."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("code"), int) or value["code"] == 0:
        return None
    code, message, details = grpcwire.code_of(value["code"]), value.get("message", ""), value.get("details", [])
    if code is None or not isinstance(message, str) or not isinstance(details, list):
        return None
    return code, message, [d for d in details if isinstance(d, dict)]


def protobuf_json(value: Any) -> bytes:
    """ProtoJSON text as journaled (what the harness reads back like a JSON binding's body)."""
    return jsontext.dumps(value)
