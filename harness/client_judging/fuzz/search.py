"""The search: hypothesis draws cases and runs each through the ordinary runner; on the first failure it shrinks
the case (hypothesis' own shrinker, over the same strategy) to the smallest one that still fails the same way.

One search is `hypothesis.find` with a seeded `random.Random`, so a seed gives the same cases in the same order.
A worker runs searches one after another (each its own round seed) until the budget is spent; a failure already
found is not a failure to a later round, so each round finds something new or nothing.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from a2a_lab.contract.loader import parse
from a2a_lab.harness.client_judging import runner
from a2a_lab.harness.client_judging.fuzz import SHRINK_RUNS, strategies
from a2a_lab.harness.client_judging.fuzz.oracles import Failure, failure
from a2a_lab.harness.common.model import ScenarioResult

#: The longest one shrink may take: what is left then is the smallest failing case found so far.
SHRINK_SECONDS = 300.0


class BudgetSpent(BaseException):
    """Raised through hypothesis (a BaseException, so it neither shrinks nor reports it) when the budget is spent."""


@dataclass
class Budget:
    """Cases or seconds, shared by the workers; counts every case run (shrinking ones too)."""

    cases: int | None = None
    seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    tried: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self) -> bool:
        """Count one more case, if the budget allows it."""
        with self._lock:
            if self.spent():
                return False
            self.tried += 1
            return True

    def spent(self) -> bool:
        """The cases or the seconds are used up."""
        if self.cases is not None and self.tried >= self.cases:
            return True
        return self.seconds is not None and time.monotonic() - self.started >= self.seconds

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


@dataclass
class Found:
    """A shrunk failure: the case's data, how it failed, and the round that found it."""

    data: dict[str, Any]
    failure: Failure
    round_seed: int
    shrink_runs: int


def run_case(data: dict[str, Any], opts: runner.RunOptions, case_id: str = "fuzz/case") -> ScenarioResult:
    """Serve one case's data to the client through the ordinary runner, and score it with the ordinary checks."""
    scenario = parse(data, case_id, "<a2a-lab fuzz>")
    raw = runner.run_one(scenario, opts, runner.LocalServers(opts.seed))
    supports = set(opts.supports) if opts.supports else runner.infer_supports([raw.records])
    return runner.score(raw, supports, opts)


@dataclass
class Search:
    """What every worker shares: the client options, the strategy's arguments, the budget, what was found."""

    opts: runner.RunOptions
    budget: Budget
    base: dict[str, Any] | None = None
    invalid: bool = False
    shrink_runs: int = SHRINK_RUNS
    on_case: Callable[[], None] = lambda: None
    on_found: Callable[[Found], None] = lambda found: None
    on_error: Callable[[str], None] = lambda why: None
    found: list[Found] = field(default_factory=list)
    _known: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def round(self, round_seed: int) -> Found | None:
        """One hypothesis search: None when it ended without a new failure. Raises BudgetSpent."""
        first: list[Failure] = []
        #: The cases run in this round (canonical JSON) and how each failed: hypothesis may draw one twice, and it
        #: replays the smallest failing case at the end, after the shrink budget is spent.
        seen: dict[str, Failure | None] = {}
        shrink = {"runs": 0}
        shrink_began = [0.0]

        def fails(data: dict[str, Any]) -> bool:
            if self.opts.stopper is not None and self.opts.stopper.stopped:
                raise BudgetSpent  # interrupted (Ctrl-C): no case more, and no finding from a killed client
            key = json.dumps(data, sort_keys=True)
            if key not in seen:
                if first and (
                    shrink["runs"] >= self.shrink_runs or time.monotonic() - shrink_began[0] > SHRINK_SECONDS
                ):
                    return False  # shrinking is over: hypothesis keeps the smallest failing case so far
                if not first and not self.budget.take():
                    raise BudgetSpent
                if first:
                    shrink["runs"] += 1
                try:
                    seen[key] = failure(run_case(data, self.opts))
                except Exception as exc:  # the harness's fault, not the client's: said, and not a finding
                    self.on_error(f"harness error: {type(exc).__name__}: {exc}")
                    seen[key] = None
                self.on_case()
            got = seen[key]
            if got is None:
                return False
            if first:
                if got.signature != first[0].signature:
                    return False
                first[-1:] = [got]  # the smallest case's own account, for its file
                return True
            with self._lock:
                if got.signature in self._known:
                    return False
                self._known.add(got.signature)
            first.append(got)
            shrink_began[0] = time.monotonic()
            return True

        config = settings(
            database=None,
            deadline=None,
            max_examples=10**9,
            phases=(Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
        )
        try:
            data = find(
                strategies.case(self.base, self.invalid), fails, settings=config, random=random.Random(round_seed)
            )
        except NoSuchExample:
            return None
        found = Found(data, first[-1], round_seed, shrink["runs"])
        with self._lock:
            self.found.append(found)
        self.on_found(found)
        return found

    def work(self, seed: int, worker: int) -> None:
        """Rounds until the budget is spent: round r of worker w draws from seed (seed, w, r)."""
        r = 0
        try:
            while not self.budget.spent():
                self.round(random.Random(f"{seed}/{worker}/{r}").getrandbits(64))
                r += 1
        except BudgetSpent:
            pass

    def run(self, seed: int, jobs: int) -> list[Found]:
        threads = [threading.Thread(target=self.work, args=(seed, w), daemon=True) for w in range(max(1, jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self.found
