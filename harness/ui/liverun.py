"""A client under test, live: a run of the shared server (lab.py), started through its admin API as `a2a-lab drive`
starts one, with the scenarios the page chose. The client is started by the user, pointed at each scenario's card
URL; as its traffic arrives, each scenario is scored on its journal so far (runner.score, as `a2a-lab score` scores
it); at the end the whole run is scored exactly as `a2a-lab score --run ID` scores a self-driven client
(cli/score.py's `collect`, then runner.score_all), and the report files are written as `--report-dir` writes them."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import runner, scoring
from a2a_lab.harness.client_judging.run_file import collect
from a2a_lab.harness.common.secrecy import RUN_TOKEN_ENV
from a2a_lab.harness.reports import files, json_report


@dataclass
class LiveRun:
    id: str
    scenarios: list[Scenario]
    shared: runner.SharedRun
    seed: int
    #: The origin the page shows for the shared server (the name the browser used).
    origin: str
    #: Where the report files go at the end.
    folder: Path
    started: float = field(default_factory=time.monotonic)
    #: The latest result of each scenario that saw traffic (JSON report form), provisional until `finish`.
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    traffic: dict[str, int] = field(default_factory=dict)
    #: The JSON report once the run is finished.
    report: dict[str, Any] | None = None
    problem: str | None = None
    #: The report's id on the report page, once finished.
    report_id: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def run_id(self) -> str:
        return self.shared.run_id

    def card_url(self, scenario: Scenario) -> str:
        return f"{self.origin}/runs/{self.run_id}/{scenario.id}/.well-known/agent-card.json"

    def score_command(self) -> str:
        """The command line that scores this very run (the same traffic) as the page does."""
        chosen = " ".join(f"--scenario {s.id}" for s in self.scenarios)
        return (
            f"{RUN_TOKEN_ENV}=<the run's token> a2a-lab score --server {self.shared.run.server.url} "
            f"--run {self.run_id} {chosen} --json report.json"
        )

    @property
    def done(self) -> bool:
        return self.report is not None or self.problem is not None

    def signature(self) -> tuple[Any, ...]:
        """What changes when there is more to show: the traffic of each scenario, the end."""
        if self.done:
            return ("done", self.problem)
        traffic = self.shared.run.info().get("traffic") or {}
        return tuple(sorted((str(k), int(v)) for k, v in traffic.items() if isinstance(v, int)))

    def refresh(self) -> None:
        """Score again each scenario whose traffic grew (with the supports the client has shown in the run so far)."""
        with self._lock:
            if self.done:
                return
            traffic = self.shared.run.info().get("traffic") or {}
            chosen = {s.id: s for s in self.scenarios}
            changed = {sid for sid, n in traffic.items() if sid in chosen and self.traffic.get(sid) != n}
            if not changed:
                return
            self.traffic.update({sid: n for sid, n in traffic.items() if sid in chosen})
            raws = collect(self.shared, [s for s in self.scenarios if s.id in self.traffic], None, self.seed)
            opts = runner.RunOptions("(self-driven)", self.seed)
            supports = runner.infer_supports(raw.records for raw in raws)
            for raw in raws:
                if raw.scenario.id in changed:
                    self.results[raw.scenario.id] = runner.score(raw, supports, opts).to_json()

    def finish(self) -> dict[str, Any]:
        """Score the whole run as `a2a-lab score --run` does, write the report folder, end the run."""
        with self._lock:
            if self.report is not None:
                return self.report
            opts = runner.RunOptions("(self-driven)", self.seed)
            raws = collect(self.shared, self.scenarios, None, self.seed)
            results, supported = runner.score_all(raws, opts)
            summary = scoring.summary(results, False)
            meta = {
                "client": f"self-driven (run {self.run_id} on {self.shared.run.server.url})",
                "seed": self.seed,
                "run": self.run_id,
                "strict": False,
                "supports": sorted(f"{b.value}@{v.value}" for b, v in supported),
            }
            report = json_report.build(results, summary, meta)
            files.write_dir(self.folder, report, results, False)
            try:
                self.shared.run.end()
            except Exception:  # the run's journals are in the report already; a server gone is no loss here
                pass
            self.results = {r["id"]: r for r in report["scenarios"]}
            self.report = report
            return report
