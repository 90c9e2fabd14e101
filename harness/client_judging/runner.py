"""Running a client against scenarios: each served on a stage (a fresh local server per scenario, or a run of a
shared server), the client in its own process group, then scoring from the server's journal (and the client's
optional result file)."""

from __future__ import annotations

import copy
import json
import os
import queue
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from a2a_lab.contract import handshake
from a2a_lab.contract.journal_record import Entry, entries_from_json
from a2a_lab.contract.scenario import Scenario, Tls
from a2a_lab.harness.client_judging import environment, process, schedule, scoring
from a2a_lab.harness.client_judging.baseline import Baseline
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.client_judging.loop import INLINE_RESULT, LoopClient
from a2a_lab.harness.client_judging.process import LOOP_MODE, PROCESS_MODE, command_for, loop_command
from a2a_lab.harness.client_judging.remote import RemoteError, RemoteRun, RemoteServer
from a2a_lab.harness.common.model import ClientRun, Outcome, ScenarioResult
from a2a_lab.harness.common.outcome import GIVES_UP, scenario_outcome
from a2a_lab.protocol import jsontext
from a2a_lab.protocol.cards import WELL_KNOWN_PATH, Support
from a2a_lab.server import tls as lab_tls
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

RESULT_LIMIT = 1024 * 1024
#: Deepest nesting of A2A_LAB_RESULT (it holds a kind, a state and a text; reports walk it recursively).
RESULT_DEPTH = 32


@dataclass
class RunOptions:
    client: str
    seed: int = 0
    timeout: float | None = None
    jobs: int = 1
    strict: bool = False
    supports: list[Support] | None = None
    baseline: Baseline | None = None
    #: More of the client's environment, asked for explicitly (`--client-env`): it gets only these, an allow-list of
    #: the harness's own (environment.INHERITED) and the handshake's variables.
    env: dict[str, str] = field(default_factory=dict)
    #: Where the server reaches the client's webhooks (A2A_LAB_WEBHOOK_HOST): client and server on different hosts.
    webhook_host: str | None = None
    #: Stops every client at once when the run is interrupted (a2a-lab run's Ctrl-C, SIGTERM).
    stopper: process.Stopper | None = None
    #: PROCESS_MODE (a client process per scenario) or LOOP_MODE (one per worker, the loop handshake).
    client_mode: str = PROCESS_MODE
    #: A scenario whose client waits on the server (off the CPU) gives its `jobs` slot up (schedule.py); False: `jobs`
    #: scenarios at a time, whatever they do.
    overlap_waits: bool = True


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
    #: From the client's end to the server's stop: reading the result and the journal, stopping the server.
    teardown_cost: float = 0.0
    #: The run was interrupted while (or before) the client ran: nothing here can be judged.
    interrupted: bool = False
    #: The same server on another origin (what `{alt_base_url}` read there).
    alt_base_url: str | None = None

    @classmethod
    def of(
        cls,
        scenario: Scenario,
        evidence: Evidence,
        client: ClientRun,
        seed: int,
        duration: float,
        setup_cost: float,
        error: str | None = None,
    ) -> RawRun:
        return cls(
            scenario,
            evidence.base_url,
            evidence.card,
            evidence.journal,
            evidence.dropped,
            client,
            seed,
            duration,
            setup_cost,
            error,
            alt_base_url=evidence.alt_base_url,
        )

    @property
    def records(self) -> list[Entry]:
        """The journal as typed records (read once)."""
        if self._records is None:
            self._records = entries_from_json(self.journal)
        return self._records

    _records: list[Entry] | None = field(default=None, init=False, repr=False, compare=False)


