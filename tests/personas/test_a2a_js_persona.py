"""Persona fidelity of the @a2a-js/sdk 1.3.0 server: personas/a2a-js-1.3 against the real server (express, JSON-RPC
at `/`, REST at `/rest`, legacyCompat on; tests/personas/js_server.mjs, run by js.py).

The shared request set (tests/personas/fidelity.py) plus what this server makes worth asking (its card under each
A2A-Version, a JSON-RPC Notification, a GET on the JSON-RPC path, a 0.3 REST body under a 1.0 header) goes to both;
every difference that remains is named below with why it stays. A new difference, or an allowance that covers nothing
any more, fails the test. `a2a-lab probe` gives both the same verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from a2a_lab.harness.server_judging.probe.runner import ProbeOptions, probe

from . import fidelity
from .fidelity import JSONRPC, PREFIX, REST, V03, V10, Accepted, Peer, Probe
from .js import BINDINGS, js_server

PERSONA = "personas/a2a-js-1.3"
#: The follow-up's polite waits are skipped: every task here is complete when SendMessage returns.
FAST = ProbeOptions(timeout=10, sleep=lambda _: None)


def js_probes(peer: Peer) -> list[Probe]:
    """The shared request set, and the requests this server's own behaviour makes worth sending."""
    card = "/.well-known/agent-card.json"
    rest03_body = {"message": {"messageId": f"{PREFIX}v1-under-1.0", "role": "ROLE_USER", "content": [{"text": "x"}]}}
    return [
        *fidelity.request_set(peer),
        Probe("card agent-card.json A2A-Version 1.0", "GET", card, headers={"A2A-Version": "1.0"}),
        Probe("card agent-card.json A2A-Version 0.3", "GET", card, headers={"A2A-Version": "0.3"}),
        Probe(
            "jsonrpc1.0 notification",
            "POST",
            "",
            (JSONRPC, V10),
            {"A2A-Version": "1.0"},
            {"jsonrpc": "2.0", "method": "GetTask", "params": {"id": f"{PREFIX}no-such-task"}},
        ),
        Probe("jsonrpc1.0 get-not-post", "GET", "", (JSONRPC, V10), {"A2A-Version": "1.0"}),
        Probe("rest0.3 send-version-1.0", "POST", "/message:send", (REST, V03), {"A2A-Version": "1.0"}, rest03_body),
    ]


ACCEPTED = [
    Accepted(
        "0.3 stream envelope order",
        "the SDK's 0.3 JSON-RPC stream events put `id` before `jsonrpc`, its unary answers after; style.member_order "
        "orders an object by its members, so one order serves both: the unary one. The JSON is the same.",
        ("jsonrpc0.3 stream",),
        ("bytes",),
    ),
    Accepted(
        "validation wording",
        "a message that is not a message object: the same code; the SDK names its first missing field in its own "
        "words ('message.messageId is required.'; 0.3: 'message must be an object'; 0.3 REST: 'Invalid role: 0' "
        "with 400), a2a-lab in its own (0.3 REST: 422).",
        ("jsonrpc*.* wrong-params", "rest*.* wrong-params"),
        ("body", "status"),
    ),
    Accepted(
        "0.3 role under 1.0",
        "the SDK's decoder reads the 0.3 role 'user' in a 1.0 message as UNRECOGNIZED and serves it (so later "
        "ListTasks answers hold one task more); a2a-lab refuses it with -32602 (1.0 roles are ROLE_USER and "
        "ROLE_AGENT).",
        ("jsonrpc1.0 send-0.3-role", "rest1.0 list"),
        ("body",),
    ),
    Accepted(
        "0.3 REST reads no text/plain body",
        "a text/plain body on the 0.3 REST routes: express's JSON parser skips it and the SDK reports the message "
        "missing (400 -32602); a2a-lab refuses the Content-Type (415 -32005).",
        ("rest0.3 text-plain",),
        ("status", "body"),
    ),
    Accepted(
        "/v1/ under a 1.0 header",
        "with A2A-Version: 1.0 the SDK routes POST /rest/v1/message:send to its 1.0 router as tenant 'v1', reads the "
        "0.3 body as a 1.0 message without parts and echoes ''; a2a-lab serves /v1/ paths as 0.3 only and refuses "
        "the mix (-32601).",
        ("rest0.3 send-version-1.0",),
    ),
]


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=20, trust_env=False) as client:
        yield client


def test_persona_a2a_js_answers_as_the_real_server(serve: Callable[[str], Any], http: httpx.Client) -> None:
    served = serve(PERSONA)
    with js_server() as real:
        outcome = fidelity.run(http, real, Peer("persona", served.url, BINDINGS), js_probes)
    left, stale = fidelity.unexplained(outcome.differences, ACCEPTED)
    assert not left and not stale, fidelity.report(left, stale)
    assert outcome.requests == len(js_probes(real)) > 90
    # no fewer answers match than today (99 requests: 90 identical; 91 the same JSON, members in another order)
    assert outcome.identical >= 90 and outcome.same_content >= 91, (outcome.identical, outcome.same_content)


def test_probe_judges_the_persona_as_the_real_server(serve: Callable[[str], Any]) -> None:
    served = serve(PERSONA)
    with js_server() as real:
        on_real = probe(real.base_url, FAST)
    on_persona = probe(served.url, FAST)
    verdicts = {(r.id, c.id): c.outcome.value for r in on_real.results for c in r.checks}
    assert on_persona.probed == on_real.probed
    assert {(r.id, c.id): c.outcome.value for r in on_persona.results for c in r.checks} == verdicts
    # What the probe finds on the SDK itself: its 1.0 REST routes serve a request without A2A-Version (§3.6.2).
    assert verdicts[("probe/1-HTTP+JSON-1.0", "VERSION-NEGOTIATION")] == "FAIL"
