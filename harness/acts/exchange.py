"""One ACTS step on the wire: an abstract operation in the request form of the binding under test (protocol.requests
builds it, as for the reference client; gRPC through the reference client's gRPC transport), or a raw wire step
(§4.4, HTTP only); the answer kept whole, unwrapped to the assertion
root of §4.2, with the error it carries, the stream's events, and a quote of the exchange for the reports.

Decisions (docs/how-to/acts.md): a raw step's `path` is read against the URL of the interface under test (`/` is
that URL), except a `/.well-known/` path, read against the server's base URL; a raw answer that is an event stream
has the list of its events' data as its body. Errors are recognised as the A2A specification maps them (JSON-RPC
code, google.rpc ErrorInfo reason, gRPC-style status), which §6.2 says wins over ACTS's own table.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from a2a_lab.contract.redaction import DEFAULT as NO_DECLARED_CREDENTIALS
from a2a_lab.contract.redaction import Redaction
from a2a_lab.harness.acts import sse
from a2a_lab.harness.acts.assertions import MISSING
from a2a_lab.harness.clients.refclient.http import media_type, snippet
from a2a_lab.protocol import errors, jsonrpc, requests
from a2a_lab.protocol.bindings import A2A_JSON, EVENT_STREAM, JSON, Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import HEADER, Version

#: ACTS's abstract operations as a2a-lab's (§4.1); get_agent_card is the card's own GET.
OPERATIONS: dict[str, Operation | None] = {
    "send_message": Operation.SEND_MESSAGE,
    "send_streaming_message": Operation.SEND_STREAMING_MESSAGE,
    "get_task": Operation.GET_TASK,
    "list_tasks": Operation.LIST_TASKS,
    "cancel_task": Operation.CANCEL_TASK,
    "subscribe_to_task": Operation.SUBSCRIBE_TO_TASK,
    "get_agent_card": None,
    "get_extended_agent_card": Operation.GET_EXTENDED_CARD,
    "create_push_config": Operation.CREATE_PUSH_CONFIG,
    "get_push_config": Operation.GET_PUSH_CONFIG,
    "list_push_configs": Operation.LIST_PUSH_CONFIGS,
    "delete_push_config": Operation.DELETE_PUSH_CONFIG,
}
#: ACTS's error names (§6.2) as the A2A errors they are: where ACTS names an error A2A 1.0 does not have, the error
#: A2A answers in that situation (streaming or the extended card not supported: UnsupportedOperationError).
ERROR_NAMES: dict[str, frozenset[str]] = {
    "StreamingNotSupportedError": frozenset({"UnsupportedOperationError"}),
    "ExtendedCardNotSupportedError": frozenset({"UnsupportedOperationError", "ExtendedAgentCardNotConfiguredError"}),
}
BINDINGS = {"jsonrpc": Binding.JSONRPC, "rest": Binding.HTTP_JSON, "grpc": Binding.GRPC}
#: An answer's body (and one event: sse.EVENT_BYTES) at most; a stream's events at most; how long a stream may run
#: when its step gives no `timeout_ms`. A unary answer's body arrives within the answer timeout (`--timeout`) of its
#: head, however it trickles; every wait ends with the test's deadline too (Exchanger.deadline).
BODY_LIMIT = sse.EVENT_BYTES
EVENT_LIMIT = 1000
STREAM_TIMEOUT_S = 30.0
#: Shown of a request or answer body in a report.
QUOTED_BYTES = 1200
#: Told each event of a stream as it arrives; answers False to hang up (the runner's own streams: streams.py).
OnEvent = Callable[[Any], bool]


@dataclass
class WireError:
    """An error answer: the A2A error's name (None: not one a2a-lab knows), its JSON-RPC code, message, details."""

    name: str | None
    code: int | None
    message: Any
    details: Any


