"""The shared server: the whole catalogue on one origin, with isolated runs and an admin API.

    /                                   the scenarios, with their card URLs
    /<scenario-id>/...                  a scenario for casual use (one shared state)
    /runs/<run>/<scenario-id>/...       a scenario inside a run: fresh state and journal per run
    /_lab/scenarios                     GET: the scenario list and what each asks of a client
    /_lab/runs                          POST: start a run ({"seed": N} optional); GET: how many runs there are
    /_lab/runs/<run>                    GET: the run, and which scenarios saw traffic; DELETE: end the run
    /_lab/runs/<run>/journal?scenario=ID     GET: that scenario's journal in the run (streamed; &after=SEQ&limit=N)
    /_lab/runs/<run>/scenario?scenario=ID    GET: facts, and the card exactly as served in the run
    /_lab/runs/<run>/reset?scenario=ID       POST: start that scenario again inside the run

Every admin path passes the guard (guard.AdminGuard). `/_lab/scenarios` and `/_lab/runs` want the server's admin
token; a run's paths want that run's own token, which only the answer that started it carries (not the server's
token, not another run's). A run's id is random too, so nobody can send traffic into a run they were not told of.

At most `max_runs` runs are kept. A new run past that takes the place of the run idle longest, and only of a run
idle for `idle_seconds` with no request in flight; when every run is in progress the new run is refused (503). A
run that was evicted or deleted answers 410 saying so, never a silent 404.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.types import Receive, Scope, Send

from a2a_lab.contract.lab_api import RUNS_PREFIX
from a2a_lab.contract.scenario import Scenario
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.cards import WELL_KNOWN_PATH
from a2a_lab.protocol.exceptions import LabError

from . import admin, answer, http
from .app import ScenarioApp, base_url_of
from .guard import AdminGuard, Refusal, cli_safe_token, new_token

MAX_RUNS = 64
#: A run with no request for this long (and none in flight) may make room for a new one.
IDLE_SECONDS = 600.0
#: Bytes of randomness in a run id (128 bits: not guessable, still a short URL segment).
RUN_ID_BYTES = 16
#: How many ended runs are remembered, so that their owners hear why they are gone.
GONE_KEPT = 1024


@dataclass
class Run:
    id: str
    token: str = field(repr=False)
    seed: int
    touched: float
    apps: dict[str, ScenarioApp] = field(default_factory=dict)
    #: Requests into the run being answered now (a long stream keeps its run in progress).
    active: int = 0

    def idle_for(self, now: float) -> float | None:
        """Seconds since the run's last request, or None while one is being answered."""
        return None if self.active else now - self.touched


class RunsFull(LabError):
    pass


#: A run's seed is a signed 64-bit integer (what every client of the admin API can write and read back exactly).
SEED_RANGE = range(-(2**63), 2**63)


def run_seed(body: bytes) -> tuple[int, str | None]:
    """The seed a `POST /_lab/runs` body asks for (default 0), or why the body is refused."""
    usage = 'the body is optional JSON: {"seed": N}, N a whole number'
    try:
        options = jsontext.loads(body) if body.strip() else {}
    except (ValueError, RecursionError) as exc:  # not UTF-8 (UnicodeDecodeError is a ValueError), not JSON, 1e999
        return 0, f"{usage} ({str(exc)[:200]})"
    if not isinstance(options, dict):
        return 0, usage
    seed = options.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed not in SEED_RANGE:
        return 0, f"{usage} from -2**63 to 2**63-1; got {jsontext.dumps(seed)[:100].decode('utf-8', 'replace')}"
    return seed, None


