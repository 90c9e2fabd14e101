"""The typed journal record: its JSON is the documented one, and reading that JSON back loses nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from a2a_lab.contract.journal import BODY_KEEP_BYTES, Journal
from a2a_lab.contract.journal_record import (
    Answer,
    AuthFacts,
    BodyTimeout,
    CredentialStatus,
    EndpointRef,
    Entry,
    EntryKind,
    GrantInfo,
    PushInfo,
    Response,
    ResultKind,
    RouteRef,
    RpcRef,
    SentEvent,
    SentKind,
    TlsInfo,
    entries_from_json,
    pack_headers,
    unpack_headers,
)
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

HEADERS = [(b"Host", b"127.0.0.1:1"), (b"Authorization", b"Bearer secret"), (b"Content-Type", b"application/json")]


def _round_trip(exported: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """JSON text -> typed records -> JSON, as the harness reads a shared server's journal."""
    return [e.to_json() for e in entries_from_json(json.loads(json.dumps(exported)))]


def _every_kind() -> Journal:
    journal = Journal()
    task = {"id": "t-1", "status": {"state": TaskState.WORKING.value}}

    def call(kind: EntryKind, body: bytes = b'{"jsonrpc":"2.0"}') -> Entry:
        return journal.open("POST", "/a2a", "a=1", HEADERS, body, kind)

    card = journal.open("GET", "/.well-known/agent-card.json", "", HEADERS, b"", EntryKind.CARD)
    card.card_path, card.card_sha256 = "/.well-known/agent-card.json", "ab" * 32
    card.response = Response.sent(200, "application/json", b'{"name":"x"}')

    answers = [
        Answer.task(task),
        Answer.task(task, stream=True),
        Answer(ResultKind.MESSAGE),
        Answer(ResultKind.MESSAGE, stream=True),
        Answer.error(-32001),
        Answer(ResultKind.RAW, status=502),
        Answer(ResultKind.LIST, count=3),
        Answer(ResultKind.PUSH_CONFIG),
        Answer(ResultKind.PUSH_CONFIGS),
        Answer(ResultKind.EMPTY),
        Answer(ResultKind.CARD),
    ]
    assert {a.kind for a in answers} == set(ResultKind)
    for i, answer in enumerate(answers):
        entry = call(EntryKind.JSONRPC)
        entry.endpoint = EndpointRef("/a2a", Binding.JSONRPC)
        entry.rpc = RpcRef("SendMessage", i)
        entry.operation, entry.version, entry.requested_version = Operation.SEND_MESSAGE, Version.V1_0, None
        entry.credentials = list(CredentialStatus)[i % len(CredentialStatus)]
        entry.answer = answer
        response = entry.response = Response.sent(200, "application/json", b"\xff\xfe not utf-8" if i == 1 else b"{}")
        if i == 2:
            response.delay_ms, response.fault, response.fault_outcome = 250, "stall", "stalled"
        if i == 3:
            entry.disconnected = True

    stream = call(EntryKind.REST)
    stream.endpoint = EndpointRef("/rest", Binding.HTTP_JSON)
    stream.operation, stream.version, stream.requested_version = Operation.SUBSCRIBE_TO_TASK, Version.V0_3, "0.3"
    stream.route = RouteRef("POST", "/tasks/t-1:subscribe", {"id": "t-1"}, "tenant-a")
    stream.answer = Answer.task(task, stream=True)
    stream.response = Response(200, "text/event-stream", stream=True, closed="dropped")
    stream.events = [
        SentEvent(0.1, SentKind.DATA, '{"task":{"id":"t-1"}}'),
        SentEvent(0.2, SentKind.COMMENT, "keep-alive"),
        SentEvent(0.3, SentKind.ERROR, value={"code": -32603, "message": "boom"}, event=None),
        SentEvent(0.4, SentKind.ERROR, value={"error": {"code": 500}}, event="error"),
        SentEvent(0.45, SentKind.EXTRA, text='{"surprise":1}', event="surprise"),
        SentEvent(0.5, SentKind.DROPPED),
    ]
    assert {e.kind for e in stream.events} == set(SentKind)

    route = call(EntryKind.REST, b"")
    route.endpoint = EndpointRef("/rest", Binding.HTTP_JSON)
    route.operation, route.version, route.requested_version = Operation.GET_TASK, Version.V1_0, "1.0"
    route.route = RouteRef("GET", "/tasks/t-1", {"id": "t-1"})
    route.answer = Answer.error(-32001)

    unmatched = call(EntryKind.UNMATCHED, b"x" * (BODY_KEEP_BYTES + 5))
    unmatched.unmatched = True
    unmatched.body_timeout = BodyTimeout(0.5, 12)
    unmatched.response = Response.sent(408, "application/json", b"y" * (BODY_KEEP_BYTES + 1))

    too_large = call(EntryKind.JSONRPC, b"")
    too_large.body_too_large = True
    too_large.answer = Answer.error(-32600)

    push = journal.open("POST", "http://127.0.0.1:9/hook", "", HEADERS, b'{"token":"tok"}', EntryKind.PUSH)
    push.push = PushInfo("t-1", "c-1", probe=True)
    push.response = Response(401)
    for response in (Response(refused="not loopback"), Response(failed="ConnectError: refused")):
        other = journal.open("POST", "http://example.com/hook", "", [], b"{}", EntryKind.PUSH)
        other.push, other.response = PushInfo("t-1", "c-2", redelivery=True, foreign=True), response
    limit = journal.open("POST", "http://127.0.0.1:9/hook", "", [], b"", EntryKind.PUSH_LIMIT)
    limit.push, limit.response = PushInfo("t-1", limit=2, dropped=5), Response(refused="limit reached")

    grpc_call = journal.open(
        "POST", "/lf.a2a.v1.A2AService/SendMessage", "", [(b"a2a-version", b"1.0")], b'{"message":{}}', EntryKind.GRPC
    )
    grpc_call.url = "127.0.0.1:50051"
    grpc_call.endpoint = EndpointRef("/lf.a2a.v1.A2AService", Binding.GRPC)
    grpc_call.operation, grpc_call.version, grpc_call.requested_version = Operation.SEND_MESSAGE, Version.V1_0, "1.0"
    grpc_call.answer = Answer.error(-32001)
    grpc_call.response = Response(grpc_status="NOT_FOUND")
    grpc_call.events = [SentEvent(0.6, SentKind.ERROR, value={"code": 5, "message": "no such task"})]

    token = journal.open(
        "POST", "/oauth/token", "", HEADERS, b"grant_type=client_credentials&client_secret=s3cret", EntryKind.OAUTH
    )
    token.grant = GrantInfo("client_credentials", "post", True, ("agent.write",), issued=1)
    token.auth = AuthFacts({"oauth": "misplaced"}, 1, ("client_secret:body",), "a note")
    token.response = Response(200)

    probe = journal.open("POST", "/a2a", "", HEADERS, b"{}", EntryKind.JSONRPC)
    probe.seq, probe.t, probe.url, probe.probe = 77, 1.5, "http://agent.example/a2a", "SEND-MESSAGE"
    probe.rpc = RpcRef("message/send", "p-1")
    probe.response = Response(fault="ReadTimeout")
    connection = journal.open_tls(TlsInfo("expired", completed=False, server_name="localhost"))
    assert connection.kind is EntryKind.TLS
    over_tls = journal.open("GET", "/.well-known/agent-card.json", "", HEADERS, b"", EntryKind.CARD)
    over_tls.tls = TlsInfo("valid", version="TLSv1.3", client_certificate="verified")
    assert {e.kind for e in journal.entries} == set(EntryKind)
    return journal


