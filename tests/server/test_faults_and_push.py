"""Scenario behaviour rules (replies, faults, envelopes, stream deviations) and push delivery to a real
webhook receiver. Scenarios are written to tmp_path and served on loopback port 0."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import STREAM_ERROR_MESSAGE
from a2a_lab.server.faults import TRANSPORT_KEY
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.state import PAD_FIELD, render_card

from .helpers import REST_PATH, RPC_PATH, Lab, client, data_events, message, message03, sse_events, write_scenario

V1 = {"A2A-Version": "1.0"}
MakeLab = Callable[..., Lab]


def rpc_body(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json"), (
        response.text
    )
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    return body


# ==================================================================================== rules and replies


def test_fail_the_first_two_calls_then_succeed(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - when: {calls: {to: 2}}
              reply: {error: {code: InternalError, message: "try again"}}
    """)
    first, second = s.send(), s.send()
    for r in (first, second):
        assert rpc_body(r)["error"] == {"code": -32603, "message": "try again"}
    assert s.rpc("GetTask", {"id": "x"}).json()["error"]["code"] == -32001  # other operations count on their own
    third = rpc_body(s.send("third"))
    assert third["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert third["result"]["task"]["artifacts"][0]["parts"] == [{"text": "echo: third"}]
    assert rpc_body(s.send())["result"]["task"]
    assert [e["answer"]["result_kind"] for e in s.journal if e.get("operation") == "SendMessage"] == [
        "error",
        "error",
        "task",
        "task",
    ]


def test_rules_match_on_version_binding_text_header_and_task_id(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - when: {version: "0.3"}
              reply: {message: "old client"}
            - when: {binding: http+json}
              reply: {message: "rest client"}
            - when: {header: {X-Mode: special}}
              reply: {message: "special"}
            - when: {text_contains: magic}
              reply: {message: [{text: "you said {text}"}, {data: {n: 1}}]}
            - when: {message_id_prefix: retry-}
              reply: {error: TaskNotFound}
    """)
    assert rpc_body(s.rpc("message/send", {"message": message03()}, version=None))["result"]["parts"] == [
        {"kind": "text", "text": "old client"}
    ]
    rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message()}, headers=V1)
    assert rest.json()["message"]["parts"] == [{"text": "rest client"}]
    special = s.http.post(
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}},
        headers={**V1, "X-Mode": "special"},
    )
    assert rpc_body(special)["result"]["message"]["parts"] == [{"text": "special"}]
    magic = rpc_body(s.send("a magic word"))["result"]["message"]
    assert magic["parts"] == [{"text": "you said a magic word"}, {"data": {"n": 1}}] and magic["role"] == "ROLE_AGENT"
    assert rpc_body(s.rpc("SendMessage", {"message": message(message_id="retry-1")}))["error"]["code"] == -32001
    assert (
        rpc_body(s.send("plain"))["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    )  # no rule: default behaviour


def test_has_task_id_rule_and_an_input_required_conversation(lab: MakeLab) -> None:
    s = lab("""
        task:
          steps: [SUBMITTED, {state: INPUT_REQUIRED, message: "which one?"}, WORKING, COMPLETED]
        behaviour:
          SendMessage:
            - when: {has_task_id: true, text_contains: stop}
              reply: {error: {code: -32050, message: custom}}
    """)
    task = rpc_body(s.send("start"))["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert task["status"]["message"]["parts"] == [{"text": "which one?"}]
    stop = rpc_body(s.rpc("SendMessage", {"message": message("stop", taskId=task["id"])}))
    assert stop["error"] == {"code": -32050, "message": "custom"}
    done = rpc_body(
        s.rpc(
            "SendMessage",
            {"message": message("the blue one", message_id="m-2", taskId=task["id"], contextId=task["contextId"])},
        )
    )
    finished = done["result"]["task"]
    assert finished["id"] == task["id"] and finished["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [m["role"] for m in finished["history"]] == ["ROLE_USER", "ROLE_AGENT", "ROLE_USER"]
    assert finished["artifacts"][0]["parts"] == [{"text": "echo: start"}]


def test_reply_task_returns_first_ignores_blocking(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - reply: {task: {returns: first}}
    """)
    task = rpc_body(s.send())["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert rpc_body(s.rpc("GetTask", {"id": task["id"]}))["result"]["status"]["state"] == "TASK_STATE_WORKING"


def test_error_with_an_http_status_and_extra_headers(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - when: {binding: jsonrpc}
              reply: {error: {code: InternalError, http_status: 503}, headers: {Retry-After: "1"}}
            - reply: {error: {code: TaskNotFound, http_status: 410}}
          GetTask:
            - reply: {headers: {X-Lab: here}}
    """)
    r = s.send()
    assert r.status_code == 503 and r.headers["retry-after"] == "1" and r.json()["error"]["code"] == -32603
    rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message()}, headers=V1)
    assert rest.status_code == 410 and rest.json()["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"
    got = s.rpc("GetTask", {"id": "nope"})
    assert got.headers["x-lab"] == "here" and got.json()["error"]["code"] == -32001


def test_raw_html_500(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - reply:
                raw:
                  status: 500
                  body: "<html><body>Internal Server Error</body></html>"
                  content_type: text/html
    """)
    r = s.send()
    assert r.status_code == 500 and r.headers["content-type"] == "text/html"
    assert r.text == "<html><body>Internal Server Error</body></html>"
    with pytest.raises(json.JSONDecodeError):
        r.json()
    rest = s.http.post(f"{REST_PATH}/message:send", json={"message": message()}, headers=V1)
    assert rest.status_code == 500 and rest.text.startswith("<html>")
    assert s.journal[0]["answer"] == {"result_kind": "raw", "status": 500}


def test_delay(lab: MakeLab) -> None:
    s = lab("""
        behaviour:
          SendMessage:
            - reply: {delay_ms: 150}
    """)
    started = time.monotonic()
    assert rpc_body(s.send())["result"]["task"]
    assert time.monotonic() - started >= 0.15
    assert s.journal[-1]["response"]["delay_ms"] == 150


# ==================================================================================== network faults


FAULTS = """
    behaviour:
      SendMessage:
        - when: {text_contains: reset}
          reply: {fault: reset}
        - when: {text_contains: truncate}
          reply: {fault: {kind: truncate, after_bytes: 20}}
        - when: {text_contains: stall}
          reply: {fault: stall}
        - when: {text_contains: drip}
          reply: {fault: {kind: drip, chunk_bytes: 64, interval_ms: 1}}
"""


def test_connection_reset(lab: MakeLab) -> None:
    s = lab(FAULTS)
    with pytest.raises(httpx.TransportError):
        s.send("reset")
    assert s.journal[-1]["response"]["fault"] == "reset"
    assert rpc_body(s.send("fine"))["result"]["task"], "the server answers the next call"


def test_truncated_body(lab: MakeLab) -> None:
    s = lab(FAULTS)
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        s.send("truncate")
    assert s.journal[-1]["response"]["fault"] == "truncate"
    assert rpc_body(s.send("fine"))["result"]["task"]


def test_truncated_body_reads_short(lab: MakeLab) -> None:
    s = lab(FAULTS)
    received = b""
    with (
        pytest.raises(httpx.TransportError),
        s.http.stream(
            "POST",
            RPC_PATH,
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("truncate")}},
            headers=V1,
        ) as r,
    ):
        declared = int(r.headers["content-length"])
        for chunk in r.iter_raw():
            received += chunk
    assert len(received) <= 20 < declared, "never more than after_bytes of the declared body"


