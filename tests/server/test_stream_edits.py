"""`reply.stream` v2 (issue 29): per-event edits of a generated stream (insert, replace, drop, delay), an unterminated
last event, a stream that stays open, `error_after: 0` and the stream error's optional `event:` line and `details`,
served over real HTTP (uvicorn on loopback) in SSE, NDJSON and HTTP+JSON; and the loader's refusals."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_lab.contract.loader import ScenarioError, load_file
from a2a_lab.protocol.operations import Operation
from a2a_lab.server.stream_edits import NOT_SENT_ON_GRPC

from .helpers import REST_PATH, Lab, message, message03, scenario_text, sse_events, write_scenario

V1 = {"A2A-Version": "1.0"}
REST = {"A2A-Version": "1.0", "Content-Type": "application/json"}

EDITS = """\
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  artifacts: [{artifactId: a1, parts: [{text: "echo: {text}"}]}]
behaviour:
  SendMessage:
    - when: {text_contains: fill}
      reply:
        raw:
          fill: true
          body: '{"jsonrpc":"2.0","id":{request_id},"result":{"task":{"id":"{task_id}","contextId":"{context_id}"}}}'
    - reply: {raw: {status: 502, body: "<h1>Bad Gateway</h1>", content_type: text/html, byte_exact: "a proxy's page"}}
  SendStreamingMessage:
    - when: {text_contains: raw-events}
      reply:
        raw:
          fill: true
          events:
            - {json: {jsonrpc: "2.0", id: 0, result: {statusUpdate: {taskId: "{task_id}"}}}}
            - text: '{"jsonrpc":"2.0","id":{request_id},"error":{"code":-32603,"message":"later"}}'
              event: oops
              delay_ms: 300
    - when: {text_contains: nd-raw}
      reply:
        raw:
          content_type: application/x-ndjson
          events: [{json: {n: 1}}, {text: "not json", delay_ms: 200}]
    - when: {text_contains: insert}
      reply:
        stream:
          events:
            - {at: 2, insert: {json: {heartbeat: {at: "{task_id}"}}}}
            - at: 3
              insert:
                json:
                  artifactUpdate:
                    taskId: "{task_id}"
                    contextId: "{context_id}"
                    artifact: {artifactId: never-sent, parts: [{text: orphan}]}
                    append: true
            - {at: 3, insert: {json: {}, bare: true}}
            - {at: end, insert: {text: '{"jsonrpc":"2.0","id":{request_id},"error":{"code":-32603,"message":"late"}}'}}
    - when: {text_contains: replace}
      reply:
        stream:
          events:
            - {at: 2, replace: {json: {note: replaced}, event: note}}
            - {at: 4, drop: true}
    - when: {text_contains: dropall}
      reply: {stream: {events: [{at: all, drop: true}]}}
    - when: {text_contains: paced}
      reply: {stream: {events: [{at: 3, delay_ms: 400}]}}
    - when: {text_contains: as-array}
      reply: {stream: {framing: json-array, events: [{at: 2, insert: {json: {extra: 1}, bare: true}}]}}
    - when: {text_contains: unterminated-nd}
      reply: {stream: {framing: ndjson, unterminated: true}}
    - when: {text_contains: unterminated}
      reply: {stream: {unterminated: true}}
    - when: {text_contains: held}
      reply:
        task: {steps: [SUBMITTED, WORKING, INPUT_REQUIRED]}
        stream: {hold_open: true}
    - when: {text_contains: early-error, binding: HTTP+JSON}
      reply: {stream: {error_after: 0, error: {code: TaskNotFound, event: false, details: false}}}
    - when: {text_contains: early-error}
      reply: {stream: {error_after: 0, error: TaskNotFound}}