def handshake_fields(
    scenario: Scenario, card_url: str, base_url: str, result_path: str, more: dict[str, str] | None = None
) -> dict[str, str]:
    """The handshake's variables for one scenario (a client process's environment holds them; a loop client gets
    them as its scenario's line): `more` (a TLS scenario's CA, the webhook host), then the scenario's."""
    fields = dict(more or {})
    fields.update(
        {
            handshake.ENV_CARD_URL: card_url,
            handshake.ENV_BASE_URL: base_url,
            handshake.ENV_SCENARIO: scenario.id,
            handshake.ENV_MESSAGE: scenario.client.message,
            handshake.ENV_RESULT: result_path,
            handshake.ENV_ACTION: json.dumps(scenario.client.action, separators=(",", ":")),
        }
    )
    return fields


def base_env(extra: dict[str, str]) -> dict[str, str]:
    """A client's environment before the handshake: an allow-list of this process's (environment.inherited), then
    what was asked for explicitly (`extra`)."""
    env = environment.inherited(os.environ)
    env.update(extra)
    return env


def client_env(
    scenario: Scenario,
    card_url: str,
    base_url: str,
    result_path: str,
    extra: dict[str, str],
    more: dict[str, str] | None = None,
) -> dict[str, str]:
    """The client's whole environment: an allow-list of this process's (environment.inherited), what was asked for
    explicitly (`extra`), then the handshake: `more` (a TLS scenario's CA, the webhook host) and the scenario's."""
    env = base_env(extra)
    env.update(handshake_fields(scenario, card_url, base_url, result_path, more))
    return env


def new_loop_client(opts: RunOptions) -> LoopClient:
    """A worker's loop client: the run's command, the environment a client process would get before the handshake."""
    env = base_env(opts.env)
    if opts.webhook_host:
        env[handshake.ENV_WEBHOOK_HOST] = opts.webhook_host
    return LoopClient(loop_command(opts.client), env, opts.stopper)


def read_result(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The client's A2A_LAB_RESULT: (the object, None), (None, None) when it wrote none, or (None, why it cannot be
    read). Whatever the client left there (a directory, a FIFO, a huge or deeply nested file), the answer is one of
    these: the run goes on, and RESULT-MATCHES says the result is unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the harness
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"A2A_LAB_RESULT cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None, "A2A_LAB_RESULT is not a regular file (write a JSON object to that path)"
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(RESULT_LIMIT + 1)
        except OSError as exc:
            return None, f"A2A_LAB_RESULT cannot be read: {exc.strerror or exc}"
    return parse_result(raw)


def parse_result(raw: bytes, subject: str = "A2A_LAB_RESULT") -> tuple[dict[str, Any] | None, str | None]:
    """A result's bytes (a result file's, a loop answer's object) read as read_result reads a file; `subject`: what
    its errors call it."""
    if not raw:
        return None, None
    if len(raw) > RESULT_LIMIT:
        return None, f"{subject} is larger than {RESULT_LIMIT} bytes"
    try:
        data = jsontext.loads(raw)
    except UnicodeDecodeError as exc:
        return None, f"{subject} is not UTF-8 text (byte 0x{raw[exc.start]:02X} at position {exc.start})"
    except RecursionError:
        return None, f"{subject} is nested deeper than {RESULT_DEPTH} levels"
    except ValueError as exc:
        return None, f"{subject} is not JSON: {exc}"
    if not isinstance(data, dict):
        return None, f"{subject} must hold a JSON object"
    if not jsontext.within_depth(data, RESULT_DEPTH):
        return None, f"{subject} is nested deeper than {RESULT_DEPTH} levels"
    return data, None


@dataclass
class Evidence:
    """What a server saw of one scenario run: where it was served, its card, its journal."""

    base_url: str
    card: Any
    journal: list[dict[str, Any]]
    dropped: int
    #: The same server on another origin, as the card's `{alt_base_url}` named it (None: the loopback alias).
    alt_base_url: str | None = None


@dataclass
class Hosted:
    """One scenario being served: the base URL the client is given, and how to read back what the server saw."""

    base_url: str
    evidence: Callable[[], Evidence]
    #: More of the client's environment (a TLS scenario's CA and client certificate).
    env: dict[str, str] = field(default_factory=dict)