def test_stall_makes_the_client_time_out(lab: MakeLab) -> None:
    s = lab(FAULTS)
    with client(s.url, timeout=0.3) as impatient:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            impatient.post(
                RPC_PATH,
                json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message("stall")}},
                headers=V1,
            )
        assert time.monotonic() - started < 5
    assert s.journal[-1]["response"]["fault"] == "stall"
    assert rpc_body(s.send("fine"))["result"]["task"]


def test_drip_delivers_the_whole_answer(lab: MakeLab) -> None:
    s = lab(FAULTS)
    body = rpc_body(s.send("drip"))
    assert body["result"]["task"]["artifacts"][0]["parts"] == [{"text": "echo: drip"}]
    assert s.journal[-1]["response"]["fault"] == "drip"


# ==================================================================================== JSON-RPC envelopes


ENVELOPES = """
    behaviour:
      SendMessage:
        - when: {text_contains: wrong}
          reply: {envelope: {id: wrong}}
        - when: {text_contains: nullid}
          reply: {envelope: {id: "null"}}
        - when: {text_contains: omit}
          reply: {envelope: {id: omit}}
        - when: {text_contains: both}
          reply: {envelope: {both: true}}
        - when: {text_contains: neither}
          reply: {envelope: {neither: true}}
        - when: {text_contains: errwrong}
          reply: {error: TaskNotFound, envelope: {id: wrong}}
"""


def test_wrong_id(lab: MakeLab) -> None:
    s = lab(ENVELOPES)
    body = rpc_body(s.rpc("SendMessage", {"message": message("wrong")}, req_id=7))
    assert body["id"] == "a2a-lab-wrong-id-7" and body["result"]["task"]


def test_null_and_omitted_ids(lab: MakeLab) -> None:
    s = lab(ENVELOPES)
    null = rpc_body(s.rpc("SendMessage", {"message": message("nullid")}, req_id=7))
    assert "id" in null and null["id"] is None and "result" in null
    omitted = rpc_body(s.rpc("SendMessage", {"message": message("omit")}, req_id=7))
    assert "id" not in omitted and "result" in omitted


