"""The faults/ scenarios: each behaves as its description says over real HTTP, a correct client passes it, and a
defective one misses the check the scenario names (run through the real harness with the action client)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.common.model import Outcome, ScenarioResult

from .action_runs import Case, Miss, assert_misses, assert_passes, case, group_ids, message, rpc_json

V1 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
#: A careful client: a read timeout of a few seconds and two bounded retries of a transient failure.
CAREFUL = ("--read-timeout", "3", "--retries", "2")
#: The never-answers scenario with a short timeout for the test: a 1 s read timeout gives up in time.
NEVER = "faults/never-answers"
NEVER_TIMEOUT = 4.0

CORRECT = {
    "faults/latency": case("faults/latency", *CAREFUL),
    NEVER: case(NEVER, "--read-timeout", "1", timeout=NEVER_TIMEOUT),
    "faults/connection-reset": case("faults/connection-reset", *CAREFUL),
    "faults/truncated-body": case("faults/truncated-body", *CAREFUL),
    "faults/slow-drip": case("faults/slow-drip", *CAREFUL),
    "faults/first-call-internal-error": case("faults/first-call-internal-error", *CAREFUL),
    "faults/first-calls-503": case("faults/first-calls-503", *CAREFUL),
}
#: Correct too: a client that does not retry reports the transient error, which these scenarios accept.
NO_RETRY = {
    "faults/first-call-internal-error": case("faults/first-call-internal-error"),
    "faults/first-calls-503": case("faults/first-calls-503"),
}
MISSES = [
    # A sub-second deadline throws a good (slow) answer away.
    Miss(case("faults/latency", "--deadline", "1"), "RESULT-EXPECTED", says="kind: task"),
    Miss(case("faults/slow-drip", "--deadline", "1"), "RESULT-EXPECTED", says="kind: task"),
    # No timeout at all: the client hangs until the harness stops it. The hang is the scenario's subject, judged by
    # GIVES-UP (a SHOULD by the spec's advice), so the scenario is NON_STRICT, not TIMEOUT.
    Miss(
        case(NEVER, "--read-timeout", "0", timeout=NEVER_TIMEOUT),
        "GIVES-UP",
        Outcome.NON_STRICT,
        Outcome.NON_STRICT,
        "still waiting",
    ),
    Miss(
        case(NEVER, "--read-timeout", "0", timeout=NEVER_TIMEOUT),
        "RESULT-EXPECTED",
        Outcome.UNIMPLEMENTED,
        Outcome.NON_STRICT,
    ),
    # Swallowing the failure and claiming a completed task.
    Miss(case("faults/connection-reset", "--optimistic"), "RESULT-MATCHES", says="never gave"),
    Miss(case("faults/connection-reset", "--optimistic"), "RESULT-EXPECTED", says="kind: error"),
    Miss(case("faults/truncated-body", "--optimistic"), "RESULT-MATCHES", says="never gave"),
    Miss(case("faults/first-call-internal-error", "--optimistic"), "RESULT-MATCHES", says="never gave"),
    Miss(case("faults/first-calls-503", "--optimistic"), "RESULT-MATCHES", says="never gave"),
]


@pytest.fixture(scope="module")
def outcomes(catalogue: Catalogue) -> dict[Case, ScenarioResult]:
    from .action_runs import run_cases

    return run_cases(catalogue, [*CORRECT.values(), *NO_RETRY.values(), *(m.case for m in MISSES)])


def test_every_faults_scenario_is_covered(catalogue: Catalogue) -> None:
    ours = {
        "faults/latency",
        NEVER,
        "faults/connection-reset",
        "faults/truncated-body",
        "faults/slow-drip",
        "faults/first-call-internal-error",
        "faults/first-calls-503",
    }
    assert ours <= group_ids(catalogue, "faults")
    assert set(CORRECT) == ours and {m.case.scenario for m in MISSES} == ours
    for sid in ours:
        s = catalogue.get(sid)
        assert s.checks and (s.spec or s.observed) and s.expect.stated, sid


@pytest.mark.parametrize("scenario", sorted(CORRECT))
def test_a_correct_client_passes(scenario: str, outcomes: dict[Case, ScenarioResult]) -> None:
    assert_passes(outcomes[CORRECT[scenario]])


@pytest.mark.parametrize("scenario", sorted(NO_RETRY))
def test_a_client_that_does_not_retry_reports_the_error_and_passes(
    scenario: str, outcomes: dict[Case, ScenarioResult]
) -> None:
    result = outcomes[NO_RETRY[scenario]]
    assert_passes(result)
    assert result.client is not None and result.client.result is not None and result.client.result["kind"] == "error"


def test_the_retrying_client_reports_the_completed_task(outcomes: dict[Case, ScenarioResult]) -> None:
    for sid in NO_RETRY:
        result = outcomes[CORRECT[sid]]
        assert result.client is not None and result.client.result is not None
        assert result.client.result["kind"] == "task" and result.client.result["state"] == "TASK_STATE_COMPLETED", sid
        sends = [e for e in result.journal if e.get("operation") == "SendMessage"]
        ids = {json.loads(e["body"]["text"])["params"]["message"]["messageId"] for e in sends}
        assert len(sends) >= 2 and len(ids) == 1, "a retry resends the same message, messageId included"


def test_the_correct_client_gives_up_on_silence_by_itself(outcomes: dict[Case, ScenarioResult]) -> None:
    result = outcomes[CORRECT[NEVER]]
    assert result.client is not None and not result.client.timed_out and result.client.duration < NEVER_TIMEOUT


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_a_defective_client_misses_the_named_check(
    miss: Miss, outcomes: dict[Case, ScenarioResult], catalogue: Catalogue
) -> None:
    assert miss.check in catalogue.get(miss.case.scenario).checks, "the scenario names the check it exercises"
    assert_misses(miss, outcomes[miss.case])


# ==================================================================================== behaviour over real HTTP


def send(served, text: str = "hi", timeout: float | None = None) -> httpx.Response:
    extra = {"timeout": timeout} if timeout is not None else {}
    return served.http.post("/a2a", content=rpc_json("SendMessage", {"message": message(text)}), headers=V1, **extra)


def test_latency_answers_a_completed_task_after_1_5_s(serve: Callable) -> None:
    s = serve("faults/latency")
    started = time.monotonic()
    body = send(s, "think").json()
    assert time.monotonic() - started >= 1.45
    task = body["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and task["artifacts"][0]["parts"] == [
        {"text": "after some thought: think"}
    ]
    assert s.journal[-1]["response"]["delay_ms"] == 1500
    with pytest.raises(httpx.ReadTimeout):
        send(s, timeout=0.3)  # an impatient client gets nothing


def test_never_answers_stalls_until_the_client_gives_up(serve: Callable) -> None:
    s = serve(NEVER)
    assert s.http.get("/.well-known/agent-card.json").status_code == 200, "the card is fine"
    assert s.app.scenario.timeout == 40, "past the 30 s the spec advises: a client that follows it gives up by itself"
    started = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        send(s, timeout=0.5)
    assert time.monotonic() - started < 3
    entry = [e for e in s.journal if e.get("operation") == "SendMessage"][-1]
    assert entry["response"]["fault"] == "stall"


def test_connection_reset_on_every_send(serve: Callable) -> None:
    s = serve("faults/connection-reset")
    for _ in range(2):
        with pytest.raises(httpx.TransportError):
            send(s)
    sends = [e for e in s.journal if e.get("operation") == "SendMessage"]
    assert [e["response"]["fault"] for e in sends] == ["reset", "reset"]


def test_truncated_body_stops_after_40_bytes(serve: Callable) -> None:
    s = serve("faults/truncated-body")
    received = b""
    with (
        pytest.raises(httpx.TransportError),
        s.http.stream("POST", "/a2a", content=rpc_json("SendMessage", {"message": message()}), headers=V1) as r,
    ):
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        declared = int(r.headers["content-length"])
        for chunk in r.iter_raw():
            received += chunk
    assert len(received) <= 40 < declared
    assert received.startswith(b'{"jsonrpc":"2.0"')


def test_slow_drip_delivers_a_whole_answer_in_small_chunks_over_about_two_seconds(serve: Callable) -> None:
    s = serve("faults/slow-drip")
    chunks: list[bytes] = []
    started = time.monotonic()
    with s.http.stream(
        "POST", "/a2a", content=rpc_json("SendMessage", {"message": message("Slowly, please.")}), headers=V1
    ) as r:
        for chunk in r.iter_raw():
            chunks.append(chunk)
    took = time.monotonic() - started
    body = b"".join(chunks)
    assert took >= 1.5, took
    assert len(chunks) >= 5 and max(len(c) for c in chunks) <= 16 * 4, (
        "small pieces (a busy reader may find a few merged)"
    )
    task = httpx.Response(200, content=body).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and task["artifacts"][0]["parts"] == [
        {"text": "dripped: Slowly, please."}
    ]


def test_first_call_internal_error_then_completed_tasks(serve: Callable) -> None:
    s = serve("faults/first-call-internal-error")
    first = send(s).json()
    assert first["error"]["code"] == -32603 and "warming up" in first["error"]["message"]
    for _ in range(2):
        assert send(s).json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_first_two_calls_get_a_503_page_with_retry_after(serve: Callable) -> None:
    s = serve("faults/first-calls-503")
    for _ in range(2):
        r = send(s)
        assert (
            r.status_code == 503
            and r.headers["content-type"].startswith("text/html")
            and r.headers["retry-after"] == "1"
        )
        assert "503 Service Temporarily Unavailable" in r.text
    third = send(s, "now").json()
    assert third["result"]["task"]["artifacts"][0]["parts"] == [{"text": "through the gateway: now"}]
