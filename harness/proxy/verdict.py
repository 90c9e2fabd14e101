"""A proxied session's verdict, in the harness's result model: `proxy/client` (the client checks that need no
scenario, on the journal read as a run against the card as served) and `proxy/server` (the probe's checks, read
passively from the answers), each finding's side named by its result, and the same journal under both."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from a2a_lab.contract.journal_record import Entry, EntryKind
from a2a_lab.harness.client_judging import scoring
from a2a_lab.harness.client_judging.causes import WIRE
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.client_judging.runner import infer_supports
from a2a_lab.harness.common.model import CheckResult, ScenarioResult
from a2a_lab.harness.common.outcome import scenario_outcome
from a2a_lab.harness.proxy import limits, server_side
from a2a_lab.harness.proxy.app import ProxyState
from a2a_lab.harness.server_judging.probe.definitions import LIVE_CHECKS, PROBE_CHECKS
from a2a_lab.protocol.cards import Support

GROUP = "proxy"
CLIENT_ID, SERVER_ID = f"{GROUP}/client", f"{GROUP}/server"
#: The client checks a live session can judge: none of them needs a scenario's expectation, action or result file.
CLIENT_CHECKS = (
    *WIRE,
    "MESSAGE-ID-UNIQUE",
    "NO-RETRY-LOOP",
    "FALLBACK",
    "NO-POLL-AFTER-MESSAGE",
    "POLL-BOUNDED",
    "CONTEXT-ID-INVENTED",
    "CAPABILITIES-RESPECTED",
)


@dataclass
class Verdict:
    results: list[ScenarioResult]
    supports: set[Support]
    #: What the report's `proxy` section says: upstream, proxy origin, what was not proxied, the gRPC ports (each
    #: upstream address and the proxy's for it), the journal's bounds, the proxy's own (limits.py), and what went
    #: wrong at start or stop (`notes`).
    meta: dict[str, Any]


def _client(view: RunView, journal: list[dict[str, Any]], dropped: int, duration: float) -> ScenarioResult:
    checks = scoring.evaluate(view, CLIENT_CHECKS)
    contacted = bool(view.calls or view.card_fetches)
    outcome = scenario_outcome(checks, timed_out=False, contacted=contacted, error=None)
    title = "the client, judged from what it sent through the proxy"
    return ScenarioResult(CLIENT_ID, title, GROUP, outcome, checks, None, 0, duration, 0.0, journal, dropped)


def _server(state: ProxyState, entries: list[Entry], journal: list[dict[str, Any]], duration: float) -> ScenarioResult:
    card = state.card
    fetches = [e.seq for e in entries if e.kind is EntryKind.CARD]
    upstream_card = card.card if card is not None else None
    checks: list[CheckResult] = [
        server_side.card_check(
            upstream_card,
            state.last_fetch.raw if state.last_fetch is not None else None,
            state.last_fetch.status if state.last_fetch is not None else None,
            state.routes.upstream_url("/.well-known/agent-card.json", ""),
            fetches,
        ),
        *server_side.judge(entries, upstream_card),
        server_side.push_delivery(entries, state.hooks),
    ]
    outcome = scenario_outcome(checks, timed_out=False, contacted=True, error=None)
    title = "the server, judged from what it answered the client"
    return ScenarioResult(
        SERVER_ID, title, GROUP, outcome, checks, None, 0, duration, 0.0, journal, state.journal.dropped
    )


def verdict(state: ProxyState, started: float) -> Verdict:
    if state.settle is not None:
        state.settle()
    entries = state.journal.records()
    journal: list[dict[str, Any]] = state.journal.snapshot()["entries"]
    supports = infer_supports([entries])
    view = RunView(state.routes.proxy, state.served_card, entries, supports)
    duration = time.monotonic() - started
    results = [_client(view, journal, state.journal.dropped, duration), _server(state, entries, journal, duration)]
    meta: dict[str, Any] = {
        "upstream": state.routes.upstream,
        "proxy": state.routes.proxy,
        "not_proxied": list(state.routes.not_proxied),
        "grpc": {address: route.proxy for address, route in state.routes.grpc.items() if route.proxy is not None},
        "journal": state.journal.summary(),
        "sides": {CLIENT_ID: "client", SERVER_ID: "server"},
        "limits": limits.table(state.timeout),
    }
    if state.routes.unlisted:
        meta["not_proxied_more"] = state.routes.unlisted
    if state.notes:
        meta["notes"] = list(state.notes)
    return Verdict(results, supports, meta)


#: Every check a proxy report lists: the client checks it runs, then the probe's, then the live pair's own.
def report_checks() -> list[Any]:
    from a2a_lab.harness.client_judging.checks import client_checks

    return [c for c in client_checks() if c.id in CLIENT_CHECKS] + [*PROBE_CHECKS, *LIVE_CHECKS]