def test_both_result_and_error(lab: MakeLab) -> None:
    s = lab(ENVELOPES)
    body = rpc_body(s.rpc("SendMessage", {"message": message("both")}, req_id=7))
    assert body["id"] == 7 and body["result"]["task"] and body["error"]["code"] == -32603


def test_neither_result_nor_error(lab: MakeLab) -> None:
    s = lab(ENVELOPES)
    body = rpc_body(s.rpc("SendMessage", {"message": message("neither")}, req_id=7))
    assert body == {"jsonrpc": "2.0", "id": 7}


def test_envelope_applies_to_error_replies(lab: MakeLab) -> None:
    s = lab(ENVELOPES)
    body = rpc_body(s.rpc("SendMessage", {"message": message("errwrong")}, req_id="r"))
    # the first matching rule wins: "errwrong" contains "wrong", so this is the plain wrong-id reply
    assert body["id"] == "a2a-lab-wrong-id-r" and "result" in body
    s2 = lab(
        """
        behaviour:
          GetTask:
            - reply: {error: TaskNotFound, envelope: {id: wrong, both: true}}
    """,
        name="second.yaml",
    )
    body = rpc_body(s2.rpc("GetTask", {"id": "x"}, req_id=3))
    assert body["id"] == "a2a-lab-wrong-id-3" and body["error"]["code"] == -32001 and body["result"] is None


# ==================================================================================== stream deviations


STREAMS = """
    behaviour:
      SendStreamingMessage:
        - when: {text_contains: omit}
          reply: {stream: {omit_terminal: true}}
        - when: {text_contains: dup}
          reply: {stream: {duplicate_events: true}}
        - when: {text_contains: comments}
          reply: {stream: {comments: ["hello there", "keep-alive"]}}
        - when: {text_contains: midway}
          reply: {stream: {error_after: 2, error: TaskNotFound}}
        - when: {text_contains: status-first}
          reply: {stream: {first_event: status, final_snapshot: true}}
        - when: {text_contains: direct}
          reply: {message: "a direct answer"}
"""


def stream(s: Lab, text: str, rest: bool = False, req_id: Any = 1) -> httpx.Response:
    if rest:
        r = s.http.post(f"{REST_PATH}/message:stream", json={"message": message(text)}, headers=V1)
    else:
        r = s.rpc("SendStreamingMessage", {"message": message(text)}, req_id=req_id)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), r.text
    return r


def kinds(results: list[dict[str, Any]]) -> list[str]:
    out = []
    for x in results:
        (k,) = x
        out.append(k if k != "statusUpdate" else f"status:{x[k]['status']['state'].removeprefix('TASK_STATE_')}")
    return out


def test_stream_that_omits_the_terminal_event(lab: MakeLab) -> None:
    s = lab(STREAMS)
    results = [e["result"] for e in data_events(stream(s, "omit").text)]
    assert kinds(results) == ["task", "status:WORKING", "artifactUpdate"]
    task_id = results[0]["task"]["id"]
    # the task did finish; the stream just never said so
    assert rpc_body(s.rpc("GetTask", {"id": task_id}))["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert s.journal[0]["response"]["closed"] == "complete"


def test_duplicated_events(lab: MakeLab) -> None:
    s = lab(STREAMS)
    results = [e["result"] for e in data_events(stream(s, "dup").text)]
    assert kinds(results) == [
        "task",
        "task",
        "status:WORKING",
        "status:WORKING",
        "artifactUpdate",
        "artifactUpdate",
        "status:COMPLETED",
        "status:COMPLETED",
    ]
    assert results[0] == results[1] and results[-1] == results[-2]


def test_comments_before_the_first_event(lab: MakeLab) -> None:
    s = lab(STREAMS)
    events = sse_events(stream(s, "comments").text)
    assert [(e.comments, e.data) for e in events[:2]] == [(("hello there",), None), (("keep-alive",), None)]
    assert [e for e in events[2:] if e.comments] == [] and all(e.data for e in events[2:])
    assert kinds([e.data["result"] for e in events[2:]]) == [
        "task",
        "status:WORKING",
        "artifactUpdate",
        "status:COMPLETED",
    ]
    assert [x.get("comment") for x in s.journal[0]["events"][:2]] == ["hello there", "keep-alive"]


def test_error_mid_stream_jsonrpc(lab: MakeLab) -> None:
    s = lab(STREAMS)
    events = data_events(stream(s, "midway", req_id="e").text)
    assert [("result" in e, "error" in e) for e in events] == [(True, False), (True, False), (False, True)]
    assert all(e["id"] == "e" for e in events)
    assert events[-1]["error"]["code"] == -32001 and events[-1]["error"]["data"][0]["reason"] == "TASK_NOT_FOUND"


def test_error_mid_stream_rest(lab: MakeLab) -> None:
    s = lab(STREAMS)
    events = sse_events(stream(s, "midway", rest=True).text)
    assert [e.event for e in events] == [None, None, "error"]
    error = events[-1].data["error"]
    assert error["code"] == 404 and error["status"] == "NOT_FOUND" and error["details"][0]["reason"] == "TASK_NOT_FOUND"


STREAM_ERRORS = """
    endpoints:
      - {path: /rpc, binding: JSONRPC, versions: ["1.0", "0.3"]}
      - {path: /rest, binding: HTTP+JSON, versions: ["1.0", "0.3"]}
    behaviour:
      SendStreamingMessage:
        - when: {text_contains: custom}
          reply: {stream: {error_after: 1, error: {code: -31999, message: "the model backend fell over"}}}
        - when: {text_contains: named}
          reply: {stream: {error_after: 1, error: {code: TaskNotFound, message: "gone mid-way"}}}
        - reply: {stream: {error_after: 1, error: UnsupportedOperation}}
"""


def _stream_error_event(s: Lab, text: str, rest: bool, v03: bool) -> tuple[str | None, dict[str, Any]]:
    """The last event of a stream that ends in an injected error: (SSE event name, the error object or body)."""
    msg = message03(text) if v03 and not rest else message(text)  # 0.3 HTTP+JSON speaks the proto's JSON form
    headers = {} if v03 else V1
    if rest:
        r = s.http.post(f"{REST_PATH}{'/v1' if v03 else ''}/message:stream", json={"message": msg}, headers=headers)
    else:
        r = s.rpc("message/stream" if v03 else "SendStreamingMessage", {"message": msg}, version=None if v03 else "1.0")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), r.text
    events = sse_events(r.text)
    assert len(events) == 2, "the task, then the error; then the stream closes"
    last = events[-1]
    return last.event, (last.data if rest else last.data["error"])


