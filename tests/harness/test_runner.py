"""The runner's robustness: a client that hangs, crashes, never connects, floods, forks or floods stdout costs its own
scenario and nothing else; placeholders and the environment; one seed, one journal."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging import process
from a2a_lab.harness.client_judging.baseline import Baseline
from a2a_lab.harness.client_judging.process import command_for
from a2a_lab.harness.client_judging.runner import (
    RESULT_DEPTH,
    RESULT_LIMIT,
    RawRun,
    RunOptions,
    execute_all,
    outcome_now,
    read_result,
    score_all,
)
from a2a_lab.harness.common.model import Outcome, ScenarioResult
from a2a_lab.protocol.cards import Support

from .conftest import JSONRPC_BOTH, fake_command

RunClient = Callable[..., list[ScenarioResult]]
CONFORMANT, MIXED, SUBMITTED = (
    "spec/conformant",
    "quirks/mixed-version-direct-message",
    "spec/task/submitted-needs-get-task",
)


def _pids(path: Path) -> list[int]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("stubborn", [False, True], ids=["obeys-sigterm", "ignores-sigterm"])
def test_a_hanging_client_times_out_on_time_and_its_process_group_is_killed(
    stubborn: bool, run_client: RunClient, tmp_path: Path, is_alive: Callable[[int], bool]
) -> None:
    pid_file = tmp_path / "pids.json"
    began = time.monotonic()
    [result] = run_client(
        CONFORMANT,
        "--defect",
        "hang",
        "--pid-file",
        str(pid_file),
        *(["--ignore-sigterm"] if stubborn else []),
        timeout=1.5,
    )
    elapsed = time.monotonic() - began
    assert result.outcome is Outcome.TIMEOUT
    assert elapsed < 1.5 + 2.0, elapsed
    assert result.client is not None and result.client.timed_out and result.client.exit_code is None
    client_pid, child_pid = _pids(pid_file)
    assert not is_alive(client_pid)
    assert not is_alive(child_pid), "the client's child outlived the scenario"
    assert [e["kind"] for e in result.journal] == ["card"]  # what it did before hanging is still scored
    checked = result.check("CARD-DISCOVERY")
    assert checked is not None and checked.outcome is Outcome.PASS


def test_a_crashing_client_is_reported_with_its_exit_code_and_traceback(run_client: RunClient) -> None:
    # No --client-supports: nothing else in the run shows what the client speaks, yet giving up is still a failure.
    [result] = run_client(CONFORMANT, "--defect", "crash", supports=None)
    assert result.client is not None
    assert result.client.exit_code == 3
    assert (
        "Traceback (most recent call last)" in result.client.stderr_tail
        and "RuntimeError: fake_client: crashing on purpose" in result.client.stderr_tail
    )
    assert result.outcome is Outcome.NO_CONTACT
    selection = result.check("INTERFACE-SELECTION")
    assert selection is not None and selection.outcome is Outcome.FAIL, selection


def test_a_client_that_never_connects_is_no_contact(run_client: RunClient) -> None:
    [result] = run_client(MIXED, "--defect", "never-connect")
    assert result.outcome is Outcome.NO_CONTACT
    assert result.client is not None and result.client.exit_code == 0
    assert result.journal == []
    checked = result.check("INTERFACE-SELECTION")
    assert checked is not None and checked.outcome is Outcome.FAIL


def test_a_client_that_cannot_start_is_a_harness_error_for_its_scenario_only(
    run_client: RunClient, tmp_path: Path
) -> None:
    [result] = run_client(CONFORMANT, client=str(tmp_path / "no-such-client"))
    assert result.outcome is Outcome.ERROR
    assert result.error and "cannot start" in result.error


def test_a_hanging_client_never_aborts_the_run(run_client: RunClient, fake: Callable[..., str]) -> None:
    # One command for the run; the defect applies in one scenario only, the others see a correct client.
    results = run_client(
        [CONFORMANT, MIXED, SUBMITTED], "--defect", "hang", "--defects-for", MIXED, timeout=1.5, jobs=2
    )
    by_id = {r.id: r for r in results}
    assert [r.id for r in results] == [CONFORMANT, MIXED, SUBMITTED]  # catalogue order, whatever finished first
    assert by_id[MIXED].outcome is Outcome.TIMEOUT
    assert by_id[CONFORMANT].outcome is Outcome.PASS and by_id[SUBMITTED].outcome is Outcome.PASS


def test_a_flooding_client_affects_only_its_own_scenario(run_client: RunClient) -> None:
    results = run_client([CONFORMANT, MIXED], "--defect", "flood", "--defects-for", CONFORMANT, jobs=2)
    flooded, other = results
    assert flooded.id == CONFORMANT and len(flooded.journal) > 300
    assert other.outcome is Outcome.PASS
    assert [e["kind"] for e in other.journal] == ["card", "jsonrpc"]
    assert all("/a2a/jsonrpc" not in e["path"] for e in other.journal)


def test_fork_and_exit_leaves_no_child_behind(
    run_client: RunClient, tmp_path: Path, is_alive: Callable[[int], bool]
) -> None:
    pid_file = tmp_path / "pids.json"
    began = time.monotonic()
    [result] = run_client(CONFORMANT, "--defect", "fork-and-exit", "--pid-file", str(pid_file))
    assert time.monotonic() - began < 5.0  # the sleeping child (600 s) holds no one up
    assert result.client is not None and result.client.exit_code == 0 and not result.client.timed_out
    [child] = _pids(pid_file)
    assert not is_alive(child)


def test_fifty_megabytes_of_stdout_keep_only_a_head_and_a_tail(run_client: RunClient) -> None:
    [result] = run_client(MIXED, "--defect", "big-stdout")
    assert result.outcome is Outcome.PASS  # the client went on to do its job, unblocked by a full pipe
    assert result.client is not None
    tail = result.client.stdout_tail
    assert len(tail.encode()) <= process.HEAD_BYTES + process.TAIL_BYTES + 100
    assert tail.startswith("x" * 1023 + "\n")  # the first lines (where a runtime may print a crash's cause) stay
    assert tail.rstrip().endswith("THE-END-OF-STDOUT")
    dropped = re.search(r"\n\[\.\.\. (\d+) bytes dropped\]\n", tail)
    assert dropped and int(dropped.group(1)) > 50 * 1024 * 1024 - process.TAIL_BYTES - process.HEAD_BYTES


def _invocation(
    run_client: RunClient, fake: Callable[..., str], tmp_path: Path, template_tail: str, scenario: str = MIXED
) -> tuple[dict[str, Any], ScenarioResult]:
    argv_file = tmp_path / "argv.json"
    [result] = run_client(scenario, client=fake("--argv-file", str(argv_file)) + template_tail)
    return json.loads(argv_file.read_text(encoding="utf-8")), result


def test_without_a_placeholder_the_card_url_is_appended(
    run_client: RunClient, fake: Callable[..., str], tmp_path: Path
) -> None:
    seen, result = _invocation(run_client, fake, tmp_path, "")
    card_url = seen["env"]["A2A_LAB_CARD_URL"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\.well-known/agent-card\.json", card_url)
    assert seen["argv"][-1] == card_url and seen["argv"][:2] == ["--argv-file", str(tmp_path / "argv.json")]
    assert result.client is not None and result.client.command[-1] == card_url
    assert result.outcome is Outcome.PASS


def test_card_url_placeholder_is_filled_in_and_nothing_is_appended(
    run_client: RunClient, fake: Callable[..., str], tmp_path: Path
) -> None:
    seen, result = _invocation(run_client, fake, tmp_path, " {card_url}")
    assert seen["argv"][-1] == seen["env"]["A2A_LAB_CARD_URL"]
    assert seen["argv"].count(seen["env"]["A2A_LAB_CARD_URL"]) == 1
    assert result.outcome is Outcome.PASS


def test_base_url_placeholder_is_filled_in(run_client: RunClient, fake: Callable[..., str], tmp_path: Path) -> None:
    seen, result = _invocation(run_client, fake, tmp_path, " {base_url}")
    base = seen["env"]["A2A_LAB_BASE_URL"]
    assert seen["argv"][-1] == base and re.fullmatch(r"http://127\.0\.0\.1:\d+", base)
    assert seen["env"]["A2A_LAB_CARD_URL"] == base + "/.well-known/agent-card.json"
    assert result.outcome is Outcome.PASS  # the client found the card from the origin alone


def test_the_client_environment_names_the_scenario_and_its_ask(
    run_client: RunClient, fake: Callable[..., str], tmp_path: Path
) -> None:
    seen, result = _invocation(run_client, fake, tmp_path, "", scenario=SUBMITTED)
    env = seen["env"]
    assert env["A2A_LAB_SCENARIO"] == SUBMITTED
    assert env["A2A_LAB_MESSAGE"] == "Please process this in the background."
    assert json.loads(env["A2A_LAB_ACTION"]) == {}
    assert env["A2A_LAB_RESULT"].endswith("result.json")
    assert result.client is not None and result.client.result is not None and result.client.result["kind"] == "task"


def test_command_for_placeholders_and_quoting() -> None:
    card, base = "http://h:1/.well-known/agent-card.json", "http://h:1"
    assert command_for("client --x 'a b'", card, base) == ["client", "--x", "a b", card]
    assert command_for("client --card={card_url} --base {base_url}", card, base) == [
        "client",
        f"--card={card}",
        "--base",
        base,
    ]
    assert command_for("client {base_url}", card, base) == ["client", base]


_PORT = re.compile(r"127\.0\.0\.1:\d+")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")


def _normalised(journal: list[dict[str, Any]]) -> list[Any]:
    """A journal without what legitimately differs between runs: times, ports, the host header, the card's hash."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in ("t", "host", "card_sha256")}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return _TIMESTAMP.sub("<time>", _PORT.sub("<host>", value))
        return value

    return walk(journal)


