"""Talking to a gRPC interface (§10): `lf.a2a.v1.A2AService` over an insecure channel, with the interface the rest
of the client uses (transport.A2ATransport).

- The request message is the 1.0 params object as ProtoJSON (protocol.requests.grpc_request), encoded with the A2A
  proto types (protocol.protobuf); answers are decoded back into ProtoJSON, the 1.0 gRPC form, which reads like the
  1.0 JSON-RPC results without their envelope.
- Service parameters travel as metadata (§10.2): `a2a-version: 1.0`, and `authorization: Bearer …` when the client
  has a token (or the card's scheme as headers: an API key header or cookie, HTTP Basic; credentials.CardAuth), the
  same values the HTTP bindings send as headers; the user agent is the client's.
- An error is read from the call's status and its `grpc-status-details-bin` trailer (a google.rpc.Status): the
  ErrorInfo reason names the A2A error (§10.6), as on HTTP+JSON.
- Every call is sent as one message in, a stream out (the same HTTP/2 frames as a unary call), so that a unary
  answer with no message, or more than one, is seen for what it is. Unary calls have a deadline (connect plus read
  timeout); a stream may run longer, but never waits more than the read timeout for its next message.
- The interface url is dialed as grpcwire.address_of reads it (`grpc://h:p/x` dials h:p; selection says so).

Needs the grpc extra: import this module only once grpcwire.missing() is None.
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from typing import Any

import grpc

from a2a_lab.harness.clients.refclient.failures import ClientFailure, call_context, error_info_reason, remote_error
from a2a_lab.harness.clients.refclient.http import user_agent
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.harness.clients.refclient.recording import Exchange, GrpcCall, Recorder
from a2a_lab.protocol import errors, grpcwire, jsontext, protobuf, requests
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

FORM = Form(Version.V1_0, Binding.GRPC)
#: Statuses the gRPC library makes up on the client's side when no answer came (a connection that failed or broke,
#: the deadline, a message over the size limit): without a google.rpc.Status from the server they are transport
#: failures, not the agent's answer.
_LOCAL = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "CANCELLED"})


class _Idle:
    """Cancels a streaming call when no message arrived within `seconds` (the read timeout between messages)."""

    def __init__(self, call: Any, seconds: float) -> None:
        self.call, self.seconds = call, seconds
        self.fired = False
        self._timer: threading.Timer | None = None

    def _fire(self) -> None:
        self.fired = True
        self.call.cancel()

    def arm(self) -> None:
        self.disarm()
        self._timer = threading.Timer(self.seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class GrpcTransport:
    """One gRPC interface (A2A 1.0): a channel to its address, calls recorded into `recorder` when given."""

    binding: Binding = Binding.GRPC
    version: Version = Version.V1_0
    form: Form = FORM

    def __init__(self, iface: Interface, options: ClientOptions, recorder: Recorder | None = None) -> None:
        address = grpcwire.address_of(iface.url)
        if iface.core_binding is not Binding.GRPC or iface.known_version is not Version.V1_0 or address is None:
            raise ClientFailure("selection", f"{iface.label}: not a gRPC interface this client can dial")
        self.iface, self.options, self.recorder = iface, options, recorder
        self.address = address
        self.channel = grpc.insecure_channel(
            address,
            options=[
                ("grpc.primary_user_agent", user_agent()),
                ("grpc.max_receive_message_length", options.response_size_limit),
                ("grpc.enable_retries", 0),
            ],
        )

    def close(self) -> None:
        self.channel.close()

    def wait_ready(self, timeout: float) -> None:
        """Until the channel is connected again (at most `timeout` s): after a broken stream it fails new calls at
        once (UNAVAILABLE) while it reconnects."""
        try:
            grpc.channel_ready_future(self.channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            pass  # the next call says what is wrong

    # --------------------------------------------------------------------------------- requests

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        """§8.3.2 rule 4: the interface's tenant goes into every request, exactly as declared."""
        return {**params, "tenant": self.iface.tenant} if self.iface.tenant else params

    def _metadata(self) -> dict[str, str]:
        """The service parameters as metadata (§10.2): the HTTP bindings' headers, keys lower-cased as gRPC wants."""
        credentials = self.options.auth.headers() if self.options.auth is not None else None
        if credentials is None:
            credentials = requests.auth_headers(self.options.token)
        headers = {**requests.version_headers(self.version), **credentials}
        return {name.lower(): value for name, value in headers.items()}

    def _context(self, op: Operation) -> dict[str, Any]:
        return call_context(op, self.binding, self.version, self.iface.url)

    def _start(
        self, op: Operation, params: dict[str, Any]
    ) -> tuple[str, bytes, tuple[tuple[str, str | bytes], ...], Exchange | None]:
        """(label, request bytes, metadata, the exchange being recorded)."""
        try:
            wire = requests.grpc_request(op, self.version, self._params(params))
            data = protobuf.encode_request(op, wire.message, strict=True)
        except (requests.UnsupportedRequest, protobuf.DecodeError) as exc:
            raise ClientFailure("selection", f"{self.iface.label}: {exc}") from None
        label = f"{wire.path} at {self.address}"
        sent = list(self._metadata().items())
        exchange = None
        if self.recorder is not None:
            call = GrpcCall(wire.path, protobuf.streaming(op))
            exchange = self.recorder.open("POST", self.address, sent, jsontext.dumps(wire.message), grpc=call)
        metadata: tuple[tuple[str, str | bytes], ...] = tuple(sent)
        return label, data, metadata, exchange

    # --------------------------------------------------------------------------------- one call

    def call(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Any:
        """The decoded answer of one unary operation, as ProtoJSON."""
        label, data, metadata, exchange = self._start(op, params)
        timeout = self.options.read_timeout + self.options.connect_timeout
        rpc: grpc.UnaryStreamMultiCallable[bytes, bytes] = self.channel.unary_stream(grpcwire.method_path(op))
        answers: list[Any] = []
        try:
            for raw in rpc(data, timeout=timeout, metadata=metadata):
                answers.append(self._decode(op, raw, label, exchange))
        except grpc.RpcError as exc:
            raise self._failure(op, exc, label, exchange, "") from None
        self._ended(exchange, "OK", "", None)
        if len(answers) != 1:
            said = "no message" if not answers else f"{len(answers)} messages"
            raise ClientFailure(
                "invalid_response",
                f"{label}: the call ended OK with {said}; a unary RPC answers exactly one "
                f"{protobuf.response_class(op).DESCRIPTOR.name}",
                self._context(op),
            )
        if exchange is not None:
            exchange.response_body.extend(jsontext.dumps(answers[0]))
        return answers[0]

    def _decode(self, op: Operation, raw: bytes, label: str, exchange: Exchange | None) -> Any:
        try:
            value = protobuf.decode_response(op, raw)
        except protobuf.DecodeError as exc:
            raise ClientFailure("invalid_response", f"{label}: {exc}", self._context(op)) from None
        if exchange is not None and exchange.grpc is not None:
            self._answered(exchange)
            exchange.grpc.messages.append(value)
            exchange.grpc.raw_messages.append(raw)
        return value

    # --------------------------------------------------------------------------------- streams

    def stream(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Generator[Any, None, None]:
        """The StreamResponse messages of a streaming operation, as ProtoJSON. Close the iterator to hang up."""
        label, data, metadata, exchange = self._start(op, params)
        rpc: grpc.UnaryStreamMultiCallable[bytes, bytes] = self.channel.unary_stream(grpcwire.method_path(op))
        call = rpc(data, metadata=metadata)
        idle = _Idle(call, self.options.read_timeout)
        messages: Iterator[bytes] = iter(call)
        count = 0
        try:
            while True:
                idle.arm()
                try:
                    raw = next(messages)
                except StopIteration:
                    break
                except grpc.RpcError as exc:
                    waited = f"no stream message within {self.options.read_timeout:g} s" if idle.fired else ""
                    raise self._failure(op, exc, label, exchange, waited) from None
                finally:
                    idle.disarm()
                count += 1
                if count > self.options.stream_event_limit:
                    raise ClientFailure(
                        "invalid_response",
                        f"{label}: more than {self.options.stream_event_limit} stream messages; hung up",
                        self._context(op),
                    )
                yield self._decode(op, raw, f"{label} (stream message #{count})", exchange)
            self._ended(exchange, "OK", "", None)
        finally:
            idle.disarm()
            call.cancel()  # a no-op once the call ended; hangs up a stream the caller stopped reading

    # --------------------------------------------------------------------------------- errors

    @staticmethod
    def _answered(exchange: Exchange) -> None:
        """The server answered (gRPC answers are HTTP 200 `application/grpc`; the status comes at the end)."""
        exchange.status = 200
        exchange.response_headers = [("content-type", grpcwire.CONTENT_TYPE)]

    def _ended(self, exchange: Exchange | None, status: str, message: str, details: dict[str, Any] | None) -> None:
        if exchange is None or exchange.grpc is None:
            return
        self._answered(exchange)
        exchange.grpc.status, exchange.grpc.message, exchange.grpc.details = status, message, details

    def _failure(
        self, op: Operation, exc: grpc.RpcError, label: str, exchange: Exchange | None, waited: str
    ) -> ClientFailure:
        """A call that ended with a status other than OK, as the client reports it. `waited`: the client hung up
        itself, for want of a stream message in time (what to say)."""
        code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
        name = str(code.name)
        text = (exc.details() if isinstance(exc, grpc.Call) else None) or ""
        trailing: Any = (exc.trailing_metadata() if isinstance(exc, grpc.Call) else None) or ()
        raw = next((value for key, value in trailing if key == grpcwire.STATUS_DETAILS_KEY), None)
        status: dict[str, Any] | None = None
        unreadable: str | None = None
        if isinstance(raw, bytes):
            try:
                status = protobuf.status_json(raw)
            except protobuf.DecodeError as err:
                unreadable = str(err)
        if (raw is None and name in _LOCAL) or waited:
            if exchange is not None:
                exchange.error = f"{name}: {text}"
            return self._local(op, name, text, label, waited)
        self._ended(exchange, name, text, status)
        if exchange is not None:  # text trailers (a `www-authenticate` challenge, say) read as response headers
            exchange.response_headers += [(str(k), v) for k, v in trailing if isinstance(v, str)]
        if exchange is not None and exchange.grpc is not None:
            exchange.grpc.details_error = unreadable
            shown = status if status is not None else {"code": grpcwire.Code(name).number, "message": text}
            if not exchange.grpc.stream:
                exchange.response_body.extend(jsontext.dumps(shown))
        reason = error_info_reason(status.get("details")) if status is not None else None
        known = errors.by_name(reason) if reason else None
        extra = f"; {grpcwire.STATUS_DETAILS_KEY} is unreadable ({unreadable})" if unreadable else ""
        return remote_error(
            f"{label} answered gRPC {name}: {text or '(no message)'}" + (f" ({reason})" if reason else "") + extra,
            code=known.code if known is not None else None,
            grpc_status=name,
            reason=reason,
            data=status.get("details") if status is not None else None,
            **self._context(op),
        )

    def _local(self, op: Operation, name: str, text: str, label: str, waited: str) -> ClientFailure:
        if waited:
            said = waited
        elif name == "DEADLINE_EXCEEDED":
            said = f"no answer within {self.options.read_timeout + self.options.connect_timeout:g} s"
        elif name == "RESOURCE_EXHAUSTED":
            return ClientFailure(
                "invalid_response",
                f"{label}: the answer is larger than the limit of {self.options.response_size_limit} bytes ({text})",
                {"limit": self.options.response_size_limit, **self._context(op)},
            )
        elif name == "UNAVAILABLE":
            said = f"could not connect, or the connection broke ({text or 'unavailable'})"
        else:
            said = f"the call was cancelled ({text or name})"
        return ClientFailure("transport", f"{label}: {said}", {"grpc_status": name, **self._context(op)})