class Stage(Protocol):
    """Where a client meets each scenario: a fresh local server per scenario, or a run of a shared server."""

    def host(self, scenario: Scenario) -> AbstractContextManager[Hosted]: ...


def served_card(app: ScenarioApp, base_url: str) -> Any:
    """The card a local scenario server serves at `base_url`, parsed (None when it is not JSON)."""
    try:
        return json.loads(app.state.card_bytes(base_url))
    except ValueError:
        return None


@dataclass
class LocalServers:
    """A fresh server of its own for every scenario, on a loopback port, stopped when the client is done."""

    seed: int = 0

    @contextmanager
    def host(self, scenario: Scenario) -> Iterator[Hosted]:
        app = ScenarioApp(scenario, seed=self.seed)  # its admin token is random, and never leaves this process
        context = lab_tls.context_for(scenario.tls, lambda: app.state.journal)
        with BackgroundServer(app, ssl_context=context) as server:
            base_url = scenario.served_at(server.url)
            app.hosted(server)

            def evidence() -> Evidence:
                server.quiesce()  # the answers in flight written down first: the client may be quicker than they
                snapshot = app.state.journal.snapshot()
                return Evidence(
                    base_url,
                    served_card(app, base_url),
                    snapshot["entries"],
                    snapshot["dropped"],
                    app.state.alt_base(base_url),
                )

            yield Hosted(
                base_url,
                evidence,
                tls_env(scenario.tls) if scenario.tls is not None else {},
            )


def tls_env(served: Tls) -> dict[str, str]:
    """What a client of a scenario served over TLS is given: the lab CA under every conventional name, and for mutual
    TLS its certificate and key."""
    made = lab_tls.pki()
    env = {name: str(made.ca_file) for name in (handshake.ENV_CA_FILE, *handshake.CA_BUNDLE_VARIABLES)}
    if served.client_certificate:
        env[handshake.ENV_CLIENT_CERT_FILE] = str(made.client_cert_file)
        env[handshake.ENV_CLIENT_KEY_FILE] = str(made.client_key_file)
    return env


@dataclass
class SharedRun:
    """A run on a long-lived shared server (`a2a-lab serve`): the run isolates this client's traffic, and only this
    harness holds the run's token."""

    run: RemoteRun

    @classmethod
    def start(cls, server: RemoteServer, seed: int) -> SharedRun:
        return cls(server.start_run(seed))

    @property
    def run_id(self) -> str:
        return self.run.id

    def evidence(self, scenario: Scenario) -> Evidence:
        """What the shared server journaled for one scenario of the run."""
        journal = self.run.journal(scenario.id)
        facts = self.run.facts(scenario.id)
        try:
            card = json.loads(facts.get("card") or "null")
        except ValueError:
            card = None
        alt = facts.get("alt_base_url")
        return Evidence(
            scenario.served_at(self.run.base_url(scenario.id)),
            card,
            journal["entries"],
            journal.get("dropped", 0),
            alt if isinstance(alt, str) else None,
        )

    @contextmanager
    def host(self, scenario: Scenario) -> Iterator[Hosted]:
        yield Hosted(scenario.served_at(self.run.base_url(scenario.id)), lambda: self.evidence(scenario))

    def collect(
        self, scenario: Scenario, client: ClientRun, seed: int, duration: float = 0.0, error: str | None = None
    ) -> RawRun:
        """A RawRun of traffic a client produced in the run (`a2a-lab score`): by itself, or driven by `a2a-lab
        drive`, which hands over what the client's process did (`client`) in the run file."""
        return RawRun.of(scenario, self.evidence(scenario), client, seed, duration, 0.0, error)