@pytest.mark.parametrize("v03", [False, True], ids=["1.0", "0.3"])
def test_stream_error_serves_code_and_message_as_written_jsonrpc(lab: MakeLab, v03: bool) -> None:
    s = lab(STREAM_ERRORS)
    _, custom = _stream_error_event(s, "custom", rest=False, v03=v03)
    assert custom["code"] == -31999 and custom["message"] == "the model backend fell over"
    _, named = _stream_error_event(s, "named", rest=False, v03=v03)
    assert named["code"] == -32001 and named["message"] == "gone mid-way"
    _, by_name = _stream_error_event(s, "plain", rest=False, v03=v03)
    assert by_name["code"] == -32004 and by_name["message"] == STREAM_ERROR_MESSAGE
    assert all(e["response"]["closed"] == "complete" for e in s.journal)


@pytest.mark.parametrize("v03", [False, True], ids=["1.0", "0.3"])
def test_stream_error_serves_code_and_message_as_written_rest(lab: MakeLab, v03: bool) -> None:
    """HTTP+JSON: 0.3 bodies carry the JSON-RPC code; 1.0 bodies are google.rpc.Status (code: the HTTP status)."""
    s = lab(STREAM_ERRORS)
    name, custom = _stream_error_event(s, "custom", rest=True, v03=v03)
    assert name == "error"
    if v03:
        assert custom == {"message": "the model backend fell over", "code": -31999}
    else:
        assert custom["error"]["message"] == "the model backend fell over" and custom["error"]["code"] == 500
    _, named = _stream_error_event(s, "named", rest=True, v03=v03)
    if v03:
        assert named == {"message": "gone mid-way", "code": -32001}
    else:
        assert named["error"]["message"] == "gone mid-way"
        assert named["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"
    _, by_name = _stream_error_event(s, "plain", rest=True, v03=v03)
    assert (by_name if v03 else by_name["error"])["message"] == STREAM_ERROR_MESSAGE
    assert all(e["response"]["closed"] == "complete" for e in s.journal)


def test_status_first_and_final_snapshot(lab: MakeLab) -> None:
    s = lab(STREAMS)
    results = [e["result"] for e in data_events(stream(s, "status-first").text)]
    assert kinds(results) == ["status:SUBMITTED", "status:WORKING", "artifactUpdate", "status:COMPLETED", "task"]
    assert results[-1]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_stream_with_a_direct_message(lab: MakeLab) -> None:
    s = lab(STREAMS)
    results = [e["result"] for e in data_events(stream(s, "direct").text)]
    assert len(results) == 1 and results[0]["message"]["parts"] == [{"text": "a direct answer"}]


def test_v03_stream_of_a_resumed_task(lab: MakeLab) -> None:
    s = lab("task: {steps: [SUBMITTED, INPUT_REQUIRED, WORKING, COMPLETED]}\n")
    first = [e["result"] for e in data_events(s.rpc("message/stream", {"message": message03("go")}, version=None).text)]
    assert [(e["kind"], e.get("final")) for e in first] == [("task", None), ("status-update", True)]
    assert first[-1]["status"]["state"] == "input-required"
    task_id = first[0]["id"]
    follow = message03("more", message_id="m-2", taskId=task_id)
    second = [e["result"] for e in data_events(s.rpc("message/stream", {"message": follow}, version=None).text)]
    assert [e["kind"] for e in second] == ["task", "status-update", "artifact-update", "status-update"]
    assert [(e["status"]["state"], e["final"]) for e in second if e["kind"] == "status-update"] == [
        ("working", False),
        ("completed", True),
    ]


def test_streaming_needs_the_capability(lab: MakeLab) -> None:
    s = lab(caps="{streaming: false}")
    body = rpc_body(s.rpc("SendStreamingMessage", {"message": message()}))
    assert body["error"]["code"] == -32004


# ==================================================================================== authentication


def test_bearer_auth(lab: MakeLab) -> None:
    s = lab("auth: {bearer: letmein}\n")
    assert s.http.get("/.well-known/agent-card.json").status_code == 200  # the card stays public
    r = s.send()
    assert r.status_code == 401 and r.json()["error"]["code"] == -32010
    wrong = s.http.post(
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}},
        headers={**V1, "Authorization": "Bearer nope"},
    )
    assert wrong.status_code == 401 and "not valid" in wrong.json()["error"]["message"]
    ok = s.http.post(
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}},
        headers={**V1, "Authorization": "Bearer letmein"},
    )
    assert rpc_body(ok)["result"]["task"]
    assert "letmein" not in json.dumps(s.journal)


