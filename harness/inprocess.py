"""In-process clients: the catalogue (or a selection) run against an async callable of the caller's, with the
scoring and the reports of `a2a-lab run`, and no process per scenario (docs/how-to/loop-and-inprocess.md).

    from a2a_lab.harness import inprocess

    async def my_client(job: inprocess.Assignment) -> dict | None:
        ...  # fetch job.card_url, send job.message; return {"kind", "state", "text"} (or None)

    outcome = inprocess.run(my_client, ["spec/*", "quirks/*"], jobs=4)  # its own event loop, in a thread
    outcome = await inprocess.run_async(my_client, ["spec/*"])         # or in the caller's event loop
    assert outcome.passed, outcome.scorecard()

Each scenario gets a fresh server and journal, as in `a2a-lab run`; the callable is awaited once per scenario with
the handshake's variables (an Assignment), within the scenario's time limit, in an event loop and a thread of its own
(as a client process has its own interpreter; the caller's context variables are its). Past its time it is cancelled
(TIMEOUT), and given CANCEL_GRACE_S to end; one that ignores its cancellation or blocks its event loop is left to
itself in its daemon thread, and costs no other scenario its time. What it returns is its result, as A2A_LAB_RESULT's
file would hold it (None: it wrote the file at `result_path`, or nothing); an exception it raises ends the scenario as
a client process's crash does (exit code 1, the traceback as its stderr), whatever its class: SystemExit (its code as
the exit code), asyncio.CancelledError, any BaseException but KeyboardInterrupt, which ends the run. Since each call
has its own loop, objects bound to one (an httpx.AsyncClient, an aiohttp session) are made within the call, not shared
between scenarios."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
import tempfile
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract import handshake
from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import process, runner, scoring
from a2a_lab.harness.client_judging.baseline import Baseline
from a2a_lab.harness.common.model import ClientRun, ScenarioResult
from a2a_lab.harness.reports import console, json_report
from a2a_lab.harness.reports.files import ReportFiles
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.cards import WELL_KNOWN_PATH, Support

__all__ = ["Assignment", "Client", "InProcessRun", "run", "run_async"]


@dataclass(frozen=True)
class Assignment:
    """One scenario, as an in-process client is handed it: the handshake's variables (contract/handshake.py), typed;
    `env` holds them by their names, as a loop client's line does."""

    scenario: str
    card_url: str
    base_url: str
    message: str
    action: dict[str, Any]
    result_path: str
    env: dict[str, str]

    @property
    def ca_file(self) -> str | None:
        """A TLS scenario's lab CA (PEM), else None."""
        return self.env.get(handshake.ENV_CA_FILE)

    @property
    def client_cert(self) -> tuple[str, str] | None:
        """Mutual TLS: (certificate, key) files to present, else None."""
        cert, key = self.env.get(handshake.ENV_CLIENT_CERT_FILE), self.env.get(handshake.ENV_CLIENT_KEY_FILE)
        return (cert, key or cert) if cert else None

    @property
    def webhook_host(self) -> str | None:
        return self.env.get(handshake.ENV_WEBHOOK_HOST)


#: An in-process client: awaited once per scenario; returns its result object, or None.
Client = Callable[[Assignment], Awaitable[dict[str, Any] | None]]


@dataclass
class InProcessRun:
    """What a run gave: each scenario's result, scored as `a2a-lab run` scores, and its reports."""

    results: list[ScenarioResult]
    supports: set[Support]
    strict: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> dict[str, Any]:
        return scoring.summary(self.results, self.strict)

    @property
    def passed(self) -> bool:
        """The gate `a2a-lab run` exits 0 on."""
        return bool(self.summary["gate"] == "passed")

    def report(self) -> dict[str, Any]:
        """The JSON report (`--json`'s)."""
        meta = {
            **self.meta,
            "strict": self.strict,
            "supports": sorted(f"{b.value}@{v.value}" for b, v in self.supports),
        }
        return json_report.build(self.results, self.summary, meta)

    def write(self, files: ReportFiles) -> None:
        """Write the report files asked for (JSON, JUnit, HTML, a report folder), as `a2a-lab run` does."""
        files.write(self.report(), self.results, self.strict)

    def scorecard(self, verbose: bool = False) -> str:
        """The console's scorecard, as text."""
        out = io.StringIO()
        console.scorecard(self.results, self.summary, out, verbose=verbose)
        return out.getvalue()

    def __str__(self) -> str:
        return self.scorecard()