def run_one(
    scenario: Scenario,
    opts: RunOptions,
    stage: Stage,
    loop: LoopClient | None = None,
    on_start: Callable[[int], None] | None = None,
) -> RawRun:
    """Serve one scenario on `stage`, run the client against it (a process of its own, or a turn of the worker's
    `loop` client), and read back what the server saw. `on_start` is told the client's process group."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="a2a-lab-") as tmp, stage.host(scenario) as hosted:
        base_url = hosted.base_url
        card_url = base_url + WELL_KNOWN_PATH
        result_path = Path(tmp) / "result.json"
        setup = time.monotonic() - started
        more = dict(hosted.env)
        if opts.webhook_host:
            more[handshake.ENV_WEBHOOK_HOST] = opts.webhook_host
        fields = handshake_fields(scenario, card_url, base_url, str(result_path), more)
        limit = time_limit(scenario, opts.timeout)
        inline: bytes | None = None
        answer_error: str | None = None
        if loop is None:
            argv = command_for(opts.client, card_url, base_url)
            env = {**base_env(opts.env), **fields}
            finished = process.run(argv, env, limit, stopper=opts.stopper, on_start=on_start)
        else:
            argv = loop.argv
            turn = loop.turn(fields, limit, on_start)
            finished, answer_error = turn.finished, turn.answer_error
            inline = turn.answer.raw if turn.answer is not None else None
        ended = time.monotonic()
        result, result_error = parse_result(inline, INLINE_RESULT) if inline is not None else read_result(result_path)
        evidence = hosted.evidence()
    teardown = time.monotonic() - ended
    client = ClientRun(
        argv,
        finished.exit_code,
        round(finished.duration, 3),
        finished.timed_out,
        finished.stdout,
        finished.stderr,
        None if answer_error else result,
        answer_error or result_error,
        finished.start_error,
    )
    if loop is not None:
        loop.last = client
    raw = RawRun.of(scenario, evidence, client, opts.seed, time.monotonic() - started, setup, finished.start_error)
    raw.teardown_cost = teardown
    raw.interrupted = finished.interrupted
    return raw


def time_limit(scenario: Scenario, timeout: float | None) -> float:
    """The client's time in a scenario: `--timeout` where given, else the scenario's own; never less than the
    scenario's own where how long the client waits is what the scenario judges (GIVES-UP), so that the verdict is the
    same whatever `--timeout` says."""
    if timeout is None:
        return scenario.timeout
    return max(timeout, scenario.timeout) if GIVES_UP in scenario.checks else timeout


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
        run.client.timed_out,
        run.client.stderr_tail,
        client_stdout=run.client.stdout_tail,
        alt_base_url=run.alt_base_url,
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
    notes = opts.baseline.apply_checks(result, opts.strict) if opts.baseline else []
    subject = scoring.subject_of(view)
    result.outcome = scenario_outcome(
        checks, run.client.timed_out, bool(run.journal), run.error, run.scenario.checks, subject
    )
    result.subject = subject.label
    if result.outcome is Outcome.UNIMPLEMENTED and subject.missing and not run.error:
        result.error = subject.missing
    if opts.baseline:
        notes += opts.baseline.apply_scenario(result, any(c.baseline for c in checks))
    if notes:
        result.error = "; ".join(notes) if not result.error else result.error + "; " + "; ".join(notes)
    result.harness_cost = run.setup_cost + (time.monotonic() - began)
    return result


def outcome_now(run: RawRun, opts: RunOptions, seen: set[Support]) -> Outcome:
    """A finished scenario's outcome at once, for its progress line, before the run is scored as a whole: with the
    supports declared (`--client-supports`), else those the client showed so far (`seen`, which this run's join).
    `score_all` infers them from the whole run, so where a later scenario shows a binding this one's score depends
    on, the scorecard's outcome may differ; with the supports declared they are the same. The baseline applies, on
    a copy: its stale entries are the final scoring's to record."""
    seen |= infer_supports([run.records])
    supports = set(opts.supports) if opts.supports else set(seen)
    provisional = replace(opts, baseline=copy.deepcopy(opts.baseline))
    return score(run, supports, provisional).outcome


#: How often the main thread wakes while it waits for a scenario's result (see `_next`).
WAKE_S = 0.25


def _next(finished: queue.SimpleQueue[RawRun | None]) -> RawRun | None:
    """The next scenario's result. Waited for in short steps: a signal (Ctrl-C, SIGTERM) that the kernel hands to a
    worker thread leaves the main thread asleep in a lock without running Python's handler, so an interrupted run
    went on until a scenario ended by itself (up to its time limit)."""
    while True:
        try:
            return finished.get(timeout=WAKE_S)
        except queue.Empty:
            continue


def execute_all(
    scenarios: list[Scenario],
    opts: RunOptions,
    progress: Callable[[RawRun, int, int], None] | None = None,
    stage: Stage | None = None,
) -> list[RawRun]:
    """Run the client against each scenario on `stage` (default: a local server of its own each); no scoring.
    When `opts.stopper` stops the run, the scenarios it cut short or never started are left out."""
    total = len(scenarios)
    where: Stage = stage or LocalServers(opts.seed)
    stopper = opts.stopper

    loops: queue.SimpleQueue[LoopClient] = queue.SimpleQueue()
    made: list[LoopClient] = []
    pending = queue.SimpleQueue[Scenario]()
    for s in schedule.order(scenarios):
        pending.put(s)
    finished: queue.SimpleQueue[RawRun | None] = queue.SimpleQueue()

    def loop_client() -> LoopClient | None:
        if opts.client_mode != LOOP_MODE:
            return None
        try:
            return loops.get_nowait()
        except queue.Empty:
            made.append(new_loop_client(opts))  # another worker: waiting scenarios hold theirs
            return made[-1]

    def one(s: Scenario, ticket: schedule.Ticket) -> RawRun | None:
        if stopper is not None and stopper.stopped:
            return None
        loop = loop_client()
        try:
            return run_one(s, opts, where, loop, ticket.started)
        except Exception as exc:
            empty = Evidence("", None, [], 0)
            client = ClientRun([], None, 0.0, False)
            return RawRun.of(s, empty, client, opts.seed, 0.0, 0.0, f"harness error: {type(exc).__name__}: {exc}")
        finally:
            if loop is not None:
                loops.put(loop)

    def worker(slots: schedule.Slots) -> None:
        while True:
            ticket = slots.acquire()
            try:
                s = pending.get_nowait()
            except queue.Empty:
                slots.release(ticket)
                return
            try:
                finished.put(one(s, ticket))
            finally:
                slots.release(ticket)

    done: dict[str, RawRun] = {}
    with schedule.Slots(max(1, opts.jobs), opts.overlap_waits) as slots:
        threads = [threading.Thread(target=worker, args=(slots,), daemon=True) for _ in range(slots.ceiling)]
        for thread in threads:
            thread.start()
        try:
            for _ in scenarios:
                raw = _next(finished)
                if raw is None or raw.interrupted or (stopper is not None and stopper.stopped and raw.error):
                    continue
                done[raw.scenario.id] = raw
                if progress:
                    progress(raw, len(done), total)
        finally:
            for thread in threads:
                thread.join()
            for client in made:
                client.close()
    return [done[s.id] for s in scenarios if s.id in done]


def run_all(
    scenarios: list[Scenario],
    opts: RunOptions,
    progress: Callable[[RawRun, int, int], None] | None = None,
    server: RemoteServer | None = None,
) -> tuple[list[ScenarioResult], set[Support]]:
    """Run the client against each scenario (on local servers, or in a new run of a shared `server`), then score the
    whole run."""
    if server is None:
        return score_all(execute_all(scenarios, opts, progress), opts)
    stage = SharedRun.start(server, opts.seed)
    try:
        raws = execute_all(scenarios, opts, progress, stage)
    finally:
        try:
            stage.run.end()  # the evidence is read: free the run's slot on the server at once
        except RemoteError:
            pass  # the server evicts it once idle
    return score_all(raws, opts)
