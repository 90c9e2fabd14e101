"""Quirks reported in public trackers (issue 16 item 2): each scenario under scenarios/quirks/ cites its report, answers
as its description says over real HTTP, a correct client passes it, and the defect it exists for misses the named
check. Streaming quirks are proven with the action client (it streams when asked), the others with the fake client."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from . import action_runs, catalogue_runs
from .action_runs import Case, case, message, message03, rpc_json, sse_events
from .catalogue_runs import Run, defect, run

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
STREAM = {**V1, "Accept": "text/event-stream"}

#: Streaming quirks: the action client, correct, and the defect each exists for.
STREAMING = {
    "quirks/stream-as-ndjson": action_runs.Miss(case("quirks/stream-as-ndjson", "--sse-only"), "RESULT-EXPECTED"),
    "quirks/stream-events-without-jsonrpc-envelope": action_runs.Miss(
        case("quirks/stream-events-without-jsonrpc-envelope", "--lax-events"), "RESULT-EXPECTED", says="kind: error"
    ),
    "quirks/stream-error-as-plain-json": action_runs.Miss(
        case("quirks/stream-error-as-plain-json", "--sse-only"), "RESULT-EXPECTED", says="kind: error"
    ),
    "quirks/stream-empty-body": action_runs.Miss(
        case("quirks/stream-empty-body", "--sse-only"), "RESULT-EXPECTED", says="another state"
    ),
    "quirks/stream-multiline-data": action_runs.Miss(
        case("quirks/stream-multiline-data", "--naive-sse"), "FOLLOW-UP-TO-END", Outcome.NON_STRICT, Outcome.FAIL
    ),
}
#: The other quirks: the fake client, correct, and the defect each exists for.
PLAIN = {
    "quirks/missing-version-header-refused": catalogue_runs.Miss(
        defect("quirks/missing-version-header-refused", "no-header"), "VERSION-HEADER"
    ),
    "quirks/task-state-cancelled": catalogue_runs.Miss(
        defect("quirks/task-state-cancelled", "exact-states"), "POLL-BOUNDED", Outcome.NON_STRICT, "CANCELED"
    ),
    "quirks/card-redirected": catalogue_runs.Miss(defect("quirks/card-redirected", "no-redirects"), "RESULT-EXPECTED"),
    "quirks/unknown-request-fields-refused": catalogue_runs.Miss(
        defect("quirks/unknown-request-fields-refused", "v03-body-under-v1"), "BODY-SHAPE", says="kind"
    ),
    # The client that leaves the optional field out: the fake client's default (the correct run adds it).
    "quirks/accepted-output-modes-required": catalogue_runs.Miss(
        defect("quirks/accepted-output-modes-required", "assume-success"), "RESULT-EXPECTED", says="kind: 'message'"
    ),
    "quirks/v03-result-under-v1-method": catalogue_runs.Miss(
        defect("quirks/v03-result-under-v1-method", "wrapper-only", "--defect", "assume-success"),
        "RESULT-EXPECTED",
        says="kind: 'message'",
    ),
    "quirks/tenant-required-by-gateway": catalogue_runs.Miss(
        run("quirks/tenant-required-by-gateway", "--drop-tenant"), "TENANT"
    ),
    "quirks/interface-url-trailing-slash": catalogue_runs.Miss(
        defect("quirks/interface-url-trailing-slash", "strip-trailing-slash"),
        "URL-FROM-CARD",
        says="POST /agent/api/jsonrpc",
    ),
    "quirks/rate-limited-429": catalogue_runs.Miss(
        defect("quirks/rate-limited-429", "assume-success"), "RESULT-MATCHES", says="never gave"
    ),
    "quirks/history-length-ignored": catalogue_runs.Miss(
        defect("quirks/history-length-ignored", "history-reply"), "RESULT-MATCHES", says="not what the server sent"
    ),
    "quirks/gzip-compressed-answers": catalogue_runs.Miss(
        defect("quirks/gzip-compressed-answers", "ignore-content-encoding"), "INTERFACE-SELECTION", says="no A2A call"
    ),
}
#: More misses of the same scenarios.
MORE_PLAIN = [
    catalogue_runs.Miss(
        defect("quirks/missing-version-header-refused", "no-header", "--defect", "retry-loop"),
        "NO-RETRY-LOOP",
        says="5 repeats",
    ),
    catalogue_runs.Miss(
        defect("quirks/unknown-request-fields-refused", "v03-body-under-v1"), "RESULT-EXPECTED", says="kind: 'error'"
    ),
    catalogue_runs.Miss(
        run("quirks/tenant-required-by-gateway", "--drop-tenant"), "RESULT-EXPECTED", says="kind: 'error'"
    ),
    catalogue_runs.Miss(
        defect("quirks/gzip-compressed-answers", "ignore-content-encoding"), "RESULT-EXPECTED", says="kind: 'error'"
    ),
    catalogue_runs.Miss(
        defect("quirks/interface-url-trailing-slash", "strip-trailing-slash"), "RESULT-EXPECTED", says="kind: 'error'"
    ),
    catalogue_runs.Miss(defect("quirks/rate-limited-429", "assume-success"), "RESULT-EXPECTED", says="kind: 'message'"),
    catalogue_runs.Miss(
        defect("quirks/history-length-ignored", "history-reply"),
        "RESULT-EXPECTED",
        Outcome.NON_STRICT,
        says="answer is 42",
    ),
]
CORRECT_STREAMING = {sid: case(sid) for sid in STREAMING}
#: How a correct fake client runs each plain quirk (its default, or with what the quirk asks of it).
CORRECT_ARGS = {"quirks/accepted-output-modes-required": ("--accepted-output-modes",)}
CORRECT_PLAIN = {sid: run(sid, *CORRECT_ARGS.get(sid, ())) for sid in PLAIN}
#: A client that leaves the optional acceptedOutputModes out, is refused and reports the refusal: correct too.
REFUSED_AND_SAYS_SO = run("quirks/accepted-output-modes-required")


@pytest.fixture(scope="module")
def streaming(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    return action_runs.run_cases(catalogue, [*CORRECT_STREAMING.values(), *(m.case for m in STREAMING.values())])


@pytest.fixture(scope="module")
def plain(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    runs = [
        *CORRECT_PLAIN.values(),
        REFUSED_AND_SAYS_SO,
        *(m.run for m in PLAIN.values()),
        *(m.run for m in MORE_PLAIN),
    ]
    return catalogue_runs.run_cases(catalogue, runs)


def test_every_reported_quirk_cites_its_report_and_is_proven(catalogue: Catalogue) -> None:
    for sid in [*STREAMING, *PLAIN]:
        scenario = catalogue.get(sid)
        assert scenario.observed and "#" in str(scenario.observed.get("where")), f"{sid}: cite repo#number"
        assert scenario.checks and scenario.expect.stated, sid
    for sid, miss in STREAMING.items():
        assert miss.check in catalogue.get(sid).checks, sid
    for sid, pmiss in PLAIN.items():
        assert pmiss.check in catalogue.get(sid).checks, sid


@pytest.mark.parametrize("sid", sorted(STREAMING))
def test_a_correct_streaming_client_passes(sid: str, streaming: dict[Case, ScenarioResult]) -> None:
    action_runs.assert_passes(streaming[CORRECT_STREAMING[sid]])


@pytest.mark.parametrize("sid", sorted(STREAMING))
def test_the_streaming_defect_misses_the_named_check(sid: str, streaming: dict[Case, ScenarioResult]) -> None:
    miss = STREAMING[sid]
    action_runs.assert_misses(miss, streaming[miss.case])


@pytest.mark.parametrize("sid", sorted(PLAIN))
def test_a_correct_client_passes(sid: str, plain: dict[Run, ScenarioResult]) -> None:
    catalogue_runs.assert_passes(plain[CORRECT_PLAIN[sid]])


def test_leaving_the_optional_field_out_and_reporting_the_refusal_passes(plain: dict[Run, ScenarioResult]) -> None:
    """The server is at fault (the field is optional): a client that omits it is judged by what it concluded."""
    result = plain[REFUSED_AND_SAYS_SO]
    catalogue_runs.assert_passes(result)
    assert any(e.get("response", {}).get("status") == 400 for e in result.journal), "it was refused"


@pytest.mark.parametrize("miss", [*PLAIN.values(), *MORE_PLAIN], ids=str)
def test_the_defect_misses_the_named_check(miss: catalogue_runs.Miss, plain: dict[Run, ScenarioResult]) -> None:
    catalogue_runs.assert_misses(miss, plain[miss.run])


def test_the_multiline_client_followed_the_task_up(streaming: dict[Case, ScenarioResult]) -> None:
    ops = [e.get("operation") for e in streaming[CORRECT_STREAMING["quirks/stream-multiline-data"]].journal]
    assert "SendStreamingMessage" in ops and "GetTask" in ops


# ------------------------------------------------------------------------------------ served as described


def _stream(served: Any, text: str = "hi") -> httpx.Response:
    body = rpc_json("SendStreamingMessage", {"message": message(text)}, req_id=9)
    return served.http.post("/a2a", content=body, headers=STREAM)


def test_ndjson_stream(serve: Callable[[str], Any]) -> None:
    resp = _stream(serve("quirks/stream-as-ndjson"))
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in resp.text.splitlines()]
    assert all(line["jsonrpc"] == "2.0" and line["id"] == 9 for line in lines)
    assert "task" in lines[0]["result"]
    assert lines[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "data:" not in resp.text


def test_bare_stream_events(serve: Callable[[str], Any]) -> None:
    resp = _stream(serve("quirks/stream-events-without-jsonrpc-envelope"))
    assert resp.headers["content-type"].startswith("text/event-stream")
    events = [e.data for e in sse_events(resp.text.splitlines()) if e.data is not None]
    assert next(iter(events[0])) == "task" and all("jsonrpc" not in e and "result" not in e for e in events)


def test_pre_stream_error_is_plain_json(serve: Callable[[str], Any]) -> None:
    resp = _stream(serve("quirks/stream-error-as-plain-json"))
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("application/json")
    assert resp.json()["error"]["code"] == -32004


def test_multiline_events_are_one_event_each(serve: Callable[[str], Any]) -> None:
    resp = _stream(serve("quirks/stream-multiline-data"))
    data_lines = [line for line in resp.text.splitlines() if line.startswith("data:")]
    events = [e.data for e in sse_events(resp.text.splitlines()) if e.data is not None]
    assert len(data_lines) > 3 * len(events), "each event spans several data: lines"
    states = [e["result"]["statusUpdate"]["status"]["state"] for e in events if "statusUpdate" in e["result"]]
    assert "task" in events[0]["result"] and "TASK_STATE_COMPLETED" not in states


def test_missing_version_header_is_refused(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/missing-version-header-refused")
    body = rpc_json("SendMessage", {"message": message()})
    refused = served.http.post("/a2a", content=body, headers={"Content-Type": "application/json"}).json()
    assert refused["error"]["code"] == -32009
    ok = served.http.post("/a2a", content=body, headers=V1).json()
    assert ok["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_cancelled_spelling(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/task-state-cancelled")
    sent = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}, 4), headers=V1).json()
    assert sent["id"] == 4 and sent["result"]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    got = served.http.post("/a2a", content=rpc_json("GetTask", {"id": "job-7"}, 5), headers=V1).json()
    assert got["id"] == 5 and got["result"]["status"]["state"] == "TASK_STATE_CANCELLED"


def test_card_redirect(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/card-redirected")
    moved = served.http.get("/.well-known/agent-card.json")
    assert moved.status_code == 308 and moved.headers["location"] == "/.well-known/agent.json"
    assert served.http.get(moved.headers["location"]).json()["name"] == "redirected-card agent"


def test_unknown_request_fields_are_refused(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/unknown-request-fields-refused")
    kinded = {**message(), "parts": [{"kind": "text", "text": "hi"}]}
    refused = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": kinded}), headers=V1).json()
    assert refused["error"]["code"] == -32602
    assert 'has no field named "kind"' in refused["error"]["message"]
    ok = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1).json()
    assert ok["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_accepted_output_modes_are_required(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/accepted-output-modes-required")
    plain = {"Content-Type": "application/json"}
    bare = served.http.post("/a2a", content=rpc_json("message/send", {"message": message03()}), headers=plain)
    assert bare.status_code == 400 and bare.json()["error"]["code"] == -32602
    assert "acceptedOutputModes" in bare.json()["error"]["message"]
    told = {"message": message03(message_id="m-2"), "configuration": {"acceptedOutputModes": ["text/plain"]}}
    ok = served.http.post("/a2a", content=rpc_json("message/send", told), headers=plain)
    assert ok.status_code == 200 and ok.json()["result"]["status"]["state"] == "completed"


def test_v1_method_answered_in_v03_form(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/v03-result-under-v1-method")
    answer = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}, "r-7"), headers=V1)
    result = answer.json()["result"]
    assert answer.json()["id"] == "r-7" and result["kind"] == "task" and "task" not in result
    assert result["status"]["state"] == "completed"


def test_tenant_is_required(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/tenant-required-by-gateway")
    refused = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1).json()
    assert refused["error"]["code"] == -32602 and "tenant" in refused["error"]["message"]
    routed = {"message": message(message_id="m-2"), "tenant": "team-blue"}
    ok = served.http.post("/a2a", content=rpc_json("SendMessage", routed), headers=V1).json()
    assert ok["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_answers_are_gzip_compressed(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/gzip-compressed-answers")
    gzip = {"Accept-Encoding": "gzip"}
    card = served.http.get("/.well-known/agent-card.json", headers=gzip)
    assert card.headers["content-encoding"] == "gzip" and card.json()["name"] == "agent behind a gzip middleware"
    sent = served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message()}), headers={**V1, **gzip})
    assert sent.headers["content-encoding"] == "gzip"
    assert sent.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    plain = served.http.get("/.well-known/agent-card.json", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.json() == card.json()


def test_only_the_exact_interface_url_answers(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/interface-url-trailing-slash")
    body = rpc_json("SendMessage", {"message": message()})
    assert served.http.post("/agent/api/jsonrpc", content=body, headers=V1).status_code == 404
    ok = served.http.post("/agent/api/jsonrpc/", content=body, headers=V1).json()
    assert ok["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_rate_limited_first_call(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/rate-limited-429")
    body = rpc_json("SendMessage", {"message": message()})
    limited = served.http.post("/a2a", content=body, headers=V1)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "1" and "jsonrpc" not in limited.json()
    again = served.http.post("/a2a", content=body, headers=V1).json()
    assert again["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_history_length_is_ignored(serve: Callable[[str], Any]) -> None:
    served = serve("quirks/history-length-ignored")
    asked = {"message": message(), "configuration": {"historyLength": 1}}
    task = served.http.post("/a2a", content=rpc_json("SendMessage", asked), headers=V1).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and len(task["history"]) > 1
    assert task["history"][0]["role"] == "ROLE_USER"
    got = served.http.post("/a2a", content=rpc_json("GetTask", {"id": task["id"], "historyLength": 0}), headers=V1)
    assert got.json()["result"]["history"] == task["history"]


def test_empty_stream(serve: Callable[[str], Any]) -> None:
    resp = _stream(serve("quirks/stream-empty-body"))
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
    assert resp.content == b""