"""


@pytest.fixture
def edits(lab: Callable[..., Lab]) -> Lab:
    return lab(EDITS)


def stream(s: Lab, text: str, req_id: Any = 1, version: str = "1.0") -> httpx.Response:
    msg = message(text) if version == "1.0" else message03(text)
    method = "SendStreamingMessage" if version == "1.0" else "message/stream"
    return s.rpc(method, {"message": msg}, version=version, req_id=req_id)


def kinds(values: list[Any]) -> list[str]:
    out = []
    for v in values:
        inner = v.get("result", v) if isinstance(v, dict) else v
        out.append(",".join(sorted(inner)) if isinstance(inner, dict) else repr(inner))
    return out


def test_insert_events_with_the_streams_ids_and_the_requests_id(edits: Lab) -> None:
    r = stream(edits, "insert", req_id="req-7")
    events = [e.data for e in sse_events(r.text)]
    assert kinds(events) == [
        "task",
        "heartbeat",
        "statusUpdate",
        "artifactUpdate",
        "",
        "artifactUpdate",
        "statusUpdate",
        "error,id,jsonrpc",
    ]
    task_id = events[0]["result"]["task"]["id"]
    context_id = events[0]["result"]["task"]["contextId"]
    assert events[1] == {"jsonrpc": "2.0", "id": "req-7", "result": {"heartbeat": {"at": task_id}}}
    orphan = events[3]["result"]["artifactUpdate"]
    assert (orphan["taskId"], orphan["contextId"], orphan["append"]) == (task_id, context_id, True)
    assert events[4] == {}, "bare: the JSON alone"
    assert events[-1] == {"jsonrpc": "2.0", "id": "req-7", "error": {"code": -32603, "message": "late"}}
    sent = edits.journal[-1]["events"]
    assert [e.get("extra") is not None for e in sent].count(True) == 4, "inserted events journaled as `extra`"


def test_replace_drop_and_drop_all(edits: Lab) -> None:
    plain = [e.data["result"] for e in sse_events(stream(edits, "plain").text)]
    got = sse_events(stream(edits, "replace").text)
    assert got[1].event == "note" and got[1].data["result"] == {"note": "replaced"}
    assert [kinds([e.data]) for e in got] == [kinds([{"result": v}]) for v in (plain[0], {"note": 1}, plain[2])] + [
        kinds([{"result": v}]) for v in plain[4:]
    ], "the 2nd event replaced, the 4th dropped"
    empty = stream(edits, "dropall")
    assert empty.status_code == 200 and empty.headers["content-type"].startswith("text/event-stream")
    assert [e for e in sse_events(empty.text) if e.data is not None] == []


def test_delay_before_an_event(edits: Lab) -> None:
    """Timed from the call's start (a floor that holds at any load): the gap between two events as the client reads
    them shrinks when a loaded machine delivers the earlier one late."""
    times: list[float] = []
    started = time.monotonic()
    with edits.http.stream(
        "POST",
        "/rpc",
        json={"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message("paced")}},
        headers=V1,
    ) as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                times.append(time.monotonic())
    assert len(times) >= 3 and times[2] - started >= 0.39, f"400 ms before the 3rd event: {times}, from {started}"


def test_unterminated_last_event(edits: Lab) -> None:
    body = stream(edits, "unterminated").content
    last = body.rsplit(b"data: ", 1)[1]
    assert last.endswith(b"}\r\n") and not last.endswith(b"\r\n\r\n"), "no blank line after the last event"
    assert body.count(b"\r\n\r\n") == body.count(b"data: ") - 1, "every other event ends as usual"
    nd = stream(edits, "unterminated-nd").content
    assert not nd.endswith(b"\n") and len(nd.split(b"\n")) == 4


def test_json_array_framing(edits: Lab) -> None:
    r = edits.http.post(
        f"{REST_PATH}/message:stream",
        json={"message": message("as-array")},
        headers={**REST, "Accept": "text/event-stream"},
    )
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    events = r.json()
    assert isinstance(events, list) and list(events[0]) == ["task"] and events[1] == {"extra": 1}
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_hold_open_after_the_interrupted_state(edits: Lab) -> None:
    seen: list[str] = []
    with (
        httpx.Client(base_url=edits.url, timeout=httpx.Timeout(5, read=1.5), trust_env=False) as http,
        pytest.raises(httpx.ReadTimeout),
        http.stream(
            "POST",
            "/rpc",
            json={"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": message03("held")}},
            headers={"A2A-Version": "0.3"},
        ) as r,
    ):
        for line in r.iter_lines():
            if line.startswith("data:"):
                seen.append(line)
    final = json.loads(seen[-1][5:])["result"]
    assert (final["status"]["state"], final["final"]) == ("input-required", True)
    assert edits.journal[-1]["response"].get("closed") in (None, "disconnected"), "the server never closed it"


def test_error_after_zero_sends_the_error_before_any_event(edits: Lab) -> None:
    got = sse_events(stream(edits, "early-error").text)
    assert len(got) == 1 and got[0].data["error"]["code"] == -32001
    r = edits.http.post(
        f"{REST_PATH}/message:stream",
        json={"message": message("early-error")},
        headers={**REST, "Accept": "text/event-stream"},
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert "event:" not in r.text, "error.event: false"
    (only,) = sse_events(r.text)
    assert only.event is None and only.data["error"]["status"] == "NOT_FOUND"
    assert "details" not in only.data["error"], "error.details: false"


# ------------------------------------------------------------------------------------------- refused on load


def refused(tmp_path: Path, body: str) -> ScenarioError:
    path = write_scenario(tmp_path, scenario_text(body), "broken.yaml")
    with pytest.raises(ScenarioError) as info:
        load_file(path)
    assert str(path) in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("stream_yaml", "field", "says"),
    [
        ("{events: [{at: ends, insert: {json: 1}}]}", ".events[0].at", "did you mean 'end'?"),
        ("{events: [{at: 0, drop: true}]}", ".events[0].at", ">= 1"),
        ("{events: [{at: 2}]}", ".events[0]", "delay_ms, edit or one of insert"),
        ("{events: [{at: 2, drop: true, replace: {json: 1}}]}", ".events[0]", "one of insert, replace, drop"),
        ("{events: [{at: end, replace: {json: 1}}]}", ".events[0].replace", "use insert"),
        ("{events: [{at: 2, insert: {json: 1, text: x}}]}", ".events[0].insert", "exactly one of json"),
        ("{events: [{at: 2, insert: {jsn: 1}}]}", ".events[0].insert.jsn", "did you mean 'json'?"),
        ("{events: [{at: 2, drop: false}]}", ".events[0].drop", "leave it out"),
        ("{events: []}", ".events", "non-empty list"),
        ("{framing: ndjson, hold_open: true}", ".hold_open", "use sse"),
        ("{framing: json-array, hold_open: true}", ".hold_open", "json-array stream is sent as one body"),
        ("{framing: ndjson, events: [{at: 1, insert: {json: 1, event: x}}]}", ".events[0]", "no event names"),
        ("{error_after: 1, error: {code: TaskNotFound, event: no-thanks}}", ".error.event", "true or false"),
    ],
)
def test_bad_stream_options_are_refused_with_field_and_hint(
    tmp_path: Path, stream_yaml: str, field: str, says: str
) -> None:
    err = refused(tmp_path, f"behaviour: {{SendStreamingMessage: {{reply: {{stream: {stream_yaml}}}}}}}\n")
    assert err.field_path == "behaviour.SendStreamingMessage[0].reply.stream" + field, err
    assert says in f"{err.problem} {err.hint}", err


def test_byte_exact_raw_is_served_as_written(edits: Lab) -> None:
    r = edits.send("anything")
    assert (r.status_code, r.text, r.headers["content-type"]) == (502, "<h1>Bad Gateway</h1>", "text/html")
    assert edits.scenario.rules[Operation.SEND_MESSAGE][1].reply.raw_byte_exact == "a proxy's page"


def test_raw_bodies_and_events_use_the_request(edits: Lab) -> None:
    msg = message("fill", taskId="t-9", contextId="c-9")
    filled = edits.rpc("SendMessage", {"message": msg}, req_id="r-1").json()
    assert filled == {"jsonrpc": "2.0", "id": "r-1", "result": {"task": {"id": "t-9", "contextId": "c-9"}}}
    began = time.monotonic()
    times: list[float] = []
    with edits.http.stream(
        "POST",
        "/rpc",
        json={
            "jsonrpc": "2.0",
            "id": 5,
            "method": "SendStreamingMessage",
            "params": {"message": message("raw-events")},
        },
        headers=V1,
    ) as r:
        assert r.headers["content-type"] == "text/event-stream"
        lines = []
        for line in r.iter_lines():
            lines.append(line)
            if line.startswith("data:"):
                times.append(time.monotonic() - began)
    events = sse_events("\n".join(lines))
    assert events[0].data == {"jsonrpc": "2.0", "id": 0, "result": {"statusUpdate": {"taskId": ""}}}, "no task named"
    assert events[1].event == "oops" and events[1].data["id"] == 5, "{request_id} is the request's id"
    assert times[1] - times[0] >= 0.29, "delay_ms before the second event"
    assert [e.get("extra") for e in edits.journal[-1]["events"]][1].startswith('{"jsonrpc"')


@pytest.mark.parametrize(
    ("raw_yaml", "field", "says"),
    [
        ("{body: x, events: [{text: y}]}", "", "not both"),
        ("{events: []}", ".events", "non-empty list"),
        ("{events: [{text: a, json: 1}]}", ".events[0]", "exactly one of text"),
        ("{events: [{text: a, delay: 5}]}", ".events[0].delay", "did you mean 'delay_ms'?"),
        ("{events: [{text: a, event: ''}]}", ".events[0].event", "one non-empty line"),
        ("{content_type: application/x-ndjson, events: [{text: a, event: x}]}", ".events[0].event", "no names"),
    ],
)
def test_bad_raw_events_are_refused(tmp_path: Path, raw_yaml: str, field: str, says: str) -> None:
    err = refused(tmp_path, f"behaviour: {{SendStreamingMessage: {{reply: {{raw: {raw_yaml}}}}}}}\n")
    assert err.field_path == "behaviour.SendStreamingMessage[0].reply.raw" + field, err
    assert says in f"{err.problem} {err.hint}", err


def test_raw_ndjson_events(edits: Lab) -> None:
    r = stream(edits, "nd-raw")
    assert r.headers["content-type"] == "application/x-ndjson" and r.content == b'{"n":1}\nnot json\n'


def test_byte_exact_says_why(tmp_path: Path) -> None:
    err = refused(tmp_path, "behaviour: {SendMessage: {reply: {raw: {body: x, byte_exact: '  '}}}}\n")
    assert err.field_path == "behaviour.SendMessage[0].reply.raw.byte_exact" and "say why" in err.problem


GRPC_EDITS = """\
title: stream edits on gRPC
description: Drop and delay apply; an inserted event has no proto frame; a raw event stream sends StreamResponses.
spec: A2A 1.0 (test)
card:
  object:
    name: grpc
    supportedInterfaces: [{url: "{grpc_address}", protocolBinding: GRPC, protocolVersion: "1.0"}]
    capabilities: {streaming: true}
