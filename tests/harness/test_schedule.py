"""Waiting does not hold a worker (harness/client_judging/schedule.py): a scenario whose client is off the CPU gives its
`-j` slot up, a busy one keeps it, the longest expected waits start first, and `-j auto` is one slot per core."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.cli.options import jobs_value
from a2a_lab.harness.client_judging import schedule
from a2a_lab.harness.client_judging.runner import RawRun, RunOptions, execute_all, score_all
from a2a_lab.harness.common.model import Outcome

from .conftest import JSONRPC_BOTH, fake_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watcher reads /proc")


@pytest.fixture
def group() -> Iterator[Callable[[str], subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(code: str) -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen([sys.executable, "-c", code], start_new_session=True))
        return started[-1]

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def later(slots: schedule.Slots) -> tuple[threading.Thread, list[schedule.Ticket]]:
    got: list[schedule.Ticket] = []
    thread = threading.Thread(target=lambda: got.append(slots.acquire()), daemon=True)
    thread.start()
    return thread, got


def test_a_waiting_client_gives_its_slot_up(group: Callable[[str], subprocess.Popen[bytes]]) -> None:
    with schedule.Slots(1) as slots:
        first = slots.acquire()
        first.started(group("import time; time.sleep(60)").pid)
        thread, got = later(slots)
        thread.join(timeout=20)
        assert got, "a second scenario started while the first one's client slept"
        assert slots.released == 1 and not first.holding
        slots.release(first)
        slots.release(got[0])


def test_a_busy_client_keeps_its_slot(group: Callable[[str], subprocess.Popen[bytes]]) -> None:
    with schedule.Slots(1) as slots:
        first = slots.acquire()
        first.started(group("while True: pass").pid)
        thread, got = later(slots)
        thread.join(timeout=8 * schedule.WINDOW_S)
        assert not got and first.holding and slots.released == 0
        slots.release(first)  # now the second one gets the slot
        thread.join(timeout=20)
        assert got
        slots.release(got[0])


def test_the_longest_expected_waits_start_first(scenario: Callable[[str], Scenario]) -> None:
    a, b, c = (scenario(s) for s in ("spec/conformant", "quirks/mixed-version-direct-message", "faults/never-answers"))
    assert schedule.order([a, b, c]) == [c, b, a]  # the longest time limit, then by id


def test_a_scenario_that_waits_lets_the_next_one_run_at_j_1(scenario: Callable[[str], Scenario]) -> None:
    """At -j 1 a client that hangs (off the CPU) starts first and the other scenario finishes while it hangs; the
    verdicts are what they would be one at a time."""
    hangs = replace(scenario("quirks/mixed-version-direct-message"), timeout=8.0)
    quick = replace(scenario("spec/conformant"), timeout=7.0)
    opts = RunOptions(
        client=fake_command("--defect", "hang", "--defects-for", hangs.id), supports=list(JSONRPC_BOTH), jobs=1
    )
    finished: list[str] = []

    def progress(raw: RawRun, index: int, total: int) -> None:
        finished.append(raw.scenario.id)

    raws = execute_all([quick, hangs], opts, progress)
    results, _ = score_all(raws, opts)
    assert [r.id for r in results] == [quick.id, hangs.id]  # the order asked for
    assert [r.outcome for r in results] == [Outcome.PASS, Outcome.TIMEOUT]
    assert finished == [quick.id, hangs.id], "the quick scenario ran while the other one's client hung"


def test_j_auto_is_one_slot_per_core() -> None:
    assert jobs_value("auto") == schedule.auto_jobs() >= 1
    assert jobs_value("3") == 3
