"""The admin API of a served scenario, under `/_lab/`: journal, reset, scenario facts.

Every request passes the server's guard first (guard.AdminGuard: its token, a Host it serves, no cross-site call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.protocol.cards import WELL_KNOWN_PATH

from . import answer, http
from .guard import AdminGuard
from .state import LabState

PREFIX = "/_lab"


def scenario_facts(state: LabState, base_url: str) -> dict[str, Any]:
    s = state.scenario
    return {
        "id": s.id,
        "title": s.title,
        "description": s.description,
        "spec": s.spec,
        "observed": s.observed,
        "seed": s.seed,
        "timeout": s.timeout,
        "message": s.client.message,
        "action": s.client.action,
        "checks": list(s.checks),
        "expect": {
            "result": s.expect.result,
            "state": s.expect.state.value if s.expect.state else None,
            "text_contains": s.expect.text_contains,
        },
        "card_url": f"{base_url}{WELL_KNOWN_PATH}",
        "base_url": base_url,
        "endpoints": [
            {"path": e.path, "binding": e.binding.value, "versions": [v.value for v in e.versions]} for e in s.endpoints
        ],
    }


async def handle(
    state: LabState,
    route_path: str,
    scope: Scope,
    receive: Receive,
    send: Send,
    base_url: str,
    guard: AdminGuard,
    reset: Callable[[], None],
) -> None:
    entry = None  # the admin API is not journaled
    refusal = guard.check(scope)
    if refusal is not None:
        await refusal.send(scope, receive, send)
        return
    sub = route_path[len(PREFIX) :]
    query = http.query_of(scope)
    if sub == "/journal" and scope["method"] == "GET":
        since = int(query["since"]) if query.get("since", "").isdigit() else 0
        await answer.send_body(
            scope, receive, send, entry, 200, http.dumps(state.journal.snapshot(since)), "application/json"
        )
    elif sub == "/journal.jsonl" and scope["method"] == "GET":
        await answer.send_body(scope, receive, send, entry, 200, state.journal.jsonl().encode(), "application/x-ndjson")
    elif sub == "/reset" and scope["method"] == "POST":
        reset()
        await answer.send_body(scope, receive, send, entry, 200, b'{"reset":true}', "application/json")
    elif sub == "/scenario" and scope["method"] == "GET":
        await answer.send_body(
            scope, receive, send, entry, 200, http.dumps(scenario_facts(state, base_url)), "application/json"
        )
    else:
        await answer.send_body(
            scope,
            receive,
            send,
            entry,
            404,
            http.dumps(
                {
                    "error": f"no admin route {scope['method']} {route_path}",
                    "routes": [
                        "GET /_lab/journal",
                        "GET /_lab/journal.jsonl",
                        "POST /_lab/reset",
                        "GET /_lab/scenario",
                    ],
                }
            ),
            "application/json",
        )