# ==================================================================================== push delivery


class Webhook:
    """A real receiver on loopback: records each POST; `done` is set when `expected` have arrived."""

    def __init__(self, expected: int, status: int = 204) -> None:
        self.expected, self.status = expected, status
        self.received: list[dict[str, Any]] = []
        self.done = threading.Event()
        self._lock = threading.Lock()
        self.server = BackgroundServer(Starlette(routes=[Route("/hook", self._hook, methods=["POST"])])).start()
        self.url = f"{self.server.url}/hook"

    async def _hook(self, request: Request) -> Response:
        body = await request.body()
        with self._lock:
            self.received.append({"headers": dict(request.headers), "body": json.loads(body)})
            if len(self.received) >= self.expected:
                self.done.set()
        return Response(status_code=self.status)

    def wait(self, timeout: float = 10) -> list[dict[str, Any]]:
        assert self.done.wait(timeout), f"only {len(self.received)} of {self.expected} deliveries arrived"
        with self._lock:
            return list(self.received)


@pytest.fixture
def webhook() -> Iterator[Callable[..., Webhook]]:
    made: list[Webhook] = []

    def _make(expected: int, status: int = 204) -> Webhook:
        hook = Webhook(expected, status)
        made.append(hook)
        return hook

    yield _make
    for hook in made:
        hook.server.stop()


def test_push_delivery_for_an_inline_config(lab: MakeLab, webhook: Callable[..., Webhook]) -> None:
    hook = webhook(3)
    s = lab()
    config = {"url": hook.url, "token": "tok-1", "authentication": {"scheme": "Bearer", "credentials": "push-secret"}}
    task = rpc_body(
        s.rpc("SendMessage", {"message": message("pushed"), "configuration": {"taskPushNotificationConfig": config}})
    )["result"]["task"]
    got = hook.wait()
    assert len(got) == 3
    for delivery in got:
        assert delivery["headers"]["authorization"] == "Bearer push-secret"
        assert delivery["headers"]["content-type"] == "application/a2a+json"
        assert delivery["headers"]["x-a2a-notification-token"] == "tok-1"
        (kind,) = delivery["body"]  # a StreamResponse holds exactly one member
        assert delivery["body"][kind]["taskId"] == task["id"]
    bodies = [d["body"] for d in got]
    assert [next(iter(b)) for b in bodies] == ["statusUpdate", "artifactUpdate", "statusUpdate"]
    assert [b["statusUpdate"]["status"]["state"] for b in bodies if "statusUpdate" in b] == [
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
    ]
    assert bodies[1]["artifactUpdate"]["artifact"]["parts"] == [{"text": "echo: pushed"}]
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert len(pushes) == 3 and all(e["headers"]["authorization"] == "Bearer <redacted>" for e in pushes)
    assert all(e["headers"]["x-a2a-notification-token"] == "<redacted>" for e in pushes)
    assert "push-secret" not in json.dumps(pushes)