@dataclass
class Reply:
    """What a step got: the HTTP status, the decoded body, the assertion root (§4.2), the error, the events."""

    label: str
    quote: str
    status: int | None = None
    body: Any = MISSING
    root: Any = MISSING
    error: WireError | None = None
    events: list[Any] = field(default_factory=list)
    problem: str = ""
    stream_ended: bool = True
    redaction: Redaction = NO_DECLARED_CREDENTIALS
    #: The runner hung the stream up itself (its OnEvent said so): not a stream that ended or broke.
    hung_up: bool = False

    def quoted(self) -> str:
        """The exchange as the reports show it: the request, then the answer (credentials redacted)."""
        answer = f"HTTP {self.status}" if self.status is not None else "no answer"
        if self.problem:
            answer += f" ({self.problem})"
        if self.events:
            shown = "\n".join(self._json(e)[:400] for e in self.events[:20])
            return f"{self.quote}\n<- {answer}, {len(self.events)} event(s):\n{shown}"
        body = "" if self.body is MISSING else self._json(self.body)[:QUOTED_BYTES]
        return f"{self.quote}\n<- {answer}\n{body}".rstrip()

    def _json(self, value: Any) -> str:
        return json.dumps(self.redaction.json(value), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Target:
    """Where a binding run sends its requests: the server's base URL, its card, one interface's URL and binding."""

    base_url: str
    card_url: str
    url: str
    binding: Binding
    spec_version: str
    token: str | None = None
    timeout: float = 10.0
    #: The card's credential names (its apiKey schemes) with the protocol's: what quotes hide.
    redaction: Redaction = NO_DECLARED_CREDENTIALS


def acts_error(name: str) -> frozenset[str]:
    """The A2A error names an ACTS error name stands for."""
    return ERROR_NAMES.get(name, frozenset({name}))


# ------------------------------------------------------------------------------------------------ params


def wire_params(operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """ACTS's abstract params (§4.3) as a2a-lab's canonical ones: a messageId when the message has none (§12.4),
    a send's top-level taskId/contextId moved into its message, `cursor` as ListTasks' `pageToken`, a push config's
    `pushNotificationConfig` flattened into the 1.0 TaskPushNotificationConfig."""
    out = {k: v for k, v in params.items() if k != "extended"}
    if operation in ("send_message", "send_streaming_message"):
        message = dict(out.get("message") or {})
        message.setdefault("messageId", str(uuid.uuid4()))
        for key in ("taskId", "contextId"):
            if key in out and key not in message:
                message[key] = out.pop(key)
        out["message"] = message
    elif operation == "list_tasks" and "cursor" in out:
        out["pageToken"] = out.pop("cursor")
    elif operation == "create_push_config" and isinstance(out.get("pushNotificationConfig"), dict):
        out = {**out.pop("pushNotificationConfig"), **out}
    elif operation in ("get_push_config", "delete_push_config"):
        for alias in ("configId", "pushNotificationConfigId"):
            if alias in out and "id" not in out:
                out["id"] = out.pop(alias)
    return out


# ------------------------------------------------------------------------------------------------ sending


class Exchanger:
    """Sends steps to one Target with one httpx client."""

    def __init__(self, http: httpx.Client, target: Target) -> None:
        self.http, self.target = http, target
        #: When the test under way must end (time.monotonic()): every request, body and stream ends by then.
        self.deadline = float("inf")

    def _left(self, seconds: float) -> float:
        """`seconds`, or less when the test's deadline comes sooner (never below a few milliseconds)."""
        return max(0.005, min(seconds, self.deadline - time.monotonic()))

    def _reply(self, label: str, quote: str) -> Reply:
        return Reply(label, quote, redaction=self.target.redaction)

    def _quote(
        self, verb: str, url: str, query: Mapping[str, str], headers: Mapping[str, str], body: bytes | None
    ) -> str:
        return _quote(verb, url, query, headers, body, self.target.redaction)

    def _headers(self, content_type: str | None, accept: str) -> dict[str, str]:
        out = {"Accept": accept, HEADER: self.target.spec_version}
        if content_type:
            out["Content-Type"] = content_type
        if self.target.token:
            out.update(requests.auth_headers(self.target.token))
        return out

    def operation(
        self,
        operation: str,
        params: Mapping[str, Any],
        stream_timeout: float | None = None,
        on_event: OnEvent | None = None,
    ) -> Reply:
        op = OPERATIONS[operation]
        if op is None:
            return self._send("GET", self.target.card_url, {}, None, self._headers(None, JSON), None, operation)
        try:
            wire = requests.build(op, Version.V1_0, self.target.binding, wire_params(operation, params))
        except requests.UnsupportedRequest as exc:
            return Reply(
                f"{operation} over {self.target.binding.value}",
                "(not sent)",
                problem=str(exc),
                redaction=self.target.redaction,
            )
        if isinstance(wire, requests.RpcRequest):
            req_id: str | None = str(uuid.uuid4())
            body: bytes | None = json.dumps(jsonrpc.envelope(wire.method, wire.params, req_id)).encode()
            url, verb, query = self.target.url, "POST", {}
            ctype: str | None = JSON
        else:
            req_id, url, verb, query = None, self.target.url.rstrip("/") + wire.path, wire.verb, wire.query
            body = None if wire.body is None else json.dumps(wire.body).encode()
            ctype = requests.content_type(self.target.binding, Version.V1_0) if body is not None else None
        streaming = op in (Operation.SEND_STREAMING_MESSAGE, Operation.SUBSCRIBE_TO_TASK)
        accept = EVENT_STREAM if streaming else f"{A2A_JSON}, {JSON}"
        headers = self._headers(ctype, accept)
        if streaming:
            return self._stream(verb, url, query, body, headers, req_id, operation, stream_timeout, on_event)
        return self._send(verb, url, query, body, headers, req_id, operation)

    def raw(self, method: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        base = self.target.base_url if path.startswith("/.well-known/") else self.target.url
        url = base if path in ("", "/") else base.rstrip("/") + "/" + path.lstrip("/")
        sent = {k: v for k, v in headers.items()}
        reply = self._reply(f"raw {method} {path}", self._quote(method, url, {}, sent, body))
        timeout = self._left(self.target.timeout)
        try:
            with self.http.stream(method, url, content=body, headers=sent, timeout=timeout) as response:
                reply.status = response.status_code
                if media_type(response) == EVENT_STREAM:
                    self._events(response, reply, None, STREAM_TIMEOUT_S)
                    reply.body = reply.events
                    return reply
                raw = self._read(response, reply)
        except httpx.HTTPError as exc:
            reply.status, reply.problem = None, f"{type(exc).__name__}: {exc}"
            return reply
        reply.body = _decode(raw)
        reply.root = reply.body
        reply.error = _error(reply.body, None, response.status_code)
        return reply

    def _send(
        self,
        verb: str,
        url: str,
        query: Mapping[str, str],
        body: bytes | None,
        headers: dict[str, str],
        req_id: str | None,
        operation: str,
    ) -> Reply:
        label = f"{operation} ({self.target.binding.value} {verb} {url})"
        reply = self._reply(label, self._quote(verb, url, query, headers, body))
        timeout = self._left(self.target.timeout)
        try:
            with self.http.stream(
                verb, url, params=dict(query) or None, content=body, headers=headers, timeout=timeout
            ) as response:
                raw = self._read(response, reply)
        except httpx.HTTPError as exc:
            reply.problem = f"{type(exc).__name__}: {exc}"
            return reply
        reply.status = response.status_code
        reply.body = _decode(raw)
        if reply.body is MISSING and raw.strip() and not reply.problem:
            reply.problem = f"the answer is not JSON: {snippet(raw)!r}"
        self._unwrap(reply, req_id)
        return reply

    def _unwrap(self, reply: Reply, req_id: str | None) -> None:
        body = reply.body
        if req_id is not None:
            if isinstance(body, dict) and "result" in body:
                reply.root = body["result"]
            else:
                reply.error = _error(body, req_id, reply.status)
            return
        if reply.status is not None and 200 <= reply.status < 300:
            reply.root = {} if body is MISSING else body
        else:
            reply.error = _error(body, None, reply.status)

    def _stream(
        self,
        verb: str,
        url: str,
        query: Mapping[str, str],
        body: bytes | None,
        headers: dict[str, str],
        req_id: str | None,
        operation: str,
        timeout: float | None,
        on_event: OnEvent | None = None,
    ) -> Reply:
        label = f"{operation} ({self.target.binding.value} {verb} {url})"
        reply = self._reply(label, self._quote(verb, url, query, headers, body))
        seconds = timeout or STREAM_TIMEOUT_S
        limits = httpx.Timeout(self._left(self.target.timeout), read=self._left(seconds))
        try:
            with self.http.stream(
                verb, url, params=dict(query) or None, content=body, headers=headers, timeout=limits
            ) as response:
                reply.status = response.status_code
                if media_type(response) != EVENT_STREAM:
                    raw = self._read(response, reply)
                    reply.body = _decode(raw)
                    self._unwrap(reply, req_id)
                    if reply.error is None and not reply.problem:
                        reply.problem = f"asked for a stream, got {media_type(response) or 'an untyped answer'}"
                    return reply
                self._events(response, reply, req_id, seconds, on_event)
        except httpx.HTTPError as exc:
            reply.problem = f"{type(exc).__name__}: {exc}"
            reply.stream_ended = False
        reply.root = reply.events
        return reply

    def _events(
        self,
        response: httpx.Response,
        reply: Reply,
        req_id: str | None,
        seconds: float,
        on_event: OnEvent | None = None,
    ) -> None:
        """The stream's events into `reply`, within sse's bounds, EVENT_LIMIT events, `seconds` and the deadline;
        `on_event` is told each one and may hang up (leaving the stream closes it)."""
        reader = sse.Reader(min(time.monotonic() + seconds, self.deadline))
        for event in reader.events(response.iter_bytes()):
            if not event.data.strip():
                continue
            value = _decode(event.data.encode())
            if req_id is not None and isinstance(value, dict) and "error" in value:
                reply.error = _error(value, req_id, None)
                return
            if req_id is not None and isinstance(value, dict) and "result" in value:
                value = value["result"]
            elif event.event == "error" or (isinstance(value, dict) and "error" in value and req_id is None):
                reply.error = _error(value, None, None)
                return
            reply.events.append(value)
            if on_event is not None and not on_event(value):
                reply.hung_up = True
                return
            if len(reply.events) >= EVENT_LIMIT:
                reply.problem, reply.stream_ended = f"more than {EVENT_LIMIT} events", False
                return
        if reader.problem:
            reply.problem, reply.stream_ended = reader.problem, False

    def _read(self, response: httpx.Response, reply: Reply) -> bytes:
        """A unary answer's body: at most BODY_LIMIT bytes, within the answer timeout of its head and the test's
        deadline (a body that trickles is cut: `reply.problem` says so)."""
        out = bytearray()
        ends = min(time.monotonic() + self.target.timeout, self.deadline)
        for chunk in response.iter_bytes():
            out += chunk
            if len(out) > BODY_LIMIT:
                reply.problem = f"an answer of more than {BODY_LIMIT} bytes"
                return bytes(out[:BODY_LIMIT])
            if time.monotonic() > ends:
                reply.problem = f"the answer's body did not arrive within {self.target.timeout:g} s"
                break
        return bytes(out)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return MISSING


def _quote(
    verb: str,
    url: str,
    query: Mapping[str, str],
    headers: Mapping[str, str],
    body: bytes | None,
    redaction: Redaction,
) -> str:
    """A request as the reports show it, credentials hidden by the project's one redaction (contract/redaction.py):
    header values by name, URL userinfo and credential parameters, JSON members by name, text by pattern."""
    shown_url = redaction.url(url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""))
    lines = [f"-> {verb} {shown_url}"]
    lines += [f"   {k}: {redaction.header(k, v)}" for k, v in headers.items()]
    if body:
        kept = redaction.body(body, QUOTED_BYTES)
        lines.append("   " + (kept.text if kept.text is not None else f"({len(body)} bytes, not UTF-8)"))
    return "\n".join(lines)


def _error(body: Any, req_id: str | None, status: int | None) -> WireError | None:
    """The error an answer carries: a JSON-RPC error object, or a google.rpc.Status (`{"error": {...}}`)."""
    if not isinstance(body, dict):
        return WireError(None, None, MISSING, MISSING) if status is not None and status >= 400 else None
    err = body.get("error")
    if not isinstance(err, dict):
        return WireError(None, None, MISSING, MISSING) if status is not None and status >= 400 else None
    code = err.get("code") if isinstance(err.get("code"), int) and not isinstance(err.get("code"), bool) else None
    message = err.get("message", MISSING)
    if "jsonrpc" in body or req_id is not None:
        known = errors.by_code(code) if code is not None else None
        return WireError(known.value.name if known else None, code, message, err.get("data", MISSING))
    details = err.get("details", MISSING)
    info = errors.error_info(details)
    reason = info.get("reason") if info else None
    known = errors.by_name(reason) if isinstance(reason, str) else None
    if known is None and isinstance(reason, str):
        known = next((e for e in errors.ErrorType if e.value.reason == reason), None)
    return WireError(known.value.name if known else None, known.value.code if known else None, message, details)


class GrpcExchanger:
    """Sends abstract operations to a gRPC interface through the reference client's transport (`lf.a2a.v1.A2AService`,
    `a2a-version` metadata); an answer's `status` is 200 (gRPC answers ride an HTTP/2 200), an error is the A2A error
    its ErrorInfo reason names. Raw steps are HTTP: on gRPC they are not sent (the test's `transport` says where)."""

    def __init__(self, http: httpx.Client, target: Target) -> None:
        from a2a_lab.harness.clients.refclient.grpc_transport import GrpcTransport
        from a2a_lab.harness.clients.refclient.options import ClientOptions
        from a2a_lab.protocol.cards import Interface

        self.card = Exchanger(http, target)  # get_agent_card is the card's GET
        self.target = target
        options = ClientOptions(read_timeout=target.timeout, token=target.token)
        self.transport = GrpcTransport(Interface(target.url, Binding.GRPC.value, "1.0"), options)
        self.deadline = float("inf")

    def close(self) -> None:
        self.transport.close()

    def raw(self, method: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Reply:
        return Reply(
            f"raw {method} {path}",
            "(not sent)",
            problem="a raw HTTP step cannot be sent over gRPC",
            redaction=self.target.redaction,
        )

    def operation(
        self,
        operation: str,
        params: Mapping[str, Any],
        stream_timeout: float | None = None,
        on_event: OnEvent | None = None,
    ) -> Reply:
        from a2a_lab.harness.clients.refclient.failures import ClientFailure

        op = OPERATIONS[operation]
        if op is None:
            self.card.deadline = self.deadline
            return self.card.operation(operation, params, stream_timeout)
        canonical = wire_params(operation, params)
        shown = json.dumps(self.target.redaction.json(canonical), default=str)[:QUOTED_BYTES]
        reply = Reply(
            f"{operation} (GRPC {self.target.url})",
            f"-> gRPC {op.value} at {self.target.url}\n   " + shown,
            redaction=self.target.redaction,
        )
        warnings: list[str] = []
        try:
            if op in (Operation.SEND_STREAMING_MESSAGE, Operation.SUBSCRIBE_TO_TASK):
                self._stream(op, canonical, warnings, reply, stream_timeout, on_event)
            else:
                reply.root = self.transport.call(op, canonical, warnings)
                reply.body = reply.root
            reply.status = 200
        except ClientFailure as failure:
            details = failure.details
            if failure.type != "remote":
                reply.problem = failure.message
                return reply
            code = details.get("code")
            known = errors.by_code(code) if isinstance(code, int) else None
            reply.status = 200
            reply.error = WireError(
                known.value.name if known else None, code, failure.message, details.get("data", MISSING)
            )
        return reply

    def _stream(
        self,
        op: Operation,
        canonical: dict[str, Any],
        warnings: list[str],
        reply: Reply,
        stream_timeout: float | None,
        on_event: OnEvent | None,
    ) -> None:
        """A streaming call's messages into `reply`, within EVENT_LIMIT, the timeout and the deadline; `on_event` is
        told each one and may hang up (closing the iterator cancels the call)."""
        deadline = min(time.monotonic() + (stream_timeout or STREAM_TIMEOUT_S), self.deadline)
        messages = self.transport.stream(op, canonical, warnings)
        try:
            for event in messages:
                reply.events.append(event)
                if on_event is not None and not on_event(event):
                    reply.hung_up = True
                    break
                if len(reply.events) >= EVENT_LIMIT or time.monotonic() > deadline:
                    reply.problem, reply.stream_ended = "the stream did not end in time", False
                    break
        finally:
            messages.close()
        reply.root = reply.events
