"""Capturing a live server: its card exactly as served, and per interface a2a-lab speaks one SendMessage exchange
(plus the GetTask follow-up of a returned task), as exact bytes, through the reference client. A gRPC interface is
recorded the same way over gRPC: the answer message's bytes, or the status an error ended with."""

from __future__ import annotations

import hashlib
import json
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from a2a_lab.harness.clients.refclient.client import user_message
from a2a_lab.harness.clients.refclient.discovery import discover
from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.http import make_client
from a2a_lab.harness.clients.refclient.options import CONNECT_TIMEOUT_S, ClientOptions
from a2a_lab.harness.clients.refclient.reading import Answer, read_send_result
from a2a_lab.harness.clients.refclient.recording import IDENTITY, Exchange, Recorder
from a2a_lab.harness.clients.refclient.selection import GRPC_SUPPORT, SUPPORTED
from a2a_lab.harness.clients.refclient.transport import A2ATransport, open_transport
from a2a_lab.harness.common.scenario_writer import RecordError
from a2a_lab.protocol import cards, grpcwire, requests
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.operations import Operation


@dataclass
class Recorded:
    """One exchange: which operation on which interface, the request's JSON-RPC id (None on HTTP+JSON), the bytes."""

    op: Operation
    iface: Interface
    path: str
    request_id: Any
    exchange: Exchange
    answer: Answer | None = None

    @property
    def body(self) -> bytes:
        return bytes(self.exchange.response_body)

    @property
    def grpc(self) -> bool:
        return self.exchange.grpc is not None

    @property
    def echoes_id(self) -> bool:
        """The answer carries the request's own id at the top (so a replay must echo its client's)."""
        try:
            value = json.loads(self.body)
        except ValueError:
            return False
        return self.request_id is not None and isinstance(value, dict) and value.get("id") == self.request_id


@dataclass
class Capture:
    target: str
    card_url: str
    origin: str
    card: dict[str, Any]
    card_raw: bytes
    content_type: str
    cache_control: str | None
    etag: bool
    at: str
    exchanges: list[Recorded] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def card_sha256(self) -> str:
        return hashlib.sha256(self.card_raw).hexdigest()


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def same_origin_path(url: str, origin: str) -> str | None:
    """The path of an interface URL on the recorded origin, or None when it lives elsewhere (it cannot be replayed)."""
    if url != origin and not url.startswith(origin + "/"):
        return None
    path = urlsplit(url).path
    return path.rstrip("/") or "/"


def capture(target: str, text: str, timeout: float) -> Capture:
    options = ClientOptions(read_timeout=timeout, connect_timeout=min(timeout, CONNECT_TIMEOUT_S))
    recorder = Recorder()
    with make_client(options, recorder) as http:
        http.headers.update(IDENTITY)
        try:
            found = discover(http, target, options)
        except ClientFailure as failure:
            raise RecordError(f"no card to record: {failure.message}", usage=True) from None
        card_exchange = next(e for e in reversed(recorder.exchanges) if e.status == 200)
        origin = origin_of(found.url)
        cap = Capture(
            target,
            found.url,
            origin,
            found.card,
            bytes(card_exchange.response_body),
            card_exchange.header("content-type") or "",
            card_exchange.header("cache-control"),
            card_exchange.header("etag") is not None,
            datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        )
        recorded: set[tuple[str, str]] = set()
        for iface in cards.interfaces(found.card):
            grpc = iface.support == GRPC_SUPPORT
            # A gRPC interface is replayed on the scenario's own gRPC server, wherever the recorded one listened.
            path = grpcwire.ENDPOINT_PATH if grpc else same_origin_path(iface.url, origin)
            if iface.support not in SUPPORTED:
                cap.notes.append(
                    f"{iface.label}: not recorded (a2a-lab speaks JSONRPC and HTTP+JSON, A2A 1.0 and 0.3, "
                    "and GRPC in A2A 1.0)"
                )
            elif grpc and grpcwire.missing() is not None:
                cap.notes.append(f"{iface.label}: not recorded ({grpcwire.missing()})")
            elif grpc and grpcwire.address_of(iface.url) is None:
                cap.notes.append(f"{iface.label}: not recorded (its url names no host:port to dial)")
            elif path is None:
                cap.notes.append(f"{iface.label}: not recorded (not on {origin}, so it cannot be replayed there)")
            elif (iface.binding, iface.version) in recorded:
                cap.notes.append(
                    f"{iface.label}: not recorded "
                    f"(a replay answers every {iface.binding} {iface.version} interface like the first)"
                )
            else:
                recorded.add((iface.binding, iface.version))
                _exchange_with(cap, http, recorder, iface, path, text, options)
    return cap


def _call(
    cap: Capture, recorder: Recorder, transport: A2ATransport, op: Operation, params: dict[str, Any], path: str
) -> Recorded:
    mark = len(recorder.exchanges)
    body: Any = None
    try:
        body = transport.call(op, params, [])
    except ClientFailure:
        pass  # an error answer is recorded like any other; only "no answer at all" stops the recording
    mine = recorder.since(mark)
    if not mine or mine[-1].status is None:
        why = mine[-1].error if mine else "no request was sent"
        raise RecordError(f"{transport.iface.label}: {op.value} got no answer to record ({why})")
    exchange = mine[-1]
    try:
        jsonrpc = transport.binding is Binding.JSONRPC
        request_id = json.loads(exchange.request_body).get("id") if jsonrpc else None
    except (ValueError, AttributeError):
        request_id = None
    rec = Recorded(op, transport.iface, path, request_id, exchange)
    if body is not None and op is Operation.SEND_MESSAGE:
        try:
            rec.answer = read_send_result(body, transport.form, [])
        except ClientFailure:
            pass
    cap.exchanges.append(rec)
    return rec


def _exchange_with(
    cap: Capture, http: httpx.Client, recorder: Recorder, iface: Interface, path: str, text: str, options: ClientOptions
) -> None:
    params = {"message": user_message(text), "configuration": requests.send_configuration()}
    with closing(open_transport(http, iface, options, recorder)) as transport:
        sent = _call(cap, recorder, transport, Operation.SEND_MESSAGE, params, path)
        task = sent.answer.task if sent.answer is not None else None
        if task is not None and task.id:
            _call(cap, recorder, transport, Operation.GET_TASK, {"id": task.id}, path)