def test_every_kind_of_entry_survives_json_and_back_unchanged() -> None:
    exported = _every_kind().snapshot()["entries"]
    assert _round_trip(exported) == exported
    # key order too: a JSONL file read and written again is the same text
    assert [json.dumps(e) for e in _round_trip(exported)] == [json.dumps(e) for e in exported]


def test_the_exported_json_is_the_documented_one() -> None:
    entries = _every_kind().snapshot()["entries"]
    card, task = entries[0], entries[1]
    assert list(card) == [
        "seq", "t", "kind", "method", "path", "query", "card_path", "card_sha256", "response", "headers", "body"
    ]  # fmt: skip
    assert list(task) == [
        "seq", "t", "kind", "method", "path", "query", "endpoint", "rpc", "operation", "version",
        "requested_version", "credentials", "answer", "response", "headers", "body",
    ]  # fmt: skip
    assert task["answer"] == {"result_kind": "task", "task_id": "t-1", "state": "TASK_STATE_WORKING"}
    assert task["headers"]["authorization"] == "Bearer <redacted>"
    assert task["response"] == {
        "status": 200,
        "content_type": "application/json",
        "body": {"size": 2, "text": "{}"},
    }
    assert entries[2]["response"]["body"] == {
        "size": 12,
        "withheld": "not UTF-8",
        "sha256": hashlib.sha256(b"\xff\xfe not utf-8").hexdigest(),
    }
    assert list(entries[3]["response"]) == ["status", "content_type", "delay_ms", "fault", "fault_outcome", "body"]
    stream = next(e for e in entries if e.get("events"))
    assert stream["route"] == {
        "verb": "POST",
        "path": "/tasks/t-1:subscribe",
        "params": {"id": "t-1"},
        "tenant": "tenant-a",
    }
    assert stream["response"] == {
        "status": 200,
        "content_type": "text/event-stream",
        "stream": True,
        "closed": "dropped",
    }
    assert stream["events"] == [
        {"t": 0.1, "data": {"task": {"id": "t-1"}}},
        {"t": 0.2, "comment": "keep-alive"},
        {"t": 0.3, "error": {"code": -32603, "message": "boom"}, "event": None},
        {"t": 0.4, "error": {"error": {"code": 500}}, "event": "error"},
        {"t": 0.45, "extra": '{"surprise":1}', "event": "surprise"},
        {"t": 0.5, "dropped": True},
    ]
    unmatched = next(e for e in entries if e["kind"] == "unmatched")
    assert unmatched["body"] == {"size": BODY_KEEP_BYTES + 5, "text": "x" * BODY_KEEP_BYTES, "truncated": True}
    assert unmatched["body_timeout"] == {"seconds": 0.5, "received": 12}
    push = next(e for e in entries if e["kind"] == "push")
    assert push["push"] == {"task_id": "t-1", "config_id": "c-1", "probe": True}
    marked = [e["push"] for e in entries if e["kind"] == "push"][1:]
    assert marked and all(
        m == {"task_id": "t-1", "config_id": "c-2", "probe": False, "redelivery": True, "foreign": True} for m in marked
    )
    assert push["body"] == {"size": 15, "text": '{"token":"<redacted>"}', "redacted": True}
    limit = next(e for e in entries if e["kind"] == "push-limit")
    assert limit["push"] == {"task_id": "t-1", "limit": 2, "dropped": 5}