def test_push_delivery_for_a_created_config_as_the_task_moves(lab: MakeLab, webhook: Callable[..., Webhook]) -> None:
    hook = webhook(2)
    # A webhook makes a task that moves on GetTask move by itself (one step per follow_ms): slow that down to a minute
    # so that only this test's GetTask and CancelTask move it.
    s = lab("task: {advance: {get_task: 1, follow_ms: 60000}}\n")
    task = rpc_body(s.rpc("SendMessage", {"message": message("later"), "configuration": {"returnImmediately": True}}))[
        "result"
    ]["task"]
    cfg = rpc_body(
        s.rpc(
            "CreateTaskPushNotificationConfig",
            {"taskId": task["id"], "url": hook.url, "authentication": {"scheme": "Bearer", "credentials": "c2"}},
        )
    )["result"]
    assert cfg["taskId"] == task["id"] and cfg["id"]
    assert rpc_body(s.rpc("GetTask", {"id": task["id"]}))["result"]["status"]["state"] == "TASK_STATE_WORKING"
    assert rpc_body(s.rpc("CancelTask", {"id": task["id"]}))["result"]["status"]["state"] == "TASK_STATE_CANCELED"
    got = hook.wait()
    assert [d["body"]["statusUpdate"]["status"]["state"] for d in got] == ["TASK_STATE_WORKING", "TASK_STATE_CANCELED"]
    assert all(d["headers"]["authorization"] == "Bearer c2" for d in got)


def test_push_delivery_for_a_v03_config_posts_the_task(lab: MakeLab, webhook: Callable[..., Webhook]) -> None:
    hook = webhook(3)
    s = lab()
    config = {"url": hook.url, "authentication": {"schemes": ["Bearer"], "credentials": "old-secret"}}
    rpc_body(
        s.rpc(
            "message/send",
            {"message": message03("legacy"), "configuration": {"pushNotificationConfig": config}},
            version=None,
        )
    )
    got = hook.wait()
    assert all(
        d["headers"]["authorization"] == "Bearer old-secret" and d["headers"]["content-type"] == "application/json"
        for d in got
    )
    assert all(d["body"]["kind"] == "task" for d in got)
    assert got[-1]["body"]["status"]["state"] == "completed"
    assert got[-1]["body"]["artifacts"][0]["parts"] == [{"kind": "text", "text": "echo: legacy"}]


def test_malformed_webhook_is_refused_and_other_hosts_are_never_called(lab: MakeLab) -> None:
    s = lab()
    for url in ("ftp://127.0.0.1/x", "not a url", "http:///nohost"):
        inline = rpc_body(
            s.rpc("SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": {"url": url}}})
        )
        assert inline["error"]["code"] == -32602, url
    assert s.app.state.engine.tasks == {}, "a refused SendMessage leaves no task behind"
    # A config for another host is stored (CRUD works), but deliveries to it are refused (SSRF, §13.2).
    answer = rpc_body(
        s.rpc(
            "SendMessage",
            {"message": message(), "configuration": {"taskPushNotificationConfig": {"url": "http://10.1.2.3/hook"}}},
        )
    )
    task = answer["result"]["task"]
    stored = rpc_body(
        s.rpc("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": "http://192.168.1.1/hook"})
    )
    assert stored["result"]["url"] == "http://192.168.1.1/hook"
    assert s.app.state.journal.wait_for(lambda entries: any(e["kind"] == "push" and "response" in e for e in entries))
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert pushes and all("neither loopback" in e["response"]["refused"] for e in pushes), "nothing was ever sent"


def test_a_webhook_url_with_userinfo_is_refused_naming_the_field(lab: MakeLab, webhook: Callable[..., Webhook]) -> None:
    """Issue 28 item 7: `http://u:pw@host/x` made httpx send `Authorization: Basic dTpwdw==` in place of the config's
    Bearer, while the journal said Bearer. Now the config is refused as invalid params naming `url` and why (never
    quoting the userinfo), inline and created alike, and nothing is ever sent to it."""
    hook = webhook(1)
    s = lab()
    with_userinfo = hook.url.replace("://", "://hookuser:hookpw@", 1)
    config = {"url": with_userinfo, "authentication": {"scheme": "Bearer", "credentials": "push-secret"}}
    inline = rpc_body(
        s.rpc("SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": config}})
    )
    error = inline["error"]
    assert error["code"] == -32602 and "webhook url refused: it carries userinfo" in error["message"], error
    assert "authentication" in error["message"] and "hookpw" not in json.dumps(inline)
    assert s.app.state.engine.tasks == {}, "a refused SendMessage leaves no task behind"
    task = rpc_body(s.rpc("SendMessage", {"message": message(), "configuration": {"returnImmediately": True}}))
    created = rpc_body(s.rpc("CreateTaskPushNotificationConfig", {"taskId": task["result"]["task"]["id"], **config}))
    assert created["error"]["code"] == -32602 and "userinfo" in created["error"]["message"], created
    assert not [e for e in s.journal if e["kind"] == "push"] and not hook.received, "nothing was sent"


