"""One judging of a server's answers (harness/server_judging/probe/judging.py): the probe, which makes its calls, and
the proxy, which watches calls pass, give the same verdict on the same answers. Here the probe itself is the client
behind the proxy, so both judges read the very same bytes; each row names a check that a server passes or breaks and the
outcome both must give (rows where the proxy's own copy of the judging used to disagree with the probe's)."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_lab.harness.common.model import Outcome
from a2a_lab.harness.proxy import session
from a2a_lab.harness.proxy.verdict import SERVER_ID, verdict
from a2a_lab.harness.server_judging.probe.runner import ProbeOptions, probe

#: The follow-up's polite waits are skipped: the verdicts, not the pacing, are under test.
FAST = ProbeOptions(timeout=10, sleep=lambda _: None, polls=2)
_RANK = {Outcome.FAIL: 3, Outcome.NON_STRICT: 2, Outcome.PASS: 1}

ROWS = [
    ("spec/conformant", "SEND-MESSAGE", Outcome.PASS),
    ("spec/conformant", "ERROR-ENVELOPE", Outcome.PASS),
    ("spec/conformant", "VERSION-NEGOTIATION", Outcome.PASS),
    ("spec/conformant", "STREAMING", Outcome.PASS),
    # a JSON-RPC answer with another id than the request's is no answer to it (JSON-RPC 2.0 §5)
    ("errors/wrong-response-id", "SEND-MESSAGE", Outcome.FAIL),
    # a 0.3 result under the 1.0 method: a task all the same (SEND-MESSAGE), in the wrong form (RESPONSE-SHAPE)
    ("quirks/v03-result-under-v1-method", "SEND-MESSAGE", Outcome.PASS),
    ("quirks/v03-result-under-v1-method", "RESPONSE-SHAPE", Outcome.FAIL),
    # served as 1.0 a request that asked no version: TaskNotFound for the unknown id (§3.6.2)
    ("personas/a2a-js-1.3", "VERSION-NEGOTIATION", Outcome.FAIL),
    # refused, but not with VersionNotSupportedError
    ("errors/card-1.0-wire-0.3", "VERSION-NEGOTIATION", Outcome.NON_STRICT),
    # the refusal of a call in a version the card does not declare owes that version's form nothing
    ("families/method-not-found-with-fallback/1.0-http-json", "ERROR-ENVELOPE", Outcome.PASS),
    # HTTP+JSON errors as application/json where the answers are application/a2a+json (the proxy's copy did not look)
    ("personas/a2a-sdk-python-1.3", "ERROR-ENVELOPE", Outcome.NON_STRICT),
    # a stream as NDJSON lines, not Server-Sent Events
    ("quirks/stream-as-ndjson", "STREAMING", Outcome.FAIL),
    # gRPC: an error status without grpc-status-details-bin (no ErrorInfo), judged through the gRPC pass-through
    ("grpc/status-details-missing", "ERROR-ENVELOPE", Outcome.NON_STRICT),
    # an error object where a StreamResponse belongs (the proxy's copy crashed on it)
    ("quirks/rest-stream-error-before-any-event", "STREAMING", Outcome.FAIL),
    # the terminal status-update ends at EOF without its blank line: no SSE reader dispatches it (the proxy's reader
    # used to journal it as an event, so its verdict passed a stream that ends, for every client, at WORKING)
    ("quirks/stream-last-event-unterminated", "STREAMING", Outcome.FAIL),
    ("quirks/rest-stream-last-event-unterminated", "STREAMING", Outcome.FAIL),
]


@pytest.mark.parametrize(("scenario_id", "check_id", "outcome"), ROWS)
def test_the_probe_and_the_proxy_judge_the_same_answers_alike(
    serve: Any, scenario_id: str, check_id: str, outcome: Outcome
) -> None:
    served = serve(scenario_id)
    with session.hosted(served.url) as (state, url, _):
        run = probe(url, FAST)
        judged = {r.id: r for r in verdict(state, 0.0).results}[SERVER_ID]
    by_probe = [c for r in run.results[1:] for c in r.checks if c.id == check_id and c.outcome in _RANK]
    assert by_probe, f"the probe did not judge {check_id}"
    worst = max(by_probe, key=lambda c: _RANK[c.outcome])
    by_proxy = judged.check(check_id)
    assert by_proxy is not None
    assert (worst.outcome, by_proxy.outcome) == (outcome, outcome), (worst, by_proxy)
    if outcome is not Outcome.PASS:
        assert by_proxy.quote and worst.quote  # the bytes the server sent, quoted by both
        assert "§" in by_proxy.section  # the MUST a reader can look up