@functools.cache
def _catalogue() -> Catalogue:
    """The built-in catalogue, read once per process (a test suite's runs share it)."""
    return Catalogue.load()


def _choose(scenarios: Iterable[str | Scenario] | None) -> list[Scenario]:
    given = list(scenarios or [])
    chosen = [s for s in given if isinstance(s, Scenario)]
    names = [s for s in given if not isinstance(s, Scenario)]
    if names or not given:
        chosen += _catalogue().choose(names or None, files=True)
    return chosen


async def run_async(
    client: Client,
    scenarios: Iterable[str | Scenario] | None = None,
    *,
    jobs: int = 1,
    seed: int = 0,
    timeout: float | None = None,
    supports: list[Support] | None = None,
    baseline: Baseline | None = None,
    strict: bool = False,
) -> InProcessRun:
    """Run `client` against the scenarios (ids, globs, scenario files or folders, Scenario objects; None: the whole
    catalogue), `jobs` at a time, in the running event loop; score the whole run. SelectionError for a selection
    that names nothing."""
    chosen = _choose(scenarios)
    opts = runner.RunOptions(
        f"in-process {getattr(client, '__qualname__', client)!s}",
        seed,
        timeout,
        max(1, jobs),
        strict,
        supports,
        baseline,
    )
    stage = runner.LocalServers(seed)
    slots = asyncio.Semaphore(opts.jobs)
    began = time.monotonic()

    async def one(scenario: Scenario) -> runner.RawRun:
        async with slots:
            return await _one(client, scenario, opts, stage)

    raws = await asyncio.gather(*(one(s) for s in chosen))
    results, seen = runner.score_all(list(raws), opts)
    meta = {"client": opts.client, "seed": seed, "jobs": opts.jobs, "client_mode": "in-process"}
    meta["wall_time"] = round(time.monotonic() - began, 3)
    return InProcessRun(results, seen, strict, meta)


def run(client: Client, scenarios: Iterable[str | Scenario] | None = None, **options: Any) -> InProcessRun:
    """run_async in an event loop of its own, in a thread of its own (so that it may be called from anywhere,
    an event loop's thread included)."""
    outcome: list[InProcessRun] = []
    failure: list[BaseException] = []

    def main() -> None:
        try:
            outcome.append(asyncio.run(run_async(client, scenarios, **options)))
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=main, name="a2a-lab-inprocess", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


async def _one(
    client: Client, scenario: Scenario, opts: runner.RunOptions, stage: runner.LocalServers
) -> runner.RawRun:
    """One scenario: its own server (started and stopped off the event loop), the client awaited within its time."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="a2a-lab-") as tmp:
        hosting = stage.host(scenario)
        hosted = await asyncio.to_thread(hosting.__enter__)
        try:
            card_url = hosted.base_url + WELL_KNOWN_PATH
            result_path = str(Path(tmp) / "result.json")
            fields = runner.handshake_fields(scenario, card_url, hosted.base_url, result_path, dict(hosted.env))
            job = Assignment(
                scenario.id,
                card_url,
                hosted.base_url,
                scenario.client.message,
                scenario.client.action,
                result_path,
                fields,
            )
            setup = time.monotonic() - started
            client_run = await _await(client, job, runner.time_limit(scenario, opts.timeout))
            ended = time.monotonic()
            evidence = await asyncio.to_thread(hosted.evidence)
        finally:
            await asyncio.to_thread(hosting.__exit__, None, None, None)
    raw = runner.RawRun.of(scenario, evidence, client_run, opts.seed, time.monotonic() - started, setup)
    raw.teardown_cost = time.monotonic() - ended
    return raw


#: Past its time a callable is cancelled, and has this long to end before it is left to itself (TIMEOUT either way):
#: one that swallows its cancellation, or blocks its event loop, holds neither the run nor its scenario's server.
CANCEL_GRACE_S = 1.0


@dataclass
class _Ended:
    """How a callable ended: what it returned, or how it was stopped (a process's exit code, its traceback)."""

    returned: Any = None
    exit_code: int = 0
    trace: str = ""


class _Turn:
    """One scenario's call of the client, in an event loop and a thread of its own, as a client process has its own
    interpreter: a callable that blocks its loop or ignores its cancellation costs no other scenario its time, and a
    BaseException it raises (SystemExit, CancelledError, ...) is its scenario's crash. KeyboardInterrupt alone is
    handed on: it ends the run. The caller's context variables are the callable's."""

    def __init__(self, client: Client, job: Assignment) -> None:
        self.ended: _Ended | None = None
        self.failure: BaseException | None = None
        self.arrived = asyncio.Event()
        self._caller = asyncio.get_running_loop()
        self._context = contextvars.copy_context()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[_Ended] | None = None
        name = f"a2a-lab-inprocess {job.scenario}"
        threading.Thread(target=self._main, args=(client, job), name=name, daemon=True).start()

    def _main(self, client: Client, job: Assignment) -> None:
        loop = asyncio.new_event_loop()
        try:
            with self._lock:
                self._loop = loop
                self._task = loop.create_task(_called(client, job), context=self._context)
            self.ended = loop.run_until_complete(self._task)
        except BaseException as exc:  # KeyboardInterrupt, or a failure of the loop itself: the run's to handle
            self.failure = exc
        finally:
            _close(loop)
            with self._lock:
                self._loop = None
            try:
                self._caller.call_soon_threadsafe(self.arrived.set)
            except RuntimeError:
                pass  # the run is over (its loop closed): nobody waits for this callable any more

    def cancel(self) -> None:
        """Cancel the callable (where its loop still turns: a blocked one sees it when it next awaits)."""
        with self._lock:
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)