def test_the_journal_records_the_headers_a_delivery_sent(lab: MakeLab, webhook: Callable[..., Webhook]) -> None:
    """Each push entry's headers are the ones the webhook received (httpx's own among them: Host, User-Agent,
    Content-Length), credentials redacted, not the ones the server meant to send."""
    hook = webhook(3)
    s = lab()
    config = {"url": hook.url, "token": "tok-1", "authentication": {"scheme": "Bearer", "credentials": "push-secret"}}
    rpc_body(s.rpc("SendMessage", {"message": message(), "configuration": {"taskPushNotificationConfig": config}}))
    got = hook.wait()
    pushes = [e for e in s.journal if e["kind"] == "push"]
    assert len(pushes) == len(got) == 3
    hidden = {"authorization": "Bearer <redacted>", "x-a2a-notification-token": "<redacted>"}
    for entry, delivery in zip(pushes, got, strict=True):
        assert entry["headers"] == {**delivery["headers"], **hidden}, (entry["headers"], delivery["headers"])
        assert {"host", "user-agent", "content-length"} <= entry["headers"].keys()


def test_push_allow_list(lab: MakeLab) -> None:
    s = lab("push: {allow: [hooks.internal]}\n")
    task = rpc_body(s.send())["result"]["task"]
    ok = rpc_body(s.rpc("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": "https://hooks.internal/x"}))
    assert ok["result"]["url"] == "https://hooks.internal/x"