endpoints: [{path: /unused, binding: GRPC, versions: ["1.0"]}]
behaviour:
  SendStreamingMessage:
    - when: {text_contains: raw}
      reply:
        raw:
          fill: true
          events:
            - json: {statusUpdate: {taskId: "t-{context_id}", contextId: c, status: {state: TASK_STATE_WORKING}}}
            - {text: hi, delay_ms: 10}
    - when: {text_contains: gone}
      reply: {raw: {events: [{json: {code: 5, message: gone}, event: error}]}}
    - when: {text_contains: okay}
      reply: {raw: {events: [{json: {code: 0}, event: error}]}}
    - reply:
        stream:
          events:
            - {at: 2, drop: true}
            - {at: 3, insert: {json: {heartbeat: {}}}, delay_ms: 50}
  SendMessage:
    - reply: {raw: {events: [{json: {task: {id: t}}}]}}
"""


def test_stream_edits_on_grpc(tmp_path: Path) -> None:
    grpc = pytest.importorskip("grpc", reason="the grpc extra (grpcio) is not installed")
    from a2a_lab.protocol import grpcwire, protobuf

    served = Lab(load_file(write_scenario(tmp_path, GRPC_EDITS, "grpc.yaml"), "test/grpc"))
    try:
        address = served.http.get("/.well-known/agent-card.json").json()["supportedInterfaces"][0]["url"]
        path = grpcwire.method_path(Operation.SEND_STREAMING_MESSAGE)
        metadata = [("a2a-version", "1.0")]
        with grpc.insecure_channel(address) as channel:
            call = channel.unary_stream(path)

            def request(text: str) -> bytes:
                return protobuf.encode_request(Operation.SEND_STREAMING_MESSAGE, {"message": message(text)})

            frames = list(call(request("hi"), metadata=metadata, timeout=5))
            raw: Any = call(request("raw"), metadata=metadata, timeout=5)
            first = protobuf.decode_response(Operation.SEND_STREAMING_MESSAGE, next(raw))
            with pytest.raises(grpc.RpcError) as refused:
                next(raw)
            ended = [call(request(text), metadata=metadata, timeout=5) for text in ("gone", "okay")]
            for each in ended:
                with pytest.raises(grpc.RpcError):
                    list(each)
            unary = channel.unary_unary(grpcwire.method_path(Operation.SEND_MESSAGE))
            with pytest.raises(grpc.RpcError) as one:
                unary(protobuf.encode_request(Operation.SEND_MESSAGE, {"message": message("x")}), metadata=metadata)
        assert first == {"statusUpdate": {"taskId": "t-", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}
        assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED  # `hi` is no StreamResponse: said, not sent
        assert "reply.raw.events[1] is not a StreamResponse" in refused.value.details()
        assert one.value.code() is grpc.StatusCode.UNIMPLEMENTED and "unary" in one.value.details()
        assert (ended[0].code(), ended[0].details()) == (grpc.StatusCode.NOT_FOUND, "gone")  # an `error` event
        assert ended[1].code() is grpc.StatusCode.UNIMPLEMENTED and "no google.rpc.Status" in ended[1].details()
        sent = next(e for e in served.journal if e.get("operation") == "SendStreamingMessage")["events"]
        data = [e for e in sent if "data" in e]
        assert len(frames) == len(data) == 3, "four events generated, the second dropped"
        assert [e.get("comment") for e in sent if "comment" in e] == [NOT_SENT_ON_GRPC], "the insert journaled"
    finally:
        served.close()


ARTIFACT_FLAGS = """\
task:
  steps: [SUBMITTED, WORKING, COMPLETED]
  artifacts:
    - {artifactId: late, parts: [{text: "appended to nothing"}], append: true, lastChunk: false}
    - {artifactId: parts, parts: [{text: one}, {text: two}], chunked: true, lastChunk: false}
    - {artifactId: plain, parts: [{text: "as usual"}]}
