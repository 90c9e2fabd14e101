"""Running the fake client (tests/harness/clients/fake_client.py) against catalogue scenarios, many cases at once.

A `Run` is one client run: a catalogue scenario, fake-client arguments (defects, bindings) and what the client
declares it supports. `run_cases` runs every distinct Run once through the real harness
(a2a_lab.harness.client_judging.runner.run_all, two scenarios at a time per client command, two commands at a time) and
returns the scored results.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Support
from a2a_lab.protocol.versions import Version
from tests.harness.client_launch import fake_command

JSONRPC: tuple[Support, ...] = ((Binding.JSONRPC, Version.V1_0), (Binding.JSONRPC, Version.V0_3))
REST: tuple[Support, ...] = ((Binding.HTTP_JSON, Version.V1_0),)
BOTH_1_0: tuple[Support, ...] = ((Binding.JSONRPC, Version.V1_0), (Binding.HTTP_JSON, Version.V1_0))
#: The fake client's --binding arguments for BOTH_1_0 and REST.
BOTH_ARGS = ("--binding", "jsonrpc", "--binding", "http+json")
REST_ARGS = ("--binding", "http+json")
#: Outcomes that judge nothing: a correct client may meet them on any check.
UNJUDGED = (Outcome.PASS, Outcome.SKIPPED, Outcome.INFORMATIONAL, Outcome.UNIMPLEMENTED)


@dataclass(frozen=True)
class Run:
    scenario: str
    args: tuple[str, ...] = ()
    supports: tuple[Support, ...] = JSONRPC

    def __str__(self) -> str:
        return f"{self.scenario} {' '.join(self.args)}".strip()


def run(scenario: str, *args: str, supports: tuple[Support, ...] = JSONRPC) -> Run:
    return Run(scenario, args, supports)


def defect(scenario: str, name: str, *args: str, supports: tuple[Support, ...] = JSONRPC) -> Run:
    return Run(scenario, ("--defect", name, *args), supports)


@dataclass(frozen=True)
class Miss:
    """A defective run and the check it must fail (at the check's level: FAIL for MUST, NON_STRICT for SHOULD)."""

    run: Run
    check: str
    outcome: Outcome = Outcome.FAIL
    #: Text the check's message, expected or actual value must contain.
    says: str = ""

    def __str__(self) -> str:
        return f"{self.check}:{self.run}"


def command(args: tuple[str, ...]) -> str:
    return fake_command(*args)


def run_cases(catalogue: Catalogue, runs: Iterable[Run], timeout: float = 20.0) -> dict[Run, ScenarioResult]:
    """Every distinct run once: runs sharing a command go through one run_all (jobs=2), two commands at a time."""
    groups: dict[tuple[tuple[str, ...], tuple[Support, ...]], list[Run]] = {}
    for r in dict.fromkeys(runs):
        groups.setdefault((r.args, r.supports), []).append(r)

    def one(key: tuple[tuple[str, ...], tuple[Support, ...]]) -> list[tuple[Run, ScenarioResult]]:
        args, supports = key
        members = groups[key]
        opts = RunOptions(client=command(args), timeout=timeout, jobs=2, supports=list(supports))
        # The tests' own, shorter, variant of a scenario whose subject is a wait (faults/never-answers): its own time is
        # the least `--timeout` gives it, and a hang is judged the same at any length.
        shorter = [replace(s, timeout=min(s.timeout, timeout)) for s in (catalogue.get(r.scenario) for r in members)]
        results, _ = run_all(shorter, opts)
        return list(zip(members, results, strict=True))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return {r: result for pairs in pool.map(one, list(groups)) for r, result in pairs}


def explain(result: ScenarioResult, check: CheckResult | None = None) -> str:
    client = result.client
    judged = "\n".join(
        f"  {c.id} {c.outcome.value}: {c.message} / expected {c.expected} / actual {c.actual}"
        for c in result.checks
        if c.outcome not in UNJUDGED
    )
    return (
        f"{result.id}: scenario {result.outcome.value}; check {check.to_json() if check else None}\n"
        f"client exit {client.exit_code if client else None}, result {client.result if client else None}\n{judged}\n"
        f"{(client.stderr_tail[-800:] if client else '')}"
    )


def assert_passes(result: ScenarioResult) -> None:
    """A correct client passes the scenario: no check misses, and the conclusion the scenario expects is reached."""
    assert result.outcome is Outcome.PASS, explain(result)
    expected = result.check("RESULT-EXPECTED")
    assert expected is not None and expected.outcome in (Outcome.PASS, Outcome.SKIPPED), explain(result, expected)


def assert_misses(miss: Miss, result: ScenarioResult) -> None:
    check = result.check(miss.check)
    assert check is not None, explain(result)
    assert check.outcome is miss.outcome, explain(result, check)
    if miss.outcome in (Outcome.FAIL, Outcome.NON_STRICT):
        assert check.expected and check.actual, "a miss states what was expected and what was seen"
        # The scenario fails with it (a SHOULD miss makes it at least NON_STRICT).
        assert result.outcome in (
            (Outcome.FAIL,) if miss.outcome is Outcome.FAIL else (Outcome.FAIL, Outcome.NON_STRICT)
        ), explain(result, check)
    if miss.says:
        assert miss.says in f"{check.message} {check.expected} {check.actual}", explain(result, check)


def group_ids(catalogue: Catalogue, group: str) -> set[str]:
    return {sid for sid in catalogue.ids() if sid.startswith(group + "/")}
