"""Running a client against scenarios: a fresh server per scenario, the client in its own process group,
then scoring from the server's journal (and the client's optional result file)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.protocol.cards import WELL_KNOWN_PATH, Support
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer
from a2a_lab.server.journal_record import Entry, entries_from_json
from a2a_lab.server.scenario import Scenario

from . import handshake, process, scoring
from .baseline import Baseline
from .journal_view import RunView
from .model import ClientRun, Outcome, ScenarioResult
from .remote import RemoteServer

CARD_PLACEHOLDER, BASE_PLACEHOLDER = "{card_url}", "{base_url}"
RESULT_LIMIT = 1024 * 1024


@dataclass
class RunOptions:
    client: str
    seed: int = 0
    timeout: float | None = None
    jobs: int = 1
    strict: bool = False
    supports: list[Support] | None = None
    baseline: Baseline | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class RawRun:
    """What one scenario run produced, before scoring (scoring needs the whole run's evidence)."""

    scenario: Scenario
    base_url: str
    card: Any
    journal: list[dict[str, Any]]
    dropped: int
    client: ClientRun
    seed: int
    duration: float
    setup_cost: float
    error: str | None = None

    @property
    def records(self) -> list[Entry]:
        """The journal as typed records (read once)."""
        if self._records is None:
            self._records = entries_from_json(self.journal)
        return self._records

    _records: list[Entry] | None = field(default=None, init=False, repr=False, compare=False)


def command_for(template: str, card_url: str, base_url: str) -> list[str]:
    argv = process.split(template)
    if CARD_PLACEHOLDER not in template and BASE_PLACEHOLDER not in template:
        return [*argv, card_url]
    return [a.replace(CARD_PLACEHOLDER, card_url).replace(BASE_PLACEHOLDER, base_url) for a in argv]


def client_env(
    scenario: Scenario, card_url: str, base_url: str, result_path: str, extra: dict[str, str]
) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    env.update(
        {
            handshake.ENV_CARD_URL: card_url,
            handshake.ENV_BASE_URL: base_url,
            handshake.ENV_SCENARIO: scenario.id,
            handshake.ENV_MESSAGE: scenario.client.message,
            handshake.ENV_RESULT: result_path,
            handshake.ENV_ACTION: json.dumps(scenario.client.action, separators=(",", ":")),
        }
    )
    return env


def read_result(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    if not path.exists() or path.stat().st_size == 0:
        return None, None
    if path.stat().st_size > RESULT_LIMIT:
        return None, f"A2A_LAB_RESULT is larger than {RESULT_LIMIT} bytes"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        return None, f"A2A_LAB_RESULT is not JSON: {exc}"
    if not isinstance(data, dict):
        return None, "A2A_LAB_RESULT must hold a JSON object"
    return data, None


def run_one(scenario: Scenario, opts: RunOptions) -> RawRun:
    started = time.monotonic()
    app = ScenarioApp(scenario, seed=opts.seed)
    with tempfile.TemporaryDirectory(prefix="a2a-lab-") as tmp, BackgroundServer(app) as server:
        base_url = server.url
        card_url = base_url + WELL_KNOWN_PATH
        result_path = Path(tmp) / "result.json"
        argv = command_for(opts.client, card_url, base_url)
        setup = time.monotonic() - started
        finished = process.run(
            argv, client_env(scenario, card_url, base_url, str(result_path), opts.env), opts.timeout or scenario.timeout
        )
        result, result_error = read_result(result_path)
        snapshot = app.state.journal.snapshot()
        try:
            card = json.loads(app.state.card_bytes(base_url))
        except ValueError:
            card = None
    client = ClientRun(
        argv,
        finished.exit_code,
        round(finished.duration, 3),
        finished.timed_out,
        finished.stdout,
        finished.stderr,
        result,
        result_error,
        finished.start_error,
    )
    return RawRun(
        scenario,
        base_url,
        card,
        snapshot["entries"],
        snapshot["dropped"],
        client,
        opts.seed,
        time.monotonic() - started,
        setup,
        finished.start_error,
    )


def run_one_remote(scenario: Scenario, opts: RunOptions, server: RemoteServer, run_id: str) -> RawRun:
    """Like run_one, against a long-lived shared server: the run isolates this client's traffic."""
    started = time.monotonic()
    base_url = server.base_url(run_id, scenario.id)
    card_url = base_url + WELL_KNOWN_PATH
    with tempfile.TemporaryDirectory(prefix="a2a-lab-") as tmp:
        result_path = Path(tmp) / "result.json"
        argv = command_for(opts.client, card_url, base_url)
        setup = time.monotonic() - started
        finished = process.run(
            argv, client_env(scenario, card_url, base_url, str(result_path), opts.env), opts.timeout or scenario.timeout
        )
        result, result_error = read_result(result_path)
    client = ClientRun(
        argv,
        finished.exit_code,
        round(finished.duration, 3),
        finished.timed_out,
        finished.stdout,
        finished.stderr,
        result,
        result_error,
        finished.start_error,
    )
    return collect_remote(
        scenario, server, run_id, client, opts.seed, time.monotonic() - started, setup, finished.start_error
    )


def collect_remote(
    scenario: Scenario,
    server: RemoteServer,
    run_id: str,
    client: ClientRun,
    seed: int,
    duration: float = 0.0,
    setup: float = 0.0,
    error: str | None = None,
) -> RawRun:
    """A RawRun from what a shared server journaled for one scenario of a run."""
    journal = server.journal(run_id, scenario.id)
    facts = server.facts(run_id, scenario.id)
    try:
        card = json.loads(facts.get("card") or "null")
    except ValueError:
        card = None
    return RawRun(
        scenario,
        server.base_url(run_id, scenario.id),
        card,
        journal["entries"],
        journal.get("dropped", 0),
        client,
        seed,
        duration,
        setup,
        error,
    )


def infer_supports(journals: Iterable[list[Entry]]) -> set[Support]:
    """The (binding, version) pairs the client was seen to use anywhere in the run."""
    seen: set[Support] = set()
    for journal in journals:
        for entry in journal:
            if entry.endpoint and entry.version and entry.operation:
                seen.add((entry.endpoint.binding, entry.version))
    return seen


def score_all(runs: list[RawRun], opts: RunOptions) -> tuple[list[ScenarioResult], set[Support]]:
    supports = set(opts.supports) if opts.supports else infer_supports(run.records for run in runs)
    return [score(run, supports, opts) for run in runs], supports


def score(run: RawRun, supports: set[Support], opts: RunOptions) -> ScenarioResult:
    began = time.monotonic()
    view = RunView(
        run.base_url,
        run.card,
        run.records,
        supports,
        run.client.result,
        run.client.exit_code,
        run.scenario.client.action,
        run.client.result_error,
        run.scenario.expect,
    )
    checks = scoring.evaluate(view)
    result = ScenarioResult(
        run.scenario.id,
        run.scenario.title,
        run.scenario.group,
        Outcome.PASS,
        checks,
        run.client,
        run.seed,
        run.duration,
        journal=run.journal,
        journal_dropped=run.dropped,
        error=run.error,
    )
    notes = opts.baseline.apply(result, opts.strict) if opts.baseline else []
    result.outcome = scoring.scenario_outcome(checks, run.client.timed_out, bool(run.journal), run.error)
    if notes:
        result.error = "; ".join(notes) if not result.error else result.error + "; " + "; ".join(notes)
    result.harness_cost = run.setup_cost + (time.monotonic() - began)
    return result


def execute_all(
    scenarios: list[Scenario],
    opts: RunOptions,
    progress: Callable[[RawRun, int, int], None] | None = None,
    server: RemoteServer | None = None,
    run_id: str | None = None,
) -> list[RawRun]:
    """Run the client against each scenario (its own local server, or a run on a shared `server`); no scoring."""
    total = len(scenarios)

    def one(s: Scenario) -> RawRun:
        try:
            raw = run_one(s, opts) if server is None else run_one_remote(s, opts, server, run_id)  # type: ignore[arg-type]
        except Exception as exc:
            raw = RawRun(
                s,
                "",
                None,
                [],
                0,
                ClientRun([], None, 0.0, False),
                opts.seed,
                0.0,
                0.0,
                f"harness error: {type(exc).__name__}: {exc}",
            )
        return raw

    if server is not None and run_id is None:
        run_id = server.start_run(opts.seed)["run"]
    done: dict[str, RawRun] = {}
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        for future in as_completed([pool.submit(one, s) for s in scenarios]):
            raw = future.result()
            done[raw.scenario.id] = raw
            if progress:
                progress(raw, len(done), total)
    return [done[s.id] for s in scenarios]


def run_all(
    scenarios: list[Scenario],
    opts: RunOptions,
    progress: Callable[[RawRun, int, int], None] | None = None,
    server: RemoteServer | None = None,
) -> tuple[list[ScenarioResult], set[Support]]:
    """Run the client against each scenario, then score the whole run."""
    return score_all(execute_all(scenarios, opts, progress, server), opts)
