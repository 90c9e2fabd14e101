"""The in-process API isolates each scenario's call as a process would (issue 45, item 11): a BaseException other
than KeyboardInterrupt raised in one scenario (SystemExit, asyncio.CancelledError, one of the client's own) is that
scenario's crash, not the end of the run; a callable that swallows its cancellation, or blocks its event loop, is
TIMEOUT and costs no other scenario its verdict. The attackers are callables of the tests' own."""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness import inprocess  # the documented import path (harness/inprocess.py)
from a2a_lab.harness.common.model import Outcome

from .test_inprocess import FIRST, SECOND, minimal


class ClientsOwnError(BaseException):
    """A BaseException of the client's own (some libraries define them)."""


def _named(scenario: Callable[[str], Scenario], ref: str, name: str, **changes: Any) -> Scenario:
    return replace(scenario(ref), id=f"lab/{name}", **changes)


def test_a_base_exception_in_one_scenario_is_its_crash_and_the_run_goes_on(
    scenario: Callable[[str], Scenario],
) -> None:
    """Before: SystemExit or CancelledError from one callable ended `inprocess.run` with no results at all."""
    raising: dict[str, BaseException] = {
        "lab/exits": SystemExit(3),
        "lab/cancelled": asyncio.CancelledError(),
        "lab/own": ClientsOwnError("the client's own"),
    }

    async def client(job: inprocess.Assignment) -> Any:
        result = await minimal(job)
        if job.scenario in raising:
            raise raising[job.scenario]
        return result

    survives = replace(scenario(FIRST).expect, survives=True)  # judged on CLIENT-SURVIVES, as a crash is
    chosen = [_named(scenario, FIRST, name.removeprefix("lab/"), expect=survives) for name in [*raising, "lab/fine"]]
    outcome = inprocess.run(client, chosen, jobs=2)
    by_id = {r.id: r for r in outcome.results}
    assert by_id["lab/fine"].outcome is Outcome.PASS, outcome.scorecard()
    for name, exc in raising.items():
        run = by_id[name].client
        check = by_id[name].check("CLIENT-SURVIVES")
        assert by_id[name].outcome is Outcome.FAIL and check is not None and check.outcome is Outcome.FAIL
        assert run is not None and not run.timed_out and type(exc).__name__ in run.stderr_tail
    assert by_id["lab/exits"].client.exit_code == 3  # type: ignore[union-attr]  # as sys.exit(3) ends a process
    assert by_id["lab/cancelled"].client.exit_code == 1  # type: ignore[union-attr]


def test_a_callable_that_swallows_its_cancellation_is_timeout(scenario: Callable[[str], Scenario]) -> None:
    """Before: cancelled at its time, it went on (here for 8 s, in a 1 s scenario), answered, and was scored on
    that answer."""

    async def stubborn(job: inprocess.Assignment) -> Any:
        ends = time.monotonic() + 8
        while time.monotonic() < ends:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue  # ignores being cancelled
        return await minimal(job)

    (result,) = inprocess.run(stubborn, [_named(scenario, FIRST, "stubborn", timeout=1.0)]).results
    assert result.outcome is Outcome.TIMEOUT and result.client is not None and result.client.timed_out
    assert result.client.duration < 8  # its time, not the time it took


def test_a_callable_that_blocks_its_loop_is_timeout_and_its_neighbour_keeps_its_verdict(
    scenario: Callable[[str], Scenario],
) -> None:
    """Before: one callable's `time.sleep(10)` blocked the loop every scenario shared; the neighbour it blocked in
    the middle of its turn, with 5 s to do 1 s of work, was scored TIMEOUT."""
    neighbour_started = threading.Event()

    async def client(job: inprocess.Assignment) -> Any:
        if job.scenario == "lab/neighbour":
            neighbour_started.set()
            await asyncio.sleep(1)
        else:
            while not neighbour_started.is_set():
                await asyncio.sleep(0.01)
            time.sleep(10)  # blocks the event loop it runs in, the neighbour's turn under way
        return await minimal(job)

    chosen = [_named(scenario, FIRST, "blocks", timeout=4.0), _named(scenario, SECOND, "neighbour", timeout=5.0)]
    by_id = {r.id: r for r in inprocess.run(client, chosen, jobs=2).results}
    assert by_id["lab/blocks"].outcome is Outcome.TIMEOUT
    assert by_id["lab/neighbour"].outcome is Outcome.PASS, by_id["lab/neighbour"].client


def test_keyboard_interrupt_still_ends_the_run(scenario: Callable[[str], Scenario]) -> None:
    async def interrupted(job: inprocess.Assignment) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        inprocess.run(interrupted, [_named(scenario, FIRST, "interrupted")])


REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST_ID", default="unset")


def test_the_callers_context_variables_reach_the_callable(scenario: Callable[[str], Scenario]) -> None:
    seen: list[str] = []

    async def client(job: inprocess.Assignment) -> Any:
        seen.append(REQUEST_ID.get())
        return await minimal(job)

    async def main() -> inprocess.InProcessRun:
        REQUEST_ID.set("from the caller")
        return await inprocess.run_async(client, [_named(scenario, FIRST, "context")])

    assert asyncio.run(main()).passed and seen == ["from the caller"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX only, as the harness")
def test_a_callable_that_returns_in_time_leaves_no_thread_behind(scenario: Callable[[str], Scenario]) -> None:
    before = {t.name for t in threading.enumerate()}
    assert inprocess.run(minimal, [_named(scenario, FIRST, "tidy")]).passed
    left = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("a2a-lab-inprocess") for name in left), left
