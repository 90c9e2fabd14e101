"""The fidelity comparison itself (tests/personas/fidelity.py), on answers made up here: what it normalises, what it
reports, and that an allow-list covers only what it names and goes stale when it covers nothing."""

from __future__ import annotations

import json

from .fidelity import JSONRPC, V10, Accepted, Answer, Peer, compare, unexplained

REAL = Peer("real", "http://127.0.0.1:1111", {(JSONRPC, V10): "/"})
PERSONA = Peer("persona", "http://127.0.0.1:2222", {(JSONRPC, V10): "/rpc"})
JSON = {"content-type": "application/json", "date": "now", "server": "uvicorn"}


def task(task_id: str, stamp: str, base: str) -> str:
    body = {"result": {"task": {"id": task_id, "status": {"state": "X", "timestamp": stamp}, "url": f"{base}/x"}}}
    return json.dumps(body, separators=(",", ":"))


def test_generated_ids_timestamps_and_origins_are_normalised() -> None:
    real = [Answer("send", 200, JSON, task("a" * 36, "2026-01-01T00:00:00.123456Z", REAL.base_url))]
    persona = [
        Answer("send", 200, {**JSON, "date": "later"}, task("b" * 36, "2026-02-02T11:11:11.1Z", PERSONA.base_url))
    ]
    assert compare(REAL, real, PERSONA, persona) == []


def test_differences_are_typed_by_aspect() -> None:
    real = [
        Answer("send", 200, JSON, task("a" * 36, "2026-01-01T00:00:00.1+00:00", REAL.base_url)),
        Answer("get", 200, JSON, '{"a":1,"b":2}'),
        Answer("page", 404, {"content-type": "text/plain"}, "Not Found"),
        Answer("stream", 200, JSON, "", broken="RemoteProtocolError"),
    ]
    persona = [
        Answer("send", 200, JSON, task("b" * 36, "2026-01-01T00:00:00.1Z", PERSONA.base_url)),
        Answer("get", 200, JSON, '{"b":2,"a":1}'),
        Answer("page", 405, {"content-type": "application/json", "allow": "GET"}, '{"error":"use GET"}'),
    ]
    found = {(d.probe, d.aspect) for d in compare(REAL, real, PERSONA, persona)}
    assert found == {
        ("send", "body"),  # +00:00 and Z are different shapes
        ("get", "bytes"),  # the same JSON, members in another order
        ("page", "status"),
        ("page", "header content-type"),
        ("page", "header allow"),
        ("page", "body"),
        ("stream", "missing"),
    }


def test_an_allow_list_covers_what_it_names_and_goes_stale() -> None:
    real = [Answer("get", 200, JSON, '{"a":1,"b":2}'), Answer("page", 404, JSON, '{"x":1}')]
    persona = [Answer("get", 200, JSON, '{"b":2,"a":1}'), Answer("page", 404, JSON, '{"x":2}')]
    differences = compare(REAL, real, PERSONA, persona)
    order = Accepted("member order", "why", ("get", "nothing-like-this"), ("bytes",))
    left, stale = unexplained(differences, [order])
    assert [(d.probe, d.aspect) for d in left] == [("page", "body")]  # the body is not covered by a `bytes` allowance
    assert stale == ["member order: nothing-like-this"]
