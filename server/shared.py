"""The shared server: the whole catalogue on one origin, with isolated runs and an admin API.

    /                                   the scenarios, with their card URLs
    /<scenario-id>/...                  a scenario for casual use (one shared state)
    /runs/<run>/<scenario-id>/...       a scenario inside a run: fresh state and journal per run
    /_lab/scenarios                     GET: the scenario list and what each asks of a client
    /_lab/runs                          POST: start a run ({"seed": N} optional); GET: list runs
    /_lab/runs/<run>                    GET: the run, and which scenarios saw traffic
    /_lab/runs/<run>/journal?scenario=ID     GET: that scenario's journal in the run
    /_lab/runs/<run>/scenario?scenario=ID    GET: facts, and the card exactly as served in the run
    /_lab/runs/<run>/reset?scenario=ID       POST: start that scenario again inside the run

The admin paths answer loopback callers, or, when a token is set, any caller presenting it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.protocol.cards import WELL_KNOWN_PATH

from . import admin, answer, http
from .app import ScenarioApp, base_url_of
from .scenario import Scenario

RUNS_PREFIX = "/runs"
MAX_RUNS = 64


@dataclass
class Run:
    id: str
    seed: int
    apps: dict[str, ScenarioApp] = field(default_factory=dict)


class CatalogueApp:
    def __init__(self, scenarios: list[Scenario], admin_token: str | None = None, max_runs: int = MAX_RUNS) -> None:
        self.scenarios = {s.id: s for s in scenarios}
        self.apps = {s.id: ScenarioApp(s, admin_token) for s in scenarios}
        self._by_depth = sorted(self.scenarios, key=len, reverse=True)
        self.admin_token = admin_token
        self.runs: OrderedDict[str, Run] = OrderedDict()
        self.max_runs = max_runs
        self._run_counter = 0

    # ------------------------------------------------------------------------- runs

    def start_run(self, seed: int = 0) -> Run:
        self._run_counter += 1
        run = Run(f"r{self._run_counter}", seed)
        self.runs[run.id] = run
        while len(self.runs) > self.max_runs:
            _, old = self.runs.popitem(last=False)
            for app in old.apps.values():
                app.state.journal.reset()
        return run

    def run_app(self, run: Run, scenario_id: str) -> ScenarioApp:
        app = run.apps.get(scenario_id)
        if app is None:
            app = run.apps[scenario_id] = ScenarioApp(self.scenarios[scenario_id], self.admin_token, seed=run.seed)
        return app

    def _scenario_at(self, path: str) -> tuple[str, str] | None:
        for sid in self._by_depth:
            if path == f"/{sid}" or path.startswith(f"/{sid}/"):
                return sid, f"/{sid}"
        return None

    # ------------------------------------------------------------------------- ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path = scope["path"]
        if path == admin.PREFIX or path.startswith(admin.PREFIX + "/"):
            await self._admin(scope, receive, send, path[len(admin.PREFIX) :])
            return
        if path.startswith(RUNS_PREFIX + "/"):
            run_id, _, rest = path[len(RUNS_PREFIX) + 1 :].partition("/")
            run = self.runs.get(run_id)
            found = self._scenario_at("/" + rest) if run else None
            if run is None or found is None:
                await self._json(
                    scope,
                    receive,
                    send,
                    404,
                    {"error": f"a2a-lab: no run {run_id!r} or no scenario at {path}; POST /_lab/runs starts a run"},
                )
                return
            await self._delegate(self.run_app(run, found[0]), scope, receive, send, f"{RUNS_PREFIX}/{run_id}{found[1]}")
            return
        found = self._scenario_at(path)
        if found is not None:
            await self._delegate(self.apps[found[0]], scope, receive, send, found[1])
            return
        listing = self.listing(base_url_of(scope))
        if path not in ("/", ""):
            listing["error"] = f"a2a-lab: no scenario at {path}"
        await self._json(scope, receive, send, 200 if path in ("/", "") else 404, listing)

    @staticmethod
    async def _delegate(app: ScenarioApp, scope: Scope, receive: Receive, send: Send, prefix: str) -> None:
        child = dict(scope)
        child["root_path"] = scope.get("root_path", "") + prefix
        await app(child, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for app in [*self.apps.values(), *(a for r in self.runs.values() for a in r.apps.values())]:
                    await app.push.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    @staticmethod
    async def _json(
        scope: Scope,
        receive: Receive,
        send: Send,
        status: int,
        payload: Any,
        extra: list[tuple[str, str]] | None = None,
    ) -> None:
        await answer.send_body(scope, receive, send, None, status, http.dumps(payload), "application/json", extra=extra)

    def listing(self, origin: str, prefix: str = "") -> dict[str, Any]:
        return {
            "scenarios": [
                {
                    "id": sid,
                    "title": s.title,
                    "card_url": f"{origin}{prefix}/{sid}{WELL_KNOWN_PATH}",
                    "message": s.client.message,
                    "action": s.client.action,
                    "timeout": s.timeout,
                }
                for sid, s in sorted(self.scenarios.items())
            ]
        }

    # ------------------------------------------------------------------------- admin

    async def _admin(self, scope: Scope, receive: Receive, send: Send, sub: str) -> None:
        if not admin.allowed(scope, self.admin_token):
            await self._json(
                scope,
                receive,
                send,
                403,
                {
                    "error": "the admin API answers loopback callers, or callers with the admin token "
                    "(Authorization: Bearer TOKEN or X-A2A-Lab-Token)"
                },
            )
            return
        origin, method = base_url_of(scope), scope["method"]
        query = http.query_of(scope)
        if sub == "/scenarios" and method == "GET":
            await self._json(scope, receive, send, 200, self.listing(origin))
            return
        if sub == "/runs":
            if method == "POST":
                try:
                    body = await http.read_body(receive, 64 * 1024)
                except http.BodyTooLarge:
                    await self._json(
                        scope, receive, send, 413, {"error": 'the body is optional JSON of at most 64 KiB: {"seed": 0}'}
                    )
                    return
                except http.BodyTimeout as exc:
                    await self._json(scope, receive, send, 408, {"error": http.timeout_message(exc)}, http.CLOSE)
                    return
                try:
                    options = json.loads(body) if body.strip() else {}
                    seed = int(options.get("seed", 0)) if isinstance(options, dict) else 0
                except (ValueError, TypeError):
                    await self._json(scope, receive, send, 400, {"error": 'the body is optional JSON: {"seed": 0}'})
                    return
                started = self.start_run(seed)
                await self._json(
                    scope,
                    receive,
                    send,
                    201,
                    {"run": started.id, "seed": started.seed, **self.listing(origin, f"{RUNS_PREFIX}/{started.id}")},
                )
                return
            await self._json(
                scope,
                receive,
                send,
                200,
                {"runs": [{"run": r.id, "seed": r.seed, "scenarios_used": sorted(r.apps)} for r in self.runs.values()]},
            )
            return
        parts = sub.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "runs":
            run = self.runs.get(parts[1])
            if run is None:
                await self._json(scope, receive, send, 404, {"error": f"no run {parts[1]!r}"})
                return
            what = parts[2] if len(parts) > 2 else ""
            if what == "" and method == "GET":
                used = {sid: len(app.state.journal.entries) for sid, app in run.apps.items()}
                await self._json(scope, receive, send, 200, {"run": run.id, "seed": run.seed, "traffic": used})
                return
            sid = query.get("scenario", "")
            if sid not in self.scenarios:
                await self._json(scope, receive, send, 404, {"error": f"no scenario {sid!r}; pass ?scenario=ID"})
                return
            app = self.run_app(run, sid)
            base = f"{origin}{RUNS_PREFIX}/{run.id}/{sid}"
            if what == "journal" and method == "GET":
                await self._json(scope, receive, send, 200, app.state.journal.snapshot())
            elif what == "scenario" and method == "GET":
                facts = admin.scenario_facts(app.state, base)
                facts["card"] = app.state.card_bytes(base).decode("utf-8", "replace")
                await self._json(scope, receive, send, 200, facts)
            elif what == "reset" and method == "POST":
                app.reset()
                await self._json(scope, receive, send, 200, {"reset": True})
            else:
                await self._json(scope, receive, send, 404, {"error": f"no admin route {method} {admin.PREFIX}{sub}"})
            return
        await self._json(
            scope,
            receive,
            send,
            404,
            {
                "error": f"no admin route {method} {admin.PREFIX}{sub}",
                "routes": [
                    "GET /_lab/scenarios",
                    "POST /_lab/runs",
                    "GET /_lab/runs/<run>",
                    "GET /_lab/runs/<run>/journal?scenario=ID",
                    "GET /_lab/runs/<run>/scenario?scenario=ID",
                    "POST /_lab/runs/<run>/reset?scenario=ID",
                ],
            },
        )