def test_the_same_seed_gives_the_same_journal(run_client: RunClient) -> None:
    scenarios = [SUBMITTED, CONFORMANT]
    first = run_client(scenarios, seed=7, jobs=2)
    second = run_client(scenarios, seed=7, jobs=2)
    other = run_client([SUBMITTED], seed=8)
    for a, b in zip(first, second, strict=True):
        assert a.outcome is Outcome.PASS and a.seed == 7
        assert len(a.journal) >= 2
        assert _normalised(a.journal) == _normalised(b.journal), a.id
    # The seed is not silently ignored: another seed gives other task ids.
    assert _normalised(first[0].journal) != _normalised(other[0].journal)


def test_a_result_file_the_harness_cannot_use_is_reported_not_raised(tmp_path: Path) -> None:
    """Issue 13: a result nested 500 000 levels deep, or a directory, ended the scenario as a harness ERROR. Whatever
    the client leaves at A2A_LAB_RESULT, read_result answers: no file, the object, or why it is unreadable."""
    path = tmp_path / "result.json"
    assert read_result(path) == (None, None)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: path.mkdir(), "not a regular file"),
        (lambda: os.mkfifo(path), "not a regular file"),  # reading it would block: no writer
        (lambda: path.write_text("[" * 500_000 + "]" * 500_000), f"nested deeper than {RESULT_DEPTH} levels"),
        (lambda: path.write_text('{"a":' * 40 + "1" + "}" * 40), f"nested deeper than {RESULT_DEPTH} levels"),
        (lambda: path.write_bytes(b" " * (RESULT_LIMIT + 1)), f"larger than {RESULT_LIMIT} bytes"),
        (lambda: path.write_bytes(b'{"text": "\xff"}'), "not UTF-8"),
        (lambda: path.write_text('{"n": NaN}'), "not JSON"),
        (lambda: path.write_text("[1]"), "must hold a JSON object"),
    ]
    for make, says in cases:
        make()
        result, error = read_result(path)
        assert result is None and error is not None and says in error, (says, error)
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink()
    path.write_text('{"kind": "task", "deep": ' + "[" * 30 + "]" * 30 + "}")
    assert read_result(path)[0] is not None, "nesting within the limit is read"


