"""The `a2a_lab` pytest fixture: serve a scenario for one test, run your client, then score what it sent.

def test_my_client_handles_method_not_found(a2a_lab):
    lab = a2a_lab.serve("quirks/advertised-method-not-found")
    my_client.send(lab.card_url, "hello")
    score = lab.score()
    assert score.passed, score
    assert score.check("NO-RETRY-LOOP").outcome == "PASS"

A failed test that scored shows, under "a2a-lab score", a line per scenario it scored and each missed check once
(requirement, spec section, the scenarios it missed in, the first one's evidence): the console's layout
(reports/rollup). At the end of the session a section "a2a-lab" sums up every scenario scored: outcomes overall and
per group, checks passed per level, and the missed checks a line each. (Under pytest-xdist each worker scores its
own tests, and the end-of-session section is not shown.)
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from a2a_lab.contract.catalogue import Catalogue, resolve
from a2a_lab.contract.journal_record import entries_from_json
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness import inprocess
from a2a_lab.harness.client_judging import runner, scoring
from a2a_lab.harness.client_judging.causes import cause_first
from a2a_lab.harness.client_judging.journal_view import RunView
from a2a_lab.harness.common import escape
from a2a_lab.harness.common.model import GATING, MISSES, CheckResult, Outcome, ScenarioResult
from a2a_lab.harness.common.outcome import scenario_outcome
from a2a_lab.harness.reports import console, rollup
from a2a_lab.harness.reports.failure import failure_lines, more_command
from a2a_lab.protocol.cards import WELL_KNOWN_PATH, Support, parse_support
from a2a_lab.server import tls
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer


@dataclass(repr=False)
class Score:
    """The check results for what the client sent so far. Its text (str and repr: `assert score.passed, score`
    prints it) names each missed check, causes first, with its rule, spec section, expected / actual, the quoted
    request, the fix and the command that tells the scenario's story."""

    outcome: Outcome
    checks: list[CheckResult]
    #: The scenario scored, for the command that tells its whole story (`a2a-lab scenarios show ID`).
    scenario: str = ""
    group: str = ""

    @property
    def passed(self) -> bool:
        return self.outcome not in GATING

    def check(self, check_id: str) -> CheckResult:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(f"no check {check_id!r}; known: {', '.join(c.id for c in self.checks)}")

    def failures(self) -> list[CheckResult]:
        """The missed checks, causes before symptoms."""
        return [c for c in cause_first(self.checks) if c.outcome in MISSES]

    def __str__(self) -> str:
        lines = [f"a2a-lab: {self.outcome.value}"]
        more = more_command(self.scenario, self.group) if self.scenario else None
        for c in self.failures():
            lines += ["  " + line for line in failure_lines(c, more)]
        return escape.console("\n".join(lines))

    __repr__ = __str__


@dataclass
class ServedScenario:
    scenario: Scenario
    app: ScenarioApp
    server: BackgroundServer
    supports: list[Support] | None = None
    _closed: bool = field(default=False, repr=False)
    #: The latest score, shown under a failed test's report (section "a2a-lab").
    last_score: Score | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return self.scenario.served_at(self.server.url)  # under the scenario's `base_path`, if it has one

    @property
    def card_url(self) -> str:
        return self.base_url + WELL_KNOWN_PATH

    @property
    def message(self) -> str:
        """The text the scenario asks the client to send."""
        return self.scenario.client.message

    @property
    def action(self) -> dict[str, Any]:
        return dict(self.scenario.client.action)

    @property
    def journal(self) -> list[dict[str, Any]]:
        """Every request so far, as the server recorded it (live)."""
        entries: list[dict[str, Any]] = self.app.state.journal.snapshot()["entries"]
        return entries

    def score(
        self,
        result: dict[str, Any] | None = None,
        supports: str | list[Support] | None = None,
        *,
        exit_code: int | None = None,
        stderr: str = "",
        timed_out: bool = False,
    ) -> Score:
        """Score the traffic so far. `result` is what your client understood ({"kind", "state", "text"}), if you
        want RESULT-MATCHES judged; `supports` declares your client's bindings (`"jsonrpc@1.0"`), else inferred from
        this scenario alone (`a2a-lab run` infers from the whole run: declare them for the same verdict). A client
        run as a process may say how it ended (`exit_code`, the end of its `stderr`, `timed_out`), as `a2a-lab run`
        records it: the checks that judge a crash or a hang read them."""
        entries = entries_from_json(self.journal)
        declared = parse_support(supports) if isinstance(supports, str) else (supports or self.supports)
        pairs = set(declared) if declared else runner.infer_supports([entries])
        card = runner.served_card(self.app, self.base_url)
        view = RunView(
            self.base_url,
            card,
            entries,
            pairs,
            result,
            exit_code,
            self.scenario.client.action,
            None,
            self.scenario.expect,
            timed_out,
            stderr,
            alt_base_url=self.app.state.alt_base(self.base_url),
        )
        checks = scoring.evaluate(view)
        outcome = scenario_outcome(
            checks, timed_out, bool(entries), None, self.scenario.checks, scoring.subject_of(view)
        )
        score = Score(outcome, checks, self.scenario.id, self.scenario.group)
        self.last_score = score
        return score

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.server.stop()