def test_push_needs_the_capability(lab: MakeLab) -> None:
    s = lab(caps="{streaming: true, pushNotifications: false}")
    inline = rpc_body(
        s.rpc(
            "SendMessage",
            {"message": message(), "configuration": {"taskPushNotificationConfig": {"url": "http://127.0.0.1:9/"}}},
        )
    )
    assert (
        inline["error"]["code"] == -32003 and inline["error"]["data"][0]["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"
    )
    assert s.app.state.engine.tasks == {}


# ======================================================================== subscriptions, cards, extended cards, hosting


def test_subscribe_to_an_interrupted_task_stays_open_until_terminal(lab: MakeLab) -> None:
    """§3.1.6: a subscription ends when the task becomes terminal, so it outlives INPUT_REQUIRED."""
    import threading

    s = lab("task: {steps: [SUBMITTED, INPUT_REQUIRED, COMPLETED]}\n")
    task = rpc_body(s.send())["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    subscribed = threading.Event()
    states: list[str] = []

    def subscriber() -> None:
        body = {"jsonrpc": "2.0", "id": 7, "method": "SubscribeToTask", "params": {"id": task["id"]}}
        with s.http.stream("POST", RPC_PATH, json=body, headers=V1) as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    event = json.loads(line[5:])["result"]
                    if "task" in event or "statusUpdate" in event:
                        states.append((event.get("task") or event.get("statusUpdate"))["status"]["state"])
                    subscribed.set()

    reader = threading.Thread(target=subscriber)
    reader.start()
    assert subscribed.wait(10)
    answer = {"messageId": "m2", "role": "ROLE_USER", "parts": [{"text": "Paris"}], "taskId": task["id"]}
    assert (
        rpc_body(s.rpc("SendMessage", {"message": answer}))["result"]["task"]["status"]["state"]
        == "TASK_STATE_COMPLETED"
    )
    reader.join(10)
    assert not reader.is_alive() and states == ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]


def test_card_options(tmp_path: Path) -> None:
    text = """\
title: card options
description: d
spec: s
card:
  object: {name: padded, url: "{base_url}/a2a", protocolVersion: "0.3.0"}
  cache_control: no-store
  etag: false
  pad_to: 4096
  legacy: serve
"""
    served = Lab(load_file(write_scenario(tmp_path, text)))
    try:
        r = served.http.get("/.well-known/agent-card.json")
        assert (
            r.status_code == 200
            and len(r.content) == 4096
            and r.headers["cache-control"] == "no-store"
            and "etag" not in r.headers
        )
        assert r.json()["url"] == f"{served.url}/a2a"
        assert served.http.get("/.well-known/agent.json").json()["name"] == "padded"
    finally:
        served.close()
    raw = """\
title: raw card
description: d
spec: s
card:
  raw: '{"name": "raw", "url": "{base_url}/x",'
  content_type: text/plain
  well_known: {status: 500, body: "<h1>down</h1>", content_type: text/html}
  legacy: serve
"""
    served = Lab(load_file(write_scenario(tmp_path, raw, "raw.yaml")))
    try:
        down = served.http.get("/.well-known/agent-card.json")
        assert down.status_code == 500 and down.text == "<h1>down</h1>"
        broken = served.http.get("/.well-known/agent.json")
        assert (
            broken.headers["content-type"] == "text/plain"
            and broken.text == f'{{"name": "raw", "url": "{served.url}/x",'
        )
    finally:
        served.close()


def test_a_padded_card_is_its_object_with_the_padding_field_encoded(tmp_path: Path) -> None:
    """The padding is spliced into the encoded card: the same bytes as encoding the object with its padding field
    last, also when the card holds text JSON escapes; a card already longer than pad_to is left as it is."""
    text = """\
title: padded card
description: d
spec: s
card:
  object: {name: "padded \\"card\\" \u2603", url: "{base_url}/a2a", protocolVersion: "0.3.0"}
  pad_to: 5000
"""
    scenario = load_file(write_scenario(tmp_path, text))
    body = render_card(scenario, "http://127.0.0.1:1")
    doc = json.loads(body)
    assert len(body) == 5000 and list(doc)[-1] == PAD_FIELD and set(doc[PAD_FIELD]) == {"x"}
    assert doc["name"] == 'padded "card" \u2603' and doc["url"] == "http://127.0.0.1:1/a2a"
    assert body == json.dumps(doc, separators=(",", ":")).encode()
    short = load_file(write_scenario(tmp_path, text.replace("pad_to: 5000", "pad_to: 20"), "short.yaml"))
    assert PAD_FIELD not in json.loads(render_card(short, "http://127.0.0.1:1"))


def test_extended_card_needs_the_capability_and_a_configured_card(lab: MakeLab) -> None:
    s = lab(
        "extended_card: {name: secret agent, url: '{base_url}/x'}\nauth: {bearer: t0k, scope: extended_card}\n",
        caps="{streaming: true, extendedAgentCard: true}",
    )
    assert rpc_body(s.send())["result"]["task"], "scope extended_card leaves other operations open"
    assert s.rpc("GetExtendedAgentCard").status_code == 401
    ok = s.http.post(
        RPC_PATH,
        json={"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"},
        headers={**V1, "Authorization": "Bearer t0k"},
    )
    assert rpc_body(ok)["result"] == {"name": "secret agent", "url": f"{s.url}/x"}
    rest = s.http.get(f"{REST_PATH}/extendedAgentCard", headers={**V1, "Authorization": "Bearer t0k"})
    assert rest.status_code == 200 and rest.json()["name"] == "secret agent"
    unconfigured = lab(caps="{extendedAgentCard: true}", name="unconfigured.yaml")
    assert rpc_body(unconfigured.rpc("GetExtendedAgentCard"))["error"]["code"] == -32007
    undeclared = lab(caps="{streaming: true}", name="undeclared.yaml")
    assert rpc_body(undeclared.rpc("GetExtendedAgentCard"))["error"]["code"] == -32004


def test_connections_have_no_nagle_delay() -> None:
    """Answers are written in two pieces (headers, body); without TCP_NODELAY each waits ~40 ms for an ACK."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        sock = scope["extensions"][TRANSPORT_KEY].get_extra_info("socket")
        flag = str(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)).encode()
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(flag)).encode())]}
        )
        await send({"type": "http.response.body", "body": flag})

    with BackgroundServer(app) as server, client(server.url) as http:
        assert http.get("/").text == "1"


def test_stream_limit_refuses_more_streams_than_allowed(tmp_path) -> None:
    """limits.streams bounds concurrent streams; the refusal is a protocol error, not a 5xx, and the count recovers."""
    import httpx as _httpx

    from a2a_lab.contract.loader import load_file
    from a2a_lab.server.app import ScenarioApp
    from a2a_lab.server.hosting import BackgroundServer

    path = tmp_path / "limited.yaml"
    path.write_text(
        "title: t\ndescription: d\nspec: s\nlimits: {streams: 1}\n"
        "card:\n  object:\n    name: n\n    description: d\n    version: '1'\n"
        "    supportedInterfaces: [{url: '{base_url}/a2a', protocolBinding: JSONRPC, protocolVersion: '1.0'}]\n"
        "    capabilities: {streaming: true}\n    defaultInputModes: [text/plain]\n"
        "    defaultOutputModes: [text/plain]\n    skills: []\n"
        "task: {steps: [SUBMITTED, WORKING, COMPLETED]}\n"
        "behaviour:\n  SendStreamingMessage:\n    - reply: {stream: {interval_ms: 200}}\n",
        encoding="utf-8",
    )
    app = ScenarioApp(load_file(path, "lab/limited"))
    msg = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": msg}}
    with BackgroundServer(app) as srv, _httpx.Client(base_url=srv.url, timeout=10, trust_env=False) as http:
        with http.stream("POST", "/a2a", json=body, headers={"A2A-Version": "1.0"}) as first:
            lines = first.iter_lines()
            assert next(lines).startswith("data:")  # the first stream is open
            second = http.post("/a2a", json={**body, "id": 2}, headers={"A2A-Version": "1.0"})
            assert second.status_code == 200 and second.json()["error"]["code"] == -32004
            assert "limit 1" in second.json()["error"]["message"]
            list(lines)  # let the first stream finish
        assert app.state.open_streams == 0
        with http.stream("POST", "/a2a", json={**body, "id": 3}, headers={"A2A-Version": "1.0"}) as third:
            assert any('"TASK_STATE_COMPLETED"' in line for line in third.iter_lines())