class CatalogueApp:
    def __init__(
        self,
        scenarios: list[Scenario],
        guard: AdminGuard | None = None,
        max_runs: int = MAX_RUNS,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        *,
        other_origin: str | None = None,
        push_allow: tuple[str, ...] = (),
    ) -> None:
        self.scenarios = {s.id: s for s in scenarios}
        self.guard = guard or AdminGuard.of()
        #: What every scenario app of the server is given: its other name (`{alt_base_url}`), more push hosts.
        self.hosting: dict[str, Any] = {"other_origin": other_origin, "push_allow": push_allow}
        self.apps = {s.id: ScenarioApp(s, self.guard, **self.hosting) for s in scenarios}
        self._by_depth = sorted(self.scenarios, key=len, reverse=True)
        self.runs: OrderedDict[str, Run] = OrderedDict()
        self.max_runs = max_runs
        self.idle_seconds = idle_seconds
        self.clock = clock
        #: Ended runs: id -> why (bounded, oldest forgotten first).
        self.gone: OrderedDict[str, str] = OrderedDict()

    # ------------------------------------------------------------------------- runs

    def start_run(self, seed: int = 0) -> tuple[Run, list[Run]]:
        """A new run, and the idle runs evicted to make room for it; RunsFull when every run is in progress."""
        now = self.clock()
        evicted: list[Run] = []
        while len(self.runs) >= self.max_runs:
            idle = [(secs, r) for r in self.runs.values() if (secs := r.idle_for(now)) is not None]
            idlest = max(idle, key=lambda pair: pair[0], default=None)
            if idlest is None or idlest[0] < self.idle_seconds:
                raise RunsFull(
                    f"all {len(self.runs)} runs this server keeps are in progress (a run is in progress until it "
                    f"has been idle {self.idle_seconds:g} s); retry later, or end finished runs with "
                    "DELETE /_lab/runs/<run>"
                )
            seconds, victim = idlest
            evicted.append(
                self.end_run(victim, f"it was evicted after {seconds:.0f} s idle to make room for a new run")
            )
        run = Run(cli_safe_token(RUN_ID_BYTES), new_token(), seed, now)
        self.runs[run.id] = run
        return run, evicted

    def end_run(self, run: Run, why: str) -> Run:
        """Forget a run (its journals go), remembering why for whoever asks for it later."""
        self.runs.pop(run.id, None)
        self.gone[run.id] = why
        while len(self.gone) > GONE_KEPT:
            self.gone.popitem(last=False)
        for app in run.apps.values():
            app.state.journal.reset()
        return run

    def run_app(self, run: Run, scenario_id: str) -> ScenarioApp:
        app = run.apps.get(scenario_id)
        if app is None:
            app = run.apps[scenario_id] = ScenarioApp(
                self.scenarios[scenario_id], AdminGuard(run.token, self.guard.hosts), seed=run.seed, **self.hosting
            )
        return app

    def missing_run(self, run_id: str) -> tuple[int, str]:
        """The status and message for a run id that names no run now."""
        shown = run_id[:64]
        if run_id in self.gone:
            return 410, f"run {shown!r} has ended: {self.gone[run_id]}; POST /_lab/runs starts a new one"
        return 404, f"no run {shown!r} on this server (run ids are random: use the one POST /_lab/runs answered)"

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
            if run is None:
                status, message = self.missing_run(run_id)
                await self._json(scope, receive, send, status, {"error": f"a2a-lab: {message}"})
                return
            found = self._scenario_at("/" + rest)
            if found is None:
                await self._json(
                    scope, receive, send, 404, {"error": f"a2a-lab: no scenario at {path}; GET / lists them"}
                )
                return
            run.active += 1
            run.touched = self.clock()
            try:
                await self._delegate(
                    self.run_app(run, found[0]), scope, receive, send, f"{RUNS_PREFIX}/{run_id}{found[1]}"
                )
            finally:
                run.active -= 1
                run.touched = self.clock()
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
                    await app.close()
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
                    "card_url": f"{s.served_at(f'{origin}{prefix}/{sid}')}{WELL_KNOWN_PATH}",
                    "message": s.client.message,
                    "action": s.client.action,
                    "timeout": s.timeout,
                }
                for sid, s in sorted(self.scenarios.items())
            ]
        }

    # ------------------------------------------------------------------------- admin

    async def _admin(self, scope: Scope, receive: Receive, send: Send, sub: str) -> None:
        refusal = self.guard.site(scope)
        if refusal is not None:
            await refusal.send(scope, receive, send)
            return
        parts = sub.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "runs":
            await self._run_admin(scope, receive, send, sub, parts[1], parts[2] if len(parts) > 2 else "")
            return
        refusal = self.guard.holder(scope, what="the server's admin token")
        if refusal is not None:
            await refusal.send(scope, receive, send)
            return
        origin, method = base_url_of(scope), scope["method"]
        if sub == "/scenarios" and method == "GET":
            await self._json(scope, receive, send, 200, self.listing(origin))
        elif sub == "/runs" and method == "POST":
            await self._start_run(scope, receive, send, origin)
        elif sub == "/runs" and method == "GET":
            now = self.clock()
            idle = [r for r in self.runs.values() if (i := r.idle_for(now)) is not None and i >= self.idle_seconds]
            summary = {"runs": len(self.runs), "idle": len(idle), "max_runs": self.max_runs}
            await self._json(scope, receive, send, 200, {**summary, "idle_seconds": self.idle_seconds})
        else:
            await self._no_route(scope, receive, send, sub)

    async def _start_run(self, scope: Scope, receive: Receive, send: Send, origin: str) -> None:
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
        seed, problem = run_seed(body)
        if problem is not None:
            await self._json(scope, receive, send, 400, {"error": problem})
            return
        try:
            started, evicted = self.start_run(seed)
        except RunsFull as exc:
            await Refusal(503, str(exc), (("retry-after", str(int(self.idle_seconds))),)).send(scope, receive, send)
            return
        for run in evicted:
            await self._close(run)
        answer_ = {
            "run": started.id,
            "token": started.token,
            "seed": started.seed,
            "evicted": len(evicted),
            **self.listing(origin, f"{RUNS_PREFIX}/{started.id}"),
        }
        await self._json(scope, receive, send, 201, answer_)

    async def _run_admin(self, scope: Scope, receive: Receive, send: Send, sub: str, run_id: str, what: str) -> None:
        run = self.runs.get(run_id)
        if run is None:
            status, message = self.missing_run(run_id)
            await self._json(scope, receive, send, status, {"error": f"a2a-lab admin API: {message}"})
            return
        refusal = self.guard.holder(
            scope,
            run.token,
            what="this run's token (neither the server's admin token nor another run's opens it)",
            where="the answer to the POST /_lab/runs that started the run carries it",
        )
        if refusal is not None:
            await refusal.send(scope, receive, send)
            return
        run.touched = self.clock()
        origin, method = base_url_of(scope), scope["method"]
        if what == "" and method == "GET":
            used = {sid: len(app.state.journal.entries) for sid, app in run.apps.items()}
            await self._json(scope, receive, send, 200, {"run": run.id, "seed": run.seed, "traffic": used})
            return
        if what == "" and method == "DELETE":
            await self._close(self.end_run(run, "its owner ended it (DELETE /_lab/runs/<run>)"))
            await self._json(scope, receive, send, 200, {"run": run.id, "deleted": True})
            return
        if what not in ("journal", "scenario", "reset"):
            await self._no_route(scope, receive, send, sub)
            return
        sid = http.query_of(scope).get("scenario", "")
        if sid not in self.scenarios:
            await self._json(scope, receive, send, 404, {"error": f"no scenario {sid[:200]!r}; pass ?scenario=ID"})
            return
        app = self.run_app(run, sid)
        base = self.scenarios[sid].served_at(f"{origin}{RUNS_PREFIX}/{run.id}/{sid}")
        if what == "journal" and method == "GET":
            await admin.send_journal(app.state.journal, scope, receive, send, http.query_of(scope))
        elif what == "scenario" and method == "GET":
            facts = admin.scenario_facts(app.state, base)
            facts["card"] = app.state.card_bytes(base).decode("utf-8", "replace")
            await self._json(scope, receive, send, 200, facts)
        elif what == "reset" and method == "POST":
            app.reset()
            await self._json(scope, receive, send, 200, {"reset": True})
        else:
            await self._no_route(scope, receive, send, sub)

    @staticmethod
    async def _close(run: Run) -> None:
        for app in run.apps.values():
            await app.close()

    async def _no_route(self, scope: Scope, receive: Receive, send: Send, sub: str) -> None:
        await self._json(
            scope,
            receive,
            send,
            404,
            {
                "error": f"no admin route {scope['method']} {admin.PREFIX}{sub}",
                "routes": [
                    "GET /_lab/scenarios",
                    "POST /_lab/runs",
                    "GET /_lab/runs",
                    "GET /_lab/runs/<run>",
                    "DELETE /_lab/runs/<run>",
                    "GET /_lab/runs/<run>/journal?scenario=ID",
                    "GET /_lab/runs/<run>/scenario?scenario=ID",
                    "POST /_lab/runs/<run>/reset?scenario=ID",
                ],
            },
        )
