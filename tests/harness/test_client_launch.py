"""The tests' own clients forked from a zygote (client_launch.py) are judged as their plain processes are: the same
outcome, the same outcome for every check, the same exit code, for correct runs and for defects that crash, exit
early, hang past a timeout or are killed."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import ScenarioResult

from .client_launch import FAKE_CLIENT, NO_ZYGOTE_ENV, OWN_PROCESS, fake_argv

#: (scenario, fake client arguments): a pass, MUST misses, a crash, a client that never calls, one that gives up, one
#: the harness kills at its timeout.
RUNS = [
    ("spec/conformant", ()),
    ("spec/conformant", ("--defect", "wrong-header")),
    ("spec/conformant", ("--defect", "crash")),
    ("spec/conformant", ("--defect", "never-connect")),
    ("faults/never-answers", ("--defect", "impatient")),
    ("faults/never-answers", ("--defect", "no-timeout")),
]


def verdict(result: ScenarioResult) -> tuple[object, ...]:
    client = result.client
    return (
        result.outcome,
        tuple(sorted((c.id, c.outcome.value) for c in result.checks)),
        client.exit_code if client else None,
        client.timed_out if client else None,
    )


@pytest.mark.parametrize(("scenario", "args"), RUNS, ids=[f"{s} {' '.join(a)}".strip() for s, a in RUNS])
def test_a_forked_client_gets_its_plain_process_verdict(
    catalogue: Catalogue, scenario: str, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(NO_ZYGOTE_ENV, raising=False)
    chosen = [replace(catalogue.get(scenario), timeout=min(catalogue.get(scenario).timeout, 4.0))]
    forked_argv = fake_argv(*args)
    assert forked_argv[0] != sys.executable, "this run goes through the zygote"
    plain = shlex.join([sys.executable, str(FAKE_CLIENT), *args])
    (forked,), _ = run_all(chosen, RunOptions(client=shlex.join(forked_argv), timeout=4.0))
    (alone,), _ = run_all(chosen, RunOptions(client=plain, timeout=4.0))
    assert verdict(forked) == verdict(alone)


def test_a_defect_about_the_process_tree_runs_as_a_plain_process() -> None:
    for defect in OWN_PROCESS:
        assert fake_argv("--defect", defect)[:2] == [sys.executable, str(FAKE_CLIENT)]