@pytest.mark.parametrize("declared", [True, False], ids=["declared-supports", "inferred-supports"])
def test_a_progress_lines_outcome_is_the_one_the_scorecard_gives(
    declared: bool, scenario: Callable[[str], Scenario]
) -> None:
    """runner.outcome_now, what a progress line shows before the run is scored as a whole: the same outcome, the
    baseline applied, its stale entries recorded once (by the final scoring)."""
    baseline = Baseline({CONFORMANT: {"VERSION-HEADER": "issue 12", "CARD-DISCOVERY": "fixed in 2.0"}})
    opts = RunOptions(
        client=fake_command("--defect", "no-header"),
        timeout=10,
        supports=list(JSONRPC_BOTH) if declared else None,
        baseline=baseline,
    )
    seen: set[Support] = set()
    now: dict[str, Outcome] = {}

    def progress(raw: RawRun, index: int, total: int) -> None:
        now[raw.scenario.id] = outcome_now(raw, opts, seen)

    raws = execute_all([scenario(CONFORMANT), scenario(MIXED)], opts, progress)
    results, _ = score_all(raws, opts)
    assert now == {r.id: r.outcome for r in results} and set(now.values()) == {Outcome.FAIL}
    assert baseline.stale == [(CONFORMANT, "CARD-DISCOVERY", "PASS")]
    assert [c.baseline for r in results for c in r.checks if c.baseline] == ["issue 12"]
