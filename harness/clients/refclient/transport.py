"""Talking to one interface: build the request (protocol.requests), send it with httpx, and check the answer.

JSON-RPC answers are checked as JSON-RPC 2.0 (`jsonrpc`, matching `id`, exactly one of result/error);
HTTP+JSON answers by status and google.rpc.Status body. Streams use SSE (httpx-sse); JSON-RPC event
envelopes are unwrapped. Every problem becomes a ClientFailure.

gRPC interfaces are spoken by grpc_transport.GrpcTransport, which has the same interface (A2ATransport);
`open_transport` picks the one an interface needs.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Generator
from typing import Any, Protocol

import httpx
from httpx_sse import SSEError, connect_sse

from a2a_lab.harness.clients.refclient.failures import (
    ClientFailure,
    call_context,
    error_info_reason,
    http_error_fields,
    remote_error,
)
from a2a_lab.harness.clients.refclient.http import decode_json, guarded, media_type, read_limited, snippet
from a2a_lab.harness.clients.refclient.options import ClientOptions
from a2a_lab.harness.clients.refclient.recording import Recorder
from a2a_lab.protocol import grpcwire, jsonrpc, requests
from a2a_lab.protocol.bindings import A2A_JSON, EVENT_STREAM, JSON, Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.shapes import EVENT_KINDS_V1
from a2a_lab.protocol.versions import Version

_JSON_TYPES = (JSON, A2A_JSON)


class A2ATransport(Protocol):
    """What the client needs of an interface: one call, one stream, in the interface's form; `close` when done."""

    iface: Interface
    options: ClientOptions
    binding: Binding
    version: Version
    form: Form

    def call(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Any: ...

    def stream(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Generator[Any, None, None]: ...

    def close(self) -> None: ...

    def wait_ready(self, timeout: float) -> None:
        """Wait (at most `timeout` s) until a new call can reach the server after a broken connection."""
        ...


def open_transport(
    http: httpx.Client, iface: Interface, options: ClientOptions, recorder: Recorder | None = None
) -> A2ATransport:
    """The transport for an interface: httpx for JSON-RPC and HTTP+JSON, a gRPC channel for GRPC (recorded into
    `recorder` when given; HTTP exchanges are recorded by the httpx client's own transport)."""
    if iface.core_binding is Binding.GRPC:
        why = grpcwire.missing()
        if why is not None:
            raise ClientFailure("selection", f"{iface.label}: {why}")
        from a2a_lab.harness.clients.refclient.grpc_transport import GrpcTransport

        return GrpcTransport(iface, options, recorder)
    return Transport(http, iface, options)


class Transport:
    """One interface (binding, version, URL, tenant) this client speaks."""

    def __init__(self, http: httpx.Client, iface: Interface, options: ClientOptions) -> None:
        binding, version = iface.core_binding, iface.known_version
        if binding not in (Binding.JSONRPC, Binding.HTTP_JSON) or version is None:
            raise ClientFailure("selection", f"{iface.label}: not an interface this client speaks")
        self.http, self.iface, self.options = http, iface, options
        self.binding: Binding = binding
        self.version: Version = version
        self.form = Form(version, binding)

    def close(self) -> None:
        """Nothing to release: the httpx client belongs to the caller."""

    def wait_ready(self, timeout: float) -> None:
        """Nothing to wait for: httpx opens a new connection for the next call."""

    # --------------------------------------------------------------------------------- requests

    def _params(self, params: dict[str, Any]) -> dict[str, Any]:
        """§8.3.2 rule 4: the interface's tenant goes into every request, exactly as declared."""
        return {**params, "tenant": self.iface.tenant} if self.iface.tenant else params

    def _headers(self, accept: str) -> dict[str, str]:
        return {
            "Content-Type": requests.content_type(self.binding, self.version),
            "Accept": accept,
            **requests.version_headers(self.version),
            **({} if self.options.auth is not None else requests.auth_headers(self.options.token)),
        }

    def _auth(self) -> Any:
        """The card's auth flow (credentials.CardAuth), else the client's default (none)."""
        return self.options.auth if self.options.auth is not None else httpx.USE_CLIENT_DEFAULT

    def _accept(self) -> str:
        return A2A_JSON + ", " + JSON if self.binding is Binding.HTTP_JSON and self.version is Version.V1_0 else JSON

    def _prepare(
        self, op: Operation, params: dict[str, Any]
    ) -> tuple[str, str, dict[str, str], bytes | None, Any, str]:
        """(verb, url, query, body bytes, JSON-RPC id or None, a label for messages)."""
        try:
            wire = requests.build(op, self.version, self.binding, self._params(params))
        except requests.UnsupportedRequest as exc:
            raise ClientFailure("selection", f"{self.iface.label}: {exc}") from None
        if isinstance(wire, requests.RpcRequest):
            req_id = str(uuid.uuid4())
            body = json.dumps(jsonrpc.envelope(wire.method, wire.params, req_id), separators=(",", ":")).encode()
            return "POST", self.iface.url, {}, body, req_id, f"{wire.method} at {self.iface.url}"
        url = self.iface.url.rstrip("/") + wire.path
        body_bytes = None if wire.body is None else json.dumps(wire.body, separators=(",", ":")).encode()
        return wire.verb, url, wire.query, body_bytes, None, f"{wire.verb} {url}"

    # --------------------------------------------------------------------------------- one call

    def call(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Any:
        """The decoded result of one operation (JSON-RPC `result`, or the HTTP+JSON body)."""
        verb, url, query, body, req_id, label = self._prepare(op, params)
        headers = self._headers(self._accept())
        if body is None:
            headers.pop("Content-Type")
        with (
            guarded(label, self.options),
            self.http.stream(
                verb, url, params=query or None, content=body, headers=headers, auth=self._auth()
            ) as response,
        ):
            raw = read_limited(response, self.options.response_size_limit, label)
        return self._answer(op, response, raw, req_id, label, warnings)

    def _answer(
        self, op: Operation, response: httpx.Response, raw: bytes, req_id: Any, label: str, warnings: list[str]
    ) -> Any:
        if req_id is not None:
            return self._rpc_answer(op, response, raw, req_id, label, warnings)
        return self._rest_answer(op, response, raw, label, warnings)

    def _decode(self, response: httpx.Response, raw: bytes, label: str) -> Any:
        try:
            return decode_json(raw, response, label)
        except ClientFailure as failure:
            if response.status_code >= 400:
                failure.type = "http"
            raise

    def _context(self, op: Operation) -> dict[str, Any]:
        return call_context(op, self.binding, self.version, self.iface.url)

    def _rpc_answer(
        self, op: Operation, response: httpx.Response, raw: bytes, req_id: Any, label: str, warnings: list[str]
    ) -> Any:
        value = self._decode(response, raw, label)
        result = self._unwrap(op, value, req_id, label, response.status_code, warnings)
        if response.status_code != 200:
            warnings.append(f"{label}: a JSON-RPC result came with HTTP {response.status_code}")
        kind = media_type(response)
        if kind and kind not in _JSON_TYPES:
            warnings.append(f"{label}: answer Content-Type is {kind!r}, not {JSON}")
        return result

    def _unwrap(
        self, op: Operation, value: Any, req_id: Any, label: str, status: int | None, warnings: list[str]
    ) -> Any:
        """Check a JSON-RPC 2.0 response object and return its result, or raise its error."""

        def violation(problem: str) -> ClientFailure:
            return ClientFailure(
                "invalid_response",
                f"{label}: not a valid JSON-RPC 2.0 response: {problem}",
                {**self._context(op), **({"http_status": status} if status else {})},
            )

        if not isinstance(value, dict):
            raise violation(f"expected an object, got {type(value).__name__}")
        if value.get("jsonrpc") != jsonrpc.VERSION:
            raise violation(f'"jsonrpc" must be "{jsonrpc.VERSION}", got {value.get("jsonrpc")!r}')
        has_result, has_error = "result" in value, "error" in value
        if has_result == has_error:
            raise violation("it has both result and error" if has_result else "it has neither result nor error")
        if "id" not in value:
            raise violation("it has no id")
        if value["id"] != req_id:
            if not (has_error and value["id"] is None):
                raise violation(f"its id {value['id']!r} does not match the request id {req_id!r}")
            warnings.append(f"{label}: the error answer has id null (the server could not read the request id)")
        if has_result:
            return value["result"]
        err = value["error"]
        if not isinstance(err, dict) or isinstance(err.get("code"), bool) or not isinstance(err.get("code"), int):
            raise violation(f"error must be an object with an integer code, got {err!r}")
        message = err.get("message") if isinstance(err.get("message"), str) else "(no message)"
        data = err.get("data")
        raise remote_error(
            f"{label} answered JSON-RPC error {err['code']}: {message}",
            code=err["code"],
            http_status=status if status != 200 else None,
            reason=error_info_reason(data),
            data=data,
            **self._context(op),
        )

    def _rest_answer(self, op: Operation, response: httpx.Response, raw: bytes, label: str, warnings: list[str]) -> Any:
        status = response.status_code
        if 200 <= status < 300:
            value = self._decode(response, raw, label)
            kind = media_type(response)
            if kind and kind not in _JSON_TYPES:
                warnings.append(
                    f"{label}: answer Content-Type is {kind!r}, not {requests.content_type(self.binding, self.version)}"
                )
            return value
        raise self._rest_error(op, status, response, raw, label)

    def _rest_error(
        self, op: Operation, status: int | None, response: httpx.Response | None, raw: bytes, label: str
    ) -> ClientFailure:
        """An HTTP+JSON error: google.rpc.Status (1.0), `{"message"}` (0.3 SDKs), or anything else."""
        try:
            value: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            value = None
        read = http_error_fields(value)
        if read is not None:
            message, reason, code = read
            said = f"answered HTTP {status}" if status is not None else "sent an error"
            return remote_error(
                f"{label} {said}: {message}" + (f" ({reason})" if reason else ""),
                http_status=status,
                reason=reason,
                code=code,
                **self._context(op),
            )
        kind = (media_type(response) if response is not None else "") or "no content type"
        shown = f": {snippet(raw)!r}" if raw else " (empty body)"
        said = (
            f"answered HTTP {status} ({kind})" if status is not None else "sent an error event the client cannot read"
        )
        return ClientFailure(
            "http" if status is not None else "invalid_response",
            f"{label} {said}{shown}",
            {**({"http_status": status} if status is not None else {}), **self._context(op)},
        )

    # --------------------------------------------------------------------------------- streams

    def stream(self, op: Operation, params: dict[str, Any], warnings: list[str]) -> Generator[Any, None, None]:
        """The events of a streaming operation, each the StreamResponse body (JSON-RPC envelopes removed).

        Close the iterator to hang up early. A plain JSON answer where a stream was expected is checked
        like a normal answer (an error raises; a result is yielded once, with a warning).
        """
        verb, url, query, body, req_id, label = self._prepare(op, params)
        headers = self._headers(EVENT_STREAM)
        with (
            guarded(label, self.options),
            connect_sse(
                self.http, verb, url, params=query or None, content=body, headers=headers, auth=self._auth()
            ) as source,
        ):
            response = source.response
            if response.status_code != 200 or media_type(response) != EVENT_STREAM:
                raw = read_limited(response, self.options.response_size_limit, label)
                value = self._answer(op, response, raw, req_id, label, warnings)
                warnings.append(f"{label}: asked for a stream, got a plain {media_type(response) or 'untyped'} answer")
                yield value
                return
            count = 0
            try:
                for event in source.iter_sse():
                    if event.event == "error":
                        raise self._stream_error(op, event.data, req_id, label, warnings)
                    if not event.data.strip():
                        continue
                    count += 1
                    if count > self.options.stream_event_limit:
                        raise ClientFailure(
                            "invalid_response",
                            f"{label}: more than {self.options.stream_event_limit} stream events; hung up",
                            self._context(op),
                        )
                    try:
                        value = json.loads(event.data)
                    except (ValueError, RecursionError):
                        raise ClientFailure(
                            "invalid_response",
                            f"{label}: stream event #{count} is not JSON: {snippet(event.data.encode())!r}",
                            self._context(op),
                        ) from None
                    if req_id is None and _is_status_error(value):  # HTTP+JSON: an error event without its name
                        raise self._stream_error(op, event.data, req_id, label, warnings)
                    yield (
                        self._unwrap(op, value, req_id, f"{label} (stream event #{count})", None, warnings)
                        if req_id is not None
                        else value
                    )
            except SSEError as exc:
                raise ClientFailure("invalid_response", f"{label}: {exc}", self._context(op)) from None

    def _stream_error(self, op: Operation, data: str, req_id: Any, label: str, warnings: list[str]) -> ClientFailure:
        if req_id is not None:
            try:
                self._unwrap(op, json.loads(data), req_id, f"{label} (error event)", None, warnings)
            except ClientFailure as failure:
                return failure
            except (ValueError, RecursionError):
                pass
            return ClientFailure(
                "invalid_response",
                f"{label}: an error event the client cannot read: {snippet(data.encode())!r}",
                self._context(op),
            )
        return self._rest_error(op, None, None, data.encode(), f"{label} (error event)")


def _is_status_error(value: Any) -> bool:
    """An HTTP+JSON stream event that is a google.rpc.Status error (`{"error": {...}}`), not a StreamResponse: some
    servers send it as a plain `data:` event, without `event: error`."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("error"), dict)
        and not any(kind in value for kind in EVENT_KINDS_V1)
    )