class Lab:
    """What the `a2a_lab` fixture gives a test: `serve(scenario)` starts a real server on a free loopback port."""

    def __init__(self) -> None:
        self._served: list[ServedScenario] = []
        self._catalogue: Catalogue | None = None
        self._runs: list[inprocess.InProcessRun] = []

    def serve(self, scenario: str, seed: int = 0, supports: str | None = None) -> ServedScenario:
        """A catalogue id (`quirks/advertised-method-not-found`) or a path to a scenario YAML file."""
        if self._catalogue is None:
            self._catalogue = Catalogue.load()
        loaded = resolve(scenario, self._catalogue)
        app = ScenarioApp(loaded, seed=seed)
        context = tls.context_for(loaded.tls, lambda: app.state.journal)  # a tls/ scenario: the lab CA, tls.pki()
        server = BackgroundServer(app, ssl_context=context).start()
        app.hosted(server)
        served = ServedScenario(loaded, app, server, parse_support(supports) if supports else None)
        self._served.append(served)
        return served

    def run_client(
        self, client: inprocess.Client, scenarios: Iterable[str | Scenario] | None = None, **options: Any
    ) -> inprocess.InProcessRun:
        """Run an async client in process over the catalogue or a selection, `a2a-lab run`'s way (a fresh server per
        scenario, the same scoring and reports) without a process per scenario:
        a2a_lab.harness.inprocess.run, whose options it takes (`jobs`, `timeout`, `supports`, ...). Its
        results join the session's summary."""
        outcome = inprocess.run(client, scenarios, **options)
        self._runs.append(outcome)
        return outcome

    def scenarios(self) -> list[str]:
        if self._catalogue is None:
            self._catalogue = Catalogue.load()
        return self._catalogue.ids()

    def close(self) -> None:
        for served in self._served:
            served.close()

    def missed(self) -> list[str]:
        """Each served scenario's latest score that missed a check or did not pass, as text."""
        return [
            f"{served.scenario.id}: {served.last_score}"
            for served in self._served
            if served.last_score is not None and (served.last_score.failures() or not served.last_score.passed)
        ] + [
            f"{r.id}: {r.outcome.value}"
            for run in self._runs
            for r in run.results
            if r.outcome in GATING or any(c.outcome in MISSES for c in r.checks)
        ]

    def results(self, label: str = "") -> list[ScenarioResult]:
        """Each served scenario's latest score, as a scenario's result (its id prefixed with `label`, when given)."""
        return [
            ScenarioResult(
                f"{label}[{served.scenario.id}]" if label else served.scenario.id,
                served.scenario.title,
                served.scenario.group,
                served.last_score.outcome,
                served.last_score.checks,
                None,
                0,
                0.0,
            )
            for served in self._served
            if served.last_score is not None
        ] + [
            replace(result, id=f"{label}[{result.id}]" if label else result.id)
            for run in self._runs
            for result in run.results
        ]

    def report(self) -> str | None:
        """The scores of this test, as the console lays a run out: a line per scenario scored, then each missed check
        once with the first scenario's evidence. None when every score passed without a miss."""
        if not self.missed():
            return None
        results = self.results()
        lines = [escape.console(f"{r.id}: a2a-lab: {r.outcome.value}") + _detail(r) for r in results]
        return "\n".join(lines + rollup.rollup_lines(rollup.missed(results)))


def _detail(result: ScenarioResult) -> str:
    said = console.detail(result)
    return f" — {escape.console(said)}" if said else ""


#: Every scenario scored in the session (the latest score of each served one), for the end-of-session summary.
_SCORED = pytest.StashKey[list[ScenarioResult]]()


@pytest.fixture
def a2a_lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    """Serve a2a-lab scenarios for this test; every server stops when the test ends."""
    lab = Lab()
    try:
        yield lab
    finally:
        lab.close()
        request.config.stash.setdefault(_SCORED, []).extend(lab.results(request.node.name))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The session's scores summed up as the console does (reports/rollup): outcomes overall and per group, checks
    passed per level, then the missed checks a line each (the evidence is under each failed test)."""
    results = config.stash.get(_SCORED, [])
    if not results:
        return
    paint = console.painter(bool(getattr(terminalreporter, "hasmarkup", False)))
    terminalreporter.write_sep("=", "a2a-lab")
    summary = scoring.summary(results, False)
    for line in rollup.summary_lines(results, summary, "scored scenario", paint):
        terminalreporter.write_line(line)
    missed = rollup.missed(results)
    if missed:
        terminalreporter.write_line(f"{rollup.counted(len(missed), 'check')} missed (in test[scenario]):")
        for line in rollup.rollup_lines(missed, "scored scenario", paint, evidence=False):
            terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test that scored a client shows each miss in full (requirement, expected / actual, the request),
    whatever its assertion printed."""
    report = yield
    lab = getattr(item, "funcargs", {}).get("a2a_lab")
    if report.when == "call" and report.failed and isinstance(lab, Lab):
        text = lab.report()
        if text is not None:
            report.sections.append(("a2a-lab score", text))
    return report