async def _called(client: Client, job: Assignment) -> _Ended:
    try:
        return _Ended(await client(job))
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # as a process would exit: its code (None: 0; not a number: 1)
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        return _Ended(exit_code=code, trace=traceback.format_exc())
    except BaseException:  # an exception, CancelledError of its own, GeneratorExit: a crash
        return _Ended(exit_code=1, trace=traceback.format_exc())


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """What the callable left running is cancelled, given CANCEL_GRACE_S to end (as a process's exit ends its
    threads), and the loop closed."""
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        wind_up = [*pending, loop.create_task(loop.shutdown_asyncgens())]
        loop.run_until_complete(asyncio.wait(wind_up, timeout=CANCEL_GRACE_S))
    except BaseException:  # the callable's leftovers may raise anything: the loop closes anyway
        pass
    finally:
        loop.close()


async def _await(client: Client, job: Assignment, limit: float) -> ClientRun:
    """The client's turn: its result, or how it ended (a timeout, an exception, something that is no result)."""
    began = time.monotonic()
    command = ["in-process", str(getattr(client, "__qualname__", client))]
    turn = _Turn(client, job)
    try:
        async with asyncio.timeout(limit):
            await turn.arrived.wait()
    except TimeoutError:
        duration = round(time.monotonic() - began, 3)
        turn.cancel()
        try:
            async with asyncio.timeout(CANCEL_GRACE_S):
                await turn.arrived.wait()
        except TimeoutError:
            pass  # it ignores its cancellation, or blocks its loop: left to itself, in its daemon thread
        return ClientRun(command, None, duration, True)
    except asyncio.CancelledError:  # the run itself is cancelled: so is the callable
        turn.cancel()
        raise
    duration = round(time.monotonic() - began, 3)
    if turn.failure is not None:
        raise turn.failure
    assert turn.ended is not None
    return _ran(command, duration, turn.ended, job)


def _ran(command: list[str], duration: float, ended: _Ended, job: Assignment) -> ClientRun:
    """A callable that ended in its time: its result (returned, or in the result file), or how it crashed."""
    returned = ended.returned
    if ended.trace:
        stderr = process.Kept()
        stderr.add(ended.trace.encode("utf-8", "replace"))
        result, error = runner.read_result(Path(job.result_path)) if ended.exit_code == 0 else (None, None)
        return ClientRun(command, ended.exit_code, duration, False, "", stderr.text(), result, error)
    if returned is None:
        result, error = runner.read_result(Path(job.result_path))
    elif isinstance(returned, dict):
        try:
            result, error = runner.parse_result(jsontext.dumps(returned))
        except (TypeError, ValueError, RecursionError) as exc:
            result, error = None, f"the client's result is not JSON: {exc}"
    else:
        result, error = (
            None,
            f"the client returned a {type(returned).__name__}: return its result object (a dict), or None",
        )
    return ClientRun(command, 0, duration, False, "", "", result, error)