"""


def test_artifact_append_and_last_chunk_as_the_scenario_sets_them(lab: Callable[..., Lab]) -> None:
    """`append` / `lastChunk` on a task's artifact override what `chunked` makes, on every update of it (a server that
    appends to an artifact never sent, or never says the last chunk); an artifact without them streams as before."""
    updates = [
        e.data["result"]["artifactUpdate"]
        for e in sse_events(stream(lab(ARTIFACT_FLAGS), "flags").text)
        if e.data and "artifactUpdate" in e.data.get("result", {})
    ]
    seen = [(u["artifact"]["artifactId"], u.get("append"), u["lastChunk"]) for u in updates]
    assert seen == [
        ("late", True, False),
        ("parts", None, False),
        ("parts", True, False),
        ("plain", None, True),
    ]


@pytest.mark.parametrize("key", ["append", "lastChunk"])
def test_artifact_flags_must_be_booleans(tmp_path: Path, key: str) -> None:
    text = ARTIFACT_FLAGS.replace(f"{key}: {'true' if key == 'append' else 'false'}", f"{key}: 'yes'", 1)
    with pytest.raises(ScenarioError) as err:
        load_file(write_scenario(tmp_path, scenario_text(text), "flags.yaml"), "test/flags")
    assert f"task.artifacts[0].{key}" in str(err.value) and "expected true or false" in str(err.value)