def test_a_served_journal_survives_json_and_back_unchanged(serve: Callable[[str], Any]) -> None:
    s = serve("spec/conformant")
    s.http.get("/.well-known/agent-card.json")
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    s.rpc("/a2a/jsonrpc", "SendMessage", {"message": message})
    s.rpc("/a2a/jsonrpc", "GetTask", {"id": "missing"})
    s.rpc("/a2a/jsonrpc", "NoSuchMethod")
    s.http.post("/nowhere", content=b"not json")
    exported = s.journal
    assert len(exported) == 5
    assert _round_trip(exported) == exported


@pytest.mark.parametrize(
    "raw",
    [
        [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"a2a-version", b"1.0")],
        [(b"x-dup", b"one"), (b"x-dup", b"two"), (b"empty", b""), (b"", b"nameless")],
        [(b"latin", bytes(range(1, 256)))],  # every byte but NUL, as an ASGI server might let through
        [[b"list", b"pairs"]],  # ASGI allows any two-item iterable
        [],
    ],
)
def test_an_entry_keeps_its_request_headers_as_they_came(raw: list[Any]) -> None:
    kept = pack_headers(raw)
    assert unpack_headers(kept) == tuple((bytes(k), bytes(v)) for k, v in raw)
    entry = Entry.opened(1, 0.0, EntryKind.JSONRPC, "POST", "/", "", raw, b"{}")
    assert entry.raw_headers == tuple((bytes(k), bytes(v)) for k, v in raw)
    if raw:
        assert isinstance(kept, bytes), "one bytes object, not a list of tuples"


def test_headers_holding_a_nul_are_kept_as_pairs() -> None:
    raw = [(b"x-nul", b"a\0b"), (b"host", b"h")]
    kept = pack_headers(raw)
    assert kept == ((b"x-nul", b"a\0b"), (b"host", b"h"))
    assert unpack_headers(kept) == tuple(raw)
