"""Verifying a check proof: a run of a client, the check it must reach, and how the scenario must end.

Shared by test_checks.py, test_checks_actions.py and test_checks_tls.py (their Proof records carry case, check,
outcome, says, scenario).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from a2a_lab.harness.common.model import CheckResult, Outcome, ScenarioResult

UNJUDGED = (Outcome.PASS, Outcome.SKIPPED, Outcome.INFORMATIONAL, Outcome.UNIMPLEMENTED)


def explain(result: ScenarioResult, check: CheckResult | None) -> str:
    client = result.client
    others = "\n".join(
        f"  {c.id} {c.outcome.value}: {c.message} / {c.actual}" for c in result.checks if c.outcome not in UNJUDGED
    )
    return (
        f"{result.id}: scenario {result.outcome.value}; check {check.to_json() if check else None}\n{others}\n"
        f"client exit {client.exit_code if client else None}, result {client.result if client else None}\n"
        f"{client.stderr_tail[-800:] if client else ''}"
    )


def verify(proof: Any, outcomes: dict[Any, ScenarioResult]) -> None:
    result = outcomes[proof.case]
    check = result.check(proof.check)
    assert check is not None, explain(result, check)
    assert check.outcome is proof.outcome, explain(result, check)
    if proof.says:
        assert proof.says in f"{check.message} {check.expected} {check.actual}", explain(result, check)
    if proof.scenario is not None:
        assert result.outcome is proof.scenario, explain(result, check)


K = TypeVar("K", bound=Hashable)


def run_each(cases: Iterable[K], one: Callable[[K], ScenarioResult]) -> dict[K, ScenarioResult]:
    """Every distinct case run once, two at a time (each with its own server and client process)."""
    distinct = sorted(set(cases), key=str)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(distinct, pool.map(one, distinct), strict=True))
